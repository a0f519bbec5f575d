//! The 2024-11-05 HTTP+SSE transport (opt-in,
//! [`config.endpoints.legacy_sse`](crate::config::Endpoints::legacy_sse)): a thin edge over the
//! same engine and sessions as `/mcp`.
//!
//! - `GET /sse` opens a connection: an SSE response whose first event, `endpoint`, carries the
//!   URL its client posts to (`/messages?sessionId=<id>`). The stream is the connection's only
//!   way to the client: answers, notifications and server-to-client requests all come on it,
//!   as `message` events.
//! - `POST /messages?sessionId=<id>` carries one client message: `202 Accepted` once it is
//!   read and routed, its answer later on the stream. Without `sessionId`: 400; an id that
//!   names no open stream: 404; a body that is not one JSON-RPC message: 400 with the
//!   JSON-RPC error.
//! - `initialize` on the stream's first POST creates the session (any session-era revision,
//!   2024-11-05 included), kept in the session store like `/mcp`'s: the same limits, idle
//!   expiry and notifications. Its standalone messages (list changes, resource updates) come
//!   on the stream too.
//! - The stream ending ends the session (there is no resumption in 2024-11-05): its running
//!   requests are cancelled.
//!
//! The Host/Origin checks are `route`'s, before this module is reached; body limits and
//! timeouts are `/mcp`'s. Batches are refused: 2024-11-05 has none.

use bytes::Bytes;
use http::header::{HeaderValue, ALLOW};
use http::{Method, Response, StatusCode};
use std::sync::{Arc, Mutex, OnceLock};
use tokio::sync::{mpsc, oneshot, Notify};

use super::body::Body;
use super::headers::Headers;
use super::request_body::{self, Accepts};
use super::response::{
    bad_request, rpc_error, session_not_found, session_refused, sse_response, status_only,
};
use super::Endpoint;
use crate::config::Config;
use crate::delivery::legacy_streams::{lock, Connection, Standalone};
use crate::delivery::outbound::{Outbound, Reply};
use crate::dispatch::{Dispatch, Door};
use crate::engine::era::Era;
use crate::engine::incoming::{self, Incoming, Request};
use crate::engine::run::Source;
use crate::engine::sessions::{Keep, Refusal};
use crate::engine::{answer_key, id_key, Engine};
use crate::jsonrpc::{self, error_response, RpcError};
use crate::session::events::{Delivery, CONNECTION_QUEUE};
use crate::session::Session;
use crate::telemetry::Transport;

/// The path that opens a 2024-11-05 stream.
#[doc(hidden)]
pub const SSE_PATH: &str = "/sse";
/// The path client messages are posted to (with `?sessionId=`).
#[doc(hidden)]
pub const MESSAGES_PATH: &str = "/messages";

/// Whether `path` is one of this transport's, and the transport is on.
#[cold]
pub(super) fn serves(config: &Config, path: &str) -> bool {
    config.endpoints.legacy_sse && (path == SSE_PATH || path == MESSAGES_PATH)
}

