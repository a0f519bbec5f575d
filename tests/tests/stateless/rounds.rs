//! Multi round-trip requests (MRTR) on `tools/call`, `prompts/get` and `resources/read`: the
//! first `InputRequiredResult`, retries with `inputResponses` and the echoed `requestState`,
//! answers and saved values carried from round to round, missing, unknown, malformed and null
//! answers; and the schema check that guards these messages.

use serde_json::{json, Value};

use crate::support::schema::assert_stateless_response;
use crate::support::start;
use crate::support::stateless::{accept, exchange, Mrtr};
use mcp_runtime::Config;
use workspace_tests::{form, model_question};

/// The `elicitation/create` input request of `form(message, field)`.
fn elicitation(message: &str, field: &str) -> Value {
    json!({"method": "elicitation/create", "params": form(message, field)})
}

/// A `CreateMessageResult` answering `text`.
fn model_answer(text: &str) -> Value {
    json!({"role": "assistant", "content": {"type": "text", "text": text}, "model": "test-model"})
}

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
