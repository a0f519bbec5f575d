//! [`Endpoint`]: the MCP endpoint over HTTP as one type. It owns the engine, routes each
//! request by path and method (the probes first, then the Host, Origin and token checks), and
//! answers `/mcp`'s three methods: [`post`](Endpoint::post), [`get`](Endpoint::get) and
//! [`delete`](Endpoint::delete). What each needs beyond a few lines is a file of its own beside
//! this one, as more `impl Endpoint` blocks: `post` (a message's era, `initialize`, batches),
//! `get` (resuming a stream), `stateless` and `session_answer` (the two eras' answers),
//! `jsonrpc`, `legacy_sse` and `server_card` (the other routes), `listener` (connections).

use http::{Method, Request, Response, StatusCode};
use std::convert::Infallible;
use std::future::Future;

use super::body::Body;
use super::headers::Headers;
use super::request_body::{self, Accepts};
use super::response::{bad_request, method_not_allowed, rpc_error, session_refused, status_only};
use super::routes::{self, Mount, Route};
use super::{auth, get, guard, probes, stateless, supervisor, Endpoint, ENDPOINT};
use crate::dispatch::Dispatch;
use crate::engine::incoming;
use crate::engine::sessions::Refusal;
use crate::jsonrpc::{RpcError, SERVER_ERROR};

impl<D: Dispatch> Endpoint<D> {
    /// `McpServer::handle` on an owned endpoint, in the shape a hyper service returns.
    ///
    /// Every request's future is copied into place, so it is kept under 1 KiB: the
    /// request is split before the future is built, and the parts live here once while
    /// `route` borrows them (an `async move` around `handle` would hold the whole request
    /// a second time, next to the inner future).
    pub(super) fn serve_request<B>(
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

    /// A request the caller's router sent here (`McpServer::handle`): any path that is not one
    /// of the opt-in endpoints is the MCP endpoint.
    pub(crate) fn handle<B>(&self, request: Request<B>) -> impl Future<Output = Response<Body>> + '_
    where
        B: http_body::Body + Send + 'static,
        B::Data: Send,
        B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        let (parts, body) = request.into_parts();
        async move { self.route(&parts, body, Mount::Embedded).await }
    }

    /// [`handle`](Self::handle) on an owned endpoint, for `tower::Service`.
    pub(crate) fn serve_embedded<B>(
        self,
        request: Request<B>,
    ) -> impl Future<Output = Result<Response<Body>, Infallible>> + Send + 'static
    where
        B: http_body::Body + Send + 'static,
        B::Data: Send,
        B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        self.serve_request(request, Mount::Embedded, None)
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
            if let Some(load) = self.engine.sessions().load_replica(id) {
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
                Method::GET => self.get(&headers).await,
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

    /// POST: one JSON-RPC message (or a 2025-03-26 batch), read within the body limit and
    /// routed by its era (`post`'s `route_message`).
    async fn post<B>(&self, headers: &Headers<'_>, body: B) -> Response<Body>
    where
        B: http_body::Body + Send,
        B::Data: Send,
        B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        let config = self.engine.config();
        let bytes = match request_body::read_post(headers, body, config, Accepts::JsonAndSse).await
        {
            Ok(bytes) => bytes,
            Err(refused) => return refused,
        };
        let text = match request_body::text(&bytes) {
            Ok(text) => text,
            Err(refused) => return *refused,
        };
        if incoming::is_batch(text) || self.engine.limits_shared() {
            // Boxed: batches are rare, and shared limits wait for Redis first; their state
            // would grow every request's future (`a_request_future_fits_the_allocator_cache`).
            return Box::pin(self.post_boxed(headers, text)).await;
        }
        // Read and routed in a block of its own: the parsed members are gone before the
        // await, so they never become part of the connection's future.
        let next = match incoming::read(text, stateless::announced_method(headers)) {
            Ok(message) => self.route_message(headers, message),
            Err(error) => return rpc_error(StatusCode::BAD_REQUEST, error, None),
        };
        next.respond().await
    }

    /// What [`post`](Self::post) boxes: a batch, or any body under shared rate limits, which
    /// first asks Redis whether one of its calls is over its limit.
    async fn post_boxed(&self, headers: &Headers<'_>, text: &str) -> Response<Body> {
        if self.engine.limits_shared() {
            if let Some(refused) = self.shared_rate_refusal(headers, text).await {
                return refused;
            }
        }
        if incoming::is_batch(text) {
            return self.batch(headers, text).await;
        }
        match incoming::read(text, stateless::announced_method(headers)) {
            Ok(message) => self.route_message(headers, message).respond().await,
            Err(error) => rpc_error(StatusCode::BAD_REQUEST, error, None),
        }
    }

    /// GET: the session's standalone SSE stream, or the resumption of a broken one (from
    /// the shared event log or the instance holding it, when instances share the sessions);
    /// 405 on the stateless revision.
    async fn get(&self, headers: &Headers<'_>) -> Response<Body> {
        let shared = self.engine.sessions().are_shared() || self.engine.event_log().is_some();
        if shared && get::last_event_id(headers).is_some() {
            // Boxed: a resumption that may need Redis or another instance stays out of every
            // request's future.
            Box::pin(self.resume_shared(headers)).await
        } else {
            self.open_stream(headers)
        }
    }

    /// DELETE: ends the session (on every instance, when they share sessions); 405 on the
    /// stateless revision.
    async fn delete(&self, headers: &Headers<'_>) -> Response<Body> {
        if let Some(response) = stateless::only_post(headers) {
            return response;
        }
        let Some(id) = headers.session_id else {
            return bad_request("Bad Request: Mcp-Session-Id header is required");
        };
        match self
            .engine
            .sessions()
            .close(id, headers.principal.as_deref())
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
