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
//! `server` is the generated module; [`Everything`] implements its `Handler` trait. The handlers
//! are grouped as FIXTURE.md groups them: tools served on every wire (§2.1), the tools that need
//! a session (§2.2), the 2026-07-28 diagnostic tools (§2.3), the multi round-trip tools (§2.5),
//! the tasks-extension tools (FIXTURE.md §3, "Extensions"), prompts (§2.7) and resources (§2.6).

use std::time::Duration;

use mcp_runtime::mcp::{
    self, ContentBlock, GetPromptResult, LoggingLevel, ReadResourceResult,
    ReadResourceResultContentsItem, Role, ToolResult,
};
// The sampling answer's content type is not re-exported by `mcp_runtime::mcp`.
use mcp_runtime::wire::v2025_11_25::CreateMessageResultContent;
use mcp_runtime::{Error, RequestContext};
use serde_json::{json, Value};

/// The code generated from `openrpc.json`.
pub mod server {
    include!(concat!(env!("OUT_DIR"), "/mcp_server.rs"));
}

use server::types;

/// A 1×1 PNG, base64 (`TEST_IMAGE_BASE64` of the reference server).
pub const TEST_IMAGE_BASE64: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

/// A minimal WAV file, base64 (`TEST_AUDIO_BASE64` of the reference server).
pub const TEST_AUDIO_BASE64: &str = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";

/// The logger name on the log messages the server sends.
const LOGGER: &str = "conformance-test-server";

/// The pause between the steps of the progress and logging tools.
const STEP: Duration = Duration::from_millis(50);

/// How long the task tools work before they finish.
const TASK_STEP: Duration = Duration::from_millis(300);

/// How long `test_reconnection` waits after closing its SSE stream before it answers.
const RECONNECTION_DELAY: Duration = Duration::from_millis(100);

/// The conformance fixture. It keeps no state: every answer is fixed or derived from the request.
#[derive(Debug, Default, Clone, Copy)]
pub struct Everything;

/// One user message in a prompt.
fn user(content: ContentBlock) -> mcp::PromptMessage {
    mcp::message(Role::User, content)
}

/// A prompt result made of these messages.
fn prompt(messages: Vec<mcp::PromptMessage>) -> GetPromptResult {
    GetPromptResult {
        meta: None,
        description: None,
        messages,
    }
}

/// A `resources/read` result holding one text resource.
fn read_text(uri: &str, mime_type: &str, text: impl Into<String>) -> ReadResourceResult {
    ReadResourceResult {
        meta: None,
        contents: vec![ReadResourceResultContentsItem::TextResourceContents(
            mcp::text_contents(uri, mime_type, text),
        )],
    }
}

/// JSON text of a value that is known to serialize (plain data, no maps with non-string keys).
fn to_json(value: &impl serde::Serialize) -> String {
    serde_json::to_string(value).unwrap_or_else(|e| format!("<unserializable: {e}>"))
}

/// The `action` of an elicitation answer as its wire string (`accept`, `decline`, `cancel`).
fn action_name(answer: &mcp::ElicitResult) -> String {
    match serde_json::to_value(answer.action) {
        Ok(Value::String(action)) => action,
        other => format!("{other:?}"),
    }
}

