//! What a generated server's glue calls, imported whole at the top of the generated module
//! (`use mcp_runtime::generated_support::*;`): the runtime's names it uses, short, and the
//! helpers of each kind of dispatch, so that each method's dispatch is a few lines.
//!
//! A method's dispatch (in its own module, `dispatch::add`) is one call: a helper decodes the
//! params ([`method_params`]; a tool's arguments: [`tool_arguments`]; a prompt's:
//! [`prompt_arguments`]; a resource template's variables: [`template_vars`]; `valid_` before
//! the name when the params have checks beyond serde's), [`then_reply`] ([`then_tool`]) hands
//! them to a closure whose `async` block calls the handler, and a helper encodes its result
//! ([`reply`], [`tool_reply`], [`prompt_reply`], [`resource_reply`]):
//!
//! ```rust,ignore
//! encoded!(types::AddResult);
//! pub(crate) fn call_method<'a, H: Handler>(
//!     server: &'a Server<H>,
//!     params: Params<'a>,
//!     ctx: RequestContext,
//! ) -> AnswerFuture<'a> {
//!     then_reply(method_params(params, ParamStructure::Either), move |params| async move {
//!         reply(server.handler.add(&ctx, params).await, Encoded)
//!     })
//! }
//! ```
//!
//! When the generated code is a crate of its own (`--generated-crate`), the decoding and the
//! encoding of a result of generated type are the method's non-generic functions instead, and
//! the generic function is a shim that calls them:
//!
//! ```rust,ignore
//! fn decode_method(params: Params<'_>) -> Result<types::AddParams, RpcError> {
//!     method_params(params, ParamStructure::Either)
//! }
//! fn encode_method(result: Result<types::AddResult, Error>) -> Answer {
//!     reply(result, Encoded)
//! }
//! // call_method: then_reply(decode_method(params), .. encode_method(..) ..)
//! ```
//!
//! Why the pieces are where they are (they keep the rebuilds short, and the request path what
//! it was):
//!
//! - In a generated crate of its own, the params' and the result's serde code is instantiated
//!   in the non-generic `decode_*` and `encode_*` functions, so it is compiled once, in that
//!   crate; only the shim is instantiated where the handler's type is known. A change to the
//!   contract compiles the changed methods' serde code in the generated crate, and the crate
//!   that implements the handler compiles only the shims again (BENCHMARKS.md, "The edit loop
//!   of a large contract"). In the default layout the generated code is modules of the
//!   handler's crate, which compiles it all after any change anyway: the split gains nothing
//!   there (measured), so the generator does not write it.
//! - The `decode_*` and `encode_*` functions are plain functions, called across the two crates
//!   in every build: that call is not measurable on the request path (BENCHMARKS.md, "Build
//!   times"), and an `#[inline]` one would be compiled again in the handler's crate. Either
//!   way each dispatch is monomorphic code: no `dyn` call, no `serde_json::Value`, one boxed
//!   future per call.
//! - The helpers here are `#[inline(always)]`: rustc compiles a copy into the caller's codegen
//!   unit, the method's own module, rather than into the one unit named for this module that
//!   every method would share (and that a change to any method's types would compile again).
//! - The `async` block is the generated code's own (a future's code goes where its block is
//!   written), and so is the result's wrapper, [`encoded!`]'s `Encoded`: the generic encoders
//!   (`encode_result`, `Answer::json`, ...) are instantiated with it, a type whose
//!   name stays the same when the result's schema changes, so their shared code is not
//!   compiled again then. A result of built-in type (`i64`, `String`) needs none: [`as_is`],
//!   inline in the shim.
//!
//! Nothing here is meant to be called by hand; the names may change with the generator.

use serde::de::DeserializeOwned;
use serde::Serialize;

