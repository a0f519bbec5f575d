"""The official Python MCP SDK client against generated gateways in front of real upstreams.

usage: client.py --results FILE SCENARIO TARGET [ARGS...]

SCENARIO is one of
  eth URL|BIN [--stdio]   the Ethereum gateway (fixtures/gateway/ethereum.openrpc.json,
                          --tools 'eth_*' --overlay fixtures/gateway/eth-overlay.json) in front
                          of a hardhat node: over Streamable HTTP at URL in both eras (mode
                          "legacy" and "auto", which adopts 2026-07-28), or BIN spawned over
                          stdio with the ARGS that follow
  catalog URL             the same gateway with --tool-mode catalog: search_tools,
                          describe_tool and call_tool reach every tool
  examples URL DOC        a gateway of the OpenRPC document DOC in front of
                          @open-rpc/mock-server serving DOC: every example pairing of DOC called
                          as a tool answers the example's result
  hostile URL             the gateway of tests/gateway/hostile.openrpc.json (--check-results,
                          --upstream-timeout 2s) in front of hostile_upstream.py: results checked
                          against the document (outputSchema and structuredContent when they
                          fit, an isError naming the JSON pointer when they do not), and every
                          misbehaviour (slow, HTTP 500/429, garbage, 100 MB, wrong id, stalled
                          body) an isError result within the timeout, each followed by a call
                          that succeeds
  down URL                the same gateway with --upstream naming a port nobody listens on
  budget URL NODE         the Ethereum gateway (64 KiB result budget by default) in front of the
                          node at NODE: a block holding a 48 KB transaction, hydrated, comes back
                          as an outline and a resource_link, whose whole read and whose pages
                          put together are the node's own answer byte for byte; a jq filter
                          keeps only what it names, and hostile filters are each an isError

Only the SDK's public client API is used. Every check prints "PASS name" or "FAIL name: why"
and appends that line to FILE; run.sh counts them. A scenario that cannot go on adds a FAIL
line and exits 3.
"""

import argparse
import json
import re
import sys
import time
import traceback
import urllib.request

import anyio
import mcp_types as types
from mcp import Client, StdioServerParameters

TIMEOUT = 20
# hardhat's first two funded accounts (10,000 ETH each at start).
ACCOUNT = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266"
OTHER = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8"
# The identity precompile: an eth_call to it answers its call data.
IDENTITY = "0x0000000000000000000000000000000000000004"


class Checks:
    def __init__(self, scenario, results, timeout=TIMEOUT):
        self.scenario = scenario
        self.results = results
        self.timeout = timeout

    def record(self, name, error=None):
        line = f"PASS {self.scenario}: {name}" if error is None else f"FAIL {self.scenario}: {name}: {error}"
        print(line, flush=True)
        with open(self.results, "a") as out:
            out.write(line + "\n")

    async def run(self, name, check, *args):
        """Runs `await check(*args)`; any exception (an assert included) fails the check."""
        try:
            with anyio.fail_after(self.timeout):
                await check(*args)
        except BaseException as e:  # noqa: BLE001: every failure is a FAIL line, and the next runs
            if isinstance(e, (KeyboardInterrupt, SystemExit)):
                raise
            detail = "".join(traceback.format_exception_only(e)).strip().replace("\n", " | ")
            self.record(name, detail[:600] or type(e).__name__)
        else:
            self.record(name)


# What the major model APIs accept, with room for a host's `mcp__server__` prefix.
PORTABLE_TOOL = re.compile(r"^[A-Za-z0-9_-]{1,48}$")
PORTABLE_PROPERTY = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")


async def every_tool(client):
    """Every tool of the server, page after page."""
    tools, cursor = [], None
    while True:
        page = await client.list_tools(cursor=cursor)
        tools.extend(page.tools)
        cursor = page.next_cursor
        if not cursor:
            return tools


def property_names(schema, at=""):
    """Every property name of `schema`, at any depth, with where it is."""
    if isinstance(schema, dict):
        for name, sub in (schema.get("properties") or {}).items():
            yield f"{at}/{name}", name
            yield from property_names(sub, f"{at}/{name}")
        for key, sub in schema.items():
            if key != "properties":
                yield from property_names(sub, f"{at}/{key}")
    elif isinstance(schema, list):
        for i, sub in enumerate(schema):
            yield from property_names(sub, f"{at}/{i}")


