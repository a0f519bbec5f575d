//! The stateless 2026-07-28 side of the endpoint: which POSTs belong to it, the routing
//! headers that must match the body (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`,
//! `Mcp-Param-*`), and how an answer leaves: plain JSON, or an SSE response of its own when
//! the handler sends notifications first. `subscriptions/listen` is an SSE stream that stays
//! open.
//!
//! The era's own checks (`_meta`, version, method) are the engine's
//! (`crate::engine::stateless`); the header check is this transport's step 2 of them.

use bytes::Bytes;
use http::{Response, StatusCode};
use serde_json::value::RawValue;
use tokio::sync::{mpsc, oneshot};

use super::body::Body;
use super::headers::Headers;
use super::response::{json_response, method_not_allowed, rpc_error, sse_response, status_only};
use super::Endpoint;
use crate::delivery::outbound::{Outbound, Outcome, Reply};
use crate::dispatch::{BoxFuture, Dispatch};
use crate::engine::era::{Era, Stateless};
use crate::engine::incoming::{Params, Request};
use crate::engine::method::Method;
use crate::engine::run::Started;
use crate::engine::stateless::{self as era, MetaChecked};
use crate::jsonrpc::{RpcError, HEADER_MISMATCH, INTERNAL_ERROR, METHOD_NOT_FOUND};
use crate::protocol;
use crate::session::events::{encode_frame, Delivery, CONNECTION_QUEUE};

pub use crate::engine::stateless::{
    META_CLIENT_CAPABILITIES, META_LOG_LEVEL, META_PROTOCOL_VERSION, META_SERVER_INFO,
};

/// The SSE comment sent on a quiet listen stream, so proxies do not time it out.
const KEEP_ALIVE: &[u8] = b": keep-alive\n\n";

/// Whether a POST belongs to the stateless revision: no session id, and either an
/// `MCP-Protocol-Version` header that does not name a session-era version, or `_meta` in the
/// params.
pub(super) fn is_stateless(headers: &Headers<'_>, has_meta: bool) -> bool {
    headers.session_id.is_none()
        && (headers
            .protocol_version
            .is_some_and(|v| !protocol::names_session_era(v))
            || has_meta)
}

/// 405 for a GET or DELETE of the stateless revision (no session, 2026-07-28 header).
pub(super) fn only_post(headers: &Headers<'_>) -> Option<Response<Body>> {
    let stateless = headers.session_id.is_none()
        && headers
            .protocol_version
            .and_then(protocol::ProtocolVersion::parse)
            .is_some_and(|v| v.is_stateless());
    stateless.then(|| method_not_allowed("POST"))
}

/// The method a stateless request's `Mcp-Method` header announces, so that the reader can
/// take a call's params as members wherever they stand in the body.
pub(super) fn announced_method<'h>(headers: &Headers<'h>) -> Option<&'h str> {
    let stateless = headers.session_id.is_none()
        && headers
            .protocol_version
            .is_some_and(|v| !protocol::names_session_era(v));
    headers.mcp_method.filter(|_| stateless)
}

#[cold]
fn refusal(status: StatusCode, error: RpcError, id: &RawValue) -> Box<Response<Body>> {
    Box::new(rpc_error(status, error, Some(id)))
}

#[cold]
fn header_mismatch(id: &RawValue, what: &str) -> Box<Response<Body>> {
    let error = RpcError::new(HEADER_MISMATCH, format!("Header mismatch: {what}"));
    refusal(StatusCode::BAD_REQUEST, error, id)
}

