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
    /// `Host` or `Origin` more than once: 400.
    RepeatedAuthority,
    /// A `Host` or `Origin` naming a host that is not allowed: 403.
    Forbidden(String),
}

/// Checks `Host` (required) and `Origin` (when present) against the allowed host names.
///
/// `Host` must be an authority without userinfo (`host[:port]`, the port a number up to
/// 65535); `Origin` must be a bare origin, `http://` or `https://` and such an authority, with
/// no path, query or fragment (so `null` is refused). Both are read with
/// [`http::uri::Authority`], except that the usual values (exactly an allowed name, maybe with
/// a port) are recognized from their bytes first: every request goes through here.
pub fn check_host_and_origin(
    host: Option<&HeaderValue>,
    origin: Option<&HeaderValue>,
    allowed: &[String],
) -> Result<(), Refusal> {
    let Some(host) = host else {
        return Err(Refusal::MissingHost);
    };
    if !authority_allowed(host.as_bytes(), allowed) {
        return Err(Refusal::Forbidden(refused_host(host)));
    }
    if let Some(origin) = origin {
        if !origin_allowed(origin.as_bytes(), allowed) {
            return Err(Refusal::Forbidden(refused_origin(origin)));
        }
    }
    Ok(())
}

/// Whether `authority` (a `Host` value, or an origin after its scheme) names an allowed host.
fn authority_allowed(authority: &[u8], allowed: &[String]) -> bool {
    allowed
        .iter()
        .any(|name| is_exactly(authority, name.as_bytes()))
        || parsed_authority_allowed(authority, allowed)
}

/// Whether `authority` is `name` as clients usually write it: the same bytes (IPv6 in
/// brackets), then nothing or a port. Anything else (case, a trailing dot, an empty port) is
/// left to the parser.
fn is_exactly(authority: &[u8], name: &[u8]) -> bool {
    if name.is_empty() {
        return false;
    }
    let rest = match authority.strip_prefix(b"[") {
        Some(bracketed) => bracketed
            .strip_prefix(name)
            .and_then(|rest| rest.strip_prefix(b"]")),
        None => authority.strip_prefix(name),
    };
    let port_follows = match rest {
        Some([]) => true,
        Some([b':', port @ ..]) => is_port(port),
        _ => return false,
    };
    // Brackets exactly around an IPv6 name (the one with colons): `::1:80` is no authority.
    port_follows && (authority.first() == Some(&b'[')) == name.contains(&b':')
}

/// Whether `digits` is a port number: 1 to 5 digits, at most 65535.
fn is_port(digits: &[u8]) -> bool {
    (1..=5).contains(&digits.len())
        && digits.iter().all(u8::is_ascii_digit)
        && digits
            .iter()
            .fold(0u32, |n, &d| n * 10 + u32::from(d - b'0'))
            <= u32::from(u16::MAX)
}

/// [`authority_allowed`] past the byte comparison: `authority` read as an
/// [`http::uri::Authority`], which must be `host` or `host:port` and nothing else (no
/// userinfo, nothing after an IPv6 literal but a port, a numeric port), its host compared to
/// the allowed names without regard to case or one trailing dot.
#[cold]
#[inline(never)]
fn parsed_authority_allowed(authority: &[u8], allowed: &[String]) -> bool {
    let Ok(authority) = http::uri::Authority::try_from(authority.trim_ascii()) else {
        return false;
    };
    let text = authority.as_str();
    let host = authority.host();
    // `host()` stops at `]` and skips userinfo: `[::1]evil` and `localhost:80@evil` parse.
    let Some(after_host) = text.strip_prefix(host) else {
        return false;
    };
    if !(after_host.is_empty()
        || after_host == ":"
        || after_host
            .strip_prefix(':')
            .is_some_and(|p| is_port(p.as_bytes())))
    {
        return false;
    }
    let name = match host.strip_prefix('[') {
        Some(ipv6) => ipv6.strip_suffix(']').unwrap_or(ipv6),
        // An absolute name (`localhost.`) is the same name.
        None => host.strip_suffix('.').unwrap_or(host),
    };
    !name.is_empty() && allowed.iter().any(|a| a.eq_ignore_ascii_case(name))
}

/// Whether `origin` is a bare `http` or `https` origin whose authority names an allowed host.
fn origin_allowed(origin: &[u8], allowed: &[String]) -> bool {
    // What browsers send: a lowercase scheme, an allowed name, maybe a port.
    let authority = origin
        .strip_prefix(b"http://")
        .or_else(|| origin.strip_prefix(b"https://"));
    authority.is_some_and(|authority| {
        allowed
            .iter()
            .any(|name| is_exactly(authority, name.as_bytes()))
    }) || parsed_origin_allowed(origin, allowed)
}

/// [`origin_allowed`] past the byte comparison: the scheme `http` or `https` in any case, then
/// `://` and an authority ([`parsed_authority_allowed`]) that runs to the end of the value.
#[cold]
#[inline(never)]
fn parsed_origin_allowed(origin: &[u8], allowed: &[String]) -> bool {
    let origin = origin.trim_ascii();
    let Some(at) = origin.windows(3).position(|w| w == b"://") else {
        return false;
    };
    let scheme = &origin[..at];
    (scheme.eq_ignore_ascii_case(b"http") || scheme.eq_ignore_ascii_case(b"https"))
        && parsed_authority_allowed(&origin[at + 3..], allowed)
}

