//! [`McpServer`]: a generated [`Dispatch`] with its configuration and stores, the handle the
//! transports serve ([`McpServer::serve`] and [`McpServer::handle`] for HTTP,
//! [`crate::stdio::serve_stdio`]) and the application keeps (its [`Notifier`]). Every public
//! method is here; what HTTP does with a request is [`crate::http`]'s `Endpoint`.

use http::{Request, Response};
use std::convert::Infallible;
use std::future::Future;
use std::sync::Arc;
use tokio::net::{TcpListener, ToSocketAddrs};

use crate::config::Config;
use crate::delivery::notifier::Notifier;
use crate::dispatch::{BoxFuture, Dispatch};
use crate::engine::Engine;
use crate::http::{Body, Endpoint};
pub use crate::lifecycle::load::Load;
use crate::stores::Stores;

/// A generated server with its configuration and sessions: what the transports serve.
///
/// Cheap to clone (it is an `Arc`).
pub struct McpServer<D> {
    /// The HTTP endpoint, which owns the engine the other transports use too.
    http: Endpoint<D>,
}

impl<D> Clone for McpServer<D> {
    fn clone(&self) -> Self {
        Self {
            http: self.http.clone(),
        }
    }
}

impl<D> McpServer<D> {
    /// The engine every transport hands its messages to.
    pub(crate) fn engine(&self) -> &Arc<Engine<D>> {
        &self.http.engine
    }

    /// The engine, to change while nothing else holds it (`None` once the server was cloned).
    #[cfg_attr(not(feature = "redis"), allow(dead_code))]
    pub(crate) fn engine_mut(&mut self) -> Option<&mut Engine<D>> {
        Arc::get_mut(&mut self.http.engine)
    }
}

impl<D: Dispatch> McpServer<D> {
    /// Serves `dispatch` (a generated `Server<H>`) with the default [`Config`], keeping
    /// everything in memory: `McpServer::builder(dispatch).build()`.
    pub fn new(dispatch: D) -> Self {
        Self::builder(dispatch).build()
    }

    /// A server for `dispatch` with a configuration or stores of one's own:
    ///
    /// ```
    /// use mcp_runtime::{Config, Dispatch, McpServer};
    ///
    /// fn server<D: Dispatch>(dispatch: D) -> McpServer<D> {
    ///     McpServer::builder(dispatch)
    ///         .config(Config::builder().max_sessions(1_000).build())
    ///         .build()
    /// }
    /// ```
    pub fn builder(dispatch: D) -> McpServerBuilder<D> {
        McpServerBuilder {
            dispatch,
            config: Config::default(),
            stores: None,
        }
    }

    /// The same dispatch and configuration with other `stores`, unless the server was cloned
    /// (then it is given back).
    #[cfg_attr(not(feature = "redis"), allow(dead_code))]
    pub(crate) fn rebuilt_with(self, stores: Stores) -> Result<Self, Self> {
        match Arc::try_unwrap(self.http.engine) {
            Ok(engine) => {
                let (dispatch, config) = engine.into_parts();
                Ok(Self::builder(dispatch)
                    .config(config)
                    .stores(stores)
                    .build())
            }
            Err(engine) => Err(Self {
                http: Endpoint { engine },
            }),
        }
    }

    /// Serves the MCP endpoint on `addr` until SIGTERM or Ctrl-C, then shuts down gracefully
    /// (see [`McpServer::serve_listener`]).
    pub async fn serve(self, addr: impl ToSocketAddrs) -> std::io::Result<()> {
        let listener = TcpListener::bind(addr).await?;
        self.serve_listener(listener, crate::lifecycle::shutdown::signal())
            .await
    }

    /// Serves on `listener` until `shutdown` completes, then shuts down gracefully: marks the
    /// server [`NotReady::Draining`](crate::http::NotReady::Draining), ends the standalone and
    /// listen SSE streams cleanly, lets running requests answer (new connections get only the
    /// probes, anything else 503; none are accepted when both probes are off), and returns
    /// once every connection closed or [`config.transport.shutdown_grace`] passed. Expired sessions
    /// are evicted in the background.
    ///
    /// [`config.transport.shutdown_grace`]: crate::config::Transport::shutdown_grace
    pub async fn serve_listener(
        self,
        listener: TcpListener,
        shutdown: impl Future<Output = ()>,
    ) -> std::io::Result<()> {
        self.http.serve_listener(listener, shutdown).await
    }

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
        self.http.handle(request)
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        self.engine().config()
    }

    /// The handle to announce list changes and resource updates.
    pub fn notifier(&self) -> Notifier {
        self.engine().notifier().clone()
    }

    /// Calls `f` with each live session (for tests: a session's memory is freed once it ends).
    #[doc(hidden)]
    pub fn for_each_session(&self, f: &mut dyn FnMut(&Arc<crate::session::Session>)) {
        self.engine().sessions().store().for_each(f);
    }

    /// The generated dispatch.
    pub fn dispatch(&self) -> &D {
        self.engine().dispatch()
    }

    /// [`McpServer::load`] as a function of its own (a clone of the server inside): what a
    /// metrics endpoint reads at each scrape.
    pub fn load_source(&self) -> impl Fn() -> Load + Clone + Send + Sync + 'static {
        let server = self.clone();
        move || server.load()
    }

    /// What the server holds right now: sessions, the requests they run and wait on, listen
    /// streams and SSE replay bookkeeping (see [`Load`]).
    ///
    /// For health endpoints, metrics and leak checks: an idle server's load is
    /// [`Load::is_idle`] once its sessions ended or expired. It visits every live session
    /// (one lock each, through `SessionStore::for_each`): cheap for a scrape every few
    /// seconds, not meant for every request.
    pub fn load(&self) -> Load {
        let mut load = self.engine().load();
        self.engine().sessions().store().for_each(&mut |session| {
            load.in_flight += session.in_flight();
            load.pending_client_requests += session.pending_client_requests();
            let streams = session.streams();
            load.replay_events += streams.window_len();
            load.replay_streams += streams.tracked_streams();
        });
        load
    }
}

/// Builds an [`McpServer`] ([`McpServer::builder`]): its [`Config`] (by default
/// [`Config::default`]) and where it keeps its state (by default in memory,
/// [`Stores::memory`]).
#[must_use]
pub struct McpServerBuilder<D> {
    dispatch: D,
    config: Config,
    stores: Option<Stores>,
}

impl<D: Dispatch> McpServerBuilder<D> {
    /// The configuration.
    pub fn config(mut self, config: Config) -> Self {
        self.config = config;
        self
    }

    /// The stores: sessions, tasks, the bus and the event log (shared ones for several
    /// instances: [`crate::stores`]).
    pub fn stores(mut self, stores: Stores) -> Self {
        self.stores = Some(stores);
        self
    }

    /// The server.
    pub fn build(self) -> McpServer<D> {
        let stores = match self.stores {
            Some(stores) => stores,
            None => Stores::memory(&self.config),
        };
        McpServer {
            http: Endpoint {
                engine: Arc::new(Engine::new(self.dispatch, self.config, stores)),
            },
        }
    }
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
        self.engine().start_expiry();
        Box::pin(self.http.clone().serve_embedded(request))
    }
}
