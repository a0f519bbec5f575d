//! The call seam: one [`Call`] value for every call that can reach a handler, whatever the door
//! (`/mcp` in both eras, batches, the plain JSON-RPC endpoint, stdio, the tool catalog's inner
//! call), and the one [`Answer`] it gets. [`Dispatch::call`](super::Dispatch::call) takes it,
//! so a wrapper (middleware, the tool catalog, audit records) is written once.

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::value::RawValue;

use crate::auth::Principal;
use crate::context::{Door, RequestContext};
use crate::error::Error;
use crate::json::{JsonText, RESPONSE_HEADROOM};
use crate::jsonrpc::RpcError;
use crate::protocol::ProtocolVersion;

/// What kind of call a [`Call`] is.
///
/// New kinds may come (a new door, a new MCP method that reaches a handler): a `match` outside
/// this crate needs a `_` arm, which for a dispatch is the "nothing of mine" answer (`None`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CallKind {
    /// `tools/call`.
    Tool,
    /// `prompts/get`.
    Prompt,
    /// `resources/read` (no arguments: the URI is the [name](Call::name)).
    Resource,
    /// A contract method on the plain JSON-RPC endpoint
    /// ([`crate::config::Endpoints::jsonrpc_path`]).
    Method,
    /// A client wants the updates of a resource (no arguments: the URI is the
    /// [name](Call::name)): `resources/subscribe` in a session, or a 2026-07-28
    /// `subscriptions/listen` stream's `resourceSubscriptions`. A dispatch that has something
    /// to open for it (the gateway: a subscription at the upstream) opens it, and a failure is
    /// the client's error; `None` (the default) when it has nothing to open, and the
    /// subscription is kept all the same: the application tells of updates through
    /// [`crate::Notifier::resource_updated`].
    Subscribe,
}

impl CallKind {
    /// The MCP method: `tools/call`, `prompts/get`, `resources/read`, or `jsonrpc` for a
    /// plain JSON-RPC call (the same word [`crate::Contract::required_scopes`] uses).
    pub fn method(self) -> &'static str {
        match self {
            CallKind::Tool => "tools/call",
            CallKind::Prompt => "prompts/get",
            CallKind::Resource => "resources/read",
            CallKind::Method => "jsonrpc",
            CallKind::Subscribe => "resources/subscribe",
        }
    }
}

/// One call on its way to a handler: its kind, the tool or prompt name, resource URI or
/// contract method, the arguments raw (or [typed](Self::arguments)), and its context (the
/// [door](Self::door) and revision it came in, who makes it, its session).
///
/// ```
/// use mcp_runtime::dispatch::{Call, CallKind};
/// use mcp_runtime::RequestContext;
/// use serde_json::value::RawValue;
///
/// let arguments = RawValue::from_string(r#"{"name":"Ada"}"#.into()).unwrap();
/// let call = Call::new(CallKind::Tool, "greet", Some(&arguments), RequestContext::default());
/// assert_eq!((call.method(), call.name()), ("tools/call", "greet"));
/// assert_eq!(call.arguments::<serde_json::Value>().unwrap()["name"], "Ada");
/// ```
#[derive(Debug)]
pub struct Call<'a> {
    kind: CallKind,
    name: &'a str,
    arguments: Option<&'a RawValue>,
    /// Arguments a middleware put in place of the client's.
    replaced: Option<Box<RawValue>>,
    ctx: RequestContext,
}

impl<'a> Call<'a> {
    /// The call of `kind` to `name` with the raw `arguments` (a plain method's `params`; none
    /// for a resource), in `ctx`.
    #[inline]
    pub fn new(
        kind: CallKind,
        name: &'a str,
        arguments: Option<&'a RawValue>,
        ctx: RequestContext,
    ) -> Self {
        Self {
            kind,
            name,
            arguments,
            replaced: None,
            ctx,
        }
    }

    /// What kind of call it is.
    #[inline]
    pub fn kind(&self) -> CallKind {
        self.kind
    }

