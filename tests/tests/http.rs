//! The session-era Streamable HTTP transport against a real server on 127.0.0.1: status codes,
//! headers, SSE framing, replay, expiry, batches, cancellation, client requests, concurrent
//! sessions. Every message the server sends is checked against the official schema of the
//! negotiated version.

mod support;

use http::StatusCode;
use serde_json::{json, Value};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use mcp_runtime::Config;
use support::schema::{assert_response, assert_server_message};
use support::{post, read_messages, send, sse_messages, start, Client, POST_HEADERS};

const VERSIONS: [&str; 3] = ["2025-03-26", "2025-06-18", "2025-11-25"];

#[tokio::test]
async fn initialize_negotiates_and_issues_a_session() {
    let server = start(Config::default()).await;
    for (asked, expected) in [
        ("2025-03-26", "2025-03-26"),
        ("2025-06-18", "2025-06-18"),
        ("2025-11-25", "2025-11-25"),
        ("2024-11-05", "2025-11-25"),
        ("2026-07-28", "2025-11-25"),
    ] {
        let reply = post(
            server.addr,
            &[],
            &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": asked, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}),
        )
        .await;
        assert_eq!(reply.status, StatusCode::OK);
        assert_eq!(reply.header("content-type"), Some("application/json"));
        let session = reply.header("mcp-session-id").unwrap().to_string();
        assert!(session.bytes().all(|b| (0x21..=0x7e).contains(&b)));
        let body = reply.json().await;
        assert_eq!(
            body["result"]["protocolVersion"],
            json!(expected),
            "asked {asked}"
        );
        assert_eq!(
            body["result"]["serverInfo"]["name"],
            json!("http-test-server")
        );
        assert_response(expected, "initialize", &body);
    }
    assert_eq!(server.server.sessions().len(), 5);
}

#[tokio::test]
async fn every_method_answers_and_matches_the_schema_of_each_version() {
    let server = start(Config::default()).await;
    for version in VERSIONS {
        let mut client = Client::connect(server.addr, version).await;
        let calls = [
            ("ping", json!({})),
            ("logging/setLevel", json!({"level": "debug"})),
            ("tools/list", json!({})),
            (
                "tools/call",
                json!({"name": "echo", "arguments": {"text": "hi"}}),
            ),
            ("tools/call", json!({"name": "count"})),
            ("prompts/list", json!({})),
            (
                "prompts/get",
                json!({"name": "greet", "arguments": {"name": "Ada"}}),
            ),
            ("resources/list", json!({})),
            ("resources/templates/list", json!({})),
            ("resources/read", json!({"uri": "test://hello"})),
            ("resources/read", json!({"uri": "test://items/42"})),
            ("resources/subscribe", json!({"uri": "test://hello"})),
            ("resources/unsubscribe", json!({"uri": "test://hello"})),
            (
                "completion/complete",
                json!({"ref": {"type": "ref/prompt", "name": "greet"}, "argument": {"name": "name", "value": "A"}}),
            ),
        ];
        for (method, params) in calls {
            let response = client.call(method, params).await;
            assert!(
                response.get("result").is_some(),
                "{version} {method}: {response}"
            );
            assert_response(version, method, &response);
        }
        assert_eq!(
            client.call("ping", json!({})).await["result"],
            json!({}),
            "ping is exactly {{}}"
        );
        let tools = client.call("tools/list", json!({})).await;
        let item = client
            .call("resources/read", json!({"uri": "test://items/7"}))
            .await;
        assert_eq!(item["result"]["contents"][0]["text"], json!("{\"id\":7}"));
        let structured = client.call("tools/call", json!({"name": "count"})).await;
        if version == "2025-03-26" {
            assert!(tools["result"]["tools"][1].get("outputSchema").is_none());
            assert!(structured["result"].get("structuredContent").is_none());
        } else {
            assert_eq!(
                structured["result"]["structuredContent"],
                json!({"steps": 3})
            );
        }
    }
}

#[tokio::test]
async fn protocol_errors_are_json_rpc_errors() {
    let server = start(Config::default()).await;
    let mut client = Client::connect(server.addr, "2025-11-25").await;
    let unknown_tool = client.call("tools/call", json!({"name": "nope"})).await;
    assert_eq!(unknown_tool["error"]["code"], json!(-32602));
    let unknown_prompt = client.call("prompts/get", json!({"name": "nope"})).await;
    assert_eq!(unknown_prompt["error"]["code"], json!(-32602));
    let missing = client
        .call("resources/read", json!({"uri": "test://missing"}))
        .await;
    assert_eq!(missing["error"]["code"], json!(-32002));
    assert_eq!(missing["error"]["data"]["uri"], json!("test://missing"));
    let no_method = client.call("no/such/method", json!({})).await;
    assert_eq!(no_method["error"]["code"], json!(-32601));
    for response in [unknown_tool, unknown_prompt, missing, no_method] {
        assert_response("2025-11-25", "", &response);
    }
    // Bad arguments: an isError result from 2025-11-25, a -32602 error before.
    let bad = client
        .call(
            "tools/call",
            json!({"name": "echo", "arguments": {"text": 5}}),
        )
        .await;
    assert_eq!(bad["result"]["isError"], json!(true));
    let mut old = Client::connect(server.addr, "2025-06-18").await;
    let bad = old
        .call(
            "tools/call",
            json!({"name": "echo", "arguments": {"text": 5}}),
        )
        .await;
    assert_eq!(bad["error"]["code"], json!(-32602));
}

