//! The `WWW-Authenticate` header of a 401 or 403 (RFC 9110 §11.6.1, RFC 6750 §3, RFC 9449
//! §7.1): the Bearer or DPoP challenge's `resource_metadata` (RFC 9728 §5.1), `scope` and
//! `error`.

/// What the Bearer and DPoP challenges say; every field is absent when the header did not
/// carry it (a Bearer challenge's parameters come first when there are both).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Challenge {
    /// Where the protected-resource metadata is (RFC 9728 §5.1).
    pub(crate) resource_metadata: Option<String>,
    /// The scopes the resource asks for, space-separated as sent.
    pub(crate) scope: Option<String>,
    /// `invalid_token`, `insufficient_scope`, ...
    pub(crate) error: Option<String>,
    /// Whether there was a Bearer challenge.
    pub(crate) bearer: bool,
    /// Whether there was a DPoP challenge.
    pub(crate) dpop: bool,
    /// Whether the DPoP challenge's error is `use_dpop_nonce` (RFC 9449 §9).
    pub(crate) use_dpop_nonce: bool,
}

impl Challenge {
    /// Whether this is a 403's "the token lacks a scope" (RFC 6750 §3.1).
    pub(crate) fn insufficient_scope(&self) -> bool {
        self.error.as_deref() == Some("insufficient_scope")
    }
}

/// The longest header value parsed; a longer one is read as if it carried no parameters.
const MAX_HEADER_LEN: usize = 8192;

/// The Bearer and DPoP challenges among the `WWW-Authenticate` values (several headers, or
/// several challenges in one). Neither gives an empty [`Challenge`] (the well-known
/// fallbacks then apply); malformed parameters are skipped, never an error.
pub(crate) fn parse<'a>(values: impl IntoIterator<Item = &'a str>) -> Challenge {
    let mut challenge = Challenge::default();
    let mut found = Vec::new();
    for value in values {
        if value.len() > MAX_HEADER_LEN {
            continue;
        }
        for (scheme, params) in challenges(value) {
            if scheme.eq_ignore_ascii_case("bearer") {
                challenge.bearer = true;
                found.push((0, params));
            } else if scheme.eq_ignore_ascii_case("dpop") {
                challenge.dpop = true;
                let nonce = |(name, value): &(String, String)| {
                    name.eq_ignore_ascii_case("error") && value == "use_dpop_nonce"
                };
                challenge.use_dpop_nonce |= params.iter().any(nonce);
                found.push((1, params));
            }
        }
    }
    // Bearer's parameters first, then DPoP's.
    found.sort_by_key(|(order, _)| *order);
    for (name, value) in found.into_iter().flat_map(|(_, params)| params) {
        let slot = match name.to_ascii_lowercase().as_str() {
            "resource_metadata" => &mut challenge.resource_metadata,
            "scope" => &mut challenge.scope,
            "error" => &mut challenge.error,
            _ => continue,
        };
        slot.get_or_insert(value);
    }
    challenge
}

/// The challenges of one header value: each scheme with its `name=value` parameters (a
/// `token68` is dropped: neither Bearer nor DPoP uses one).
fn challenges(value: &str) -> Vec<(String, Vec<(String, String)>)> {
    let mut out: Vec<(String, Vec<(String, String)>)> = Vec::new();
    for item in split_items(value) {
        let item = item.trim();
        if item.is_empty() {
            continue;
        }
        // `scheme` or `scheme param=...`: a token followed by whitespace (or nothing) before any
        // `=` opens a new challenge.
        let token_end = item.find(|c: char| !is_token_char(c)).unwrap_or(item.len());
        let rest = &item[token_end..];
        let param = if token_end > 0 && (rest.is_empty() || rest.starts_with([' ', '\t'])) {
            out.push((item[..token_end].to_owned(), Vec::new()));
            rest.trim_start()
        } else {
            item
        };
        if param.is_empty() {
            continue;
        }
        if let (Some((_, params)), Some(pair)) = (out.last_mut(), auth_param(param)) {
            params.push(pair);
        }
    }
    out
}

