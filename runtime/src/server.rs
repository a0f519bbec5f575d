//! [`McpServer`]: a generated [`Dispatch`] plus configuration, sessions and the MCP methods of
//! the session-era revisions. The transports ([`crate::http`], [`crate::stdio`]) feed it
//! requests.

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{json, Value};
use std::borrow::Cow;
use std::future::Future;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use crate::context::RequestContext;
use crate::dispatch::{Dispatch, ToolOutcome};
use crate::http::param_headers::ParamHeaders;
use crate::json::JsonText;
use crate::jsonrpc::{self, RpcError};
use crate::mcp::{level_rank, LoggingLevel};
use crate::mrtr::InputRound;
use crate::notifier::Notifier;
use crate::panic::CatchUnwind;
use crate::params::{self, CallMembers, RequestParams};
use crate::protocol::ProtocolVersion;
use crate::request_state::{Binding, SealingKey, StateSealer, KEY_ENV};
use crate::session::{MemorySessionStore, Session, SessionStore};
use crate::tasks::{self, MemoryTaskStore, TaskStore, Tasks, TASKS_EXTENSION};
use crate::{CompletionKind, Descriptor};

/// Who may reuse a cached 2026-07-28 result (`cacheScope`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheScope {
    /// Any client may reuse it (`"public"`).
    Public,
    /// Only the client that asked (`"private"`).
    Private,
}

impl CacheScope {
    fn as_str(self) -> &'static str {
        match self {
            CacheScope::Public => "public",
            CacheScope::Private => "private",
        }
    }
}

/// The `ttlMs` and `cacheScope` one kind of 2026-07-28 result carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheHint {
    /// How long the result may be reused (`ttlMs`; zero: do not reuse).
    pub ttl: Duration,
    /// Who may reuse it.
    pub scope: CacheScope,
}

impl CacheHint {
    /// A hint of `ttl` for `scope`.
    pub const fn new(ttl: Duration, scope: CacheScope) -> Self {
        Self { ttl, scope }
    }

    fn pair(self) -> Option<(u64, &'static str)> {
        Some((self.ttl.as_millis() as u64, self.scope.as_str()))
    }
}

/// The cache hints of every cacheable 2026-07-28 result. The lists are generated at build time
/// and never change while the server runs, hence the long public defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheHints {
    /// `server/discover`. Default 0 ms, private.
    pub discover: CacheHint,
    /// `tools/list`. Default 5 minutes, public.
    pub tools_list: CacheHint,
    /// `prompts/list`. Default 5 minutes, public.
    pub prompts_list: CacheHint,
    /// `resources/list`. Default 5 minutes, public.
    pub resources_list: CacheHint,
    /// `resources/templates/list`. Default 5 minutes, public.
    pub resource_templates_list: CacheHint,
    /// `resources/read`. Default 5 minutes, private (a read that took client input is never
    /// cached: 0 ms).
    pub resources_read: CacheHint,
}

impl Default for CacheHints {
    fn default() -> Self {
        const FIVE_MINUTES: Duration = Duration::from_secs(300);
        let list = CacheHint::new(FIVE_MINUTES, CacheScope::Public);
        Self {
            discover: CacheHint::new(Duration::ZERO, CacheScope::Private),
            tools_list: list,
            prompts_list: list,
            resources_list: list,
            resource_templates_list: list,
            resources_read: CacheHint::new(FIVE_MINUTES, CacheScope::Private),
        }
    }
}

