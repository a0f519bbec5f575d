//! What a client call can fail with: each kind its own variant, so a caller tells a tool that
//! reported an error (`isError`) from a JSON-RPC error, and both from a broken connection.

use crate::jsonrpc::RpcError;
use serde_json::Value;
use std::fmt;
use std::time::Duration;

/// The error of a [`Client`](super::Client) call.
#[derive(Debug)]
#[non_exhaustive]
pub enum ClientError {
    /// The server answered with a JSON-RPC error object.
    Rpc(RpcError),
    /// `tools/call` returned a result with `isError: true`: the tool ran and failed. The
    /// whole `CallToolResult` is kept (its `content` says what went wrong).
    Tool(Value),
    /// An HTTP status that is neither a JSON-RPC answer nor success, with the body's start.
    Http {
        /// The HTTP status code.
        status: u16,
        /// The response body (at most 4 KiB of it), lossily decoded.
        body: String,
    },
    /// Connecting, sending or reading failed.
    Transport(String),
    /// The call did not finish within the client's timeout.
    Timeout(Duration),
    /// The server's answer is not what MCP allows (not JSON-RPC, wrong id, an endless
    /// cursor, too many input rounds, ...).
    Protocol(String),
    /// The method does not exist in the era the client speaks (e.g. `ping` in 2026-07-28).
    Unsupported(&'static str),
    /// The builder was given something unusable (a URL, a header); the message names it.
    Config(String),
    /// The OAuth flow could not get a token: the message names the URL and what was
    /// missing or refused (no metadata, an issuer or resource that does not match, a refused
    /// grant, an `iss` or `state` that does not check out, ...).
    OAuth(String),
    /// The task of this id was cancelled before it ended ([`Client::wait_task`](super::Client::wait_task)).
    Cancelled(String),
}

impl ClientError {
    /// [`ClientError::Rpc`] of a JSON-RPC error object as received (a code that is no `i32`
    /// read as `-32603`).
    pub(crate) fn rpc(error: &Value) -> Self {
        Self::Rpc(RpcError {
            code: error["code"]
                .as_i64()
                .and_then(|code| i32::try_from(code).ok())
                .unwrap_or(crate::jsonrpc::INTERNAL_ERROR),
            message: error["message"]
                .as_str()
                .unwrap_or_default()
                .to_owned()
                .into(),
            data: error.get("data").cloned(),
        })
    }

    /// The JSON-RPC error code, when the server answered with one.
    pub fn rpc_code(&self) -> Option<i32> {
        match self {
            Self::Rpc(error) => Some(error.code),
            _ => None,
        }
    }
}

impl fmt::Display for ClientError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Rpc(error) => write!(f, "JSON-RPC error {}: {}", error.code, error.message),
            Self::Tool(result) => write!(f, "the tool reported an error: {}", tool_text(result)),
            Self::Http { status, body } => write!(f, "HTTP {status}: {body}"),
            Self::Transport(message) => write!(f, "transport: {message}"),
            Self::Timeout(after) => write!(f, "no answer within {after:?}"),
            Self::Protocol(message) => write!(f, "protocol: {message}"),
            Self::Unsupported(what) => write!(f, "unsupported: {what}"),
            Self::Config(message) => write!(f, "client configuration: {message}"),
            Self::OAuth(message) => write!(f, "authorization: {message}"),
            Self::Cancelled(task) => write!(f, "task {task} was cancelled"),
        }
    }
}

impl std::error::Error for ClientError {}

/// The text blocks of a tool result, joined (what a person reads of a failed call).
fn tool_text(result: &Value) -> String {
    let texts: Vec<&str> = result["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|block| block["text"].as_str())
        .collect();
    if texts.is_empty() {
        result.to_string()
    } else {
        texts.join(" ")
    }
}
