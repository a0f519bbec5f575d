//! GET on `/mcp`: a session's standalone SSE stream, or the resumption of a broken stream
//! (`Last-Event-ID`). With a shared event log ([`crate::event_log`]) the standalone stream
//! resumes from the log, on whichever instance the client reaches.

use bytes::Bytes;
use http::{Response, StatusCode};
use std::sync::Arc;
use tokio::sync::mpsc;

use super::headers::Headers;
use super::response::{bad_request, rpc_error, sse_response};
use super::{post, stateless_only_post, Body};
use crate::dispatch::Dispatch;
use crate::event_log::{EventLog, ReplayError};
use crate::events::{parse_event_id, ResumeError, CONNECTION_QUEUE, STANDALONE};
use crate::jsonrpc::{RpcError, INVALID_REQUEST, SERVER_ERROR};
use crate::notifier::logged_message;
use crate::server::McpServer;
use crate::session::Session;

/// What an SSE response starts with: a comment, so the client sees the stream open at once.
const OPENED: &[u8] = b": ping\n\n";

impl<D: Dispatch> McpServer<D> {
    /// GET: the session's standalone SSE stream, or the resumption of a broken one; 405 on
    /// the stateless revision.
    pub(super) fn get(&self, headers: &Headers<'_>) -> Response<Body> {
        let session = match self.get_session(headers) {
            Ok(session) => session,
            Err(response) => return *response,
        };
        let (connection, rx) = mpsc::channel(CONNECTION_QUEUE);
        let mut head = OPENED.to_vec();
        match session
            .streams()
            .open_get(last_event_id(headers), connection)
        {
            Ok(replay) => head.extend_from_slice(&replay),
            Err(error) => return cannot_resume(error, self.engine.config.replay_window),
        }
        sse_response(Some(Bytes::from(head)), rx)
    }

    /// GET resuming the standalone stream from the shared event log: the entries after the
    /// client's `Last-Event-ID` that this session receives, then the live stream, each entry
    /// once. 400 for an id the log never held, 410 when entries after it left the log, 503
    /// while the log cannot be reached.
    pub(super) async fn get_from_log(
        &self,
        log: &dyn EventLog,
        headers: &Headers<'_>,
    ) -> Response<Body> {
        let session = match self.get_session(headers) {
            Ok(session) => session,
            Err(response) => return *response,
        };
        let Some((STANDALONE, after)) = last_event_id(headers).and_then(parse_event_id) else {
            return cannot_resume(ResumeError::Unknown, self.engine.config.replay_window);
        };
        let entries = match log.after(after).await {
            Ok(entries) => entries,
            Err(ReplayError::Unknown) => {
                return cannot_resume(ResumeError::Unknown, self.engine.config.replay_window)
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
            .filter_map(|logged| Some((logged.sequence, logged_message(&session, logged)?)))
            .collect();
        let (connection, rx) = mpsc::channel(CONNECTION_QUEUE);
        let mut head = OPENED.to_vec();
        head.extend(
            session
                .streams()
                .resume_standalone(connection, after, &replay),
        );
        sse_response(Some(Bytes::from(head)), rx)
    }

    /// The session a GET names, or the answer refusing it: 405 on the stateless revision,
    /// 406 without `text/event-stream` in `Accept`, 400 without a session id, 404 for a
    /// session that does not exist.
    fn get_session(&self, headers: &Headers<'_>) -> Result<Arc<Session>, Box<Response<Body>>> {
        if let Some(response) = stateless_only_post(headers) {
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
        let header_version = post::header_version(headers)?;
        if headers.session_id.is_none() {
            return Err(Box::new(bad_request(
                "Bad Request: Mcp-Session-Id header is required",
            )));
        }
        self.session(headers, header_version)
    }
}

/// Whether a GET resumes the standalone stream (its `Last-Event-ID` names stream 0).
pub(super) fn resumes_standalone(headers: &Headers<'_>) -> bool {
    last_event_id(headers)
        .and_then(parse_event_id)
        .is_some_and(|(stream, _)| stream == STANDALONE)
}

fn last_event_id<'h>(headers: &'h Headers<'_>) -> Option<&'h str> {
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
            "Gone: events after this Last-Event-ID are no longer kept (Config::replay_window keeps the last {replay_window}); the stream cannot be resumed whole"
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
