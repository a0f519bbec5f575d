//! The one JSON-RPC reader (`engine/incoming.rs`) against a plain `serde_json::Value` reading.
//!
//! For any bytes, [`check_body`] reads them as the HTTP transport does
//! (`mcp_runtime::fuzzing::read_body`) and derives what the reader must answer from
//! `serde_json::from_slice::<Value>` of the same bytes: the same accept/reject decision (and
//! error code), the same id, method and params value, and the same answer from every view the
//! engine takes of the params (`is_object_or_absent`, `has_meta`, `meta_version`, the call's
//! members), whichever of its paths (members read in the envelope pass, or raw text read
//! later) the reader took.
//!
//! # Intended differences (the reader is right; the reference is adjusted)
//!
//! - **I1, duplicate members.** An envelope member (`jsonrpc`, `id`, `method`, `params`,
//!   `result`, `error`) written twice is `-32600`; so is a member the runtime reads itself
//!   written twice inside a call's params or their `_meta` (`-32602` from `into_members`).
//!   `Value` keeps the last one. Refusing is deliberate: two readers of one message must never
//!   see different members.
//! - **I2, skipped values are checked for syntax only.** What the reader keeps as raw text or
//!   skips (ids, params, results, unknown members) is checked as `serde::de::IgnoredAny`
//!   checks it: numbers beyond `f64`, lone UTF-16 surrogate escapes and nesting deeper than
//!   serde_json's recursion limit (128) pass there, while `Value` refuses the whole message
//!   (`-32700`). The reader then accepts or refuses (never panics); the method's own type
//!   decides later when it reads the params.
//!
//! # Known differences (bugs, reported; the reference encodes today's behaviour)
//!
//! - **B1 (fixed), escaped `method` / `jsonrpc`.** serde_json cannot borrow a string with an
//!   escape (`"method":"tools\/call"`: PHP's `json_encode` escapes `/` by default); such a
//!   name is looked up among the names the runtime knows, and an unknown one reads as a
//!   placeholder (it cannot be served anyway).
//! - **B2, escaped `_meta` probes.** For raw params, `has_meta` and `meta_version` first look
//!   for the literal text `"_meta"` / `io.modelcontextprotocol/protocolVersion`; a key written
//!   with an escape is missed (no `_meta`, no version).
//! - **B3 (fixed), escaped `_meta` protocol version.** Read like B1's names.
//! - **B4, arrays read by position.** The `_meta` probes and `RequestMeta` are derived
//!   structs, which also take a JSON array by position: `"_meta":["2026-07-28"]` has protocol
//!   version `2026-07-28` for the runtime, none for `Value`; raw params `[{"x":1}]` that
//!   mention `"_meta"` anywhere have a `_meta` for `has_meta`. Views of such params are not
//!   compared.
//! - **B5, a notification's params read as a call's members.** When the method known before
//!   the params (the body's, or the one `Mcp-Method` announced) is a call, the params are read
//!   as its members; if the message turns out to be a notification (no id), its params are
//!   lost (`None`). No notification is a call, a request whose body differs from `Mcp-Method`
//!   is refused by the era's check, and a stateless notification is only acknowledged, so
//!   nothing reads them today.

