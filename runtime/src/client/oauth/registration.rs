//! Who the client is at an authorization server: pre-registered credentials, a client ID
//! metadata document (a URL as `client_id`), or dynamic client registration (RFC 7591); and
//! how it authenticates at the token endpoint.

use super::super::error::ClientError;
use super::super::pool::Pool;
use super::discovery::AuthorizationServer;
use super::fetch::{json_post, send};
use super::jwt::SigningKey;
use super::{Grant, OAuth};
use serde_json::{json, Value};
use std::sync::Arc;

/// How the client authenticates at the token endpoint (RFC 7591 §2 names).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AuthMethod {
    /// `none`: a public client, `client_id` in the body.
    None,
    /// `client_secret_basic`: HTTP Basic.
    Basic,
    /// `client_secret_post`: `client_id` and `client_secret` in the body.
    Post,
    /// `private_key_jwt` (RFC 7523 §2.2): a signed assertion in the body.
    PrivateKeyJwt,
}

impl AuthMethod {
    fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "none" => Self::None,
            "client_secret_basic" => Self::Basic,
            "client_secret_post" => Self::Post,
            "private_key_jwt" => Self::PrivateKeyJwt,
            _ => return None,
        })
    }
}

/// A client identity at one authorization server.
#[derive(Clone)]
pub(crate) struct RegisteredClient {
    /// `client_id`.
    pub(crate) id: String,
    /// `client_secret`, for the secret methods.
    pub(crate) secret: Option<String>,
    /// The key of `private_key_jwt`.
    pub(crate) key: Option<Arc<SigningKey>>,
    /// The token endpoint authentication.
    pub(crate) method: AuthMethod,
}

impl std::fmt::Debug for RegisteredClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RegisteredClient")
            .field("id", &self.id)
            .field("secret", &self.secret.as_ref().map(|_| "<redacted>"))
            .field("method", &self.method)
            .finish()
    }
}

/// How a client without a registration gets one at `server`: pre-registered credentials
/// meant for it, then a client ID metadata document when the server supports them and the
/// client has a URL, then dynamic registration. The result is cached per server by the
/// caller; credentials of one server are never offered to another.
pub(crate) async fn register(
    pool: &Pool,
    config: &OAuth,
    key: Option<&Arc<SigningKey>>,
    server: &AuthorizationServer,
) -> Result<RegisteredClient, ClientError> {
    if let Some(pre) = &config.pre_registered {
        if pre.meant_for(server.issuer.as_deref()) {
            let method = choose_method(server, None, pre.secret.is_some(), key.is_some());
            tracing::debug!(client_id = %pre.client_id, ?method, "oauth: pre-registered client");
            return Ok(RegisteredClient {
                id: pre.client_id.clone(),
                secret: pre.secret.clone(),
                key: key.cloned(),
                method,
            });
        }
    }
    if matches!(config.grant, Grant::AuthorizationCode) && server.client_id_metadata_documents {
        if let Some(url) = &config.client_metadata_url {
            tracing::debug!(client_id = %url, "oauth: client ID metadata document");
            return Ok(RegisteredClient {
                id: url.clone(),
                secret: None,
                key: None,
                method: AuthMethod::None,
            });
        }
    }
    let Some(endpoint) = &server.registration_endpoint else {
        return Err(ClientError::OAuth(format!(
            "no way to register at the authorization server {}: it has no registration_endpoint, {}, and no pre-registered credentials are configured for it (a secret or key is offered only to the server PreRegistered::issuer names)",
            server.key(),
            if server.client_id_metadata_documents {
                "the client has no client ID metadata document URL"
            } else {
                "it does not support client ID metadata documents"
            }
        )));
    };
    dynamic(pool, config, endpoint, server).await
}

/// Dynamic client registration (RFC 7591) at `endpoint`.
async fn dynamic(
    pool: &Pool,
    config: &OAuth,
    endpoint: &str,
    server: &AuthorizationServer,
) -> Result<RegisteredClient, ClientError> {
    // A native application with a loopback redirect is a public client: `none` unless the
    // server lists only secret methods.
    let requested = ["none", "client_secret_basic", "client_secret_post"]
        .into_iter()
        .find(|m| match &server.token_auth_methods {
            Some(methods) => methods.iter().any(|s| s == m),
            None => *m == "none",
        })
        .unwrap_or("none");
    let grant_types = config.grant.registered_types();
    let metadata = json!({
        "client_name": config.client_name,
        "redirect_uris": [config.redirect_uri],
        "grant_types": grant_types,
        "response_types": ["code"],
        "token_endpoint_auth_method": requested,
        "application_type": "native",
    });
    tracing::debug!(%endpoint, %metadata, "oauth: dynamic client registration");
    let answer = send(pool, json_post(endpoint, &metadata)?).await?;
    if !answer.status.is_success() {
        return Err(ClientError::OAuth(format!(
            "dynamic client registration at {endpoint} answered HTTP {}: {}",
            answer.status.as_u16(),
            answer.body_start()
        )));
    }
    let document = answer.json_object().map_err(|reason| {
        ClientError::OAuth(format!(
            "dynamic client registration at {endpoint}: {reason}"
        ))
    })?;
    let id = document
        .get("client_id")
        .and_then(Value::as_str)
        .filter(|id| !id.is_empty())
        .ok_or_else(|| {
            ClientError::OAuth(format!(
                "dynamic client registration at {endpoint}: the answer has no client_id string"
            ))
        })?;
    let secret = document
        .get("client_secret")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let registered = document
        .get("token_endpoint_auth_method")
        .and_then(Value::as_str);
    let method = choose_method(server, registered, secret.is_some(), false);
    tracing::debug!(client_id = %id, ?method, "oauth: registered");
    Ok(RegisteredClient {
        id: id.to_owned(),
        secret,
        key: None,
        method,
    })
}

