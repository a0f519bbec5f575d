//! The OTLP/JSON encoding of recorded spans (<https://opentelemetry.io/docs/specs/otlp/>):
//! hex ids, nanosecond times and 64-bit integers as decimal strings, enums as numbers.

use std::fmt::Write as _;
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{json, Map, Value};

use super::MAX_VALUE_BYTES;

/// `SPAN_KIND_INTERNAL`: a handler's span.
pub(super) const KIND_INTERNAL: u8 = 1;
/// `SPAN_KIND_SERVER`: the request span.
pub(super) const KIND_SERVER: u8 = 2;
/// `STATUS_CODE_OK`.
pub(super) const STATUS_OK: u8 = 1;
/// `STATUS_CODE_ERROR`.
pub(super) const STATUS_ERROR: u8 = 2;

/// An attribute's value, as `tracing` recorded it.
#[derive(Clone, Debug)]
pub(super) enum AttrValue {
    Str(String),
    Int(i64),
    Bool(bool),
    Double(f64),
}

impl AttrValue {
    /// A string value, cut to [`MAX_VALUE_BYTES`] at a character boundary.
    pub(super) fn text(value: &str) -> Self {
        let mut end = value.len().min(MAX_VALUE_BYTES);
        while !value.is_char_boundary(end) {
            end -= 1;
        }
        AttrValue::Str(value[..end].to_owned())
    }

    fn to_json(&self) -> Value {
        match self {
            AttrValue::Str(text) => json!({ "stringValue": text }),
            AttrValue::Int(n) => json!({ "intValue": n.to_string() }),
            AttrValue::Bool(b) => json!({ "boolValue": b }),
            AttrValue::Double(x) => json!({ "doubleValue": x }),
        }
    }
}

/// One span, ready to encode.
pub(super) struct SpanRecord<'a> {
    pub trace_id: &'a [u8; 16],
    pub span_id: &'a [u8; 8],
    pub parent_id: Option<&'a [u8; 8]>,
    pub name: &'a str,
    pub kind: u8,
    pub start: SystemTime,
    pub end: SystemTime,
    pub attributes: &'a [(&'static str, AttrValue)],
    /// The status code (`None`: unset) and its message.
    pub status: Option<(u8, Option<&'a str>)>,
}

impl SpanRecord<'_> {
    /// The span as OTLP/JSON text.
    pub(super) fn encode(&self) -> String {
        let mut span = Map::new();
        span.insert("traceId".into(), crate::ids::hex(self.trace_id).into());
        span.insert("spanId".into(), crate::ids::hex(self.span_id).into());
        if let Some(parent) = self.parent_id {
            span.insert("parentSpanId".into(), crate::ids::hex(parent).into());
        }
        span.insert("name".into(), self.name.into());
        span.insert("kind".into(), self.kind.into());
        span.insert("startTimeUnixNano".into(), nanos(self.start).into());
        span.insert("endTimeUnixNano".into(), nanos(self.end).into());
        let attributes: Vec<Value> = self
            .attributes
            .iter()
            .map(|(key, value)| json!({ "key": key, "value": value.to_json() }))
            .collect();
        span.insert("attributes".into(), attributes.into());
        if let Some((code, message)) = self.status {
            let mut status = json!({ "code": code });
            if let Some(message) = message {
                status["message"] = message.into();
            }
            span.insert("status".into(), status);
        }
        Value::Object(span).to_string()
    }
}

/// A time as nanoseconds since the Unix epoch, in decimal (a `fixed64` in OTLP/JSON).
fn nanos(time: SystemTime) -> String {
    time.duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_nanos())
        .to_string()
}

/// The `_meta.otel.traces` value: one resource (`service.name`), one scope (this crate), the
/// encoded `spans`; `droppedSpansCount` when some were left out (the draft has no field for it).
pub(super) fn envelope(service_name: &str, spans: &[&str], dropped: usize) -> String {
    let resource = json!({
        "attributes": [{ "key": "service.name", "value": { "stringValue": service_name } }]
    });
    let scope = json!({ "name": "mcp-runtime", "version": env!("CARGO_PKG_VERSION") });
    let mut text = format!(
        r#"{{"resourceSpans":[{{"resource":{resource},"scopeSpans":[{{"scope":{scope},"spans":["#
    );
    for (i, span) in spans.iter().enumerate() {
        if i > 0 {
            text.push(',');
        }
        text.push_str(span);
    }
    text.push_str("]}]}]");
    if dropped > 0 {
        let _ = write!(text, r#","droppedSpansCount":{dropped}"#);
    }
    text.push('}');
    text
}

/// The bytes [`envelope`] adds around its spans (for `droppedSpansCount`, at most 40 more).
pub(super) fn envelope_overhead(service_name: &str) -> usize {
    envelope(service_name, &[], 0).len() + 40
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_span_is_otlp_json() {
        let start = UNIX_EPOCH + Duration::from_nanos(1_710_000_000_000_000_001);
        let text = SpanRecord {
            trace_id: &[0xab; 16],
            span_id: &[1; 8],
            parent_id: Some(&[2; 8]),
            name: "tools/call echo",
            kind: KIND_SERVER,
            start,
            end: start + Duration::from_millis(5),
            attributes: &[
                ("a", AttrValue::text("x")),
                ("n", AttrValue::Int(-3)),
                ("b", AttrValue::Bool(true)),
            ],
            status: Some((STATUS_ERROR, Some("tool_error"))),
        }
        .encode();
        let span: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(span["traceId"], "ab".repeat(16));
        assert_eq!(span["spanId"], "0101010101010101");
        assert_eq!(span["parentSpanId"], "0202020202020202");
        assert_eq!(span["kind"], 2);
        assert_eq!(span["startTimeUnixNano"], "1710000000000000001");
        assert_eq!(span["endTimeUnixNano"], "1710000000005000001");
        assert_eq!(span["attributes"][1]["value"]["intValue"], "-3");
        assert_eq!(span["attributes"][2]["value"]["boolValue"], true);
        assert_eq!(span["status"]["code"], 2);
        let whole: Value = serde_json::from_str(&envelope("svc", &[&text], 3)).unwrap();
        assert_eq!(whole["droppedSpansCount"], 3);
        assert_eq!(whole["resourceSpans"][0]["scopeSpans"][0]["spans"][0], span);
        assert!(envelope("svc", &[], 0).len() < envelope_overhead("svc"));
    }

    #[test]
    fn long_text_is_cut_on_a_character() {
        let long = "é".repeat(MAX_VALUE_BYTES);
        let AttrValue::Str(cut) = AttrValue::text(&long) else {
            unreachable!()
        };
        assert!(cut.len() <= MAX_VALUE_BYTES && cut.len() >= MAX_VALUE_BYTES - 1);
    }
}