/// Settings of a server. Every bound has a name and a default.
#[derive(Debug, Clone)]
pub struct Config {
    /// Host names accepted in `Host` and `Origin` (DNS-rebinding protection). Default: the
    /// loopback names `localhost`, `127.0.0.1`, `::1`.
    pub allowed_hosts: Vec<String>,
    /// Largest request body, in bytes (413 above). Default 4 MiB.
    pub body_limit: usize,
    /// A session unused this long is evicted; `None` disables expiry. Default 30 minutes.
    pub session_idle_timeout: Option<Duration>,
    /// Most sessions alive at once (503 above). Default 100,000.
    pub max_sessions: usize,
    /// Serve a non-initialize request that carries no session with a throwaway session
    /// instead of answering 400. Default false.
    pub allow_sessionless: bool,
    /// Entries per page of `tools/list`, `prompts/list`, `resources/list` and
    /// `resources/templates/list`. Default 100.
    pub page_size: usize,
    /// SSE events kept per session for `Last-Event-ID` replay. Default 128.
    pub replay_window: usize,
    /// Standalone messages kept while no GET stream is open. Default 128.
    pub buffered_messages: usize,
    /// How long a handler waits for the client to answer a request it sent. Default 60 s.
    pub client_request_timeout: Duration,
    /// The `retry` hint of 2025-11-25 priming events, in milliseconds. Default 1,000.
    pub sse_retry_ms: u64,
    /// Answer every session-era request with an SSE stream, even when the handler sends
    /// nothing before its result (by default such answers are plain JSON). Default false.
    pub sse_responses: bool,
    /// A long-lived SSE stream (`subscriptions/listen`) quiet this long gets a keep-alive
    /// comment, so proxies keep it open. Default 15 s.
    pub sse_keep_alive: Duration,
    /// The key that seals the `requestState` of 2026-07-28 multi round-trip requests. Every
    /// instance serving the same clients needs the same key. Default: the
    /// `MCP_REQUEST_STATE_KEY` environment variable, else a random key made at start (with a
    /// warning: states then only work on this instance, until it restarts).
    pub request_state_key: Option<SealingKey>,
    /// How long a `requestState` stays valid after it is issued. Default 10 minutes.
    pub request_state_ttl: Duration,
    /// How long a task (tasks extension) is kept after its creation; a task still running
    /// then is stopped. Default 1 hour.
    pub task_ttl: Duration,
    /// The `pollIntervalMs` suggested to clients polling `tasks/get`. Default 250 ms.
    pub task_poll_interval: Duration,
    /// Most tasks kept at once by the default in-memory task store. Default 10,000.
    pub max_tasks: usize,
    /// `ttlMs` and `cacheScope` of cacheable 2026-07-28 results.
    pub cache_hints: CacheHints,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            allowed_hosts: vec!["localhost".into(), "127.0.0.1".into(), "::1".into()],
            body_limit: 4 * 1024 * 1024,
            session_idle_timeout: Some(Duration::from_secs(30 * 60)),
            max_sessions: 100_000,
            allow_sessionless: false,
            page_size: 100,
            replay_window: 128,
            buffered_messages: 128,
            client_request_timeout: Duration::from_secs(60),
            sse_retry_ms: 1_000,
            sse_responses: false,
            sse_keep_alive: Duration::from_secs(15),
            request_state_key: None,
            request_state_ttl: Duration::from_secs(10 * 60),
            task_ttl: Duration::from_secs(60 * 60),
            task_poll_interval: Duration::from_millis(250),
            max_tasks: 10_000,
            cache_hints: CacheHints::default(),
        }
    }
}

/// A generated server with its configuration and sessions: what the transports serve.
///
/// Cheap to clone (it is an `Arc`).
pub struct McpServer<D> {
    pub(crate) core: Arc<Core<D>>,
}

impl<D> Clone for McpServer<D> {
    fn clone(&self) -> Self {
        Self {
            core: self.core.clone(),
        }
    }
}

pub(crate) struct Core<D> {
    pub(crate) dispatch: D,
    pub(crate) config: Config,
    pub(crate) store: Arc<dyn SessionStore>,
    pub(crate) notifier: Notifier,
    pub(crate) sealer: StateSealer,
    /// The tool arguments mirrored in `Mcp-Param-*` headers.
    pub(crate) param_headers: ParamHeaders,
    /// Tool calls that became tasks.
    pub(crate) tasks: Arc<Tasks>,
    /// The `initialize` result of each revision, built on first use (it never changes).
    initialize_results: [OnceLock<String>; ProtocolVersion::ALL.len()],
}

