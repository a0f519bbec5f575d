//! The stateless 2026-07-28 path of the endpoint, over real HTTP.
//!
//! - The era decision, validation errors in the specification's order with the request id
//!   echoed, `resultType` and cache hints, progress and logs on an SSE response.
//! - Multi round-trip requests (MRTR) on `tools/call`, `prompts/get` and `resources/read`: the
//!   first round is an `InputRequiredResult` listing every pending input request with a
//!   `requestState`; retries carry `inputResponses` and the echoed state; answers and
//!   `ctx.save` values travel in the state from round to round; a missing answer is asked
//!   again, unknown answers are ignored, malformed ones are `-32602`, `inputResponses: null`
//!   is no answer.
//! - `requestState` security: tampered, expired, moved to other arguments, another tool or
//!   another method, or sealed with another key → `-32602`; instances sharing one
//!   `SealingKey` resume each other's requests.
//! - Client capabilities: a request needing an undeclared capability is HTTP 400 `-32021`
//!   with `data.requiredCapabilities`; MRTR never asks for an undeclared capability.
//! - `Mcp-Param-*` headers (`x-mcp-header`): the Base64 form, numeric comparison of
//!   integers, case-insensitive names; malformed, mismatched, missing or unexpected headers
//!   are HTTP 400 `-32020`.
//!
//! - Request-scoped notifications: closing a streamed answer cancels its handler within 100 ms;
//!   log messages only at or above the `_meta` log level, before the result.
//!
//! Every server message is checked against the official 2026-07-28 schema as it arrives
//! (`support::stateless::exchange`), `InputRequiredResult` and the error shapes included.

mod support;

use http::StatusCode;
use serde_json::{json, Value};
use std::net::SocketAddr;
use std::time::Duration;

use mcp_runtime::request_state::SealingKey;
use mcp_runtime::Config;
use support::schema::{assert_server_message, assert_stateless_response, assert_valid};
use support::sse::SseStream;
use support::stateless::{accept, exchange, meta, raw_tool_call, Answer, Mrtr, V};
use support::{post, send, sse_messages, start, Client, POST_HEADERS};
use workspace_tests::{form, model_question};

/// A stateless request declaring no client capabilities.
async fn call(addr: SocketAddr, id: i64, method: &str, params: Value) -> Answer {
    exchange(addr, id, method, params, json!({}), &[]).await
}

/// A `tools/call` declaring no client capabilities, with `extra` headers.
async fn call_tool(
    addr: SocketAddr,
    id: i64,
    name: &str,
    arguments: Value,
    extra: &[(&str, &str)],
) -> Answer {
    let params = json!({"name": name, "arguments": arguments});
    exchange(addr, id, "tools/call", params, json!({}), extra).await
}

/// The `elicitation/create` input request of `form(message, field)`.
fn elicitation(message: &str, field: &str) -> Value {
    json!({"method": "elicitation/create", "params": form(message, field)})
}

/// A `CreateMessageResult` answering `text`.
fn model_answer(text: &str) -> Value {
    json!({"role": "assistant", "content": {"type": "text", "text": text}, "model": "test-model"})
}

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

// ---- MRTR: rounds ---------------------------------------------------------------------------

#[tokio::test]
async fn the_first_round_lists_every_pending_request_with_a_state() {
    let server = start(Config::default()).await;
    let mut call = Mrtr::tool(server.addr, "interview", json!({"topic": "tea"}));
    let answer = call.first().await;
    let (requests, state) = answer.input_required();
    assert_eq!(
        requests,
        json!({
            "name": elicitation("What is your name?", "name"),
            "colour": elicitation("Favourite colour?", "colour"),
        })
    );
    assert!(state.contains('.'), "a sealed state: {state}");
    // The same first round again gets a fresh state (a new nonce), with the same questions.
    let again = call.first().await;
    assert_eq!(again.input_required().0, requests);
    assert_ne!(again.input_required().1, state);
}

