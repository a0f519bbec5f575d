//! The response body: empty, one JSON document, or an SSE stream fed by a channel.

use bytes::Bytes;
use http_body::Frame;
use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};
use tokio::sync::mpsc;

use crate::events::Delivery;

/// The body of every response the MCP endpoint sends.
#[derive(Debug)]
pub struct Body(Kind);

#[derive(Debug)]
enum Kind {
    Empty,
    Full(Option<Bytes>),
    Stream {
        head: Option<Bytes>,
        rx: mpsc::Receiver<Delivery>,
        done: bool,
    },
}

impl Body {
    /// No body.
    pub fn empty() -> Self {
        Body(Kind::Empty)
    }

    /// A complete body.
    pub fn full(bytes: impl Into<Bytes>) -> Self {
        Body(Kind::Full(Some(bytes.into())))
    }

    /// An SSE stream: `head` first, then each frame from `rx` until the stream ends.
    pub(crate) fn stream(head: Option<Bytes>, rx: mpsc::Receiver<Delivery>) -> Self {
        Body(Kind::Stream {
            head,
            rx,
            done: false,
        })
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
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        match &mut self.0 {
            Kind::Empty => Poll::Ready(None),
            Kind::Full(bytes) => Poll::Ready(bytes.take().map(|b| Ok(Frame::data(b)))),
            Kind::Stream { head, rx, done } => {
                if *done {
                    return Poll::Ready(head.take().map(|b| Ok(Frame::data(b))));
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
                        Some(Delivery::End | Delivery::Detach) | None => {
                            *done = true;
                            break;
                        }
                    }
                }
                Poll::Ready(batch.map(|b| Ok(Frame::data(b))))
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        match &self.0 {
            Kind::Empty => true,
            Kind::Full(bytes) => bytes.is_none(),
            Kind::Stream { head, done, .. } => head.is_none() && *done,
        }
    }

    fn size_hint(&self) -> http_body::SizeHint {
        match &self.0 {
            Kind::Empty => http_body::SizeHint::with_exact(0),
            Kind::Full(Some(bytes)) => http_body::SizeHint::with_exact(bytes.len() as u64),
            Kind::Full(None) => http_body::SizeHint::with_exact(0),
            Kind::Stream { .. } => http_body::SizeHint::default(),
        }
    }
}