pub use crate::dispatch::encode_result;
pub use crate::dispatch::{Answer, Call, CallKind};
/// The resource template of a kept result's pages, after a contract's own templates when a
/// tool has a result budget.
pub use crate::result_budget::PAGES as RESULT_PAGES;
pub use crate::skills::Skill;
pub use crate::uri_template::match_uri;
pub use crate::validate::Validate;
pub use crate::{
    BoxFuture, Catalog, CompletionKind, CompletionRequest, Contract, Dispatch, Error,
    ParamStructure, RequestContext, RpcError,
};
pub use serde_json::value::RawValue;
pub use std::future::Future;

/// The plain JSON-RPC call of `method`, which opens a subscription at the upstream: refused
/// (`-32601`), since one answer cannot carry its notifications; its MCP resource `template`
/// can (`resources/subscribe`).
pub fn subscription_call(method: &str, template: &str) -> AnswerFuture<'static> {
    Box::pin(std::future::ready(Answer::Refused(RpcError::new(
        crate::jsonrpc::METHOD_NOT_FOUND,
        format!(
            "Method not found: {method} opens a subscription, which one answer cannot carry; subscribe to its MCP resource instead (resources/subscribe of {template})"
        ),
    ))))
}

/// A method's `params`, or a call's `arguments`, as they came (absent: `None`).
pub type Params<'a> = Option<&'a RawValue>;

/// The future of a call's [`Answer`].
pub type AnswerFuture<'a> = BoxFuture<'a, Answer>;

/// A resource template's variables, as [`match_uri`] found them in the URI.
pub type UriVars = Vec<(&'static str, String)>;

/// Defines `Encoded`, the wrapper a method's result is encoded through (see the [module
/// docs](crate::generated_support)): `mcp_runtime::encoded!(types::Pet);` in the method's own
/// module, then [`reply`]`(result, Encoded)`.
#[macro_export]
#[doc(hidden)]
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

/// A plain JSON-RPC method's `params` decoded in `structure` (`-32602` when they do not
/// decode): what a method's non-generic `decode_method` calls (see [`then_reply`]).
#[inline(always)]
pub fn method_params<P: DeserializeOwned>(
    params: Params<'_>,
    structure: ParamStructure,
) -> Result<P, RpcError> {
    crate::dispatch::decode_params(params, structure)
}

/// [`method_params`], the params then checked against the schema's rules that serde does not
/// check.
#[inline(always)]
pub fn valid_method_params<P: DeserializeOwned + Validate>(
    params: Params<'_>,
    structure: ParamStructure,
) -> Result<P, RpcError> {
    crate::dispatch::decode_valid_params(params, structure)
}

/// A tool's `arguments` decoded (the message of arguments that do not decode is the tool's
/// error: [`then_tool`]).
#[inline(always)]
pub fn tool_arguments<P: DeserializeOwned>(arguments: Params<'_>) -> Result<P, String> {
    crate::dispatch::decode_arguments(arguments).map_err(arguments_message)
}

/// [`tool_arguments`], the arguments then checked against the schema's rules that serde does
/// not check.
#[inline(always)]
pub fn valid_tool_arguments<P: DeserializeOwned + Validate>(
    arguments: Params<'_>,
) -> Result<P, String> {
    crate::dispatch::decode_valid_arguments(arguments).map_err(arguments_message)
}

/// A prompt's `arguments` decoded (`-32602` when they do not decode).
#[inline(always)]
pub fn prompt_arguments<P: DeserializeOwned>(arguments: Params<'_>) -> Result<P, RpcError> {
    crate::dispatch::decode_arguments(arguments).map_err(|error| invalid_arguments(&error))
}

/// [`prompt_arguments`], the arguments then checked against the schema's rules that serde does
/// not check.
#[inline(always)]
pub fn valid_prompt_arguments<P: DeserializeOwned + Validate>(
    arguments: Params<'_>,
) -> Result<P, RpcError> {
    crate::dispatch::decode_valid_arguments(arguments).map_err(|error| invalid_arguments(&error))
}

/// A resource template's variables, as [`match_uri`] found them in the URI, decoded as the
/// params (those named in `json_vars`, integer, number or boolean params, parsed as JSON; the
/// others taken as strings).
#[inline(always)]
pub fn template_vars<P: DeserializeOwned>(
    vars: UriVars,
    json_vars: &[&str],
) -> Result<P, RpcError> {
    crate::dispatch::template_params(vars, json_vars)
}

/// [`template_vars`], the params then checked against the schema's rules that serde does not
/// check.
#[inline(always)]
pub fn valid_template_vars<P: DeserializeOwned + Validate>(
    vars: UriVars,
    json_vars: &[&str],
) -> Result<P, RpcError> {
    let params = crate::dispatch::template_params::<P>(vars, json_vars)?;
    match crate::validate::check(&params) {
        Ok(()) => Ok(params),
        Err(message) => Err(RpcError::invalid_params(format!(
            "Invalid params: {message}"
        ))),
    }
}

/// The generic half of a method's, a prompt's or a resource template's dispatch (see the
/// [module docs](crate::generated_support)): `call`'s future on the params `decoded` holds,
/// boxed, or its error at once.
#[inline(always)]
pub fn then_reply<'a, P, F: Future<Output = Answer> + Send + 'a>(
    decoded: Result<P, RpcError>,
    call: impl FnOnce(P) -> F,
) -> AnswerFuture<'a> {
    match decoded {
        Ok(params) => Box::pin(call(params)),
        Err(error) => Box::pin(std::future::ready(Answer::Refused(error))),
    }
}

