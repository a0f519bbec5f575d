//! The other direction: the server's requests to the client (elicitation, sampling, roots)
//! that a wrapped call's handler sends, through [`Middleware::client_request`] of every layer,
//! innermost first.

use serde_json::Value;
use std::sync::Arc;

use super::Middleware;
use crate::auth::Principal;
use crate::context::{self, ClientHook, RequestContext};
use crate::dispatch::BoxFuture;
use crate::error::Error;

/// A request the server sends to the client on behalf of a wrapped call's handler.
#[derive(Debug)]
pub struct ClientRequest<'a> {
    key: &'a str,
    method: &'a str,
    params: Value,
    ctx: &'a RequestContext,
}

impl ClientRequest<'_> {
    /// The method: `elicitation/create`, `sampling/createMessage`, `roots/list`, ...
    pub fn method(&self) -> &str {
        self.method
    }

    /// The key the handler named the question with (a stateless round's `inputResponses`
    /// key).
    pub fn key(&self) -> &str {
        self.key
    }

    /// The request's params.
    pub fn params(&self) -> &Value {
        &self.params
    }

    /// The params, to rewrite before the request goes on.
    pub fn params_mut(&mut self) -> &mut Value {
        &mut self.params
    }

    /// Who the wrapped call acts for.
    pub fn principal(&self) -> Option<&Principal> {
        self.ctx.principal()
    }

    /// The wrapped call's context.
    pub fn context(&self) -> &RequestContext {
        self.ctx
    }
}

/// The rest of the way to the client: the middleware of outer layers, then the transport.
pub struct ClientNext<'a> {
    outer: Option<&'a dyn ClientHook>,
}

impl std::fmt::Debug for ClientNext<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientNext").finish_non_exhaustive()
    }
}

impl<'a> ClientNext<'a> {
    /// Sends `request` on and answers the client's answer (or what an outer layer answered).
    pub fn run(self, request: ClientRequest<'a>) -> BoxFuture<'a, Result<Value, Error>> {
        let ClientRequest {
            key,
            method,
            params,
            ctx,
        } = request;
        match self.outer {
            Some(hook) => hook.run(ctx, key, method, params),
            None => Box::pin(ctx.to_client(key, method, params)),
        }
    }
}

/// The middleware around a context's requests to the client: this layer's, and the layers
/// outside it. The context finds it through [`context::client_hook`] while the layer's call
/// is polled.
struct ClientHooks {
    middleware: Arc<dyn Middleware>,
    outer: Option<Arc<dyn ClientHook>>,
}

impl ClientHook for ClientHooks {
    /// `method` with `params` through this layer, then the layers outside it, then to the
    /// client.
    fn run<'a>(
        &'a self,
        ctx: &'a RequestContext,
        key: &'a str,
        method: &'a str,
        params: Value,
    ) -> BoxFuture<'a, Result<Value, Error>> {
        let request = ClientRequest {
            key,
            method,
            params,
            ctx,
        };
        let next = ClientNext {
            outer: self.outer.as_deref(),
        };
        self.middleware.client_request(request, next)
    }
}

/// `answer` polled with `middleware` around its requests to the client, inside the layers
/// around the caller.
pub(super) fn with_client_hooks<'a, T: 'a>(
    middleware: Arc<dyn Middleware>,
    answer: BoxFuture<'a, T>,
) -> BoxFuture<'a, T> {
    Box::pin(async move {
        // Read when first polled: inside the layers outside this one, which set theirs then.
        let hooks: Arc<dyn ClientHook> = Arc::new(ClientHooks {
            middleware,
            outer: context::client_hook(),
        });
        context::with_client_hook(hooks, answer).await
    })
}
