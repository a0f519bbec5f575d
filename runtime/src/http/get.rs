//! GET on `/mcp`: a session's standalone SSE stream, or the resumption of a broken stream
//! (`Last-Event-ID`). When instances share the sessions, a resumption may land on any of them:
//! the standalone stream resumes from the shared event log ([`crate::delivery::event_log`]), a POST's
//! stream from the instance that holds it ([`crate::delivery::relay`]).

use bytes::Bytes;
use http::{Response, StatusCode};
use std::sync::Arc;
use tokio::sync::mpsc;

use super::body::Body;
use super::headers::Headers;
use super::post;
use super::response::{bad_request, rpc_error, session_refused, sse_response};
use super::Endpoint;
use crate::bus::RelayPart;
use crate::delivery::event_log::{EventLog, ReplayError};
use crate::delivery::notifier::logged_message;
use crate::delivery::relay;
use crate::dispatch::Dispatch;
use crate::jsonrpc::{RpcError, INVALID_REQUEST, SERVER_ERROR};
use crate::session::events::{parse_event_id, ResumeError, CONNECTION_QUEUE, STANDALONE};
use crate::session::Session;

/// What an SSE response starts with: a comment, so the client sees the stream open at once.
const OPENED: &[u8] = b": ping\n\n";

impl<D: Dispatch> Endpoint<D> {
    /// GET here: the session's standalone SSE stream, or the resumption of a broken one
    /// this instance holds; 405 on the stateless revision.
    pub(super) fn open_stream(&self, headers: &Headers<'_>) -> Response<Body> {
        let session = match self.get_session(headers) {
            Ok(session) => session,
            Err(response) => return *response,
        };
        open_here(&session, last_event_id(headers)).unwrap_or_else(|error| {
            cannot_resume(error, self.engine.config().streams.replay_window)
        })
    }

    /// GET with `Last-Event-ID` when instances share the sessions: the standalone stream
    /// from the event log, a POST's stream from here or, when another instance issued it,
    /// relayed from that one.
    pub(super) async fn resume_shared(&self, headers: &Headers<'_>) -> Response<Body> {
        let session = match self.get_session(headers) {
            Ok(session) => session,
            Err(response) => return *response,
        };
        let window = self.engine.config().streams.replay_window;
        let Some((stream, after)) = last_event_id(headers).and_then(parse_event_id) else {
            return cannot_resume(ResumeError::Unknown, window);
        };
        if let (STANDALONE, Some(log)) = (stream, self.engine.event_log()) {
            return self.resume_from_log(&**log, &session, after).await;
        }
        match open_here(&session, last_event_id(headers)) {
            Ok(response) => response,
            Err(ResumeError::Unknown)
                if stream != STANDALONE && self.engine.sessions().are_shared() =>
            {
                self.resume_elsewhere(&session, stream, after).await
            }
            Err(error) => cannot_resume(error, window),
        }
    }

    /// The standalone stream resumed from the shared event log: the entries after the
    /// client's `Last-Event-ID` that this session receives, then the live stream, each entry
    /// once. 400 for an id the log never held, 410 when entries after it left the log, 503
    /// while the log cannot be reached.
    async fn resume_from_log(
        &self,
        log: &dyn EventLog,
        session: &Session,
        after: u64,
    ) -> Response<Body> {
        let entries = match log.after(after).await {
            Ok(entries) => entries,
            Err(ReplayError::Unknown) => {
                return cannot_resume(
                    ResumeError::Unknown,
                    self.engine.config().streams.replay_window,
                )
            }
            Err(ReplayError::Lost) => return lost_from_log(),
            Err(ReplayError::Unavailable(error)) => {
                tracing::warn!(%error, "a standalone stream cannot resume: the event log is unreachable");
                return rpc_error(
                    StatusCode::SERVICE_UNAVAILABLE,
                    crate::engine::unavailable(error),
                    None,
                );
            }
        };
        let replay: Vec<(u64, String)> = entries
            .iter()
            .filter_map(|logged| Some((logged.sequence, logged_message(session, logged)?)))
            .collect();
        let (connection, rx) = mpsc::channel(CONNECTION_QUEUE);
        let head = session
            .streams()
            .resume_standalone(connection, after, &replay);
        opened_with(&head, rx)
    }