#[tokio::test]
async fn a_retry_with_the_answer_completes() {
    let server = start(Config::default()).await;
    let mut call = Mrtr::tool(
        server.addr,
        "ask_model",
        json!({"question": "Capital of France?"}),
    );
    let (requests, state) = call.first().await.input_required();
    assert_eq!(
        requests,
        json!({"question": {
            "method": "sampling/createMessage",
            "params": model_question("Capital of France?"),
        }})
    );
    let done = call
        .retry(json!({"question": model_answer("Paris")}), &state)
        .await;
    assert_eq!(done.tool_text(), "model said: Paris");
    assert_eq!(
        done.result()["structuredContent"],
        json!("model said: Paris")
    );
}

#[tokio::test]
async fn answers_of_round_one_are_still_there_in_round_three() {
    let server = start(Config::default()).await;
    let mut call = Mrtr::tool(server.addr, "interview", json!({"topic": "tea"}));
    let (_, state1) = call.first().await.input_required();
    let round2 = call
        .retry(
            json!({"name": accept("name", "Ada"), "colour": accept("colour", "teal")}),
            &state1,
        )
        .await;
    let (requests, state2) = round2.input_required();
    assert_eq!(
        requests,
        json!({"confirm": elicitation("Shall I write it down?", "ok")})
    );
    assert_ne!(state2, state1, "each round seals a new state");
    // Round 3 answers only `confirm`: name and colour come back from the state.
    let done = call
        .retry(json!({"confirm": accept("ok", "yes")}), &state2)
        .await;
    assert_eq!(done.tool_text(), "tea: Ada likes teal (confirm=yes)");
}

#[tokio::test]
async fn saved_values_travel_in_the_state_and_can_change() {
    let server = start(Config::default()).await;
    let mut call = Mrtr::tool(server.addr, "tally", json!({}));
    let round1 = call.first().await;
    assert_eq!(round1.pending_keys(), ["first"]);
    let state1 = round1.input_required().1;
    let round2 = call
        .retry(json!({"first": accept("v", "a")}), &state1)
        .await;
    assert_eq!(round2.pending_keys(), ["second"]);
    let state2 = round2.input_required().1;
    assert_ne!(state1, state2);
    let done = call
        .retry(json!({"second": accept("v", "b")}), &state2)
        .await;
    // `round` was saved and bumped in every round; `opened_in` was saved once, in round 1.
    assert_eq!(
        done.tool_text(),
        "round=3; opened_in=round 1; first=a; second=b"
    );
}

#[tokio::test]
async fn a_retry_missing_an_answer_is_asked_again() {
    let server = start(Config::default()).await;
    let mut call = Mrtr::tool(server.addr, "interview", json!({"topic": "tea"}));
    let (_, state) = call.first().await.input_required();
    let partial = call
        .retry(json!({"name": accept("name", "Ada")}), &state)
        .await;
    // Only the unanswered question is asked again.
    let (requests, next) = partial.input_required();
    assert_eq!(
        requests,
        json!({"colour": elicitation("Favourite colour?", "colour")})
    );
    // ...and the given answer is kept: answering the rest moves on to round 2.
    let round2 = call
        .retry(json!({"colour": accept("colour", "teal")}), &next)
        .await;
    assert_eq!(round2.pending_keys(), ["confirm"]);
    // A retry with the state and no answers at all asks everything again.
    let none = call.send(json!({"requestState": state})).await;
    assert_eq!(none.pending_keys(), ["colour", "name"]);
    let empty = call.retry(json!({}), &state).await;
    assert_eq!(empty.pending_keys(), ["colour", "name"]);
}

#[tokio::test]
async fn unknown_input_responses_are_ignored() {
    let server = start(Config::default()).await;
    let mut call = Mrtr::tool(server.addr, "interview", json!({"topic": "tea"}));
    let (_, state) = call.first().await.input_required();
    let answers = json!({
        "name": accept("name", "Ada"),
        "colour": accept("colour", "teal"),
        "not_asked": accept("x", "y"),
        "junk": 42,
    });
    let round2 = call.retry(answers, &state).await;
    assert_eq!(round2.pending_keys(), ["confirm"]);
    let (_, state2) = round2.input_required();
    let done = call
        .retry(
            json!({"confirm": accept("ok", "yes"), "extra": [1, 2]}),
            &state2,
        )
        .await;
    assert_eq!(done.tool_text(), "tea: Ada likes teal (confirm=yes)");
}

