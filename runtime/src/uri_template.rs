//! Matching a URI against an RFC 6570 template to recover its variables, and the reverse:
//! expanding a template with values ([`expand`], what a client does before `resources/read`).
//!
//! Supports what resource templates use: literal text, `{var}` (simple expansion: one or more
//! characters other than `/`, `?` and `#`, percent-decoded), `{+var}` (reserved expansion:
//! anything, including `/`) and, as the template's last expression, `{?a,b}` (form-style query:
//! `?a=1&b=2`, each variable optional, in any order).
//!
//! The URI comes from the client, so the work one match can cause is bounded: URIs longer than
//! [`MAX_URI_LEN`] match nothing, and matching is linear in the URI's length for a given
//! template (one pass per template part, right to left, records where the rest of the template
//! can match; a second pass picks each variable's longest text). A variable's text is decoded
//! once, after the whole URI matched, and decoding never fails: an escape that is not one, or
//! bytes that are not UTF-8, leave the variable as it was written.

use percent_encoding::{percent_decode_str, utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};

/// The longest URI a template is matched against; longer ones match none.
#[doc(hidden)]
pub const MAX_URI_LEN: usize = 8 * 1024;

/// Matches `uri` against `template`; on success returns each variable with its decoded value,
/// in template order. When a variable could take several lengths, it takes the longest (so
/// `{major}.{minor}` against `1.2.3` gives `major = 1.2`).
///
/// A template ending in `{?a,b}` matches the URI's path (up to its first `?`) with the rest of
/// the template, then reads the query: each `name=value` names one of the query's variables at
/// most once (another name, or one given twice, matches nothing); the variables it leaves out
/// are not returned.
pub fn match_uri<'t>(template: &'t str, uri: &str) -> Option<Vec<(&'t str, String)>> {
    if uri.len() > MAX_URI_LEN {
        return None;
    }
    let (template, query) = split_query(template);
    let Some(names) = query else {
        return match_path(template, uri);
    };
    let (path, given) = match uri.split_once('?') {
        Some((path, given)) => (path, given),
        None => (uri, ""),
    };
    let mut vars = match_path(template, path)?;
    let path_vars = vars.len();
    for pair in given.split('&').filter(|pair| !pair.is_empty()) {
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        let name = decode(name);
        let name = *names.iter().find(|known| **known == name)?;
        if vars[path_vars..].iter().any(|(seen, _)| *seen == name) {
            return None;
        }
        vars.push((name, decode(value)));
    }
    Some(vars)
}

/// The template without its final `{?a,b}` expression, and that expression's names.
fn split_query(template: &str) -> (&str, Option<Vec<&str>>) {
    let Some(open) = template.rfind("{?") else {
        return (template, None);
    };
    match template[open + 2..].strip_suffix('}') {
        Some(names) if !names.contains(['{', '}']) => (
            &template[..open],
            Some(names.split(',').map(str::trim).collect()),
        ),
        _ => (template, None),
    }
}

/// [`match_uri`] for a template without a query expression.
fn match_path<'t>(template: &'t str, uri: &str) -> Option<Vec<(&'t str, String)>> {
    let parts = parse(template)?;
    let matches = Matches::of(&parts, uri);
    if !matches.from(0, 0) {
        return None;
    }
    let mut vars = Vec::new();
    let mut pos = 0;
    for (index, part) in parts.iter().enumerate() {
        match *part {
            Part::Literal(literal) => pos += literal.len(),
            Part::Variable { name, reserved } => {
                let end = (pos + 1..=variable_limit(uri, pos, reserved))
                    .rev()
                    .find(|&end| matches.from(index + 1, end))?;
                vars.push((name, decode(&uri[pos..end])));
                pos = end;
            }
        }
    }
    Some(vars)
}

/// Where a variable starting at `pos` may end at the latest: a simple one stops before `/`,
/// `?` or `#`, a reserved one takes anything.
fn variable_limit(uri: &str, pos: usize, reserved: bool) -> usize {
    match reserved {
        true => uri.len(),
        false => uri[pos..]
            .find(['/', '?', '#'])
            .map_or(uri.len(), |at| pos + at),
    }
}

