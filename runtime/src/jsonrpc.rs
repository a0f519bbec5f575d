//! JSON-RPC 2.0 errors: the error object on the wire ([`RpcError`]) and the codes the runtime
//! answers with ([`RpcError::INVALID_PARAMS`] and the others, associated constants of the
//! type as `http::StatusCode`'s are).

use serde::Serialize;
use serde_json::Value;
use std::borrow::Cow;
use std::fmt;

// The codes by their bare names, for the runtime's own code.
pub(crate) const PARSE_ERROR: i32 = RpcError::PARSE_ERROR;
pub(crate) const INVALID_REQUEST: i32 = RpcError::INVALID_REQUEST;
pub(crate) const METHOD_NOT_FOUND: i32 = RpcError::METHOD_NOT_FOUND;
pub(crate) const INVALID_PARAMS: i32 = RpcError::INVALID_PARAMS;
pub(crate) const INTERNAL_ERROR: i32 = RpcError::INTERNAL_ERROR;
pub(crate) const SERVER_ERROR: i32 = RpcError::SERVER_ERROR;
pub(crate) const RESOURCE_NOT_FOUND: i32 = RpcError::RESOURCE_NOT_FOUND;
pub(crate) const HEADER_MISMATCH: i32 = RpcError::HEADER_MISMATCH;
pub(crate) const MISSING_CAPABILITY: i32 = RpcError::MISSING_CAPABILITY;
pub(crate) const UNSUPPORTED_VERSION: i32 = RpcError::UNSUPPORTED_VERSION;

/// A JSON-RPC error object: `{"code", "message", "data"?}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RpcError {
    /// The error code.
    pub code: i32,
    /// A short description.
    pub message: Cow<'static, str>,
    /// Extra information, omitted when `None`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

/// The codes, then the constructors. These are `#[cold]`: a call that fails is the exception,
/// and the branches that build errors then leave the request path's code compact.
impl RpcError {
    /// Invalid JSON was received.
    pub const PARSE_ERROR: i32 = -32700;
    /// The JSON sent is not a valid request object.
    pub const INVALID_REQUEST: i32 = -32600;
    /// The method does not exist or is not available.
    pub const METHOD_NOT_FOUND: i32 = -32601;
    /// Invalid method parameters (also: unknown tool or prompt, bad cursor).
    pub const INVALID_PARAMS: i32 = -32602;
    /// Internal JSON-RPC error.
    pub const INTERNAL_ERROR: i32 = -32603;
    /// Application error of a plain JSON-RPC method that gave no code of its own.
    pub const SERVER_ERROR: i32 = -32000;
    /// Session-era "resource not found" (2025-03-26 .. 2025-11-25).
    pub const RESOURCE_NOT_FOUND: i32 = -32002;
    /// 2026-07-28: a routing header (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`,
    /// `Mcp-Param-*`) is missing or differs from the body.
    pub const HEADER_MISMATCH: i32 = -32020;
    /// 2026-07-28: the request needs a client capability the client did not declare.
    pub const MISSING_CAPABILITY: i32 = -32021;
    /// 2026-07-28: the requested protocol version is not supported.
    pub const UNSUPPORTED_VERSION: i32 = -32022;
    /// A call over its rate limit ([`crate::rate_limit`]; HTTP 429).
    pub const RATE_LIMITED: i32 = -32023;

    /// An error with `code` and `message` and no data.
    #[cold]
    pub fn new(code: i32, message: impl Into<Cow<'static, str>>) -> Self {
        Self {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// `-32602 Invalid params` with a message that says what was wrong.
    #[cold]
    pub fn invalid_params(message: impl Into<Cow<'static, str>>) -> Self {
        Self::new(INVALID_PARAMS, message)
    }

    /// `-32601 Method not found`, naming the method.
    #[cold]
    pub fn method_not_found(method: &str) -> Self {
        Self::new(METHOD_NOT_FOUND, format!("Method not found: {method}"))
    }

    /// `-32603 Internal error`.
    #[cold]
    pub fn internal(message: impl Into<Cow<'static, str>>) -> Self {
        Self::new(INTERNAL_ERROR, message)
    }

    /// `-32603 Internal error` for a request whose shared state cannot be reached now (a
    /// shared store down): HTTP answers it with 503, and `data.retryable` says it may work
    /// later.
    #[cold]
    pub fn unavailable(message: impl Into<Cow<'static, str>>) -> Self {
        Self::new(INTERNAL_ERROR, message).with_data(serde_json::json!({ "retryable": true }))
    }

    /// Whether this is an [`RpcError::unavailable`] error.
    pub fn is_unavailable(&self) -> bool {
        self.code == INTERNAL_ERROR
            && self
                .data
                .as_ref()
                .and_then(|data| data.get("retryable"))
                .and_then(Value::as_bool)
                == Some(true)
    }

    /// Attaches `data`.
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }
}

impl fmt::Display for RpcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "JSON-RPC error {}: {}", self.code, self.message)
    }
}

impl std::error::Error for RpcError {}

/// A success response is `RESPONSE_HEAD`, the id, `RESULT_MEMBER`, the result and `}`.
pub(crate) const RESPONSE_HEAD: &str = r#"{"jsonrpc":"2.0","id":"#;
/// See [`RESPONSE_HEAD`].
pub(crate) const RESULT_MEMBER: &str = r#","result":"#;

/// `{"jsonrpc":"2.0","id":...,"result":...}` from already-encoded parts, in one allocation.
// Public only so `bench/benches/hot_path.rs` can measure it; transports answer for you.
#[doc(hidden)]
pub fn success_response(id: &serde_json::value::RawValue, result: &str) -> String {
    let id = id.get();
    let mut out = String::with_capacity(
        RESPONSE_HEAD.len() + id.len() + RESULT_MEMBER.len() + result.len() + 1,
    );
    out.push_str(RESPONSE_HEAD);
    out.push_str(id);
    out.push_str(RESULT_MEMBER);
    out.push_str(result);
    out.push('}');
    out
}

/// `{"jsonrpc":"2.0","error":{...}}`: the error of a request refused before its body was read
/// (its id is unknowable). From 2025-11-25 on the schema allows an error response without
/// `id`, and the transport chapters allow one for rejected requests; `"id": null` matches no
/// revision's schema.
#[cold]
pub(crate) fn id_less_error_response(error: &RpcError) -> String {
    let error = serde_json::to_string(error).expect("an error object always serializes");
    format!(r#"{{"jsonrpc":"2.0","error":{error}}}"#)
}

/// `{"jsonrpc":"2.0","id":...,"error":{...}}`; `id` is `null` when the request had none.
#[cold]
pub(crate) fn error_response(id: Option<&serde_json::value::RawValue>, error: &RpcError) -> String {
    let error = serde_json::to_string(error).expect("an error object always serializes");
    let id = id.map_or("null", |id| id.get());
    let mut out = String::with_capacity(error.len() + id.len() + 32);
    out.push_str(r#"{"jsonrpc":"2.0","id":"#);
    out.push_str(id);
    out.push_str(r#","error":"#);
    out.push_str(&error);
    out.push('}');
    out
}
