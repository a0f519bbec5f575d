//! [`Config`]: the settings of a server, every bound named with its default, grouped by
//! concern, and the cache hints of 2026-07-28 results.
//!
//! `Config` holds one struct per concern, each a section of a server binary's `--help`:
//! [`Transport`], [`Endpoints`], [`Limits`], [`Sessions`], [`Streams`], [`RequestState`],
//! [`Tasks`], [`Telemetry`]; authorization, audit records, rate limits and cache hints are
//! fields of their own type. A setting has one name: its builder setter
//! ([`ConfigBuilder::body_limit`], flat whatever the group), its field
//! (`config.limits.body_limit`) and, dashed, its flag and variable (`--body-limit`,
//! `MCP_BODY_LIMIT`).
//!
//! ```
//! use mcp_runtime::Config;
//!
//! let config = Config::builder().body_limit(1024 * 1024).max_sessions(10).build();
//! assert_eq!(config.limits.body_limit, 1024 * 1024);
//! assert_eq!(config.sessions.max_sessions, 10);
//! ```

use std::time::Duration;

use crate::request_state::SealingKey;
use values::{
    check_jsonrpc_path, check_public_url, count, duration, host_list, ipv6_prefix,
    optional_duration, probe_path, show_duration, show_optional_duration, show_path, show_size,
    show_switch, size, switch, JSONRPC_PATH_ENV, LEGACY_SSE_ENV, MAX_PERMITS, MS, PUBLIC_URL_ENV,
    SERVER_CARD_ENV,
};

pub(crate) mod cache;
mod table;

pub(crate) use table::{heading, FieldSetting, Scope, Setting};
pub(crate) mod values;

pub use cache::{CacheHint, CacheHints, CacheScope};
use table::config_table;

/// [`Endpoints::health_path`] by default.
pub(crate) const DEFAULT_HEALTH_PATH: &str = "/healthz";
/// [`Endpoints::ready_path`] by default.
pub(crate) const DEFAULT_READY_PATH: &str = "/readyz";

