//! DPoP (RFC 9449, MCP SEP-1932): sender-constrained tokens. The client holds an ES256 key
//! for its session; every token request carries a proof signed with it (`DPoP` header), the
//! token comes back bound to the key (`token_type: DPoP`), and every request to the MCP
//! server presents it as `Authorization: DPoP <token>` with a fresh proof that also hashes
//! the token (`ath`). A server that wants a nonce in the proofs answers `use_dpop_nonce`
//! with a `DPoP-Nonce` header: the nonce is remembered for that server (each authorization
//! server apart, and the resource server apart) and the request retried once.

use super::jwt::{now, sign};
use super::pkce::{challenge as sha256_base64url, random_token};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use http::header::{HeaderMap, HeaderName, HeaderValue};
use http::Method;
use p256::elliptic_curve::sec1::ToEncodedPoint as _;
use serde_json::{json, Value};
use std::sync::Mutex;

/// When the client asks for DPoP-bound tokens ([`OAuth::dpop`](super::OAuth::dpop)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Dpop {
    /// Never: tokens are bearer tokens (the default).
    #[default]
    Off,
    /// When the authorization server lists `ES256` in `dpop_signing_alg_values_supported`,
    /// the protected-resource metadata sets `dpop_bound_access_tokens_required`, or the MCP
    /// server challenged with the `DPoP` scheme only. A server that answers a proof with a
    /// bearer token is then used with bearer tokens.
    WhenSupported,
    /// Always: every token request carries a proof, and a token that comes back other than
    /// `token_type: DPoP` is refused.
    Required,
}

/// The `DPoP` request header (RFC 9449 §4.1).
pub(crate) const DPOP: HeaderName = HeaderName::from_static("dpop");

/// The `DPoP-Nonce` response header (RFC 9449 §8, §9).
pub(crate) const DPOP_NONCE: HeaderName = HeaderName::from_static("dpop-nonce");

/// The error code of a server that wants a nonce in the proof.
pub(crate) const USE_DPOP_NONCE: &str = "use_dpop_nonce";

/// The JWS algorithm of the proofs: the only one this client signs with.
pub(crate) const ALGORITHM: &str = "ES256";

/// The longest nonce remembered; a longer one is ignored.
const MAX_NONCE_LEN: usize = 512;

/// How many authorization servers' nonces are remembered (the oldest is forgotten first).
const MAX_NONCE_SERVERS: usize = 8;

/// The session's DPoP key and the nonces the servers gave.
pub(crate) struct Prover {
    key: p256::ecdsa::SigningKey,
    /// The public key as a JWK (`kty`, `crv`, `x`, `y`), put in every proof's header.
    jwk: Value,
    /// Its RFC 7638 thumbprint (`dpop_jkt` of the authorization request).
    thumbprint: String,
    /// The authorization servers' nonces, by server (issuer, else token endpoint).
    server_nonces: Mutex<Vec<(String, String)>>,
    /// The MCP server's nonce.
    resource_nonce: Mutex<Option<String>>,
}

impl Prover {
    /// A prover with a fresh random key.
    pub(crate) fn generate() -> Result<Self, String> {
        // A random 32-byte string is a valid P-256 scalar but for a 2^-32 chance: retry.
        for _ in 0..8 {
            let mut bytes = [0u8; 32];
            getrandom::fill(&mut bytes)
                .map_err(|e| format!("no randomness for a DPoP key: {e}"))?;
            if let Ok(secret) = p256::SecretKey::from_slice(&bytes) {
                return Self::from_secret(secret);
            }
        }
        Err("no valid DPoP key from the randomness source".into())
    }

    fn from_secret(secret: p256::SecretKey) -> Result<Self, String> {
        let point = secret.public_key().to_encoded_point(false);
        let (Some(x), Some(y)) = (point.x(), point.y()) else {
            return Err("the DPoP public key has no affine coordinates".into());
        };
        let (x, y) = (URL_SAFE_NO_PAD.encode(x), URL_SAFE_NO_PAD.encode(y));
        // RFC 7638 §3.2: the required members, in lexicographic order, no whitespace.
        let thumbprint = sha256_base64url(&format!(
            r#"{{"crv":"P-256","kty":"EC","x":"{x}","y":"{y}"}}"#
        ));
        tracing::debug!(jkt = %thumbprint, "oauth: DPoP key generated");
        Ok(Self {
            key: secret.into(),
            jwk: json!({"kty": "EC", "crv": "P-256", "x": x, "y": y}),
            thumbprint,
            server_nonces: Mutex::new(Vec::new()),
            resource_nonce: Mutex::new(None),
        })
    }