#[tokio::test]
async fn a_panicking_handler_is_an_error_result_and_the_server_lives_on() {
    let server = start(Config::default()).await;
    let mut client = Client::connect(server.addr, "2025-11-25").await;
    let response = client.call("tools/call", json!({"name": "explode"})).await;
    assert_eq!(response["result"]["isError"], json!(true));
    // The panic's text goes to the log, never to the client.
    let text = response["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("failed unexpectedly"), "{text}");
    assert!(!text.contains("boom on purpose"), "{text}");
    assert_eq!(client.call("ping", json!({})).await["result"], json!({}));
}

#[tokio::test]
async fn session_rules_400_404_and_delete() {
    let server = start(Config::default()).await;
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
    let missing = post(server.addr, &[], &ping).await;
    assert_eq!(missing.status, StatusCode::BAD_REQUEST);
    let unknown = post(server.addr, &[("mcp-session-id", "nope")], &ping).await;
    assert_eq!(unknown.status, StatusCode::NOT_FOUND);
    assert_eq!(unknown.json().await["error"]["code"], json!(-32001));

    let client = Client::connect(server.addr, "2025-06-18").await;
    let bad_version = post(
        server.addr,
        &[
            ("mcp-session-id", &client.session),
            ("mcp-protocol-version", "1999-01-01"),
        ],
        &ping,
    )
    .await;
    assert_eq!(bad_version.status, StatusCode::BAD_REQUEST);
    // No MCP-Protocol-Version header means 2025-03-26 and is accepted.
    let no_version = post(server.addr, &[("mcp-session-id", &client.session)], &ping).await;
    assert_eq!(no_version.status, StatusCode::OK);

    assert_eq!(
        send(server.addr, "DELETE", &[], "").await.status,
        StatusCode::BAD_REQUEST
    );
    let deleted = send(
        server.addr,
        "DELETE",
        &[("mcp-session-id", &client.session)],
        "",
    )
    .await;
    assert_eq!(deleted.status, StatusCode::NO_CONTENT);
    let again = send(
        server.addr,
        "DELETE",
        &[("mcp-session-id", &client.session)],
        "",
    )
    .await;
    assert_eq!(again.status, StatusCode::NOT_FOUND);
    let after = client.post_raw(&ping).await;
    assert_eq!(after.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn sessionless_clients_are_served_when_allowed() {
    let server = start(Config::builder().allow_sessionless(true).build()).await;
    let reply = post(server.addr, &[], &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "x"}}})).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(
        reply.json().await["result"]["content"][0]["text"],
        json!("x")
    );
    assert_eq!(
        server.server.sessions().len(),
        0,
        "the throwaway session is not kept"
    );
}

