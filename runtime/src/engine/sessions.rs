//! One session lifecycle for every transport that has sessions (Streamable HTTP's `/mcp`, the
//! 2024-11-05 HTTP+SSE transport, stdio), in one part of the engine, [`Sessions`]:
//! [`open`](Engine::open_session) (create, bind to the principal, keep, write through),
//! [`find`](Sessions::find) (the replica loaded, the owner and the negotiated version checked,
//! or a throwaway session when the configuration allows one) and [`close`](Sessions::close).
//!
//! Each step answers a [`Refusal`]: the transport maps it to its status (HTTP) or its line
//! (stdio, the 2024-11-05 stream), and nothing else. What really differs between the
//! transports is a parameter ([`Keep`], the principal), not a copy.

use serde::Deserialize;
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::sync::Arc;

use super::method::Method;
use super::{empty, params_as, Engine, Era};
use crate::auth::Principal;
use crate::bus::BusEvent;
use crate::config::Config;
use crate::dispatch::{BoxFuture, Dispatch};
use crate::json::JsonText;
use crate::jsonrpc::{self, RpcError};
use crate::mcp::level_rank;
use crate::mcp::LoggingLevel;
use crate::protocol::ProtocolVersion;
use crate::session::{
    Session, SessionChange, SessionLimits, SessionStore, SharedSessions, StoreError,
};
use crate::telemetry::{TraceHeaders, Transport};

/// Why a session could not be opened, found or closed.
#[derive(Debug)]
pub(crate) enum Refusal {
    /// `initialize`'s params do not fit (`-32602`): HTTP 400, or the error on the line.
    Invalid(RpcError),
    /// The session store is full or cannot be reached: HTTP 503 (see [`super::unavailable`]).
    Store(StoreError),
    /// No session id, and session-less clients are not allowed: HTTP 400.
    Missing,
    /// No such session (never issued, expired, closed, or another principal's): HTTP 404.
    NotFound,
    /// The request names a version other than the one the session negotiated: HTTP 400.
    VersionMismatch {
        /// The version as the request spelled it.
        sent: String,
        negotiated: ProtocolVersion,
    },
    /// A request before `initialize` (`-32600`), where a connection waits for it (stdio, the
    /// 2024-11-05 stream).
    NotInitialized,
}

impl Refusal {
    /// The JSON-RPC error this refusal is, for a transport that answers with a line (and for
    /// the body of an HTTP answer).
    #[cold]
    pub(crate) fn error(self) -> RpcError {
        match self {
            Refusal::Invalid(error) => error,
            Refusal::Store(error) => unavailable(error),
            Refusal::Missing => RpcError::new(
                jsonrpc::INVALID_REQUEST,
                "Bad Request: Mcp-Session-Id header is required (send initialize first)",
            ),
            Refusal::NotFound => RpcError::new(-32001, "Session not found"),
            Refusal::VersionMismatch { sent, negotiated } => RpcError::new(
                jsonrpc::INVALID_REQUEST,
                format!(
                    "Bad Request: MCP-Protocol-Version {sent} differs from the version this session negotiated ({negotiated})"
                ),
            ),
            Refusal::NotInitialized => RpcError::new(
                jsonrpc::INVALID_REQUEST,
                "Invalid Request: send initialize first",
            ),
        }
    }
}

/// Where a session a transport opens is kept: the one real difference between the
/// transports' `initialize`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Keep {
    /// In the session store, and written through to the shared store when instances share
    /// sessions (`/mcp`): any instance may receive the session's next request.
    Shared,
    /// In this instance's session store only (the 2024-11-05 HTTP+SSE transport): the
    /// session lives as long as its stream, which this instance holds, and every message of
    /// it comes to this instance's connection table, so no other instance could serve it and
    /// a record in the shared store would only cost a round trip.
    Instance,
    /// Nowhere but with the transport (stdio): the process serves one client, no id ever
    /// names the session, and nothing expires it while the input is open.
    Transport,
}

/// A session just opened: its `initialize` result, and the write-through still to await.
pub(crate) struct Opened {
    pub(crate) session: Arc<Session>,
    pub(crate) result: JsonText,
    /// `Some` when the session's record must reach the shared store before its id reaches
    /// the client ([`Keep::Shared`] with a shared store).
    pub(crate) write_through: Option<WriteThrough>,
}

