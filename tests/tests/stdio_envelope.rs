//! JSON-RPC envelope rules over stdio: a request whose `id` is not a string or a number, or
//! whose `jsonrpc` is not `"2.0"`, is an Invalid Request answered with `id: null` and never run;
//! a 2025-03-26 batch line is answered by one line holding an array; later revisions refuse a
//! batch as a whole; and a method without `result` runs when it arrives as a notification.
//!
//! Each test feeds a whole input to `serve_io` through in-memory pipes and reads every line the
//! server wrote once it returned (it returns when the input ends and every request answered).

mod support;

use serde_json::{json, Value};
use std::time::Duration;

use mcp_runtime::{Config, McpServer};
use workspace_tests::server::Server;
use workspace_tests::TestHandler;

use support::envelope::{bad_envelopes, is_invalid_request, Flaw, SESSION_VERSIONS};

/// What a stdio run wrote, and the handler it ran.
struct Run {
    /// The answer to `initialize` (id 0), when the input began with one.
    initialized: Option<Value>,
    /// Every other line, as written.
    lines: Vec<String>,
    handler: TestHandler,
}

impl Run {
    /// The lines after the `initialize` answer, parsed.
    fn answers(&self) -> Vec<Value> {
        self.lines
            .iter()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
            .collect()
    }
}

/// The `initialize` line at `version` and the `notifications/initialized` line.
fn handshake(version: &str) -> Vec<String> {
    vec![
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": version, "capabilities": {},
            "clientInfo": {"name": "workspace-tests", "version": "1.0.0"}}})
        .to_string(),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string(),
    ]
}

/// Serves `lines` (each one input line) on stdio to completion.
async fn run(lines: &[String]) -> Run {
    let handler = TestHandler::default();
    let server = McpServer::builder(Server::new(handler.clone()))
        .config(Config::default())
        .build();
    let mut input = lines.join("\n");
    input.push('\n');
    let (writer, mut reader) = tokio::io::duplex(1 << 20);
    tokio::time::timeout(
        Duration::from_secs(10),
        mcp_runtime::stdio::serve_io(server, input.as_bytes(), writer),
    )
    .await
    .expect("serve_io returns within 10 s once the input ends")
    .unwrap();
    let mut output = String::new();
    tokio::io::AsyncReadExt::read_to_string(&mut reader, &mut output)
        .await
        .unwrap();
    let mut initialized = None;
    let mut rest = Vec::new();
    for line in output.lines().filter(|l| !l.trim().is_empty()) {
        let value: Value =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
        if initialized.is_none() && value["id"] == json!(0) && value.get("result").is_some() {
            initialized = Some(value);
        } else {
            rest.push(line.to_string());
        }
    }
    Run {
        initialized,
        lines: rest,
        handler,
    }
}

/// Serves the handshake at `version`, then `lines`; asserts the version was negotiated.
async fn run_in_session(version: &str, lines: &[String]) -> Run {
    let mut input = handshake(version);
    input.extend_from_slice(lines);
    let run = run(&input).await;
    let initialized = run.initialized.as_ref().expect("an initialize answer");
    assert_eq!(
        initialized["result"]["protocolVersion"],
        json!(version),
        "{initialized}"
    );
    run
}

/// A `tools/call` of `count` with `id`, as a line.
fn count_call(id: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "count", "arguments": {}}})
        .to_string()
}

// 1 (d): bad envelopes on stdio.

/// Sends each request with `flaw` after initialize at each revision, one run per line: each
/// gets one Invalid Request line with `id: null`, and neither `count` nor `record_event` runs.
async fn session_bad_envelopes_are_refused(flaw: Flaw) {
    let mut failures = Vec::new();
    for version in SESSION_VERSIONS {
        let bad: Vec<(String, Value)> = bad_envelopes(
            flaw,
            "tools/call",
            json!({"name": "count", "arguments": {}}),
        )
        .into_iter()
        .map(|(label, body)| (format!("tools/call {label}"), body))
        .chain(
            bad_envelopes(flaw, "record_event", json!({"event": "bad"}))
                .into_iter()
                .map(|(label, body)| (format!("record_event {label}"), body)),
        )
        .collect();
        // One run per bad line, so each answer is told apart; then one run with a good call.
        for (label, body) in &bad {
            let run = run_in_session(version, &[body.to_string()]).await;
            let answers = run.answers();
            if answers.len() != 1 || !is_invalid_request(&answers[0]) {
                failures.push(format!("{version} {label}: answered {:?}", run.lines));
            }
            if run.handler.count_calls() != 0 || !run.handler.events().is_empty() {
                failures.push(format!(
                    "{version} {label}: ran (count {} times, events {:?})",
                    run.handler.count_calls(),
                    run.handler.events()
                ));
            }
        }
    }
    // The counter works: a good call runs once.
    let good = run_in_session("2025-11-25", &[count_call(json!("good"))]).await;
    let answers = good.answers();
    assert_eq!(answers.len(), 1, "{:?}", good.lines);
    assert_eq!(answers[0]["id"], json!("good"), "{:?}", good.lines);
    assert!(answers[0].get("result").is_some(), "{:?}", good.lines);
    assert_eq!(good.handler.count_calls(), 1);
    assert!(
        failures.is_empty(),
        "expected one line {{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{{\"code\":-32600}}}} and nothing run:\n{}",
        failures.join("\n")
    );
}