/// [`then_reply`] for a tool: arguments that did not decode are the tool's error, not the
/// protocol's ([`Answer::InvalidArguments`]).
#[inline(always)]
pub fn then_tool<'a, P, F: Future<Output = Answer> + Send + 'a>(
    decoded: Result<P, String>,
    call: impl FnOnce(P) -> F,
) -> AnswerFuture<'a> {
    match decoded {
        Ok(params) => Box::pin(call(params)),
        Err(message) => Box::pin(std::future::ready(Answer::InvalidArguments(message))),
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
pub fn reply<T, W: Serialize>(result: Result<T, Error>, wrap: impl FnOnce(T) -> W) -> Answer {
    Answer::from_reply(match result {
        Ok(value) => encode_result(&wrap(value)),
        Err(error) => Err(error.into_rpc_error()),
    })
}

/// A tool's answer: the handler's result encoded through `wrap`, its error an `isError`
/// result.
#[inline(always)]
pub fn tool_reply<T, W: Serialize>(result: Result<T, Error>, wrap: impl FnOnce(T) -> W) -> Answer {
    match result {
        Ok(value) => Answer::json(&wrap(value)),
        Err(error) => Answer::Failed(error),
    }
}

/// A prompt's result: the handler's value as one user text message under the prompt's
/// `description`.
#[inline(always)]
pub fn prompt_reply<T, W: Serialize>(
    description: Option<&str>,
    result: Result<T, Error>,
    wrap: impl FnOnce(T) -> W,
) -> Answer {
    Answer::from_reply(match result {
        Ok(value) => crate::dispatch::prompt_result(description, &wrap(value)),
        Err(error) => Err(error.into_mcp_error()),
    })
}

/// A `resources/read` result: the handler's value as the resource's text (`mime_type`, or
/// `text/plain` for a string and `application/json` for any other value).
#[inline(always)]
pub fn resource_reply<T, W: Serialize>(
    uri: &str,
    mime_type: Option<&str>,
    result: Result<T, Error>,
    wrap: impl FnOnce(T) -> W,
) -> Answer {
    Answer::from_reply(match result {
        Ok(value) => crate::dispatch::resource_result(uri, mime_type, &wrap(value)),
        Err(error) => Err(error.into_mcp_error()),
    })
}

/// A prompt's or a resource's result that the handler built itself (`x-mcp.output: "mcp"`).
#[inline(always)]
pub fn mcp_reply<T: Serialize>(result: Result<T, Error>) -> Answer {
    Answer::from_reply(match result {
        Ok(value) => encode_result(&value),
        Err(error) => Err(error.into_mcp_error()),
    })
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
