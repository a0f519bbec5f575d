//! The discovery documents (opt-in,
//! [`config.endpoints.server_card`](crate::config::Endpoints::server_card)): the server card
//! (SEP-2127) at `<mcp endpoint>/server-card` and the MCP Catalog that lists it at
//! `/.well-known/mcp/catalog.json` (also answered at `/.well-known/ai-catalog.json`, the AI Catalog
//! it is a subset of).
//!
//! The card is the contract's (`Contract::server_card`, generated from `info["x-mcp"].card`)
//! plus its `remotes`: the endpoint's URL
//! ([`config.endpoints.public_url`](crate::config::Endpoints::public_url), or `http://{Host}/mcp`)
//! and the revisions this runtime speaks. Both documents are public: any origin may read them (CORS
//! `*`), caches may keep them an hour, and an `If-None-Match` with their `ETag` gets 304.

use http::header::{
    HeaderName, HeaderValue, ACCESS_CONTROL_ALLOW_HEADERS, ACCESS_CONTROL_ALLOW_METHODS,
    ACCESS_CONTROL_ALLOW_ORIGIN, ACCESS_CONTROL_EXPOSE_HEADERS, CACHE_CONTROL, CONTENT_TYPE, ETAG,
    IF_NONE_MATCH,
};
use http::{Method, Response, StatusCode};
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};

use super::body::Body;
use super::headers::Headers;
use super::response::{method_not_allowed, status_only};
use super::routes::Route;
use super::Endpoint;
use super::ENDPOINT;
use crate::dispatch::Dispatch;
use crate::protocol::ProtocolVersion;

/// The server card's media type.
pub const SERVER_CARD_TYPE: &str = "application/mcp-server-card+json";
/// The `specVersion` of the MCP Catalog format.
const CATALOG_SPEC_VERSION: &str = "draft";

impl<D: Dispatch> Endpoint<D> {
    /// Answers a request for the card or the catalog; `path` is the request path, whose Host
    /// was checked (the documents name it when no public URL is configured).
    #[cold]
    pub(super) fn discovery(
        &self,
        route: Route,
        method: &Method,
        path: &str,
        headers: &Headers<'_>,
    ) -> Response<Body> {
        match *method {
            Method::GET | Method::HEAD => {}
            Method::OPTIONS => return preflight(),
            _ => return method_not_allowed("GET, HEAD, OPTIONS"),
        }
        let Some(card) = self.engine.dispatch().contract().server_card() else {
            // Turned on, but the contract has no `info["x-mcp"].card`.
            return status_only(StatusCode::NOT_FOUND);
        };
        let endpoint = match route {
            Route::ServerCard => path.strip_suffix("/server-card").unwrap_or(ENDPOINT),
            _ => ENDPOINT,
        };
        let url = self.endpoint_url(headers, endpoint);
        let Ok(Value::Object(card)) = serde_json::from_str::<Value>(card) else {
            tracing::error!(
                "the generated server card is not a JSON object; regenerate the server"
            );
            return status_only(StatusCode::INTERNAL_SERVER_ERROR);
        };
        let legacy = self.engine.config().endpoints.legacy_sse;
        let (body, media_type) = match route {
            Route::ServerCard => (served_card(card, &url, legacy), SERVER_CARD_TYPE),
            _ => (catalog(&card, &url), "application/json"),
        };
        document_response(body, media_type, headers)
    }

    /// The public URL of the endpoint at `endpoint` (a path).
    fn endpoint_url(&self, headers: &Headers<'_>, endpoint: &str) -> String {
        if let Some(url) = &self.engine.config().endpoints.public_url {
            return url.clone();
        }
        let host = headers
            .host
            .and_then(|h| h.to_str().ok())
            .unwrap_or("localhost");
        format!("http://{host}{endpoint}")
    }
}

/// The contract's card with the remotes this server serves: the MCP endpoint at `url`, and
/// the 2024-11-05 HTTP+SSE transport's `/sse` beside it when `legacy` is on.
fn served_card(mut card: Map<String, Value>, url: &str, legacy: bool) -> String {
    let versions: Vec<&str> = ProtocolVersion::ALL.iter().map(|v| v.as_str()).collect();
    let mut ours = vec![json!({
        "type": "streamable-http",
        "url": url,
        "supportedProtocolVersions": versions,
    })];
    if let Some(base) = url.strip_suffix(ENDPOINT).filter(|_| legacy) {
        let versions: Vec<&str> = ProtocolVersion::ALL
            .iter()
            .filter(|v| !v.is_stateless())
            .map(|v| v.as_str())
            .collect();
        ours.push(json!({
            "type": "sse",
            "url": format!("{base}/sse"),
            "supportedProtocolVersions": versions,
        }));
    }
    match card.remove("remotes") {
        Some(Value::Array(theirs)) => ours.extend(theirs),
        Some(other) => ours.push(other),
        None => {}
    }
    card.insert("remotes".into(), Value::Array(ours));
    Value::Object(card).to_string()
}

