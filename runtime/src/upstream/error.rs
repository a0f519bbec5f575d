//! What an upstream call fails with, each kind its own variant, and how each reaches the MCP
//! client: the upstream's JSON-RPC error as a tool result with `isError: true` and its
//! `{"code", "message", "data"}` (a plain JSON-RPC method keeps them as its own error), every
//! other failure as a clear `isError` text.

use serde_json::Value;
use std::fmt;
use std::time::Duration;

use crate::error::Error;
use crate::jsonrpc;

/// Why an [`Upstream`](super::Upstream) call, or building one, failed.
///
/// Every variant's message names the upstream by its origin (`https://host:port`: never its
/// user information, path or query, which can hold credentials or API keys) and says what
/// to do when there is something to do.
///
/// It converts into [`Error`] (`?` in a handler): see the [`From`] impl for what a tool result
/// then shows. Like [`Error`], it does not implement `std::error::Error`: `Error`'s blanket
/// conversion from any `std::error::Error` would otherwise take the place of that impl and
/// lose the upstream's code and data.
#[derive(Debug, Clone, PartialEq)]
pub enum UpstreamError {
    /// The upstream answered with a JSON-RPC error object (passed on as it is).
    Rpc {
        /// The upstream's origin.
        url: String,
        /// The error's `code` as the upstream sent it.
        code: i64,
        /// The error's `message`.
        message: String,
        /// The error's `data`, if it had any (boxed: it is rare, and the error stays small).
        data: Option<Box<Value>>,
    },
    /// No whole answer within the timeout (waiting for a concurrency slot, connecting,
    /// sending and reading all count).
    Timeout {
        /// The upstream's origin.
        url: String,
        /// The timeout ([`UpstreamSettings::timeout`](super::UpstreamSettings::timeout)).
        after: Duration,
    },
    /// The upstream could not be reached, or the connection broke before the answer ended:
    /// refused, DNS, TLS (a refused certificate says so), reset.
    Connect {
        /// The upstream's origin.
        url: String,
        /// What failed, with its causes.
        reason: String,
    },
    /// An HTTP status other than success, without a JSON-RPC error in its body (4xx, 5xx;
    /// 429 is always this, with its `Retry-After`).
    Status {
        /// The upstream's origin.
        url: String,
        /// The HTTP status code.
        status: u16,
        /// The `Retry-After` header, if given (seconds or an HTTP date, as sent).
        retry_after: Option<String>,
        /// The start of the body, as text (tags of an HTML page removed, whitespace
        /// collapsed, at most a few hundred characters).
        excerpt: String,
    },
    /// A body that is not one JSON-RPC response: not JSON, an HTML page, an array, neither
    /// `result` nor `error`, a `jsonrpc` other than `"2.0"`, an error object without an
    /// integer `code`.
    NotJsonRpc {
        /// The upstream's origin.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A response whose `id` is not the request's.
    WrongId {
        /// The upstream's origin.
        url: String,
        /// The request's id.
        expected: u64,
        /// The response's `id`, as JSON (`null` when it had none).
        got: String,
    },
    /// A body longer than the limit; reading stopped there.
    TooLarge {
        /// The upstream's origin.
        url: String,
        /// The limit in bytes ([`UpstreamSettings::max_response_bytes`](super::UpstreamSettings::max_response_bytes)).
        limit: usize,
    },
    /// The settings cannot work (a URL that is no upstream endpoint, a zero concurrency, an
    /// unusable root certificate, ...).
    Config {
        /// What is wrong.
        reason: String,
    },
    /// The call needs the caller's identity ([`UpstreamSettings::identity_headers`]) and has
    /// none to send: no verified caller, or a claim its token lacks. Nothing was sent.
    ///
    /// [`UpstreamSettings::identity_headers`]: super::UpstreamSettings::identity_headers
    Identity {
        /// Which claim is missing or unusable (its name, never its value).
        reason: String,
    },
    /// The caller's access token could not be exchanged for one of the upstream's
    /// ([`UpstreamSettings::token_exchange`]): the authorization server refused, or could not
    /// be asked, or answered something unusable. Nothing was sent to the upstream.
    ///
    /// [`UpstreamSettings::token_exchange`]: super::UpstreamSettings::token_exchange
    TokenExchange {
        /// The token endpoint's origin.
        url: String,
        /// The authorization server's OAuth `error` code when it refused (`invalid_grant`,
        /// `invalid_target`, `unauthorized_client`, ...); `None` when it could not be asked or
        /// its answer was unusable.
        error: Option<String>,
        /// What happened, for the log: the server's `error_description`, a connection
        /// failure, what was wrong with the answer (never a token).
        reason: String,
    },
}

impl UpstreamError {
    /// Whether this is the upstream's own JSON-RPC error (the call reached it and it refused),
    /// rather than a failure to get an answer.
    pub fn is_rpc(&self) -> bool {
        matches!(self, Self::Rpc { .. })
    }

