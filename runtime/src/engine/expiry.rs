//! The background sweep that evicts expired sessions and forgets expired tasks.
//!
//! It starts the first time the server is used, under its own listener or inside another
//! router, and stops when the last handle to the server is dropped (it holds a weak one).

use std::sync::atomic::Ordering;
use std::sync::{Arc, Weak};
use std::time::Duration;

use super::Engine;
use crate::dispatch::Dispatch;

/// The longest pause between two sweeps.
const MAX_PERIOD: Duration = Duration::from_secs(30);
/// The shortest pause between two sweeps (for tests with tiny timeouts).
const MIN_PERIOD: Duration = Duration::from_millis(10);

impl<D: Dispatch> Engine<D> {
    /// Starts the sweep once, if a Tokio runtime is current and something can expire.
    ///
    /// One relaxed load after the first call: cheap enough for every request.
    pub(crate) fn start_expiry(self: &Arc<Self>) {
        if self.expiry_started.load(Ordering::Relaxed) {
            return;
        }
        self.start_expiry_cold();
    }

    #[cold]
    fn start_expiry_cold(self: &Arc<Self>) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let Some(period) = sweep_period(&self.config) else {
            return;
        };
        if self.expiry_started.swap(true, Ordering::AcqRel) {
            return;
        }
        runtime.spawn(sweep(Arc::downgrade(self), period));
    }
}

/// A quarter of the shortest of the session idle timeout, the session lifetime and the task
/// TTL, between [`MIN_PERIOD`] and [`MAX_PERIOD`]; `None` when nothing expires.
fn sweep_period(config: &crate::config::Config) -> Option<Duration> {
    let shortest = [
        config.sessions.session_idle_timeout,
        config.sessions.session_max_lifetime,
        Some(config.tasks.task_ttl),
    ]
    .into_iter()
    .flatten()
    .min()?;
    Some((shortest / 4).clamp(MIN_PERIOD, MAX_PERIOD))
}

async fn sweep<D: Dispatch>(engine: Weak<Engine<D>>, period: Duration) {
    let mut ticker = tokio::time::interval(period);
    loop {
        ticker.tick().await;
        let Some(engine) = engine.upgrade() else {
            return;
        };
        let evicted = engine
            .sessions()
            .store()
            .evict_expired(engine.config.sessions.session_idle_timeout);
        let forgotten = engine.tasks.remove_expired();
        if evicted + forgotten > 0 {
            tracing::debug!(evicted, forgotten, "expired sessions and tasks removed");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_period_follows_the_shortest_expiry() {
        let config = crate::config::Config::builder()
            .session_idle_timeout(Some(Duration::from_secs(8)))
            .build();
        assert_eq!(sweep_period(&config), Some(Duration::from_secs(2)));
        let config = crate::config::Config::builder()
            .session_idle_timeout(Some(Duration::from_millis(1)))
            .build();
        assert_eq!(sweep_period(&config), Some(MIN_PERIOD));
        assert!(sweep_period(&crate::config::Config::default()).unwrap() <= MAX_PERIOD);
    }
}
