//! SSE streams: progress as one message per `data:` line, log messages at the session level,
//! sampling requests out on the request stream, cancellation, the GET stream, resumption with
//! `Last-Event-ID` and whole-stream SSE responses that replay.

use http::StatusCode;
use serde_json::{json, Value};
use std::sync::atomic::Ordering;
use std::time::Duration;

use crate::support::schema::{assert_response, assert_server_message};
use crate::support::{post, read_messages, send, sse_messages, start, Client};
use crate::VERSIONS;
use mcp_runtime::Config;

#[tokio::test]
async fn progress_streams_as_sse_one_message_per_data_line() {
    let server = start(Config::default()).await;
    for version in VERSIONS {
        let mut client = Client::connect(server.addr, version).await;
        let (id, reply) = client
            .request(
                "tools/call",
                json!({"name": "count", "_meta": {"progressToken": "tok-1"}}),
            )
            .await;
        assert_eq!(reply.status, StatusCode::OK);
        assert_eq!(reply.header("content-type"), Some("text/event-stream"));
        let text = reply.text().await;
        let events: Vec<&str> = text.split("\n\n").filter(|e| !e.is_empty()).collect();
        if version == "2025-11-25" {
            assert!(
                events[0].starts_with("id: ")
                    && events[0].contains("retry: ")
                    && events[0].ends_with("data: "),
                "priming: {:?}",
                events[0]
            );
        }
        for event in events.iter().filter(|e| e.contains("event: message")) {
            assert!(
                event.lines().any(|l| l.starts_with("id: ")),
                "every event has an id: {event}"
            );
            assert_eq!(event.lines().filter(|l| l.starts_with("data:")).count(), 1);
        }
        let messages = sse_messages(&text);
        assert_eq!(
            messages.len(),
            4,
            "{version}: three progress notifications then the result: {messages:?}"
        );
        for (i, progress) in messages[..3].iter().enumerate() {
            assert_eq!(progress["method"], json!("notifications/progress"));
            assert_eq!(progress["params"]["progressToken"], json!("tok-1"));
            assert_eq!(progress["params"]["progress"], json!(i + 1));
            assert_server_message(version, progress);
        }
        assert_eq!(messages[3]["id"], json!(id));
        assert_response(version, "tools/call", &messages[3]);
        // Without a token the same tool answers plain JSON.
        let (_, plain) = client.request("tools/call", json!({"name": "count"})).await;
        assert_eq!(plain.header("content-type"), Some("application/json"));
    }
}

#[tokio::test]
async fn log_messages_follow_the_session_level() {
    let server = start(Config::default()).await;
    let mut client = Client::connect(server.addr, "2025-06-18").await;
    // No level set: nothing is sent, the answer is plain JSON.
    let (_, quiet) = client
        .request("tools/call", json!({"name": "chatty"}))
        .await;
    assert_eq!(quiet.header("content-type"), Some("application/json"));
    client
        .call("logging/setLevel", json!({"level": "warning"}))
        .await;
    let (_, reply) = client
        .request("tools/call", json!({"name": "chatty"}))
        .await;
    let messages = read_messages(reply).await;
    let logs: Vec<&Value> = messages
        .iter()
        .filter(|m| m["method"] == json!("notifications/message"))
        .collect();
    assert_eq!(
        logs.len(),
        2,
        "warning and error pass a warning threshold: {messages:?}"
    );
    assert_eq!(logs[0]["params"]["level"], json!("warning"));
    assert_eq!(logs[0]["params"]["logger"], json!("chatty"));
    assert_eq!(logs[1]["params"]["level"], json!("error"));
    for log in logs {
        assert_server_message("2025-06-18", log);
    }
}

#[tokio::test]
async fn sampling_goes_out_on_the_request_stream_and_the_answer_comes_back_by_id() {
    let server = start(Config::default()).await;
    let mut client = Client::connect(server.addr, "2025-06-18").await;
    let (id, mut reply) = client
        .request(
            "tools/call",
            json!({"name": "ask_model", "arguments": {"question": "2+2?"}}),
        )
        .await;
    assert_eq!(reply.header("content-type"), Some("text/event-stream"));
    let mut seen = String::new();
    let request = loop {
        seen.push_str(&reply.chunk().await.expect("the sampling request"));
        if let Some(request) = sse_messages(&seen)
            .into_iter()
            .find(|m| m["method"] == json!("sampling/createMessage"))
        {
            break request;
        }
    };
    assert_server_message("2025-06-18", &request);
    assert_eq!(
        request["params"]["messages"][0]["content"]["text"],
        json!("2+2?")
    );
    let answer = client
        .post_raw(&json!({"jsonrpc": "2.0", "id": request["id"], "result": {
            "role": "assistant", "content": {"type": "text", "text": "4"}, "model": "test-model", "stopReason": "endTurn"}}))
        .await;
    assert_eq!(answer.status, StatusCode::ACCEPTED);
    let rest = reply.text().await;
    let result = sse_messages(&rest)
        .into_iter()
        .find(|m| m["id"] == json!(id))
        .expect("the tool result");
    assert_eq!(
        result["result"]["content"][0]["text"],
        json!("model said: 4")
    );
}