impl<D: Dispatch> Endpoint<D> {
    /// Answers a request to [`SSE_PATH`] or [`MESSAGES_PATH`], whose Host and Origin were
    /// checked.
    pub(super) async fn legacy_sse<B>(
        &self,
        parts: &http::request::Parts,
        headers: &Headers<'_>,
        body: B,
    ) -> Response<Body>
    where
        B: http_body::Body + Send,
        B::Data: Send,
        B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        match (parts.uri.path(), &parts.method) {
            (SSE_PATH, &Method::GET) => self.open_legacy_stream(headers),
            (SSE_PATH, _) => allow("GET"),
            (_, &Method::POST) => self.legacy_message(parts.uri.query(), headers, body).await,
            _ => allow("POST"),
        }
    }

    /// `GET /sse`: a new connection, announced by its `endpoint` event.
    fn open_legacy_stream(&self, headers: &Headers<'_>) -> Response<Body> {
        if !headers.accepts_sse {
            return rpc_error(
                StatusCode::NOT_ACCEPTABLE,
                RpcError::new(
                    jsonrpc::INVALID_REQUEST,
                    "Not Acceptable: Accept must list text/event-stream",
                ),
                None,
            );
        }
        let config = self.engine.config();
        let id = crate::ids::random_id();
        let (lines, lines_rx) = mpsc::unbounded_channel();
        let (attach, attached) = oneshot::channel();
        let connection = Arc::new(Connection {
            lines,
            session: OnceLock::new(),
            attach: Mutex::new(Some(attach)),
            end: Notify::new(),
        });
        {
            // Every open stream may become a session: the same bound.
            let mut open = lock(&self.engine.legacy_streams().open);
            if open.len() >= config.sessions.max_sessions {
                drop(open);
                tracing::warn!(
                    max = config.sessions.max_sessions,
                    "a 2024-11-05 stream was refused: the server holds its maximum"
                );
                return too_many_streams();
            }
            open.insert(id.clone(), connection.clone());
        }
        let (stream, rx) = mpsc::channel(CONNECTION_QUEUE);
        tokio::spawn(write_stream(Writer {
            id: id.clone(),
            connection,
            engine: self.engine.clone(),
            stream,
            lines: lines_rx,
            attached,
            initialize_within: config.sessions.session_idle_timeout,
        }));
        tracing::debug!(connection = %crate::ids::fingerprint(&id), "2024-11-05 stream opened");
        let head = format!("event: endpoint\ndata: {MESSAGES_PATH}?sessionId={id}\n\n");
        sse_response(Some(Bytes::from(head)), rx)
    }

    /// `POST /messages?sessionId=…`: one message of a connection.
    async fn legacy_message<B>(
        &self,
        query: Option<&str>,
        headers: &Headers<'_>,
        body: B,
    ) -> Response<Body>
    where
        B: http_body::Body + Send,
        B::Data: Send,
        B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        let Some(id) = query.and_then(session_id_of) else {
            return bad_request("Bad Request: the sessionId query parameter is required");
        };
        let Some(connection) = self.engine.legacy_streams().get(id) else {
            return session_not_found();
        };
        let config = self.engine.config();
        let bytes = match request_body::read_post(headers, body, config, Accepts::Anything).await {
            Ok(bytes) => bytes,
            Err(refused) => return refused,
        };
        let text = match request_body::text(&bytes) {
            Ok(text) => text,
            Err(refused) => return *refused,
        };
        if incoming::is_batch(text) {
            return bad_request(
                "Bad Request: the 2024-11-05 HTTP+SSE transport takes one message per POST (no batches)",
            );
        }
        if self.engine.limits_shared() && connection.session.get().is_some() {
            // This transport has no authorization: the caller is the peer.
            let door = Door::LegacySse;
            let refusal = self
                .engine
                .shared_rate_refusal(headers.caller(), None, text, door);
            if let Some(refused) = Box::pin(refusal).await {
                connection.send(error_response(refused.id, &refused.limited.error()));
                return super::response::rate_limited(&refused);
            }
        }
        let message = match incoming::read(text, None) {
            Ok(message) => message,
            Err(error) => return rpc_error(StatusCode::BAD_REQUEST, error, None),
        };
        self.route_legacy(&connection, headers, message)
    }

    /// Routes a read message of `connection`: its answer goes on the stream.
    fn route_legacy(
        &self,
        connection: &Arc<Connection>,
        headers: &Headers<'_>,
        message: Incoming<'_>,
    ) -> Response<Body> {
        // Found again (marked as used) rather than taken from the connection: gone when it
        // expired (then so is the stream). No principal: this transport does not authenticate.
        let session = match connection.session.get() {
            Some(session) => {
                let found =
                    self.engine
                        .sessions()
                        .find(Some(session.id()), None, headers.protocol_version);
                match found {
                    Ok(session) => Some(session),
                    Err(refusal) => return session_refused(refusal, None),
                }
            }
            None => None,
        };
        match (message, session) {
            (
                Incoming::Request(Request {
                    id,
                    method: "initialize",
                    params,
                }),
                None,
            ) => return self.legacy_initialize(connection, id, params.raw()),
            (Incoming::Request(request), None) => {
                let error = Refusal::NotInitialized.error();
                connection.send(error_response(Some(request.id), &error));
            }
            (Incoming::Request(request), Some(_)) if request.method == "initialize" => {
                connection.send(error_response(
                    Some(request.id),
                    &RpcError::new(
                        jsonrpc::INVALID_REQUEST,
                        "Invalid Request: the session is already initialized",
                    ),
                ));
            }
            (Incoming::Request(request), Some(session)) => {
                let principal = headers.principal.as_deref();
                if let Some(refused) =
                    self.engine
                        .rate_refusal(headers.caller(), principal, &request)
                {
                    // The answer travels on the stream, as every answer of this transport
                    // does; the POST says 429 with the limit's headers too.
                    connection.send(error_response(refused.id, &refused.limited.error()));
                    return super::response::rate_limited(&refused);
                }
                self.start_legacy(connection, session, request);
            }
            (Incoming::Notification { method, params }, Some(session)) => {
                self.engine.notification(&session, method, params);
            }
            (Incoming::Response { id, answer }, Some(session)) => {
                if !session.answer_client_request(&answer_key(id), answer) {
                    tracing::debug!(id = id.get(), "a response nobody waits for");
                }
            }
            // Before `initialize` there is nothing a notification or a response could act on.
            (Incoming::Notification { .. } | Incoming::Response { .. }, None) => {}
        }
        status_only(StatusCode::ACCEPTED)
    }

    /// `initialize`: the session, attached to the connection; the result on the stream.
    fn legacy_initialize(
        &self,
        connection: &Arc<Connection>,
        id: &serde_json::value::RawValue,
        params: Option<&serde_json::value::RawValue>,
    ) -> Response<Body> {
        // No principal: this transport does not authenticate. Kept in this instance only (see
        // `Keep::Instance`).
        let opened = self.engine.open_session(
            Transport::Http,
            params,
            Default::default(),
            None,
            Keep::Instance,
        );
        let (session, result) = match opened {
            Ok(opened) => (opened.session, opened.result),
            // The params' error is the answer, on the stream; a full store refuses the POST.
            Err(Refusal::Invalid(error)) => {
                connection.send(error_response(Some(id), &error));
                return status_only(StatusCode::ACCEPTED);
            }
            Err(refusal) => return session_refused(refusal, Some(id)),
        };
        // Two initializes racing: the first one wins, the other's session goes.
        if connection.session.set(session.clone()).is_err() {
            self.engine.sessions().discard(session.id());
            connection.send(error_response(
                Some(id),
                &RpcError::new(
                    jsonrpc::INVALID_REQUEST,
                    "Invalid Request: the session is already initialized",
                ),
            ));
            return status_only(StatusCode::ACCEPTED);
        }
        // The session's standalone messages go to this connection's writer from now on.
        let (standalone, rx) = mpsc::channel(CONNECTION_QUEUE);
        let buffered = session
            .streams()
            .open_get(None, standalone)
            .unwrap_or_default();
        if let Some(attach) = lock(&connection.attach).take() {
            let _ = attach.send((buffered, rx));
        }
        connection.send(result.into_success_response(id));
        status_only(StatusCode::ACCEPTED)
    }

    /// Starts a request of the session: its messages and its answer go on the stream.
    fn start_legacy(&self, connection: &Connection, session: Arc<Session>, request: Request<'_>) {
        let (id, key) = (request.id, id_key(request.id));
        if let Err(refused) = session.admits(&key) {
            return connection.send(error_response(Some(id), &refused.error()));
        }
        let outbound = Outbound::lines(connection.lines.clone());
        let started = self.engine.start(
            Source::door(Door::LegacySse),
            Era::Session(&session),
            request,
            outbound,
        );
        let canceller = started.outbound.clone();
        // Checked just above; another POST of the same id racing this one loses here.
        if let Err(refused) = session.track(&key, move || canceller.cancel()) {
            return connection.send(error_response(Some(id), &refused.error()));
        }
        let lines = connection.lines.clone();
        tokio::spawn(async move {
            let reply = started.work.await;
            session.untrack(&key);
            if let Some(Reply::Json { json, .. }) = reply {
                let _ = lines.send(json);
            }
        });
    }
}

