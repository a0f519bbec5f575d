"""Drives a generated server's plain JSON-RPC endpoint with a third-party client.

jsonrpcclient (https://pypi.org/project/jsonrpcclient/) builds the requests and parses the
answers; httpx posts them. The server is the quickstart (examples/quickstart/openrpc.json),
started with --jsonrpc; its URL is the first argument. With `--unexposed` it was started with
--jsonrpc-unexposed too, and serves the methods without x-mcp (`stats`, `clear`); without, those
are -32601 and rpc.discover leaves them out. Every check failing exits non-zero.
"""

import sys

import httpx
from jsonrpcclient import Error, Ok, notification, parse, request


URL = ""


def post(client, message):
    # The URL whole: httpx's base_url would add a trailing slash (another path).
    return client.post(URL, json=message)


def call(client, method, params=None):
    response = post(client, request(method, params=params))
    assert response.status_code == 200, (method, response.status_code, response.text)
    return parse(response.json())


def ok(client, method, params=None):
    parsed = call(client, method, params)
    assert isinstance(parsed, Ok), (method, params, parsed)
    return parsed.result


def error_code(client, method, params=None):
    parsed = call(client, method, params)
    assert isinstance(parsed, Error), (method, params, parsed)
    return parsed.code


def main(url, unexposed):
    global URL
    URL = url
    with httpx.Client(timeout=10) as client:
        if not unexposed:
            # What MCP does not expose is not served: -32601, and rpc.discover leaves it out.
            assert ok(client, "add", {"a": 2, "b": 3}) == 5
            assert error_code(client, "stats", {}) == -32601
            assert error_code(client, "clear") == -32601
            names = [m["name"] for m in ok(client, "rpc.discover")["methods"]]
            assert "add" in names and "stats" not in names and "clear" not in names, names
            print(f"jsonrpcclient + httpx: every check passed against {url} (exposed methods only)")
            return
        # An MCP tool, by name and by position.
        assert ok(client, "add", {"a": 2, "b": 3}) == 5
        assert ok(client, "add", (40, 2)) == 42
        # A by-name method refuses params by position.
        assert error_code(client, "create_note", ("t", "b")) == -32602
        assert ok(client, "create_note", {"title": "t", "body": "b"})["title"] == "t"
        # The plain methods (no x-mcp): stats by name and by position, clear as a notification.
        assert ok(client, "stats", {}) == {"notes": 1}
        assert ok(client, "stats", ()) == {"notes": 1}
        response = post(client, notification("clear"))
        assert response.status_code == 204 and response.content == b"", response
        assert ok(client, "stats") == {"notes": 0}
        # Errors.
        assert error_code(client, "no_such_method") == -32601
        assert error_code(client, "add", {"a": "two"}) == -32602
        # A batch: answers in order, the notification adds none.
        batch = [request("add", params=(1, 1)), notification("clear"), request("stats")]
        response = post(client, batch)
        assert response.status_code == 200, response.text
        answers = list(parse(response.json()))
        assert [type(a) for a in answers] == [Ok, Ok], answers
        assert answers[0].result == 2 and answers[1].result == {"notes": 0}, answers
        # rpc.discover: the contract.
        document = ok(client, "rpc.discover")
        assert document["info"]["title"] == "Quickstart Notes", document["info"]
        names = [m["name"] for m in document["methods"]]
        assert {"add", "stats", "clear"} <= set(names), names
    print(f"jsonrpcclient + httpx: every check passed against {url}")


if __name__ == "__main__":
    main(sys.argv[1], "--unexposed" in sys.argv[2:])
