//! The two ways a client reaches its server, behind one face: Streamable HTTP ([`Http`]) and a
//! child process's stdio ([`Stdio`]). A request's answer is read the same way from either
//! ([`Answer`]); only HTTP has headers, sessions' GET streams and DELETE.

use super::error::ClientError;
use super::http::{Http, Messages, Reply};
use super::stdio::{Route, Stdio};
use http::{HeaderMap, HeaderName, HeaderValue};
use serde_json::Value;
use std::sync::Arc;

/// Where the client's messages go.
pub(crate) enum Transport {
    /// Streamable HTTP.
    Http(Arc<Http>),
    /// A server started as a child process.
    Stdio(Arc<Stdio>),
}

/// The messages answering one request, as they come.
pub(crate) enum Answer {
    /// One JSON body or an SSE stream.
    Http(Messages),
    /// What the stdio reader routes to the request.
    Stdio(Route),
}

impl Answer {
    /// The next message; `None` once an HTTP answer has ended.
    pub(crate) async fn next(&mut self) -> Result<Option<Value>, ClientError> {
        match self {
            Self::Http(messages) => messages.next().await,
            Self::Stdio(route) => route.next().await,
        }
    }

    /// Where a resumption of a broken SSE stream starts, and the server's `retry` hint
    /// (`None` when there is nothing to resume).
    pub(crate) fn resumption(&self) -> Option<(&str, Option<u64>)> {
        match self {
            Self::Http(messages) => messages.resumption(),
            Self::Stdio(_) => None,
        }
    }
}

impl Transport {
    /// Sends the request `id` (`body`); its answer. `routes` are the other numbers its
    /// messages may carry on stdio (a progress token).
    pub(crate) async fn request(
        &self,
        method: &str,
        id: i64,
        routes: &[i64],
        body: Vec<u8>,
        headers: &[(HeaderName, HeaderValue)],
    ) -> Result<(HeaderMap, Answer), ClientError> {
        match self {
            Self::Http(http) => match http.post(body, headers).await? {
                (headers, Reply::Messages(messages)) => Ok((headers, Answer::Http(messages))),
                (_, Reply::Accepted) => Err(ClientError::Protocol(format!(
                    "{method}: 202 Accepted for a request"
                ))),
            },
            Self::Stdio(stdio) => {
                let keys: Vec<i64> = std::iter::once(id).chain(routes.iter().copied()).collect();
                let route = stdio.request(&keys, &body).await?;
                Ok((HeaderMap::new(), Answer::Stdio(route)))
            }
        }
    }

    /// Sends a notification or a response (`what` names it in errors): over HTTP it must be
    /// taken with 202.
    pub(crate) async fn send(
        &self,
        what: &str,
        body: Vec<u8>,
        headers: &[(HeaderName, HeaderValue)],
    ) -> Result<(), ClientError> {
        match self {
            Self::Http(http) => match http.post(body, headers).await? {
                (_, Reply::Accepted) => Ok(()),
                (_, Reply::Messages(messages)) => Err(refused(what, messages).await),
            },
            Self::Stdio(stdio) => stdio.send(&body).await,
        }
    }

    /// The HTTP side, when it is HTTP.
    pub(crate) fn http(&self) -> Option<&Arc<Http>> {
        match self {
            Self::Http(http) => Some(http),
            Self::Stdio(_) => None,
        }
    }

    /// Whether the server is a child process.
    pub(crate) fn is_stdio(&self) -> bool {
        matches!(self, Self::Stdio(_))
    }
}

/// The error of a notification or response that was answered with messages instead of 202:
/// the server's JSON-RPC error when it sent one (a server that takes no responses says why),
/// else a protocol error naming `what`.
pub(crate) async fn refused(what: &str, mut messages: Messages) -> ClientError {
    match messages.next().await {
        Ok(Some(message)) if message.get("error").is_some() => ClientError::rpc(&message["error"]),
        _ => ClientError::Protocol(format!("{what} was not accepted with 202")),
    }
}
