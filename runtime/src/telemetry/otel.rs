//! The `otel` feature: request spans exported over OTLP (HTTP/protobuf), each a child of the
//! client's span when the request carried a W3C trace context.
//!
//! On when `OTEL_EXPORTER_OTLP_ENDPOINT` is set at start (spans go to `{endpoint}/v1/traces`;
//! `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, `OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_SERVICE_NAME` and
//! `OTEL_RESOURCE_ATTRIBUTES` are read as the OpenTelemetry SDK reads them). The exporter
//! sends batches from a thread of its own, never from the server's runtime.

use opentelemetry::trace::{
    SpanContext, SpanId, TraceContextExt, TraceFlags, TraceId, TraceState, TracerProvider as _,
};
use opentelemetry_sdk::trace::SdkTracerProvider;
use opentelemetry_sdk::Resource;
use tracing::Span;
use tracing_opentelemetry::OpenTelemetrySpanExt;

use super::TraceContext;

/// The variable that turns the exporter on.
#[doc(hidden)]
pub const ENDPOINT_ENV: &str = "OTEL_EXPORTER_OTLP_ENDPOINT";

/// The exporter's handle: flushes and stops it when dropped.
pub(crate) struct Exporter(SdkTracerProvider);

impl Drop for Exporter {
    fn drop(&mut self) {
        if let Err(error) = self.0.shutdown() {
            eprintln!("warning: the OTLP exporter did not flush its spans: {error}");
        }
    }
}

/// The exporter and its tracer, when `OTEL_EXPORTER_OTLP_ENDPOINT` is set (an exporter that
/// cannot be built is an error naming the variable).
pub(crate) fn exporter(
    service_name: &str,
) -> Result<Option<(Exporter, opentelemetry_sdk::trace::Tracer)>, super::InitError> {
    if std::env::var_os(ENDPOINT_ENV).is_none_or(|endpoint| endpoint.is_empty()) {
        return Ok(None);
    }
    let exporter = opentelemetry_otlp::SpanExporter::builder()
        .with_http()
        .build()
        .map_err(|error| super::InitError::OtlpExporter {
            reason: error.to_string(),
        })?;
    let mut resource = Resource::builder();
    if std::env::var_os("OTEL_SERVICE_NAME").is_none() {
        resource = resource.with_service_name(service_name.to_string());
    }
    let provider = SdkTracerProvider::builder()
        .with_batch_exporter(exporter)
        .with_resource(resource.build())
        .build();
    let tracer = provider.tracer("mcp-runtime");
    Ok(Some((Exporter(provider), tracer)))
}

/// Makes `span` a child of the client's span: its trace id, and the client's span as parent.
pub(crate) fn continue_trace(span: &Span, trace: &TraceContext) {
    let state = trace
        .tracestate()
        .and_then(|state| state.parse::<TraceState>().ok())
        .unwrap_or_default();
    let remote = SpanContext::new(
        TraceId::from_bytes(trace.trace_id()),
        SpanId::from_bytes(trace.parent_id()),
        TraceFlags::new(trace.flags()),
        true,
        state,
    );
    // Not an error when no OpenTelemetry layer sees this span (spans logged only).
    let _ = span.set_parent(opentelemetry::Context::new().with_remote_span_context(remote));
}
