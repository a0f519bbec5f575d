//! Hardening, through real servers on loopback:
//!
//! - `requestState` key rotation: a state sealed by a server with key A opens on a server whose
//!   current key is B and previous key A, and is refused by one that only has B; the rotated
//!   server seals with B.
//! - `config.request_state.request_state_single_use`: a state is redeemed once; without it a state
//!   can be replayed with the same request until it expires.
//! - stdio back-pressure: with a client that does not read, the server stops reading requests
//!   once `config.limits.stdio_output_limit` bytes wait, then answers every one once the client
//!   reads.
//! - stdio in-flight tracking: after a burst of requests, cancellations (both eras), a reused
//!   id, malformed lines and EOF, nothing is left running and the cancelled requests never
//!   answer.

mod support;

use serde_json::{json, Value};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use mcp_runtime::request_state::SealingKey;
use mcp_runtime::{Config, McpServer};
use support::start;
use support::stateless::{accept, Mrtr};
use workspace_tests::server::Server;
use workspace_tests::TestHandler;

fn key(byte: u8) -> Option<SealingKey> {
    Some(SealingKey::new(vec![byte; 32]).unwrap())
}

/// Runs `interview` (topic "tea") on `addr` through its first two rounds; returns the call
/// and the second round's state, which only lacks `confirm`.
async fn interview_until_confirm(addr: SocketAddr) -> (Mrtr, String) {
    let mut call = Mrtr::tool(addr, "interview", json!({"topic": "tea"}));
    let (_, first) = call.first().await.input_required();
    let second = call
        .retry(
            json!({"name": accept("name", "Ada"), "colour": accept("colour", "teal")}),
            &first,
        )
        .await;
    assert_eq!(second.pending_keys(), ["confirm"]);
    (call, second.input_required().1)
}

#[tokio::test]
async fn a_rotated_server_opens_states_of_its_previous_key() {
    let a = start(Config::builder().request_state_key(key(1)).build()).await;
    let rotated = start(
        Config::builder()
            .request_state_key(key(2))
            .request_state_previous_key(key(1))
            .build(),
    )
    .await;
    let only_b = start(Config::builder().request_state_key(key(2)).build()).await;

    let (mut call, state) = interview_until_confirm(a.addr).await;
    call.switch_to(only_b.addr);
    let refused = call
        .retry(json!({"confirm": accept("ok", "yes")}), &state)
        .await;
    assert!(refused.invalid_params().contains("integrity"));

    call.switch_to(rotated.addr);
    let done = call
        .retry(json!({"confirm": accept("ok", "yes")}), &state)
        .await;
    assert_eq!(done.tool_text(), "tea: Ada likes teal (confirm=yes)");

    // What the rotated server seals opens with its current key alone, not with the old one.
    let (mut call, state) = interview_until_confirm(rotated.addr).await;
    call.switch_to(a.addr);
    let refused = call
        .retry(json!({"confirm": accept("ok", "yes")}), &state)
        .await;
    assert!(refused.invalid_params().contains("integrity"));
    call.switch_to(only_b.addr);
    let done = call
        .retry(json!({"confirm": accept("ok", "yes")}), &state)
        .await;
    assert_eq!(done.tool_text(), "tea: Ada likes teal (confirm=yes)");
}

#[tokio::test]
async fn a_single_use_state_is_redeemed_once() {
    let server = start(
        Config::builder()
            .request_state_key(key(3))
            .request_state_single_use(true)
            .build(),
    )
    .await;
    let (mut call, state) = interview_until_confirm(server.addr).await;
    let done = call
        .retry(json!({"confirm": accept("ok", "yes")}), &state)
        .await;
    assert_eq!(done.tool_text(), "tea: Ada likes teal (confirm=yes)");
    let replay = call
        .retry(json!({"confirm": accept("ok", "yes")}), &state)
        .await;
    assert!(
        replay.invalid_params().contains("already used"),
        "{}",
        replay.invalid_params()
    );
}

#[tokio::test]
async fn by_default_a_state_replays_until_it_expires() {
    let server = start(Config::builder().request_state_key(key(4)).build()).await;
    let (mut call, state) = interview_until_confirm(server.addr).await;
    for _ in 0..2 {
        let done = call
            .retry(json!({"confirm": accept("ok", "yes")}), &state)
            .await;
        assert_eq!(done.tool_text(), "tea: Ada likes teal (confirm=yes)");
    }
}

/// The `initialize` and `notifications/initialized` lines of a 2025-06-18 session.
fn handshake() -> String {
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "workspace-tests", "version": "1.0.0"}}});
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    format!("{initialize}\n{initialized}\n")
}

fn call(id: Value, tool: &str, arguments: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": tool, "arguments": arguments}})
    .to_string()
}

fn cancel(id: Value) -> String {
    json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": id, "reason": "test"}})
    .to_string()
}

