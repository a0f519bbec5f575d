//! What the operations tests share (middleware, audit records, rate limits): a small server
//! (`Shop`), a server of it on 127.0.0.1, raw HTTP requests in both eras, an API-key
//! authenticator naming the caller.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use mcp_runtime::auth::{bearer_token, Auth, Authenticator, Principal, Refusal, ResourceMetadata};
use mcp_runtime::dispatch::{Call, CallKind};
use mcp_runtime::mcp::{ContentBlock, ToolResult};
use mcp_runtime::middleware::{Answer, Middleware, Next};
use mcp_runtime::rate_limit::Rate;
use mcp_runtime::{
    BoxFuture, Catalog, Config, Contract, Descriptor, Dispatch, McpServer, RpcError,
};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{json, Value};
use tokio::net::TcpListener;

const ECHO: &str = r#"{"name":"echo","inputSchema":{"type":"object"}}"#;
const SLOW: &str = r#"{"name":"slow","inputSchema":{"type":"object"}}"#;
const BLOCKS: &str = r#"{"name":"blocks","inputSchema":{"type":"object"}}"#;
const ROOTS: &str = r#"{"name":"roots","inputSchema":{"type":"object"}}"#;
const GREET: &str = r#"{"name":"greet","arguments":[{"name":"who"}]}"#;
static CATALOG: Catalog = Catalog {
    tools: &[
        Descriptor {
            key: "echo",
            json: [ECHO; 4],
        },
        Descriptor {
            key: "slow",
            json: [SLOW; 4],
        },
        Descriptor {
            key: "blocks",
            json: [BLOCKS; 4],
        },
        Descriptor {
            key: "roots",
            json: [ROOTS; 4],
        },
    ],
    prompts: &[Descriptor {
        key: "greet",
        json: [GREET; 4],
    }],
    ..Catalog::empty("middleware-test", "1.0.0")
};

/// What the handlers saw, in order; shared with the middleware that records too.
pub type Log = Arc<Mutex<Vec<String>>>;

/// The server: `echo` answers its arguments, `slow` never answers, `blocks` answers content
/// blocks carrying `_meta`; the prompt `greet`.
pub struct Shop {
    pub log: Log,
    pub calls: Arc<AtomicUsize>,
}

impl Dispatch for Shop {
    fn contract(&self) -> &'static Contract {
        static CONTRACT: Contract = Contract::new(&CATALOG);
        &CONTRACT
    }

    fn call<'a>(&'a self, call: Call<'a>) -> Option<BoxFuture<'a, Answer>> {
        let name = call.name();
        let arguments = call
            .raw_arguments()
            .map_or("null", RawValue::get)
            .to_owned();
        match call.kind() {
            CallKind::Tool if ["echo", "slow", "blocks", "roots"].contains(&name) => {}
            CallKind::Prompt if name == "greet" => {
                let who: Value = serde_json::from_str(&arguments).unwrap();
                let greeting = format!("Hello, {}", who["who"]);
                let answer = mcp_runtime::dispatch::prompt_result(None, &greeting);
                return Some(Box::pin(std::future::ready(Answer::from_reply(answer))));
            }
            _ => return None,
        }
        let ctx = call.into_context();
        Some(Box::pin(async move {
            self.calls.fetch_add(1, Ordering::SeqCst);
            self.log
                .lock()
                .unwrap()
                .push(format!("handler {arguments}"));
            match name {
                "echo" => Answer::Success(RawValue::from_string(arguments).unwrap()),
                "slow" => std::future::pending().await,
                // Asks the client for its roots and answers their URIs.
                "roots" => match ctx.list_roots("roots").await {
                    Ok(roots) => Answer::from_result(Ok(roots
                        .roots
                        .iter()
                        .map(|root| root.uri.clone())
                        .collect::<Vec<_>>())),
                    Err(error) => Answer::Failed(error),
                },
                _ => Answer::Content(ToolResult {
                    content: vec![ContentBlock::TextContent {
                        meta: Some(
                            serde_json::from_value(json!({"com.example/unknown": {"n": 1}}))
                                .unwrap(),
                        ),
                        annotations: None,
                        text: "a block".into(),
                    }],
                    structured_content: Some(json!({"_meta": {"com.example/kept": true}})),
                    is_error: false,
                }),
            }
        }))
    }
}

/// The shop with a contract limit on `blocks` (as a generated server's `x-mcp.rateLimit`), and
/// `blocks`' plain JSON-RPC face: the contract's method `get_blocks`.
pub struct Limited(pub Shop);

/// As the generator writes it: `blocks` is 1 a minute, on `/mcp` and, under its method's
/// name, on the plain endpoint.
fn blocks_limit(method: &str, key: &str) -> Option<Rate> {
    matches!(
        (method, key),
        ("tools/call", "blocks") | ("jsonrpc", "get_blocks")
    )
    .then_some(Rate::new(1, 60_000))
}

impl Dispatch for Limited {
    /// The shop's contract, with the limit on `blocks`.
    fn contract(&self) -> &'static Contract {
        static CONTRACT: Contract = Contract::new(&CATALOG).with_rate_limits(&blocks_limit);
        &CONTRACT
    }

    fn call<'a>(&'a self, call: Call<'a>) -> Option<BoxFuture<'a, Answer>> {
        if call.kind() != CallKind::Method {
            return self.0.call(call);
        }
        (call.name() == "get_blocks").then(|| {
            Box::pin(async move {
                self.0.calls.fetch_add(1, Ordering::SeqCst);
                Answer::Success(RawValue::from_string("[]".into()).unwrap())
            }) as BoxFuture<'a, _>
        })
    }
}