/// A piece of a template.
#[derive(Debug, PartialEq)]
enum Part<'t> {
    Literal(&'t str),
    /// `{name}`, or `{+name}` when `reserved`.
    Variable {
        name: &'t str,
        reserved: bool,
    },
}

/// The template's literals and variables in order; `None` when a `{` is never closed.
fn parse(template: &str) -> Option<Vec<Part<'_>>> {
    let mut parts = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        if open > 0 {
            parts.push(Part::Literal(&rest[..open]));
        }
        let close = open + rest[open..].find('}')?;
        let expr = &rest[open + 1..close];
        parts.push(match expr.strip_prefix('+') {
            Some(name) => Part::Variable {
                name,
                reserved: true,
            },
            None => Part::Variable {
                name: expr,
                reserved: false,
            },
        });
        rest = &rest[close + 1..];
    }
    if !rest.is_empty() {
        parts.push(Part::Literal(rest));
    }
    Some(parts)
}

/// For every part of a template and every byte position of the URI, whether the template
/// from that part on matches the URI from that position on; filled right to left, one linear
/// pass per part.
struct Matches {
    /// `rows[part][pos]`; the last row is the empty rest of the template.
    rows: Vec<Vec<bool>>,
}

impl Matches {
    fn of(parts: &[Part<'_>], uri: &str) -> Self {
        let n = uri.len();
        let mut rows = vec![vec![false; n + 1]; parts.len() + 1];
        rows[parts.len()][n] = true;
        // The first matching position at or after each position, for the row after a variable.
        let mut next_match = vec![usize::MAX; n + 2];
        for index in (0..parts.len()).rev() {
            let (row, after) = rows.split_at_mut(index + 1);
            let (row, after) = (&mut row[index], &after[0]);
            match parts[index] {
                Part::Literal(literal) => {
                    for pos in 0..=n.saturating_sub(literal.len()) {
                        row[pos] = uri.as_bytes()[pos..].starts_with(literal.as_bytes())
                            && after[pos + literal.len()];
                    }
                }
                Part::Variable { reserved, .. } => {
                    for pos in (0..=n).rev() {
                        next_match[pos] = if after[pos] { pos } else { next_match[pos + 1] };
                    }
                    // A simple variable stops at the first `/`, `?` or `#`: track it right to
                    // left too.
                    let mut stop = n;
                    for pos in (0..n).rev() {
                        if !reserved && matches!(uri.as_bytes()[pos], b'/' | b'?' | b'#') {
                            stop = pos;
                        }
                        // One character at least, starting on a character boundary.
                        row[pos] = uri.is_char_boundary(pos) && next_match[pos + 1] <= stop;
                    }
                }
            }
        }
        Self { rows }
    }

    /// Whether the template from `part` on matches the URI from `pos` on.
    fn from(&self, part: usize, pos: usize) -> bool {
        self.rows[part][pos]
    }
}

/// Decodes `%XX` escapes; an invalid escape is kept as written, and so is the whole text when
/// the bytes are not UTF-8.
fn decode(text: &str) -> String {
    match percent_decode_str(text).decode_utf8() {
        Ok(decoded) => decoded.into_owned(),
        Err(_) => text.to_string(),
    }
}

/// Characters a simple expansion (`{var}`) writes as they are: RFC 6570's unreserved set.
const UNRESERVED: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// Characters a reserved expansion (`{+var}`) also writes as they are: RFC 3986's reserved
/// set, and `%` so that a value's own escapes pass through.
const RESERVED: &AsciiSet = &UNRESERVED
    .remove(b':')
    .remove(b'/')
    .remove(b'?')
    .remove(b'#')
    .remove(b'[')
    .remove(b']')
    .remove(b'@')
    .remove(b'!')
    .remove(b'$')
    .remove(b'&')
    .remove(b'\'')
    .remove(b'(')
    .remove(b')')
    .remove(b'*')
    .remove(b'+')
    .remove(b',')
    .remove(b';')
    .remove(b'=')
    .remove(b'%');

/// Expands `template` with the members of `values`, the inverse of [`match_uri`] for the same
/// template syntax: a string is percent-encoded (everything but unreserved characters for
/// `{var}`, reserved ones kept for `{+var}`), a number or boolean written as its JSON. A
/// variable that is missing or `null` expands to nothing, as RFC 6570 says of undefined ones.
/// `Err` names a variable whose value is an array or object, or a `{` never closed.
pub fn expand(
    template: &str,
    values: &serde_json::Map<String, serde_json::Value>,
) -> Result<String, ExpandError> {
    let (path, query) = split_query(template);
    let parts = parse(path).ok_or_else(|| ExpandError::Unclosed {
        template: template.to_owned(),
    })?;
    let mut uri = String::with_capacity(template.len() + 16);
    for part in parts {
        match part {
            Part::Literal(literal) => uri.push_str(literal),
            Part::Variable { name, reserved } => {
                let Some(text) = text_of(values, name)? else {
                    continue;
                };
                let set = if reserved { RESERVED } else { UNRESERVED };
                uri.extend(utf8_percent_encode(&text, set));
            }
        }
    }
    let mut separator = '?';
    for name in query.unwrap_or_default() {
        let Some(text) = text_of(values, name)? else {
            continue;
        };
        uri.push(separator);
        uri.extend(utf8_percent_encode(name, UNRESERVED));
        uri.push('=');
        uri.extend(utf8_percent_encode(&text, UNRESERVED));
        separator = '&';
    }
    Ok(uri)
}

/// The text `name`'s value expands to: `None` when undefined (absent or `null`), an error for
/// an array or an object.
fn text_of(
    values: &serde_json::Map<String, serde_json::Value>,
    name: &str,
) -> Result<Option<String>, ExpandError> {
    use serde_json::Value;
    match values.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => Ok(Some(text.clone())),
        Some(value @ (Value::Number(_) | Value::Bool(_))) => Ok(Some(value.to_string())),
        Some(_) => Err(ExpandError::Composite {
            name: name.to_owned(),
        }),
    }
}