#[tokio::test]
async fn a_malformed_answer_is_invalid_params() {
    let server = start(Config::default()).await;
    let mut call = Mrtr::tool(server.addr, "interview", json!({"topic": "tea"}));
    let (_, state) = call.first().await.input_required();
    for malformed in [json!(12345), json!({"action": "maybe"}), json!("accept")] {
        let answer = call
            .retry(
                json!({"name": malformed, "colour": accept("colour", "teal")}),
                &state,
            )
            .await;
        let message = answer.invalid_params();
        assert!(message.contains("inputResponses.name"), "{message}");
    }
    // A malformed sampling answer too.
    let mut sample = Mrtr::tool(server.addr, "ask_model", json!({"question": "?"}));
    let (_, state) = sample.first().await.input_required();
    let answer = sample
        .retry(json!({"question": {"role": "assistant"}}), &state)
        .await;
    assert!(answer.invalid_params().contains("inputResponses.question"));
}

#[tokio::test]
async fn a_malformed_answer_is_invalid_params_even_while_another_is_missing() {
    let server = start(Config::default()).await;
    let mut call = Mrtr::tool(server.addr, "interview", json!({"topic": "tea"}));
    let (_, state) = call.first().await.input_required();
    // `name` is malformed and `colour` is unanswered: the malformed answer must not be
    // sealed into a new state and re-asked around, it is an error now.
    let answer = call.retry(json!({"name": 12345}), &state).await;
    let message = answer.invalid_params();
    assert!(message.contains("inputResponses.name"), "{message}");
}

#[tokio::test]
async fn input_responses_must_be_an_object() {
    let server = start(Config::default()).await;
    let mut call = Mrtr::tool(server.addr, "interview", json!({"topic": "tea"}));
    let (_, state) = call.first().await.input_required();
    for responses in [json!([1, 2]), json!("name"), json!(7)] {
        let answer = call.retry(responses.clone(), &state).await;
        let message = answer.invalid_params();
        assert!(message.contains("inputResponses"), "{responses}: {message}");
    }
}

#[tokio::test]
async fn null_input_responses_do_not_complete() {
    let server = start(Config::default()).await;
    let mut call = Mrtr::tool(server.addr, "ask_model", json!({"question": "?"}));
    let without_state = call.send(json!({"inputResponses": null})).await;
    assert_eq!(without_state.pending_keys(), ["question"]);
    let (_, state) = without_state.input_required();
    let with_state = call
        .send(json!({"inputResponses": null, "requestState": state}))
        .await;
    assert_eq!(with_state.pending_keys(), ["question"]);
}

#[tokio::test]
async fn prompts_get_takes_input_across_rounds() {
    let server = start(Config::default()).await;
    let mut call = Mrtr::prompt(server.addr, "styled", json!({"topic": "tea"}));
    let (requests, state) = call.first().await.input_required();
    assert_eq!(
        requests,
        json!({"style": elicitation("Which style?", "style")})
    );
    let done = call
        .retry(json!({"style": accept("style", "brisk")}), &state)
        .await;
    let result = done.result();
    assert_eq!(result["resultType"], json!("complete"));
    assert_eq!(
        result["messages"][0]["content"]["text"],
        json!("Write about tea in a brisk style.")
    );
    // The prompt's state opens neither the prompt with other arguments nor a tools/call.
    let elsewhere = [
        Mrtr::prompt(server.addr, "styled", json!({"topic": "coffee"})),
        Mrtr::tool(server.addr, "interview", json!({"topic": "tea"})),
    ];
    for mut other in elsewhere {
        let refused = other
            .retry(json!({"style": accept("style", "brisk")}), &state)
            .await;
        assert!(refused.invalid_params().contains("another request"));
    }
}