async def portable(c, client):
    """Every tool name and every property name of every inputSchema is one the model APIs take."""
    async def names():
        bad = []
        for tool in await every_tool(client):
            if not PORTABLE_TOOL.match(tool.name):
                bad.append(f"tool {tool.name!r}")
            for where, name in property_names(tool.input_schema):
                if not PORTABLE_PROPERTY.match(name):
                    bad.append(f"{tool.name}{where}")
        assert not bad, f"{len(bad)} names the model APIs refuse: {bad[:10]}"

    await c.run("every tool and argument name is portable", names)


def value_of(result, string=False):
    """The tool's result as the upstream sent it: its text block, which is the result itself
    for a string (`string`), else its JSON."""
    assert not result.is_error, f"isError: {result.content}"
    assert len(result.content) == 1 and result.content[0].type == "text", result.content
    text = result.content[0].text
    return text if string else json.loads(text)


async def eth(c, client, node="hardhat"):
    tools = {tool.name: tool for tool in (await client.list_tools()).tools}

    async def listed():
        for name in ["eth_blockNumber", "balance", "eth_call", "eth_sendTransaction",
                     "eth_getTransactionByHash", "eth_chainId"]:
            assert name in tools, f"{name} not listed: {sorted(tools)}"
        assert "eth_sign" not in tools, "the overlay hides eth_sign"
        assert "eth_getBalance" not in tools, "the overlay renames eth_getBalance to balance"
        assert not any(name.startswith("debug_") for name in tools), sorted(tools)
        send = tools["eth_sendTransaction"].annotations
        assert send.destructive_hint is True and send.read_only_hint is False, send
        assert tools["balance"].annotations.read_only_hint is True, tools["balance"].annotations

    async def block_number():
        number = value_of(await client.call_tool("eth_blockNumber", {}), string=True)
        assert isinstance(number, str) and number.startswith("0x"), number

    async def chain_id():
        assert value_of(await client.call_tool("eth_chainId", {}), string=True) == "0x7a69"  # 31337

    async def balance():
        wei = value_of(await client.call_tool("balance", {"Address": ACCOUNT, "Block": "latest"}), string=True)
        assert int(wei, 16) > 9_000 * 10**18, wei
        # The optional block left out: the trailing param is omitted. hardhat defaults it;
        # anvil requires it, and its refusal reaches the client as it sent it.
        without = await client.call_tool("balance", {"Address": OTHER})
        if node == "anvil":
            assert without.is_error and "-32602" in without.content[0].text, without
        else:
            assert int(value_of(without, string=True), 16) > 0

    async def hydrated():
        # The document's param `Hydrated transactions` is published as `Hydrated_transactions`,
        # and the node still gets it (by position here).
        assert "Hydrated_transactions" in tools["eth_getBlockByNumber"].input_schema["properties"]
        block = value_of(await client.call_tool(
            "eth_getBlockByNumber", {"Block": "latest", "Hydrated_transactions": True}))
        assert block["number"].startswith("0x") and isinstance(block["transactions"], list), block
        # The document's name is still taken (a client that read the document) ...
        same = value_of(await client.call_tool(
            "eth_getBlockByNumber", {"Block": "latest", "Hydrated transactions": True}))
        assert same["number"] == block["number"], same
        # ... but not both at once: one param given twice is refused before the node.
        try:
            twice = await client.call_tool("eth_getBlockByNumber", {
                "Block": "latest", "Hydrated_transactions": True, "Hydrated transactions": False})
        except Exception as e:  # noqa: BLE001: before 2025-11-25, -32602
            assert "-32602" in str(e) or "duplicate" in str(e), e
        else:
            assert twice.is_error and "duplicate" in twice.content[0].text, twice

    async def call():
        out = value_of(await client.call_tool(
            "eth_call", {"Transaction": {"to": OTHER, "input": "0x"}, "Block": "latest"}), string=True)
        assert out == "0x", out
        # `data` beside `input`, as the overlay's action patches GenericTransaction: the identity
        # precompile (0x..04) answers the call data it was given, so the node saw it.
        echoed = value_of(await client.call_tool(
            "eth_call", {"Transaction": {"to": IDENTITY, "data": "0xdeadbeef"}, "Block": "latest"}),
            string=True)
        assert echoed == "0xdeadbeef", echoed
        # A slip of a member's name is refused before the node, naming the one meant.
        try:
            slip = await client.call_tool(
                "eth_call", {"Transaction": {"to": IDENTITY, "dat": "0x01"}, "Block": "latest"})
        except Exception as e:  # noqa: BLE001: before 2025-11-25, -32602
            assert "did you mean `data`?" in str(e), e
        else:
            assert slip.is_error and "/Transaction/dat: is not allowed (did you mean `data`?)" \
                in slip.content[0].text, slip

    async def send_and_get():
        sent = value_of(await client.call_tool(
            "eth_sendTransaction", {"Transaction": {"from": ACCOUNT, "to": OTHER, "value": "0x1"}}),
            string=True)
        assert isinstance(sent, str) and len(sent) == 66, sent
        tx = value_of(await client.call_tool("eth_getTransactionByHash", {"Transaction hash": sent}))
        assert tx["hash"] == sent and tx["from"] == ACCOUNT and tx["value"] == "0x1", tx

    async def node_error():
        # Valid for the contract, refused by the node: a block that does not exist yet. Each
        # node has its code (hardhat -32000 "invalid block tag", anvil -32602 "BlockOutOfRange").
        result = await client.call_tool("balance", {"Address": ACCOUNT, "Block": "0x999999"})
        assert result.is_error, result
        text = result.content[0].text
        code = re.match(r"upstream error (-?\d+): ", text)
        assert code and ("block" in text.lower()), text
        if result.structured_content is not None:
            assert result.structured_content["code"] == int(code.group(1)), result.structured_content

    async def invalid_arguments():
        # Refused by the contract's validation before anything reaches the node.
        try:
            result = await client.call_tool("balance", {"Address": "not-an-address"})
        except Exception as e:  # noqa: BLE001: before 2025-11-25, -32602
            assert "-32602" in str(e) or "Invalid arguments" in str(e), e
        else:
            assert result.is_error and "Address" in result.content[0].text, result

    await c.run("tools/list: the selection and the overlay", listed)
    await c.run("eth_blockNumber", block_number)
    await c.run("eth_chainId", chain_id)
    await c.run("balance (eth_getBalance) of a funded account, with and without the block", balance)
    await c.run("eth_call, with `data` as the overlay's action allows", call)
    await c.run("eth_getBlockByNumber with the portable Hydrated_transactions", hydrated)
    await c.run("eth_sendTransaction, then eth_getTransactionByHash of it", send_and_get)
    await c.run("a node error is an isError result with the node's code", node_error)
    await c.run("invalid arguments are refused before the node", invalid_arguments)