/// Why [`expand`] could not expand a template.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ExpandError {
    /// The template has a `{` that is never closed.
    Unclosed {
        /// The template.
        template: String,
    },
    /// A variable's value is an array or an object.
    Composite {
        /// The variable's name.
        name: String,
    },
}

impl std::fmt::Display for ExpandError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Unclosed { template } => {
                write!(f, "template {template:?} has a `{{` that is never closed")
            }
            Self::Composite { name } => write!(
                f,
                "template variable `{name}` is an array or object: only strings, numbers and \
                 booleans expand"
            ),
        }
    }
}

impl std::error::Error for ExpandError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_query_expression_matches_its_variables_in_any_order_each_optional() {
        let template = "eth://subscription/{kind}{?filter,limit}";
        let vars = |uri| match_uri(template, uri);
        assert_eq!(
            vars("eth://subscription/newHeads"),
            Some(vec![("kind", "newHeads".to_string())])
        );
        assert_eq!(
            vars("eth://subscription/logs?limit=3&filter=%7B%22address%22%3A%220x1%22%7D"),
            Some(vec![
                ("kind", "logs".to_string()),
                ("limit", "3".to_string()),
                ("filter", r#"{"address":"0x1"}"#.to_string()),
            ])
        );
        assert_eq!(
            vars("eth://subscription/logs?"),
            Some(vec![("kind", "logs".to_string())])
        );
        // A name it does not have, or one given twice, matches nothing.
        assert_eq!(vars("eth://subscription/logs?other=1"), None);
        assert_eq!(vars("eth://subscription/logs?limit=1&limit=2"), None);
        // The path still has to match.
        assert_eq!(vars("eth://other/logs?limit=1"), None);
        assert_eq!(vars("eth://subscription/?limit=1"), None);
    }

