//! Reading the upstream's answer: one JSON-RPC response, checked (`jsonrpc`, `id`, exactly
//! one of `result` and `error`), its `result` kept as the upstream wrote it.

use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;
use serde_json::Value;

/// What a body says, before the caller adds the upstream's URL.
#[derive(Debug)]
pub(super) enum Answer {
    /// The `result`, as sent (line breaks between tokens removed: see [`without_line_breaks`]).
    Result(Box<RawValue>),
    /// The `error` object's members.
    Error {
        code: i64,
        message: String,
        data: Option<Value>,
    },
    /// Not one JSON-RPC response: why.
    NotJsonRpc(String),
    /// A response to another request: its `id`, as JSON.
    WrongId(String),
}

/// A JSON-RPC response; any other member is ignored.
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(default)]
    jsonrpc: Option<String>,
    #[serde(default, borrow, deserialize_with = "present")]
    id: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present")]
    result: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present")]
    error: Option<&'a RawValue>,
}

/// A member that is present, `null` included (`"result": null` is a result).
fn present<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(deserializer).map(Some)
}

/// A JSON-RPC error object.
#[derive(Deserialize)]
struct ErrorObject {
    code: i64,
    #[serde(default)]
    message: String,
    #[serde(default)]
    data: Option<Value>,
}

/// Reads `body` as the response to the request `id`.
///
/// Lenient where servers commonly are: a response without `jsonrpc` is read as one (JSON-RPC
/// 1.0 servers such as older bitcoind answer so), and an `"error": null` beside a `result` is
/// no error (as those servers write it). An error's `id` may be `null` (the upstream could not
/// read the request's).
pub(super) fn read(body: &[u8], id: u64) -> Answer {
    // An object only: serde would read a struct from an array too.
    if body.trim_ascii_start().first() != Some(&b'{') {
        return Answer::NotJsonRpc(not_json(body, None));
    }
    let envelope: Envelope<'_> = match serde_json::from_slice(body) {
        Ok(envelope) => envelope,
        Err(error) => return Answer::NotJsonRpc(not_json(body, Some(&error))),
    };
    if let Some(version) = envelope.jsonrpc.as_deref().filter(|v| *v != "2.0") {
        return Answer::NotJsonRpc(format!("\"jsonrpc\" is {version:?}, not \"2.0\""));
    }
    let id_text = envelope.id.map_or("null", RawValue::get);
    let ours = serde_json::from_str::<u64>(id_text).is_ok_and(|got| got == id);
    if let Some(error) = envelope.error.filter(|error| error.get() != "null") {
        if !ours && id_text != "null" {
            return Answer::WrongId(excerpt_of(id_text));
        }
        return match serde_json::from_str::<ErrorObject>(error.get()) {
            Ok(error) => Answer::Error {
                code: error.code,
                message: error.message,
                data: error.data,
            },
            Err(e) => Answer::NotJsonRpc(format!(
                "an \"error\" that is no JSON-RPC error object ({e})"
            )),
        };
    }
    let Some(result) = envelope.result else {
        return Answer::NotJsonRpc("a JSON object with neither \"result\" nor \"error\"".into());
    };
    if !ours {
        return Answer::WrongId(excerpt_of(id_text));
    }
    Answer::Result(without_line_breaks(result))
}

/// Why a body that did not read as a response is not one, for a person.
fn not_json(body: &[u8], error: Option<&serde_json::Error>) -> String {
    let start = body.trim_ascii_start();
    let error = match error {
        Some(error) => error.to_string(),
        None => match serde_json::from_slice::<serde::de::IgnoredAny>(body) {
            Err(error) => error.to_string(),
            Ok(_) => String::new(),
        },
    };
    match start.first() {
        None => "an empty body".into(),
        Some(b'<') => format!("an HTML or XML page ({})", excerpt(start, true)),
        Some(b'[') if serde_json::from_slice::<Value>(body).is_ok() => {
            "a JSON array (a batch), not one response".into()
        }
        Some(b'{') if serde_json::from_slice::<Value>(body).is_ok() => {
            format!("a JSON object that is no JSON-RPC response ({error})")
        }
        _ if serde_json::from_slice::<Value>(body).is_ok() => {
            format!("a JSON value that is no object: {}", excerpt(start, false))
        }
        _ => format!("not JSON ({error}): {}", excerpt(start, false)),
    }
}

/// The most characters of a body an error quotes.
const EXCERPT_CHARS: usize = 200;

/// The start of `body` as one line of text for an error: control characters and runs of
/// whitespace as one space, the tags of an HTML page left out when `html`, at most
/// [`EXCERPT_CHARS`] characters (`...` when cut).
pub(super) fn excerpt(body: &[u8], html: bool) -> String {
    let text = String::from_utf8_lossy(&body[..body.len().min(16 * 1024)]);
    let mut out = String::with_capacity(EXCERPT_CHARS + 3);
    let (mut chars, mut in_tag, mut space) = (0, false, false);
    for c in text.chars() {
        if html && c == '<' {
            in_tag = true;
            space = true;
            continue;
        }
        if in_tag {
            in_tag = c != '>';
            continue;
        }
        if c.is_whitespace() || c.is_control() {
            space = true;
            continue;
        }
        let space_first = space && chars > 0;
        if chars + usize::from(space_first) + 1 > EXCERPT_CHARS {
            out.push_str("...");
            return out;
        }
        if space_first {
            out.push(' ');
            chars += 1;
        }
        space = false;
        out.push(c);
        chars += 1;
    }
    out
}

