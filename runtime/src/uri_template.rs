//! Matching a URI against an RFC 6570 template to recover its variables.
//!
//! Supports what resource templates use: literal text, `{var}` (simple expansion: one or more
//! characters other than `/`, `?` and `#`, percent-decoded) and `{+var}` (reserved expansion:
//! anything, including `/`).

/// Matches `uri` against `template`; on success returns each variable with its decoded value,
/// in template order.
pub fn match_uri<'t>(template: &'t str, uri: &str) -> Option<Vec<(&'t str, String)>> {
    let mut vars = Vec::new();
    match_from(template, uri, &mut vars).then_some(vars)
}

fn match_from<'t>(template: &'t str, uri: &str, vars: &mut Vec<(&'t str, String)>) -> bool {
    let Some(open) = template.find('{') else {
        return template == uri;
    };
    let (literal, rest) = template.split_at(open);
    let Some(uri_rest) = uri.strip_prefix(literal) else {
        return false;
    };
    let Some(close) = rest.find('}') else {
        return false;
    };
    let expr = &rest[1..close];
    let after = &rest[close + 1..];
    let (reserved, name) = match expr.strip_prefix('+') {
        Some(name) => (true, name),
        None => (false, expr),
    };
    // Try the longest candidate first, then shorter ones: backtracking keeps `{a}.{b}` correct.
    let limit = if reserved {
        uri_rest.len()
    } else {
        uri_rest.find(['/', '?', '#']).unwrap_or(uri_rest.len())
    };
    let mut ends: Vec<usize> = (1..=limit)
        .filter(|&end| uri_rest.is_char_boundary(end))
        .collect();
    ends.reverse();
    for end in ends {
        let mark = vars.len();
        vars.push((name, percent_decode(&uri_rest[..end])));
        if match_from(after, &uri_rest[end..], vars) {
            return true;
        }
        vars.truncate(mark);
    }
    false
}

/// Decodes `%XX` escapes; invalid escapes and invalid UTF-8 are kept as they are.
fn percent_decode(text: &str) -> String {
    if !text.contains('%') {
        return text.to_string();
    }
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let Ok(byte) = u8::from_str_radix(&text[i + 1..i + 3], 16) {
                out.push(byte);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap_or_else(|_| text.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(percent_decode("100%"), "100%");
        assert_eq!(percent_decode("%zz%41"), "%zzA");
    }
}