/// The record of a session just opened, to write to the shared store (see [`Opened`]).
pub(crate) struct WriteThrough {
    shared: Arc<dyn SharedSessions>,
    session: Arc<Session>,
}

impl WriteThrough {
    /// Writes the record: [`Refusal::Store`] when the shared store cannot take it (the
    /// session then must not be announced).
    pub(crate) async fn write(self) -> Result<(), Refusal> {
        self.shared
            .created(&self.session)
            .await
            .map_err(Refusal::Store)
    }
}

/// The sessions of this instance: where they are kept (the store, and its shared side when
/// instances share them) and the steps of their lifecycle after `initialize`. The engine
/// opens a session ([`Engine::open_session`]: it answers `initialize`) and keeps it here.
pub(crate) struct Sessions {
    store: Arc<dyn SessionStore>,
    /// The shared side of `store` when several instances share sessions (`None`: sessions
    /// are this process's own, and no request pays for sharing).
    shared: Option<Arc<dyn SharedSessions>>,
    /// A throwaway session's limits, when the configuration lets a client send no session
    /// id ([`config.sessions.allow_sessionless`](crate::Config)).
    sessionless: Option<SessionLimits>,
}

impl Sessions {
    pub(crate) fn new(
        store: Arc<dyn SessionStore>,
        shared: Option<Arc<dyn SharedSessions>>,
        config: &Config,
    ) -> Self {
        let mut sessions = Self {
            store,
            shared,
            sessionless: None,
        };
        sessions.reconfigure(config);
        sessions
    }

    /// Follows a new configuration (`Engine::reconfigure`).
    pub(crate) fn reconfigure(&mut self, config: &Config) {
        self.sessionless = config
            .sessions
            .allow_sessionless
            .then(|| SessionLimits::of(config));
    }

    /// Keeps a session just opened as `keep` says: the record to write to the shared store
    /// before its id reaches the client, if it must be.
    fn keep(&self, session: &Arc<Session>, keep: Keep) -> Result<Option<WriteThrough>, Refusal> {
        if keep != Keep::Transport {
            self.store.insert(session.clone()).map_err(Refusal::Store)?;
        }
        Ok(match (keep, &self.shared) {
            (Keep::Shared, Some(shared)) => Some(WriteThrough {
                shared: shared.clone(),
                session: session.clone(),
            }),
            _ => None,
        })
    }