    /// A short name of the kind, for logs and metrics (`rpc`, `timeout`, `connect`, `status`,
    /// `not-json-rpc`, `wrong-id`, `too-large`, `config`, `identity`, `token-exchange`).
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Rpc { .. } => "rpc",
            Self::Timeout { .. } => "timeout",
            Self::Connect { .. } => "connect",
            Self::Status { .. } => "status",
            Self::NotJsonRpc { .. } => "not-json-rpc",
            Self::WrongId { .. } => "wrong-id",
            Self::TooLarge { .. } => "too-large",
            Self::Config { .. } => "config",
            Self::Identity { .. } => "identity",
            Self::TokenExchange { .. } => "token-exchange",
        }
    }
}

impl fmt::Display for UpstreamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Rpc {
                url, code, message, ..
            } => write!(f, "upstream {url} answered error {code}: {message}"),
            Self::Timeout { url, after } => write!(
                f,
                "upstream {url}: no answer within {after:?}; it is slow or unreachable: try again, \
                 or raise --upstream-timeout"
            ),
            Self::Connect { url, reason } => write!(
                f,
                "upstream {url} could not be reached: {reason}; check that it is running and that \
                 --upstream names it"
            ),
            Self::Status {
                url,
                status,
                retry_after,
                excerpt,
            } => {
                let reason = status_reason(*status);
                write!(f, "upstream {url} answered HTTP {status}{reason}")?;
                if let Some(after) = retry_after {
                    write!(f, " (Retry-After: {after})")?;
                }
                if !excerpt.is_empty() {
                    write!(f, ": {excerpt}")?;
                }
                f.write_str(match *status {
                    429 => "; the upstream is limiting this gateway's rate: wait before calling again, or lower --upstream-concurrency",
                    401 | 403 => "; check the credentials given with --upstream-header",
                    404 | 405 => "; check that --upstream is the upstream's JSON-RPC endpoint (its path too)",
                    413 => "; the request is larger than the upstream takes",
                    500..=599 => "; the upstream failed: try again later, or look at its logs",
                    _ => "",
                })
            }
            Self::NotJsonRpc { url, reason } => write!(
                f,
                "upstream {url} did not answer JSON-RPC: {reason}; check that --upstream is its \
                 JSON-RPC endpoint"
            ),
            Self::WrongId { url, expected, got } => write!(
                f,
                "upstream {url} answered request {expected} with the id {got}: its answers do not \
                 match its requests (a proxy in between mixing them up?)"
            ),
            Self::TooLarge { url, limit } => write!(
                f,
                "upstream {url} answered more than {limit} bytes, the limit; ask for less, or \
                 raise --upstream-max-body"
            ),
            Self::Config { reason } => write!(f, "upstream settings: {reason}"),
            Self::Identity { reason } => write!(
                f,
                "the caller's identity cannot be sent to the upstream: {reason}; \
                 --upstream-identity-header needs a verified caller whose token has the claims \
                 it names, --upstream-auth token-exchange a verified caller"
            ),
            Self::TokenExchange {
                url,
                error: Some(error),
                reason,
            } => write!(
                f,
                "the authorization server {url} refused to exchange the caller's token for the \
                 upstream's: {error} ({reason}); check that the gateway's client may exchange \
                 tokens (--upstream-client-id) for the audience or resource it names \
                 (--upstream-audience, --upstream-resource), and that the caller may reach it"
            ),
            Self::TokenExchange {
                url,
                error: None,
                reason,
            } => write!(
                f,
                "the caller's token could not be exchanged for the upstream's at {url}: {reason}; \
                 check --upstream-token-endpoint"
            ),
        }
    }
}

