//! Resource URI templates (`uri_template.rs`): no panic and bounded time on any template and
//! URI; the same answer as a backtracking reference matcher on small inputs; and a URI
//! expanded from a template matches it with the values it was expanded from.

use mcp_runtime::uri_template::{match_uri, MAX_URI_LEN};
use std::time::{Duration, Instant};

/// How long one match may take, debug build included (it takes microseconds).
const TIME_LIMIT: Duration = Duration::from_secs(2);

/// `match_uri` never panics and ends quickly; on small inputs it agrees with [`reference`].
pub fn check_match(template: &str, uri: &str) {
    let started = Instant::now();
    let got = match_uri(template, uri);
    let took = started.elapsed();
    assert!(
        took < TIME_LIMIT,
        "{template:?} on {} bytes took {took:?}",
        uri.len()
    );
    if uri.len() <= 24 && template.len() <= 24 {
        let expected = reference(template, uri);
        let got: Option<Vec<(String, String)>> =
            got.map(|vars| vars.into_iter().map(|(n, v)| (n.to_string(), v)).collect());
        assert_eq!(got, expected, "{template:?} on {uri:?}");
    } else if uri.len() > MAX_URI_LEN {
        assert_eq!(got, None);
    }
}

/// One piece of a template, for [`check_expansion`].
#[derive(Debug, Clone)]
pub enum Piece {
    /// Literal text; made of [`LITERAL_CHARS`] only.
    Literal(String),
    /// A variable (`{+name}` when `reserved`) and the value to expand it with (not empty).
    Variable {
        /// Its name.
        name: String,
        /// `{+name}`.
        reserved: bool,
        /// The value expanded into the URI.
        value: String,
    },
}

/// The characters literals are made of: no `%`, no hex digit and no `{`/`}`, so an expanded
/// value (every such character percent-encoded) can never be mistaken for a literal.
pub const LITERAL_CHARS: &str = "ghijklmnopqrstuvwxyzGHIJKLMNOPQRSTUVWXYZ:/._~-?#=&!$'()*,;@";

/// Expands `pieces` into a template and a URI (every value percent-encoded where it could
/// be read as a literal or end a simple variable), then matches: each variable gets its value
/// back. Adjacent variables are separated by a literal.
pub fn check_expansion(pieces: &[Piece]) {
    let mut template = String::new();
    let mut uri = String::new();
    let mut expected = Vec::new();
    let mut previous_variable = false;
    for piece in pieces {
        match piece {
            Piece::Literal(text) => {
                template.push_str(text);
                uri.push_str(text);
                previous_variable = text.is_empty() && previous_variable;
            }
            Piece::Variable {
                name,
                reserved,
                value,
            } => {
                if previous_variable || value.is_empty() {
                    continue;
                }
                template.push_str(&format!("{{{}{name}}}", if *reserved { "+" } else { "" }));
                for byte in value.bytes() {
                    if byte.is_ascii_alphanumeric() && !LITERAL_CHARS.contains(byte as char) {
                        uri.push(byte as char);
                    } else {
                        uri.push_str(&format!("%{byte:02X}"));
                    }
                }
                expected.push((name.clone(), value.clone()));
                previous_variable = true;
            }
        }
    }
    if uri.len() > MAX_URI_LEN {
        return;
    }
    let got = match_uri(&template, &uri).map(|vars| {
        vars.into_iter()
            .map(|(n, v)| (n.to_string(), v))
            .collect::<Vec<_>>()
    });
    assert_eq!(got, Some(expected), "{template:?} on {uri:?}");
}

#[derive(Debug)]
enum Part<'t> {
    Literal(&'t str),
    Variable(&'t str, bool),
}

/// The module's documented semantics, by backtracking: literals match themselves; a variable
/// takes one character or more (none of `/`, `?`, `#` unless reserved), the earliest variable
/// the longest text that lets the rest match; values are percent-decoded, or kept as written
/// when that is not UTF-8; a `{` never closed matches nothing.
fn reference(template: &str, uri: &str) -> Option<Vec<(String, String)>> {
    let mut parts = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        if open > 0 {
            parts.push(Part::Literal(&rest[..open]));
        }
        let close = open + rest[open..].find('}')?;
        let expr = &rest[open + 1..close];
        parts.push(match expr.strip_prefix('+') {
            Some(name) => Part::Variable(name, true),
            None => Part::Variable(expr, false),
        });
        rest = &rest[close + 1..];
    }
    if !rest.is_empty() {
        parts.push(Part::Literal(rest));
    }
    fn go(parts: &[Part<'_>], uri: &str, pos: usize) -> Option<Vec<(String, String)>> {
        let Some((first, rest)) = parts.split_first() else {
            return (pos == uri.len()).then(Vec::new);
        };
        match *first {
            Part::Literal(text) => uri[pos..]
                .starts_with(text)
                .then(|| go(rest, uri, pos + text.len()))
                .flatten(),
            Part::Variable(name, reserved) => (pos + 1..=uri.len()).rev().find_map(|end| {
                let text = uri.get(pos..end)?;
                if !reserved && text.contains(['/', '?', '#']) {
                    return None;
                }
                let mut vars = go(rest, uri, end)?;
                vars.insert(0, (name.to_string(), percent_decode(text)));
                Some(vars)
            }),
        }
    }
    go(&parts, uri, 0)
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap_or_else(|_| text.to_string())
}
