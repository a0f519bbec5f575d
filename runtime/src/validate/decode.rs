//! Decode errors in the words of the schema, with the JSON pointer of the value at fault.
//!
//! Decoding is serde_json's, straight into the generated type. Only when it fails is the text
//! decoded a second time through `serde_path_to_error`, which tracks where the decoder was:
//! a call that decodes pays nothing for the path, a call that does not pays a second decode.

use super::{push_pointer_key, Violations};
use serde::de::DeserializeOwned;

/// Decodes `text` into `T`; on failure, the message says where and what in the schema's words:
/// `/a: expected an integer, got a string`, `/name: is required`.
#[inline]
pub fn decode_with_path<T: DeserializeOwned>(text: &str) -> Result<T, String> {
    match serde_json::from_str(text) {
        Ok(value) => Ok(value),
        Err(error) => Err(decode_error::<T>(text, &error)),
    }
}

/// The message for `error`, which decoding `text` into `T` gave: `text` is decoded again with
/// its path tracked.
#[cold]
#[inline(never)]
pub fn decode_error<T: DeserializeOwned>(text: &str, error: &serde_json::Error) -> String {
    // From bytes, not from `str`: a reader of another type gets serde_json's functions
    // instantiated apart from the fast path's, which then keep their single call site (and
    // their inlining: reading from `str` here too cost every decoding call ~100 instructions).
    let mut deserializer = serde_json::Deserializer::from_slice(text.as_bytes());
    let (pointer, inner) = match serde_path_to_error::deserialize::<_, T>(&mut deserializer) {
        Err(tracked) => (pointer_of(tracked.path()), tracked.into_inner().to_string()),
        // Decoded the second time: cannot be, but the first error is then reported as it is.
        Ok(_) => (String::new(), error.to_string()),
    };
    let mut out = Violations::new();
    let (pointer, keyword, message) = describe(pointer, strip_position(&inner));
    out.push_pointer(pointer, keyword, message);
    out.message()
}

fn pointer_of(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut out = String::new();
    for segment in path.iter() {
        match segment {
            Segment::Seq { index } => {
                out.push('/');
                out.push_str(&index.to_string());
            }
            Segment::Map { key } => push_pointer_key(&mut out, key),
            // An enum's variant is not a level of the JSON; an unknown segment cannot be named.
            Segment::Enum { .. } | Segment::Unknown => {}
        }
    }
    out
}

/// serde_json's message without its ` at line 1 column 9`.
fn strip_position(message: &str) -> &str {
    match message.rfind(" at line ") {
        Some(at) if message[at..].contains(" column ") => &message[..at],
        _ => message,
    }
}

/// The pointer, the keyword and the message for serde's `message` at `pointer`.
fn describe(mut pointer: String, message: &str) -> (String, &'static str, String) {
    if let Some(rest) = message.strip_prefix("invalid type: ") {
        if let Some((got, expected)) = rest.split_once(", expected ") {
            let text = format!(
                "expected {}, got {}",
                expected_text(expected),
                got_text(got)
            );
            return (pointer, "type", text);
        }
    }
    if let Some(rest) = message.strip_prefix("invalid value: ") {
        if let Some((got, expected)) = rest.split_once(", expected ") {
            let text = format!(
                "expected {}, got {}",
                expected_text(expected),
                value_text(got)
            );
            return (pointer, "type", text);
        }
    }
    if let Some(field) = quoted_after(message, "missing field ") {
        push_pointer_key(&mut pointer, field);
        return (pointer, "required", "is required".to_string());
    }
    if let Some(field) = quoted_after(message, "unknown field ") {
        let mut own = String::new();
        push_pointer_key(&mut own, field);
        if !pointer.ends_with(&own) {
            pointer.push_str(&own);
        }
        return (
            pointer,
            "additionalProperties",
            "is not allowed".to_string(),
        );
    }
    if let Some(rest) = message.strip_prefix("unknown variant ") {
        let allowed = rest
            .split_once(", expected one of ")
            .or_else(|| rest.split_once(", expected "))
            // serde writes two values `a` or `b`, more `a`, `b`, `c`.
            .map(|(_, allowed)| allowed.replace("` or `", "`, `").replace('`', "\""));
        let text = match allowed {
            Some(allowed) if allowed.contains(", ") => format!("must be one of {allowed}"),
            Some(allowed) => format!("must be {allowed}"),
            None => "is not an allowed value".to_string(),
        };
        return (pointer, "enum", text);
    }
    if message.starts_with("data did not match any variant of untagged enum") {
        return (
            pointer,
            "oneOf",
            "matches none of the schema's alternatives".to_string(),
        );
    }
    // A generated `oneOf` whose variants overlap decodes by trying each: more than one took it.
    if message.starts_with("data matched more than one variant of oneOf") {
        return (
            pointer,
            "oneOf",
            "matches more than one of the schema's alternatives".to_string(),
        );
    }
    if message.starts_with("duplicate field ") {
        return (pointer, "type", message.to_string());
    }
    (pointer, "type", message.to_string())
}

