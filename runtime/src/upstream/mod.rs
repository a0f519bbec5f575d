//! The gateway's upstream client (feature `upstream`): a generated gateway's tool handlers
//! forward each call to an existing JSON-RPC service (an Ethereum node, Lotus, bitcoind, ...)
//! through an [`Upstream`].
//!
//! - One keep-alive connection pool per upstream, made once (the runtime's pool, the same as
//!   the MCP client's: `http` and `https` with rustls, trusting the system's roots), shared by
//!   every clone of the [`Upstream`]; a call allocates no client.
//! - Bounded: a timeout on the whole exchange (a slot, connecting, sending, the headers, the
//!   body), at most [`UpstreamSettings::max_concurrency`] calls at the upstream at once, and a
//!   body read no further than [`UpstreamSettings::max_response_bytes`].
//! - A call sends the configured headers and nothing of the MCP request: the MCP client's
//!   access token has no way to the upstream. Headers made of the caller's verified claims
//!   ([`IdentityHeader`], `X-User: {sub}`) are sent only when configured.
//! - The upstream's `result` is passed on as it sent it ([`Forwarded::Raw`]); its JSON-RPC
//!   error becomes an `isError` tool result with `{"code", "message", "data"}` (see
//!   [`UpstreamError`]'s conversion into [`Error`]).
//! - `tracing`: each call at `debug` (method, id, duration, outcome), a failure to get an
//!   answer at `warn`; never the params or a header's value.
//!
//! A forwarded method of the generated handler is a call of [`Upstream::forward`]:
//!
//! ```no_run
//! use mcp_runtime::upstream::{Forwarded, Param, Upstream, UpstreamSettings};
//! use mcp_runtime::ParamStructure;
//!
//! /// The params of `eth_getBalance`, as the generator writes them.
//! #[derive(serde::Serialize)]
//! struct GetBalance {
//!     address: String,
//!     #[serde(skip_serializing_if = "Option::is_none")]
//!     block: Option<String>,
//! }
//!
//! /// Its params in the document's order (a `const`: `forward` takes a `&'static` list).
//! const GET_BALANCE: &[Param] = &[Param::required("address"), Param::optional("block")];
//!
//! # async fn gateway(ctx: &mcp_runtime::RequestContext) -> Result<(), mcp_runtime::Error> {
//! let upstream = Upstream::new(UpstreamSettings::new("http://127.0.0.1:8545"))?;
//! let params = GetBalance { address: "0xde0b295669a9fd93d5f28d9ec85e40f4cb697bae".into(), block: None };
//! // Sends {"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":["0xde0b..."]}.
//! let balance: Forwarded<String> = upstream
//!     .forward(ctx, "eth_getBalance", ParamStructure::Either, &params, GET_BALANCE)
//!     .await?;
//! let number: Forwarded<String> = upstream.forward_none(ctx, "eth_blockNumber").await?;
//! # let _ = (balance, number);
//! # Ok(())
//! # }
//! ```
//!
//! A gateway binary's `main` is [`crate::entry::gateway`], which reads the `--upstream*` flags
//! into [`UpstreamSettings`].

mod error;
mod exchange;
mod feed;
mod identity;
mod params;
mod response;
mod socket;
mod subscription;

pub use error::UpstreamError;
pub use exchange::{TokenExchange, MAX_CACHED, REFUSAL_MEMORY};
pub(crate) use feed::SharedFeeds;
#[cfg(feature = "redis")]
pub(crate) use feed::{Renewal, Snapshot};
pub use feed::{FEED_LEASE, REAP_EVERY, SHARE_EVERY};
pub use identity::IdentityHeader;
pub use params::{Forwarded, Param};
pub use subscription::{
    SubscriptionEvent, SubscriptionMethods, UpstreamSubscription, EVENTS_BUFFERED,
};

use bytes::Bytes;
use http::header::{
    HeaderName, HeaderValue, ACCEPT, AUTHORIZATION, CONTENT_LENGTH, CONTENT_TYPE, RETRY_AFTER,
};
use http::{HeaderMap, Method, Request, Uri};
use http_body_util::{BodyExt, Full};
use serde::Serialize;
use serde_json::value::RawValue;
use std::fmt;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};
use tokio::sync::Semaphore;

use crate::context::RequestContext;
use crate::dispatch::ParamStructure;
use crate::error::Error;
use crate::http_pool::{self, Pool, TlsConfig};
use crate::lifecycle::readiness::{NotReady, Readiness};
use params::request_body;
use response::Answer;

/// [`UpstreamSettings::timeout`] unless set: 30 s.
#[doc(hidden)]
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// [`UpstreamSettings::max_concurrency`] unless set: 64.
#[doc(hidden)]
pub const DEFAULT_MAX_CONCURRENCY: usize = 64;
/// [`UpstreamSettings::max_response_bytes`] unless set: 16 MiB.
#[doc(hidden)]
pub const DEFAULT_MAX_RESPONSE_BYTES: usize = 16 << 20;
/// [`UpstreamSettings::subscription_window`] unless set: the latest 16 events.
#[doc(hidden)]
pub const DEFAULT_SUBSCRIPTION_WINDOW: usize = 16;
/// The largest [`UpstreamSettings::subscription_window`].
#[doc(hidden)]
pub const MAX_SUBSCRIPTION_WINDOW: usize = 10_000;

