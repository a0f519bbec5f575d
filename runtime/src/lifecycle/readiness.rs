//! Whether a server is ready for traffic: the state its readiness probe reports
//! ([`crate::http`]'s `/readyz`). Kept apart from the HTTP edge because [`crate::Config`]
//! holds it, and the configuration stands below every transport.

use futures_util::future::BoxFuture;
use std::fmt;
use std::future::Future;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

/// Why a server is not ready: each is one bit of a [`Readiness`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum NotReady {
    /// Shutting down (SIGTERM, Ctrl-C, or the future given to
    /// [`McpServer::serve_listener`](crate::McpServer::serve_listener) completed): running
    /// requests are finishing, new traffic should go elsewhere.
    Draining,
    /// The shared state (Redis, `--redis`) does not answer.
    SharedState,
    /// The authenticator cannot decide yet (the issuer's signing keys were not fetched).
    Authorization,
    /// A gateway's upstream server is unreachable (its last forward failed in transport).
    Upstream,
    /// Something of the application's own is not ready (set by the application).
    Application,
}

impl NotReady {
    /// Every reason, in the order a probe names the first one set.
    pub(crate) const ALL: [NotReady; 5] = [
        NotReady::Draining,
        NotReady::SharedState,
        NotReady::Authorization,
        NotReady::Upstream,
        NotReady::Application,
    ];

    pub(crate) fn bit(self) -> u32 {
        1 << self as u32
    }

    /// The body of a 503 for this reason.
    pub(crate) fn body(self) -> &'static [u8] {
        match self {
            NotReady::Draining => b"not ready: draining\n",
            NotReady::SharedState => b"not ready: shared state (Redis) unreachable\n",
            NotReady::Authorization => b"not ready: the issuer's signing keys are not fetched\n",
            NotReady::Upstream => b"not ready: upstream unreachable\n",
            NotReady::Application => b"not ready\n",
        }
    }
}

/// A readiness check ([`Readiness::check_with`]): `true` when its dependency is reachable.
pub(crate) type Check = Arc<dyn Fn() -> BoxFuture<'static, bool> + Send + Sync>;

/// Whether a server is ready for traffic: a set of [`NotReady`] reasons, empty when ready.
/// Cheap to clone; clones share the state. The server reads it at every readiness probe
/// (one atomic load) and sets [`NotReady::Draining`], [`NotReady::SharedState`] and
/// [`NotReady::Authorization`] itself; a gateway's upstream sets [`NotReady::Upstream`]; an
/// application marks its own reasons through
/// [`McpServer::config`](crate::McpServer::config)`().readiness`, by hand ([`Readiness::set`])
/// or with a check the server runs while it serves ([`Readiness::check_with`]).
///
/// It lives in [`Config::readiness`](crate::Config::readiness): servers built from clones of
/// one `Config` share it; give each its own with `Readiness::default()`.
///
/// ```
/// use mcp_runtime::http::{NotReady, Readiness};
/// let readiness = Readiness::default();
/// assert!(readiness.is_ready());
/// readiness.set(NotReady::Application, true);
/// assert_eq!(readiness.first_reason(), Some(NotReady::Application));
/// readiness.set(NotReady::Application, false);
/// assert!(readiness.is_ready());
/// ```
#[derive(Clone, Default)]
pub struct Readiness(Arc<Shared>);

#[derive(Default)]
struct Shared {
    /// One bit per [`NotReady`] reason set.
    bits: AtomicU32,
    /// The checks the server runs in the background while it serves HTTP with a readiness
    /// probe.
    checks: Mutex<Vec<(NotReady, Check)>>,
}

impl fmt::Debug for Readiness {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Readiness")
            .field("first_reason", &self.first_reason())
            .finish_non_exhaustive()
    }
}

impl Readiness {
    /// Sets (`not_ready`) or clears `reason`.
    pub fn set(&self, reason: NotReady, not_ready: bool) {
        if not_ready {
            self.0.bits.fetch_or(reason.bit(), Ordering::Relaxed);
        } else {
            self.0.bits.fetch_and(!reason.bit(), Ordering::Relaxed);
        }
    }

    /// Whether `reason` is set.
    pub(crate) fn has(&self, reason: NotReady) -> bool {
        self.0.bits.load(Ordering::Relaxed) & reason.bit() != 0
    }

    /// Whether no reason is set.
    pub fn is_ready(&self) -> bool {
        self.0.bits.load(Ordering::Relaxed) == 0
    }

    /// The first reason set, if any (in [`NotReady`]'s order).
    pub fn first_reason(&self) -> Option<NotReady> {
        let bits = self.0.bits.load(Ordering::Relaxed);
        NotReady::ALL
            .into_iter()
            .find(|reason| bits & reason.bit() != 0)
    }

    /// Has the server check a dependency while it serves HTTP with a readiness probe
    /// ([`config.endpoints.ready_path`](crate::config::Endpoints::ready_path)): `check` is called
    /// every second, and `reason` is set while it answers `false` or takes over 2 s. `reason` is
    /// set from now until the first check passes, so that a probe does not say ready before
    /// anything was checked. Without a readiness probe, or on stdio, nothing calls `check`; call
    /// [`Readiness::set`] to clear `reason` then.
    ///
    /// ```
    /// use mcp_runtime::http::{NotReady, Readiness};
    /// let readiness = Readiness::default();
    /// readiness.check_with(NotReady::Application, || async {
    ///     // e.g. a `SELECT 1` on the application's database.
    ///     true
    /// });
    /// assert_eq!(readiness.first_reason(), Some(NotReady::Application));
    /// ```
    pub fn check_with<F, Fut>(&self, reason: NotReady, check: F)
    where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: Future<Output = bool> + Send + 'static,
    {
        self.set(reason, true);
        let check: Check = Arc::new(move || Box::pin(check()));
        self.0
            .checks
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .push((reason, check));
    }

    /// The checks registered with [`Readiness::check_with`].
    pub(crate) fn checks(&self) -> Vec<(NotReady, Check)> {
        self.0
            .checks
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone()
    }
}