    /// The method (see [`CallKind::method`]).
    pub fn method(&self) -> &'static str {
        self.kind.method()
    }

    /// The tool's or prompt's name, the resource's URI, or the contract method's name.
    #[inline]
    pub fn name(&self) -> &'a str {
        self.name
    }

    /// Who the call acts for (HTTP with [`crate::Config::auth`]; `None` otherwise).
    pub fn principal(&self) -> Option<&Principal> {
        self.ctx.principal()
    }

    /// The door the call came through ([`RequestContext::door`]).
    pub fn door(&self) -> Door {
        self.ctx.door()
    }

    /// The request's context: revision, session, progress token, principal.
    pub fn context(&self) -> &RequestContext {
        &self.ctx
    }

    /// The arguments (the JSON-RPC `params` of a plain call) as they will reach the handler:
    /// the client's text, or what a middleware [set](Self::set_arguments). `None` when
    /// absent (and always for a resource).
    #[inline]
    pub fn raw_arguments(&self) -> Option<&RawValue> {
        self.replaced.as_deref().or(self.arguments)
    }

    /// The arguments read as `T` (absent ones as `null`). A read changes nothing that is
    /// passed on. An error says why they do not fit `T`; the handler's own decoding, and its
    /// error, still come later.
    pub fn arguments<T: DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        serde_json::from_str(self.raw_arguments().map_or("null", RawValue::get))
    }

    /// Replaces the arguments the handler will see (a rewrite). They are decoded and checked
    /// by the handler's dispatch as the client's would have been. A resource has none: for
    /// one, this changes nothing.
    pub fn set_arguments(&mut self, arguments: &impl Serialize) -> Result<(), serde_json::Error> {
        if self.kind != CallKind::Resource {
            self.replaced = Some(serde_json::value::to_raw_value(arguments)?);
        }
        Ok(())
    }

    /// The arguments as the client sent them (a rewrite aside).
    pub(crate) fn sent_arguments(&self) -> Option<&'a RawValue> {
        self.arguments
    }

    /// Whether a middleware [replaced](Self::set_arguments) the client's arguments.
    pub(crate) fn rewritten(&self) -> bool {
        self.replaced.is_some()
    }

    /// Its parts, for a dispatch that routes it: kind, name, the arguments (the rewritten ones
    /// owned, the client's borrowed) and the context.
    #[inline]
    pub fn into_parts(
        self,
    ) -> (
        CallKind,
        &'a str,
        Option<std::borrow::Cow<'a, RawValue>>,
        RequestContext,
    ) {
        let arguments = match self.replaced {
            Some(replaced) => Some(std::borrow::Cow::Owned(replaced)),
            None => self.arguments.map(std::borrow::Cow::Borrowed),
        };
        (self.kind, self.name, arguments, self.ctx)
    }

    /// The same call as the client sent it, for a wrapper that routes it before its own code
    /// runs (a rewrite is not copied: a wrapper routes before anything rewrites).
    pub(crate) fn as_sent(&self) -> Call<'a> {
        Call::new(self.kind, self.name, self.arguments, self.ctx.clone())
    }

    /// The context, the call given up.
    pub fn into_context(self) -> RequestContext {
        self.ctx
    }
}

/// What a call answered: the handler's answer, or a wrapper's (a middleware's) instead of it.
#[derive(Debug)]
pub enum Answer {
    /// A success: a tool's result as its handler serialized it (the `structuredContent`), or a
    /// prompt's, resource's or plain method's whole result object.
    Success(Box<RawValue>),
    /// The result an `"output": "mcp"` tool built itself.
    Content(crate::mcp::ToolResult),
    /// The handler failed: a tool's `isError` result; for the other kinds, the JSON-RPC error
    /// of [`Error::into_mcp_error`].
    Failed(Error),
    /// The arguments did not decode into the tool's params: a JSON-RPC `-32602` before
    /// 2025-11-25, an `isError` result from 2025-11-25 on.
    InvalidArguments(String),
    /// A JSON-RPC error in place of any result (a policy's refusal, a limit, a prompt's or
    /// plain method's error), for every kind of call, tools included.
    Refused(RpcError),
}

impl Answer {
    /// A success holding `value` serialized (a cache's stored answer, a rewrite's).
    pub fn json(value: &impl Serialize) -> Self {
        match serde_json::value::to_raw_value(value) {
            Ok(raw) => Answer::Success(raw),
            Err(e) => Answer::Failed(Error::new(format!("result did not serialize: {e}"))),
        }
    }

    /// A handler's return value: its result serialized once, its error a failure.
    pub fn from_result<T: Serialize>(result: Result<T, Error>) -> Self {
        match result {
            Ok(value) => Answer::json(&value),
            Err(error) => Answer::Failed(error),
        }
    }

