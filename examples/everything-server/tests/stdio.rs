//! The everything server over `--stdio`: a real process, one JSON-RPC message per line, the
//! same tools, prompts and resources as over HTTP, and a clean exit when stdin closes.

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

/// The everything server as a child process on `--stdio`, with its stdin and buffered stdout.
fn spawn_stdio_server() -> (Child, ChildStdin, BufReader<ChildStdout>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_everything-server"))
        .arg("--stdio")
        .env_remove("MCP_REQUEST_STATE_KEY")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the server starts");
    let stdin = child.stdin.take().unwrap();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    (child, stdin, stdout)
}

/// The next line of the server's output, as JSON.
fn read_message(stdout: &mut BufReader<ChildStdout>) -> Value {
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line:?}"))
}

#[test]
fn the_everything_server_answers_over_stdio() {
    let (mut child, mut stdin, mut stdout) = spawn_stdio_server();
    // Sends one message and reads the next line.
    macro_rules! ask {
        ($message:expr $(,)?) => {{
            writeln!(stdin, "{}", $message).unwrap();
            stdin.flush().unwrap();
            read_message(&mut stdout)
        }};
    }

    let init = ask!(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "stdio-test", "version": "1"}}}),
    );
    assert_eq!(init["result"]["protocolVersion"], json!("2025-11-25"));
    assert_eq!(
        init["result"]["serverInfo"]["name"],
        json!("mcp-conformance-test-server")
    );

    let tools = ask!(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}));
    assert_eq!(
        tools["result"]["tools"][0]["name"],
        json!("test_simple_text")
    );

    let text = ask!(
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "test_simple_text"}}),
    );
    assert_eq!(
        text["result"]["content"][0]["text"],
        json!("This is a simple text response for testing.")
    );

    let image = ask!(
        json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "test_image_content", "arguments": {}}}),
    );
    assert_eq!(image["result"]["content"][0]["type"], json!("image"));

    let prompt = ask!(
        json!({"jsonrpc": "2.0", "id": 5, "method": "prompts/get", "params": {
        "name": "test_prompt_with_arguments", "arguments": {"arg1": "a", "arg2": "b"}}}),
    );
    assert!(
        prompt["result"]["messages"]
            .to_string()
            .contains("arg1='a'"),
        "{prompt}"
    );

    let resource = ask!(
        json!({"jsonrpc": "2.0", "id": 6, "method": "resources/read", "params": {"uri": "test://template/9/data"}}),
    );
    assert!(
        resource["result"]["contents"][0]["text"]
            .as_str()
            .unwrap()
            .contains("\"9\""),
        "{resource}"
    );

    let error = ask!(
        json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "test_error_handling"}}),
    );
    assert_eq!(error["result"]["isError"], json!(true));

    // A list change reaches the session as an unsolicited notification line, before the
    // call's answer (stdio has no GET stream: the notifier writes to the output itself).
    for (tool, notification) in [
        (
            "test_trigger_tool_change",
            "notifications/tools/list_changed",
        ),
        (
            "test_trigger_prompt_change",
            "notifications/prompts/list_changed",
        ),
    ] {
        let first = ask!(
            json!({"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {"name": tool}}),
        );
        assert_eq!(
            first,
            json!({"jsonrpc": "2.0", "method": notification}),
            "{tool}"
        );
        let answer = read_message(&mut stdout);
        assert_eq!(answer["id"], json!(8), "{answer}");
        assert!(answer["result"]["content"].is_array(), "{answer}");
    }

    drop(stdin);
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            assert!(status.success(), "exit status {status}");
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "the server did not exit on EOF"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    // No warning for a setting that cannot matter on stdio: the process is the one instance.
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    assert!(!stderr.contains("WARN"), "{stderr}");
}

/// The stateless 2026-07-28 revision over stdio: no initialize, `_meta` on every request,
/// the same validation errors, multi round-trip requests, progress lines before the answer,
/// a `subscriptions/listen` stream on the same pipe, and tasks.
#[test]
fn the_2026_revision_over_stdio() {
    let (mut child, mut stdin, mut stdout) = spawn_stdio_server();
    let meta = |capabilities: Value| {
        json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
               "io.modelcontextprotocol/clientCapabilities": capabilities})
    };
    // `move`: dropping `send` closes stdin.
    let mut send = move |message: Value| {
        writeln!(stdin, "{message}").unwrap();
        stdin.flush().unwrap();
    };
    let mut next = || -> Value {
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line:?}"))
    };

    send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": meta(json!({}))}}),
    );
    let discover = next();
    assert_eq!(discover["result"]["resultType"], json!("complete"));
    assert!(discover["result"]["supportedVersions"]
        .as_array()
        .unwrap()
        .contains(&json!("2026-07-28")));

    // The validation errors of the HTTP path, minus the headers.
    send(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}}),
    );
    assert_eq!(next()["error"]["code"], json!(-32602));
    send(
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {"_meta": meta(json!({})).as_object().unwrap().clone().into_iter().map(|(k, v)| if k.ends_with("protocolVersion") { (k, json!("v999")) } else { (k, v) }).collect::<serde_json::Map<_, _>>()}}),
    );
    let unsupported = next();
    assert_eq!(unsupported["error"]["code"], json!(-32022));
    assert_eq!(unsupported["error"]["data"]["requested"], json!("v999"));
    send(
        json!({"jsonrpc": "2.0", "id": 4, "method": "ping", "params": {"_meta": meta(json!({}))}}),
    );
    assert_eq!(next()["error"]["code"], json!(-32601));

    // Multi round-trip: asked, then answered on the retry.
    let ask_name = json!({"name": "test_input_required_result_elicitation", "_meta": meta(json!({"elicitation": {}}))});
    send(json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": ask_name}));
    let round1 = next();
    assert_eq!(round1["result"]["resultType"], json!("input_required"));
    let mut retry = ask_name.clone();
    retry["inputResponses"] =
        json!({"user_name": {"action": "accept", "content": {"name": "Ada"}}});
    retry["requestState"] = round1["result"]["requestState"].clone();
    send(json!({"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": retry}));
    assert_eq!(next()["result"]["content"][0]["text"], json!("Hello, Ada!"));

    // Progress lines come before the answer.
    let mut with_progress = meta(json!({}));
    with_progress["progressToken"] = json!("p1");
    send(
        json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "test_tool_with_progress", "_meta": with_progress}}),
    );
    let mut progress = 0;
    let answer = loop {
        let message = next();
        if message["method"] == json!("notifications/progress") {
            assert_eq!(message["params"]["progressToken"], json!("p1"));
            progress += 1;
        } else {
            break message;
        }
    };
    assert_eq!(progress, 3);
    assert_eq!(answer["id"], json!(7));

    // A listen stream on the same pipe: acknowledged, then tagged notifications.
    send(
        json!({"jsonrpc": "2.0", "id": "sub", "method": "subscriptions/listen", "params": {"_meta": meta(json!({})), "notifications": {"toolsListChanged": true}}}),
    );
    let ack = next();
    assert_eq!(
        ack["method"],
        json!("notifications/subscriptions/acknowledged")
    );
    assert_eq!(
        ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        json!("sub")
    );
    send(
        json!({"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {"name": "test_trigger_tool_change", "_meta": meta(json!({}))}}),
    );
    let mut seen = Vec::new();
    for _ in 0..2 {
        seen.push(next());
    }
    let changed = seen
        .iter()
        .find(|m| m["method"] == json!("notifications/tools/list_changed"))
        .expect("the listen stream got the change");
    assert_eq!(
        changed["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        json!("sub")
    );
    assert!(seen.iter().any(|m| m["id"] == json!(8)));

    // A task: created at once, completed later.
    let tasks = json!({"extensions": {"io.modelcontextprotocol/tasks": {}}});
    send(
        json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "slow_compute", "arguments": {"seconds": 1, "label": "stdio"}, "_meta": meta(tasks.clone())}}),
    );
    let created = next();
    assert_eq!(created["result"]["resultType"], json!("task"));
    let task_id = created["result"]["taskId"].clone();
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        send(
            json!({"jsonrpc": "2.0", "id": 10, "method": "tasks/get", "params": {"taskId": task_id, "_meta": meta(tasks.clone())}}),
        );
        let task = next();
        if task["result"]["status"] == json!("completed") {
            assert_eq!(
                task["result"]["result"]["content"][0]["text"],
                json!("Computed stdio in 1s")
            );
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the task did not complete: {task}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }

    drop(send);
    let status = child.wait().unwrap();
    assert!(status.success());
}
