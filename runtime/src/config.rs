//! [`Config`]: the settings of a server, every bound named with its default, and the cache
//! hints of 2026-07-28 results.

use std::time::Duration;

use crate::request_state::SealingKey;

/// [`Config::health_path`] by default.
pub(crate) const DEFAULT_HEALTH_PATH: &str = "/healthz";
/// [`Config::ready_path`] by default.
pub(crate) const DEFAULT_READY_PATH: &str = "/readyz";

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

    pub(crate) fn pair(self) -> Option<(u64, &'static str)> {
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
///
/// A server binary ([`crate::entry`]) also takes every setting an operator changes as a flag
/// and an `MCP_*` environment variable (`--help` lists them), over the `Config` it starts from.
///
/// Build one with [`Config::builder`], or start from [`Config::default`] and set fields. The
/// struct is `#[non_exhaustive]`, so new settings can be added without breaking callers: it
/// cannot be written as a struct literal outside this crate.
///
/// ```
/// use std::time::Duration;
/// use mcp_runtime::Config;
///
/// let config = Config::builder()
///     .body_limit(1024 * 1024)
///     .session_idle_timeout(Some(Duration::from_secs(600)))
///     .sse_responses(true)
///     .build();
/// assert_eq!(config.body_limit, 1024 * 1024);
///
/// let mut config = Config::default();
/// config.page_size = 20;
/// assert_eq!(config.page_size, 20);
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Config {
    /// Host names accepted in `Host` and `Origin` (DNS-rebinding protection). Default: the
    /// loopback names `localhost`, `127.0.0.1`, `::1`.
    pub allowed_hosts: Vec<String>,
    /// Largest request body, in bytes (413 above). Default 4 MiB.
    pub body_limit: usize,
    /// Largest request header block, in bytes (431 above). Default 64 KiB.
    pub max_header_bytes: usize,
    /// How long a client may take to send a request's body (408 past it). Default 30 s.
    pub body_read_timeout: Duration,
    /// Most connections open at once: further ones wait in the listen backlog until one
    /// closes, and the open ones are served as usual. Default 10,000.
    pub max_connections: usize,
    /// Most connections open at once from one peer address: one more is closed as soon as it
    /// is accepted, so that one client cannot hold every place of [`Config::max_connections`].
    /// Behind a reverse proxy every connection comes from the proxy's address: set it to
    /// `max_connections` there (the proxy bounds its clients). Default 1,000.
    pub max_connections_per_peer: usize,
    /// A connection with no response in progress that completes no request's headers for
    /// this long (up to 1.5 times this long) is closed: an idle keep-alive connection, or a
    /// client sending its headers too slowly. Default 30 s.
    pub idle_connection_timeout: Duration,
    /// On shutdown, how long running requests and open responses get to finish before the
    /// server stops waiting for them. Default 10 s.
    pub shutdown_grace: Duration,
    /// A session unused this long is evicted; `None` disables expiry. Default 30 minutes.
    pub session_idle_timeout: Option<Duration>,
    /// Most sessions alive at once (503 above); with sessions shared through Redis, in the
    /// whole deployment. Default 100,000.
    pub max_sessions: usize,
    /// How long a session may live however busy it is; `None`: as long as it is used.
    /// Default 24 hours.
    pub session_max_lifetime: Option<Duration>,
    /// Most bytes of `clientInfo` and `capabilities` a session keeps from `initialize`
    /// (-32602 above). Default 16 KiB.
    pub max_client_json_bytes: usize,
    /// Most resources one session subscribes to at once (`resources/subscribe`), and most
    /// resource URIs one `subscriptions/listen` stream names (-32602 above). Default 1,000.
    pub max_subscriptions: usize,
    /// Most bytes of resource URIs one session holds subscriptions for, and one
    /// `subscriptions/listen` stream names (-32602 above); one URI is at most
    /// 8 KiB whatever this says (longer ones name no resource). Default 64 KiB.
    pub max_subscription_bytes: usize,
    /// Most bytes of a client's answer (to a server-to-client request of a shared session)
    /// that one instance publishes on the bus for the instance waiting for it; a larger one is
    /// dropped with a warning, and the request it answers times out. Only answers to ids some
    /// instance minted travel at all. Default 1 MiB.
    pub max_bus_answer_bytes: usize,
    /// Most messages in one JSON-RPC batch (a 2025-03-26 session's, or the plain JSON-RPC
    /// endpoint's): a longer one is refused whole with -32600. Default 64.
    pub max_batch_len: usize,
    /// Most requests one session runs at once past their first step (a handler that waits:
    /// on the client, a stream, time): one more is refused with 503 and -32000. Default 64.
    pub max_session_requests: usize,
    /// Most elements of one plain JSON-RPC batch that run at once (the rest wait their turn;
    /// answers keep the batch's order). 2025-03-26 batches run one at a time. Default 4.
    pub batch_concurrency: usize,
    /// Most server-to-client requests (sampling, elicitation, roots) one session awaits
    /// answers to at once; a handler asking more gets an error. Default 64.
    pub max_pending_client_requests: usize,
    /// Most `subscriptions/listen` streams open at once (-32603 above). Default 10,000.
    pub max_listen_streams: usize,
    /// With authorization on: most `subscriptions/listen` streams one principal holds open at
    /// once on this instance, from whatever addresses (503 and -32603 above). Without it, each
    /// stream holds a connection, which [`Config::max_connections_per_peer`] bounds. Default 32.
    pub max_listen_streams_per_principal: usize,
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
    /// The key sealing `requestState` before the last rotation: states it sealed still open
    /// (until [`Config::request_state_ttl`] after their issue), new ones are sealed with
    /// [`Config::request_state_key`]. Default: the `MCP_REQUEST_STATE_PREVIOUS_KEY`
    /// environment variable (same form as `MCP_REQUEST_STATE_KEY`; empty means none), else
    /// none.
    pub request_state_previous_key: Option<SealingKey>,
    /// Accept each `requestState` once: the server remembers the states it opened until they
    /// expire (at most [`crate::request_state::SINGLE_USE_CAPACITY`]) and refuses a replay
    /// with `-32602`. Costs a lookup on retries only, never on first calls. Per instance: with
    /// several instances and no affinity, a state can be redeemed once on each. A client whose
    /// retry was lost must start the request again. Default false (a state can be replayed
    /// with the same request until it expires).
    pub request_state_single_use: bool,
    /// Bytes of answers and notifications waiting for stdout before the stdio transport stops
    /// reading requests, until the client reads (back-pressure). Requests already running
    /// still answer: nothing queued is dropped. Default 1 MiB.
    pub stdio_output_limit: usize,
    /// The path of the plain JSON-RPC endpoint (e.g. `/jsonrpc`): every method of the
    /// contract, with or without `x-mcp`, as ordinary JSON-RPC 2.0 over HTTP POST, plus
    /// `rpc.discover` (see `http::jsonrpc`). Same Host/Origin checks and body limits as `/mcp`.
    /// It must start with `/` and differ from `/mcp`. Default `None`: no such endpoint (404).
    pub jsonrpc_path: Option<String>,
    /// Authorization of HTTP requests (an OAuth 2.1 resource server, see [`crate::auth`]):
    /// who authenticates, the metadata served at `/.well-known/oauth-protected-resource`,
    /// the scopes every request needs. stdio is never authenticated. Default `None`: every
    /// request is served.
    pub auth: Option<crate::auth::Auth>,
    /// Serve the contract's server card (SEP-2127) at `/mcp/server-card`, listed by the MCP
    /// Catalog at `/.well-known/mcp/catalog.json` (and `/.well-known/ai-catalog.json`), with
    /// CORS open to every origin, as public discovery documents are. Default `false`: 404.
    /// A contract without `info["x-mcp"].card` has no card to serve.
    pub server_card: bool,
    /// The public URL of the MCP endpoint (e.g. `https://mcp.example.com/mcp`), as clients reach
    /// it through proxies: what the server card and catalog list. Default `None`: built from the
    /// request's (checked) `Host` as `http://{host}/mcp`.
    pub public_url: Option<String>,
    /// Also serve the 2024-11-05 HTTP+SSE transport (see `http::legacy_sse`): `GET /sse`
    /// opens a session's stream, whose first event (`endpoint`) names the
    /// `POST /messages?sessionId=…` URL its client messages go to; every answer and server
    /// message comes on the stream. Same Host/Origin checks, body limits and session limits as
    /// `/mcp`. Default false: `/sse` and `/messages` answer 404.
    pub legacy_sse: bool,
    /// Return a call's spans to a client that asks (`_meta.otel.traces.request` in a
    /// `tools/call`, `prompts/get` or `resources/read`; draft SEP-2448): the request span and
    /// the handler's spans under it, as OTLP JSON in the result's `_meta.otel.traces`, bounded
    /// (see `telemetry::passback`, feature `otel`; the process's subscriber needs its layer,
    /// which `entry` installs). Default `false`: spans name a server's internals, so a client
    /// gets them only where the operator chose to show them.
    pub return_traces: bool,
    /// The path of the liveness probe (e.g. for a kubelet's `livenessProbe`): 200 while the
    /// process serves, until it exits. Served only under the runtime's own listener
    /// ([`McpServer::serve`](crate::McpServer::serve)), before the Host, Origin and
    /// authorization checks. Default `Some("/healthz")`; `None`: no such endpoint (404).
    pub health_path: Option<String>,
    /// The path of the readiness probe: 200 while [`Config::readiness`] is ready, 503 naming
    /// why not (draining after SIGTERM, Redis or the issuer's keys unreachable). Served as
    /// [`Config::health_path`] is. Default `Some("/readyz")`; `None`: no such endpoint.
    pub ready_path: Option<String>,
    /// Whether the server is ready for traffic, as the readiness probe reports it (shared by
    /// clones of this `Config`). Default: ready, until the server sets a reason.
    pub readiness: crate::readiness::Readiness,
    /// Audit records: one `tracing` event per call on the target `mcp::audit`
    /// ([`crate::audit`]). Default `None`: none, and nothing paid for them.
    pub audit: Option<crate::audit::settings::Audit>,
    /// Rate limits per caller and per tool ([`crate::rate_limit`]), over the contract's
    /// `x-mcp.rateLimit`. Default `None`: only the contract's, if it has any.
    pub rate_limits: Option<crate::rate_limit::settings::RateLimits>,
}

impl Config {
    /// A [`ConfigBuilder`] starting from [`Config::default`].
    pub fn builder() -> ConfigBuilder {
        ConfigBuilder::default()
    }
}

impl Default for Config {
    fn default() -> Self {
        Self {
            allowed_hosts: vec!["localhost".into(), "127.0.0.1".into(), "::1".into()],
            body_limit: 4 * 1024 * 1024,
            max_header_bytes: 64 * 1024,
            body_read_timeout: Duration::from_secs(30),
            max_connections: 10_000,
            max_connections_per_peer: 1_000,
            idle_connection_timeout: Duration::from_secs(30),
            shutdown_grace: Duration::from_secs(10),
            session_idle_timeout: Some(Duration::from_secs(30 * 60)),
            max_sessions: 100_000,
            session_max_lifetime: Some(Duration::from_secs(24 * 60 * 60)),
            max_client_json_bytes: 16 * 1024,
            max_subscriptions: 1_000,
            max_subscription_bytes: 64 * 1024,
            max_bus_answer_bytes: 1024 * 1024,
            max_batch_len: 64,
            max_session_requests: 64,
            batch_concurrency: 4,
            max_pending_client_requests: 64,
            max_listen_streams: 10_000,
            max_listen_streams_per_principal: 32,
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
            request_state_previous_key: None,
            request_state_single_use: false,
            stdio_output_limit: 1024 * 1024,
            jsonrpc_path: None,
            auth: None,
            server_card: false,
            return_traces: false,
            public_url: None,
            legacy_sse: false,
            health_path: Some(DEFAULT_HEALTH_PATH.into()),
            ready_path: Some(DEFAULT_READY_PATH.into()),
            readiness: crate::readiness::Readiness::default(),
            audit: None,
            rate_limits: None,
        }
    }
}

/// Builds a [`Config`]: starts from [`Config::default`]; each method sets the field of the same
/// name; [`build`](Self::build) returns the result. See [`Config`] for an example.
#[derive(Debug, Clone, Default)]
#[must_use]
pub struct ConfigBuilder {
    config: Config,
}

impl ConfigBuilder {
    /// Sets [`Config::allowed_hosts`].
    pub fn allowed_hosts(mut self, allowed_hosts: Vec<String>) -> Self {
        self.config.allowed_hosts = allowed_hosts;
        self
    }

    /// Sets [`Config::body_limit`].
    pub fn body_limit(mut self, body_limit: usize) -> Self {
        self.config.body_limit = body_limit;
        self
    }

    /// Sets [`Config::max_header_bytes`].
    pub fn max_header_bytes(mut self, max_header_bytes: usize) -> Self {
        self.config.max_header_bytes = max_header_bytes;
        self
    }

    /// Sets [`Config::body_read_timeout`].
    pub fn body_read_timeout(mut self, body_read_timeout: Duration) -> Self {
        self.config.body_read_timeout = body_read_timeout;
        self
    }

    /// Sets [`Config::max_connections`].
    pub fn max_connections(mut self, max_connections: usize) -> Self {
        self.config.max_connections = max_connections;
        self
    }

    /// Sets [`Config::max_connections_per_peer`].
    pub fn max_connections_per_peer(mut self, max_connections_per_peer: usize) -> Self {
        self.config.max_connections_per_peer = max_connections_per_peer;
        self
    }

    /// Sets [`Config::idle_connection_timeout`].
    pub fn idle_connection_timeout(mut self, idle_connection_timeout: Duration) -> Self {
        self.config.idle_connection_timeout = idle_connection_timeout;
        self
    }

    /// Sets [`Config::shutdown_grace`].
    pub fn shutdown_grace(mut self, shutdown_grace: Duration) -> Self {
        self.config.shutdown_grace = shutdown_grace;
        self
    }

    /// Sets [`Config::session_idle_timeout`].
    pub fn session_idle_timeout(mut self, session_idle_timeout: Option<Duration>) -> Self {
        self.config.session_idle_timeout = session_idle_timeout;
        self
    }

    /// Sets [`Config::max_sessions`].
    pub fn max_sessions(mut self, max_sessions: usize) -> Self {
        self.config.max_sessions = max_sessions;
        self
    }

    /// Sets [`Config::session_max_lifetime`].
    pub fn session_max_lifetime(mut self, session_max_lifetime: Option<Duration>) -> Self {
        self.config.session_max_lifetime = session_max_lifetime;
        self
    }

    /// Sets [`Config::max_client_json_bytes`].
    pub fn max_client_json_bytes(mut self, max_client_json_bytes: usize) -> Self {
        self.config.max_client_json_bytes = max_client_json_bytes;
        self
    }

    /// Sets [`Config::max_subscriptions`].
    pub fn max_subscriptions(mut self, max_subscriptions: usize) -> Self {
        self.config.max_subscriptions = max_subscriptions;
        self
    }

    /// Sets [`Config::max_subscription_bytes`].
    pub fn max_subscription_bytes(mut self, max_subscription_bytes: usize) -> Self {
        self.config.max_subscription_bytes = max_subscription_bytes;
        self
    }

    /// Sets [`Config::max_bus_answer_bytes`].
    pub fn max_bus_answer_bytes(mut self, max_bus_answer_bytes: usize) -> Self {
        self.config.max_bus_answer_bytes = max_bus_answer_bytes;
        self
    }

    /// Sets [`Config::max_batch_len`].
    pub fn max_batch_len(mut self, max_batch_len: usize) -> Self {
        self.config.max_batch_len = max_batch_len;
        self
    }

    /// Sets [`Config::max_session_requests`].
    pub fn max_session_requests(mut self, max_session_requests: usize) -> Self {
        self.config.max_session_requests = max_session_requests;
        self
    }

    /// Sets [`Config::batch_concurrency`] (at least 1).
    pub fn batch_concurrency(mut self, batch_concurrency: usize) -> Self {
        self.config.batch_concurrency = batch_concurrency.max(1);
        self
    }

    /// Sets [`Config::max_pending_client_requests`].
    pub fn max_pending_client_requests(mut self, max_pending_client_requests: usize) -> Self {
        self.config.max_pending_client_requests = max_pending_client_requests;
        self
    }

    /// Sets [`Config::max_listen_streams`].
    pub fn max_listen_streams(mut self, max_listen_streams: usize) -> Self {
        self.config.max_listen_streams = max_listen_streams;
        self
    }

    /// Sets [`Config::max_listen_streams_per_principal`].
    pub fn max_listen_streams_per_principal(
        mut self,
        max_listen_streams_per_principal: usize,
    ) -> Self {
        self.config.max_listen_streams_per_principal = max_listen_streams_per_principal;
        self
    }

    /// Sets [`Config::allow_sessionless`].
    pub fn allow_sessionless(mut self, allow_sessionless: bool) -> Self {
        self.config.allow_sessionless = allow_sessionless;
        self
    }

    /// Sets [`Config::page_size`].
    pub fn page_size(mut self, page_size: usize) -> Self {
        self.config.page_size = page_size;
        self
    }

    /// Sets [`Config::replay_window`].
    pub fn replay_window(mut self, replay_window: usize) -> Self {
        self.config.replay_window = replay_window;
        self
    }

    /// Sets [`Config::buffered_messages`].
    pub fn buffered_messages(mut self, buffered_messages: usize) -> Self {
        self.config.buffered_messages = buffered_messages;
        self
    }

    /// Sets [`Config::client_request_timeout`].
    pub fn client_request_timeout(mut self, client_request_timeout: Duration) -> Self {
        self.config.client_request_timeout = client_request_timeout;
        self
    }

    /// Sets [`Config::sse_retry_ms`].
    pub fn sse_retry_ms(mut self, sse_retry_ms: u64) -> Self {
        self.config.sse_retry_ms = sse_retry_ms;
        self
    }

    /// Sets [`Config::sse_responses`].
    pub fn sse_responses(mut self, sse_responses: bool) -> Self {
        self.config.sse_responses = sse_responses;
        self
    }

    /// Sets [`Config::sse_keep_alive`].
    pub fn sse_keep_alive(mut self, sse_keep_alive: Duration) -> Self {
        self.config.sse_keep_alive = sse_keep_alive;
        self
    }

    /// Sets [`Config::request_state_key`].
    pub fn request_state_key(mut self, request_state_key: Option<SealingKey>) -> Self {
        self.config.request_state_key = request_state_key;
        self
    }

    /// Sets [`Config::request_state_ttl`].
    pub fn request_state_ttl(mut self, request_state_ttl: Duration) -> Self {
        self.config.request_state_ttl = request_state_ttl;
        self
    }

    /// Sets [`Config::task_ttl`].
    pub fn task_ttl(mut self, task_ttl: Duration) -> Self {
        self.config.task_ttl = task_ttl;
        self
    }

    /// Sets [`Config::task_poll_interval`].
    pub fn task_poll_interval(mut self, task_poll_interval: Duration) -> Self {
        self.config.task_poll_interval = task_poll_interval;
        self
    }

    /// Sets [`Config::max_tasks`].
    pub fn max_tasks(mut self, max_tasks: usize) -> Self {
        self.config.max_tasks = max_tasks;
        self
    }

    /// Sets [`Config::cache_hints`].
    pub fn cache_hints(mut self, cache_hints: CacheHints) -> Self {
        self.config.cache_hints = cache_hints;
        self
    }

    /// Sets [`Config::request_state_previous_key`].
    pub fn request_state_previous_key(
        mut self,
        request_state_previous_key: Option<SealingKey>,
    ) -> Self {
        self.config.request_state_previous_key = request_state_previous_key;
        self
    }

    /// Sets [`Config::request_state_single_use`].
    pub fn request_state_single_use(mut self, request_state_single_use: bool) -> Self {
        self.config.request_state_single_use = request_state_single_use;
        self
    }

    /// Sets [`Config::stdio_output_limit`].
    pub fn stdio_output_limit(mut self, stdio_output_limit: usize) -> Self {
        self.config.stdio_output_limit = stdio_output_limit;
        self
    }

    /// Sets [`Config::jsonrpc_path`].
    pub fn jsonrpc_path(mut self, jsonrpc_path: Option<String>) -> Self {
        self.config.jsonrpc_path = jsonrpc_path;
        self
    }

    /// Sets [`Config::auth`].
    pub fn auth(mut self, auth: Option<crate::auth::Auth>) -> Self {
        self.config.auth = auth;
        self
    }

    /// Sets [`Config::return_traces`].
    pub fn return_traces(mut self, return_traces: bool) -> Self {
        self.config.return_traces = return_traces;
        self
    }

    /// Sets [`Config::server_card`].
    pub fn server_card(mut self, server_card: bool) -> Self {
        self.config.server_card = server_card;
        self
    }

    /// Sets [`Config::public_url`].
    pub fn public_url(mut self, public_url: Option<String>) -> Self {
        self.config.public_url = public_url;
        self
    }

    /// Sets [`Config::legacy_sse`].
    pub fn legacy_sse(mut self, legacy_sse: bool) -> Self {
        self.config.legacy_sse = legacy_sse;
        self
    }

    /// Sets [`Config::rate_limits`].
    pub fn rate_limits(
        mut self,
        rate_limits: Option<crate::rate_limit::settings::RateLimits>,
    ) -> Self {
        self.config.rate_limits = rate_limits;
        self
    }

    /// Sets [`Config::audit`].
    pub fn audit(mut self, audit: Option<crate::audit::settings::Audit>) -> Self {
        self.config.audit = audit;
        self
    }

    /// Sets [`Config::health_path`].
    pub fn health_path(mut self, health_path: Option<String>) -> Self {
        self.config.health_path = health_path;
        self
    }

    /// Sets [`Config::ready_path`].
    pub fn ready_path(mut self, ready_path: Option<String>) -> Self {
        self.config.ready_path = ready_path;
        self
    }

    /// The built [`Config`].
    pub fn build(self) -> Config {
        self.config
    }
}