/// The most of an error status's body read for its excerpt (or its JSON-RPC error).
const ERROR_BODY_LIMIT: usize = 64 << 10;

/// How an upstream is reached. Build it with [`UpstreamSettings::new`] and change the fields
/// that differ from the defaults; [`Upstream::new`] checks it.
///
/// Its `Debug` shows the upstream's origin and the headers' names, never their values.
#[derive(Clone)]
pub struct UpstreamSettings {
    /// The upstream's JSON-RPC endpoint: `http://` or `https://` (a `POST` per call),
    /// `ws://` or `wss://` (a WebSocket, calls multiplexed on a few connections), or
    /// `unix:/path` (a Unix socket, the IPC endpoint of geth or anvil). No user information
    /// (give credentials as a header: `Authorization: Basic ...`). A query is sent (an API key
    /// in it is never shown in messages).
    pub url: String,
    /// The whole exchange, from waiting for a slot to the end of the body; past it the call
    /// fails with [`UpstreamError::Timeout`]. Default [`DEFAULT_TIMEOUT`].
    pub timeout: Duration,
    /// The most calls at the upstream at once; the next wait for a slot (the wait counts
    /// against their timeout). At least 1. Default [`DEFAULT_MAX_CONCURRENCY`].
    pub max_concurrency: usize,
    /// Headers sent on every call (credentials, an API key); a name given twice is sent twice.
    /// `Content-Type` is the gateway's (`application/json`), as is the framing
    /// (`Content-Length`, `Transfer-Encoding`): those are refused. A WebSocket upstream gets
    /// them with its handshake; a Unix socket takes none.
    pub headers: Vec<(HeaderName, HeaderValue)>,
    /// The largest body read; reading stops past it ([`UpstreamError::TooLarge`]). At least
    /// 1. Default [`DEFAULT_MAX_RESPONSE_BYTES`].
    pub max_response_bytes: usize,
    /// PEM documents of root certificates trusted beside the system's (a private CA, an
    /// upstream's self-signed certificate). Default: none.
    pub root_certificates: Vec<Vec<u8>>,
    /// Headers built for each call from the caller's verified claims (`X-User: {sub}`), for
    /// an upstream that trusts the gateway; `http(s)://` upstreams only. With any, a call
    /// without a verified caller ([`RequestContext::principal`]), or whose token lacks a
    /// claim they name, is refused ([`UpstreamError::Identity`]) and never sent. Default: none.
    pub identity_headers: Vec<IdentityHeader>,
    /// Each call carries a token the authorization server issued for the upstream in
    /// exchange for the caller's own (RFC 8693, [`TokenExchange`]); `http(s)://` upstreams
    /// only, and no `Authorization` among [`headers`](Self::headers). The server's
    /// [`Auth`](crate::auth::Auth) must keep the callers' tokens
    /// ([`Auth::keep_access_token`](crate::auth::Auth::keep_access_token)). The token
    /// endpoint is trusted as [`root_certificates`](Self::root_certificates) say. Default:
    /// none.
    pub token_exchange: Option<TokenExchange>,
    /// The most events `resources/read` of a subscription's resource returns (the latest,
    /// within [`max_response_bytes`](Self::max_response_bytes); [`Upstream::read_feed`]).
    /// From 1 to [`MAX_SUBSCRIPTION_WINDOW`]. Default [`DEFAULT_SUBSCRIPTION_WINDOW`].
    pub subscription_window: usize,
}

impl UpstreamSettings {
    /// The settings of the upstream at `url`, every other field its default.
    pub fn new(url: impl Into<String>) -> Self {
        Self {
            url: url.into(),
            timeout: DEFAULT_TIMEOUT,
            max_concurrency: DEFAULT_MAX_CONCURRENCY,
            headers: Vec::new(),
            max_response_bytes: DEFAULT_MAX_RESPONSE_BYTES,
            root_certificates: Vec::new(),
            identity_headers: Vec::new(),
            token_exchange: None,
            subscription_window: DEFAULT_SUBSCRIPTION_WINDOW,
        }
    }
}

impl fmt::Debug for UpstreamSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.headers.iter().map(|(name, _)| name.as_str()).collect();
        f.debug_struct("UpstreamSettings")
            .field("url", &shown_url(&self.url))
            .field("timeout", &self.timeout)
            .field("max_concurrency", &self.max_concurrency)
            .field("headers", &names)
            .field("max_response_bytes", &self.max_response_bytes)
            .field("root_certificates", &self.root_certificates.len())
            .field("identity_headers", &self.identity_headers)
            .field("token_exchange", &self.token_exchange)
            .field("subscription_window", &self.subscription_window)
            .finish()
    }
}

/// A JSON-RPC service the gateway forwards to: cheap to clone (one [`Arc`]), every clone
/// sharing its pool, its concurrency bound and its request ids.
#[derive(Clone)]
pub struct Upstream {
    inner: Arc<Inner>,
}

struct Inner {
    transport: Transport,
    /// Where a TCP connection (or a Unix socket's) is tried to see that the upstream is up.
    reachable: Reachable,
    /// The origin, for messages.
    shown: String,
    timeout: Duration,
    slots: Semaphore,
    max_response_bytes: usize,
    next_id: AtomicU64,
    /// Built for each call from the caller's claims (HTTP only).
    identity: Box<[IdentityHeader]>,
    /// Exchanges each caller's token for the upstream's (HTTP only).
    exchanger: Option<exchange::Exchanger>,
    /// Where [`NotReady::Upstream`] is reported, once [`Upstream::report_readiness`] is called.
    readiness: OnceLock<Readiness>,
    /// The subscriptions open behind resource URIs ([`Upstream::open_feed`]).
    feeds: feed::Feeds,
}

