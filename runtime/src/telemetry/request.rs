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
#[cfg(feature = "otel")]
use super::passback::{self, Capture};
use super::{TraceContext, TraceHeaders, Transport, SPAN_NAME, TARGET};
use crate::json::JsonText;
use crate::jsonrpc::RpcError;
use crate::protocol::ProtocolVersion;

/// What a request asked of server-execution telemetry (feature `otel`; without it, nothing a
/// request can hold).
#[cfg(feature = "otel")]
pub(crate) use super::passback::Asked;
/// What a request asked of server-execution telemetry: nothing, without feature `otel`.
#[cfg(not(feature = "otel"))]
#[derive(Clone, Copy)]
pub(crate) enum Asked {}

/// The trace context of a request from where it may come: `_meta` first (it travels with the
/// message, over any transport), else the HTTP headers.
pub(crate) fn trace_context(
    meta: Option<(&str, Option<&str>)>,
    headers: Option<(&str, Option<&str>)>,
) -> Option<TraceContext> {
    meta.and_then(|(parent, state)| TraceContext::parse(parent, state))
        .or_else(|| headers.and_then(|(parent, state)| TraceContext::parse(parent, state)))
}

/// The telemetry of a request that does not go through `Engine::start` (`initialize`, the
/// plain JSON-RPC endpoint): its trace context, from `_meta` in `params` or from the HTTP
/// `headers` (params that never mention `traceparent` are not parsed), and its
/// [`RequestTrace`] when [`wanted`] (`method` as the span names it, `label` as the metrics
/// do, `id` the request's, `None` for a notification or where the caller does not have it).
pub(crate) fn start_outside_engine(
    method: &str,
    label: &'static str,
    era: &'static str,
    transport: Transport,
    id: Option<&RawValue>,
    params: Option<&RawValue>,
    headers: TraceHeaders<'_>,
) -> (Option<Arc<TraceContext>>, Option<Box<RequestTrace>>) {
    let context = trace_context(trace_meta(params), headers.value).map(Arc::new);
    let trace = wanted().then(|| {
        RequestTrace::start(Start {
            method,
            label,
            era,
            transport,
            id,
            session: None,
            version: None,
            trace: context.as_deref(),
            passback: None,
        })
    });
    (context, trace)
}

/// The `uri` member of raw params (`resources/subscribe`, `resources/unsubscribe`), for
/// `mcp.resource.uri`: parsed only when the request's telemetry is on.
pub(crate) fn uri_of(params: Option<&RawValue>) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Uri {
        uri: String,
    }
    serde_json::from_str::<Uri>(params?.get())
        .ok()
        .map(|params| params.uri)
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

/// The span's `era` of a request of the plain JSON-RPC endpoint (`config.endpoints.jsonrpc_path`),
/// which has no MCP era (an MCP request's is `Era::name`, in `engine/era.rs`).
pub(crate) const PLAIN_JSONRPC_ERA: &str = "jsonrpc";

/// How a request ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ending {
    Ok,
    /// A `tools/call` answered with a result whose `isError` is true (`error.type`
    /// `tool_error`; the JSON-RPC outcome is still `ok`).
    ToolError,
    Error(i32),
    /// Dropped before it answered: `notifications/cancelled`, `tasks/cancel`, the session
    /// or the connection gone.
    Cancelled,
}

impl Ending {
    /// `ok`, `error` or `cancelled`: the JSON-RPC outcome (a tool error is `ok`).
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Ending::Ok | Ending::ToolError => "ok",
            Ending::Error(_) => "error",
            Ending::Cancelled => "cancelled",
        }
    }
}

/// What a request's telemetry starts from ([`RequestTrace::start`]).
pub(crate) struct Start<'a> {
    /// The method as the client named it (`mcp.method.name`).
    pub(crate) method: &'a str,
    /// The method as a metrics label: a name from the runtime's table, or `other`.
    pub(crate) label: &'static str,
    /// The era's name: `Era::name` (`engine/era.rs`), or [`PLAIN_JSONRPC_ERA`].
    pub(crate) era: &'static str,
    pub(crate) transport: Transport,
    /// The request's id (`None` for a notification).
    pub(crate) id: Option<&'a RawValue>,
    /// The session's id (fingerprinted here, never recorded).
    pub(crate) session: Option<&'a str>,
    /// The protocol revision, when the era knows it (`mcp.protocol.version`).
    pub(crate) version: Option<ProtocolVersion>,
    pub(crate) trace: Option<&'a TraceContext>,
    /// The request asked for its spans back, and the server returns them
    /// (`config.telemetry.return_traces`).
    pub(crate) passback: Option<Asked>,
}

/// One request's telemetry while it runs: its span (possibly disabled, when only metrics are
/// on), when it started, and how it ended. Made only when [`wanted`]; boxed in the request's
/// work, so that telemetry off costs the work one null pointer.
pub(crate) struct RequestTrace {
    span: Span,
    started: Instant,
    /// The method as a metrics label (`other` for names the runtime does not know: a label
    /// must not take any value a client sends).
    label: &'static str,
    #[cfg_attr(not(feature = "metrics"), allow(dead_code))]
    transport: Transport,
    ending: Ending,
    /// The spans kept for the result, when the request asked for them (feature `otel`).
    #[cfg(feature = "otel")]
    passback: Option<Arc<Capture>>,
}

