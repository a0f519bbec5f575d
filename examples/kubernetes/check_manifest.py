#!/usr/bin/env python3
"""Checks everything-server.yaml against a real everything-server, as a kubelet would probe it.

Reads the manifest (PyYAML when installed, else a reader of the few fields needed), starts
the server binary on 127.0.0.1 at the container port with the manifest's environment (less
Redis and the secret: this check needs neither), then:

- GETs the liveness and readiness paths at the probe port the way the kubelet does (a fresh
  connection, Host: 127.0.0.1:PORT, User-Agent: kube-probe/1.31, no Origin, no token): 200;
- opens a slow tools/call, sends SIGTERM, and checks that the readiness probe answers 503
  while that call is still draining and the liveness probe 200 until the call answers and
  the process exits 0.

Usage: check_manifest.py [SERVER_BINARY]   (default: target/debug/everything-server)
"""

import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
MANIFEST = os.path.join(HERE, "everything-server.yaml")


def documents(text):
    """The manifest's documents as dicts: PyYAML if present, else the subset read below."""
    try:
        import yaml  # noqa: PLC0415

        return [doc for doc in yaml.safe_load_all(text) if doc]
    except ImportError:
        return [subset(doc) for doc in text.split("\n---\n") if doc.strip()]


def subset(doc):
    """The fields this check needs from one document, without a YAML library."""

    def field(pattern, where=doc):
        match = re.search(pattern, where, re.M)
        return match.group(1).strip().strip('"') if match else None

    out = {"kind": field(r"^kind:\s*(\S+)"), "metadata": {"name": field(r"^  name:\s*(\S+)")}}
    if out["kind"] != "Deployment":
        return out
    probe = lambda name: {  # noqa: E731
        "httpGet": {
            "path": field(name + r":\s*\n\s*httpGet:\s*\n\s*path:\s*(\S+)"),
            "port": int(field(name + r":\s*\n\s*httpGet:\s*\n\s*path:\s*\S+\s*\n\s*port:\s*(\d+)") or 0),
        }
    }
    env = [
        {"name": name, "value": value.strip('"')}
        for name, value in re.findall(r"- name:\s*(MCP_\w+)\s*\n\s*value:\s*(.*)", doc)
    ]
    container = {
        "name": field(r"- name:\s*(\S+)\s*\n\s*image:"),
        "args": json.loads(field(r"^\s*args:\s*(\[.*\])") or "[]"),
        "ports": [{"containerPort": int(field(r"containerPort:\s*(\d+)") or 0)}],
        "env": env,
        "livenessProbe": probe("livenessProbe"),
        "readinessProbe": probe("readinessProbe"),
    }
    grace = field(r"terminationGracePeriodSeconds:\s*(\d+)")
    spec = {"containers": [container]}
    if grace:
        spec["terminationGracePeriodSeconds"] = int(grace)
    out["spec"] = {"template": {"spec": spec}}
    return out


def kubelet_get(port, path):
    """(status, body) of GET path as the kubelet sends it, on a fresh connection."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as conn:
        conn.sendall(
            (
                f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                "User-Agent: kube-probe/1.31\r\nAccept: */*\r\nConnection: close\r\n\r\n"
            ).encode()
        )
        data = b""
        while chunk := conn.recv(4096):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split(b" ")[1]), body.decode()


def post(port, body, session=None):
    """A POST to /mcp on a connection of its own, as a client reaching the Service by name
    (an allowed host): (status, headers, body) once answered."""
    headers = {
        "Host": "everything-server",
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
    }
    if session:
        headers["Mcp-Session-Id"] = session
        headers["MCP-Protocol-Version"] = "2025-11-25"
    import http.client  # noqa: PLC0415

    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("POST", "/mcp", json.dumps(body), headers)
    response = conn.getresponse()
    return response.status, dict(response.getheaders()), response.read().decode()


def main():
    server = sys.argv[1] if len(sys.argv) > 1 else "target/debug/everything-server"
    with open(MANIFEST) as f:
        docs = documents(f.read())
    kinds = sorted((d["kind"], d["metadata"]["name"]) for d in docs)
    assert kinds == [
        ("Deployment", "everything-server"),
        ("Deployment", "redis"),
        ("Service", "everything-server"),
        ("Service", "redis"),
    ], kinds
    deployment = next(d for d in docs if d["kind"] == "Deployment" and d["metadata"]["name"] == "everything-server")
    pod = deployment["spec"]["template"]["spec"]
    container = pod["containers"][0]
    env = {e["name"]: e["value"] for e in container["env"] if "value" in e}
    assert env["MCP_REDIS_URL"] == "redis://redis:6379/", env
    grace = int(env["MCP_SHUTDOWN_GRACE"].rstrip("s"))
    assert pod["terminationGracePeriodSeconds"] > grace, "the kubelet must wait out --shutdown-grace"
    live = container["livenessProbe"]["httpGet"]
    ready = container["readinessProbe"]["httpGet"]
    port = container["ports"][0]["containerPort"]
    assert live["port"] == ready["port"] == port, (live, ready, port)
    assert (env["MCP_HEALTH_PATH"], env["MCP_READY_PATH"]) == (live["path"], ready["path"])

    # The container's environment and arguments, on loopback; no Redis or secret here.
    run_env = {k: v for k, v in env.items() if k != "MCP_REDIS_URL"}
    run_env = {**os.environ, **run_env, "MCP_REQUEST_STATE_KEY": "00" * 32}
    args = [a.replace("0.0.0.0", "127.0.0.1") for a in container["args"]]
    child = subprocess.Popen([server, *args], env=run_env, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.time() + 10
        while True:
            try:
                assert kubelet_get(port, live["path"]) == (200, "ok\n")
                break
            except OSError:
                assert time.time() < deadline and child.poll() is None, "the server did not start"
                time.sleep(0.05)
        assert kubelet_get(port, ready["path"]) == (200, "ready\n")

        status, headers, _ = post(port, {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "check_manifest", "version": "1"}}})
        assert status == 200, status
        session = {k.lower(): v for k, v in headers.items()}["mcp-session-id"]
        answered = {}
        call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": "slow_compute", "arguments": {"seconds": 3}}}
        slow = threading.Thread(target=lambda: answered.update(r=post(port, call, session)))
        slow.start()
        time.sleep(0.5)

        child.send_signal(signal.SIGTERM)
        time.sleep(0.2)
        draining = kubelet_get(port, ready["path"])
        assert draining == (503, "not ready: draining\n"), draining
        alive = 0
        while slow.is_alive():
            assert kubelet_get(port, live["path"])[0] == 200
            assert kubelet_get(port, ready["path"])[0] == 503
            alive += 1
            time.sleep(0.1)
        assert alive > 5, "the probes were asked while the call drained"
        status, _, body = answered["r"]
        assert status == 200 and "Computed" in body, (status, body)
        assert child.wait(timeout=10) == 0, "exit 0 after draining"
        print(f"ok: {live['path']} and {ready['path']} on port {port}; 503 ready / 200 alive while draining ({alive} rounds)")
    finally:
        if child.poll() is None:
            child.kill()
        child.wait()


if __name__ == "__main__":
    main()
