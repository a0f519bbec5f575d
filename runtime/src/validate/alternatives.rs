//! Why a value matches none of a union's alternatives, one short clause each:
//! `matches none of 2 alternatives: (1 integer) expected an integer, got a string;
//! (2 object) /currency is required`.
//!
//! A generated `oneOf`/`anyOf` tries its alternatives in turn and keeps why each one refused
//! the value ([`Miss`]: the decode error serde already made, or the rules it broke); only
//! when every one refused does [`no_alternative_in`] write them down. A value one alternative
//! takes pays for nothing more than before. The message is bounded whatever the schema or the
//! value: at most [`LISTED`] alternatives, each reason cut at [`LONGEST_REASON`] bytes, a
//! nested union's reasons left out.
//!
//! **The nearest alternative, down to the leaf.** serde's error for a value decoded from a
//! `serde_json::Value` says what (`missing field `blockTimestamp``) but not where. On that
//! cold path only, an alternative that got past the value's own type
//! ([`Miss::decode`]) decodes the value again from its text, which names the pointer, and a
//! nested union's own nearest failure is followed down. The alternative whose failure is
//! deepest is the one the value was nearest to, and the message ends with it:
//! `...; nearest: (2 object Block) /transactions/0/blockTimestamp is required`.

use super::problem::{describe_alone, NONE_PREFIX};
use super::Violations;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::fmt::Write as _;

/// What [`no_alternative_in`] writes before the nearest alternative's failure.
const NEAREST: &str = "; nearest: (";

/// Decodes a value as one alternative's type again, from its text, for the pointer and the
/// message of its first problem (`None`: it decodes). See [`explain`].
#[doc(hidden)]
pub type Explain = fn(&Value) -> Option<(String, String)>;

/// Why one alternative of a union did not take the value.
#[derive(Debug)]
#[doc(hidden)]
pub enum Miss {
    /// The value does not decode as the alternative's type.
    Decode(serde_json::Error),
    /// It decodes, but breaks rules of the alternative's schema.
    Rules(Violations),
    /// It took the value (a `oneOf` whose alternatives may overlap tries them all).
    Took,
    /// The value does not decode as the alternative's type, which can say where
    /// ([`Miss::decode`]).
    DecodeAs(serde_json::Error, Explain),
}

impl Miss {
    /// The value does not decode as `T`: `error`, and how to find where (on the cold path
    /// only, [`explain`]).
    pub fn decode<T: DeserializeOwned>(error: serde_json::Error) -> Self {
        Self::DecodeAs(error, explain::<T>)
    }
}

/// The pointer (relative to `value`) and the message of the problem serde stops at when it
/// decodes `value` as `T` from its text, which names where (`None` when it decodes). One
/// decode: the failing path of a union, not every problem.
#[doc(hidden)]
pub fn explain<T: DeserializeOwned>(value: &Value) -> Option<(String, String)> {
    let text = value.to_string();
    let error = serde_json::from_str::<T>(&text).err()?;
    let problem = super::problem::problem(&text, &error);
    Some((problem.pointer, problem.message))
}

/// How many alternatives one failing decode explains ([`Explain`]), nested unions included:
/// the cost of a failure stays a bounded multiple of the decode, whatever the schema nests.
const EXPLANATIONS: u32 = 16;

thread_local! {
    /// The explanations left to the failing decode under way, and how deep in nested unions'
    /// messages it is (the outermost resets the budget).
    static BUDGET: std::cell::Cell<(u32, u32)> = const { std::cell::Cell::new((0, 0)) };
}

/// How many alternatives the message lists; the count of the rest is given.
pub const LISTED: usize = 6;

/// The longest reason given for one alternative, in bytes.
pub const LONGEST_REASON: usize = 120;

