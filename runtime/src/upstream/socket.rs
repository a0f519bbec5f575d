//! Upstreams over a connection that stays open: WebSocket (`ws://`, `wss://`) and a Unix
//! socket (`unix:/path`, the IPC endpoint geth, anvil and other daemons serve).
//!
//! - **Multiplexed.** Calls share a small pool of connections ([`Sockets::new`]: at most
//!   [`MAX_CONNECTIONS`], taken in turn). Each request carries the upstream's next id (the
//!   ids of [`super::Upstream`], one space for all its connections); a connection's reader
//!   hands each answer to the call waiting for its id, in whatever order they come.
//! - **Bounded.** The caller's slot and timeout are the HTTP path's
//!   ([`super::UpstreamSettings`]); a message longer than `max_response_bytes` closes its
//!   connection (a WebSocket message is refused by tungstenite, a Unix socket's value by the
//!   splitter, before it is read whole).
//! - **A dropped connection never hangs a call.** Its reader fails every call in flight on it
//!   at once with [`UpstreamError::Connect`] (or [`UpstreamError::TooLarge`], for the one call
//!   whose answer was too long); the next call opens a new connection. A connection that cannot
//!   be opened is tried again after a backoff (100 ms doubling to 5 s, with jitter); calls in
//!   the meantime fail at once, saying when the next attempt is.
//! - **Framing.** WebSocket: one JSON-RPC message per text (or binary) message. Unix socket:
//!   JSON values one after the other, each request followed by a newline, as geth's and
//!   anvil's IPC servers read and write them; answers are split where each value ends, with or
//!   without whitespace between them.
//! - **Subscriptions.** A subscription's request is an exchange like any other, whose answer's
//!   `result` (the upstream's subscription id) the reader registers before it reads the next
//!   message; each notification that names that id (`params.subscription`, or Starknet's
//!   `params.subscription_id`) goes to the subscription's channel, until the connection closes
//!   (the channel's sender is dropped then: [`super::subscription`] opens it again).
//!
//! An error answer without an id (`"id": null`: the upstream could not read a request) fails
//! every call waiting on its connection; an id echoed as a string (`"7"`) reaches its call,
//! which fails with [`UpstreamError::WrongId`]. Any other message with no id of ours (an
//! answer whose call timed out, a notification of a subscription nobody holds) is dropped, at
//! `debug`.

use bytes::{Bytes, BytesMut};
use futures_util::{SinkExt, StreamExt};
use http::header::HeaderMap;
use http::Uri;
use serde::Deserialize;
use serde_json::value::RawValue;
use std::collections::HashMap;
use std::hash::BuildHasher;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::{mpsc, oneshot};
use tokio::task::AbortHandle;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::{self, Message};

use super::error::UpstreamError;
use crate::http_pool::tls;

/// The most connections to one socket upstream.
pub(crate) const MAX_CONNECTIONS: usize = 4;
/// The first wait before a connection that could not be opened is tried again.
const BACKOFF_FIRST: Duration = Duration::from_millis(100);
/// The longest wait between two attempts.
const BACKOFF_MOST: Duration = Duration::from_secs(5);

/// Where a socket upstream is.
pub(super) enum Address {
    /// `ws://` or `wss://`: the URI of the handshake, the host and port to connect to, and
    /// for `wss://` the TLS connector and the name the certificate must have.
    WebSocket {
        uri: Uri,
        host: String,
        port: u16,
        tls: Option<(
            tokio_rustls::TlsConnector,
            rustls::pki_types::ServerName<'static>,
        )>,
    },
    /// `unix:/path`.
    Unix(PathBuf),
}

/// The connections to one socket upstream.
pub(super) struct Sockets {
    address: Address,
    /// Sent with each WebSocket handshake (the configured headers).
    headers: HeaderMap,
    max_message: usize,
    /// The upstream as messages show it.
    shown: String,
    lines: Box<[Line]>,
    next: AtomicUsize,
    /// Set while no connection can be opened: the last attempt failed, and none is made before
    /// its time (for every line: the upstream is down, not one connection).
    backoff: Mutex<Option<Backoff>>,
}

