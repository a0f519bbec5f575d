//! What one serde_json decode error says, in the words of the schema: the JSON pointer of the
//! value at fault (read again from the text, by [`levels_at`], only once a decode has failed),
//! the keyword it breaks and a message. [`super::decode`] reports these; [`super::every_problem`]
//! collects them; [`super::alternatives`] describes a union's alternatives with them.

use super::push_pointer_key;

/// What starts the message of a value no alternative of a union takes (written by
/// [`super::no_alternative`], recognised by [`describe`]).
pub(super) const NONE_PREFIX: &str = "matches none of ";

/// One problem of a decode: the JSON pointer of the value at fault, the schema keyword it
/// breaks, and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Problem {
    pub(super) pointer: String,
    pub(super) keyword: &'static str,
    pub(super) message: String,
}

/// The problem `error` names in `text`.
pub(super) fn problem(text: &str, error: &serde_json::Error) -> Problem {
    let inner = error.to_string();
    let message = strip_position(&inner);
    let mut levels = offset(text, error.line(), error.column())
        .map(|at| levels_at(text, at))
        .unwrap_or_default();
    // serde_json says "trailing characters" at the first item a tuple did not take: the fault
    // is the array's, which has too many items.
    let (pointer, keyword, message) =
        if message == "trailing characters" && matches!(levels.last(), Some(Level::Array { .. })) {
            levels.pop();
            let text = "has more items than the schema allows".to_string();
            (pointer_of(&levels), "maxItems", text)
        } else {
            describe(pointer_of(&levels), message)
        };
    Problem {
        pointer,
        keyword,
        message,
    }
}

/// The byte offset of serde_json's `line` and `column` in `text` (for the errors of a
/// `Deserialize`, the column is the offset in the line of the first byte not read yet); `None`
/// for an error without a position (line 0).
fn offset(text: &str, line: usize, column: usize) -> Option<usize> {
    let line_start = match line {
        0 => return None,
        1 => 0,
        _ => {
            text.bytes()
                .enumerate()
                .filter(|&(_, byte)| byte == b'\n')
                .nth(line - 2)?
                .0
                + 1
        }
    };
    Some((line_start + column).min(text.len()))
}

/// Where a scan of the JSON is, one level of nesting.
enum Level {
    /// In an object: the member being read, once its name has been.
    Object {
        member: Option<String>,
        expects_name: bool,
    },
    /// In an array: the item being read.
    Array { index: usize },
}

