//! An rmcp 3.11 (the official Rust SDK) Streamable HTTP server for the interop check of our
//! client (`rmcp-interop`, `tests/rmcp-peer/run.sh`): more than the benchmark's `echo`, written
//! against rmcp's public API (a hand-written `ServerHandler`, no macros), served by hyper.
//!
//! `--addr HOST:PORT [--http sessions|stateless] [--max-version VERSION]`
//! - `--http sessions` (default): rmcp's defaults, `legacy_session_mode = true`: `initialize`
//!   creates a session (answers are SSE streams); 2026-07-28 requests are served statelessly.
//! - `--http stateless`: `legacy_session_mode = false`, `json_response = true`: no session
//!   ever, JSON answers where no notification comes first.
//! - `--max-version V`: `supported_protocol_versions` is rmcp's known versions up to `V`
//!   (`2025-11-25` makes a legacy-only server, whose `server/discover` refuses 2026-07-28).
//!
//! Tools, listed two per page (`nextCursor` "2", "4"): `echo {text}` (one text block), `add
//! {a, b}` (`structuredContent {sum}`, with an `outputSchema`), `fail` (`isError: true`),
//! `progress {steps}` (a `notifications/progress` per step to the request's `progressToken`),
//! `ask` (an elicitation: in 2026-07-28 an `InputRequiredResult` and its retry, in a session
//! an `elicitation/create` request on the call's stream). Prompt `greet {name}`, resource
//! `mem://readme`. An unknown tool is `-32602`, as rmcp's own `ToolRouter` answers.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientResult, ContentBlock,
    ElicitRequest, ElicitRequestParams, GetPromptRequestParams, GetPromptResponse, GetPromptResult,
    Implementation, InputRequest, InputRequests, InputRequiredResult, ListPromptsResult,
    ListResourcesResult, ListToolsResult, PaginatedRequestParams, ProgressNotificationParam,
    Prompt, PromptArgument, PromptMessage, ProtocolVersion, ReadResourceRequestParams,
    ReadResourceResponse, ReadResourceResult, Resource, ResourceContents, Role, ServerCapabilities,
    ServerConfig, ServerRequest, Tool,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{json, Map, Value};

/// Tools per `tools/list` page.
const PAGE: usize = 2;

#[derive(Clone)]
struct Interop {
    versions: Arc<Vec<ProtocolVersion>>,
}

fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => unreachable!("a schema is an object"),
    }
}

fn tools() -> Vec<Tool> {
    let text =
        json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]});
    let numbers = json!({
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
        "required": ["a", "b"]
    });
    let empty = json!({"type": "object", "properties": {}});
    let steps = json!({"type": "object", "properties": {"steps": {"type": "integer"}}});
    let mut add = Tool::new(
        "add",
        "Add two integers: structuredContent {sum}.",
        object(numbers),
    );
    add.output_schema = Some(Arc::new(object(json!({
        "type": "object", "properties": {"sum": {"type": "integer"}}, "required": ["sum"]
    }))));
    vec![
        Tool::new("echo", "Return the text as one text block.", object(text)),
        add,
        Tool::new(
            "fail",
            "Always fails: a result with isError.",
            object(empty.clone()),
        ),
        Tool::new(
            "progress",
            "Sends a progress notification per step, then \"done\".",
            object(steps),
        ),
        Tool::new(
            "ask",
            "Asks the user's name (elicitation), then greets it.",
            object(empty),
        ),
    ]
}

fn elicitation() -> ElicitRequestParams {
    ElicitRequestParams::FormElicitationParams {
        meta: None,
        message: "What is your name?".into(),
        requested_schema: serde_json::from_value(json!({
            "type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]
        }))
        .expect("an elicitation schema"),
    }
}

fn greeting(answer: &Value) -> Result<CallToolResponse, ErrorData> {
    if answer["action"] != "accept" {
        return Ok(CallToolResult::error(vec![ContentBlock::text(format!(
            "the elicitation was answered with {}",
            answer["action"]
        ))])
        .into());
    }
    let name = answer["content"]["name"]
        .as_str()
        .ok_or_else(|| ErrorData::invalid_params("the elicitation's answer has no name", None))?;
    Ok(CallToolResult::success(vec![ContentBlock::text(format!("hello, {name}"))]).into())
}

fn is_stateless(context: &RequestContext<RoleServer>) -> bool {
    context
        .protocol_version()
        .is_some_and(|v| v.as_str() >= ProtocolVersion::V_2026_07_28.as_str())
}

