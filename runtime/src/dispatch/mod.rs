//! The contract between generated code and the transports.
//!
//! A generated crate implements [`Dispatch`] for its `Server<H>`: every call that can reach a
//! handler is one [`Call`] given to [`Dispatch::call`], whose one `match` on its kind and name
//! decodes the arguments straight from the request bytes into the generated params type, calls
//! the user's handler and encodes the result once, as an [`Answer`]. The transports only route
//! calls to it, through the engine's one seam (whatever the door: `/mcp`, the plain JSON-RPC
//! endpoint, stdio, the tool catalog's inner call), so a wrapper (middleware, the catalog,
//! audit records) is written once.

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::value::RawValue;

use crate::catalog::{CompletionKind, CompletionRequest};
use crate::context::RequestContext;
use crate::error::Error;
use crate::json::{JsonText, RESPONSE_HEADROOM};
use crate::jsonrpc::RpcError;
use crate::protocol::ProtocolVersion;

pub use crate::context::Door;
pub use crate::future::BoxFuture;
pub use call::{Answer, Call, CallKind};
pub use contract::{Contract, Face};

mod call;
mod contract;
pub(crate) mod rate;

/// How a method accepts its params (OpenRPC `paramStructure`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamStructure {
    /// Only a JSON object keyed by param name.
    ByName,
    /// Only a JSON array in declaration order.
    ByPosition,
    /// Either form.
    Either,
}

/// Implemented by generated code: routes a call to the user's handler.
///
/// Every call that can reach a handler, whatever the door, is one [`Call`] given to
/// [`call`](Self::call), so that a wrapper (middleware, the tool catalog, audit records) is
/// written once: it routes the call to its inner dispatch and wraps the future.
pub trait Dispatch: Send + Sync + 'static {
    /// What the server publishes and enforces: its catalog, OpenRPC document, skills, scopes,
    /// rate limits and server card ([`Contract`]). Generated servers return a `static`; a
    /// wrapper that changes nothing of it (middleware) returns its inner dispatch's.
    fn contract(&self) -> &'static Contract;

    /// Routes `call` to its handler: the future of its [`Answer`], or `None` when the name
    /// is unknown (no such tool, prompt, resource or method), so that the caller picks the
    /// error the protocol revision requires.
    ///
    /// A [`CallKind::Method`] call is a contract method (any, with or without `x-mcp`) called
    /// on the plain JSON-RPC endpoint with its raw `params`; MCP never sends one.
    ///
    /// The default knows no call: a dispatch that only publishes (lists, documents) needs
    /// nothing more than [`contract`](Self::contract).
    fn call<'a>(&'a self, call: Call<'a>) -> Option<BoxFuture<'a, Answer>> {
        let _ = call;
        None
    }

    /// Completes `argument` of the prompt or resource template `reference` through the
    /// handler, when the contract marks it `"x-mcp": {"complete": true}`. `None` (the default)
    /// for every other argument: the catalog's `enum` values complete those.
    fn complete<'a>(
        &'a self,
        kind: CompletionKind,
        reference: &str,
        argument: &str,
        request: CompletionRequest,
        ctx: RequestContext,
    ) -> Option<BoxFuture<'a, Result<Vec<String>, Error>>> {
        let _ = (kind, reference, argument, request, ctx);
        None
    }
}

/// Decodes JSON-RPC `params` into `T`, honouring `structure`. Absent params decode as an
/// empty object, so methods whose params are all optional accept them.
pub fn decode_params<T: DeserializeOwned>(
    params: Option<&RawValue>,
    structure: ParamStructure,
) -> Result<T, RpcError> {
    let text = params.map_or("{}", RawValue::get);
    match (text.trim_start().as_bytes().first(), structure) {
        (Some(b'{'), ParamStructure::ByPosition) => {
            return Err(RpcError::invalid_params(
                "Invalid params: this method takes params by position (a JSON array)",
            ));
        }
        (Some(b'['), ParamStructure::ByName) => {
            return Err(RpcError::invalid_params(
                "Invalid params: this method takes params by name (a JSON object)",
            ));
        }
        (Some(b'{' | b'['), _) => {}
        _ => {
            return Err(RpcError::invalid_params(
                "Invalid params: expected a JSON object or array",
            ))
        }
    }
    crate::validate::decode_with_path(text)
        .map_err(|e| RpcError::invalid_params(format!("Invalid params: {e}")))
}

/// Decodes MCP `arguments` (always a JSON object, absent means `{}`) into `T`. A failure says
/// where and what in the schema's words (`/a: expected an integer, got a string`; see
/// [`crate::validate::decode_with_path`]).
pub fn decode_arguments<T: DeserializeOwned>(
    arguments: Option<&RawValue>,
) -> Result<T, ArgumentsError> {
    let text = arguments.map_or("{}", RawValue::get);
    if !text.trim_start().starts_with('{') {
        return Err(ArgumentsError::NotAnObject);
    }
    crate::validate::decode_with_path(text).map_err(ArgumentsError::Decode)
}

