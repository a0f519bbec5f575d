//! everything-server: the fixture server of the official MCP conformance suite
//! (`@modelcontextprotocol/conformance`), generated from `openrpc.json` by `build.rs`.
//!
//! It serves every tool, prompt, resource and resource template the suite's session-era
//! scenarios (2025-03-26, 2025-06-18, 2025-11-25) call, with the names, texts and behaviour of the
//! TypeScript reference server (see `shared/conformance/FIXTURE.md` §2). `conformance/run.sh`
//! starts it and runs the suite against it; it doubles as an example of `"output": "mcp"`
//! handlers that build MCP content blocks themselves and of talking back to the client mid-call
//! (progress, logging, sampling, elicitation, SSE stream polling).
//!
//! `server` is the generated module; [`Everything`] implements its `Handler` trait by handing
//! each method to the function of the same name in the module of its kind, grouped as
//! FIXTURE.md groups them: `tools` (served on every wire §2.1, needing a session §2.2, the
//! 2026-07-28 diagnostic tools §2.3, multi round-trip §2.5, the tasks extension FIXTURE.md §3),
//! `prompts` (§2.7) and `resources` (§2.6).

use mcp_runtime::mcp::{GetPromptResult, ReadResourceResult, ToolResult};
use mcp_runtime::{Error, RequestContext};

/// The code generated from `openrpc.json`.
pub mod server {
    include!(concat!(env!("OUT_DIR"), "/mcp_server.rs"));
}

use server::types;

mod client_requests;
mod prompts;
mod resources;
mod tools;

/// A 1×1 PNG, base64 (`TEST_IMAGE_BASE64` of the reference server).
pub const TEST_IMAGE_BASE64: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

/// A minimal WAV file, base64 (`TEST_AUDIO_BASE64` of the reference server).
pub const TEST_AUDIO_BASE64: &str = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";

/// The conformance fixture. It keeps no state: every answer is fixed or derived from the request.
#[derive(Debug, Default, Clone, Copy)]
pub struct Everything;

// Every method hands its call to the function of the same name in `tools`, `prompts` or
// `resources`, where its documentation is.
impl server::Handler for Everything {
    // ---- §2.1 tools served on every wire -------------------------------------------------
    async fn test_simple_text(&self, ctx: &RequestContext) -> Result<ToolResult, Error> {
        tools::every_wire::test_simple_text(ctx).await
    }

    async fn test_image_content(&self, ctx: &RequestContext) -> Result<ToolResult, Error> {
        tools::every_wire::test_image_content(ctx).await
    }

    async fn test_audio_content(&self, ctx: &RequestContext) -> Result<ToolResult, Error> {
        tools::every_wire::test_audio_content(ctx).await
    }

    async fn test_embedded_resource(&self, ctx: &RequestContext) -> Result<ToolResult, Error> {
        tools::every_wire::test_embedded_resource(ctx).await
    }

    async fn test_multiple_content_types(&self, ctx: &RequestContext) -> Result<ToolResult, Error> {
        tools::every_wire::test_multiple_content_types(ctx).await
    }

    async fn test_error_handling(&self, ctx: &RequestContext) -> Result<ToolResult, Error> {
        tools::every_wire::test_error_handling(ctx).await
    }

    async fn test_tool_with_progress(&self, ctx: &RequestContext) -> Result<ToolResult, Error> {
        tools::every_wire::test_tool_with_progress(ctx).await
    }

    async fn json_schema_2020_12_tool(
        &self,
        ctx: &RequestContext,
        params: types::JsonSchema202012ToolParams,
    ) -> Result<ToolResult, Error> {
        tools::every_wire::json_schema_2020_12_tool(ctx, params).await
    }

    // ---- §2.2 tools that need a session (2025-06-18, 2025-11-25) ---------------------------
    async fn test_tool_with_logging(&self, ctx: &RequestContext) -> Result<ToolResult, Error> {
        tools::session::test_tool_with_logging(ctx).await
    }

    async fn test_sampling(
        &self,
        ctx: &RequestContext,
        params: types::TestSamplingParams,
    ) -> Result<ToolResult, Error> {
        tools::session::test_sampling(ctx, params).await
    }

    async fn test_elicitation(
        &self,
        ctx: &RequestContext,
        params: types::TestElicitationParams,
    ) -> Result<ToolResult, Error> {
        tools::session::test_elicitation(ctx, params).await
    }

    async fn test_elicitation_sep1034_defaults(
        &self,
        ctx: &RequestContext,
    ) -> Result<ToolResult, Error> {
        tools::session::test_elicitation_sep1034_defaults(ctx).await
    }

    async fn test_elicitation_sep1330_enums(
        &self,
        ctx: &RequestContext,
    ) -> Result<ToolResult, Error> {
        tools::session::test_elicitation_sep1330_enums(ctx).await
    }

    async fn test_reconnection(&self, ctx: &RequestContext) -> Result<ToolResult, Error> {
        tools::session::test_reconnection(ctx).await
    }

    // ---- §2.3 stateless diagnostic tools and the x-mcp-header tool (2026-07-28) ----------------
    async fn test_custom_header(
        &self,
        ctx: &RequestContext,
        params: types::TestCustomHeaderParams,
    ) -> Result<ToolResult, Error> {
        tools::stateless::test_custom_header(ctx, params).await
    }

    async fn test_missing_capability(&self, ctx: &RequestContext) -> Result<ToolResult, Error> {
        tools::stateless::test_missing_capability(ctx).await
    }

    async fn test_streaming_elicitation(&self, ctx: &RequestContext) -> Result<ToolResult, Error> {
        tools::stateless::test_streaming_elicitation(ctx).await
    }

    async fn test_logging_tool(&self, ctx: &RequestContext) -> Result<ToolResult, Error> {
        tools::stateless::test_logging_tool(ctx).await
    }

