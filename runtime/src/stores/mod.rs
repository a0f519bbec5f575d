//! [`Stores`]: where a server keeps what outlives a request, and how its instances talk.
//!
//! In memory by default ([`Stores::memory`]): one instance, nothing to install. Several
//! instances behind a load balancer share tasks and notifications through Redis with the
//! `redis` feature ([`redis::connect`]). What cannot leave a process (open streams, running
//! handlers, futures waiting for an answer) always stays in it.

use std::sync::Arc;

use crate::bus::{Bus, LocalBus};
use crate::config::Config;
use crate::session::{MemorySessionStore, SessionStore};
use crate::tasks::{MemoryTaskStore, TaskStore};

#[cfg(feature = "redis")]
pub mod redis;

/// The stores of one server: give them to
/// [`McpServer::with_stores`](crate::McpServer::with_stores).
#[derive(Clone)]
#[non_exhaustive]
pub struct Stores {
    /// Session-era sessions (in this process for now, whatever the other stores).
    pub sessions: Arc<dyn SessionStore>,
    /// 2026-07-28 tasks: shared, any instance answers `tasks/*`.
    pub tasks: Arc<dyn TaskStore>,
    /// The events other instances must hear: task cancels and answers, list changes,
    /// resource updates.
    pub bus: Arc<dyn Bus>,
}

impl Stores {
    /// Everything in this process, bounded by `config` (`max_sessions`, `max_tasks`).
    pub fn memory(config: &Config) -> Self {
        Self {
            sessions: Arc::new(MemorySessionStore::new(config.max_sessions)),
            tasks: Arc::new(MemoryTaskStore::new(config.max_tasks)),
            bus: Arc::new(LocalBus),
        }
    }

    /// The same stores with sessions in `sessions`.
    #[must_use]
    pub fn with_sessions(mut self, sessions: Arc<dyn SessionStore>) -> Self {
        self.sessions = sessions;
        self
    }

    /// The same stores with tasks in `tasks`.
    #[must_use]
    pub fn with_tasks(mut self, tasks: Arc<dyn TaskStore>) -> Self {
        self.tasks = tasks;
        self
    }

    /// The same stores with events carried by `bus`.
    #[must_use]
    pub fn with_bus(mut self, bus: Arc<dyn Bus>) -> Self {
        self.bus = bus;
        self
    }
}

impl std::fmt::Debug for Stores {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stores")
            .field("sessions", &self.sessions.len())
            .field("tasks", &self.tasks.len())
            .finish_non_exhaustive()
    }
}

/// `server` rebuilt with its tasks and notifications shared through the Redis at `url`
/// (`--redis URL`; `source` names the flag or variable it came from). On failure, the exit
/// code and the message: 2 for a setup that cannot work, 1 when Redis cannot be reached.
pub(crate) async fn shared_through_redis<D: crate::Dispatch>(
    server: crate::McpServer<D>,
    url: &str,
    source: &str,
) -> Result<crate::McpServer<D>, (u8, String)> {
    #[cfg(not(feature = "redis"))]
    {
        let _ = (server, url);
        Err((
            2,
            format!("{source}: this server was built without the `redis` feature (build it with `--features redis`)"),
        ))
    }
    #[cfg(feature = "redis")]
    {
        use crate::request_state::{SealingKey, KEY_ENV};
        let shared_key = server.config().request_state_key.is_some()
            || matches!(SealingKey::from_env(), Ok(Some(_)));
        if !shared_key {
            return Err((
                2,
                format!("{source} needs {KEY_ENV}: every instance must seal requestState with the same key (e.g. `openssl rand -hex 32`)"),
            ));
        }
        let prefix = std::env::var(crate::entry::REDIS_PREFIX_ENV)
            .ok()
            .filter(|prefix| !prefix.is_empty())
            .unwrap_or_else(|| redis::DEFAULT_PREFIX.to_string());
        if prefix.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err((
                2,
                format!(
                    "{}={prefix}: the key prefix must have no spaces or control characters",
                    crate::entry::REDIS_PREFIX_ENV
                ),
            ));
        }
        let stores = redis::connect(url, &prefix, server.config())
            .await
            .map_err(|error| (1, format!("{source}: {error}")))?;
        server.rebuilt_with(stores).map_err(|_| {
            (
                2,
                format!("{source} cannot change a server that was cloned before entry::run; build it with McpServer::with_stores"),
            )
        })
    }
}