/// [`decode_arguments`], then the schema's rules that serde does not check (generated
/// [`crate::validate::Validate`]): `Err` lists every violation.
#[inline]
pub fn decode_valid_arguments<T: DeserializeOwned + crate::validate::Validate>(
    arguments: Option<&RawValue>,
) -> Result<T, ArgumentsError> {
    let params: T = decode_arguments(arguments)?;
    crate::validate::check(&params).map_err(ArgumentsError::Invalid)?;
    Ok(params)
}

/// Why [`decode_arguments`] or [`decode_valid_arguments`] refused MCP `arguments`. Its
/// `to_string()` is the message a tool's caller reads (`/a: expected an integer, got a
/// string`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ArgumentsError {
    /// The arguments are not a JSON object: `arguments must be a JSON object`.
    NotAnObject,
    /// The arguments do not decode into the params type: where and what, in the schema's
    /// words.
    Decode(crate::validate::DecodeError),
    /// The arguments decode but break rules of the schema that serde does not check
    /// ([`decode_valid_arguments`] only).
    Invalid(crate::validate::Invalid),
}

impl std::fmt::Display for ArgumentsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::NotAnObject => f.write_str("arguments must be a JSON object"),
            Self::Decode(error) => std::fmt::Display::fmt(error, f),
            Self::Invalid(error) => std::fmt::Display::fmt(error, f),
        }
    }
}

impl std::error::Error for ArgumentsError {}

/// [`decode_params`], then the schema's rules that serde does not check: `-32602` listing
/// every violation.
#[inline]
pub fn decode_valid_params<T: DeserializeOwned + crate::validate::Validate>(
    params: Option<&RawValue>,
    structure: ParamStructure,
) -> Result<T, RpcError> {
    let params: T = decode_params(params, structure)?;
    crate::validate::check(&params)
        .map_err(|e| RpcError::invalid_params(format!("Invalid params: {e}")))?;
    Ok(params)
}

/// Serializes a handler's result once.
pub fn encode_result<T: Serialize>(result: &T) -> Result<Box<RawValue>, RpcError> {
    serde_json::value::to_raw_value(result)
        .map_err(|e| RpcError::internal(format!("Internal error: result did not serialize: {e}")))
}

/// The `CallToolResult` of a result the handler built itself, shaped for `version`.
fn content_result(
    result: &crate::mcp::ToolResult,
    version: ProtocolVersion,
) -> Result<JsonText, RpcError> {
    let structured = result
        .structured_content
        .as_ref()
        .filter(|s| match version {
            ProtocolVersion::V2024_11_05 | ProtocolVersion::V2025_03_26 => false,
            ProtocolVersion::V2025_06_18 | ProtocolVersion::V2025_11_25 => s.is_object(),
            ProtocolVersion::V2026_07_28 => true,
        });
    if structured.is_none() {
        if let Some(json) = text_only_result(&result.content, result.is_error) {
            return Ok(JsonText::trusted(json));
        }
    }
    // Serialized straight from the blocks, without a `Value` tree in between.
    JsonText::of(&CallToolResultOut {
        content: &result.content,
        structured_content: structured,
        is_error: result.is_error.then_some(true),
    })
    .map_err(|e| RpcError::internal(format!("Internal error: {e}")))
}

/// The `isError` result of a handler's [`Error`]: [`error_result`] of its tool text, with its
/// `structuredContent` ([`Error::with_structured_content`]) at the revisions that have one (an
/// object from 2025-06-18, any value from 2026-07-28, as a success's).
fn failed_result(error: &Error, version: ProtocolVersion) -> String {
    let structured = error.structured_content().filter(|s| match version {
        ProtocolVersion::V2024_11_05 | ProtocolVersion::V2025_03_26 => false,
        ProtocolVersion::V2025_06_18 | ProtocolVersion::V2025_11_25 => s.is_object(),
        ProtocolVersion::V2026_07_28 => true,
    });
    match structured {
        None => error_result(error.tool_text()),
        Some(structured) => format!(
            r#"{{"content":[{}],"structuredContent":{structured},"isError":true}}"#,
            text_content(error.tool_text())
        ),
    }
}

/// `{"content":[<text block of message>],"isError":true}`.
fn error_result(message: &str) -> String {
    format!(
        r#"{{"content":[{}],"isError":true}}"#,
        text_content(message)
    )
}