/// What writes one connection's stream.
struct Writer<D> {
    id: String,
    connection: Arc<Connection>,
    /// Where the connection is forgotten and its session discarded when the stream ends.
    engine: Arc<Engine<D>>,
    /// The SSE response's channel: only the writer holds it, so dropping it cuts the stream.
    stream: mpsc::Sender<Delivery>,
    lines: mpsc::UnboundedReceiver<String>,
    attached: oneshot::Receiver<Standalone>,
    /// How long a stream may stay without a session
    /// ([`config.sessions.session_idle_timeout`](crate::config::Sessions::session_idle_timeout)).
    initialize_within: Option<std::time::Duration>,
}

/// Writes a connection's messages to its stream until the client goes away, the session
/// ends, the server shuts down, no `initialize` came within the session idle timeout, or the
/// client reads too slowly (then the stream is cut); then forgets the connection and ends its
/// session.
async fn write_stream<D: Dispatch>(writer: Writer<D>) {
    let Writer {
        id,
        connection,
        engine,
        stream,
        mut lines,
        mut attached,
        initialize_within,
    } = writer;
    let initialize_by = initialize_within.map(|within| tokio::time::Instant::now() + within);
    let mut standalone: Option<mpsc::Receiver<Delivery>> = None;
    let mut waiting_attach = true;
    let clean = loop {
        let delivery = tokio::select! {
            biased;
            () = stream.closed() => break false,
            () = connection.end.notified() => break true,
            () = sleep_until(initialize_by), if waiting_attach => {
                tracing::debug!(
                    connection = %crate::ids::fingerprint(&id),
                    "a 2024-11-05 stream sent no initialize in time (config.sessions.session_idle_timeout)"
                );
                break true;
            }
            // Attached before the `initialize` answer is written: both are ready then.
            received = &mut attached, if waiting_attach => {
                waiting_attach = false;
                if let Ok((buffered, rx)) = received {
                    standalone = Some(rx);
                    if !buffered.is_empty() {
                        Some(Delivery::Frame(Bytes::from(buffered)))
                    } else {
                        None
                    }
                } else {
                    None
                }
            }
            line = lines.recv() => line.map(|json| Delivery::Frame(message_event(&json))),
            delivery = next(&mut standalone) => match delivery {
                Some(Delivery::Frame(frame)) => Some(Delivery::Frame(frame)),
                // The session ended (or the server is shutting down): end cleanly.
                Some(Delivery::End | Delivery::Detach) => break true,
                // The session's streams cut the connection (the client reads too slowly).
                None => break false,
            },
        };
        let Some(delivery) = delivery else { continue };
        // One slot stays free for the `End` that completes the response cleanly.
        if stream.capacity() <= 1 {
            tracing::warn!(
                connection = %crate::ids::fingerprint(&id),
                queued = CONNECTION_QUEUE,
                "a 2024-11-05 SSE client reads too slowly: its stream is cut and its session ends"
            );
            break false;
        }
        if stream.try_send(delivery).is_err() {
            break false;
        }
    };
    if clean {
        let _ = stream.try_send(Delivery::End);
    }
    drop(stream);
    engine.legacy_streams().remove(&id);
    if let Some(session) = connection.session.get() {
        engine.sessions().discard(session.id());
    }
    tracing::debug!(connection = %crate::ids::fingerprint(&id), clean, "2024-11-05 stream ended");
}