    async fn test_trigger_tool_change(&self, ctx: &RequestContext) -> Result<ToolResult, Error> {
        tools::stateless::test_trigger_tool_change(ctx).await
    }

    async fn test_trigger_prompt_change(&self, ctx: &RequestContext) -> Result<ToolResult, Error> {
        tools::stateless::test_trigger_prompt_change(ctx).await
    }

    // ---- §2.5 multi round-trip tools (SEP-2322) --------------------------------------------
    async fn test_input_required_result_elicitation(
        &self,
        ctx: &RequestContext,
    ) -> Result<ToolResult, Error> {
        tools::round_trip::test_input_required_result_elicitation(ctx).await
    }

    async fn test_input_required_result_sampling(
        &self,
        ctx: &RequestContext,
    ) -> Result<ToolResult, Error> {
        tools::round_trip::test_input_required_result_sampling(ctx).await
    }

    async fn test_input_required_result_list_roots(
        &self,
        ctx: &RequestContext,
    ) -> Result<ToolResult, Error> {
        tools::round_trip::test_input_required_result_list_roots(ctx).await
    }

    async fn test_input_required_result_request_state(
        &self,
        ctx: &RequestContext,
    ) -> Result<ToolResult, Error> {
        tools::round_trip::test_input_required_result_request_state(ctx).await
    }

    async fn test_input_required_result_multiple_inputs(
        &self,
        ctx: &RequestContext,
    ) -> Result<ToolResult, Error> {
        tools::round_trip::test_input_required_result_multiple_inputs(ctx).await
    }

    async fn test_input_required_result_multi_round(
        &self,
        ctx: &RequestContext,
    ) -> Result<ToolResult, Error> {
        tools::round_trip::test_input_required_result_multi_round(ctx).await
    }

    async fn test_input_required_result_tampered_state(
        &self,
        ctx: &RequestContext,
    ) -> Result<ToolResult, Error> {
        tools::round_trip::test_input_required_result_tampered_state(ctx).await
    }

    async fn test_input_required_result_capabilities(
        &self,
        ctx: &RequestContext,
    ) -> Result<ToolResult, Error> {
        tools::round_trip::test_input_required_result_capabilities(ctx).await
    }

    // ---- tasks extension (io.modelcontextprotocol/tasks, SEP-2663) ------------------------
    async fn greet(
        &self,
        ctx: &RequestContext,
        params: types::GreetParams,
    ) -> Result<ToolResult, Error> {
        tools::tasks::greet(ctx, params).await
    }

    async fn slow_compute(
        &self,
        ctx: &RequestContext,
        params: types::SlowComputeParams,
    ) -> Result<ToolResult, Error> {
        tools::tasks::slow_compute(ctx, params).await
    }

    async fn failing_job(&self, ctx: &RequestContext) -> Result<ToolResult, Error> {
        tools::tasks::failing_job(ctx).await
    }

    async fn protocol_error_job(&self, ctx: &RequestContext) -> Result<ToolResult, Error> {
        tools::tasks::protocol_error_job(ctx).await
    }

    async fn confirm_delete(
        &self,
        ctx: &RequestContext,
        params: types::ConfirmDeleteParams,
    ) -> Result<ToolResult, Error> {
        tools::tasks::confirm_delete(ctx, params).await
    }

    async fn multi_input(&self, ctx: &RequestContext) -> Result<ToolResult, Error> {
        tools::tasks::multi_input(ctx).await
    }

    async fn test_tool_with_task(&self, ctx: &RequestContext) -> Result<ToolResult, Error> {
        tools::tasks::test_tool_with_task(ctx).await
    }

    // ---- §2.7 prompts ----------------------------------------------------------------------
    async fn test_simple_prompt(&self, ctx: &RequestContext) -> Result<GetPromptResult, Error> {
        prompts::test_simple_prompt(ctx).await
    }

    async fn test_prompt_with_arguments(
        &self,
        ctx: &RequestContext,
        params: types::TestPromptWithArgumentsParams,
    ) -> Result<GetPromptResult, Error> {
        prompts::test_prompt_with_arguments(ctx, params).await
    }

    async fn test_prompt_with_embedded_resource(
        &self,
        ctx: &RequestContext,
        params: types::TestPromptWithEmbeddedResourceParams,
    ) -> Result<GetPromptResult, Error> {
        prompts::test_prompt_with_embedded_resource(ctx, params).await
    }

    async fn test_prompt_with_image(&self, ctx: &RequestContext) -> Result<GetPromptResult, Error> {
        prompts::test_prompt_with_image(ctx).await
    }

    async fn test_input_required_result_prompt(
        &self,
        ctx: &RequestContext,
    ) -> Result<GetPromptResult, Error> {
        prompts::test_input_required_result_prompt(ctx).await
    }

    // ---- §2.6 resources and templates --------------------------------------------------------
    async fn static_text(&self, ctx: &RequestContext) -> Result<ReadResourceResult, Error> {
        resources::static_text(ctx).await
    }

    async fn static_binary(&self, ctx: &RequestContext) -> Result<ReadResourceResult, Error> {
        resources::static_binary(ctx).await
    }

    async fn watched_resource(&self, ctx: &RequestContext) -> Result<ReadResourceResult, Error> {
        resources::watched_resource(ctx).await
    }

    async fn template_data(
        &self,
        ctx: &RequestContext,
        params: types::TemplateDataParams,
    ) -> Result<ReadResourceResult, Error> {
        resources::template_data(ctx, params).await
    }

    async fn stateless_static_text(
        &self,
        ctx: &RequestContext,
    ) -> Result<ReadResourceResult, Error> {
        resources::stateless_static_text(ctx).await
    }
}