#[tokio::test]
async fn resources_read_takes_input_and_is_not_cached_after() {
    let server = start(Config::default()).await;
    let mut call = Mrtr::resource(server.addr, "test://vault");
    let (requests, state) = call.first().await.input_required();
    assert_eq!(
        requests,
        json!({"passphrase": elicitation("Passphrase?", "pass")})
    );
    let done = call
        .retry(json!({"passphrase": accept("pass", "open-sesame")}), &state)
        .await;
    let result = done.result();
    assert_eq!(result["resultType"], json!("complete"));
    assert_eq!(
        result["contents"][0]["text"],
        json!("vault opened with open-sesame")
    );
    assert_eq!(result["contents"][0]["uri"], json!("test://vault"));
    // A result that took client input is specific to that exchange.
    assert_eq!(
        (result["ttlMs"].clone(), result["cacheScope"].clone()),
        (json!(0), json!("private"))
    );
}

#[tokio::test]
async fn other_methods_never_answer_input_required() {
    let server = start(Config::default()).await;
    for (id, method) in [
        (1, "tools/list"),
        (2, "prompts/list"),
        (3, "resources/list"),
        (4, "server/discover"),
    ] {
        let answer = exchange(
            server.addr,
            id,
            method,
            json!({}),
            json!({"elicitation": {}}),
            &[],
        )
        .await;
        assert_eq!(answer.result()["resultType"], json!("complete"), "{method}");
    }
}

#[test]
fn the_schema_check_rejects_malformed_mrtr_and_capability_messages() {
    let rejects = |method: &str, message: Value| {
        let method = method.to_string();
        std::panic::catch_unwind(move || assert_stateless_response(&method, &message)).is_err()
    };
    // An input request without its params, or a JSON-RPC request instead of {method, params}.
    assert!(rejects(
        "tools/call",
        json!({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "input_required",
            "inputRequests": {"x": {"method": "elicitation/create"}}, "requestState": "s"}})
    ));
    assert!(rejects(
        "tools/call",
        json!({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "input_required",
            "inputRequests": {"x": {"jsonrpc": "2.0", "id": 9, "method": "roots/list"}}}})
    ));
    // -32021 without data.requiredCapabilities.
    assert!(rejects(
        "tools/call",
        json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32021, "message": "m"}})
    ));
    // A completed tool result without content.
    assert!(rejects(
        "tools/call",
        json!({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "complete"}})
    ));
}

// ---- MRTR: requestState security --------------------------------------------------------------

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

// ---- Client capabilities ----------------------------------------------------------------------

#[tokio::test]
async fn a_tool_needing_undeclared_sampling_is_400_missing_capability() {
    let server = start(Config::default()).await;
    let answer = call_tool(server.addr, 41, "needs_sampling", json!({}), &[]).await;
    let error = answer.error(StatusCode::BAD_REQUEST, -32021);
    assert_eq!(
        error["data"],
        json!({"requiredCapabilities": {"sampling": {}}})
    );
    let params = json!({"name": "needs_sampling", "arguments": {}});
    let declared = exchange(
        server.addr,
        42,
        "tools/call",
        params,
        json!({"sampling": {}}),
        &[],
    )
    .await;
    assert_eq!(declared.tool_text(), "sampling declared");
}

#[tokio::test]
async fn ctx_sample_without_sampling_declared_is_400_missing_capability() {
    let server = start(Config::default()).await;
    let mut call = Mrtr::tool(server.addr, "ask_model", json!({"question": "?"}))
        .capabilities(json!({"elicitation": {}}));
    let answer = call.first().await;
    let error = answer.error(StatusCode::BAD_REQUEST, -32021);
    assert_eq!(
        error["data"],
        json!({"requiredCapabilities": {"sampling": {}}})
    );
    // The same for an elicitation the client cannot answer.
    let mut call =
        Mrtr::tool(server.addr, "interview", json!({"topic": "tea"})).capabilities(json!({}));
    let error = call.first().await;
    let error = error.error(StatusCode::BAD_REQUEST, -32021);
    assert_eq!(
        error["data"],
        json!({"requiredCapabilities": {"elicitation": {}}})
    );
}