    #[test]
    fn a_query_expression_expands_the_values_given() {
        let template = "eth://subscription/{kind}{?filter,limit}";
        let values = |json: serde_json::Value| json.as_object().unwrap().clone();
        assert_eq!(
            expand(template, &values(serde_json::json!({"kind": "newHeads"}))).unwrap(),
            "eth://subscription/newHeads"
        );
        let uri = expand(
            template,
            &values(serde_json::json!({"kind": "logs", "filter": "{\"a\":1}", "limit": 2})),
        )
        .unwrap();
        assert_eq!(
            uri,
            "eth://subscription/logs?filter=%7B%22a%22%3A1%7D&limit=2"
        );
        assert_eq!(
            match_uri(template, &uri).unwrap()[1],
            ("filter", r#"{"a":1}"#.to_string())
        );
    }

    #[test]
    fn expanding_encodes_and_matching_recovers_the_values() {
        let values = serde_json::json!({"id": "a b/c", "path": "x/y z", "n": 7, "flag": true});
        let values = values.as_object().unwrap();
        let template = "notes://{id}/{+path}?n={n}&f={flag}";
        let uri = expand(template, values).unwrap();
        assert_eq!(uri, "notes://a%20b%2Fc/x/y%20z?n=7&f=true");
        assert_eq!(
            match_uri(template, &uri),
            Some(vec![
                ("id", "a b/c".to_string()),
                ("path", "x/y z".to_string()),
                ("n", "7".to_string()),
                ("flag", "true".to_string()),
            ])
        );
    }

    #[test]
    fn expanding_skips_undefined_and_refuses_composites() {
        let values = serde_json::json!({"a": null, "list": [1, 2]});
        let values = values.as_object().unwrap();
        assert_eq!(expand("x/{a}{missing}", values).unwrap(), "x/");
        let error = expand("x/{list}", values).unwrap_err();
        assert_eq!(
            error,
            ExpandError::Composite {
                name: "list".into()
            }
        );
        assert_eq!(
            error.to_string(),
            "template variable `list` is an array or object: only strings, numbers and booleans \
             expand"
        );
        let error = expand("x/{open", values).unwrap_err();
        assert!(matches!(&error, ExpandError::Unclosed { template } if template == "x/{open"));
        assert_eq!(
            error.to_string(),
            "template \"x/{open\" has a `{` that is never closed"
        );
    }

    #[test]
    fn simple_variables() {
        assert_eq!(
            match_uri("file:///logs/{name}.log", "file:///logs/app.log"),
            Some(vec![("name", "app".to_string())])
        );
        assert_eq!(
            match_uri("file:///logs/{name}.log", "file:///logs/a/b.log"),
            None
        );
        assert_eq!(
            match_uri("file:///logs/{name}.log", "file:///logs/.log"),
            None
        );
        assert_eq!(
            match_uri("test://{a}/{b}", "test://x%20y/z"),
            Some(vec![("a", "x y".to_string()), ("b", "z".to_string())])
        );
        assert_eq!(
            match_uri("v://{major}.{minor}", "v://1.2.3"),
            Some(vec![
                ("major", "1.2".to_string()),
                ("minor", "3".to_string())
            ])
        );
    }

    #[test]
    fn reserved_expansion_and_literals() {
        assert_eq!(
            match_uri("file:///{+path}", "file:///a/b/c.txt"),
            Some(vec![("path", "a/b/c.txt".to_string())])
        );
        assert_eq!(match_uri("fixed://x", "fixed://x"), Some(vec![]));
        assert_eq!(match_uri("fixed://x", "fixed://y"), None);
        assert_eq!(match_uri("broken://{x", "broken://{x"), None);
        assert_eq!(decode("100%"), "100%");
        assert_eq!(decode("%zz%41"), "%zzA");
    }

    #[test]
    fn hostile_uris_neither_panic_nor_take_long() {
        // An escape cut by a multi-byte character (it panicked a connection once).
        assert_eq!(
            match_uri("notes://notes/{id}", "notes://notes/%€"),
            Some(vec![("id", "%€".to_string())])
        );
        assert_eq!(
            match_uri("notes://notes/{id}", "notes://notes/%"),
            Some(vec![("id", "%".to_string())])
        );
        // Bytes that are not UTF-8 once decoded stay as written.
        assert_eq!(
            match_uri("notes://notes/{id}", "notes://notes/%ff"),
            Some(vec![("id", "%ff".to_string())])
        );
        // Many variables separated by a literal the URI repeats: linear, so this ends at once
        // instead of exploring every split.
        let template = "a://{a}-{b}-{c}-{d}-{e}-{f}-{g}-{h}!";
        let uri = format!("a://{}", "x-".repeat(2_000));
        let started = std::time::Instant::now();
        assert_eq!(match_uri(template, &uri), None);
        assert!(started.elapsed() < std::time::Duration::from_secs(2));
        let too_long = format!("file:///{}", "a".repeat(MAX_URI_LEN));
        assert_eq!(match_uri("file:///{+path}", &too_long), None);
    }
}
