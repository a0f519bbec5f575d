//! [`Authenticator`]: what turns a request into a [`Principal`] or a [`Refusal`], and the
//! refusals, each with its one HTTP status and challenge.

use http::StatusCode;

use super::Principal;
use crate::future::BoxFuture;

/// Decides who an HTTP request acts for, before the engine sees it.
///
/// Implement it for your own token introspection, API keys or mTLS (a TLS terminator's
/// verified client certificate in the request's extensions or headers); the `jwt` feature
/// brings [`JwtAuthenticator`](jwt/struct.JwtAuthenticator.html) for JWT access tokens. Install
/// it with [`Auth`](super::Auth) in [`Config::auth`](crate::Config::auth).
///
/// The request's body has not been read yet: decide from its head. Never log the credential
/// nor pass it on (to a handler, an upstream service or an error message).
///
/// ```
/// use mcp_runtime::auth::{bearer_token, Authenticator, Principal, Refusal};
/// use mcp_runtime::BoxFuture;
///
/// /// One API key, sent as `Authorization: Bearer <key>`.
/// struct ApiKey(String);
///
/// impl Authenticator for ApiKey {
///     fn authenticate<'a>(
///         &'a self,
///         request: &'a http::request::Parts,
///     ) -> BoxFuture<'a, Result<Principal, Refusal>> {
///         Box::pin(async move {
///             match bearer_token(&request.headers)? {
///                 Some(key) if key == self.0 => Ok(Principal::new("ops", vec!["mcp".into()])),
///                 Some(_) => Err(Refusal::invalid_token("unknown API key")),
///                 None => Err(Refusal::Missing),
///             }
///         })
///     }
/// }
/// ```
pub trait Authenticator: Send + Sync + 'static {
    /// The principal `request` acts for, or why it is refused.
    fn authenticate<'a>(
        &'a self,
        request: &'a http::request::Parts,
    ) -> BoxFuture<'a, Result<Principal, Refusal>>;
}

/// Why a request is refused at the edge. Each maps to one status and one
/// `WWW-Authenticate: Bearer` challenge (RFC 6750 §3):
///
/// | refusal | status | `error` |
/// |---|---|---|
/// | [`Missing`](Refusal::Missing) | 401 | none |
/// | [`InvalidToken`](Refusal::InvalidToken) | 401 | `invalid_token` |
/// | [`InvalidRequest`](Refusal::InvalidRequest) | 400 | `invalid_request` |
/// | [`InvalidDpopProof`](Refusal::InvalidDpopProof) | 401 | `invalid_dpop_proof` (a `DPoP` challenge, RFC 9449 §7.1) |
/// | [`InsufficientScope`](Refusal::InsufficientScope) | 403 | `insufficient_scope` |
/// | [`Unavailable`](Refusal::Unavailable) | 503 | none (no challenge) |
///
/// The descriptions go to the client in `error_description` and the JSON-RPC error: never
/// put the credential in them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// No credential at all.
    Missing,
    /// A credential that is expired, revoked, malformed, or not for this server.
    InvalidToken(String),
    /// A malformed `Authorization` header (e.g. repeated, or not `Bearer <token>`).
    InvalidRequest(String),
    /// A DPoP-bound token whose proof (the `DPoP` header) is missing, malformed, replayed,
    /// or not for this request, token and key (RFC 9449).
    InvalidDpopProof(String),
    /// A valid credential without a scope the request needs: `scope` lists what to ask
    /// for (space-separated).
    InsufficientScope {
        /// The scopes the request needs, space-separated.
        scope: String,
    },
    /// The authenticator cannot decide now (its issuer's keys cannot be fetched): 503.
    Unavailable(String),
}

impl Refusal {
    /// [`Refusal::InvalidToken`] with `description`.
    pub fn invalid_token(description: impl Into<String>) -> Self {
        Refusal::InvalidToken(description.into())
    }

    /// [`Refusal::InvalidRequest`] with `description`.
    pub fn invalid_request(description: impl Into<String>) -> Self {
        Refusal::InvalidRequest(description.into())
    }

    /// The HTTP status of this refusal.
    pub fn status(&self) -> StatusCode {
        match self {
            Refusal::Missing | Refusal::InvalidToken(_) | Refusal::InvalidDpopProof(_) => {
                StatusCode::UNAUTHORIZED
            }
            Refusal::InvalidRequest(_) => StatusCode::BAD_REQUEST,
            Refusal::InsufficientScope { .. } => StatusCode::FORBIDDEN,
            Refusal::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
        }
    }

    /// The RFC 6750 `error` code, if the refusal has one.
    pub fn error_code(&self) -> Option<&'static str> {
        match self {
            Refusal::Missing | Refusal::Unavailable(_) => None,
            Refusal::InvalidToken(_) => Some("invalid_token"),
            Refusal::InvalidRequest(_) => Some("invalid_request"),
            Refusal::InvalidDpopProof(_) => Some("invalid_dpop_proof"),
            Refusal::InsufficientScope { .. } => Some("insufficient_scope"),
        }
    }

    /// What went wrong, for `error_description` and the JSON-RPC error's message.
    pub fn description(&self) -> String {
        match self {
            Refusal::Missing => "no access token: send Authorization: Bearer <token>".into(),
            Refusal::InvalidToken(why)
            | Refusal::InvalidRequest(why)
            | Refusal::InvalidDpopProof(why) => why.clone(),
            Refusal::InsufficientScope { scope } => {
                format!("the access token lacks the scope this request needs: {scope}")
            }
            Refusal::Unavailable(why) => why.clone(),
        }
    }
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.description())
    }
}

impl std::error::Error for Refusal {}
