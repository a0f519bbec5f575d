"""A JSON-RPC upstream for tests/oauth-e2e/run.sh's gateway checks: every method answers what
identified its caller, the request's X-User, X-Client and Authorization headers (Python's
standard library, 127.0.0.1). `GET /_calls` answers how many calls it got.

usage: python3 identity_upstream.py PORT
"""
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Upstream(BaseHTTPRequestHandler):
    calls = 0
    lock = threading.Lock()

    def do_GET(self):
        body = str(Upstream.calls).encode()
        self.send_response(200)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        with Upstream.lock:
            Upstream.calls += 1
        request = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
        result = {name: self.headers.get(name) for name in ("x-user", "x-client", "authorization")}
        body = json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": result}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Upstream).serve_forever()
