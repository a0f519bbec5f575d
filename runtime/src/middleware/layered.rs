//! [`Layered`]: a [`Dispatch`] with a [`Middleware`] around its calls, and the routes of each
//! kind of call through it (also the engine's own middleware's, the audit records').

use serde_json::value::RawValue;
use std::sync::Arc;

use super::client::with_client_hooks;
use super::{route, Answer, Call, CallKind, Middleware, Next};
use crate::catalog::{CompletionKind, CompletionRequest};
use crate::context::RequestContext;
use crate::dispatch::{BoxFuture, Contract, Dispatch, ToolOutcome};
use crate::error::Error;
use crate::jsonrpc::RpcError;
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

/// The call of `kind`, already `routed` to `inner`, through `middleware`.
fn through<'a>(
    middleware: &'a dyn Middleware,
    inner: &'a dyn Dispatch,
    kind: CallKind,
    name: &str,
    arguments: Option<&'a RawValue>,
    ctx: RequestContext,
    routed: BoxFuture<'a, Answer>,
) -> BoxFuture<'a, Answer> {
    let call = Call {
        kind,
        name: name.to_owned(),
        arguments: arguments.map(std::borrow::Cow::Borrowed),
        replaced: None,
        ctx,
    };
    middleware.call(call, Next { routed, inner })
}

/// A call of `inner`, already `routed`, through `middleware` (the engine's own: audit
/// records), which sees it as the target that runs ([`Target`]: a catalog's `call_tool` as the
/// tool it names, a plain JSON-RPC call as its MCP face with its params named). `middleware`
/// must not rewrite the arguments: the call is routed already.
pub(crate) fn as_target<'a>(
    middleware: &'a dyn Middleware,
    inner: &'a dyn Dispatch,
    target: Target<'a>,
    ctx: RequestContext,
    routed: BoxFuture<'a, Answer>,
) -> BoxFuture<'a, Answer> {
    let kind = match target.method {
        "tools/call" => CallKind::Tool,
        "prompts/get" => CallKind::Prompt,
        "resources/read" => CallKind::Resource,
        _ => CallKind::Method,
    };
    let call = Call {
        kind,
        name: target.key.into_owned(),
        arguments: target.arguments,
        replaced: None,
        ctx,
    };
    middleware.call(call, Next { routed, inner })
}

/// A call with arguments through `middleware`, or `None` when `inner` does not know it;
/// `middleware` sees it as `shown` when given ([`as_target`]).
fn with_arguments<'a>(
    middleware: &'a dyn Middleware,
    inner: &'a dyn Dispatch,
    kind: CallKind,
    name: &str,
    arguments: Option<&'a RawValue>,
    shown: Option<Target<'a>>,
    ctx: RequestContext,
) -> Option<BoxFuture<'a, Answer>> {
    let routed = route(inner, kind, name, arguments, ctx.clone())?;
    Some(match shown {
        Some(target) => as_target(middleware, inner, target, ctx, routed),
        None => through(middleware, inner, kind, name, arguments, ctx, routed),
    })
}

/// `tools/call` of `inner` through `middleware` (also the engine's own middleware's, the audit
/// records', which see it as `shown`).
pub(crate) fn call_tool<'a>(
    middleware: &'a dyn Middleware,
    inner: &'a dyn Dispatch,
    name: &str,
    arguments: Option<&'a RawValue>,
    shown: Option<Target<'a>>,
    ctx: RequestContext,
) -> Option<BoxFuture<'a, ToolOutcome>> {
    let kind = CallKind::Tool;
    let answer = with_arguments(middleware, inner, kind, name, arguments, shown, ctx)?;
    Some(Box::pin(async move { answer.await.into_tool() }))
}

/// `prompts/get` of `inner` through `middleware`.
pub(crate) fn get_prompt<'a>(
    middleware: &'a dyn Middleware,
    inner: &'a dyn Dispatch,
    name: &str,
    arguments: Option<&'a RawValue>,
    ctx: RequestContext,
) -> Option<BoxFuture<'a, Result<Box<RawValue>, RpcError>>> {
    let kind = CallKind::Prompt;
    let answer = with_arguments(middleware, inner, kind, name, arguments, None, ctx)?;
    Some(Box::pin(async move { answer.await.into_result() }))
}

/// A plain JSON-RPC call of `inner` through `middleware` (the audit records see it as
/// `shown`, its MCP face).
pub(crate) fn call_method<'a>(
    middleware: &'a dyn Middleware,
    inner: &'a dyn Dispatch,
    method: &str,
    params: Option<&'a RawValue>,
    shown: Option<Target<'a>>,
    ctx: RequestContext,
) -> Option<BoxFuture<'a, Result<Box<RawValue>, RpcError>>> {
    let kind = CallKind::Method;
    let answer = with_arguments(middleware, inner, kind, method, params, shown, ctx)?;
    Some(Box::pin(async move { answer.await.into_result() }))
}

/// `resources/read` of `inner` through `middleware`.
pub(crate) fn read_resource<'a>(
    middleware: &'a dyn Middleware,
    inner: &'a dyn Dispatch,
    uri: &'a str,
    ctx: RequestContext,
) -> Option<BoxFuture<'a, Result<Box<RawValue>, RpcError>>> {
    let read = inner.read_resource(uri, ctx.clone())?;
    let routed: BoxFuture<'a, Answer> = Box::pin(async move { Answer::of_result(read.await) });
    let answer = through(
        middleware,
        inner,
        CallKind::Resource,
        uri,
        None,
        ctx,
        routed,
    );
    Some(Box::pin(async move { answer.await.into_result() }))
}

impl<D: Dispatch, M: Middleware> Layered<D, M> {
    /// `answer` with this layer around its requests to the client.
    fn hooked<'a, T: 'a>(&self, answer: BoxFuture<'a, T>) -> BoxFuture<'a, T> {
        let middleware: Arc<dyn Middleware> = self.middleware.clone();
        with_client_hooks(middleware, answer)
    }
}

impl<D: Dispatch, M: Middleware> Dispatch for Layered<D, M> {
    fn contract(&self) -> &'static Contract {
        self.inner.contract()
    }

    fn call_method<'a>(
        &'a self,
        method: &str,
        params: Option<&'a RawValue>,
        ctx: RequestContext,
    ) -> Option<BoxFuture<'a, Result<Box<RawValue>, RpcError>>> {
        let answer = call_method(&*self.middleware, &self.inner, method, params, None, ctx)?;
        Some(self.hooked(answer))
    }

    fn call_tool<'a>(
        &'a self,
        name: &str,
        arguments: Option<&'a RawValue>,
        ctx: RequestContext,
    ) -> Option<BoxFuture<'a, ToolOutcome>> {
        let answer = call_tool(&*self.middleware, &self.inner, name, arguments, None, ctx)?;
        Some(self.hooked(answer))
    }

    fn get_prompt<'a>(
        &'a self,
        name: &str,
        arguments: Option<&'a RawValue>,
        ctx: RequestContext,
    ) -> Option<BoxFuture<'a, Result<Box<RawValue>, RpcError>>> {
        let answer = get_prompt(&*self.middleware, &self.inner, name, arguments, ctx)?;
        Some(self.hooked(answer))
    }

    fn read_resource<'a>(
        &'a self,
        uri: &'a str,
        ctx: RequestContext,
    ) -> Option<BoxFuture<'a, Result<Box<RawValue>, RpcError>>> {
        let answer = read_resource(&*self.middleware, &self.inner, uri, ctx)?;
        Some(self.hooked(answer))
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