/// `name` in `` prefix`name`... ``.
fn quoted_after<'m>(message: &'m str, prefix: &str) -> Option<&'m str> {
    let rest = message.strip_prefix(prefix)?.strip_prefix('`')?;
    rest.split_once('`').map(|(name, _)| name)
}

/// What serde says was expected, as the schema says it.
fn expected_text(expected: &str) -> String {
    let text = match expected {
        "i64" | "i128" | "isize" => "an integer",
        "u64" | "u128" | "usize" => "a non-negative integer",
        "i8" => "an integer from -128 to 127",
        "i16" => "an integer from -32768 to 32767",
        "i32" => "an integer from -2147483648 to 2147483647",
        "u8" => "an integer from 0 to 255",
        "u16" => "an integer from 0 to 65535",
        "u32" => "an integer from 0 to 4294967295",
        "f64" | "f32" => "a number",
        "a string" | "a borrowed string" | "variant identifier" | "field identifier" => "a string",
        "a boolean" => "a boolean",
        "a sequence" | "a tuple" => "an array",
        "a map" | "map" | "struct variant" => "an object",
        "unit" => "null",
        other if other.starts_with("struct ") || other.starts_with("internally tagged enum") => {
            "an object"
        }
        other => other,
    };
    text.to_string()
}

/// serde's description of the value found, as its JSON type.
fn got_text(got: &str) -> String {
    let text = match got {
        "null" | "unit value" | "unit" => "null",
        "map" => "an object",
        "sequence" => "an array",
        other if other.starts_with("string ") => "a string",
        other if other.starts_with("integer ") => "an integer",
        other if other.starts_with("floating point ") => "a number",
        other if other.starts_with("boolean ") => "a boolean",
        other => other,
    };
    text.to_string()
}

/// serde's description of a value out of range: the value itself (`integer `300`` is `300`).
fn value_text(got: &str) -> String {
    match got.split_once('`') {
        Some((_, rest)) => rest.trim_end_matches('`').to_string(),
        None => got_text(got),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Params {
        a: i64,
        #[serde(default)]
        small: Option<u8>,
        #[serde(default)]
        tags: Vec<String>,
        #[serde(default)]
        tone: Option<Tone>,
        #[serde(default)]
        inner: Option<Inner>,
    }

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    enum Tone {
        #[serde(rename = "warm")]
        Warm,
        #[serde(rename = "wry")]
        Wry,
    }

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Inner {
        #[serde(rename = "x/y")]
        x: bool,
    }

    fn error(text: &str) -> String {
        decode_with_path::<Params>(text).unwrap_err()
    }

    #[test]
    fn messages_name_the_pointer_and_the_json_types() {
        assert_eq!(
            error(r#"{"a":"1"}"#),
            "/a: expected an integer, got a string"
        );
        assert_eq!(error(r#"{"a":null}"#), "/a: expected an integer, got null");
        assert_eq!(
            error(r#"{"a":1.5}"#),
            "/a: expected an integer, got a number"
        );
        assert_eq!(error(r#"{}"#), "/a: is required");
        assert_eq!(error(r#"{"a":1,"b":2}"#), "/b: is not allowed");
        assert_eq!(
            error(r#"{"a":1,"small":300}"#),
            "/small: expected an integer from 0 to 255, got 300"
        );
        assert_eq!(
            error(r#"{"a":1,"tags":["x",2]}"#),
            "/tags/1: expected a string, got an integer"
        );
        assert_eq!(
            error(r#"{"a":1,"tone":"cold"}"#),
            r#"/tone: must be one of "warm", "wry""#
        );
        assert_eq!(
            error(r#"{"a":1,"inner":{"x/y":"no"}}"#),
            "/inner/x~1y: expected a boolean, got a string"
        );
        assert_eq!(error(r#"{"a":1,"inner":{}}"#), "/inner/x~1y: is required");
        assert_eq!(
            error(r#"{"a":1,"tags":{}}"#),
            "/tags: expected an array, got an object"
        );
    }

    #[test]
    fn decoding_that_works_is_unchanged() {
        let params: Params = decode_with_path(r#"{"a":1,"tags":["x"]}"#).unwrap();
        assert_eq!(params.a, 1);
    }
}