/// The request span, at `$level`, its fields named by the OpenTelemetry semantic conventions
/// for MCP. One call site per level: a request that asks for its spans gets its span at `INFO`
/// (see `passback`), the others at `DEBUG`.
macro_rules! request_span {
    ($level:expr, $start:expr) => {
        tracing::span!(
            target: TARGET,
            $level,
            SPAN_NAME,
            otel.name = $start.method,
            otel.kind = "server",
            otel.status_code = Empty,
            mcp.method.name = $start.method,
            gen_ai.tool.name = Empty,
            gen_ai.operation.name = Empty,
            gen_ai.prompt.name = Empty,
            mcp.resource.uri = Empty,
            jsonrpc.request.id = Empty,
            mcp.session.id = Empty,
            mcp.protocol.version = $start.version.map(ProtocolVersion::as_str),
            network.transport = $start.transport.as_str(),
            network.protocol.name = $start.transport.protocol_name(),
            error.type = Empty,
            rpc.response.status_code = Empty,
            era = $start.era,
            trace_id = Empty,
            parent_span_id = Empty,
            outcome = Empty,
            duration_us = Empty,
        )
    };
}

impl RequestTrace {
    /// Starts the telemetry of a request (call only when [`wanted`]), its span's fields named
    /// by the OpenTelemetry semantic conventions for MCP (docs/telemetry.md lists them).
    #[inline(never)]
    pub(crate) fn start(start: Start<'_>) -> Box<Self> {
        let span = match start.passback {
            Some(_) => request_span!(Level::INFO, start),
            None => request_span!(Level::DEBUG, start),
        };
        if !span.is_disabled() {
            if let Some(id) = start.id {
                span.record("jsonrpc.request.id", id_text(id).as_ref());
            }
            if let Some(session) = start.session {
                span.record("mcp.session.id", crate::ids::fingerprint(session));
            }
            if start.label == TOOLS_CALL {
                span.record("gen_ai.operation.name", "execute_tool");
            }
            if let Some(trace) = start.trace {
                span.record("trace_id", trace.trace_id_hex());
                span.record("parent_span_id", trace.parent_id_hex());
                #[cfg(feature = "otel")]
                otel::continue_trace(&span, trace);
            }
        }
        #[cfg(feature = "otel")]
        let passback = start
            .passback
            .and_then(|asked| Capture::begin(&span, asked, start.trace));
        Box::new(Self {
            span,
            started: Instant::now(),
            label: start.label,
            transport: start.transport,
            ending: Ending::Cancelled,
            #[cfg(feature = "otel")]
            passback,
        })
    }

    /// The span, when it is enabled (the request's work then runs inside it).
    pub(crate) fn span(&self) -> Option<&Span> {
        (!self.span.is_disabled()).then_some(&self.span)
    }

    /// Records the session (fingerprinted) the request created (`initialize`), and the
    /// revision it negotiated.
    pub(crate) fn session(&self, id: &str, version: ProtocolVersion) {
        if !self.span.is_disabled() {
            self.span
                .record("mcp.session.id", crate::ids::fingerprint(id));
            self.span.record("mcp.protocol.version", version.as_str());
        }
    }

    /// Records what the request names: the tool (`gen_ai.tool.name`, and the span is renamed
    /// `tools/call {name}`), the prompt (likewise), or the resource's URI (`mcp.resource.uri`,
    /// not in the span's name: URIs are unbounded).
    pub(crate) fn name(&self, name: Option<&str>) {
        let Some(name) = name else { return };
        if self.span.is_disabled() {
            return;
        }
        let field = match self.label {
            TOOLS_CALL => "gen_ai.tool.name",
            "prompts/get" => "gen_ai.prompt.name",
            "resources/read" | "resources/subscribe" | "resources/unsubscribe" => {
                self.span.record("mcp.resource.uri", name);
                return;
            }
            _ => return,
        };
        self.span.record(field, name);
        self.span
            .record("otel.name", format!("{} {name}", self.label));
    }

    /// The request answered: with a result, or with `error` (recorded when `self` drops).
    pub(crate) fn end(&mut self, error: Option<&RpcError>) {
        self.ending = match error {
            None => Ending::Ok,
            Some(error) => Ending::Error(error.code),
        };
    }

    /// [`end`](Self::end) with the result's encoded text: a `tools/call` result with
    /// `"isError":true` ends as a tool error (searched for only here, with telemetry on).
    pub(crate) fn end_with(&mut self, result: Result<&str, &RpcError>) {
        match result {
            Ok(text) if self.label == TOOLS_CALL && is_tool_error(text) => {
                self.ending = Ending::ToolError;
            }
            Ok(_) => self.end(None),
            Err(error) => self.end(Some(error)),
        }
    }