/// Sends each 2026-07-28 `tools/call` of `count` (with `_meta`) with `flaw`: each gets one
/// Invalid Request line with `id: null`, and `count` does not run.
async fn stateless_bad_envelopes_are_refused(flaw: Flaw) {
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let params = json!({"name": "count", "arguments": {}, "_meta": meta});
    let mut failures = Vec::new();
    for (label, body) in bad_envelopes(flaw, "tools/call", params.clone()) {
        let run = run(&[body.to_string()]).await;
        let answers = run.answers();
        if answers.len() != 1 || !is_invalid_request(&answers[0]) {
            failures.push(format!("{label}: answered {:?}", run.lines));
        }
        if run.handler.count_calls() != 0 {
            failures.push(format!(
                "{label}: count ran {} times",
                run.handler.count_calls()
            ));
        }
    }
    // The same call with a good envelope runs.
    let good = run(&[
        json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": params}).to_string(),
    ])
    .await;
    let answers = good.answers();
    assert_eq!(answers.len(), 1, "{:?}", good.lines);
    assert_eq!(answers[0]["id"], json!(9), "{:?}", good.lines);
    assert_eq!(good.handler.count_calls(), 1);
    assert!(
        failures.is_empty(),
        "expected one line {{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{{\"code\":-32600}}}} and nothing run:\n{}",
        failures.join("\n")
    );
}

#[tokio::test]
async fn stdio_request_whose_id_is_not_a_string_or_number_is_an_invalid_request_and_does_not_run() {
    session_bad_envelopes_are_refused(Flaw::Id).await;
}

#[tokio::test]
async fn stdio_request_whose_jsonrpc_is_not_2_0_is_an_invalid_request_and_does_not_run() {
    session_bad_envelopes_are_refused(Flaw::Jsonrpc).await;
}

#[tokio::test]
async fn stdio_stateless_request_whose_id_is_not_a_string_or_number_is_an_invalid_request_and_does_not_run(
) {
    stateless_bad_envelopes_are_refused(Flaw::Id).await;
}

#[tokio::test]
async fn stdio_stateless_request_whose_jsonrpc_is_not_2_0_is_an_invalid_request_and_does_not_run() {
    stateless_bad_envelopes_are_refused(Flaw::Jsonrpc).await;
}

// 4: batches on stdio.

#[tokio::test]
async fn stdio_a_2025_03_26_batch_is_answered_by_one_line_holding_an_array() {
    let batch = json!([
        {"jsonrpc": "2.0", "id": 1, "method": "ping"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "b"}}}
    ]);
    let run = run_in_session("2025-03-26", &[batch.to_string()]).await;
    assert_eq!(run.lines.len(), 1, "one answer line: {:?}", run.lines);
    let answers = run.answers().remove(0);
    let answers = answers
        .as_array()
        .unwrap_or_else(|| panic!("a JSON array: {:?}", run.lines));
    assert_eq!(answers.len(), 2, "{answers:?}");
    let by_id = |id: i64| {
        answers
            .iter()
            .find(|a| a["id"] == json!(id))
            .unwrap_or_else(|| panic!("an answer with id {id}: {answers:?}"))
    };
    assert_eq!(by_id(1), &json!({"jsonrpc": "2.0", "id": 1, "result": {}}));
    assert_eq!(by_id(2)["result"]["content"][0]["text"], json!("b"));
}

#[tokio::test]
async fn stdio_an_empty_batch_is_one_invalid_request() {
    let run = run_in_session("2025-03-26", &["[]".to_string()]).await;
    let answers = run.answers();
    assert!(
        answers.len() == 1 && is_invalid_request(&answers[0]),
        "expected one line {{\"id\":null,\"error\":{{\"code\":-32600}}}}, got {:?}",
        run.lines
    );
}

#[tokio::test]
async fn stdio_a_batch_of_non_objects_is_one_line_of_invalid_requests() {
    let run = run_in_session("2025-03-26", &["[1,2]".to_string()]).await;
    let answers = run.answers();
    let ok = answers.len() == 1
        && answers[0]
            .as_array()
            .is_some_and(|a| a.len() == 2 && a.iter().all(is_invalid_request));
    assert!(
        ok,
        "expected one line holding an array of two -32600 errors with id null, got {:?}",
        run.lines
    );
}

#[tokio::test]
async fn stdio_a_bad_element_of_a_2025_03_26_batch_is_an_invalid_request_beside_the_good_one() {
    let batch = format!(
        r#"[{{"jsonrpc":"2.0","id":{{}},"method":"tools/call","params":{{"name":"count","arguments":{{}}}}}},{}]"#,
        count_call(json!(1))
    );
    let run = run_in_session("2025-03-26", &[batch]).await;
    let answers = run.answers();
    let array = answers
        .first()
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let ok = answers.len() == 1
        && array.len() == 2
        && array.iter().filter(|a| is_invalid_request(a)).count() == 1
        && array
            .iter()
            .any(|a| a["id"] == json!(1) && a.get("result").is_some());
    assert!(
        ok && run.handler.count_calls() == 1,
        "expected one line [the good answer, {{\"id\":null,\"error\":{{\"code\":-32600}}}}] with only the good element run; got {:?}, count ran {} times",
        run.lines,
        run.handler.count_calls()
    );
}