impl<D: Dispatch> McpServer<D> {
    /// Serves `dispatch` (a generated `Server<H>`) with the default [`Config`].
    pub fn new(dispatch: D) -> Self {
        Self::with_config(dispatch, Config::default())
    }

    /// Serves `dispatch` with `config`, keeping sessions in memory.
    pub fn with_config(dispatch: D, config: Config) -> Self {
        let store: Arc<dyn SessionStore> = Arc::new(MemorySessionStore::new(config.max_sessions));
        Self::with_store(dispatch, config, store)
    }

    /// Serves `dispatch` with `config`, keeping sessions in `store`.
    pub fn with_store(dispatch: D, config: Config, store: Arc<dyn SessionStore>) -> Self {
        let task_store: Arc<dyn TaskStore> = Arc::new(MemoryTaskStore::new(config.max_tasks));
        Self::with_stores(dispatch, config, store, task_store)
    }

    /// Serves `dispatch` with `config`, keeping sessions in `store` and tasks in `task_store`.
    pub fn with_stores(
        dispatch: D,
        config: Config,
        store: Arc<dyn SessionStore>,
        task_store: Arc<dyn TaskStore>,
    ) -> Self {
        let tasks = Arc::new(Tasks::new(
            task_store,
            config.task_ttl,
            config.task_poll_interval,
        ));
        let notifier = Notifier::new(store.clone());
        let sealer = StateSealer::new(sealing_key(&config), config.request_state_ttl);
        let param_headers = ParamHeaders::from_catalog(dispatch.catalog());
        Self {
            core: Arc::new(Core {
                dispatch,
                config,
                store,
                notifier,
                sealer,
                param_headers,
                tasks,
                initialize_results: Default::default(),
            }),
        }
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.core.config
    }

    /// The handle to announce list changes and resource updates.
    pub fn notifier(&self) -> Notifier {
        self.core.notifier.clone()
    }

    /// The session store.
    pub fn sessions(&self) -> &Arc<dyn SessionStore> {
        &self.core.store
    }

    /// The generated dispatch.
    pub fn dispatch(&self) -> &D {
        &self.core.dispatch
    }
}

/// The configured sealing key, else the environment's, else a random one (with a warning).
fn sealing_key(config: &Config) -> SealingKey {
    if let Some(key) = &config.request_state_key {
        return key.clone();
    }
    match SealingKey::from_env() {
        Ok(Some(key)) => key,
        Ok(None) => {
            tracing::warn!(
                "{KEY_ENV} is not set: requestState is sealed with a random key, so multi \
                 round-trip requests only resume on this instance and until it restarts"
            );
            SealingKey::random()
        }
        Err(error) => {
            tracing::error!(%error, "ignoring the requestState key; using a random one");
            SealingKey::random()
        }
    }
}

/// The request a multi round-trip state is bound to: method, name and arguments (absent
/// arguments count as `{}`).
fn binding(method: &str, name: &str, arguments: Option<&RawValue>) -> Binding {
    let arguments = arguments
        .and_then(|a| serde_json::from_str::<Value>(a.get()).ok())
        .unwrap_or_else(|| json!({}));
    Binding::new(method, name, Some(&arguments))
}

/// Awaits a handler's future; a panic becomes `-32603` and an error log line.
async fn caught(
    future: crate::BoxFuture<'_, Result<Box<RawValue>, RpcError>>,
    kind: &str,
    name: &str,
) -> Result<JsonText, RpcError> {
    match CatchUnwind::new(future).await {
        Ok(result) => result.map(JsonText::from),
        Err(panic) => {
            tracing::error!(kind, name, %panic, "handler panicked");
            Err(RpcError::internal(format!(
                "Internal error: the {kind} handler failed unexpectedly"
            )))
        }
    }
}