// One row per setting.
//
// The table below is the only place a setting is written: its documentation, type and default,
// and, when an operator can change it, its flag, environment variable, where it applies, its
// `--help` line, how its text is read and how its default is shown. `config_table!`
// (`config/table.rs`) makes `Config`, its groups, their `Default`, the `ConfigBuilder` setters
// and the command line's rows (`FIELD_SETTINGS`, which `entry` lists under their group's
// heading in `--help`, after the hand-written rows of that heading) from it. Adding a setting
// is adding a row to its group, e.g. to `group limits: Limits, heading LIMITS`:
//
//             /// Most prompts/get arguments, in bytes (-32602 above). Default 64 KiB.
//             max_prompt_bytes: usize = 64 * 1024, cli {
//                 flag: "max-prompt-bytes", env: "MCP_MAX_PROMPT_BYTES", value: Some("SIZE"),
//                 scope: Any,
//                 help: "most bytes of one prompts/get's arguments (-32602 above)",
//                 parse: |text| size(text, 1), show: show_size,
//             };
//
// then reading `config.limits.max_prompt_bytes` where it applies (and a line in
// `docs/runtime.md`'s table, which CI compares with `--help`). The parsers and formatters are
// `config/values.rs`'s. A flag that sets something other than one field (several fields, the
// transport, logging, `--auth-*`, audit, rate limits) is a hand-written row of
// `entry/settings/custom.rs`; checks across settings are `entry::settings::finish`.
config_table! {
    /// Settings of a server. Every bound has a name and a default.
    ///
    /// A server binary ([`crate::entry`]) also takes every setting an operator changes as a
    /// flag and an `MCP_*` environment variable (`--help` lists them), over the `Config` it
    /// starts from.
    ///
    /// Build one with [`Config::builder`], or start from [`Config::default`] and set fields.
    /// The struct is `#[non_exhaustive]`, so new settings can be added without breaking
    /// callers: it cannot be written as a struct literal outside this crate.
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
    /// assert_eq!(config.limits.body_limit, 1024 * 1024);
    ///
    /// let mut config = Config::default();
    /// config.limits.page_size = 20;
    /// assert_eq!(config.limits.page_size, 20);
    /// ```
    #[derive(Debug, Clone)]
    #[non_exhaustive]
    pub struct Config, builder ConfigBuilder, command line FIELD_SETTINGS {
        /// The HTTP listener: which hosts it answers, how it stops.
        group transport: Transport, heading TRANSPORT {
            /// Host names accepted in `Host` and `Origin` (DNS-rebinding protection). Default: the
            /// loopback names `localhost`, `127.0.0.1`, `::1`.
            allowed_hosts: Vec<String> = vec!["localhost".into(), "127.0.0.1".into(), "::1".into()], cli {
                flag: "allowed-hosts", env: "MCP_ALLOWED_HOSTS", value: Some("LIST"),
                scope: Http,
                help: "host names accepted in Host and Origin (DNS-rebinding protection), comma-separated; add the public name when not on loopback",
                parse: host_list, show: |hosts| hosts.join(","),
            };
            /// On shutdown, how long running requests and open responses get to finish before the
            /// server stops waiting for them. Default 10 s.
            shutdown_grace: Duration = Duration::from_secs(10), cli {
                flag: "shutdown-grace", env: "MCP_SHUTDOWN_GRACE", value: Some("DURATION"),
                scope: Http,
                help: "on SIGTERM or Ctrl-C, how long running requests get to finish (0s: none)",
                parse: |text| duration(text, Duration::ZERO), show: show_duration,
            };
        }

        /// What the HTTP listener serves besides `/mcp`: the plain JSON-RPC endpoint, the
        /// 2024-11-05 transport, the server card, the probes.
        group endpoints: Endpoints, heading ENDPOINTS {
            /// The path of the plain JSON-RPC endpoint (e.g. `/jsonrpc`): the contract's methods
            /// that MCP exposes (those with an MCP face: `x-mcp`, or chosen by `--tools`,
            /// `--exclude` and the overlay) as ordinary JSON-RPC 2.0 over HTTP POST, plus
            /// `rpc.discover` listing them (see `http::jsonrpc`). Each call is decided as the MCP
            /// call it stands for: the same scopes, step-up, rate limit and audit record. Same
            /// Host/Origin checks and body limits as `/mcp`. It must start with `/` and differ
            /// from `/mcp`. Default `None`: no such endpoint (404).
            jsonrpc_path: Option<String> = None, cli {
                flag: "jsonrpc", env: JSONRPC_PATH_ENV, value: Some("PATH"),
                scope: Http,
                help: "also serve the methods MCP exposes as plain JSON-RPC 2.0 over HTTP POST at PATH (e.g. /jsonrpc), with rpc.discover; the same scopes, limits and audit as their MCP calls",
                parse: |text| {
                    check_jsonrpc_path(text)
                        .map(|()| Some(text.to_owned()))
                        .map_err(|e| e.to_string())
                },
                show: |path| path.unwrap_or_else(|| "off".into()),
            };
            /// Also serve, on the plain JSON-RPC endpoint, the contract's methods that MCP does
            /// not expose (left off by `x-mcp`, `--tools`, `--exclude` or the overlay), with the
            /// document's default scopes. For a gateway these are forwarded upstream with the
            /// operator's upstream credentials: the server logs a warning at start naming how
            /// many. Default `false`: such a method is `-32601` and `rpc.discover` leaves it out.
            jsonrpc_unexposed: bool = false, cli {
                flag: "jsonrpc-unexposed", env: "MCP_JSONRPC_UNEXPOSED", value: None,
                scope: Http,
                help: "also serve on the plain JSON-RPC endpoint the methods MCP does not expose (no x-mcp, or left off by the generator's selection or overlay; a gateway forwards them with its upstream credentials): logs a warning at start",
                parse: switch, show: show_switch,
            };
            /// Also serve the 2024-11-05 HTTP+SSE transport (see `http::legacy_sse`): `GET /sse`
            /// opens a session's stream, whose first event (`endpoint`) names the
            /// `POST /messages?sessionId=…` URL its client messages go to; every answer and server
            /// message comes on the stream. Same Host/Origin checks, body limits and session
            /// limits as `/mcp`. Default false: `/sse` and `/messages` answer 404.
            legacy_sse: bool = false, cli {
                flag: "legacy-sse", env: LEGACY_SSE_ENV, value: None,
                scope: Http,
                help: "also serve the 2024-11-05 HTTP+SSE transport: GET /sse opens the stream, POST /messages?sessionId=ID carries client messages",
                parse: switch, show: show_switch,
            };
            /// Serve the contract's server card (SEP-2127) at `/mcp/server-card`, listed by the MCP
            /// Catalog at `/.well-known/mcp/catalog.json` (and `/.well-known/ai-catalog.json`),
            /// with CORS open to every origin, as public discovery documents are. Default `false`:
            /// 404. A contract without `info["x-mcp"].card` has no card to serve.
            server_card: bool = false, cli {
                flag: "server-card", env: SERVER_CARD_ENV, value: None,
                scope: Http,
                help: "serve the contract's server card at /mcp/server-card, listed by the MCP Catalog at /.well-known/mcp/catalog.json",
                parse: switch, show: show_switch,
            };
            /// The public URL of the MCP endpoint (e.g. `https://mcp.example.com/mcp`), as clients
            /// reach it through proxies: what the server card and catalog list. Default `None`:
            /// built from the request's (checked) `Host` as `http://{host}/mcp`.
            public_url: Option<String> = None, cli {
                flag: "public-url", env: PUBLIC_URL_ENV, value: Some("URL"),
                scope: Http,
                help: "the MCP endpoint's URL as clients reach it through proxies (https://mcp.example.com/mcp): named by the server card, the default --auth-audience",
                parse: |text| {
                    check_public_url(text)
                        .map(|()| Some(text.to_owned()))
                        .map_err(|e| e.to_string())
                },
                show: |url| url.unwrap_or_else(|| "http://{Host header}/mcp".into()),
            };
            /// The path of the liveness probe (e.g. for a kubelet's `livenessProbe`): 200 while the
            /// process serves, until it exits. Served only under the runtime's own listener
            /// ([`McpServer::serve`](crate::McpServer::serve)), before the Host, Origin and
            /// authorization checks. Default `Some("/healthz")`; `None`: no such endpoint (404).
            health_path: Option<String> = Some(DEFAULT_HEALTH_PATH.into()), cli {
                flag: "health-path", env: "MCP_HEALTH_PATH", value: Some("PATH"),
                scope: Http,
                help: "serve the liveness probe at PATH (200 while the process serves; no Host, Origin or token checks), `off`: none",
                parse: probe_path, show: show_path,
            };
            /// The path of the readiness probe: 200 while [`Config::readiness`] is ready, 503
            /// naming why not (draining after SIGTERM, Redis or the issuer's keys unreachable).
            /// Served as [`Endpoints::health_path`] is. Default `Some("/readyz")`; `None`: no such
            /// endpoint.
            ready_path: Option<String> = Some(DEFAULT_READY_PATH.into()), cli {
                flag: "ready-path", env: "MCP_READY_PATH", value: Some("PATH"),
                scope: Http,
                help: "serve the readiness probe at PATH (200 when ready; 503 once draining after SIGTERM, or while Redis or the issuer's keys are unreachable), `off`: none",
                parse: probe_path, show: show_path,
            };
        }

        /// Bounds on a request (its body, headers and time), on connections, on what a session
        /// keeps from `initialize` and awaits from its client; the size of a list's page;
        /// stdio's output backlog.
        group limits: Limits, heading LIMITS {
            /// Largest request body, in bytes (413 above). Default 4 MiB.
            body_limit: usize = 4 * 1024 * 1024, cli {
                flag: "body-limit", env: "MCP_BODY_LIMIT", value: Some("SIZE"),
                scope: Any,
                help: "largest request body (413 above; stdio: a longer line is answered -32600)",
                parse: |text| size(text, 1), show: show_size,
            };
            /// Largest request header block, in bytes (431 above). Default 64 KiB.
            max_header_bytes: usize = 64 * 1024, cli {
                flag: "max-header-bytes", env: "MCP_MAX_HEADER_BYTES", value: Some("SIZE"),
                scope: Http,
                help: "largest request header block (431 above)",
                parse: |text| size(text, 1), show: show_size,
            };
            /// How long a client may take to send a request's body (408 past it). Default 30 s.
            body_read_timeout: Duration = Duration::from_secs(30), cli {
                flag: "body-read-timeout", env: "MCP_BODY_READ_TIMEOUT", value: Some("DURATION"),
                scope: Http,
                help: "how long a client may take to send a request's body (408 past it)",
                parse: |text| duration(text, MS), show: show_duration,
            };
            /// Most connections open at once: further ones wait in the listen backlog until one
            /// closes, and the open ones are served as usual. Default 10,000.
            max_connections: usize = 10_000, cli {
                flag: "max-connections", env: "MCP_MAX_CONNECTIONS", value: Some("N"),
                scope: Http,
                help: "most connections open at once (the next wait in the listen backlog)",
                // tokio's semaphore holds at most this many permits.
                parse: |text| count(text, 1).map(|n| n.min(MAX_PERMITS)), show: |n| n.to_string(),
            };
            /// Most connections open at once from one peer address: one more is closed as soon as
            /// it is accepted, so that one client cannot hold every place of
            /// [`Limits::max_connections`]. Behind a reverse proxy every connection comes from the
            /// proxy's address: set it to `max_connections` there (the proxy bounds its clients).
            /// Default 1,000.
            max_connections_per_peer: usize = 1_000, cli {
                flag: "max-connections-per-peer", env: "MCP_MAX_CONNECTIONS_PER_PEER", value: Some("N"),
                scope: Http,
                help: "most connections open at once from one peer address (one more is closed at once); behind a reverse proxy, set it to --max-connections",
                parse: |text| count(text, 1), show: |n| n.to_string(),
            };
            /// How many leading bits of an IPv6 peer address name the peer for the per-peer
            /// connection cap and the rate limits' per-address buckets: one host commonly holds a
            /// whole /64, so counting each address would give it unlimited peers. 128 counts
            /// each address; IPv4 addresses (and IPv4-mapped IPv6 ones) are always whole. Default
            /// 64.
            ipv6_peer_prefix: u8 = 64, cli {
                flag: "ipv6-peer-prefix", env: "MCP_IPV6_PEER_PREFIX", value: Some("BITS"),
                scope: Http,
                help: "leading bits of an IPv6 address that name one peer for the per-peer caps and rate limits (one host often holds a /64; 128: each address)",
                parse: ipv6_prefix, show: |bits| bits.to_string(),
            };
            /// A connection with no response in progress that completes no request's headers for
            /// this long (up to 1.5 times this long) is closed: an idle keep-alive connection, or a
            /// client sending its headers too slowly. Default 30 s.
            idle_connection_timeout: Duration = Duration::from_secs(30), cli {
                flag: "idle-connection-timeout", env: "MCP_IDLE_CONNECTION_TIMEOUT", value: Some("DURATION"),
                scope: Http,
                help: "close a connection that completes no request's headers for this long",
                parse: |text| duration(text, MS), show: show_duration,
            };
            /// Most bytes of `clientInfo` and `capabilities` a session keeps from `initialize`
            /// (-32602 above). Default 16 KiB.
            max_client_json_bytes: usize = 16 * 1024, cli {
                flag: "max-client-json-bytes", env: "MCP_MAX_CLIENT_JSON_BYTES", value: Some("SIZE"),
                scope: Any,
                help: "most bytes of clientInfo and capabilities a session keeps from initialize (-32602 above)",
                parse: |text| size(text, 1), show: show_size,
            };
            /// Most server-to-client requests (sampling, elicitation, roots) one session awaits
            /// answers to at once; a handler asking more gets an error. Default 64.
            max_pending_client_requests: usize = 64, cli {
                flag: "max-pending-client-requests", env: "MCP_MAX_PENDING_CLIENT_REQUESTS", value: Some("N"),
                scope: Any,
                help: "most sampling, elicitation and roots requests one session awaits at once (0: none)",
                parse: |text| count(text, 0), show: |n| n.to_string(),
            };
            /// How long a handler waits for the client to answer a request it sent. Default 60 s.
            client_request_timeout: Duration = Duration::from_secs(60), cli {
                flag: "client-request-timeout", env: "MCP_CLIENT_REQUEST_TIMEOUT", value: Some("DURATION"),
                scope: Any,
                help: "how long a handler waits for the client to answer a request it sent",
                parse: |text| duration(text, MS), show: show_duration,
            };
            /// Entries per page of `tools/list`, `prompts/list`, `resources/list` and
            /// `resources/templates/list`. Default 100.
            page_size: usize = 100, cli {
                flag: "page-size", env: "MCP_PAGE_SIZE", value: Some("N"),
                scope: Any,
                help: "entries per page of tools/list, prompts/list, resources/list, resources/templates/list",
                parse: |text| count(text, 1), show: |n| n.to_string(),
            };
            /// Bytes of answers and notifications waiting for stdout before the stdio transport
            /// stops reading requests, until the client reads (back-pressure). Requests already
            /// running still answer: nothing queued is dropped. Default 1 MiB.
            stdio_output_limit: usize = 1024 * 1024, cli {
                flag: "stdio-output-limit", env: "MCP_STDIO_OUTPUT_LIMIT", value: Some("SIZE"),
                scope: Stdio,
                help: "bytes waiting for stdout before stdio stops reading requests until the client reads",
                parse: |text| size(text, 1), show: show_size,
            };
        }

        /// Session-era sessions over HTTP: how many, how long, and whether a request may come
        /// without one.
        group sessions: Sessions, heading SESSIONS {
            /// Most sessions alive at once (503 above); with sessions shared through Redis, in the
            /// whole deployment. Default 100,000.
            max_sessions: usize = 100_000, cli {
                flag: "max-sessions", env: "MCP_MAX_SESSIONS", value: Some("N"),
                scope: Http,
                help: "most sessions alive at once (503 on initialize above); with --redis, in the whole deployment",
                parse: |text| count(text, 1), show: |n| n.to_string(),
            };
            /// A session unused this long is evicted; `None` disables expiry. Default 30 minutes.
            session_idle_timeout: Option<Duration> = Some(Duration::from_secs(30 * 60)), cli {
                flag: "session-idle-timeout", env: "MCP_SESSION_IDLE_TIMEOUT", value: Some("DURATION"),
                scope: Http,
                help: "end a session unused this long (none: never)",
                parse: |text| optional_duration(text, MS), show: show_optional_duration,
            };
            /// How long a session may live however busy it is; `None`: as long as it is used.
            /// Default 24 hours.
            session_max_lifetime: Option<Duration> = Some(Duration::from_secs(24 * 60 * 60)), cli {
                flag: "session-max-lifetime", env: "MCP_SESSION_MAX_LIFETIME", value: Some("DURATION"),
                scope: Http,
                help: "end a session this long after it began, however busy (none: never)",
                parse: |text| optional_duration(text, MS), show: show_optional_duration,
            };
            /// Serve a non-initialize request that carries no session with a throwaway session
            /// instead of answering 400. Default false.
            allow_sessionless: bool = false, cli {
                flag: "allow-sessionless", env: "MCP_ALLOW_SESSIONLESS", value: None,
                scope: Http,
                help: "serve a session-era request without Mcp-Session-Id with a throwaway session instead of answering 400",
                parse: switch, show: show_switch,
            };
        }

        /// What runs at once and what is kept for it: a session's running requests, batches,
        /// subscriptions and `subscriptions/listen` streams, SSE replay and keep-alive, client
        /// answers relayed between instances.
        group streams: Streams, heading STREAMS {
            /// Most resources one session subscribes to at once (`resources/subscribe`), and most
            /// resource URIs one `subscriptions/listen` stream names (-32602 above). Default 1,000.
            max_subscriptions: usize = 1_000, cli {
                flag: "max-subscriptions", env: "MCP_MAX_SUBSCRIPTIONS", value: Some("N"),
                scope: Any,
                help: "most resources one session subscribes to, and URIs one subscriptions/listen names (-32602 above)",
                parse: |text| count(text, 0), show: |n| n.to_string(),
            };
            /// Most bytes of resource URIs one session holds subscriptions for, and one
            /// `subscriptions/listen` stream names (-32602 above); one URI is at most
            /// 8 KiB whatever this says (longer ones name no resource). Default 64 KiB.
            max_subscription_bytes: usize = 64 * 1024, cli {
                flag: "max-subscription-bytes", env: "MCP_MAX_SUBSCRIPTION_BYTES", value: Some("SIZE"),
                scope: Any,
                help: "most bytes of resource URIs one session subscribes to, and one subscriptions/listen names (-32602 above; one URI is at most 8KiB)",
                parse: |text| size(text, 0), show: show_size,
            };
            /// Most bytes of a client's answer (to a server-to-client request of a shared session)
            /// that one instance publishes on the bus for the instance waiting for it; a larger one
            /// is dropped with a warning, and the request it answers times out. Only answers to
            /// ids some instance minted travel at all. Default 1 MiB.
            max_bus_answer_bytes: usize = 1024 * 1024, cli {
                flag: "max-bus-answer-bytes", env: "MCP_MAX_BUS_ANSWER_BYTES", value: Some("SIZE"),
                scope: Any,
                help: "with --redis: most bytes of a client's answer one instance publishes for the instance waiting for it (larger ones are dropped; the request times out)",
                parse: |text| size(text, 0), show: show_size,
            };
            /// Most messages in one JSON-RPC batch (a 2025-03-26 session's, or the plain JSON-RPC
            /// endpoint's): a longer one is refused whole with -32600. Default 64.
            max_batch_len: usize = 64, cli {
                flag: "max-batch-len", env: "MCP_MAX_BATCH_LEN", value: Some("N"),
                scope: Any,
                help: "most messages in one JSON-RPC batch (2025-03-26 sessions and the plain JSON-RPC endpoint; -32600 above)",
                parse: |text| count(text, 1), show: |n| n.to_string(),
            };
            /// Most requests one session runs at once past their first step (a handler that waits:
            /// on the client, a stream, time): one more is refused with 503 and -32000. Default 64.
            max_session_requests: usize = 64, cli {
                flag: "max-session-requests", env: "MCP_MAX_SESSION_REQUESTS", value: Some("N"),
                scope: Any,
                help: "most requests one session runs at once past their first step (503 above)",
                parse: |text| count(text, 1), show: |n| n.to_string(),
            };
            /// Most elements of one plain JSON-RPC batch that run at once (the rest wait their
            /// turn; answers keep the batch's order). 2025-03-26 batches run one at a time.
            /// Default 4.
            batch_concurrency: usize = 4, set |n: usize| n.max(1) => "at least 1", cli {
                flag: "batch-concurrency", env: "MCP_BATCH_CONCURRENCY", value: Some("N"),
                scope: Any,
                help: "most elements of one plain JSON-RPC batch that run at once",
                parse: |text| count(text, 1), show: |n| n.to_string(),
            };
            /// Most `subscriptions/listen` streams open at once (-32603 above). Default 10,000.
            max_listen_streams: usize = 10_000, cli {
                flag: "max-listen-streams", env: "MCP_MAX_LISTEN_STREAMS", value: Some("N"),
                scope: Any,
                help: "most subscriptions/listen streams open at once",
                parse: |text| count(text, 0), show: |n| n.to_string(),
            };
            /// With authorization on: most `subscriptions/listen` streams one principal holds open
            /// at once on this instance, from whatever addresses (503 and -32603 above). Without
            /// it, each stream holds a connection, which [`Limits::max_connections_per_peer`]
            /// bounds. Default 32.
            max_listen_streams_per_principal: usize = 32, cli {
                flag: "max-listen-streams-per-principal", env: "MCP_MAX_LISTEN_STREAMS_PER_PRINCIPAL", value: Some("N"),
                scope: Any,
                help: "with authorization on: most subscriptions/listen streams one principal holds open at once",
                parse: |text| count(text, 0), show: |n| n.to_string(),
            };
            /// SSE events kept per session for `Last-Event-ID` replay. Default 128.
            replay_window: usize = 128, cli {
                flag: "replay-window", env: "MCP_REPLAY_WINDOW", value: Some("N"),
                scope: Http,
                help: "SSE events kept per session for Last-Event-ID replay",
                parse: |text| count(text, 1), show: |n| n.to_string(),
            };
            /// Standalone messages kept while no GET stream is open. Default 128.
            buffered_messages: usize = 128, cli {
                flag: "buffered-messages", env: "MCP_BUFFERED_MESSAGES", value: Some("N"),
                scope: Http,
                help: "server messages kept per session while no GET stream is open (the oldest dropped past it)",
                parse: |text| count(text, 1), show: |n| n.to_string(),
            };
            /// The `retry` hint of 2025-11-25 priming events, in milliseconds. Default 1,000.
            sse_retry_ms: u64 = 1_000, cli {
                flag: "sse-retry", env: "MCP_SSE_RETRY", value: Some("DURATION"),
                scope: Http,
                help: "the reconnection delay (retry) that 2025-11-25 SSE streams suggest",
                parse: |text| duration(text, Duration::ZERO).map(|retry| retry.as_millis() as u64),
                show: |ms| show_duration(Duration::from_millis(ms)),
            };
            /// A long-lived SSE stream (`subscriptions/listen`) quiet this long gets a keep-alive
            /// comment, so proxies keep it open. Default 15 s.
            sse_keep_alive: Duration = Duration::from_secs(15), cli {
                flag: "sse-keep-alive", env: "MCP_SSE_KEEP_ALIVE", value: Some("DURATION"),
                scope: Http,
                help: "a comment on a quiet long-lived SSE stream this often, so proxies keep it open",
                parse: |text| duration(text, MS), show: show_duration,
            };
            /// Answer every session-era request with an SSE stream, even when the handler sends
            /// nothing before its result (by default such answers are plain JSON). Default false.
            sse_responses: bool = false, cli {
                flag: "sse-responses", env: "MCP_SSE_RESPONSES", value: None,
                scope: Http,
                help: "answer every session-era request with an SSE stream, even one with nothing to send before its result",
                parse: switch, show: show_switch,
            };
        }

        /// The sealed `requestState` of 2026-07-28 multi round-trip requests (flags for the keys:
        /// `--request-state-key-file`, `--request-state-previous-key-file`).
        group request_state: RequestState, heading STATE {
            /// The key that seals the `requestState` of 2026-07-28 multi round-trip requests. Every
            /// instance serving the same clients needs the same key. Default: the
            /// `MCP_REQUEST_STATE_KEY` environment variable, else a random key made at start (with
            /// a warning: states then only work on this instance, until it restarts).
            request_state_key: Option<SealingKey> = None;
            /// The key sealing `requestState` before the last rotation: states it sealed still open
            /// (until [`RequestState::request_state_ttl`] after their issue), new ones are sealed
            /// with
            /// [`RequestState::request_state_key`]. Default: the `MCP_REQUEST_STATE_PREVIOUS_KEY`
            /// environment variable (same form as `MCP_REQUEST_STATE_KEY`; empty means none), else
            /// none.
            request_state_previous_key: Option<SealingKey> = None;
            /// How long a `requestState` stays valid after it is issued. Default 10 minutes.
            request_state_ttl: Duration = Duration::from_secs(10 * 60), cli {
                flag: "request-state-ttl", env: "MCP_REQUEST_STATE_TTL", value: Some("DURATION"),
                scope: Any,
                help: "how long a requestState stays valid after it is issued",
                parse: |text| duration(text, MS), show: show_duration,
            };
            /// Accept each `requestState` once: the server remembers the states it opened until
            /// they expire (at most [`crate::request_state::SINGLE_USE_CAPACITY`]) and refuses a
            /// replay with `-32602`. Costs a lookup on retries only, never on first calls. Per
            /// instance: with several instances and no affinity, a state can be redeemed once on
            /// each. A client whose retry was lost must start the request again. Default false (a
            /// state can be replayed with the same request until it expires).
            request_state_single_use: bool = false, cli {
                flag: "request-state-single-use", env: "MCP_REQUEST_STATE_SINGLE_USE", value: None,
                scope: Any,
                help: "accept each requestState once (per instance): a replay is refused with -32602",
                parse: switch, show: show_switch,
            };
        }

        /// Tasks (the tasks extension) and the default in-memory task store.
        group tasks: Tasks, heading TASKS {
            /// How long a task (tasks extension) is kept after its creation; a task still running
            /// then is stopped. Default 1 hour.
            task_ttl: Duration = Duration::from_secs(60 * 60), cli {
                flag: "task-ttl", env: "MCP_TASK_TTL", value: Some("DURATION"),
                scope: Any,
                help: "how long a task is kept after its creation (one still running then is stopped)",
                parse: |text| duration(text, MS), show: show_duration,
            };
            /// The `pollIntervalMs` suggested to clients polling `tasks/get`. Default 250 ms.
            task_poll_interval: Duration = Duration::from_millis(250), cli {
                flag: "task-poll-interval", env: "MCP_TASK_POLL_INTERVAL", value: Some("DURATION"),
                scope: Any,
                help: "the pollIntervalMs suggested to clients polling tasks/get",
                parse: |text| duration(text, MS), show: show_duration,
            };
            /// Most tasks kept at once by the default in-memory task store. Default 10,000.
            max_tasks: usize = 10_000, cli {
                flag: "max-tasks", env: "MCP_MAX_TASKS", value: Some("N"),
                scope: Any,
                help: "most tasks kept at once (0: every task-augmented call is refused)",
                parse: |text| count(text, 0), show: |n| n.to_string(),
            };
        }

        /// Tool results over their tool's budget (the `result_budget` module): which budget, how
        /// long they are kept to be read, how much of them one instance keeps.
        group results: Results, heading RESULTS {
            /// Replaces the result budget of every tool that has one (the contract's: the
            /// generator's `--result-budget`, `x-mcp` `resultBudget`, 64 KiB for a gateway's
            /// forwarded tools); `Some(0)` sends every result whole. Default `None`: the
            /// contract's budgets.
            result_budget: Option<usize> = None, cli {
                flag: "result-budget", env: "MCP_RESULT_BUDGET", value: Some("SIZE"),
                scope: Any,
                help: "replace the result budget of every tool that has one: a larger result is kept and answered with its outline and a resource_link to read it in pages (0: every result whole)",
                parse: |text| size(text, 0).map(Some),
                show: |budget| budget.map_or_else(|| "the contract's".into(), show_size),
            };
            /// How long a result over its budget is kept to be read (`resources/read` of its
            /// `mcp-result://` link). Default 10 minutes.
            result_keep: Duration = Duration::from_secs(10 * 60), cli {
                flag: "result-keep", env: "MCP_RESULT_KEEP", value: Some("DURATION"),
                scope: Any,
                help: "how long a result over its budget is kept to be read at its mcp-result:// link",
                parse: |text| duration(text, Duration::from_secs(1)), show: show_duration,
            };
            /// Most bytes of results over their budget kept in this process (the oldest dropped
            /// first; one larger than this is not kept, and its outline says so). With Redis
            /// (`--redis`), Redis keeps them instead, shared by every instance. Default 64 MiB.
            max_kept_result_bytes: usize = 64 * 1024 * 1024, cli {
                flag: "max-kept-result-bytes", env: "MCP_MAX_KEPT_RESULT_BYTES", value: Some("SIZE"),
                scope: Any,
                help: "most bytes of results over their budget kept in memory (the oldest dropped first); with --redis, Redis keeps them",
                parse: |text| size(text, 0), show: show_size,
            };
        }

        /// What a call's telemetry shows a client.
        group telemetry: Telemetry, heading TELEMETRY {
            /// Return a call's spans to a client that asks (`_meta.otel.traces.request` in a
            /// `tools/call`, `prompts/get` or `resources/read`; draft SEP-2448): the request span
            /// and the handler's spans under it, as OTLP JSON in the result's `_meta.otel.traces`,
            /// bounded (see `telemetry::passback`, feature `otel`; the process's subscriber needs
            /// its layer, which `entry` installs). Default `false`: spans name a server's
            /// internals, so a client gets them only where the operator chose to show them.
            return_traces: bool = false, cli {
                flag: "return-traces", env: "MCP_RETURN_TRACES", value: None,
                scope: Any,
                help: RETURN_TRACES_HELP,
                parse: |text| match switch(text)? {
                    true if !cfg!(feature = "otel") => {
                        Err("this build cannot return traces: rebuild with the `otel` feature".into())
                    }
                    on => Ok(on),
                },
                show: show_switch,
            };
        }

        // Fields of `Config` itself: shared state, and concerns with a type of their own (set by
        // hand-written flags: `--list-cache`, `--read-cache`, `--discover-cache`, `--auth-*`,
        // `--audit*`, `--rate-limit*`, `--tool-rate-limit`, each setting part of a value).
        fields {
            /// Whether the server is ready for traffic, as the readiness probe reports it (shared
            /// by clones of this `Config`). Default: ready, until the server sets a reason.
            readiness: crate::lifecycle::readiness::Readiness = crate::lifecycle::readiness::Readiness::default();
            /// `ttlMs` and `cacheScope` of cacheable 2026-07-28 results.
            cache_hints: CacheHints = CacheHints::default();
            /// Authorization of HTTP requests (an OAuth 2.1 resource server, see [`crate::auth`]):
            /// who authenticates, the metadata served at `/.well-known/oauth-protected-resource`,
            /// the scopes every request needs. stdio is never authenticated. Default `None`: every
            /// request is served.
            auth: Option<crate::auth::Auth> = None;
            /// Audit records: one `tracing` event per call on the target `mcp::audit`
            /// ([`crate::audit`]). Default `None`: none, and nothing paid for them.
            audit: Option<crate::audit::settings::Audit> = None;
            /// Rate limits per caller and per tool ([`crate::rate_limit`]), over the contract's
            /// `x-mcp.rateLimit`. Default `None`: only the contract's, if it has any.
            rate_limits: Option<crate::rate_limit::settings::RateLimits> = None;
        }
    }
}

