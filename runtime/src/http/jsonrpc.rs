//! The plain JSON-RPC endpoint (opt-in,
//! [`config.endpoints.jsonrpc_path`](crate::config::Endpoints::jsonrpc_path)): every method of the
//! contract, with or without `x-mcp`, as ordinary JSON-RPC 2.0 over HTTP POST, and `rpc.discover`
//! answering the OpenRPC document the server was generated from.
//!
//! No MCP here: no session, no protocol version, no `_meta`. A message is read by the same
//! reader as `/mcp` (`engine::incoming`, its params kept raw), behind the same Host/Origin
//! checks (done by `route` before it gets here) and within the same body limits; its method is
//! called through the one call seam (`Engine::run`, a [`CallKind::Method`] call), whose generated
//! dispatch decodes the params by name or by position as the document says. The handler gets a detached context: it cannot send anything
//! to the client.
//!
//! Answers:
//! - a request: `200` with its response (the handler's typed result as `result`, or `error`);
//! - a notification: run, then `204` with no body (whatever the method answered);
//! - a batch: its elements run concurrently (in the connection's task, as many at once as the
//!   batch holds), `200` with the array of the requests' responses in the order of the
//!   requests (the notifications add none); `204` when it held only notifications;
//! - a body that is not JSON (`-32700`) or not a JSON-RPC message (`-32600`): `400`;
//! - a method the contract does not have: `-32601`; params that do not decode: `-32602`.

use http::{Method, Response, StatusCode};
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::sync::Arc;

use super::body::Body;
use super::headers::Headers;
use super::request_body::{self, Accepts};
use super::response::{json_response, method_not_allowed, rpc_error, status_only};
use super::Endpoint;
use crate::auth::Principal;
use crate::context::RequestContext;
use crate::dispatch::{Call, CallKind, Dispatch, Door};
use crate::engine::incoming::{self, Incoming, Request};
use crate::jsonrpc::{self, error_response, success_response, RpcError};
use crate::panic::CatchUnwind;
use crate::telemetry::TraceHeaders;

/// The method answering the OpenRPC document (OpenRPC service discovery).
const DISCOVER: &str = "rpc.discover";