    /// The key's JWK thumbprint (RFC 7638), the authorization request's `dpop_jkt`.
    pub(crate) fn thumbprint(&self) -> &str {
        &self.thumbprint
    }

    /// A proof for `method` `url` (its query and fragment left out, RFC 9449 §4.2): a fresh
    /// `jti`, `iat` now, `ath` when it goes with `access_token`, and `nonce` when given.
    pub(crate) fn proof(
        &self,
        method: &Method,
        url: &str,
        access_token: Option<&str>,
        nonce: Option<&str>,
    ) -> Result<HeaderValue, String> {
        let mut claims = json!({
            "jti": random_token()?, "htm": method.as_str(), "htu": htu(url), "iat": now()?,
        });
        if let Some(token) = access_token {
            claims["ath"] = Value::String(sha256_base64url(token));
        }
        if let Some(nonce) = nonce {
            claims["nonce"] = Value::String(nonce.to_owned());
        }
        let header = json!({"typ": "dpop+jwt", "alg": ALGORITHM, "jwk": self.jwk});
        HeaderValue::try_from(sign(&self.key, &header, &claims))
            .map_err(|e| format!("a DPoP proof that is no header value: {e}"))
    }

    /// The nonce of the authorization server `server`, if it gave one.
    pub(crate) fn server_nonce(&self, server: &str) -> Option<String> {
        let nonces = self.server_nonces.lock().unwrap();
        nonces
            .iter()
            .find(|(key, _)| key == server)
            .map(|(_, nonce)| nonce.clone())
    }

    /// Remembers the nonce of `headers` (an answer of the authorization server `server`);
    /// whether there was a usable one.
    pub(crate) fn remember_server_nonce(&self, server: &str, headers: &HeaderMap) -> bool {
        let Some(nonce) = nonce_of(headers) else {
            return false;
        };
        tracing::debug!(%server, "oauth: DPoP nonce from the authorization server");
        let mut nonces = self.server_nonces.lock().unwrap();
        nonces.retain(|(key, _)| key != server);
        if nonces.len() >= MAX_NONCE_SERVERS {
            nonces.remove(0);
        }
        nonces.push((server.to_owned(), nonce));
        true
    }

    /// The MCP server's nonce, if it gave one.
    pub(crate) fn resource_nonce(&self) -> Option<String> {
        self.resource_nonce.lock().unwrap().clone()
    }

    /// Remembers the nonce of `headers` (an answer of the MCP server); whether there was a
    /// usable one.
    pub(crate) fn remember_resource_nonce(&self, headers: &HeaderMap) -> bool {
        let Some(nonce) = nonce_of(headers) else {
            return false;
        };
        tracing::debug!("oauth: DPoP nonce from the MCP server");
        *self.resource_nonce.lock().unwrap() = Some(nonce);
        true
    }
}

/// The `DPoP-Nonce` of `headers`, when there is exactly one and it is `1*NQCHAR`
/// (RFC 9449 §8.1) of a sane length.
fn nonce_of(headers: &HeaderMap) -> Option<String> {
    let mut values = headers.get_all(DPOP_NONCE).iter();
    let (Some(value), None) = (values.next(), values.next()) else {
        return None;
    };
    let bytes = value.as_bytes();
    let nqchar = |b: &u8| matches!(b, 0x21 | 0x23..=0x5B | 0x5D..=0x7E);
    if bytes.is_empty() || bytes.len() > MAX_NONCE_LEN || !bytes.iter().all(nqchar) {
        tracing::debug!(
            len = bytes.len(),
            "oauth: an unusable DPoP-Nonce header, ignored"
        );
        return None;
    }
    value.to_str().ok().map(str::to_owned)
}

/// `url` without its query and fragment (RFC 9449 §4.2 `htu`).
fn htu(url: &str) -> &str {
    url.split(['?', '#']).next().unwrap_or(url)
}

