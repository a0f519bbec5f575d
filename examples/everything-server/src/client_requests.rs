//! Talking back to the client mid-call: elicitation forms and sampling requests, and reading
//! their answers.

use mcp_runtime::mcp::{self, ToolResult};
// The sampling answer's content type is not re-exported by `mcp_runtime::mcp`.
use mcp_runtime::wire::v2025_11_25::CreateMessageResultContent;
use mcp_runtime::{Error, RequestContext};
use serde_json::{json, Value};

/// JSON text of a value that is known to serialize (plain data, no maps with non-string keys).
pub(crate) fn to_json(value: &impl serde::Serialize) -> String {
    serde_json::to_string(value).unwrap_or_else(|e| format!("<unserializable: {e}>"))
}

/// The `action` of an elicitation answer as its wire string (`accept`, `decline`, `cancel`).
pub(crate) fn action_name(answer: &mcp::ElicitResult) -> String {
    match serde_json::to_value(answer.action) {
        Ok(Value::String(action)) => action,
        other => format!("{other:?}"),
    }
}

/// Sends `elicitation/create` with `message` and `requested_schema`, and describes the answer as
/// `"<prefix>: action=<action>, content=<json>"`.
pub(crate) async fn elicit_and_describe(
    ctx: &RequestContext,
    key: &str,
    message: &str,
    requested_schema: Value,
    prefix: &str,
) -> Result<ToolResult, Error> {
    let answer = ctx
        .elicit(
            key,
            json!({ "message": message, "requestedSchema": requested_schema }),
        )
        .await?;
    Ok(ToolResult::text(format!(
        "{prefix}: action={}, content={}",
        action_name(&answer),
        to_json(&answer.content)
    )))
}

/// An elicitation form asking for one required property `name` of JSON type `kind`.
pub(crate) fn form(message: &str, name: &str, kind: &str) -> Value {
    json!({
        "message": message,
        "requestedSchema": {
            "type": "object",
            "properties": { name: { "type": kind } },
            "required": [name],
        },
    })
}

/// A sampling request of one user question.
pub(crate) fn ask_model(question: &str, max_tokens: u32) -> Value {
    json!({
        "messages": [{ "role": "user", "content": { "type": "text", "text": question } }],
        "maxTokens": max_tokens,
    })
}

/// The text of a sampling answer (its JSON when it is not text).
pub(crate) fn sampled_text(answer: &mcp::CreateMessageResult) -> String {
    match &answer.content {
        CreateMessageResultContent::TextContent(content) => content.text.clone(),
        other => to_json(other),
    }
}

/// The form field `name` of an accepted elicitation, as text; an error when it is missing.
pub(crate) fn field(answer: &mcp::ElicitResult, name: &str) -> Result<String, Error> {
    let value = answer
        .content
        .as_ref()
        .and_then(|content| content.get(name))
        .ok_or_else(|| Error::new(format!("the answer has no `{name}`")))?;
    Ok(match serde_json::to_value(value) {
        Ok(Value::String(text)) => text,
        _ => to_json(value),
    })
}
