//! Sessions: the `Mcp-Session-Id` rules (400, 404, DELETE), sessionless clients when
//! allowed, idle expiry that frees memory, the bounded store and concurrent sessions kept
//! apart.

use http::StatusCode;
use serde_json::json;
use std::sync::Arc;
use std::time::Duration;

use crate::support::{post, send, start, Client};
use crate::VERSIONS;
use mcp_runtime::Config;

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
        server.server.load().sessions,
        0,
        "the throwaway session is not kept"
    );
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
            .for_each_session(&mut |s| found = Some(Arc::downgrade(s)));
        found.expect("the session is stored")
    };
    assert!(weak.upgrade().is_some());
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert_eq!(server.server.load().sessions, 0);
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