/// The levels open at byte `at` of `text`: the members and items around the value being read. serde_json reports an error in a scalar after reading it, and one of an object
/// or array (a missing member, a short tuple, no variant matched) after its closing bracket:
/// either way the member or item last named is the value at fault.
fn levels_at(text: &str, at: usize) -> Vec<Level> {
    let bytes = text.as_bytes();
    let mut levels: Vec<Level> = Vec::new();
    let mut i = 0;
    while i < at {
        match bytes[i] {
            b'{' => levels.push(Level::Object {
                member: None,
                expects_name: true,
            }),
            b'[' => levels.push(Level::Array { index: 0 }),
            b'}' | b']' => {
                levels.pop();
            }
            b',' => match levels.last_mut() {
                Some(Level::Array { index }) => *index += 1,
                Some(Level::Object {
                    member,
                    expects_name,
                }) => {
                    *member = None;
                    *expects_name = true;
                }
                None => {}
            },
            b'"' => {
                let end = string_end(bytes, i);
                if let Some(Level::Object {
                    member,
                    expects_name: expects_name @ true,
                }) = levels.last_mut()
                {
                    *member = serde_json::from_str::<String>(&text[i..end]).ok();
                    *expects_name = false;
                }
                i = end;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    levels
}

/// The byte after the string that starts at `start` (its closing quote included), or the end
/// of `bytes` for a string that does not end.
fn string_end(bytes: &[u8], start: usize) -> usize {
    let mut i = start + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    bytes.len()
}

fn pointer_of(levels: &[Level]) -> String {
    let mut out = String::new();
    for level in levels {
        match level {
            Level::Object {
                member: Some(name), ..
            } => push_pointer_key(&mut out, name),
            Level::Object { member: None, .. } => {}
            Level::Array { index } => {
                out.push('/');
                out.push_str(&index.to_string());
            }
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
    // A tuple short of items: `invalid length 1, expected a tuple of size 2`.
    if let Some(rest) = message.strip_prefix("invalid length ") {
        if let Some((got, size)) = rest.split_once(", expected a tuple of size ") {
            let text = format!("expected an array of {size} items, got {got}");
            return (pointer, "minItems", text);
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
        return (pointer, "additionalProperties", not_allowed(field, message));
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
    // A generated union's own account of why each alternative refused the value.
    if message.starts_with(NONE_PREFIX) {
        return (pointer, "oneOf", message.to_string());
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

/// Most allowed members an unknown member's message lists: enough for the objects of real
/// documents (the Ethereum `GenericTransaction` has 18), few enough to bound the message.
const LISTED_MEMBERS: usize = 24;

/// The message of an unknown member `field` of serde's `message` (`unknown field `data`,
/// expected one of `from`, `to`, `input``): the allowed member a slip away
/// (`is not allowed (did you mean `input`?)`, for a name of three letters or more), else the
/// allowed members, at most
/// [`LISTED_MEMBERS`] (`is not allowed (allowed: `from`, `to`, `input`)`), so that a model can
/// correct its call from the error alone.
fn not_allowed(field: &str, message: &str) -> String {
    let allowed: Vec<&str> = match message.split_once(", expected ") {
        Some((_, list)) => list
            .trim_start_matches("one of ")
            .split('`')
            .skip(1)
            .step_by(2)
            .collect(),
        None => Vec::new(),
    };
    if message.ends_with("there are no fields") {
        return "is not allowed (no member is)".to_string();
    }
    // A name of one or two letters has no slip of itself: `z` is not a misspelt `x`.
    let near = match field.chars().count() >= 3 {
        true => crate::similar::nearest(field, allowed.iter().copied()),
        false => None,
    };
    if let Some(near) = near {
        return format!("is not allowed (did you mean `{near}`?)");
    }
    match allowed.len() {
        0 => "is not allowed".to_string(),
        n => {
            let listed: Vec<String> = allowed
                .iter()
                .take(LISTED_MEMBERS)
                .map(|name| format!("`{name}`"))
                .collect();
            let more = match n > LISTED_MEMBERS {
                true => format!(" and {} more", n - LISTED_MEMBERS),
                false => String::new(),
            };
            format!("is not allowed (allowed: {}{more})", listed.join(", "))
        }
    }
}

/// The pointer (relative to the value decoded, `""` for the value itself) and the message for
/// serde's `message`, of an error without a position to read the pointer from (a decode from a
/// `serde_json::Value`).
pub(super) fn describe_alone(message: &str) -> (String, String) {
    let (pointer, _, message) = describe(String::new(), strip_position(message));
    (pointer, message)
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
    use super::not_allowed;

    #[test]
    fn an_unknown_member_names_the_near_one_or_lists_the_allowed() {
        // The Ethereum document's `GenericTransaction` names the call data `input`.
        let serde = "unknown field `data`, expected one of `type`, `nonce`, `to`, `from`, \
                     `gas`, `value`, `input`, `gasPrice`, `maxFeePerGas`, `chainId`";
        assert_eq!(
            not_allowed("data", serde),
            "is not allowed (allowed: `type`, `nonce`, `to`, `from`, `gas`, `value`, `input`, \
             `gasPrice`, `maxFeePerGas`, `chainId`)"
        );
        let many: Vec<String> = (0..30).map(|i| format!("`m{i}`")).collect();
        let long = format!("unknown field `zz`, expected one of {}", many.join(", "));
        let message = not_allowed("zz", &long);
        assert!(message.ends_with("`m23` and 6 more)"), "{message}");
        assert_eq!(
            not_allowed("gas_price", serde),
            "is not allowed (did you mean `gasPrice`?)"
        );
        assert_eq!(
            not_allowed("b", "unknown field `b`, expected `a` or `c`"),
            "is not allowed (allowed: `a`, `c`)"
        );
        assert_eq!(
            not_allowed("fro", "unknown field `fro`, expected `from` or `to`"),
            "is not allowed (did you mean `from`?)"
        );
        assert_eq!(
            not_allowed("zz", "unknown field `zz`, expected `alpha`"),
            "is not allowed (allowed: `alpha`)"
        );
        assert_eq!(
            not_allowed("x", "unknown field `x`, there are no fields"),
            "is not allowed (no member is)"
        );
        assert_eq!(not_allowed("x", "unknown field `x`"), "is not allowed");
    }
}
