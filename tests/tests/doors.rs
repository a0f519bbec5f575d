//! Every door makes the same decision: the same call, sent through every way a call can enter
//! the server, by several principals, gets the same outcome (allowed; 403 naming the same
//! scope set; 429; not found), because the policy is decided on the target that actually
//! runs (`mcp_runtime`'s `policy` module).
//!
//! The contract (`fixtures/doors.openrpc.json`, a bank) has a scoped tool with a rate limit
//! (`get_balance`: `bank:read`, 2/min), a tool with a step-up policy (`transfer`: `bank:write`,
//! and `bank:large` above 100), a tool `hideUnauthorized` hides (`audit_log`: `bank:admin`), a
//! method MCP does not expose (`admin_export_keys`, no `x-mcp`) and a rate-limited resource
//! template (`bank://statements/{month}`, `bank:read`, 2/min: one bucket for every month).
//!
//! Doors ([`Door::ALL`]): `/mcp` in a 2025-11-25 session, `/mcp` stateless 2026-07-28 (and
//! as a task: a client declaring the tasks extension, each tool continuing as one), a
//! 2025-03-26 batch, the plain JSON-RPC endpoint by name and by position, the catalog's
//! `call_tool` (`--tool-mode catalog`), stdio and the 2024-11-05 HTTP+SSE transport (which
//! authenticate no one: what a scope refuses elsewhere runs there, everything else is the
//! same; a server with authorization does not serve the 2024-11-05 transport at all). Every body is raw bytes with
//! `params` before `method`, and the tool names escaped (`get\u005fbalance`). Subscribing to a
//! resource (`resources/subscribe`, a `subscriptions/listen` stream naming it) is decided as
//! its read at every door that subscribes with authentication.

mod support;

use http::StatusCode;
use serde_json::Value;
use std::collections::BTreeSet;
use std::net::SocketAddr;
use tokio::net::TcpListener;
use tokio::sync::oneshot;

use mcp_runtime::auth::{Auth, Authenticator, Principal, Refusal, ResourceMetadata, StepUpRequest};
use mcp_runtime::tool_catalog::{ToolCatalog, ToolMode};
use mcp_runtime::{BoxFuture, Config, Dispatch, Error, McpServer, RequestContext};
use support::{send_to, POST_HEADERS};
use workspace_tests::doors_server::{types, Handler, Server};

/// The bank: every call answers; the policy alone refuses.
#[derive(Debug, Default, Clone)]
struct Bank;

impl Handler for Bank {
    // Each tool continues as a task when its client declared the extension ([`Door::Task`]).
    async fn get_balance(
        &self,
        ctx: &RequestContext,
        _: types::GetBalanceParams,
    ) -> Result<i64, Error> {
        ctx.start_task();
        Ok(42)
    }

    async fn transfer(
        &self,
        ctx: &RequestContext,
        params: types::TransferParams,
    ) -> Result<String, Error> {
        ctx.start_task();
        Ok(format!("sent {} to {}", params.amount, params.to))
    }

    async fn audit_log(&self, ctx: &RequestContext) -> Result<String, Error> {
        ctx.start_task();
        Ok("log".into())
    }

    async fn admin_export_keys(&self, _: &RequestContext) -> Result<String, Error> {
        Ok("the keys".into())
    }

    async fn statement(
        &self,
        ctx: &RequestContext,
        params: types::StatementParams,
    ) -> Result<String, Error> {
        LAST_DOOR.set(Some(ctx.door()));
        Ok(format!("statement of {}", params.month))
    }
}

thread_local! {
    /// The door of the last statement read on this thread (each test's runtime runs its
    /// servers on its own thread).
    static LAST_DOOR: std::cell::Cell<Option<mcp_runtime::dispatch::Door>> =
        const { std::cell::Cell::new(None) };
}

/// Bearer tokens named after what they may do.
struct Tokens;

impl Authenticator for Tokens {
    fn authenticate<'a>(
        &'a self,
        request: &'a http::request::Parts,
    ) -> BoxFuture<'a, Result<Principal, Refusal>> {
        Box::pin(async move {
            let token = mcp_runtime::auth::bearer_token(&request.headers)?;
            let scopes: &[&str] = match token {
                Some("nobody") => &[],
                Some("read") => &["bank:read"],
                Some("write") => &["bank:read", "bank:write"],
                Some("large") => &["bank:read", "bank:write", "bank:large"],
                Some("admin") => &["bank:read", "bank:admin"],
                Some(_) => return Err(Refusal::invalid_token("unknown token")),
                None => return Err(Refusal::Missing),
            };
            let scopes = scopes.iter().map(|s| s.to_string()).collect();
            Ok(Principal::new(token.unwrap_or_default(), scopes))
        })
    }
}