    /// Makes session `id` live in this instance when instances share sessions and it was
    /// created elsewhere: `None` when there is nothing to wait for (no shared store, an id
    /// of a form never issued, a session held here already), else the load (one round trip)
    /// to await before anything reads the session.
    pub(crate) fn load_replica<'a>(
        &'a self,
        id: &'a str,
    ) -> Option<BoxFuture<'a, Result<bool, StoreError>>> {
        let shared = self.shared.as_ref()?;
        // An id of another form was never issued: no round trip to the store for it.
        crate::ids::is_random_id(id)
            .then(|| shared.load(id))
            .flatten()
    }

    /// The session a request names, marked as used: [`Refusal::NotFound`] when it is
    /// unknown, expired or (with authorization) `principal` is not its owner, and
    /// [`Refusal::VersionMismatch`] when the request names a version (`sent`, as spelled)
    /// other than the one the session negotiated.
    ///
    /// Without an `id` (a client that never initialized): a throwaway session of `sent`
    /// (2025-03-26 when absent) when [`config.sessions.allow_sessionless`](crate::Config) allows
    /// it, else [`Refusal::Missing`]. Only `/mcp` lets a request name no session; a transport
    /// that knows its session always passes its id.
    pub(crate) fn find(
        &self,
        id: Option<&str>,
        principal: Option<&Principal>,
        sent: Option<&str>,
    ) -> Result<Arc<Session>, Refusal> {
        let Some(id) = id else {
            return self.sessionless(sent);
        };
        let session = self.store.get(id).ok_or(Refusal::NotFound)?;
        if principal.is_some_and(|principal| !session.is_usable_by(principal)) {
            // Another principal's session is, to this one, a session that does not exist.
            return Err(Refusal::NotFound);
        }
        match sent {
            // Versions are spelled one way: text that is not the session's is another version.
            Some(sent) if sent != session.version().as_str() => Err(Refusal::VersionMismatch {
                sent: sent.to_string(),
                negotiated: session.version(),
            }),
            _ => Ok(session),
        }
    }

    /// A throwaway session for a client that sent no session id, when the configuration
    /// allows it.
    #[cold]
    fn sessionless(&self, sent: Option<&str>) -> Result<Arc<Session>, Refusal> {
        let limits = self.sessionless.ok_or(Refusal::Missing)?;
        Ok(Arc::new(Session::new(
            sent.and_then(ProtocolVersion::parse)
                .unwrap_or(ProtocolVersion::V2025_03_26),
            serde_json::Value::Null,
            serde_json::Value::Null,
            limits,
        )))
    }

    /// Ends session `id` at a client's request: everywhere when instances share sessions
    /// (its record and every replica), else here. [`Refusal::NotFound`] when no instance
    /// knew it or (with authorization) `principal` is not its owner.
    pub(crate) async fn close(
        &self,
        id: &str,
        principal: Option<&Principal>,
    ) -> Result<(), Refusal> {
        if let Some(principal) = principal {
            // The edge loaded the replica of a session held elsewhere: one still not held here
            // (a record this runtime cannot serve, one past its lifetime) has no owner to check,
            // and is, to this principal, a session that does not exist.
            match self.store.get(id) {
                Some(session) if session.is_usable_by(principal) => {}
                _ => return Err(Refusal::NotFound),
            }
        }
        match &self.shared {
            Some(shared) => match shared.delete(id).await {
                Ok(true) => {
                    tracing::debug!(session = %crate::ids::fingerprint(id), "session deleted on every instance");
                    Ok(())
                }
                Ok(false) => Err(Refusal::NotFound),
                Err(error) => Err(Refusal::Store(error)),
            },
            None => match self.store.remove(id) {
                Some(session) => {
                    tracing::debug!(session = %crate::ids::fingerprint(session.id()), "session deleted");
                    Ok(())
                }
                None => Err(Refusal::NotFound),
            },
        }
    }

    /// Forgets session `id` in this instance, without a client asking (its transport's
    /// connection ended, or lost a race to it): [`Keep::Instance`] sessions.
    pub(crate) fn discard(&self, id: &str) {
        self.store.remove(id);
    }

    /// Writes a change of `session` to the shared store when one keeps it (before the
    /// answer: another instance reading the session next sees it); nothing otherwise.
    pub(crate) async fn write_through(
        &self,
        session: &Session,
        change: SessionChange,
    ) -> Result<(), RpcError> {
        let Some(shared) = self.shared.as_ref().filter(|_| session.is_shared()) else {
            return Ok(());
        };
        shared.changed(session, change).await.map_err(unavailable)
    }

    /// The store: every session held here (the load, the expiry sweep, shutdown).
    pub(crate) fn store(&self) -> &Arc<dyn SessionStore> {
        &self.store
    }

    /// Whether several instances share the sessions (a shared session store is set).
    pub(crate) fn are_shared(&self) -> bool {
        self.shared.is_some()
    }
}

impl<D: Dispatch> Engine<D> {
    /// `initialize` over `transport`: the session created from `params`, bound to `owner`
    /// (the authenticated principal, when the transport authenticates), kept as `keep` says
    /// (in [`Sessions`]), and its result. The telemetry of `initialize` (feature `trace`: the
    /// span, with the trace context from `_meta` or `trace_headers`) starts here: it does not
    /// go through [`Engine::start`](super::run).
    pub(crate) fn open_session(
        &self,
        transport: Transport,
        params: Option<&RawValue>,
        trace_headers: TraceHeaders<'_>,
        owner: Option<&Principal>,
        keep: Keep,
    ) -> Result<Opened, Refusal> {
        let (session, result) = self
            .initialize_over(transport, params, trace_headers)
            .map_err(Refusal::Invalid)?;
        if let Some(owner) = owner {
            // The digest, not the subject: a shared store holds the record.
            session.bind_owner(owner.owner_digest());
        }
        let write_through = self.sessions.keep(&session, keep)?;
        tracing::debug!(
            session = %crate::ids::fingerprint(session.id()),
            version = %session.version(),
            ?transport,
            "session created"
        );
        Ok(Opened {
            session,
            result,
            write_through,
        })
    }
}

