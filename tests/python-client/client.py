"""The official Python MCP SDK client (https://pypi.org/project/mcp/) against our servers.

usage: client.py --results FILE SCENARIO TARGET

SCENARIO is one of
  everything-legacy URL   the everything server over Streamable HTTP, mode="legacy" (initialize)
  everything-2026 URL     the same server, mode="auto": the SDK's server/discover probe, which
                          adopts 2026-07-28 (stateless, multi round-trip, subscriptions/listen);
                          then mode="2026-07-28" (adopted without a probe)
  everything-stdio BIN    BIN --stdio spawned by the SDK's stdio client, in both modes
  quickstart URL          the quickstart (notes) over Streamable HTTP, in both modes
The everything server must run with --page-size 3 (its lists are checked to take several
pages). The servers are examples/everything-server and examples/quickstart. Only the SDK's
public client API is used: mcp.Client (a ClientSession over streamable_http_client /
stdio_client) and its callbacks. Every check prints "PASS name" or "FAIL name: why" and appends that line to FILE;
run.sh counts them. A scenario that cannot go on (it cannot connect, say) adds a FAIL line and
exits 3.
"""

import argparse
import json
import sys
import traceback
import warnings

import anyio
import mcp_types as types
from mcp import Client, MCPError, StdioServerParameters
from mcp.shared.subscriptions import PromptsListChanged, ToolsListChanged

# The deprecated session-era calls (ping, logging/setLevel, resources/subscribe) are what the
# legacy scenario tests.
warnings.simplefilter("ignore")

TEST_IMAGE = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
TEST_AUDIO = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA="
# What the client answers to test_elicitation_sep1034_defaults: the form's own defaults.
DEFAULTS = {"name": "John Doe", "age": 30, "score": 95.5, "status": "active", "verified": True}
TIMEOUT = 10


class Checks:
    def __init__(self, scenario, results):
        self.scenario = scenario
        self.results = results

    def record(self, name, error=None):
        line = f"PASS {self.scenario}: {name}" if error is None else f"FAIL {self.scenario}: {name}: {error}"
        print(line, flush=True)
        with open(self.results, "a") as out:
            out.write(line + "\n")

    async def run(self, name, check, *args):
        """Runs `await check(*args)`; any exception (an assert included) fails the check."""
        try:
            with anyio.fail_after(TIMEOUT):
                await check(*args)
        except BaseException as e:  # noqa: BLE001: every failure is a FAIL line, and the next check runs
            if isinstance(e, (KeyboardInterrupt, SystemExit)):
                raise
            detail = "".join(traceback.format_exception_only(e)).strip().replace("\n", " | ")
            self.record(name, detail[:600] or type(e).__name__)
        else:
            self.record(name)


class Recorder:
    """The client side of the server→client requests and notifications: what arrived, and the
    answers a user (elicitation), a model (sampling) and a workspace (roots) would give."""

    def __init__(self):
        self.elicitations = []
        self.samplings = []
        self.roots_asked = 0
        self.logs = []
        self.notifications = []
        # When set, the content of the next accepted elicitation, whatever the form asks.
        self.next_answer = None

    async def elicitation(self, context, params):
        self.elicitations.append(params)
        if "decline" in params.message:
            return types.ElicitResult(action="decline")
        if self.next_answer is not None:
            content, self.next_answer = self.next_answer, None
            return types.ElicitResult(action="accept", content=content)
        schema = params.requested_schema or {}
        content = {}
        for name, prop in (schema.get("properties") or {}).items():
            if "default" in prop:
                content[name] = prop["default"]
            elif prop.get("type") == "boolean":
                content[name] = True
            elif prop.get("type") == "integer":
                content[name] = 7
            elif prop.get("type") == "number":
                content[name] = 2.5
            elif prop.get("type") == "array":
                items = prop.get("items") or {}
                choices = items.get("enum") or [c["const"] for c in items.get("anyOf", [])]
                content[name] = choices[:1]
            elif "enum" in prop:
                content[name] = prop["enum"][0]
            elif "oneOf" in prop:
                content[name] = prop["oneOf"][0]["const"]
            elif name == "color":
                content[name] = "blue"
            else:
                content[name] = "Alice"
        return types.ElicitResult(action="accept", content=content)

    async def sampling(self, context, params):
        self.samplings.append(params)
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text="Paris"),
            model="python-client-test-model",
            stop_reason="endTurn",
        )

    async def list_roots(self, context):
        self.roots_asked += 1
        return types.ListRootsResult(roots=[types.Root(uri="file:///tmp/python-client", name="workspace")])

    async def logging(self, params):
        self.logs.append(params)

    async def message(self, message):
        self.notifications.append(message)