impl ServerHandler for Interop {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_prompts()
                .enable_resources()
                .build(),
        )
        .with_server_info(Implementation::new("rmcp-interop-server", "3.11"));
        // What `initialize` offers: the newest version with a handshake this server supports.
        if let Some(v) = self.versions.iter().rev().find(|v| v.has_initialize()) {
            info.protocol_version = v.clone();
        }
        info
    }

    fn supported_protocol_versions(&self) -> std::borrow::Cow<'static, [ProtocolVersion]> {
        std::borrow::Cow::Owned(self.versions.as_ref().clone())
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let all = tools();
        let start = match request.and_then(|r| r.cursor) {
            None => 0,
            Some(cursor) => cursor
                .parse::<usize>()
                .ok()
                .filter(|&start| start < all.len())
                .ok_or_else(|| ErrorData::invalid_params("unknown cursor", None))?,
        };
        let end = (start + PAGE).min(all.len());
        let mut page = ListToolsResult::with_all_items(all[start..end].to_vec());
        if end < all.len() {
            page.next_cursor = Some(end.to_string());
        }
        Ok(page)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let args = request.arguments.clone().unwrap_or_default();
        match request.name.as_ref() {
            "echo" => {
                let text = args
                    .get("text")
                    .and_then(Value::as_str)
                    .ok_or_else(|| ErrorData::invalid_params("text: a string is required", None))?;
                Ok(CallToolResult::success(vec![ContentBlock::text(text.to_string())]).into())
            }
            "add" => {
                let (Some(a), Some(b)) = (
                    args.get("a").and_then(Value::as_i64),
                    args.get("b").and_then(Value::as_i64),
                ) else {
                    return Err(ErrorData::invalid_params(
                        "a, b: integers are required",
                        None,
                    ));
                };
                Ok(CallToolResult::structured(json!({"sum": a + b})).into())
            }
            "fail" => {
                Ok(CallToolResult::error(vec![ContentBlock::text("failed on purpose")]).into())
            }
            "progress" => {
                let steps = args.get("steps").and_then(Value::as_u64).unwrap_or(3);
                if let Some(token) = context.meta.get_progress_token() {
                    for step in 1..=steps {
                        let note = ProgressNotificationParam::new(token.clone(), step as f64)
                            .with_total(steps as f64)
                            .with_message(format!("step {step}"));
                        context
                            .peer
                            .notify_progress(note)
                            .await
                            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
                    }
                }
                Ok(CallToolResult::success(vec![ContentBlock::text("done")]).into())
            }
            "ask" if is_stateless(&context) => {
                match request.input_responses.as_ref().and_then(|r| r.get("name")) {
                    Some(answer) if request.request_state.as_deref() == Some("asked") => {
                        greeting(answer)
                    }
                    _ => {
                        let mut requests = InputRequests::new();
                        requests.insert(
                            "name".into(),
                            InputRequest::Elicitation(ElicitRequest::new(elicitation())),
                        );
                        Ok(InputRequiredResult::new(Some(requests), Some("asked".into())).into())
                    }
                }
            }
            "ask" => {
                let answer = context
                    .peer
                    .send_request(ServerRequest::ElicitRequest(ElicitRequest::new(
                        elicitation(),
                    )))
                    .await
                    .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
                let ClientResult::ElicitResult(answer) = answer else {
                    return Err(ErrorData::internal_error("not an ElicitResult", None));
                };
                greeting(&serde_json::to_value(answer).unwrap_or_default())
            }
            _ => Err(ErrorData::invalid_params("tool not found", None)),
        }
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        Ok(ListPromptsResult::with_all_items(vec![Prompt::new(
            "greet",
            Some("A greeting for NAME."),
            Some(vec![PromptArgument::new("name").with_required(true)]),
        )]))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        if request.name != "greet" {
            return Err(ErrorData::invalid_params("prompt not found", None));
        }
        let name = request
            .arguments
            .as_ref()
            .and_then(|a| a.get("name"))
            .and_then(Value::as_str)
            .ok_or_else(|| ErrorData::invalid_params("name: required", None))?;
        Ok(GetPromptResult::new(vec![PromptMessage::new_text(
            Role::User,
            format!("Hello, {name}!"),
        )])
        .with_description("a greeting")
        .into())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Ok(ListResourcesResult::with_all_items(vec![Resource::new(
            "mem://readme",
            "readme",
        )
        .with_mime_type("text/plain")]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        if request.uri != "mem://readme" {
            return Err(ErrorData::resource_not_found(
                "resource not found",
                Some(json!({"uri": request.uri})),
            ));
        }
        Ok(ReadResourceResult::new(vec![ResourceContents::text(
            "served by rmcp",
            "mem://readme",
        )
        .with_mime_type("text/plain")])
        .into())
    }
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let (addr, rest) = mcp_bench::addr_and_rest();
    let flag = |name: &str| {
        rest.iter()
            .position(|a| a == name)
            .and_then(|i| rest.get(i + 1).cloned())
    };
    let http = flag("--http").unwrap_or_else(|| "sessions".into());
    let config = match http.as_str() {
        "sessions" => StreamableHttpServerConfig::default(),
        "stateless" => StreamableHttpServerConfig::default()
            .with_legacy_session_mode(false)
            .with_json_response(true),
        other => anyhow::bail!("--http sessions|stateless, not {other}"),
    };
    let versions = match flag("--max-version") {
        None => ProtocolVersion::KNOWN_VERSIONS.to_vec(),
        Some(max) => {
            let max: ProtocolVersion = serde_json::from_value(json!(max))?;
            ProtocolVersion::known_up_to(&max).to_vec()
        }
    };
    anyhow::ensure!(!versions.is_empty(), "--max-version leaves no version");
    let handler = Interop {
        versions: Arc::new(versions),
    };
    let service: StreamableHttpService<Interop, LocalSessionManager> =
        StreamableHttpService::new(move || Ok(handler.clone()), Default::default(), config);
    let listener = tokio::net::TcpListener::bind(addr).await?;
    eprintln!("rmcp-interop-server ({http}) listening on http://{addr}/mcp");
    loop {
        let (stream, _) = listener.accept().await?;
        let _ = stream.set_nodelay(true);
        let service = hyper_util::service::TowerToHyperService::new(service.clone());
        tokio::spawn(async move {
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                .await;
        });
    }
}