    /// A handler's own MCP tool result; an `Err` is an `isError` result.
    pub fn from_mcp(result: Result<crate::mcp::ToolResult, Error>) -> Self {
        match result {
            Ok(result) => Answer::Content(result),
            Err(error) => Answer::Failed(error),
        }
    }

    /// A prompt's, resource's or plain method's encoded result, or its JSON-RPC error.
    #[inline]
    pub fn from_reply(reply: Result<Box<RawValue>, RpcError>) -> Self {
        match reply {
            Ok(raw) => Answer::Success(raw),
            Err(error) => Answer::Refused(error),
        }
    }

    /// A success read as `T`: `None` for any other answer.
    pub fn result<T: DeserializeOwned>(&self) -> Option<Result<T, serde_json::Error>> {
        match self {
            Answer::Success(raw) => Some(serde_json::from_str(raw.get())),
            _ => None,
        }
    }

    /// Whether the call succeeded (a tool's `isError` result built by its handler counts as
    /// one that did not).
    pub fn is_success(&self) -> bool {
        match self {
            Answer::Success(_) => true,
            Answer::Content(result) => !result.is_error,
            _ => false,
        }
    }

    /// The JSON-RPC error code the answer carries or implies: a refusal's, a failure's
    /// explicit code, `-32602` for arguments that did not decode; `None` for a success and
    /// a failure without a code.
    pub fn error_code(&self) -> Option<i32> {
        match self {
            Answer::Success(_) | Answer::Content(_) => None,
            Answer::Failed(error) => error.code(),
            Answer::InvalidArguments(_) => Some(crate::jsonrpc::INVALID_PARAMS),
            Answer::Refused(error) => Some(error.code),
        }
    }

    /// The answer as a prompt's, resource's or plain method's result.
    pub fn into_result(self) -> Result<Box<RawValue>, RpcError> {
        match self {
            Answer::Success(raw) => Ok(raw),
            Answer::Refused(error) => Err(error),
            Answer::Failed(error) => Err(error.into_mcp_error()),
            Answer::InvalidArguments(message) => Err(RpcError::invalid_params(format!(
                "Invalid params: {message}"
            ))),
            Answer::Content(_) => Err(RpcError::internal(
                "a middleware answered a tool's result to a call that is not a tool's",
            )),
        }
    }

    /// The `CallToolResult` for `version`, or the JSON-RPC error that revision requires (a
    /// refusal is one at every revision).
    ///
    /// The result travels as `structuredContent` (an object before 2026-07-28, any value from
    /// then on) and as a text block for clients that only read content: the string itself for
    /// a string result, its JSON otherwise.
    pub fn into_call_tool_result(self, version: ProtocolVersion) -> Result<JsonText, RpcError> {
        let json = match self {
            Answer::Success(raw) => {
                let text = raw.get();
                let structured = match version {
                    ProtocolVersion::V2024_11_05 | ProtocolVersion::V2025_03_26 => false,
                    ProtocolVersion::V2025_06_18 | ProtocolVersion::V2025_11_25 => {
                        text.starts_with('{')
                    }
                    ProtocolVersion::V2026_07_28 => true,
                };
                let mut out = String::with_capacity(2 * text.len() + 64 + RESPONSE_HEADROOM);
                out.push_str(r#"{"content":["#);
                super::push_text_block_of(&mut out, text);
                out.push(']');
                if structured {
                    out.push_str(r#","structuredContent":"#);
                    out.push_str(text);
                }
                out.push('}');
                out
            }
            Answer::Content(result) if version == ProtocolVersion::V2024_11_05 => {
                // Cold: only 2024-11-05 sessions take this branch.
                return Answer::Content(crate::mcp::legacy_shapes::tool_result(result))
                    .into_call_tool_result(ProtocolVersion::V2025_03_26);
            }
            Answer::Content(result) => return super::content_result(&result, version),
            Answer::Failed(error) if error.is_protocol() => {
                return Err(error.into_mcp_error());
            }
            Answer::Failed(error) => super::failed_result(&error, version),
            Answer::InvalidArguments(message) => {
                let message = format!("Invalid arguments: {message}");
                if version < ProtocolVersion::V2025_11_25 {
                    return Err(RpcError::invalid_params(message));
                }
                super::error_result(&message)
            }
            Answer::Refused(error) => return Err(error),
        };
        Ok(JsonText::trusted(json))
    }
}
