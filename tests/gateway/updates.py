"""Subscriptions at a real node as MCP resource updates, through the official Python MCP SDK.

usage: updates.py --results FILE SCENARIO URL NODE [ARGS...]

The gateway at URL is the Ethereum gateway (fixtures/gateway/eth-overlay.json adds
`eth_subscribe` as the resource template `eth://subscription/{subscriptionType}{?filter}`) over
the node's WebSocket; NODE is the node's HTTP endpoint (blocks are mined and transactions sent
there, never through the gateway). Every scenario runs in both eras: a session
(`resources/subscribe`, `notifications/resources/updated`, `resources/unsubscribe`) and
2026-07-28 (`subscriptions/listen` naming the URI).

SCENARIO is one of
  heads LOG       hardhat: one update per block mined with evm_mine, and no more; resources/read
                  shows the mined blocks' hashes; once no client wants the URI the gateway closes
                  the subscription at the node: the id it opened (read from the gateway's debug
                  log, LOG) is a filter the node knows while subscribed (eth_getFilterChanges
                  answers an array) and not after (null), within 5 s
  logs            hardhat: a contract that emits one log per call, deployed for the run; a
                  `logs` subscription filtered by its address gets one update per call, and
                  resources/read shows the logs of those transactions
  restart ANVIL   anvil started (and killed, and started again) by this script at NODE's port,
                  the gateway connected to its WebSocket: mid-stream the node is killed, a call
                  while it is down is an isError at once, and once it is back the subscription
                  is opened again (an update, `reopened` counted) and blocks mined on the new
                  node reach the client
  shared URL_B LOG_A LOG_B PID_A
                  hardhat, two gateway instances (URL and URL_B) sharing one Redis (--redis),
                  their debug logs LOG_A and LOG_B: a session client of the first and a
                  2026-07-28 client of the second subscribe to newHeads; one subscription at the
                  node for both (one opened, in the first's log; the second follows it); each
                  block one update to each client, both reading the same window; the first
                  instance killed (SIGKILL, PID_A): the second takes the subscription over (a
                  new one at the node, an update, `reopened` counted) and the next blocks reach
                  its client; its client gone, the subscription is closed at the node

Every check prints "PASS name" or "FAIL name: why" and appends that line to FILE.
"""

import argparse
import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import time
import traceback
import urllib.parse
import urllib.request

import anyio
import mcp_types as types
from mcp import Client

from client import Checks

TIMEOUT = 20
HEADS = "eth://subscription/newHeads"
# hardhat's and anvil's first funded account.
ACCOUNT = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266"
# A contract whose every call emits one LOG0 (no topics, no data): init code returning the
# runtime code 60006000a000 (PUSH1 0 PUSH1 0 LOG0 STOP).
EMITTER = "0x6560006000a0006000526006601af3"


