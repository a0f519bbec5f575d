//! Why a value matches none of a union's alternatives, one short clause each:
//! `matches none of 2 alternatives: (1 integer) expected an integer, got a string;
//! (2 object) /currency is required`.
//!
//! A generated `oneOf`/`anyOf` tries its alternatives in turn and keeps why each one refused
//! the value ([`Miss`]: the decode error serde already made, or the rules it broke); only
//! when every one refused does [`no_alternative`] write them down. A value one alternative
//! takes pays for nothing more than before. The message is bounded whatever the schema or the
//! value: at most [`LISTED`] alternatives, each reason cut at [`LONGEST_REASON`] bytes, a
//! nested union's reasons left out.

use super::problem::{describe_alone, NONE_PREFIX};
use super::Violations;
use std::fmt::Write as _;

/// Why one alternative of a union did not take the value.
#[derive(Debug)]
pub enum Miss {
    /// The value does not decode as the alternative's type.
    Decode(serde_json::Error),
    /// It decodes, but breaks rules of the alternative's schema.
    Rules(Violations),
    /// It took the value (a `oneOf` whose alternatives may overlap tries them all).
    Took,
}

/// How many alternatives the message lists; the count of the rest is given.
pub const LISTED: usize = 6;

/// The longest reason given for one alternative, in bytes.
pub const LONGEST_REASON: usize = 120;

/// The error of a union none of whose `alternatives` took the value: each is the alternative's
/// label (the JSON type it takes, `integer`, `object`, ...) and why it did not.
#[cold]
#[inline(never)]
pub fn no_alternative(alternatives: &[(&str, &Miss)]) -> String {
    let mut out = format!("{NONE_PREFIX}{} alternatives:", alternatives.len());
    for (i, (label, miss)) in alternatives.iter().take(LISTED).enumerate() {
        let separator = if i == 0 { " " } else { "; " };
        let reason = cut(reason(miss), LONGEST_REASON);
        let _ = write!(
            out,
            "{separator}({} {}) {reason}",
            i + 1,
            cut(label.to_string(), 24)
        );
    }
    if alternatives.len() > LISTED {
        let _ = write!(out, "; and {} more", alternatives.len() - LISTED);
    }
    out
}

/// One alternative's reason: where in the value (relative to it) and what.
fn reason(miss: &Miss) -> String {
    let (pointer, message) = match miss {
        Miss::Decode(error) => describe_alone(&error.to_string()),
        Miss::Rules(rules) => match rules.list() {
            [] => (String::new(), "breaks a rule of its schema".to_string()),
            [only] => (only.pointer.clone(), only.message.clone()),
            [first, rest @ ..] => (
                first.pointer.clone(),
                format!("{} (and {} more)", first.message, rest.len()),
            ),
        },
        Miss::Took => (String::new(), "takes it".to_string()),
    };
    // A nested union's own reasons would make clauses of clauses: its count says enough.
    let message = match message.split_once(" alternatives:") {
        Some((count, _)) if message.starts_with(NONE_PREFIX) => format!("{count} alternatives"),
        _ => message,
    };
    match pointer.is_empty() {
        true => message,
        false => format!("{pointer} {message}"),
    }
}

/// `text` cut to at most `most` bytes (at a character boundary), `…` marking the cut.
fn cut(mut text: String, most: usize) -> String {
    if text.len() > most {
        let mut end = most.saturating_sub('…'.len_utf8());
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
        text.push('…');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validate::{decode_with_path, deserialize_whole_value, Path};
    use serde::{Deserialize, Deserializer};
    use serde_json::Value;

    /// An integer, or an object with a `currency`: the union a generated server writes.
    #[derive(Debug)]
    #[allow(dead_code)]
    enum Amount {
        Cents(i64),
        Priced(Priced),
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Priced {
        value: f64,
        currency: String,
    }

    impl<'de> Deserialize<'de> for Amount {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            deserialize_whole_value(deserializer, |value| {
                let miss0 = match <i64 as Deserialize>::deserialize(value) {
                    Ok(v) => return Ok(Self::Cents(v)),
                    Err(error) => Miss::Decode(error),
                };
                let miss1 = match <Priced as Deserialize>::deserialize(value) {
                    Ok(v) => return Ok(Self::Priced(v)),
                    Err(error) => Miss::Decode(error),
                };
                Err(no_alternative(&[("integer", &miss0), ("object", &miss1)]))
            })
        }
    }

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Payment {
        amount: Amount,
        #[serde(default)]
        note: Option<String>,
    }

    fn error(text: &str) -> String {
        decode_with_path::<Payment>(text).unwrap_err().to_string()
    }

    #[test]
    fn each_alternative_says_why_it_failed() {
        assert_eq!(
            error(r#"{"amount":"12"}"#),
            "/amount: matches none of 2 alternatives: (1 integer) expected an integer, got a \
             string; (2 object) expected an object, got a string"
        );
        assert_eq!(
            error(r#"{"amount":{"value":1.5}}"#),
            "/amount: matches none of 2 alternatives: (1 integer) expected an integer, got an \
             object; (2 object) /currency is required"
        );
        assert_eq!(
            error(r#"{"amount":{"value":1,"currency":"EUR","rate":2}}"#),
            "/amount: matches none of 2 alternatives: (1 integer) expected an integer, got an \
             object; (2 object) /rate is not allowed (allowed: `value`, `currency`)"
        );
        // The other problems are still all reported beside it.
        assert_eq!(
            error(r#"{"amount":true,"note":1}"#),
            "/amount: matches none of 2 alternatives: (1 integer) expected an integer, got a \
             boolean; (2 object) expected an object, got a boolean; \
             /note: expected a string, got an integer"
        );
        let ok: Payment = decode_with_path(r#"{"amount":{"value":1,"currency":"EUR"}}"#).unwrap();
        assert!(matches!(ok.amount, Amount::Priced(_)));
    }

    #[test]
    fn broken_rules_and_nested_unions_are_one_clause() {
        let mut rules = Violations::new();
        rules.push(&Path::Root.key("n"), "minimum", "must be ≥ 1");
        rules.push(&Path::Root.key("m"), "maximum", "must be ≤ 2");
        let nested = serde_json::from_value::<Amount>(Value::Bool(true)).unwrap_err();
        let message = no_alternative(&[
            ("object", &Miss::Rules(rules)),
            ("integer or object", &Miss::Decode(nested)),
        ]);
        assert_eq!(
            message,
            "matches none of 2 alternatives: (1 object) /n must be ≥ 1 (and 1 more); \
             (2 integer or object) matches none of 2 alternatives"
        );
    }

    #[test]
    fn the_message_is_bounded() {
        let long = serde_json::Error::io(std::io::Error::other("x".repeat(10_000)));
        let misses: Vec<Miss> = (0..1000)
            .map(|_| {
                Miss::Decode(serde_json::Error::io(std::io::Error::other(
                    long.to_string(),
                )))
            })
            .collect();
        let label = "l".repeat(1000);
        let listed: Vec<(&str, &Miss)> = misses.iter().map(|m| (label.as_str(), m)).collect();
        let message = no_alternative(&listed);
        assert!(message.len() < 1200, "{}", message.len());
        assert!(message.starts_with("matches none of 1000 alternatives: (1 lllll"));
        assert!(message.ends_with("…; and 994 more"), "{message}");
        assert_eq!(message.matches('…').count(), 2 * LISTED);
        assert_eq!(cut("é".repeat(10), 5), "é…");
    }
}