/// Resolves at `deadline` (never without one).
async fn sleep_until(deadline: Option<tokio::time::Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}

/// The next delivery of the standalone stream once attached (pending until then).
async fn next(standalone: &mut Option<mpsc::Receiver<Delivery>>) -> Option<Delivery> {
    match standalone {
        Some(rx) => rx.recv().await,
        None => std::future::pending().await,
    }
}

/// `event: message` carrying `json` (JSON written by serde has no raw line break; any other
/// is split into `data:` lines, which a client joins back with `\n`).
fn message_event(json: &str) -> Bytes {
    let mut out = String::with_capacity(json.len() + 24);
    out.push_str("event: message\n");
    for line in json.split(['\n', '\r']) {
        out.push_str("data: ");
        out.push_str(line);
        out.push('\n');
    }
    out.push('\n');
    Bytes::from(out)
}

/// The `sessionId` of a query string (ids are hex: no decoding needed, and an id with
/// anything else in it names no connection).
fn session_id_of(query: &str) -> Option<&str> {
    query
        .split('&')
        .find_map(|pair| pair.strip_prefix("sessionId="))
        .filter(|id| !id.is_empty())
}

#[cold]
fn allow(methods: &'static str) -> Response<Body> {
    let mut response = status_only(StatusCode::METHOD_NOT_ALLOWED);
    response
        .headers_mut()
        .insert(ALLOW, HeaderValue::from_static(methods));
    response
}

#[cold]
fn too_many_streams() -> Response<Body> {
    rpc_error(
        StatusCode::SERVICE_UNAVAILABLE,
        RpcError::new(
            jsonrpc::INTERNAL_ERROR,
            "Service Unavailable: too many sessions; try again later",
        ),
        None,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_session_id_is_read_from_the_query() {
        assert_eq!(session_id_of("sessionId=ab12"), Some("ab12"));
        assert_eq!(session_id_of("x=1&sessionId=ab12&y=2"), Some("ab12"));
        assert_eq!(session_id_of("sessionId="), None);
        assert_eq!(session_id_of("session=ab"), None);
    }

    #[test]
    fn a_message_is_one_event() {
        assert_eq!(
            &message_event(r#"{"a":1}"#)[..],
            b"event: message\ndata: {\"a\":1}\n\n"
        );
        assert_eq!(
            &message_event("{\n\"a\":1}")[..],
            b"event: message\ndata: {\ndata: \"a\":1}\n\n"
        );
    }

    #[test]
    fn the_paths_are_served_only_when_on() {
        let off = Config::default();
        assert!(!serves(&off, SSE_PATH) && !serves(&off, MESSAGES_PATH));
        let on = Config::builder().legacy_sse(true).build();
        assert!(serves(&on, SSE_PATH) && serves(&on, MESSAGES_PATH));
        assert!(!serves(&on, "/mcp") && !serves(&on, "/sse/"));
    }
}