struct Backoff {
    until: Instant,
    /// Attempts that failed in a row.
    failures: u32,
    reason: String,
}

/// One connection of the pool: none yet (or closed: opened again at the next call), or open.
struct Line {
    state: Mutex<Option<Arc<Conn>>>,
    /// Held while the line connects, so that one call connects and the others wait for it.
    connecting: tokio::sync::Mutex<()>,
}

/// An open connection: its writer's queue and the calls waiting for an answer on it.
pub(super) struct Conn {
    outgoing: mpsc::UnboundedSender<String>,
    waiting: Mutex<Waiting>,
    /// The reader's and writer's tasks, ended with the connection.
    tasks: Mutex<Vec<AbortHandle>>,
}

#[derive(Default)]
struct Waiting {
    calls: HashMap<u64, oneshot::Sender<Result<Bytes, UpstreamError>>>,
    /// The subscription requests in flight: where the notifications of the subscription each
    /// answer opens go.
    subscribing: HashMap<u64, Route>,
    /// The subscriptions open on this connection, by the upstream's subscription id.
    routes: HashMap<Box<str>, Route>,
    /// Why the connection closed, once it has.
    closed: Option<String>,
}

/// Where a subscription's notifications go: each one's `params.result`.
pub(super) type Route = mpsc::Sender<Box<RawValue>>;

/// Why a connection ends.
enum Closed {
    /// The reason, as [`UpstreamError::Connect`] says it.
    Reason(String),
    /// A message over `max_response_bytes` (the limit).
    TooLarge(usize),
}

impl Sockets {
    /// The pool to `address`: `connections` (at most [`MAX_CONNECTIONS`]) opened as calls
    /// need them.
    pub(super) fn new(
        address: Address,
        headers: HeaderMap,
        max_message: usize,
        connections: usize,
        shown: String,
    ) -> Self {
        let lines = (0..connections.clamp(1, MAX_CONNECTIONS))
            .map(|_| Line {
                state: Mutex::new(None),
                connecting: tokio::sync::Mutex::new(()),
            })
            .collect();
        Self {
            address,
            headers,
            max_message,
            shown,
            lines,
            next: AtomicUsize::new(0),
            backoff: Mutex::new(None),
        }
    }

    /// Sends `body` (a request with id `id`) and returns the message that answers it. The
    /// caller bounds it in time: when it is dropped, the call is forgotten.
    pub(super) async fn exchange(&self, id: u64, body: String) -> Result<Bytes, UpstreamError> {
        let conn = self.next_conn().await?;
        self.exchange_on(&conn, id, body, None).await
    }

    /// Sends the subscription request `body` (id `id`) and returns the connection it went on
    /// and its answer; the notifications of the subscription the answer opens go to `route`
    /// until that connection closes.
    pub(super) async fn subscribe(
        &self,
        id: u64,
        body: String,
        route: Route,
    ) -> Result<(Arc<Conn>, Bytes), UpstreamError> {
        let conn = self.next_conn().await?;
        let answer = self.exchange_on(&conn, id, body, Some(route)).await?;
        Ok((conn, answer))
    }

    /// The next line's connection, opened if need be.
    async fn next_conn(&self) -> Result<Arc<Conn>, UpstreamError> {
        let line = &self.lines[self.next.fetch_add(1, Ordering::Relaxed) % self.lines.len()];
        self.open(line).await
    }