def client_for(server, mode, recorder, **options):
    return Client(
        server,
        mode=mode,
        elicitation_callback=recorder.elicitation,
        sampling_callback=recorder.sampling,
        list_roots_callback=recorder.list_roots,
        logging_callback=recorder.logging,
        message_handler=recorder.message,
        client_info=types.Implementation(name="mcp-codegen python-client test", version="1"),
        read_timeout_seconds=TIMEOUT,
        **options,
    )


def text_of(result):
    assert not result.is_error, f"isError: {result.content}"
    assert len(result.content) == 1 and result.content[0].type == "text", result.content
    return result.content[0].text


async def all_pages(list_page, attribute):
    """Every entry of a paginated list, following nextCursor; returns (entries, pages)."""
    entries, pages, cursor = [], 0, None
    while True:
        page = await list_page(cursor=cursor)
        pages += 1
        entries.extend(getattr(page, attribute))
        cursor = page.next_cursor
        if cursor is None:
            return entries, pages
        assert pages < 100, "more than 100 pages"


EVERYTHING_TOOLS = {
    "test_simple_text", "test_image_content", "test_audio_content", "test_embedded_resource",
    "test_multiple_content_types", "test_error_handling", "test_tool_with_progress",
    "json_schema_2020_12_tool", "test_tool_with_logging", "test_sampling", "test_elicitation",
    "test_elicitation_sep1034_defaults", "test_elicitation_sep1330_enums",
    "test_input_required_result_elicitation", "test_input_required_result_multi_round",
}
EVERYTHING_PROMPTS = {
    "test_simple_prompt", "test_prompt_with_arguments", "test_prompt_with_embedded_resource",
    "test_prompt_with_image",
}


# ---- checks shared by both eras of the everything server -----------------------------------