/// The MCP Catalog with one entry: this server's card at `<url>/server-card`.
fn catalog(card: &Map<String, Value>, url: &str) -> String {
    let name = card.get("name").and_then(Value::as_str).unwrap_or_default();
    let display_name = card.get("title").and_then(Value::as_str).unwrap_or(name);
    // `urn:air:{publisher}:{name}`: the publisher's domain, the card name after its `/`.
    let publisher = url
        .split_once("://")
        .map_or(url, |(_, rest)| rest)
        .split(['/', ':'])
        .next()
        .unwrap_or_default();
    let short_name = name.rsplit('/').next().unwrap_or(name);
    json!({
        "specVersion": CATALOG_SPEC_VERSION,
        "entries": [{
            "identifier": format!("urn:air:{publisher}:{short_name}"),
            "displayName": display_name,
            "type": SERVER_CARD_TYPE,
            "url": format!("{}/server-card", url.trim_end_matches('/')),
        }],
    })
    .to_string()
}

/// A public document: CORS open, cacheable for an hour, with an `ETag`; 304 when the client
/// has this version.
fn document_response(
    body: String,
    media_type: &'static str,
    headers: &Headers<'_>,
) -> Response<Body> {
    let digest = Sha256::digest(body.as_bytes());
    let tag: String = digest[..16].iter().map(|b| format!("{b:02x}")).collect();
    let etag = format!("\"{tag}\"");
    let fresh = headers
        .map
        .get_all(IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|candidate| {
            let candidate = candidate.trim();
            candidate == "*" || candidate.trim_start_matches("W/") == etag
        });
    let mut response = if fresh {
        status_only(StatusCode::NOT_MODIFIED)
    } else {
        let mut response = Response::new(Body::full(body));
        response
            .headers_mut()
            .insert(CONTENT_TYPE, HeaderValue::from_static(media_type));
        response
    };
    let map = response.headers_mut();
    map.insert(
        ETAG,
        HeaderValue::from_str(&etag).expect("hex in quotes is a header value"),
    );
    map.insert(
        CACHE_CONTROL,
        HeaderValue::from_static("public, max-age=3600"),
    );
    cors(map);
    map.insert(
        ACCESS_CONTROL_EXPOSE_HEADERS,
        HeaderValue::from_static("ETag"),
    );
    response
}

/// The answer to a CORS preflight.
fn preflight() -> Response<Body> {
    let mut response = status_only(StatusCode::NO_CONTENT);
    cors(response.headers_mut());
    response
}

/// The CORS headers of a public, read-only document.
fn cors(map: &mut http::HeaderMap) {
    let pairs: [(HeaderName, &'static str); 3] = [
        (ACCESS_CONTROL_ALLOW_ORIGIN, "*"),
        (ACCESS_CONTROL_ALLOW_METHODS, "GET"),
        (ACCESS_CONTROL_ALLOW_HEADERS, "Content-Type, If-None-Match"),
    ];
    for (name, value) in pairs {
        map.insert(name, HeaderValue::from_static(value));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_card_gains_this_servers_remote_first() {
        let card = json!({"name": "com.example/notes", "remotes": [{"type": "sse", "url": "https://old.example/sse"}]});
        let Value::Object(card) = card else {
            unreachable!()
        };
        let served: Value =
            serde_json::from_str(&served_card(card, "https://mcp.example.com/mcp", true)).unwrap();
        assert_eq!(served["remotes"][0]["type"], "streamable-http");
        assert_eq!(served["remotes"][0]["url"], "https://mcp.example.com/mcp");
        let versions = |remote: &Value| {
            remote["supportedProtocolVersions"]
                .as_array()
                .unwrap()
                .len()
        };
        assert_eq!(
            served["remotes"][0]["supportedProtocolVersions"][0],
            "2024-11-05"
        );
        // With the 2024-11-05 transport on, its `/sse` follows, without the stateless revision.
        assert_eq!(served["remotes"][1]["type"], "sse");
        assert_eq!(served["remotes"][1]["url"], "https://mcp.example.com/sse");
        assert_eq!(
            versions(&served["remotes"][0]),
            versions(&served["remotes"][1]) + 1
        );
        // The contract's own remotes come last.
        assert_eq!(served["remotes"][2]["url"], "https://old.example/sse");
    }

    #[test]
    fn the_catalog_names_the_card_by_the_publishers_domain() {
        let Value::Object(card) = json!({"name": "com.example/notes", "title": "Notes"}) else {
            unreachable!()
        };
        let catalog: Value =
            serde_json::from_str(&catalog(&card, "http://127.0.0.1:8080/mcp")).unwrap();
        assert_eq!(
            catalog,
            json!({"specVersion": "draft", "entries": [{
                "identifier": "urn:air:127.0.0.1:notes",
                "displayName": "Notes",
                "type": "application/mcp-server-card+json",
                "url": "http://127.0.0.1:8080/mcp/server-card",
            }]})
        );
    }
}
