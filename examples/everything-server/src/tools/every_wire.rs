//! §2.1: the tools served on every wire (content blocks, tool errors, progress, a 2020-12 schema).

use mcp_runtime::mcp::{ContentBlock, ToolResult};
use mcp_runtime::{Error, RequestContext};
use serde_json::Value;

use super::STEP;
use crate::client_requests::to_json;
use crate::server::types;
use crate::{TEST_AUDIO_BASE64, TEST_IMAGE_BASE64};

/// Returns one fixed text block.
pub(crate) async fn test_simple_text(_ctx: &RequestContext) -> Result<ToolResult, Error> {
    Ok(ToolResult::text(
        "This is a simple text response for testing.",
    ))
}

/// Returns one PNG image block.
pub(crate) async fn test_image_content(_ctx: &RequestContext) -> Result<ToolResult, Error> {
    Ok(ToolResult::content(vec![ContentBlock::image(
        TEST_IMAGE_BASE64,
        "image/png",
    )]))
}

/// Returns one WAV audio block.
pub(crate) async fn test_audio_content(_ctx: &RequestContext) -> Result<ToolResult, Error> {
    Ok(ToolResult::content(vec![ContentBlock::audio(
        TEST_AUDIO_BASE64,
        "audio/wav",
    )]))
}

/// Returns one embedded text resource.
pub(crate) async fn test_embedded_resource(_ctx: &RequestContext) -> Result<ToolResult, Error> {
    Ok(ToolResult::content(vec![ContentBlock::embedded_text(
        "test://embedded-resource",
        "text/plain",
        "This is an embedded resource content.",
    )]))
}

/// Returns a text, an image and an embedded JSON resource.
pub(crate) async fn test_multiple_content_types(
    _ctx: &RequestContext,
) -> Result<ToolResult, Error> {
    Ok(ToolResult::content(vec![
        ContentBlock::text("Multiple content types test:"),
        ContentBlock::image(TEST_IMAGE_BASE64, "image/png"),
        ContentBlock::embedded_text(
            "test://mixed-content-resource",
            "application/json",
            r#"{"test":"data","value":123}"#,
        ),
    ]))
}

/// Returns a tool-level error (`isError: true`), not a JSON-RPC error.
pub(crate) async fn test_error_handling(_ctx: &RequestContext) -> Result<ToolResult, Error> {
    Ok(ToolResult::error(
        "This tool intentionally returns an error for testing",
    ))
}

/// Reports progress 0, 50 and 100 of 100, ~50 ms apart, then returns the progress token.
pub(crate) async fn test_tool_with_progress(ctx: &RequestContext) -> Result<ToolResult, Error> {
    for (i, step) in [0.0, 50.0, 100.0].into_iter().enumerate() {
        if i > 0 {
            tokio::time::sleep(STEP).await;
        }
        ctx.progress(
            step,
            Some(100.0),
            Some(&format!("Completed step {step} of 100")),
        );
    }
    // The reference answers with String(token): a string token as itself, a number as digits.
    let token = match ctx.progress_token() {
        Some(raw) => match serde_json::from_str::<Value>(raw.get()) {
            Ok(Value::String(token)) => token,
            _ => raw.get().to_string(),
        },
        None => "no progress token".to_string(),
    };
    Ok(ToolResult::text(token))
}

/// Echoes its arguments; its inputSchema is the 2020-12 fixture schema, published verbatim.
pub(crate) async fn json_schema_2020_12_tool(
    _ctx: &RequestContext,
    params: types::JsonSchema202012ToolParams,
) -> Result<ToolResult, Error> {
    Ok(ToolResult::text(format!(
        "JSON Schema 2020-12 tool called with: {}",
        to_json(&params)
    )))
}