impl<D: Dispatch> Endpoint<D> {
    /// Answers one HTTP request to the plain JSON-RPC path, whose Host and Origin were checked.
    pub(super) async fn plain_jsonrpc<B>(
        &self,
        method: &Method,
        headers: &Headers<'_>,
        body: B,
    ) -> Response<Body>
    where
        B: http_body::Body + Send,
        B::Data: Send,
        B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        if method != Method::POST {
            return method_not_allowed("POST");
        }
        let config = self.engine.config();
        let bytes = match request_body::read_post(headers, body, config, Accepts::JsonIfSent).await
        {
            Ok(bytes) => bytes,
            Err(refused) => return refused,
        };
        let text = match request_body::text(&bytes) {
            Ok(text) => text,
            Err(refused) => return *refused,
        };
        if let (Some(principal), Some(auth)) = (&headers.principal, &self.engine.config().auth) {
            let engine = &self.engine;
            if let Some(refused) = super::auth::plain_scope_refusal(engine, auth, principal, text) {
                return refused;
            }
        }
        if self.engine.has_rate_limits() {
            let principal = headers.principal.as_deref();
            let refused = if self.engine.limits_shared() {
                let caller = headers.caller();
                let door = Door::Jsonrpc;
                Box::pin(
                    self.engine
                        .shared_rate_refusal(caller, principal, text, door),
                )
                .await
            } else {
                self.engine
                    .plain_rate_refusal(headers.caller(), principal, text)
            };
            if let Some(refused) = refused {
                return super::response::rate_limited(&refused);
            }
        }
        if incoming::is_batch(text) {
            return self
                .plain_batch(text, headers.principal.as_ref(), headers.trace())
                .await;
        }
        match incoming::read_plain(text) {
            Err(error) => rpc_error(StatusCode::BAD_REQUEST, error, None),
            Ok(Incoming::Response { id, .. }) => {
                rpc_error(StatusCode::BAD_REQUEST, not_a_call(), Some(id))
            }
            Ok(message) => match self
                .plain_message(message, headers.principal.as_ref(), headers.trace())
                .await
            {
                Some(answer) => json_response(StatusCode::OK, answer),
                None => status_only(StatusCode::NO_CONTENT),
            },
        }
    }

    /// A batch: its elements run concurrently; the requests' responses as one array in the
    /// order of the requests, or `204` when nothing in it asks for an answer.
    async fn plain_batch(
        &self,
        text: &str,
        principal: Option<&Arc<Principal>>,
        trace_headers: TraceHeaders<'_>,
    ) -> Response<Body> {
        let config = self.engine.config();
        let messages = match incoming::read_batch(text).and_then(|messages| {
            incoming::check_batch_len(&messages, config.streams.max_batch_len).map(|()| messages)
        }) {
            Ok(messages) => messages,
            Err(error) => return rpc_error(StatusCode::BAD_REQUEST, error, None),
        };
        // Concurrently, in this task (no spawning), at most `batch_concurrency` at once;
        // answers in the order of the requests.
        use futures_util::StreamExt;
        // Collected first: a closure held across the await would not be provably `Send`.
        let elements: Vec<crate::dispatch::BoxFuture<'_, Option<String>>> = messages
            .iter()
            .map(|message| self.plain_element(message.get(), principal, trace_headers))
            .collect();
        let answers: Vec<Option<String>> = futures_util::stream::iter(elements)
            .buffered(config.streams.batch_concurrency.max(1))
            .collect()
            .await;
        let answers: Vec<String> = answers.into_iter().flatten().collect();
        if answers.is_empty() {
            return status_only(StatusCode::NO_CONTENT);
        }
        json_response(StatusCode::OK, format!("[{}]", answers.join(",")))
    }

    /// One element of a plain batch, boxed (batches are rare).
    fn plain_element<'a>(
        &'a self,
        text: &'a str,
        principal: Option<&'a Arc<Principal>>,
        trace_headers: TraceHeaders<'a>,
    ) -> crate::dispatch::BoxFuture<'a, Option<String>> {
        Box::pin(async move {
            match incoming::read_plain(text) {
                Err(error) => Some(error_response(None, &error)),
                Ok(message) => self.plain_message(message, principal, trace_headers).await,
            }
        })
    }

    /// One message: a request's response, or `None` for a notification (run all the same).
    async fn plain_message(
        &self,
        message: Incoming<'_>,
        principal: Option<&Arc<Principal>>,
        trace_headers: TraceHeaders<'_>,
    ) -> Option<String> {
        match message {
            Incoming::Request(Request { id, method, params }) => Some(
                match self
                    .traced_call(method, Some(id), params.raw(), principal, trace_headers)
                    .await
                {
                    Ok(result) => success_response(id, &result),
                    Err(error) => error_response(Some(id), &error),
                },
            ),
            Incoming::Notification { method, params } => {
                if let Err(error) = self
                    .traced_call(method, None, params, principal, trace_headers)
                    .await
                {
                    tracing::debug!(%method, %error, "a notification failed (no one to tell)");
                }
                None
            }
            Incoming::Response { id, .. } => Some(error_response(Some(id), &not_a_call())),
        }
    }

    /// [`plain_call`](Self::plain_call) with its telemetry (feature `trace`): the trace
    /// context from `_meta` or the HTTP headers, for the handler; the `mcp.request` span (era
    /// `jsonrpc`) the call runs in, and its metrics (method `rpc.discover`, else `jsonrpc`: a
    /// label never takes a name the client sent).
    async fn traced_call(
        &self,
        method: &str,
        #[cfg_attr(not(feature = "trace"), allow(unused_variables))] id: Option<&RawValue>,
        params: Option<&RawValue>,
        principal: Option<&Arc<Principal>>,
        #[cfg_attr(not(feature = "trace"), allow(unused_variables))] trace_headers: TraceHeaders<
            '_,
        >,
    ) -> Result<Cow<'static, str>, RpcError> {
        let ctx = RequestContext::default()
            .with_principal(principal.cloned())
            .through(Door::Jsonrpc);
        #[cfg(feature = "trace")]
        {
            use crate::telemetry::{start_outside_engine, Transport, PLAIN_JSONRPC_ERA};
            use tracing::Instrument;
            let label = if method == DISCOVER {
                DISCOVER
            } else {
                "jsonrpc"
            };
            let (context, trace) = start_outside_engine(
                method,
                label,
                PLAIN_JSONRPC_ERA,
                Transport::Http,
                id,
                params,
                trace_headers,
            );
            let ctx = ctx.with_trace_context(context);
            if let Some(mut trace) = trace {
                let call = self.plain_call(method, params, ctx);
                let result = match trace.span() {
                    Some(span) => call.instrument(span.clone()).await,
                    None => call.await,
                };
                trace.end(result.as_ref().err());
                return result;
            }
            self.plain_call(method, params, ctx).await
        }
        #[cfg(not(feature = "trace"))]
        self.plain_call(method, params, ctx).await
    }

    /// Calls the contract's method `method` (or `rpc.discover`) with `ctx`: its result as JSON
    /// text.
    async fn plain_call(
        &self,
        method: &str,
        params: Option<&RawValue>,
        ctx: RequestContext,
    ) -> Result<Cow<'static, str>, RpcError> {
        if method == DISCOVER {
            if params.is_some_and(|p| !matches!(p.get().trim(), "[]" | "{}")) {
                return Err(RpcError::invalid_params(
                    "Invalid params: rpc.discover takes no params",
                ));
            }
            return self
                .engine
                .plain_document()
                .map(|document| Cow::Owned(document.to_owned()))
                .ok_or_else(|| RpcError::method_not_found(method));
        }
        // A method MCP does not expose is not served (unless the operator opted in): the same
        // answer as a method the contract does not have.
        let call = Call::new(CallKind::Method, method, params, ctx);
        let call = (self.engine.serves_plain(method))
            .then(|| self.engine.run(call))
            .flatten()
            .ok_or_else(|| RpcError::method_not_found(method))?;
        match CatchUnwind::new(call).await {
            Ok(answer) => answer
                .into_result()
                .map(|raw| Cow::Owned(String::from(Box::<str>::from(raw)))),
            Err(panic) => {
                tracing::error!(%method, %panic, "handler panicked");
                Err(RpcError::internal(format!(
                    "Internal error: the handler of {method} failed unexpectedly"
                )))
            }
        }
    }
}

/// A message with an id but no method: a response, which this endpoint never asked for.
#[cold]
fn not_a_call() -> RpcError {
    RpcError::new(
        jsonrpc::INVALID_REQUEST,
        "Invalid Request: a message without a method (this endpoint sends no requests)",
    )
}
