//! Reading a request body whole, within a size limit.
//!
//! A JSON-RPC request nearly always arrives as one data frame. Its bytes are used as they are:
//! no frame queue, no buffer and no copy, unlike a general-purpose collector.

use bytes::{Buf, BufMut, Bytes, BytesMut};
use http::header::ACCEPT;
use http::{Response, StatusCode};
use http_body::Body;
use std::future::Future;
use std::pin::pin;
use std::task::Poll;
use std::time::Duration;

use super::response::{bad_request, rpc_error};
use crate::config::Config;
use crate::jsonrpc::{self, RpcError};

/// What a POST endpoint requires of `Accept`: the one difference between the endpoints'
/// preludes (all require a JSON `Content-Type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Accepts {
    /// `/mcp`: JSON and SSE both listed (the answer may come as either).
    JsonAndSse,
    /// The plain JSON-RPC endpoint: JSON allowed, when an `Accept` is sent at all (plain
    /// JSON-RPC clients often send none, or `*/*`).
    JsonIfSent,
    /// The 2024-11-05 HTTP+SSE transport's POST: anything (it answers `202` with no body;
    /// the answer goes on the stream).
    Anything,
}

/// The prelude of every POST endpoint: 415 unless the body is JSON, 406 when `Accept` is
/// not what `accepts` requires, then the body read within
/// [`config.limits.body_limit`](crate::config::Limits::body_limit) and
/// [`config.limits.body_read_timeout`](crate::config::Limits::body_read_timeout) (413, 400,
/// 408 when it cannot be). Its text comes from [`text`].
pub(super) async fn read_post<B>(
    headers: &super::headers::Headers<'_>,
    body: B,
    config: &Config,
    accepts: Accepts,
) -> Result<Bytes, Response<super::body::Body>>
where
    B: Body + Send,
    B::Data: Send,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    if let Some(refused) = refused_media(headers, accepts) {
        return Err(refused);
    }
    let limit = config.limits.body_limit;
    read_within(body, limit, config.limits.body_read_timeout)
        .await
        .map_err(|error| body_error(error, limit))
}

/// The text of a body [`read_post`] read: 400 with a parse error when it is not UTF-8.
#[inline]
pub(super) fn text(bytes: &[u8]) -> Result<&str, Box<Response<super::body::Body>>> {
    std::str::from_utf8(bytes).map_err(|_| not_utf8())
}

#[cold]
fn not_utf8() -> Box<Response<super::body::Body>> {
    Box::new(rpc_error(
        StatusCode::BAD_REQUEST,
        RpcError::new(jsonrpc::PARSE_ERROR, "Parse error: the body is not UTF-8"),
        None,
    ))
}

/// 415 or 406 when the POST's media types are not the endpoint's (see [`Accepts`]).
#[inline]
fn refused_media(
    headers: &super::headers::Headers<'_>,
    accepts: Accepts,
) -> Option<Response<super::body::Body>> {
    if !super::guard::is_json_content(headers.content_type) {
        return Some(rpc_error(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            RpcError::new(
                jsonrpc::INVALID_REQUEST,
                "Unsupported Media Type: Content-Type must be application/json",
            ),
            None,
        ));
    }
    let refused = match accepts {
        Accepts::JsonAndSse => (!(headers.accepts_json && headers.accepts_sse))
            .then_some("Not Acceptable: Accept must list application/json and text/event-stream"),
        Accepts::JsonIfSent => (headers.map.contains_key(ACCEPT) && !headers.accepts_json)
            .then_some("Not Acceptable: Accept must allow application/json"),
        Accepts::Anything => None,
    };
    refused.map(|message| {
        rpc_error(
            StatusCode::NOT_ACCEPTABLE,
            RpcError::new(jsonrpc::INVALID_REQUEST, message),
            None,
        )
    })
}

/// A body that could not be read: 413 over the limit, 400 when the connection failed, 408
/// when it did not arrive in time.
#[cold]
fn body_error(error: ReadError, limit: usize) -> Response<super::body::Body> {
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
                "Request Timeout: the body did not arrive in time (config.limits.body_read_timeout)",
            ),
            None,
        ),
    }
}

/// Why a body could not be read.
#[derive(Debug)]
pub(crate) enum ReadError {
    /// The body is longer than the limit (by its announced length or by what arrived).
    TooLarge,
    /// The connection failed while the body was read.
    Failed(Box<dyn std::error::Error + Send + Sync>),
    /// The client did not send the whole body in time.
    TimedOut,
}

