//! The HTTP layer: host and origin guards, methods, `Accept` and `Content-Type`, body limit
//! and parse errors; notifications and responses accepted with 202; batches at 2025-03-26
//! only; and the server used directly as a tower `Service`.

use http::StatusCode;
use serde_json::json;

use crate::support;
use crate::support::{send, start, Client, POST_HEADERS};
use mcp_runtime::Config;

#[tokio::test]
async fn a_bracketed_host_with_a_tail_is_refused_and_a_request_without_host_is_400() {
    let server = start(Config::default()).await;
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}).to_string();
    let tailed = send(
        server.addr,
        "POST",
        &[
            POST_HEADERS[0],
            POST_HEADERS[1],
            ("host", "[::1]evil.example"),
        ],
        &body,
    )
    .await;
    assert_eq!(tailed.status, StatusCode::FORBIDDEN);
    // The test client always sends Host: write this request by hand.
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    let request = format!(
        "POST /mcp HTTP/1.1\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).await.unwrap();
    assert!(answer.starts_with("HTTP/1.1 400"), "{answer}");
    assert!(answer.contains("Host header is required"), "{answer}");
}

#[tokio::test]
async fn a_repeated_host_or_origin_is_400() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let server = start(Config::default()).await;
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}).to_string();
    for repeated in [
        "host: localhost\r\nhost: evil.example",
        "host: localhost\r\norigin: http://localhost\r\norigin: http://evil.example",
    ] {
        let mut stream = tokio::net::TcpStream::connect(server.addr).await.unwrap();
        let request = format!(
            "POST /mcp HTTP/1.1\r\n{repeated}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        );
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).await.unwrap();
        assert!(answer.starts_with("HTTP/1.1 400"), "{repeated}: {answer}");
        assert!(answer.contains("may each appear once"), "{answer}");
    }
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
    assert_eq!(service.load().sessions, 1);
}
