//! Checks every request passes before it reaches the protocol: Host and Origin (DNS
//! rebinding), media types.

use http::HeaderValue;

/// The host name of a `Host` header value or an origin's authority: port and IPv6 brackets
/// removed, lowercased.
pub fn host_name(authority: &str) -> String {
    String::from_utf8_lossy(host_part(authority.as_bytes())).to_ascii_lowercase()
}

/// [`host_name`] without the lowercasing (a slice of `authority`). Bytes, not text: every
/// request goes through here, and a header value need not be checked for UTF-8 to be compared
/// with an allowed name. A bracketed IPv6 host may only be followed by a port: anything else
/// after `]` (as in `[::1]evil.example`) makes the whole value the name, which no allowed
/// host equals.
fn host_part(authority: &[u8]) -> &[u8] {
    let authority = authority.trim_ascii();
    if let Some(rest) = authority.strip_prefix(b"[") {
        let Some(close) = rest.iter().position(|&b| b == b']') else {
            return authority;
        };
        return match &rest[close + 1..] {
            [] => &rest[..close],
            [b':', port @ ..] if port.iter().all(u8::is_ascii_digit) => &rest[..close],
            _ => authority,
        };
    }
    match authority.iter().rposition(|&b| b == b':') {
        Some(colon) if authority[colon + 1..].iter().all(u8::is_ascii_digit) => &authority[..colon],
        _ => authority,
    }
}

/// Why a request is refused before the protocol sees it, with the message for the body.
pub enum Refusal {
    /// No `Host` header (HTTP/1.1 requires one): 400.
    MissingHost,
    /// A `Host` or `Origin` naming a host that is not allowed: 403.
    Forbidden(String),
}

/// Checks `Host` (required) and `Origin` (when present) against the allowed host names.
pub fn check_host_and_origin(
    host: Option<&HeaderValue>,
    origin: Option<&HeaderValue>,
    allowed: &[String],
) -> Result<(), Refusal> {
    // Exact bytes first: clients send host names lowercase, and the case-insensitive
    // comparison costs ten times as much per byte.
    let allowed_name = |name: &[u8]| {
        allowed.iter().any(|a| a.as_bytes() == name)
            || allowed
                .iter()
                .any(|a| a.as_bytes().eq_ignore_ascii_case(name))
    };
    let Some(host) = host else {
        return Err(Refusal::MissingHost);
    };
    if !allowed_name(host_part(host.as_bytes())) {
        return Err(Refusal::Forbidden(refused_host(host)));
    }
    if let Some(origin) = origin {
        let origin = origin.to_str().unwrap_or_default();
        let authority = origin.split_once("://").map(|(_, rest)| rest).unwrap_or("");
        let name = host_part(authority.split('/').next().unwrap_or_default().as_bytes());
        if name.is_empty() || !allowed_name(name) {
            return Err(Refusal::Forbidden(refused_origin(origin)));
        }
    }
    Ok(())
}

// The refusals are built out of line (`#[cold]`), here and on the other request paths: the
// code every request runs then stays compact, which matters more than its instruction count
// once the whole path no longer fits the instruction cache.

#[cold]
fn refused_host(host: &HeaderValue) -> String {
    let host = String::from_utf8_lossy(host.as_bytes());
    format!(
        "Forbidden: Host \"{host}\" is not allowed (DNS rebinding protection). Add \"{}\" to Config::allowed_hosts to serve it.",
        host_name(&host)
    )
}

#[cold]
fn refused_origin(origin: &str) -> String {
    format!(
        "Forbidden: Origin \"{origin}\" is not allowed (DNS rebinding protection). Add its host to Config::allowed_hosts to serve it."
    )
}

/// `value` up to its first `;` (media type parameters), without surrounding whitespace.
fn media_type(value: &[u8]) -> &[u8] {
    let end = value.iter().position(|&b| b == b';').unwrap_or(value.len());
    value[..end].trim_ascii()
}

/// Whether a `Content-Type` value is JSON.
pub fn is_json_content(content_type: Option<&HeaderValue>) -> bool {
    const JSON: &[u8] = b"application/json";
    // Nearly every client sends exactly this.
    content_type.is_some_and(|v| {
        v.as_bytes() == JSON || media_type(v.as_bytes()).eq_ignore_ascii_case(JSON)
    })
}

/// For each of `mimes`, whether the `Accept` value `accept` lists it (or a wildcard covering
/// it). Cold: the endpoint compares the usual value whole first.
#[cold]
pub fn accepted_in<const N: usize>(accept: &HeaderValue, mimes: &[&str; N]) -> [bool; N] {
    let mut found = [false; N];
    for item in accept.as_bytes().split(|&b| b == b',') {
        let item = item.trim_ascii();
        // Nearly every client lists the exact types, lowercase and without parameters.
        if let Some(exact) = mimes.iter().position(|mime| mime.as_bytes() == item) {
            found[exact] = true;
            continue;
        }
        let item = media_type(item);
        for (mime, found) in mimes.iter().zip(found.iter_mut()) {
            *found = *found || covers(item, mime.as_bytes());
        }
    }
    found
}

