//! Telemetry of requests: a `tracing` span per request, the W3C trace context a client sends,
//! and (with the `otel` and `metrics` features) their exporters.
//!
//! All of the per-request part is behind the runtime's `trace` feature (which `otel` and
//! `metrics` turn on): without it a request's types and code are exactly what they were before
//! telemetry (no trace members in `_meta`, no trace headers, nothing in
//! [`crate::RequestContext`] or in the request's work), so telemetry costs nothing it does not
//! do. With it, the span is made where every transport's request starts
//! (`engine::run::Engine::start`), at level `DEBUG` with target [`TARGET`], so it is off
//! unless a subscriber asks for it (`RUST_LOG=info,mcp::request=debug`, or the OTLP exporter).
//! Off, a request pays one load of tracing's global level (and one of the metrics switch), and
//! the reading of `traceparent`/`tracestate`: nothing is formatted, allocated or wrapped
//! around its future.

use std::fmt;

use tracing::Level;
use tracing_subscriber::filter::Targets;

mod error;
#[cfg(feature = "metrics")]
pub mod metrics;
#[cfg(feature = "otel")]
pub mod otel;
#[cfg(feature = "otel")]
pub mod passback;
#[cfg(feature = "trace")]
mod request;
#[cfg(feature = "trace")]
pub(crate) use request::*;

pub use error::{InitError, LogFilterError};

/// The `tracing` target of the request spans: enable it with `mcp::request=debug`.
#[doc(hidden)]
pub const TARGET: &str = "mcp::request";

/// The span's `tracing` name (its OpenTelemetry name is `otel.name`: `{mcp.method.name}`, or
/// `{mcp.method.name} {target}` for a tool or prompt, as the semantic conventions say).
#[doc(hidden)]
pub const SPAN_NAME: &str = "mcp.request";

/// How a request reached the server, as the span's `network.transport` names it (a hint the
/// transport passes in; without the `trace` feature nothing reads it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Transport {
    /// HTTP (both eras, the 2024-11-05 SSE transport, the plain JSON-RPC endpoint): `tcp`,
    /// and `network.protocol.name` `http`.
    Http,
    /// stdio: `pipe`.
    Stdio,
}

#[cfg_attr(not(feature = "trace"), allow(dead_code))]
impl Transport {
    /// `network.transport`: `tcp` or `pipe`.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Transport::Http => "tcp",
            Transport::Stdio => "pipe",
        }
    }

    /// `network.protocol.name`: `http` over HTTP, none over stdio.
    pub(crate) fn protocol_name(self) -> Option<&'static str> {
        match self {
            Transport::Http => Some("http"),
            Transport::Stdio => None,
        }
    }
}

/// The W3C trace headers an HTTP request came with (`traceparent`, then `tracestate`), as the
/// edge hands them to the engine: with the `trace` feature; without it, nothing at all (a
/// zero-sized value, so the engine's signature costs no more than before).
#[derive(Clone, Copy, Default)]
pub(crate) struct TraceHeaders<'a> {
    #[cfg(feature = "trace")]
    pub(crate) value: Option<(&'a str, Option<&'a str>)>,
    #[cfg(not(feature = "trace"))]
    _none: std::marker::PhantomData<&'a str>,
}

/// A W3C trace context (<https://www.w3.org/TR/trace-context/>) a request carried: in its
/// `_meta` (`traceparent`, `tracestate`: the MCP convention) or in the HTTP `traceparent` and
/// `tracestate` headers. A handler reads it with [`crate::RequestContext::trace_context`] to
/// continue the client's trace (its own outgoing calls name [`TraceContext::trace_id`]).
#[derive(Clone, PartialEq, Eq)]
pub struct TraceContext {
    trace_id: [u8; 16],
    parent_id: [u8; 8],
    flags: u8,
    tracestate: Option<Box<str>>,
}

/// `tracestate` longer than this is dropped (the specification lets a vendor cut it at 512).
const MAX_TRACESTATE: usize = 512;

