//! The JWS signature check (RFC 7515 compact serialization, RFC 7518 algorithms), with `ring`.
//!
//! Why not jsonwebtoken's own check: its RustCrypto backend spends 0.15–0.25 ms per RS256 or
//! ES256 signature, `ring` (already built for rustls) a sixth of that or less, with its
//! assembly (BENCHMARKS.md, "Authorization").
//!
//! Why not a `ring`-backed jsonwebtoken `CryptoProvider`: jsonwebtoken takes its backend from
//! one process-global provider, settable once (`CryptoProvider::install_default`). A library
//! installing one would make its application's own `install_default` fail and would take over
//! the application's own signing and HMAC; a library that only tries could end up with
//! another backend. And a provider is handed a `DecodingKey` per token. So jsonwebtoken is
//! built without a backend, only parses the header and the JWKS, and the signature is checked
//! here.
//!
//! A [`PublicKey`] is prepared once per JWKS fetch (base64 decoded, checked for size and
//! held in the form `ring` takes), so a token costs no parsing of key material beyond what
//! `ring` does inside its verification.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use jsonwebtoken::jwk::{AlgorithmParameters, EllipticCurve};
use jsonwebtoken::Algorithm;
use ring::signature::{self as ring_sig, RsaPublicKeyComponents, UnparsedPublicKey};

/// The three parts of a compact JWS, still encoded.
pub(super) struct Parts<'a> {
    /// `header.payload`: what the signature covers.
    pub signing_input: &'a str,
    /// The payload (the claims), base64url.
    pub payload: &'a str,
    /// The signature, base64url.
    pub signature: &'a str,
}

/// `token` split at its two dots; `None` unless there are exactly three parts.
pub(super) fn split(token: &str) -> Option<Parts<'_>> {
    let (signing_input, signature) = token.rsplit_once('.')?;
    let (header, payload) = signing_input.split_once('.')?;
    // A dot in the signature cannot happen (rsplit); one in the header or payload would be a
    // JWE or garbage, and base64url never holds one.
    (!header.contains('.') && !payload.contains('.')).then_some(Parts {
        signing_input,
        payload,
        signature,
    })
}

/// Base64url without padding, as JWS encodes every part (RFC 7515 §2).
pub(super) fn decode_part(part: &str) -> Option<Vec<u8>> {
    URL_SAFE_NO_PAD.decode(part).ok()
}

/// A verification key of the issuer's JWKS, ready for `ring`.
pub(super) enum PublicKey {
    /// An RSA key: verifies RS256/384/512 and PS256/384/512. `ring` builds its Montgomery
    /// form on each verification (it has no API to keep one), from these bytes.
    Rsa(RsaPublicKeyComponents<Vec<u8>>),
    /// A P-256 (ES256), P-384 (ES384) or Ed25519 (EdDSA) key: one algorithm each.
    Single(Algorithm, UnparsedPublicKey<Vec<u8>>),
}

/// Why a signature was not accepted.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum BadSignature {
    /// Not base64url.
    Malformed,
    /// It does not verify with this key and algorithm (or the algorithm does not fit the key).
    Invalid,
}

/// The smallest RSA modulus accepted, in bytes: RFC 7518 §3.3 and §3.5 require 2048 bits for
/// RS* and PS*, and `ring` refuses smaller keys.
const RSA_MIN_BYTES: usize = 2048 / 8;
/// The largest, `ring`'s limit (8192 bits).
const RSA_MAX_BYTES: usize = 8192 / 8;