    /// A POST's stream this instance did not issue, relayed from the one that did: 400 when
    /// none answers within [`relay::FIRST_PART_WITHIN`], 410 when its events after the id are
    /// gone.
    async fn resume_elsewhere(&self, session: &Session, stream: u32, after: u64) -> Response<Body> {
        let mut waiting = self.engine.ask_relay(session.id(), stream, after);
        let first = tokio::time::timeout(relay::FIRST_PART_WITHIN, waiting.parts.recv()).await;
        match first {
            Ok(Some(RelayPart::Events { sse })) => {
                let (connection, rx) = mpsc::channel(CONNECTION_QUEUE);
                relay::forward(waiting, connection);
                opened_with(sse.as_bytes(), rx)
            }
            Ok(Some(RelayPart::Lost)) => cannot_resume(
                ResumeError::Lost,
                self.engine.config().streams.replay_window,
            ),
            _ => bad_request(
                "Bad Request: Last-Event-ID names no stream an instance serving this session holds",
            ),
        }
    }

    /// The session a GET names, or the answer refusing it: 405 on the stateless revision,
    /// 406 without `text/event-stream` in `Accept`, 400 without a session id, 404 for a
    /// session that does not exist.
    fn get_session(&self, headers: &Headers<'_>) -> Result<Arc<Session>, Box<Response<Body>>> {
        if let Some(response) = super::stateless::only_post(headers) {
            return Err(Box::new(response));
        }
        if !headers.accepts_sse {
            return Err(Box::new(rpc_error(
                StatusCode::NOT_ACCEPTABLE,
                RpcError::new(
                    INVALID_REQUEST,
                    "Not Acceptable: Accept must list text/event-stream",
                ),
                None,
            )));
        }
        if let Some(refused) = post::unsupported_version(headers) {
            return Err(Box::new(refused));
        }
        if headers.session_id.is_none() {
            return Err(Box::new(bad_request(
                "Bad Request: Mcp-Session-Id header is required",
            )));
        }
        self.session(headers)
            .map_err(|refusal| Box::new(session_refused(refusal, None)))
    }
}

/// The standalone stream, or the resumption `last_event_id` names, from this instance's
/// streams of `session`.
fn open_here(
    session: &Session,
    last_event_id: Option<&str>,
) -> Result<Response<Body>, ResumeError> {
    let (connection, rx) = mpsc::channel(CONNECTION_QUEUE);
    let replay = session.streams().open_get(last_event_id, connection)?;
    Ok(opened_with(&replay, rx))
}

/// An SSE response starting with `head` (after the opening comment), then what `rx`
/// carries.
fn opened_with(
    head: &[u8],
    rx: mpsc::Receiver<crate::session::events::Delivery>,
) -> Response<Body> {
    let mut bytes = Vec::with_capacity(OPENED.len() + head.len());
    bytes.extend_from_slice(OPENED);
    bytes.extend_from_slice(head);
    sse_response(Some(Bytes::from(bytes)), rx)
}

pub(super) fn last_event_id<'h>(headers: &'h Headers<'_>) -> Option<&'h str> {
    headers
        .map
        .get("last-event-id")
        .map(|v| v.to_str().unwrap_or_default())
}

/// A `Last-Event-ID` that cannot resume: 400 when it is not an id of this session, 410 when
/// events after it left the replay window (the client must not believe it has them all).
#[cold]
fn cannot_resume(error: ResumeError, replay_window: usize) -> Response<Body> {
    match error {
        ResumeError::Unknown => {
            bad_request("Bad Request: Last-Event-ID is not an event id of this session")
        }
        ResumeError::Lost => gone(format!(
            "Gone: events after this Last-Event-ID are no longer kept (config.streams.replay_window keeps the last {replay_window}); the stream cannot be resumed whole"
        )),
    }
}

/// 410 for a standalone stream whose entries after the client's id left the shared log.
#[cold]
fn lost_from_log() -> Response<Body> {
    gone("Gone: events after this Last-Event-ID are no longer in the shared event log; the stream cannot be resumed whole".to_string())
}

fn gone(message: String) -> Response<Body> {
    rpc_error(StatusCode::GONE, RpcError::new(SERVER_ERROR, message), None)
}
