//! The capture of one request's spans: a `tracing` layer that copies the request span (made at
//! `INFO` for a request that asked) and its descendants into the request's [`Capture`].

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::SystemTime;

use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Level, Span, Subscriber};
use tracing_subscriber::layer::Context;
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::Layer;

use super::otlp::{self, AttrValue, SpanRecord};
use super::{Asked, MAX_BYTES, MAX_SPANS};
use crate::telemetry::{TraceContext, SPAN_NAME, TARGET};

/// Captures live now (a test's view of "nothing kept after the call").
static LIVE: AtomicUsize = AtomicUsize::new(0);

/// The layer that records the spans of requests that asked for them. The runtime's subscriber
/// has it when the server returns traces ([`crate::telemetry::init_logging`]); an application
/// with its own subscriber adds it (its filter must let `mcp::request` at `INFO` through, and
/// the handler spans it wants returned).
pub struct PassbackLayer {
    service_name: Arc<str>,
}

/// The layer, naming the server `service_name` (the returned `service.name`) unless
/// `OTEL_SERVICE_NAME` is set.
pub fn layer(service_name: &str) -> PassbackLayer {
    let name = std::env::var("OTEL_SERVICE_NAME")
        .ok()
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| service_name.to_owned());
    PassbackLayer {
        service_name: name.into(),
    }
}

impl PassbackLayer {
    /// How many captures are alive in the process (each freed when its request ends and its
    /// spans close): 0 between calls.
    pub fn live_captures() -> usize {
        LIVE.load(Ordering::Relaxed)
    }
}

/// One span while it is open: what becomes its OTLP record when it closes.
struct Recorded {
    name: String,
    start: SystemTime,
    attributes: Vec<(&'static str, AttrValue)>,
    kind: u8,
    status: Option<(u8, Option<String>)>,
}

impl Recorded {
    fn new(attrs: &Attributes<'_>, kind: u8) -> Self {
        let mut recorded = Self {
            name: attrs.metadata().name().to_owned(),
            start: SystemTime::now(),
            attributes: Vec::new(),
            kind,
            status: None,
        };
        attrs.record(&mut recorded);
        recorded
    }

    fn set(&mut self, key: &'static str, value: AttrValue) {
        match self.attributes.iter_mut().find(|(k, _)| *k == key) {
            Some(slot) => slot.1 = value,
            None => self.attributes.push((key, value)),
        }
    }
}

impl Visit for Recorded {
    fn record_str(&mut self, field: &Field, value: &str) {
        match field.name() {
            "otel.name" => self.name = value.to_owned(),
            "otel.kind" => {
                self.kind = if value == "server" {
                    otlp::KIND_SERVER
                } else {
                    otlp::KIND_INTERNAL
                }
            }
            "otel.status_code" => {
                let code = if value.eq_ignore_ascii_case("error") {
                    otlp::STATUS_ERROR
                } else {
                    otlp::STATUS_OK
                };
                self.status = Some((code, self.status.take().and_then(|s| s.1)));
            }
            "otel.status_message" => {
                let code = self.status.as_ref().map_or(otlp::STATUS_ERROR, |s| s.0);
                self.status = Some((code, Some(value.to_owned())));
            }
            // The ids are the span's own, in the record itself.
            "trace_id" | "parent_span_id" => {}
            name => self.set(name, AttrValue::text(value)),
        }
    }

    fn record_i64(&mut self, field: &Field, value: i64) {
        self.set(field.name(), AttrValue::Int(value));
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        match i64::try_from(value) {
            Ok(value) => self.set(field.name(), AttrValue::Int(value)),
            Err(_) => self.set(field.name(), AttrValue::text(&value.to_string())),
        }
    }

    fn record_bool(&mut self, field: &Field, value: bool) {
        self.set(field.name(), AttrValue::Bool(value));
    }