/// Appends the text block showing a serialized result: a JSON string is already the escaped
/// text, so it goes in as it is; any other value shows as its JSON, escaped.
fn push_text_block_of(out: &mut String, json: &str) {
    out.push_str(r#"{"type":"text","text":"#);
    if json.starts_with('"') {
        out.push_str(json);
    } else {
        let escaped = serde_json::to_string(json).expect("a string always serializes");
        out.push_str(&escaped);
    }
    out.push('}');
}

/// `{"content":[{"type":"text","text":...},...]}` (with `"isError":true` when `is_error`) when
/// every block is plain text, the usual result; `None` otherwise. Written by hand because
/// serde's serializer for the `ContentBlock` enum is a large piece of code on every call's
/// path; the bytes are the same as [`CallToolResultOut`]'s.
fn text_only_result(content: &[crate::mcp::ContentBlock], is_error: bool) -> Option<String> {
    use crate::mcp::ContentBlock;
    // Escaping rarely lengthens a text by much: the estimate is nearly always enough.
    let texts: usize = content
        .iter()
        .map(|block| match block {
            ContentBlock::TextContent { text, .. } => text.len() + 32,
            _ => 0,
        })
        .sum();
    let mut out = Vec::with_capacity(32 + texts + RESPONSE_HEADROOM);
    out.extend_from_slice(br#"{"content":["#);
    for (i, block) in content.iter().enumerate() {
        let ContentBlock::TextContent {
            meta: None,
            annotations: None,
            text,
        } = block
        else {
            return None;
        };
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(br#"{"type":"text","text":"#);
        serde_json::to_writer(&mut out, text).ok()?;
        out.push(b'}');
    }
    out.push(b']');
    if is_error {
        out.extend_from_slice(br#","isError":true"#);
    }
    out.push(b'}');
    String::from_utf8(out).ok()
}

/// The `CallToolResult` of an `"output": "mcp"` tool, as sent.
#[derive(Serialize)]
struct CallToolResultOut<'a> {
    content: &'a [crate::mcp::ContentBlock],
    #[serde(rename = "structuredContent", skip_serializing_if = "Option::is_none")]
    structured_content: Option<&'a serde_json::Value>,
    #[serde(rename = "isError", skip_serializing_if = "Option::is_none")]
    is_error: Option<bool>,
}

/// How a handler's serialized result reads as text: a JSON string as itself, any other value
/// as its JSON; and whether it was a string.
fn shown_as_text(json: &str) -> (String, bool) {
    match serde_json::from_str::<String>(json) {
        Ok(text) if json.starts_with('"') => (text, true),
        _ => (json.to_string(), false),
    }
}

/// `{"type":"text","text":...}` with `text` escaped.
fn text_content(text: &str) -> String {
    let escaped = serde_json::to_string(text).expect("a string always serializes");
    format!(r#"{{"type":"text","text":{escaped}}}"#)
}

/// A prompt result from a handler's return value: a string is one user text message; any
/// other value is one user text message holding its JSON.
pub fn prompt_result<T: Serialize>(
    description: Option<&str>,
    value: &T,
) -> Result<Box<RawValue>, RpcError> {
    let raw = encode_result(value)?;
    let (shown, _) = shown_as_text(raw.get());
    let description = description
        .map(|d| {
            format!(
                r#""description":{},"#,
                serde_json::to_string(d).expect("string")
            )
        })
        .unwrap_or_default();
    let json = format!(
        r#"{{{description}"messages":[{{"role":"user","content":{}}}]}}"#,
        text_content(&shown)
    );
    RawValue::from_string(json).map_err(|e| RpcError::internal(e.to_string()))
}

/// A `resources/read` result: a string result is the resource's text; any other value is its
/// JSON with `mimeType` `application/json` unless the descriptor names another.
pub fn resource_result<T: Serialize>(
    uri: &str,
    mime_type: Option<&str>,
    value: &T,
) -> Result<Box<RawValue>, RpcError> {
    let raw = encode_result(value)?;
    let (shown, is_string) = shown_as_text(raw.get());
    let default_mime = if is_string {
        "text/plain"
    } else {
        "application/json"
    };
    let mime = mime_type.unwrap_or(default_mime);
    let quote = |s: &str| serde_json::to_string(s).expect("a string always serializes");
    let json = format!(
        r#"{{"contents":[{{"uri":{},"mimeType":{},"text":{}}}]}}"#,
        quote(uri),
        quote(mime),
        quote(&shown)
    );
    RawValue::from_string(json).map_err(|e| RpcError::internal(e.to_string()))
}

/// Builds the params object of a resource template from the variables matched in a URI.
/// Variables named in `json_vars` (integer, number or boolean params) are parsed as JSON
/// literals; all others are strings.
pub fn template_params<T: DeserializeOwned>(
    vars: Vec<(&str, String)>,
    json_vars: &[&str],
) -> Result<T, RpcError> {
    let mut object = serde_json::Map::new();
    for (name, value) in vars {
        let value = if json_vars.contains(&name) {
            serde_json::from_str(&value).map_err(|_| {
                RpcError::invalid_params(format!(
                    "Invalid params: `{name}` is not a valid value: {value}"
                ))
            })?
        } else {
            serde_json::Value::String(value)
        };
        object.insert(name.to_string(), value);
    }
    let text = serde_json::Value::Object(object).to_string();
    crate::validate::decode_with_path(&text)
        .map_err(|e| RpcError::invalid_params(format!("Invalid params: {e}")))
}

#[cfg(test)]
mod tests;
