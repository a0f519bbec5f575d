//! The one rule for the URLs the runtime fetches for authorization (the server's JWKS and
//! issuer metadata, the client's OAuth discovery and token endpoints, the gateway's token
//! exchange endpoint): `https`, or plain `http` to a loopback host only (a development
//! server, a test's).

/// `url` as a URI to fetch, or why it may not be fetched.
pub(crate) fn https_or_loopback(url: &str) -> Result<http::Uri, String> {
    let uri: http::Uri = url.parse().map_err(|e| format!("{url}: not a URL ({e})"))?;
    let host = uri.host().unwrap_or_default();
    match uri.scheme_str() {
        Some("https") if !host.is_empty() => Ok(uri),
        Some("http") if is_loopback(host) => Ok(uri),
        Some("http") => Err(format!(
            "{url}: only fetched over https (http only from a loopback host)"
        )),
        _ => Err(format!("{url}: not an https URL")),
    }
}

/// Whether `url` names this machine (its host is `localhost`, 127.0.0.0/8 or `[::1]`);
/// false for what does not parse.
#[cfg_attr(not(feature = "client"), allow(dead_code))]
pub(crate) fn is_loopback_url(url: &str) -> bool {
    url.parse::<http::Uri>()
        .ok()
        .and_then(|uri| uri.host().map(is_loopback))
        .unwrap_or(false)
}

/// Whether `host` is this machine (`localhost`, 127.0.0.0/8, `[::1]`).
fn is_loopback(host: &str) -> bool {
    host.eq_ignore_ascii_case("localhost")
        || host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn https_anywhere_and_http_only_on_loopback() {
        for url in [
            "https://as.example.com/jwks",
            "HTTPS://as/token",
            "http://127.0.0.1:9/jwks",
            "http://[::1]:9/jwks",
            "http://localhost/jwks",
        ] {
            assert!(https_or_loopback(url).is_ok(), "{url}");
        }
        for url in [
            "http://as.example.com/jwks",
            "http://10.0.0.1/token",
            "ftp://as.example.com/jwks",
            "/jwks",
            "javascript:x",
        ] {
            assert!(https_or_loopback(url).is_err(), "{url}");
        }
    }
}
