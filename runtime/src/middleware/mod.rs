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

use serde_json::Value;

use crate::dispatch::{BoxFuture, Dispatch};
use crate::error::Error;
use crate::jsonrpc::RpcError;

mod client;
mod layered;

pub use crate::dispatch::{Answer, Call, CallKind};
pub use client::{ClientNext, ClientRequest};
pub(crate) use layered::as_target;
pub use layered::{Layered, WithMiddleware};

/// The user's code around every call: see the [module](self).
pub trait Middleware: Send + Sync + 'static {
    /// Runs around `call`: pass it on with `next.run(call).await` (the handler's answer, which
    /// may be read or replaced), or answer without passing it on.
    fn call<'a>(&'a self, call: Call<'a>, next: Next<'a>) -> BoxFuture<'a, Answer>;

    /// Runs around each request the handler of a wrapped call sends to the client
    /// (`elicitation/create`, `sampling/createMessage`, `roots/list`, through
    /// [`RequestContext::request_client`](crate::RequestContext::request_client) and its helpers): pass it on with
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
        if !call.rewritten() {
            return self.routed;
        }
        drop(self.routed);
        let inner = self.inner;
        Box::pin(async move {
            let (kind, name, arguments, ctx) = call.into_parts();
            let again = inner.call(Call::new(kind, name, arguments.as_deref(), ctx));
            match again {
                Some(future) => future.await,
                None => Answer::Refused(RpcError::internal(
                    "the call was rewritten to one the server does not know",
                )),
            }
        })
    }
}
