//! Middleware: the user's code around every call a server runs.
//!
//! A [`Middleware`] sees each `tools/call`, `prompts/get`, `resources/read` and plain
//! JSON-RPC contract call ([`CallKind`]) before the handler: who makes it
//! ([`Call::principal`]), the method, the tool or prompt name or resource URI, the arguments
//! raw or typed ([`Call::arguments`]). It then passes the call on ([`Next::run`], with the
//! arguments rewritten if it likes: [`Call::set_arguments`]), or answers instead (a cache: an
//! [`Answer::Success`] of its own; a policy: [`Answer::Refused`]), and sees the answer the
//! handler gave ([`Answer::result`] reads a success typed).
//!
//! The other direction, the requests a wrapped call's handler sends to the client
//! (elicitation, sampling, roots), passes through [`Middleware::client_request`], innermost
//! layer first: the mirror of a call's way in.
//!
//! It is a [`Dispatch`] wrapper, [`Layered`], so a server without middleware is the generated
//! `Server<H>` as it was: nothing is paid for the feature unless it is used.
//!
//! # Order
//!
//! [`WithMiddleware::layer`] wraps what it is called on, so **the layer added last runs
//! first** (as axum's `Router::layer`): in `server.layer(a).layer(b)`, `b` sees the call
//! first and the answer last; `a` sees the call after `b` passed it on, then the handler runs.
//!
//! # What it sees and keeps
//!
//! - The call's arguments as the client sent them ([`Call::raw_arguments`]): unknown members,
//!   `_meta` among them, reach the handler untouched unless a middleware replaces the whole
//!   object; a typed read ([`Call::arguments`]) never changes what is passed on.
//! - The answer as the handler made it: a middleware that reads it typed and returns it
//!   passes on the same bytes, so the `_meta` of a result and of its content blocks stays.
//! - The `_meta` of the request itself (`params._meta`) is read by the runtime before
//!   dispatch: the progress token and trace context through [`Call::context`]; other keys
//!   are not given to middleware.
//! - Names the server does not know are answered by the runtime (the error the revision
//!   wants) without running the middleware; skills' `skill://` files and `completion/complete`
//!   are not calls of the contract and do not pass through it either.
//!
//! # Cancellation
//!
//! A call the client cancels, or whose connection closes, is dropped where it stands: the
//! middleware's future with it. Cleanup belongs in a value's `Drop` (a guard held across
//! [`Next::run`]), which then runs on every path: answer, refusal, panic or cancellation.
//!
//! # Example
//!
//! ```
//! use mcp_runtime::middleware::{Answer, Call, Middleware, Next, WithMiddleware};
//! use mcp_runtime::{BoxFuture, RpcError};
//!
//! /// Refuses `delete_*` tools to callers without the `admin` scope.
//! struct AdminOnlyDeletes;
//!
//! impl Middleware for AdminOnlyDeletes {
//!     fn call<'a>(&'a self, call: Call<'a>, next: Next<'a>) -> BoxFuture<'a, Answer> {
//!         Box::pin(async move {
//!             let admin = call.principal().is_some_and(|p| p.has_scope("admin"));
//!             if call.name().starts_with("delete_") && !admin {
//!                 return Answer::Refused(RpcError::new(-32001, "admins only"));
//!             }
//!             next.run(call).await
//!         })
//!     }
//! }
//! # fn wrap<D: mcp_runtime::Dispatch>(server: D) -> impl mcp_runtime::Dispatch {
//! server.layer(AdminOnlyDeletes)
//! # }
//! ```

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::Value;

use crate::auth::Principal;
use crate::context::RequestContext;
use crate::dispatch::{BoxFuture, Dispatch, ToolOutcome};
use crate::error::Error;
use crate::jsonrpc::RpcError;

mod client;
mod layered;

pub use client::{ClientNext, ClientRequest};
pub(crate) use layered::{call_method, call_tool, get_prompt, read_resource};
pub use layered::{Layered, WithMiddleware};

/// The user's code around every call: see the [module](self).
pub trait Middleware: Send + Sync + 'static {
    /// Runs around `call`: pass it on with `next.run(call).await` (the handler's answer, which
    /// may be read or replaced), or answer without passing it on.
    fn call<'a>(&'a self, call: Call<'a>, next: Next<'a>) -> BoxFuture<'a, Answer>;

    /// Runs around each request the handler of a wrapped call sends to the client
    /// (`elicitation/create`, `sampling/createMessage`, `roots/list`, through
    /// [`RequestContext::request_client`] and its helpers): pass it on with
    /// `next.run(request).await` (the client's answer as JSON), or answer instead. Default:
    /// passes it on.
    ///
    /// On a stateless 2026-07-28 request, an answer the client has not given yet is an
    /// input-required [`Error`] the handler's `?` turns into the round's
    /// `InputRequiredResult`: pass such an error on unchanged.
    fn client_request<'a>(
        &'a self,
        request: ClientRequest<'a>,
        next: ClientNext<'a>,
    ) -> BoxFuture<'a, Result<Value, Error>> {
        next.run(request)
    }
}

/// What kind of call a [`Call`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
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
        }
    }
}

/// One call on its way to the handler.
#[derive(Debug)]
pub struct Call<'a> {
    kind: CallKind,
    name: String,
    arguments: Option<std::borrow::Cow<'a, RawValue>>,
    /// Arguments a middleware put in place of the client's.
    replaced: Option<Box<RawValue>>,
    ctx: RequestContext,
}