impl<D: Dispatch> Endpoint<D> {
    /// Checks a stateless request in the order the specification gives, then starts it;
    /// `Err` is the answer already (a refusal, or the `subscriptions/listen` stream).
    /// Synchronous: only the handler (boxed in the [`Started`]) is awaited, so the request's
    /// parsed members never become part of the connection's future.
    pub(super) fn start_stateless(
        &self,
        headers: &Headers<'_>,
        request: Request<'_>,
    ) -> Result<Started, Box<Response<Body>>> {
        let id = request.id;
        // 1. `params` is an object whose `_meta` carries the version and the capabilities.
        let checked = match era::checked_meta(request) {
            Ok(checked) => checked,
            Err(error) => return Err(refusal(StatusCode::BAD_REQUEST, error, id)),
        };
        // 2. The routing headers match the body.
        if let Err(what) = self.routing_headers_match(headers, &checked) {
            return Err(header_mismatch(id, &what));
        }
        // 3. and 4. The version is served statelessly, and the method exists in it.
        let version = match era::checked_version_and_method(&checked, self.engine.has_skills()) {
            Ok(version) => version,
            Err(error) => {
                let status = match error.code {
                    METHOD_NOT_FOUND => StatusCode::NOT_FOUND,
                    _ => StatusCode::BAD_REQUEST,
                };
                return Err(refusal(status, error, id));
            }
        };
        if checked.method == Method::Listen {
            return Err(Box::new(self.listen(
                id,
                checked.request.params.raw(),
                headers.principal.as_deref(),
            )));
        }
        let stateless = Era::Stateless(Stateless {
            version,
            meta: checked.meta,
        });
        let outbound = Outbound::deferred_lines();
        Ok(self
            .engine
            .start(headers.source(), stateless, checked.request, outbound))
    }

    /// Step 2: `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` and the tool's `Mcp-Param-*`
    /// headers say what the body says; the error names the first that does not.
    fn routing_headers_match(
        &self,
        headers: &Headers<'_>,
        checked: &MetaChecked<'_>,
    ) -> Result<(), String> {
        let method = checked.request.method;
        let body_version = checked.meta.protocol_version.unwrap_or_default();
        match headers.protocol_version {
            Some(v) if v == body_version => {}
            Some(v) => {
                return Err(format!(
                    "MCP-Protocol-Version {v:?} differs from _meta protocolVersion {body_version:?}"
                ))
            }
            None => return Err("the MCP-Protocol-Version header is missing".into()),
        }
        match headers.mcp_method {
            Some(m) if m == method => {}
            Some(m) => {
                return Err(format!(
                    "Mcp-Method {m:?} differs from the body's method {method:?}"
                ))
            }
            None => return Err("the Mcp-Method header is missing".into()),
        }
        let Some(name) = checked.routed_name.as_deref() else {
            return Ok(());
        };
        let plain_or_decoded = |value: &str| match value {
            plain if !plain.starts_with("=?") => plain == name,
            encoded => decode_header_value(encoded).as_deref() == Some(name),
        };
        match headers.mcp_name.map(plain_or_decoded) {
            Some(true) => {}
            Some(_) => return Err(format!("Mcp-Name differs from the body's {name:?}")),
            None => return Err("the Mcp-Name header is missing".into()),
        }
        let param_headers = self.engine.param_headers();
        if let (true, Params::Members(members)) = (method == "tools/call", &checked.request.params)
        {
            if param_headers.has(name) {
                // Arguments the check cannot read as a value (a number out of range, nesting
                // past serde_json's limit) are refused: the handler's own decode may still
                // accept them, and the headers would then go unchecked.
                let arguments = match members.arguments {
                    Some(raw) => Some(serde_json::from_str::<serde_json::Value>(raw.get()).map_err(
                        |e| format!("the arguments cannot be checked against their Mcp-Param-* headers: {e}"),
                    )?),
                    None => None,
                };
                param_headers.check(name, headers.map, arguments.as_ref())?;
            }
        }
        Ok(())
    }