/// What the bus brings for a session this instance holds: a client's answer to a request
/// this instance sent, a cancellation of a request it runs.
pub(super) fn session_bus_event(store: &dyn SessionStore, event: &BusEvent) {
    match event {
        BusEvent::ClientAnswered {
            session_id,
            request_id,
            answer,
        } => {
            let Some(session) = store.get(session_id) else {
                return;
            };
            if let Some(answer) = answer_of(answer) {
                session.answer_client_request(request_id, answer);
            }
        }
        BusEvent::RequestCancelled {
            session_id,
            request_id,
        } => {
            if let Some(session) = store.get(session_id) {
                session.cancel(request_id);
            }
        }
        _ => {}
    }
}

/// A client's answer as it travels on the bus: `{"result": …}` or `{"error": …}`.
pub(crate) fn answer_text(answer: &crate::session::ClientAnswer) -> String {
    match answer {
        Ok(result) => format!(r#"{{"result":{}}}"#, result.get()),
        Err(error) => serde_json::json!({ "error": error }).to_string(),
    }
}

/// [`answer_text`] read back; `None` when it is neither.
fn answer_of(text: &str) -> Option<crate::session::ClientAnswer> {
    #[derive(Deserialize)]
    struct Answer {
        result: Option<Box<RawValue>>,
        error: Option<serde_json::Value>,
    }
    let answer: Answer = serde_json::from_str(text).ok()?;
    match (answer.result, answer.error) {
        (Some(result), None) => Some(Ok(result)),
        (None, Some(error)) => Some(Err(error)),
        _ => None,
    }
}

/// `ping`, `logging/setLevel` and the resource subscriptions: the methods that act on the
/// session (the method table lets no other era reach them), and the change a shared store
/// must be told of.
pub(super) fn session_method(
    era: Era<'_, ()>,
    method: Method,
    raw: Option<&RawValue>,
) -> Result<(JsonText, Option<SessionChange>), RpcError> {
    let Era::Session(session) = era else {
        return Ok((empty(), None));
    };
    let change = match method {
        Method::SetLogLevel => {
            let params: SetLevelParams = params_as(raw)?;
            let rank = level_rank(params.level);
            session.set_log_level(rank);
            Some(SessionChange::LogLevel { rank })
        }
        Method::Subscribe | Method::Unsubscribe => {
            let target: UriParams<'_> = params_as(raw)?;
            let uri = target.uri.into_owned();
            match method {
                Method::Subscribe => {
                    if uri.len() > crate::uri_template::MAX_URI_LEN {
                        return Err(RpcError::invalid_params(format!(
                            "Invalid params: a URI of {} bytes names no resource (at most {})",
                            uri.len(),
                            crate::uri_template::MAX_URI_LEN
                        )));
                    }
                    session.subscribe(&uri).map_err(|_| {
                        RpcError::invalid_params(format!(
                            "Invalid params: this session subscribes to {} resources already, the most the server keeps (config.streams.max_subscriptions, config.streams.max_subscription_bytes)",
                            session.subscriptions()
                        ))
                    })?;
                    Some(SessionChange::Subscribed { uri })
                }
                _ => {
                    session.unsubscribe(&uri);
                    Some(SessionChange::Unsubscribed { uri })
                }
            }
        }
        _ => None,
    };
    Ok((empty(), change))
}

/// `resources/subscribe` and `resources/unsubscribe` params.
#[derive(Deserialize)]
struct UriParams<'a> {
    #[serde(borrow)]
    uri: Cow<'a, str>,
}

#[derive(Deserialize)]
struct SetLevelParams {
    level: LoggingLevel,
}

/// A shared session store's error as the request's: retryable (HTTP 503 where the transport
/// can say so), with a log line.
#[cold]
pub(crate) fn unavailable(error: StoreError) -> RpcError {
    tracing::warn!(%error, "session store unavailable");
    match error {
        StoreError::Full => RpcError::new(
            jsonrpc::INTERNAL_ERROR,
            "Service Unavailable: too many sessions; try again later",
        ),
        StoreError::Unavailable(reason) => RpcError::unavailable(format!(
            "Service unavailable: the session store cannot be reached ({reason}); retry later"
        )),
    }
}
