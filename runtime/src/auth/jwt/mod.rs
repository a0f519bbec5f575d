//! [`JwtAuthenticator`]: JWT access tokens (RFC 9068) checked against the issuer's JWKS
//! (feature `jwt`).
//!
//! A token is accepted when its signature verifies with a key of the issuer's JWKS (an
//! asymmetric algorithm the key allows: RS*, PS*, ES256, ES384, EdDSA; never `none` nor
//! HS*), it is within `exp`/`nbf` (with [`JwtSettings::leeway`]), its `iss` is the issuer and
//! its `aud` names this server's canonical resource URL (RFC 8707: a token issued for
//! another resource is refused).
//!
//! Signatures are verified with `ring`, already built for rustls (no OpenSSL): its RSA and
//! ECDSA verification, in assembly, is six to eight times faster than RustCrypto's pure Rust.
//! The `jsonwebtoken` crate, without a crypto backend, parses the header and the JWKS; the
//! signature check (`jws.rs`: why not through jsonwebtoken's `CryptoProvider`) and the
//! claims checks (`claims.rs`) are this module's.

mod claims;
mod config_error;
mod dpop;
mod fetch;
mod jws;
mod keys;
mod verified;

use jsonwebtoken::Algorithm;
use serde_json::{Map, Value};
use std::time::Duration;

use super::{bearer_token, Auth, Authenticator, Principal, Refusal, ResourceMetadata};
use crate::future::BoxFuture;
use claims::{BadClaims, Expected};
use jws::BadSignature;
use keys::{KeyCache, KeyError, KeySource};

pub use config_error::JwtConfigError;

/// The settings of a [`JwtAuthenticator`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JwtSettings {
    /// The issuer (`iss`) tokens must carry, exactly as its metadata states it, e.g.
    /// `https://auth.example.com`.
    pub issuer: String,
    /// The audience (`aud`) tokens must name: this server's canonical resource URL, e.g.
    /// `https://mcp.example.com/mcp`.
    pub audience: String,
    /// The JWKS URL; `None`: the `jwks_uri` of the issuer's metadata (RFC 8414
    /// `/.well-known/oauth-authorization-server`, else `/.well-known/openid-configuration`).
    pub jwks_url: Option<String>,
    /// Clock skew allowed on `exp` and `nbf`. Default 30 s.
    pub leeway: Duration,
    /// Least time between two fetches of the keys (a token naming an unknown key id triggers
    /// one). Default 30 s.
    pub refresh_interval: Duration,
    /// Keys are fetched again once older than this. Default 1 hour.
    pub max_key_age: Duration,
    /// While the issuer cannot be reached, the keys fetched last keep verifying tokens until
    /// they are this old; then tokens are refused with 503 until a fetch succeeds (a key the
    /// issuer revoked during an outage is not trusted forever). Default 24 hours.
    pub max_stale_key_age: Duration,
    /// How long a fetch of the metadata or the keys may take. Default 10 s.
    pub fetch_timeout: Duration,
    /// Most verified tokens remembered, so that a token used again is not verified again
    /// (until it expires or the keys are fetched again); 0 turns this off. Default 10,000.
    pub cache_capacity: usize,
    /// The JOSE header `typ` tokens must carry, compared without case and with or without
    /// `application/` (RFC 9068 access tokens: `at+jwt`), so that an ID token or another JWT
    /// of the issuer signed with the same keys is not taken for an access token. `None` (the
    /// default): `typ` is not checked.
    pub token_type: Option<String>,
    /// How far a DPoP proof's `iat` may be from now (either way), and so how long each
    /// proof's `jti` is remembered to refuse its replay (RFC 9449 §11.1). Default 60 s.
    pub dpop_window: Duration,
}

impl JwtSettings {
    /// Settings for tokens of `issuer` for `audience`, other fields at their defaults.
    pub fn new(issuer: impl Into<String>, audience: impl Into<String>) -> Self {
        Self {
            issuer: issuer.into(),
            audience: audience.into(),
            jwks_url: None,
            leeway: Duration::from_secs(30),
            refresh_interval: Duration::from_secs(30),
            max_key_age: Duration::from_secs(60 * 60),
            max_stale_key_age: Duration::from_secs(24 * 60 * 60),
            fetch_timeout: Duration::from_secs(10),
            cache_capacity: 10_000,
            token_type: None,
            dpop_window: Duration::from_secs(60),
        }
    }
}

/// Validates JWT access tokens from `Authorization: Bearer` (see the [module](self) docs).
pub struct JwtAuthenticator {
    expected: Expected,
    token_type: Option<String>,
    keys: KeyCache,
    verified: verified::Verified,
    proofs: dpop::Proofs,
}

