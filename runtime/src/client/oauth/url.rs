//! The URLs of the flow: the well-known locations of the metadata documents (RFC 9728 §3.1,
//! RFC 8414 §3.1, OpenID Connect Discovery §4) in the order the MCP specification gives, the
//! check that a protected resource's identifier covers the server, and query strings.

use http::Uri;

/// An absolute `http`/`https` URL taken apart: `scheme://authority`, the path without its
/// trailing `/`, and the query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Parts {
    /// `scheme://authority`, the scheme and host lowercased.
    pub(crate) origin: String,
    /// The path without a trailing `/` (`""` for the root).
    pub(crate) path: String,
}

/// `url` taken apart, or why it cannot be used.
pub(crate) fn parts(url: &str) -> Result<Parts, String> {
    let uri: Uri = url
        .parse()
        .map_err(|e| format!("{url:?} is not a URL: {e}"))?;
    let scheme = uri
        .scheme_str()
        .map(str::to_ascii_lowercase)
        .ok_or_else(|| format!("{url:?} is not an absolute URL"))?;
    if scheme != "http" && scheme != "https" {
        return Err(format!("{url:?} is not an http(s) URL"));
    }
    let authority = uri
        .authority()
        .ok_or_else(|| format!("{url:?} has no host"))?;
    if url.contains('#') {
        return Err(format!("{url:?} has a fragment"));
    }
    let authority = authority.as_str().to_ascii_lowercase();
    let path = uri.path().trim_end_matches('/').to_owned();
    Ok(Parts {
        origin: format!("{scheme}://{authority}"),
        path,
    })
}

/// Where the protected-resource metadata of the endpoint `server` may be, in order: the
/// path-suffixed well-known URL, then the root one (RFC 9728 §3.1; MCP 2025-11-25
/// "Protected Resource Metadata Discovery").
pub(crate) fn protected_resource_candidates(server: &Parts) -> Vec<String> {
    const WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";
    let mut urls = Vec::new();
    if !server.path.is_empty() {
        urls.push(format!("{}{WELL_KNOWN}{}", server.origin, server.path));
    }
    urls.push(format!("{}{WELL_KNOWN}", server.origin));
    urls
}

/// Where the metadata of the authorization server `issuer` may be, in order (MCP 2025-11-25
/// "Authorization Server Metadata Discovery"): with a path, RFC 8414's and OpenID's
/// insertion before the path, then OpenID's appending after it; without one, RFC 8414's and
/// OpenID's root documents. An issuer with a path is never looked up at the root.
pub(crate) fn authorization_server_candidates(issuer: &Parts) -> Vec<String> {
    const OAUTH: &str = "/.well-known/oauth-authorization-server";
    const OPENID: &str = "/.well-known/openid-configuration";
    let Parts { origin, path } = issuer;
    if path.is_empty() {
        vec![format!("{origin}{OAUTH}"), format!("{origin}{OPENID}")]
    } else {
        vec![
            format!("{origin}{OAUTH}{path}"),
            format!("{origin}{OPENID}{path}"),
            format!("{origin}{path}{OPENID}"),
        ]
    }
}

/// Whether the protected resource `resource` (the metadata's identifier) covers the endpoint
/// `server`: the same origin, and `server`'s path is `resource`'s or below it, segment-wise.
pub(crate) fn resource_covers(resource: &Parts, server: &Parts) -> bool {
    resource.origin == server.origin
        && (resource.path.is_empty()
            || server.path == resource.path
            || server
                .path
                .strip_prefix(&resource.path)
                .is_some_and(|rest| rest.starts_with('/')))
}

/// `url` with `params` appended to its query, form-encoded.
pub(crate) fn with_query(url: &str, params: &[(&str, &str)]) -> String {
    let query = form_urlencoded::Serializer::new(String::new())
        .extend_pairs(params)
        .finish();
    let separator = match url.find('?') {
        None => '?',
        Some(i) if i + 1 == url.len() || url.ends_with('&') => return format!("{url}{query}"),
        Some(_) => '&',
    };
    format!("{url}{separator}{query}")
}

/// The decoded parameters of `url`'s query (before any fragment).
pub(crate) fn query_params(url: &str) -> Vec<(String, String)> {
    let without_fragment = url.split('#').next().unwrap_or_default();
    let Some((_, query)) = without_fragment.split_once('?') else {
        return Vec::new();
    };
    form_urlencoded::parse(query.as_bytes())
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(url: &str) -> Parts {
        parts(url).unwrap()
    }

    #[test]
    fn protected_resource_order() {
        assert_eq!(
            protected_resource_candidates(&p("http://localhost:3000/mcp")),
            [
                "http://localhost:3000/.well-known/oauth-protected-resource/mcp",
                "http://localhost:3000/.well-known/oauth-protected-resource",
            ]
        );
        assert_eq!(
            protected_resource_candidates(&p("http://Example.com/")),
            ["http://example.com/.well-known/oauth-protected-resource"]
        );
        assert_eq!(
            protected_resource_candidates(&p("http://h/a/b/?x=1")),
            [
                "http://h/.well-known/oauth-protected-resource/a/b",
                "http://h/.well-known/oauth-protected-resource",
            ]
        );
    }

    #[test]
    fn authorization_server_order() {
        assert_eq!(
            authorization_server_candidates(&p("https://auth.example.com")),
            [
                "https://auth.example.com/.well-known/oauth-authorization-server",
                "https://auth.example.com/.well-known/openid-configuration",
            ]
        );
        assert_eq!(
            authorization_server_candidates(&p("https://auth.example.com/tenant1")),
            [
                "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
                "https://auth.example.com/.well-known/openid-configuration/tenant1",
                "https://auth.example.com/tenant1/.well-known/openid-configuration",
            ]
        );
    }

    #[test]
    fn resource_coverage() {
        let server = p("http://localhost:3000/mcp");
        assert!(resource_covers(&p("http://localhost:3000/mcp"), &server));
        assert!(resource_covers(&p("http://localhost:3000"), &server));
        assert!(resource_covers(&p("http://LOCALHOST:3000/"), &server));
        assert!(!resource_covers(
            &p("https://evil.example.com/mcp"),
            &server
        ));
        assert!(!resource_covers(&p("http://localhost:3001/mcp"), &server));
        assert!(!resource_covers(&p("http://localhost:3000/mc"), &server));
        assert!(!resource_covers(&p("http://localhost:3000/mcp/x"), &server));
    }

    #[test]
    fn rejects_what_is_no_http_url() {
        assert!(parts("/relative").is_err());
        assert!(parts("ftp://h/x").is_err());
        assert!(parts("http://h/x#frag").is_err());
        assert!(parts("not a url").is_err());
    }

    #[test]
    fn queries() {
        assert_eq!(
            with_query("http://h/authorize", &[("a", "1 2"), ("b", "x&y")]),
            "http://h/authorize?a=1+2&b=x%26y"
        );
        assert_eq!(
            with_query("http://h/a?k=v", &[("a", "1")]),
            "http://h/a?k=v&a=1"
        );
        assert_eq!(
            query_params("http://localhost/cb?code=c%2F1&state=s&iss=http%3A%2F%2Fas#f"),
            [
                ("code".to_owned(), "c/1".to_owned()),
                ("state".to_owned(), "s".to_owned()),
                ("iss".to_owned(), "http://as".to_owned()),
            ]
        );
        assert!(query_params("http://localhost/cb").is_empty());
    }
}
