//! The `metrics` feature: a Prometheus endpoint on a listener of its own (`--metrics ADDR`,
//! `MCP_METRICS_ADDR`), with the `metrics` facade and `metrics-exporter-prometheus`'s text
//! format.
//!
//! | metric | type | labels |
//! |---|---|---|
//! | `mcp_requests_total` | counter | `method`, `outcome` (`ok`, `error`, `cancelled`) |
//! | `mcp_request_errors_total` | counter | `method`, `code` (the JSON-RPC error code) |
//! | `mcp_request_duration_seconds` | histogram | `method`, `outcome` |
//! | `mcp_server_operation_duration_seconds` | histogram | `mcp_method_name`, `error_type` (when it failed), `network_transport` |
//! | `mcp_sessions`, `mcp_requests_in_flight`, `mcp_pending_client_requests`, `mcp_listen_streams`, `mcp_sse_streams`, `mcp_replay_events`, `mcp_tasks`, `mcp_tasks_running` | gauges | none: [`crate::Load`] at each scrape |
//!
//! `mcp_server_operation_duration_seconds` is the OpenTelemetry semantic conventions' MCP
//! histogram `mcp.server.operation.duration` (unit `s`); the first three are kept for one
//! release. `method` and `mcp_method_name` are the MCP method (`tools/call`, ...), or `other`
//! for a name the runtime does not know; `error_type` is the JSON-RPC error code, `tool_error`
//! (a `tools/call` result with `isError: true`) or `cancelled`; `network_transport` is `tcp` or
//! `pipe`: a label never takes any value a client sends.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;
use std::time::Duration;

use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};

use super::{Ending, Transport};
use crate::lifecycle::load::Load;

/// Whether requests are counted (set once the recorder is installed).
static ON: AtomicBool = AtomicBool::new(false);

/// The installed recorder's handle (one per process: the `metrics` facade is global).
static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();

/// The name of the conventions' histogram in Prometheus form (`mcp.server.operation.duration`,
/// unit `s`).
const OPERATION_DURATION: &str = "mcp_server_operation_duration_seconds";

/// The buckets of `mcp_server_operation_duration_seconds`: the ones the semantic conventions
/// advise for it, 10 ms to 300 s.
const OPERATION_BUCKETS: [f64; 14] = [
    0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0,
];

/// The buckets of `mcp_request_duration_seconds`: 100 µs to 10 s.
const BUCKETS: [f64; 14] = [
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0, 2.5, 10.0,
];

#[inline]
pub(crate) fn on() -> bool {
    ON.load(Ordering::Relaxed)
}

/// Counts one request that ended.
pub(crate) fn request_ended(
    method: &'static str,
    transport: Transport,
    ending: Ending,
    elapsed: Duration,
) {
    if !on() {
        return;
    }
    let seconds = elapsed.as_secs_f64();
    let outcome = ending.as_str();
    let transport = transport.as_str();
    let code = match ending {
        Ending::Error(code) => Some(code.to_string()),
        _ => None,
    };
    let error_type = match (ending, &code) {
        (_, Some(code)) => Some(code.clone()),
        (Ending::ToolError, _) => Some("tool_error".to_string()),
        (Ending::Cancelled, _) => Some("cancelled".to_string()),
        _ => None,
    };
    match error_type {
        Some(error_type) => metrics::histogram!(OPERATION_DURATION,
            "mcp_method_name" => method, "error_type" => error_type, "network_transport" => transport)
        .record(seconds),
        None => metrics::histogram!(OPERATION_DURATION,
            "mcp_method_name" => method, "network_transport" => transport)
        .record(seconds),
    }
    // The names of before the conventions, kept for one release.
    metrics::counter!("mcp_requests_total", "method" => method, "outcome" => outcome).increment(1);
    metrics::histogram!("mcp_request_duration_seconds", "method" => method, "outcome" => outcome)
        .record(seconds);
    if let Some(code) = code {
        metrics::counter!("mcp_request_errors_total", "method" => method, "code" => code)
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
        .and_then(|builder| {
            builder.set_buckets_for_metric(
                Matcher::Full(OPERATION_DURATION.into()),
                &OPERATION_BUCKETS,
            )
        })
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
