//! The rmcp peer: the official Rust SDK's Streamable HTTP server with one `echo` tool that
//! returns one text block, written against rmcp's public API (a hand-written `ServerHandler`,
//! no macros), served by hyper directly (no axum) so only the MCP layer differs from ours.
//!
//! `--addr HOST:PORT --mode stateless|sessions`
//! - `stateless`: `legacy_session_mode = false`, `json_response = true` (rmcp's 2025
//!   stateless mode: no initialize needed, JSON answers).
//! - `sessions`: rmcp's defaults (`legacy_session_mode = true`): `initialize` creates a
//!   session, answers are SSE streams.
//!
//! TCP_NODELAY on accepted sockets.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler};

#[derive(Clone)]
struct Echo;

fn echo_tool() -> Tool {
    let schema = serde_json::json!({
        "type": "object",
        "properties": {"text": {"type": "string"}},
        "required": ["text"]
    });
    let serde_json::Value::Object(schema) = schema else {
        unreachable!()
    };
    Tool::new(
        "echo",
        "Return the text as one text content block.",
        Arc::new(schema),
    )
}

impl ServerHandler for Echo {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(vec![echo_tool()]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if request.name != "echo" {
            return Err(ErrorData::invalid_params("unknown tool", None));
        }
        let text = request
            .arguments
            .as_ref()
            .and_then(|args| args.get("text"))
            .and_then(|text| text.as_str())
            .ok_or_else(|| ErrorData::invalid_params("text: a string is required", None))?;
        Ok(CallToolResult::success(vec![ContentBlock::text(text.to_string())]).into())
    }
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let (addr, rest) = mcp_bench::addr_and_rest();
    let mode = match rest.iter().position(|a| a == "--mode") {
        Some(i) => rest.get(i + 1).cloned().unwrap_or_default(),
        None => "stateless".to_string(),
    };
    let config = match mode.as_str() {
        "stateless" => StreamableHttpServerConfig::default()
            .with_legacy_session_mode(false)
            .with_json_response(true),
        "sessions" => StreamableHttpServerConfig::default(),
        other => anyhow::bail!("--mode stateless|sessions, not {other}"),
    };
    let service: StreamableHttpService<Echo, LocalSessionManager> =
        StreamableHttpService::new(|| Ok(Echo), Default::default(), config);
    let listener = tokio::net::TcpListener::bind(addr).await?;
    eprintln!("rmcp-peer ({mode}) listening on http://{addr}/mcp");
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
