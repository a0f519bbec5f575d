//! What a generated server's glue calls, imported whole at the top of the generated module
//! (`use mcp_runtime::generated_support::*;`): the runtime's names it uses, short, and one
//! helper per kind of dispatch, so that each method's dispatch is a line or a few.
//!
//! A method's dispatch function (in its own module, `dispatch::add`) decodes the params with
//! [`method`], [`tool`], [`prompt`] or [`template`], and hands the decoded params to a closure
//! whose `async` block calls the handler and encodes its result with [`reply`],
//! [`tool_reply`], [`prompt_reply`] or [`resource_reply`]:
//!
//! ```rust,ignore
//! pub(crate) fn call_method<'a, H: Handler>(
//!     server: &'a Server<H>,
//!     params: Params<'a>,
//!     ctx: RequestContext,
//! ) -> ReplyFuture<'a> {
//!     method(params, ParamStructure::Either, move |params: types::AddParams| async move {
//!         reply(server.handler.add(&ctx, params).await, as_is)
//!     })
//! }
//! ```
//!
//! Why the pieces are where they are (both keep the rebuild after a change to one method
//! short, and the request path what it was):
//!
//! - The helpers are `#[inline(always)]`: rustc compiles a copy into the caller's codegen unit,
//!   the method's own module, rather than into the one unit named for this module that every
//!   method would share (and that a change to any method's types would compile again), and in
//!   release builds each dispatch is the same monomorphic code as written out by hand: no
//!   `dyn` call, no `serde_json::Value`, one boxed future per call.
//! - The `async` block is the generated code's own (a future's code goes where its block is
//!   written), and so is the result's wrapper, [`encoded!`]'s `Encoded`: the generic encoders
//!   (`encode_result`, `ToolOutcome::from_result`, ...) are instantiated with it, a type whose
//!   name stays the same when the result's schema changes, so their shared code is not
//!   compiled again then. A result of built-in type (`i64`, `String`) needs none: [`as_is`].
//!
//! Nothing here is meant to be called by hand; the names may change with the generator.

use serde::de::DeserializeOwned;
use serde::Serialize;

pub use crate::dispatch::encode_result;
pub use crate::skills::Skill;
pub use crate::uri_template::match_uri;
pub use crate::validate::Validate;
pub use crate::{
    BoxFuture, Catalog, CompletionKind, CompletionRequest, Contract, Dispatch, Error,
    ParamStructure, RequestContext, RpcError, ToolOutcome,
};
pub use serde_json::value::RawValue;
pub use std::future::Future;

/// A method's `params`, or a call's `arguments`, as they came (absent: `None`).
pub type Params<'a> = Option<&'a RawValue>;

/// A method's encoded result, or the JSON-RPC error to answer.
pub type Reply = Result<Box<RawValue>, RpcError>;

/// The future of a plain method, a prompt or a resource read.
pub type ReplyFuture<'a> = BoxFuture<'a, Reply>;

/// The future of a tool call.
pub type ToolFuture<'a> = BoxFuture<'a, ToolOutcome>;

/// A resource template's variables, as [`match_uri`] found them in the URI.
pub type UriVars = Vec<(&'static str, String)>;

/// Defines `Encoded`, the wrapper a method's result is encoded through (see the [module
/// docs](crate::generated_support)): `mcp_runtime::encoded!(types::Pet);` in the method's own
/// module, then [`reply`]`(result, Encoded)`.
#[macro_export]
macro_rules! encoded {
    ($result:ty) => {
        /// The result as the runtime's generic encoders see it (see `mcp_runtime::encoded!`).
        struct Encoded($result);

        impl ::serde::Serialize for Encoded {
            fn serialize<S: ::serde::Serializer>(
                &self,
                serializer: S,
            ) -> ::std::result::Result<S::Ok, S::Error> {
                ::serde::Serialize::serialize(&self.0, serializer)
            }
        }
    };
}
pub use crate::encoded;

/// The wrapper of a result of built-in type: the value itself.
#[inline(always)]
pub fn as_is<T>(value: T) -> T {
    value
}

/// The wrapper of a result the contract does not declare (a notification's; a tool's own MCP
/// result on the plain JSON-RPC endpoint): `null`.
#[inline(always)]
pub fn no_result<T>(_: T) {}

/// A plain JSON-RPC method: `params` decoded in `structure` (`-32602` at once when they do not
/// decode), then `call`'s future, boxed.
#[inline(always)]
pub fn method<'a, P: DeserializeOwned, F: Future<Output = Reply> + Send + 'a>(
    params: Params<'_>,
    structure: ParamStructure,
    call: impl FnOnce(P) -> F,
) -> ReplyFuture<'a> {
    match crate::dispatch::decode_params(params, structure) {
        Ok(params) => Box::pin(call(params)),
        Err(error) => Box::pin(std::future::ready(Err(error))),
    }
}

