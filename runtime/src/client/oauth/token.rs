//! The token endpoint: the authorization code, refresh token, client credentials and
//! JWT-bearer grants, with the client's authentication, the `resource` parameter (RFC 8707)
//! and, for DPoP-bound tokens, a proof (with the server's nonce when it asks for one); and
//! the answer read (RFC 6749 §5).

use super::super::error::ClientError;
use super::super::pool::Pool;
use super::discovery::AuthorizationServer;
use super::dpop::{Prover, DPOP, USE_DPOP_NONCE};
use super::fetch::{form_post, send, Answer};
use super::jwt::ASSERTION_TYPE;
use super::registration::{AuthMethod, RegisteredClient};
use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use http::{HeaderValue, Method, StatusCode};
use serde_json::{Map, Value};
use std::time::{Duration, Instant};

/// RFC 7523's grant type: a JWT as the authorization grant.
pub(crate) const JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";

/// An access token and what came with it.
#[derive(Clone)]
pub(crate) struct Token {
    /// `access_token`.
    pub(crate) access: String,
    /// `refresh_token`.
    pub(crate) refresh: Option<String>,
    /// When it expires (`expires_in` from its arrival).
    pub(crate) expires_at: Option<Instant>,
    /// Whether it is bound to the session's DPoP key (`token_type: DPoP`).
    pub(crate) dpop: bool,
}

impl Token {
    /// Whether it has expired, or will within `margin`.
    pub(crate) fn expired(&self, margin: Duration) -> bool {
        self.expires_at
            .is_some_and(|at| Instant::now() + margin >= at)
    }
}

/// What a token request trades for a token.
#[derive(Clone, Copy)]
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
    /// The JWT-bearer grant (RFC 7523 §2.1): `assertion` (a workload token, an ID-JAG), for
    /// `scope`.
    JwtBearer {
        /// The JWT.
        assertion: &'a str,
        /// The scopes asked for.
        scope: Option<&'a str>,
    },
}

/// The longest access token accepted (it goes into a header of every request).
const MAX_TOKEN_LEN: usize = 16 * 1024;

/// Asks `server`'s token endpoint for a token: `grant`, the client's authentication, and
/// `resource`; with a DPoP proof of `dpop`'s key when given, sent again once with the
/// server's nonce when it answers `use_dpop_nonce` (RFC 9449 §8).
pub(crate) async fn request(
    pool: &Pool,
    server: &AuthorizationServer,
    client: &RegisteredClient,
    grant: Grant<'_>,
    resource: &str,
    dpop: Option<&Prover>,
) -> Result<Token, ClientError> {
    let endpoint = &server.token_endpoint;
    let mut nonce_retried = false;
    let (grant_type, answer) = loop {
        // Built anew for a second attempt: a `private_key_jwt` assertion is not used twice.
        let Form {
            grant_type,
            fields,
            authorization,
        } = form(server, client, grant, resource)?;
        let pairs: Vec<(&str, &str)> = fields.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let mut request = form_post(endpoint, &pairs, authorization)?;
        if let Some(prover) = dpop {
            let nonce = prover.server_nonce(server.key());
            let proof = prover
                .proof(&Method::POST, endpoint, None, nonce.as_deref())
                .map_err(ClientError::OAuth)?;
            request.headers_mut().insert(DPOP, proof);
        }
        tracing::debug!(%endpoint, grant_type, method = ?client.method, %resource, dpop = dpop.is_some(), "oauth: token request");
        let answer = send(pool, request).await?;
        let fresh_nonce =
            dpop.is_some_and(|p| p.remember_server_nonce(server.key(), &answer.headers));
        let wants_nonce = answer.status == StatusCode::BAD_REQUEST
            && answer
                .json_object()
                .is_ok_and(|o| o.get("error").and_then(Value::as_str) == Some(USE_DPOP_NONCE));
        if wants_nonce && fresh_nonce && !nonce_retried {
            tracing::debug!(%endpoint, "oauth: the token endpoint asked for a DPoP nonce; sending again with it");
            nonce_retried = true;
            continue;
        }
        break (grant_type, answer);
    };
    let document = answer.json_object();
    if !answer.status.is_success() {
        return Err(ClientError::OAuth(format!(
            "the token endpoint {endpoint} refused the {grant_type} grant: {}",
            refusal(&answer, &document)
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
    let bound = match token_type {
        None => false,
        Some(t) if t.eq_ignore_ascii_case("bearer") => false,
        Some(t) if t.eq_ignore_ascii_case("dpop") && dpop.is_some() => true,
        Some(t) if t.eq_ignore_ascii_case("dpop") => {
            return Err(ClientError::OAuth(format!(
                "the token endpoint {endpoint} issued a DPoP token though no DPoP proof was sent"
            )))
        }
        Some(other) => {
            return Err(ClientError::OAuth(format!(
                "the token endpoint {endpoint} issued a token of type {other:?}; only Bearer and DPoP tokens are supported"
            )))
        }
    };
    let expires_at = document
        .get("expires_in")
        .and_then(Value::as_f64)
        .filter(|secs| secs.is_finite() && *secs >= 0.0)
        .map(|secs| Instant::now() + Duration::from_secs_f64(secs.min(10.0 * 365.0 * 86_400.0)));
    tracing::debug!(%endpoint, expires_in = ?document.get("expires_in"), refresh = document.contains_key("refresh_token"), dpop = bound, "oauth: token issued");
    Ok(Token {
        access: access.to_owned(),
        refresh: document
            .get("refresh_token")
            .and_then(Value::as_str)
            .map(str::to_owned),
        expires_at,
        dpop: bound,
    })
}

/// A token request's body and client authentication.
struct Form {
    grant_type: &'static str,
    fields: Vec<(&'static str, String)>,
    /// The Basic header, for `client_secret_basic`.
    authorization: Option<HeaderValue>,
}

/// The token request of `grant` by `client` for `resource`.
fn form(
    server: &AuthorizationServer,
    client: &RegisteredClient,
    grant: Grant<'_>,
    resource: &str,
) -> Result<Form, ClientError> {
    let mut fields: Vec<(&'static str, String)> = Vec::new();
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
        Grant::JwtBearer { assertion, scope } => {
            fields.push(("assertion", assertion.to_owned()));
            if let Some(scope) = scope {
                fields.push(("scope", scope.to_owned()));
            }
            JWT_BEARER
        }
    };
    fields.insert(0, ("grant_type", grant_type.to_owned()));
    fields.push(("resource", resource.to_owned()));
    // A `private_key_jwt` assertion names the server's issuer as its audience.
    let audience = server.issuer.as_deref().unwrap_or(&server.token_endpoint);
    let authorization = authenticate(audience, client, &mut fields)?;
    Ok(Form {
        grant_type,
        fields,
        authorization,
    })
}

/// What a refusing token endpoint said: the status, and its `error` and
/// `error_description` (or the start of a body that is no JSON object).
pub(crate) fn refusal(answer: &Answer, document: &Result<Map<String, Value>, String>) -> String {
    let detail = match document {
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
    format!("HTTP {}: {}", answer.status.as_u16(), detail.trim())
}

/// Adds the client's authentication to `fields`, or returns the Basic header it takes; a
/// `private_key_jwt` assertion is for `audience`.
pub(crate) fn authenticate(
    audience: &str,
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
