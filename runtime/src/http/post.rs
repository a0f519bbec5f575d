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

use super::body::Body;
use super::headers::Headers;
use super::response::{bad_request, json_response, rpc_error, session_refused, status_only};
use super::Endpoint;
use super::{session_answer, stateless, SESSION_HEADER_NAME};
use crate::delivery::outbound::Outbound;
use crate::dispatch::{Dispatch, Door};
use crate::engine::era::Era;
use crate::engine::incoming::{self, Incoming, Request};
use crate::engine::params;
use crate::engine::run::Started;
use crate::engine::sessions::{Keep, Opened, Refusal, WriteThrough};
use crate::protocol::ProtocolVersion;
use crate::session::Session;
use crate::telemetry::Transport;

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
    write_through: WriteThrough,
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
                    write_through,
                    response,
                    id,
                } = *created;
                match write_through.write().await {
                    Ok(()) => response,
                    Err(refusal) => session_refused(refusal, Some(id)),
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

impl<D: Dispatch> Endpoint<D> {
    /// Decides the message's era and starts it.
    pub(super) fn route_message<'a>(
        &self,
        headers: &Headers<'_>,
        message: Incoming<'a>,
    ) -> Next<'a> {
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
        if let Some(refused) = unsupported_version(headers) {
            return refused.into();
        }
        if let Incoming::Request(Request {
            id,
            method: "initialize",
            params,
        }) = message
        {
            return self.initialize(id, params.raw(), headers);
        }
        let session = match self.session(headers) {
            Ok(session) => session,
            Err(refusal) => return session_refused(refusal, None).into(),
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
                    .then_some(self.engine.config().streams.sse_retry_ms);
                let outbound = Outbound::session_stream(
                    session.clone(),
                    priming,
                    self.engine.config().streams.sse_responses,
                );
                let id = request.id;
                let started =
                    self.engine
                        .start(headers.source(), Era::Session(&session), request, outbound);
                Next::Session {
                    started,
                    session,
                    id,
                }
            }
        }
    }

    /// With shared rate limits: the 429 of a body (a message or a batch) one of whose calls
    /// is over its limit in Redis (`Engine::shared_rate_refusal`). A call the contract's
    /// scopes refuse takes no token: routing refuses it as it would without shared limits.
    pub(super) async fn shared_rate_refusal(
        &self,
        headers: &Headers<'_>,
        text: &str,
    ) -> Option<Response<Body>> {
        if let (Some(principal), Some(auth)) = (&headers.principal, &self.engine.config().auth) {
            let dispatch = self.engine.dispatch();
            let refused = if incoming::is_batch(text) {
                let messages: Vec<&RawValue> = incoming::read_batch(text).ok()?;
                super::auth::batch_scope_refusal(dispatch, auth, principal, &messages).is_some()
            } else {
                match incoming::read(text, None) {
                    Ok(Incoming::Request(request)) => {
                        super::auth::scope_refusal(dispatch, auth, principal, &request).is_some()
                    }
                    _ => false,
                }
            };
            if refused {
                return None;
            }
        }
        let principal = headers.principal.as_deref();
        let refused = self
            .engine
            .shared_rate_refusal(headers.caller(), principal, text, Door::Mcp)
            .await?;
        Some(super::response::rate_limited(&refused))
    }

    /// [`super::auth::scope_refusal`] with this server's dispatch and settings.
    #[cold]
    fn scope_refusal(
        &self,
        principal: &crate::auth::Principal,
        request: &Request<'_>,
    ) -> Option<Response<Body>> {
        let auth = self.engine.config().auth.as_ref()?;
        super::auth::scope_refusal(self.engine.dispatch(), auth, principal, request)
    }

    /// `initialize`: the session opened (bound to the principal, kept in the store), and its
    /// response carrying the session id; when instances share sessions, the record still to
    /// write before that response leaves.
    fn initialize<'a>(
        &self,
        id: &'a RawValue,
        params: Option<&RawValue>,
        headers: &Headers<'_>,
    ) -> Next<'a> {
        let principal = headers.principal.as_deref();
        let opened = self.engine.open_session(
            Transport::Http,
            params,
            headers.trace(),
            principal,
            Keep::Shared,
        );
        let Opened {
            session,
            result,
            write_through,
        } = match opened {
            Ok(opened) => opened,
            Err(refusal) => return session_refused(refusal, Some(id)).into(),
        };
        let mut response = json_response(StatusCode::OK, result.into_success_response(id));
        if let Ok(value) = http::HeaderValue::from_str(session.id()) {
            response.headers_mut().insert(SESSION_HEADER_NAME, value);
        }
        match write_through {
            Some(write_through) => Next::Created(Box::new(Created {
                write_through,
                response,
                id,
            })),
            None => response.into(),
        }
    }

    /// The session a non-initialize request of `/mcp` belongs to (see
    /// [`Sessions::find`](crate::engine::Sessions::find)), with the principal and
    /// the version header of the request (checked by [`unsupported_version`] first).
    pub(super) fn session(&self, headers: &Headers<'_>) -> Result<Arc<Session>, Refusal> {
        self.engine.sessions().find(
            headers.session_id,
            headers.principal.as_deref(),
            headers.protocol_version,
        )
    }

    /// A 2025-03-26 batch: every message handled in order, the answers as one JSON array.
    pub(super) async fn batch(&self, headers: &Headers<'_>, body: &str) -> Response<Body> {
        let max = self.engine.config().streams.max_batch_len;
        let messages = match incoming::read_batch(body)
            .and_then(|messages| incoming::check_batch_len(&messages, max).map(|()| messages))
        {
            Ok(messages) => messages,
            Err(error) => return rpc_error(StatusCode::BAD_REQUEST, error, None),
        };
        if let Some(refused) = unsupported_version(headers) {
            return refused;
        }
        let session = match self.session(headers) {
            Ok(session) => session,
            Err(refusal) => return session_refused(refusal, None),
        };
        if let (Some(principal), Some(auth)) = (&headers.principal, &self.engine.config().auth) {
            let dispatch = self.engine.dispatch();
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
            .batch(Door::Mcp, &session, &messages, headers.principal.as_ref())
            .await
        {
            Some(answers) => json_response(StatusCode::OK, answers),
            None => status_only(StatusCode::ACCEPTED),
        }
    }
}

/// 400 when the request's `MCP-Protocol-Version` header names no session-era revision
/// (absent: none, which a session takes as its own).
pub(super) fn unsupported_version(headers: &Headers<'_>) -> Option<Response<Body>> {
    let text = headers.protocol_version?;
    match ProtocolVersion::parse(text).filter(|v| !v.is_stateless()) {
        Some(_) => None,
        None => Some(bad_request(format!(
            "Bad Request: unsupported MCP-Protocol-Version \"{text}\" (supported: 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25)"
        ))),
    }
}