/// `resources/subscribe` and `resources/unsubscribe` params.
#[derive(Deserialize)]
struct UriParams<'a> {
    #[serde(borrow)]
    uri: Cow<'a, str>,
}

#[derive(Deserialize, Default)]
struct CursorParams<'a> {
    #[serde(borrow, default, deserialize_with = "crate::params::borrowed_str")]
    cursor: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct CompleteParams<'a> {
    #[serde(rename = "ref", borrow)]
    reference: CompleteRef<'a>,
    #[serde(borrow)]
    argument: CompleteArgument<'a>,
}

#[derive(Deserialize)]
struct CompleteRef<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(borrow, default, deserialize_with = "crate::params::borrowed_str")]
    name: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "crate::params::borrowed_str")]
    uri: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct CompleteArgument<'a> {
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(borrow, default)]
    value: Cow<'a, str>,
}

#[derive(Deserialize)]
struct SetLevelParams {
    level: LoggingLevel,
}

#[derive(Deserialize)]
struct InitializeParams<'a> {
    #[serde(rename = "protocolVersion", borrow)]
    protocol_version: Cow<'a, str>,
    #[serde(borrow, default)]
    capabilities: Option<&'a RawValue>,
    #[serde(rename = "clientInfo", borrow, default)]
    client_info: Option<&'a RawValue>,
}

/// `-32602` for a tool or prompt (`what`) the server does not have.
fn unknown(what: &str, name: &str) -> RpcError {
    RpcError::invalid_params(format!("Unknown {what}: {name}"))
}

fn params_as<'a, T: Deserialize<'a>>(params: Option<&'a RawValue>) -> Result<T, RpcError> {
    let text = params.map_or("{}", RawValue::get);
    serde_json::from_str(text).map_err(|e| RpcError::invalid_params(format!("Invalid params: {e}")))
}

/// Text this module wrote (with `serde_json` or escaping it controls) as a result.
fn raw(json: String) -> JsonText {
    JsonText::trusted(json)
}

const EMPTY_RESULT: &str = "{}";

