"""The token exchange checks of tests/oauth-e2e/run.sh (step 7): two gateways generated from the
simple-math document, started with --upstream-auth token-exchange against issuer A
(oidc-provider with the RFC 8693 grant of issuer.mjs), in front of identity_upstream.py, which
answers each call with the Authorization header it got.

- Each of two clients makes a hundred calls: every call reaches the upstream with a token the
  issuer issued in exchange for the client's own (its `sub`, `aud` the upstream, `act` the
  gateway, its `jti` in the issuer's record), never the client's token; a hundred calls cost one
  exchange per client.
- The plain JSON-RPC door (--jsonrpc /jsonrpc) decides the same: raw bytes with their members
  in another order, and a batch, reach the upstream with the same issued token, no new exchange.
- A client whose tokens the issuer refuses to exchange gets an isError naming the OAuth error
  (invalid_grant), and nothing reaches the upstream.
- Behind the second gateway the issued tokens live 2 s: a call after that gets a new one.
- No token, the clients' or the issued ones, is in either gateway's log (debug).

usage: python3 token_exchange.py CONFIG_JSON
  CONFIG_JSON {"issuer", "secret", "gateway", "short", "upstream", "logs": [...]}
Prints one line per check (PASS/FAIL NAME[: detail]).
"""
import base64
import json
import sys
import time
import urllib.parse
import urllib.request

config = json.loads(sys.argv[1])
issuer, upstream = config["issuer"], config["upstream"]
seen_tokens = []


def check(name, ok, detail=""):
    print(f"PASS {name}" if ok else f"FAIL {name}: {str(detail)[:400]}", flush=True)


def get_json(url):
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.load(response)


def token_for(client, resource):
    credentials = base64.b64encode(f"{client}:{config['secret']}".encode()).decode()
    body = urllib.parse.urlencode(
        {"grant_type": "client_credentials", "scope": "mcp", "resource": resource}
    ).encode()
    request = urllib.request.Request(
        f"{issuer}/token", data=body, headers={"authorization": f"Basic {credentials}"}
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        token = json.load(response)["access_token"]
    seen_tokens.append(token)
    return token


def call(gateway, token):
    """tools/call addition at 2026-07-28 (stateless): the result."""
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    body = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "addition", "arguments": {"a": 2, "b": 3}, "_meta": meta},
        }
    ).encode()
    request = urllib.request.Request(
        gateway,
        data=body,
        headers={
            "content-type": "application/json",
            "accept": "application/json, text/event-stream",
            "mcp-protocol-version": "2026-07-28",
            "mcp-method": "tools/call",
            "mcp-name": "addition",
            "authorization": f"Bearer {token}",
        },
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.load(response)["result"]


def issued(result):
    """The claims of the token the upstream got (the tool's text is what it saw)."""
    seen = json.loads(result["content"][0]["text"])
    authorization = seen["authorization"] or ""
    scheme, _, token = authorization.partition(" ")
    assert scheme == "Bearer", seen
    seen_tokens.append(token)
    payload = token.split(".")[1]
    return token, json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def exchanges(audience):
    return [e for e in get_json(f"{issuer}/_exchanges") if e["audience"] == audience]


# ---- two clients, a hundred calls each --------------------------------------------------------
for client in ("mcp-e2e", "mcp-e2e-2"):
    try:
        token = token_for(client, config["gateway"])
        jtis, problems = set(), []
        for _ in range(100):
            result = call(config["gateway"], token)
            sent, claims = issued(result)
            if sent == token:
                problems.append("the client's own token reached the upstream")
            if claims.get("sub") != client or claims.get("aud") != upstream:
                problems.append(f"sub {claims.get('sub')}, aud {claims.get('aud')}")
            if claims.get("act") != {"sub": "mcp-gateway"}:
                problems.append(f"act {claims.get('act')}")
            jtis.add(claims.get("jti"))
        recorded = [e for e in exchanges(upstream) if e["sub"] == client]
        check(
            f"token exchange: {client}'s hundred calls reach the upstream with a token issued for it "
            "(sub its own, aud the upstream, act the gateway), never its own",
            not problems and jtis <= {e["jti"] for e in recorded},
            problems[:3] or f"jti {jtis} not in {recorded}",
        )
        check(
            f"token exchange: {client}'s hundred calls cost one exchange",
            len(recorded) == 1 and len(jtis) == 1,
            f"{len(recorded)} exchanges, {len(jtis)} tokens",
        )
    except Exception as error:  # noqa: BLE001 - a check that cannot run fails
        check(f"token exchange: {client}'s calls", False, repr(error))

# ---- the plain JSON-RPC door: raw bytes, another member order, a batch -------------------------
try:
    token = token_for("mcp-e2e", config["gateway"])
    before = len([e for e in exchanges(upstream) if e["sub"] == "mcp-e2e"])
    door = config["gateway"].rsplit("/mcp", 1)[0] + "/jsonrpc"
    raw = b'[{"params":[2,3],"method":"addition","id":7,"jsonrpc":"2.0"},' \
          b'{"jsonrpc":"2.0","params":{"b":1,"a":1},"id":"eight","method":"addition"}]'
    request = urllib.request.Request(
        door,
        data=raw,
        headers={"content-type": "application/json", "authorization": f"Bearer {token}"},
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        answers = json.load(response)
    claims = []
    for answer in answers:
        authorization = answer["result"]["authorization"]
        seen_tokens.append(authorization.partition(" ")[2])
        payload = authorization.partition(" ")[2].split(".")[1]
        claims.append(json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))))
    after = len([e for e in exchanges(upstream) if e["sub"] == "mcp-e2e"])
    check(
        "token exchange: the plain JSON-RPC door (raw bytes, members in another order, a batch) "
        "sends the same issued token, one exchange for the caller's token",
        len(answers) == 2
        and all(c["sub"] == "mcp-e2e" and c["aud"] == upstream for c in claims)
        and after == before + 1,
        f"{answers} ({before} then {after} exchanges)",
    )
