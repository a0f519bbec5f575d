//! The responses of the endpoint: JSON bodies, JSON-RPC errors with their status, SSE streams.

use bytes::Bytes;
use http::header::{HeaderValue, ALLOW, CACHE_CONTROL, CONTENT_TYPE};
use http::{Response, StatusCode};
use serde_json::value::RawValue;
use tokio::sync::mpsc;

use super::body::Body;
use crate::engine::sessions::Refusal;
use crate::jsonrpc::{self, error_response, RpcError};
use crate::session::events::Delivery;

/// A JSON-RPC error as an HTTP response (cold: errors are the exception, and their code stays
/// out of the request path).
#[cold]
pub(super) fn rpc_error(
    status: StatusCode,
    error: RpcError,
    id: Option<&RawValue>,
) -> Response<Body> {
    json_response(status, error_response(id, &error))
}

/// A session [`Refusal`] as an HTTP response: 400 for `initialize`'s params, a missing
/// session id or another version than the session's; 404 for a session that does not exist
/// (to this principal); 503 when the session store is full or cannot be reached. `id` is
/// the request's, which only the answers to `initialize` carry (a session another instance
/// made is loaded before the body is read: its store error answers `"id": null`).
#[cold]
pub(super) fn session_refused(refusal: Refusal, id: Option<&RawValue>) -> Response<Body> {
    let (status, id) = match &refusal {
        Refusal::Invalid(_) => (StatusCode::BAD_REQUEST, id),
        Refusal::Store(_) => (StatusCode::SERVICE_UNAVAILABLE, id),
        Refusal::NotFound => (StatusCode::NOT_FOUND, None),
        Refusal::Missing | Refusal::VersionMismatch { .. } | Refusal::NotInitialized => {
            (StatusCode::BAD_REQUEST, None)
        }
    };
    rpc_error(status, refusal.error(), id)
}

/// `400 Bad Request` with an Invalid Request error saying why.
#[cold]
pub(super) fn bad_request(message: impl Into<String>) -> Response<Body> {
    rpc_error(
        StatusCode::BAD_REQUEST,
        RpcError::new(jsonrpc::INVALID_REQUEST, message.into()),
        None,
    )
}

/// `404` for a session that does not exist (any more).
#[cold]
pub(super) fn session_not_found() -> Response<Body> {
    session_refused(Refusal::NotFound, None)
}

/// `405` naming the methods `allow`ed.
#[cold]
pub(super) fn method_not_allowed(allow: &'static str) -> Response<Body> {
    let mut response = status_only(StatusCode::METHOD_NOT_ALLOWED);
    response
        .headers_mut()
        .insert(ALLOW, HeaderValue::from_static(allow));
    response
}

pub(super) fn json_response(status: StatusCode, json: String) -> Response<Body> {
    let mut response = Response::new(Body::full(json));
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

pub(super) fn status_only(status: StatusCode) -> Response<Body> {
    let mut response = Response::new(Body::empty());
    *response.status_mut() = status;
    response
}

/// An SSE response: `head` (a comment or priming event), then what arrives on `rx`.
pub(super) fn sse_response(head: Option<Bytes>, rx: mpsc::Receiver<Delivery>) -> Response<Body> {
    with_sse_headers(Response::new(Body::stream(head, rx)))
}

/// An SSE response whose whole stream is `body`.
pub(super) fn whole_sse_response(body: Bytes) -> Response<Body> {
    with_sse_headers(Response::new(Body::full(body)))
}

fn with_sse_headers(mut response: Response<Body>) -> Response<Body> {
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

/// `429 Too Many Requests` for a call over its rate limit: the JSON-RPC `-32023` error with
/// `data.retryAfterMs`, `Retry-After` and `RateLimit-Limit`/`RateLimit-Remaining`.
#[cold]
pub(super) fn rate_limited(refused: &crate::engine::limits::RateRefusal<'_>) -> Response<Body> {
    let limited = &refused.limited;
    let mut response = rpc_error(StatusCode::TOO_MANY_REQUESTS, limited.error(), refused.id);
    let headers = response.headers_mut();
    headers.insert(
        http::header::RETRY_AFTER,
        http::HeaderValue::from(limited.retry_after_secs()),
    );
    headers.insert("ratelimit-limit", http::HeaderValue::from(limited.limit));
    headers.insert("ratelimit-remaining", http::HeaderValue::from_static("0"));
    response
}