    /// The result, with the request's spans in its `_meta.otel.traces` when it asked for them
    /// (call after [`end_with`](Self::end_with): the request span ends with its outcome). An
    /// error answers without spans.
    pub(crate) fn pass_back(
        &self,
        result: Result<JsonText, RpcError>,
    ) -> Result<JsonText, RpcError> {
        #[cfg(feature = "otel")]
        if let Some(capture) = &self.passback {
            let error = match self.ending {
                Ending::ToolError => Some("tool_error"),
                _ => None,
            };
            return result.map(|text| passback::attach(text, &capture.finish(error)));
        }
        result
    }
}

const TOOLS_CALL: &str = "tools/call";

/// The id as text (`jsonrpc.request.id`): a string's value, a number's digits.
fn id_text(id: &RawValue) -> std::borrow::Cow<'_, str> {
    let raw = id.get();
    if raw.starts_with('"') {
        if let Ok(text) = serde_json::from_str::<std::borrow::Cow<'_, str>>(raw) {
            return text;
        }
    }
    raw.into()
}

/// Whether a `tools/call` result says `"isError": true`. A key of the result object: inside a
/// JSON string a quote is escaped, so `"isError"` followed by a colon is a key. (A nested
/// `structuredContent` member of that name would count too; results do not have one in
/// practice.)
fn is_tool_error(result: &str) -> bool {
    const KEY: &str = "\"isError\"";
    let mut rest = result;
    while let Some(at) = rest.find(KEY) {
        rest = &rest[at + KEY.len()..];
        if let Some(value) = rest.trim_start().strip_prefix(':') {
            return value.trim_start().starts_with("true");
        }
    }
    false
}

impl Drop for RequestTrace {
    fn drop(&mut self) {
        // Whatever ended the request (an answer, an error, a cancellation, a dropped
        // connection), its captured spans go now.
        #[cfg(feature = "otel")]
        if let Some(capture) = &self.passback {
            capture.close();
        }
        let elapsed = self.started.elapsed();
        if !self.span.is_disabled() {
            self.span.record("outcome", self.ending.as_str());
            self.span.record(
                "duration_us",
                u64::try_from(elapsed.as_micros()).unwrap_or(u64::MAX),
            );
            match self.ending {
                Ending::Error(code) => {
                    let code = code.to_string();
                    self.span.record("error.type", code.as_str());
                    self.span.record("rpc.response.status_code", code.as_str());
                    self.span.record("otel.status_code", "error");
                }
                Ending::ToolError => {
                    self.span.record("error.type", "tool_error");
                    self.span.record("otel.status_code", "error");
                }
                Ending::Ok | Ending::Cancelled => {}
            }
        }
        #[cfg(feature = "metrics")]
        metrics::request_ended(self.label, self.transport, self.ending, elapsed);
    }
}

/// `_meta.traceparent` and `_meta.tracestate` of any request's params (feature `trace`). Params that never
/// mention one are not parsed (the engine asks only when the request's span is on, or for a
/// call whose params were not read with the envelope).
#[cfg(feature = "trace")]
pub(crate) fn trace_meta(params: Option<&RawValue>) -> Option<(&str, Option<&str>)> {
    use serde::Deserialize;
    #[derive(Deserialize)]
    struct MetaOnly<'a> {
        #[serde(rename = "_meta", borrow, default)]
        meta: Option<TraceOnly<'a>>,
    }
    #[derive(Deserialize)]
    struct TraceOnly<'a> {
        #[serde(borrow, default, deserialize_with = "crate::json::lenient_str")]
        traceparent: Option<&'a str>,
        #[serde(borrow, default, deserialize_with = "crate::json::lenient_str")]
        tracestate: Option<&'a str>,
    }
    let params = params.filter(|p| p.get().contains("traceparent"))?;
    let parsed: MetaOnly<'_> = serde_json::from_str(params.get()).ok()?;
    let meta = parsed.meta?;
    Some((meta.traceparent?, meta.tracestate))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tool_error_is_found_in_the_result_and_nowhere_else() {
        for (result, expected) in [
            (r#"{"content":[],"isError":true}"#, true),
            (r#"{"isError" : true ,"content":[]}"#, true),
            (r#"{"content":[],"isError":false}"#, false),
            (r#"{"content":[]}"#, false),
            // In a text block the quotes are escaped: not a key.
            (
                r#"{"content":[{"type":"text","text":"\"isError\":true"}]}"#,
                false,
            ),
            (
                r#"{"content":[{"type":"text","text":"\"isError\""}],"isError":true}"#,
                true,
            ),
        ] {
            assert_eq!(is_tool_error(result), expected, "{result}");
        }
    }

    #[test]
    fn an_id_is_its_text() {
        let raw = |text: &str| RawValue::from_string(text.to_string()).unwrap();
        assert_eq!(id_text(&raw("7")), "7");
        assert_eq!(id_text(&raw(r#""a\"b""#)), "a\"b");
        assert_eq!(id_text(&raw("-1.5")), "-1.5");
    }
}
