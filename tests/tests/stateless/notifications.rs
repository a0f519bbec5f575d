//! Request-scoped notifications: progress and requested logs stream before the result, log
//! messages only at or above the `_meta` log level, and closing a streamed answer cancels its
//! handler within 100 ms.

use http::StatusCode;
use serde_json::{json, Value};
use std::net::SocketAddr;
use std::time::Duration;

use crate::call;
use crate::support::schema::assert_server_message;
use crate::support::sse::SseStream;
use crate::support::stateless::{exchange, meta, Answer, V};
use crate::support::{post, sse_messages, start, POST_HEADERS};
use mcp_runtime::Config;

/// A stateless `tools/call` of `name` whose `_meta` also carries `extra_meta` (a progress
/// token, a log level), declaring no client capabilities.
async fn call_tool_with_meta(addr: SocketAddr, id: i64, name: &str, extra_meta: Value) -> Answer {
    let params = json!({"name": name, "arguments": {}, "_meta": extra_meta});
    exchange(addr, id, "tools/call", params, json!({}), &[]).await
}

/// What an SSE answer carried, in order: each notification's method (and level, for a log),
/// then `result` for the response.
fn message_kinds(answer: &Answer) -> Vec<String> {
    sse_messages(&answer.text)
        .iter()
        .map(|message| {
            let level = message["params"]["level"].as_str();
            match (message["method"].as_str(), level) {
                (Some(method), Some(level)) => format!("{method} {level}"),
                (Some(method), None) => method.to_string(),
                (None, _) => "result".to_string(),
            }
        })
        .collect()
}

#[tokio::test]
async fn progress_and_requested_logs_stream_before_the_result() {
    let server = start(Config::default()).await;
    let mut params = json!({"name": "count", "_meta": meta(json!({}))});
    params["_meta"]["progressToken"] = json!(7);
    let reply = post(
        server.addr,
        &[
            ("mcp-protocol-version", V),
            ("mcp-method", "tools/call"),
            ("mcp-name", "count"),
        ],
        &json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": params}),
    )
    .await;
    assert_eq!(reply.header("content-type"), Some("text/event-stream"));
    let messages = sse_messages(&reply.text().await);
    assert_eq!(messages.len(), 4, "{messages:?}");
    for progress in &messages[..3] {
        assert_eq!(progress["params"]["progressToken"], json!(7));
        assert_server_message(V, progress);
    }
    assert_eq!(messages[3]["result"]["resultType"], json!("complete"));

    // Logs only when the request's `_meta` asks for a level.
    let quiet = call(server.addr, 10, "tools/call", json!({"name": "chatty"}))
        .await
        .text;
    assert!(!quiet.contains("notifications/message"), "{quiet}");
    let mut params = json!({"name": "chatty", "_meta": meta(json!({}))});
    params["_meta"]["io.modelcontextprotocol/logLevel"] = json!("error");
    let reply = post(
        server.addr,
        &[
            ("mcp-protocol-version", V),
            ("mcp-method", "tools/call"),
            ("mcp-name", "chatty"),
        ],
        &json!({"jsonrpc": "2.0", "id": 11, "method": "tools/call", "params": params}),
    )
    .await;
    let logs: Vec<Value> = sse_messages(&reply.text().await)
        .into_iter()
        .filter(|m| m["method"] == json!("notifications/message"))
        .collect();
    assert_eq!(logs.len(), 1, "{logs:?}");
    assert_eq!(logs[0]["params"]["level"], json!("error"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn closing_the_stream_cancels_the_handler_within_100_ms() {
    let server = start(Config::default()).await;
    let mut params = json!({"name": "linger", "arguments": {}, "_meta": meta(json!({}))});
    params["_meta"]["progressToken"] = json!("linger-1");
    let body = json!({"jsonrpc": "2.0", "id": 21, "method": "tools/call", "params": params});
    let mut headers = POST_HEADERS.to_vec();
    headers.extend([
        ("mcp-protocol-version", V),
        ("mcp-method", "tools/call"),
        ("mcp-name", "linger"),
    ]);
    let mut stream = SseStream::open(server.addr, "POST", &headers, &body.to_string()).await;
    assert_eq!(stream.status, StatusCode::OK);
    assert_eq!(stream.header("content-type"), Some("text/event-stream"));
    let progress = stream.next_message(Duration::from_secs(10)).await;
    assert_server_message(V, &progress);
    assert_eq!(
        progress["params"],
        json!({"progressToken": "linger-1", "progress": 1, "message": "lingering"})
    );
    assert!(server.handler.linger_dropped.dropped_at().is_none());

    let closed_at = stream.close();
    let dropped_at = server
        .handler
        .linger_dropped
        .wait(Duration::from_secs(2))
        .await
        .expect("closing the stream cancels the handler");
    let delay = dropped_at.saturating_duration_since(closed_at);
    assert!(
        delay <= Duration::from_millis(100),
        "the handler was cancelled {delay:?} after the stream closed"
    );
}

#[tokio::test]
async fn without_a_log_level_no_log_message_is_sent() {
    let server = start(Config::default()).await;
    let answer = call_tool_with_meta(server.addr, 22, "verbose", json!({})).await;
    assert_eq!(answer.tool_text(), "logged");
    assert!(
        !answer.text.contains("notifications/message"),
        "{}",
        answer.text
    );
}

#[tokio::test]
async fn an_info_log_level_sends_info_before_the_result_and_filters_debug() {
    let server = start(Config::default()).await;
    let answer = call_tool_with_meta(
        server.addr,
        23,
        "verbose",
        json!({"io.modelcontextprotocol/logLevel": "info"}),
    )
    .await;
    assert_eq!(answer.tool_text(), "logged");
    assert_eq!(
        message_kinds(&answer),
        ["notifications/message info", "result"]
    );
    let log = &sse_messages(&answer.text)[0];
    assert_eq!(
        log["params"],
        json!({"level": "info", "logger": "verbose", "data": "info message"})
    );
}

#[tokio::test]
async fn a_debug_log_level_sends_both_logs_in_order() {
    let server = start(Config::default()).await;
    let answer = call_tool_with_meta(
        server.addr,
        24,
        "verbose",
        json!({"io.modelcontextprotocol/logLevel": "debug"}),
    )
    .await;
    assert_eq!(
        message_kinds(&answer),
        [
            "notifications/message debug",
            "notifications/message info",
            "result"
        ]
    );
}
