//! §2.2: the tools that need a session (2025-06-18, 2025-11-25): logging, sampling,
//! elicitation and SSE stream resumption.

use std::time::Duration;

use mcp_runtime::mcp::{LoggingLevel, ToolResult};
// The sampling answer's content type is not re-exported by `mcp_runtime::mcp`.
use mcp_runtime::wire::v2025_11_25::CreateMessageResultContent;
use mcp_runtime::{Error, RequestContext};
use serde_json::json;

use super::{LOGGER, STEP};
use crate::client_requests::{elicit_and_describe, to_json};
use crate::server::types;

/// How long `test_reconnection` waits after closing its SSE stream before it answers.
const RECONNECTION_DELAY: Duration = Duration::from_millis(100);

/// Sends three info log messages ~50 ms apart, then returns a fixed text.
pub(crate) async fn test_tool_with_logging(ctx: &RequestContext) -> Result<ToolResult, Error> {
    let steps = [
        "Tool execution started",
        "Tool processing data",
        "Tool execution completed",
    ];
    for (i, data) in steps.into_iter().enumerate() {
        if i > 0 {
            tokio::time::sleep(STEP).await;
        }
        ctx.log(LoggingLevel::Info, Some(LOGGER), data);
    }
    Ok(ToolResult::text("Tool with logging executed successfully"))
}

/// Asks the client's model to answer `prompt` and returns its text.
pub(crate) async fn test_sampling(
    ctx: &RequestContext,
    params: types::TestSamplingParams,
) -> Result<ToolResult, Error> {
    let answer = ctx
        .sample(
            "sampling",
            json!({
                "messages": [{ "role": "user", "content": { "type": "text", "text": params.prompt } }],
                "maxTokens": 100,
            }),
        )
        .await?;
    let text = match &answer.content {
        CreateMessageResultContent::TextContent(content) => content.text.clone(),
        other => to_json(other),
    };
    Ok(ToolResult::text(format!("LLM response: {text}")))
}

/// Asks the user for one `response` string and reports the answer.
pub(crate) async fn test_elicitation(
    ctx: &RequestContext,
    params: types::TestElicitationParams,
) -> Result<ToolResult, Error> {
    let schema = json!({
        "type": "object",
        "properties": { "response": { "type": "string", "description": "User's response" } },
        "required": ["response"],
    });
    elicit_and_describe(ctx, "response", &params.message, schema, "User response").await
}

/// Elicits a form whose five fields (string, integer, number, enum, boolean) have defaults.
pub(crate) async fn test_elicitation_sep1034_defaults(
    ctx: &RequestContext,
) -> Result<ToolResult, Error> {
    let schema = json!({
        "type": "object",
        "properties": {
            "name": { "type": "string", "description": "User name", "default": "John Doe" },
            "age": { "type": "integer", "description": "User age", "default": 30 },
            "score": { "type": "number", "description": "User score", "default": 95.5 },
            "status": {
                "type": "string",
                "description": "User status",
                "enum": ["active", "inactive", "pending"],
                "default": "active",
            },
            "verified": { "type": "boolean", "description": "Verification status", "default": true },
        },
        "required": [],
    });
    elicit_and_describe(
        ctx,
        "defaults",
        "Please review and update the form fields with defaults",
        schema,
        "Elicitation completed",
    )
    .await
}

/// Elicits a form with every SEP-1330 enum shape: untitled, titled and legacy single
/// select, untitled and titled multi select.
pub(crate) async fn test_elicitation_sep1330_enums(
    ctx: &RequestContext,
) -> Result<ToolResult, Error> {
    let schema = json!({
        "type": "object",
        "properties": {
            "untitledSingle": {
                "type": "string",
                "description": "Select one option",
                "enum": ["option1", "option2", "option3"],
            },
            "titledSingle": {
                "type": "string",
                "description": "Select one option with titles",
                "oneOf": [
                    { "const": "value1", "title": "First Option" },
                    { "const": "value2", "title": "Second Option" },
                    { "const": "value3", "title": "Third Option" },
                ],
            },
            "legacyEnum": {
                "type": "string",
                "description": "Select one option (legacy)",
                "enum": ["opt1", "opt2", "opt3"],
                "enumNames": ["Option One", "Option Two", "Option Three"],
            },
            "untitledMulti": {
                "type": "array",
                "description": "Select multiple options",
                "minItems": 1,
                "maxItems": 3,
                "items": { "type": "string", "enum": ["option1", "option2", "option3"] },
            },
            "titledMulti": {
                "type": "array",
                "description": "Select multiple options with titles",
                "minItems": 1,
                "maxItems": 3,
                "items": {
                    "anyOf": [
                        { "const": "value1", "title": "First Choice" },
                        { "const": "value2", "title": "Second Choice" },
                        { "const": "value3", "title": "Third Choice" },
                    ],
                },
            },
        },
        "required": [],
    });
    elicit_and_describe(
        ctx,
        "enums",
        "Please select options from the enum fields",
        schema,
        "Elicitation completed",
    )
    .await
}

/// Closes its SSE stream before answering, so the client must resume with `Last-Event-ID`.
pub(crate) async fn test_reconnection(ctx: &RequestContext) -> Result<ToolResult, Error> {
    ctx.close_sse_stream();
    tokio::time::sleep(RECONNECTION_DELAY).await;
    Ok(ToolResult::text(
        "Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure.",
    ))
}
