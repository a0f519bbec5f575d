//! Every problem of arguments that do not decode, not just the first serde_json stops at.
//!
//! Only on the error path: the arguments are read into a `serde_json::Value`, and decoded
//! again (with the very same `from_str::<T>` the call made, so no second `Deserialize` is
//! compiled) after each fault is set aside: a member at fault removed, a missing one filled
//! in with a stand-in of a shape the type takes (whose own faults are not the caller's and are
//! not reported), an array item at fault replaced. Rounds are bounded, and so is the text
//! this is done for, so hostile arguments cannot buy many decodes.

use serde_json::{Map, Value};

use super::problem::{problem as problem_of, Problem};

/// Arguments longer than this get their first problem only.
const LONGEST_TEXT: usize = 64 * 1024;

/// At most this many decodes after the first.
const MAX_ROUNDS: usize = 32;

/// At most this many bytes decoded again in all, whatever the rounds and stand-ins: the scan
/// of a large text stops early (with the problems found so far) rather than decode it dozens
/// of times. Four times the longest text scanned.
const WORK_BUDGET: usize = 4 * LONGEST_TEXT;

/// The stand-ins tried, in order, for a member that is missing: one of them is usually of the
/// member's type (a string, a number, a boolean, an array, an object).
const STAND_INS: [&str; 6] = ["\"\"", "0", "false", "[]", "{}", "null"];

/// Every problem of `text`, whose decode failed with `first`; `retry` decodes another text the
/// same way (`None`: it decoded).
pub(super) fn every_problem(
    text: &str,
    first: Problem,
    retry: &dyn Fn(&str) -> Option<serde_json::Error>,
) -> Vec<Problem> {
    let mut found = vec![first.clone()];
    if text.len() > LONGEST_TEXT {
        return found;
    }
    // Past the budget a retry answers "decoded", which ends the scan where it stands.
    let spent = std::cell::Cell::new(0usize);
    let budgeted = |again: &str| {
        spent.set(spent.get() + again.len());
        (spent.get() <= WORK_BUDGET).then(|| retry(again)).flatten()
    };
    let retry: &dyn Fn(&str) -> Option<serde_json::Error> = &budgeted;
    let Ok(original) = serde_json::from_str::<Value>(text) else {
        return found;
    };
    let mut work = original.clone();
    // Members this scan filled in: what is wrong inside them is not the caller's.
    let mut stand_ins: Vec<String> = Vec::new();
    // The pointers set aside so far: a later fault there (a member removed, then missing)
    // is the same one.
    let mut handled: Vec<String> = vec![first.pointer.clone()];
    let mut current = first;
    for _ in 0..MAX_ROUNDS {
        if !set_aside(&mut work, &current, &mut stand_ins, retry) {
            break;
        }
        let again = serde_json::to_string(&work).unwrap_or_default();
        let Some(error) = retry(&again) else { break };
        let next = problem_of(&again, &error);
        if next == current {
            break;
        }
        // A fault inside a stand-in, or of a value holding one (a union reads its value
        // whole and reports there), may be the stand-in's own: not the caller's.
        let theirs = stand_ins
            .iter()
            .any(|s| within(&next.pointer, s) || within(s, &next.pointer));
        let known = handled.contains(&next.pointer);
        if !theirs && !known {
            found.push(next.clone());
        }
        handled.push(next.pointer.clone());
        current = next;
    }
    name_near_misses(&mut found, &original);
    // The retries read members in key order, not the caller's: report in pointer order.
    found.sort_by(|a, b| a.pointer.cmp(&b.pointer));
    found
}

/// Whether `pointer` is `base` or inside it.
fn within(pointer: &str, base: &str) -> bool {
    pointer == base
        || pointer
            .strip_prefix(base)
            .is_some_and(|rest| rest.starts_with('/'))
}

/// Changes `work` so that decoding it gets past `problem`; false when it cannot.
fn set_aside(
    work: &mut Value,
    problem: &Problem,
    stand_ins: &mut Vec<String>,
    retry: &dyn Fn(&str) -> Option<serde_json::Error>,
) -> bool {
    let Some((parent, token)) = split_last(&problem.pointer) else {
        return false;
    };
    if problem.keyword == "required" {
        stand_ins.push(problem.pointer.clone());
        return fill(work, &problem.pointer, problem, retry);
    }
    match work.pointer_mut(&parent) {
        Some(Value::Object(members)) if problem.keyword != "maxItems" => {
            members.remove(&token).is_some()
        }
        Some(Value::Array(items)) => match token.parse::<usize>() {
            Ok(index) if index < items.len() && problem.keyword != "maxItems" => {
                stand_ins.push(problem.pointer.clone());
                fill(work, &problem.pointer, problem, retry)
            }
            _ => false,
        },
        _ => false,
    }
}

