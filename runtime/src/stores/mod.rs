//! [`Stores`]: where a server keeps what outlives a request, and how its instances talk.
//!
//! In memory by default ([`Stores::memory`]): one instance, nothing to install. Several
//! instances behind a load balancer share session-era sessions (each instance holds replicas
//! of the sessions it serves), tasks, notifications and the event log through Redis with the
//! `redis` feature (`stores::redis::connect`). What cannot leave a process (open streams,
//! running handlers, futures waiting for an answer) always stays in it.

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
    pub sessions: Arc<dyn SessionStore>,
    /// The shared side of `sessions` when several instances share them (`None`: sessions
    /// live in this process only).
    pub shared_sessions: Option<Arc<dyn SharedSessions>>,
    /// 2026-07-28 tasks: shared, any instance answers `tasks/*`.
    pub tasks: Arc<dyn TaskStore>,
    /// The events other instances must hear: task cancels and answers, list changes,
    /// resource updates.
    pub bus: Arc<dyn Bus>,
    /// The log the broadcasts of every instance go through, numbering the standalone streams
    /// of shared sessions so any instance can resume them (`None`: each session numbers its
    /// own, in this process).
    pub events: Option<Arc<dyn EventLog>>,
    /// Where shared rate-limit buckets live, when the configuration asks for them
    /// (`RateLimits::shared`; set by `stores::redis::connect`).
    pub(crate) rate_buckets: Option<Arc<dyn crate::rate_limit::shared::SharedBuckets>>,
    /// The DPoP proofs every instance has seen, when instances share them
    /// ([`crate::auth::SharedProofs`]; set by `stores::redis::connect`).
    pub proofs: Option<Arc<dyn crate::auth::SharedProofs>>,
    /// Tool results over their budget, kept to be read ([`crate::result_budget`]).
    pub results: Arc<dyn crate::result_budget::ResultStore>,
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

    /// The same stores with sessions in `sessions`.
    #[must_use]
    pub fn with_sessions(mut self, sessions: Arc<dyn SessionStore>) -> Self {
        self.sessions = sessions;
        self.shared_sessions = None;
        self
    }

    /// The same stores with sessions in `sessions`, which several instances share.
    #[must_use]
    pub fn with_shared_sessions<S: SessionStore + SharedSessions>(
        mut self,
        sessions: Arc<S>,
    ) -> Self {
        self.sessions = sessions.clone();
        self.shared_sessions = Some(sessions);
        self
    }

    /// The same stores with tasks in `tasks`.
    #[must_use]
    pub fn with_tasks(mut self, tasks: Arc<dyn TaskStore>) -> Self {
        self.tasks = tasks;
        self
    }

    /// The same stores with broadcasts going through `log`.
    #[must_use]
    pub fn with_event_log(mut self, log: Arc<dyn EventLog>) -> Self {
        self.events = Some(log);
        self
    }

    /// The same stores with rate-limit buckets shared in `buckets`.
    #[cfg(feature = "redis")]
    #[must_use]
    pub(crate) fn with_rate_buckets(
        mut self,
        buckets: Arc<dyn crate::rate_limit::shared::SharedBuckets>,
    ) -> Self {
        self.rate_buckets = Some(buckets);
        self
    }

    /// The same stores with DPoP proofs shared in `proofs`.
    #[must_use]
    pub fn with_proofs(mut self, proofs: Arc<dyn crate::auth::SharedProofs>) -> Self {
        self.proofs = Some(proofs);
        self
    }

    /// The same stores with results over their budget kept in `results`.
    #[must_use]
    pub fn with_results(mut self, results: Arc<dyn crate::result_budget::ResultStore>) -> Self {
        self.results = results;
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
            .field("shared_sessions", &self.shared_sessions.is_some())
            .field("tasks", &self.tasks.len())
            .finish_non_exhaustive()
    }
}