/// How calls reach the upstream.
enum Transport {
    /// A `POST` per call on a keep-alive pool, with the configured headers, `Content-Type` and
    /// `Accept`.
    Http {
        pool: Pool,
        uri: Uri,
        headers: HeaderMap,
    },
    /// A message per call on a few connections that stay open (WebSocket, Unix socket).
    Socket(socket::Sockets),
}

/// Where the readiness probe and the start's check connect.
#[derive(Clone)]
enum Reachable {
    Tcp(String, u16),
    Unix(PathBuf),
}

/// A subscription's way to its upstream (only made over a socket: [`Upstream::subscribe`]
/// checks).
impl subscription::Link for Upstream {
    fn sockets(&self) -> &socket::Sockets {
        match &self.inner.transport {
            Transport::Socket(sockets) => sockets,
            Transport::Http { .. } => unreachable!("Upstream::subscribe refuses an http upstream"),
        }
    }

    fn next_id(&self) -> u64 {
        self.inner.next_id.fetch_add(1, Ordering::Relaxed)
    }

    fn timeout(&self) -> Duration {
        self.inner.timeout
    }

    fn shown(&self) -> &str {
        &self.inner.shown
    }

    fn result_of(&self, message: &[u8], id: u64) -> Result<Box<RawValue>, UpstreamError> {
        Upstream::result_of(self, message, id)
    }
}

/// The upstream's endpoint, as [`check_url`] reads it.
#[derive(Debug)]
pub(crate) enum Endpoint {
    /// `http://`, `https://`.
    Http(Uri),
    /// `ws://`, `wss://`.
    WebSocket(Uri),
    /// `unix:PATH`.
    Unix(PathBuf),
}

impl fmt::Debug for Upstream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Upstream")
            .field("url", &self.inner.shown)
            .field("timeout", &self.inner.timeout)
            .finish_non_exhaustive()
    }
}

impl Upstream {
    /// The upstream `settings` describe, its pool made (no connection yet: the first call
    /// connects). Needs no async runtime. The error ([`UpstreamError::Config`]) says which
    /// setting cannot work.
    pub fn new(settings: UpstreamSettings) -> Result<Self, UpstreamError> {
        let config = |reason: String| UpstreamError::Config { reason };
        let endpoint = check_url(&settings.url).map_err(config)?;
        if settings.max_concurrency == 0 {
            return Err(config("max_concurrency must be at least 1".into()));
        }
        if settings.max_response_bytes == 0 {
            return Err(config("max_response_bytes must be at least 1 byte".into()));
        }
        if !(1..=MAX_SUBSCRIPTION_WINDOW).contains(&settings.subscription_window) {
            return Err(config(format!(
                "subscription_window must be from 1 to {MAX_SUBSCRIPTION_WINDOW} events"
            )));
        }
        if settings.timeout.is_zero() {
            return Err(config("the timeout must be longer than zero".into()));
        }
        let mut headers = HeaderMap::with_capacity(settings.headers.len() + 2);
        for (name, value) in &settings.headers {
            check_header_name(name).map_err(config)?;
            let mut value = value.clone();
            value.set_sensitive(true);
            headers.append(name.clone(), value);
        }
        let mut tls = TlsConfig::default();
        for pem in &settings.root_certificates {
            tls.add_root_certificate(pem);
        }
        let max_concurrency = settings.max_concurrency.min(Semaphore::MAX_PERMITS);
        for identity in &settings.identity_headers {
            let name = identity.name();
            check_header_name(name).map_err(config)?;
            if headers.contains_key(name) {
                return Err(config(format!(
                    "the header {name} is both an identity header and a fixed one: give it once"
                )));
            }
        }
        if !settings.identity_headers.is_empty() && !matches!(endpoint, Endpoint::Http(_)) {
            return Err(config(
                "identity headers (--upstream-identity-header) go with each call, which only an http:// or https:// upstream carries".into(),
            ));
        }
        let exchanger = match &settings.token_exchange {
            None => None,
            Some(exchange) => {
                if !matches!(endpoint, Endpoint::Http(_)) {
                    return Err(config(
                        "the token exchange (--upstream-auth token-exchange) gives each call its own token, which only an http:// or https:// upstream carries".into(),
                    ));
                }
                if headers.contains_key(AUTHORIZATION)
                    || settings
                        .identity_headers
                        .iter()
                        .any(|identity| identity.name() == AUTHORIZATION)
                {
                    return Err(config(
                        "with the token exchange the gateway writes each call's Authorization header: leave it out of the headers".into(),
                    ));
                }
                let shown = shown_url(&exchange.token_endpoint);
                Some(exchange::Exchanger::new(exchange, &tls, shown).map_err(config)?)
            }
        };
        let shown = shown_url(&settings.url);
        let (transport, reachable) = match endpoint {
            Endpoint::Http(uri) => {
                headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
                if !headers.contains_key(ACCEPT) {
                    headers.insert(ACCEPT, HeaderValue::from_static("application/json"));
                }
                let pool = http_pool::pool(&tls, max_concurrency).map_err(config)?;
                let reachable = Reachable::of(&uri);
                (Transport::Http { pool, uri, headers }, reachable)
            }
            Endpoint::WebSocket(uri) => {
                if let Some(name) = headers.keys().find(|name| is_websocket_header(name)) {
                    return Err(config(format!(
                        "the header {name} is the WebSocket handshake's own; leave it out"
                    )));
                }
                let reachable = Reachable::of(&uri);
                let Reachable::Tcp(host, port) = reachable.clone() else {
                    unreachable!("a URI is reached over TCP")
                };
                let tls = match uri.scheme_str() == Some("wss") {
                    false => None,
                    true => {
                        let name = rustls::pki_types::ServerName::try_from(host.clone())
                            .map_err(|e| config(format!("the host {host}: {e}")))?;
                        let client = http_pool::tls::client_config(&tls).map_err(config)?;
                        Some((tokio_rustls::TlsConnector::from(Arc::new(client)), name))
                    }
                };
                let address = socket::Address::WebSocket {
                    uri,
                    host,
                    port,
                    tls,
                };
                let sockets = socket::Sockets::new(
                    address,
                    headers,
                    settings.max_response_bytes,
                    max_concurrency,
                    shown.clone(),
                );
                (Transport::Socket(sockets), reachable)
            }
            Endpoint::Unix(path) => {
                if !headers.is_empty() {
                    return Err(config(
                        "a Unix socket upstream takes no headers (--upstream-header): it has no HTTP request to carry them".into(),
                    ));
                }
                let sockets = socket::Sockets::new(
                    socket::Address::Unix(path.clone()),
                    headers,
                    settings.max_response_bytes,
                    max_concurrency,
                    shown.clone(),
                );
                (Transport::Socket(sockets), Reachable::Unix(path))
            }
        };
        Ok(Self {
            inner: Arc::new(Inner {
                transport,
                reachable,
                shown,
                timeout: settings.timeout,
                slots: Semaphore::new(max_concurrency),
                max_response_bytes: settings.max_response_bytes,
                next_id: AtomicU64::new(1),
                identity: settings.identity_headers.into(),
                exchanger,
                readiness: OnceLock::new(),
                feeds: feed::Feeds::new(settings.subscription_window, settings.max_response_bytes),
            }),
        })
    }