// The refusals are built out of line (`#[cold]`), here and on the other request paths: the
// code every request runs then stays compact, which matters more than its instruction count
// once the whole path no longer fits the instruction cache.

#[cold]
fn refused_host(host: &HeaderValue) -> String {
    let host = String::from_utf8_lossy(host.as_bytes());
    format!(
        "Forbidden: Host \"{host}\" is not allowed (DNS rebinding protection). Add \"{}\" to config.transport.allowed_hosts to serve it.",
        host_name(&host)
    )
}

#[cold]
fn refused_origin(origin: &HeaderValue) -> String {
    let origin = String::from_utf8_lossy(origin.as_bytes());
    format!(
        "Forbidden: Origin \"{origin}\" is not allowed (DNS rebinding protection). Add its host to config.transport.allowed_hosts to serve it."
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
            Err(Refusal::RepeatedAuthority) => Err("repeated".into()),
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

    fn loopback() -> Vec<String> {
        vec!["localhost".into(), "127.0.0.1".into(), "::1".into()]
    }

    /// Whether `host` passes as the `Host` header, then whether `origin` passes with an allowed
    /// Host.
    fn host_ok(host: &[u8]) -> bool {
        let host = HeaderValue::from_bytes(host).unwrap();
        check_host_and_origin(Some(&host), None, &loopback()).is_ok()
    }

    fn origin_ok(origin: &[u8]) -> bool {
        let host = HeaderValue::from_static("localhost:8080");
        let origin = HeaderValue::from_bytes(origin).unwrap();
        check_host_and_origin(Some(&host), Some(&origin), &loopback()).is_ok()
    }

    #[test]
    fn hosts_are_authorities_without_userinfo() {
        let accepted: &[&[u8]] = &[
            b"localhost",
            b"localhost:8080",
            b"127.0.0.1:65535",
            b"[::1]",
            b"[::1]:3000",
            b"LocalHost:9000",
            b"LOCALHOST",
            // An absolute name is the same name; an empty port is no port (RFC 3986).
            b"localhost.",
            b"localhost.:8080",
            b"localhost:",
            b"[::1]:",
            b"[::1]:0",
        ];
        for host in accepted {
            assert!(host_ok(host), "{}", String::from_utf8_lossy(host));
        }
        let refused: &[&[u8]] = &[
            b"[::1]evil",
            b"[::1]evil.example:80",
            b"[::1].evil.example",
            b"[::1]:80x",
            b"[::1]:80:80",
            b"[::1",
            b"::1",
            b"::1:80",
            b"localhost:80@evil",
            b"localhost@evil",
            b"user@localhost",
            b"user:pass@localhost:8080",
            b"@localhost",
            b"localhost:80x",
            b"localhost:-1",
            b"localhost:65536",
            b"localhost:99999",
            b"localhost:000080000",
            b"localhost:8080:9090",
            b"localhost..",
            b".",
            b"localhost.evil.example",
            b"evil.example",
            b"localhost/",
            b"localhost/path",
            b"localhost?",
            b"localhost#",
            b"local host",
            b"",
            b"[fe80::1%25eth0]",
            b"[::1%25lo]",
            b"[::1%lo]:80",
            b"localhost%2e",
            b"127.0.0.1.evil.example",
            b"0x7f.0.0.1",
            // Non-ASCII: an IDN look-alike and raw bytes.
            "localh\u{f8}st".as_bytes(),
            "lоcalhost".as_bytes(),
            b"localhost\xff",
        ];
        for host in refused {
            assert!(!host_ok(host), "{}", String::from_utf8_lossy(host));
        }
    }

    #[test]
    fn origins_are_bare_http_origins() {
        let accepted: &[&[u8]] = &[
            b"http://localhost",
            b"http://localhost:6274",
            b"https://127.0.0.1:8443",
            b"http://[::1]:3000",
            b"HTTP://LocalHost:6274",
            b"Https://localhost",
            b"http://localhost.:6274",
        ];
        for origin in accepted {
            assert!(origin_ok(origin), "{}", String::from_utf8_lossy(origin));
        }
        let refused: &[&[u8]] = &[
            b"null",
            b"http://evil",
            b"http://evil.example.com",
            b"https://localhost.evil.example",
            b"http://[::1]evil.example.com",
            b"http://localhost:80@evil",
            b"http://user@localhost",
            b"http://localhost/",
            b"http://localhost/path",
            b"http://localhost:6274/",
            b"http://localhost?x=1",
            b"http://localhost#frag",
            b"ftp://localhost",
            b"file://localhost",
            b"ws://localhost",
            b"chrome-extension://abcdef",
            b"localhost",
            b"//localhost",
            b"http:localhost",
            b"http://",
            b"http://:8080",
            b"http://localhost:65536",
            b"http://localhost:x",
            b"http://[fe80::1%25eth0]:80",
            "http://localh\u{f8}st".as_bytes(),
            b"",
        ];
        for origin in refused {
            assert!(!origin_ok(origin), "{}", String::from_utf8_lossy(origin));
        }
    }

    #[test]
    fn the_allowed_names_decide_not_the_fast_path() {
        let allowed: Vec<String> = vec!["Example.COM".into(), "".into()];
        let check = |host: &'static str| {
            check_host_and_origin(Some(&HeaderValue::from_static(host)), None, &allowed).is_ok()
        };
        assert!(check("example.com:8080"));
        assert!(check("Example.COM"));
        assert!(!check("localhost"));
        // An empty allowed name allows nothing.
        assert!(!check(":8080"));
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
