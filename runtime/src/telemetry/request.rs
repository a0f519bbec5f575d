//! The per-request part of telemetry (feature `trace`): the span, the trace context read from
//! the request, the request's ending for the metrics.

use std::sync::Arc;
use std::time::Instant;

use serde_json::value::RawValue;

use tracing::field::Empty;
use tracing::level_filters::{LevelFilter, STATIC_MAX_LEVEL};
use tracing::{Level, Span};

#[cfg(feature = "metrics")]
use super::metrics;
#[cfg(feature = "otel")]
use super::otel;
use super::{TraceContext, TraceHeaders, SPAN_NAME, TARGET};
use crate::jsonrpc::RpcError;

/// The trace context of a request from where it may come: `_meta` first (it travels with the
/// message, over any transport), else the HTTP headers.
pub(crate) fn trace_context(
    meta: Option<(&str, Option<&str>)>,
    headers: Option<(&str, Option<&str>)>,
) -> Option<TraceContext> {
    meta.and_then(|(parent, state)| TraceContext::parse(parent, state))
        .or_else(|| headers.and_then(|(parent, state)| TraceContext::parse(parent, state)))
}

/// The telemetry of a request that does not go through `Engine::start_as` (`initialize`, the
/// plain JSON-RPC endpoint): its trace context, from `_meta` in `params` or from the HTTP
/// `headers` (params that never mention `traceparent` are not parsed), and its
/// [`RequestTrace`] when [`wanted`] (`method` as the span names it, `label` as the metrics
/// do).
pub(crate) fn start_outside_engine(
    method: &str,
    label: &'static str,
    era: EraName,
    params: Option<&RawValue>,
    headers: TraceHeaders<'_>,
) -> (Option<Arc<TraceContext>>, Option<Box<RequestTrace>>) {
    let context = trace_context(crate::params::trace_meta(params), headers.value).map(Arc::new);
    let trace = wanted().then(|| RequestTrace::start(method, label, era, None, context.as_deref()));
    (context, trace)
}

/// Whether a request needs a [`RequestTrace`]: the span's level is on somewhere, or metrics are
/// recorded. The one check a request of a `trace` build makes when the span is off.
#[inline]
pub(crate) fn wanted() -> bool {
    (STATIC_MAX_LEVEL >= Level::DEBUG && LevelFilter::current() >= Level::DEBUG) || metrics_on()
}

#[inline]
fn metrics_on() -> bool {
    #[cfg(feature = "metrics")]
    {
        metrics::on()
    }
    #[cfg(not(feature = "metrics"))]
    {
        false
    }
}

/// Which era a request belongs to, as the span names it.
#[derive(Clone, Copy)]
pub(crate) enum EraName {
    Session,
    Stateless,
    /// The plain JSON-RPC endpoint (`Config::jsonrpc_path`): no MCP era.
    JsonRpc,
}

impl EraName {
    fn as_str(self) -> &'static str {
        match self {
            EraName::Session => "session",
            EraName::Stateless => "stateless",
            EraName::JsonRpc => "jsonrpc",
        }
    }
}

/// How a request ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ending {
    Ok,
    Error(i32),
    /// Dropped before it answered: `notifications/cancelled`, `tasks/cancel`, the session
    /// or the connection gone.
    Cancelled,
}

impl Ending {
    /// `ok`, `error` or `cancelled`.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Ending::Ok => "ok",
            Ending::Error(_) => "error",
            Ending::Cancelled => "cancelled",
        }
    }
}

/// One request's telemetry while it runs: its span (possibly disabled, when only metrics are
/// on), when it started, and how it ended. Made only when [`wanted`]; boxed in the request's
/// work, so that telemetry off costs the work one null pointer.
pub(crate) struct RequestTrace {
    span: Span,
    started: Instant,
    /// The method as a metrics label (`other` for names the runtime does not know: a label
    /// must not take any value a client sends).
    #[cfg_attr(not(feature = "metrics"), allow(dead_code))]
    label: &'static str,
    ending: Ending,
}

impl RequestTrace {
    /// Starts the telemetry of a request (call only when [`wanted`]). `session` is the
    /// session's id (fingerprinted here), `name` the tool's or prompt's name or the resource's
    /// URI.
    #[inline(never)]
    pub(crate) fn start(
        method: &str,
        label: &'static str,
        era: EraName,
        session: Option<&str>,
        trace: Option<&TraceContext>,
    ) -> Box<Self> {
        let span = tracing::span!(
            target: TARGET,
            Level::DEBUG,
            SPAN_NAME,
            otel.name = method,
            otel.kind = "server",
            otel.status_code = Empty,
            method,
            name = Empty,
            era = era.as_str(),
            session = Empty,
            trace_id = Empty,
            parent_span_id = Empty,
            outcome = Empty,
            error_code = Empty,
            duration_us = Empty,
        );
        if !span.is_disabled() {
            if let Some(session) = session {
                span.record("session", crate::ids::fingerprint(session));
            }
            if let Some(trace) = trace {
                span.record("trace_id", trace.trace_id_hex());
                span.record("parent_span_id", trace.parent_id_hex());
                #[cfg(feature = "otel")]
                otel::continue_trace(&span, trace);
            }
        }
        Box::new(Self {
            span,
            started: Instant::now(),
            label,
            ending: Ending::Cancelled,
        })
    }

    /// The span, when it is enabled (the request's work then runs inside it).
    pub(crate) fn span(&self) -> Option<&Span> {
        (!self.span.is_disabled()).then_some(&self.span)
    }

    /// Records the session (fingerprinted) the request created (`initialize`).
    pub(crate) fn session(&self, id: &str) {
        if !self.span.is_disabled() {
            self.span.record("session", crate::ids::fingerprint(id));
        }
    }

    /// Records the tool's or prompt's name, or the resource's URI.
    pub(crate) fn name(&self, name: Option<&str>) {
        if let Some(name) = name {
            self.span.record("name", name);
        }
    }

    /// The request answered: with a result, or with `error` (recorded when `self` drops).
    pub(crate) fn end(&mut self, error: Option<&RpcError>) {
        self.ending = match error {
            None => Ending::Ok,
            Some(error) => Ending::Error(error.code),
        };
    }
}

impl Drop for RequestTrace {
    fn drop(&mut self) {
        let elapsed = self.started.elapsed();
        if !self.span.is_disabled() {
            self.span.record("outcome", self.ending.as_str());
            self.span.record(
                "duration_us",
                u64::try_from(elapsed.as_micros()).unwrap_or(u64::MAX),
            );
            if let Ending::Error(code) = self.ending {
                self.span.record("error_code", code);
                self.span.record("otel.status_code", "error");
            }
        }
        #[cfg(feature = "metrics")]
        metrics::request_ended(self.label, self.ending, elapsed);
    }
}
