//! §2.3: the stateless diagnostic tools and the x-mcp-header tool (2026-07-28).

use mcp_runtime::mcp::{LoggingLevel, ToolResult};
use mcp_runtime::{Error, RequestContext};

use super::LOGGER;
use crate::server::types;

/// Echoes `region`, which 2026-07-28 clients also send as the `Mcp-Param-Region` header
/// (the runtime checks that the two agree before the handler runs).
pub(crate) async fn test_custom_header(
    _ctx: &RequestContext,
    params: types::TestCustomHeaderParams,
) -> Result<ToolResult, Error> {
    Ok(ToolResult::text(format!("Region: {}", params.region)))
}

/// Needs sampling: a request that did not declare it gets `-32021` (HTTP 400 when
/// stateless) naming `{"sampling": {}}`.
pub(crate) async fn test_missing_capability(ctx: &RequestContext) -> Result<ToolResult, Error> {
    if ctx.client_capabilities().get("sampling").is_none() {
        return Err(Error::missing_capability("sampling"));
    }
    Ok(ToolResult::text("Success"))
}

/// Streams one progress notification, then completes: a response stream carries
/// notifications and the result, never a request to the client.
pub(crate) async fn test_streaming_elicitation(ctx: &RequestContext) -> Result<ToolResult, Error> {
    ctx.progress(1.0, Some(1.0), Some("Streaming"));
    Ok(ToolResult::text("Streaming complete"))
}

/// Logs one info line (sent only when the request's `_meta` asks for a log level).
pub(crate) async fn test_logging_tool(ctx: &RequestContext) -> Result<ToolResult, Error> {
    ctx.log(LoggingLevel::Info, Some(LOGGER), "Logging tool evaluated");
    Ok(ToolResult::text("Logging evaluated"))
}

/// Announces a tool list change to sessions and `subscriptions/listen` streams.
pub(crate) async fn test_trigger_tool_change(ctx: &RequestContext) -> Result<ToolResult, Error> {
    if let Some(notifier) = ctx.notifier() {
        notifier.tools_changed();
    }
    Ok(ToolResult::text("Mutation triggered"))
}

/// Announces a prompt list change to sessions and `subscriptions/listen` streams.
pub(crate) async fn test_trigger_prompt_change(ctx: &RequestContext) -> Result<ToolResult, Error> {
    if let Some(notifier) = ctx.notifier() {
        notifier.prompts_changed();
    }
    Ok(ToolResult::text("Mutation triggered"))
}
