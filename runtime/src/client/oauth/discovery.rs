//! Discovery: the protected-resource metadata (RFC 9728) from the challenge's URL or the
//! well-known fallbacks, then the authorization server's metadata (RFC 8414, OpenID Connect
//! Discovery), each document checked before anything in it is used.

use super::super::error::ClientError;
use super::super::pool::Pool;
use super::challenge::Challenge;
use super::fetch::{get_document, Document};
use super::url::{self, Parts};
use serde_json::{Map, Value};

/// The protected resource's metadata, as far as the flow uses it.
#[derive(Debug, Clone)]
pub(crate) struct ProtectedResource {
    /// Where the document was read.
    pub(crate) url: String,
    /// The resource identifier, exactly as published (the `resource` parameter, RFC 8707).
    pub(crate) resource: String,
    /// The authorization servers' issuer identifiers, in the document's order.
    pub(crate) authorization_servers: Vec<String>,
    /// `scopes_supported`, when the document has it.
    pub(crate) scopes_supported: Option<Vec<String>>,
    /// `dpop_bound_access_tokens_required` (RFC 9728 §2).
    pub(crate) dpop_bound_tokens_required: bool,
}

/// An authorization server, from its metadata or (2025-03-26 servers without metadata) the
/// default endpoints at the MCP server's origin.
#[derive(Debug, Clone)]
pub(crate) struct AuthorizationServer {
    /// The issuer the metadata was validated against; `None` for the default endpoints.
    pub(crate) issuer: Option<String>,
    /// `authorization_endpoint`, absent for a server that only issues tokens.
    pub(crate) authorization_endpoint: Option<String>,
    /// `token_endpoint`.
    pub(crate) token_endpoint: String,
    /// `registration_endpoint` (RFC 7591).
    pub(crate) registration_endpoint: Option<String>,
    /// `scopes_supported`.
    pub(crate) scopes_supported: Option<Vec<String>>,
    /// `code_challenge_methods_supported`.
    pub(crate) code_challenge_methods: Option<Vec<String>>,
    /// `token_endpoint_auth_methods_supported`.
    pub(crate) token_auth_methods: Option<Vec<String>>,
    /// `client_id_metadata_document_supported`.
    pub(crate) client_id_metadata_documents: bool,
    /// `authorization_response_iss_parameter_supported` (RFC 9207).
    pub(crate) iss_parameter_supported: bool,
    /// `dpop_signing_alg_values_supported` (RFC 9449 §5.1).
    pub(crate) dpop_algorithms: Option<Vec<String>>,
}

impl AuthorizationServer {
    /// The key its registrations are kept under: the issuer, else the token endpoint.
    pub(crate) fn key(&self) -> &str {
        self.issuer.as_deref().unwrap_or(&self.token_endpoint)
    }

    /// The endpoints a 2025-03-26 server without metadata has at `origin`: `/authorize`,
    /// `/token`, `/register`.
    pub(crate) fn defaults(origin: &str) -> Self {
        Self {
            issuer: None,
            authorization_endpoint: Some(format!("{origin}/authorize")),
            token_endpoint: format!("{origin}/token"),
            registration_endpoint: Some(format!("{origin}/register")),
            scopes_supported: None,
            code_challenge_methods: None,
            token_auth_methods: None,
            client_id_metadata_documents: false,
            iss_parameter_supported: false,
            dpop_algorithms: None,
        }
    }

    /// Whether metadata lists `method` among the token endpoint's authentication methods;
    /// absent, the list is RFC 8414's default, `client_secret_basic`.
    pub(crate) fn supports_auth_method(&self, method: &str) -> bool {
        match &self.token_auth_methods {
            Some(methods) => methods.iter().any(|m| m == method),
            None => method == "client_secret_basic",
        }
    }
}

