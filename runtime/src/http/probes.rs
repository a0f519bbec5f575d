//! Liveness and readiness probes for orchestrators (a kubelet, a load balancer's health
//! check): [`config.endpoints.health_path`] answers 200 while the process serves, and
//! [`config.endpoints.ready_path`] answers 200 while the server is [`Readiness`]-ready, 503 once it
//! drains after SIGTERM or while a dependency it needs is unreachable.
//!
//! A probe is looked up only after the `/mcp` comparison fails, and answered before the Host,
//! Origin and authorization checks (a kubelet sends `Host: <pod-ip>:<port>`, no Origin and
//! no token). Answering reads one atomic: nothing here does I/O per probe. What can become
//! unreachable is watched by a background task (the shared event log, the
//! authenticator), which sets the [`Readiness`] bits the probe reads.
//!
//! [`config.endpoints.health_path`]: crate::config::Endpoints::health_path
//! [`config.endpoints.ready_path`]: crate::config::Endpoints::ready_path

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http::header::{HeaderValue, CACHE_CONTROL, CONTENT_TYPE};
use http::{Method, Response, StatusCode};

use super::body::Body;
use super::response::method_not_allowed;
use crate::config::Config;

pub use crate::lifecycle::readiness::{NotReady, Readiness};

/// A probe endpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Probe {
    /// Liveness: the process serves.
    Health,
    /// Readiness: [`Readiness`].
    Ready,
}

/// The probe at `path`, if `config` serves one there.
pub(crate) fn probe_at(path: &str, config: &Config) -> Option<Probe> {
    if config.endpoints.health_path.as_deref() == Some(path) {
        Some(Probe::Health)
    } else if config.endpoints.ready_path.as_deref() == Some(path) {
        Some(Probe::Ready)
    } else {
        None
    }
}