    /// [`exchange`](Self::exchange) on `conn` (an unsubscription goes on its subscription's
    /// connection); with `route`, a subscription's request.
    pub(super) async fn exchange_on(
        &self,
        conn: &Conn,
        id: u64,
        body: String,
        route: Option<Route>,
    ) -> Result<Bytes, UpstreamError> {
        let (answer, waited) = oneshot::channel();
        {
            let mut waiting = conn.waiting.lock().expect("never poisoned");
            if let Some(reason) = &waiting.closed {
                return Err(self.connect_error(reason.clone()));
            }
            waiting.calls.insert(id, answer);
            if let Some(route) = route {
                waiting.subscribing.insert(id, route);
            }
        }
        // Forgets the call if it is dropped (timed out) before its answer.
        let _forget = Forget { conn, id };
        if conn.outgoing.send(body).is_err() {
            return Err(self.connect_error("the connection closed".into()));
        }
        match waited.await {
            Ok(answer) => answer,
            Err(_) => Err(self.connect_error("the connection closed".into())),
        }
    }

    /// `line`'s open connection, opened now if it has none (unless it waits before the next
    /// attempt: then that is the error).
    async fn open(&self, line: &Line) -> Result<Arc<Conn>, UpstreamError> {
        if let Some(conn) = line.up() {
            return Ok(conn);
        }
        let _connecting = line.connecting.lock().await;
        if let Some(conn) = line.up() {
            return Ok(conn);
        }
        let failures = match &*self.backoff.lock().expect("never poisoned") {
            Some(Backoff {
                until,
                failures,
                reason,
            }) => {
                let now = Instant::now();
                if now < *until {
                    return Err(self.connect_error(format!(
                        "{reason} (the next attempt in {} ms)",
                        (*until - now).as_millis().max(1)
                    )));
                }
                *failures
            }
            None => 0,
        };
        match self.connect().await {
            Ok(conn) => {
                tracing::debug!(upstream = %self.shown, "upstream connection opened");
                *self.backoff.lock().expect("never poisoned") = None;
                *line.state.lock().expect("never poisoned") = Some(conn.clone());
                Ok(conn)
            }
            Err(reason) => {
                let failures = failures.saturating_add(1);
                *self.backoff.lock().expect("never poisoned") = Some(Backoff {
                    until: Instant::now() + backoff(failures),
                    failures,
                    reason: reason.clone(),
                });
                Err(self.connect_error(reason))
            }
        }
    }

    /// A new connection, its reader and writer running.
    async fn connect(&self) -> Result<Arc<Conn>, String> {
        let (outgoing, queue) = mpsc::unbounded_channel();
        let conn = Arc::new(Conn {
            outgoing,
            waiting: Mutex::default(),
            tasks: Mutex::default(),
        });
        let tasks = match &self.address {
            Address::WebSocket {
                uri,
                host,
                port,
                tls,
            } => {
                let tcp = tokio::net::TcpStream::connect((host.as_str(), *port))
                    .await
                    .map_err(|e| format!("connecting to {host}:{port}: {e}"))?;
                let _ = tcp.set_nodelay(true);
                let stream: Box<dyn Io> = match tls {
                    None => Box::new(tcp),
                    Some((connector, name)) => Box::new(
                        connector.connect(name.clone(), tcp).await.map_err(|e| {
                            tls::describe(
                                &e,
                                "trust a private CA with --upstream-ca (UpstreamSettings::root_certificates)",
                            )
                        })?,
                    ),
                };
                let mut request = uri
                    .clone()
                    .into_client_request()
                    .map_err(|e| format!("the WebSocket request: {e}"))?;
                for (name, value) in &self.headers {
                    request.headers_mut().append(name.clone(), value.clone());
                }
                let config = WebSocketConfig::default()
                    .max_message_size(Some(self.max_message))
                    .max_frame_size(Some(self.max_message));
                let (socket, _) =
                    tokio_tungstenite::client_async_with_config(request, stream, Some(config))
                        .await
                        .map_err(|e| handshake_error(&e))?;
                let (sink, messages) = socket.split();
                [
                    tokio::spawn(write_ws(sink, queue, conn.clone(), self.shown.clone()))
                        .abort_handle(),
                    tokio::spawn(read_ws(
                        messages,
                        conn.clone(),
                        self.max_message,
                        self.shown.clone(),
                    ))
                    .abort_handle(),
                ]
            }
            Address::Unix(path) => {
                let socket = tokio::net::UnixStream::connect(path)
                    .await
                    .map_err(|e| format!("connecting to {}: {e}", path.display()))?;
                let (reading, writing) = socket.into_split();
                [
                    tokio::spawn(write_stream(
                        writing,
                        queue,
                        conn.clone(),
                        self.shown.clone(),
                    ))
                    .abort_handle(),
                    tokio::spawn(read_stream(
                        reading,
                        conn.clone(),
                        self.max_message,
                        self.shown.clone(),
                    ))
                    .abort_handle(),
                ]
            }
        };
        conn.tasks.lock().expect("never poisoned").extend(tasks);
        Ok(conn)
    }

