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
    pub fn stream(head: Option<Bytes>, rx: mpsc::Receiver<Delivery>) -> Self {
        Body(Kind::Stream {
            head,
            rx,
            done: false,
        })
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
                if let Some(bytes) = head.take() {
                    return Poll::Ready(Some(Ok(Frame::data(bytes))));
                }
                if *done {
                    return Poll::Ready(None);
                }
                match rx.poll_recv(cx) {
                    Poll::Ready(Some(Delivery::Frame(bytes))) => {
                        Poll::Ready(Some(Ok(Frame::data(bytes))))
                    }
                    Poll::Ready(Some(Delivery::End | Delivery::Detach) | None) => {
                        *done = true;
                        Poll::Ready(None)
                    }
                    Poll::Pending => Poll::Pending,
                }
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