fn excerpt_of(text: &str) -> String {
    excerpt(text.as_bytes(), false)
}

/// `raw` as the upstream wrote it, but for the whitespace between tokens when it holds a line
/// break: a result travels inside one line on stdio, and a line break can only be whitespace
/// between tokens (JSON strings escape theirs). Nothing else changes: numbers keep their
/// digits, strings their escapes, members their order.
pub(super) fn without_line_breaks(raw: &RawValue) -> Box<RawValue> {
    let text = raw.get();
    if !text.contains(['\n', '\r']) {
        return raw.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let (mut in_string, mut escaped) = (false, false);
    for c in text.chars() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else if c == '"' {
            in_string = true;
            out.push(c);
        } else if !matches!(c, ' ' | '\t' | '\n' | '\r') {
            out.push(c);
        }
    }
    RawValue::from_string(out).unwrap_or_else(|_| raw.to_owned())
}

#[cfg(test)]
impl PartialEq for Answer {
    fn eq(&self, other: &Self) -> bool {
        format!("{self:?}") == format!("{other:?}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(body: &str, id: u64) -> String {
        match read(body.as_bytes(), id) {
            Answer::Result(raw) => raw.get().to_owned(),
            other => panic!("{body}: {other:?}"),
        }
    }

    fn not_json_rpc(body: &str) -> String {
        match read(body.as_bytes(), 1) {
            Answer::NotJsonRpc(why) => why,
            other => panic!("{body}: {other:?}"),
        }
    }

    #[test]
    fn a_result_is_kept_as_written() {
        assert_eq!(
            result(
                r#"{"jsonrpc":"2.0","id":7,"result":{"b": 1.50, "a":"\u00e9"}}"#,
                7
            ),
            r#"{"b": 1.50, "a":"\u00e9"}"#
        );
        assert_eq!(
            result(r#"{"jsonrpc":"2.0","id":7,"result":null}"#, 7),
            "null"
        );
        // JSON-RPC 1.0 style: no `jsonrpc`, `"error": null`.
        assert_eq!(
            result(r#"{"result":"0x1","error":null,"id":3}"#, 3),
            r#""0x1""#
        );
        assert_eq!(
            result("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\n  \"a\": \"x\\ny \\\" \\\\\",\r\n  \"b\": [1, 2]\n}}", 1),
            r#"{"a":"x\ny \" \\","b":[1,2]}"#
        );
    }

    #[test]
    fn an_error_and_its_members() {
        assert_eq!(
            read(
                br#"{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"bad","data":{"x":1}}}"#,
                2
            ),
            Answer::Error {
                code: -32602,
                message: "bad".into(),
                data: Some(serde_json::json!({"x": 1})),
            }
        );
        // The upstream could not read the id.
        assert!(matches!(
            read(
                br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse"}}"#,
                2
            ),
            Answer::Error { code: -32700, .. }
        ));
        assert!(
            not_json_rpc(r#"{"jsonrpc":"2.0","id":1,"error":{"message":"x"}}"#)
                .contains("no JSON-RPC error object")
        );
    }

    #[test]
    fn what_is_no_response() {
        assert!(not_json_rpc("").contains("empty"));
        assert!(
            not_json_rpc("<html><body><h1>502 Bad Gateway</h1></body></html>")
                .contains("HTML or XML page (502 Bad Gateway)")
        );
        assert!(not_json_rpc("[]").contains("array"));
        assert!(not_json_rpc("42").contains("no object: 42"));
        assert!(not_json_rpc("\u{1}garbage\x7f").starts_with("not JSON"));
        assert!(not_json_rpc(r#"{"jsonrpc":"2.0","id":1}"#).contains("neither"));
        assert!(not_json_rpc(r#"{"jsonrpc":"1.0","id":1,"result":1}"#).contains("\"1.0\""));
        assert!(not_json_rpc(r#"{"result":1,"result":2}"#).contains("no JSON-RPC response"));
        assert_eq!(
            read(br#"{"jsonrpc":"2.0","id":8,"result":1}"#, 7),
            Answer::WrongId("8".into())
        );
        assert_eq!(
            read(br#"{"jsonrpc":"2.0","id":"7","result":1}"#, 7),
            Answer::WrongId("\"7\"".into())
        );
        assert_eq!(
            read(br#"{"jsonrpc":"2.0","result":1}"#, 7),
            Answer::WrongId("null".into())
        );
    }

    #[test]
    fn excerpts_are_one_short_line() {
        let long = "word ".repeat(100);
        let cut = excerpt(long.as_bytes(), false);
        assert!(cut.ends_with("...") && cut.chars().count() <= EXCERPT_CHARS + 3);
        assert_eq!(excerpt(b"a\n\n\tb\x00c", false), "a b c");
        assert_eq!(
            excerpt(b"<html>\n<title>Too Many</title> <p>slow down</p>", true),
            "Too Many slow down"
        );
    }
}