    /// Reports whether the upstream is reachable as [`NotReady::Upstream`] of `readiness` (the
    /// server's readiness probe, `/readyz`): while the server serves, a TCP connection to the
    /// upstream's host and port is tried every second (not ready until the first succeeds),
    /// and a forwarded call that cannot connect sets it at once, one that gets an answer
    /// clears it. A call that times out changes nothing: a slow method is not a lost upstream.
    /// Called once (the gateway's `main` does); later calls are ignored.
    pub fn report_readiness(&self, readiness: &Readiness) {
        if self.inner.readiness.set(readiness.clone()).is_err() {
            return;
        }
        let reachable = self.inner.reachable.clone();
        readiness.check_with(NotReady::Upstream, move || {
            let reachable = reachable.clone();
            async move { reachable.connects().await }
        });
    }

    /// Whether a connection to the upstream (TCP, or its Unix socket) opens within `timeout`
    /// (blocking; for the gateway's start, so that an upstream that is down is said at once
    /// rather than at the first call): the reason when it does not.
    pub(crate) fn probe(&self, timeout: std::time::Duration) -> Result<(), String> {
        use std::net::ToSocketAddrs;
        let (host, port) = match &self.inner.reachable {
            Reachable::Tcp(host, port) => (host, *port),
            Reachable::Unix(path) => {
                return std::os::unix::net::UnixStream::connect(path)
                    .map(drop)
                    .map_err(|error| format!("connecting to {}: {error}", path.display()))
            }
        };
        let addresses = (host.as_str(), port)
            .to_socket_addrs()
            .map_err(|error| format!("{host} does not resolve: {error}"))?;
        let mut last = format!("{host} resolves to no address");
        for address in addresses {
            match std::net::TcpStream::connect_timeout(&address, timeout) {
                Ok(_) => return Ok(()),
                Err(error) => last = format!("connecting to {address}: {error}"),
            }
        }
        Err(last)
    }

    /// The upstream's origin (`https://host:port`, `unix:/path`), as messages name it.
    pub fn origin(&self) -> &str {
        &self.inner.shown
    }

    /// Calls `method` (its name as the document writes it: `eth_getBalance`,
    /// `Filecoin.ChainHead`) with `params` (`None`: the request has no `params` member) and
    /// returns its `result` as the upstream sent it (line breaks between tokens removed, so
    /// that it fits a line of the stdio transport).
    ///
    /// Sends `{"jsonrpc":"2.0","id":N,"method":...,"params":...}` (ids counted from 1 for each
    /// upstream) as `POST` with `Content-Type: application/json` and the configured headers.
    /// A non-success status whose body is a JSON-RPC error for this request (as bitcoind
    /// answers one, with 500 or 404) is that error; 429 is always [`UpstreamError::Status`].
    ///
    /// The call carries no caller: with [`UpstreamSettings::identity_headers`] or
    /// [`UpstreamSettings::token_exchange`] it is refused ([`UpstreamError::Identity`]);
    /// [`forward`](Self::forward) sends the caller's.
    pub async fn call(
        &self,
        method: &str,
        params: Option<&RawValue>,
    ) -> Result<Box<RawValue>, UpstreamError> {
        self.call_text(None, method, params.map(RawValue::get))
            .await
    }