def node_call(node, method, params=()):
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": list(params)}).encode()
    request = urllib.request.Request(node, data=body, headers={"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        answer = json.load(response)
    if "error" in answer:
        raise AssertionError(f"{method}: {answer['error']}")
    return answer["result"]


def send(node, tx):
    """Sends `tx` from the funded account (automined) and returns its receipt."""
    hash = node_call(node, "eth_sendTransaction", [{"from": ACCOUNT, **tx}])
    for _ in range(50):
        receipt = node_call(node, "eth_getTransactionReceipt", [hash])
        if receipt:
            return receipt
        time.sleep(0.1)
    raise AssertionError(f"no receipt for {hash}")


class Updates:
    """The updates of one URI reaching one client, whatever the era: `next()` waits for one,
    `quiet()` checks that none more come."""

    def __init__(self, client, uri, legacy, inbox):
        self.client, self.uri, self.legacy, self.inbox = client, uri, legacy, inbox
        self.listen = None

    async def __aenter__(self):
        if self.legacy:
            await self.client.subscribe_resource(self.uri)
        else:
            self.listen = self.client.listen(resource_subscriptions=[self.uri])
            self.sub = await self.listen.__aenter__()
            honored = self.sub.honored.resource_subscriptions or []
            assert self.uri in honored, f"not honoured: {honored}"
            self.events = self.sub.__aiter__()
        return self

    async def __aexit__(self, *exc):
        if self.legacy:
            await self.client.unsubscribe_resource(self.uri)
        else:
            await self.listen.__aexit__(*exc)

    async def next(self, within=TIMEOUT):
        with anyio.fail_after(within):
            if self.legacy:
                uri = await self.inbox.receive()
            else:
                uri = (await self.events.__anext__()).uri
        assert uri == self.uri, uri

    async def quiet(self, seconds=1.5):
        with anyio.move_on_after(seconds):
            await self.next(seconds + 1)
            raise AssertionError("an update more than the events")


async def window(client, uri):
    result = await client.read_resource(uri)
    (content,) = result.contents
    assert content.mime_type == "application/json", content.mime_type
    return json.loads(content.text)


async def heads(c, client, legacy, inbox, node, log):
    async def one_per_block():
        async with Updates(client, HEADS, legacy, inbox) as updates:
            mined = []
            for _ in range(3):
                node_call(node, "evm_mine")
                await updates.next()
                mined.append(node_call(node, "eth_getBlockByNumber", ["latest", False])["hash"])
            await updates.quiet()
            read = await window(client, HEADS)
            assert read["subscribed"] is True, read
            hashes = [event["hash"] for event in read["events"]]
            assert hashes[-3:] == mined, (hashes, mined)

    await c.run("one update per block mined, and resources/read shows those blocks", one_per_block)

    async def closed_at_the_node():
        # The gateway's debug log names the id the node gave the subscription it opens.
        async with Updates(client, HEADS, legacy, inbox) as updates:
            node_call(node, "evm_mine")
            await updates.next()
            ids = re.findall(r'upstream subscription opened .*subscription="?([0-9a-fx]+)', open(log).read())
            assert ids, "no subscription id in the gateway's log"
            known = node_call(node, "eth_getFilterChanges", [ids[-1]])
            assert isinstance(known, list), f"the node does not know {ids[-1]} while subscribed: {known}"
        started = time.monotonic()
        while time.monotonic() - started < 8:
            if node_call(node, "eth_getFilterChanges", [ids[-1]]) is None:
                took = time.monotonic() - started
                assert took < 5, f"closed after {took:.1f} s"
                return
            await anyio.sleep(0.2)
        raise AssertionError(f"the node still knows {ids[-1]} 8 s after the last subscriber left")

    await c.run("the last subscriber gone, the subscription is closed at the node", closed_at_the_node)


async def logs(c, client, legacy, inbox, node):
    emitter = send(node, {"data": EMITTER})["contractAddress"]
    uri = "eth://subscription/logs?filter=" + urllib.parse.quote(json.dumps({"address": emitter}, separators=(",", ":")))

    async def one_per_log():
        async with Updates(client, uri, legacy, inbox) as updates:
            sent = []
            for _ in range(3):
                sent.append(send(node, {"to": emitter})["transactionHash"])
                await updates.next()
            # A block without a log of the emitter: no update.
            node_call(node, "evm_mine")
            await updates.quiet()
            read = await window(client, uri)
            seen = [event["transactionHash"] for event in read["events"]]
            assert seen == sent, (seen, sent)
            assert all(event["address"].lower() == emitter.lower() for event in read["events"]), read

    await c.run("a logs subscription: one update per log the contract emits", one_per_log)

    async def refused():
        # A filter the node cannot take is the subscriber's error, not a silent stream.
        bad = "eth://subscription/logs?filter=" + urllib.parse.quote('{"address":"nope"}')
        try:
            async with Updates(client, bad, legacy, inbox):
                if not legacy:
                    return  # a listen stream has no answer to carry it: logged (see updates)
        except Exception as e:  # noqa: BLE001
            assert "address" in str(e).lower() or "invalid" in str(e).lower(), str(e)
            return
        raise AssertionError("an invalid filter was accepted")

    if legacy:
        await c.run("a filter the node refuses fails resources/subscribe", refused)


async def restart(c, client, legacy, inbox, node, anvil):
    port = urllib.parse.urlparse(node).port

    def start():
        process = subprocess.Popen([anvil, "--host", "127.0.0.1", "--port", str(port)],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(100):
            try:
                node_call(node, "eth_chainId")
                return process
            except Exception:  # noqa: BLE001
                time.sleep(0.1)
        raise AssertionError("anvil did not start")

    async def comes_back():
        process = start()
        try:
            async with Updates(client, HEADS, legacy, inbox) as updates:
                node_call(node, "evm_mine")
                await updates.next()
                process.kill()
                process.wait()
                started = time.monotonic()
                down = await client.call_tool("eth_blockNumber", {})
                took = time.monotonic() - started
                assert down.is_error and took < 5, (down, took)
                process = start()
                # Opened again on the new node (the reconnection's backoff is at most 5 s).
                await updates.next(within=15)
                node_call(node, "evm_mine")
                await updates.next()
                read = await window(client, HEADS)
                assert read["reopened"] >= 1, read
                head = node_call(node, "eth_getBlockByNumber", ["latest", False])["hash"]
                assert read["events"][-1]["hash"] == head, (read["events"][-1], head)
                number = await client.call_tool("eth_blockNumber", {})
                assert not number.is_error, number
        finally:
            process.kill()
            process.wait()

    await c.run("the node killed and started again mid-stream: updates come back, no call hangs", comes_back)


OPENED = re.compile(r'upstream subscription opened .*subscription="?([0-9a-fx]+)')


def opened(log):
    """The ids of the subscriptions an instance opened at the node, from its debug log."""
    return OPENED.findall(open(log).read())


async def shared(results, info, node, url_a, url_b, log_a, log_b, pid_a):
    c = Checks("updates-shared", results, timeout=TIMEOUT * 3)
    inbox = {}

    def handler_for(name):
        send_updates, inbox[name] = anyio.create_memory_object_stream(64)

        async def handler(message):
            if isinstance(message, types.ResourceUpdatedNotification):
                await send_updates.send(message.params.uri)

        return handler

    async with Client(url_b, mode="auto", client_info=info, message_handler=handler_for("b"),
                      read_timeout_seconds=TIMEOUT) as b, anyio.create_task_group() as tasks:
        # The first instance's client runs in a task of its own, ended (cancelled) once its
        # server is killed: its connections then fail, and nothing else should see them.
        clients, ready, first = {}, anyio.Event(), anyio.CancelScope()

        async def first_client():
            with first, contextlib.suppress(Exception):
                async with Client(url_a, mode="legacy", client_info=info,
                                  message_handler=handler_for("a"),
                                  read_timeout_seconds=TIMEOUT) as client:
                    clients["a"] = client
                    ready.set()
                    await anyio.sleep_forever()
            ready.set()

        tasks.start_soon(first_client)
        await ready.wait()
        a = clients["a"]
        on_a, on_b = Updates(a, HEADS, True, inbox["a"]), Updates(b, HEADS, False, inbox["b"])

        async def one_at_the_node():
            await on_a.__aenter__()
            await on_b.__aenter__()
            ids = opened(log_a)
            assert len(ids) == 1, f"the first instance opened {ids}"
            assert opened(log_b) == [], f"the second instance opened {opened(log_b)} too"
            assert "this one follows it" in open(log_b).read(), "the second instance does not follow"
            known = node_call(node, "eth_getFilterChanges", [ids[0]])
            assert isinstance(known, list), f"the node does not know {ids[0]}: {known}"

        await c.run("two instances' subscribers to one URI: one subscription at the node", one_at_the_node)

        async def both_told():
            mined = []
            for _ in range(2):
                node_call(node, "evm_mine")
                await on_a.next()
                await on_b.next()
                mined.append(node_call(node, "eth_getBlockByNumber", ["latest", False])["hash"])
            await on_a.quiet(1)
            await on_b.quiet(0.5)
            read_a, read_b = await window(a, HEADS), await window(b, HEADS)
            assert read_a == read_b, (read_a, read_b)
            assert read_a["subscribed"] is True, read_a
            assert [event["hash"] for event in read_a["events"]][-2:] == mined, (read_a, mined)

        await c.run("each block one update to each instance's client, one window read on both", both_told)

        async def taken_over():
            os.kill(pid_a, signal.SIGKILL)
            first.cancel()
            # The lease (15 s) runs out, the second instance takes it (checked every 5 s) and
            # tells of the reopening.
            started = time.monotonic()
            await on_b.next(within=30)
            took = time.monotonic() - started
            ids = opened(log_b)
            assert len(ids) == 1, f"the second instance opened {ids}"
            node_call(node, "evm_mine")
            await on_b.next()
            await on_b.quiet(0.5)
            read = await window(b, HEADS)
            assert read["reopened"] >= 1, read
            head = node_call(node, "eth_getBlockByNumber", ["latest", False])["hash"]
            assert read["events"][-1]["hash"] == head, (read["events"][-1], head)
            print(f"taken over {took:.1f} s after the holder was killed", flush=True)

        await c.run("the holder killed: the other instance opens the subscription again, updates go on", taken_over)

        async def closed_at_the_node():
            await on_b.__aexit__(None, None, None)
            (id,) = opened(log_b)
            started = time.monotonic()
            while time.monotonic() - started < 15:
                if node_call(node, "eth_getFilterChanges", [id]) is None:
                    return
                await anyio.sleep(0.2)
            raise AssertionError(f"the node still knows {id} 15 s after the last subscriber left")

        await c.run("the last subscriber of any instance gone, the subscription is closed at the node", closed_at_the_node)
        first.cancel()


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--results", required=True)
    parser.add_argument("scenario")
    parser.add_argument("target")
    parser.add_argument("node")
    parser.add_argument("rest", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    info = types.Implementation(name="mcp-codegen gateway updates test", version="1")
    if args.scenario == "shared":
        url_b, log_a, log_b, pid_a = args.rest
        try:
            await shared(args.results, info, args.node, args.target, url_b, log_a, log_b, int(pid_a))
        except BaseException as e:  # noqa: BLE001
            Checks("updates-shared", args.results).record(
                "connect and run", "".join(traceback.format_exception_only(e)).strip()[:600])
            sys.exit(3)
        return
    for mode in ("legacy", "auto"):
        legacy = mode == "legacy"
        c = Checks(f"updates-{args.scenario}-{mode}", args.results, timeout=TIMEOUT * 2)
        send_updates, inbox = anyio.create_memory_object_stream(64)

        async def handler(message):
            if isinstance(message, types.ResourceUpdatedNotification):
                await send_updates.send(message.params.uri)

        try:
            async with Client(args.target, mode=mode, client_info=info, message_handler=handler,
                              read_timeout_seconds=TIMEOUT) as client:
                expected = "2026-07-28" if not legacy else None
                if expected:
                    assert client.protocol_version == expected, client.protocol_version
                if args.scenario == "heads":
                    await heads(c, client, legacy, inbox, args.node, args.rest[0])
                elif args.scenario == "logs":
                    await logs(c, client, legacy, inbox, args.node)
                else:
                    await restart(c, client, legacy, inbox, args.node, args.rest[0])
        except BaseException as e:  # noqa: BLE001
            c.record("connect and run", "".join(traceback.format_exception_only(e)).strip()[:600])
            sys.exit(3)


if __name__ == "__main__":
    import warnings

    # resources/subscribe is the session era's; the SDK warns that 2026-07-28 removed it.
    warnings.simplefilter("ignore")
    anyio.run(main)
