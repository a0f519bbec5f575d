//! RFC 9728 Protected Resource Metadata: the document a client reads to learn which
//! authorization server issues tokens for this server, and where it is served.
//!
//! The resource is named by its canonical URL (RFC 8707, as the MCP authorization chapter
//! uses it): `https://host[:port]/path`, scheme and host in lower case, no fragment, no
//! trailing `/` for the root. It is also the audience access tokens must carry.

use serde_json::json;

/// The well-known path of the metadata (RFC 9728 §3).
#[doc(hidden)]
pub const WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";

/// What [`WELL_KNOWN`] answers: `resource`, `authorization_servers`, `scopes_supported` and
/// `bearer_methods_supported` (always `["header"]`: tokens are only read from
/// `Authorization`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceMetadata {
    /// This server's canonical resource URL (see [`canonical_resource`]), e.g.
    /// `https://mcp.example.com/mcp`.
    pub resource: String,
    /// The issuers of the tokens this server accepts (their RFC 8414 `issuer`).
    pub authorization_servers: Vec<String>,
    /// The scopes a client may ask for; the document omits the field when empty.
    pub scopes_supported: Vec<String>,
    /// A human-readable name (`resource_name`), if any.
    pub resource_name: Option<String>,
}

impl ResourceMetadata {
    /// Metadata for `resource` (made canonical) whose tokens come from `authorization_servers`.
    pub fn new(
        resource: &str,
        authorization_servers: Vec<String>,
    ) -> Result<Self, ResourceUrlError> {
        Ok(Self {
            resource: canonical_resource(resource)?,
            authorization_servers,
            scopes_supported: Vec::new(),
            resource_name: None,
        })
    }

    /// The document, as JSON.
    pub fn document(&self) -> String {
        let mut document = json!({
            "resource": self.resource,
            "authorization_servers": self.authorization_servers,
            "bearer_methods_supported": ["header"],
        });
        if !self.scopes_supported.is_empty() {
            document["scopes_supported"] = json!(self.scopes_supported);
        }
        if let Some(name) = &self.resource_name {
            document["resource_name"] = json!(name);
        }
        document.to_string()
    }

    /// The URL of the document, in the path-inserted form of RFC 9728 §3.1:
    /// `https://host/mcp` → `https://host/.well-known/oauth-protected-resource/mcp`.
    pub fn url(&self) -> String {
        let (origin, path) = split_origin(&self.resource);
        format!("{origin}{WELL_KNOWN}{path}")
    }

    /// The resource URL's path (`""` for the root).
    pub(crate) fn resource_path(&self) -> &str {
        split_origin(&self.resource).1
    }
}

/// `url` as a canonical resource URL: absolute `http` or `https`, with a host, without query
/// or fragment; scheme and host lower-cased, a lone `/` path dropped. The error says why not.
pub fn canonical_resource(url: &str) -> Result<String, ResourceUrlError> {
    let refuse = |problem| ResourceUrlError {
        url: url.to_owned(),
        problem,
    };
    if url.contains('#') {
        return Err(refuse(UrlProblem::Fragment));
    }
    let uri: http::Uri = url.parse().map_err(|e: http::uri::InvalidUri| {
        refuse(UrlProblem::NotAUrl {
            reason: e.to_string(),
        })
    })?;
    let scheme = match uri.scheme_str() {
        Some(scheme) if scheme.eq_ignore_ascii_case("https") => "https",
        Some(scheme) if scheme.eq_ignore_ascii_case("http") => "http",
        _ => return Err(refuse(UrlProblem::Scheme)),
    };
    let authority = match uri.authority() {
        Some(authority) if !authority.host().is_empty() => authority.as_str().to_ascii_lowercase(),
        _ => return Err(refuse(UrlProblem::NoHost)),
    };
    if authority.contains('@') {
        return Err(refuse(UrlProblem::UserInfo));
    }
    if uri.query().is_some() {
        return Err(refuse(UrlProblem::Query));
    }
    let path = match uri.path() {
        "/" => "",
        path => path,
    };
    Ok(format!("{scheme}://{authority}{path}"))
}

/// Why [`canonical_resource`] (or [`ResourceMetadata::new`]) refused a URL: `{url}: {problem}`,
/// e.g. `ftp://x/mcp: the URL must start with https:// (or http://)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceUrlError {
    /// The URL refused, as given.
    pub url: String,
    /// What is wrong with it.
    pub problem: UrlProblem,
}

impl std::fmt::Display for ResourceUrlError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.url, self.problem)
    }
}

impl std::error::Error for ResourceUrlError {}

