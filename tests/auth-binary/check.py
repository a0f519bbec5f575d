#!/usr/bin/env python3
"""A generated server binary with --auth-issuer, end to end on 127.0.0.1.

Usage: check.py SERVER_BINARY   (the crate generated from fixtures/openrpc/mcp-features.openrpc.json,
                                 built with `--features jwt`)

An issuer is played by Python's http.server serving RFC 8414 metadata and a JWKS from files;
tokens are RS256, signed with `openssl dgst` by a key made here. Checks: the binary starts with
the flags, serves the Protected Resource Metadata, answers 401 with the challenge without a
token, 401 invalid_token for a token of another audience, serves a valid token's calls, and
refuses with 403 insufficient_scope a call whose contract scopes (`x-mcp` `scopes`) the token
lacks.
Standard library and the openssl CLI only. Last line: "N passed, M failed".
"""
import base64, json, os, socket, subprocess, sys, tempfile, time, urllib.request, urllib.error

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]

def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()

def lower(headers):
    return {name.lower(): value for name, value in headers.items()}

def wait_port(port):
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise SystemExit(f"nothing listens on {port}")

def main(binary):
    work = tempfile.mkdtemp()
    key = os.path.join(work, "key.pem")
    subprocess.run(["openssl", "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048",
                    "-out", key], check=True, capture_output=True)
    modulus = subprocess.run(["openssl", "rsa", "-in", key, "-noout", "-modulus"], check=True,
                             capture_output=True, text=True).stdout.strip().split("=")[1]
    n = int(modulus, 16).to_bytes((len(modulus) + 1) // 2, "big")
    issuer_port, server_port = free_port(), free_port()
    issuer = f"http://127.0.0.1:{issuer_port}"
    resource = f"http://127.0.0.1:{server_port}/mcp"
    os.makedirs(os.path.join(work, "www/.well-known"))
    with open(os.path.join(work, "www/.well-known/oauth-authorization-server"), "w") as f:
        json.dump({"issuer": issuer, "jwks_uri": f"{issuer}/jwks"}, f)
    with open(os.path.join(work, "www/jwks"), "w") as f:
        json.dump({"keys": [{"kty": "RSA", "kid": "k1", "use": "sig", "alg": "RS256",
                             "n": b64(n), "e": b64((65537).to_bytes(3, "big"))}]}, f)
    procs = [subprocess.Popen([sys.executable, "-m", "http.server", str(issuer_port), "--bind",
                               "127.0.0.1", "--directory", os.path.join(work, "www")],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
    procs.append(subprocess.Popen([binary, "--addr", f"127.0.0.1:{server_port}", "--public-url",
                                   resource, "--auth-issuer", issuer, "--auth-scopes", "mcp", "--jsonrpc", "/jsonrpc",
                                   # `subtract` has no x-mcp: served on /jsonrpc only when asked.
                                   "--jsonrpc-unexposed"]))
    passed = failed = 0

    def check(name, ok, detail=""):
        nonlocal passed, failed
        print(("ok   " if ok else "FAIL ") + name + ("" if ok else f": {detail}"))
        passed, failed = passed + ok, failed + (not ok)

    def token(aud, scope="mcp mcp:read"):
        header = b64(json.dumps({"alg": "RS256", "kid": "k1", "typ": "at+jwt"}).encode())
        claims = b64(json.dumps({"iss": issuer, "aud": aud, "sub": "ci", "scope": scope,
                                 "exp": int(time.time()) + 300}).encode())
        signed = subprocess.run(["openssl", "dgst", "-sha256", "-sign", key],
                                input=f"{header}.{claims}".encode(), check=True,
                                capture_output=True).stdout
        return f"{header}.{claims}.{b64(signed)}"

    def post(body, bearer=None, session=None, url=None):
        """POSTs `body`: a value (as json.dumps writes it) or raw bytes, as an attacker writes
        them (any member order)."""
        headers = {"content-type": "application/json",
                   "accept": "application/json, text/event-stream",
                   "mcp-protocol-version": "2025-06-18"}
        if bearer:
            headers["authorization"] = f"Bearer {bearer}"
        if session:
            headers["mcp-session-id"] = session
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        request = urllib.request.Request(url or resource, data, headers)
        try:
            with urllib.request.urlopen(request) as response:
                return response.status, lower(response.headers), json.load(response)
        except urllib.error.HTTPError as error:
            return error.code, lower(error.headers), json.load(error)

    try:
        wait_port(issuer_port)
        wait_port(server_port)
        metadata_url = f"http://127.0.0.1:{server_port}/.well-known/oauth-protected-resource/mcp"
        with urllib.request.urlopen(metadata_url) as response:
            document = json.load(response)
        check("metadata", document == {"resource": resource, "authorization_servers": [issuer],
                                       "scopes_supported": ["mcp", "mcp:read", "weather", "files"],
                                       "bearer_methods_supported": ["header"]}, document)
        init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "check", "version": "1"}}}
        status, headers, _ = post(init)
        check("401 without a token", status == 401 and headers.get("www-authenticate") ==
              f'Bearer resource_metadata="{metadata_url}", scope="mcp"', (status, headers))
        status, headers, _ = post(init, token("https://other.example/mcp"))
        check("401 for another audience", status == 401 and 'error="invalid_token"' in
              headers.get("www-authenticate", ""), (status, headers))
        good = token(resource)
        status, headers, body = post(init, good)
        check("initialize with a token", status == 200, (status, body))
        session = headers.get("mcp-session-id")
        status, _, body = post({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, good, session)
        check("tools/list with a token", status == 200 and "tools" in body.get("result", {}),
              (status, body))
        echo = {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                "params": {"name": "echo", "arguments": {"text": "hi"}}}
        status, _, body = post(echo, good, session)
        check("a call within the token's scopes", status == 200, (status, body))
        forecast = {"jsonrpc": "2.0", "id": 4, "method": "tools/call",
                    "params": {"name": "weather_forecast", "arguments": {}}}
        status, headers, body = post(forecast, good, session)
        check("403 for a tool whose contract scope the token lacks", status == 403 and
              headers.get("www-authenticate") == f'Bearer resource_metadata="{metadata_url}", '
              'scope="mcp mcp:read weather", error="insufficient_scope", error_description='
              '"the access token lacks the scope this request needs: mcp mcp:read weather"',
              (status, headers))
        status, _, body = post(echo, token(resource, "mcp"), session)
        check("403 for the document's default scope", status == 403, (status, body))
        status, _, body = post(forecast, token(resource, "mcp mcp:read weather"), session)
        check("the tool with its scopes", status == 200, (status, body))
        # The same call with `params` before `method`, as raw bytes: still refused.
        params_first = (b'{"params":{"name":"weather_forecast","arguments":{}},'
                        b'"jsonrpc":"2.0","id":5,"method":"tools/call"}')
        status, _, body = post(params_first, token(resource), session)
        check("403 for the tool with params before method", status == 403, (status, body))
        escaped = (b'{"id":6,"params":{"n\\u0061me":"weather\\u005fforecast"},'
                   b'"method":"tools\\/call","jsonrpc":"2.0"}')
        status, _, body = post(escaped, token(resource), session)
        check("403 for the tool named with escapes", status == 403, (status, body))
        # A method served only on the plain JSON-RPC endpoint (--jsonrpc-unexposed) takes the
        # document's default scopes.
        plain = f"http://127.0.0.1:{server_port}/jsonrpc"
        subtract = {"jsonrpc": "2.0", "id": 7, "method": "subtract", "params": [5, 3]}
        status, _, body = post(subtract, token(resource, "mcp"), url=plain)
        check("403 for a plain method without the document's default scope", status == 403,
              (status, body))
        status, _, body = post(subtract, token(resource), url=plain)
        # (The scaffold's handler answers "not implemented": the call got through.)
        check("a plain method with the document's default scope", status == 200 and
              "not implemented" in json.dumps(body), (status, body))
        # A resource template's contract scopes hold for every URI it matches.
        read = {"jsonrpc": "2.0", "id": 9, "method": "resources/read",
                "params": {"uri": "file:///workspace/notes/today.txt"}}
        status, headers, body = post(read, good, session)
        check("403 for a read of a template URI without the template's scope", status == 403 and
              'scope="mcp mcp:read files"' in headers.get("www-authenticate", ""), (status, headers))
        status, _, body = post(read, token(resource, "mcp mcp:read files"), session)
        check("the template's read with its scopes gets past the edge", status == 200, (status, body))
        # A 2026-07-28 list filtered for its caller (hideUnauthorized) is that caller's alone.
        listing = {"jsonrpc": "2.0", "id": 8, "method": "tools/list", "params": {"_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}}}}
        request = urllib.request.Request(resource, json.dumps(listing).encode(), {
            "content-type": "application/json", "accept": "application/json, text/event-stream",
            "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/list",
            "authorization": f"Bearer {good}"})
        with urllib.request.urlopen(request) as response:
            result = json.load(response).get("result", {})
        names = [tool["name"] for tool in result.get("tools", [])]
        check("a filtered 2026-07-28 list is cacheScope private, without the tools it hides",
              result.get("cacheScope") == "private" and "weather_forecast" not in names
              and "echo" in names, result)
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait()
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0

if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