#[tokio::test]
async fn http_guards_403_405_406_413_415_and_parse_errors() {
    let server = start(Config::builder().body_limit(1024).build()).await;
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}).to_string();
    let evil_host = send(
        server.addr,
        "POST",
        &[
            POST_HEADERS[0],
            POST_HEADERS[1],
            ("host", "evil.example.com"),
        ],
        &body,
    )
    .await;
    assert_eq!(evil_host.status, StatusCode::FORBIDDEN);
    let message = evil_host.json().await["error"]["message"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(message.contains("allowed_hosts"), "{message}");
    let evil_origin = send(
        server.addr,
        "POST",
        &[
            POST_HEADERS[0],
            POST_HEADERS[1],
            ("origin", "http://evil.example.com"),
        ],
        &body,
    )
    .await;
    assert_eq!(evil_origin.status, StatusCode::FORBIDDEN);
    let local_origin = send(
        server.addr,
        "GET",
        &[
            ("origin", "http://localhost:1234"),
            ("accept", "text/event-stream"),
        ],
        "",
    )
    .await;
    assert_eq!(
        local_origin.status,
        StatusCode::BAD_REQUEST,
        "allowed origin, then missing session"
    );

    assert_eq!(
        send(server.addr, "PUT", &[], "").await.status,
        StatusCode::METHOD_NOT_ALLOWED
    );
    let no_accept = send(
        server.addr,
        "POST",
        &[("content-type", "application/json")],
        &body,
    )
    .await;
    assert_eq!(no_accept.status, StatusCode::NOT_ACCEPTABLE);
    let json_only = send(
        server.addr,
        "POST",
        &[
            ("content-type", "application/json"),
            ("accept", "application/json"),
        ],
        &body,
    )
    .await;
    assert_eq!(json_only.status, StatusCode::NOT_ACCEPTABLE);
    let text = send(
        server.addr,
        "POST",
        &[("content-type", "text/plain"), POST_HEADERS[1]],
        &body,
    )
    .await;
    assert_eq!(text.status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
    let big = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{{\"pad\":\"{}\"}}}}",
        "x".repeat(2000)
    );
    assert_eq!(
        send(server.addr, "POST", &POST_HEADERS, &big).await.status,
        StatusCode::PAYLOAD_TOO_LARGE
    );
    let garbage = send(server.addr, "POST", &POST_HEADERS, "{not json").await;
    assert_eq!(garbage.status, StatusCode::BAD_REQUEST);
    assert_eq!(garbage.json().await["error"]["code"], json!(-32700));
    let not_rpc = send(server.addr, "POST", &POST_HEADERS, r#"{"hello":1}"#).await;
    assert_eq!(not_rpc.status, StatusCode::BAD_REQUEST);
    assert_eq!(not_rpc.json().await["error"]["code"], json!(-32600));
    let elsewhere = support::send(server.addr, "POST", &POST_HEADERS, &body).await;
    assert_eq!(elsewhere.status, StatusCode::BAD_REQUEST, "no session");
}

#[tokio::test]
async fn notifications_and_responses_are_accepted_with_202() {
    let server = start(Config::default()).await;
    let client = Client::connect(server.addr, "2025-06-18").await;
    let note = client
        .post_raw(&json!({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"}))
        .await;
    assert_eq!(note.status, StatusCode::ACCEPTED);
    assert_eq!(note.text().await, "");
    let stray = client
        .post_raw(&json!({"jsonrpc": "2.0", "id": "s99", "result": {}}))
        .await;
    assert_eq!(stray.status, StatusCode::ACCEPTED);
}

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

#[tokio::test]
async fn cancelled_requests_stop_their_handler() {
    let server = start(Config::default()).await;
    let mut client = Client::connect(server.addr, "2025-06-18").await;
    let addr = client.addr;
    let headers: Vec<(String, String)> = client
        .headers()
        .into_iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    let call = tokio::spawn(async move {
        client
            .request(
                "tools/call",
                json!({"name": "slow", "arguments": {"millis": 5000}}),
            )
            .await
    });
    tokio::time::sleep(Duration::from_millis(100)).await;
    let header_refs: Vec<(&str, &str)> = headers
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
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

#[tokio::test]
async fn idle_sessions_expire_and_free_their_memory() {
    let server = start(
        Config::builder()
            .session_idle_timeout(Some(Duration::from_millis(100)))
            .build(),
    )
    .await;
    let client = Client::connect(server.addr, "2025-06-18").await;
    let weak = {
        let mut found = None;
        server
            .server
            .sessions()
            .for_each(&mut |s| found = Some(Arc::downgrade(s)));
        found.expect("the session is stored")
    };
    assert!(weak.upgrade().is_some());
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert_eq!(server.server.sessions().len(), 0);
    assert!(
        weak.upgrade().is_none(),
        "the evicted session's memory is freed"
    );
    let expired = client
        .post_raw(&json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}))
        .await;
    assert_eq!(expired.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn the_session_store_is_bounded() {
    let server = start(Config::builder().max_sessions(2).build()).await;
    Client::connect(server.addr, "2025-06-18").await;
    Client::connect(server.addr, "2025-06-18").await;
    let third = post(server.addr, &[], &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}))
    .await;
    assert_eq!(third.status, StatusCode::SERVICE_UNAVAILABLE);
}

#[tokio::test]
async fn batches_are_served_at_2025_03_26_only() {
    let server = start(Config::default()).await;
    let client = Client::connect(server.addr, "2025-03-26").await;
    let batch = json!([
        {"jsonrpc": "2.0", "id": 1, "method": "ping"},
        {"jsonrpc": "2.0", "method": "notifications/roots/list_changed"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "b"}}},
        {"jsonrpc": "2.0", "id": 3, "method": "initialize", "params": {}}
    ]);
    let reply = client.post_raw(&batch).await;
    assert_eq!(reply.status, StatusCode::OK);
    let answers = reply.json().await;
    let answers = answers.as_array().unwrap();
    assert_eq!(answers.len(), 3);
    assert_eq!(answers[0], json!({"jsonrpc": "2.0", "id": 1, "result": {}}));
    assert_eq!(answers[1]["result"]["content"][0]["text"], json!("b"));
    assert_eq!(
        answers[2]["error"]["code"],
        json!(-32600),
        "initialize cannot be batched"
    );
    let only_notes = client
        .post_raw(&json!([{"jsonrpc": "2.0", "method": "notifications/initialized"}]))
        .await;
    assert_eq!(only_notes.status, StatusCode::ACCEPTED);

    let newer = Client::connect(server.addr, "2025-06-18").await;
    let refused = newer
        .post_raw(&json!([{"jsonrpc": "2.0", "id": 1, "method": "ping"}]))
        .await;
    assert_eq!(refused.status, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn concurrent_sessions_stay_apart() {
    let server = start(Config::default()).await;
    let mut tasks = Vec::new();
    for n in 0..16 {
        let addr = server.addr;
        tasks.push(tokio::spawn(async move {
            let mut client = Client::connect(addr, VERSIONS[n % 3]).await;
            for i in 0..10 {
                let text = format!("session {n} call {i}");
                let response = client
                    .call(
                        "tools/call",
                        json!({"name": "echo", "arguments": {"text": text}}),
                    )
                    .await;
                assert_eq!(response["result"]["content"][0]["text"], json!(text));
            }
            client.session
        }));
    }
    let mut sessions = Vec::new();
    for task in tasks {
        sessions.push(task.await.unwrap());
    }
    sessions.sort();
    sessions.dedup();
    assert_eq!(sessions.len(), 16);
}

#[tokio::test]
async fn completion_offers_declared_enum_values() {
    let server = start(Config::default()).await;
    let mut client = Client::connect(server.addr, "2025-11-25").await;
    let complete = |value: &str| json!({"ref": {"type": "ref/prompt", "name": "greet"}, "argument": {"name": "tone", "value": value}});
    let all = client.call("completion/complete", complete("")).await;
    assert_response("2025-11-25", "completion/complete", &all);
    assert_eq!(
        all["result"]["completion"],
        json!({"values": ["warm", "formal", "wry"], "total": 3, "hasMore": false})
    );
    let w = client.call("completion/complete", complete("W")).await;
    assert_eq!(w["result"]["completion"]["values"], json!(["warm", "wry"]));
    let free_text = client.call("completion/complete", json!({"ref": {"type": "ref/prompt", "name": "greet"}, "argument": {"name": "name", "value": "A"}})).await;
    assert_eq!(free_text["result"]["completion"]["values"], json!([]));
    let unknown = client.call("completion/complete", json!({"ref": {"type": "ref/prompt", "name": "nope"}, "argument": {"name": "x", "value": ""}})).await;
    assert_eq!(unknown["error"]["code"], json!(-32602));
}

#[tokio::test]
async fn list_pagination_uses_opaque_cursors() {
    let server = start(Config::builder().page_size(3).build()).await;
    let mut client = Client::connect(server.addr, "2025-06-18").await;
    let mut names = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let params = match &cursor {
            Some(c) => json!({"cursor": c}),
            None => json!({}),
        };
        let page = client.call("tools/list", params).await;
        assert_response("2025-06-18", "tools/list", &page);
        names.extend(
            page["result"]["tools"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t["name"].as_str().unwrap().to_string()),
        );
        match page["result"].get("nextCursor") {
            Some(next) => cursor = Some(next.as_str().unwrap().to_string()),
            None => break,
        }
    }
    assert_eq!(
        names,
        [
            "echo",
            "count",
            "chatty",
            "slow",
            "explode",
            "ask_model",
            "reconnect",
            "touch_tools",
            "interview",
            "tally",
            "polite_survey",
            "needs_sampling",
            "region_echo",
            "limit_echo",
            "linger",
            "verbose",
            "background_job",
            "failing_job",
            "broken_job",
            "endless_job",
            "two_questions"
        ]
    );
    let bad = client
        .call("tools/list", json!({"cursor": "not-a-cursor"}))
        .await;
    assert_eq!(bad["error"]["code"], json!(-32602));
}

#[tokio::test]
async fn the_server_is_a_tower_service() {
    use tower_service::Service;
    let mut service = mcp_runtime::McpServer::new(workspace_tests::server::Server::new(
        workspace_tests::TestHandler::default(),
    ));
    let request = http::Request::post("/mcp")
        .header("host", "localhost")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(http_body_util::Full::new(bytes::Bytes::from(
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
            .to_string(),
        )))
        .unwrap();
    let response = service.call(request).await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert!(response.headers().contains_key("mcp-session-id"));
    assert_eq!(service.sessions().len(), 1);
}
