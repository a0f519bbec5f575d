//! Every setting of a server binary: its flag, its environment variable, its `--help` group and
//! line, where it applies, how `--help` shows its default, and how its text reaches the
//! [`Parsed`] options. **To add a flag, add one [`Setting`] to [`SETTINGS`]** (and, when it sets
//! something other than [`Config`], a field to [`Parsed`]); `entry` builds the command line,
//! the environment fallback, the help and the error messages from the table.
//!
//! Checks that involve several settings (authorization, the `requestState` keys read from the
//! environment) are in [`finish`].

use std::net::SocketAddr;
use std::time::Duration;

use super::values::{
    cache_hint, count, duration, optional_duration, show_cache_hint, show_duration,
    show_optional_duration, show_size, show_switch, size, switch,
};
use super::LogFormat;
use crate::auth::AuthArgs;
use crate::config::{CacheScope, Config};
use crate::request_state::{SealingKey, KEY_ENV, PREVIOUS_KEY_ENV};

/// Where a setting applies. A flag given where it does not apply is refused; an environment
/// variable is ignored there (one environment can serve both transports).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scope {
    /// HTTP and stdio.
    Any,
    /// Streamable HTTP only (refused with `--stdio`).
    Http,
    /// `--stdio` only.
    Stdio,
}

/// One setting. See the module's documentation.
pub(crate) struct Setting {
    /// The long flag, without its dashes (`body-limit`).
    pub flag: &'static str,
    /// The environment variable read when the flag is not given (empty value: unset).
    pub env: &'static str,
    /// The value's name in `--help` (`SIZE`); `None` for a switch (a flag without a value,
    /// whose variable takes `1`/`true`/`on`/`yes` or `0`/`false`/`off`/`no`).
    pub value: Option<&'static str>,
    /// The `--help` group.
    pub heading: &'static str,
    /// The `--help` line (the variable and the default are added to it).
    pub help: &'static str,
    /// Where it applies.
    pub scope: Scope,
    /// The default `--help` shows, from the configuration the binary starts from (empty: none
    /// shown).
    pub default: fn(&Config) -> String,
    /// Reads the value given (for a switch given as a flag: `true`) into the options; the
    /// error says what is wrong, and the caller names the flag or variable.
    pub apply: fn(&mut Parsed, &Given<'_>) -> Result<(), String>,
}

/// A value of a setting, as given.
pub(crate) struct Given<'a> {
    /// The text (a switch given as a flag: `true`).
    pub text: &'a str,
    /// Whether it came from the command line (else from the environment).
    pub from_flag: bool,
    /// How errors cite it: `--flag VALUE` or `VAR=VALUE`.
    pub source: String,
}