/// [`method`], the params then checked against the schema's rules that serde does not check.
#[inline(always)]
pub fn valid_method<'a, P: DeserializeOwned + Validate, F: Future<Output = Reply> + Send + 'a>(
    params: Params<'_>,
    structure: ParamStructure,
    call: impl FnOnce(P) -> F,
) -> ReplyFuture<'a> {
    match crate::dispatch::decode_valid_params(params, structure) {
        Ok(params) => Box::pin(call(params)),
        Err(error) => Box::pin(std::future::ready(Err(error))),
    }
}

/// A tool: `arguments` decoded (arguments that do not decode are the tool's error, not the
/// protocol's: [`ToolOutcome::InvalidArguments`]), then `call`'s future, boxed.
#[inline(always)]
pub fn tool<'a, P: DeserializeOwned, F: Future<Output = ToolOutcome> + Send + 'a>(
    arguments: Params<'_>,
    call: impl FnOnce(P) -> F,
) -> ToolFuture<'a> {
    match crate::dispatch::decode_arguments(arguments) {
        Ok(params) => Box::pin(call(params)),
        Err(error) => Box::pin(std::future::ready(ToolOutcome::InvalidArguments(
            arguments_message(error),
        ))),
    }
}

/// [`tool`], the arguments then checked against the schema's rules that serde does not check.
#[inline(always)]
pub fn valid_tool<
    'a,
    P: DeserializeOwned + Validate,
    F: Future<Output = ToolOutcome> + Send + 'a,
>(
    arguments: Params<'_>,
    call: impl FnOnce(P) -> F,
) -> ToolFuture<'a> {
    match crate::dispatch::decode_valid_arguments(arguments) {
        Ok(params) => Box::pin(call(params)),
        Err(error) => Box::pin(std::future::ready(ToolOutcome::InvalidArguments(
            arguments_message(error),
        ))),
    }
}

/// A prompt: `arguments` decoded (`-32602` at once when they do not), then `call`'s future,
/// boxed.
#[inline(always)]
pub fn prompt<'a, P: DeserializeOwned, F: Future<Output = Reply> + Send + 'a>(
    arguments: Params<'_>,
    call: impl FnOnce(P) -> F,
) -> ReplyFuture<'a> {
    match crate::dispatch::decode_arguments(arguments) {
        Ok(params) => Box::pin(call(params)),
        Err(error) => Box::pin(std::future::ready(Err(invalid_arguments(&error)))),
    }
}

/// [`prompt`], the arguments then checked against the schema's rules that serde does not
/// check.
#[inline(always)]
pub fn valid_prompt<'a, P: DeserializeOwned + Validate, F: Future<Output = Reply> + Send + 'a>(
    arguments: Params<'_>,
    call: impl FnOnce(P) -> F,
) -> ReplyFuture<'a> {
    match crate::dispatch::decode_valid_arguments(arguments) {
        Ok(params) => Box::pin(call(params)),
        Err(error) => Box::pin(std::future::ready(Err(invalid_arguments(&error)))),
    }
}

/// A resource template: the variables of the URI it matched decoded as the params (those
/// named in `json_vars`, integer, number or boolean params, parsed as JSON; the others taken
/// as strings), then `call`'s future, boxed.
#[inline(always)]
pub fn template<'a, P: DeserializeOwned, F: Future<Output = Reply> + Send + 'a>(
    vars: UriVars,
    json_vars: &[&str],
    call: impl FnOnce(P) -> F,
) -> ReplyFuture<'a> {
    match crate::dispatch::template_params(vars, json_vars) {
        Ok(params) => Box::pin(call(params)),
        Err(error) => Box::pin(std::future::ready(Err(error))),
    }
}

