//! The deadline of a connection between requests: one that completes no request's headers for
//! [`Config::idle_connection_timeout`] while no response is in progress is closed. That is an
//! idle keep-alive connection, and a client sending its headers a byte at a time alike.
//!
//! No timer is armed per request (hyper's `header_read_timeout` arms one before every
//! request's headers: 3 to 7% of the request path). Each connection has one [`Watchdog`] timer
//! that fires every half timeout and compares two counters the requests keep: how many
//! started (headers read) and how many finished (response body dropped by hyper).
//!
//! [`Config::idle_connection_timeout`]: crate::Config::idle_connection_timeout

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::time::{Instant, Sleep};

/// The counters one connection's requests keep.
#[derive(Debug, Default)]
pub(super) struct Activity {
    started: AtomicU64,
    finished: AtomicU64,
}

impl Activity {
    /// A request's headers were read: its response is in progress until the returned guard
    /// (kept by the response body) drops.
    pub(super) fn start(self: &Arc<Self>) -> InProgress {
        self.started.fetch_add(1, Ordering::Relaxed);
        InProgress(self.clone())
    }
}

/// Held by a response body while hyper writes it.
#[derive(Debug)]
pub(crate) struct InProgress(Arc<Activity>);

impl Drop for InProgress {
    fn drop(&mut self) {
        self.0.finished.fetch_add(1, Ordering::Relaxed);
    }
}

/// Decides, every half timeout, whether the connection has been idle for a whole timeout.
pub(super) struct Watchdog {
    activity: Arc<Activity>,
    period: Duration,
    timer: Pin<Box<Sleep>>,
    /// Requests started at the last check, and how many checks in a row saw the connection
    /// between requests with no new one.
    last_started: u64,
    quiet_checks: u8,
}

impl Watchdog {
    /// A watchdog closing the connection after `timeout` (to 1.5 × `timeout`) without a
    /// request.
    pub(super) fn new(activity: Arc<Activity>, timeout: Duration) -> Self {
        let period = (timeout / 2).max(Duration::from_millis(1));
        Self {
            activity,
            period,
            timer: Box::pin(tokio::time::sleep(period)),
            last_started: 0,
            quiet_checks: 0,
        }
    }

    /// One check: true when the connection has been between requests, with no new one, for
    /// a whole timeout.
    fn idle(&mut self) -> bool {
        let started = self.activity.started.load(Ordering::Relaxed);
        let finished = self.activity.finished.load(Ordering::Relaxed);
        let between_requests = started == finished;
        if between_requests && started == self.last_started {
            self.quiet_checks += 1;
        } else {
            self.quiet_checks = 0;
        }
        self.last_started = started;
        // Two checks a half timeout apart both quiet: a whole timeout without a request.
        self.quiet_checks >= 2
    }
}

/// Resolves when the connection is to be closed.
impl Future for Watchdog {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        while self.timer.as_mut().poll(cx).is_ready() {
            if self.idle() {
                return Poll::Ready(());
            }
            let next = Instant::now() + self.period;
            self.timer.as_mut().reset(next);
        }
        Poll::Pending
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn a_connection_between_requests_for_a_whole_timeout_is_closed() {
        let activity = Arc::new(Activity::default());
        let started = Instant::now();
        Watchdog::new(activity, Duration::from_secs(10)).await;
        assert_eq!(started.elapsed(), Duration::from_secs(10));
    }

    #[test]
    fn a_response_in_progress_or_a_new_request_keeps_it_open() {
        let activity = Arc::new(Activity::default());
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        // Made inside the runtime (its timer needs one), used outside it.
        let _entered = runtime.enter();
        let mut watchdog = Watchdog::new(activity.clone(), Duration::from_secs(10));
        let streaming = activity.start();
        for _ in 0..10 {
            assert!(!watchdog.idle(), "a long SSE response is not idleness");
        }
        drop(streaming);
        assert!(!watchdog.idle(), "the response just ended");
        drop(activity.start());
        assert!(!watchdog.idle(), "a request came");
        assert!(!watchdog.idle());
        assert!(watchdog.idle(), "a whole timeout without a request");
    }
}