/// A server on 127.0.0.1 for `dispatch`; its `/mcp` URL.
pub async fn serve(dispatch: impl Dispatch) -> String {
    serve_with(dispatch, Config::default()).await
}

/// A server on 127.0.0.1 for `dispatch` with `config`; its `/mcp` URL.
pub async fn serve_with(dispatch: impl Dispatch, config: Config) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(
        McpServer::builder(dispatch)
            .config(config)
            .build()
            .serve_listener(listener, std::future::pending::<()>()),
    );
    format!("http://{addr}/mcp")
}

/// One POST; status, headers and the JSON body (`null` when empty; an SSE body's first
/// `data:` line).
pub async fn post(
    url: &str,
    headers: &[(&str, &str)],
    body: Value,
) -> (u16, http::HeaderMap, Value) {
    post_raw(url, headers, &body.to_string()).await
}

/// One POST of `body` as written (member order and escapes are the test's); as [`post`].
pub async fn post_raw(
    url: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, http::HeaderMap, Value) {
    let client = Client::builder(TokioExecutor::new()).build_http::<Full<Bytes>>();
    let mut request = http::Request::post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let request = request
        .body(Full::new(Bytes::from(body.to_owned())))
        .unwrap();
    let response = client.request(request).await.unwrap();
    let (parts, body) = response.into_parts();
    let bytes = body.collect().await.unwrap().to_bytes();
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let json = if text.trim().is_empty() {
        Value::Null
    } else if let Some(data) = text.lines().find_map(|l| l.strip_prefix("data:")) {
        serde_json::from_str(data.trim()).unwrap_or_else(|_| panic!("{text}"))
    } else {
        serde_json::from_str(&text).unwrap_or_else(|_| panic!("{text}"))
    };
    (parts.status.as_u16(), parts.headers, json)
}

/// A 2025-11-25 session: its id.
pub async fn session(url: &str) -> String {
    session_at(url, "2025-11-25").await
}

/// A session at `version` (initialized): its id.
pub async fn session_at(url: &str, version: &str) -> String {
    let (status, headers, body) = post(
        url,
        &[],
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": version, "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"}}}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["result"]["protocolVersion"], version, "{body}");
    let id = headers["mcp-session-id"].to_str().unwrap().to_owned();
    post(
        url,
        &[("mcp-session-id", &id), ("mcp-protocol-version", version)],
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    )
    .await;
    id
}

/// Calls `tool` with `arguments` in the session `id`; the response body.
pub async fn call_in_session(url: &str, id: &str, tool: &str, arguments: Value) -> Value {
    let headers = [
        ("mcp-session-id", id),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                      "params": {"name": tool, "arguments": arguments}});
    post(url, &headers, body).await.2
}

/// Calls `tool` with `arguments` statelessly (2026-07-28); the response body.
pub async fn call_stateless(url: &str, tool: &str, arguments: Value) -> Value {
    call_stateless_with(url, tool, arguments, json!({})).await
}

/// [`call_stateless`] from a client declaring `capabilities`.
pub async fn call_stateless_with(
    url: &str,
    tool: &str,
    arguments: Value,
    capabilities: Value,
) -> Value {
    let headers = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", tool),
    ];
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": tool, "arguments": arguments, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": capabilities}}});
    post(url, &headers, body).await.2
}

pub fn shop() -> (Shop, Log, Arc<AtomicUsize>) {
    let log = Log::default();
    let calls = Arc::new(AtomicUsize::new(0));
    let shop = Shop {
        log: log.clone(),
        calls: calls.clone(),
    };
    (shop, log, calls)
}

/// `Authorization: Bearer <name>` authenticates as the subject `<name>`.
pub struct Names;

impl Authenticator for Names {
    fn authenticate<'a>(
        &'a self,
        request: &'a http::request::Parts,
    ) -> BoxFuture<'a, Result<Principal, Refusal>> {
        Box::pin(async move {
            match bearer_token(&request.headers)? {
                Some(name) => Ok(Principal::new(name, vec![])),
                None => Err(Refusal::Missing),
            }
        })
    }
}

/// Authorization by [`Names`].
pub fn names() -> Auth {
    let metadata = ResourceMetadata::new("http://localhost/mcp", vec![]).unwrap();
    Auth::new(metadata, Names)
}

/// Refuses `echo` when its `secret` argument is set, with a JSON-RPC error.
pub struct Policy;

#[derive(Deserialize)]
struct MaybeSecret {
    #[serde(default)]
    secret: bool,
}

impl Middleware for Policy {
    fn call<'a>(&'a self, call: Call<'a>, next: Next<'a>) -> BoxFuture<'a, Answer> {
        Box::pin(async move {
            if call.arguments::<MaybeSecret>().is_ok_and(|a| a.secret) {
                return Answer::Refused(
                    RpcError::new(-32001, "secrets are refused")
                        .with_data(json!({"why": "policy"})),
                );
            }
            next.run(call).await
        })
    }
}