impl TraceContext {
    /// Parses a `traceparent` value, version `00`: `00-<32 hex trace id>-<16 hex parent id>-<2
    /// hex flags>`, lowercase hex, neither id all zeros. `tracestate` is kept when it is at most
    /// 512 visible ASCII characters (spaces allowed), else dropped. `None` when `traceparent`
    /// is not valid: a bad value is ignored, never an error.
    pub fn parse(traceparent: &str, tracestate: Option<&str>) -> Option<Self> {
        let bytes = traceparent.trim_ascii().as_bytes();
        if bytes.len() != 55 || &bytes[..3] != b"00-" || bytes[35] != b'-' || bytes[52] != b'-' {
            return None;
        }
        let mut trace_id = [0u8; 16];
        let mut parent_id = [0u8; 8];
        let mut flags = [0u8; 1];
        hex_decode(&bytes[3..35], &mut trace_id)?;
        hex_decode(&bytes[36..52], &mut parent_id)?;
        hex_decode(&bytes[53..55], &mut flags)?;
        if trace_id == [0; 16] || parent_id == [0; 8] {
            return None;
        }
        let tracestate = tracestate
            .map(str::trim_ascii)
            .filter(|state| {
                !state.is_empty()
                    && state.len() <= MAX_TRACESTATE
                    && state.bytes().all(|b| (0x20..=0x7e).contains(&b))
            })
            .map(Box::from);
        Some(Self {
            trace_id,
            parent_id,
            flags: flags[0],
            tracestate,
        })
    }

    /// The trace's id (16 bytes, never all zeros).
    pub fn trace_id(&self) -> [u8; 16] {
        self.trace_id
    }

    /// The id of the client's span this request is a child of (8 bytes, never all zeros).
    pub fn parent_id(&self) -> [u8; 8] {
        self.parent_id
    }

    /// The trace flags (bit 0: sampled).
    pub fn flags(&self) -> u8 {
        self.flags
    }

    /// Whether the client sampled this trace (flag bit 0).
    pub fn sampled(&self) -> bool {
        self.flags & 1 == 1
    }

    /// The vendor-specific `tracestate`, when one came and was valid.
    pub fn tracestate(&self) -> Option<&str> {
        self.tracestate.as_deref()
    }

    /// The trace id as 32 lowercase hex digits.
    pub fn trace_id_hex(&self) -> String {
        crate::ids::hex(&self.trace_id)
    }

    /// The parent span id as 16 lowercase hex digits.
    pub fn parent_id_hex(&self) -> String {
        crate::ids::hex(&self.parent_id)
    }

    /// The `traceparent` value, as received.
    pub fn traceparent(&self) -> String {
        format!(
            "00-{}-{}-{:02x}",
            self.trace_id_hex(),
            self.parent_id_hex(),
            self.flags
        )
    }
}

impl fmt::Debug for TraceContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TraceContext")
            .field("traceparent", &self.traceparent())
            .field("tracestate", &self.tracestate)
            .finish()
    }
}

/// Lowercase hex digits into `out` (twice as many digits as bytes); `None` for anything else.
fn hex_decode(digits: &[u8], out: &mut [u8]) -> Option<()> {
    fn nibble(digit: u8) -> Option<u8> {
        match digit {
            b'0'..=b'9' => Some(digit - b'0'),
            b'a'..=b'f' => Some(digit - b'a' + 10),
            _ => None,
        }
    }
    for (byte, pair) in out.iter_mut().zip(digits.chunks_exact(2)) {
        *byte = nibble(pair[0])? << 4 | nibble(pair[1])?;
    }
    Some(())
}

/// What [`init`] set up. Keep it while the program runs: dropping it flushes and stops the
/// exporters (the OTLP exporter sends the spans it still holds).
#[must_use = "dropping it stops the exporters"]
pub struct Telemetry {
    #[cfg(feature = "otel")]
    _otel: Option<otel::Exporter>,
}

/// Sets up the process's `tracing` subscriber as a server binary does, with the log filter
/// from `RUST_LOG` (`info` when unset or invalid), logs as text: [`init_logging`].
pub fn init(service_name: &str) -> Result<Telemetry, InitError> {
    let filter = std::env::var("RUST_LOG").unwrap_or_default();
    init_logging(service_name, &filter, false)
}

