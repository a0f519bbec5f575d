//! `requestState` security: a tampered, expired or moved state (other arguments, another tool)
//! or one sealed with another key is `-32602`; instances sharing a `SealingKey` resume each
//! other's requests.

use serde_json::json;
use std::net::SocketAddr;
use std::time::Duration;

use crate::support;
use crate::support::start;
use crate::support::stateless::{accept, Mrtr};
use mcp_runtime::request_state::SealingKey;
use mcp_runtime::Config;

/// A server sealing `requestState` with a fixed key made of `byte`.
async fn start_with_key(byte: u8) -> support::TestServer {
    start(
        Config::builder()
            .request_state_key(Some(SealingKey::new(vec![byte; 32]).unwrap()))
            .build(),
    )
    .await
}

/// `state` with one character of its payload changed (still valid Base64url).
fn flip_one_character(state: &str) -> String {
    let mut chars: Vec<char> = state.chars().collect();
    chars[5] = if chars[5] == 'A' { 'B' } else { 'A' };
    chars.into_iter().collect()
}

/// Runs `interview` (topic "tea") through its first two rounds; returns the call and the
/// second round's state, which only lacks `confirm`.
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
async fn a_tampered_state_is_refused() {
    let server = start(Config::default()).await;
    let (mut call, state) = interview_until_confirm(server.addr).await;
    for tampered in [
        format!("{state}-TAMPERED"),
        flip_one_character(&state),
        String::new(),
    ] {
        let answer = call
            .retry(json!({"confirm": accept("ok", "yes")}), &tampered)
            .await;
        let message = answer.invalid_params();
        assert!(message.contains("integrity"), "{tampered}: {message}");
    }
    // The genuine state still works.
    let done = call
        .retry(json!({"confirm": accept("ok", "yes")}), &state)
        .await;
    assert_eq!(done.tool_text(), "tea: Ada likes teal (confirm=yes)");
}

#[tokio::test]
async fn an_expired_state_is_refused() {
    let server = start(
        Config::builder()
            .request_state_ttl(Duration::from_millis(300))
            .build(),
    )
    .await;
    let (mut call, state) = interview_until_confirm(server.addr).await;
    tokio::time::sleep(Duration::from_millis(600)).await;
    let answer = call
        .retry(json!({"confirm": accept("ok", "yes")}), &state)
        .await;
    let message = answer.invalid_params();
    assert!(message.contains("expired"), "{message}");
}

#[tokio::test]
async fn a_state_does_not_move_to_other_arguments() {
    let server = start(Config::default()).await;
    let (_, state) = interview_until_confirm(server.addr).await;
    let mut other = Mrtr::tool(server.addr, "interview", json!({"topic": "coffee"}));
    let answer = other
        .retry(json!({"confirm": accept("ok", "yes")}), &state)
        .await;
    let message = answer.invalid_params();
    assert!(message.contains("another request"), "{message}");
    // Extra arguments are other arguments too.
    let mut more = Mrtr::tool(server.addr, "interview", json!({"topic": "tea", "x": 1}));
    let answer = more
        .retry(json!({"confirm": accept("ok", "yes")}), &state)
        .await;
    assert!(answer.invalid_params().contains("another request"));
}

#[tokio::test]
async fn a_state_does_not_move_to_another_tool() {
    let server = start(Config::default()).await;
    let (_, state) = interview_until_confirm(server.addr).await;
    let mut other = Mrtr::tool(server.addr, "tally", json!({}));
    let answer = other
        .retry(json!({"first": accept("v", "a")}), &state)
        .await;
    let message = answer.invalid_params();
    assert!(message.contains("another request"), "{message}");
}

#[tokio::test]
async fn instances_sharing_a_key_resume_each_others_requests() {
    let a = start_with_key(7).await;
    let b = start_with_key(7).await;
    let mut call = Mrtr::tool(a.addr, "interview", json!({"topic": "tea"}));
    let (_, state1) = call.first().await.input_required();
    call.switch_to(b.addr);
    let round2 = call
        .retry(
            json!({"name": accept("name", "Ada"), "colour": accept("colour", "teal")}),
            &state1,
        )
        .await;
    let (_, state2) = round2.input_required();
    call.switch_to(a.addr);
    let done = call
        .retry(json!({"confirm": accept("ok", "yes")}), &state2)
        .await;
    assert_eq!(done.tool_text(), "tea: Ada likes teal (confirm=yes)");
}

#[tokio::test]
async fn an_instance_with_another_key_refuses_the_state() {
    let a = start_with_key(7).await;
    let c = start_with_key(8).await;
    let (mut call, state) = interview_until_confirm(a.addr).await;
    call.switch_to(c.addr);
    let answer = call
        .retry(json!({"confirm": accept("ok", "yes")}), &state)
        .await;
    let message = answer.invalid_params();
    assert!(message.contains("integrity"), "{message}");
}
