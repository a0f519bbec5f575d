//! [`Load`]: what a server holds at one moment, in a module of its own so that what reads
//! it (the metrics endpoint) need not import the server.

/// What an [`McpServer`](crate::McpServer) holds at one moment
/// ([`McpServer::load`](crate::McpServer::load)).
///
/// Each figure is bounded by a [`Config`](crate::Config) setting, named on its field; all are zero on a
/// server with no session, no open listen stream and no task. Read-only: more figures may be added.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Load {
    /// Live sessions in the session store
    /// ([`config.sessions.max_sessions`](crate::config::Sessions::max_sessions)).
    pub sessions: usize,
    /// Session-era requests running, across sessions: what `notifications/cancelled` can
    /// stop. Stateless (2026-07-28) requests and tasks are not counted.
    pub in_flight: usize,
    /// Server-to-client requests (sampling, elicitation, roots) awaiting the client's answer,
    /// across sessions
    /// ([`config.limits.max_pending_client_requests`](crate::config::Limits::max_pending_client_requests)
    /// per session).
    pub pending_client_requests: usize,
    /// Open `subscriptions/listen` streams on this instance
    /// ([`config.streams.max_listen_streams`](crate::config::Streams::max_listen_streams)).
    pub listen_streams: usize,
    /// SSE events kept for `Last-Event-ID` replay, across sessions
    /// ([`config.streams.replay_window`](crate::config::Streams::replay_window) per session).
    pub replay_events: usize,
    /// SSE streams whose replay bookkeeping is kept, across sessions: the live ones and the
    /// ended ones with events still in their session's window.
    pub replay_streams: usize,
    /// Tasks held by the task store, finished ones included until
    /// [`config.tasks.task_ttl`](crate::config::Tasks::task_ttl) ends
    /// ([`config.tasks.max_tasks`](crate::config::Tasks::max_tasks)).
    pub tasks_held: usize,
    /// Tasks whose handler runs on this instance.
    pub tasks_running: usize,
    /// Calls this instance counted in its own buckets, since it started, because the shared
    /// rate-limit buckets (`--rate-limit-shared`) did not answer (Redis gone or slow). A
    /// count, not a load: [`Load::is_idle`] does not look at it.
    pub rate_limit_fallbacks: u64,
}

impl Load {
    /// Whether the server holds nothing: no session, no listen stream, no task (and so
    /// nothing running or kept for them).
    pub fn is_idle(&self) -> bool {
        Self {
            rate_limit_fallbacks: 0,
            ..*self
        } == Self::default()
    }
}