    /// Opens a subscription with `methods.subscribe` and `params` (`None`: no `params`
    /// member) at a WebSocket or Unix-socket upstream: the first request's failure is the
    /// error (an HTTP upstream cannot carry one: [`UpstreamError::Config`]). Then its
    /// notifications arrive through [`UpstreamSubscription::next`] until it is closed or
    /// dropped, and it is opened again after a lost connection (at most
    /// [`EVENTS_BUFFERED`] notifications wait; the unsubscription goes on the subscription's
    /// own connection).
    ///
    /// ```no_run
    /// use mcp_runtime::upstream::{SubscriptionEvent, SubscriptionMethods, Upstream, UpstreamSettings};
    /// use serde_json::value::RawValue;
    ///
    /// const ETH: SubscriptionMethods = SubscriptionMethods::positional("eth_subscribe", "eth_unsubscribe");
    ///
    /// # async fn heads() -> Result<(), mcp_runtime::upstream::UpstreamError> {
    /// let upstream = Upstream::new(UpstreamSettings::new("ws://127.0.0.1:8545"))?;
    /// let params = RawValue::from_string(r#"["newHeads"]"#.into()).unwrap();
    /// let mut heads = upstream.subscribe(&ETH, Some(&params)).await?;
    /// while let Some(event) = heads.next().await {
    ///     match event {
    ///         SubscriptionEvent::Notification(head) => println!("{}", head.get()),
    ///         // Notifications may have been missed while the connection was down.
    ///         SubscriptionEvent::Reopened => println!("(re-subscribed)"),
    ///     }
    /// }
    /// // eth_unsubscribe on its connection (dropping `heads` sends it in the background).
    /// heads.close().await?;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn subscribe(
        &self,
        methods: &SubscriptionMethods,
        params: Option<&RawValue>,
    ) -> Result<UpstreamSubscription, UpstreamError> {
        if !matches!(self.inner.transport, Transport::Socket(_)) {
            return Err(UpstreamError::Config {
                reason: format!(
                    "{}: a subscription needs an upstream that stays connected (ws://, wss:// or unix:/path); {} is http(s)",
                    methods.subscribe, self.inner.shown
                ),
            });
        }
        subscription::subscribe(self.clone(), methods, params).await
    }

    /// Opens the updates of the resource `uri` (a URI of a subscription template, naming the
    /// subscription and its params) as a subscription at the upstream with `methods.subscribe`
    /// and `params`, encoded as [`forward`](Self::forward) encodes them; or shares the one
    /// open for `uri` already. The upstream's refusal is the error (the client's
    /// `resources/subscribe` fails with it).
    ///
    /// Each notification is kept in the window [`read_feed`](Self::read_feed) returns (the
    /// latest [`UpstreamSettings::subscription_window`]) and told as
    /// `notifications/resources/updated` for `uri` through `ctx`'s notifier. The subscription
    /// is closed at the upstream once no client wants `uri` (checked every [`REAP_EVERY`]).
    /// With several instances sharing Redis (`--redis`), one instance holds it for all of
    /// them, and the window lives in Redis (see docs/gateway.md). A generated gateway calls
    /// this for a [`CallKind::Subscribe`](crate::dispatch::CallKind::Subscribe) call of a URI
    /// its subscription template matches.
    ///
    /// ```no_run
    /// use mcp_runtime::upstream::{Param, SubscriptionMethods, Upstream, UpstreamSettings};
    /// use mcp_runtime::ParamStructure;
    ///
    /// const ETH: SubscriptionMethods = SubscriptionMethods::positional("eth_subscribe", "eth_unsubscribe");
    /// const ORDER: &[Param] = &[Param::required("kind"), Param::optional("filter")];
    ///
    /// # async fn heads(upstream: &Upstream, ctx: &mcp_runtime::RequestContext) -> Result<(), mcp_runtime::Error> {
    /// let params = serde_json::json!({"kind": "newHeads"});
    /// // eth_subscribe(["newHeads"]) at the upstream, unless open already.
    /// upstream
    ///     .open_feed(ctx, "eth://subscription/newHeads", &ETH, ParamStructure::Either, &params, ORDER)
    ///     .await?;
    /// // {"contents":[{"uri":..,"mimeType":"application/json","text":"{\"subscribed\":true,..,\"events\":[..]}"}]}
    /// let read = upstream.read_feed("eth://subscription/newHeads").await?;
    /// # let _ = read;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn open_feed<P: Serialize + Sync>(
        &self,
        ctx: &RequestContext,
        uri: &str,
        methods: &'static SubscriptionMethods,
        structure: ParamStructure,
        params: &P,
        order: &'static [Param],
    ) -> Result<(), Error> {
        let params: Arc<str> = params::encode(params, structure, order)
            .map_err(|why| {
                Error::new(format!(
                    "{}: the params cannot be sent to the upstream: they {why}",
                    methods.subscribe
                ))
            })?
            .into();
        let upstream = self.clone();
        let opener: feed::Opener = Arc::new(move || {
            let (upstream, params) = (upstream.clone(), params.clone());
            Box::pin(async move {
                let params = RawValue::from_string(params.to_string())
                    .map_err(|e| Error::new(format!("{}: {e}", methods.subscribe)))?;
                upstream
                    .subscribe(methods, Some(&params))
                    .await
                    .map_err(Error::from)
            })
        });
        self.inner.feeds.open(uri, ctx.notifier(), opener).await
    }

    /// The `resources/read` result of the resource `uri` whose updates
    /// [`open_feed`](Self::open_feed) opened: one `application/json` content,
    /// `{"subscribed": true, "received": N, "reopened": N, "events": [...]}`, the events the
    /// latest notifications' results (at most [`UpstreamSettings::subscription_window`],
    /// oldest first, within [`UpstreamSettings::max_response_bytes`]); `received` counts them
    /// since the subscription opened, and `reopened` the times it was opened again (after a
    /// lost connection, or by another instance), after which some may have been missed. A
    /// URI nobody subscribed to reads as `"subscribed": false`, without events. Fails only
    /// when the instances share their subscriptions and Redis cannot be read.
    pub async fn read_feed(&self, uri: &str) -> Result<Box<RawValue>, Error> {
        self.inner.feeds.read(uri).await
    }

    /// Shares this upstream's subscriptions with the other instances through `shared`: one
    /// upstream subscription per URI for all of them (`--redis`; the gateway's `main` calls
    /// it). Once; later calls are ignored.
    #[cfg_attr(not(feature = "redis"), allow(dead_code))]
    pub(crate) fn share_feeds(&self, shared: Arc<dyn SharedFeeds>) {
        self.inner.feeds.share(shared);
    }

    /// Forwards `method` with `params` (a generated params struct; an absent optional param
    /// serialized as `null` or left out) encoded as `structure` says: by name, an object
    /// without the absent optional params; by position (and [`ParamStructure::Either`],
    /// OpenRPC's default), an array in `order` (the document's order of the params) without
    /// the trailing absent optional ones and with `null` for an absent one before a given one.
    /// A required param that is `null` is sent as `null`; a member `order` does not name is
    /// not sent. `&()` is no params (`[]`, or `{}` by name).
    ///
    /// The result is [`Forwarded::Raw`], the upstream's `result` as it sent it; a failure is
    /// an [`Error`] from [`UpstreamError`] (the upstream's JSON-RPC error with its code,
    /// message and data).
    ///
    /// `ctx` is the MCP request's: its verified caller is who the
    /// [`UpstreamSettings::identity_headers`] name, and whose token
    /// [`UpstreamSettings::token_exchange`] exchanges.
    pub async fn forward<P: Serialize + Sync, T>(
        &self,
        ctx: &RequestContext,
        method: &'static str,
        structure: ParamStructure,
        params: &P,
        order: &'static [Param],
    ) -> Result<Forwarded<T>, Error> {
        let params = params::encode(params, structure, order).map_err(|why| {
            Error::new(format!(
                "{method}: the params cannot be sent to the upstream: they {why}"
            ))
        })?;
        let raw = self.call_text(Some(ctx), method, Some(&params)).await?;
        Ok(Forwarded::Raw(raw))
    }

    /// Forwards `method`, which takes no params (`"params":[]`), for `ctx`'s caller.
    pub async fn forward_none<T>(
        &self,
        ctx: &RequestContext,
        method: &'static str,
    ) -> Result<Forwarded<T>, Error> {
        Ok(Forwarded::Raw(
            self.call_text(Some(ctx), method, Some("[]")).await?,
        ))
    }

    /// The identity headers of `caller`, or why it has none to send.
    fn identity_of(
        &self,
        caller: Option<&RequestContext>,
    ) -> Result<Vec<(HeaderName, HeaderValue)>, UpstreamError> {
        let identity = &self.inner.identity;
        if identity.is_empty() && self.inner.exchanger.is_none() {
            return Ok(Vec::new());
        }
        let refused = |reason: String| UpstreamError::Identity { reason };
        let principal = caller.and_then(RequestContext::principal).ok_or_else(|| {
            refused(
                "the call has no verified caller (is authorization on, and is it over HTTP?)"
                    .into(),
            )
        })?;
        identity
            .iter()
            .map(|header| {
                Ok((
                    header.name().clone(),
                    header.value(principal).map_err(refused)?,
                ))
            })
            .collect()
    }

    async fn call_text(
        &self,
        caller: Option<&RequestContext>,
        method: &str,
        params: Option<&str>,
    ) -> Result<Box<RawValue>, UpstreamError> {
        let inner = &*self.inner;
        let mut identity = self.identity_of(caller)?;
        let started = Instant::now();
        let id = inner.next_id.fetch_add(1, Ordering::Relaxed);
        let body = request_body(id, method, params);
        // `identity_of` refused a call without a principal when there is an exchanger.
        let principal = caller.and_then(RequestContext::principal);
        let exchange = async {
            if let (Some(exchanger), Some(principal)) = (&inner.exchanger, principal) {
                identity.push((AUTHORIZATION, exchanger.authorization(principal).await?));
            }
            self.exchange(id, body, identity).await
        };
        let outcome = match tokio::time::timeout(inner.timeout, exchange).await {
            Ok(outcome) => outcome,
            Err(_) => Err(UpstreamError::Timeout {
                url: inner.shown.clone(),
                after: inner.timeout,
            }),
        };
        let elapsed_ms = started.elapsed().as_millis() as u64;
        if let (Some(exchanger), Some(principal), Err(UpstreamError::Status { status: 401, .. })) =
            (&inner.exchanger, principal, &outcome)
        {
            // The upstream refused the issued token (revoked, or its key rolled): the next
            // call exchanges again.
            exchanger.forget(principal);
        }
        if let Some(readiness) = inner.readiness.get() {
            match &outcome {
                Err(UpstreamError::Connect { .. }) => readiness.set(NotReady::Upstream, true),
                Err(UpstreamError::Timeout { .. }) => {}
                _ => readiness.set(NotReady::Upstream, false),
            }
        }
        match &outcome {
            Ok(_) => tracing::debug!(method, id, elapsed_ms, outcome = "ok", "upstream call"),
            // The code only: an upstream's message can quote the params.
            Err(UpstreamError::Rpc { code, .. }) => {
                tracing::debug!(
                    method,
                    id,
                    elapsed_ms,
                    outcome = "rpc",
                    code,
                    "upstream call"
                )
            }
            Err(error) => tracing::warn!(
                method,
                id,
                elapsed_ms,
                outcome = error.kind(),
                "upstream call failed: {error}"
            ),
        }
        outcome
    }

    /// One request and its answer, with a slot (the caller bounds it in time); `identity`:
    /// the caller's headers (HTTP only: [`Upstream::new`] refuses them for the others).
    async fn exchange(
        &self,
        id: u64,
        body: String,
        identity: Vec<(HeaderName, HeaderValue)>,
    ) -> Result<Box<RawValue>, UpstreamError> {
        let inner = &*self.inner;
        let _slot = inner
            .slots
            .acquire()
            .await
            .expect("the semaphore is never closed");
        let (pool, uri, headers) = match &inner.transport {
            Transport::Http { pool, uri, headers } => (pool, uri, headers),
            Transport::Socket(sockets) => {
                let message = sockets.exchange(id, body).await?;
                return self.result_of(&message, id);
            }
        };
        let mut request = Request::builder()
            .method(Method::POST)
            .uri(uri.clone())
            .body(Full::new(Bytes::from(body)))
            .map_err(|e| self.connect_error(format!("building the request: {e}")))?;
        *request.headers_mut() = headers.clone();
        for (name, value) in identity {
            request.headers_mut().insert(name, value);
        }
        let response = pool.request(request).await.map_err(|e| {
            self.connect_error(http_pool::tls::describe(
                &e,
                "trust a private CA with --upstream-ca (UpstreamSettings::root_certificates)",
            ))
        })?;
        let (parts, body) = response.into_parts();
        if parts.status.is_success() {
            let bytes = self
                .read_body(body, &parts.headers, inner.max_response_bytes, true)
                .await?;
            return self.result_of(&bytes, id);
        }
        // An error status: its JSON-RPC error if it has one, else the status and the body's
        // start.
        let limit = inner.max_response_bytes.min(ERROR_BODY_LIMIT);
        let bytes = self.read_body(body, &parts.headers, limit, false).await?;
        if parts.status != http::StatusCode::TOO_MANY_REQUESTS {
            if let answer @ Answer::Error { .. } = response::read(&bytes, id) {
                return Err(self.refusal(answer, id));
            }
        }
        let html = parts
            .headers
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|media| media.to_ascii_lowercase().contains("html"))
            || bytes.trim_ascii_start().starts_with(b"<");
        Err(UpstreamError::Status {
            url: inner.shown.clone(),
            status: parts.status.as_u16(),
            retry_after: parts
                .headers
                .get(RETRY_AFTER)
                .map(|v| response::excerpt(v.as_bytes(), false))
                .filter(|v| !v.is_empty()),
            excerpt: response::excerpt(&bytes, html),
        })
    }

    /// The body, at most `limit` bytes of it: past them, [`UpstreamError::TooLarge`] when
    /// `whole` (a result must be read whole), else what was read. Reading stops there (the
    /// connection is then closed, not reused); a `Content-Length` above the limit stops it
    /// before the first byte.
    async fn read_body(
        &self,
        mut body: hyper::body::Incoming,
        headers: &HeaderMap,
        limit: usize,
        whole: bool,
    ) -> Result<Vec<u8>, UpstreamError> {
        let too_large = || UpstreamError::TooLarge {
            url: self.inner.shown.clone(),
            limit,
        };
        let declared = headers
            .get(CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<u64>().ok());
        if whole && declared.is_some_and(|length| length > limit as u64) {
            return Err(too_large());
        }
        let capacity = declared.map_or(8 << 10, |length| length.min(limit as u64) as usize);
        let mut bytes = Vec::with_capacity(capacity);
        while let Some(frame) = body.frame().await {
            let frame =
                frame.map_err(|e| self.connect_error(format!("reading the answer: {e}")))?;
            let Ok(data) = frame.into_data() else {
                continue;
            };
            if bytes.len() + data.len() > limit {
                if whole {
                    return Err(too_large());
                }
                bytes.extend_from_slice(&data[..limit - bytes.len()]);
                break;
            }
            bytes.extend_from_slice(&data);
        }
        Ok(bytes)
    }

    fn connect_error(&self, reason: String) -> UpstreamError {
        UpstreamError::Connect {
            url: self.inner.shown.clone(),
            reason,
        }
    }

    /// The `result` of `message`, the answer to request `id`, or why there is none.
    fn result_of(&self, message: &[u8], id: u64) -> Result<Box<RawValue>, UpstreamError> {
        match response::read(message, id) {
            Answer::Result(result) => Ok(result),
            answer => Err(self.refusal(answer, id)),
        }
    }

    /// The error of an answer that is not a result.
    fn refusal(&self, answer: Answer, id: u64) -> UpstreamError {
        let url = self.inner.shown.clone();
        match answer {
            Answer::Error {
                code,
                message,
                data,
            } => UpstreamError::Rpc {
                url,
                code,
                message,
                data: data.map(Box::new),
            },
            Answer::NotJsonRpc(reason) => UpstreamError::NotJsonRpc { url, reason },
            Answer::WrongId(got) => UpstreamError::WrongId {
                url,
                expected: id,
                got,
            },
            Answer::Result(_) => UpstreamError::NotJsonRpc {
                url,
                reason: "a result where an error was expected".into(),
            },
        }
    }
}