/// Sends `elicitation/create` with `message` and `requested_schema`, and describes the answer as
/// `"<prefix>: action=<action>, content=<json>"`.
async fn elicit_and_describe(
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
fn form(message: &str, name: &str, kind: &str) -> Value {
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
fn ask_model(question: &str, max_tokens: u32) -> Value {
    json!({
        "messages": [{ "role": "user", "content": { "type": "text", "text": question } }],
        "maxTokens": max_tokens,
    })
}

/// The text of a sampling answer (its JSON when it is not text).
fn sampled_text(answer: &mcp::CreateMessageResult) -> String {
    match &answer.content {
        CreateMessageResultContent::TextContent(content) => content.text.clone(),
        other => to_json(other),
    }
}

/// The form field `name` of an accepted elicitation, as text; an error when it is missing.
fn field(answer: &mcp::ElicitResult, name: &str) -> Result<String, Error> {
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

impl server::Handler for Everything {
    // ---- §2.1 tools served on every wire -------------------------------------------------

    /// Returns one fixed text block.
    async fn test_simple_text(&self, _ctx: &RequestContext) -> Result<ToolResult, Error> {
        Ok(ToolResult::text(
            "This is a simple text response for testing.",
        ))
    }

    /// Returns one PNG image block.
    async fn test_image_content(&self, _ctx: &RequestContext) -> Result<ToolResult, Error> {
        Ok(ToolResult::content(vec![mcp::image(
            TEST_IMAGE_BASE64,
            "image/png",
        )]))
    }

    /// Returns one WAV audio block.
    async fn test_audio_content(&self, _ctx: &RequestContext) -> Result<ToolResult, Error> {
        Ok(ToolResult::content(vec![mcp::audio(
            TEST_AUDIO_BASE64,
            "audio/wav",
        )]))
    }

    /// Returns one embedded text resource.
    async fn test_embedded_resource(&self, _ctx: &RequestContext) -> Result<ToolResult, Error> {
        Ok(ToolResult::content(vec![mcp::embedded_text(
            "test://embedded-resource",
            "text/plain",
            "This is an embedded resource content.",
        )]))
    }

    /// Returns a text, an image and an embedded JSON resource.
    async fn test_multiple_content_types(
        &self,
        _ctx: &RequestContext,
    ) -> Result<ToolResult, Error> {
        Ok(ToolResult::content(vec![
            mcp::text("Multiple content types test:"),
            mcp::image(TEST_IMAGE_BASE64, "image/png"),
            mcp::embedded_text(
                "test://mixed-content-resource",
                "application/json",
                r#"{"test":"data","value":123}"#,
            ),
        ]))
    }

    /// Returns a tool-level error (`isError: true`), not a JSON-RPC error.
    async fn test_error_handling(&self, _ctx: &RequestContext) -> Result<ToolResult, Error> {
        Ok(ToolResult::error(
            "This tool intentionally returns an error for testing",
        ))
    }

    /// Reports progress 0, 50 and 100 of 100, ~50 ms apart, then returns the progress token.
    async fn test_tool_with_progress(&self, ctx: &RequestContext) -> Result<ToolResult, Error> {
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
    async fn json_schema_2020_12_tool(
        &self,
        _ctx: &RequestContext,
        params: types::JsonSchema202012ToolParams,
    ) -> Result<ToolResult, Error> {
        Ok(ToolResult::text(format!(
            "JSON Schema 2020-12 tool called with: {}",
            to_json(&params)
        )))
    }

    // ---- §2.2 tools that need a session (2025-06-18, 2025-11-25) ---------------------------

    /// Sends three info log messages ~50 ms apart, then returns a fixed text.
    async fn test_tool_with_logging(&self, ctx: &RequestContext) -> Result<ToolResult, Error> {
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
    async fn test_sampling(
        &self,
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
    async fn test_elicitation(
        &self,
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
    async fn test_elicitation_sep1034_defaults(
        &self,
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
    async fn test_elicitation_sep1330_enums(
        &self,
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
    async fn test_reconnection(&self, ctx: &RequestContext) -> Result<ToolResult, Error> {
        ctx.close_sse_stream();
        tokio::time::sleep(RECONNECTION_DELAY).await;
        Ok(ToolResult::text(
            "Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure.",
        ))
    }

    // ---- §2.3 stateless diagnostic tools and the x-mcp-header tool (2026-07-28) ----------------

    /// Echoes `region`, which 2026-07-28 clients also send as the `Mcp-Param-Region` header
    /// (the runtime checks that the two agree before the handler runs).
    async fn test_custom_header(
        &self,
        _ctx: &RequestContext,
        params: types::TestCustomHeaderParams,
    ) -> Result<ToolResult, Error> {
        Ok(ToolResult::text(format!("Region: {}", params.region)))
    }

    /// Needs sampling: a request that did not declare it gets `-32021` (HTTP 400 when
    /// stateless) naming `{"sampling": {}}`.
    async fn test_missing_capability(&self, ctx: &RequestContext) -> Result<ToolResult, Error> {
        if ctx.client_capabilities().get("sampling").is_none() {
            return Err(Error::missing_capability("sampling"));
        }
        Ok(ToolResult::text("Success"))
    }

    /// Streams one progress notification, then completes: a response stream carries
    /// notifications and the result, never a request to the client.
    async fn test_streaming_elicitation(&self, ctx: &RequestContext) -> Result<ToolResult, Error> {
        ctx.progress(1.0, Some(1.0), Some("Streaming"));
        Ok(ToolResult::text("Streaming complete"))
    }

    /// Logs one info line (sent only when the request's `_meta` asks for a log level).
    async fn test_logging_tool(&self, ctx: &RequestContext) -> Result<ToolResult, Error> {
        ctx.log(LoggingLevel::Info, Some(LOGGER), "Logging tool evaluated");
        Ok(ToolResult::text("Logging evaluated"))
    }

    /// Announces a tool list change to sessions and `subscriptions/listen` streams.
    async fn test_trigger_tool_change(&self, ctx: &RequestContext) -> Result<ToolResult, Error> {
        if let Some(notifier) = ctx.notifier() {
            notifier.tools_changed();
        }
        Ok(ToolResult::text("Mutation triggered"))
    }

    /// Announces a prompt list change to sessions and `subscriptions/listen` streams.
    async fn test_trigger_prompt_change(&self, ctx: &RequestContext) -> Result<ToolResult, Error> {
        if let Some(notifier) = ctx.notifier() {
            notifier.prompts_changed();
        }
        Ok(ToolResult::text("Mutation triggered"))
    }

    // ---- §2.5 multi round-trip tools (SEP-2322) --------------------------------------------
    // Written once for both eras: on a session `ctx.elicit` sends a real request and waits; on
    // 2026-07-28 a missing answer ends the round with an InputRequiredResult.

    /// Asks for a name, then greets it.
    async fn test_input_required_result_elicitation(
        &self,
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
    async fn test_input_required_result_sampling(
        &self,
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
    async fn test_input_required_result_list_roots(
        &self,
        ctx: &RequestContext,
    ) -> Result<ToolResult, Error> {
        let roots = ctx.list_roots("roots_request").await?;
        Ok(ToolResult::text(format!(
            "Found {} root(s)",
            roots.roots.len()
        )))
    }

    /// Asks for a confirmation, keeping a marker in `requestState` that the last round checks.
    async fn test_input_required_result_request_state(
        &self,
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
    async fn test_input_required_result_multiple_inputs(
        &self,
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
    async fn test_input_required_result_multi_round(
        &self,
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
    async fn test_input_required_result_tampered_state(
        &self,
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
    async fn test_input_required_result_capabilities(
        &self,
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

    // ---- tasks extension (io.modelcontextprotocol/tasks, SEP-2663) ------------------------
    // A handler turns its call into a task with `ctx.start_task()` (when the client allows it)
    // or `ctx.require_task()?` (-32021 when it does not); on a session both go on synchronously.

    /// Greets synchronously: never a task.
    async fn greet(
        &self,
        _ctx: &RequestContext,
        params: types::GreetParams,
    ) -> Result<ToolResult, Error> {
        Ok(ToolResult::text(format!("Hello, {}!", params.name)))
    }

    /// Works `seconds` seconds, as a task when the client supports tasks (an instant job
    /// answers directly).
    async fn slow_compute(
        &self,
        ctx: &RequestContext,
        params: types::SlowComputeParams,
    ) -> Result<ToolResult, Error> {
        let seconds = params.seconds.max(0) as u64;
        if seconds > 0 {
            ctx.start_task();
        }
        tokio::time::sleep(Duration::from_secs(seconds)).await;
        let label = params.label.as_deref().unwrap_or("job");
        Ok(ToolResult::text(format!("Computed {label} in {seconds}s")))
    }

    /// A task that ends with a tool error: status `completed`, result `isError: true`.
    async fn failing_job(&self, ctx: &RequestContext) -> Result<ToolResult, Error> {
        ctx.require_task()?;
        tokio::time::sleep(TASK_STEP).await;
        Ok(ToolResult::error("The job failed, as it always does"))
    }

    /// A task that fails with a JSON-RPC error: status `failed`.
    async fn protocol_error_job(&self, ctx: &RequestContext) -> Result<ToolResult, Error> {
        ctx.require_task()?;
        tokio::time::sleep(TASK_STEP).await;
        Err(Error::protocol(
            mcp_runtime::jsonrpc::INTERNAL_ERROR,
            "protocol_error_job failed with a protocol error",
        ))
    }

    /// A task that waits (`input_required`) for the user to confirm.
    async fn confirm_delete(
        &self,
        ctx: &RequestContext,
        params: types::ConfirmDeleteParams,
    ) -> Result<ToolResult, Error> {
        ctx.require_task()?;
        let question = format!("Delete {}?", params.filename);
        let answer = ctx
            .elicit("confirm", form(&question, "confirm", "boolean"))
            .await?;
        let confirmed = matches!(field(&answer, "confirm").as_deref(), Ok("true"));
        let verb = if confirmed { "Deleted" } else { "Kept" };
        Ok(ToolResult::text(format!("{verb} {}", params.filename)))
    }

    /// A task that asks two questions at once and waits for both answers.
    async fn multi_input(&self, ctx: &RequestContext) -> Result<ToolResult, Error> {
        ctx.require_task()?;
        let (first, second) = tokio::join!(
            ctx.elicit("first", form("First name?", "name", "string")),
            ctx.elicit("second", form("Second name?", "name", "string")),
        );
        Ok(ToolResult::text(format!(
            "Received: {} and {}",
            field(&first?, "name")?,
            field(&second?, "name")?
        )))
    }

    /// Asks for a name in a multi round-trip exchange, then continues as a task.
    async fn test_tool_with_task(&self, ctx: &RequestContext) -> Result<ToolResult, Error> {
        let answer = ctx
            .elicit("user_name", form("What is your name?", "name", "string"))
            .await?;
        ctx.require_task()?;
        tokio::time::sleep(TASK_STEP).await;
        Ok(ToolResult::text(format!(
            "Hello, {}! The task is complete.",
            field(&answer, "name")?
        )))
    }

    // ---- §2.7 prompts ----------------------------------------------------------------------

    /// One fixed user message.
    async fn test_simple_prompt(&self, _ctx: &RequestContext) -> Result<GetPromptResult, Error> {
        Ok(prompt(vec![user(mcp::text(
            "This is a simple prompt for testing.",
        ))]))
    }

    /// One user message quoting both arguments.
    async fn test_prompt_with_arguments(
        &self,
        _ctx: &RequestContext,
        params: types::TestPromptWithArgumentsParams,
    ) -> Result<GetPromptResult, Error> {
        Ok(prompt(vec![user(mcp::text(format!(
            "Prompt with arguments: arg1='{}', arg2='{}'",
            params.arg1, params.arg2
        )))]))
    }

    /// An embedded text resource at `resourceUri`, then an instruction about it.
    async fn test_prompt_with_embedded_resource(
        &self,
        _ctx: &RequestContext,
        params: types::TestPromptWithEmbeddedResourceParams,
    ) -> Result<GetPromptResult, Error> {
        Ok(prompt(vec![
            user(mcp::embedded_text(
                params.resource_uri,
                "text/plain",
                "Embedded resource content for testing.",
            )),
            user(mcp::text("Please process the embedded resource above.")),
        ]))
    }

    /// A PNG image, then an instruction about it.
    async fn test_prompt_with_image(
        &self,
        _ctx: &RequestContext,
    ) -> Result<GetPromptResult, Error> {
        Ok(prompt(vec![
            user(mcp::image(TEST_IMAGE_BASE64, "image/png")),
            user(mcp::text("Please analyze the image above.")),
        ]))
    }

    /// Asks for the context to use, then renders a prompt with it (MRTR on `prompts/get`).
    async fn test_input_required_result_prompt(
        &self,
        ctx: &RequestContext,
    ) -> Result<GetPromptResult, Error> {
        let answer = ctx
            .elicit(
                "user_context",
                form("What context should the prompt use?", "context", "string"),
            )
            .await?;
        Ok(prompt(vec![user(mcp::text(format!(
            "Prompt with context: {}",
            field(&answer, "context")?
        )))]))
    }

    // ---- §2.6 resources and templates --------------------------------------------------------

    /// `test://static-text`: a fixed text.
    async fn static_text(&self, _ctx: &RequestContext) -> Result<ReadResourceResult, Error> {
        Ok(read_text(
            "test://static-text",
            "text/plain",
            "This is the content of the static text resource.",
        ))
    }

    /// `test://static-binary`: the PNG image as a blob.
    async fn static_binary(&self, _ctx: &RequestContext) -> Result<ReadResourceResult, Error> {
        Ok(ReadResourceResult {
            meta: None,
            contents: vec![ReadResourceResultContentsItem::BlobResourceContents(
                mcp::blob_contents("test://static-binary", "image/png", TEST_IMAGE_BASE64),
            )],
        })
    }

    /// `test://watched-resource`: a fixed text; clients subscribe to it.
    async fn watched_resource(&self, _ctx: &RequestContext) -> Result<ReadResourceResult, Error> {
        Ok(read_text(
            "test://watched-resource",
            "text/plain",
            "Watched resource content",
        ))
    }

    /// `test://template/{id}/data`: a JSON document naming the id.
    async fn template_data(
        &self,
        _ctx: &RequestContext,
        params: types::TemplateDataParams,
    ) -> Result<ReadResourceResult, Error> {
        let data = json!({
            "id": params.id,
            "templateTest": true,
            "data": format!("Data for ID: {}", params.id),
        });
        Ok(read_text(
            &format!("test://template/{}/data", params.id),
            "application/json",
            data.to_string(),
        ))
    }

    /// `test://stateless-static-text`: a fixed text.
    async fn stateless_static_text(
        &self,
        _ctx: &RequestContext,
    ) -> Result<ReadResourceResult, Error> {
        Ok(read_text(
            "test://stateless-static-text",
            "text/plain",
            "Static text content from the stateless draft path.",
        ))
    }
}