/// Sets up the process's `tracing` subscriber ([`crate::entry`] calls it with `--log-level`
/// and `--log-format`): logs to stderr under `filter` ([`parse_log_filter`]'s directives; `info`
/// when empty or invalid), one JSON object a line when `json`; with the `otel` feature and
/// `OTEL_EXPORTER_OTLP_ENDPOINT` set, every request's span (and the handlers' spans under
/// `filter`) exported over OTLP, named for `service_name` unless `OTEL_SERVICE_NAME` says
/// otherwise. Does nothing to a process that already has a global subscriber. `Err` names the
/// variable that could not be used.
pub fn init_logging(service_name: &str, filter: &str, json: bool) -> Result<Telemetry, InitError> {
    init_subscriber(service_name, filter, json, false)
}

/// [`init_logging`], with the server-execution telemetry layer ([`passback::layer`], feature
/// `otel`) when `return_traces` ([`crate::config::Telemetry::return_traces`]).
pub(crate) fn init_subscriber(
    service_name: &str,
    filter: &str,
    json: bool,
    return_traces: bool,
) -> Result<Telemetry, InitError> {
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::util::SubscriberInitExt;
    use tracing_subscriber::Layer;
    let log_filter = || log_filter_or_info(filter);
    let logs = if json {
        tracing_subscriber::fmt::layer()
            .json()
            .with_writer(std::io::stderr)
            .with_filter(log_filter())
            .boxed()
    } else {
        tracing_subscriber::fmt::layer()
            .with_writer(std::io::stderr)
            .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
            .with_filter(log_filter())
            .boxed()
    };
    #[cfg(not(feature = "otel"))]
    let _ = return_traces;
    #[cfg(feature = "otel")]
    if let Some((exporter, tracer)) = otel::exporter(service_name)? {
        let spans = tracing_opentelemetry::layer()
            .with_tracer(tracer)
            .with_filter(log_filter().with_target(TARGET, Level::DEBUG));
        let _ = tracing_subscriber::registry()
            .with(logs)
            .with(spans)
            .with(passback_layer(return_traces, service_name, log_filter()))
            .try_init();
        return Ok(Telemetry {
            _otel: Some(exporter),
        });
    }
    let _ = service_name;
    #[cfg(feature = "otel")]
    let _ = tracing_subscriber::registry()
        .with(logs)
        .with(passback_layer(return_traces, service_name, log_filter()))
        .try_init();
    #[cfg(not(feature = "otel"))]
    let _ = tracing_subscriber::registry().with(logs).try_init();
    Ok(Telemetry {
        #[cfg(feature = "otel")]
        _otel: None,
    })
}

/// The layer of the spans a request asks back, when the server returns them: the handlers'
/// spans under the log filter, and the request span of a request that asked, made at `INFO`
/// (so the level every request's span is checked against stays what the other layers make
/// it: see [`passback`]).
#[cfg(feature = "otel")]
fn passback_layer<S>(
    on: bool,
    service_name: &str,
    log_filter: Targets,
) -> Option<tracing_subscriber::filter::Filtered<passback::PassbackLayer, Targets, S>>
where
    S: tracing::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
{
    use tracing_subscriber::Layer;
    on.then(|| {
        passback::layer(service_name).with_filter(log_filter.with_target(TARGET, Level::INFO))
    })
}

/// The filter [`init_logging`] applies: `filter`'s directives, or `info` when `filter` is blank
/// (an unset `RUST_LOG`) or does not parse. (A blank string parses as a filter that enables
/// nothing, which would silence every log.)
fn log_filter_or_info(filter: &str) -> Targets {
    parse_log_filter(filter)
        .ok()
        .filter(|_| !filter.trim().is_empty())
        .unwrap_or_else(|| Targets::new().with_default(Level::INFO))
}

/// Parses a log filter (`--log-level`, `RUST_LOG`): comma-separated directives, each a level
/// (`error`, `warn`, `info`, `debug`, `trace`, `off`) or `target=level` (`mcp_runtime=debug`,
/// `mcp::request=debug`); the longest matching target wins, a bare level is the default. This
/// is `tracing_subscriber`'s [`Targets`] syntax: `EnvFilter`'s span and field directives
/// (`target[span{field=value}]=level`) are refused by name, since matching them would build a
/// regex engine into every server for a rarely used feature.
pub fn parse_log_filter(filter: &str) -> Result<Targets, LogFilterError> {
    let filter = filter.trim();
    if filter.contains(['[', '{']) {
        return Err(LogFilterError::SpanOrFieldDirective {
            filter: filter.to_owned(),
        });
    }
    filter
        .parse::<Targets>()
        .map_err(|error| LogFilterError::Syntax {
            filter: filter.to_owned(),
            reason: error.to_string(),
        })
}