/// [`template`], the params then checked against the schema's rules that serde does not
/// check.
#[inline(always)]
pub fn valid_template<'a, P: DeserializeOwned + Validate, F: Future<Output = Reply> + Send + 'a>(
    vars: UriVars,
    json_vars: &[&str],
    call: impl FnOnce(P) -> F,
) -> ReplyFuture<'a> {
    match crate::dispatch::template_params::<P>(vars, json_vars) {
        Ok(params) => match crate::validate::check(&params) {
            Ok(()) => Box::pin(call(params)),
            Err(message) => Box::pin(std::future::ready(Err(RpcError::invalid_params(format!(
                "Invalid params: {message}"
            ))))),
        },
        Err(error) => Box::pin(std::future::ready(Err(error))),
    }
}

fn invalid_arguments(message: &crate::dispatch::ArgumentsError) -> RpcError {
    RpcError::invalid_params(format!("Invalid arguments: {message}"))
}

/// The message of arguments a tool refused (out of line: one copy, not one a tool).
#[cold]
#[inline(never)]
fn arguments_message(error: crate::dispatch::ArgumentsError) -> String {
    error.to_string()
}

/// A plain method's answer: the handler's result encoded through `wrap` ([`as_is`], or the
/// method's `Encoded`), its error as a JSON-RPC error.
#[inline(always)]
pub fn reply<T, W: Serialize>(result: Result<T, Error>, wrap: impl FnOnce(T) -> W) -> Reply {
    match result {
        Ok(value) => encode_result(&wrap(value)),
        Err(error) => Err(error.into_rpc_error()),
    }
}

/// A tool's outcome: the handler's result encoded through `wrap`, its error an `isError`
/// result.
#[inline(always)]
pub fn tool_reply<T, W: Serialize>(
    result: Result<T, Error>,
    wrap: impl FnOnce(T) -> W,
) -> ToolOutcome {
    match result {
        Ok(value) => ToolOutcome::from_result(Ok(&wrap(value))),
        Err(error) => ToolOutcome::Failed(error),
    }
}

/// A prompt's result: the handler's value as one user text message under the prompt's
/// `description`.
#[inline(always)]
pub fn prompt_reply<T, W: Serialize>(
    description: Option<&str>,
    result: Result<T, Error>,
    wrap: impl FnOnce(T) -> W,
) -> Reply {
    match result {
        Ok(value) => crate::dispatch::prompt_result(description, &wrap(value)),
        Err(error) => Err(error.into_mcp_error()),
    }
}

/// A `resources/read` result: the handler's value as the resource's text (`mime_type`, or
/// `text/plain` for a string and `application/json` for any other value).
#[inline(always)]
pub fn resource_reply<T, W: Serialize>(
    uri: &str,
    mime_type: Option<&str>,
    result: Result<T, Error>,
    wrap: impl FnOnce(T) -> W,
) -> Reply {
    match result {
        Ok(value) => crate::dispatch::resource_result(uri, mime_type, &wrap(value)),
        Err(error) => Err(error.into_mcp_error()),
    }
}

/// A prompt's or a resource's result that the handler built itself (`x-mcp.output: "mcp"`).
#[inline(always)]
pub fn mcp_reply<T: Serialize>(result: Result<T, Error>) -> Reply {
    match result {
        Ok(value) => encode_result(&value),
        Err(error) => Err(error.into_mcp_error()),
    }
}

/// A descriptor's text for each of the four revisions ([`crate::Descriptor::json`], oldest
/// first) from `texts`, the last of which also serves every later revision: a text that later
/// revisions publish unchanged is stored once (`revisions([a, b])` is `[a, b, b, b]`).
pub const fn revisions<const N: usize>(texts: [&'static str; N]) -> [&'static str; 4] {
    let mut out = [""; 4];
    let mut i = 0;
    while i < 4 {
        out[i] = if i < N { texts[i] } else { texts[N - 1] };
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn revisions_repeat_the_last_text() {
        assert_eq!(super::revisions(["a"]), ["a"; 4]);
        assert_eq!(super::revisions(["a", "b", "c"]), ["a", "b", "c", "c"]);
        assert_eq!(super::revisions(["a", "b", "c", "d"]), ["a", "b", "c", "d"]);
    }
}