#[tokio::test]
async fn stdio_a_batch_of_notifications_gets_no_answer() {
    let batch = json!([
        {"jsonrpc": "2.0", "method": "notifications/roots/list_changed"},
        {"jsonrpc": "2.0", "method": "notifications/roots/list_changed"}
    ]);
    let run = run_in_session("2025-03-26", &[batch.to_string()]).await;
    assert!(run.lines.is_empty(), "no answer line: {:?}", run.lines);
}

#[tokio::test]
async fn stdio_a_malformed_batch_is_a_parse_error() {
    let run = run_in_session("2025-03-26", &[r#"[{"jsonrpc":"2.0","id":1,"#.to_string()]).await;
    let answers = run.answers();
    assert_eq!(answers.len(), 1, "{:?}", run.lines);
    assert_eq!(
        answers[0]["error"]["code"],
        json!(-32700),
        "{:?}",
        run.lines
    );
    assert!(
        answers[0].get("id").is_some_and(Value::is_null),
        "{:?}",
        run.lines
    );
}

#[tokio::test]
async fn stdio_batches_after_2025_03_26_are_one_invalid_request_and_run_nothing() {
    let batch = json!([
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "count", "arguments": {}}},
        {"jsonrpc": "2.0", "id": 2, "method": "record_event", "params": {"event": "batched"}},
        {"jsonrpc": "2.0", "method": "record_event", "params": {"event": "batched note"}}
    ]);
    let mut failures = Vec::new();
    for version in ["2025-06-18", "2025-11-25"] {
        let run = run_in_session(version, &[batch.to_string()]).await;
        let answers = run.answers();
        if answers.len() != 1 || !is_invalid_request(&answers[0]) {
            failures.push(format!("{version}: answered {:?}", run.lines));
        }
        if run.handler.count_calls() != 0 || !run.handler.events().is_empty() {
            failures.push(format!(
                "{version}: ran (count {} times, events {:?})",
                run.handler.count_calls(),
                run.handler.events()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "expected one line {{\"id\":null,\"error\":{{\"code\":-32600}}}} and nothing run:\n{}",
        failures.join("\n")
    );
}

// 5: a method without `x-mcp` is plain JSON-RPC, not MCP: unreachable over stdio.

#[tokio::test]
async fn stdio_a_method_without_x_mcp_is_not_reachable() {
    for version in SESSION_VERSIONS {
        let note =
            json!({"jsonrpc": "2.0", "method": "record_event", "params": {"event": version}});
        let call = json!({"jsonrpc": "2.0", "id": 4, "method": "record_event", "params": {"event": version}});
        let run = run_in_session(version, &[note.to_string(), call.to_string()]).await;
        let answers: Vec<serde_json::Value> = run
            .lines
            .iter()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        assert_eq!(
            answers,
            [
                json!({"jsonrpc": "2.0", "id": 4, "error": {"code": -32601, "message": "Method not found: record_event"}})
            ],
            "{version}: only the request is answered"
        );
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        assert!(
            run.handler.events().is_empty(),
            "{version}: record_event ran over stdio: {:?}",
            run.handler.events()
        );
    }
}

// Lines a client should not send: one over the size limit, one that is not UTF-8.

#[tokio::test]
async fn stdio_a_line_over_the_limit_or_not_utf8_is_answered_and_the_next_one_served() {
    let server = McpServer::builder(Server::new(TestHandler::default()))
        .config(Config::builder().body_limit(512).build())
        .build();
    let mut input: Vec<u8> = Vec::new();
    for line in handshake("2025-11-25") {
        input.extend_from_slice(line.as_bytes());
        input.push(b'\n');
    }
    input.extend_from_slice(&vec![b'x'; 4096]);
    input.push(b'\n');
    input.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}\n");
    input.extend_from_slice(br#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#);
    input.push(b'\n');
    let (writer, mut reader) = tokio::io::duplex(1 << 20);
    tokio::time::timeout(
        Duration::from_secs(10),
        mcp_runtime::stdio::serve_io(server, input.as_slice(), writer),
    )
    .await
    .expect("the server returns when the input ends")
    .expect("a bad line does not end the server");
    let mut output = String::new();
    tokio::io::AsyncReadExt::read_to_string(&mut reader, &mut output)
        .await
        .unwrap();
    let answers: Vec<Value> = output
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(answers.len(), 4, "{output}");
    assert_eq!(answers[1]["error"]["code"], json!(-32600), "{output}");
    assert!(answers[1]["error"]["message"]
        .as_str()
        .unwrap()
        .contains("body_limit"));
    assert_eq!(answers[2]["error"]["code"], json!(-32700), "{output}");
    assert_eq!(answers[3], json!({"jsonrpc": "2.0", "id": 2, "result": {}}));
}
