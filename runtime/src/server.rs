//! [`McpServer`]: a generated [`Dispatch`] with its configuration and stores, the handle the
//! transports serve ([`McpServer::serve`] for HTTP, [`crate::stdio::serve_stdio`]) and the
//! application keeps (its [`Notifier`]).

use std::sync::Arc;

use crate::config::Config;
use crate::dispatch::Dispatch;
use crate::engine::Engine;
use crate::notifier::Notifier;
use crate::request_state::StateSealer;
use crate::session::{MemorySessionStore, SessionStore};
use crate::tasks::{MemoryTaskStore, TaskStore, Tasks};

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

    /// Serves `dispatch` with `config`, keeping sessions in memory.
    pub fn with_config(dispatch: D, config: Config) -> Self {
        let store: Arc<dyn SessionStore> = Arc::new(MemorySessionStore::new(config.max_sessions));
        Self::with_store(dispatch, config, store)
    }

    /// Serves `dispatch` with `config`, keeping sessions in `store`.
    pub fn with_store(dispatch: D, config: Config, store: Arc<dyn SessionStore>) -> Self {
        let task_store: Arc<dyn TaskStore> = Arc::new(MemoryTaskStore::new(config.max_tasks));
        Self::with_stores(dispatch, config, store, task_store)
    }

    /// Serves `dispatch` with `config`, keeping sessions in `store` and tasks in `task_store`.
    pub fn with_stores(
        dispatch: D,
        config: Config,
        store: Arc<dyn SessionStore>,
        task_store: Arc<dyn TaskStore>,
    ) -> Self {
        let tasks = Arc::new(Tasks::new(
            task_store,
            config.task_ttl,
            config.task_poll_interval,
        ));
        let sealer = StateSealer::from_config(&config);
        Self {
            engine: Arc::new(Engine::new(dispatch, config, store, tasks, sealer)),
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
}