    fn connect_error(&self, reason: String) -> UpstreamError {
        UpstreamError::Connect {
            url: self.shown.clone(),
            reason,
        }
    }
}

impl Drop for Sockets {
    /// Closes every connection: an [`super::Upstream`] dropped leaves no task behind.
    fn drop(&mut self) {
        for line in self.lines.iter() {
            if let Ok(state) = line.state.lock() {
                if let Some(conn) = &*state {
                    conn.close(&self.shown, Closed::Reason("the gateway closed it".into()));
                }
            }
        }
    }
}

impl Line {
    /// The open connection, if there is one (the path of every call but a connection's first).
    fn up(&self) -> Option<Arc<Conn>> {
        let state = self.state.lock().expect("never poisoned");
        state.as_ref().filter(|conn| !conn.is_closed()).cloned()
    }
}

impl Conn {
    fn is_closed(&self) -> bool {
        self.waiting
            .lock()
            .expect("never poisoned")
            .closed
            .is_some()
    }

    /// Whether the connection has closed (its subscriptions' routes are gone then).
    pub(super) fn closed(&self) -> bool {
        self.is_closed()
    }

    /// Stops routing the notifications of the upstream's subscription `key`.
    pub(super) fn unroute(&self, key: &str) {
        self.waiting
            .lock()
            .expect("never poisoned")
            .routes
            .remove(key);
    }

    /// Hands `message` to the call it answers, if one waits for it, or to the subscription
    /// it is a notification of.
    fn deliver(&self, message: Bytes, shown: &str) {
        match answered_id(&message) {
            Some(id) => {
                let call = {
                    let mut waiting = self.waiting.lock().expect("never poisoned");
                    if let Some(route) = waiting.subscribing.remove(&id) {
                        // Before the next message is read: a notification may follow at once.
                        if let Some(key) = subscription_of_answer(&message) {
                            waiting.routes.insert(key, route);
                        }
                    }
                    waiting.calls.remove(&id)
                };
                match call {
                    Some(call) => {
                        let _ = call.send(Ok(message));
                    }
                    None => {
                        tracing::debug!(upstream = %shown, id, "an answer nobody waits for (its call timed out?) dropped")
                    }
                }
            }
            None if is_unattributed_error(&message) => {
                // An error the upstream could not tie to a request (`"id": null`: it could not
                // read one). Every call waiting on this connection gets it, rather than its
                // timeout: one of them caused it, and none can be told apart.
                let calls: Vec<_> = {
                    let mut waiting = self.waiting.lock().expect("never poisoned");
                    waiting.subscribing.clear();
                    waiting.calls.drain().collect()
                };
                tracing::warn!(upstream = %shown, calls = calls.len(), "the upstream answered an error without an id: it fails every call waiting on the connection");
                for (_, call) in calls {
                    let _ = call.send(Ok(message.clone()));
                }
            }
            None => {
                let routed = notification(&message).and_then(|(key, result)| {
                    let waiting = self.waiting.lock().expect("never poisoned");
                    Some((waiting.routes.get(&*key).cloned()?, result))
                });
                match routed {
                    Some((route, result)) => {
                        if route.try_send(result).is_err() {
                            tracing::debug!(upstream = %shown, "a notification dropped: its subscriber is behind or gone");
                        }
                    }
                    None => {
                        tracing::debug!(upstream = %shown, "an upstream message without an id of ours nor a subscription held (a late notification?) dropped")
                    }
                }
            }
        }
    }