def everything_common(client, recorder):
    """The (name, check) pairs both eras run: lists, content tools, resources, prompts, completion,
    and the elicitation/sampling/roots tools (real requests on a session, multi round-trip on
    2026-07-28)."""

    async def tools():
        listed, pages = await all_pages(client.list_tools, "tools")
        names = [t.name for t in listed]
        assert len(names) == len(set(names)), f"a tool listed twice: {names}"
        assert EVERYTHING_TOOLS <= set(names), f"missing: {EVERYTHING_TOOLS - set(names)}"
        assert pages > 1, f"{len(names)} tools in {pages} page(s) with --page-size 3"

    async def prompts():
        listed, pages = await all_pages(client.list_prompts, "prompts")
        names = {p.name for p in listed}
        assert EVERYTHING_PROMPTS <= names, f"missing: {EVERYTHING_PROMPTS - names}"
        args = {p.name: [a.name for a in (p.arguments or [])] for p in listed}
        assert args["test_prompt_with_arguments"] == ["arg1", "arg2"], args
        assert pages > 1, f"{len(names)} prompts in {pages} page(s) with --page-size 3"

    async def resources():
        listed, _ = await all_pages(client.list_resources, "resources")
        uris = {str(r.uri) for r in listed}
        wanted = {"test://static-text", "test://static-binary", "test://watched-resource"}
        assert wanted <= uris, f"missing: {wanted - uris}"

    async def templates():
        listed, _ = await all_pages(client.list_resource_templates, "resource_templates")
        assert [t.uri_template for t in listed] == ["test://template/{id}/data"], listed

    async def simple_text():
        result = await client.call_tool("test_simple_text", {})
        assert text_of(result) == "This is a simple text response for testing."

    async def image():
        (block,) = (await client.call_tool("test_image_content", {})).content
        assert block.type == "image" and block.data == TEST_IMAGE and block.mime_type == "image/png", block

    async def audio():
        (block,) = (await client.call_tool("test_audio_content", {})).content
        assert block.type == "audio" and block.data == TEST_AUDIO and block.mime_type == "audio/wav", block

    async def embedded():
        (block,) = (await client.call_tool("test_embedded_resource", {})).content
        assert block.type == "resource", block
        assert str(block.resource.uri) == "test://embedded-resource", block
        assert block.resource.text == "This is an embedded resource content.", block

    async def mixed():
        blocks = (await client.call_tool("test_multiple_content_types", {})).content
        assert [b.type for b in blocks] == ["text", "image", "resource"], blocks
        assert json.loads(blocks[2].resource.text) == {"test": "data", "value": 123}, blocks[2]

    async def error_result():
        result = await client.call_tool("test_error_handling", {})
        assert result.is_error is True, result
        assert result.content[0].text == "This tool intentionally returns an error for testing", result

    async def schema_2020_12():
        arguments = {"name": "Ada", "contactMethod": "email", "email": "ada@example.com",
                     "address": {"street": "1 Loop", "city": "Babbage"}}
        text = text_of(await client.call_tool("json_schema_2020_12_tool", arguments))
        assert text.startswith("JSON Schema 2020-12 tool called with: "), text
        assert json.loads(text.split(": ", 1)[1]) == arguments, text

    async def progress():
        seen = []

        async def on_progress(value, total, message):
            seen.append((value, total, message))

        result = await client.call_tool("test_tool_with_progress", {}, progress_callback=on_progress)
        assert [(v, t) for v, t, _ in seen] == [(0, 100), (50, 100), (100, 100)], seen
        assert seen[0][2] == "Completed step 0 of 100", seen
        # The tool answers with the request's progress token, which the SDK chose.
        assert text_of(result) not in ("", "no progress token"), result

    async def defaults_form():
        before = len(recorder.elicitations)
        text = text_of(await client.call_tool("test_elicitation_sep1034_defaults", {}))
        asked = recorder.elicitations[before:]
        assert len(asked) == 1, f"{len(asked)} elicitations"
        props = asked[0].requested_schema["properties"]
        assert {k: v.get("default") for k, v in props.items()} == DEFAULTS, props
        assert {k: v["type"] for k, v in props.items()} == {
            "name": "string", "age": "integer", "score": "number", "status": "string", "verified": "boolean"}
        prefix = "Elicitation completed: action=accept, content="
        assert text.startswith(prefix), text
        content = json.loads(text[len(prefix):])
        assert content == DEFAULTS, content
        assert type(content["age"]) is int and type(content["score"]) is float, content
        assert type(content["verified"]) is bool, content

    async def defaults_form_other_numbers():
        # An integer written 31.0 (an integer to JSON Schema) and a whole number for the number.
        recorder.next_answer = {"name": "Jane", "age": 31.0, "score": 90, "status": "pending", "verified": False}
        text = text_of(await client.call_tool("test_elicitation_sep1034_defaults", {}))
        prefix = "Elicitation completed: action=accept, content="
        assert text.startswith(prefix), text
        content = json.loads(text[len(prefix):])
        assert content == {"name": "Jane", "age": 31, "score": 90, "status": "pending", "verified": False}, content

    async def enums_form():
        text = text_of(await client.call_tool("test_elicitation_sep1330_enums", {}))
        prefix = "Elicitation completed: action=accept, content="
        assert text.startswith(prefix), text
        assert json.loads(text[len(prefix):]) == {
            "untitledSingle": "option1", "titledSingle": "value1", "legacyEnum": "opt1",
            "untitledMulti": ["option1"], "titledMulti": ["value1"]}, text

    async def elicit_name():
        text = text_of(await client.call_tool("test_input_required_result_elicitation", {}))
        assert text == "Hello, Alice!", text

    async def multi_round():
        text = text_of(await client.call_tool("test_input_required_result_multi_round", {}))
        assert text == "Multi-round complete for Alice who likes blue", text

    async def sample():
        text = text_of(await client.call_tool("test_input_required_result_sampling", {}))
        assert text == "Sampling result: Paris", text
        asked = recorder.samplings[-1]
        assert asked.messages[0].content.text == "What is the capital of France?", asked

    async def roots():
        before = recorder.roots_asked
        text = text_of(await client.call_tool("test_input_required_result_list_roots", {}))
        assert text == "Found 1 root(s)", text
        assert recorder.roots_asked == before + 1, recorder.roots_asked

    async def multiple_inputs():
        text = text_of(await client.call_tool("test_input_required_result_multiple_inputs", {}))
        assert text == "Name: Alice; Greeting: Paris; Roots: 1", text

    async def read_text():
        (contents,) = (await client.read_resource("test://static-text")).contents
        assert contents.text == "This is the content of the static text resource.", contents
        assert contents.mime_type == "text/plain", contents

    async def read_blob():
        (contents,) = (await client.read_resource("test://static-binary")).contents
        assert contents.blob == TEST_IMAGE and contents.mime_type == "image/png", contents

    async def read_template():
        (contents,) = (await client.read_resource("test://template/42/data")).contents
        assert str(contents.uri) == "test://template/42/data", contents
        assert json.loads(contents.text) == {"id": "42", "templateTest": True, "data": "Data for ID: 42"}, contents

    async def prompt_simple():
        (message,) = (await client.get_prompt("test_simple_prompt")).messages
        assert message.role == "user" and message.content.text == "This is a simple prompt for testing.", message

    async def prompt_arguments():
        result = await client.get_prompt("test_prompt_with_arguments", {"arg1": "alpha", "arg2": "beta"})
        (message,) = result.messages
        assert message.content.text == "Prompt with arguments: arg1='alpha', arg2='beta'", message

    async def prompt_embedded():
        result = await client.get_prompt("test_prompt_with_embedded_resource", {"resourceUri": "test://x"})
        first, second = result.messages
        assert first.content.type == "resource" and str(first.content.resource.uri) == "test://x", first
        assert second.content.text == "Please process the embedded resource above.", second

    async def prompt_image():
        first, _ = (await client.get_prompt("test_prompt_with_image")).messages
        assert first.content.type == "image" and first.content.data == TEST_IMAGE, first

    async def complete():
        result = await client.complete(
            types.PromptReference(type="ref/prompt", name="test_prompt_with_arguments"),
            {"name": "arg1", "value": "te"},
        )
        assert isinstance(result.completion.values, list), result

    async def complete_template():
        result = await client.complete(
            types.ResourceTemplateReference(type="ref/resource", uri="test://template/{id}/data"),
            {"name": "id", "value": "4"},
        )
        assert isinstance(result.completion.values, list), result

    async def greet():
        assert text_of(await client.call_tool("greet", {"name": "Ada"})) == "Hello, Ada!"
        # The tasks extension's tool, without the extension: it answers at once.
        assert text_of(await client.call_tool("slow_compute", {"seconds": 0})) == "Computed job in 0s"

    async def cancelled():
        # Session era: the SDK sends notifications/cancelled; 2026-07-28: it aborts the POST.
        with anyio.move_on_after(0.3) as scope:
            await client.call_tool("slow_compute", {"seconds": 5})
        assert scope.cancelled_caught, "slow_compute answered within 0.3 s"
        assert text_of(await client.call_tool("test_simple_text", {})) == \
            "This is a simple text response for testing."

    return [
        ("tools/list (every page)", tools),
        ("prompts/list (every page)", prompts),
        ("resources/list", resources),
        ("resources/templates/list", templates),
        ("tools/call text", simple_text),
        ("tools/call image", image),
        ("tools/call audio", audio),
        ("tools/call embedded resource", embedded),
        ("tools/call mixed content", mixed),
        ("tools/call isError result", error_result),
        ("tools/call JSON Schema 2020-12 arguments", schema_2020_12),
        ("tools/call with progress (progress_callback)", progress),
        ("elicitation: form with string/integer/number/enum/boolean defaults, answered with them", defaults_form),
        ("elicitation: the same form answered with 31.0 for the integer, 90 for the number", defaults_form_other_numbers),
        ("elicitation: SEP-1330 enum form", enums_form),
        ("elicitation: a name", elicit_name),
        ("elicitation: two rounds", multi_round),
        ("sampling (sampling_callback)", sample),
        ("roots (list_roots_callback)", roots),
        ("elicitation + sampling + roots in one call", multiple_inputs),
        ("resources/read text", read_text),
        ("resources/read blob", read_blob),
        ("resources/read template", read_template),
        ("prompts/get simple", prompt_simple),
        ("prompts/get with arguments", prompt_arguments),
        ("prompts/get embedded resource", prompt_embedded),
        ("prompts/get image", prompt_image),
        ("completion/complete (a prompt argument)", complete),
        ("completion/complete (a template variable)", complete_template),
        ("tools/call with arguments (greet, slow_compute)", greet),
        ("a call cancelled by the client; the next one answers", cancelled),
    ]