impl JwtAuthenticator {
    /// An authenticator for `settings`. Fails on an issuer or JWKS URL that is not https
    /// (http only to a loopback host), or when the system's root certificates cannot be
    /// loaded. Nothing is fetched until the first token arrives.
    pub fn new(settings: JwtSettings) -> Result<Self, JwtConfigError> {
        fetch::checked_url(&settings.issuer).map_err(|reason| JwtConfigError::Issuer { reason })?;
        if let Some(url) = &settings.jwks_url {
            fetch::checked_url(url).map_err(|reason| JwtConfigError::JwksUrl { reason })?;
        }
        let expected = Expected {
            issuer: settings.issuer.clone(),
            audience: settings.audience,
            leeway: settings.leeway.as_secs(),
        };
        let source = KeySource {
            issuer: settings.issuer,
            jwks_url: settings.jwks_url,
            refresh_interval: settings.refresh_interval,
            max_age: settings.max_key_age,
            max_stale: settings.max_stale_key_age,
        };
        Ok(Self {
            verified: verified::Verified::new(settings.cache_capacity, expected.leeway),
            proofs: dpop::Proofs::new(settings.dpop_window.as_secs()),
            token_type: settings.token_type.clone(),
            expected,
            keys: KeyCache::new(source, fetch::Fetcher::new(settings.fetch_timeout)?),
        })
    }

    /// The principal of a valid bearer `token`, or why it is refused (a token bound to a
    /// key, `cnf`, is refused: whoever holds it is not shown to hold its key).
    pub async fn verify(&self, token: &str) -> Result<Principal, Refusal> {
        let principal = self.verify_signed(token).await?;
        if principal
            .claims
            .get("cnf")
            .is_some_and(|cnf| !cnf.is_null())
        {
            // RFC 9449 DPoP `cnf.jkt`, RFC 8705 mTLS `cnf.x5t#S256`.
            return Err(Refusal::invalid_token(
                "the access token is bound to a key (cnf): it cannot be used as a Bearer token",
            ));
        }
        Ok(principal)
    }

    /// The principal of a valid DPoP-bound `token` presented with `proof` for `request`
    /// (RFC 9449 §7), or why it is refused.
    pub async fn verify_dpop(
        &self,
        token: &str,
        proof: Option<&str>,
        request: &http::request::Parts,
    ) -> Result<Principal, Refusal> {
        let principal = self.verify_signed(token).await?;
        let Some(thumbprint) = principal.claims["cnf"]["jkt"].as_str() else {
            return Err(Refusal::invalid_token(
                "the access token is not bound to a DPoP key (cnf.jkt): send it as Bearer",
            ));
        };
        let proof = proof.ok_or_else(|| {
            Refusal::InvalidDpopProof("a DPoP token needs a DPoP proof header".into())
        })?;
        let url = self.request_url(request);
        let presented = dpop::Presented {
            method: request.method.as_str(),
            url: &url,
            token,
            thumbprint,
        };
        let digest = self
            .proofs
            .check(proof, &presented, jsonwebtoken::get_current_timestamp())?;
        if let Ok(shared) = crate::auth::SHARED_PROOFS.try_with(std::sync::Arc::clone) {
            self.proofs.first_use_shared(&*shared, &digest).await?;
        }
        Ok(principal)
    }

    /// The URL a proof's `htu` names for `request`: this server's origin, as its audience
    /// (the canonical resource URL) says, and the request's path.
    fn request_url(&self, request: &http::request::Parts) -> String {
        let audience = &self.expected.audience;
        let origin_end = audience
            .find("://")
            .and_then(|scheme| audience[scheme + 3..].find('/').map(|at| scheme + 3 + at))
            .unwrap_or(audience.len());
        format!("{}{}", &audience[..origin_end], request.uri.path())
    }

