//! [`McpServer`]: a generated [`Dispatch`] with its configuration and stores, the handle the
//! transports serve ([`McpServer::serve`] for HTTP, [`crate::stdio::serve_stdio`]) and the
//! application keeps (its [`Notifier`]).

use std::sync::Arc;

use crate::config::Config;
use crate::delivery::notifier::Notifier;
use crate::dispatch::Dispatch;
use crate::engine::Engine;
pub use crate::load::Load;
use crate::session::SessionStore;
use crate::stores::Stores;

/// A generated server with its configuration and sessions: what the transports serve.
///
/// Cheap to clone (it is an `Arc`).
pub struct McpServer<D> {
    pub(crate) engine: Arc<Engine<D>>,
}

impl<D> Clone for McpServer<D> {
    fn clone(&self) -> Self {
        Self {
            engine: self.engine.clone(),
        }
    }
}

impl<D: Dispatch> McpServer<D> {
    /// Serves `dispatch` (a generated `Server<H>`) with the default [`Config`].
    pub fn new(dispatch: D) -> Self {
        Self::with_config(dispatch, Config::default())
    }

    /// Serves `dispatch` with `config`, keeping everything in memory ([`Stores::memory`]).
    pub fn with_config(dispatch: D, config: Config) -> Self {
        let stores = Stores::memory(&config);
        Self::with_stores(dispatch, config, stores)
    }

    /// Serves `dispatch` with `config`, keeping sessions in `store` (tasks in memory).
    pub fn with_store(dispatch: D, config: Config, store: Arc<dyn SessionStore>) -> Self {
        let stores = Stores::memory(&config).with_sessions(store);
        Self::with_stores(dispatch, config, stores)
    }

    /// Serves `dispatch` with `config` and `stores` (shared ones for several instances:
    /// [`crate::stores`]).
    pub fn with_stores(dispatch: D, config: Config, stores: Stores) -> Self {
        Self {
            engine: Arc::new(Engine::new(dispatch, config, stores)),
        }
    }

    /// The same dispatch and configuration with other `stores`, unless the server was cloned
    /// (then it is given back).
    #[cfg_attr(not(feature = "redis"), allow(dead_code))]
    pub(crate) fn rebuilt_with(self, stores: Stores) -> Result<Self, Self> {
        match Arc::try_unwrap(self.engine) {
            Ok(engine) => {
                let (dispatch, config) = engine.into_parts();
                Ok(Self::with_stores(dispatch, config, stores))
            }
            Err(engine) => Err(Self { engine }),
        }
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        self.engine.config()
    }

    /// The handle to announce list changes and resource updates.
    pub fn notifier(&self) -> Notifier {
        self.engine.notifier().clone()
    }

    /// The session store.
    pub fn sessions(&self) -> &Arc<dyn SessionStore> {
        self.engine.sessions()
    }

    /// The generated dispatch.
    pub fn dispatch(&self) -> &D {
        self.engine.dispatch()
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
    /// (one lock each, through [`SessionStore::for_each`]): cheap for a scrape every few
    /// seconds, not meant for every request.
    pub fn load(&self) -> Load {
        let mut load = self.engine.load();
        self.engine.sessions().for_each(&mut |session| {
            load.in_flight += session.in_flight();
            load.pending_client_requests += session.pending_client_requests();
            let streams = session.streams();
            load.replay_events += streams.window_len();
            load.replay_streams += streams.tracked_streams();
        });
        load
    }
}
