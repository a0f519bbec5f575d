//! Client capabilities: a request needing an undeclared capability is HTTP 400 `-32021` with
//! `data.requiredCapabilities`, and MRTR only asks for declared capabilities (form or URL
//! elicitation, sampling).

use http::StatusCode;
use serde_json::{json, Value};

use crate::call_tool;
use crate::support::start;
use crate::support::stateless::{accept, exchange, Mrtr};
use mcp_runtime::Config;

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
