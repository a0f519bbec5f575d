//! An MCP client over Streamable HTTP, for both eras (feature `client`).
//!
//! [`Client::builder`] takes the endpoint's URL; [`ClientBuilder::connect`] picks the era
//! ([`Era::Auto`] by default: `server/discover`, falling back to `initialize` when the server
//! does not know it) and returns a [`Client`] whose methods are MCP's requests. Answers may be
//! one JSON body or an SSE stream; requests the server makes of the client (elicitation,
//! sampling, roots) go to a [`ClientHandler`], in the legacy era from the stream and in
//! 2026-07-28 through the `InputRequiredResult` retry loop.
//!
//! ```no_run
//! # async fn run() -> Result<(), mcp_runtime::client::ClientError> {
//! use mcp_runtime::client::Client;
//! use serde_json::json;
//!
//! let client = Client::builder("http://127.0.0.1:8080/mcp").connect().await?;
//! for tool in client.list_tools_all().await? {
//!     println!("{}", tool["name"]);
//! }
//! let result = client.call_tool("greet", json!({"name": "Ada"})).await?;
//! println!("{}", result["content"][0]["text"]);
//! client.close().await?;
//! # Ok(()) }
//! ```
//!
//! A server run as a child process is reached over stdio instead: [`Client::stdio`].
//!
//! Beyond the requests: a call's progress ([`CallOptions::on_progress`]); notifications
//! outside any call as a stream ([`Client::listen`]: `subscriptions/listen` in 2026-07-28, the
//! session's own notifications in a session); tasks ([`Client::call_tool_as_task`],
//! [`Client::wait_task`]); a call's future dropped cancels it on the server; a session's
//! broken SSE stream is resumed with `Last-Event-ID`. The cache hints of a list are reported
//! in [`Page`] and honoured: a page or a read is reused until its `ttlMs` runs out or a
//! notification says it changed ([`ClientBuilder::cache`]). OAuth 2.1: [`ClientBuilder::oauth`].

mod cache;
mod error;
mod handler;
mod headers;
mod http;
mod listen;
mod oauth;
mod options;
mod pool;
mod sse;
mod standalone;
mod stdio;
mod tasks;
mod tls;
mod transport;
pub mod typed;

pub use error::ClientError;
pub use handler::ClientHandler;
pub use listen::{Listen, Notification, Subscription};
pub use oauth::{
    Assertion, AuthorizationCallback, Dpop, Grant, IdentityProvider, OAuth, PreRegistered,
    TokenSource, DEFAULT_MAX_AUTHORIZATIONS, DEFAULT_REDIRECT_URI,
};
pub use options::{CallOptions, Progress};
pub use tasks::{CallOutcome, TASKS_EXTENSION};
pub use typed::CallError;

use self::headers::{
    header_value, invalid_annotations, param_header_values, param_headers, ParamHeader,
};
use self::http::Http;
use self::listen::{CancelListen, Inbox};
use self::stdio::Stdio;
use self::transport::Transport;
use crate::jsonrpc::{
    RpcError, HEADER_MISMATCH, INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND,
    UNSUPPORTED_VERSION,
};
use ::http::header::{HeaderMap, HeaderName, HeaderValue};
use serde_json::{json, Map, Value};
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The 2026-07-28 revision, the stateless one.
pub const STATELESS_VERSION: &str = "2026-07-28";
/// The legacy revision asked for in `initialize`.
pub const LEGACY_VERSION: &str = "2025-11-25";
/// The legacy revisions the client speaks, any of which the server may answer `initialize`
/// with.
const LEGACY_VERSIONS: [&str; 3] = ["2025-03-26", "2025-06-18", "2025-11-25"];
/// Input rounds of one 2026-07-28 request before the client gives up on it.
const MAX_INPUT_ROUNDS: usize = 16;
/// Pages of one list before the client takes the cursors to be endless.
const MAX_PAGES: usize = 10_000;

/// How many times one request's stream is resumed (`Last-Event-ID`) before the client gives up.
const MAX_RESUMPTIONS: usize = 8;

/// How long to wait before resuming a stream whose server gave no `retry` hint, in ms.
const DEFAULT_RETRY_MS: u64 = 500;

/// The longest wait before a resumption, whatever the server's `retry` says, in ms.
const MAX_RETRY_MS: u64 = 5_000;

/// Which protocol era a client speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Era {
    /// Probe with `server/discover` (2026-07-28); fall back to [`Era::Legacy`] when the server
    /// does not know it or does not list 2026-07-28.
    #[default]
    Auto,
    /// `initialize`, then an `Mcp-Session-Id` session (2025-03-26 .. 2025-11-25).
    Legacy,
    /// 2026-07-28: no session, the version and capabilities in every request's `_meta`.
    Stateless,
}

/// Builds a [`Client`]: the server (a URL or a command), headers sent on every HTTP request,
/// a per-call timeout, the era and the [`ClientHandler`].
pub struct ClientBuilder {
    server: Server,
    headers: Vec<(String, String)>,
    timeout: Duration,
    era: Era,
    handler: Arc<dyn ClientHandler>,
    client_info: Value,
    oauth: Option<OAuth>,
    tls: tls::TlsConfig,
    cache_results: bool,
}

