//! Server-execution telemetry (draft SEP-2448, feature `otel`): a client that puts
//! `"otel": {"traces": {"request": true}}` in a `tools/call`, `prompts/get` or `resources/read`
//! request's `_meta` gets the spans the server recorded for that call back in the result's
//! `_meta.otel.traces`, as OTLP/JSON `resourceSpans` it can post to its own collector.
//!
//! Off unless the server opts in (`--return-traces`, [`crate::config::Telemetry::return_traces`]):
//! spans name the handler's internals (its span names, its attributes, its timings). On, a request
//! that does not ask pays one member of `_meta` it already parses; one that asks gets its request
//! span made at `INFO` (so [`layer`] sees it whatever the log level), and [`layer`] copies that
//! span and its descendants into a capture bounded by [`MAX_SPANS`] and
//! [`MAX_BYTES`], freed when the request ends however it ends.
//!
//! Where the draft is silent, the choices are: truncation is said by `droppedSpansCount` next
//! to `resourceSpans`; error responses carry no spans (an `isError` result does); span events
//! are not returned; the span ids are the capture's own (not those an OTLP exporter of the same
//! server sends).

mod capture;
mod otlp;

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::json::JsonText;

pub(crate) use capture::Capture;
pub use capture::{layer, PassbackLayer};

/// Most spans one result carries, the request span included; the others are counted in
/// `droppedSpansCount`.
#[doc(hidden)]
pub const MAX_SPANS: usize = 64;

/// Most bytes of the `_meta.otel.traces` value one result carries (its OTLP JSON); spans past
/// it are dropped and counted.
#[doc(hidden)]
pub const MAX_BYTES: usize = 64 * 1024;

/// A string attribute longer than this many bytes is cut (at a character boundary), so that
/// one attribute cannot take a result's whole budget.
#[doc(hidden)]
pub const MAX_VALUE_BYTES: usize = 512;

/// The capability the draft has a server advertise (`serverExecutionTelemetry`), as the
/// `initialize` result's capabilities member carries it when the server returns traces.
#[doc(hidden)]
pub const CAPABILITY: &str = "serverExecutionTelemetry";

/// The draft's schema version of the capability.
#[doc(hidden)]
pub const CAPABILITY_VERSION: &str = "2026-03-01";

/// The capability's value (`{"version": …, "signals": {"traces": {"supported": true}}}`).
pub fn capability() -> Value {
    serde_json::json!({
        "version": CAPABILITY_VERSION,
        "signals": {"traces": {"supported": true}},
    })
}

/// What a request asked for in `_meta.otel.traces`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Asked {
    /// `detailed: true`: the whole tree under the request span; else (the draft's default)
    /// the request span and its direct children.
    pub(crate) detailed: bool,
}

/// Reads a request's `_meta.otel`: `Some` when it is `{"traces": {"request": true, …}}`
/// (`detailed` a boolean when present). Anything else (another shape, `request` false or not a
/// boolean) is not asking, never an error.
pub(crate) fn asked(otel: &RawValue) -> Option<Asked> {
    #[derive(Deserialize)]
    struct Otel {
        traces: Option<Traces>,
    }
    #[derive(Deserialize)]
    struct Traces {
        request: Option<Value>,
        detailed: Option<Value>,
    }
    let otel: Otel = serde_json::from_str(otel.get()).ok()?;
    let traces = otel.traces?;
    (traces.request? == Value::Bool(true)).then(|| Asked {
        detailed: traces.detailed == Some(Value::Bool(true)),
    })
}

/// [`asked`] as a `serde` member reader (`_meta.otel` of the request's params): any value is
/// read, and one that does not ask is `None`, never an error.
pub(crate) fn asked_member<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Asked>, D::Error> {
    let raw: &'de RawValue = Deserialize::deserialize(deserializer)?;
    Ok(asked(raw))
}

/// `result` (a JSON object) with `traces` (OTLP JSON text) as its `_meta.otel.traces`, the
/// result's other `_meta` members kept. A result that is not an object, or whose `_meta` is
/// not one, is returned as it is.
pub(crate) fn attach(result: JsonText, traces: &str) -> JsonText {
    let Ok(mut object) = serde_json::from_str::<Map<String, Value>>(result.get()) else {
        return result;
    };
    let Ok(traces) = serde_json::from_str::<Value>(traces) else {
        return result;
    };
    let meta = object
        .entry("_meta")
        .or_insert_with(|| Value::Object(Map::new()));
    let Some(meta) = meta.as_object_mut() else {
        return result;
    };
    let mut otel = Map::new();
    otel.insert("traces".into(), traces);
    meta.insert("otel".into(), Value::Object(otel));
    JsonText::of(&object).unwrap_or(result)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(text: &str) -> Box<RawValue> {
        RawValue::from_string(text.to_string()).unwrap()
    }

    #[test]
    fn only_request_true_asks() {
        for (otel, expected) in [
            (r#"{"traces":{"request":true}}"#, Some(false)),
            (r#"{"traces":{"detailed":true,"request":true}}"#, Some(true)),
            (
                r#"{"traces":{"request":true,"detailed":"yes"}}"#,
                Some(false),
            ),
            (r#"{"traces":{"request":false,"detailed":true}}"#, None),
            (r#"{"traces":{"request":"true"}}"#, None),
            (r#"{"traces":true}"#, None),
            (r#"{"metrics":{"request":true}}"#, None),
            (r#"[1]"#, None),
        ] {
            assert_eq!(asked(&raw(otel)).map(|a| a.detailed), expected, "{otel}");
        }
    }

    #[test]
    fn traces_join_the_results_meta() {
        let result = JsonText::of(&serde_json::json!({
            "content": [], "_meta": {"keep": 1, "otel": "replaced"}
        }))
        .unwrap();
        let joined: Value =
            serde_json::from_str(attach(result, r#"{"resourceSpans":[]}"#).get()).unwrap();
        assert_eq!(joined["_meta"]["keep"], 1);
        assert_eq!(
            joined["_meta"]["otel"]["traces"]["resourceSpans"],
            serde_json::json!([])
        );
        let odd = JsonText::of(&serde_json::json!({"_meta": 3})).unwrap();
        assert_eq!(attach(odd, "{}").get(), r#"{"_meta":3}"#);
    }
}
