//! The Streamable HTTP transport: one `/mcp` endpoint (POST, GET, DELETE) for every revision,
//! as a `tower::Service` and as a ready [`McpServer::serve`].
//!
//! This module only frames: it checks headers, reads bodies, decides each request's era and
//! hands it to the engine (`crate::engine`), then writes what comes back as JSON or SSE.
//! `post` routes a message, `session_answer` and `stateless` frame the two eras' answers.
//! `jsonrpc` is the opt-in plain JSON-RPC endpoint ([`crate::config::Endpoints::jsonrpc_path`]),
//! `legacy_sse` the opt-in 2024-11-05 HTTP+SSE transport
//! ([`crate::config::Endpoints::legacy_sse`]).

mod auth;
mod body;
mod get;
pub(crate) mod guard;
mod headers;
mod jsonrpc;
pub mod legacy_sse;
mod listener;
mod peers;
mod post;
pub mod probes;
mod request_body;
mod response;
mod routes;
mod server_card;
mod session_answer;
pub mod stateless;
mod supervisor;

pub use body::Body;
pub use probes::{NotReady, Readiness};

use http::{Method, Request, Response, StatusCode};
use std::convert::Infallible;
use std::future::Future;

use crate::dispatch::{BoxFuture, Dispatch};
use crate::engine::sessions::Refusal;
use crate::jsonrpc::{RpcError, SERVER_ERROR};
use crate::protocol::ProtocolVersion;
use crate::server::McpServer;
use headers::Headers;
use response::{bad_request, method_not_allowed, rpc_error, session_refused, status_only};
use routes::{Mount, Route};

/// The header carrying the session id.
#[doc(hidden)]
pub const SESSION_HEADER: &str = "mcp-session-id";
/// [`SESSION_HEADER`] as a header name, built at compile time.
const SESSION_HEADER_NAME: http::HeaderName = http::HeaderName::from_static(SESSION_HEADER);
/// The header carrying the negotiated protocol version.
#[doc(hidden)]
pub const VERSION_HEADER: &str = "mcp-protocol-version";
#[doc(hidden)]
pub use crate::protocol::ENDPOINT;