impl PublicKey {
    /// The key of a JWK's parameters, or `None` when this server cannot verify with it:
    /// symmetric keys (an issuer's public JWKS never holds a secret, and HS* is refused),
    /// curves other than P-256, P-384 and Ed25519, RSA moduli under 2048 bits, coordinates of
    /// the wrong length, bad base64.
    pub fn from_jwk(parameters: &AlgorithmParameters) -> Option<Self> {
        match parameters {
            AlgorithmParameters::RSA(rsa) => {
                // Some issuers encode `n` with a leading zero byte (a signed big integer's
                // encoding); `ring` wants the minimal form. The value is the same.
                let n = without_leading_zeros(decode_part(&rsa.n)?);
                let e = without_leading_zeros(decode_part(&rsa.e)?);
                (RSA_MIN_BYTES..=RSA_MAX_BYTES)
                    .contains(&n.len())
                    .then_some(Self::Rsa(RsaPublicKeyComponents { n, e }))
            }
            AlgorithmParameters::EllipticCurve(ec) => {
                let (alg, verification, len): (_, &'static dyn ring_sig::VerificationAlgorithm, _) =
                    match ec.curve {
                        EllipticCurve::P256 => {
                            (Algorithm::ES256, &ring_sig::ECDSA_P256_SHA256_FIXED, 32)
                        }
                        EllipticCurve::P384 => {
                            (Algorithm::ES384, &ring_sig::ECDSA_P384_SHA384_FIXED, 48)
                        }
                        _ => return None,
                    };
                let (x, y) = (decode_part(&ec.x)?, decode_part(&ec.y)?);
                if x.len() != len || y.len() != len {
                    return None;
                }
                // SEC1 uncompressed point, the form `ring` takes; it checks the point is on
                // the curve when verifying.
                let point = [&[0x04][..], &x, &y].concat();
                Some(Self::Single(
                    alg,
                    UnparsedPublicKey::new(verification, point),
                ))
            }
            AlgorithmParameters::OctetKeyPair(okp) if okp.curve == EllipticCurve::Ed25519 => {
                let x = decode_part(&okp.x)?;
                (x.len() == ring_sig::ED25519_PUBLIC_KEY_LEN).then(|| {
                    Self::Single(
                        Algorithm::EdDSA,
                        UnparsedPublicKey::new(&ring_sig::ED25519, x),
                    )
                })
            }
            AlgorithmParameters::OctetKeyPair(_) | AlgorithmParameters::OctetKey(_) => None,
        }
    }

    /// The algorithms this key verifies.
    pub fn algorithms(&self) -> &[Algorithm] {
        use Algorithm::*;
        match self {
            Self::Rsa(_) => &[RS256, RS384, RS512, PS256, PS384, PS512],
            Self::Single(alg, _) => std::slice::from_ref(alg),
        }
    }

    /// Checks `signature` (base64url) over `signing_input` with `alg`. An algorithm that does
    /// not fit the key fails, whatever the caller checked before.
    pub fn verify(
        &self,
        alg: Algorithm,
        signing_input: &str,
        signature: &str,
    ) -> Result<(), BadSignature> {
        let signature = decode_part(signature).ok_or(BadSignature::Malformed)?;
        let message = signing_input.as_bytes();
        let verified = match self {
            Self::Rsa(key) => {
                let parameters = match alg {
                    Algorithm::RS256 => &ring_sig::RSA_PKCS1_2048_8192_SHA256,
                    Algorithm::RS384 => &ring_sig::RSA_PKCS1_2048_8192_SHA384,
                    Algorithm::RS512 => &ring_sig::RSA_PKCS1_2048_8192_SHA512,
                    // RFC 7518 §3.5: MGF1 with the same hash, salt as long as the hash: what
                    // `ring`'s PSS verification expects.
                    Algorithm::PS256 => &ring_sig::RSA_PSS_2048_8192_SHA256,
                    Algorithm::PS384 => &ring_sig::RSA_PSS_2048_8192_SHA384,
                    Algorithm::PS512 => &ring_sig::RSA_PSS_2048_8192_SHA512,
                    _ => return Err(BadSignature::Invalid),
                };
                key.verify(parameters, message, &signature)
            }
            Self::Single(key_alg, key) if *key_alg == alg => key.verify(message, &signature),
            Self::Single(..) => return Err(BadSignature::Invalid),
        };
        verified.map_err(|_| BadSignature::Invalid)
    }
}

fn without_leading_zeros(mut bytes: Vec<u8>) -> Vec<u8> {
    let zeros = bytes.iter().take_while(|&&b| b == 0).count();
    bytes.drain(..zeros);
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;
    use jsonwebtoken::jwk::Jwk;
    use serde_json::json;

    fn key(jwk: serde_json::Value) -> Option<PublicKey> {
        let jwk: Jwk = serde_json::from_value(jwk).unwrap();
        PublicKey::from_jwk(&jwk.algorithm)
    }

    #[test]
    fn splits_three_parts_only() {
        let parts = split("h.p.s").unwrap();
        assert_eq!(
            (parts.signing_input, parts.payload, parts.signature),
            ("h.p", "p", "s")
        );
        assert!(split("h.p.").is_some_and(|parts| parts.signature.is_empty()));
        for bad in ["h.p", "hps", "h.p.s.t", "a.b.c.d.e", ""] {
            assert!(split(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn keys_of_the_wrong_size_are_unusable() {
        let b64 = |bytes: &[u8]| URL_SAFE_NO_PAD.encode(bytes);
        let rsa = |n: &[u8]| key(json!({"kty": "RSA", "n": b64(n), "e": "AQAB"}));
        // 1024 bits: too small (RFC 7518 §3.3).
        assert!(rsa(&[0xc5; 128]).is_none());
        // 2048 bits, with a leading zero byte as some issuers encode it: usable.
        let mut n = vec![0u8];
        n.extend([0xc5; 256]);
        assert!(matches!(rsa(&n), Some(PublicKey::Rsa(ref k)) if k.n.len() == 256));
        let ec = |crv: &str, len: usize| {
            key(json!({"kty": "EC", "crv": crv, "x": b64(&vec![1; len]), "y": b64(&vec![2; len])}))
        };
        assert!(ec("P-256", 32).is_some_and(|k| k.algorithms() == [Algorithm::ES256]));
        assert!(ec("P-384", 48).is_some_and(|k| k.algorithms() == [Algorithm::ES384]));
        assert!(ec("P-256", 31).is_none());
        assert!(ec("P-384", 32).is_none());
        let okp =
            |crv: &str, len: usize| key(json!({"kty": "OKP", "crv": crv, "x": b64(&vec![3; len])}));
        assert!(okp("Ed25519", 32).is_some_and(|k| k.algorithms() == [Algorithm::EdDSA]));
        assert!(okp("Ed25519", 31).is_none());
        assert!(ec("P-521", 66).is_none());
    }

    #[test]
    fn an_algorithm_that_does_not_fit_the_key_fails() {
        let b64 = |bytes: &[u8]| URL_SAFE_NO_PAD.encode(bytes);
        let ec = key(json!({"kty": "EC", "crv": "P-256", "x": b64(&[1; 32]), "y": b64(&[2; 32])}))
            .unwrap();
        let signature = b64(&[0; 64]);
        for alg in [
            Algorithm::RS256,
            Algorithm::ES384,
            Algorithm::HS256,
            Algorithm::EdDSA,
        ] {
            assert_eq!(
                ec.verify(alg, "h.p", &signature),
                Err(BadSignature::Invalid)
            );
        }
        assert_eq!(
            ec.verify(Algorithm::ES256, "h.p", "not base64!"),
            Err(BadSignature::Malformed)
        );
    }
}