impl ClientBuilder {
    /// Adds a header sent on every HTTP request (e.g. `Authorization`); a later one of the
    /// same name replaces it.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// The longest a call may take, its input rounds and streamed answer included (default
    /// 60 s).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The era (default [`Era::Auto`]).
    pub fn era(mut self, era: Era) -> Self {
        self.era = era;
        self
    }

    /// The handler of server-to-client requests; its
    /// [`capabilities`](ClientHandler::capabilities) are what the client declares.
    pub fn handler(mut self, handler: impl ClientHandler) -> Self {
        self.handler = Arc::new(handler);
        self
    }

    /// The `clientInfo` sent to the server (default: `mcp-runtime-client` and this crate's
    /// version).
    pub fn client_info(mut self, name: &str, version: &str) -> Self {
        self.client_info = json!({"name": name, "version": version});
        self
    }

    /// OAuth 2.1 (the MCP authorization specification): a 401 runs discovery, registration
    /// and a grant, and every later request carries the bearer token (see [`OAuth`]).
    pub fn oauth(mut self, oauth: OAuth) -> Self {
        self.oauth = Some(oauth);
        self
    }

    /// Whether list pages and `resources/read` results are reused for as long as their
    /// 2026-07-28 `ttlMs` allows (default `true`; a notification saying they changed drops
    /// them at once, whichever way it arrives: a session's stream, stdio, a
    /// [`Subscription`]). Off, every call asks the server.
    pub fn cache(mut self, honour_ttl: bool) -> Self {
        self.cache_results = honour_ttl;
        self
    }

    /// Trusts the root certificates of `pem` (one or more `CERTIFICATE` blocks) for
    /// `https://` URLs, the OAuth flow's included, beside the system's (a private CA, a test
    /// server's own certificate). A PEM without a usable certificate fails
    /// [`connect`](ClientBuilder::connect) with [`ClientError::Config`].
    pub fn root_certificate(mut self, pem: &[u8]) -> Self {
        self.tls.add_root_certificate(pem);
        self
    }

    /// Connects: starts the server's command (stdio), then `server/discover` or
    /// `initialize` (and `notifications/initialized`) as the era asks.
    pub async fn connect(self) -> Result<Client, ClientError> {
        let handler = Arc::new(Inbox::new(self.handler));
        let transport = match self.server {
            Server::Url(url) => Transport::Http(Arc::new(http_transport(
                &url,
                &self.headers,
                self.oauth,
                &self.tls,
            )?)),
            Server::Command(command) => {
                if !self.headers.is_empty() || self.oauth.is_some() {
                    return Err(ClientError::Config(
                        "headers and OAuth are HTTP's: a stdio server takes neither".into(),
                    ));
                }
                Transport::Stdio(Stdio::spawn(command, handler.clone())?)
            }
        };
        let mut client = Client {
            transport: Arc::new(transport),
            capabilities: handler.capabilities(),
            handler,
            timeout: self.timeout,
            client_info: self.client_info,
            state: State::Stateless {
                discover: Value::Null,
            },
            next_id: AtomicI64::new(1),
            log_level: Mutex::new(None),
            tool_headers: Mutex::new(HashMap::new()),
            tools_listed: AtomicBool::new(false),
            standalone: None,
            cache_results: self.cache_results,
        };
        if self.era != Era::Legacy {
            match client.request("server/discover", json!({})).await {
                Ok(discover) if lists_stateless(&discover) => {
                    client.state = State::Stateless { discover };
                    return Ok(client);
                }
                Ok(_) if self.era == Era::Stateless => {
                    return Err(ClientError::Protocol(format!(
                        "server/discover does not list {STATELESS_VERSION}"
                    )))
                }
                Err(error) if self.era == Era::Stateless || !unknown_to_server(&error) => {
                    return Err(error)
                }
                _ => {}
            }
        }
        client.initialize().await?;
        Ok(client)
    }
}

/// What a client connects to.
enum Server {
    /// A Streamable HTTP endpoint.
    Url(String),
    /// A command whose process speaks stdio.
    Command(std::process::Command),
}

/// The HTTP transport of `url`, with the headers of every request and OAuth.
fn http_transport(
    url: &str,
    headers: &[(String, String)],
    oauth: Option<OAuth>,
    tls: &tls::TlsConfig,
) -> Result<Http, ClientError> {
    let uri: ::http::Uri = url
        .parse()
        .map_err(|e| ClientError::Config(format!("URL {url:?}: {e}")))?;
    if !matches!(uri.scheme_str(), Some("http" | "https")) {
        return Err(ClientError::Config(format!(
            "URL {url:?}: the scheme must be http:// or https://"
        )));
    }
    let mut map = HeaderMap::new();
    for (name, value) in headers {
        let name = HeaderName::try_from(name.as_str())
            .map_err(|e| ClientError::Config(format!("header name {name:?}: {e}")))?;
        let value = HeaderValue::try_from(value.as_str())
            .map_err(|e| ClientError::Config(format!("header {name} value: {e}")))?;
        map.insert(name, value);
    }
    Http::new(uri, map, oauth, tls)
}