    /// Ends the connection: every call waiting fails (with `why`), its tasks stop.
    fn close(&self, shown: &str, why: Closed) {
        let calls = {
            let mut waiting = self.waiting.lock().expect("never poisoned");
            if waiting.closed.is_some() {
                return;
            }
            let reason = match &why {
                Closed::Reason(reason) => reason.clone(),
                Closed::TooLarge(_) => "the upstream sent a message over the size limit".into(),
            };
            waiting.closed = Some(reason);
            // Their channels close: each subscription opens itself again.
            waiting.routes.clear();
            waiting.subscribing.clear();
            std::mem::take(&mut waiting.calls)
        };
        let alone = calls.len() == 1;
        if !calls.is_empty() {
            tracing::warn!(upstream = %shown, calls = calls.len(), "upstream connection closed with calls in flight");
        }
        for (_, call) in calls {
            let error = match &why {
                // Only one call waited: the message was its answer.
                Closed::TooLarge(limit) if alone => UpstreamError::TooLarge {
                    url: shown.to_owned(),
                    limit: *limit,
                },
                Closed::TooLarge(_) => UpstreamError::Connect {
                    url: shown.to_owned(),
                    reason: "the connection closed: the upstream sent a message over the size limit (--upstream-max-body)".into(),
                },
                Closed::Reason(reason) => UpstreamError::Connect {
                    url: shown.to_owned(),
                    reason: format!("the connection closed before the answer: {reason}"),
                },
            };
            let _ = call.send(Err(error));
        }
        for task in self.tasks.lock().expect("never poisoned").drain(..) {
            task.abort();
        }
    }
}

/// Removes a call that is dropped before its answer from its connection's waiting calls.
struct Forget<'a> {
    conn: &'a Conn,
    id: u64,
}

impl Drop for Forget<'_> {
    fn drop(&mut self) {
        if let Ok(mut waiting) = self.conn.waiting.lock() {
            waiting.calls.remove(&self.id);
            waiting.subscribing.remove(&self.id);
        }
    }
}