    /// The principal of `token` whose signature and claims are valid, bound to a key or not.
    async fn verify_signed(&self, token: &str) -> Result<Principal, Refusal> {
        let digest = verified::digest(token);
        let now = jsonwebtoken::get_current_timestamp();
        if let Some(keys) = self.keys.fresh() {
            if let Some(principal) = self.verified.get(&digest, keys.fetched(), now) {
                return Ok(principal);
            }
        }
        let not_a_jwt = || Refusal::invalid_token("the access token is not a well-formed JWT");
        let parts = jws::split(token).ok_or_else(not_a_jwt)?;
        // `alg: none` and unknown algorithms fail here (the crate knows no such algorithm).
        let header = jsonwebtoken::decode_header(token).map_err(|_| not_a_jwt())?;
        if !is_asymmetric(header.alg) {
            return Err(Refusal::invalid_token(format!(
                "tokens signed with {:?} are not accepted",
                header.alg
            )));
        }
        if let Some(wanted) = &self.token_type {
            if !header
                .typ
                .as_deref()
                .is_some_and(|typ| same_type(typ, wanted))
            {
                return Err(Refusal::invalid_token(format!(
                    "the token's typ is {:?}, not {wanted:?}: it is not an access token for this server",
                    header.typ.as_deref().unwrap_or("absent")
                )));
            }
        }
        let kid = header.kid.as_deref();
        let mut keys = self.keys.keys().await.map_err(unavailable)?;
        if keys.find(kid, header.alg).is_none() {
            // Perhaps the issuer rotated its keys: fetch them again (rate-limited).
            keys = self.keys.refresh().await.map_err(unavailable)?;
        }
        let key = keys.find(kid, header.alg).ok_or_else(|| {
            Refusal::invalid_token(
                "the access token is signed with a key the issuer does not publish",
            )
        })?;
        // The signature first: nothing of the payload is read before it verifies.
        key.public
            .verify(header.alg, parts.signing_input, parts.signature)
            .map_err(|bad| {
                Refusal::invalid_token(match bad {
                    BadSignature::Malformed => MALFORMED,
                    BadSignature::Invalid => "the access token's signature does not verify",
                })
            })?;
        let claims = jws::decode_part(parts.payload)
            .and_then(|json| serde_json::from_slice::<Map<String, Value>>(&json).ok())
            .ok_or_else(|| Refusal::invalid_token(MALFORMED))?;
        self.expected
            .check(&claims, now)
            .map_err(|bad| Refusal::invalid_token(why_invalid(bad)))?;
        let principal = principal_of(Value::Object(claims))?;
        self.verified.put(digest, &principal, keys.fetched(), now);
        Ok(principal)
    }

    /// [`Auth`] for tokens of `settings`: this authenticator, and metadata naming the
    /// audience as the resource and the issuer as its authorization server.
    pub fn auth(settings: JwtSettings) -> Result<Auth, JwtConfigError> {
        let metadata = ResourceMetadata::new(&settings.audience, vec![settings.issuer.clone()])
            .map_err(JwtConfigError::Audience)?;
        Ok(Auth::new(metadata, Self::new(settings)?))
    }
}

impl std::fmt::Debug for JwtAuthenticator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JwtAuthenticator")
            .field("issuer", &self.expected.issuer)
            .field("audience", &self.expected.audience)
            .finish_non_exhaustive()
    }
}

impl Authenticator for JwtAuthenticator {
    fn authenticate<'a>(
        &'a self,
        request: &'a http::request::Parts,
    ) -> BoxFuture<'a, Result<Principal, Refusal>> {
        Box::pin(async move {
            if let Some(token) = dpop_scheme_token(&request.headers) {
                let proof = dpop::proof_header(&request.headers)?;
                return self.verify_dpop(token?, proof, request).await;
            }
            match bearer_token(&request.headers)? {
                Some(token) => self.verify(token).await,
                None => Err(Refusal::Missing),
            }
        })
    }
}