/// Whether the media range `range` (`type/subtype`, `type/*` or `*/*`) covers `mime`.
fn covers(range: &[u8], mime: &[u8]) -> bool {
    match range.strip_suffix(b"/*") {
        Some(b"*") => true,
        Some(kind) => {
            mime.len() > kind.len()
                && mime[kind.len()] == b'/'
                && mime[..kind.len()].eq_ignore_ascii_case(kind)
        }
        None => range.eq_ignore_ascii_case(mime),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http::header::{HOST, ORIGIN};
    use http::HeaderMap;

    fn check(headers: &HeaderMap, allowed: &[String]) -> Result<(), String> {
        match check_host_and_origin(headers.get(HOST), headers.get(ORIGIN), allowed) {
            Ok(()) => Ok(()),
            Err(Refusal::MissingHost) => Err("no Host".into()),
            Err(Refusal::Forbidden(message)) => Err(message),
        }
    }

    #[test]
    fn host_names() {
        assert_eq!(host_name("localhost:8080"), "localhost");
        assert_eq!(host_name("[::1]:3000"), "::1");
        assert_eq!(host_name("[::1]"), "::1");
        assert_eq!(host_name("Example.COM"), "example.com");
        assert_eq!(host_name("example.com:"), "example.com");
        assert_eq!(host_name("example.com:80x"), "example.com:80x");
        assert_eq!(host_name(" localhost "), "localhost");
        // Only a port may follow a bracketed IPv6 host.
        assert_eq!(host_name("[::1]evil.example"), "[::1]evil.example");
        assert_eq!(host_name("[::1]:80x"), "[::1]:80x");
        assert_eq!(host_name("[::1"), "[::1");
    }

    #[test]
    fn rebinding_is_refused_and_loopback_accepted() {
        let allowed: Vec<String> = vec!["localhost".into(), "127.0.0.1".into(), "::1".into()];
        let mut headers = HeaderMap::new();
        headers.insert(HOST, HeaderValue::from_static("127.0.0.1:9000"));
        headers.insert(ORIGIN, HeaderValue::from_static("http://localhost:9000"));
        assert!(check(&headers, &allowed).is_ok());
        headers.insert(HOST, HeaderValue::from_static("LocalHost:9000"));
        assert!(
            check(&headers, &allowed).is_ok(),
            "host names are case-insensitive"
        );
        headers.insert(ORIGIN, HeaderValue::from_static("http://evil.example.com"));
        assert!(check(&headers, &allowed).unwrap_err().contains("Origin"));
        headers.remove(ORIGIN);
        headers.insert(HOST, HeaderValue::from_static("evil.example.com"));
        assert!(check(&headers, &allowed)
            .unwrap_err()
            .contains("allowed_hosts"));
        headers.insert(HOST, HeaderValue::from_static("[::1]evil.example.com"));
        assert!(check(&headers, &allowed).is_err(), "no text after ]");
        headers.insert(HOST, HeaderValue::from_static("[::1]:8080"));
        headers.insert(
            ORIGIN,
            HeaderValue::from_static("http://[::1]evil.example.com"),
        );
        assert!(check(&headers, &allowed).is_err(), "nor in an origin");
        headers.remove(ORIGIN);
        headers.remove(HOST);
        assert_eq!(check(&headers, &allowed).unwrap_err(), "no Host");
    }

    #[test]
    fn accept_lists() {
        let json_and_sse = ["application/json", "text/event-stream"];
        let value = |v: &'static str| HeaderValue::from_static(v);
        let both = value("application/json, text/event-stream");
        assert_eq!(accepted_in(&both, &json_and_sse), [true, true]);
        assert_eq!(
            accepted_in(&value("text/*;q=0.5"), &json_and_sse),
            [false, true]
        );
        assert_eq!(
            accepted_in(&value("*/*"), &["application/json", "x/y"]),
            [true, true]
        );
        let odd = value("Application/JSON ; q=1, tex/*");
        assert_eq!(accepted_in(&odd, &json_and_sse), [true, false]);
    }

    #[test]
    fn json_content_types() {
        let value = HeaderValue::from_static;
        assert!(is_json_content(Some(&value(
            "application/json; charset=utf-8"
        ))));
        assert!(is_json_content(Some(&value("application/json"))));
        assert!(is_json_content(Some(&value("Application/JSON"))));
        assert!(!is_json_content(Some(&value("text/plain"))));
        assert!(!is_json_content(None));
    }
}