/// A session client's headers, owned: for a request sent from another task.
fn owned_headers(client: &Client) -> Vec<(String, String)> {
    client
        .headers()
        .into_iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

/// `headers` as the request helpers take them.
fn header_refs(headers: &[(String, String)]) -> Vec<(&str, &str)> {
    headers
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect()
}

#[tokio::test]
async fn cancelled_requests_stop_their_handler() {
    let server = start(Config::default()).await;
    let mut client = Client::connect(server.addr, "2025-06-18").await;
    let addr = client.addr;
    let headers = owned_headers(&client);
    let call = tokio::spawn(async move {
        client
            .request(
                "tools/call",
                json!({"name": "slow", "arguments": {"millis": 5000}}),
            )
            .await
    });
    tokio::time::sleep(Duration::from_millis(100)).await;
    let header_refs = header_refs(&headers);
    let cancel = post(addr, &header_refs, &json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1, "reason": "test"}})).await;
    assert_eq!(cancel.status, StatusCode::ACCEPTED);
    let started = std::time::Instant::now();
    while !server.handler.dropped.load(Ordering::SeqCst) {
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "the handler was not stopped"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let (_, reply) = tokio::time::timeout(Duration::from_secs(2), call)
        .await
        .expect("the POST completes")
        .unwrap();
    assert_eq!(
        reply.status,
        StatusCode::ACCEPTED,
        "a cancelled request gets no response"
    );
}

/// An id still running in the session is refused, not taken over: the second request
/// with it gets -32600 and runs nothing, and a cancellation of the id still stops the first.
#[tokio::test]
async fn a_running_requests_id_is_refused_to_another_request() {
    let server = start(Config::default()).await;
    let client = Client::connect(server.addr, "2025-06-18").await;
    let addr = client.addr;
    let headers = owned_headers(&client);
    let slow = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "slow", "arguments": {"millis": 5000}}});
    let first_headers: Vec<(String, String)> = headers.clone();
    let first = tokio::spawn(async move {
        let refs = header_refs(&first_headers);
        post(addr, &refs, &slow).await.status
    });
    tokio::time::sleep(Duration::from_millis(200)).await;
    let again = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "slow", "arguments": {"millis": 1}}});
    let refused = post(addr, &header_refs(&headers), &again).await;
    assert_eq!(refused.status, StatusCode::BAD_REQUEST);
    let answer = refused.json().await;
    assert_eq!(answer["id"], json!(7), "{answer}");
    assert_eq!(answer["error"]["code"], json!(-32600), "{answer}");
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 7}});
    assert_eq!(
        post(addr, &header_refs(&headers), &cancel).await.status,
        StatusCode::ACCEPTED
    );
    let started = std::time::Instant::now();
    while !server.handler.dropped.load(Ordering::SeqCst) {
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "the first request's hook was lost"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let status = tokio::time::timeout(Duration::from_secs(2), first)
        .await
        .expect("the first POST completes")
        .unwrap();
    assert_eq!(status, StatusCode::ACCEPTED, "cancelled");
}

/// A session runs at most `max_session_requests` requests at once: one more is refused with
/// 503 before it runs, and once one ends there is room again.
#[tokio::test]
async fn a_session_runs_a_bounded_number_of_requests() {
    let server = start(Config::builder().max_session_requests(1).build()).await;
    let client = Client::connect(server.addr, "2025-06-18").await;
    let addr = client.addr;
    let headers = owned_headers(&client);
    let call = |id: i64, millis: u64| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "slow", "arguments": {"millis": millis}}})
    };
    let first_headers = headers.clone();
    let first = tokio::spawn(async move {
        let refs = header_refs(&first_headers);
        post(addr, &refs, &call(1, 600)).await.status
    });
    tokio::time::sleep(Duration::from_millis(200)).await;
    let header_refs = header_refs(&headers);
    let refused = post(addr, &header_refs, &call(2, 1)).await;
    assert_eq!(refused.status, StatusCode::SERVICE_UNAVAILABLE);
    let answer = refused.json().await;
    assert_eq!(answer["id"], json!(2), "{answer}");
    assert_eq!(answer["error"]["code"], json!(-32000), "{answer}");
    assert!(answer["error"]["message"]
        .as_str()
        .unwrap()
        .contains("config.streams.max_session_requests"));
    assert_eq!(first.await.unwrap(), StatusCode::OK);
    let again = post(addr, &header_refs, &call(3, 1)).await;
    assert_eq!(again.status, StatusCode::OK, "room again");
}