/// The token endpoint authentication: the one the registration named, else the best the
/// server lists for what the client holds (a key, a secret, nothing).
fn choose_method(
    server: &AuthorizationServer,
    registered: Option<&str>,
    has_secret: bool,
    has_key: bool,
) -> AuthMethod {
    let usable = |method: AuthMethod| match method {
        AuthMethod::None => true,
        AuthMethod::Basic | AuthMethod::Post => has_secret,
        AuthMethod::PrivateKeyJwt => has_key,
    };
    if let Some(method) = registered
        .and_then(AuthMethod::from_name)
        .filter(|m| usable(*m))
    {
        return method;
    }
    let preference = [
        ("private_key_jwt", AuthMethod::PrivateKeyJwt),
        ("client_secret_basic", AuthMethod::Basic),
        ("client_secret_post", AuthMethod::Post),
    ];
    preference
        .into_iter()
        .find(|(name, method)| usable(*method) && server.supports_auth_method(name))
        .map(|(_, method)| method)
        .unwrap_or(if server.supports_auth_method("none") || !has_secret {
            AuthMethod::None
        } else {
            AuthMethod::Basic
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server(methods: Option<&[&str]>) -> AuthorizationServer {
        let mut server = AuthorizationServer::defaults("http://as");
        server.token_auth_methods = methods.map(|m| m.iter().map(|s| s.to_string()).collect());
        server
    }

    /// A secret or a key goes only to the issuer it names (or, opted in, to any); a public
    /// client's ID to any. Without a registration endpoint the error says why.
    #[tokio::test]
    async fn pre_registered_secrets_go_only_to_their_issuer() {
        let pool = super::super::super::pool::pool(&Default::default()).unwrap();
        let mut elsewhere = server(None);
        elsewhere.issuer = Some("http://attacker".into());
        elsewhere.registration_endpoint = None;
        elsewhere.client_id_metadata_documents = false;
        let secret = super::super::PreRegistered::new("app").secret("s3cret");
        for (pre, offered) in [
            (secret.clone(), false),
            (secret.clone().issuer("http://as"), false),
            (secret.clone().issuer("http://attacker"), true),
            (secret.clone().for_any_issuer(), true),
            (super::super::PreRegistered::new("public-app"), true),
        ] {
            let config = OAuth::new().pre_registered(pre);
            match register(&pool, &config, None, &elsewhere).await {
                Ok(client) => assert!(offered, "offered {:?}", client.id),
                Err(error) => {
                    assert!(!offered, "{error}");
                    assert!(
                        error.to_string().contains("PreRegistered::issuer"),
                        "{error}"
                    );
                }
            }
        }
    }

    #[test]
    fn method_choice() {
        let none_only = server(Some(&["none"]));
        assert_eq!(
            choose_method(&none_only, None, true, false),
            AuthMethod::None
        );
        assert_eq!(
            choose_method(&none_only, Some("client_secret_post"), true, false),
            AuthMethod::Post
        );
        let basic = server(Some(&["client_secret_basic"]));
        assert_eq!(choose_method(&basic, None, true, false), AuthMethod::Basic);
        assert_eq!(
            choose_method(&server(Some(&["client_secret_post"])), None, true, false),
            AuthMethod::Post
        );
        assert_eq!(
            choose_method(&server(None), None, true, false),
            AuthMethod::Basic
        );
        assert_eq!(
            choose_method(&server(None), None, false, false),
            AuthMethod::None
        );
        assert_eq!(
            choose_method(&server(Some(&["private_key_jwt"])), None, false, true),
            AuthMethod::PrivateKeyJwt
        );
        // A registered method the client cannot use is not taken.
        assert_eq!(
            choose_method(&none_only, Some("client_secret_basic"), false, false),
            AuthMethod::None
        );
    }
}
