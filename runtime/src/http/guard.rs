//! Checks every request passes before it reaches the protocol: Host and Origin (DNS
//! rebinding), media types.

use http::header::{ACCEPT, CONTENT_TYPE, HOST, ORIGIN};
use http::HeaderMap;

/// The host name of a `Host` header value or an origin's authority: port and IPv6 brackets
/// removed, lowercased.
pub fn host_name(authority: &str) -> String {
    let authority = authority.trim();
    let name = if let Some(rest) = authority.strip_prefix('[') {
        rest.split(']').next().unwrap_or_default()
    } else {
        authority
            .rsplit_once(':')
            .filter(|(_, port)| port.chars().all(|c| c.is_ascii_digit()))
            .map_or(authority, |(h, _)| h)
    };
    name.to_ascii_lowercase()
}

/// Why a request is refused before the protocol sees it, with the message for the body.
pub fn check_host_and_origin(headers: &HeaderMap, allowed: &[String]) -> Result<(), String> {
    let allowed_name = |name: &str| allowed.iter().any(|a| a.eq_ignore_ascii_case(name));
    if let Some(host) = headers.get(HOST) {
        let host = host.to_str().unwrap_or_default();
        let name = host_name(host);
        if !allowed_name(&name) {
            return Err(format!(
                "Forbidden: Host \"{host}\" is not allowed (DNS rebinding protection). Add \"{name}\" to Config::allowed_hosts to serve it."
            ));
        }
    }
    if let Some(origin) = headers.get(ORIGIN) {
        let origin = origin.to_str().unwrap_or_default();
        let authority = origin.split_once("://").map(|(_, rest)| rest).unwrap_or("");
        let name = host_name(authority.split('/').next().unwrap_or_default());
        if name.is_empty() || !allowed_name(&name) {
            return Err(format!(
                "Forbidden: Origin \"{origin}\" is not allowed (DNS rebinding protection). Add its host to Config::allowed_hosts to serve it."
            ));
        }
    }
    Ok(())
}

/// Whether the `Content-Type` is JSON.
pub fn is_json_content(headers: &HeaderMap) -> bool {
    headers
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|mime| mime.trim().eq_ignore_ascii_case("application/json"))
}

/// Whether `Accept` lists `mime` (or a wildcard covering it).
pub fn accepts(headers: &HeaderMap, mime: &str) -> bool {
    let (kind, _) = mime.split_once('/').unwrap_or((mime, ""));
    headers
        .get_all(ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|item| {
            let item = item.split(';').next().unwrap_or_default().trim();
            item.eq_ignore_ascii_case(mime)
                || item == "*/*"
                || item.eq_ignore_ascii_case(&format!("{kind}/*"))
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use http::HeaderValue;

    #[test]
    fn host_names() {
        assert_eq!(host_name("localhost:8080"), "localhost");
        assert_eq!(host_name("[::1]:3000"), "::1");
        assert_eq!(host_name("[::1]"), "::1");
        assert_eq!(host_name("Example.COM"), "example.com");
    }

    #[test]
    fn rebinding_is_refused_and_loopback_accepted() {
        let allowed: Vec<String> = vec!["localhost".into(), "127.0.0.1".into(), "::1".into()];
        let mut headers = HeaderMap::new();
        headers.insert(HOST, HeaderValue::from_static("127.0.0.1:9000"));
        headers.insert(ORIGIN, HeaderValue::from_static("http://localhost:9000"));
        assert!(check_host_and_origin(&headers, &allowed).is_ok());
        headers.insert(ORIGIN, HeaderValue::from_static("http://evil.example.com"));
        assert!(check_host_and_origin(&headers, &allowed)
            .unwrap_err()
            .contains("Origin"));
        headers.remove(ORIGIN);
        headers.insert(HOST, HeaderValue::from_static("evil.example.com"));
        assert!(check_host_and_origin(&headers, &allowed)
            .unwrap_err()
            .contains("allowed_hosts"));
    }

    #[test]
    fn accept_lists() {
        let mut headers = HeaderMap::new();
        headers.insert(
            ACCEPT,
            HeaderValue::from_static("application/json, text/event-stream"),
        );
        assert!(accepts(&headers, "application/json") && accepts(&headers, "text/event-stream"));
        headers.insert(ACCEPT, HeaderValue::from_static("text/*;q=0.5"));
        assert!(accepts(&headers, "text/event-stream") && !accepts(&headers, "application/json"));
    }
}