/// The protected-resource metadata of `server`: from the challenge's `resource_metadata`,
/// then the well-known URLs; `None` when no candidate has a document (a 2025-03-26 server).
/// A document whose `resource` does not cover `server` is an error (RFC 9728 §3.3): the flow
/// must not go on with it.
pub(crate) async fn protected_resource(
    pool: &Pool,
    server_url: &str,
    server: &Parts,
    challenge: &Challenge,
) -> Result<Option<ProtectedResource>, ClientError> {
    let mut candidates = Vec::new();
    if let Some(from_header) = &challenge.resource_metadata {
        match url::parts(from_header) {
            // A remote server naming this machine would steer the client to whatever listens
            // on that port here: only a server on loopback itself may.
            Ok(_) if steers_to_loopback(server_url, from_header) => tracing::warn!(
                url = %from_header,
                "oauth: a remote server's resource_metadata names this machine: ignored"
            ),
            Ok(_) => candidates.push(from_header.clone()),
            Err(reason) => {
                tracing::debug!(%reason, "oauth: resource_metadata in WWW-Authenticate is unusable")
            }
        }
    }
    for candidate in url::protected_resource_candidates(server) {
        if !candidates.contains(&candidate) {
            candidates.push(candidate);
        }
    }
    for candidate in candidates {
        let document = match get_document(pool, &candidate).await? {
            Document::Found(document) => document,
            Document::Absent(reason) => {
                tracing::debug!(url = %candidate, %reason, "oauth: no protected-resource metadata here");
                continue;
            }
        };
        let mut metadata = read_protected_resource(&candidate, &document)?;
        let named = metadata.authorization_servers.len();
        metadata
            .authorization_servers
            .retain(|issuer| !steers_to_loopback(server_url, issuer));
        if named > 0 && metadata.authorization_servers.is_empty() {
            return Err(ClientError::OAuth(format!(
                "the protected-resource metadata at {candidate} names only authorization servers on this machine, and {server_url} is not on it: not following"
            )));
        }
        let covered = url::parts(&metadata.resource)
            .map(|resource| url::resource_covers(&resource, server))
            .unwrap_or(false);
        if !covered {
            return Err(ClientError::OAuth(format!(
                "the protected-resource metadata at {candidate} is for {:?}, not for {server_url}: not authorizing",
                metadata.resource
            )));
        }
        tracing::debug!(url = %candidate, resource = %metadata.resource, servers = ?metadata.authorization_servers, "oauth: protected-resource metadata");
        return Ok(Some(metadata));
    }
    Ok(None)
}

/// The fields of a protected-resource metadata document read at `url`.
fn read_protected_resource(
    url: &str,
    document: &Map<String, Value>,
) -> Result<ProtectedResource, ClientError> {
    let resource = document
        .get("resource")
        .and_then(Value::as_str)
        .ok_or_else(|| {
            ClientError::OAuth(format!(
                "the protected-resource metadata at {url} has no \"resource\" string"
            ))
        })?;
    Ok(ProtectedResource {
        url: url.to_owned(),
        resource: resource.to_owned(),
        authorization_servers: strings(document.get("authorization_servers")).unwrap_or_default(),
        scopes_supported: strings(document.get("scopes_supported")),
        dpop_bound_tokens_required: document.get("dpop_bound_access_tokens_required")
            == Some(&Value::Bool(true)),
    })
}

/// The metadata of the authorization server `issuer`, from the first well-known URL that has
/// a document; `None` when none has. A document whose `issuer` is not `issuer`, character
/// for character, is an error (RFC 8414 §3.3): its endpoints could be anyone's.
pub(crate) async fn authorization_server(
    pool: &Pool,
    issuer: &str,
) -> Result<Option<AuthorizationServer>, ClientError> {
    let parts = url::parts(issuer)
        .map_err(|reason| ClientError::OAuth(format!("authorization server issuer: {reason}")))?;
    // (`protected_resource` kept only issuers a remote server may name; the issuer's own
    // endpoints follow the same rule, against the issuer.)
    for candidate in url::authorization_server_candidates(&parts) {
        let document = match get_document(pool, &candidate).await? {
            Document::Found(document) => document,
            Document::Absent(reason) => {
                tracing::debug!(url = %candidate, %reason, "oauth: no authorization server metadata here");
                continue;
            }
        };
        let found = document.get("issuer").and_then(Value::as_str);
        if found != Some(issuer) {
            let found = found.map_or("no issuer".to_owned(), |found| format!("issuer {found:?}"));
            return Err(ClientError::OAuth(format!(
                "the authorization server metadata at {candidate} names {found}, not {issuer:?}: not using it"
            )));
        }
        let server = read_authorization_server(&candidate, issuer, &document)?;
        tracing::debug!(url = %candidate, ?server, "oauth: authorization server metadata");
        return Ok(Some(server));
    }
    Ok(None)
}