#[tokio::test]
async fn input_requests_only_ask_for_declared_capabilities() {
    let server = start(Config::default()).await;
    let survey = |capabilities: Value| {
        Mrtr::tool(server.addr, "polite_survey", json!({})).capabilities(capabilities)
    };
    let both = survey(json!({"elicitation": {}, "sampling": {}}))
        .first()
        .await;
    assert_eq!(both.pending_keys(), ["form", "model"]);
    let elicitation_only = survey(json!({"elicitation": {}})).first().await;
    assert_eq!(elicitation_only.pending_keys(), ["form"]);
    assert_eq!(
        elicitation_only.input_required().0["form"]["method"],
        json!("elicitation/create")
    );
    let sampling_only = survey(json!({"sampling": {}})).first().await;
    assert_eq!(sampling_only.pending_keys(), ["model"]);
    assert_eq!(
        sampling_only.input_required().0["model"]["method"],
        json!("sampling/createMessage")
    );
    let neither = survey(json!({})).first().await;
    assert_eq!(neither.tool_text(), "received []");
    // Answering what was asked completes without the undeclared one.
    let mut call = survey(json!({"elicitation": {}}));
    let (_, state) = call.first().await.input_required();
    let done = call
        .retry(json!({"form": accept("name", "Ada")}), &state)
        .await;
    assert_eq!(done.tool_text(), "received [form=Ada]");
}

#[tokio::test]
async fn an_explicit_form_capability_is_asked_for_a_form() {
    let server = start(Config::default()).await;
    let mut call = Mrtr::tool(server.addr, "polite_survey", json!({}))
        .capabilities(json!({"elicitation": {"form": {}}}));
    assert_eq!(call.first().await.pending_keys(), ["form"]);
}

#[tokio::test]
async fn a_url_only_client_is_never_asked_to_fill_a_form() {
    let server = start(Config::default()).await;
    // `elicitation: {url: {}}` declares URL mode only (`{}` alone would mean form mode): a
    // form-mode `elicitation/create` is a request for a capability the client did not declare.
    let mut call = Mrtr::tool(server.addr, "polite_survey", json!({}))
        .capabilities(json!({"elicitation": {"url": {}}}));
    let answer = call.first().await;
    assert_eq!(answer.tool_text(), "received []");
}

// ---- Mcp-Param-* headers ----------------------------------------------------------------------

#[tokio::test]
async fn base64_param_headers_are_decoded() {
    let server = start(Config::default()).await;
    for (id, header, region) in [
        (51, "=?base64?SGVsbG8=?=", "Hello"),
        (52, "Hello", "Hello"),
        (53, "=?base64?SGVsbG8sIOS4lueVjA==?=", "Hello, 世界"),
        (54, "=?base64?IHBhZGRlZCA=?=", " padded "),
    ] {
        let answer = call_tool(
            server.addr,
            id,
            "region_echo",
            json!({"region": region}),
            &[("mcp-param-region", header)],
        )
        .await;
        assert_eq!(answer.tool_text(), region, "{header}");
    }
}

#[tokio::test]
async fn bad_param_headers_are_header_mismatch() {
    let server = start(Config::default()).await;
    for (id, header) in [
        (61, "=?base64?SGVsbG8?="),     // bad padding
        (62, "=?base64?SGVs!!!bG8=?="), // invalid characters
        (63, "=?base64?/w==?="),        // not UTF-8
        (64, "World"),                  // mismatch
        (65, "hello"),                  // values are case-sensitive
        (66, "=?base64?V29ybGQ=?="),    // a mismatch once decoded
    ] {
        let answer = call_tool(
            server.addr,
            id,
            "region_echo",
            json!({"region": "Hello"}),
            &[("mcp-param-region", header)],
        )
        .await;
        answer.error(StatusCode::BAD_REQUEST, -32020);
    }
}

#[tokio::test]
async fn a_missing_param_header_is_header_mismatch() {
    let server = start(Config::default()).await;
    let answer = call_tool(
        server.addr,
        71,
        "region_echo",
        json!({"region": "Hello"}),
        &[],
    )
    .await;
    let error = answer.error(StatusCode::BAD_REQUEST, -32020);
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("mcp-param-region"),
        "{error}"
    );
}