    /// `subscriptions/listen`: an SSE stream that stays open. It starts with
    /// `notifications/subscriptions/acknowledged` naming the honoured filter, then carries the
    /// notifications the filter asked for, each tagged with the subscription id (the listen
    /// request's id), and a keep-alive comment whenever it has been quiet for
    /// `config.streams.sse_keep_alive`. It ends when the client disconnects.
    fn listen(
        &self,
        id: &RawValue,
        params: Option<&RawValue>,
        principal: Option<&crate::auth::Principal>,
    ) -> Response<Body> {
        let (ack, mut subscription) = match self.engine.subscribe(id, params, principal) {
            Ok(opened) => opened,
            // The server at its maximum of streams is busy, not the request wrong.
            Err(error) if error.code == INTERNAL_ERROR => {
                return rpc_error(StatusCode::SERVICE_UNAVAILABLE, error, Some(id))
            }
            Err(error) => return rpc_error(StatusCode::BAD_REQUEST, error, Some(id)),
        };
        let keep_alive = self.engine.config().streams.sse_keep_alive;
        let (frames, rx) = mpsc::channel::<Delivery>(CONNECTION_QUEUE);
        let engine = self.engine.clone();
        tokio::spawn(async move {
            // What the stream's resource updates need opened is open before it is told so.
            engine.open_listen_updates(&subscription).await;
            drop(engine);
            let mut sequence = 0u64;
            let mut frame = |json: &str| {
                sequence += 1;
                Delivery::Frame(encode_frame(&sequence.to_string(), json.as_bytes()))
            };
            if frames.send(frame(&ack)).await.is_err() {
                return;
            }
            let mut quiet =
                tokio::time::interval_at(tokio::time::Instant::now() + keep_alive, keep_alive);
            loop {
                let delivery = tokio::select! {
                    message = subscription.messages.recv() => match message {
                        Some(message) => frame(&message),
                        // Cut for reading too slowly: the response ends with an error.
                        None if subscription.was_cut() => break,
                        None => {
                            let _ = frames.send(Delivery::End).await;
                            break;
                        }
                    },
                    _ = quiet.tick() => Delivery::Frame(Bytes::from_static(KEEP_ALIVE)),
                    () = frames.closed() => break,
                };
                if frames.send(delivery).await.is_err() {
                    break;
                }
                quiet.reset();
            }
            // Dropping `subscription` unregisters the stream.
        });
        sse_response(None::<Bytes>, rx)
    }
}

