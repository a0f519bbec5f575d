//! [`Layered`]: a [`Dispatch`] with a [`Middleware`] around its calls, and the engine's own
//! middleware (the audit records) around the target that runs ([`as_target`]).

use std::borrow::Cow;
use std::sync::Arc;

use super::client::with_client_hooks;
use super::{Answer, Call, CallKind, Middleware, Next};
use crate::catalog::{CompletionKind, CompletionRequest};
use crate::context::RequestContext;
use crate::dispatch::{BoxFuture, Contract, Dispatch};
use crate::error::Error;
use crate::policy::Target;

/// A server with a [`Middleware`] around its calls (see the [module](super)); itself a
/// [`Dispatch`], so layers stack. Made by [`WithMiddleware::layer`].
#[derive(Debug)]
pub struct Layered<D, M> {
    inner: D,
    /// Shared with the calls it wraps while they are polled (their requests to the client).
    middleware: Arc<M>,
}

impl<D, M> Layered<D, M> {
    /// `middleware` around `inner`.
    pub fn new(inner: D, middleware: M) -> Self {
        Self {
            inner,
            middleware: Arc::new(middleware),
        }
    }

    /// The wrapped server.
    pub fn inner(&self) -> &D {
        &self.inner
    }

    /// The middleware.
    pub fn middleware(&self) -> &M {
        &self.middleware
    }
}

/// [`layer`](Self::layer) for every [`Dispatch`] (a generated `Server<H>`, or an already
/// [`Layered`] one).
pub trait WithMiddleware: Dispatch + Sized {
    /// This server with `middleware` around its calls. The layer added last runs first.
    fn layer<M: Middleware>(self, middleware: M) -> Layered<Self, M> {
        Layered::new(self, middleware)
    }
}

impl<D: Dispatch> WithMiddleware for D {}

/// A call of `inner` through the engine's own `middleware` (audit records), which sees it as
/// the target that runs ([`Target`]: a catalog's `call_tool` as the tool it names, a plain
/// JSON-RPC call as its MCP face with its params named); `None` when `inner` does not know it.
/// `middleware` must not rewrite the arguments: the call is routed already.
pub(crate) fn as_target<'a>(
    middleware: &'a dyn Middleware,
    inner: &'a dyn Dispatch,
    call: Call<'a>,
    target: Target<'a>,
) -> Option<BoxFuture<'a, Answer>> {
    let routed = inner.call(call.as_sent())?;
    let next = Next { routed, inner };
    let kind = match target.method {
        "tools/call" => CallKind::Tool,
        "prompts/get" => CallKind::Prompt,
        "resources/read" => CallKind::Resource,
        "resources/subscribe" => CallKind::Subscribe,
        _ => CallKind::Method,
    };
    let ctx = call.into_context();
    Some(match (&target.key, &target.arguments) {
        (Cow::Borrowed(name), None) => middleware.call(Call::new(kind, name, None, ctx), next),
        (Cow::Borrowed(name), Some(Cow::Borrowed(arguments))) => {
            middleware.call(Call::new(kind, name, Some(arguments), ctx), next)
        }
        // A name or arguments of its own (an escaped catalog name, positional params named):
        // the call borrows them from the future that owns them.
        _ => Box::pin(async move {
            let arguments = target.arguments.as_deref();
            let shown = Call::new(kind, &target.key, arguments, ctx);
            middleware.call(shown, next).await
        }),
    })
}

impl<D: Dispatch, M: Middleware> Dispatch for Layered<D, M> {
    fn contract(&self) -> &'static Contract {
        self.inner.contract()
    }

    fn call<'a>(&'a self, call: Call<'a>) -> Option<BoxFuture<'a, Answer>> {
        // Routed first: a name the server does not know is answered without the middleware.
        let routed = self.inner.call(call.as_sent())?;
        let next = Next {
            routed,
            inner: &self.inner,
        };
        let middleware: Arc<dyn Middleware> = self.middleware.clone();
        Some(with_client_hooks(
            middleware,
            self.middleware.call(call, next),
        ))
    }

    fn complete<'a>(
        &'a self,
        kind: CompletionKind,
        reference: &str,
        argument: &str,
        request: CompletionRequest,
        ctx: RequestContext,
    ) -> Option<BoxFuture<'a, Result<Vec<String>, Error>>> {
        self.inner.complete(kind, reference, argument, request, ctx)
    }
}