impl<D: Dispatch> McpServer<D> {
    /// Answers one HTTP request that the caller's router sent to this service: any path that
    /// is not one of the opt-in endpoints (such as
    /// [`config.endpoints.jsonrpc_path`](crate::Config)) is the MCP endpoint, so the service works
    /// wherever it is mounted.
    pub fn handle<B>(&self, request: Request<B>) -> impl Future<Output = Response<Body>> + '_
    where
        B: http_body::Body + Send + 'static,
        B::Data: Send,
        B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        let (parts, body) = request.into_parts();
        async move { self.route(&parts, body, Mount::Embedded).await }
    }

    /// [`handle`](Self::handle) on an owned server, in the shape a hyper service returns.
    ///
    /// Every request's future is copied into place, so it is kept under 1 KiB: the
    /// request is split before the future is built, and the parts live here once while
    /// `route` borrows them (an `async move` around `handle` would hold the whole request
    /// a second time, next to the inner future).
    fn serve_request<B>(
        self,
        request: Request<B>,
        mount: Mount,
        in_progress: Option<supervisor::InProgress>,
    ) -> impl Future<Output = Result<Response<Body>, Infallible>> + Send + 'static
    where
        B: http_body::Body + Send + 'static,
        B::Data: Send,
        B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        let (parts, body) = request.into_parts();
        async move {
            let response = self.route(&parts, body, mount).await;
            // The connection counts the response as in progress until hyper drops its body.
            Ok(match in_progress {
                Some(in_progress) => response.map(|body| body.watched(in_progress)),
                None => response,
            })
        }
    }

    /// Routes by path and method; checks Host and Origin first.
    async fn route<B>(&self, parts: &http::request::Parts, body: B, mount: Mount) -> Response<Body>
    where
        B: http_body::Body + Send + 'static,
        B::Data: Send,
        B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        // `/mcp` takes one comparison; the other endpoints are looked up only off it. The
        // probes answer before the Host, Origin and token checks: an orchestrator sends its
        // own Host (the pod's address), no Origin and no token.
        let route = if parts.uri.path() == ENDPOINT {
            Route::Mcp
        } else {
            match routes::off_endpoint(parts.uri.path(), self.engine.config(), mount) {
                Route::NotFound => return status_only(StatusCode::NOT_FOUND),
                Route::Health => return self.probe(probes::Probe::Health, &parts.method),
                Route::Ready => return self.probe(probes::Probe::Ready, &parts.method),
                route => route,
            }
        };
        let mut headers = Headers::scan(&parts.headers);
        if self.engine.has_rate_limits() {
            // Set by the runtime's listener while it polls the connection (none embedded).
            headers.peer = crate::rate_limit::current_peer();
        }
        if headers.repeated_authority {
            return refused(guard::Refusal::RepeatedAuthority);
        }
        // The discovery documents are public (CORS `*`): any Origin may read them, but their
        // URLs name the Host, which must be allowed.
        let public = matches!(
            route,
            Route::ServerCard | Route::Catalog | Route::ResourceMetadata
        );
        if let Err(refusal) = guard::check_host_and_origin(
            headers.host,
            if public { None } else { headers.origin },
            &self.engine.config().transport.allowed_hosts,
        ) {
            return refused(refusal);
        }
        if let Some(auth) = &self.engine.config().auth {
            if matches!(route, Route::Mcp | Route::PlainJsonRpc) {
                // Boxed: the authenticator's state stays out of every request's future.
                let proofs = self.engine.shared_proofs();
                match Box::pin(auth::authenticate(auth, parts, proofs)).await {
                    Ok(principal) => headers.principal = Some(principal),
                    Err(response) => return response,
                }
            }
        }
        if let (Some(id), Route::Mcp) = (headers.session_id, route) {
            // A session another instance created: its replica, loaded before anything reads it.
            if let Some(load) = self.engine.load_replica(id) {
                if let Err(error) = load.await {
                    return session_refused(Refusal::Store(error), None);
                }
            }
        }
        // A stream ends when the token it was opened with does.
        let token_expiry = headers.principal.as_deref().and_then(auth::expires_at);
        let response = match route {
            Route::Mcp => match parts.method {
                Method::POST => self.post(&headers, body).await,
                Method::GET => {
                    let shared = self.engine.shares_sessions() || self.engine.event_log().is_some();
                    if shared && get::last_event_id(&headers).is_some() {
                        // Boxed: a resumption that may need Redis or another instance stays
                        // out of every request's future.
                        Box::pin(self.get_shared(&headers)).await
                    } else {
                        self.get(&headers)
                    }
                }
                // Boxed: rare, and a shared store's round trip stays out of every request's
                // future.
                Method::DELETE => Box::pin(self.delete(&headers)).await,
                _ => method_not_allowed("GET, POST, DELETE"),
            },
            // Boxed: the plain endpoint's state stays out of every `/mcp` request's future.
            Route::LegacySse => Box::pin(self.legacy_sse(parts, &headers, body)).await,
            Route::PlainJsonRpc => {
                Box::pin(self.plain_jsonrpc(&parts.method, &headers, body)).await
            }
            Route::ServerCard | Route::Catalog => {
                self.discovery(route, &parts.method, parts.uri.path(), &headers)
            }
            Route::ResourceMetadata => match &self.engine.config().auth {
                Some(auth) => auth::metadata_response(auth, &parts.method),
                None => status_only(StatusCode::NOT_FOUND),
            },
            // Answered above, before any check.
            Route::NotFound | Route::Health | Route::Ready => status_only(StatusCode::NOT_FOUND),
        };
        match token_expiry {
            Some(at) => response.map(|body| body.until(at)),
            None => response,
        }
    }

    /// The answer to a liveness or readiness probe (cold: never on `/mcp`'s path).
    #[cold]
    fn probe(&self, probe: probes::Probe, method: &Method) -> Response<Body> {
        probes::answer(probe, method, &self.engine.config().readiness)
    }

    /// DELETE: ends the session (on every instance, when they share sessions); 405 on the
    /// stateless revision.
    async fn delete(&self, headers: &Headers<'_>) -> Response<Body> {
        if let Some(response) = stateless_only_post(headers) {
            return response;
        }
        let Some(id) = headers.session_id else {
            return bad_request("Bad Request: Mcp-Session-Id header is required");
        };
        match self
            .engine
            .close_session(id, headers.principal.as_deref())
            .await
        {
            Ok(()) => status_only(StatusCode::NO_CONTENT),
            Err(refusal) => session_refused(refusal, None),
        }
    }
}

/// The answer to a request the Host and Origin checks refused: 400 without `Host`, 403 for a
/// host that is not allowed.
#[cold]
fn refused(refusal: guard::Refusal) -> Response<Body> {
    match refusal {
        guard::Refusal::MissingHost => {
            bad_request("Bad Request: a Host header is required (HTTP/1.1)")
        }
        guard::Refusal::RepeatedAuthority => {
            bad_request("Bad Request: Host and Origin may each appear once")
        }
        guard::Refusal::Forbidden(message) => {
            tracing::warn!(%message, "refused request");
            rpc_error(
                StatusCode::FORBIDDEN,
                RpcError::new(SERVER_ERROR, message),
                None,
            )
        }
    }
}

/// 405 for a GET or DELETE of the stateless revision (no session, 2026-07-28 header).
pub(super) fn stateless_only_post(headers: &Headers<'_>) -> Option<Response<Body>> {
    let stateless = headers.session_id.is_none()
        && headers
            .protocol_version
            .and_then(ProtocolVersion::parse)
            .is_some_and(|v| v.is_stateless());
    stateless.then(|| method_not_allowed("POST"))
}

impl<D: Dispatch, B> tower_service::Service<Request<B>> for McpServer<D>
where
    B: http_body::Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    type Response = Response<Body>;
    type Error = Infallible;
    type Future = BoxFuture<'static, Result<Response<Body>, Infallible>>;

    fn poll_ready(
        &mut self,
        _cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), Infallible>> {
        std::task::Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        self.engine.start_expiry();
        Box::pin(self.clone().serve_request(request, Mount::Embedded, None))
    }
}
