//! The rmcp proxy: what a Rust engineer writes today to put an MCP face on a JSON-RPC service,
//! the peer of our generated gateway. The official Rust SDK's Streamable HTTP server (a
//! hand-written `ServerHandler`, served by hyper as `rmcp-peer` is) with one `echo` tool whose
//! body forwards the arguments to the upstream with a shared `reqwest::Client` (its keep-alive
//! pool; reqwest is already in the lock as rmcp's own HTTP client) and returns the result as
//! one text block: the string itself for a string result, its JSON otherwise. An upstream
//! JSON-RPC error or a transport failure is an `isError` result.
//!
//! `--addr HOST:PORT --upstream URL [--mode stateless|sessions]` (modes as in `rmcp-peer`;
//! default `stateless`, rmcp's 2025 stateless mode with JSON answers).
//!
//! TCP_NODELAY on accepted sockets (reqwest sets it on its own connections).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde::Deserialize;
use serde_json::{json, Value};

#[derive(Clone)]
struct Proxy {
    client: reqwest::Client,
    upstream: Arc<str>,
    next_id: Arc<AtomicU64>,
}

#[derive(Deserialize)]
struct RpcResponse {
    #[serde(default)]
    result: Option<Value>,
    #[serde(default)]
    error: Option<RpcError>,
}

#[derive(Deserialize)]
struct RpcError {
    code: i64,
    message: String,
}

fn echo_tool() -> Tool {
    let schema = json!({
        "type": "object",
        "properties": {"text": {"type": "string"}},
        "required": ["text"]
    });
    let Value::Object(schema) = schema else {
        unreachable!()
    };
    Tool::new("echo", "Return the text.", Arc::new(schema))
}

fn failed(message: String) -> CallToolResponse {
    CallToolResult::error(vec![ContentBlock::text(message)]).into()
}

impl Proxy {
    /// Calls `method` on the upstream with `params`.
    async fn call(&self, method: &str, params: Value) -> Result<RpcResponse, reqwest::Error> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        self.client
            .post(&*self.upstream)
            .json(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .send()
            .await?
            .error_for_status()?
            .json()
            .await
    }
}

impl ServerHandler for Proxy {
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
        let arguments = request.arguments.unwrap_or_default();
        if !arguments.get("text").is_some_and(Value::is_string) {
            return Err(ErrorData::invalid_params(
                "text: a string is required",
                None,
            ));
        }
        let response = match self.call("echo", Value::Object(arguments)).await {
            Ok(response) => response,
            Err(error) => return Ok(failed(format!("upstream: {error}"))),
        };
        match (response.result, response.error) {
            (_, Some(error)) => Ok(failed(format!(
                "upstream error {}: {}",
                error.code, error.message
            ))),
            (Some(Value::String(text)), None) => {
                Ok(CallToolResult::success(vec![ContentBlock::text(text)]).into())
            }
            (Some(value), None) => {
                Ok(CallToolResult::success(vec![ContentBlock::text(value.to_string())]).into())
            }
            (None, None) => Ok(failed("upstream: no result".into())),
        }
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
    let mode = flag("--mode").unwrap_or_else(|| "stateless".into());
    let upstream = flag("--upstream").ok_or_else(|| anyhow::anyhow!("--upstream URL"))?;
    let config = match mode.as_str() {
        "stateless" => StreamableHttpServerConfig::default()
            .with_legacy_session_mode(false)
            .with_json_response(true),
        "sessions" => StreamableHttpServerConfig::default(),
        other => anyhow::bail!("--mode stateless|sessions, not {other}"),
    };
    let proxy = Proxy {
        client: reqwest::Client::new(),
        upstream: upstream.into(),
        next_id: Arc::new(AtomicU64::new(1)),
    };
    let service: StreamableHttpService<Proxy, LocalSessionManager> =
        StreamableHttpService::new(move || Ok(proxy.clone()), Default::default(), config);
    let listener = tokio::net::TcpListener::bind(addr).await?;
    eprintln!("rmcp-proxy ({mode}) listening on http://{addr}/mcp");
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
