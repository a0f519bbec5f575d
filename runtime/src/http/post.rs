//! POST: one message (or a 2025-03-26 batch) in, its answer out.
//!
//! The edge's whole job for a message: check the headers, read the body once into an
//! [`Incoming`], decide the era (a session id, or a 2026-07-28 header or `_meta`), find the
//! session or run the stateless checks, and hand the request to the engine. What comes back
//! is framed by `session_answer` (JSON, or the session's SSE stream) or `stateless` (JSON,
//! or an SSE response of its own).

use http::{Response, StatusCode};
use serde_json::value::RawValue;
use std::sync::Arc;

use super::headers::Headers;
use super::request_body::{self, ReadError};
use super::response::{bad_request, json_response, rpc_error, session_not_found, status_only};
use super::{guard, session_answer, stateless, Body, SESSION_HEADER_NAME};
use crate::dispatch::Dispatch;
use crate::engine::incoming::{self, Incoming, Request};
use crate::engine::run::{Identity, Started};
use crate::jsonrpc::{self, RpcError};
use crate::outbound::Outbound;
use crate::params;
use crate::protocol::ProtocolVersion;
use crate::server::McpServer;
use crate::session::{Session, SessionLimits, SharedSessions};

/// What a message leads to once read and routed: an answer already, or work to await.
pub(super) enum Next<'a> {
    /// Boxed: refusals are rare, and a response is three times the size of a started call.
    Respond(Box<Response<Body>>),
    /// A request of `session`, started.
    Session {
        started: Started,
        session: Arc<Session>,
        id: &'a RawValue,
    },
    /// A stateless request, started.
    Stateless(Started),
    /// A session just created, whose record must reach the shared store before `response`
    /// (which carries its id) reaches the client. Boxed: rare beside the other variants.
    Created(Box<Created<'a>>),
}

/// See [`Next::Created`].
pub(super) struct Created<'a> {
    shared: Arc<dyn SharedSessions>,
    session: Arc<Session>,
    response: Response<Body>,
    id: &'a RawValue,
}

impl From<Response<Body>> for Next<'_> {
    fn from(response: Response<Body>) -> Self {
        Next::Respond(Box::new(response))
    }
}

impl Next<'_> {
    /// The response: the one routing gave, or the work's answer, framed.
    pub(super) async fn respond(self) -> Response<Body> {
        match self {
            Next::Respond(response) => *response,
            Next::Session {
                started,
                session,
                id,
            } => session_answer::answer(started, session, id).await,
            Next::Stateless(started) => stateless::answer(started).await,
            Next::Created(created) => {
                let Created {
                    shared,
                    session,
                    response,
                    id,
                } = *created;
                match shared.created(&session).await {
                    Ok(()) => response,
                    Err(error) => rpc_error(
                        StatusCode::SERVICE_UNAVAILABLE,
                        crate::engine::unavailable(error),
                        Some(id),
                    ),
                }
            }
        }
    }
}

/// Whether a request's `_meta` makes it a 2026-07-28 one when no header says so: any `_meta`,
/// except on `initialize`, which a session-era client may send with `_meta` of its own (a
/// `traceparent`, a `progressToken`): that one is stateless only when its `_meta` names a
/// protocol version.
fn stateless_meta(request: &Request<'_>) -> bool {
    request.params.has_meta()
        && (request.method != "initialize" || request.params.meta_version().is_some())
}

impl<D: Dispatch> McpServer<D> {
    pub(super) async fn post<B>(&self, headers: &Headers<'_>, body: B) -> Response<Body>
    where
        B: http_body::Body + Send,
        B::Data: Send,
        B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        if let Some(refused) = refused_media(headers) {
            return refused;
        }
        let limit = self.engine.config.body_limit;
        let timeout = self.engine.config.body_read_timeout;
        let bytes = match request_body::read_within(body, limit, timeout).await {
            Ok(bytes) => bytes,
            Err(error) => return body_error(error, limit),
        };
        let Ok(text) = std::str::from_utf8(&bytes) else {
            return rpc_error(
                StatusCode::BAD_REQUEST,
                RpcError::new(jsonrpc::PARSE_ERROR, "Parse error: the body is not UTF-8"),
                None,
            );
        };
        if incoming::is_batch(text) {
            // Boxed: batches are rare, and their state would grow every request's future.
            return Box::pin(self.batch(headers, text)).await;
        }
        // Read and routed in a block of its own: the parsed members are gone before the
        // await, so they never become part of the connection's future.
        let next = match incoming::read(text, stateless::announced_method(headers)) {
            Ok(message) => self.route_message(headers, message),
            Err(error) => return rpc_error(StatusCode::BAD_REQUEST, error, None),
        };
        next.respond().await
    }