#[tokio::test]
async fn stdio_stops_reading_while_the_client_does_not_read_and_drops_nothing() {
    const CALLS: usize = 2_000;
    let server = McpServer::builder(Server::new(TestHandler::default()))
        .config(Config::builder().stdio_output_limit(4096).build())
        .build();
    let (mut client_in, server_in) = tokio::io::duplex(1024);
    let (server_out, mut client_out) = tokio::io::duplex(256);
    let serving = tokio::spawn(mcp_runtime::stdio::serve_io(server, server_in, server_out));
    let sent = Arc::new(AtomicUsize::new(0));
    let sender = tokio::spawn({
        let sent = sent.clone();
        async move {
            client_in.write_all(handshake().as_bytes()).await.unwrap();
            for i in 1..=CALLS {
                let line = call(json!(i), "echo", json!({"text": "x".repeat(40)}));
                client_in
                    .write_all(format!("{line}\n").as_bytes())
                    .await
                    .unwrap();
                sent.fetch_add(1, Ordering::SeqCst);
            }
            // Dropping the pipe is the end of the input.
        }
    });
    // Nothing reads the answers: the server must stop taking requests, so the client's writes
    // block.
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    let stalled = sent.load(Ordering::SeqCst);
    assert!(
        stalled < CALLS / 4,
        "{stalled} of {CALLS} requests were taken while nobody read an answer"
    );
    let mut output = String::new();
    tokio::time::timeout(
        Duration::from_secs(30),
        client_out.read_to_string(&mut output),
    )
    .await
    .expect("every answer is written once the client reads")
    .unwrap();
    sender.await.unwrap();
    serving.await.unwrap().unwrap();
    let mut ids: Vec<u64> = output
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .filter_map(|answer| answer["id"].as_u64())
        .filter(|&id| id > 0)
        .collect();
    ids.sort_unstable();
    assert_eq!(ids, (1..=CALLS as u64).collect::<Vec<_>>());
}

#[tokio::test]
async fn stdio_leaves_nothing_running_after_cancellations_malformed_lines_and_eof() {
    let handler = TestHandler::default();
    let server = McpServer::builder(Server::new(handler.clone()))
        .config(Config::default())
        .build();
    let stateless = |id: Value, millis: u64| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
            "name": "slow", "arguments": {"millis": millis},
            "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                      "io.modelcontextprotocol/clientCapabilities": {}}}})
        .to_string()
    };
    let minute = 60_000;
    let lines = [
        handshake().trim_end().to_string(),
        call(json!(1), "slow", json!({"millis": minute})),
        cancel(json!(1)),
        call(json!("a"), "slow", json!({"millis": minute})),
        "{not json".to_string(),
        cancel(json!("a")),
        call(json!(2), "slow", json!({"millis": 20})),
        // An id still running is refused; cancelling it stops the first.
        call(json!(3), "slow", json!({"millis": minute})),
        call(json!(3), "slow", json!({"millis": 10})),
        cancel(json!(3)),
        json!({"jsonrpc": "2.0", "id": {}, "method": "ping"}).to_string(),
        cancel(json!(99)),
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {}}).to_string(),
        // A 2026-07-28 request has no session: only the transport can cancel it.
        stateless(json!(4), minute),
        cancel(json!(4)),
        stateless(json!(5), 20),
        // Finished, so its id may be used again.
        call(json!(1), "slow", json!({"millis": 10})),
    ];
    let input = lines.join("\n") + "\n";
    let (writer, mut reader) = tokio::io::duplex(1 << 20);
    let started = Instant::now();
    tokio::time::timeout(
        Duration::from_secs(10),
        mcp_runtime::stdio::serve_io(server.clone(), input.as_bytes(), writer),
    )
    .await
    .expect("cancelled requests stop: serve_io returns long before they would end")
    .unwrap();
    assert!(started.elapsed() < Duration::from_secs(10));
    let mut output = String::new();
    reader.read_to_string(&mut output).await.unwrap();
    let answers: Vec<Value> = output
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let answered = |id: Value| answers.iter().filter(|a| a["id"] == id).count();
    for cancelled in [json!("a"), json!(4)] {
        assert_eq!(answered(cancelled.clone()), 0, "{cancelled}: {output}");
    }
    // Id 1 answered once: by the later request that reused it.
    assert_eq!(answered(json!(1)), 1, "{output}");
    assert_eq!(answered(json!(2)), 1);
    assert_eq!(answered(json!(5)), 1);
    let threes: Vec<&Value> = answers.iter().filter(|a| a["id"] == 3).collect();
    assert_eq!(threes.len(), 1, "{output}");
    assert_eq!(threes[0]["error"]["code"], -32600, "{output}");
    assert!(handler.dropped.load(Ordering::SeqCst));
    // `serve_io` asserts (debug builds) that its in-flight table is empty when it returns; the
    // stdio session is not in the store, so its own table cannot be seen from here.
}