/// The answer to `probe`: GET or HEAD; a short `text/plain` body, never cached.
#[cold]
pub(crate) fn answer(probe: Probe, method: &Method, readiness: &Readiness) -> Response<Body> {
    if method != Method::GET && method != Method::HEAD {
        return method_not_allowed("GET, HEAD");
    }
    let (status, body): (_, &'static [u8]) = match probe {
        Probe::Health => (StatusCode::OK, b"ok\n"),
        Probe::Ready => match readiness.first_reason() {
            None => (StatusCode::OK, b"ready\n"),
            Some(reason) => (StatusCode::SERVICE_UNAVAILABLE, reason.body()),
        },
    };
    let mut response = Response::new(Body::full(Bytes::from_static(body)));
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// The answer to a request other than a probe on a connection accepted while the server
/// drains: 503, and the connection closes after it.
#[cold]
pub(super) fn draining() -> Response<Body> {
    let mut response = Response::new(Body::full(Bytes::from_static(b"shutting down\n")));
    *response.status_mut() = StatusCode::SERVICE_UNAVAILABLE;
    let headers = response.headers_mut();
    headers.insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    headers.insert(http::header::CONNECTION, HeaderValue::from_static("close"));
    response
}

/// How often a dependency is checked while it is not ready.
const CHECK_UNREADY: Duration = Duration::from_secs(1);
/// How often the shared state is checked while it answers.
const CHECK_READY: Duration = Duration::from_secs(1);
/// How long one check may take before it counts as unreachable.
const CHECK_TIMEOUT: Duration = Duration::from_secs(2);
/// How often the authenticator is asked once it decides (its keys are cached: asking is
/// cheap, and only tells when cached keys grow too old to use).
const CHECK_AUTH_READY: Duration = Duration::from_secs(10);

/// What the background `watch` task checks.
pub(super) struct Watched {
    /// The shared event log (Redis), if any: unreachable sets [`NotReady::SharedState`].
    pub event_log: Option<Arc<dyn crate::delivery::event_log::EventLog>>,
    /// The authorization, if on: an authenticator that cannot decide sets
    /// [`NotReady::Authorization`].
    pub auth: Option<crate::auth::Auth>,
    /// The checks given to [`Readiness::check_with`] (a gateway's upstream, the
    /// application's own): each sets its reason while it fails.
    pub checks: Vec<(NotReady, crate::lifecycle::readiness::Check)>,
}

impl Watched {
    /// Whether there is anything to watch.
    pub fn is_empty(&self) -> bool {
        self.event_log.is_none() && self.auth.is_none() && self.checks.is_empty()
    }
}

/// Checks `watched` in the background, setting `readiness`, until aborted.
///
/// The shared state: a one-entry read of the event log (`after` the last possible number:
/// two `XRANGE … COUNT 1` on Redis) every second. The authenticator: a well-formed JWT that
/// no issuer signed, every second until it is refused for what it is (the keys were
/// fetched: the first real token will not wait for them), then every 10 s; refused as
/// [`Refusal::Unavailable`](crate::auth::Refusal::Unavailable), it is not ready. Each check
/// of [`Readiness::check_with`], every second.
pub(super) async fn watch(watched: Watched, readiness: Readiness) {
    if watched.auth.is_some() {
        readiness.set(NotReady::Authorization, true);
    }
    let shared = async {
        let Some(log) = &watched.event_log else {
            return;
        };
        loop {
            let reachable = !matches!(
                tokio::time::timeout(CHECK_TIMEOUT, log.after(u64::MAX)).await,
                Err(_) | Ok(Err(crate::delivery::event_log::ReplayError::Unavailable(_)))
            );
            let was_reachable = !is_set(&readiness, NotReady::SharedState);
            if was_reachable != reachable {
                if reachable {
                    tracing::info!("readiness: the shared state answers again");
                } else {
                    tracing::warn!("readiness: the shared state does not answer: not ready");
                }
            }
            readiness.set(NotReady::SharedState, !reachable);
            tokio::time::sleep(if reachable {
                CHECK_READY
            } else {
                CHECK_UNREADY
            })
            .await;
        }
    };
    let authorization = async {
        let Some(auth) = &watched.auth else {
            return;
        };
        let probe = probe_request();
        loop {
            let decided = !matches!(
                tokio::time::timeout(CHECK_TIMEOUT, auth.authenticator().authenticate(&probe))
                    .await,
                Err(_) | Ok(Err(crate::auth::Refusal::Unavailable(_)))
            );
            readiness.set(NotReady::Authorization, !decided);
            tokio::time::sleep(if decided {
                CHECK_AUTH_READY
            } else {
                CHECK_UNREADY
            })
            .await;
        }
    };
    let checks = futures_util::future::join_all(watched.checks.iter().map(|(reason, check)| {
        let readiness = &readiness;
        async move {
            loop {
                let passed = tokio::time::timeout(CHECK_TIMEOUT, check())
                    .await
                    .unwrap_or(false);
                if passed == is_set(readiness, *reason) {
                    match passed {
                        true => tracing::info!(?reason, "readiness: the check passes again"),
                        false => tracing::warn!(?reason, "readiness: a check fails: not ready"),
                    }
                }
                readiness.set(*reason, !passed);
                tokio::time::sleep(if passed { CHECK_READY } else { CHECK_UNREADY }).await;
            }
        }
    }));
    tokio::join!(shared, authorization, checks);
}

fn is_set(readiness: &Readiness, reason: NotReady) -> bool {
    readiness.has(reason)
}

/// A request bearing a well-formed JWT (RS256, `typ` `at+jwt`, a `kid` no issuer uses) that
/// no key verifies: an authenticator with its keys refuses it as invalid, one without them
/// as unavailable.
fn probe_request() -> http::request::Parts {
    // {"alg":"RS256","typ":"at+jwt","kid":"mcp-readiness-probe"} . {} . a one-byte signature
    const TOKEN: &str = "Bearer eyJhbGciOiJSUzI1NiIsInR5cCI6ImF0K2p3dCIsImtpZCI6Im1jcC1yZWFkaW5lc3MtcHJvYmUifQ.e30.AA";
    http::Request::builder()
        .uri("/mcp")
        .header(http::header::AUTHORIZATION, TOKEN)
        .body(())
        .expect("a constant request")
        .into_parts()
        .0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_reason_is_named_and_clearing_one_keeps_the_others() {
        let readiness = Readiness::default();
        assert!(readiness.is_ready());
        readiness.set(NotReady::Upstream, true);
        readiness.set(NotReady::Draining, true);
        assert_eq!(readiness.first_reason(), Some(NotReady::Draining));
        readiness.set(NotReady::Draining, false);
        assert_eq!(readiness.first_reason(), Some(NotReady::Upstream));
        readiness.set(NotReady::Upstream, false);
        assert!(readiness.is_ready());
    }

    #[test]
    fn the_probe_token_is_a_well_formed_jwt_header() {
        let parts = probe_request();
        let value = parts.headers[http::header::AUTHORIZATION].to_str().unwrap();
        let header = value
            .strip_prefix("Bearer ")
            .unwrap()
            .split('.')
            .next()
            .unwrap();
        use base64::Engine as _;
        let json = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(header)
            .unwrap();
        assert_eq!(
            json,
            br#"{"alg":"RS256","typ":"at+jwt","kid":"mcp-readiness-probe"}"#
        );
    }
}
