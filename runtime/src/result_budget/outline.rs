//! A large JSON value's outline: the same shape, cut down until it is small enough to read.

use serde_json::{Map, Value};

/// Most members of one object an outline shows (the rest are counted).
const MEMBERS: usize = 48;
/// Longest member name an outline shows whole.
const NAME: usize = 64;
/// Most bytes of an outline: it stands for a result too large to send, so it stays far below
/// any budget.
const MOST: usize = 4 * 1024;

/// The outline of the JSON `text` for a tool whose budget is `budget` bytes: valid JSON of the
/// same shape, where an array keeps its first items and says how many it has, a long string
/// keeps its start and says its length, and deep values are summarized; at most a quarter of
/// the budget (and 4 KiB). Text that is not JSON is outlined as its start.
pub(super) fn outline(text: &str, budget: usize) -> String {
    let most = (budget / 4).clamp(256, MOST);
    let Ok(value) = serde_json::from_str::<Value>(text) else {
        return shorten(text, most / 2);
    };
    // From the richest outline to the barest, the first that fits.
    let levels = [
        (3, 96, 6),
        (2, 64, 5),
        (1, 48, 4),
        (1, 24, 3),
        (0, 16, 2),
        (0, 0, 1),
    ];
    let mut last = String::new();
    for (items, chars, depth) in levels {
        last = cut(&value, items, chars, depth).to_string();
        if last.len() <= most {
            return last;
        }
    }
    shorten(&last, most)
}

/// `value` with arrays cut to `items` items, strings to `chars` characters, and what lies
/// deeper than `depth` summarized as a string.
fn cut(value: &Value, items: usize, chars: usize, depth: usize) -> Value {
    match value {
        Value::String(text) if text.chars().count() > chars.max(16) => {
            let total = text.chars().count();
            Value::String(format!("{}… ({total} characters)", shorten(text, chars)))
        }
        Value::Array(array) if depth == 0 => Value::String(format!("[… {} items]", array.len())),
        Value::Object(object) if depth == 0 => {
            Value::String(format!("{{… {} members}}", object.len()))
        }
        Value::Array(array) => {
            let mut out: Vec<Value> = array
                .iter()
                .take(items)
                .map(|item| cut(item, items, chars, depth - 1))
                .collect();
            if array.len() > items {
                out.push(Value::String(format!(
                    "… {} more items ({} in all)",
                    array.len() - items,
                    array.len()
                )));
            }
            Value::Array(out)
        }
        Value::Object(object) => {
            let mut out = Map::new();
            for (name, member) in object.iter().take(MEMBERS) {
                out.insert(shorten(name, NAME), cut(member, items, chars, depth - 1));
            }
            if object.len() > MEMBERS {
                out.insert(
                    "…".into(),
                    Value::String(format!("{} more members", object.len() - MEMBERS)),
                );
            }
            Value::Object(out)
        }
        other => other.clone(),
    }
}

/// The first `chars` characters of `text`.
fn shorten(text: &str, chars: usize) -> String {
    match text.char_indices().nth(chars) {
        Some((at, _)) => text[..at].to_string(),
        None => text.to_string(),
    }
}
