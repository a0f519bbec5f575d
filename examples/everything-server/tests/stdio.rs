//! The everything server over `--stdio`: a real process, one JSON-RPC message per line, the
//! same tools, prompts and resources as over HTTP, and a clean exit when stdin closes.

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[test]
fn the_everything_server_answers_over_stdio() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_everything-server"))
        .arg("--stdio")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the server starts");
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut ask = |message: Value| -> Value {
        writeln!(stdin, "{message}").unwrap();
        stdin.flush().unwrap();
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line:?}"))
    };

    let init = ask(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "stdio-test", "version": "1"}}}),
    );
    assert_eq!(init["result"]["protocolVersion"], json!("2025-11-25"));
    assert_eq!(
        init["result"]["serverInfo"]["name"],
        json!("mcp-conformance-test-server")
    );

    let tools = ask(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}));
    assert_eq!(
        tools["result"]["tools"][0]["name"],
        json!("test_simple_text")
    );

    let text = ask(
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "test_simple_text"}}),
    );
    assert_eq!(
        text["result"]["content"][0]["text"],
        json!("This is a simple text response for testing.")
    );

    let image = ask(
        json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "test_image_content", "arguments": {}}}),
    );
    assert_eq!(image["result"]["content"][0]["type"], json!("image"));

    let prompt = ask(
        json!({"jsonrpc": "2.0", "id": 5, "method": "prompts/get", "params": {
        "name": "test_prompt_with_arguments", "arguments": {"arg1": "a", "arg2": "b"}}}),
    );
    assert!(
        prompt["result"]["messages"]
            .to_string()
            .contains("arg1='a'"),
        "{prompt}"
    );

    let resource = ask(
        json!({"jsonrpc": "2.0", "id": 6, "method": "resources/read", "params": {"uri": "test://template/9/data"}}),
    );
    assert!(
        resource["result"]["contents"][0]["text"]
            .as_str()
            .unwrap()
            .contains("\"9\""),
        "{resource}"
    );

    let error = ask(
        json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "test_error_handling"}}),
    );
    assert_eq!(error["result"]["isError"], json!(true));

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
}