#[tokio::test]
async fn integer_param_headers_compare_numerically() {
    let server = start(Config::default()).await;
    for (id, header) in [
        (81, "10"),
        (82, "10.0"),
        (83, " 10 "),
        (84, "=?base64?MTA=?="),
    ] {
        let answer = call_tool(
            server.addr,
            id,
            "limit_echo",
            json!({"limit": 10}),
            &[("mcp-param-limit", header)],
        )
        .await;
        assert_eq!(answer.tool_text(), "limit=Some(10)", "{header:?}");
    }
    for (id, header) in [(85, "11"), (86, "ten"), (87, "")] {
        let answer = call_tool(
            server.addr,
            id,
            "limit_echo",
            json!({"limit": 10}),
            &[("mcp-param-limit", header)],
        )
        .await;
        answer.error(StatusCode::BAD_REQUEST, -32020);
    }
}

#[tokio::test]
async fn absent_or_null_arguments_need_no_header_and_must_not_have_one() {
    let server = start(Config::default()).await;
    let absent = call_tool(server.addr, 91, "limit_echo", json!({}), &[]).await;
    assert_eq!(absent.tool_text(), "limit=None");
    let null = call_tool(server.addr, 92, "limit_echo", json!({"limit": null}), &[]).await;
    assert_eq!(null.tool_text(), "limit=None");
    let unexpected = call_tool(
        server.addr,
        93,
        "limit_echo",
        json!({}),
        &[("mcp-param-limit", "10")],
    )
    .await;
    unexpected.error(StatusCode::BAD_REQUEST, -32020);
}