except Exception as error:  # noqa: BLE001
    check("token exchange: the plain JSON-RPC door", False, repr(error))

# ---- a refused exchange -----------------------------------------------------------------------
try:
    before = get_json(f"{upstream}_calls")
    result = call(config["gateway"], token_for("mcp-e2e-3", config["gateway"]))
    text = result["content"][0]["text"]
    check(
        "token exchange: a refused exchange is an isError naming the OAuth error, and nothing "
        "reaches the upstream",
        result.get("isError") is True
        and "(invalid_grant)" in text
        and get_json(f"{upstream}_calls") == before,
        result,
    )
except Exception as error:  # noqa: BLE001
    check("token exchange: a refused exchange", False, repr(error))

# ---- an issued token that expires -------------------------------------------------------------
try:
    short = f"{upstream}short"
    token = token_for("mcp-e2e", config["short"])
    first, claims = issued(call(config["short"], token))
    again, _ = issued(call(config["short"], token))
    lifetime = claims["exp"] - claims["iat"]
    time.sleep(lifetime + 0.2)
    renewed, _ = issued(call(config["short"], token))
    check(
        f"token exchange: an issued token of {lifetime} s is reused while it lasts, and renewed "
        "once it has expired (the call succeeds)",
        first == again and renewed != first and len(exchanges(short)) == 2,
        f"{len(exchanges(short))} exchanges",
    )
except Exception as error:  # noqa: BLE001
    check("token exchange: an issued token that expires", False, repr(error))

# ---- nothing logged ---------------------------------------------------------------------------
logged = "".join(open(path, encoding="utf-8", errors="replace").read() for path in config["logs"])
leaked = [token[:12] for token in set(seen_tokens) if token and token in logged]
check(
    f"token exchange: none of the {len(set(seen_tokens))} tokens (the clients', the issued) is "
    "in the gateways' logs (debug)",
    not leaked and len(seen_tokens) > 4,
    leaked,
)
