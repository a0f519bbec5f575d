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

mod builder;
mod cache;
mod error;
mod exchange;
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
#[doc(hidden)]
pub mod typed;

pub use builder::ClientBuilder;
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

use self::builder::Server;
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
#[doc(hidden)]
pub const STATELESS_VERSION: &str = "2026-07-28";
/// The legacy revision asked for in `initialize`.
#[doc(hidden)]
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