    fn record_f64(&mut self, field: &Field, value: f64) {
        self.set(field.name(), AttrValue::Double(value));
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.record_str(field, &format!("{value:?}"));
    }
}

/// The request span's mark: its capture.
struct Root(Arc<Capture>);

/// A captured descendant while it is open.
struct Node {
    capture: Arc<Capture>,
    id: [u8; 8],
    parent: [u8; 8],
    depth: u32,
    span: Recorded,
}

/// One request's captured spans: the request span's record, the descendants closed so far
/// (encoded), and what was dropped. Bounded by [`MAX_SPANS`] and [`MAX_BYTES`]; emptied when the
/// request ends ([`Capture::close`]).
pub(crate) struct Capture {
    service_name: Arc<str>,
    state: Mutex<State>,
}

struct State {
    trace_id: [u8; 16],
    /// The client's span (from `traceparent`), the request span's parent.
    parent: Option<[u8; 8]>,
    root_id: [u8; 8],
    /// The next descendant's id (`root_id` plus a count: unique within the trace).
    next_id: u64,
    detailed: bool,
    /// False once the request ended: spans closing later are not kept.
    open: bool,
    root: Recorded,
    spans: Vec<String>,
    bytes: usize,
    dropped: usize,
}

impl Capture {
    fn new(service_name: Arc<str>, root: Recorded) -> Self {
        let mut ids = [0u8; 24];
        crate::ids::random_bytes(&mut ids);
        let (trace_id, root_id) = ids.split_at(16);
        LIVE.fetch_add(1, Ordering::Relaxed);
        Self {
            service_name,
            state: Mutex::new(State {
                trace_id: trace_id.try_into().expect("16 bytes"),
                parent: None,
                root_id: root_id.try_into().expect("8 bytes"),
                next_id: 0,
                detailed: false,
                open: true,
                root,
                spans: Vec::new(),
                bytes: 0,
                dropped: 0,
            }),
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // A panic while the lock was held left nothing half-written worth refusing.
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The capture of `span` (a request span made for a request that asked), set up for what
    /// it asked and continuing the client's trace; `None` when no [`PassbackLayer`] saw it.
    pub(crate) fn begin(
        span: &Span,
        asked: Asked,
        trace: Option<&TraceContext>,
    ) -> Option<Arc<Capture>> {
        let capture = span.with_subscriber(|(id, dispatch)| {
            let registry = dispatch.downcast_ref::<tracing_subscriber::Registry>()?;
            let data = registry.span(id)?;
            let root = data.extensions().get::<Root>().map(|root| root.0.clone());
            root
        })??;
        {
            let mut state = capture.state();
            state.detailed = asked.detailed;
            if let Some(trace) = trace {
                state.trace_id = trace.trace_id();
                state.parent = Some(trace.parent_id());
            }
        }
        Some(capture)
    }

    /// The `_meta.otel.traces` value (OTLP JSON) of the spans so far: the request span, ended
    /// now with `error` (its `error.type`) or OK, then its closed descendants in the order they
    /// closed, as many as the bounds allow.
    pub(crate) fn finish(&self, error: Option<&str>) -> String {
        let state = self.state();
        let mut attributes = state.root.attributes.clone();
        if let Some(error) = error {
            attributes.retain(|(key, _)| *key != "error.type");
            attributes.push(("error.type", AttrValue::text(error)));
        }
        let root = SpanRecord {
            trace_id: &state.trace_id,
            span_id: &state.root_id,
            parent_id: state.parent.as_ref(),
            name: &state.root.name,
            kind: otlp::KIND_SERVER,
            start: state.root.start,
            end: SystemTime::now(),
            attributes: &attributes,
            status: Some(match error {
                Some(error) => (otlp::STATUS_ERROR, Some(error)),
                None => (otlp::STATUS_OK, None),
            }),
        }
        .encode();
        let mut budget = MAX_BYTES
            .saturating_sub(otlp::envelope_overhead(&self.service_name))
            .saturating_sub(root.len());
        let mut spans = vec![root.as_str()];
        let mut dropped = state.dropped;
        for span in &state.spans {
            // The comma before it counts too.
            if span.len() < budget && spans.len() < MAX_SPANS {
                budget -= span.len() + 1;
                spans.push(span);
            } else {
                dropped += 1;
            }
        }
        otlp::envelope(&self.service_name, &spans, dropped)
    }

    /// The request ended: what is kept is freed, and spans closing later are not kept.
    pub(crate) fn close(&self) {
        let mut state = self.state();
        state.open = false;
        state.spans = Vec::new();
    }

    /// A descendant closed: kept, encoded, while the bounds allow; else counted.
    fn closed(&self, node: Node) {
        let mut state = self.state();
        if !state.open {
            return;
        }
        // The request span takes one of the places.
        if state.spans.len() + 1 >= MAX_SPANS {
            state.dropped += 1;
            return;
        }
        let span = SpanRecord {
            trace_id: &state.trace_id,
            span_id: &node.id,
            parent_id: Some(&node.parent),
            name: &node.span.name,
            kind: node.span.kind,
            start: node.span.start,
            end: SystemTime::now(),
            attributes: &node.span.attributes,
            status: node
                .span
                .status
                .as_ref()
                .map(|(code, message)| (*code, message.as_deref())),
        }
        .encode();
        if state.bytes + span.len() > MAX_BYTES {
            state.dropped += 1;
            return;
        }
        state.bytes += span.len();
        state.spans.push(span);
    }

    /// A new descendant's id, when it is kept: depth 1 always, deeper only `detailed`; none
    /// once the capture is full (counted as dropped now, so that a handler opening many spans
    /// costs no record for those that could never be returned; their descendants are not seen).
    fn child(&self, depth: u32) -> Option<[u8; 8]> {
        let mut state = self.state();
        if !state.open || (depth > 1 && !state.detailed) {
            return None;
        }
        if state.spans.len() + 1 >= MAX_SPANS || state.bytes >= MAX_BYTES {
            state.dropped += 1;
            return None;
        }
        state.next_id += 1;
        let id = u64::from_be_bytes(state.root_id)
            .wrapping_add(state.next_id)
            .max(1);
        Some(id.to_be_bytes())
    }

    fn root_id(&self) -> [u8; 8] {
        self.state().root_id
    }
}

impl Drop for Capture {
    fn drop(&mut self) {
        LIVE.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Whether `attrs` is the request span of a request that asked: `mcp.request` made at `INFO`
/// (the span is `DEBUG` otherwise).
fn is_asking_request(attrs: &Attributes<'_>) -> bool {
    let meta = attrs.metadata();
    meta.target() == TARGET && meta.name() == SPAN_NAME && *meta.level() == Level::INFO
}

impl<S: Subscriber + for<'a> LookupSpan<'a>> Layer<S> for PassbackLayer {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let Some(span) = ctx.span(id) else { return };
        if is_asking_request(attrs) {
            let root = Recorded::new(attrs, otlp::KIND_SERVER);
            let capture = Capture::new(self.service_name.clone(), root);
            span.extensions_mut().insert(Root(Arc::new(capture)));
            return;
        }
        let parent = if let Some(parent) = attrs.parent() {
            ctx.span(parent)
        } else if attrs.is_contextual() {
            ctx.lookup_current()
        } else {
            None
        };
        let Some(parent) = parent else { return };
        let (capture, parent_id, depth) = {
            let extensions = parent.extensions();
            if let Some(root) = extensions.get::<Root>() {
                (root.0.clone(), root.0.root_id(), 1)
            } else if let Some(node) = extensions.get::<Node>() {
                (node.capture.clone(), node.id, node.depth + 1)
            } else {
                return;
            }
        };
        let Some(own_id) = capture.child(depth) else {
            return;
        };
        let node = Node {
            capture,
            id: own_id,
            parent: parent_id,
            depth,
            span: Recorded::new(attrs, otlp::KIND_INTERNAL),
        };
        span.extensions_mut().insert(node);
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, ctx: Context<'_, S>) {
        let Some(span) = ctx.span(id) else { return };
        let mut extensions = span.extensions_mut();
        if let Some(node) = extensions.get_mut::<Node>() {
            values.record(&mut node.span);
        } else if let Some(root) = extensions.get_mut::<Root>() {
            values.record(&mut root.0.state().root);
        }
    }

    fn on_close(&self, id: Id, ctx: Context<'_, S>) {
        let Some(span) = ctx.span(&id) else { return };
        let node = span.extensions_mut().remove::<Node>();
        if let Some(node) = node {
            node.capture.clone().closed(node);
        }
    }
}