/// A stream a WebSocket runs over: TCP, or TLS over it.
trait Io: AsyncRead + AsyncWrite + Unpin + Send {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send> Io for T {}

type WebSocket = tokio_tungstenite::WebSocketStream<Box<dyn Io>>;

async fn write_ws(
    mut sink: futures_util::stream::SplitSink<WebSocket, Message>,
    mut queue: mpsc::UnboundedReceiver<String>,
    conn: Arc<Conn>,
    shown: String,
) {
    while let Some(text) = queue.recv().await {
        if let Err(error) = sink.send(Message::text(text)).await {
            return conn.close(&shown, Closed::Reason(format!("writing: {error}")));
        }
    }
}

async fn read_ws(
    mut messages: futures_util::stream::SplitStream<WebSocket>,
    conn: Arc<Conn>,
    max_message: usize,
    shown: String,
) {
    let why = loop {
        match messages.next().await {
            Some(Ok(Message::Text(text))) => conn.deliver(text.into(), &shown),
            Some(Ok(Message::Binary(bytes))) => conn.deliver(bytes, &shown),
            Some(Ok(Message::Close(frame))) => {
                break Closed::Reason(match frame {
                    Some(frame) => format!("the upstream closed the WebSocket ({})", frame.code),
                    None => "the upstream closed the WebSocket".into(),
                })
            }
            // Pings are answered by tungstenite itself.
            Some(Ok(_)) => {}
            Some(Err(tungstenite::Error::Capacity(_))) => break Closed::TooLarge(max_message),
            Some(Err(error)) => break Closed::Reason(format!("reading: {error}")),
            None => break Closed::Reason("the upstream closed the connection".into()),
        }
    };
    conn.close(&shown, why);
}

async fn write_stream(
    mut writing: tokio::net::unix::OwnedWriteHalf,
    mut queue: mpsc::UnboundedReceiver<String>,
    conn: Arc<Conn>,
    shown: String,
) {
    while let Some(mut text) = queue.recv().await {
        text.push('\n');
        if let Err(error) = writing.write_all(text.as_bytes()).await {
            return conn.close(&shown, Closed::Reason(format!("writing: {error}")));
        }
    }
}

async fn read_stream(
    mut reading: tokio::net::unix::OwnedReadHalf,
    conn: Arc<Conn>,
    max_message: usize,
    shown: String,
) {
    let mut buffer = BytesMut::with_capacity(64 << 10);
    let mut splitter = Splitter::default();
    let why = loop {
        while let Some(end) = splitter.next(&buffer) {
            let value = buffer.split_to(end).freeze();
            conn.deliver(value, &shown);
        }
        if buffer.len() > max_message {
            break Closed::TooLarge(max_message);
        }
        match reading.read_buf(&mut buffer).await {
            Ok(0) => break Closed::Reason("the upstream closed the connection".into()),
            Ok(_) => {}
            Err(error) => break Closed::Reason(format!("reading: {error}")),
        }
    };
    conn.close(&shown, why);
}

/// Where each JSON value ends in a stream of values written one after the other (a Unix
/// socket's framing): it follows strings and nesting, not the values' grammar, which the
/// reader of each value checks.
#[derive(Default)]
pub(super) struct Splitter {
    /// How far the current value has been scanned (so a value arriving in parts is scanned
    /// once).
    scanned: usize,
    depth: u32,
    in_string: bool,
    escaped: bool,
    /// Inside a bare word at the top level (not JSON-RPC: passed on for its reader to refuse).
    in_word: bool,
}

impl Splitter {
    /// The length of the first whole value of `buffer` (with the whitespace before it), once
    /// it is all there. After `Some`, the caller removes that many bytes.
    pub(super) fn next(&mut self, buffer: &[u8]) -> Option<usize> {
        while self.scanned < buffer.len() {
            let byte = buffer[self.scanned];
            self.scanned += 1;
            if self.in_string {
                if self.escaped {
                    self.escaped = false;
                } else if byte == b'\\' {
                    self.escaped = true;
                } else if byte == b'"' {
                    self.in_string = false;
                    if self.depth == 0 {
                        return Some(self.end(self.scanned));
                    }
                }
                continue;
            }
            let space = byte.is_ascii_whitespace();
            if self.in_word {
                if space || matches!(byte, b'{' | b'[' | b'"') {
                    return Some(self.end(self.scanned - 1));
                }
                continue;
            }
            match byte {
                b'{' | b'[' => self.depth += 1,
                b'}' | b']' if self.depth > 0 => {
                    self.depth -= 1;
                    if self.depth == 0 {
                        return Some(self.end(self.scanned));
                    }
                }
                b'"' => self.in_string = true,
                _ if space => {}
                _ if self.depth == 0 => self.in_word = true,
                _ => {}
            }
        }
        None
    }

    fn end(&mut self, at: usize) -> usize {
        *self = Self::default();
        at
    }
}

/// The id of an answer to one of our requests, if `message` is one: a number, or a string of
/// one (an upstream that echoes ids as strings: the call then gets
/// [`UpstreamError::WrongId`] at once rather than its timeout).
fn answered_id(message: &[u8]) -> Option<u64> {
    #[derive(Deserialize)]
    struct Envelope<'a> {
        #[serde(borrow, default)]
        id: Option<&'a RawValue>,
    }
    let envelope: Envelope = serde_json::from_slice(message.trim_ascii()).ok()?;
    let id = envelope.id?.get();
    id.parse()
        .ok()
        .or_else(|| id.strip_prefix('"')?.strip_suffix('"')?.parse().ok())
}