/// Adds `resultType: "complete"` and, for cacheable results, `ttlMs` and `cacheScope` to a
/// result object, in place.
fn decorate(mut result: JsonText, cache: Option<(u64, &str)>) -> JsonText {
    // An `InputRequiredResult` has its own `resultType` and is never cacheable.
    if result.starts_with_member("resultType") {
        return result;
    }
    match cache {
        None => result.prepend_members(r#""resultType":"complete""#),
        Some((ttl, scope)) => result.prepend_members(&format!(
            r#""resultType":"complete","ttlMs":{ttl},"cacheScope":"{scope}""#
        )),
    }
    result
}

impl<D: Dispatch> Core<D> {
    /// Creates the session `initialize` asks for and its result.
    pub(crate) fn initialize(
        &self,
        params: Option<&RawValue>,
    ) -> Result<(Arc<Session>, JsonText), RpcError> {
        let params: InitializeParams<'_> = params_as(params)?;
        let version = ProtocolVersion::parse(&params.protocol_version)
            .filter(|v| !v.is_stateless())
            .unwrap_or(ProtocolVersion::LATEST_SESSION_ERA);
        let session = Arc::new(Session::from_initialize(
            version,
            params.capabilities.map(RawValue::to_owned),
            params.client_info.map(RawValue::to_owned),
            self.config.replay_window,
            self.config.buffered_messages,
        ));
        session.touch();
        let result = self.initialize_results[version.index()]
            .get_or_init(|| self.initialize_result(version))
            .clone();
        let result = raw(result);
        Ok((session, result))
    }

    fn initialize_result(&self, version: ProtocolVersion) -> String {
        let catalog = self.dispatch.catalog();
        let mut server_info =
            json!({"name": catalog.server.name, "version": catalog.server.version});
        if version >= ProtocolVersion::V2025_06_18 {
            if let Some(title) = catalog.server.title {
                server_info["title"] = json!(title);
            }
        }
        if version >= ProtocolVersion::V2025_11_25 {
            if let Some(url) = catalog.server.website_url {
                server_info["websiteUrl"] = json!(url);
            }
        }
        let mut result = json!({
            "protocolVersion": version.as_str(),
            "capabilities": self.capabilities(),
            "serverInfo": server_info,
        });
        if let Some(instructions) = catalog.instructions {
            result["instructions"] = json!(instructions);
        }
        result.to_string()
    }

    /// What the catalog lets the server offer.
    pub(crate) fn capabilities(&self) -> Value {
        let catalog = self.dispatch.catalog();
        let mut capabilities = json!({"logging": {}});
        if !catalog.tools.is_empty() {
            capabilities["tools"] = json!({"listChanged": true});
        }
        if !catalog.prompts.is_empty() {
            capabilities["prompts"] = json!({"listChanged": true});
        }
        if !catalog.resources.is_empty() || !catalog.resource_templates.is_empty() {
            capabilities["resources"] = json!({"subscribe": true, "listChanged": true});
        }
        if !catalog.prompts.is_empty() || !catalog.resource_templates.is_empty() {
            capabilities["completions"] = json!({});
        }
        capabilities
    }

    /// Answers one session-era request (anything but `initialize`). `call` holds the members
    /// of a call whose params were read with the envelope (then `params` is not read, and
    /// the context carries the progress token of its `_meta`).
    pub(crate) async fn handle(
        &self,
        session: &Arc<Session>,
        method: &str,
        params: Option<&RawValue>,
        call: Option<&CallMembers>,
        ctx: RequestContext,
    ) -> Result<JsonText, RpcError> {
        let version = session.version();
        let catalog = self.dispatch.catalog();
        match method {
            "ping" => Ok(raw(EMPTY_RESULT.into())),
            "logging/setLevel" => {
                let params: SetLevelParams = params_as(params)?;
                session.set_log_level(level_rank(params.level));
                Ok(raw(EMPTY_RESULT.into()))
            }
            "tools/list" => self.page("tools", catalog.tools, params, version),
            "prompts/list" => self.page("prompts", catalog.prompts, params, version),
            "resources/list" => self.page("resources", catalog.resources, params, version),
            "resources/templates/list" => self.page(
                "resourceTemplates",
                catalog.resource_templates,
                params,
                version,
            ),
            "tools/call" | "prompts/get" | "resources/read" => {
                let fields = match call {
                    Some(members) => members.params(),
                    None => RequestParams::parse(params)?,
                };
                // Members read with the envelope come without `_meta`: the transport put
                // their progress token in the context already.
                let ctx = match fields.progress_token() {
                    Some(token) => ctx.with_progress_token(Some(token)),
                    None => ctx,
                };
                match method {
                    "tools/call" => self.call_tool(&fields, ctx, version).await,
                    "prompts/get" => self.get_prompt(&fields, ctx, version).await,
                    _ => self.read_resource(&fields, ctx, version).await.map(|r| r.0),
                }
            }
            "resources/subscribe" | "resources/unsubscribe" => {
                let target: UriParams<'_> = params_as(params)?;
                if method == "resources/subscribe" {
                    session.subscribe(&target.uri);
                } else {
                    session.unsubscribe(&target.uri);
                }
                Ok(raw(EMPTY_RESULT.into()))
            }
            "completion/complete" => self.complete(params),
            "initialize" => Err(RpcError::new(
                jsonrpc::INVALID_REQUEST,
                "Invalid Request: the session is already initialized",
            )),
            _ => match self.dispatch.call_method(
                method,
                params,
                ctx.with_progress_token(params::progress_token(params)),
            ) {
                Some(future) => caught(future, "method", method).await,
                None => Err(RpcError::method_not_found(method)),
            },
        }
    }

    /// Answers one stateless (2026-07-28) request whose envelope and headers were validated:
    /// every result carries `resultType`, cacheable ones `ttlMs` and `cacheScope`. The call
    /// methods read `call`, the others `params`.
    pub(crate) async fn handle_stateless(
        &self,
        method: &str,
        params: Option<&RawValue>,
        call: &RequestParams<'_>,
        ctx: RequestContext,
    ) -> Result<JsonText, RpcError> {
        let hints = &self.config.cache_hints;
        let version = ProtocolVersion::V2026_07_28;
        let catalog = self.dispatch.catalog();
        let (result, cache) = match method {
            "server/discover" => (raw(self.discover_result()), hints.discover.pair()),
            "tools/list" => (
                self.page("tools", catalog.tools, params, version)?,
                hints.tools_list.pair(),
            ),
            "prompts/list" => (
                self.page("prompts", catalog.prompts, params, version)?,
                hints.prompts_list.pair(),
            ),
            "resources/list" => (
                self.page("resources", catalog.resources, params, version)?,
                hints.resources_list.pair(),
            ),
            "resources/templates/list" => (
                self.page(
                    "resourceTemplates",
                    catalog.resource_templates,
                    params,
                    version,
                )?,
                hints.resource_templates_list.pair(),
            ),
            "tools/call" => (self.call_tool(call, ctx, version).await?, None),
            "prompts/get" => (self.get_prompt(call, ctx, version).await?, None),
            "resources/read" => {
                let (result, retried) = self.read_resource(call, ctx, version).await?;
                // A read that took client input is specific to that exchange: never cached.
                let cache = if retried {
                    Some((0, "private"))
                } else {
                    hints.resources_read.pair()
                };
                (result, cache)
            }
            "completion/complete" => (self.complete(params)?, None),
            "tasks/get" | "tasks/update" | "tasks/cancel" => {
                // The capability gate comes before any task lookup.
                if !tasks::declared(ctx.client_capabilities()) {
                    return Err(tasks::extension_required().into_mcp_error());
                }
                let answer = match method {
                    "tasks/get" => self.tasks.get(params),
                    "tasks/update" => self.tasks.update(params),
                    _ => self.tasks.cancel(params),
                };
                (raw(answer?), None)
            }
            _ => return Err(RpcError::method_not_found(method)),
        };
        Ok(decorate(result, cache))
    }

    /// Runs one round of a call that may need client input (`tools/call`, `prompts/get`,
    /// `resources/read` of `target`). On the stateless revision the retry fields are opened
    /// first (a tampered, expired or foreign `requestState` is refused before the handler
    /// runs), and a failure while input requests are pending (and no answer was malformed)
    /// becomes the `InputRequiredResult` that asks for them. `run` gets the context and returns
    /// the answer and whether the handler failed.
    async fn round<Run, Answer>(
        &self,
        version: ProtocolVersion,
        (method, target, arguments): (&str, &str, Option<&RawValue>),
        call: &RequestParams<'_>,
        ctx: RequestContext,
        run: Run,
    ) -> Result<JsonText, RpcError>
    where
        Run: FnOnce(RequestContext) -> Answer,
        Answer: Future<Output = (Result<JsonText, RpcError>, bool)>,
    {
        if !version.is_stateless() {
            return run(ctx).await.0;
        }
        let bind = || binding(method, target, arguments);
        let (ctx, outbound) = ctx.in_rounds();
        if call.is_retry() {
            outbound.start_round(InputRound::start(
                &self.sealer,
                bind,
                call.input_responses,
                call.request_state.as_deref(),
            )?);
        }
        let (answer, failed) = run(ctx).await;
        match outbound.input_round() {
            Some(round) if failed && round.needs_input() => {
                round.input_required_result(&self.sealer, bind())
            }
            _ => answer,
        }
    }

    /// `tools/call` at `version`: a panic or a failure is an `isError` result; an unknown tool
    /// is `-32602`.
    async fn call_tool(
        &self,
        call: &RequestParams<'_>,
        ctx: RequestContext,
        version: ProtocolVersion,
    ) -> Result<JsonText, RpcError> {
        let name = call.name()?;
        let target = ("tools/call", name, call.arguments);
        self.round(version, target, call, ctx, |ctx| async move {
            let Some(future) = self.dispatch.call_tool(name, call.arguments, ctx) else {
                return (Err(unknown("tool", name)), false);
            };
            let outcome = CatchUnwind::new(future).await.unwrap_or_else(|panic| {
                tracing::error!(tool = %name, %panic, "tool handler panicked");
                ToolOutcome::Failed(crate::Error::new(format!(
                    "the tool failed unexpectedly: {panic}"
                )))
            });
            let failed = matches!(outcome, ToolOutcome::Failed(_));
            (outcome.into_call_tool_result(version), failed)
        })
        .await
    }

    /// `prompts/get`; an unknown prompt is `-32602`.
    async fn get_prompt(
        &self,
        call: &RequestParams<'_>,
        ctx: RequestContext,
        version: ProtocolVersion,
    ) -> Result<JsonText, RpcError> {
        let name = call.name()?;
        let target = ("prompts/get", name, call.arguments);
        self.round(version, target, call, ctx, |ctx| async move {
            let result = match self.dispatch.get_prompt(name, call.arguments, ctx) {
                Some(future) => caught(future, "prompt", name).await,
                None => Err(unknown("prompt", name)),
            };
            let failed = result.is_err();
            (result, failed)
        })
        .await
    }

    /// `resources/read`, and whether the request carried client input (a retry). An unknown
    /// URI is `-32002` on a session and `-32602` from 2026-07-28 on (never an empty
    /// `contents`).
    async fn read_resource(
        &self,
        read: &RequestParams<'_>,
        ctx: RequestContext,
        version: ProtocolVersion,
    ) -> Result<(JsonText, bool), RpcError> {
        let uri = read.uri()?;
        let target = ("resources/read", uri, None);
        let result = self.round(version, target, read, ctx, |ctx| async move {
            let result = match self.dispatch.read_resource(uri, ctx) {
                Some(future) => caught(future, "resource", uri).await,
                None if version.is_stateless() => Err(RpcError::invalid_params(format!(
                    "Resource not found: {uri}"
                ))
                .with_data(json!({ "uri": uri }))),
                None => Err(
                    RpcError::new(jsonrpc::RESOURCE_NOT_FOUND, "Resource not found")
                        .with_data(json!({ "uri": uri })),
                ),
            };
            let failed = result.is_err();
            (result, failed)
        });
        Ok((result.await?, read.is_retry()))
    }

    /// The `server/discover` result (before `resultType` and cache hints are added).
    fn discover_result(&self) -> String {
        let catalog = self.dispatch.catalog();
        // Change notifications reach clients through `subscriptions/listen`.
        let mut capabilities = json!({});
        if !catalog.tools.is_empty() {
            capabilities["tools"] = json!({"listChanged": true});
        }
        if !catalog.prompts.is_empty() {
            capabilities["prompts"] = json!({"listChanged": true});
        }
        if !catalog.resources.is_empty() || !catalog.resource_templates.is_empty() {
            capabilities["resources"] = json!({"subscribe": true, "listChanged": true});
        }
        if !catalog.prompts.is_empty() || !catalog.resource_templates.is_empty() {
            capabilities["completions"] = json!({});
        }
        if !catalog.tools.is_empty() {
            capabilities["extensions"] = json!({ TASKS_EXTENSION: {} });
        }
        let mut server_info =
            json!({"name": catalog.server.name, "version": catalog.server.version});
        if let Some(title) = catalog.server.title {
            server_info["title"] = json!(title);
        }
        if let Some(url) = catalog.server.website_url {
            server_info["websiteUrl"] = json!(url);
        }
        let versions: Vec<&str> = ProtocolVersion::ALL.iter().map(|v| v.as_str()).collect();
        let mut result = json!({
            "supportedVersions": versions,
            "capabilities": capabilities,
            "_meta": {"io.modelcontextprotocol/serverInfo": server_info},
        });
        if let Some(instructions) = catalog.instructions {
            result["instructions"] = json!(instructions);
        }
        result.to_string()
    }

    /// `completion/complete`: the declared values of the argument that start with what the
    /// user typed (case-insensitively), at most 100.
    fn complete(&self, params: Option<&RawValue>) -> Result<JsonText, RpcError> {
        let request: CompleteParams<'_> = params_as(params)?;
        let catalog = self.dispatch.catalog();
        let reference = &request.reference;
        let (kind, target) =
            match (reference.kind.as_ref(), &reference.name, &reference.uri) {
                ("ref/prompt", Some(name), _) => {
                    if catalog.prompt(name).is_none() {
                        return Err(RpcError::invalid_params(format!("Unknown prompt: {name}")));
                    }
                    (CompletionKind::Prompt, name.as_ref())
                }
                ("ref/resource", _, Some(uri)) => (CompletionKind::Resource, uri.as_ref()),
                _ => return Err(RpcError::invalid_params(
                    "Invalid params: ref must be ref/prompt with a name or ref/resource with a uri",
                )),
            };
        let typed = request.argument.value.to_lowercase();
        let matching: Vec<&str> = catalog
            .completions
            .iter()
            .filter(|c| {
                c.kind == kind && c.reference == target && c.argument == request.argument.name
            })
            .flat_map(|c| c.values.iter().copied())
            .filter(|v| v.to_lowercase().starts_with(&typed))
            .collect();
        let total = matching.len();
        let values = &matching[..total.min(100)];
        let has_more = total > values.len();
        Ok(raw(
            json!({"completion": {"values": values, "total": total, "hasMore": has_more}})
                .to_string(),
        ))
    }

    /// One page of a list, from the precomputed descriptors of `version`.
    fn page(
        &self,
        key: &str,
        descriptors: &[Descriptor],
        params: Option<&RawValue>,
        version: ProtocolVersion,
    ) -> Result<JsonText, RpcError> {
        let cursor: CursorParams<'_> = params_as(params)?;
        let start = match cursor.cursor.as_deref() {
            None | Some("") => 0,
            Some(text) => text
                .parse::<usize>()
                .ok()
                .filter(|&n| n <= descriptors.len())
                .ok_or_else(|| RpcError::invalid_params(format!("Invalid cursor: {text}")))?,
        };
        let end = (start + self.config.page_size.max(1)).min(descriptors.len());
        let mut out = String::with_capacity(
            64 + descriptors[start..end]
                .iter()
                .map(|d| d.json_for(version).len() + 1)
                .sum::<usize>(),
        );
        out.push_str("{\"");
        out.push_str(key);
        out.push_str("\":[");
        for (i, descriptor) in descriptors[start..end].iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str(descriptor.json_for(version));
        }
        out.push(']');
        if end < descriptors.len() {
            out.push_str(&format!(",\"nextCursor\":\"{end}\""));
        }
        out.push('}');
        Ok(raw(out))
    }

    /// A context for a request of `session` (the method's dispatch adds the progress token).
    pub(crate) fn context(&self, session: &Arc<Session>) -> RequestContext {
        RequestContext::new(session.version())
            .with_session(session.clone())
            .with_notifier(self.notifier.clone())
            .with_client_request_timeout(self.config.client_request_timeout)
    }
}