use mcp_runtime::fuzzing::{self, Body, Members, Message, Params};
use serde::de::{IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::fmt;

const VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";
const CAPABILITIES_KEY: &str = "io.modelcontextprotocol/clientCapabilities";
const LOG_LEVEL_KEY: &str = "io.modelcontextprotocol/logLevel";
const ENVELOPE: [&str; 6] = ["jsonrpc", "id", "method", "params", "result", "error"];
const PARAMS_MEMBERS: [&str; 7] = [
    "_meta",
    "name",
    "uri",
    "arguments",
    "taskId",
    "inputResponses",
    "requestState",
];
const META_MEMBERS: [&str; 4] = [
    VERSION_KEY,
    CAPABILITIES_KEY,
    LOG_LEVEL_KEY,
    "progressToken",
];
const CALLS: [&str; 3] = ["tools/call", "prompts/get", "resources/read"];
const LOG_LEVELS: [&str; 8] = [
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
];

/// Checks the reader on `bytes`, with `announced` as the `Mcp-Method` header's method.
pub fn check_body(bytes: &[u8], announced: Option<&str>) {
    let got = fuzzing::read_body(bytes, announced);
    let Ok(text) = std::str::from_utf8(bytes) else {
        assert_eq!(got, Body::NotUtf8, "{bytes:?}");
        return;
    };
    let context = || format!("input {text:?}, announced {announced:?}, read {got:?}");
    match serde_json::from_str::<Value>(text) {
        Err(_) if serde_json::from_str::<IgnoredAny>(text).is_ok() => {
            // I2: the reader may take what `Value` refuses; it did not panic.
        }
        Err(_) => assert!(
            matches!(got, Body::Single(Err(-32700)) | Body::Batch(Err(-32700))),
            "not JSON, so -32700: {}",
            context()
        ),
        Ok(Value::Array(items)) => {
            let Body::Batch(read) = &got else {
                panic!("an array is a batch: {}", context())
            };
            if items.is_empty() {
                assert_eq!(read, &Err(-32600), "an empty batch: {}", context());
                return;
            }
            let read = read
                .as_ref()
                .unwrap_or_else(|_| panic!("a batch: {}", context()));
            let elements: Vec<&RawValue> = serde_json::from_str(text).expect("an array");
            assert_eq!(read.len(), elements.len(), "{}", context());
            for (element, read) in elements.iter().zip(read) {
                check_message(element.get(), None, read);
            }
        }
        Ok(_) => {
            let Body::Single(read) = &got else {
                panic!("not an array, so not a batch: {}", context())
            };
            check_message(text, announced, read);
        }
    }
}

/// The method names the runtime knows, written here independently of it.
const KNOWN_NAMES: [&str; 23] = [
    "initialize",
    "ping",
    "logging/setLevel",
    "resources/subscribe",
    "resources/unsubscribe",
    "server/discover",
    "subscriptions/listen",
    "tools/list",
    "prompts/list",
    "resources/list",
    "resources/templates/list",
    "tools/call",
    "prompts/get",
    "resources/read",
    "completion/complete",
    "tasks/get",
    "tasks/update",
    "tasks/cancel",
    "notifications/initialized",
    "notifications/cancelled",
    "notifications/progress",
    "notifications/roots/list_changed",
    "notifications/message",
];

/// What an unknown method name written with escapes reads as.
const UNKNOWN_ESCAPED: &str = "(a name written with escapes)";

/// How the runtime reads a protocol version written `escaped` or not (B3): a known version
/// is itself, an unknown one written with escapes a placeholder.
fn version_spelling(version: &str, escaped: bool) -> &str {
    const KNOWN: [&str; 4] = ["2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"];
    if !escaped || KNOWN.contains(&version) {
        version
    } else {
        UNKNOWN_ESCAPED
    }
}

/// Checks one message the reader read as `got`; `text` is valid JSON.
fn check_message(text: &str, announced: Option<&str>, got: &Result<Message, i32>) {
    let context = || format!("message {text:?}, announced {announced:?}, read {got:?}");
    let expected_error = |code: i32, why: &str| {
        assert_eq!(got, &Err(code), "{why}: {}", context());
    };
    let Ok(pairs) = serde_json::from_str::<Pairs>(text) else {
        return expected_error(-32600, "not an object");
    };
    // I1: an envelope member written twice.
    if ENVELOPE.iter().any(|name| pairs.count(name) > 1) {
        return expected_error(-32600, "a member written twice (I1)");
    }
    let object: Map<String, Value> = serde_json::from_str(text).expect("an object");
    match object.get("jsonrpc") {
        Some(Value::String(v)) if v == "2.0" => {}
        _ => return expected_error(-32600, "jsonrpc is not \"2.0\""),
    }
    let method = match object.get("method") {
        None => None,
        // B1 (fixed): a known name written with escapes is that name; an unknown one cannot
        // be served and reads as a placeholder.
        Some(Value::String(method)) if pairs.escaped("method") => Some(
            KNOWN_NAMES
                .into_iter()
                .find(|known| known == method)
                .unwrap_or(UNKNOWN_ESCAPED),
        ),
        Some(Value::String(method)) => Some(method.as_str()),
        Some(_) => return expected_error(-32600, "a method that is not a string"),
    };
    let id = object.get("id");
    if id.is_some_and(|id| !(id.is_string() || id.is_number())) {
        return expected_error(-32600, "an id that is neither a string nor a number");
    }
    let params = object.get("params").filter(|p| !p.is_null());
    let same_json = |raw: &str, value: &Value| {
        let read: Value = serde_json::from_str(raw)
            .unwrap_or_else(|e| panic!("the reader kept {raw:?}, not JSON ({e}): {}", context()));
        assert_eq!(&read, value, "{}", context());
    };
    match (method, id) {
        (Some(method), Some(id)) => {
            let Ok(Message::Request {
                id: read_id,
                method: read_method,
                params: read_params,
            }) = got
            else {
                panic!("a request: {}", context())
            };
            same_json(read_id, id);
            assert_eq!(read_method, method, "{}", context());
            check_params(read_params, params, pairs.raw("params"), &context());
        }
        (Some(method), None) => {
            let Ok(Message::Notification {
                method: read_method,
                params: read_params,
            }) = got
            else {
                panic!("a notification: {}", context())
            };
            assert_eq!(read_method, method, "{}", context());
            match (read_params, params) {
                (Some(raw), Some(params)) => same_json(raw, params),
                (None, None) => {}
                // B5: params read as a call's members are lost.
                (None, Some(Value::Object(_)))
                    if CALLS.contains(&method) || announced.is_some_and(|a| CALLS.contains(&a)) => {
                }
                _ => panic!("params differ: {}", context()),
            }
        }
        (None, Some(id)) => {
            let answer = match (object.get("result"), object.get("error")) {
                (Some(result), None) => Ok(result),
                (None, Some(error)) => Err(error),
                _ => return expected_error(-32600, "not exactly one of result and error"),
            };
            let Ok(Message::Response {
                id: read_id,
                answer: read_answer,
            }) = got
            else {
                panic!("a response: {}", context())
            };
            same_json(read_id, id);
            match (read_answer, answer) {
                (Ok(raw), Ok(result)) => same_json(raw, result),
                (Err(read), Err(error)) => assert_eq!(read, error, "{}", context()),
                _ => panic!("result and error swapped: {}", context()),
            }
        }
        (None, None) => expected_error(-32600, "neither method nor id"),
    }
}

/// Checks every view of a request's params against their `Value`; `raw` is their text.
fn check_params(read: &Params, params: Option<&Value>, raw: Option<&str>, context: &str) {
    match (&read.raw, params) {
        (Some(text), Some(params)) => {
            assert!(!read.read_as_members, "{context}");
            let value: Value = serde_json::from_str(text).expect("raw params are JSON");
            assert_eq!(&value, params, "raw params: {context}");
        }
        (Some(_), None) => panic!("raw params where there are none: {context}"),
        (None, Some(_)) => assert!(read.read_as_members, "params lost: {context}"),
        (None, None) => {}
    }
    if read.read_as_members {
        assert!(
            params.is_none_or(Value::is_object),
            "members from params that are no object: {context}"
        );
    }
    assert_eq!(
        read.is_object_or_absent,
        params.is_none_or(Value::is_object),
        "is_object_or_absent: {context}"
    );
    let object = params.and_then(Value::as_object);
    let meta = object.and_then(|o| o.get("_meta"));
    let raw = raw.unwrap_or("");
    // B4: arrays where derived structs read `params` or `_meta` by position.
    if params.is_some_and(Value::is_array) || meta.is_some_and(Value::is_array) {
        return;
    }
    let pairs = serde_json::from_str::<Pairs>(raw).ok();
    let meta_pairs = pairs
        .as_ref()
        .and_then(|p| p.raw("_meta"))
        .and_then(|m| serde_json::from_str::<Pairs>(m).ok());
    // Read raw, a probe that fails (a duplicate member, I1) answers "none"; B2: the probes
    // look for the literal key first.
    let probe = |key: &str| {
        read.read_as_members
            || (raw.contains(key) && pairs.as_ref().is_some_and(|p| p.count("_meta") == 1))
    };
    let has_meta = meta.is_some_and(|m| !m.is_null()) && probe("\"_meta\"");
    assert_eq!(read.has_meta, has_meta, "has_meta: {context}");
    let version_readable = meta_pairs
        .as_ref()
        .is_none_or(|m| m.count(VERSION_KEY) <= 1);
    let version_escaped = meta_pairs.as_ref().is_some_and(|m| m.escaped(VERSION_KEY));
    let meta_version = meta
        .and_then(|m| m.get(VERSION_KEY))
        .and_then(Value::as_str)
        .map(|version| version_spelling(version, version_escaped))
        .filter(|_| version_readable && probe(VERSION_KEY));
    assert_eq!(
        read.meta_version.as_deref(),
        meta_version,
        "meta_version: {context}"
    );
    let expected = expected_members(params, raw).map_err(|why| (-32602, why));
    match (&read.members, &expected) {
        (Ok(members), Ok(expected)) => compare_members(members, expected, context),
        (Err(code), Err((expected, _))) => assert_eq!(code, expected, "{context}"),
        (got, expected) => panic!("members {got:?}, expected {expected:?}: {context}"),
    }
}

/// The members as `Value` reads them, or why `into_members` refuses them.
fn expected_members(params: Option<&Value>, raw: &str) -> Result<ExpectedMembers, String> {
    let Some(params) = params else {
        return Ok(ExpectedMembers::default());
    };
    let Value::Object(object) = params else {
        return Err("params are not an object".into());
    };
    let pairs: Pairs = serde_json::from_str(raw).expect("params are an object");
    if PARAMS_MEMBERS.iter().any(|name| pairs.count(name) > 1) {
        return Err("a member written twice (I1)".into());
    }
    let text = |name: &str| match object.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => Ok(Some(text.clone())),
        Some(_) => Err(format!("{name} is not a string")),
    };
    let json = |name: &str| object.get(name).filter(|v| !v.is_null()).cloned();
    let mut members = ExpectedMembers {
        name: text("name")?,
        uri: text("uri")?,
        arguments: json("arguments"),
        task_id: text("taskId")?,
        input_responses: json("inputResponses"),
        request_state: text("requestState")?,
        ..ExpectedMembers::default()
    };
    match object.get("_meta") {
        None | Some(Value::Null) => {}
        Some(Value::Object(meta)) => {
            let meta_raw = pairs.raw("_meta").expect("_meta is there");
            let meta_pairs: Pairs = serde_json::from_str(meta_raw).expect("an object");
            if META_MEMBERS.iter().any(|name| meta_pairs.count(name) > 1) {
                return Err("a _meta member written twice (I1)".into());
            }
            members.has_meta = true;
            members.protocol_version = match meta.get(VERSION_KEY) {
                None | Some(Value::Null) => None,
                Some(Value::String(version)) => {
                    Some(version_spelling(version, meta_pairs.escaped(VERSION_KEY)).to_string())
                }
                Some(_) => return Err("the protocol version is not a string".into()),
            };
            members.client_capabilities =
                meta.get(CAPABILITIES_KEY).filter(|v| !v.is_null()).cloned();
            members.progress_token = meta.get("progressToken").filter(|v| !v.is_null()).cloned();
            match meta.get(LOG_LEVEL_KEY) {
                None | Some(Value::Null) => {}
                Some(Value::String(level)) if LOG_LEVELS.contains(&level.as_str()) => {}
                Some(_) => return Err("not a log level".into()),
            }
        }
        Some(_) => return Err("_meta is neither an object nor null".into()),
    }
    Ok(members)
}