/// Whether `error` refuses the protocol version while its `data.supported` lists the one this
/// client sent (`-32022`).
fn version_refused_but_supported(error: &RpcError) -> bool {
    error.code == crate::jsonrpc::UNSUPPORTED_VERSION
        && error
            .data
            .as_ref()
            .and_then(|data| data["supported"].as_array())
            .is_some_and(|supported| supported.iter().any(|v| v == STATELESS_VERSION))
}

/// Whether a `DiscoverResult` lists the stateless revision.
fn lists_stateless(discover: &Value) -> bool {
    discover["supportedVersions"]
        .as_array()
        .is_some_and(|versions| versions.iter().any(|v| v == STATELESS_VERSION))
}

/// Whether a failed `server/discover` says the server is legacy-only (rather than down).
fn unknown_to_server(error: &ClientError) -> bool {
    match error {
        ClientError::Rpc(error) => [
            // The TypeScript SDK's legacy servers: "Bad Request: Server not initialized".
            crate::jsonrpc::SERVER_ERROR,
            METHOD_NOT_FOUND,
            INVALID_REQUEST,
            INVALID_PARAMS,
            HEADER_MISMATCH,
            UNSUPPORTED_VERSION,
        ]
        .contains(&error.code),
        ClientError::Http { status, .. } => matches!(status, 400 | 404 | 405),
        _ => false,
    }
}

/// What the era chosen at connection holds.
enum State {
    /// A session: its id (absent when the server gave none), the negotiated version and the
    /// `InitializeResult`.
    Legacy {
        session: Option<HeaderValue>,
        version: String,
        initialized: Value,
    },
    /// 2026-07-28, with the `DiscoverResult`.
    Stateless { discover: Value },
}

/// One page of a list.
#[derive(Debug, Clone, PartialEq)]
pub struct Page {
    /// The entries (`tools`, `prompts`, `resources` or `resourceTemplates`), as sent.
    pub items: Vec<Value>,
    /// The cursor of the next page; `None` on the last.
    pub next_cursor: Option<String>,
    /// 2026-07-28 cache hint: how long the page may be reused, in milliseconds.
    pub ttl_ms: Option<u64>,
    /// 2026-07-28 cache hint: who may reuse it (`"public"` or `"private"`).
    pub cache_scope: Option<String>,
}

/// A connected MCP client; share it behind an `Arc` to make calls concurrently.
pub struct Client {
    transport: Arc<Transport>,
    /// The user's handler, and the session subscriptions that see its notifications.
    handler: Arc<Inbox>,
    capabilities: Value,
    timeout: Duration,
    client_info: Value,
    state: State,
    next_id: AtomicI64,
    /// 2026-07-28's replacement of `logging/setLevel`: sent in every request's `_meta`.
    log_level: Mutex<Option<String>>,
    /// The `x-mcp-header` annotations of the tools listed so far, by tool name.
    tool_headers: Mutex<HashMap<String, Vec<ParamHeader>>>,
    /// Whether every page of `tools/list` has been read (so an unknown tool has none).
    tools_listed: AtomicBool,
    /// The session's standalone stream, read in the background (legacy era with a session).
    standalone: Option<AbortOnDrop>,
    /// Whether results are reused for their `ttlMs` ([`ClientBuilder::cache`]).
    cache_results: bool,
}

/// A background task stopped when its owner goes.
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

impl Client {
    /// A builder for a client of the endpoint at `url` (`http://host:port/mcp` or
    /// `https://...`).
    pub fn builder(url: impl Into<String>) -> ClientBuilder {
        Self::builder_of(Server::Url(url.into()))
    }