def arrived(recorder, before, kind):
    """Whether a notification of type `kind` arrived after the first `before`."""
    return lambda: any(isinstance(n, kind) for n in recorder.notifications[before:])


async def wait_for(what, predicate, seconds=5):
    """Waits until `predicate()` holds; fails naming `what` after `seconds`."""
    with anyio.move_on_after(seconds):
        while not predicate():
            await anyio.sleep(0.02)
        return
    raise AssertionError(f"no {what} within {seconds} s")


async def everything_legacy(c, url):
    recorder = Recorder()
    async with client_for(url, "legacy", recorder) as client:

        async def connected():
            assert client.protocol_version == "2025-11-25", client.protocol_version
            assert client.server_info.name, client.server_info
            caps = client.server_capabilities
            assert caps.tools and caps.prompts and caps.resources and caps.logging is not None, caps
            assert caps.resources.subscribe is True, caps

        await c.run("initialize (mode='legacy')", connected)
        for name, check in everything_common(client, recorder):
            await c.run(name, check)

        async def sampling_tool():
            text = text_of(await client.call_tool("test_sampling", {"prompt": "What is 2+2?"}))
            assert text == "LLM response: Paris", text
            assert recorder.samplings[-1].messages[0].content.text == "What is 2+2?"

        async def elicitation_tool():
            text = text_of(await client.call_tool("test_elicitation", {"message": "Say something"}))
            assert text == 'User response: action=accept, content={"response":"Alice"}', text

        async def elicitation_declined():
            text = text_of(await client.call_tool("test_elicitation", {"message": "Please decline this"}))
            assert text == "User response: action=decline, content=null", text

        async def logging():
            await client.set_logging_level("debug")
            before = len(recorder.logs)
            text = text_of(await client.call_tool("test_tool_with_logging", {}))
            assert text == "Tool with logging executed successfully", text
            await wait_for("3 notifications/message", lambda: len(recorder.logs) >= before + 3)
            got = [(m.level, m.data) for m in recorder.logs[before:]]
            assert got == [("info", "Tool execution started"), ("info", "Tool processing data"),
                           ("info", "Tool execution completed")], got

        async def logging_filtered():
            await client.set_logging_level("error")
            before = len(recorder.logs)
            assert text_of(await client.call_tool("test_tool_with_logging", {})) == \
                "Tool with logging executed successfully"
            await anyio.sleep(0.2)
            assert recorder.logs[before:] == [], recorder.logs[before:]
            await client.set_logging_level("debug")

        async def ping():
            await client.send_ping()

        async def reconnection():
            text = text_of(await client.call_tool("test_reconnection", {}))
            assert text.startswith("Reconnection test completed successfully."), text

        async def subscribe():
            await client.subscribe_resource("test://watched-resource")
            (contents,) = (await client.read_resource("test://watched-resource")).contents
            assert contents.text == "Watched resource content", contents
            await client.unsubscribe_resource("test://watched-resource")

        async def tool_list_changed():
            before = len(recorder.notifications)
            assert text_of(await client.call_tool("test_trigger_tool_change", {})) == "Mutation triggered"
            await wait_for("notifications/tools/list_changed",
                           arrived(recorder, before, types.ToolListChangedNotification))
            before = len(recorder.notifications)
            assert text_of(await client.call_tool("test_trigger_prompt_change", {})) == "Mutation triggered"
            await wait_for("notifications/prompts/list_changed",
                           arrived(recorder, before, types.PromptListChangedNotification))

        async def task_tool():
            # No tasks extension on a session: the tool elicits and answers in the call.
            text = text_of(await client.call_tool("test_tool_with_task", {}))
            assert text == "Hello, Alice! The task is complete.", text

        await c.run("test_tool_with_task without the tasks extension: answered in the call", task_tool)
        await c.run("sampling: test_sampling", sampling_tool)
        await c.run("elicitation: test_elicitation", elicitation_tool)
        await c.run("elicitation: declined", elicitation_declined)
        await c.run("logging/setLevel + notifications/message (logging_callback)", logging)
        await c.run("logging/setLevel error: info messages filtered out", logging_filtered)
        await c.run("ping", ping)
        await c.run("SSE stream closed by the server, resumed with Last-Event-ID", reconnection)
        await c.run("resources/subscribe + unsubscribe", subscribe)
        await c.run("notifications/tools/list_changed and prompts/list_changed (message_handler)", tool_list_changed)