#[derive(Debug, Default)]
struct ExpectedMembers {
    name: Option<String>,
    uri: Option<String>,
    arguments: Option<Value>,
    task_id: Option<String>,
    input_responses: Option<Value>,
    request_state: Option<String>,
    has_meta: bool,
    protocol_version: Option<String>,
    client_capabilities: Option<Value>,
    progress_token: Option<Value>,
}

fn compare_members(read: &Members, expected: &ExpectedMembers, context: &str) {
    let json = |raw: &Option<String>| {
        raw.as_deref()
            .map(|raw| serde_json::from_str::<Value>(raw).expect("raw members are JSON"))
    };
    assert_eq!(read.name, expected.name, "name: {context}");
    assert_eq!(read.uri, expected.uri, "uri: {context}");
    assert_eq!(
        json(&read.arguments),
        expected.arguments,
        "arguments: {context}"
    );
    assert_eq!(read.task_id, expected.task_id, "taskId: {context}");
    assert_eq!(
        json(&read.input_responses),
        expected.input_responses,
        "inputResponses: {context}"
    );
    assert_eq!(
        read.request_state, expected.request_state,
        "requestState: {context}"
    );
    assert_eq!(read.has_meta, expected.has_meta, "_meta: {context}");
    assert_eq!(
        read.protocol_version, expected.protocol_version,
        "protocol version: {context}"
    );
    assert_eq!(
        json(&read.client_capabilities),
        expected.client_capabilities,
        "client capabilities: {context}"
    );
    assert_eq!(
        json(&read.progress_token),
        expected.progress_token,
        "progress token: {context}"
    );
}

/// An object's members in order, duplicates kept, each value as its JSON text: what a
/// one-pass reader sees, which `Value` (last member wins) hides.
struct Pairs(Vec<(String, Box<RawValue>)>);

impl Pairs {
    fn count(&self, name: &str) -> usize {
        self.0.iter().filter(|(key, _)| key == name).count()
    }

    /// The text of the last `name` (the one `Value` keeps).
    fn raw(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .rev()
            .find(|(key, _)| key == name)
            .map(|(_, raw)| raw.get())
    }

    /// Whether the last `name` is a string written with an escape.
    fn escaped(&self, name: &str) -> bool {
        self.raw(name)
            .is_some_and(|raw| raw.starts_with('"') && raw.contains('\\'))
    }
}

impl<'de> Deserialize<'de> for Pairs {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct PairsVisitor;
        impl<'de> Visitor<'de> for PairsVisitor {
            type Value = Pairs;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Pairs, A::Error> {
                let mut pairs = Vec::new();
                while let Some(entry) = map.next_entry::<String, Box<RawValue>>()? {
                    pairs.push(entry);
                }
                Ok(Pairs(pairs))
            }
        }
        deserializer.deserialize_map(PairsVisitor)
    }
}