    /// A builder for a client of a stdio server: `command` is started when the client
    /// connects (its stdin and stdout carry the messages, its stderr goes to the log at debug
    /// level) and ended by [`Client::close`] (killed if the client is dropped).
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), mcp_runtime::client::ClientError> {
    /// let mut command = std::process::Command::new("./target/debug/quickstart");
    /// command.arg("--stdio");
    /// let client = mcp_runtime::client::Client::stdio(command).connect().await?;
    /// # Ok(()) }
    /// ```
    pub fn stdio(command: std::process::Command) -> ClientBuilder {
        Self::builder_of(Server::Command(command))
    }

    fn builder_of(server: Server) -> ClientBuilder {
        ClientBuilder {
            server,
            headers: Vec::new(),
            timeout: Duration::from_secs(60),
            era: Era::Auto,
            handler: Arc::new(handler::NoHandler),
            client_info: json!({"name": "mcp-runtime-client", "version": env!("CARGO_PKG_VERSION")}),
            oauth: None,
            tls: tls::TlsConfig::default(),
            cache_results: true,
        }
    }

    /// The era chosen at connection: [`Era::Legacy`] or [`Era::Stateless`].
    pub fn era(&self) -> Era {
        match self.state {
            State::Legacy { .. } => Era::Legacy,
            State::Stateless { .. } => Era::Stateless,
        }
    }

    /// The protocol revision in use.
    pub fn protocol_version(&self) -> &str {
        match &self.state {
            State::Legacy { version, .. } => version,
            State::Stateless { .. } => STATELESS_VERSION,
        }
    }

    /// The server's `Implementation` (`serverInfo`; in 2026-07-28 the `DiscoverResult`'s
    /// `_meta`), `Null` when it sent none.
    pub fn server_info(&self) -> &Value {
        match &self.state {
            State::Legacy { initialized, .. } => &initialized["serverInfo"],
            State::Stateless { discover } => {
                &discover["_meta"]["io.modelcontextprotocol/serverInfo"]
            }
        }
    }

    /// The server's capabilities.
    pub fn server_capabilities(&self) -> &Value {
        match &self.state {
            State::Legacy { initialized, .. } => &initialized["capabilities"],
            State::Stateless { discover } => &discover["capabilities"],
        }
    }

    /// The session id of a legacy session.
    pub fn session_id(&self) -> Option<&str> {
        match &self.state {
            State::Legacy { session, .. } => session.as_ref().and_then(|s| s.to_str().ok()),
            State::Stateless { .. } => None,
        }
    }

    /// One page of `tools/list`.
    /// A tool whose `x-mcp-header` annotations are invalid is left out, as the specification
    /// asks of clients (with a warning naming it).
    pub async fn list_tools(&self, cursor: Option<&str>) -> Result<Page, ClientError> {
        let mut page = self.list_page("tools/list", "tools", cursor).await?;
        page.items = self.remember_tools(page.items);
        Ok(page)
    }

    /// Every tool, following `nextCursor` to the last page (those with invalid `x-mcp-header`
    /// annotations left out).
    pub async fn list_tools_all(&self) -> Result<Vec<Value>, ClientError> {
        let tools = self.list_all("tools/list", "tools").await?;
        let tools = self.remember_tools(tools);
        self.tools_listed.store(true, Ordering::Relaxed);
        Ok(tools)
    }

    /// One page of `prompts/list`.
    pub async fn list_prompts(&self, cursor: Option<&str>) -> Result<Page, ClientError> {
        self.list_page("prompts/list", "prompts", cursor).await
    }

    /// Every prompt, following `nextCursor`.
    pub async fn list_prompts_all(&self) -> Result<Vec<Value>, ClientError> {
        self.list_all("prompts/list", "prompts").await
    }

    /// One page of `resources/list`.
    pub async fn list_resources(&self, cursor: Option<&str>) -> Result<Page, ClientError> {
        self.list_page("resources/list", "resources", cursor).await
    }

    /// Every resource, following `nextCursor`.
    pub async fn list_resources_all(&self) -> Result<Vec<Value>, ClientError> {
        self.list_all("resources/list", "resources").await
    }

    /// One page of `resources/templates/list`.
    pub async fn list_resource_templates(&self, cursor: Option<&str>) -> Result<Page, ClientError> {
        self.list_page("resources/templates/list", "resourceTemplates", cursor)
            .await
    }

    /// Every resource template, following `nextCursor`.
    pub async fn list_resource_templates_all(&self) -> Result<Vec<Value>, ClientError> {
        self.list_all("resources/templates/list", "resourceTemplates")
            .await
    }

    /// `tools/call`: the `CallToolResult`, or [`ClientError::Tool`] when it has
    /// `isError: true`. In 2026-07-28 the tool's `x-mcp-header` arguments are mirrored into
    /// `Mcp-Param-*` headers (the tools are listed first if they have not been).
    pub async fn call_tool(&self, name: &str, arguments: Value) -> Result<Value, ClientError> {
        self.call_tool_with(name, arguments, &CallOptions::new())
            .await
    }

    /// [`Client::call_tool`] with [`CallOptions`] (a progress callback).
    pub async fn call_tool_with(
        &self,
        name: &str,
        arguments: Value,
        options: &CallOptions,
    ) -> Result<Value, ClientError> {
        if matches!(self.state, State::Stateless { .. })
            && !self.transport.is_stdio()
            && !self.tools_listed.load(Ordering::Relaxed)
            && !self.tool_headers.lock().unwrap().contains_key(name)
        {
            self.list_tools_all().await?;
        }
        let params = json!({"name": name, "arguments": arguments});
        let result = self.request_with("tools/call", params, options).await?;
        if result["isError"] == true {
            return Err(ClientError::Tool(result));
        }
        Ok(result)
    }

    /// `prompts/get` with `arguments` (an object of strings, or `Null`).
    pub async fn get_prompt(&self, name: &str, arguments: Value) -> Result<Value, ClientError> {
        let mut params = json!({"name": name});
        if !arguments.is_null() {
            params["arguments"] = arguments;
        }
        self.request("prompts/get", params).await
    }

    /// `resources/read`.
    pub async fn read_resource(&self, uri: &str) -> Result<Value, ClientError> {
        self.cacheable("resources/read", uri, json!({"uri": uri}))
            .await
    }

    /// `completion/complete` for `argument` (`name`, partial `value`) of `reference`
    /// (`{"type": "ref/prompt", "name": ...}` or `{"type": "ref/resource", "uri": ...}`).
    pub async fn complete(
        &self,
        reference: Value,
        name: &str,
        value: &str,
    ) -> Result<Value, ClientError> {
        self.request(
            "completion/complete",
            json!({"ref": reference, "argument": {"name": name, "value": value}}),
        )
        .await
    }

    /// The server's log level: `logging/setLevel` in a session; in 2026-07-28 (which removed
    /// the method) the level goes into every later request's `_meta`.
    pub async fn set_logging_level(&self, level: &str) -> Result<(), ClientError> {
        match self.state {
            State::Legacy { .. } => {
                self.request("logging/setLevel", json!({"level": level}))
                    .await?;
            }
            State::Stateless { .. } => *self.log_level.lock().unwrap() = Some(level.to_owned()),
        }
        Ok(())
    }

    /// `ping` (legacy era only: 2026-07-28 removed it).
    pub async fn ping(&self) -> Result<(), ClientError> {
        match self.state {
            State::Legacy { .. } => self.request("ping", json!({})).await.map(drop),
            State::Stateless { .. } => {
                Err(ClientError::Unsupported("ping is not part of 2026-07-28"))
            }
        }
    }

    /// Notifications outside any call, as a stream, until the [`Subscription`] is dropped.
    ///
    /// In 2026-07-28 a `subscriptions/listen` request (its acknowledgement read before this
    /// returns). In a session, the session's own notifications (its GET stream, the calls'
    /// streams, stdio) that `filter` asks for, after `resources/subscribe` for each resource
    /// in it; the [`ClientHandler`] sees them too. Task ids need 2026-07-28.
    pub async fn listen(&self, filter: Listen) -> Result<Subscription, ClientError> {
        if matches!(self.state, State::Legacy { .. }) {
            if filter.wants_tasks() {
                return Err(ClientError::Unsupported(
                    "task notifications: 2026-07-28's tasks extension",
                ));
            }
            let honoured = filter.honoured_by(self.server_capabilities());
            let receiver = self.handler.subscribe(honoured.clone());
            for uri in honoured.resources() {
                self.request("resources/subscribe", json!({"uri": uri}))
                    .await?;
            }
            return Ok(Subscription::session(
                honoured.to_filter(),
                receiver,
                self.handler.clone(),
            ));
        }
        let options = CallOptions {
            tasks: filter.wants_tasks(),
            ..CallOptions::new()
        };
        let params = json!({"notifications": filter.to_filter()});
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let body = json!({
            "jsonrpc": "2.0", "id": id, "method": "subscriptions/listen",
            "params": self.with_meta(&params, &options),
        });
        let headers = self.era_headers("subscriptions/listen", &params);
        let opened = self.transport.request(
            "subscriptions/listen",
            id,
            &[],
            body.to_string().into_bytes(),
            &headers,
        );
        let (_, answer) = tokio::time::timeout(self.timeout, opened)
            .await
            .map_err(|_| ClientError::Timeout(self.timeout))??;
        let cancel = self.transport.is_stdio().then(|| CancelListen {
            transport: self.transport.clone(),
            id,
        });
        let listening = Subscription::listening(answer, cancel, self.handler.clone());
        tokio::time::timeout(self.timeout, listening)
            .await
            .map_err(|_| ClientError::Timeout(self.timeout))?
    }

    /// Ends the connection: a legacy session with DELETE (nothing to do over HTTP in
    /// 2026-07-28); a stdio server's stdin closed, then the wait for it to exit (killed
    /// after 2 s).
    pub async fn close(mut self) -> Result<(), ClientError> {
        self.standalone.take();
        match &*self.transport {
            Transport::Stdio(stdio) => stdio.close().await?,
            Transport::Http(http) => {
                if let State::Legacy {
                    session: Some(_), ..
                } = &self.state
                {
                    let headers = self.era_headers("", &Value::Null);
                    http.delete(&headers).await?;
                }
            }
        }
        Ok(())
    }

    /// Any request by method name: `params` (an object) as given, the `result` back. In
    /// 2026-07-28 the `_meta` and headers the revision asks for are added and input rounds
    /// are answered by the handler.
    pub async fn request(&self, method: &str, params: Value) -> Result<Value, ClientError> {
        self.request_with(method, params, &CallOptions::new()).await
    }

    /// [`Client::request`] with [`CallOptions`] (a progress callback).
    pub async fn request_with(
        &self,
        method: &str,
        params: Value,
        options: &CallOptions,
    ) -> Result<Value, ClientError> {
        tokio::time::timeout(self.timeout, self.rounds(method, params, options))
            .await
            .map_err(|_| ClientError::Timeout(self.timeout))?
    }

    /// One request, with its 2026-07-28 input rounds.
    async fn rounds(
        &self,
        method: &str,
        mut params: Value,
        options: &CallOptions,
    ) -> Result<Value, ClientError> {
        // One token for the whole call, its input rounds included.
        let progress = match &options.progress {
            Some(callback) => {
                let token = self.next_id.fetch_add(1, Ordering::Relaxed);
                set_meta(&mut params, "progressToken", json!(token))?;
                Some((token, &**callback))
            }
            None => None,
        };
        if matches!(self.state, State::Legacy { .. }) {
            return self
                .exchange(method, &params, options, progress)
                .await
                .map(|(_, result)| result);
        }
        let mut retried = false;
        for _ in 0..MAX_INPUT_ROUNDS {
            let (_, result) = match self.exchange(method, &params, options, progress).await {
                // The server refused the version it lists as supported (a restart or another
                // instance in between): the same request once more.
                Err(ClientError::Rpc(error))
                    if !retried && version_refused_but_supported(&error) =>
                {
                    retried = true;
                    self.exchange(method, &params, options, progress).await?
                }
                answered => answered?,
            };
            if result["resultType"] != "input_required" {
                return Ok(result);
            }
            // The same request again, a new id, the answers and the state echoed as sent.
            let object = params
                .as_object_mut()
                .ok_or_else(|| ClientError::Protocol("params must be an object".into()))?;
            let mut responses = Map::new();
            for (key, input) in result["inputRequests"].as_object().into_iter().flatten() {
                let method = input["method"].as_str().unwrap_or_default();
                let answer = handler::answer(&*self.handler, method, &input["params"])
                    .await
                    .map_err(ClientError::Rpc)?;
                responses.insert(key.clone(), answer);
            }
            object.remove("inputResponses");
            if !responses.is_empty() {
                object.insert("inputResponses".into(), Value::Object(responses));
            }
            match result.get("requestState") {
                Some(state) => object.insert("requestState".into(), state.clone()),
                None => object.remove("requestState"),
            };
        }
        Err(ClientError::Protocol(format!(
            "{method}: still input_required after {MAX_INPUT_ROUNDS} rounds"
        )))
    }

    /// POSTs one request and reads its answer: server requests on a legacy stream are
    /// answered on the way, notifications handed to the handler. The response headers and
    /// the `result`.
    async fn exchange(
        &self,
        method: &str,
        params: &Value,
        options: &CallOptions,
        progress: Option<(i64, &(dyn Fn(Progress) + Send + Sync))>,
    ) -> Result<(HeaderMap, Value), ClientError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let body = json!({
            "jsonrpc": "2.0", "id": id, "method": method,
            "params": self.with_meta(params, options),
        });
        let headers = self.era_headers(method, params);
        // A session's request whose call is dropped (or times out) before its response is
        // cancelled on the server, as is any over stdio; over HTTP in 2026-07-28, closing the
        // stream is the cancellation.
        let mut cancel = CancelOnDrop {
            armed: (matches!(self.state, State::Legacy { .. }) || self.transport.is_stdio())
                && method != "initialize",
            transport: self.transport.clone(),
            headers: headers.clone(),
            id,
        };
        let answer = self.read_answer(method, id, body, &headers, progress).await;
        cancel.armed = false;
        answer
    }

    /// [`Client::exchange`]'s sending and the reading of its answer.
    async fn read_answer(
        &self,
        method: &str,
        id: i64,
        body: Value,
        headers: &[(HeaderName, HeaderValue)],
        progress: Option<(i64, &(dyn Fn(Progress) + Send + Sync))>,
    ) -> Result<(HeaderMap, Value), ClientError> {
        let routes: &[i64] = match &progress {
            Some((token, _)) => &[*token],
            None => &[],
        };
        let (response_headers, mut messages) = self
            .transport
            .request(method, id, routes, body.to_string().into_bytes(), headers)
            .await?;
        let mut resumptions = 0;
        loop {
            let message = match messages.next().await {
                Ok(Some(message)) => message,
                // The stream ended, or broke, before the response: a session's stream that set
                // an event id is resumed where it stopped (the server may have let it go on
                // purpose: 2025-11-25 SSE polling).
                ended => {
                    let resumption = messages
                        .resumption()
                        .filter(|_| matches!(self.state, State::Legacy { .. }))
                        .map(|(id, retry)| (id.to_string(), retry));
                    match (resumption, ended) {
                        (Some((last_event_id, retry_ms)), _) if resumptions < MAX_RESUMPTIONS => {
                            resumptions += 1;
                            let wait = retry_ms.unwrap_or(DEFAULT_RETRY_MS).min(MAX_RETRY_MS);
                            tokio::time::sleep(Duration::from_millis(wait)).await;
                            let headers = self.era_headers(method, &Value::Null);
                            let http = self.transport.http().ok_or_else(|| {
                                ClientError::Protocol("a stdio answer to resume".into())
                            })?;
                            messages = transport::Answer::Http(
                                http.get_stream(Some(&last_event_id), &headers).await?,
                            );
                            continue;
                        }
                        (_, Err(error)) => return Err(error),
                        _ => break,
                    }
                }
            };
            if let Some(server_method) = message.get("method").and_then(Value::as_str) {
                match message.get("id") {
                    Some(request_id) => {
                        self.answer_on_stream(server_method, request_id, &message["params"])
                            .await?
                    }
                    None => match progress {
                        Some((token, callback))
                            if server_method == "notifications/progress"
                                && message["params"]["progressToken"] == token =>
                        {
                            callback(Progress::from_params(&message["params"]))
                        }
                        _ => self.handler.notification(server_method, &message["params"]),
                    },
                }
                continue;
            }
            let for_us =
                message["id"] == id || (message["id"].is_null() && message.get("error").is_some());
            if !for_us {
                continue;
            }
            if let Some(error) = message.get("error") {
                return Err(ClientError::rpc(error));
            }
            return match message.get("result") {
                Some(result) => Ok((response_headers, result.clone())),
                None => Err(ClientError::Protocol(format!(
                    "{method}: a response with neither result nor error"
                ))),
            };
        }
        Err(ClientError::Protocol(format!(
            "{method}: the answer ended without a response to request {id} (resumed {resumptions} time(s))"
        )))
    }

    /// A legacy server's request on a call's stream: the handler's answer POSTed back.
    async fn answer_on_stream(
        &self,
        method: &str,
        id: &Value,
        params: &Value,
    ) -> Result<(), ClientError> {
        // 2026-07-28 forbids them: there is nobody to answer. Over stdio the reader answers.
        let Some(http) = self.transport.http() else {
            return Ok(());
        };
        if matches!(self.state, State::Stateless { .. }) {
            return Ok(());
        }
        let headers = self.era_headers("", &Value::Null);
        standalone::answer(http, &*self.handler, &headers, method, id, params).await
    }

    /// `params` with the 2026-07-28 `_meta` (version, capabilities, with the tasks extension
    /// when `options` declare it, client info, log level) merged in; as given in a session.
    fn with_meta(&self, params: &Value, options: &CallOptions) -> Value {
        if matches!(self.state, State::Legacy { .. }) {
            return params.clone();
        }
        let mut params = match params {
            Value::Object(object) => object.clone(),
            _ => Map::new(),
        };
        let meta = params
            .entry("_meta")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(meta) = meta {
            meta.insert(
                "io.modelcontextprotocol/protocolVersion".into(),
                json!(STATELESS_VERSION),
            );
            let mut capabilities = self.capabilities.clone();
            if options.tasks {
                if !capabilities["extensions"].is_object() {
                    capabilities["extensions"] = json!({});
                }
                capabilities["extensions"][TASKS_EXTENSION] = json!({});
            }
            meta.insert(
                "io.modelcontextprotocol/clientCapabilities".into(),
                capabilities,
            );
            meta.insert(
                "io.modelcontextprotocol/clientInfo".into(),
                self.client_info.clone(),
            );
            if let Some(level) = &*self.log_level.lock().unwrap() {
                meta.insert("io.modelcontextprotocol/logLevel".into(), json!(level));
            }
        }
        Value::Object(params)
    }

    /// The headers of the era: the session's id and version, or 2026-07-28's version and
    /// routing headers (`method` empty for a message that is not a request).
    fn era_headers(&self, method: &str, params: &Value) -> Vec<(HeaderName, HeaderValue)> {
        let mut headers = Vec::new();
        if self.transport.is_stdio() {
            return headers;
        }
        let mut add = |name: &str, value: &str| {
            if let (Ok(name), Ok(value)) =
                (HeaderName::try_from(name), HeaderValue::try_from(value))
            {
                headers.push((name, value));
            }
        };
        match &self.state {
            State::Legacy {
                session, version, ..
            } => {
                if let Some(session) = session.as_ref().and_then(|s| s.to_str().ok()) {
                    add("mcp-session-id", session);
                }
                // 2025-03-26 has no version header; `initialize` itself goes without one.
                if version != "2025-03-26" && method != "initialize" {
                    add("mcp-protocol-version", version);
                }
            }
            State::Stateless { .. } => {
                add("mcp-protocol-version", STATELESS_VERSION);
                add("mcp-method", method);
                let name = match method {
                    "tools/call" | "prompts/get" => params["name"].as_str(),
                    "resources/read" => params["uri"].as_str(),
                    "tasks/get" | "tasks/update" | "tasks/cancel" => params["taskId"].as_str(),
                    _ => None,
                };
                if let Some(name) = name {
                    add("mcp-name", &header_value(name));
                }
                if method == "tools/call" {
                    if let Some(annotations) = params["name"]
                        .as_str()
                        .and_then(|tool| self.tool_headers.lock().unwrap().get(tool).cloned())
                    {
                        for (name, value) in param_header_values(&annotations, &params["arguments"])
                        {
                            add(&name, &value);
                        }
                    }
                }
            }
        }
        headers
    }

    /// `initialize` and `notifications/initialized`: the session.
    async fn initialize(&mut self) -> Result<(), ClientError> {
        self.state = State::Legacy {
            session: None,
            version: LEGACY_VERSION.to_owned(),
            initialized: Value::Null,
        };
        let params = json!({
            "protocolVersion": LEGACY_VERSION,
            "capabilities": self.capabilities,
            "clientInfo": self.client_info,
        });
        let options = CallOptions::new();
        let initializing = self.exchange("initialize", &params, &options, None);
        let (headers, initialized) = tokio::time::timeout(self.timeout, initializing)
            .await
            .map_err(|_| ClientError::Timeout(self.timeout))??;
        let version = initialized["protocolVersion"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        if !LEGACY_VERSIONS.contains(&version.as_str()) {
            return Err(ClientError::Protocol(format!(
                "initialize: the server chose protocol version {version:?}, which this client does not speak"
            )));
        }
        self.state = State::Legacy {
            session: headers.get("mcp-session-id").cloned(),
            version,
            initialized,
        };
        let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let headers = self.era_headers("", &Value::Null);
        self.transport
            .send(
                "notifications/initialized",
                note.to_string().into_bytes(),
                &headers,
            )
            .await?;
        // What the server sends outside any call arrives on the session's GET stream.
        let Some(http) = self.transport.http().cloned() else {
            return Ok(());
        };
        if headers.iter().any(|(name, _)| name == "mcp-session-id") {
            // Bounded: a proxy that holds the response headers back must not hold `connect`.
            let opened = tokio::time::timeout(self.timeout, standalone::open(&http, &headers))
                .await
                .unwrap_or(Ok(None));
            if let Ok(opened) = opened {
                let listener = tokio::spawn(standalone::listen(
                    http,
                    self.handler.clone(),
                    headers,
                    opened,
                ));
                self.standalone = Some(AbortOnDrop(listener));
            }
        }
        Ok(())
    }

    async fn list_page(
        &self,
        method: &'static str,
        key: &str,
        cursor: Option<&str>,
    ) -> Result<Page, ClientError> {
        let params = match cursor {
            Some(cursor) => json!({"cursor": cursor}),
            None => json!({}),
        };
        let result = self
            .cacheable(method, cursor.unwrap_or_default(), params)
            .await?;
        let items = match result.get(key) {
            Some(Value::Array(items)) => items.clone(),
            _ => {
                return Err(ClientError::Protocol(format!(
                    "{method}: the result has no {key:?} array"
                )))
            }
        };
        Ok(Page {
            items,
            next_cursor: result["nextCursor"].as_str().map(str::to_owned),
            ttl_ms: result["ttlMs"].as_u64(),
            cache_scope: result["cacheScope"].as_str().map(str::to_owned),
        })
    }

    async fn list_all(&self, method: &'static str, key: &str) -> Result<Vec<Value>, ClientError> {
        let mut items = Vec::new();
        let mut cursor: Option<String> = None;
        let mut seen = HashSet::new();
        for _ in 0..MAX_PAGES {
            let page = self.list_page(method, key, cursor.as_deref()).await?;
            items.extend(page.items);
            match page.next_cursor {
                None => return Ok(items),
                Some(next) if !seen.insert(next.clone()) => {
                    return Err(ClientError::Protocol(format!(
                        "{method}: the cursor {next:?} came twice"
                    )))
                }
                next => cursor = next,
            }
        }
        Err(ClientError::Protocol(format!(
            "{method}: more than {MAX_PAGES} pages"
        )))
    }

    /// A request whose result the server may let the client reuse (`ttlMs`): from the cache
    /// while it is fresh, else asked and kept (unless the builder turned caching off).
    async fn cacheable(
        &self,
        method: &'static str,
        key: &str,
        params: Value,
    ) -> Result<Value, ClientError> {
        if !self.cache_results {
            return self.request(method, params).await;
        }
        if let Some(hit) = self.handler.cache.get(method, key) {
            return Ok(hit);
        }
        let result = self.request(method, params).await?;
        self.handler.cache.put(method, key, &result);
        Ok(result)
    }

    /// Keeps the header annotations of `tools` and returns the valid ones.
    fn remember_tools(&self, tools: Vec<Value>) -> Vec<Value> {
        let mut known = self.tool_headers.lock().unwrap();
        let mut valid = Vec::with_capacity(tools.len());
        for tool in tools {
            let name = tool["name"].as_str().unwrap_or_default();
            if let Some(reason) = invalid_annotations(&tool["inputSchema"]) {
                tracing::warn!(tool = name, %reason, "a tool with invalid x-mcp-header annotations is left out");
                continue;
            }
            known.insert(name.to_owned(), param_headers(&tool["inputSchema"]));
            valid.push(tool);
        }
        valid
    }
}

