//! Arguments checked against the published `inputSchema` before the handler runs, through a
//! real server on loopback: the `bounded` tool of `fixtures/http-test.openrpc.json` (`minimum`,
//! `maximum`, `maxLength`, `pattern`, `maxItems`, `uniqueItems`, `minLength` on items, `format:
//! uuid`).
//!
//! - every violation in one message, each with its JSON pointer, in schema order;
//! - a 2025-06-18 session answers -32602; 2025-11-25 and 2026-07-28 answer an `isError` result
//!   (the revision decides, `Answer::InvalidArguments`);
//! - arguments that do not decode say where and what (`/limit: expected an integer, got a
//!   string`), without serde's line and column;
//! - valid arguments reach the handler; a prompt's arguments are checked the same way.

mod support;

use serde_json::{json, Value};

use mcp_runtime::Config;
use support::stateless::exchange;
use support::{start, Client};

/// Arguments breaking seven rules of `bounded` at once.
fn invalid() -> Value {
    json!({"limit": 0, "name": "ABCDEFG", "tags": ["a", "a", ""], "id": "not-a-uuid"})
}

const INVALID: &str = "Invalid arguments: /limit: must be ≥ 1; \
    /name: must be at most 5 characters long; /name: must match the pattern \"^[a-z]+$\"; \
    /tags: must have at most 2 items; /tags: must not have duplicate items; \
    /tags/2: must be at least 1 character long; /id: must be a valid uuid";

const UNDECODABLE: &str = "Invalid arguments: /limit: expected an integer, got a string";

fn call(arguments: Value) -> Value {
    json!({"name": "bounded", "arguments": arguments})
}

/// The text of an `isError` result.
fn error_text(result: &Value) -> &str {
    assert_eq!(result["isError"], json!(true), "{result}");
    result["content"][0]["text"].as_str().unwrap_or_default()
}

#[tokio::test]
async fn a_2025_06_18_session_answers_every_violation_as_32602() {
    let server = start(Config::default()).await;
    let mut client = Client::connect(server.addr, "2025-06-18").await;
    let answer = client.call("tools/call", call(invalid())).await;
    assert_eq!(answer["error"]["code"], json!(-32602), "{answer}");
    assert_eq!(answer["error"]["message"], json!(INVALID));

    let answer = client
        .call("tools/call", call(json!({"limit": "3", "name": "ab"})))
        .await;
    assert_eq!(answer["error"]["message"], json!(UNDECODABLE));

    let answer = client
        .call(
            "tools/call",
            call(json!({"limit": 3, "name": "ab", "tags": ["x", "y"]})),
        )
        .await;
    assert_eq!(answer["result"]["content"][0]["text"], json!("ab 3 [x,y]"));
}

#[tokio::test]
async fn a_2025_11_25_session_answers_an_is_error_result() {
    let server = start(Config::default()).await;
    let mut client = Client::connect(server.addr, "2025-11-25").await;
    let answer = client.call("tools/call", call(invalid())).await;
    assert_eq!(error_text(&answer["result"]), INVALID);

    let answer = client
        .call("tools/call", call(json!({"limit": "3", "name": "ab"})))
        .await;
    assert_eq!(error_text(&answer["result"]), UNDECODABLE);

    // The bounds themselves pass: 1 and 50, a five-letter name, a real UUID.
    let answer = client
        .call(
            "tools/call",
            call(
                json!({"limit": 50, "name": "abcde", "id": "123e4567-e89b-12d3-a456-426614174000"}),
            ),
        )
        .await;
    assert_eq!(answer["result"]["content"][0]["text"], json!("abcde 50 []"));
    assert!(answer["result"].get("isError").is_none(), "{answer}");
}

#[tokio::test]
async fn a_2026_07_28_request_answers_an_is_error_result() {
    let server = start(Config::default()).await;
    let answer = exchange(
        server.addr,
        1,
        "tools/call",
        call(invalid()),
        json!({}),
        &[],
    )
    .await;
    assert_eq!(error_text(answer.result()), INVALID);

    let undecodable = call(json!({"name": "ab"}));
    let answer = exchange(server.addr, 2, "tools/call", undecodable, json!({}), &[]).await;
    assert_eq!(
        error_text(answer.result()),
        "Invalid arguments: /limit: is required"
    );

    let valid = call(json!({"limit": 1, "name": "z"}));
    let answer = exchange(server.addr, 3, "tools/call", valid, json!({}), &[]).await;
    assert_eq!(answer.tool_text(), "z 1 []");
}