/// Puts at `pointer` (a member to add or an item to replace) the first stand-in after which
/// the decode no longer fails right there. An enum's stand-in is its first allowed value.
fn fill(
    work: &mut Value,
    pointer: &str,
    problem: &Problem,
    retry: &dyn Fn(&str) -> Option<serde_json::Error>,
) -> bool {
    let mut tried: Vec<Value> = STAND_INS
        .iter()
        .filter_map(|text| serde_json::from_str(text).ok())
        .collect();
    if let Some(allowed) = first_allowed(&problem.message) {
        tried.insert(0, allowed);
    }
    for stand_in in tried {
        if !put(work, pointer, stand_in) {
            return false;
        }
        let text = serde_json::to_string(work).unwrap_or_default();
        let Some(error) = retry(&text) else {
            return true;
        };
        let next = problem_of(&text, &error);
        if !within(&next.pointer, pointer) && !within(pointer, &next.pointer) {
            return true;
        }
        // An enum's stand-in: the allowed values are in the message.
        if let Some(allowed) = first_allowed(&next.message) {
            if put(work, pointer, allowed) {
                let text = serde_json::to_string(work).unwrap_or_default();
                match retry(&text) {
                    None => return true,
                    Some(error) => {
                        let next = problem_of(&text, &error);
                        if !within(&next.pointer, pointer) && !within(pointer, &next.pointer) {
                            return true;
                        }
                    }
                }
            }
        }
    }
    false
}

/// The first value of `must be one of "a", "b"` or `must be "a"`.
fn first_allowed(message: &str) -> Option<Value> {
    let rest = message
        .strip_prefix("must be one of ")
        .or_else(|| message.strip_prefix("must be "))?;
    if !rest.starts_with('"') {
        return None;
    }
    let mut stream = serde_json::Deserializer::from_str(rest).into_iter::<Value>();
    stream.next()?.ok()
}

/// Sets the member or item at `pointer` in `work` to `value`.
fn put(work: &mut Value, pointer: &str, value: Value) -> bool {
    let Some((parent, token)) = split_last(pointer) else {
        return false;
    };
    match work.pointer_mut(&parent) {
        Some(Value::Object(members)) => {
            members.insert(token, value);
            true
        }
        Some(Value::Array(items)) => match token.parse::<usize>() {
            Ok(index) if index < items.len() => {
                items[index] = value;
                true
            }
            _ => false,
        },
        _ => false,
    }
}

/// `("/a/b", "c~1d")` as `("/a/b", "c/d")` for `/a/b/c~1d`; `None` for the root.
fn split_last(pointer: &str) -> Option<(String, String)> {
    let (parent, token) = pointer.rsplit_once('/')?;
    Some((
        parent.to_string(),
        token.replace("~1", "/").replace("~0", "~"),
    ))
}

/// A missing member next to one given under a near-miss of its name (`page_size` for
/// `page-size`) says so, and so does the near-miss when it is refused.
fn name_near_misses(found: &mut [Problem], original: &Value) {
    let mut hints: Vec<(usize, String, Option<String>)> = Vec::new();
    for (i, p) in found.iter().enumerate() {
        if p.keyword != "required" {
            continue;
        }
        let Some((parent, missing)) = split_last(&p.pointer) else {
            continue;
        };
        let Some(Value::Object(members)) = original.pointer(&parent) else {
            continue;
        };
        if let Some(given) = near_miss(&missing, members) {
            let mut refused = parent.clone();
            super::push_pointer_key(&mut refused, given);
            hints.push((i, given.to_string(), Some(refused)));
        }
    }
    for (i, given, refused) in hints {
        let missing = split_last(&found[i].pointer)
            .map(|(_, m)| m)
            .unwrap_or_default();
        found[i].message = format!("is required (`{given}` given; did you mean `{missing}`?)");
        if let Some(refused) = refused {
            for p in found.iter_mut() {
                if p.pointer == refused && p.keyword == "additionalProperties" {
                    p.message = format!("is not allowed (did you mean `{missing}`?)");
                }
            }
        }
    }
}

/// The member of `members` whose name is one or two edits from `missing` (a third of its
/// length at most), the nearest first.
fn near_miss<'m>(missing: &str, members: &'m Map<String, Value>) -> Option<&'m str> {
    crate::similar::nearest(missing, members.keys().map(String::as_str))
}