/// Whether `message` is an error response whose `id` is `null` or missing.
fn is_unattributed_error(message: &[u8]) -> bool {
    #[derive(Deserialize)]
    struct Envelope<'a> {
        #[serde(borrow, default)]
        id: Option<&'a RawValue>,
        #[serde(borrow, default)]
        error: Option<&'a RawValue>,
        #[serde(borrow, default)]
        method: Option<&'a RawValue>,
    }
    serde_json::from_slice::<Envelope>(message.trim_ascii()).is_ok_and(|envelope| {
        envelope.method.is_none()
            && envelope.error.is_some_and(|error| error.get() != "null")
            && envelope.id.is_none_or(|id| id.get() == "null")
    })
}

/// The upstream's subscription id an answer's `result` gives (a string, or a number as
/// written), as notifications name it.
fn subscription_of_answer(message: &[u8]) -> Option<Box<str>> {
    #[derive(Deserialize)]
    struct Answer<'a> {
        #[serde(borrow, default)]
        result: Option<&'a RawValue>,
    }
    let answer: Answer = serde_json::from_slice(message.trim_ascii()).ok()?;
    subscription_key(answer.result?)
}

/// The subscription id a notification names (`params.subscription`: Ethereum, Substrate,
/// Lotus; or `params.subscription_id`: Starknet) and its `params.result`.
fn notification(message: &[u8]) -> Option<(Box<str>, Box<RawValue>)> {
    #[derive(Deserialize)]
    struct Notification<'a> {
        #[serde(borrow)]
        params: Params<'a>,
    }
    #[derive(Deserialize)]
    struct Params<'a> {
        #[serde(borrow, default)]
        subscription: Option<&'a RawValue>,
        #[serde(borrow, default)]
        subscription_id: Option<&'a RawValue>,
        #[serde(borrow)]
        result: &'a RawValue,
    }
    let notification: Notification = serde_json::from_slice(message.trim_ascii()).ok()?;
    let params = notification.params;
    let key = subscription_key(params.subscription.or(params.subscription_id)?)?;
    Some((key, params.result.to_owned()))
}

/// A subscription id as a key: a string's text, a number as written; nothing else names one.
pub(super) fn subscription_key(id: &RawValue) -> Option<Box<str>> {
    match serde_json::from_str::<serde_json::Value>(id.get()).ok()? {
        serde_json::Value::String(text) => Some(text.into()),
        serde_json::Value::Number(number) => Some(number.to_string().into()),
        _ => None,
    }
}

/// The wait before attempt `failures + 1`: 100 ms doubling up to 5 s, each between half and
/// all of it (jitter, so that gateways that lost the same upstream do not all come back at
/// once).
pub(super) fn backoff(failures: u32) -> Duration {
    let full = BACKOFF_FIRST
        .saturating_mul(1 << failures.saturating_sub(1).min(10))
        .min(BACKOFF_MOST);
    let random = std::collections::hash_map::RandomState::new().hash_one(Instant::now());
    full / 2 + full.mul_f64((random % 1000) as f64 / 2000.0)
}

/// A handshake's failure, as [`UpstreamError::Connect`] says it: a refused upgrade names its
/// status.
fn handshake_error(error: &tungstenite::Error) -> String {
    match error {
        tungstenite::Error::Http(response) => format!(
            "the WebSocket handshake was refused: HTTP {} (is it the node's WebSocket endpoint, and are the credentials given with --upstream-header right?)",
            response.status()
        ),
        other => format!("the WebSocket handshake failed: {other}"),
    }
}
