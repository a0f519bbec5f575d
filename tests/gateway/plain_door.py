"""The plain JSON-RPC door of a generated gateway, in front of a real Ethereum node, in raw bytes.

usage: plain_door.py --results FILE MODE GATEWAY_JSONRPC_URL NODE_URL

MODE `default`: the gateway of the Ethereum execution APIs generated with `--tools 'eth_*'` and
an overlay that takes `eth_sign` (and every `debug_*`) off MCP, run with `--jsonrpc /jsonrpc`.
Its plain endpoint serves what its MCP face exposes and nothing else:

- `eth_sign` (excluded by the overlay) and `net_version` (not chosen by `--tools`) are -32601,
  whatever the member order or escapes of the body, alone or in a batch, and the node never
  sees them (it would sign with an unlocked account: the check asks the node itself that it
  would);
- `rpc.discover` lists the exposed methods only;
- an exposed method (`eth_blockNumber`, `eth_getBalance` by position and by name) answers what
  the node answers.

MODE `unexposed`: the same gateway run with `--jsonrpc-unexposed` too: `eth_sign` is forwarded
(the node's signature comes back), and `rpc.discover` lists it.

Each check appends `PASS plain-MODE: NAME` or `FAIL plain-MODE: NAME: why` to FILE.
Python's standard library only.
"""

import argparse
import json
import sys
import urllib.request


def post(url, body):
    """POSTs the bytes `body`: (status, parsed answer or None)."""
    request = urllib.request.Request(
        url, data=body.encode(), headers={"content-type": "application/json"}, method="POST"
    )
    try:
        with urllib.request.urlopen(request, timeout=20) as response:
            text = response.read()
            return response.status, (json.loads(text) if text else None)
    except urllib.error.HTTPError as error:
        text = error.read()
        return error.code, (json.loads(text) if text else None)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--results", required=True)
    parser.add_argument("mode", choices=["default", "unexposed"])
    parser.add_argument("gateway")
    parser.add_argument("node")
    args = parser.parse_args()
    results = open(args.results, "a")

    def record(name, error=None):
        line = f"PASS plain-{args.mode}: {name}" if error is None else f"FAIL plain-{args.mode}: {name}: {error}"
        print(line)
        results.write(line + "\n")
        results.flush()

    def check(name, condition, detail):
        record(name, None if condition else detail)

    _, accounts = post(args.node, '{"jsonrpc":"2.0","id":1,"method":"eth_accounts","params":[]}')
    account = accounts["result"][0]
    sign = f'["{account}","0xdeadbeef"]'
    # The node itself signs for this account: what the gateway must not forward by default.
    _, signed = post(args.node, f'{{"jsonrpc":"2.0","id":1,"method":"eth_sign","params":{sign}}}')
    check("the node signs for its unlocked account (what is at stake)", "result" in signed, signed)

    bodies = {
        "eth_sign, params before method": f'{{"params":{sign},"id":7,"method":"eth_sign","jsonrpc":"2.0"}}',
        "eth_sign, the method name escaped": f'{{"jsonrpc":"2.0","id":7,"method":"eth_\\u0073ign","params":{sign}}}',
        "net_version (not chosen by --tools)": '{"jsonrpc":"2.0","id":7,"method":"net_version","params":[]}',
    }
    discover_body = '{"id":3,"method":"rpc.discover","jsonrpc":"2.0"}'
    status, discover = post(args.gateway, discover_body)
    listed = [m["name"] for m in discover.get("result", {}).get("methods", [])]

    if args.mode == "default":
        for name, body in bodies.items():
            status, answer = post(args.gateway, body)
            error = (answer or {}).get("error", {})
            check(f"{name}: -32601", status == 200 and error.get("code") == -32601 and "result" not in answer,
                  f"{status} {answer}")
        batch = f'[{{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}},{bodies["eth_sign, params before method"]}]'
        status, answer = post(args.gateway, batch)
        codes = sorted(str(a.get("error", {}).get("code", "result")) for a in answer or [])
        check("a batch: eth_blockNumber answered, eth_sign -32601", status == 200 and codes == ["-32601", "result"],
              f"{status} {answer}")
        check("rpc.discover lists the exposed methods only",
              "eth_blockNumber" in listed and "eth_getBalance" in listed and "eth_sign" not in listed
              and "net_version" not in listed and not any(n.startswith(("debug_", "engine_")) for n in listed),
              f"{len(listed)} methods: {listed[:80]}")
    else:
        status, answer = post(args.gateway, bodies["eth_sign, params before method"])
        check("eth_sign forwarded: the node's signature", status == 200 and answer.get("result") == signed["result"],
              f"{status} {answer}")
        check("rpc.discover lists eth_sign too", "eth_sign" in listed and "net_version" in listed,
              f"{len(listed)} methods")

    for name, body in {
        "eth_blockNumber": '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}',
        "eth_getBalance by position": f'{{"params":["{account}","latest"],"jsonrpc":"2.0","id":2,"method":"eth_getBalance"}}',
    }.items():
        _, expected = post(args.node, body)
        status, answer = post(args.gateway, body)
        check(f"{name} answers what the node answers",
              status == 200 and answer.get("result") == expected.get("result") and "result" in answer,
              f"{status} {answer} (node: {expected})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