/// The environment variable giving the metrics address when `--metrics` is not given (a
/// setting of `entry`'s table).
#[doc(hidden)]
pub const METRICS_ADDR_ENV: &str = "MCP_METRICS_ADDR";

/// Starts the Prometheus endpoint on `addr`, its gauges read from `load` (feature `metrics`);
/// without the feature, an error saying so. `Err` is (exit code, message).
pub fn start_metrics(
    runtime: &tokio::runtime::Runtime,
    load: impl Fn() -> crate::lifecycle::load::Load + Clone + Send + Sync + 'static,
    addr: std::net::SocketAddr,
) -> Result<(), (u8, String)> {
    #[cfg(feature = "metrics")]
    {
        let bound = runtime
            .block_on(metrics::serve(load, addr))
            .map_err(|error| (1, format!("--metrics {addr}: {error}")))?;
        tracing::info!(%bound, "metrics at http://{bound}/metrics");
        Ok(())
    }
    #[cfg(not(feature = "metrics"))]
    {
        let _ = (runtime, load);
        Err((
            2,
            format!(
                "--metrics {addr}: this build has no metrics: rebuild with the `metrics` feature"
            ),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const VALID: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    #[test]
    fn a_blank_or_refused_log_filter_logs_at_info() {
        for blank_or_bad in ["", "  ", "a[span{f=1}]=debug", "=debug=x"] {
            let filter = log_filter_or_info(blank_or_bad);
            assert!(
                filter.would_enable("anything", &Level::INFO),
                "{blank_or_bad:?}"
            );
            assert!(
                !filter.would_enable("anything", &Level::DEBUG),
                "{blank_or_bad:?}"
            );
        }
        let filter = log_filter_or_info("warn,mcp_runtime=debug");
        assert!(filter.would_enable("mcp_runtime::engine", &Level::DEBUG));
        assert!(!filter.would_enable("hyper", &Level::INFO));
    }

    #[test]
    fn a_valid_traceparent_is_read() {
        let trace =
            TraceContext::parse(VALID, Some("rojo=00f067aa0ba902b7,congo=t61rcWkgMzE")).unwrap();
        assert_eq!(trace.trace_id_hex(), "4bf92f3577b34da6a3ce929d0e0e4736");
        assert_eq!(trace.parent_id_hex(), "00f067aa0ba902b7");
        assert!(trace.sampled());
        assert_eq!(trace.traceparent(), VALID);
        assert_eq!(
            trace.tracestate(),
            Some("rojo=00f067aa0ba902b7,congo=t61rcWkgMzE")
        );
        let unsampled = TraceContext::parse(&VALID.replace("-01", "-00"), None).unwrap();
        assert!(!unsampled.sampled() && unsampled.tracestate().is_none());
    }

    #[test]
    fn bad_traceparents_are_ignored() {
        for bad in [
            "",
            "00",
            // Another version, uppercase hex, ids of zeros, wrong lengths and separators.
            "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
            "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-1",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0g",
            "00_4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-é",
        ] {
            assert!(TraceContext::parse(bad, None).is_none(), "{bad:?}");
        }
    }

    #[test]
    fn a_bad_tracestate_is_dropped() {
        let long = "a=".to_string() + &"b".repeat(MAX_TRACESTATE);
        for state in ["", "a=\u{1}", long.as_str(), "é=1"] {
            let trace = TraceContext::parse(VALID, Some(state)).unwrap();
            assert!(trace.tracestate().is_none(), "{state:?}");
        }
    }

    #[cfg(feature = "trace")]
    #[test]
    fn meta_comes_first() {
        let other = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
        let chosen = trace_context(Some((VALID, None)), Some((other, None))).unwrap();
        assert_eq!(chosen.traceparent(), VALID);
        let fallback = trace_context(Some(("bad", None)), Some((other, None))).unwrap();
        assert_eq!(fallback.traceparent(), other);
        assert!(trace_context(None, None).is_none());
    }
}
