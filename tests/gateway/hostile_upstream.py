"""A JSON-RPC upstream that misbehaves on request, for the gateway of hostile.openrpc.json.

usage: hostile_upstream.py PORT

Serves HTTP/1.1 with keep-alive on 127.0.0.1:PORT. Each call names how it is answered: by its
`mode` param (`{"mode": M}` by name, `[M]` by position), one of
  ok         the result: `reading` {"value": "0x1f", "count": 3}, `height` 7
  bad-type   a result of the wrong type: `reading` {"value": 5, ...}, `height` "seven"
  bad-rule   a result that breaks a rule serde does not check: `reading` count -1, `height` 0
  rpc-error  the JSON-RPC error -32000 "node says no" with data
  slow       the result after SLOW seconds (past the gateway's --upstream-timeout)
  http-500   HTTP 500 with a text body
  http-429   HTTP 429 with Retry-After: 7
  garbage    HTTP 200 with a body that is not JSON
  huge       HTTP 200, a chunked body of 100 MB (no Content-Length) that never ends the JSON
  wrong-id   the result under another id
  stall      HTTP 200 with a Content-Length of 1000, 20 bytes of it, then nothing for SLOW s
The process runs until it is killed.
"""

import json
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SLOW = 10
HUGE = 100 << 20
RESULTS = {
    "reading": {"ok": {"value": "0x1f", "count": 3}, "bad-type": {"value": 5, "count": 3},
                "bad-rule": {"value": "0x1f", "count": -1}},
    "height": {"ok": 7, "bad-type": "seven", "bad-rule": 0},
}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send(self, status, body, content_type="application/json", headers=()):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def answer(self, id, result=None, error=None):
        reply = {"jsonrpc": "2.0", "id": id}
        reply.update({"error": error} if error is not None else {"result": result})
        self.send(200, json.dumps(reply).encode())

    def do_POST(self):
        request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        method, id, params = request["method"], request["id"], request.get("params")
        mode = params["mode"] if isinstance(params, dict) else params[0]
        try:
            self.behave(method, id, mode)
        except (BrokenPipeError, ConnectionResetError):
            # The gateway gave up on this answer (past its limit or its timeout).
            self.close_connection = True

    def behave(self, method, id, mode):
        if mode in ("ok", "bad-type", "bad-rule"):
            self.answer(id, RESULTS[method][mode])
        elif mode == "rpc-error":
            self.answer(id, error={"code": -32000, "message": "node says no", "data": {"mode": mode}})
        elif mode == "slow":
            time.sleep(SLOW)
            self.answer(id, RESULTS[method]["ok"])
        elif mode == "http-500":
            self.send(500, b"internal failure", "text/plain")
        elif mode == "http-429":
            self.send(429, b"slow down", "text/plain", [("Retry-After", "7")])
        elif mode == "garbage":
            self.send(200, b"this is not JSON at all")
        elif mode == "huge":
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            chunk = b"a" * (1 << 20)
            self.write_chunk(b'{"jsonrpc":"2.0","id":%d,"result":"' % id)
            for _ in range(HUGE // len(chunk)):
                self.write_chunk(chunk)
            self.write_chunk(b'"}')
            self.wfile.write(b"0\r\n\r\n")
        elif mode == "wrong-id":
            self.answer(id + 1000, RESULTS[method]["ok"])
        elif mode == "stall":
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "1000")
            self.end_headers()
            self.wfile.write(b'{"jsonrpc":"2.0","id"')
            self.wfile.flush()
            time.sleep(SLOW)
            self.close_connection = True
        else:
            self.send(400, b"unknown mode", "text/plain")

    def write_chunk(self, data):
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))


if __name__ == "__main__":
    server = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler)
    server.daemon_threads = True
    server.serve_forever()