#[tokio::test]
async fn get_stream_pings_carries_notifications_and_a_second_get_ends_the_first() {
    let server = start(Config::default()).await;
    let mut client = Client::connect(server.addr, "2025-11-25").await;
    fn get_headers(c: &Client) -> Vec<(&str, &str)> {
        let mut h = c.headers();
        h.push(("accept", "text/event-stream"));
        h
    }
    let mut first = send(server.addr, "GET", &get_headers(&client), "").await;
    assert_eq!(first.status, StatusCode::OK);
    assert_eq!(first.header("content-type"), Some("text/event-stream"));
    assert_eq!(first.chunk().await.unwrap(), ": ping\n\n");
    client
        .call("tools/call", json!({"name": "touch_tools"}))
        .await;
    let event = first.chunk().await.unwrap();
    let messages = sse_messages(&event);
    assert_eq!(
        messages[0]["method"],
        json!("notifications/tools/list_changed")
    );
    assert_server_message("2025-11-25", &messages[0]);
    let _second = send(server.addr, "GET", &get_headers(&client), "").await;
    assert_eq!(first.chunk().await, None, "the first stream completes");
    let no_accept = send(server.addr, "GET", &client.headers(), "").await;
    assert_eq!(no_accept.status, StatusCode::NOT_ACCEPTABLE);
}

#[tokio::test]
async fn a_closed_stream_is_resumed_with_last_event_id() {
    let server = start(Config::default()).await;
    let mut client = Client::connect(server.addr, "2025-11-25").await;
    let (id, reply) = client
        .request("tools/call", json!({"name": "reconnect"}))
        .await;
    assert_eq!(reply.header("content-type"), Some("text/event-stream"));
    let text = reply.text().await; // the server drops the connection after the priming event
    let priming_id = text
        .lines()
        .find_map(|l| l.strip_prefix("id: "))
        .expect("a priming event id")
        .to_string();
    assert!(
        sse_messages(&text).is_empty(),
        "no result before the reconnection: {text}"
    );
    tokio::time::sleep(Duration::from_millis(150)).await;
    let mut headers = client.headers();
    headers.push(("accept", "text/event-stream"));
    headers.push(("last-event-id", &priming_id));
    let resumed = send(server.addr, "GET", &headers, "").await;
    assert_eq!(resumed.status, StatusCode::OK);
    let messages = sse_messages(&resumed.text().await);
    assert_eq!(messages.len(), 1, "{messages:?}");
    assert_eq!(messages[0]["id"], json!(id));
    assert_eq!(
        messages[0]["result"]["content"][0]["text"],
        json!("reconnected")
    );
}

#[tokio::test]
async fn sse_responses_answer_on_a_whole_stream_that_replays() {
    let server = start(Config::builder().sse_responses(true).build()).await;
    // 2025-11-25: a priming event, then the answer, and the response ends.
    let mut client = Client::connect(server.addr, "2025-11-25").await;
    let (id, reply) = client
        .request(
            "tools/call",
            json!({"name": "echo", "arguments": {"text": "hi"}}),
        )
        .await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.header("content-type"), Some("text/event-stream"));
    let text = reply.text().await;
    let ids: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("id: "))
        .collect();
    assert_eq!(ids.len(), 2, "priming event and answer: {text}");
    assert!(text.contains("retry: "), "{text}");
    let messages = sse_messages(&text);
    assert_eq!(messages.len(), 1, "{text}");
    assert_response("2025-11-25", "tools/call", &messages[0]);
    assert_eq!(messages[0]["id"], json!(id));
    // Resuming after the priming event replays the answer from the window.
    let mut headers = client.headers();
    headers.push(("accept", "text/event-stream"));
    headers.push(("last-event-id", ids[0]));
    let resumed = send(server.addr, "GET", &headers, "").await;
    assert_eq!(resumed.status, StatusCode::OK);
    let replayed = sse_messages(&resumed.text().await);
    assert_eq!(replayed, messages);
    // Before 2025-11-25 there is no priming event: the stream is the answer alone.
    let mut old = Client::connect(server.addr, "2025-06-18").await;
    let (_, reply) = old.request("ping", json!({})).await;
    let text = reply.text().await;
    assert_eq!(
        text.lines().filter(|l| l.starts_with("id: ")).count(),
        1,
        "{text}"
    );
    assert_eq!(sse_messages(&text)[0]["result"], json!({}));
}