impl<'a> Call<'a> {
    /// What kind of call it is.
    pub fn kind(&self) -> CallKind {
        self.kind
    }

    /// The method (see [`CallKind::method`]).
    pub fn method(&self) -> &'static str {
        self.kind.method()
    }

    /// The tool's or prompt's name, the resource's URI, or the contract method's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Who the call acts for (HTTP with [`crate::Config::auth`]; `None` otherwise).
    pub fn principal(&self) -> Option<&Principal> {
        self.ctx.principal()
    }

    /// The request's context: revision, session, progress token, principal.
    pub fn context(&self) -> &RequestContext {
        &self.ctx
    }

    /// The arguments (the JSON-RPC `params` of a plain call) as they will reach the handler:
    /// the client's text, or what a middleware [set](Self::set_arguments). `None` when
    /// absent (and always for a resource).
    pub fn raw_arguments(&self) -> Option<&RawValue> {
        self.replaced.as_deref().or(self.arguments.as_deref())
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
        self.replaced = Some(serde_json::value::to_raw_value(arguments)?);
        Ok(())
    }
}

/// The rest of the chain: the next middleware, then the handler.
pub struct Next<'a> {
    /// The call as it came, already routed (not started: a future does nothing until
    /// polled).
    routed: BoxFuture<'a, Answer>,
    inner: &'a dyn Dispatch,
}

impl std::fmt::Debug for Next<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Next").finish_non_exhaustive()
    }
}

impl<'a> Next<'a> {
    /// Passes `call` on and answers what the rest of the chain answers. With its arguments
    /// [replaced](Call::set_arguments), the call is routed again with the new ones.
    pub fn run(self, call: Call<'a>) -> BoxFuture<'a, Answer> {
        let Some(arguments) = call.replaced.filter(|_| call.kind != CallKind::Resource) else {
            return self.routed;
        };
        drop(self.routed);
        let Call {
            kind, name, ctx, ..
        } = call;
        let inner = self.inner;
        Box::pin(async move {
            let again = route(inner, kind, &name, Some(&arguments), ctx);
            match again {
                Some(future) => future.await,
                None => Answer::Refused(RpcError::internal(
                    "the call was rewritten to one the server does not know",
                )),
            }
        })
    }
}

/// What a call answered: the handler's answer, or a middleware's instead of it.
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
    /// The arguments did not decode into the handler's params.
    InvalidArguments(String),
    /// A JSON-RPC error in place of any result (a policy's refusal, a limit), for every kind
    /// of call, tools included.
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

    /// A tool's answer from its dispatch.
    fn of_tool(outcome: ToolOutcome) -> Self {
        match outcome {
            ToolOutcome::Success(raw) => Answer::Success(raw),
            ToolOutcome::Content(result) => Answer::Content(result),
            ToolOutcome::Failed(error) => Answer::Failed(error),
            ToolOutcome::InvalidArguments(message) => Answer::InvalidArguments(message),
        }
    }

    /// A prompt's, resource's or plain method's answer from its dispatch.
    fn of_result(result: Result<Box<RawValue>, RpcError>) -> Self {
        match result {
            Ok(raw) => Answer::Success(raw),
            Err(error) => Answer::Refused(error),
        }
    }

    /// The answer as a tool's outcome: a refusal is a protocol error (a JSON-RPC error, not
    /// an `isError` result).
    fn into_tool(self) -> ToolOutcome {
        match self {
            Answer::Success(raw) => ToolOutcome::Success(raw),
            Answer::Content(result) => ToolOutcome::Content(result),
            Answer::Failed(error) => ToolOutcome::Failed(error),
            Answer::InvalidArguments(message) => ToolOutcome::InvalidArguments(message),
            Answer::Refused(error) => ToolOutcome::Failed(protocol_error(error)),
        }
    }

    /// The answer as a prompt's, resource's or plain method's result.
    fn into_result(self) -> Result<Box<RawValue>, RpcError> {
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
}

/// `error` as a protocol [`Error`], so that a tool's refusal stays a JSON-RPC error.
fn protocol_error(error: RpcError) -> Error {
    let RpcError {
        code,
        message,
        data,
    } = error;
    let protocol = Error::protocol(code, message);
    match data {
        Some(data) => protocol.with_data(data),
        None => protocol,
    }
}

/// Routes a call of `kind` with arguments to `inner` (a resource is routed by
/// [`Layered::read_resource`] itself, its URI borrowed): `None` when it does not know the name.
/// The name is not borrowed by the future (the dispatch matches or copies it first).
pub(super) fn route<'a>(
    inner: &'a dyn Dispatch,
    kind: CallKind,
    name: &str,
    arguments: Option<&'a RawValue>,
    ctx: RequestContext,
) -> Option<BoxFuture<'a, Answer>> {
    Some(match kind {
        CallKind::Tool => {
            let future = inner.call_tool(name, arguments, ctx)?;
            Box::pin(async move { Answer::of_tool(future.await) })
        }
        CallKind::Prompt => {
            let future = inner.get_prompt(name, arguments, ctx)?;
            Box::pin(async move { Answer::of_result(future.await) })
        }
        CallKind::Method => {
            let future = inner.call_method(name, arguments, ctx)?;
            Box::pin(async move { Answer::of_result(future.await) })
        }
        CallKind::Resource => return None,
    })
}
