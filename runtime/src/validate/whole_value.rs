//! `Deserialize` for the generated types that must see a whole value before they can tell
//! whether it is theirs: literal enums and consts of any JSON type, and `oneOf`/`anyOf` unions.
//!
//! (An internally tagged union is one too: serde's derive reads the value whole as well, and
//! the generator has it choose here with the derive's code, `#[serde(remote = "Self")]`.)
//!
//! Such a type reads the value, then chooses. Choosing inside the deserializer's own visit
//! (rather than after it returned) matters for the error: serde_json then stamps it with the
//! position right after the value, which is what [`super::decode_error`] turns into the value's
//! JSON pointer. A choice made after the read would be stamped where the enclosing object or
//! array ends, and the pointer would name the container.

use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use std::fmt;
use std::marker::PhantomData;

/// Reads one JSON value from `deserializer` and gives it to `choose`; `choose`'s error (its
/// message) becomes the deserializer's, reported at the value.
///
/// ```
/// # use serde::Deserialize;
/// struct Answer;
/// impl<'de> Deserialize<'de> for Answer {
///     fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
///         mcp_runtime::validate::deserialize_whole_value(deserializer, |value| match value {
///             serde_json::Value::Number(n) if n.as_i64() == Some(42) => Ok(Answer),
///             _ => Err("must be 42"),
///         })
///     }
/// }
/// let error = mcp_runtime::validate::decode_with_path::<Vec<Answer>>("[42, 41]").err();
/// assert_eq!(error.map(|e| e.to_string()).as_deref(), Some("/1: must be 42"));
/// ```
#[doc(hidden)]
pub fn deserialize_whole_value<'de, D, T, E, F>(deserializer: D, choose: F) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    E: fmt::Display,
    F: FnOnce(&Value) -> Result<T, E>,
{
    deserializer.deserialize_any(WholeValue {
        choose,
        out: PhantomData,
    })
}

/// The visitor of [`deserialize_whole_value`]: builds the value, then lets `choose` decide.
struct WholeValue<F, T, E> {
    choose: F,
    out: PhantomData<fn() -> Result<T, E>>,
}

impl<F, T, E> WholeValue<F, T, E>
where
    E: fmt::Display,
    F: FnOnce(&Value) -> Result<T, E>,
{
    fn decide<Error: de::Error>(self, value: Value) -> Result<T, Error> {
        (self.choose)(&value).map_err(Error::custom)
    }
}

impl<'de, F, T, E> Visitor<'de> for WholeValue<F, T, E>
where
    E: fmt::Display,
    F: FnOnce(&Value) -> Result<T, E>,
{
    type Value = T;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("any JSON value")
    }

    fn visit_bool<Error: de::Error>(self, value: bool) -> Result<T, Error> {
        self.decide(Value::Bool(value))
    }

    fn visit_i64<Error: de::Error>(self, value: i64) -> Result<T, Error> {
        self.decide(Value::from(value))
    }

    fn visit_u64<Error: de::Error>(self, value: u64) -> Result<T, Error> {
        self.decide(Value::from(value))
    }

    fn visit_f64<Error: de::Error>(self, value: f64) -> Result<T, Error> {
        // `Value::from` makes a non-finite number `null`; serde_json never reads one.
        self.decide(Value::from(value))
    }

    fn visit_str<Error: de::Error>(self, value: &str) -> Result<T, Error> {
        self.decide(Value::String(value.to_owned()))
    }

    fn visit_string<Error: de::Error>(self, value: String) -> Result<T, Error> {
        self.decide(Value::String(value))
    }

    fn visit_unit<Error: de::Error>(self) -> Result<T, Error> {
        self.decide(Value::Null)
    }

    fn visit_none<Error: de::Error>(self) -> Result<T, Error> {
        self.decide(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<T, D::Error> {
        let value = <Value as de::Deserialize>::deserialize(deserializer)?;
        self.decide(value)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<T, A::Error> {
        let value =
            <Value as de::Deserialize>::deserialize(de::value::SeqAccessDeserializer::new(seq))?;
        self.decide(value)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
        let value =
            <Value as de::Deserialize>::deserialize(de::value::MapAccessDeserializer::new(map))?;
        self.decide(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validate::decode_with_path;
    use serde::Deserialize;
    use serde_json::json;

    /// A const of an object, the widest case: `{"on": true}` only.
    #[derive(Debug, PartialEq)]
    struct On;

    impl<'de> Deserialize<'de> for On {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            deserialize_whole_value(deserializer, |value| {
                if *value == json!({"on": true}) {
                    Ok(On)
                } else {
                    Err("must be {\"on\":true}")
                }
            })
        }
    }

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Holder {
        first: Option<On>,
        #[serde(default)]
        items: Vec<On>,
        last: Option<On>,
    }

    #[test]
    fn values_of_every_json_type_reach_the_choice() {
        assert_eq!(decode_with_path::<On>(r#"{"on": true}"#), Ok(On));
        for other in [
            "1",
            "-1",
            "1.5",
            "\"on\"",
            "true",
            "null",
            "[1]",
            r#"{"on": 1}"#,
        ] {
            assert_eq!(
                decode_with_path::<On>(other).map_err(|e| e.to_string()),
                Err("(root): must be {\"on\":true}".to_string()),
                "{other}"
            );
        }
    }

    #[test]
    fn a_refused_value_is_named_wherever_it_stands() {
        let cases = [
            (r#"{"first": 1, "last": null}"#, "/first"),
            (r#"{"first": null, "last": {"on": false}}"#, "/last"),
            (r#"{"first": null,"last":[]  }"#, "/last"),
            (
                r#"{"first": null, "items": [{"on": true}, 2], "last": null}"#,
                "/items/1",
            ),
            (
                r#"{"first": null, "items": [{"on": true}, {}]}"#,
                "/items/1",
            ),
        ];
        for (text, pointer) in cases {
            assert_eq!(
                decode_with_path::<Holder>(text)
                    .err()
                    .map(|e| e.to_string()),
                Some(format!("{pointer}: must be {{\"on\":true}}")),
                "{text}"
            );
        }
    }
}