#[tokio::test]
async fn param_header_names_are_case_insensitive() {
    let server = start(Config::default()).await;
    for (id, header) in [
        (101, &b"MCP-PARAM-REGION: Hello"[..]),
        (102, &b"Mcp-Param-Region: Hello"[..]),
        (103, &b"mcp-param-region: Hello"[..]),
    ] {
        let (status, response) = raw_tool_call(
            server.addr,
            id,
            "region_echo",
            json!({"region": "Hello"}),
            &[header],
        )
        .await;
        assert_eq!(status, StatusCode::OK, "{response}");
        assert_eq!(response["result"]["content"][0]["text"], json!("Hello"));
    }
    // A wrong value under an upper-case name is still checked.
    let (status, response) = raw_tool_call(
        server.addr,
        104,
        "region_echo",
        json!({"region": "Hello"}),
        &[b"MCP-PARAM-REGION: World"],
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(
        (response["id"].clone(), response["error"]["code"].clone()),
        (json!(104), json!(-32020))
    );
}

#[tokio::test]
async fn non_ascii_param_header_bytes_are_header_mismatch() {
    let server = start(Config::default()).await;
    // "Héllo" as raw UTF-8 bytes: such a value must travel in the Base64 form.
    let (status, response) = raw_tool_call(
        server.addr,
        111,
        "region_echo",
        json!({"region": "Héllo"}),
        &[b"Mcp-Param-Region: H\xc3\xa9llo"],
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(
        (response["id"].clone(), response["error"]["code"].clone()),
        (json!(111), json!(-32020))
    );
}

// ---- The endpoint -------------------------------------------------------------------------------

/// The body of a stateless `resources/read` of `test://hello` with JSON-RPC id `id`.
async fn read_hello(addr: SocketAddr, id: i64) -> Value {
    call(addr, id, "resources/read", json!({"uri": "test://hello"}))
        .await
        .body
}

#[tokio::test]
async fn cache_hints_follow_the_configuration() {
    use mcp_runtime::{CacheHint, CacheHints, CacheScope};
    let hints = CacheHints {
        tools_list: CacheHint::new(Duration::from_secs(7), CacheScope::Private),
        resources_read: CacheHint::new(Duration::from_millis(1500), CacheScope::Public),
        discover: CacheHint::new(Duration::from_secs(60), CacheScope::Public),
        ..CacheHints::default()
    };
    let server = start(Config::builder().cache_hints(hints).build()).await;
    let hint = |body: &Value| {
        (
            body["result"]["ttlMs"].clone(),
            body["result"]["cacheScope"].clone(),
        )
    };
    let tools = call(server.addr, 1, "tools/list", json!({})).await.body;
    assert_eq!(hint(&tools), (json!(7000), json!("private")));
    let prompts = call(server.addr, 2, "prompts/list", json!({})).await.body;
    assert_eq!(hint(&prompts), (json!(300000), json!("public")));
    let read = read_hello(server.addr, 3).await;
    assert_eq!(hint(&read), (json!(1500), json!("public")));
    let discover = call(server.addr, 4, "server/discover", json!({}))
        .await
        .body;
    assert_eq!(hint(&discover), (json!(60000), json!("public")));
}

#[tokio::test]
async fn discover_and_lists_carry_result_type_and_cache_hints() {
    let server = start(Config::default()).await;
    let discover = call(server.addr, 1, "server/discover", json!({})).await;
    assert_eq!(discover.status, StatusCode::OK);
    let result = &discover.body["result"];
    assert_eq!(result["resultType"], json!("complete"));
    assert_eq!(
        result["supportedVersions"],
        json!(["2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"])
    );
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        json!("http-test-server")
    );
    assert_eq!(
        (result["ttlMs"].clone(), result["cacheScope"].clone()),
        (json!(0), json!("private"))
    );
    assert_valid(V, "DiscoverResult", result);
    for (method, definition) in [
        ("tools/list", "ListToolsResult"),
        ("prompts/list", "ListPromptsResult"),
        ("resources/list", "ListResourcesResult"),
        ("resources/templates/list", "ListResourceTemplatesResult"),
    ] {
        let list = call(server.addr, 2, method, json!({})).await;
        assert_eq!(list.status, StatusCode::OK, "{method}");
        assert_eq!(list.body["result"]["ttlMs"], json!(300000));
        assert_eq!(list.body["result"]["cacheScope"], json!("public"));
        assert_valid(V, definition, &list.body["result"]);
    }
    let read = read_hello(server.addr, 3).await;
    assert_eq!(read["result"]["contents"][0]["text"], json!("hello, world"));
    assert_valid(V, "ReadResourceResult", &read["result"]);
    let called = call(server.addr, 4, "tools/call", json!({"name": "count"}))
        .await
        .body;
    assert_eq!(called["result"]["structuredContent"], json!({"steps": 3}));
    assert_valid(V, "CallToolResult", &called["result"]);
    let prompt = call(
        server.addr,
        5,
        "prompts/get",
        json!({"name": "greet", "arguments": {"name": "Ada"}}),
    )
    .await
    .body;
    assert_valid(V, "GetPromptResult", &prompt["result"]);
    assert_eq!(
        server.server.sessions().len(),
        0,
        "the stateless path keeps no session"
    );
}

#[tokio::test]
async fn validation_errors_come_in_order_and_echo_the_id() {
    let server = start(Config::default()).await;
    let addr = server.addr;
    let request = |id: i64, method: &str, params: Value| json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});

    // 1. `_meta` without the client capabilities: 400 / -32602.
    let reply = post(
        addr,
        &[("mcp-protocol-version", V), ("mcp-method", "tools/list")],
        &request(
            101,
            "tools/list",
            json!({"_meta": {"io.modelcontextprotocol/protocolVersion": V}}),
        ),
    )
    .await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    let body = reply.json().await;
    assert_eq!(
        (body["id"].clone(), body["error"]["code"].clone()),
        (json!(101), json!(-32602))
    );

    // 2. Header and body disagree: 400 / -32020 (version, method, name).
    let reply = post(
        addr,
        &[
            ("mcp-protocol-version", "2025-11-25"),
            ("mcp-method", "tools/list"),
        ],
        &request(102, "tools/list", json!({"_meta": meta(json!({}))})),
    )
    .await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    assert_eq!(reply.json().await["error"]["code"], json!(-32020));
    let reply = post(
        addr,
        &[("mcp-protocol-version", V), ("mcp-method", "prompts/list")],
        &request(103, "tools/list", json!({"_meta": meta(json!({}))})),
    )
    .await;
    assert_eq!(reply.json().await["error"]["code"], json!(-32020));
    let reply = post(
        addr,
        &[
            ("mcp-protocol-version", V),
            ("mcp-method", "tools/call"),
            ("mcp-name", "count"),
        ],
        &request(
            104,
            "tools/call",
            json!({"_meta": meta(json!({})), "name": "echo", "arguments": {"text": "x"}}),
        ),
    )
    .await;
    let body = reply.json().await;
    assert_eq!(
        (body["id"].clone(), body["error"]["code"].clone()),
        (json!(104), json!(-32020))
    );
    // The Base64 form of Mcp-Name is decoded before comparing.
    let reply = post(
        addr,
        &[
            ("mcp-protocol-version", V),
            ("mcp-method", "tools/call"),
            ("mcp-name", "=?base64?ZWNobw==?="),
        ],
        &request(
            105,
            "tools/call",
            json!({"_meta": meta(json!({})), "name": "echo", "arguments": {"text": "x"}}),
        ),
    )
    .await;
    assert_eq!(reply.status, StatusCode::OK);

    // 3. Unsupported version: 400 / -32022 with data.supported and data.requested.
    let mut bad_meta = meta(json!({}));
    bad_meta["io.modelcontextprotocol/protocolVersion"] = json!("v999.0.0");
    let reply = post(
        addr,
        &[
            ("mcp-protocol-version", "v999.0.0"),
            ("mcp-method", "tools/list"),
        ],
        &request(106, "tools/list", json!({"_meta": bad_meta})),
    )
    .await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    let body = reply.json().await;
    assert_eq!(body["error"]["code"], json!(-32022));
    assert_eq!(
        body["error"]["data"],
        json!({"supported": ["2026-07-28"], "requested": "v999.0.0"})
    );

    // 4. Removed and unknown methods: 404 / -32601.
    for (id, method) in [
        (107, "initialize"),
        (108, "ping"),
        (109, "logging/setLevel"),
        (110, "resources/subscribe"),
        (111, "unknown/method"),
    ] {
        let reply = post(
            addr,
            &[("mcp-protocol-version", V), ("mcp-method", method)],
            &request(id, method, json!({"_meta": meta(json!({}))})),
        )
        .await;
        assert_eq!(reply.status, StatusCode::NOT_FOUND, "{method}");
        let body = reply.json().await;
        assert_eq!(
            (body["id"].clone(), body["error"]["code"].clone()),
            (json!(id), json!(-32601)),
            "{method}"
        );
    }

    // Resource not found is -32602 on this revision, with the uri.
    let missing = call(addr, 112, "resources/read", json!({"uri": "test://nope"}))
        .await
        .body;
    assert_eq!(missing["error"]["code"], json!(-32602));
    assert_eq!(missing["error"]["data"]["uri"], json!("test://nope"));
}

#[tokio::test]
async fn the_era_is_decided_at_the_edge() {
    let server = start(Config::default()).await;
    // A legacy initialize (no `_meta`, a session-era header) still opens a session...
    let legacy = Client::connect(server.addr, "2025-11-25").await;
    assert!(!legacy.session.is_empty());
    // ...a 2026 header without a session is the stateless path, where GET and DELETE are 405...
    for method in ["GET", "DELETE"] {
        let reply = send(
            server.addr,
            method,
            &[("mcp-protocol-version", V), ("accept", "text/event-stream")],
            "",
        )
        .await;
        assert_eq!(reply.status, StatusCode::METHOD_NOT_ALLOWED, "{method}");
    }
    // ...and no batches there.
    let batch = send(
        server.addr,
        "POST",
        &[
            POST_HEADERS[0],
            POST_HEADERS[1],
            ("mcp-protocol-version", V),
        ],
        "[]",
    )
    .await;
    assert_eq!(batch.status, StatusCode::BAD_REQUEST);
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

// ---- Request-scoped notifications ---------------------------------------------------------------

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
