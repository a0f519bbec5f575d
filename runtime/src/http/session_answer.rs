//! How a session request's answer leaves: plain JSON when its handler sends nothing first,
//! else the request's SSE stream, carrying its messages and then the answer.
//!
//! The handler runs inline, so a plain call costs no spawn, no channel and no cross-task
//! wake-up. It is registered for cancellation only if it does not finish at once. Once it
//! streams, the rest of it moves to its own task and the stream is the response.

use http::{Response, StatusCode};
use serde_json::value::RawValue;
use std::future::Future;
use std::sync::Arc;
use tokio::sync::mpsc;

use super::body::Body;
use super::response::{json_response, rpc_error, sse_response, status_only, whole_sse_response};
use crate::delivery::outbound::{Outbound, Reply};
use crate::dispatch::BoxFuture;
use crate::engine::id_key;
use crate::engine::run::Started;
use crate::session::events::Delivery;
use crate::session::{NotAdmitted, Session};

/// Awaits a started session request and frames its answer.
pub(super) async fn answer(
    started: Started,
    session: Arc<Session>,
    id: &RawValue,
) -> Response<Body> {
    let Started {
        mut work, outbound, ..
    } = started;
    // Most handlers finish in their first poll: then nothing else is needed.
    if let std::task::Poll::Ready(reply) = poll_once(&mut work).await {
        return answered(reply, &outbound);
    }
    // Boxed: few handlers wait, and this part's state would grow every request's future.
    Box::pin(until_answered(session, id, work, outbound)).await
}

/// The response to a session request whose work ended (`None`: it was cancelled).
fn answered(reply: Option<Reply>, outbound: &Outbound) -> Response<Body> {
    match (reply, outbound.take_stream()) {
        (Some(Reply::Json { json, .. }), _) => json_response(StatusCode::OK, json),
        (Some(Reply::Sse(body)), _) => whole_sse_response(body),
        (_, Some(stream)) => sse_response(None, stream),
        // Cancelled before it answered.
        (_, None) => status_only(StatusCode::ACCEPTED),
    }
}

/// A session request whose handler did not finish in its first poll: registered for
/// cancellation under `key`, it answers JSON if it finishes before sending anything; once it
/// sends, its stream is the response and it runs on as a task of its own.
///
/// A request whose id another running request of the session holds (two POSTs racing past
/// the edge's check) is dropped unfinished and refused.
async fn until_answered(
    session: Arc<Session>,
    id: &RawValue,
    mut work: BoxFuture<'static, Option<Reply>>,
    outbound: Outbound,
) -> Response<Body> {
    let canceller = outbound.clone();
    let tracked = match Tracked::register(session, id_key(id), move || canceller.cancel()) {
        Ok(tracked) => tracked,
        Err(refused) => {
            drop(work);
            return rpc_error(refused.status(), refused.error(), Some(id));
        }
    };
    let streaming = tokio::select! {
        biased;
        reply = &mut work => Err(reply),
        () = outbound.opened() => Ok(()),
    };
    match streaming {
        Err(reply) => {
            drop(tracked);
            answered(reply, &outbound)
        }
        Ok(()) => {
            tokio::spawn(async move {
                work.await;
                drop(tracked);
            });
            match outbound.take_stream() {
                Some(stream) => sse_response(None, stream),
                // Not reached: `opened` fires once the stream exists. An empty, complete one.
                None => {
                    let (end, stream) = mpsc::channel(1);
                    let _ = end.try_send(Delivery::End);
                    sse_response(None, stream)
                }
            }
        }
    }
}

/// A running request registered for cancellation, forgotten when dropped: when it answered,
/// and also when the client went away and hyper dropped the request's future.
struct Tracked {
    session: Arc<Session>,
    key: String,
}

impl Tracked {
    /// Refused when a request with this key is running already (it keeps its hook), or the
    /// session runs its maximum.
    fn register(
        session: Arc<Session>,
        key: String,
        stop: impl FnOnce() + Send + 'static,
    ) -> Result<Self, NotAdmitted> {
        session.track(&key, stop)?;
        Ok(Self { session, key })
    }
}

impl Drop for Tracked {
    fn drop(&mut self) {
        self.session.untrack(&self.key);
    }
}

/// Polls `future` once with the current task's waker.
async fn poll_once<F: Future + Unpin>(future: &mut F) -> std::task::Poll<F::Output> {
    std::future::poll_fn(|cx| std::task::Poll::Ready(std::pin::Pin::new(&mut *future).poll(cx)))
        .await
}
