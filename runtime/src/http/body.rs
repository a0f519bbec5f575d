//! The response body: empty, one JSON document, or an SSE stream fed by a channel.

use bytes::Bytes;
use http_body::Frame;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use tokio::sync::mpsc;

use super::supervisor::InProgress;
use crate::session::events::Delivery;

/// The body of every response the MCP endpoint sends.
#[derive(Debug)]
pub struct Body {
    kind: Kind,
    /// Tells the connection's watchdog a response is being written, until hyper drops it.
    in_progress: Option<InProgress>,
}

#[derive(Debug)]
enum Kind {
    Empty,
    Full(Option<Bytes>),
    Stream {
        head: Option<Bytes>,
        rx: mpsc::Receiver<Delivery>,
        end: StreamEnd,
        /// When the stream ends whatever comes ([`Body::until`]).
        deadline: Option<Pin<Box<tokio::time::Sleep>>>,
    },
}

/// How far an SSE response got.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StreamEnd {
    /// Frames may still come.
    Open,
    /// Ended (or detached) as the protocol says: the response completes.
    Clean,
    /// The server cut the connection (a client too slow for its queue): the response ends
    /// with an error once `head` is written, so the client sees a broken stream, not a
    /// complete one.
    Cut,
    /// The error was reported.
    Reported,
}

/// The error that ends an SSE response the server cut: the client read too slowly. It can
/// resume the stream with `Last-Event-ID`.
#[derive(Debug)]
pub struct StreamCut;

impl std::fmt::Display for StreamCut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SSE stream cut: the client read more slowly than its queue allows")
    }
}

impl std::error::Error for StreamCut {}

impl Body {
    fn of(kind: Kind) -> Self {
        Body {
            kind,
            in_progress: None,
        }
    }

    /// Marks the response as in progress on its connection until the body is dropped.
    pub(super) fn watched(mut self, in_progress: InProgress) -> Self {
        self.in_progress = Some(in_progress);
        self
    }

    /// No body.
    pub fn empty() -> Self {
        Body::of(Kind::Empty)
    }

    /// A complete body.
    pub fn full(bytes: impl Into<Bytes>) -> Self {
        Body::of(Kind::Full(Some(bytes.into())))
    }

    /// An SSE stream: `head` first, then each frame from `rx` until the stream ends.
    pub(crate) fn stream(head: Option<Bytes>, rx: mpsc::Receiver<Delivery>) -> Self {
        Body::of(Kind::Stream {
            head,
            rx,
            end: StreamEnd::Open,
            deadline: None,
        })
    }

    /// The same body, an SSE stream of which ends cleanly at `at` (the access token it was
    /// opened with expires then: the client resumes it, with `Last-Event-ID`, under a fresh
    /// token). Other bodies are complete already and stay as they are.
    pub(super) fn until(mut self, at: tokio::time::Instant) -> Self {
        if let Kind::Stream { deadline, .. } = &mut self.kind {
            *deadline = Some(Box::pin(tokio::time::sleep_until(at)));
        }
        self
    }
}

/// `more` after `batch` (no copy when there is nothing before it).
fn append(batch: Option<Bytes>, more: Bytes) -> Bytes {
    match batch {
        None => more,
        Some(first) => {
            let mut joined = Vec::with_capacity(first.len() + more.len());
            joined.extend_from_slice(&first);
            joined.extend_from_slice(&more);
            Bytes::from(joined)
        }
    }
}

impl http_body::Body for Body {
    type Data = Bytes;
    type Error = StreamCut;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, StreamCut>>> {
        match &mut self.kind {
            Kind::Empty => Poll::Ready(None),
            Kind::Full(bytes) => Poll::Ready(bytes.take().map(|b| Ok(Frame::data(b)))),
            Kind::Stream {
                head,
                rx,
                end,
                deadline,
            } => {
                if let Some(deadline) = deadline {
                    if *end == StreamEnd::Open && deadline.as_mut().poll(cx).is_ready() {
                        tracing::debug!("an SSE stream ended: its access token expired");
                        *end = StreamEnd::Clean;
                    }
                }
                match end {
                    StreamEnd::Open => {}
                    StreamEnd::Clean | StreamEnd::Reported => {
                        return Poll::Ready(head.take().map(|b| Ok(Frame::data(b))))
                    }
                    StreamEnd::Cut => {
                        return Poll::Ready(Some(match head.take() {
                            Some(bytes) => Ok(Frame::data(bytes)),
                            None => {
                                *end = StreamEnd::Reported;
                                Err(StreamCut)
                            }
                        }))
                    }
                }
                // Everything already queued leaves in one chunk: one write instead of one per
                // frame (a short SSE answer is priming event, result and end at once).
                let mut batch = head.take();
                loop {
                    let delivery = if batch.is_none() {
                        match rx.poll_recv(cx) {
                            Poll::Ready(delivery) => delivery,
                            Poll::Pending => return Poll::Pending,
                        }
                    } else {
                        match rx.try_recv() {
                            Ok(delivery) => Some(delivery),
                            Err(mpsc::error::TryRecvError::Empty) => break,
                            Err(mpsc::error::TryRecvError::Disconnected) => None,
                        }
                    };
                    match delivery {
                        Some(Delivery::Frame(bytes)) => batch = Some(append(batch, bytes)),
                        Some(Delivery::End | Delivery::Detach) => {
                            *end = StreamEnd::Clean;
                            break;
                        }
                        // Every sender that ends a stream says so first: a channel closed
                        // without a word was cut.
                        None => {
                            *end = StreamEnd::Cut;
                            break;
                        }
                    }
                }
                match batch {
                    Some(bytes) => Poll::Ready(Some(Ok(Frame::data(bytes)))),
                    None if *end == StreamEnd::Cut => {
                        *end = StreamEnd::Reported;
                        Poll::Ready(Some(Err(StreamCut)))
                    }
                    None => Poll::Ready(None),
                }
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        match &self.kind {
            Kind::Empty => true,
            Kind::Full(bytes) => bytes.is_none(),
            Kind::Stream { head, end, .. } => {
                head.is_none() && matches!(end, StreamEnd::Clean | StreamEnd::Reported)
            }
        }
    }

    fn size_hint(&self) -> http_body::SizeHint {
        match &self.kind {
            Kind::Empty => http_body::SizeHint::with_exact(0),
            Kind::Full(Some(bytes)) => http_body::SizeHint::with_exact(bytes.len() as u64),
            Kind::Full(None) => http_body::SizeHint::with_exact(0),
            Kind::Stream { .. } => http_body::SizeHint::default(),
        }
    }
}