#[cfg(test)]
mod tests {
    use crate::validate::decode_with_path;
    use serde::Deserialize;

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Order {
        sku: String,
        delta: i64,
        #[serde(default)]
        tone: Option<Tone>,
        #[serde(default)]
        lines: Vec<Line>,
        #[serde(rename = "page-size")]
        page_size: u32,
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
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Line {
        qty: u8,
        tone: Tone,
    }

    fn error(text: &str) -> String {
        decode_with_path::<Order>(text).unwrap_err().to_string()
    }

    #[test]
    fn every_problem_is_reported_once() {
        assert_eq!(
            error(r#"{"delta":"x","page-size":1}"#),
            "/delta: expected an integer, got a string; /sku: is required"
        );
        assert_eq!(
            error(r#"{}"#),
            "/delta: is required; /page-size: is required; /sku: is required"
        );
        assert_eq!(
            error(
                r#"{"sku":1,"delta":2,"page-size":3,"tone":"cold","lines":[{"qty":300,"tone":"wry"},{"qty":1,"tone":"x","extra":1}]}"#
            ),
            "/lines/0/qty: expected an integer from 0 to 255, got 300; \
             /lines/1/extra: is not allowed (allowed: `qty`, `tone`); /lines/1/tone: must be one of \"warm\", \"wry\"; \
             /sku: expected a string, got an integer; /tone: must be one of \"warm\", \"wry\""
        );
    }

    #[test]
    fn a_near_miss_beside_a_missing_member_is_named() {
        assert_eq!(
            error(r#"{"sku":"a","delta":1,"page_size":20}"#),
            "/page-size: is required (`page_size` given; did you mean `page-size`?)"
        );
        assert_eq!(
            error(r#"{"sku":"a","delta":1,"pageSize":20}"#),
            "/page-size: is required (`pageSize` given; did you mean `page-size`?)"
        );
        assert_eq!(
            error(r#"{"sku":"a","delta":1,"color":20}"#),
            "/page-size: is required"
        );
        #[derive(Debug, Deserialize)]
        #[serde(deny_unknown_fields)]
        #[allow(dead_code)]
        struct Closed {
            #[serde(rename = "page-size")]
            page_size: u32,
        }
        assert_eq!(
            decode_with_path::<Closed>(r#"{"page_size":2}"#)
                .unwrap_err()
                .to_string(),
            "/page-size: is required (`page_size` given; did you mean `page-size`?); \
             /page_size: is not allowed (did you mean `page-size`?)"
        );
    }

    #[test]
    fn what_cannot_be_set_aside_stops_the_scan() {
        assert_eq!(
            decode_with_path::<u8>("true").unwrap_err().to_string(),
            "(root): expected an integer from 0 to 255, got a boolean"
        );
        assert_eq!(
            decode_with_path::<Order>(r#"{"sku":"a""#).unwrap_err(),
            decode_with_path::<Order>(r#"{"sku":"a""#).unwrap_err()
        );
        let long = format!(r#"{{"x":"{}"}}"#, "y".repeat(70_000));
        assert_eq!(
            decode_with_path::<Order>(&long).unwrap_err().to_string(),
            "/sku: is required"
        );
    }

    #[test]
    fn the_scan_of_a_large_text_decodes_a_bounded_amount_again() {
        // 40 bad items in 60 KB of arguments: each set aside costs a decode of the whole text.
        let items: Vec<String> = (0..40)
            .map(|i| format!(r#"{{"qty":"bad{i}","tone":"warm"}}"#))
            .collect();
        let text = format!(
            r#"{{"sku":"{}","delta":1,"page-size":1,"lines":[{}]}}"#,
            "x".repeat(60_000),
            items.join(",")
        );
        assert!(text.len() < super::LONGEST_TEXT, "{}", text.len());
        let decoded = std::cell::Cell::new(0usize);
        let retry = |again: &str| {
            decoded.set(decoded.get() + again.len());
            serde_json::from_str::<Order>(again).err()
        };
        let first = serde_json::from_str::<Order>(&text).unwrap_err();
        let first = super::problem_of(&text, &first);
        let found = super::every_problem(&text, first, &retry);
        assert!(found.len() > 1, "{found:?}");
        assert!(
            decoded.get() <= super::WORK_BUDGET,
            "{} bytes decoded again for a {}-byte text",
            decoded.get(),
            text.len()
        );
    }
}
