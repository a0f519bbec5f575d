//! [`Stores`]: where a server keeps what outlives a request, and how its instances talk.
//!
//! In memory by default ([`Stores::memory`]): one instance, nothing to install. Several
//! instances behind a load balancer share session-era sessions (each instance holds replicas
//! of the sessions it serves), tasks, notifications and the event log through Redis with the
//! `redis` feature (`stores::redis::connect`). What cannot leave a process (open streams,
//! running handlers, futures waiting for an answer) always stays in it.
//!
//! These two are the backends: the traits a store implements (sessions, tasks, the bus, the
//! event log, rate buckets, DPoP proofs, kept results) are the runtime's own, not a plug-in
//! interface semver covers. Their contracts (write-through, a replica's wait, leases, replay
//! by number) are what `stores/redis`'s tests check against a real Redis; a third backend
//! belongs beside `redis` in this folder.
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! use mcp_runtime::stores::Stores;
//! use mcp_runtime::Config;
//!
//! let config = Config::default();
//! // One instance: everything in this process.
//! let local = Stores::memory(&config);
//! # let _ = local;
//! // Several instances sharing one Redis (feature `redis`).
//! # #[cfg(feature = "redis")]
//! let shared = mcp_runtime::stores::redis::connect("redis://127.0.0.1:6379", "mcp", &config).await?;
//! # Ok(())
//! # }
//! ```

use std::sync::Arc;

use crate::bus::{Bus, LocalBus};
use crate::config::Config;
use crate::delivery::event_log::EventLog;
use crate::session::{MemorySessionStore, SessionStore, SharedSessions};
use crate::tasks::{MemoryTaskStore, TaskStore};

#[cfg(feature = "redis")]
pub mod redis;

/// The stores of one server: give them to `McpServer::builder(..).stores(..)`.
#[derive(Clone)]
#[non_exhaustive]
pub struct Stores {
    /// Session-era sessions held by this process (all of them, or the replicas of shared
    /// ones).
    pub(crate) sessions: Arc<dyn SessionStore>,
    /// The shared side of `sessions` when several instances share them (`None`: sessions
    /// live in this process only).
    pub(crate) shared_sessions: Option<Arc<dyn SharedSessions>>,
    /// 2026-07-28 tasks: shared, any instance answers `tasks/*`.
    pub(crate) tasks: Arc<dyn TaskStore>,
    /// The events other instances must hear: task cancels and answers, list changes,
    /// resource updates.
    pub(crate) bus: Arc<dyn Bus>,
    /// The log the broadcasts of every instance go through, numbering the standalone streams
    /// of shared sessions so any instance can resume them (`None`: each session numbers its
    /// own, in this process).
    pub(crate) events: Option<Arc<dyn EventLog>>,
    /// Where shared rate-limit buckets live, when the configuration asks for them
    /// (`RateLimits::shared`; set by `stores::redis::connect`).
    pub(crate) rate_buckets: Option<Arc<dyn crate::rate_limit::shared::SharedBuckets>>,
    /// The DPoP proofs every instance has seen, when instances share them
    /// ([`crate::auth::SharedProofs`]; set by `stores::redis::connect`).
    pub(crate) proofs: Option<Arc<dyn crate::auth::SharedProofs>>,
    /// Tool results over their budget, kept to be read ([`crate::result_budget`]).
    pub(crate) results: Arc<dyn crate::result_budget::ResultStore>,
}

impl Stores {
    /// Everything in this process, bounded by `config` (`max_sessions`, `max_tasks`).
    pub fn memory(config: &Config) -> Self {
        Self {
            sessions: Arc::new(MemorySessionStore::new(config.sessions.max_sessions)),
            shared_sessions: None,
            tasks: Arc::new(MemoryTaskStore::new(config.tasks.max_tasks)),
            bus: Arc::new(LocalBus),
            events: None,
            rate_buckets: None,
            proofs: None,
            results: Arc::new(crate::result_budget::MemoryResultStore::new(
                config.results.max_kept_result_bytes,
            )),
        }
    }
}

impl std::fmt::Debug for Stores {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stores")
            .field("sessions", &self.sessions.len())
            .field("shared_sessions", &self.shared_sessions.is_some())
            .field("tasks", &self.tasks.len())
            .finish_non_exhaustive()
    }
}
