//! §2.5: the multi round-trip tools (SEP-2322).
//!
//! Written once for both eras: on a session `ctx.elicit` sends a real request and waits; on
//! 2026-07-28 a missing answer ends the round with an InputRequiredResult.

use mcp_runtime::mcp::ToolResult;
use mcp_runtime::{Error, RequestContext};

use crate::client_requests::{action_name, ask_model, field, form, sampled_text, to_json};

/// Asks for a name, then greets it.
pub(crate) async fn test_input_required_result_elicitation(
    ctx: &RequestContext,
) -> Result<ToolResult, Error> {
    let answer = ctx
        .elicit("user_name", form("What is your name?", "name", "string"))
        .await?;
    Ok(ToolResult::text(format!(
        "Hello, {}!",
        field(&answer, "name")?
    )))
}

/// Asks the client's model a question and reports its answer.
pub(crate) async fn test_input_required_result_sampling(
    ctx: &RequestContext,
) -> Result<ToolResult, Error> {
    let answer = ctx
        .sample(
            "sample_request",
            ask_model("What is the capital of France?", 100),
        )
        .await?;
    Ok(ToolResult::text(format!(
        "Sampling result: {}",
        sampled_text(&answer)
    )))
}

/// Asks for the client's roots and counts them.
pub(crate) async fn test_input_required_result_list_roots(
    ctx: &RequestContext,
) -> Result<ToolResult, Error> {
    let roots = ctx.list_roots("roots_request").await?;
    Ok(ToolResult::text(format!(
        "Found {} root(s)",
        roots.roots.len()
    )))
}

/// Asks for a confirmation, keeping a marker in `requestState` that the last round checks.
pub(crate) async fn test_input_required_result_request_state(
    ctx: &RequestContext,
) -> Result<ToolResult, Error> {
    ctx.save("issued", "round-1");
    let answer = ctx
        .elicit("confirm", form("Please confirm", "ok", "boolean"))
        .await?;
    let state = match ctx.saved::<String>("issued") {
        Some(_) => "requestState validated",
        // A session keeps running instead of resuming, so there is nothing to carry.
        None => "no requestState needed",
    };
    Ok(ToolResult::text(format!(
        "state-ok: {state} (action={})",
        action_name(&answer)
    )))
}

/// Asks for a name, a sampled greeting and the roots in one round.
pub(crate) async fn test_input_required_result_multiple_inputs(
    ctx: &RequestContext,
) -> Result<ToolResult, Error> {
    // Every request is made before `?`, so one round asks for all three.
    let name = ctx
        .elicit("user_name", form("What is your name?", "name", "string"))
        .await;
    let greeting = ctx
        .sample("greeting", ask_model("Generate a greeting", 50))
        .await;
    let roots = ctx.list_roots("client_roots").await;
    let (name, greeting, roots) = (name?, greeting?, roots?);
    Ok(ToolResult::text(format!(
        "Name: {}; Greeting: {}; Roots: {}",
        field(&name, "name")?,
        sampled_text(&greeting),
        roots.roots.len()
    )))
}

/// Asks for a name, then (a second round) for a favorite color.
pub(crate) async fn test_input_required_result_multi_round(
    ctx: &RequestContext,
) -> Result<ToolResult, Error> {
    let name = ctx
        .elicit(
            "step1",
            form("Step 1: What is your name?", "name", "string"),
        )
        .await?;
    let color = ctx
        .elicit(
            "step2",
            form("Step 2: What is your favorite color?", "color", "string"),
        )
        .await?;
    Ok(ToolResult::text(format!(
        "Multi-round complete for {} who likes {}",
        field(&name, "name")?,
        field(&color, "color")?
    )))
}

/// Asks for a confirmation; the runtime refuses a retry whose `requestState` was altered.
pub(crate) async fn test_input_required_result_tampered_state(
    ctx: &RequestContext,
) -> Result<ToolResult, Error> {
    let answer = ctx
        .elicit("confirm", form("Please confirm", "ok", "boolean"))
        .await?;
    Ok(ToolResult::text(format!(
        "state-ok: action={}",
        action_name(&answer)
    )))
}

/// Asks for a form and a sample, but only what the client declared it can answer: the
/// context refuses (without asking) a request whose capability is missing.
pub(crate) async fn test_input_required_result_capabilities(
    ctx: &RequestContext,
) -> Result<ToolResult, Error> {
    let form_answer = ctx
        .elicit("user_input", form("What is your name?", "name", "string"))
        .await;
    let sample = ctx
        .sample("sample_input", ask_model("Sample request", 50))
        .await;
    let mut received = Vec::new();
    for (key, outcome) in [
        ("user_input", form_answer.map(|a| to_json(&a))),
        ("sample_input", sample.map(|a| sampled_text(&a))),
    ] {
        match outcome {
            Ok(text) => received.push(format!("{key}={text}")),
            Err(e) if e.is_input_required() => return Err(e),
            Err(_) => {} // not declared by the client: skipped
        }
    }
    Ok(ToolResult::text(format!(
        "capabilities-ok: received {}",
        received.join(", ")
    )))
}