/// `url` as the endpoint to call, or why it cannot be (the reason does not repeat the URL,
/// which can hold credentials).
pub(crate) fn check_url(url: &str) -> Result<Endpoint, String> {
    let url = url.trim();
    if url.contains(|c: char| c.is_whitespace() || c.is_control()) {
        return Err("the URL has spaces or control characters".into());
    }
    if let Some(path) = strip_prefix_ignore_case(url, "unix:") {
        // `unix:/run/geth.ipc`, `unix:///run/geth.ipc`, `unix:geth.ipc` (relative to the
        // gateway's working directory).
        let path = path.strip_prefix("//").unwrap_or(path);
        if path.is_empty() {
            return Err("unix: needs the socket's path, e.g. unix:/run/geth/geth.ipc".into());
        }
        return Ok(Endpoint::Unix(PathBuf::from(path)));
    }
    let (scheme, _) = url.split_once("://").unwrap_or((url, ""));
    let web_socket = ["ws", "wss"].iter().any(|s| scheme.eq_ignore_ascii_case(s));
    if !web_socket
        && !["http", "https"]
            .iter()
            .any(|s| scheme.eq_ignore_ascii_case(s))
    {
        return Err(format!(
            "must be an http://, https://, ws:// or wss:// URL or a unix:/path (the upstream's JSON-RPC endpoint, e.g. http://127.0.0.1:8545), not {}",
            if url.contains("://") { format!("{scheme}://") } else { "a URL without a scheme".into() }
        ));
    }
    if url.contains('#') {
        return Err("the URL has a fragment (#...), which is never sent".into());
    }
    // The scheme in lower case: `http` parses `HTTPS` as https, but keeps `WSS` as written,
    // and a `WSS://` upstream must get TLS as a `wss://` one does.
    let url = format!("{}{}", scheme.to_ascii_lowercase(), &url[scheme.len()..]);
    let uri: Uri = url.parse().map_err(|e| format!("not a URL ({e})"))?;
    let authority = uri.authority().map(|a| a.as_str()).unwrap_or_default();
    if authority.contains('@') {
        return Err("the URL has user information (user:password@), which is not sent: give it as a header instead, e.g. --upstream-header 'Authorization: Basic BASE64(user:password)'".into());
    }
    if uri.host().is_none_or(str::is_empty) {
        return Err("the URL has no host".into());
    }
    Ok(match web_socket {
        true => Endpoint::WebSocket(uri),
        false => Endpoint::Http(uri),
    })
}