/// What the settings produce, before [`finish`].
#[derive(Debug, Clone)]
pub(crate) struct Parsed {
    /// `--stdio` (decided before the other settings are read: see `entry::parse`).
    pub stdio: bool,
    /// `--addr`.
    pub addr: SocketAddr,
    /// Every setting that is a [`Config`] field.
    pub config: Config,
    /// `--log-level` / `RUST_LOG`: directives for [`crate::telemetry::parse_log_filter`].
    pub log_filter: String,
    /// `--log-format`.
    pub log_format: LogFormat,
    /// `--auth-*`: turned into [`Config::auth`] by [`finish`].
    pub auth: AuthArgs,
    /// How the current `requestState` key was given by a file (`--request-state-key-file`),
    /// if it was: whether by the flag (else by its variable).
    pub key_file_by_flag: Option<bool>,
    /// Likewise for the previous key.
    pub previous_key_file_by_flag: Option<bool>,
    /// The keys [`finish`] read from their variables: `request-state-key`,
    /// `request-state-previous-key`.
    pub keys_from_env: Vec<&'static str>,
    /// `--redis`: the URL, and the flag or variable it came from (errors name that, never the
    /// URL, which may hold a password).
    pub redis: Option<(String, &'static str)>,
    /// `--redis-prefix`.
    pub redis_prefix: String,
    /// `--metrics`: where to serve Prometheus metrics.
    pub metrics: Option<SocketAddr>,
}

impl Parsed {
    /// The options before any setting: `config`, listening on 127.0.0.1:8080.
    pub fn new(config: Config) -> Self {
        Self {
            stdio: false,
            addr: SocketAddr::from(([127, 0, 0, 1], 8080)),
            config,
            log_filter: DEFAULT_LOG_FILTER.into(),
            log_format: LogFormat::Text,
            auth: AuthArgs::default(),
            key_file_by_flag: None,
            previous_key_file_by_flag: None,
            keys_from_env: Vec::new(),
            redis: None,
            redis_prefix: DEFAULT_REDIS_PREFIX.into(),
            metrics: None,
        }
    }
}

/// The Redis key prefix without `--redis-prefix` (`stores::redis::DEFAULT_PREFIX`).
pub(crate) const DEFAULT_REDIS_PREFIX: &str = "mcp";

/// `--redis`'s help, which says when this build cannot use it (on a line of its own, so that
/// scripts can look for it).
const REDIS_HELP: &str = if cfg!(feature = "redis") {
    "share sessions, tasks and notifications with the other instances through the Redis at URL \
     (redis://[user:password@]host:port[/db]); needs the same requestState key on every instance"
} else {
    "share sessions, tasks and notifications with the other instances through the Redis at URL \
     (redis://[user:password@]host:port[/db]); needs the same requestState key on every instance\n\
     NOT IN THIS BUILD: rebuild with the `redis` feature"
};

/// `--metrics`'s help, which says when this build cannot serve it (on a line of its own, as
/// `--redis`'s does).
const METRICS_HELP: &str = if cfg!(feature = "metrics") {
    "serve Prometheus metrics at http://ADDR/metrics, on a listener of its own (requests by \
     method and outcome, latencies, sessions, streams, tasks; no authentication: put it where \
     only the scraper reaches it)"
} else {
    "serve Prometheus metrics at http://ADDR/metrics, on a listener of its own (requests by \
     method and outcome, latencies, sessions, streams, tasks; no authentication: put it where \
     only the scraper reaches it)\n\
     NOT IN THIS BUILD: rebuild with the `metrics` feature"
};

/// The log filter without `--log-level` or `RUST_LOG`.
pub(crate) const DEFAULT_LOG_FILTER: &str = "info";

const TRANSPORT: &str = "Transport";
const ENDPOINTS: &str = "Endpoints (HTTP)";
const LIMITS: &str = "Limits";
const SESSIONS: &str = "Sessions (HTTP)";
const STREAMS: &str = "Streams";
const CACHING: &str = "Caching (2026-07-28 results: ttlMs, cacheScope)";
const STATE: &str = "Request state (2026-07-28 multi round-trip)";
const TASKS: &str = "Tasks";
const AUTH: &str = "Authorization (HTTP; feature `jwt`)";
const SHARED: &str = "Shared state (HTTP; feature `redis`)";
const TELEMETRY: &str = "Telemetry (feature `metrics`)";
const OPERATIONS: &str = "Audit records and rate limits";
const LOGGING: &str = "Logging";

const MS: Duration = Duration::from_millis(1);

/// The settings, in `--help` order. See the module's documentation.
pub(crate) const SETTINGS: &[Setting] = &[
    // Transport.
    Setting {
        flag: "stdio",
        env: "MCP_STDIO",
        value: None,
        heading: TRANSPORT,
        help: "serve MCP over stdin/stdout (one JSON-RPC message per line) instead of HTTP",
        scope: Scope::Any,
        default: |_| String::new(),
        // Read before the others (entry::parse): whether a setting applies depends on it.
        apply: |_, _| Ok(()),
    },
    Setting {
        flag: "addr",
        env: "MCP_ADDR",
        value: Some("HOST:PORT"),
        heading: TRANSPORT,
        help: "serve MCP over Streamable HTTP at http://HOST:PORT/mcp",
        scope: Scope::Http,
        default: |_| "127.0.0.1:8080".into(),
        apply: |p, v| {
            p.addr = v.text.trim().parse().map_err(|e| {
                format!("{e} (expected HOST:PORT with an IP address, e.g. 127.0.0.1:8080 or [::]:8080)")
            })?;
            Ok(())
        },
    },
    Setting {
        flag: "allowed-hosts",
        env: "MCP_ALLOWED_HOSTS",
        value: Some("LIST"),
        heading: TRANSPORT,
        help: "host names accepted in Host and Origin (DNS-rebinding protection), comma-separated; add the public name when not on loopback",
        scope: Scope::Http,
        default: |c| c.allowed_hosts.join(","),
        apply: |p, v| {
            p.config.allowed_hosts = host_list(v.text)?;
            Ok(())
        },
    },
    Setting {
        flag: "shutdown-grace",
        env: "MCP_SHUTDOWN_GRACE",
        value: Some("DURATION"),
        heading: TRANSPORT,
        help: "on SIGTERM or Ctrl-C, how long running requests get to finish (0s: none)",
        scope: Scope::Http,
        default: |c| show_duration(c.shutdown_grace),
        apply: |p, v| {
            p.config.shutdown_grace = duration(v.text, Duration::ZERO)?;
            Ok(())
        },
    },
    // Endpoints.
    Setting {
        flag: "jsonrpc",
        env: super::JSONRPC_PATH_ENV,
        value: Some("PATH"),
        heading: ENDPOINTS,
        help: "also serve every method of the contract as plain JSON-RPC 2.0 over HTTP POST at PATH (e.g. /jsonrpc), with rpc.discover",
        scope: Scope::Http,
        default: |c| c.jsonrpc_path.clone().unwrap_or_else(|| "off".into()),
        apply: |p, v| {
            super::check_jsonrpc_path(v.text)?;
            p.config.jsonrpc_path = Some(v.text.to_owned());
            Ok(())
        },
    },
    Setting {
        flag: "legacy-sse",
        env: super::LEGACY_SSE_ENV,
        value: None,
        heading: ENDPOINTS,
        help: "also serve the 2024-11-05 HTTP+SSE transport: GET /sse opens the stream, POST /messages?sessionId=ID carries client messages",
        scope: Scope::Http,
        default: |c| show_switch(c.legacy_sse),
        apply: |p, v| {
            p.config.legacy_sse = switch(v.text)?;
            Ok(())
        },
    },
    Setting {
        flag: "server-card",
        env: super::SERVER_CARD_ENV,
        value: None,
        heading: ENDPOINTS,
        help: "serve the contract's server card at /mcp/server-card, listed by the MCP Catalog at /.well-known/mcp/catalog.json",
        scope: Scope::Http,
        default: |c| show_switch(c.server_card),
        apply: |p, v| {
            p.config.server_card = switch(v.text)?;
            Ok(())
        },
    },
    Setting {
        flag: "public-url",
        env: super::PUBLIC_URL_ENV,
        value: Some("URL"),
        heading: ENDPOINTS,
        help: "the MCP endpoint's URL as clients reach it through proxies (https://mcp.example.com/mcp): named by the server card, the default --auth-audience",
        scope: Scope::Http,
        default: |c| {
            c.public_url
                .clone()
                .unwrap_or_else(|| "http://{Host header}/mcp".into())
        },
        apply: |p, v| {
            super::check_public_url(v.text)?;
            p.config.public_url = Some(v.text.to_owned());
            Ok(())
        },
    },
    Setting {
        flag: "health-path",
        env: "MCP_HEALTH_PATH",
        value: Some("PATH"),
        heading: ENDPOINTS,
        help: "serve the liveness probe at PATH (200 while the process serves; no Host, Origin or token checks), `off`: none",
        scope: Scope::Http,
        default: |c| show_path(&c.health_path),
        apply: |p, v| {
            p.config.health_path = probe_path(v.text)?;
            Ok(())
        },
    },
    Setting {
        flag: "ready-path",
        env: "MCP_READY_PATH",
        value: Some("PATH"),
        heading: ENDPOINTS,
        help: "serve the readiness probe at PATH (200 when ready; 503 once draining after SIGTERM, or while Redis or the issuer's keys are unreachable), `off`: none",
        scope: Scope::Http,
        default: |c| show_path(&c.ready_path),
        apply: |p, v| {
            p.config.ready_path = probe_path(v.text)?;
            Ok(())
        },
    },
    // Limits.
    Setting {
        flag: "body-limit",
        env: "MCP_BODY_LIMIT",
        value: Some("SIZE"),
        heading: LIMITS,
        help: "largest request body (413 above; stdio: a longer line is answered -32600)",
        scope: Scope::Any,
        default: |c| show_size(c.body_limit),
        apply: |p, v| {
            p.config.body_limit = size(v.text, 1)?;
            Ok(())
        },
    },
    Setting {
        flag: "max-header-bytes",
        env: "MCP_MAX_HEADER_BYTES",
        value: Some("SIZE"),
        heading: LIMITS,
        help: "largest request header block (431 above)",
        scope: Scope::Http,
        default: |c| show_size(c.max_header_bytes),
        apply: |p, v| {
            p.config.max_header_bytes = size(v.text, 1)?;
            Ok(())
        },
    },
    Setting {
        flag: "body-read-timeout",
        env: "MCP_BODY_READ_TIMEOUT",
        value: Some("DURATION"),
        heading: LIMITS,
        help: "how long a client may take to send a request's body (408 past it)",
        scope: Scope::Http,
        default: |c| show_duration(c.body_read_timeout),
        apply: |p, v| {
            p.config.body_read_timeout = duration(v.text, MS)?;
            Ok(())
        },
    },
    Setting {
        flag: "max-connections",
        env: "MCP_MAX_CONNECTIONS",
        value: Some("N"),
        heading: LIMITS,
        help: "most connections open at once (the next wait in the listen backlog)",
        scope: Scope::Http,
        default: |c| c.max_connections.to_string(),
        apply: |p, v| {
            // tokio's semaphore holds at most this many permits.
            p.config.max_connections = count(v.text, 1)?.min(MAX_PERMITS);
            Ok(())
        },
    },
    Setting {
        flag: "max-connections-per-peer",
        env: "MCP_MAX_CONNECTIONS_PER_PEER",
        value: Some("N"),
        heading: LIMITS,
        help: "most connections open at once from one peer address (one more is closed at once); behind a reverse proxy, set it to --max-connections",
        scope: Scope::Http,
        default: |c| c.max_connections_per_peer.to_string(),
        apply: |p, v| {
            p.config.max_connections_per_peer = count(v.text, 1)?;
            Ok(())
        },
    },
    Setting {
        flag: "idle-connection-timeout",
        env: "MCP_IDLE_CONNECTION_TIMEOUT",
        value: Some("DURATION"),
        heading: LIMITS,
        help: "close a connection that completes no request's headers for this long",
        scope: Scope::Http,
        default: |c| show_duration(c.idle_connection_timeout),
        apply: |p, v| {
            p.config.idle_connection_timeout = duration(v.text, MS)?;
            Ok(())
        },
    },
    Setting {
        flag: "max-client-json-bytes",
        env: "MCP_MAX_CLIENT_JSON_BYTES",
        value: Some("SIZE"),
        heading: LIMITS,
        help: "most bytes of clientInfo and capabilities a session keeps from initialize (-32602 above)",
        scope: Scope::Any,
        default: |c| show_size(c.max_client_json_bytes),
        apply: |p, v| {
            p.config.max_client_json_bytes = size(v.text, 1)?;
            Ok(())
        },
    },
    Setting {
        flag: "max-pending-client-requests",
        env: "MCP_MAX_PENDING_CLIENT_REQUESTS",
        value: Some("N"),
        heading: LIMITS,
        help: "most sampling, elicitation and roots requests one session awaits at once (0: none)",
        scope: Scope::Any,
        default: |c| c.max_pending_client_requests.to_string(),
        apply: |p, v| {
            p.config.max_pending_client_requests = count(v.text, 0)?;
            Ok(())
        },
    },
    Setting {
        flag: "client-request-timeout",
        env: "MCP_CLIENT_REQUEST_TIMEOUT",
        value: Some("DURATION"),
        heading: LIMITS,
        help: "how long a handler waits for the client to answer a request it sent",
        scope: Scope::Any,
        default: |c| show_duration(c.client_request_timeout),
        apply: |p, v| {
            p.config.client_request_timeout = duration(v.text, MS)?;
            Ok(())
        },
    },
    Setting {
        flag: "page-size",
        env: "MCP_PAGE_SIZE",
        value: Some("N"),
        heading: LIMITS,
        help: "entries per page of tools/list, prompts/list, resources/list, resources/templates/list",
        scope: Scope::Any,
        default: |c| c.page_size.to_string(),
        apply: |p, v| {
            p.config.page_size = count(v.text, 1)?;
            Ok(())
        },
    },
    Setting {
        flag: "stdio-output-limit",
        env: "MCP_STDIO_OUTPUT_LIMIT",
        value: Some("SIZE"),
        heading: LIMITS,
        help: "bytes waiting for stdout before stdio stops reading requests until the client reads",
        scope: Scope::Stdio,
        default: |c| show_size(c.stdio_output_limit),
        apply: |p, v| {
            p.config.stdio_output_limit = size(v.text, 1)?;
            Ok(())
        },
    },
    // Sessions.
    Setting {
        flag: "max-sessions",
        env: "MCP_MAX_SESSIONS",
        value: Some("N"),
        heading: SESSIONS,
        help: "most sessions alive at once (503 on initialize above); with --redis, in the whole deployment",
        scope: Scope::Http,
        default: |c| c.max_sessions.to_string(),
        apply: |p, v| {
            p.config.max_sessions = count(v.text, 1)?;
            Ok(())
        },
    },
    Setting {
        flag: "session-idle-timeout",
        env: "MCP_SESSION_IDLE_TIMEOUT",
        value: Some("DURATION"),
        heading: SESSIONS,
        help: "end a session unused this long (none: never)",
        scope: Scope::Http,
        default: |c| show_optional_duration(c.session_idle_timeout),
        apply: |p, v| {
            p.config.session_idle_timeout = optional_duration(v.text, MS)?;
            Ok(())
        },
    },
    Setting {
        flag: "session-max-lifetime",
        env: "MCP_SESSION_MAX_LIFETIME",
        value: Some("DURATION"),
        heading: SESSIONS,
        help: "end a session this long after it began, however busy (none: never)",
        scope: Scope::Http,
        default: |c| show_optional_duration(c.session_max_lifetime),
        apply: |p, v| {
            p.config.session_max_lifetime = optional_duration(v.text, MS)?;
            Ok(())
        },
    },
    Setting {
        flag: "allow-sessionless",
        env: "MCP_ALLOW_SESSIONLESS",
        value: None,
        heading: SESSIONS,
        help: "serve a session-era request without Mcp-Session-Id with a throwaway session instead of answering 400",
        scope: Scope::Http,
        default: |c| show_switch(c.allow_sessionless),
        apply: |p, v| {
            p.config.allow_sessionless = switch(v.text)?;
            Ok(())
        },
    },
    // Streams.
    Setting {
        flag: "max-subscriptions",
        env: "MCP_MAX_SUBSCRIPTIONS",
        value: Some("N"),
        heading: STREAMS,
        help: "most resources one session subscribes to, and URIs one subscriptions/listen names (-32602 above)",
        scope: Scope::Any,
        default: |c| c.max_subscriptions.to_string(),
        apply: |p, v| {
            p.config.max_subscriptions = count(v.text, 0)?;
            Ok(())
        },
    },
    Setting {
        flag: "max-subscription-bytes",
        env: "MCP_MAX_SUBSCRIPTION_BYTES",
        value: Some("SIZE"),
        heading: STREAMS,
        help: "most bytes of resource URIs one session subscribes to, and one subscriptions/listen names (-32602 above; one URI is at most 8KiB)",
        scope: Scope::Any,
        default: |c| show_size(c.max_subscription_bytes),
        apply: |p, v| {
            p.config.max_subscription_bytes = size(v.text, 0)?;
            Ok(())
        },
    },
    Setting {
        flag: "max-bus-answer-bytes",
        env: "MCP_MAX_BUS_ANSWER_BYTES",
        value: Some("SIZE"),
        heading: STREAMS,
        help: "with --redis: most bytes of a client's answer one instance publishes for the instance waiting for it (larger ones are dropped; the request times out)",
        scope: Scope::Any,
        default: |c| show_size(c.max_bus_answer_bytes),
        apply: |p, v| {
            p.config.max_bus_answer_bytes = size(v.text, 0)?;
            Ok(())
        },
    },
    Setting {
        flag: "max-batch-len",
        env: "MCP_MAX_BATCH_LEN",
        value: Some("N"),
        heading: STREAMS,
        help: "most messages in one JSON-RPC batch (2025-03-26 sessions and the plain JSON-RPC endpoint; -32600 above)",
        scope: Scope::Any,
        default: |c| c.max_batch_len.to_string(),
        apply: |p, v| {
            p.config.max_batch_len = count(v.text, 1)?;
            Ok(())
        },
    },
    Setting {
        flag: "max-session-requests",
        env: "MCP_MAX_SESSION_REQUESTS",
        value: Some("N"),
        heading: STREAMS,
        help: "most requests one session runs at once past their first step (503 above)",
        scope: Scope::Any,
        default: |c| c.max_session_requests.to_string(),
        apply: |p, v| {
            p.config.max_session_requests = count(v.text, 1)?;
            Ok(())
        },
    },
    Setting {
        flag: "batch-concurrency",
        env: "MCP_BATCH_CONCURRENCY",
        value: Some("N"),
        heading: STREAMS,
        help: "most elements of one plain JSON-RPC batch that run at once",
        scope: Scope::Any,
        default: |c| c.batch_concurrency.to_string(),
        apply: |p, v| {
            p.config.batch_concurrency = count(v.text, 1)?;
            Ok(())
        },
    },
    Setting {
        flag: "max-listen-streams",
        env: "MCP_MAX_LISTEN_STREAMS",
        value: Some("N"),
        heading: STREAMS,
        help: "most subscriptions/listen streams open at once",
        scope: Scope::Any,
        default: |c| c.max_listen_streams.to_string(),
        apply: |p, v| {
            p.config.max_listen_streams = count(v.text, 0)?;
            Ok(())
        },
    },
    Setting {
        flag: "max-listen-streams-per-principal",
        env: "MCP_MAX_LISTEN_STREAMS_PER_PRINCIPAL",
        value: Some("N"),
        heading: STREAMS,
        help: "with authorization on: most subscriptions/listen streams one principal holds open at once",
        scope: Scope::Any,
        default: |c| c.max_listen_streams_per_principal.to_string(),
        apply: |p, v| {
            p.config.max_listen_streams_per_principal = count(v.text, 0)?;
            Ok(())
        },
    },
    Setting {
        flag: "replay-window",
        env: "MCP_REPLAY_WINDOW",
        value: Some("N"),
        heading: STREAMS,
        help: "SSE events kept per session for Last-Event-ID replay",
        scope: Scope::Http,
        default: |c| c.replay_window.to_string(),
        apply: |p, v| {
            p.config.replay_window = count(v.text, 1)?;
            Ok(())
        },
    },
    Setting {
        flag: "buffered-messages",
        env: "MCP_BUFFERED_MESSAGES",
        value: Some("N"),
        heading: STREAMS,
        help: "server messages kept per session while no GET stream is open (the oldest dropped past it)",
        scope: Scope::Http,
        default: |c| c.buffered_messages.to_string(),
        apply: |p, v| {
            p.config.buffered_messages = count(v.text, 1)?;
            Ok(())
        },
    },
    Setting {
        flag: "sse-retry",
        env: "MCP_SSE_RETRY",
        value: Some("DURATION"),
        heading: STREAMS,
        help: "the reconnection delay (retry) that 2025-11-25 SSE streams suggest",
        scope: Scope::Http,
        default: |c| show_duration(Duration::from_millis(c.sse_retry_ms)),
        apply: |p, v| {
            p.config.sse_retry_ms = duration(v.text, Duration::ZERO)?.as_millis() as u64;
            Ok(())
        },
    },
    Setting {
        flag: "sse-keep-alive",
        env: "MCP_SSE_KEEP_ALIVE",
        value: Some("DURATION"),
        heading: STREAMS,
        help: "a comment on a quiet long-lived SSE stream this often, so proxies keep it open",
        scope: Scope::Http,
        default: |c| show_duration(c.sse_keep_alive),
        apply: |p, v| {
            p.config.sse_keep_alive = duration(v.text, MS)?;
            Ok(())
        },
    },
    Setting {
        flag: "sse-responses",
        env: "MCP_SSE_RESPONSES",
        value: None,
        heading: STREAMS,
        help: "answer every session-era request with an SSE stream, even one with nothing to send before its result",
        scope: Scope::Http,
        default: |c| show_switch(c.sse_responses),
        apply: |p, v| {
            p.config.sse_responses = switch(v.text)?;
            Ok(())
        },
    },
    // Caching.
    Setting {
        flag: "list-cache",
        env: "MCP_LIST_CACHE",
        value: Some("TTL[,SCOPE]"),
        heading: CACHING,
        help: "how long clients may reuse tools/list, prompts/list, resources/list and resources/templates/list results, and who (public or private; 0s: not at all); the lists come from the contract and change only with a new build",
        scope: Scope::Any,
        default: |c| show_cache_hint(c.cache_hints.tools_list),
        apply: |p, v| {
            let hint = cache_hint(v.text, CacheScope::Public)?;
            let hints = &mut p.config.cache_hints;
            hints.tools_list = hint;
            hints.prompts_list = hint;
            hints.resources_list = hint;
            hints.resource_templates_list = hint;
            Ok(())
        },
    },
    Setting {
        flag: "read-cache",
        env: "MCP_READ_CACHE",
        value: Some("TTL[,SCOPE]"),
        heading: CACHING,
        help: "how long clients may reuse a resources/read result, and who (a read that took client input is never cached)",
        scope: Scope::Any,
        default: |c| show_cache_hint(c.cache_hints.resources_read),
        apply: |p, v| {
            p.config.cache_hints.resources_read = cache_hint(v.text, CacheScope::Private)?;
            Ok(())
        },
    },
    Setting {
        flag: "discover-cache",
        env: "MCP_DISCOVER_CACHE",
        value: Some("TTL[,SCOPE]"),
        heading: CACHING,
        help: "how long clients may reuse the server/discover result, and who",
        scope: Scope::Any,
        default: |c| show_cache_hint(c.cache_hints.discover),
        apply: |p, v| {
            p.config.cache_hints.discover = cache_hint(v.text, CacheScope::Private)?;
            Ok(())
        },
    },
    // Request state.
    Setting {
        flag: "request-state-key-file",
        env: "MCP_REQUEST_STATE_KEY_FILE",
        value: Some("PATH"),
        heading: STATE,
        help: "read the key sealing requestState (32+ random bytes as hex or base64, e.g. `openssl rand -hex 32`) from PATH; every instance needs the same; else the key itself from MCP_REQUEST_STATE_KEY",
        scope: Scope::Any,
        default: |c| key_default(c.request_state_key.is_some(), KEY_ENV, "a random key"),
        apply: |p, v| {
            p.config.request_state_key = Some(key_file(v.text)?);
            p.key_file_by_flag = Some(v.from_flag);
            Ok(())
        },
    },
    Setting {
        flag: "request-state-previous-key-file",
        env: "MCP_REQUEST_STATE_PREVIOUS_KEY_FILE",
        value: Some("PATH"),
        heading: STATE,
        help: "read the key before the last rotation from PATH: states it sealed still open until they expire; else from MCP_REQUEST_STATE_PREVIOUS_KEY",
        scope: Scope::Any,
        default: |c| key_default(c.request_state_previous_key.is_some(), PREVIOUS_KEY_ENV, "none"),
        apply: |p, v| {
            p.config.request_state_previous_key = Some(key_file(v.text)?);
            p.previous_key_file_by_flag = Some(v.from_flag);
            Ok(())
        },
    },
    Setting {
        flag: "request-state-ttl",
        env: "MCP_REQUEST_STATE_TTL",
        value: Some("DURATION"),
        heading: STATE,
        help: "how long a requestState stays valid after it is issued",
        scope: Scope::Any,
        default: |c| show_duration(c.request_state_ttl),
        apply: |p, v| {
            p.config.request_state_ttl = duration(v.text, MS)?;
            Ok(())
        },
    },
    Setting {
        flag: "request-state-single-use",
        env: "MCP_REQUEST_STATE_SINGLE_USE",
        value: None,
        heading: STATE,
        help: "accept each requestState once (per instance): a replay is refused with -32602",
        scope: Scope::Any,
        default: |c| show_switch(c.request_state_single_use),
        apply: |p, v| {
            p.config.request_state_single_use = switch(v.text)?;
            Ok(())
        },
    },
    // Tasks.
    Setting {
        flag: "task-ttl",
        env: "MCP_TASK_TTL",
        value: Some("DURATION"),
        heading: TASKS,
        help: "how long a task is kept after its creation (one still running then is stopped)",
        scope: Scope::Any,
        default: |c| show_duration(c.task_ttl),
        apply: |p, v| {
            p.config.task_ttl = duration(v.text, MS)?;
            Ok(())
        },
    },
    Setting {
        flag: "task-poll-interval",
        env: "MCP_TASK_POLL_INTERVAL",
        value: Some("DURATION"),
        heading: TASKS,
        help: "the pollIntervalMs suggested to clients polling tasks/get",
        scope: Scope::Any,
        default: |c| show_duration(c.task_poll_interval),
        apply: |p, v| {
            p.config.task_poll_interval = duration(v.text, MS)?;
            Ok(())
        },
    },
    Setting {
        flag: "max-tasks",
        env: "MCP_MAX_TASKS",
        value: Some("N"),
        heading: TASKS,
        help: "most tasks kept at once (0: every task-augmented call is refused)",
        scope: Scope::Any,
        default: |c| c.max_tasks.to_string(),
        apply: |p, v| {
            p.config.max_tasks = count(v.text, 0)?;
            Ok(())
        },
    },
    // Authorization.
    Setting {
        flag: "auth-issuer",
        env: "MCP_AUTH_ISSUER",
        value: Some("URL"),
        heading: AUTH,
        help: "require OAuth access tokens (JWT) of this issuer (its `iss`, exactly): turns authorization on",
        scope: Scope::Http,
        default: |_| "off".into(),
        apply: |p, v| {
            p.auth.issuer = Some((v.text.to_owned(), v.source.clone()));
            Ok(())
        },
    },
    Setting {
        flag: "auth-audience",
        env: "MCP_AUTH_AUDIENCE",
        value: Some("URL"),
        heading: AUTH,
        help: "the audience (aud) tokens must name: this server's resource URL",
        scope: Scope::Http,
        default: |_| "--public-url".into(),
        apply: |p, v| {
            p.auth.audience = Some((v.text.to_owned(), v.source.clone()));
            Ok(())
        },
    },
    Setting {
        flag: "auth-jwks",
        env: "MCP_AUTH_JWKS",
        value: Some("URL"),
        heading: AUTH,
        help: "the issuer's JWKS",
        scope: Scope::Http,
        default: |_| "jwks_uri of the issuer's metadata".into(),
        apply: |p, v| {
            p.auth.jwks = Some((v.text.to_owned(), v.source.clone()));
            Ok(())
        },
    },
    Setting {
        flag: "auth-token-type",
        env: "MCP_AUTH_TOKEN_TYPE",
        value: Some("TYP"),
        heading: AUTH,
        help: "the JOSE header typ access tokens must carry (at+jwt for RFC 9068 tokens), so that another JWT of the issuer is not taken for one",
        scope: Scope::Http,
        default: |_| "not checked".into(),
        apply: |p, v| {
            p.auth.token_type = Some((v.text.to_owned(), v.source.clone()));
            Ok(())
        },
    },
    Setting {
        flag: "auth-scopes",
        env: "MCP_AUTH_SCOPES",
        value: Some("LIST"),
        heading: AUTH,
        help: "scopes every request needs, comma- or space-separated",
        scope: Scope::Http,
        default: |_| "none".into(),
        apply: |p, v| {
            p.auth.scopes = Some((v.text.to_owned(), v.source.clone()));
            Ok(())
        },
    },
    // Shared state.
    Setting {
        flag: "redis",
        env: super::REDIS_URL_ENV,
        value: Some("URL"),
        heading: SHARED,
        help: REDIS_HELP,
        scope: Scope::Http,
        default: |_| "off, everything in memory".into(),
        // Checked when the server connects (entry::serve), naming the flag or variable only.
        apply: |p, v| {
            let source = if v.from_flag {
                "--redis"
            } else {
                super::REDIS_URL_ENV
            };
            p.redis = Some((v.text.to_owned(), source));
            Ok(())
        },
    },
    Setting {
        flag: "redis-prefix",
        env: super::REDIS_PREFIX_ENV,
        value: Some("PREFIX"),
        heading: SHARED,
        help: "the prefix of every Redis key and of the channel: several deployments can share one Redis",
        scope: Scope::Http,
        default: |_| DEFAULT_REDIS_PREFIX.into(),
        apply: |p, v| {
            if v.text.chars().any(|c| c.is_whitespace() || c.is_control()) {
                return Err("the key prefix must have no spaces or control characters".into());
            }
            p.redis_prefix = v.text.to_owned();
            Ok(())
        },
    },
    // Audit records.
    Setting {
        flag: "audit",
        env: "MCP_AUDIT",
        value: None,
        heading: OPERATIONS,
        help: "one record per tools/call, prompts/get, resources/read (and plain JSON-RPC call) on the log target mcp::audit, at info",
        scope: Scope::Any,
        default: |c| show_switch(c.audit.is_some()),
        apply: |p, v| {
            p.config.audit = switch(v.text)?.then(crate::audit::Audit::new);
            Ok(())
        },
    },
    Setting {
        flag: "audit-principal",
        env: "MCP_AUDIT_PRINCIPAL",
        value: Some("SHOWN"),
        heading: OPERATIONS,
        help: "how an audit record shows the caller: subject, or digest (SHA-256 of issuer and subject); needs --audit",
        scope: Scope::Any,
        default: |c| match c.audit.as_ref().map(|a| a.settings().0) {
            Some(crate::audit::PrincipalShown::Digest) => "digest".into(),
            _ => "subject".into(),
        },
        apply: |p, v| {
            let shown = v.text.parse()?;
            let audit = audited(p)?;
            *audit = std::mem::take(audit).principal(shown);
            Ok(())
        },
    },
    Setting {
        flag: "audit-arguments",
        env: "MCP_AUDIT_ARGUMENTS",
        value: None,
        heading: OPERATIONS,
        help: "put each call's arguments in its audit record, less --audit-redact; needs --audit",
        scope: Scope::Any,
        default: |c| show_switch(c.audit.as_ref().is_some_and(|a| a.settings().1)),
        apply: |p, v| {
            let on = switch(v.text)?;
            let audit = audited(p)?;
            *audit = std::mem::take(audit).with_arguments(on);
            Ok(())
        },
    },
    Setting {
        flag: "audit-redact",
        env: "MCP_AUDIT_REDACT",
        value: Some("LIST"),
        heading: OPERATIONS,
        help: "argument members audit records never show, comma-separated: a JSON pointer (/card/number) or a key at any depth (password); needs --audit",
        scope: Scope::Any,
        default: |c| {
            c.audit
                .as_ref()
                .map(|a| a.settings().2.join(","))
                .unwrap_or_default()
        },
        apply: |p, v| {
            let redact: Vec<String> = v
                .text
                .split(',')
                .map(str::trim)
                .filter(|entry| !entry.is_empty())
                .map(str::to_owned)
                .collect();
            let audit = audited(p)?;
            *audit = std::mem::take(audit).redact(redact);
            Ok(())
        },
    },
    Setting {
        flag: "audit-file",
        env: "MCP_AUDIT_FILE",
        value: Some("PATH"),
        heading: OPERATIONS,
        help: "write the audit records to PATH (appended, created 0600), one JSON object a line, one write each, instead of the log; needs --audit",
        scope: Scope::Any,
        default: |c| {
            c.audit
                .as_ref()
                .and_then(|a| a.file())
                .map(|f| f.path().display().to_string())
                .unwrap_or_default()
        },
        apply: |p, v| {
            let file = match v.text.trim() {
                "" => None,
                path => Some(crate::audit::AuditFile::open(path).map_err(|e| e.to_string())?),
            };
            let audit = audited(p)?;
            *audit = std::mem::take(audit).to_file(file);
            Ok(())
        },
    },
    // Rate limits.
    Setting {
        flag: "rate-limit",
        env: "MCP_RATE_LIMIT",
        value: Some("RATE"),
        heading: OPERATIONS,
        help: "each caller's calls (tools/call, prompts/get, resources/read) at most RATE: N/s, N/min, N/h or N/DURATION, a token bucket of N; the caller is the principal with authorization, else the peer address; over it: -32023, HTTP 429",
        scope: Scope::Any,
        default: |c| {
            c.rate_limits
                .as_ref()
                .and_then(|l| l.settings().0)
                .map_or_else(|| "off".into(), |rate| rate.to_string())
        },
        apply: |p, v| {
            let rate = v.text.parse()?;
            let limits = p.config.rate_limits.take().unwrap_or_default();
            p.config.rate_limits = Some(limits.per_caller(Some(rate)));
            Ok(())
        },
    },
    Setting {
        flag: "tool-rate-limit",
        env: "MCP_TOOL_RATE_LIMIT",
        value: Some("LIST"),
        heading: OPERATIONS,
        help: "each caller's calls of a tool, prompt or resource URI at most a rate, NAME=RATE comma-separated (search=10/s,export=2/min), over the contract's x-mcp rateLimit",
        scope: Scope::Any,
        default: |c| {
            let limits = c.rate_limits.as_ref().map(|l| l.settings().1).unwrap_or_default();
            match limits {
                [] => "contract's".into(),
                limits => limits
                    .iter()
                    .map(|(name, rate)| format!("{name}={rate}"))
                    .collect::<Vec<_>>()
                    .join(","),
            }
        },
        apply: |p, v| {
            let mut limits = p.config.rate_limits.take().unwrap_or_default();
            for entry in v.text.split(',').map(str::trim).filter(|e| !e.is_empty()) {
                let (name, rate) = entry
                    .rsplit_once('=')
                    .ok_or_else(|| format!("{entry:?}: expected NAME=RATE, e.g. search=10/s"))?;
                let rate = rate.parse().map_err(|e| format!("{entry:?}: {e}"))?;
                limits = limits.per_tool(name.trim(), rate);
            }
            p.config.rate_limits = Some(limits);
            Ok(())
        },
    },
    Setting {
        flag: "rate-limit-callers",
        env: "MCP_RATE_LIMIT_CALLERS",
        value: Some("N"),
        heading: OPERATIONS,
        help: "most rate-limit buckets kept at once (callers, and callers by tool); past it, full buckets and then an eighth of the table are dropped",
        scope: Scope::Any,
        default: |c| {
            c.rate_limits
                .as_ref()
                .map_or(crate::rate_limit::DEFAULT_MAX_CALLERS, |l| l.settings().2)
                .to_string()
        },
        apply: |p, v| {
            let max = count(v.text, 16)?;
            let limits = p.config.rate_limits.take().unwrap_or_default();
            p.config.rate_limits = Some(limits.max_callers(max));
            Ok(())
        },
    },
    Setting {
        flag: "rate-limit-shared",
        env: "MCP_RATE_LIMIT_SHARED",
        value: None,
        heading: OPERATIONS,
        help: "with --redis: keep the rate-limit buckets in Redis, one limit per caller (and per caller and tool) across every instance; one Redis round trip per limited call; Redis unreachable: each instance counts alone",
        scope: Scope::Http,
        default: |c| show_switch(c.rate_limits.as_ref().is_some_and(|l| l.is_shared())),
        // Checked against --redis in `finish`.
        apply: |p, v| {
            let shared = switch(v.text)?;
            let limits = p.config.rate_limits.take().unwrap_or_default();
            p.config.rate_limits = Some(limits.shared(shared));
            Ok(())
        },
    },
    // Telemetry.
    Setting {
        flag: "metrics",
        env: crate::telemetry::METRICS_ADDR_ENV,
        value: Some("ADDR"),
        heading: TELEMETRY,
        help: METRICS_HELP,
        scope: Scope::Any,
        default: |_| "off".into(),
        // A build without the feature refuses it when the server starts (exit 2, saying so).
        apply: |p, v| {
            let addr = v
                .text
                .trim()
                .parse()
                .map_err(|e| format!("{e} (expected HOST:PORT, e.g. 127.0.0.1:9464)"))?;
            p.metrics = Some(addr);
            Ok(())
        },
    },
    // Logging.
    Setting {
        flag: "log-level",
        env: "RUST_LOG",
        value: Some("FILTER"),
        heading: LOGGING,
        help: "what to log: error, warn, info, debug, trace, or directives such as info,mcp_runtime=debug",
        scope: Scope::Any,
        default: |_| DEFAULT_LOG_FILTER.into(),
        apply: |p, v| {
            let filter = v.text.trim();
            crate::telemetry::parse_log_filter(filter)
                .map_err(|e| format!("not a log filter: {e}"))?;
            p.log_filter = filter.to_owned();
            Ok(())
        },
    },
    Setting {
        flag: "log-format",
        env: "MCP_LOG_FORMAT",
        value: Some("FORMAT"),
        heading: LOGGING,
        help: "text (for people) or json (one object a line, for collectors); logs go to stderr",
        scope: Scope::Any,
        default: |_| "text".into(),
        apply: |p, v| {
            p.log_format = match v.text.trim() {
                "text" => LogFormat::Text,
                "json" => LogFormat::Json,
                _ => return Err("expected text or json".into()),
            };
            Ok(())
        },
    },
];

/// The audit settings a sub-setting of `--audit` changes; an error without `--audit`.
fn audited(p: &mut Parsed) -> Result<&mut crate::audit::Audit, String> {
    p.config
        .audit
        .as_mut()
        .ok_or_else(|| "needs --audit (MCP_AUDIT=1): audit records are off".to_string())
}

/// tokio's `Semaphore::MAX_PERMITS`.
const MAX_PERMITS: usize = usize::MAX >> 3;

/// The checks and defaults that involve several settings, once every setting is read: the
/// `requestState` keys of the environment (when no key file is given), then authorization
/// (whose audience defaults to the public URL).
pub(crate) fn finish(p: &mut Parsed, env: &dyn Fn(&str) -> Option<String>) -> Result<(), String> {
    // The keys themselves are secrets: errors name the variable, never the value.
    let key_env = |var: &str| env(var).filter(|text| !text.trim().is_empty());
    for (file_by_flag, var, file_var, key, name) in [
        (
            p.key_file_by_flag,
            KEY_ENV,
            "MCP_REQUEST_STATE_KEY_FILE",
            &mut p.config.request_state_key,
            "request-state-key",
        ),
        (
            p.previous_key_file_by_flag,
            PREVIOUS_KEY_ENV,
            "MCP_REQUEST_STATE_PREVIOUS_KEY_FILE",
            &mut p.config.request_state_previous_key,
            "request-state-previous-key",
        ),
    ] {
        match (file_by_flag, key_env(var)) {
            // The flag wins over both variables.
            (Some(true), _) | (_, None) => {}
            (Some(false), Some(_)) => {
                return Err(format!(
                    "{file_var} and {var} both give the key: set one of them"
                ))
            }
            (None, Some(text)) => {
                *key = Some(SealingKey::from_text(&text).map_err(|why| format!("{var}: {why}"))?);
                p.keys_from_env.push(name);
            }
        }
    }
    let probes = [
        ("--health-path", &p.config.health_path),
        ("--ready-path", &p.config.ready_path),
    ];
    for (flag, path) in probes {
        let Some(path) = path else { continue };
        if p.config.jsonrpc_path.as_ref() == Some(path) {
            return Err(format!("{flag} {path}: the path is --jsonrpc's"));
        }
    }
    if p.config.health_path.is_some() && p.config.health_path == p.config.ready_path {
        return Err(format!(
            "--health-path and --ready-path are both {}: give them different paths",
            p.config.health_path.as_deref().unwrap_or_default()
        ));
    }
    let shared_limits = p.config.rate_limits.as_ref().is_some_and(|l| l.is_shared());
    if shared_limits && !p.stdio {
        if !cfg!(feature = "redis") {
            return Err("--rate-limit-shared (MCP_RATE_LIMIT_SHARED) keeps the buckets in the Redis of --redis, and this server was built without mcp-runtime's `redis` feature: rebuild it with the feature, or drop --rate-limit-shared".into());
        }
        if p.redis.is_none() {
            return Err("--rate-limit-shared (MCP_RATE_LIMIT_SHARED) needs --redis URL (or MCP_REDIS_URL): the buckets are shared through that Redis".into());
        }
    }
    if !p.stdio {
        if let Some(auth) = p.auth.auth(p.config.public_url.as_deref())? {
            if p.config.legacy_sse {
                return Err("--legacy-sse cannot be combined with --auth-issuer: the 2024-11-05 HTTP+SSE transport has no authorization".into());
            }
            p.config.auth = Some(auth);
        }
    }
    Ok(())
}

/// A probe path (`--health-path`, `--ready-path`): `off` for none, else a path as
/// `--jsonrpc` takes.
fn probe_path(text: &str) -> Result<Option<String>, String> {
    let text = text.trim();
    if text.eq_ignore_ascii_case("off") {
        return Ok(None);
    }
    super::check_jsonrpc_path(text).map_err(|why| why.replace("/jsonrpc", "/healthz"))?;
    Ok(Some(text.to_owned()))
}

/// How `--help` shows a probe path.
fn show_path(path: &Option<String>) -> String {
    path.clone().unwrap_or_else(|| "off".into())
}

/// `--allowed-hosts`: comma-separated host names or IP addresses, without port or scheme.
fn host_list(text: &str) -> Result<Vec<String>, String> {
    let hosts: Vec<String> = text
        .split(',')
        .map(str::trim)
        .filter(|host| !host.is_empty())
        .map(str::to_owned)
        .collect();
    if hosts.is_empty() {
        return Err("needs at least one host name, e.g. localhost,mcp.example.com".into());
    }
    for host in &hosts {
        if host.contains("://") || host.contains('/') {
            return Err(format!(
                "`{host}`: a host name, not a URL (e.g. mcp.example.com)"
            ));
        }
        if host.starts_with('[') {
            return Err(format!(
                "`{host}`: write an IPv6 address without brackets (e.g. ::1)"
            ));
        }
        if host.contains(':') && host.parse::<std::net::Ipv6Addr>().is_err() {
            return Err(format!(
                "`{host}`: a host name without port (any port is accepted)"
            ));
        }
        if host.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(format!("`{host}`: no spaces or control characters"));
        }
    }
    Ok(hosts)
}

/// A `requestState` key read from the file at `path` (its text: hex or base64).
fn key_file(path: &str) -> Result<SealingKey, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read the key: {e}"))?;
    SealingKey::from_text(&text)
}

/// How `--help` shows the default of a key file: the key the binary was built with, if any,
/// else the variable `var`, else `otherwise`.
fn key_default(configured: bool, var: &str, otherwise: &str) -> String {
    if configured {
        "the key the server was built with".into()
    } else {
        format!("{var}, else {otherwise}")
    }
}