/// The upstream's JSON-RPC error becomes an [`Error`] with its code, message and data (what a
/// plain JSON-RPC method answers, e.g. on the `--jsonrpc` endpoint), whose tool result has
/// `isError: true`, the text `upstream error CODE: MESSAGE` and a `structuredContent` of
/// `{"code", "message", "data"}` (`data` only when present; at the revisions that have
/// `structuredContent`). A code that is no 32-bit integer keeps its value in the structured
/// content and is `-32603` as the JSON-RPC error's.
///
/// Every other failure becomes an [`Error`] whose message (the tool result's only text) says
/// what kind of failure it was in words that name nothing of the deployment (no upstream
/// origin, no OS error chain, no excerpt of the upstream's body), with a correlation id; the
/// whole [`Display`](fmt::Display) of the failure (what went wrong and what to do) is logged
/// as a `WARN` event on the target `mcp::upstream` with the same `correlation_id`, for the
/// operator: `upstream call failed: could not be reached (correlation id 5f0c3a9e1b2d4c67;
/// the details are in the gateway's log)`.
impl From<UpstreamError> for Error {
    fn from(error: UpstreamError) -> Self {
        match error {
            UpstreamError::Rpc {
                code,
                message,
                data,
                ..
            } => {
                let text = format!("upstream error {code}: {message}");
                let mut structured = serde_json::Map::new();
                structured.insert("code".into(), code.into());
                structured.insert("message".into(), message.clone().into());
                if let Some(data) = &data {
                    structured.insert("data".into(), Value::clone(data));
                }
                let code = i32::try_from(code).unwrap_or(jsonrpc::INTERNAL_ERROR);
                let error = Error::with_code(code, message)
                    .with_tool_text(text)
                    .with_structured_content(Value::Object(structured));
                match data {
                    Some(data) => error.with_data(*data),
                    None => error,
                }
            }
            other => {
                let mut bytes = [0u8; 8];
                crate::ids::random_bytes(&mut bytes);
                let correlation_id = crate::ids::hex(&bytes);
                tracing::warn!(
                    target: "mcp::upstream",
                    correlation_id = %correlation_id,
                    kind = other.kind(),
                    "{other}"
                );
                Error::new(format!(
                    "upstream call failed: {} (correlation id {correlation_id}; the details are \
                     in the gateway's log)",
                    other.shown_to_clients()
                ))
            }
        }
    }
}

/// ` Not Found` for 404: the status's reason phrase after a space, or nothing for a status
/// without one.
fn status_reason(status: u16) -> String {
    http::StatusCode::from_u16(status)
        .ok()
        .and_then(|s| s.canonical_reason())
        .map(|r| format!(" {r}"))
        .unwrap_or_default()
}

impl UpstreamError {
    /// What a client is told of a failure other than the upstream's own JSON-RPC error: its
    /// kind, and what a caller can act on (a timeout's length, a status and its
    /// `Retry-After`, the size limit), never where the upstream is or what the OS said.
    fn shown_to_clients(&self) -> String {
        match self {
            Self::Rpc { code, .. } => format!("it answered error {code}"),
            Self::Timeout { after, .. } => format!("no answer within {after:?}"),
            Self::Connect { .. } => "could not be reached".into(),
            Self::Status {
                status,
                retry_after,
                ..
            } => {
                let reason = status_reason(*status);
                match retry_after {
                    Some(after) => {
                        format!("it answered HTTP {status}{reason} (Retry-After: {after})")
                    }
                    None => format!("it answered HTTP {status}{reason}"),
                }
            }
            Self::NotJsonRpc { .. } => "it did not answer JSON-RPC".into(),
            Self::WrongId { .. } => "it answered with the wrong id".into(),
            Self::TooLarge { limit, .. } => {
                format!("it answered more than {limit} bytes, the limit")
            }
            Self::Config { .. } => "the gateway's upstream settings cannot work".into(),
            // The caller's own claims (their names only): what the caller can act on.
            Self::Identity { reason } => {
                format!("the upstream needs the caller's identity: {reason}")
            }
            // The OAuth error code is what the caller can act on; the rest is the operator's.
            Self::TokenExchange {
                error: Some(error), ..
            } => format!(
                "the authorization server refused to exchange the caller's token for the upstream's ({error})"
            ),
            Self::TokenExchange { error: None, .. } => {
                "the caller's token could not be exchanged for the upstream's".into()
            }
        }
    }
}
