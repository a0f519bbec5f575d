//! [`McpServer`]: a generated [`Dispatch`] with its configuration and stores, the handle the
//! transports serve ([`McpServer::serve`] for HTTP, [`crate::stdio::serve_stdio`]) and the
//! application keeps (its [`Notifier`]).

use std::sync::Arc;

use crate::config::Config;
use crate::dispatch::Dispatch;
use crate::engine::Engine;
use crate::notifier::Notifier;
use crate::request_state::{SealingKey, StateSealer, KEY_ENV};
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
        let mut config = config;
        // The contract's scopes are published with the metadata.
        if let Some(auth) = config.auth.take() {
            config.auth = Some(auth.support_scopes(dispatch.scopes_supported()));
        }
        let sealer = sealer(&config);
        Self {
            engine: Arc::new(Engine::new(dispatch, config, stores, sealer)),
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
        &self.engine.config
    }

    /// The handle to announce list changes and resource updates.
    pub fn notifier(&self) -> Notifier {
        self.engine.notifier.clone()
    }

    /// The session store.
    pub fn sessions(&self) -> &Arc<dyn SessionStore> {
        &self.engine.store
    }

    /// The generated dispatch.
    pub fn dispatch(&self) -> &D {
        &self.engine.dispatch
    }

    /// What the server holds right now: sessions, the requests they run and wait on, listen
    /// streams and SSE replay bookkeeping (see [`Load`]).
    ///
    /// For health endpoints, metrics and leak checks: an idle server's load is
    /// [`Load::is_idle`] once its sessions ended or expired. It visits every live session
    /// (one lock each, through [`SessionStore::for_each`]): cheap for a scrape every few
    /// seconds, not meant for every request.
    pub fn load(&self) -> Load {
        let mut load = Load {
            sessions: self.engine.store.len(),
            listen_streams: self.engine.notifier.listen_streams(),
            tasks_held: self.engine.tasks.held(),
            tasks_running: self.engine.tasks.running_here(),
            ..Load::default()
        };
        self.engine.store.for_each(&mut |session| {
            load.in_flight += session.in_flight();
            load.pending_client_requests += session.pending_client_requests();
            let streams = session.streams();
            load.replay_events += streams.window_len();
            load.replay_streams += streams.tracked_streams();
        });
        load
    }
}

/// What an [`McpServer`] holds at one moment ([`McpServer::load`]).
///
/// Each figure is bounded by a [`Config`] setting, named on its field; all are zero on a
/// server with no session, no open listen stream and no task. Read-only: more figures may be added.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Load {
    /// Live sessions in the session store ([`Config::max_sessions`]).
    pub sessions: usize,
    /// Session-era requests running, across sessions: what `notifications/cancelled` can
    /// stop. Stateless (2026-07-28) requests and tasks are not counted.
    pub in_flight: usize,
    /// Server-to-client requests (sampling, elicitation, roots) awaiting the client's answer,
    /// across sessions ([`Config::max_pending_client_requests`] per session).
    pub pending_client_requests: usize,
    /// Open `subscriptions/listen` streams on this instance ([`Config::max_listen_streams`]).
    pub listen_streams: usize,
    /// SSE events kept for `Last-Event-ID` replay, across sessions
    /// ([`Config::replay_window`] per session).
    pub replay_events: usize,
    /// SSE streams whose replay bookkeeping is kept, across sessions: the live ones and the
    /// ended ones with events still in their session's window.
    pub replay_streams: usize,
    /// Tasks held by the task store, finished ones included until [`Config::task_ttl`] ends
    /// ([`Config::max_tasks`]).
    pub tasks_held: usize,
    /// Tasks whose handler runs on this instance.
    pub tasks_running: usize,
}

impl Load {
    /// Whether the server holds nothing: no session, no listen stream, no task (and so
    /// nothing running or kept for them).
    pub fn is_idle(&self) -> bool {
        *self == Self::default()
    }
}

/// The sealer `config` asks for: its keys (else those of [`KEY_ENV`] and
/// `MCP_REQUEST_STATE_PREVIOUS_KEY`; without a current key, a random one, with a warning), its
/// TTL and whether states are single-use.
pub(crate) fn sealer(config: &Config) -> StateSealer {
    let previous = match &config.request_state_previous_key {
        Some(key) => Some(key.clone()),
        None => SealingKey::previous_from_env().unwrap_or_else(|error| {
            tracing::error!(%error, "ignoring the previous requestState key");
            None
        }),
    };
    StateSealer::new(current_key(config), config.request_state_ttl)
        .with_previous(previous)
        .single_use(config.request_state_single_use)
}

/// The configured sealing key, else the environment's, else a random one (with a warning).
fn current_key(config: &Config) -> SealingKey {
    if let Some(key) = &config.request_state_key {
        return key.clone();
    }
    match SealingKey::from_env() {
        Ok(Some(key)) => key,
        Ok(None) => {
            tracing::warn!(
                "{KEY_ENV} (or --request-state-key-file) is not set: requestState is sealed \
                 with a random key, so multi round-trip requests only resume on this instance \
                 and until it restarts"
            );
            SealingKey::random()
        }
        Err(error) => {
            tracing::error!(%error, "ignoring the requestState key; using a random one");
            SealingKey::random()
        }
    }
}