/// The error of a union none of whose `alternatives` took the value: each is the alternative's
/// label (the JSON type it takes, `integer`, `object`, ...) and why it did not.
/// ([`no_alternative_in`] also names the nearest alternative's failure down to its leaf.)
#[cold]
#[inline(never)]
#[doc(hidden)]
pub fn no_alternative(alternatives: &[(&str, &Miss)]) -> String {
    no_alternative_of(None, alternatives)
}

/// [`no_alternative`] of `value`, ending with the failure of the alternative the value was
/// nearest to, at its deepest pointer, when the list does not already show it
/// (`...; nearest: (2 object Block) /transactions/0/blockTimestamp is required`). Finding it
/// decodes an alternative that [`Miss::decode`] made again from the value's text, on this
/// failing path only, at most 16 times for one failing value.
#[cold]
#[inline(never)]
#[doc(hidden)]
pub fn no_alternative_in(value: &Value, alternatives: &[(&str, &Miss)]) -> String {
    no_alternative_of(Some(value), alternatives)
}

fn no_alternative_of(value: Option<&Value>, alternatives: &[(&str, &Miss)]) -> String {
    BUDGET.with(|budget| {
        let (left, depth) = budget.get();
        budget.set((if depth == 0 { EXPLANATIONS } else { left }, depth + 1));
    });
    let out = listed(value, alternatives);
    BUDGET.with(|budget| {
        let (left, depth) = budget.get();
        budget.set((left, depth.saturating_sub(1)));
    });
    out
}

/// [`no_alternative_of`]'s message.
fn listed(value: Option<&Value>, alternatives: &[(&str, &Miss)]) -> String {
    let mut out = format!("{NONE_PREFIX}{} alternatives:", alternatives.len());
    // The deepest failure yet: its depth, the alternative, its leaf pointer and message, and
    // whether the list shows it as it is.
    let mut nearest: Option<(usize, usize, String, String, bool)> = None;
    for (i, (label, miss)) in alternatives.iter().take(LISTED).enumerate() {
        let separator = if i == 0 { " " } else { "; " };
        let (pointer, message) = located(miss, value);
        let (leaf, leaf_message) = leaf(&pointer, &message);
        let shown = leaf == pointer && leaf_message == message;
        let depth = leaf.matches('/').count();
        if nearest.as_ref().is_none_or(|n| depth > n.0) {
            nearest = Some((depth, i, leaf, leaf_message, shown));
        }
        let reason = cut(clause(pointer, message), LONGEST_REASON);
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
    if let Some((depth, i, leaf, message, false)) = nearest {
        if depth > 0 {
            let label = cut(alternatives[i].0.to_string(), 24);
            let failure = cut(format!("{leaf} {message}"), 2 * LONGEST_REASON);
            let _ = write!(out, "{NEAREST}{} {label}) {failure}", i + 1);
        }
    }
    out
}

/// Where in the value (relative to it) and what an alternative's failure is: decoded again
/// from the text to say where, when it can and got past the value's own type.
fn located(miss: &Miss, value: Option<&Value>) -> (String, String) {
    let plain = located_alone(miss);
    let (Miss::DecodeAs(_, explain), Some(value)) = (miss, value) else {
        return plain;
    };
    // `expected an integer, got an object` of an object: the value's own type, nothing deeper.
    let kind = match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    };
    let own_type = plain.0.is_empty()
        && plain.1.starts_with("expected ")
        && (plain.1.ends_with(&format!("got {kind}"))
            || (kind == "a number" && plain.1.ends_with("got an integer")));
    if own_type {
        return plain;
    }
    let allowed = BUDGET.with(|budget| {
        let (left, depth) = budget.get();
        budget.set((left.saturating_sub(1), depth));
        left > 0
    });
    if !allowed {
        return plain;
    }
    match explain(value) {
        Some(found) if found.0.matches('/').count() > plain.0.matches('/').count() => found,
        _ => plain,
    }
}