    /// Decides the message's era and starts it.
    fn route_message<'a>(&self, headers: &Headers<'_>, message: Incoming<'a>) -> Next<'a> {
        if let (Some(principal), Incoming::Request(request)) = (&headers.principal, &message) {
            if let Some(refused) = self.scope_refusal(principal, request) {
                return refused.into();
            }
        }
        if let Incoming::Request(request) = &message {
            let principal = headers.principal.as_deref();
            if let Some(refused) = self
                .engine
                .rate_refusal(headers.caller(), principal, request)
            {
                return super::response::rate_limited(&refused).into();
            }
        }
        match message {
            Incoming::Request(request)
                if stateless::is_stateless(headers, stateless_meta(&request)) =>
            {
                return match self.start_stateless(headers, request) {
                    Ok(started) => Next::Stateless(started),
                    Err(answer) => Next::Respond(answer),
                };
            }
            Incoming::Notification { params, .. }
                if stateless::is_stateless(headers, params::has_meta(params)) =>
            {
                // Stateless notifications need no state: nothing to do but accept them.
                return status_only(StatusCode::ACCEPTED).into();
            }
            _ => {}
        }
        let header_version = match header_version(headers) {
            Ok(version) => version,
            Err(response) => return Next::Respond(response),
        };
        if let Incoming::Request(Request {
            id,
            method: "initialize",
            params,
        }) = message
        {
            let (response, session) = self.initialize(id, params.raw(), headers);
            return match (&self.engine.shared_sessions, session) {
                (Some(shared), Some(session)) => Next::Created(Box::new(Created {
                    shared: shared.clone(),
                    session,
                    response,
                    id,
                })),
                _ => response.into(),
            };
        }
        let session = match self.session(headers, header_version) {
            Ok(session) => session,
            Err(response) => return Next::Respond(response),
        };
        match message {
            Incoming::Notification { method, params } => {
                self.engine.notification(&session, method, params);
                status_only(StatusCode::ACCEPTED).into()
            }
            Incoming::Response { id, answer } => {
                let key = crate::engine::answer_key(id);
                if session.is_shared() && !session.awaits(&key) && session.minted(&key) {
                    // Another instance asked: it takes the answer (if it is not too big to
                    // carry). An id no instance minted travels nowhere.
                    self.engine.publish_answer(&session, key, &answer);
                } else if !session.answer_client_request(&key, answer) {
                    tracing::debug!(id = id.get(), "a response nobody waits for");
                }
                status_only(StatusCode::ACCEPTED).into()
            }
            Incoming::Request(request) => {
                if let Err(refused) = session.admits(request.id.get().trim()) {
                    return rpc_error(refused.status(), refused.error(), Some(request.id)).into();
                }
                let priming = (session.version() >= ProtocolVersion::V2025_11_25)
                    .then_some(self.engine.config.sse_retry_ms);
                let outbound = Outbound::session_stream(
                    session.clone(),
                    priming,
                    self.engine.config.sse_responses,
                );
                let id = request.id;
                let started = self.engine.start_as(
                    Identity::Session(session.clone()),
                    headers.principal.clone(),
                    headers.trace(),
                    request,
                    outbound,
                );
                Next::Session {
                    started,
                    session,
                    id,
                }
            }
        }
    }

    /// [`super::auth::scope_refusal`] with this server's dispatch and settings.
    #[cold]
    fn scope_refusal(
        &self,
        principal: &crate::auth::Principal,
        request: &Request<'_>,
    ) -> Option<Response<Body>> {
        let auth = self.engine.config.auth.as_ref()?;
        super::auth::scope_refusal(&self.engine.dispatch, auth, principal, request)
    }

    /// `initialize`: its response, and the session it created (held here, not yet in a
    /// shared store).
    fn initialize(
        &self,
        id: &RawValue,
        params: Option<&RawValue>,
        headers: &Headers<'_>,
    ) -> (Response<Body>, Option<Arc<Session>>) {
        let principal = headers.principal.as_deref();
        let (session, result) = match self.engine.initialize(params, headers.trace()) {
            Ok(created) => created,
            Err(error) => return (rpc_error(StatusCode::BAD_REQUEST, error, Some(id)), None),
        };
        if let Some(principal) = principal {
            // The digest, not the subject: a shared store holds the record.
            session.bind_owner(principal.owner_digest());
        }
        if let Err(error) = self.engine.store.insert(session.clone()) {
            return (
                rpc_error(
                    StatusCode::SERVICE_UNAVAILABLE,
                    crate::engine::unavailable(error),
                    Some(id),
                ),
                None,
            );
        }
        tracing::debug!(session = %crate::ids::fingerprint(session.id()), version = %session.version(), "session created");
        let mut response = json_response(StatusCode::OK, result.into_success_response(id));
        if let Ok(value) = http::HeaderValue::from_str(session.id()) {
            response.headers_mut().insert(SESSION_HEADER_NAME, value);
        }
        (response, Some(session))
    }

    /// The session a non-initialize request belongs to: 400 without the header (unless
    /// session-less clients are allowed) or with a version header other than the one the
    /// session negotiated, 404 when unknown or expired.
    pub(super) fn session(
        &self,
        headers: &Headers<'_>,
        header_version: Option<ProtocolVersion>,
    ) -> Result<Arc<Session>, Box<Response<Body>>> {
        let Some(id) = headers.session_id else {
            return self.sessionless(header_version);
        };
        let session = self
            .engine
            .store
            .get(id)
            .ok_or_else(|| Box::new(session_not_found()))?;
        if let Some(principal) = &headers.principal {
            if !session.is_usable_by(principal) {
                // Another principal's session is, to this one, a session that does not exist.
                return Err(Box::new(session_not_found()));
            }
        }
        match header_version {
            Some(version) if version != session.version() => {
                Err(Box::new(version_mismatch(version, session.version())))
            }
            _ => Ok(session),
        }
    }

