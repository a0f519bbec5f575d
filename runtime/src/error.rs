//! The error a handler returns.

use serde_json::Value;
use std::fmt;

use crate::jsonrpc::{self, RpcError};

/// What a handler returns when a call fails.
///
/// For a tool this becomes a result with `isError: true` whose text is the message, so the model
/// can read it; for a plain JSON-RPC method it becomes a JSON-RPC error with the code given (or
/// `-32000`). Any `std::error::Error` converts into it, so `?` works on I/O and parse errors.
#[derive(Debug, Clone, PartialEq)]
pub struct Error {
    code: Option<i32>,
    message: String,
    data: Option<Value>,
    kind: Kind,
    /// What a failed tool's result shows other than the message, if anything (boxed: most
    /// errors have none, and an `Error` stays small).
    tool: Option<Box<ToolFailure>>,
}

/// The parts of a failed tool's result that differ from the plain `{"content":[message],
/// "isError":true}`.
#[derive(Debug, Clone, PartialEq, Default)]
struct ToolFailure {
    /// The text block, instead of the message.
    text: Option<String>,
    /// The `structuredContent`.
    structured_content: Option<Value>,
}

/// How the transports treat an [`Error`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// The handler's own failure: an `isError` result for a tool, a JSON-RPC error otherwise.
    Handler,
    /// A protocol violation: a JSON-RPC error even from a tool.
    Protocol,
    /// A stateless request needs an answer from the client first (multi round-trip).
    InputRequired,
}

impl Error {
    /// A failure described by `message`.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            code: None,
            message: message.into(),
            data: None,
            kind: Kind::Handler,
            tool: None,
        }
    }

    /// A failure with an explicit JSON-RPC error code (used by plain JSON-RPC methods; tools
    /// report failures as results and ignore it).
    pub fn with_code(code: i32, message: impl Into<String>) -> Self {
        Self {
            code: Some(code),
            message: message.into(),
            data: None,
            kind: Kind::Handler,
            tool: None,
        }
    }

    /// A protocol error: the JSON-RPC error `code`, even when a tool returns it (a tool's
    /// other failures become `isError` results).
    pub fn protocol(code: i32, message: impl Into<String>) -> Self {
        Self {
            kind: Kind::Protocol,
            ..Self::with_code(code, message)
        }
    }

    /// `-32021`: the request needs the client capability `capability` (`sampling`,
    /// `elicitation`, `roots`, ...), which the client did not declare. `data` carries
    /// `requiredCapabilities` as an object, as 2026-07-28 requires.
    pub fn missing_capability(capability: &str) -> Self {
        let mut required = serde_json::Map::new();
        required.insert(capability.to_string(), Value::Object(Default::default()));
        Self::missing_capabilities(Value::Object(required))
    }

    /// `-32021` naming the `required` capabilities object, e.g.
    /// `{"elicitation": {"url": {}}}` or `{"sampling": {"tools": {}}}`.
    pub fn missing_capabilities(required: Value) -> Self {
        Self::protocol(
            jsonrpc::MISSING_CAPABILITY,
            format!("Missing required client capability: {required}"),
        )
        .with_data(serde_json::json!({ "requiredCapabilities": required }))
    }

    /// The stateless round needs the client's answer to the input request `key`.
    pub(crate) fn input_required(key: &str) -> Self {
        Self {
            kind: Kind::InputRequired,
            ..Self::new(format!("waiting for the client's answer to `{key}`"))
        }
    }

    /// Whether this error must reach the client as a JSON-RPC error even from a tool.
    pub fn is_protocol(&self) -> bool {
        self.kind == Kind::Protocol
    }

    /// Whether this error ends a stateless round to ask the client for input.
    pub fn is_input_required(&self) -> bool {
        self.kind == Kind::InputRequired
    }

    /// `-32602`: the arguments were well-formed but not acceptable.
    pub fn invalid_params(message: impl Into<String>) -> Self {
        Self::with_code(jsonrpc::INVALID_PARAMS, message)
    }

    /// Attaches structured `data` to the error.
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    /// Gives the `isError` result of a failed tool a `structuredContent` (at the revisions
    /// that have it, 2025-06-18 on; from 2025-06-18 to 2025-11-25 only when `content` is an
    /// object): `{"content":[text],"structuredContent":content,"isError":true}`. A model reads
    /// the text; a program reads the structure (the gateway's upstream errors carry `{"code",
    /// "message", "data"}` this way). A plain JSON-RPC method, a prompt or a resource ignores
    /// it, as it ignores the tool text.
    ///
    /// ```
    /// use mcp_runtime::Error;
    /// let error = Error::new("no such block")
    ///     .with_structured_content(serde_json::json!({"block": 19_000_000}));
    /// assert_eq!(error.structured_content().unwrap()["block"], 19_000_000);
    /// ```
    pub fn with_structured_content(mut self, content: Value) -> Self {
        self.tool
            .get_or_insert_with(Default::default)
            .structured_content = Some(content);
        self
    }

    /// Gives the `isError` result of a failed tool this text instead of the message, which
    /// stays the JSON-RPC error's (a plain JSON-RPC method, a prompt, a resource): e.g. a
    /// forwarded error whose JSON-RPC message is the upstream's own, and whose tool text says
    /// where it came from (`upstream error -32602: ...`).
    pub fn with_tool_text(mut self, text: impl Into<String>) -> Self {
        self.tool.get_or_insert_with(Default::default).text = Some(text.into());
        self
    }

    /// The `structuredContent` of a failed tool's result, if any
    /// ([`with_structured_content`](Self::with_structured_content)).
    pub fn structured_content(&self) -> Option<&Value> {
        self.tool.as_ref()?.structured_content.as_ref()
    }

    /// The text of a failed tool's result: the one given by
    /// [`with_tool_text`](Self::with_tool_text), else the message.
    pub fn tool_text(&self) -> &str {
        self.tool
            .as_ref()
            .and_then(|tool| tool.text.as_deref())
            .unwrap_or(&self.message)
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The explicit code, if any.
    pub fn code(&self) -> Option<i32> {
        self.code
    }

    /// The data, if any.
    pub fn data(&self) -> Option<&Value> {
        self.data.as_ref()
    }

    /// The JSON-RPC error object for a plain JSON-RPC method.
    pub fn into_rpc_error(self) -> RpcError {
        RpcError {
            code: self.code.unwrap_or(jsonrpc::SERVER_ERROR),
            message: self.message.into(),
            data: self.data,
        }
    }
}

impl Error {
    /// The JSON-RPC error object for an MCP request (prompt, resource): the explicit code, else
    /// `-32603`, keeping clear of the `-32000..-32019` range 2026-07-28 reserves.
    pub fn into_mcp_error(self) -> RpcError {
        RpcError {
            code: self.code.unwrap_or(jsonrpc::INTERNAL_ERROR),
            message: self.message.into(),
            data: self.data,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// Like `anyhow`, `Error` deliberately does not implement `std::error::Error`, so that this
/// blanket conversion can exist and `?` works on any error type.
impl<E: std::error::Error + Send + Sync + 'static> From<E> for Error {
    fn from(error: E) -> Self {
        Self::new(error.to_string())
    }
}