/// `text` without `prefix`, compared without case.
fn strip_prefix_ignore_case<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    let head = text.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &text[prefix.len()..])
}

impl Reachable {
    /// A URI's host and port (the scheme's default port when it names none).
    fn of(uri: &Uri) -> Self {
        let host = uri
            .host()
            .unwrap_or_default()
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_owned();
        let secure = matches!(uri.scheme_str(), Some("https" | "wss"));
        Self::Tcp(
            host,
            uri.port_u16().unwrap_or(if secure { 443 } else { 80 }),
        )
    }

    /// Whether a connection opens now.
    async fn connects(&self) -> bool {
        match self {
            Self::Tcp(host, port) => tokio::net::TcpStream::connect((host.as_str(), *port))
                .await
                .is_ok(),
            Self::Unix(path) => tokio::net::UnixStream::connect(path).await.is_ok(),
        }
    }
}

/// The origin of `url` (`scheme://host[:port]`, lowercase scheme), what messages show of it:
/// never the user information, path or query, which can hold credentials or API keys (an
/// Infura or Alchemy key is a path segment).
fn shown_url(url: &str) -> String {
    let url = url.trim();
    if strip_prefix_ignore_case(url, "unix:").is_some() {
        // A socket's path is no secret, and the only way to tell two apart.
        return url.to_owned();
    }
    let Some((scheme, rest)) = url.split_once("://") else {
        return "(not a URL)".into();
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let host = authority
        .rsplit_once('@')
        .map_or(authority, |(_, host)| host);
    format!("{}://{host}", scheme.to_ascii_lowercase())
}

/// Whether a configured header may be sent: not one the gateway writes itself.
pub(crate) fn check_header_name(name: &HeaderName) -> Result<(), String> {
    if [
        CONTENT_TYPE,
        CONTENT_LENGTH,
        http::header::TRANSFER_ENCODING,
    ]
    .contains(name)
    {
        return Err(format!(
            "the header {name} is the gateway's own (it sends JSON, framed by itself); leave it out"
        ));
    }
    Ok(())
}

/// Whether `name` is one a WebSocket handshake writes itself.
fn is_websocket_header(name: &HeaderName) -> bool {
    let name = name.as_str();
    ["host", "upgrade", "connection"].contains(&name) || name.starts_with("sec-websocket-")
}

#[cfg(test)]
mod tests;
