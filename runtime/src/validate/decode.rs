//! Decode errors in the words of the schema, with the JSON pointer of the value at fault.
//!
//! Decoding is serde_json's, straight into the generated type. Only when it fails is the text
//! read again (`super::problem`): a scan of the JSON up to where serde_json stopped, which
//! knows the member or item it was in. That scan is the same code for every type, compiled
//! once here; re-decoding with the path tracked (`serde_path_to_error`) would instead compile
//! every type's `Deserialize` a second time into every generated server.

use super::problem::problem;
use super::{DecodeError, Violations};
use serde::de::DeserializeOwned;

/// Decodes `text` into `T`; on failure, the error says where and what in the schema's words,
/// for every problem found: `/a: expected an integer, got a string; /name: is required` (its
/// `to_string()`; [`DecodeError::violations`] gives each problem's pointer and message).
#[inline]
#[doc(hidden)]
pub fn decode_with_path<T: DeserializeOwned>(text: &str) -> Result<T, DecodeError> {
    match serde_json::from_str(text) {
        Ok(value) => Ok(value),
        Err(error) => Err(decode_errors(text, &error, &|again| {
            serde_json::from_str::<T>(again).err()
        })),
    }
}

/// Every problem of `text`, whose decode failed with `error`; `retry` decodes another text
/// into the same type (see [`super::every_problem`]).
#[cold]
#[inline(never)]
fn decode_errors(
    text: &str,
    error: &serde_json::Error,
    retry: &dyn Fn(&str) -> Option<serde_json::Error>,
) -> DecodeError {
    let first = problem(text, error);
    let mut out = Violations::new();
    for found in super::every_problem::every_problem(text, first, retry) {
        out.push_pointer(found.pointer, found.keyword, found.message);
    }
    DecodeError::new(out)
}

/// The message for `error`, which decoding `text` gave: the value at fault is the one
/// serde_json was reading at the error's position. (The first problem only; a decode through
/// [`decode_with_path`] reports them all.)
#[cold]
#[inline(never)]
#[doc(hidden)]
pub fn decode_error(text: &str, error: &serde_json::Error) -> String {
    let found = problem(text, error);
    let mut out = Violations::new();
    out.push_pointer(found.pointer, found.keyword, found.message);
    out.message()
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
        decode_with_path::<Params>(text).unwrap_err().to_string()
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
        assert_eq!(
            error(r#"{"a":1,"b":2}"#),
            "/b: is not allowed (allowed: `a`, `small`, `tags`, `tone`, `inner`)"
        );
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
    fn pointers_from_positions_on_other_lines_in_arrays_and_escaped_names() {
        assert_eq!(
            error("{\n  \"a\": 1,\n  \"tags\": [\n    \"x\",\n    \"y\", 3\n  ]\n}"),
            "/tags/2: expected a string, got an integer"
        );
        assert_eq!(
            error(r#"{"a":1,"inner":{"x\/y":"no"}}"#),
            "/inner/x~1y: expected a boolean, got a string"
        );
        // Strings with brackets, commas and escaped quotes do not move the scan.
        assert_eq!(
            error(r#"{"a":1,"tags":["[{,\"",  "]}"], "small": -1}"#),
            "/small: expected an integer from 0 to 255, got -1"
        );
        assert_eq!(
            error(r#"{"tags":[],"a":1,"inner":{}}"#),
            "/inner/x~1y: is required"
        );
        assert_eq!(error(r#"{"tags":["a"]}"#), "/a: is required");
        #[derive(Debug, Deserialize)]
        #[allow(dead_code)]
        struct Pair {
            pair: (u8, u8),
        }
        assert_eq!(
            decode_with_path::<Pair>(r#"{"pair":[1]}"#)
                .unwrap_err()
                .to_string(),
            "/pair: expected an array of 2 items, got 1"
        );
        assert_eq!(
            decode_with_path::<Pair>(r#"{"pair":[1, 2, 3]}"#)
                .unwrap_err()
                .to_string(),
            "/pair: has more items than the schema allows"
        );
        assert_eq!(
            decode_with_path::<Vec<Pair>>(r#"[{"pair":[1,2]},{}]"#)
                .unwrap_err()
                .to_string(),
            "/1/pair: is required"
        );
        assert_eq!(
            decode_with_path::<u8>("true").unwrap_err().to_string(),
            "(root): expected an integer from 0 to 255, got a boolean"
        );
    }

    #[test]
    fn the_error_keeps_each_problem_and_displays_the_old_message() {
        let error: DecodeError = decode_with_path::<Params>(r#"{"a":"1","b":2}"#).unwrap_err();
        assert_eq!(error.pointer(), "/a");
        match error.violations() {
            [first, second] => {
                assert_eq!(
                    (first.pointer.as_str(), first.message.as_str()),
                    ("/a", "expected an integer, got a string")
                );
                assert_eq!(
                    (second.pointer.as_str(), second.message.as_str()),
                    (
                        "/b",
                        "is not allowed (allowed: `a`, `small`, `tags`, `tone`, `inner`)"
                    )
                );
            }
            other => panic!("two problems expected, got {other:?}"),
        }
        assert_eq!(
            error.to_string(),
            "/a: expected an integer, got a string; /b: is not allowed (allowed: `a`, `small`, `tags`, `tone`, `inner`)"
        );
    }

    #[test]
    fn decoding_that_works_is_unchanged() {
        let params: Params = decode_with_path(r#"{"a":1,"tags":["x"]}"#).unwrap();
        assert_eq!(params.a, 1);
    }
}