/// Checks a proof the way a server does (tests only): its `typ`, `alg` and public `jwk`,
/// the signature under that key; returns the header and the claims.
#[cfg(test)]
pub(crate) fn verify(proof: &str) -> Result<(Value, Value), String> {
    use p256::ecdsa::signature::Verifier as _;
    let decode = |part: &str| -> Result<Value, String> {
        let bytes = URL_SAFE_NO_PAD.decode(part).map_err(|e| e.to_string())?;
        serde_json::from_slice(&bytes).map_err(|e| e.to_string())
    };
    let (input, signature) = proof.rsplit_once('.').ok_or("not a JWS")?;
    let (header, claims) = input.split_once('.').ok_or("not a JWS")?;
    let (header, claims) = (decode(header)?, decode(claims)?);
    if header["typ"] != "dpop+jwt" || header["alg"] != ALGORITHM {
        return Err(format!("header {header}"));
    }
    let jwk = &header["jwk"];
    if jwk["kty"] != "EC" || jwk["crv"] != "P-256" || jwk.get("d").is_some() {
        return Err(format!("jwk {jwk}"));
    }
    let coordinate = |name: &str| -> Result<Vec<u8>, String> {
        URL_SAFE_NO_PAD
            .decode(jwk[name].as_str().ok_or("no coordinate")?)
            .map_err(|e| e.to_string())
    };
    let (x, y) = (coordinate("x")?, coordinate("y")?);
    let point = p256::EncodedPoint::from_affine_coordinates(
        x.as_slice().into(),
        y.as_slice().into(),
        false,
    );
    let verifying =
        p256::ecdsa::VerifyingKey::from_encoded_point(&point).map_err(|e| e.to_string())?;
    let signature = p256::ecdsa::Signature::from_slice(
        &URL_SAFE_NO_PAD
            .decode(signature)
            .map_err(|e| e.to_string())?,
    )
    .map_err(|e| e.to_string())?;
    verifying
        .verify(input.as_bytes(), &signature)
        .map_err(|e| e.to_string())?;
    Ok((header, claims))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proofs_verify_and_carry_the_claims() {
        let prover = Prover::generate().unwrap();
        let proof = prover
            .proof(
                &Method::POST,
                "http://rs/mcp?x=1#f",
                Some("the-token"),
                Some("n1"),
            )
            .unwrap();
        let (header, claims) = verify(proof.to_str().unwrap()).unwrap();
        assert_eq!(header["jwk"], prover.jwk);
        assert_eq!(claims["htm"], "POST");
        assert_eq!(claims["htu"], "http://rs/mcp");
        assert_eq!(claims["ath"], sha256_base64url("the-token"));
        assert_eq!(claims["nonce"], "n1");
        let iat = claims["iat"].as_u64().unwrap();
        assert!(iat.abs_diff(now().unwrap()) < 5);
        // A fresh jti each time; no ath or nonce when there is none.
        let other = prover
            .proof(&Method::GET, "http://as/token", None, None)
            .unwrap();
        let (_, other) = verify(other.to_str().unwrap()).unwrap();
        assert_ne!(other["jti"], claims["jti"]);
        assert!(other.get("ath").is_none() && other.get("nonce").is_none());
        assert_eq!(prover.thumbprint().len(), 43);
    }

    #[test]
    fn a_tampered_proof_does_not_verify() {
        let prover = Prover::generate().unwrap();
        let proof = prover
            .proof(&Method::POST, "http://rs/mcp", None, None)
            .unwrap();
        let proof = proof.to_str().unwrap();
        let (input, signature) = proof.rsplit_once('.').unwrap();
        let (header, _) = input.split_once('.').unwrap();
        let forged = format!(
            "{header}.{}.{signature}",
            URL_SAFE_NO_PAD.encode(r#"{"htm":"GET"}"#)
        );
        assert!(verify(&forged).is_err());
    }

    #[test]
    fn nonces_are_kept_per_server_and_checked() {
        let prover = Prover::generate().unwrap();
        let headers = |values: &[&str]| {
            let mut headers = HeaderMap::new();
            for value in values {
                headers.append(DPOP_NONCE, HeaderValue::from_str(value).unwrap());
            }
            headers
        };
        assert!(prover.remember_server_nonce("http://as1", &headers(&["a1"])));
        assert!(prover.remember_server_nonce("http://as2", &headers(&["a2"])));
        assert!(prover.remember_resource_nonce(&headers(&["r"])));
        assert_eq!(prover.server_nonce("http://as1").as_deref(), Some("a1"));
        assert_eq!(prover.server_nonce("http://as2").as_deref(), Some("a2"));
        assert_eq!(prover.resource_nonce().as_deref(), Some("r"));
        // Absent, doubled, with a quote or a space, or too long: ignored.
        let long = "n".repeat(MAX_NONCE_LEN + 1);
        for bad in [&[][..], &["a", "b"], &["a\"b"], &["a b"], &[long.as_str()]] {
            assert!(!prover.remember_resource_nonce(&headers(bad)), "{bad:?}");
        }
        assert_eq!(prover.resource_nonce().as_deref(), Some("r"));
        // Bounded: the oldest server is forgotten.
        for i in 0..MAX_NONCE_SERVERS {
            prover.remember_server_nonce(&format!("http://x{i}"), &headers(&["x"]));
        }
        assert_eq!(prover.server_nonce("http://as1"), None);
        assert_eq!(
            prover.server_nonces.lock().unwrap().len(),
            MAX_NONCE_SERVERS
        );
    }
}