/// [`read_to_end`] within `timeout`. A body that has arrived whole is read without a timer
/// (nearly every JSON-RPC request: it comes in the same packets as the headers); only a body
/// still arriving is raced against the clock, in a box of its own.
pub(crate) async fn read_within<B>(
    body: B,
    limit: usize,
    timeout: Duration,
) -> Result<Bytes, ReadError>
where
    B: Body,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    let mut reading = pin!(read_to_end(body, limit));
    let first = std::future::poll_fn(|cx| Poll::Ready(reading.as_mut().poll(cx))).await;
    match first {
        Poll::Ready(read) => read,
        Poll::Pending => Box::pin(tokio::time::timeout(timeout, reading))
            .await
            .unwrap_or(Err(ReadError::TimedOut)),
    }
}

/// Reads `body` to its end; more than `limit` bytes is [`ReadError::TooLarge`]. Trailers are
/// ignored.
pub(crate) async fn read_to_end<B>(body: B, limit: usize) -> Result<Bytes, ReadError>
where
    B: Body,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    // A `Content-Length` above the limit is refused before anything is read.
    if body.size_hint().lower() > limit as u64 {
        return Err(ReadError::TooLarge);
    }
    let mut body = pin!(body);
    let mut first: Option<Bytes> = None;
    let mut joined: Option<BytesMut> = None;
    let mut length = 0usize;
    while let Some(frame) = std::future::poll_fn(|cx| body.as_mut().poll_frame(cx)).await {
        let frame = frame.map_err(|error| ReadError::Failed(error.into()))?;
        let Ok(mut data) = frame.into_data() else {
            continue;
        };
        length += data.remaining();
        if length > limit {
            return Err(ReadError::TooLarge);
        }
        if let Some(buffer) = &mut joined {
            buffer.put(data);
        } else if let Some(head) = first.take() {
            let mut buffer = BytesMut::with_capacity(length);
            buffer.extend_from_slice(&head);
            buffer.put(data);
            joined = Some(buffer);
        } else {
            first = Some(data.copy_to_bytes(data.remaining()));
        }
    }
    Ok(match joined {
        Some(buffer) => buffer.freeze(),
        None => first.unwrap_or_default(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body::{Frame, SizeHint};
    use http_body_util::Full;
    use std::collections::VecDeque;
    use std::task::{Context, Poll};

    /// A body of several data frames with no announced length.
    struct Chunks(VecDeque<&'static str>);

    impl Body for Chunks {
        type Data = Bytes;
        type Error = std::io::Error;

        fn poll_frame(
            mut self: std::pin::Pin<&mut Self>,
            _: &mut Context<'_>,
        ) -> Poll<Option<Result<Frame<Bytes>, std::io::Error>>> {
            let next = self.0.pop_front();
            Poll::Ready(next.map(|part| Ok(Frame::data(Bytes::from_static(part.as_bytes())))))
        }

        fn size_hint(&self) -> SizeHint {
            SizeHint::default()
        }
    }

    fn chunks(parts: &[&'static str]) -> Chunks {
        Chunks(parts.iter().copied().collect())
    }

    #[tokio::test]
    async fn one_frame_is_used_as_it_is() {
        let text = Bytes::from_static(b"{\"jsonrpc\":\"2.0\"}");
        let read = read_to_end(Full::new(text.clone()), 100).await.unwrap();
        assert_eq!(read, text);
        assert_eq!(read.as_ptr(), text.as_ptr(), "no copy of a single frame");
    }

    #[tokio::test]
    async fn frames_are_joined_in_order() {
        let read = read_to_end(chunks(&["ab", "cd", "e"]), 5).await.unwrap();
        assert_eq!(&read[..], b"abcde");
        let empty = read_to_end(chunks(&[]), 5).await.unwrap();
        assert!(empty.is_empty());
    }

    #[tokio::test]
    async fn more_than_the_limit_is_refused() {
        let announced = Full::new(Bytes::from_static(b"123456"));
        assert!(matches!(
            read_to_end(announced, 5).await,
            Err(ReadError::TooLarge)
        ));
        // Without an announced length, the frames are counted as they arrive.
        assert!(matches!(
            read_to_end(chunks(&["123", "456"]), 5).await,
            Err(ReadError::TooLarge)
        ));
        let exact = read_to_end(Full::new(Bytes::from_static(b"12345")), 5).await;
        assert_eq!(&exact.unwrap()[..], b"12345");
    }
}