    /// A throwaway session for a client that sent none, when the configuration allows it.
    fn sessionless(
        &self,
        header_version: Option<ProtocolVersion>,
    ) -> Result<Arc<Session>, Box<Response<Body>>> {
        if !self.engine.config.allow_sessionless {
            return Err(Box::new(bad_request(
                "Bad Request: Mcp-Session-Id header is required (send initialize first)",
            )));
        }
        Ok(Arc::new(Session::new(
            header_version.unwrap_or(ProtocolVersion::V2025_03_26),
            serde_json::Value::Null,
            serde_json::Value::Null,
            SessionLimits::of(&self.engine.config),
        )))
    }

    /// A 2025-03-26 batch: every message handled in order, the answers as one JSON array.
    async fn batch(&self, headers: &Headers<'_>, body: &str) -> Response<Body> {
        let max = self.engine.config.max_batch_len;
        let messages = match incoming::read_batch(body)
            .and_then(|messages| incoming::check_batch_len(&messages, max).map(|()| messages))
        {
            Ok(messages) => messages,
            Err(error) => return rpc_error(StatusCode::BAD_REQUEST, error, None),
        };
        let header_version = match header_version(headers) {
            Ok(version) => version,
            Err(response) => return *response,
        };
        let session = match self.session(headers, header_version) {
            Ok(session) => session,
            Err(response) => return *response,
        };
        if let (Some(principal), Some(auth)) = (&headers.principal, &self.engine.config.auth) {
            let dispatch = &self.engine.dispatch;
            if let Some(refused) =
                super::auth::batch_scope_refusal(dispatch, auth, principal, &messages)
            {
                return refused;
            }
        }
        let principal = headers.principal.as_deref();
        if let Some(refused) =
            self.engine
                .batch_rate_refusal(headers.caller(), principal, &messages)
        {
            return super::response::rate_limited(&refused);
        }
        if let Err(error) = crate::engine::batch::allowed(&session) {
            return rpc_error(StatusCode::BAD_REQUEST, error, None);
        }
        match self
            .engine
            .batch(&session, &messages, headers.principal.as_ref())
            .await
        {
            Some(answers) => json_response(StatusCode::OK, answers),
            None => status_only(StatusCode::ACCEPTED),
        }
    }
}

/// The version the request's `MCP-Protocol-Version` header names (absent: none, which a
/// session takes as its own). An unsupported value is a 400.
pub(super) fn header_version(
    headers: &Headers<'_>,
) -> Result<Option<ProtocolVersion>, Box<Response<Body>>> {
    match headers.protocol_version {
        None => Ok(None),
        Some(text) => match ProtocolVersion::parse(text).filter(|v| !v.is_stateless()) {
            Some(version) => Ok(Some(version)),
            None => Err(Box::new(bad_request(format!(
                "Bad Request: unsupported MCP-Protocol-Version \"{text}\" (supported: 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25)"
            )))),
        },
    }
}

#[cold]
fn version_mismatch(sent: ProtocolVersion, negotiated: ProtocolVersion) -> Response<Body> {
    bad_request(format!(
        "Bad Request: MCP-Protocol-Version {sent} differs from the version this session negotiated ({negotiated})"
    ))
}

/// 415 or 406 when the POST's media types are not the protocol's.
fn refused_media(headers: &Headers<'_>) -> Option<Response<Body>> {
    if !guard::is_json_content(headers.content_type) {
        return Some(rpc_error(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            RpcError::new(
                jsonrpc::INVALID_REQUEST,
                "Unsupported Media Type: Content-Type must be application/json",
            ),
            None,
        ));
    }
    if !(headers.accepts_json && headers.accepts_sse) {
        return Some(rpc_error(
            StatusCode::NOT_ACCEPTABLE,
            RpcError::new(
                jsonrpc::INVALID_REQUEST,
                "Not Acceptable: Accept must list application/json and text/event-stream",
            ),
            None,
        ));
    }
    None
}

#[cold]
pub(super) fn body_error(error: ReadError, limit: usize) -> Response<Body> {
    match error {
        ReadError::TooLarge => rpc_error(
            StatusCode::PAYLOAD_TOO_LARGE,
            RpcError::new(
                jsonrpc::INVALID_REQUEST,
                format!("Payload Too Large: the body exceeds {limit} bytes"),
            ),
            None,
        ),
        ReadError::Failed(error) => {
            bad_request(format!("Bad Request: reading the body failed: {error}"))
        }
        ReadError::TimedOut => rpc_error(
            StatusCode::REQUEST_TIMEOUT,
            RpcError::new(
                jsonrpc::INVALID_REQUEST,
                "Request Timeout: the body did not arrive in time (Config::body_read_timeout)",
            ),
            None,
        ),
    }
}