/// A transfer above 100 needs `bank:large`.
fn large_transfers(request: &StepUpRequest<'_>) -> Vec<String> {
    let amount = request
        .arguments
        .and_then(|a| serde_json::from_str::<Value>(a.get()).ok())
        .and_then(|a| a["amount"].as_i64())
        .unwrap_or(0);
    if request.method == "tools/call" && request.target == "transfer" && amount > 100 {
        vec!["bank:large".into()]
    } else {
        Vec::new()
    }
}

fn config() -> Config {
    let metadata =
        ResourceMetadata::new("http://127.0.0.1/mcp", vec!["https://as.example".into()]).unwrap();
    let auth = Auth::new(metadata, Tokens).step_up(large_transfers);
    Config::builder()
        .auth(Some(auth))
        .jsonrpc_path(Some("/jsonrpc".into()))
        .build()
}

/// The ways a call enters the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Door {
    /// `/mcp` in a 2025-11-25 session.
    Session,
    /// `/mcp`, a stateless 2026-07-28 request.
    Stateless,
    /// `/mcp`, a stateless 2026-07-28 request of a client declaring the tasks extension: a
    /// tool call continues as a task (its answer a `CreateTaskResult`).
    Task,
    /// `/mcp`, a 2025-03-26 batch holding the call.
    Batch,
    /// The plain JSON-RPC endpoint, params by name.
    PlainByName,
    /// The plain JSON-RPC endpoint, params by position.
    PlainByPosition,
    /// The catalog's `call_tool` in a 2025-11-25 session (`--tool-mode catalog`).
    Catalog,
    /// stdio: no authentication.
    Stdio,
    /// The 2024-11-05 HTTP+SSE transport (`--legacy-sse`): no authentication (a server with
    /// authorization does not serve it).
    LegacySse,
}

impl Door {
    const ALL: [Door; 9] = [
        Door::Session,
        Door::Stateless,
        Door::Task,
        Door::Batch,
        Door::PlainByName,
        Door::PlainByPosition,
        Door::Catalog,
        Door::Stdio,
        Door::LegacySse,
    ];

    /// The runtime's door this one comes through: every door of the runtime is some row's
    /// ([`every_door_of_the_runtime_is_in_the_table`]).
    fn runtime_door(self) -> mcp_runtime::dispatch::Door {
        use mcp_runtime::dispatch::Door as Runtime;
        match self {
            Door::Session | Door::Stateless | Door::Task | Door::Batch | Door::Catalog => {
                Runtime::Mcp
            }
            Door::PlainByName | Door::PlainByPosition => Runtime::Jsonrpc,
            Door::Stdio => Runtime::Stdio,
            Door::LegacySse => Runtime::LegacySse,
        }
    }

    /// Whether the door authenticates: one that does not runs what a scope refuses elsewhere.
    fn authenticates(self) -> bool {
        !matches!(self, Door::Stdio | Door::LegacySse)
    }
}

/// What a call reaches: a tool with its arguments, or a resource of the template.
#[derive(Debug, Clone, Copy)]
enum Call {
    /// The tool (the contract method of the same name) with its arguments: `(name, raw JSON)`
    /// pairs in declaration order.
    Tool(&'static str, &'static [(&'static str, &'static str)]),
    /// `bank://statements/{month}`.
    Statement(&'static str),
}

/// What came back, whatever the door's framing.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Outcome {
    Allowed,
    /// 403 naming these scopes.
    Forbidden(BTreeSet<String>),
    RateLimited,
    NotFound,
    /// Anything else: the test fails with it.
    Other(String),
}

fn forbidden(scopes: &[&str]) -> Outcome {
    Outcome::Forbidden(scopes.iter().map(|s| s.to_string()).collect())
}

/// The escaped spelling of a name: `get_balance` as `get\u005fbalance`.
fn escaped(name: &str) -> String {
    name.replace('_', "\\u005f")
}

/// `{"a":1,"b":"x"}` of `arguments`.
fn object(arguments: &[(&str, &str)]) -> String {
    let members: Vec<String> = arguments
        .iter()
        .map(|(name, value)| format!("\"{name}\":{value}"))
        .collect();
    format!("{{{}}}", members.join(","))
}