/// What is wrong with a resource URL ([`ResourceUrlError::problem`]); its `to_string()` is the
/// message without the URL.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum UrlProblem {
    /// It has a fragment (`#...`).
    Fragment,
    /// It does not parse as a URL; `reason` is the parser's error.
    NotAUrl {
        /// What the URL parser said.
        reason: String,
    },
    /// Its scheme is neither `https` nor `http` (or it has none).
    Scheme,
    /// It has no host.
    NoHost,
    /// It has user information (`user@`).
    UserInfo,
    /// It has a query (`?...`).
    Query,
}

impl std::fmt::Display for UrlProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Fragment => f.write_str("a resource URL has no fragment"),
            Self::NotAUrl { reason } => write!(f, "not a URL ({reason})"),
            Self::Scheme => f.write_str("the URL must start with https:// (or http://)"),
            Self::NoHost => f.write_str("the URL has no host"),
            Self::UserInfo => f.write_str("a resource URL has no user information"),
            Self::Query => f.write_str("a resource URL has no query"),
        }
    }
}

/// `(scheme://authority, path)` of a canonical URL.
fn split_origin(url: &str) -> (&str, &str) {
    let after_scheme = url.find("://").map_or(0, |i| i + 3);
    match url[after_scheme..].find('/') {
        Some(i) => url.split_at(after_scheme + i),
        None => (url, ""),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_urls() {
        assert_eq!(
            canonical_resource("HTTPS://MCP.Example.com/mcp").unwrap(),
            "https://mcp.example.com/mcp"
        );
        assert_eq!(
            canonical_resource("https://example.com/").unwrap(),
            "https://example.com"
        );
        assert_eq!(
            canonical_resource("http://127.0.0.1:8080/mcp").unwrap(),
            "http://127.0.0.1:8080/mcp"
        );
        for bad in [
            "mcp.example.com/mcp",
            "ftp://x/mcp",
            "https://x/mcp#f",
            "https://x/mcp?a=b",
            "https://u@x/mcp",
            "/mcp",
            "",
        ] {
            assert!(canonical_resource(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn url_errors_are_typed_and_display_the_old_messages() {
        let cases = [
            (
                "https://x/mcp#f",
                UrlProblem::Fragment,
                "https://x/mcp#f: a resource URL has no fragment",
            ),
            (
                "ftp://x/mcp",
                UrlProblem::Scheme,
                "ftp://x/mcp: the URL must start with https:// (or http://)",
            ),
            (
                "/mcp",
                UrlProblem::Scheme,
                "/mcp: the URL must start with https:// (or http://)",
            ),
            (
                "https://u@x/mcp",
                UrlProblem::UserInfo,
                "https://u@x/mcp: a resource URL has no user information",
            ),
            (
                "https://x/mcp?a=b",
                UrlProblem::Query,
                "https://x/mcp?a=b: a resource URL has no query",
            ),
        ];
        for (url, problem, message) in cases {
            let error = canonical_resource(url).unwrap_err();
            assert_eq!(error.url, url);
            assert_eq!(error.problem, problem, "{url}");
            assert_eq!(error.to_string(), message);
        }
        let error = ResourceMetadata::new("", vec![]).unwrap_err();
        let UrlProblem::NotAUrl { reason } = &error.problem else {
            panic!("not a URL expected, got {error:?}");
        };
        let parse = "".parse::<http::Uri>().unwrap_err().to_string();
        assert_eq!(reason, &parse);
        assert_eq!(error.to_string(), format!(": not a URL ({parse})"));
    }

    #[test]
    fn document_and_its_url() {
        let mut metadata = ResourceMetadata::new(
            "https://mcp.example.com/mcp",
            vec!["https://auth.example.com".into()],
        )
        .unwrap();
        assert_eq!(
            metadata.url(),
            "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
        );
        assert_eq!(metadata.resource_path(), "/mcp");
        let document: serde_json::Value = serde_json::from_str(&metadata.document()).unwrap();
        assert_eq!(
            document,
            json!({
                "resource": "https://mcp.example.com/mcp",
                "authorization_servers": ["https://auth.example.com"],
                "bearer_methods_supported": ["header"],
            })
        );
        metadata.scopes_supported = vec!["mcp:tools".into()];
        let document: serde_json::Value = serde_json::from_str(&metadata.document()).unwrap();
        assert_eq!(document["scopes_supported"], json!(["mcp:tools"]));
        let root = ResourceMetadata::new("https://h", vec![]).unwrap();
        assert_eq!(root.url(), "https://h/.well-known/oauth-protected-resource");
        assert_eq!(root.resource_path(), "");
    }
}