#[tokio::test]
async fn a_declared_bound_replaces_the_handlers_clamp() {
    let server = start(Config::default()).await;
    let mut client = Client::connect(server.addr, "2025-11-25").await;
    let answer = client
        .call(
            "tools/call",
            json!({"name": "slow", "arguments": {"millis": -5}}),
        )
        .await;
    assert_eq!(
        error_text(&answer["result"]),
        "Invalid arguments: /millis: must be ≥ 0"
    );
    let answer = client
        .call(
            "tools/call",
            json!({"name": "slow", "arguments": {"millis": 3_600_001}}),
        )
        .await;
    assert_eq!(
        error_text(&answer["result"]),
        "Invalid arguments: /millis: must be ≤ 3600000"
    );
}

#[tokio::test]
async fn prompt_arguments_that_do_not_decode_say_where() {
    let server = start(Config::default()).await;
    let mut client = Client::connect(server.addr, "2025-11-25").await;
    let answer = client
        .call(
            "prompts/get",
            json!({"name": "greet", "arguments": {"name": "Ada", "tone": "cold"}}),
        )
        .await;
    assert_eq!(answer["error"]["code"], json!(-32602), "{answer}");
    assert_eq!(
        answer["error"]["message"],
        json!(r#"Invalid arguments: /tone: must be one of "warm", "formal", "wry""#)
    );
}

/// Arguments that do not decode get every problem at once (serde_json stops at the first; the
/// runtime sets each aside and decodes again, on the error path only), and a member given
/// under a near miss of a missing one's name is named.
#[tokio::test]
async fn every_decode_problem_at_once_and_the_near_miss_named() {
    let server = start(Config::default()).await;
    let mut client = Client::connect(server.addr, "2025-11-25").await;
    // Both required members missing.
    let answer = client.call("tools/call", call(json!({}))).await;
    assert_eq!(
        error_text(&answer["result"]),
        "Invalid arguments: /limit: is required; /name: is required"
    );
    // A type fault beside a missing member: both pointers.
    let answer = client
        .call("tools/call", call(json!({"limit": "3", "tags": ["a", 2]})))
        .await;
    assert_eq!(
        error_text(&answer["result"]),
        "Invalid arguments: /limit: expected an integer, got a string; /name: is required; \
         /tags/1: expected a string, got an integer"
    );
    // `Limit` for `limit`: named.
    let answer = client
        .call("tools/call", call(json!({"Limit": 3, "name": "ab"})))
        .await;
    assert_eq!(
        error_text(&answer["result"]),
        "Invalid arguments: /limit: is required (`Limit` given; did you mean `limit`?)"
    );
    // Arguments that decode still reach the handler.
    let answer = client
        .call("tools/call", call(json!({"limit": 1, "name": "z"})))
        .await;
    assert_eq!(
        answer["result"]["content"][0]["text"],
        json!("z 1 []"),
        "{answer}"
    );
}

/// A tool name one slip away from a real one is answered with the real one's name, in the
/// session era and the stateless one alike; a name far from every tool gets no guess.
#[tokio::test]
async fn an_unknown_tool_names_the_one_a_slip_away() {
    let server = start(Config::default()).await;
    let mut client = Client::connect(server.addr, "2025-11-25").await;
    let answer = client
        .call("tools/call", json!({"name": "bounde", "arguments": {}}))
        .await;
    assert_eq!(answer["error"]["code"], json!(-32602), "{answer}");
    assert_eq!(
        answer["error"]["message"],
        json!("Unknown tool: bounde; did you mean `bounded`?")
    );
    let answer = client
        .call("tools/call", json!({"name": "zzzzzzzz", "arguments": {}}))
        .await;
    assert_eq!(answer["error"]["message"], json!("Unknown tool: zzzzzzzz"));

    let misspelt = json!({"name": "Bounded", "arguments": {}});
    let answer = exchange(server.addr, 4, "tools/call", misspelt, json!({}), &[]).await;
    assert_eq!(
        answer.body["error"]["message"],
        json!("Unknown tool: Bounded; did you mean `bounded`?"),
        "{}",
        answer.text
    );
}