async def everything_2026(c, url):
    recorder = Recorder()
    async with client_for(url, "auto", recorder, log_level="info") as client:

        async def connected():
            assert client.protocol_version == "2026-07-28", client.protocol_version
            assert client.session.discover_result is not None, "no server/discover result"
            assert client.session.initialize_result is None, "the probe fell back to initialize"
            assert "2026-07-28" in client.session.discover_result.supported_versions

        await c.run("server/discover probe adopts 2026-07-28 (mode='auto')", connected)
        for name, check in everything_common(client, recorder):
            await c.run(name, check)

        async def request_state():
            text = text_of(await client.call_tool("test_input_required_result_request_state", {}))
            assert text == "state-ok: requestState validated (action=accept)", text

        async def prompt_input():
            (message,) = (await client.get_prompt("test_input_required_result_prompt")).messages
            assert message.content.text == "Prompt with context: Alice", message

        async def logging():
            before = len(recorder.logs)
            assert text_of(await client.call_tool("test_logging_tool", {})) == "Logging evaluated"
            await wait_for("notifications/message", lambda: len(recorder.logs) > before)
            got = [(m.level, m.data) for m in recorder.logs[before:]]
            assert got == [("info", "Logging tool evaluated")], got

        async def capability():
            assert text_of(await client.call_tool("test_missing_capability", {})) == "Success"

        async def header():
            text = text_of(await client.call_tool("test_custom_header", {"region": "eu-west-1"}))
            assert text == "Region: eu-west-1", text

        async def streaming():
            seen = []

            async def on_progress(value, total, message):
                seen.append((value, total, message))

            text = text_of(await client.call_tool("test_streaming_elicitation", {}, progress_callback=on_progress))
            assert text == "Streaming complete", text
            assert seen == [(1, 1, "Streaming")], seen

        async def listen():
            async with client.listen(tools_list_changed=True, prompts_list_changed=True,
                                     resource_subscriptions=["test://watched-resource"]) as sub:
                assert sub.honored.tools_list_changed and sub.honored.prompts_list_changed, sub.honored
                assert sub.honored.resource_subscriptions == ["test://watched-resource"], sub.honored
                assert text_of(await client.call_tool("test_trigger_tool_change", {})) == "Mutation triggered"
                async for event in sub:
                    assert isinstance(event, ToolsListChanged), event
                    break
                assert text_of(await client.call_tool("test_trigger_prompt_change", {})) == "Mutation triggered"
                async for event in sub:
                    assert isinstance(event, PromptsListChanged), event
                    break

        async def read_stateless():
            (contents,) = (await client.read_resource("test://stateless-static-text")).contents
            assert contents.text == "Static text content from the stateless draft path.", contents

        async def manual_rounds():
            # The loop the SDK drives, by hand (Client docs: session.call_tool(allow_input_required=True)).
            name = "test_input_required_result_tampered_state"
            first = await client.session.call_tool(name, {}, allow_input_required=True)
            assert isinstance(first, types.InputRequiredResult), first
            assert list(first.input_requests) == ["confirm"], first.input_requests
            assert first.input_requests["confirm"].method == "elicitation/create", first.input_requests
            assert first.request_state, first
            answers = {"confirm": types.ElicitResult(action="accept", content={"ok": True})}
            try:
                await client.session.call_tool(name, {}, input_responses=answers,
                                               request_state=first.request_state + "-TAMPERED",
                                               allow_input_required=True)
            except MCPError as e:
                assert e.code == -32602, e.error
            else:
                raise AssertionError("a tampered requestState was accepted")
            last = await client.session.call_tool(name, {}, input_responses=answers,
                                                  request_state=first.request_state, allow_input_required=True)
            assert text_of(last) == "state-ok: action=accept", last

        async def task_required():
            # The SDK does not declare the tasks extension; a tool that requires it says so.
            try:
                await client.call_tool("failing_job", {})
            except MCPError as e:
                assert e.code == types.MISSING_REQUIRED_CLIENT_CAPABILITY, e.error
                assert "io.modelcontextprotocol/tasks" in e.error.message + json.dumps(e.error.data), e.error
            else:
                raise AssertionError("failing_job ran without the tasks extension")

        async def declined():
            text = text_of(await client.call_tool("test_elicitation", {"message": "Please decline this"}))
            assert text == "User response: action=decline, content=null", text

        await c.run("resources/read test://stateless-static-text", read_stateless)
        await c.run("input_required with requestState", request_state)
        await c.run("input_required rounds by hand; a tampered requestState refused (-32602)", manual_rounds)
        await c.run("elicitation: declined", declined)
        await c.run("a tool requiring the tasks extension: -32021", task_required)
        await c.run("prompts/get answered with input_required (elicitation)", prompt_input)
        await c.run("logging opt-in by _meta log level (logging_callback)", logging)
        await c.run("declared client capability (sampling) per request", capability)
        await c.run("x-mcp-header argument (Mcp-Param-Region)", header)
        await c.run("progress on the response stream", streaming)
        await c.run("subscriptions/listen (tools, prompts, a resource): acknowledged; list_changed events", listen)


    async def without_sampling():
        # A client that declares no sampling: the tool needing it answers -32021.
        async with Client(url, mode="auto", read_timeout_seconds=TIMEOUT) as bare:
            assert bare.protocol_version == "2026-07-28", bare.protocol_version
            try:
                await bare.call_tool("test_missing_capability", {})
            except MCPError as e:
                assert e.code == types.MISSING_REQUIRED_CLIENT_CAPABILITY, e.error
                assert "sampling" in json.dumps(e.error.data), e.error
            else:
                raise AssertionError("test_missing_capability succeeded without sampling")

    async def pinned():
        # mode="2026-07-28": adopted without a probe.
        recorder = Recorder()
        async with client_for(url, "2026-07-28", recorder) as pinned_client:
            await all_pages(pinned_client.list_tools, "tools")
            assert text_of(await pinned_client.call_tool("test_simple_text", {})) == \
                "This is a simple text response for testing."
            text = text_of(await pinned_client.call_tool("test_elicitation_sep1034_defaults", {}))
            assert json.loads(text.split("content=", 1)[1]) == DEFAULTS, text

    await c.run("undeclared client capability: -32021 naming sampling", without_sampling)
    await c.run("mode='2026-07-28' (pinned, no probe): call + elicitation", pinned)


