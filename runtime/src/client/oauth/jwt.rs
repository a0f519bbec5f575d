//! `private_key_jwt` client authentication (RFC 7523 §2.2, OpenID Connect Core §9): a short
//! JWT signed with the client's ES256 key, sent as `client_assertion`; and the ES256 compact
//! signing that DPoP proofs use too.

use super::pkce::random_token;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use p256::ecdsa::signature::Signer as _;
use p256::ecdsa::Signature;
use p256::pkcs8::DecodePrivateKey as _;
use serde_json::json;
use std::time::{SystemTime, UNIX_EPOCH};

/// How long an assertion is valid, in seconds.
const ASSERTION_LIFETIME_SECS: u64 = 300;

/// The `client_assertion_type` of a JWT assertion.
pub(crate) const ASSERTION_TYPE: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

/// A client's ES256 signing key.
pub(crate) struct SigningKey(p256::ecdsa::SigningKey);

impl SigningKey {
    /// The key of a PKCS#8 PEM document (`-----BEGIN PRIVATE KEY-----`), with its algorithm,
    /// which must be `ES256`.
    pub(crate) fn from_pem(pem: &str, algorithm: &str) -> Result<Self, String> {
        if algorithm != "ES256" {
            return Err(format!(
                "private_key_jwt signing algorithm {algorithm:?}: only ES256 is supported"
            ));
        }
        let secret = p256::SecretKey::from_pkcs8_pem(pem)
            .map_err(|e| format!("the private key is not a PKCS#8 PEM P-256 key: {e}"))?;
        Ok(Self(secret.into()))
    }

    /// An assertion for `client_id` (its `iss` and `sub`) to the authorization server
    /// `audience` (its issuer identifier).
    pub(crate) fn assertion(&self, client_id: &str, audience: &str) -> Result<String, String> {
        let now = now()?;
        let claims = json!({
            "iss": client_id, "sub": client_id, "aud": audience,
            "iat": now, "exp": now + ASSERTION_LIFETIME_SECS, "jti": random_token()?,
        });
        Ok(sign(
            &self.0,
            &json!({"alg": "ES256", "typ": "JWT"}),
            &claims,
        ))
    }
}

/// The compact JWS (ES256) of `claims` under `header`, signed with `key`.
pub(crate) fn sign(
    key: &p256::ecdsa::SigningKey,
    header: &serde_json::Value,
    claims: &serde_json::Value,
) -> String {
    let input = format!(
        "{}.{}",
        URL_SAFE_NO_PAD.encode(header.to_string()),
        URL_SAFE_NO_PAD.encode(claims.to_string())
    );
    let signature: Signature = key.sign(input.as_bytes());
    format!("{input}.{}", URL_SAFE_NO_PAD.encode(signature.to_bytes()))
}

/// The time now in seconds since 1970 (`iat`).
pub(crate) fn now() -> Result<u64, String> {
    Ok(SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_err(|e| format!("the clock is before 1970: {e}"))?
        .as_secs())
}

#[cfg(test)]
mod tests {
    use super::*;
    use p256::ecdsa::signature::Verifier as _;
    use p256::pkcs8::EncodePrivateKey as _;

    #[test]
    fn signs_a_verifiable_assertion() {
        let secret = p256::SecretKey::from_slice(&[7u8; 32]).unwrap();
        let pem = secret.to_pkcs8_pem(Default::default()).unwrap();
        let key = SigningKey::from_pem(&pem, "ES256").unwrap();
        let jwt = key.assertion("client", "http://as").unwrap();
        let (input, signature) = jwt.rsplit_once('.').unwrap();
        let signature = Signature::from_slice(&URL_SAFE_NO_PAD.decode(signature).unwrap()).unwrap();
        let verifying = p256::ecdsa::VerifyingKey::from(&p256::ecdsa::SigningKey::from(secret));
        verifying.verify(input.as_bytes(), &signature).unwrap();
        let claims = input.split('.').nth(1).unwrap();
        let claims: serde_json::Value =
            serde_json::from_slice(&URL_SAFE_NO_PAD.decode(claims).unwrap()).unwrap();
        assert_eq!(claims["iss"], "client");
        assert_eq!(claims["aud"], "http://as");
    }

    #[test]
    fn refuses_other_keys_and_algorithms() {
        assert!(SigningKey::from_pem("not a key", "ES256").is_err());
        assert!(SigningKey::from_pem("", "RS256").is_err());
    }
}