/// The leaf of a failure at `pointer`: a nested union's nearest failure followed down
/// (`/transactions` and `... nearest: (2 array) /0/blockTimestamp is required` give
/// `/transactions/0/blockTimestamp`, `is required`), else the failure itself.
fn leaf(pointer: &str, message: &str) -> (String, String) {
    let whole = (pointer.to_string(), message.to_string());
    if !message.starts_with(NONE_PREFIX) {
        return whole;
    }
    // Its nearest failure, when it named one; else the deepest of the clauses it lists.
    let failures: Vec<&str> = match message.rfind(NEAREST) {
        Some(at) => vec![&message[at + NEAREST.len()..]],
        None => match message.split_once(" alternatives: (") {
            Some((_, list)) => list.split("; (").collect(),
            None => Vec::new(),
        },
    };
    let mut deepest: Option<(String, String)> = None;
    for failure in failures {
        // `2 object Block) /transactions/0 is ...`: the label, then the pointer and what.
        let Some((_, failure)) = failure.split_once(") ") else {
            continue;
        };
        let Some((inner, what)) = failure.split_once(' ').filter(|_| failure.starts_with('/'))
        else {
            continue;
        };
        if deepest
            .as_ref()
            .is_none_or(|(at, _)| inner.matches('/').count() > at.matches('/').count())
        {
            deepest = Some((inner.to_string(), what.to_string()));
        }
    }
    match deepest {
        Some((inner, what)) => (format!("{pointer}{inner}"), what),
        None => whole,
    }
}

/// An alternative's reason as the list shows it: the pointer and the message, a nested
/// union's own reasons left out.
fn clause(pointer: String, message: String) -> String {
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

/// Where and what of `miss`, from the error alone.
fn located_alone(miss: &Miss) -> (String, String) {
    match miss {
        Miss::Decode(error) | Miss::DecodeAs(error, _) => describe_alone(&error.to_string()),
        Miss::Rules(rules) => match rules.list() {
            [] => (String::new(), "breaks a rule of its schema".to_string()),
            [only] => (only.pointer.clone(), only.message.clone()),
            [first, rest @ ..] => (
                first.pointer.clone(),
                format!("{} (and {} more)", first.message, rest.len()),
            ),
        },
        Miss::Took => (String::new(), "takes it".to_string()),
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

    /// A price inside a holder: the union nests in a member of an alternative.
    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Holder {
        amount: Amount,
    }

    /// An integer, or a list of holders.
    #[derive(Debug)]
    #[allow(dead_code)]
    enum Outer {
        Count(i64),
        Holders(Vec<Holder>),
    }

    impl<'de> Deserialize<'de> for Outer {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            deserialize_whole_value(deserializer, |value| {
                let miss0 = match <i64 as Deserialize>::deserialize(value) {
                    Ok(v) => return Ok(Self::Count(v)),
                    Err(error) => Miss::decode::<i64>(error),
                };
                let miss1 = match <Vec<Holder> as Deserialize>::deserialize(value) {
                    Ok(v) => return Ok(Self::Holders(v)),
                    Err(error) => Miss::decode::<Vec<Holder>>(error),
                };
                Err(no_alternative_in(
                    value,
                    &[("integer", &miss0), ("array", &miss1)],
                ))
            })
        }
    }

    #[test]
    fn the_nearest_alternative_is_named_down_to_the_leaf() {
        let error = decode_with_path::<Outer>(r#"[{"amount":1},{"amount":{"value":1}}]"#)
            .unwrap_err()
            .to_string();
        assert_eq!(
            error,
            "(root): matches none of 2 alternatives: (1 integer) expected an integer, got an \
             array; (2 array) /1/amount matches none of 2 alternatives; nearest: (2 array) \
             /1/amount/currency is required"
        );
        // Where the list already shows the failure, nothing is added.
        let error = decode_with_path::<Outer>(r#"[{"amount":1,"x":2}]"#)
            .unwrap_err()
            .to_string();
        assert!(
            error.ends_with("(2 array) /0/x is not allowed (allowed: `amount`)"),
            "{error}"
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