/// Awaits a started stateless request and frames its answer: JSON, or SSE when the handler
/// sends notifications first.
///
/// The handler runs inline in this connection's task, so a plain call costs no spawn, no
/// channel and no cross-task wake-up. Only when it streams, or continues as a task, is the
/// rest of it handed to its own tokio task.
pub(super) async fn answer(started: Started) -> Response<Body> {
    let Started {
        mut work,
        outbound,
        task_reply: mut replied,
    } = started;
    let reply_now = |reply: Option<Reply>| {
        let Some(reply) = reply else {
            return status_only(StatusCode::ACCEPTED);
        };
        let (status, json) = status_and_json(reply);
        // Notifications sent just before the answer still go first, on SSE.
        match outbound.take_lines() {
            Some(mut lines) => match lines.try_recv() {
                Ok(line) => stream(line, lines, Answer::Ready(json), None),
                Err(_) => json_response(status, json),
            },
            None => json_response(status, json),
        }
    };
    enum First {
        Answered(Option<Reply>),
        BecameTask(Reply),
        Streaming,
    }
    let first = {
        let task_reply = async {
            match replied.as_mut() {
                Some(replied) => match replied.await {
                    Ok(reply) => reply,
                    // The slot is gone only once the work has finished: the first branch.
                    Err(_) => std::future::pending().await,
                },
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            biased;
            reply = &mut work => First::Answered(reply),
            reply = task_reply => First::BecameTask(reply),
            () = outbound.opened() => First::Streaming,
        }
    };
    match first {
        First::Answered(reply) => {
            let reply = reply.or_else(|| replied.as_mut()?.try_recv().ok());
            return reply_now(reply);
        }
        First::BecameTask(reply) => {
            // The handler goes on in the background.
            tokio::spawn(work);
            return reply_now(Some(reply));
        }
        First::Streaming => {}
    }
    // Boxed: few handlers stream, and this part's state would grow every request's future.
    Box::pin(streaming(work, replied, outbound)).await
}

/// The rest of a stateless request whose handler started streaming: its notifications and
/// then its answer, as an SSE response; the handler goes on in a task of its own.
async fn streaming(
    mut work: BoxFuture<'static, Option<Reply>>,
    replied: Option<oneshot::Receiver<Reply>>,
    outbound: Outbound,
) -> Response<Body> {
    // From now on the answer arrives through `done`.
    let done = match replied {
        Some(replied) => replied,
        None => {
            let (done_tx, done) = oneshot::channel();
            let inner = work;
            work = Box::pin(async move {
                if let Some(reply) = inner.await {
                    let _ = done_tx.send(reply);
                }
                None
            });
            done
        }
    };
    let Some(mut lines) = outbound.take_lines() else {
        // Not reached: `opened` fires once the first line is queued. Answer plainly.
        tokio::spawn(work);
        return match done.await {
            Ok(reply) => {
                let (status, json) = status_and_json(reply);
                json_response(status, json)
            }
            Err(_) => status_only(StatusCode::ACCEPTED),
        };
    };
    drop(outbound);
    let first = lines.try_recv().unwrap_or_default();
    let abort = tokio::spawn(work).abort_handle();
    stream(first, lines, Answer::Pending(done), Some(abort))
}

/// A reply's status and JSON: a refusal is a 400, missing shared state a 503.
fn status_and_json(reply: Reply) -> (StatusCode, String) {
    match reply {
        Reply::Json { json, outcome } => {
            let status = match outcome {
                Outcome::Answered => StatusCode::OK,
                Outcome::Refused => StatusCode::BAD_REQUEST,
                Outcome::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
            };
            (status, json)
        }
        // Only a session's stream answers this way; a stateless request's outbound (its
        // deferred lines) always hands the answer back as JSON.
        Reply::Sse(_) | Reply::Streamed => unreachable!("a stateless answer is JSON"),
    }
}

/// The JSON of a reply that goes on a stream.
fn reply_json(reply: Reply) -> String {
    status_and_json(reply).1
}

/// The answer of a streamed request: already there, or still to come from the handler.
enum Answer {
    Ready(String),
    Pending(oneshot::Receiver<Reply>),
}

/// An SSE response: `first`, every later notification, then the answer. Dropping the
/// response (the client closed the stream) aborts the handler: on this revision that is the
/// cancellation.
fn stream(
    first: String,
    mut lines: mpsc::Receiver<String>,
    answer: Answer,
    abort: Option<tokio::task::AbortHandle>,
) -> Response<Body> {
    let (frames, rx) = mpsc::channel::<Delivery>(CONNECTION_QUEUE);
    let stop = move || {
        if let Some(abort) = &abort {
            abort.abort();
        }
    };
    tokio::spawn(async move {
        let mut sequence = 0u64;
        let mut frame = |json: &str| {
            sequence += 1;
            Delivery::Frame(encode_frame(&sequence.to_string(), json.as_bytes()))
        };
        if frames.send(frame(&first)).await.is_err() {
            stop();
            return;
        }
        let answer = match answer {
            Answer::Ready(json) => json,
            Answer::Pending(mut done) => loop {
                tokio::select! {
                    line = lines.recv() => match line {
                        Some(line) => if frames.send(frame(&line)).await.is_err() { stop(); return; },
                        None => match (&mut done).await { Ok(reply) => break reply_json(reply), Err(_) => return },
                    },
                    answered = &mut done => match answered {
                        Ok(reply) => break reply_json(reply),
                        Err(_) => return,
                    },
                    () = frames.closed() => { stop(); return; }
                }
            },
        };
        // Notifications sent just before the answer go first.
        while let Ok(line) = lines.try_recv() {
            let _ = frames.send(frame(&line)).await;
        }
        let _ = frames.send(frame(&answer)).await;
        let _ = frames.send(Delivery::End).await;
    });
    sse_response(None::<Bytes>, rx)
}

/// Decodes a header value that may use the `=?base64?...?=` form (strictly), trimming
/// surrounding whitespace; `None` when the encoded form is malformed.
#[doc(hidden)]
pub fn decode_header_value(value: &str) -> Option<String> {
    crate::engine::param_headers::decode(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_header_values() {
        assert_eq!(
            decode_header_value("=?base64?SGVsbG8sIOS4lueVjA==?=").as_deref(),
            Some("Hello, 世界")
        );
        assert_eq!(
            decode_header_value("=?base64?IHBhZGRlZCA=?=").as_deref(),
            Some(" padded ")
        );
        assert_eq!(decode_header_value("plain").as_deref(), Some("plain"));
        assert_eq!(decode_header_value("=?base64?!!?="), None);
        assert_eq!(decode_header_value("=?base64?SGVsbG8?="), None);
    }
}