/// The MCP request of `call` (id 7), `params` first: `tools/call` (through `call_tool` at the
/// catalog) or `resources/read`, with `meta` inside the params when given.
fn mcp_request(call: Call, catalog: bool, meta: &str) -> (String, &'static str, String) {
    match call {
        Call::Tool(name, arguments) => {
            let arguments = object(arguments);
            let params = if catalog {
                format!(
                    r#"{{{meta}"arguments":{{"arguments":{arguments},"name":"{}"}},"name":"call\u005ftool"}}"#,
                    escaped(name)
                )
            } else {
                format!(
                    r#"{{{meta}"arguments":{arguments},"name":"{}"}}"#,
                    escaped(name)
                )
            };
            let name = if catalog { "call_tool" } else { name };
            (params, "tools/call", name.to_string())
        }
        Call::Statement(month) => {
            let uri = format!("bank://statements/{month}");
            (format!(r#"{{{meta}"uri":"{uri}"}}"#), "resources/read", uri)
        }
    }
}

/// The plain JSON-RPC request of `call`, params by name or by position.
fn plain_request(call: Call, by_position: bool) -> String {
    let (method, arguments): (&str, Vec<(&str, String)>) = match call {
        Call::Tool(name, arguments) => (
            name,
            arguments.iter().map(|(n, v)| (*n, v.to_string())).collect(),
        ),
        Call::Statement(month) => ("statement", vec![("month", format!("\"{month}\""))]),
    };
    let params = if by_position {
        let values: Vec<&str> = arguments.iter().map(|(_, v)| v.as_str()).collect();
        format!("[{}]", values.join(","))
    } else {
        let members: Vec<String> = arguments
            .iter()
            .map(|(n, v)| format!("\"{n}\":{v}"))
            .collect();
        format!("{{{}}}", members.join(","))
    };
    // A contract method's name is read without escapes (an escaped one is -32601, whatever
    // it names: `plain_names_with_escapes_are_not_served`).
    format!(r#"{{"params":{params},"id":7,"method":"{method}","jsonrpc":"2.0"}}"#)
}

/// The outcome of an HTTP answer.
async fn http_outcome(reply: support::Reply) -> Outcome {
    let status = reply.status;
    let challenge = reply.header("www-authenticate").map(str::to_owned);
    let text = reply.text().await;
    outcome_of(status, challenge, text)
}

/// The outcome of a tool call that continues as a task when allowed: a `CreateTaskResult`
/// (`resultType: "task"`) is allowed, any other result is not what the door should answer.
async fn task_outcome(reply: support::Reply) -> Outcome {
    let status = reply.status;
    let challenge = reply.header("www-authenticate").map(str::to_owned);
    let text = reply.text().await;
    let json = text
        .lines()
        .find_map(|line| line.strip_prefix("data: "))
        .unwrap_or(&text);
    match serde_json::from_str::<Value>(json)
        .ok()
        .and_then(|answer| answer.get("result").cloned())
    {
        Some(result) if status == StatusCode::OK && result["resultType"] == "task" => {
            Outcome::Allowed
        }
        Some(result) if status == StatusCode::OK => Outcome::Other(format!("not a task: {result}")),
        _ => outcome_of(status, challenge, text),
    }
}

/// The outcome of a reply of `status` with the `challenge` header and body `text`.
fn outcome_of(status: StatusCode, challenge: Option<String>, text: String) -> Outcome {
    match status {
        StatusCode::FORBIDDEN => {
            let challenge = challenge.unwrap_or_default();
            let scope = challenge
                .split("scope=\"")
                .nth(1)
                .and_then(|rest| rest.split('"').next())
                .unwrap_or("");
            Outcome::Forbidden(scope.split_whitespace().map(str::to_owned).collect())
        }
        StatusCode::TOO_MANY_REQUESTS => Outcome::RateLimited,
        StatusCode::OK => {
            // JSON, or one SSE event holding it.
            let json = text
                .lines()
                .find_map(|line| line.strip_prefix("data: "))
                .unwrap_or(&text);
            match serde_json::from_str::<Value>(json) {
                Ok(Value::Array(mut answers)) if answers.len() == 1 => {
                    message_outcome(&answers.remove(0))
                }
                Ok(answer) => message_outcome(&answer),
                Err(_) => Outcome::Other(text),
            }
        }
        other => Outcome::Other(format!("{other}: {text}")),
    }
}

/// The outcome of one JSON-RPC answer.
fn message_outcome(answer: &Value) -> Outcome {
    if let Some(error) = answer.get("error") {
        let message = error["message"].as_str().unwrap_or("");
        return match error["code"].as_i64() {
            Some(-32601) => Outcome::NotFound,
            Some(-32602 | -32002)
                if message.contains("Unknown") || message.contains("not found") =>
            {
                Outcome::NotFound
            }
            Some(code) if code == i64::from(mcp_runtime::RpcError::RATE_LIMITED) => {
                Outcome::RateLimited
            }
            _ => Outcome::Other(answer.to_string()),
        };
    }
    let result = &answer["result"];
    if result["isError"] == Value::Bool(true) {
        let text = result["content"][0]["text"].as_str().unwrap_or("");
        if text.starts_with("no tool") || text.contains("Unknown tool") {
            return Outcome::NotFound;
        }
        return Outcome::Other(answer.to_string());
    }
    match answer.get("result") {
        Some(_) => Outcome::Allowed,
        None => Outcome::Other(answer.to_string()),
    }
}

/// A server of `dispatch` on 127.0.0.1 until the sender is dropped.
async fn serve<D: Dispatch>(dispatch: D) -> (SocketAddr, oneshot::Sender<()>) {
    serve_with(dispatch, config()).await
}

/// A server of `dispatch` with `config` on 127.0.0.1 until the sender is dropped.
async fn serve_with<D: Dispatch>(dispatch: D, config: Config) -> (SocketAddr, oneshot::Sender<()>) {
    let server = McpServer::builder(dispatch).config(config).build();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = oneshot::channel::<()>();
    tokio::spawn(async move {
        let _ = server
            .serve_listener(listener, async {
                let _ = stopped.await;
            })
            .await;
    });
    (addr, stop)
}

/// Headers of a POST by `token` (none when empty).
fn headers<'a>(token: &'a str, extra: &[(&'a str, &'a str)]) -> Vec<(&'a str, String)> {
    let mut headers: Vec<(&str, String)> = POST_HEADERS
        .iter()
        .map(|(n, v)| (*n, v.to_string()))
        .collect();
    if !token.is_empty() {
        headers.push(("authorization", format!("Bearer {token}")));
    }
    headers.extend(extra.iter().map(|(n, v)| (*n, v.to_string())));
    headers
}

async fn post(
    addr: SocketAddr,
    path: &str,
    headers: &[(&str, String)],
    body: &str,
) -> support::Reply {
    let headers: Vec<(&str, &str)> = headers.iter().map(|(n, v)| (*n, v.as_str())).collect();
    send_to(addr, path, "POST", &headers, body).await
}

/// A session at `version` opened by `token`: its id.
async fn session(addr: SocketAddr, token: &str, version: &str) -> String {
    let init = format!(
        r#"{{"params":{{"protocolVersion":"{version}","capabilities":{{}},"clientInfo":{{"name":"doors","version":"1"}}}},"jsonrpc":"2.0","id":1,"method":"initialize"}}"#
    );
    let reply = post(addr, "/mcp", &headers(token, &[]), &init).await;
    assert_eq!(reply.status, StatusCode::OK, "initialize by {token}");
    let id = reply.header("mcp-session-id").unwrap().to_owned();
    let _ = reply.text().await;
    let extra = [
        ("mcp-session-id", id.as_str()),
        ("mcp-protocol-version", version),
    ];
    let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    let reply = post(addr, "/mcp", &headers(token, &extra), initialized).await;
    assert_eq!(reply.status, StatusCode::ACCEPTED);
    id
}

/// Sends `call` by `token` through `door` `times` times: the last outcome.
async fn through(door: Door, call: Call, token: &str, times: usize) -> Outcome {
    match door {
        Door::Stdio => return stdio(&[call].repeat(times)).await,
        Door::LegacySse => return legacy_sse(&[call].repeat(times)).await,
        _ => {}
    }
    let (addr, _stop) = serve_for(door).await;
    let id = open(door, addr, token).await;
    let mut outcome = Outcome::Other("not sent".into());
    for _ in 0..times {
        outcome = send(door, addr, &id, token, call).await;
    }
    outcome
}

/// The server `door` reaches (the catalog's for [`Door::Catalog`]).
async fn serve_for(door: Door) -> (SocketAddr, oneshot::Sender<()>) {
    match door {
        Door::Catalog => serve(ToolCatalog::new(Server::new(Bank), ToolMode::Catalog)).await,
        _ => serve(Server::new(Bank)).await,
    }
}

/// The protocol revision of a session door.
fn version(door: Door) -> &'static str {
    match door {
        Door::Batch => "2025-03-26",
        _ => "2025-11-25",
    }
}

/// The session `door` needs, opened by `token` (empty for a door without sessions).
async fn open(door: Door, addr: SocketAddr, token: &str) -> String {
    match door {
        Door::Session | Door::Batch | Door::Catalog => session(addr, token, version(door)).await,
        _ => String::new(),
    }
}

/// Sends `call` once by `token` through the HTTP `door` (in session `id`, if it has one).
async fn send(door: Door, addr: SocketAddr, id: &str, token: &str, call: Call) -> Outcome {
    let catalog = door == Door::Catalog && matches!(call, Call::Tool(..));
    let reply = match door {
        Door::Session | Door::Batch | Door::Catalog => {
            let (params, method, _) = mcp_request(call, catalog, "");
            let mut body =
                format!(r#"{{"params":{params},"id":7,"method":"{method}","jsonrpc":"2.0"}}"#);
            if door == Door::Batch {
                body = format!("[{body}]");
            }
            let extra = [
                ("mcp-session-id", id),
                ("mcp-protocol-version", version(door)),
            ];
            post(addr, "/mcp", &headers(token, &extra), &body).await
        }
        Door::Stateless | Door::Task => {
            let capabilities = match door {
                Door::Task => r#"{"extensions":{"io.modelcontextprotocol/tasks":{}}}"#,
                _ => "{}",
            };
            let meta = format!(
                r#""_meta":{{"io.modelcontextprotocol/clientCapabilities":{capabilities},"io.modelcontextprotocol/protocolVersion":"2026-07-28"}},"#
            );
            let meta = meta.as_str();
            let (params, method, name) = mcp_request(call, false, meta);
            let body =
                format!(r#"{{"params":{params},"id":7,"method":"{method}","jsonrpc":"2.0"}}"#);
            let extra = [
                ("mcp-protocol-version", "2026-07-28"),
                ("mcp-method", method),
                ("mcp-name", name.as_str()),
            ];
            let reply = post(addr, "/mcp", &headers(token, &extra), &body).await;
            if door == Door::Task && matches!(call, Call::Tool(..)) {
                return task_outcome(reply).await;
            }
            reply
        }
        Door::PlainByName | Door::PlainByPosition => {
            let body = plain_request(call, door == Door::PlainByPosition);
            post(addr, "/jsonrpc", &headers(token, &[]), &body).await
        }
        Door::Stdio | Door::LegacySse => unreachable!("{door:?} has its own client"),
    };
    http_outcome(reply).await
}

/// `calls` in order over stdio (a 2025-11-25 session, no authentication): the last outcome.
async fn stdio(calls: &[Call]) -> Outcome {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
    let server = McpServer::builder(Server::new(Bank))
        .config(Config::default())
        .build();
    let (client, server_end) = tokio::io::duplex(1 << 16);
    let (server_read, server_write) = tokio::io::split(server_end);
    tokio::spawn(mcp_runtime::stdio::serve_io(
        server,
        server_read,
        server_write,
    ));
    let (read, mut write) = tokio::io::split(client);
    let mut lines = tokio::io::BufReader::new(read).lines();
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"doors","version":"1"}}}"#;
    let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    write
        .write_all(format!("{init}\n").as_bytes())
        .await
        .unwrap();
    lines.next_line().await.unwrap().unwrap();
    write
        .write_all(format!("{initialized}\n").as_bytes())
        .await
        .unwrap();
    let mut outcome = Outcome::Other("not sent".into());
    for call in calls {
        let (params, method, _) = mcp_request(*call, false, "");
        let body = format!(r#"{{"params":{params},"id":7,"method":"{method}","jsonrpc":"2.0"}}"#);
        write
            .write_all(format!("{body}\n").as_bytes())
            .await
            .unwrap();
        let line = lines.next_line().await.unwrap().unwrap();
        outcome = message_outcome(&serde_json::from_str(&line).unwrap());
    }
    outcome
}

/// `calls` in order over the 2024-11-05 HTTP+SSE transport (a server with it on and no
/// authorization): the last outcome. A call over a limit is the POST's 429.
async fn legacy_sse(calls: &[Call]) -> Outcome {
    use std::time::Duration;
    let wait = Duration::from_secs(10);
    let mut config = Config::default();
    config.endpoints.legacy_sse = true;
    let (addr, _stop) = serve_with(Server::new(Bank), config).await;
    let accept = [("accept", "text/event-stream")];
    let mut stream = support::sse::SseStream::open_at(addr, "/sse", "GET", &accept, "").await;
    let block = stream.next_block(wait).await.expect("the endpoint event");
    let endpoint = block
        .strip_prefix("event: endpoint\ndata: ")
        .and_then(|rest| rest.strip_suffix("\n\n"))
        .expect("an endpoint event")
        .to_string();
    let post = |body: String| {
        let endpoint = endpoint.clone();
        async move {
            let json = [("content-type", "application/json")];
            send_to(addr, &endpoint, "POST", &json, &body).await.status
        }
    };
    let init = r#"{"params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"doors","version":"1"}},"jsonrpc":"2.0","id":1,"method":"initialize"}"#;
    assert_eq!(post(init.to_string()).await, StatusCode::ACCEPTED);
    stream.next_message(wait).await;
    let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    assert_eq!(post(initialized.to_string()).await, StatusCode::ACCEPTED);
    let mut outcome = Outcome::Other("not sent".into());
    for call in calls {
        let (params, method, _) = mcp_request(*call, false, "");
        let body = format!(r#"{{"params":{params},"id":7,"method":"{method}","jsonrpc":"2.0"}}"#);
        outcome = match post(body).await {
            StatusCode::ACCEPTED => message_outcome(&stream.next_message(wait).await),
            StatusCode::TOO_MANY_REQUESTS => {
                stream.next_message(wait).await;
                Outcome::RateLimited
            }
            other => Outcome::Other(other.to_string()),
        };
    }
    outcome
}

/// One row: a call, who makes it, how many times, and what every door answers the last time.
struct Row {
    call: Call,
    token: &'static str,
    times: usize,
    expected: Outcome,
}

fn rows() -> Vec<Row> {
    let row = |call, token, times, expected| Row {
        call,
        token,
        times,
        expected,
    };
    let balance = Call::Tool("get_balance", &[("account", "\"alice\"")]);
    let small = Call::Tool("transfer", &[("to", "\"bob\""), ("amount", "5")]);
    let large = Call::Tool("transfer", &[("to", "\"bob\""), ("amount", "500")]);
    let audit_log = Call::Tool("audit_log", &[]);
    let keys = Call::Tool("admin_export_keys", &[]);
    vec![
        row(balance, "read", 1, Outcome::Allowed),
        row(balance, "nobody", 1, forbidden(&["bank:read"])),
        row(balance, "read", 3, Outcome::RateLimited),
        row(small, "write", 1, Outcome::Allowed),
        row(small, "read", 1, forbidden(&["bank:write"])),
        row(large, "write", 1, forbidden(&["bank:write", "bank:large"])),
        row(large, "large", 1, Outcome::Allowed),
        row(audit_log, "read", 1, forbidden(&["bank:admin"])),
        row(audit_log, "admin", 1, Outcome::Allowed),
        row(keys, "admin", 1, Outcome::NotFound),
        row(Call::Statement("2026-01"), "read", 1, Outcome::Allowed),
        row(
            Call::Statement("2026-01"),
            "nobody",
            1,
            forbidden(&["bank:read"]),
        ),
    ]
}

#[tokio::test]
async fn every_door_makes_the_same_decision() {
    let mut failures = Vec::new();
    for door in Door::ALL {
        for row in rows() {
            // stdio and the 2024-11-05 transport authenticate no one: what a scope refuses
            // elsewhere runs there.
            let expected = match &row.expected {
                Outcome::Forbidden(_) if !door.authenticates() => Outcome::Allowed,
                expected => expected.clone(),
            };
            let outcome = through(door, row.call, row.token, row.times).await;
            if outcome != expected {
                failures.push(format!(
                    "{door:?} {:?} by {} x{}: expected {expected:?}, got {outcome:?}",
                    row.call, row.token, row.times
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The table covers every door of the runtime (a door added to `mcp_runtime::dispatch::Door`
/// fails here until a row goes through it), and each row's call does come through the
/// runtime's door it claims: the handler sees it in its context.
#[tokio::test]
async fn every_door_of_the_runtime_is_in_the_table() {
    let covered: BTreeSet<_> = Door::ALL.iter().map(|door| door.runtime_door()).collect();
    let runtime: BTreeSet<_> = mcp_runtime::dispatch::Door::ALL.into_iter().collect();
    assert_eq!(
        covered, runtime,
        "a door of the runtime that no row goes through"
    );
    for door in Door::ALL {
        LAST_DOOR.set(None);
        let outcome = through(door, Call::Statement("2026-01"), "read", 1).await;
        assert_eq!(outcome, Outcome::Allowed, "{door:?}");
        assert_eq!(LAST_DOOR.get(), Some(door.runtime_door()), "{door:?}");
    }
}

/// A template's limit is one bucket, whatever the variables, on every door.
#[tokio::test]
async fn a_templates_rate_limit_is_not_escaped_by_changing_a_variable() {
    let months = ["2026-01", "2026-02", "2026-03"].map(Call::Statement);
    for door in Door::ALL {
        let outcome = if door == Door::Stdio {
            stdio(&months).await
        } else if door == Door::LegacySse {
            legacy_sse(&months).await
        } else {
            let (addr, _stop) = serve_for(door).await;
            let id = open(door, addr, "read").await;
            let mut outcome = Outcome::Other("not sent".into());
            for call in months {
                outcome = send(door, addr, &id, "read", call).await;
            }
            outcome
        };
        assert_eq!(outcome, Outcome::RateLimited, "{door:?}");
    }
}

/// A contract method's name written with escapes is not looked up (the reader knows only the
/// protocol's own names that way): `-32601`, whatever it names, exposed or not.
#[tokio::test]
async fn plain_names_with_escapes_are_not_served() {
    let (addr, _stop) = serve(Server::new(Bank)).await;
    for name in ["get\\u005fbalance", "admin\\u005fexport\\u005fkeys"] {
        let body = format!(r#"{{"params":{{}},"id":7,"method":"{name}","jsonrpc":"2.0"}}"#);
        let reply = post(addr, "/jsonrpc", &headers("admin", &[]), &body).await;
        assert_eq!(http_outcome(reply).await, Outcome::NotFound, "{name}");
    }
}

/// With `--jsonrpc-unexposed` the plain endpoint serves a method MCP does not expose too (with
/// the document's default scopes: none here); MCP still does not.
#[tokio::test]
async fn unexposed_methods_are_served_only_when_asked() {
    let mut config = config();
    config.endpoints.jsonrpc_unexposed = true;
    let (addr, _stop) = serve_with(Server::new(Bank), config).await;
    let keys = Call::Tool("admin_export_keys", &[]);
    let reply = post(
        addr,
        "/jsonrpc",
        &headers("nobody", &[]),
        &plain_request(keys, false),
    )
    .await;
    assert_eq!(http_outcome(reply).await, Outcome::Allowed);
    let id = session(addr, "admin", "2025-11-25").await;
    assert_eq!(
        send(Door::Session, addr, &id, "admin", keys).await,
        Outcome::NotFound
    );
}

/// The catalog's search and describe show only what the caller may call, as `tools/list`
/// does; `rpc.discover` lists only what MCP exposes.
#[tokio::test]
async fn what_a_caller_sees_is_what_it_may_call() {
    let (addr, _stop) = serve(ToolCatalog::new(Server::new(Bank), ToolMode::Catalog)).await;
    let id = session(addr, "read", "2025-11-25").await;
    let extra = [
        ("mcp-session-id", id.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    let call = |name: &str, arguments: &str| {
        format!(
            r#"{{"params":{{"arguments":{arguments},"name":"{name}"}},"id":7,"method":"tools/call","jsonrpc":"2.0"}}"#
        )
    };
    let search = post(
        addr,
        "/mcp",
        &headers("read", &extra),
        &call("search_tools", r#"{"query":""}"#),
    )
    .await;
    let text = search.text().await;
    assert!(
        text.contains("get_balance") && !text.contains("audit_log"),
        "{text}"
    );
    // `audit_log` is described to a caller who may call it only.
    for (token, expected) in [("read", Outcome::NotFound), ("admin", Outcome::Allowed)] {
        let id = session(addr, token, "2025-11-25").await;
        let extra = [
            ("mcp-session-id", id.as_str()),
            ("mcp-protocol-version", "2025-11-25"),
        ];
        let body = call("describe_tool", r#"{"name":"audit_log"}"#);
        let describe = post(addr, "/mcp", &headers(token, &extra), &body).await;
        let answer = sse_or_json(&describe.text().await);
        assert_eq!(message_outcome(&answer), expected, "{token}");
    }

    let discover = r#"{"params":[],"id":1,"method":"rpc.discover","jsonrpc":"2.0"}"#;
    let reply = post(addr, "/jsonrpc", &headers("read", &[]), discover).await;
    let document: Value = serde_json::from_str(&reply.text().await).unwrap();
    let names: Vec<&str> = document["result"]["methods"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["get_balance", "transfer", "audit_log", "statement"]);
}

fn sse_or_json(text: &str) -> Value {
    let json = text
        .lines()
        .find_map(|line| line.strip_prefix("data: "))
        .unwrap_or(text);
    serde_json::from_str(json).unwrap()
}

/// The audit record names the target that runs and redacts its named arguments, whatever the
/// door: a direct call, the catalog's `call_tool`, a plain call by position.
#[tokio::test]
async fn audit_records_name_the_target_and_redact_it_on_every_door() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("audit.jsonl");
    let audit = mcp_runtime::audit::Audit::new()
        .with_arguments(true)
        .redact(["/amount"])
        .to_file(Some(mcp_runtime::audit::AuditFile::open(&path).unwrap()));
    let mut config = config();
    config.audit = Some(audit);
    let catalog = ToolCatalog::new(Server::new(Bank), ToolMode::Catalog);
    let (addr, _stop) = serve_with(catalog, config).await;

    let transfer = Call::Tool("transfer", &[("to", "\"bob\""), ("amount", "77777")]);
    let id = session(addr, "large", "2025-11-25").await;
    assert_eq!(
        send(Door::Catalog, addr, &id, "large", transfer).await,
        Outcome::Allowed
    );
    assert_eq!(
        send(Door::PlainByPosition, addr, "", "large", transfer).await,
        Outcome::Allowed
    );
    assert_eq!(
        send(Door::PlainByName, addr, "", "large", transfer).await,
        Outcome::Allowed
    );

    let text = std::fs::read_to_string(&path).unwrap();
    let records: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(records.len(), 3, "{text}");
    assert!(!text.contains("77777"), "an amount in clear: {text}");
    for record in &records {
        assert_eq!(record["method"], "tools/call", "{record}");
        assert_eq!(record["name"], "transfer", "{record}");
        assert_eq!(record["outcome"], "ok", "{record}");
        let arguments: Value = serde_json::from_str(record["arguments"].as_str().unwrap()).unwrap();
        assert_eq!(
            arguments,
            serde_json::json!({"to": "bob", "amount": "[redacted]"})
        );
    }
}

/// Subscribing to a resource is decided as the read it stands for, at every door that
/// subscribes with authentication: `resources/subscribe` in a 2025-11-25 session and in a
/// 2025-03-26 batch, and a 2026-07-28 `subscriptions/listen` stream naming the resource
/// (wherever it stands among the URIs it names). Its updates tell what the resource holds, and
/// a gateway opens a subscription at its upstream for it: `nobody` (without `bank:read`) is
/// refused the read's scope at each; `read` subscribes.
#[tokio::test]
async fn subscribing_needs_the_scopes_of_the_read_at_every_door() {
    let (addr, _stop) = serve(Server::new(Bank)).await;
    let subscribe = r#"{"params":{"uri":"bank://statements/2026-01"},"id":7,"method":"resources/subscribe","jsonrpc":"2.0"}"#;
    for (token, expected) in [
        ("nobody", forbidden(&["bank:read"])),
        ("read", Outcome::Allowed),
    ] {
        for version in ["2025-11-25", "2025-03-26"] {
            let id = session(addr, token, version).await;
            let extra = [
                ("mcp-session-id", id.as_str()),
                ("mcp-protocol-version", version),
            ];
            let body = match version {
                "2025-03-26" => format!("[{subscribe}]"),
                _ => subscribe.to_string(),
            };
            let reply = post(addr, "/mcp", &headers(token, &extra), &body).await;
            assert_eq!(http_outcome(reply).await, expected, "{token}, {version}");
        }
        let listen = r#"{"params":{"notifications":{"resourceSubscriptions":["bank://other","bank://statements/2026-01"]},"_meta":{"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/protocolVersion":"2026-07-28"}},"id":8,"method":"subscriptions/listen","jsonrpc":"2.0"}"#;
        let extra = [
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "subscriptions/listen"),
        ];
        let reply = post(addr, "/mcp", &headers(token, &extra), listen).await;
        match token {
            // The stream stays open: its status alone is read.
            "read" => assert_eq!(reply.status, StatusCode::OK, "{token}, listen"),
            // A stream let through would never end: not waited for past 5 s.
            _ => {
                let outcome =
                    tokio::time::timeout(std::time::Duration::from_secs(5), http_outcome(reply))
                        .await
                        .unwrap_or_else(|_| Outcome::Other("the stream was opened".into()));
                assert_eq!(outcome, expected, "{token}, listen");
            }
        }
    }
}