async def everything_stdio(c, binary):
    for mode in ("legacy", "auto"):
        recorder = Recorder()
        params = StdioServerParameters(command=binary, args=["--stdio", "--log-level", "error"])
        async with client_for(params, mode, recorder) as client:

            async def listed():
                listed, _ = await all_pages(client.list_tools, "tools")
                assert EVERYTHING_TOOLS <= {t.name for t in listed}

            async def call():
                assert text_of(await client.call_tool("test_simple_text", {})) == \
                    "This is a simple text response for testing."

            async def defaults_form():
                text = text_of(await client.call_tool("test_elicitation_sep1034_defaults", {}))
                assert json.loads(text.split("content=", 1)[1]) == DEFAULTS, text

            async def list_changed():
                # The session era: an unsolicited notification on stdout (tools.listChanged is
                # declared); 2026-07-28: a subscriptions/listen event.
                if mode == "legacy":
                    before = len(recorder.notifications)
                    assert text_of(await client.call_tool("test_trigger_tool_change", {})) == "Mutation triggered"
                    await wait_for("notifications/tools/list_changed",
                                   arrived(recorder, before, types.ToolListChangedNotification), 2)
                else:
                    async with client.listen(tools_list_changed=True) as sub:
                        assert text_of(await client.call_tool("test_trigger_tool_change", {})) == \
                            "Mutation triggered"
                        async for event in sub:
                            assert isinstance(event, ToolsListChanged), event
                            break

            era = f"[{mode}, {client.protocol_version}]"
            await c.run(f"{era} tools/list", listed)
            await c.run(f"{era} tools/call", call)
            await c.run(f"{era} elicitation with number defaults", defaults_form)
            await c.run(f"{era} notifications/tools/list_changed after test_trigger_tool_change", list_changed)