/// `name = value` with `value` a token or a quoted string (its `\` escapes undone).
fn auth_param(param: &str) -> Option<(String, String)> {
    let (name, value) = param.split_once('=')?;
    let name = name.trim();
    if name.is_empty() || !name.chars().all(is_token_char) {
        return None;
    }
    let value = value.trim();
    let value = match value.strip_prefix('"') {
        Some(quoted) => {
            let mut out = String::new();
            let mut chars = quoted.chars();
            loop {
                match chars.next()? {
                    '"' => break,
                    '\\' => out.push(chars.next()?),
                    c => out.push(c),
                }
            }
            out
        }
        None => value.to_owned(),
    };
    Some((name.to_owned(), value))
}

/// The comma-separated items of a header value, commas inside quoted strings kept.
fn split_items(value: &str) -> Vec<&str> {
    let mut items = Vec::new();
    let (mut start, mut quoted, mut escaped) = (0, false, false);
    for (i, c) in value.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' if quoted => escaped = true,
            '"' => quoted = !quoted,
            ',' if !quoted => {
                items.push(&value[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(&value[start..]);
    items
}

/// RFC 9110 `tchar`.
fn is_token_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_bearer_parameters() {
        let challenge = parse([
            r#"Bearer error="invalid_token", error_description="Missing Authorization header", resource_metadata="http://localhost:3000/.well-known/oauth-protected-resource/mcp", scope="mcp:basic mcp:read""#,
        ]);
        assert_eq!(
            challenge.resource_metadata.as_deref(),
            Some("http://localhost:3000/.well-known/oauth-protected-resource/mcp")
        );
        assert_eq!(challenge.scope.as_deref(), Some("mcp:basic mcp:read"));
        assert_eq!(challenge.error.as_deref(), Some("invalid_token"));
        assert!(!challenge.insufficient_scope());
    }

    #[test]
    fn finds_bearer_among_other_challenges() {
        let challenge = parse([
            r#"DPoP algs="ES256", scope="y""#,
            r#"Basic realm="a, b", Bearer scope="x", error=insufficient_scope"#,
        ]);
        // Bearer's parameters win over DPoP's.
        assert_eq!(challenge.scope.as_deref(), Some("x"));
        assert!(challenge.insufficient_scope());
        assert_eq!(challenge.resource_metadata, None);
        assert!(challenge.bearer && challenge.dpop && !challenge.use_dpop_nonce);
    }

    #[test]
    fn reads_the_dpop_challenge() {
        let challenge = parse([
            r#"DPoP error="use_dpop_nonce", resource_metadata="http://h/.well-known/oauth-protected-resource/mcp""#,
        ]);
        assert!(challenge.dpop && !challenge.bearer && challenge.use_dpop_nonce);
        assert_eq!(
            challenge.resource_metadata.as_deref(),
            Some("http://h/.well-known/oauth-protected-resource/mcp")
        );
        // The nonce error of a Bearer challenge is no DPoP nonce request.
        assert!(!parse([r#"Bearer error="use_dpop_nonce""#]).use_dpop_nonce);
    }

    #[test]
    fn scheme_is_case_insensitive_and_escapes_are_undone() {
        let challenge = parse([r#"bearer SCOPE="a \"b\"""#]);
        assert_eq!(challenge.scope.as_deref(), Some(r#"a "b""#));
    }

    #[test]
    fn bare_and_hostile_values_give_nothing() {
        let bare = Challenge {
            bearer: true,
            ..Challenge::default()
        };
        assert_eq!(parse(["Bearer"]), bare);
        assert_eq!(parse([""]), Challenge::default());
        assert_eq!(parse([r#"Bearer scope="unterminated"#]), bare);
        assert_eq!(parse(["Bearer =x, ==, \"\""]), bare);
        assert_eq!(parse([r#"Basic realm="x""#]), Challenge::default());
        assert!(!parse([r#"DPoP error="use_dpop_nonce"#]).use_dpop_nonce);
        let long = format!("Bearer scope=\"{}\"", "a".repeat(MAX_HEADER_LEN));
        assert_eq!(parse([long.as_str()]), Challenge::default());
    }
}