/// Sets `_meta[key]` in `params` (an object, or nothing).
fn set_meta(params: &mut Value, key: &str, value: Value) -> Result<(), ClientError> {
    if params.is_null() {
        *params = json!({});
    }
    let object = params
        .as_object_mut()
        .ok_or_else(|| ClientError::Protocol("params must be an object".into()))?;
    let meta = object
        .entry("_meta")
        .or_insert_with(|| Value::Object(Map::new()));
    match meta.as_object_mut() {
        Some(meta) => {
            meta.insert(key.to_owned(), value);
            Ok(())
        }
        None => Err(ClientError::Protocol(
            "params._meta must be an object".into(),
        )),
    }
}

/// Tells a session's server that a request was given up: armed while its call waits for the
/// response, it POSTs `notifications/cancelled` when the call is dropped before (a timeout
/// drops it too). Best effort, in the background: nothing waits for it.
struct CancelOnDrop {
    armed: bool,
    transport: Arc<Transport>,
    headers: Vec<(HeaderName, HeaderValue)>,
    id: i64,
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let body = json!({
            "jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": self.id, "reason": "the client gave up the request"},
        });
        let (transport, headers) = (self.transport.clone(), std::mem::take(&mut self.headers));
        runtime.spawn(async move {
            let body = body.to_string().into_bytes();
            if let Err(error) = transport
                .send("notifications/cancelled", body, &headers)
                .await
            {
                tracing::debug!(%error, "the cancellation of a dropped request was not delivered");
            }
        });
    }
}