/// The token of an `Authorization: DPoP <token>` header (RFC 9449 §7.1); `None` for any
/// other scheme (left to [`bearer_token`], which refuses what it does not take).
fn dpop_scheme_token(headers: &http::HeaderMap) -> Option<Result<&str, Refusal>> {
    let value = headers.get(http::header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.trim().split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("dpop") {
        return None;
    }
    if headers.get_all(http::header::AUTHORIZATION).iter().count() > 1 {
        return Some(Err(Refusal::invalid_request(
            "the Authorization header may appear once",
        )));
    }
    let token = token.trim();
    let b64 = |b: u8| b.is_ascii_alphanumeric() || b"-._~+/=".contains(&b);
    Some(if !token.is_empty() && token.bytes().all(b64) {
        Ok(token)
    } else {
        Err(Refusal::invalid_request(
            "the DPoP token is empty or has characters RFC 9449 does not allow",
        ))
    })
}

/// Whether the header `typ` names `wanted` (RFC 7515 §4.1.9: without case, `application/`
/// optional).
fn same_type(typ: &str, wanted: &str) -> bool {
    let bare = |text: &str| {
        let lower = text.to_ascii_lowercase();
        lower
            .strip_prefix("application/")
            .map_or(lower.clone(), str::to_owned)
    };
    bare(typ) == bare(wanted)
}

fn is_asymmetric(alg: Algorithm) -> bool {
    !matches!(alg, Algorithm::HS256 | Algorithm::HS384 | Algorithm::HS512)
}

fn unavailable(error: KeyError) -> Refusal {
    match error {
        KeyError::Unavailable(why) => Refusal::Unavailable(why),
    }
}

/// What to tell the client about a token whose payload cannot be read.
const MALFORMED: &str = "the access token is malformed";

/// What to tell the client about claims that failed (never the token).
fn why_invalid(bad: BadClaims) -> String {
    match bad {
        BadClaims::Expired => "the access token has expired".into(),
        BadClaims::NotYetValid => "the access token is not valid yet (nbf)".into(),
        BadClaims::Issuer => "the access token is from another issuer".into(),
        BadClaims::Audience => "the access token was issued for another resource (aud)".into(),
        BadClaims::Missing(claim) => format!("the access token has no `{claim}` claim"),
        BadClaims::Malformed(claim) => format!("the access token's `{claim}` claim is malformed"),
    }
}

/// The principal of validated `claims`: `sub` (else `client_id`) and the scopes of `scope`
/// (space-separated, RFC 9068) or `scp` (a list or a string).
fn principal_of(claims: Value) -> Result<Principal, Refusal> {
    let subject = claims["sub"]
        .as_str()
        .or_else(|| claims["client_id"].as_str())
        .filter(|subject| !subject.is_empty())
        .ok_or_else(|| Refusal::invalid_token("the access token names no subject (sub)"))?
        .to_owned();
    let scopes = match (&claims["scope"], &claims["scp"]) {
        (Value::String(scope), _) | (_, Value::String(scope)) => {
            scope.split_whitespace().map(str::to_owned).collect()
        }
        (_, Value::Array(scopes)) => scopes
            .iter()
            .filter_map(|scope| scope.as_str().map(str::to_owned))
            .collect(),
        _ => Vec::new(),
    };
    Ok(Principal::new(subject, scopes).with_claims(claims))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn principals_of_claims() {
        let principal = principal_of(json!({"sub": "alice", "scope": "a  b"})).unwrap();
        assert_eq!(principal.subject, "alice");
        assert_eq!(principal.scopes, ["a", "b"]);
        assert_eq!(principal.claims["sub"], "alice");
        let principal = principal_of(json!({"client_id": "svc", "scp": ["x", 1, "y"]})).unwrap();
        assert_eq!(
            (principal.subject.as_str(), principal.scopes),
            ("svc", vec!["x".into(), "y".into()])
        );
        assert!(principal_of(json!({"sub": ""})).is_err());
        assert!(principal_of(json!({})).is_err());
    }

    #[test]
    fn settings_refuse_plain_http_issuers() {
        let settings = JwtSettings::new("http://as.example.com", "https://mcp.example.com/mcp");
        assert!(JwtAuthenticator::new(settings)
            .unwrap_err()
            .to_string()
            .contains("https"));
    }

    #[test]
    fn config_errors_are_typed_and_display_the_old_messages() {
        let plain = "http://as.example.com";
        let resource = "https://mcp.example.com/mcp";
        match JwtAuthenticator::new(JwtSettings::new(plain, resource)).unwrap_err() {
            error @ JwtConfigError::Issuer { .. } => assert_eq!(
                error.to_string(),
                "issuer http://as.example.com: only fetched over https (http only from a \
                 loopback host)"
            ),
            other => panic!("an issuer error expected, got {other:?}"),
        }
        let mut settings = JwtSettings::new("https://as.example.com", resource);
        settings.jwks_url = Some("ftp://as.example.com/jwks".into());
        match JwtAuthenticator::new(settings).unwrap_err() {
            error @ JwtConfigError::JwksUrl { .. } => assert_eq!(
                error.to_string(),
                "JWKS ftp://as.example.com/jwks: not an https URL"
            ),
            other => panic!("a JWKS error expected, got {other:?}"),
        }
        let settings = JwtSettings::new("https://as.example.com", "https://x/mcp?a=b");
        match JwtAuthenticator::auth(settings).unwrap_err() {
            JwtConfigError::Audience(error) => {
                assert_eq!(error.problem, crate::auth::UrlProblem::Query);
                assert_eq!(
                    JwtConfigError::Audience(error).to_string(),
                    "audience https://x/mcp?a=b: a resource URL has no query"
                );
            }
            other => panic!("an audience error expected, got {other:?}"),
        }
        let roots = JwtConfigError::RootCertificates {
            reason: "none".into(),
        };
        assert_eq!(
            roots.to_string(),
            "cannot load the system's root certificates: none"
        );
    }
}