async def quickstart(c, url):
    for mode in ("legacy", "auto"):
        recorder = Recorder()
        async with client_for(url, mode, recorder) as client:
            era = f"[{mode}, {client.protocol_version}]"
            tag = f"tag{mode}"
            note = {}

            async def listed():
                tools, _ = await all_pages(client.list_tools, "tools")
                assert {t.name for t in tools} == {"add", "create_note", "search_notes"}, tools
                prompts, _ = await all_pages(client.list_prompts, "prompts")
                assert [p.name for p in prompts] == ["summarize"], prompts
                resources, _ = await all_pages(client.list_resources, "resources")
                # The index, and the skill examples/quickstart/skills/note-taking serves.
                uris = [str(r.uri) for r in resources]
                assert uris == ["notes://index", "skill://note-taking/SKILL.md"], uris
                templates, _ = await all_pages(client.list_resource_templates, "resource_templates")
                assert [t.uri_template for t in templates] == ["notes://notes/{id}"], templates

            async def add():
                result = await client.call_tool("add", {"a": 2, "b": 40})
                assert not result.is_error, result
                assert result.content[0].text == "42", result.content
                if result.structured_content is not None:
                    assert result.structured_content in (42, {"result": 42}), result.structured_content

            async def create():
                arguments = {"title": f"Python {mode}", "body": "written by the SDK", "tags": [tag]}
                result = await client.call_tool("create_note", arguments)
                assert not result.is_error, result
                created = json.loads(result.content[0].text)
                assert created["title"] == arguments["title"] and created["tags"] == [tag], created
                if result.structured_content is not None:
                    assert result.structured_content == created, result.structured_content
                note.update(created)

            async def search():
                result = await client.call_tool("search_notes", {"query": f"python {mode}", "limit": 5})
                assert not result.is_error, result
                found = json.loads(result.content[0].text)
                assert found["total"] == 1 and found["notes"][0]["id"] == note["id"], found

            async def invalid():
                result = await client.call_tool("create_note", {"title": "", "body": "x"})
                assert result.is_error, result

            async def read_index():
                (contents,) = (await client.read_resource("notes://index")).contents
                assert json.loads(contents.text).get(str(note["id"])) == note["title"], contents

            async def read_note():
                (contents,) = (await client.read_resource(f"notes://notes/{note['id']}")).contents
                assert json.loads(contents.text) == note, contents

            async def read_skill():
                (contents,) = (await client.read_resource("skill://note-taking/SKILL.md")).contents
                assert contents.mime_type == "text/markdown" and "note" in contents.text.lower(), contents

            async def prompt():
                result = await client.get_prompt("summarize", {"topic": "python", "style": "haiku"})
                text = result.messages[0].content.text
                assert text.startswith("Summarize what these notes say about python, as a haiku."), text
                assert f"- {note['title']}: written by the SDK" in text, text

            async def complete():
                result = await client.complete(
                    types.PromptReference(type="ref/prompt", name="summarize"),
                    {"name": "topic", "value": tag[:5]},
                )
                assert tag in result.completion.values, result

            await c.run(f"{era} tools, prompts, resources, templates listed", listed)
            await c.run(f"{era} tools/call add", add)
            await c.run(f"{era} tools/call create_note", create)
            await c.run(f"{era} tools/call search_notes", search)
            await c.run(f"{era} tools/call create_note with an empty title: isError", invalid)
            await c.run(f"{era} resources/read notes://index", read_index)
            await c.run(f"{era} resources/read notes://notes/{{id}}", read_note)
            await c.run(f"{era} resources/read skill://note-taking/SKILL.md", read_skill)
            await c.run(f"{era} prompts/get summarize", prompt)
            await c.run(f"{era} completion/complete summarize topic", complete)


# The exit status of a scenario that stopped early (its FAIL line is written); failed checks
# alone exit 0: run.sh counts the lines.
CRASHED = 3

SCENARIOS = {
    "everything-legacy": everything_legacy,
    "everything-2026": everything_2026,
    "everything-stdio": everything_stdio,
    "quickstart": quickstart,
}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--results", required=True)
    parser.add_argument("scenario", choices=SCENARIOS)
    parser.add_argument("target")
    args = parser.parse_args()
    c = Checks(args.scenario, args.results)
    try:
        anyio.run(SCENARIOS[args.scenario], c, args.target)
    except BaseException as e:  # noqa: BLE001: a scenario that cannot connect or crashes is a FAIL
        if isinstance(e, KeyboardInterrupt):
            raise
        traceback.print_exc()
        c.record("scenario ran to its end", "".join(traceback.format_exception_only(e)).strip()[:600])
        sys.exit(CRASHED)


if __name__ == "__main__":
    main()