/// The fields of an authorization server metadata document read at `url`.
fn read_authorization_server(
    url: &str,
    issuer: &str,
    document: &Map<String, Value>,
) -> Result<AuthorizationServer, ClientError> {
    let endpoint = |name: &str| -> Result<Option<String>, ClientError> {
        match document.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(endpoint)) if steers_to_loopback(issuer, endpoint) => {
                Err(ClientError::OAuth(format!(
                    "the authorization server metadata at {url} puts its {name} on this machine ({endpoint}), and {issuer} is not on it: not using it"
                )))
            }
            Some(Value::String(endpoint)) if url::parts(endpoint).is_ok() => {
                Ok(Some(endpoint.clone()))
            }
            Some(other) => Err(ClientError::OAuth(format!(
                "the authorization server metadata at {url} has an unusable {name}: {other}"
            ))),
        }
    };
    let token_endpoint = endpoint("token_endpoint")?.ok_or_else(|| {
        ClientError::OAuth(format!(
            "the authorization server metadata at {url} has no token_endpoint"
        ))
    })?;
    Ok(AuthorizationServer {
        issuer: Some(issuer.to_owned()),
        authorization_endpoint: endpoint("authorization_endpoint")?,
        token_endpoint,
        registration_endpoint: endpoint("registration_endpoint")?,
        scopes_supported: strings(document.get("scopes_supported")),
        code_challenge_methods: strings(document.get("code_challenge_methods_supported")),
        token_auth_methods: strings(document.get("token_endpoint_auth_methods_supported")),
        client_id_metadata_documents: document.get("client_id_metadata_document_supported")
            == Some(&Value::Bool(true)),
        iss_parameter_supported: document.get("authorization_response_iss_parameter_supported")
            == Some(&Value::Bool(true)),
        dpop_algorithms: strings(document.get("dpop_signing_alg_values_supported")),
    })
}

/// Whether `named`, given by `from`, would send the client to this machine while `from` is
/// not on it: a remote server cannot point the client at a local port (SSRF into whatever
/// listens there); a development server on loopback may.
fn steers_to_loopback(from: &str, named: &str) -> bool {
    crate::secure_url::is_loopback_url(named) && !crate::secure_url::is_loopback_url(from)
}

/// The strings of a JSON array (other elements skipped); `None` when it is not an array.
fn strings(value: Option<&Value>) -> Option<Vec<String>> {
    Some(
        value?
            .as_array()?
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn object(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(object) => object,
            _ => unreachable!(),
        }
    }

    #[test]
    fn a_remote_server_cannot_steer_to_this_machine() {
        let remote = "https://mcp.example.com/mcp";
        assert!(steers_to_loopback(remote, "http://127.0.0.1:6379/"));
        assert!(steers_to_loopback(remote, "https://localhost:8443/prm"));
        assert!(steers_to_loopback(remote, "http://[::1]:9/"));
        assert!(!steers_to_loopback(remote, "https://as.example.com/"));
        let local = "http://127.0.0.1:8080/mcp";
        assert!(!steers_to_loopback(local, "http://127.0.0.1:9000/"));
        let server = object(json!({"issuer": "https://as.example.com",
            "token_endpoint": "http://127.0.0.1:9/token"}));
        let refused = read_authorization_server(
            "https://as.example.com/.well-known/x",
            "https://as.example.com",
            &server,
        );
        assert!(
            matches!(&refused, Err(ClientError::OAuth(message)) if message.contains("token_endpoint on this machine")),
            "{:?}",
            refused.err()
        );
    }

    #[test]
    fn protected_resource_fields_of_any_type() {
        let read = read_protected_resource(
            "u",
            &object(
                json!({"resource": "http://h/mcp", "authorization_servers": ["http://as", 7, null],
                           "scopes_supported": "nope"}),
            ),
        )
        .unwrap();
        assert_eq!(read.authorization_servers, ["http://as"]);
        assert_eq!(read.scopes_supported, None);
        assert!(read_protected_resource("u", &object(json!({"resource": 1}))).is_err());
    }

    #[test]
    fn authorization_server_fields() {
        let server = read_authorization_server(
            "u",
            "http://as",
            &object(
                json!({"issuer": "http://as", "token_endpoint": "http://as/token",
                           "authorization_endpoint": "http://as/authorize",
                           "client_id_metadata_document_supported": "yes",
                           "authorization_response_iss_parameter_supported": true}),
            ),
        )
        .unwrap();
        assert_eq!(server.token_endpoint, "http://as/token");
        assert!(!server.client_id_metadata_documents);
        assert!(server.iss_parameter_supported);
        assert!(server.supports_auth_method("client_secret_basic"));
        assert!(!server.supports_auth_method("none"));
        for bad in [
            json!({"issuer": "http://as"}),
            json!({"issuer": "http://as", "token_endpoint": 3}),
            json!({"issuer": "http://as", "token_endpoint": "javascript:x"}),
        ] {
            assert!(read_authorization_server("u", "http://as", &object(bad)).is_err());
        }
    }
}
