//! Every open connection, watched from one task: a connection between requests for
//! [`config.limits.idle_connection_timeout`] is closed (an idle keep-alive connection, or a client
//! sending its headers a byte at a time), and on shutdown every connection is told to finish
//! its request and close.
//!
//! Nothing here runs per request but two counter increments: no timer is armed before a
//! request's headers (hyper's `header_read_timeout` arms one per request: 3 to 7% of the
//! request path), and a connection's task looks at one atomic each time it runs. The
//! supervisor's task checks all connections every half timeout, comparing how many requests
//! each started (headers read) and finished (response body dropped by hyper).
//!
//! [`config.limits.idle_connection_timeout`]: crate::config::Limits::idle_connection_timeout

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::Waker;
use std::time::Duration;

/// What the supervisor decided for a connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Verdict {
    /// Serve on.
    Serve,
    /// Finish the request in progress, then close (the server is shutting down).
    Finish,
    /// Close now: idle for a whole timeout.
    Close,
}

/// The state one connection shares with the supervisor.
#[derive(Debug, Default)]
pub(super) struct Control {
    started: AtomicU64,
    finished: AtomicU64,
    verdict: AtomicU8,
    /// The connection task's waker, set at its first poll: a tokio task keeps one waker for
    /// its whole life, so it is not set again at every poll.
    waker: Mutex<Option<Waker>>,
}

impl Control {
    /// A request's headers were read: its response is in progress until the returned guard
    /// (kept by the response body) drops.
    pub(super) fn start(self: &Arc<Self>) -> InProgress {
        self.started.fetch_add(1, Ordering::Relaxed);
        InProgress(self.clone())
    }

    /// The supervisor's decision (one relaxed load: read each time the connection runs).
    pub(super) fn verdict(&self) -> Verdict {
        match self.verdict.load(Ordering::Relaxed) {
            0 => Verdict::Serve,
            1 => Verdict::Finish,
            _ => Verdict::Close,
        }
    }

    /// Remembers the task to wake when a verdict comes.
    pub(super) fn set_waker(&self, waker: &Waker) {
        *lock(&self.waker) = Some(waker.clone());
    }

    fn decide(&self, verdict: Verdict) {
        let value = match verdict {
            Verdict::Serve => 0,
            Verdict::Finish => 1,
            Verdict::Close => 2,
        };
        self.verdict.fetch_max(value, Ordering::Relaxed);
        if let Some(waker) = lock(&self.waker).as_ref() {
            waker.wake_by_ref();
        }
    }
}

/// Held by a response body while hyper writes it.
#[derive(Debug)]
pub(crate) struct InProgress(Arc<Control>);

impl Drop for InProgress {
    fn drop(&mut self) {
        self.0.finished.fetch_add(1, Ordering::Relaxed);
    }
}

/// The open connections of one listener.
#[derive(Debug, Default)]
pub(super) struct Supervisor {
    connections: Mutex<HashMap<u64, Watched>>,
    next_id: AtomicU64,
}

#[derive(Debug)]
struct Watched {
    control: Arc<Control>,
    /// Requests started at the last check, and how many checks in a row saw the connection
    /// between requests with no new one.
    last_started: u64,
    quiet_checks: u8,
}

impl Supervisor {
    /// Watches a new connection until the returned registration drops.
    pub(super) fn watch(self: &Arc<Self>) -> Registration {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let control = Arc::new(Control::default());
        lock(&self.connections).insert(
            id,
            Watched {
                control: control.clone(),
                last_started: 0,
                quiet_checks: 0,
            },
        );
        Registration {
            supervisor: self.clone(),
            id,
            control,
        }
    }

    /// Checks every connection every half `timeout`, closing those between requests, with no
    /// new one, for a whole timeout (up to 1.5 × `timeout`). Runs until aborted.
    pub(super) async fn close_idle(self: Arc<Self>, timeout: Duration) {
        let mut ticker = tokio::time::interval((timeout / 2).max(Duration::from_millis(1)));
        ticker.tick().await;
        loop {
            ticker.tick().await;
            let closed = self.check();
            if closed > 0 {
                tracing::debug!(
                    closed,
                    "closed connections idle for config.limits.idle_connection_timeout"
                );
            }
        }
    }

    /// One check of every connection; returns how many were closed.
    fn check(&self) -> usize {
        let mut closed = 0;
        for watched in lock(&self.connections).values_mut() {
            let started = watched.control.started.load(Ordering::Relaxed);
            let finished = watched.control.finished.load(Ordering::Relaxed);
            if started == finished && started == watched.last_started {
                watched.quiet_checks = watched.quiet_checks.saturating_add(1);
            } else {
                watched.quiet_checks = 0;
            }
            watched.last_started = started;
            // Two checks a half timeout apart both quiet: a whole timeout without a request.
            if watched.quiet_checks == 2 {
                watched.control.decide(Verdict::Close);
                closed += 1;
            }
        }
        closed
    }

    /// Tells every connection to finish its request in progress and close.
    pub(super) fn finish_all(&self) {
        for watched in lock(&self.connections).values() {
            watched.control.decide(Verdict::Finish);
        }
    }
}

/// A connection's place in the [`Supervisor`], given up when dropped.
#[derive(Debug)]
pub(super) struct Registration {
    supervisor: Arc<Supervisor>,
    id: u64,
    control: Arc<Control>,
}

impl Registration {
    /// What the connection shares with the supervisor.
    pub(super) fn control(&self) -> &Arc<Control> {
        &self.control
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        lock(&self.supervisor.connections).remove(&self.id);
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_connection_between_requests_for_a_whole_timeout_is_closed() {
        let supervisor = Arc::new(Supervisor::default());
        let idle = supervisor.watch();
        let busy = supervisor.watch();
        let streaming = busy.control().start();
        assert_eq!(supervisor.check(), 0, "half a timeout");
        assert_eq!(supervisor.check(), 1, "a whole timeout without a request");
        assert_eq!(idle.control().verdict(), Verdict::Close);
        for _ in 0..10 {
            supervisor.check();
            assert_eq!(
                busy.control().verdict(),
                Verdict::Serve,
                "a long response is not idleness"
            );
        }
        drop(streaming);
        drop(busy.control().start());
        assert_eq!(supervisor.check(), 0, "a request came");
        assert_eq!(supervisor.check(), 0);
        assert_eq!(supervisor.check(), 1);
        drop(idle);
        drop(busy);
        assert!(lock(&supervisor.connections).is_empty());
    }

    #[test]
    fn shutting_down_asks_every_connection_to_finish() {
        let supervisor = Arc::new(Supervisor::default());
        let connection = supervisor.watch();
        supervisor.finish_all();
        assert_eq!(connection.control().verdict(), Verdict::Finish);
        // A later idle verdict is stronger; nothing goes back to serving.
        connection.control().decide(Verdict::Close);
        connection.control().decide(Verdict::Serve);
        assert_eq!(connection.control().verdict(), Verdict::Close);
    }
}