/// `--return-traces`'s help, which says when this build cannot (as `--metrics`'s does).
const RETURN_TRACES_HELP: &str = if cfg!(feature = "otel") {
    "return a call's spans in its result's _meta.otel.traces (OTLP JSON, bounded) when the client asks with _meta.otel.traces.request (draft SEP-2448); off: spans show the server's internals"
} else {
    "return a call's spans in its result's _meta.otel.traces (OTLP JSON, bounded) when the client asks with _meta.otel.traces.request (draft SEP-2448); off: spans show the server's internals\n\
     NOT IN THIS BUILD: rebuild with the `otel` feature"
};

impl Config {
    /// A [`ConfigBuilder`] starting from [`Config::default`].
    pub fn builder() -> ConfigBuilder {
        ConfigBuilder::default()
    }
}

// A session's bounds are settings; `session.rs` stays below the settings by not naming them.
impl crate::session::SessionLimits {
    /// The limits `config` sets.
    pub fn of(config: &Config) -> Self {
        Self {
            replay_window: config.streams.replay_window,
            buffered_messages: config.streams.buffered_messages,
            max_subscriptions: config.streams.max_subscriptions,
            max_subscription_bytes: config.streams.max_subscription_bytes,
            max_running: config.streams.max_session_requests,
            max_pending_client_requests: config.limits.max_pending_client_requests,
            max_lifetime: config.sessions.session_max_lifetime,
        }
    }
}

impl Default for crate::session::SessionLimits {
    fn default() -> Self {
        Self::of(&Config::default())
    }
}
