//! The token endpoint: the authorization code, refresh token and client credentials grants,
//! with the client's authentication and the `resource` parameter (RFC 8707), and the answer
//! read (RFC 6749 §5).

use super::super::error::ClientError;
use super::super::http::Pool;
use super::discovery::AuthorizationServer;
use super::fetch::{form_post, send};
use super::jwt::ASSERTION_TYPE;
use super::registration::{AuthMethod, RegisteredClient};
use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use http::HeaderValue;
use serde_json::Value;
use std::time::{Duration, Instant};

/// An access token and what came with it.
#[derive(Clone)]
pub(crate) struct Token {
    /// `access_token`.
    pub(crate) access: String,
    /// `refresh_token`.
    pub(crate) refresh: Option<String>,
    /// When it expires (`expires_in` from its arrival).
    pub(crate) expires_at: Option<Instant>,
}

impl Token {
    /// Whether it has expired, or will within `margin`.
    pub(crate) fn expired(&self, margin: Duration) -> bool {
        self.expires_at
            .is_some_and(|at| Instant::now() + margin >= at)
    }
}

/// What a token request trades for a token.
pub(crate) enum Grant<'a> {
    /// `authorization_code` with its PKCE verifier and the redirect URI it came to.
    Code {
        /// The authorization code.
        code: &'a str,
        /// The PKCE `code_verifier`.
        verifier: &'a str,
        /// The `redirect_uri` of the authorization request.
        redirect_uri: &'a str,
    },
    /// `refresh_token`.
    Refresh(&'a str),
    /// `client_credentials`, for `scope`.
    ClientCredentials(Option<&'a str>),
}

/// The longest access token accepted (it goes into a header of every request).
const MAX_TOKEN_LEN: usize = 16 * 1024;

/// Asks `server`'s token endpoint for a token: `grant`, the client's authentication, and
/// `resource`.
pub(crate) async fn request(
    pool: &Pool,
    server: &AuthorizationServer,
    client: &RegisteredClient,
    grant: Grant<'_>,
    resource: &str,
) -> Result<Token, ClientError> {
    let endpoint = &server.token_endpoint;
    let mut fields: Vec<(&str, String)> = Vec::new();
    let grant_type = match grant {
        Grant::Code {
            code,
            verifier,
            redirect_uri,
        } => {
            fields.push(("code", code.to_owned()));
            fields.push(("code_verifier", verifier.to_owned()));
            fields.push(("redirect_uri", redirect_uri.to_owned()));
            "authorization_code"
        }
        Grant::Refresh(refresh) => {
            fields.push(("refresh_token", refresh.to_owned()));
            "refresh_token"
        }
        Grant::ClientCredentials(scope) => {
            if let Some(scope) = scope {
                fields.push(("scope", scope.to_owned()));
            }
            "client_credentials"
        }
    };
    fields.insert(0, ("grant_type", grant_type.to_owned()));
    fields.push(("resource", resource.to_owned()));
    let authorization = authenticate(server, client, &mut fields)?;
    let pairs: Vec<(&str, &str)> = fields.iter().map(|(k, v)| (*k, v.as_str())).collect();
    tracing::debug!(%endpoint, grant_type, method = ?client.method, %resource, "oauth: token request");
    let answer = send(pool, form_post(endpoint, &pairs, authorization)?).await?;
    let document = answer.json_object();
    if !answer.status.is_success() {
        let detail = match &document {
            Ok(object) => format!(
                "{} {}",
                object
                    .get("error")
                    .and_then(Value::as_str)
                    .unwrap_or("(no error code)"),
                object
                    .get("error_description")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
            ),
            Err(_) => answer.body_start(),
        };
        return Err(ClientError::OAuth(format!(
            "the token endpoint {endpoint} refused the {grant_type} grant: HTTP {}: {}",
            answer.status.as_u16(),
            detail.trim()
        )));
    }
    let document = document
        .map_err(|reason| ClientError::OAuth(format!("the token endpoint {endpoint}: {reason}")))?;
    let access = document
        .get("access_token")
        .and_then(Value::as_str)
        .filter(|token| !token.is_empty() && token.len() <= MAX_TOKEN_LEN)
        .filter(|token| HeaderValue::try_from(format!("Bearer {token}")).is_ok())
        .ok_or_else(|| {
            ClientError::OAuth(format!(
                "the token endpoint {endpoint} answered without a usable access_token"
            ))
        })?;
    let token_type = document.get("token_type").and_then(Value::as_str);
    // RFC 6749 requires `token_type`; one left out is taken to be Bearer.
    if token_type.is_some_and(|t| !t.eq_ignore_ascii_case("bearer")) {
        return Err(ClientError::OAuth(format!(
            "the token endpoint {endpoint} issued a token of type {token_type:?}; only Bearer tokens are supported"
        )));
    }
    let expires_at = document
        .get("expires_in")
        .and_then(Value::as_f64)
        .filter(|secs| secs.is_finite() && *secs >= 0.0)
        .map(|secs| Instant::now() + Duration::from_secs_f64(secs.min(10.0 * 365.0 * 86_400.0)));
    tracing::debug!(%endpoint, expires_in = ?document.get("expires_in"), refresh = document.contains_key("refresh_token"), "oauth: token issued");
    Ok(Token {
        access: access.to_owned(),
        refresh: document
            .get("refresh_token")
            .and_then(Value::as_str)
            .map(str::to_owned),
        expires_at,
    })
}

/// Adds the client's authentication to `fields`, or returns the Basic header it takes.
fn authenticate(
    server: &AuthorizationServer,
    client: &RegisteredClient,
    fields: &mut Vec<(&str, String)>,
) -> Result<Option<HeaderValue>, ClientError> {
    let secret = || {
        client
            .secret
            .clone()
            .ok_or_else(|| ClientError::OAuth(format!("client {}: no client_secret", client.id)))
    };
    match client.method {
        AuthMethod::None => fields.push(("client_id", client.id.clone())),
        AuthMethod::Post => {
            fields.push(("client_id", client.id.clone()));
            fields.push(("client_secret", secret()?));
        }
        AuthMethod::Basic => {
            // RFC 6749 §2.3.1: each part form-encoded before the Base64.
            let encode =
                |s: &str| form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
            let credentials = format!("{}:{}", encode(&client.id), encode(&secret()?));
            let value = format!("Basic {}", STANDARD.encode(credentials));
            return HeaderValue::try_from(value)
                .map(Some)
                .map_err(|e| ClientError::OAuth(format!("client {}: {e}", client.id)));
        }
        AuthMethod::PrivateKeyJwt => {
            let key = client.key.as_ref().ok_or_else(|| {
                ClientError::OAuth(format!(
                    "client {}: no private key for private_key_jwt",
                    client.id
                ))
            })?;
            let audience = server.issuer.as_deref().unwrap_or(&server.token_endpoint);
            let assertion = key
                .assertion(&client.id, audience)
                .map_err(ClientError::OAuth)?;
            fields.push(("client_id", client.id.clone()));
            fields.push(("client_assertion_type", ASSERTION_TYPE.to_owned()));
            fields.push(("client_assertion", assertion));
        }
    }
    Ok(None)
}
