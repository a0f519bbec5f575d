//! The `metrics` feature: a Prometheus endpoint on a listener of its own (`--metrics ADDR`,
//! `MCP_METRICS_ADDR`), with the `metrics` facade and `metrics-exporter-prometheus`'s text
//! format.
//!
//! | metric | type | labels |
//! |---|---|---|
//! | `mcp_requests_total` | counter | `method`, `outcome` (`ok`, `error`, `cancelled`) |
//! | `mcp_request_errors_total` | counter | `method`, `code` (the JSON-RPC error code) |
//! | `mcp_request_duration_seconds` | histogram | `method`, `outcome` |
//! | `mcp_sessions`, `mcp_requests_in_flight`, `mcp_pending_client_requests`, `mcp_listen_streams`, `mcp_sse_streams`, `mcp_replay_events`, `mcp_tasks`, `mcp_tasks_running` | gauges | none: [`crate::Load`] at each scrape |
//!
//! `method` is the MCP method (`tools/call`, ...), or `other` for a name the runtime does not
//! know (a label never takes any value a client sends).

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;
use std::time::Duration;

use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};

use super::Ending;
use crate::load::Load;

/// Whether requests are counted (set once the recorder is installed).
static ON: AtomicBool = AtomicBool::new(false);

/// The installed recorder's handle (one per process: the `metrics` facade is global).
static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();

/// The buckets of `mcp_request_duration_seconds`: 100 µs to 10 s.
const BUCKETS: [f64; 14] = [
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0, 2.5, 10.0,
];

#[inline]
pub(crate) fn on() -> bool {
    ON.load(Ordering::Relaxed)
}

/// Counts one request that ended.
pub(crate) fn request_ended(method: &'static str, ending: Ending, elapsed: Duration) {
    if !on() {
        return;
    }
    let outcome = ending.as_str();
    metrics::counter!("mcp_requests_total", "method" => method, "outcome" => outcome).increment(1);
    metrics::histogram!("mcp_request_duration_seconds", "method" => method, "outcome" => outcome)
        .record(elapsed.as_secs_f64());
    if let Ending::Error(code) = ending {
        metrics::counter!("mcp_request_errors_total", "method" => method, "code" => code.to_string())
            .increment(1);
    }
}

/// Installs the recorder (once per process) and turns counting on.
fn handle() -> Result<&'static PrometheusHandle, String> {
    if let Some(handle) = HANDLE.get() {
        return Ok(handle);
    }
    let handle = PrometheusBuilder::new()
        .set_buckets_for_metric(
            Matcher::Full("mcp_request_duration_seconds".into()),
            &BUCKETS,
        )
        .and_then(PrometheusBuilder::install_recorder)
        .map_err(|error| format!("cannot install the metrics recorder: {error}"))?;
    let handle = HANDLE.get_or_init(|| handle);
    ON.store(true, Ordering::Relaxed);
    Ok(handle)
}

/// The text a scrape gets: the server's load as gauges, then everything recorded.
fn render(load: Load, handle: &PrometheusHandle) -> String {
    for (name, value) in [
        ("mcp_sessions", load.sessions),
        ("mcp_requests_in_flight", load.in_flight),
        ("mcp_pending_client_requests", load.pending_client_requests),
        ("mcp_listen_streams", load.listen_streams),
        ("mcp_sse_streams", load.replay_streams),
        ("mcp_replay_events", load.replay_events),
        ("mcp_tasks", load.tasks_held),
        ("mcp_tasks_running", load.tasks_running),
    ] {
        metrics::gauge!(name).set(value as f64);
    }
    handle.run_upkeep();
    handle.render()
}

/// Serves `GET /metrics` (Prometheus text format) on `addr`, on a listener of its own, from
/// the current tokio runtime; returns the bound address. Each scrape reads the gauges from
/// `load` (a server's [`McpServer::load`](crate::McpServer::load)); requests are counted from
/// now on.
pub async fn serve(
    load: impl Fn() -> Load + Clone + Send + Sync + 'static,
    addr: SocketAddr,
) -> std::io::Result<SocketAddr> {
    let handle = handle().map_err(std::io::Error::other)?;
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let bound = listener.local_addr()?;
    tokio::spawn(async move {
        // Upkeep between scrapes too, so an unscraped endpoint holds bounded memory.
        tokio::spawn(async move {
            let mut every = tokio::time::interval(Duration::from_secs(5));
            loop {
                every.tick().await;
                handle.run_upkeep();
            }
        });
        loop {
            let stream = match listener.accept().await {
                Ok((stream, _)) => stream,
                Err(error) => {
                    tracing::warn!(%error, "metrics endpoint: accept failed");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            };
            let load = load.clone();
            tokio::spawn(async move {
                let service = hyper::service::service_fn(move |request: http::Request<_>| {
                    let response = scrape(&load, handle, &request);
                    async move { Ok::<_, Infallible>(response) }
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    Ok(bound)
}

fn scrape<B>(
    load: &impl Fn() -> Load,
    handle: &PrometheusHandle,
    request: &http::Request<B>,
) -> http::Response<String> {
    let (status, body) = match (request.method(), request.uri().path()) {
        (&http::Method::GET, "/metrics") => (http::StatusCode::OK, render(load(), handle)),
        (_, "/metrics") => (http::StatusCode::METHOD_NOT_ALLOWED, String::new()),
        _ => (http::StatusCode::NOT_FOUND, String::new()),
    };
    let mut response = http::Response::new(body);
    *response.status_mut() = status;
    response.headers_mut().insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static("text/plain; version=0.0.4"),
    );
    response
}