def node_call(node, method, params):
    """`method` with `params` sent to the node itself: its raw answer's text."""
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode()
    request = urllib.request.Request(node, body, {"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=TIMEOUT) as answer:
        return answer.read().decode()


async def budget(c, client, node):
    # A transaction with 48 KB of call data: its block, hydrated, is about 100 KB of JSON.
    state = {}

    async def mined():
        data = "0x" + "ab" * 48_000
        sent = json.loads(node_call(node, "eth_sendTransaction", [
            {"from": ACCOUNT, "to": OTHER, "data": data, "gas": "0x1000000"}]))
        assert "result" in sent, sent
        # anvil mines a moment after it answers: its receipt is null until then.
        for _ in range(100):
            receipt = json.loads(node_call(node, "eth_getTransactionReceipt", [sent["result"]]))["result"]
            if receipt is not None:
                break
            await anyio.sleep(0.05)
        assert receipt is not None, "no receipt after 5 s"
        # An empty block after it: "latest" stays small for the scenarios after.
        node_call(node, "evm_mine", [])
        raw = node_call(node, "eth_getBlockByNumber", [receipt["blockNumber"], True])
        state.update(hash=sent["result"], number=receipt["blockNumber"], raw=raw,
                     expected=json.loads(raw)["result"])

    await c.run("the node mines a transaction with 48 KB of call data", mined)
    if "raw" not in state:
        return
    number, raw, expected = state["number"], state["raw"], state["expected"]

    async def outlined():
        result = await client.call_tool(
            "eth_getBlockByNumber", {"Block": number, "Hydrated_transactions": True})
        assert not result.is_error, result.content
        assert result.structured_content is None, "an outline has no structuredContent"
        text, link = result.content[0], result.content[1]
        assert text.type == "text" and "over this tool's budget of 65,536 bytes" in text.text, text
        assert f'"number": "{number}"' in text.text or f'"number":"{number}"' in text.text, text.text[:2000]
        assert "characters)" in text.text, "the call data is shortened in the outline"
        assert len(text.text) < 8_000, len(text.text)
        assert link.type == "resource_link" and str(link.uri).startswith("mcp-result://"), link
        assert link.size > 65_536 and link.mime_type == "application/json", link
        state["uri"], state["size"] = str(link.uri), link.size

    async def whole():
        read = await client.read_resource(state["uri"])
        text = read.contents[0].text
        assert len(text.encode()) == state["size"], (len(text), state["size"])
        assert json.loads(text) == expected, "the link reads the node's result"
        assert text in raw, "byte for byte, as the node sent it"

    async def pages():
        count = -(-state["size"] // 65_536)
        assert count >= 2, count
        joined = ""
        for page in range(1, count + 1):
            text = (await client.read_resource(f"{state['uri']}/{page}")).contents[0].text
            assert len(text.encode()) <= 65_536 + 3, (page, len(text))
            joined += text
        assert joined in raw and json.loads(joined) == expected, "the pages put together are the node's answer"
        try:
            past = await client.read_resource(f"{state['uri']}/{count + 1}")
        except Exception as e:  # noqa: BLE001: a JSON-RPC error is what is expected
            assert "pages" in str(e), e
        else:
            raise AssertionError(f"a page past the last was read: {past}")

    async def under():
        block = value_of(await client.call_tool(
            "eth_getBlockByNumber", {"Block": number, "Hydrated_transactions": False}))
        assert block["transactions"] == [state["hash"]], block["transactions"]

    async def projected():
        # A jq filter keeps what it names: the block's number and hash and a count, small
        # enough to come whole.
        result = await client.call_tool("eth_getBlockByNumber", {
            "Block": number, "Hydrated_transactions": True,
            "jq": "{number, hash, count: (.transactions | length), size: (.transactions[0].input | length)}"})
        assert value_of(result) == {"number": expected["number"], "hash": expected["hash"],
                                    "count": 1, "size": len(expected["transactions"][0]["input"])}, \
            result.content[0].text[:500]
        several = value_of(await client.call_tool("eth_getBlockByNumber", {
            "Block": number, "Hydrated_transactions": True, "jq": ".number, .hash"}))
        assert several == [expected["number"], expected["hash"]], several

    async def hostile_filter(filter, said):
        # A filter that would run forever, recurse past any stack or allocate without bound
        # runs in a worker that limits itself: an isError (past its CPU limit, or the wall
        # timeout on a busy machine), and the server goes on.
        try:
            result = await client.call_tool("eth_getBlockByNumber", {
                "Block": number, "Hydrated_transactions": False, "jq": filter})
        except Exception as e:  # noqa: BLE001: before 2025-11-25, invalid arguments are -32602
            assert said == "does not parse" and ("-32602" in str(e) or said in str(e)), e
            return
        text = result.content[0].text
        assert result.is_error and any(s in text for s in said.split("|")), result.content
        block = value_of(await client.call_tool("eth_getBlockByNumber", {
            "Block": number, "Hydrated_transactions": False, "jq": ".number"}), string=True)
        assert block == expected["number"], block

    await c.run("a hydrated block over the budget: an outline and a resource_link", outlined)
    if "uri" in state:
        await c.run("the link read whole is the node's answer byte for byte", whole)
        await c.run("the link's pages put together are the node's answer byte for byte", pages)
    await c.run("the same block without its transactions, under the budget, whole", under)
    await c.run("a jq filter returns only the fields it names", projected)
    for name, filter, said in [
        ("a recursion past any stack", "def f: [f]; f", "stopped the worker|ran longer than"),
        ("an endless loop", "until(false; .)", "stopped the worker|ran longer than"),
        ("memory without bound", "[range(1e12)]", "stopped the worker|ran longer than"),
        ("a syntax error", ".[", "does not parse"),
    ]:
        await c.run(f"a hostile jq filter, {name}: an isError, and the next call served",
                    hostile_filter, filter, said)


def resolve(document, value):
    """`value`, or what its `$ref` (into this document) names."""
    while isinstance(value, dict) and "$ref" in value:
        target = document
        for part in value["$ref"].removeprefix("#/").split("/"):
            target = target[part]
        value = target
    return value


async def checked(c, client, node):
    """The Ethereum gateway with --check-results, in front of `node` (hardhat or anvil)."""
    async def logs():
        # The document's eth_getLogs result is a oneOf of two arrays that `[]` both match: the
        # document means "any of", so the node's commonest answer passes.
        found = value_of(await client.call_tool(
            "eth_getLogs", {"Filter": {"fromBlock": "0x0", "toBlock": "latest"}}))
        assert isinstance(found, list), found

    async def leaf():
        # hardhat's hydrated transactions lack `blockTimestamp`, which the document requires:
        # the error names the leaf, through the result's unions. anvil's block fits.
        await client.call_tool(
            "eth_sendTransaction", {"Transaction": {"from": ACCOUNT, "to": OTHER, "value": "0x1"}})
        result = await client.call_tool(
            "eth_getBlockByNumber", {"Block": "latest", "Hydrated_transactions": True})
        if node == "anvil":
            block = value_of(result)
            assert block["transactions"][0]["blockTimestamp"], block
            return
        assert result.is_error, result
        text = result.content[0].text
        assert "nearest: (2 object Block) /transactions/0/blockTimestamp is required" in text, text

    await c.run("eth_getLogs [] passes the document's oneOf", logs)
    if node == "anvil":
        await c.run("a hydrated block that fits the document passes", leaf)
    else:
        await c.run("a real mismatch names its leaf pointer", leaf)


async def catalog(c, client):
    """The Ethereum gateway with --tool-mode catalog: three tools that reach all of them."""
    tools = {tool.name: tool for tool in (await client.list_tools()).tools}

    async def listed():
        assert sorted(tools) == ["call_tool", "describe_tool", "search_tools"], sorted(tools)

    async def search():
        found = value_of(await client.call_tool("search_tools", {"query": "balance"}))
        names = [tool["name"] for tool in found["tools"]]
        assert "balance" in names, found
        # Ranked, in the model's words (tests/tests/catalog_search.rs has the whole table).
        latest = value_of(await client.call_tool("search_tools", {"query": "latest block"}))
        assert "eth_blockNumber" in [tool["name"] for tool in latest["tools"][:3]], latest
        every = value_of(await client.call_tool("search_tools", {"query": "", "limit": 50}))
        assert every["total"] >= 40 and len(every["tools"]) <= 50, every["total"]

    async def describe():
        described = value_of(await client.call_tool("describe_tool", {"name": "balance"}))
        assert described["name"] == "balance", described
        assert "Address" in described["inputSchema"]["properties"], described
        missing = await client.call_tool("describe_tool", {"name": "eth_nothing"})
        assert missing.is_error and "search_tools" in missing.content[0].text, missing

    async def call():
        wei = value_of(await client.call_tool(
            "call_tool", {"name": "balance", "arguments": {"Address": ACCOUNT}}), string=True)
        assert int(wei, 16) > 0, wei
        number = value_of(await client.call_tool("call_tool", {"name": "eth_blockNumber"}), string=True)
        assert number.startswith("0x"), number

    async def call_checked():
        # The called tool's own validation runs: a bad address never reaches the node.
        try:
            result = await client.call_tool(
                "call_tool", {"name": "balance", "arguments": {"Address": "nope"}})
        except Exception as e:  # noqa: BLE001: before 2025-11-25, -32602
            assert "-32602" in str(e) or "Invalid arguments" in str(e), e
        else:
            assert result.is_error and "Address" in result.content[0].text, result
        node = await client.call_tool(
            "call_tool", {"name": "balance", "arguments": {"Address": ACCOUNT, "Block": "0x999999"}})
        assert node.is_error and "-32000" in node.content[0].text, node

    async def selection():
        # What the overlay took off MCP is off every door of the catalog too.
        signing = value_of(await client.call_tool("search_tools", {"query": "sign", "limit": 50}))
        assert "eth_sign" not in [tool["name"] for tool in signing["tools"]], signing
        hidden = await client.call_tool("describe_tool", {"name": "eth_sign"})
        assert hidden.is_error and "search_tools" in hidden.content[0].text, hidden
        refused = await client.call_tool(
            "call_tool", {"name": "eth_sign", "arguments": {"Address": ACCOUNT, "Data": "0xdeadbeef"}})
        assert refused.is_error and "no tool" in refused.content[0].text, refused

    await c.run("tools/list: search_tools, describe_tool, call_tool only", listed)
    await c.run("eth_sign (off MCP) is not found, described nor called through the catalog", selection)
    await c.run("search_tools", search)
    await c.run("describe_tool", describe)
    await c.run("call_tool forwards to the node", call)
    await c.run("call_tool validates as the tool does; node errors stay isError", call_checked)


async def examples(c, client, path):
    with open(path) as f:
        document = json.load(f)
    listed = {tool.name for tool in (await client.list_tools()).tools}
    count = 0
    for method in document["methods"]:
        method = resolve(document, method)
        params = [resolve(document, p) for p in method.get("params", [])]
        for example in method.get("examples", []):
            example = resolve(document, example)
            if "result" not in example:
                continue
            count += 1
            # An example's params stand in the order of the method's (an Example object's
            # `name` names the example, not the param).
            values = [resolve(document, p)["value"] for p in example.get("params", [])]
            arguments = {param["name"]: value for param, value in zip(params, values)}
            expected = resolve(document, example["result"])["value"]

            async def check(method=method, arguments=arguments, expected=expected):
                assert method["name"] in listed, f"{method['name']} not listed"
                result = await client.call_tool(method["name"], arguments)
                got = value_of(result, string=isinstance(expected, str))
                assert got == expected, (got, expected)

            await c.run(f"{method['name']}: example {example.get('name', count)!r}", check)
    assert count > 0, "the document has no example pairing"


# The gateway's --upstream-timeout in run.sh, and the most a call through it may take.
UPSTREAM_TIMEOUT = 2.0
BOUND = UPSTREAM_TIMEOUT + 1.5
READING = {"value": "0x1f", "count": 3}


async def timed_call(client, tool, mode):
    """Calls `tool` with `mode`; returns the result and the seconds it took."""
    started = time.monotonic()
    result = await client.call_tool(tool, {"mode": mode})
    return result, time.monotonic() - started


def error_text(result):
    assert result.is_error, f"not an isError result: {result.content} {result.structured_content}"
    assert len(result.content) == 1 and result.content[0].type == "text", result.content
    return result.content[0].text


async def hostile(c, client, modern):
    tools = {tool.name: tool for tool in (await client.list_tools()).tools}

    async def output_schemas():
        schema = tools["reading"].output_schema
        assert schema and schema.get("type") == "object", schema
        assert set(schema.get("properties", {})) == {"value", "count"}, schema
        assert schema["properties"]["value"].get("pattern") == "^0x[0-9a-f]+$", schema
        # A number's schema is an outputSchema only from 2026-07-28 (an object before).
        height = tools["height"].output_schema
        if modern:
            assert height == {"type": "integer", "minimum": 1} or (
                height.get("type") == "integer" and height.get("minimum") == 1), height
        else:
            assert height is None, height

    await c.run("checked tools publish their outputSchema", output_schemas)

    async def ok():
        # The SDK itself checks structuredContent against the outputSchema it listed.
        result, _ = await timed_call(client, "reading", "ok")
        assert not result.is_error, result.content
        assert result.structured_content == READING, result.structured_content
        assert json.loads(result.content[0].text) == READING, result.content
        result, _ = await timed_call(client, "height", "ok")
        assert not result.is_error, result.content
        assert result.content[0].text == "7", result.content
        assert result.structured_content == (7 if modern else None), result.structured_content

    await c.run("a result that fits passes, as structuredContent", ok)

    mismatches = [
        ("reading", "bad-type", ["/value", "expected a string"]),
        ("reading", "bad-rule", ["/count: must be ≥ 0"]),
        ("height", "bad-type", ["(root)", "expected"]),
        ("height", "bad-rule", ["(root): must be ≥ 1"]),
    ]
    for tool, mode, says in mismatches:
        async def mismatch(tool=tool, mode=mode, says=says):
            text = error_text((await timed_call(client, tool, mode))[0])
            assert "does not match the document's result schema" in text, text
            for words in says:
                assert words in text, (words, text)

        await c.run(f"{tool} {mode}: isError naming the pointer", mismatch)

    failures = [
        ("rpc-error", ["upstream error -32000: node says no"]),
        ("slow", ["no answer within 2s"]),
        ("http-500", ["HTTP 500"]),
        ("http-429", ["HTTP 429", "Retry-After: 7"]),
        ("garbage", ["did not answer JSON-RPC"]),
        ("huge", ["more than 16777216 bytes"]),
        ("wrong-id", ["wrong id"]),
        ("stall", ["no answer within 2s"]),
    ]
    for mode, says in failures:
        async def failure(mode=mode, says=says):
            result, took = await timed_call(client, "reading", mode)
            text = error_text(result)
            for words in says:
                assert words in text, (words, text)
            if mode != "rpc-error":
                # The kind and a correlation id; where the upstream is and what it sent stay
                # in the gateway's log.
                assert "correlation id" in text and "127.0.0.1" not in text, text
                assert "internal failure" not in text, text
            assert took < BOUND, f"took {took:.1f} s, more than {BOUND} s"
            if mode == "rpc-error":
                assert result.structured_content == {
                    "code": -32000, "message": "node says no", "data": {"mode": "rpc-error"}
                }, result.structured_content
            # The gateway is still up and serves the next call.
            after, _ = await timed_call(client, "reading", "ok")
            assert not after.is_error and after.structured_content == READING, after.content

        await c.run(f"{mode}: isError within {BOUND} s, then the next call works", failure)


async def down(c, client):
    for attempt in (1, 2):
        async def refused():
            result, took = await timed_call(client, "reading", "ok")
            text = error_text(result)
            assert "could not be reached" in text, text
            assert took < BOUND, f"took {took:.1f} s"

        await c.run(f"an upstream that is down: isError (call {attempt})", refused)


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--results", required=True)
    parser.add_argument("scenario")
    parser.add_argument("target")
    parser.add_argument("rest", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    info = types.Implementation(name="mcp-codegen gateway test", version="1")
    # A scenario run with the gateway on another transport to its node (eth-ws, eth-anvil-ipc,
    # budget-ws): the same checks, named apart.
    scenario = args.scenario.removesuffix("-ws").removesuffix("-ipc")
    if args.scenario == "eth" and args.rest[:1] == ["--stdio"]:
        targets = [(f"eth-stdio-{mode}", StdioServerParameters(command=args.target,
                    args=["--stdio", *args.rest[1:]]), mode) for mode in ("legacy", "auto")]
    elif scenario in ("eth", "eth-anvil", "catalog", "checked", "checked-anvil", "hostile",
                      "down", "names", "budget", "budget-anvil"):
        targets = [(f"{args.scenario}-http-{mode}", args.target, mode) for mode in ("legacy", "auto")]
    else:
        targets = [(f"examples-{mode}", args.target, mode) for mode in ("legacy", "auto")]
    for name, target, mode in targets:
        c = Checks(name, args.results)
        try:
            async with Client(target, mode=mode, client_info=info,
                              read_timeout_seconds=TIMEOUT) as client:
                await portable(c, client)
                if scenario == "names":
                    pass
                elif scenario in ("eth", "eth-anvil"):
                    await eth(c, client, "anvil" if scenario == "eth-anvil" else "hardhat")
                elif scenario in ("checked", "checked-anvil"):
                    await checked(c, client, "anvil" if scenario == "checked-anvil" else "hardhat")
                elif scenario == "catalog":
                    await catalog(c, client)
                elif scenario in ("budget", "budget-anvil"):
                    await budget(c, client, args.rest[0])
                elif scenario == "hostile":
                    await hostile(c, client, mode == "auto")
                elif scenario == "down":
                    await down(c, client)
                else:
                    await examples(c, client, args.rest[0])
        except BaseException as e:  # noqa: BLE001
            c.record("connect and run", "".join(traceback.format_exception_only(e)).strip()[:600])
            sys.exit(3)


if __name__ == "__main__":
    anyio.run(main)
