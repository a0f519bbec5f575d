//! The signature algorithms of the JWT authenticator (feature `jwt`): every algorithm it
//! allows verifies a token signed by jsonwebtoken's RustCrypto backend (a second, independent
//! implementation of each algorithm), and what must be refused is. The issuer's metadata and
//! JWKS are served over HTTP on 127.0.0.1; tokens are checked with
//! `JwtAuthenticator::verify`, with the verified-token cache off so that every call checks
//! the signature.
//!
//! Keys: the RSA test key of `fixtures/auth-test-rsa.pem`, P-256 keys made with `p256`, and
//! P-384 and Ed25519 keys made with `ring` (already a dependency of the feature).

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use bytes::Bytes;
use http::header::CONTENT_TYPE;
use http::Request;
use http_body_util::Full;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use mcp_runtime::auth::jwt::{JwtAuthenticator, JwtSettings};
use mcp_runtime::auth::Refusal;
use ring::signature::KeyPair as _;
use serde_json::{json, Value};
use std::time::{SystemTime, UNIX_EPOCH};
use tokio::net::TcpListener;

const RSA_PEM: &[u8] = include_bytes!("fixtures/auth-test-rsa.pem");
const RSA_PUBLIC_PEM: &[u8] = include_bytes!("fixtures/auth-test-rsa.pub.pem");
const RSA_JWK: &str = include_str!("fixtures/auth-test-rsa.jwk.json");
const AUDIENCE: &str = "https://mcp.example.com/mcp";

const BAD_SIGNATURE: &str = "the access token's signature does not verify";
const UNKNOWN_KEY: &str = "the access token is signed with a key the issuer does not publish";

/// Serves RFC 8414 metadata naming `/jwks`, and `keys` there; the issuer's URL.
async fn start_issuer(keys: Vec<Value>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let jwks = json!({ "keys": keys }).to_string();
    let issuer = url.clone();
    tokio::spawn(async move {
        loop {
            let (stream, _) = listener.accept().await.unwrap();
            let (jwks, issuer) = (jwks.clone(), issuer.clone());
            let service =
                hyper::service::service_fn(move |request: Request<hyper::body::Incoming>| {
                    let body = match request.uri().path() {
                        "/.well-known/oauth-authorization-server" => Some(
                            json!({"issuer": issuer, "jwks_uri": format!("{issuer}/jwks")})
                                .to_string(),
                        ),
                        "/jwks" => Some(jwks.clone()),
                        _ => None,
                    };
                    let response = match body {
                        Some(body) => http::Response::builder()
                            .header(CONTENT_TYPE, "application/json")
                            .body(Full::new(Bytes::from(body))),
                        None => http::Response::builder()
                            .status(404)
                            .body(Full::new(Bytes::new())),
                    };
                    async move { response.map_err(|e| e.to_string()) }
                });
            tokio::spawn(
                hyper::server::conn::http1::Builder::new()
                    .serve_connection(hyper_util::rt::TokioIo::new(stream), service),
            );
        }
    });
    url
}

/// An authenticator for `issuer` that checks every token's signature (no cache).
fn authenticator(issuer: &str) -> JwtAuthenticator {
    let mut settings = JwtSettings::new(issuer, AUDIENCE);
    settings.cache_capacity = 0;
    JwtAuthenticator::new(settings).unwrap()
}

fn claims(issuer: &str) -> Value {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs();
    json!({"iss": issuer, "aud": AUDIENCE, "sub": "alice", "iat": now, "exp": now + 300})
}

fn sign(alg: Algorithm, kid: &str, key: &EncodingKey, claims: &Value) -> String {
    let mut header = Header::new(alg);
    header.kid = Some(kid.into());
    jsonwebtoken::encode(&header, claims, key).unwrap()
}

fn b64(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

/// The RSA test key's public JWK, usable with every RS* and PS* algorithm (no `alg`).
fn rsa_jwk(kid: &str) -> Value {
    let mut jwk: Value = serde_json::from_str(RSA_JWK).unwrap();
    jwk.as_object_mut().unwrap().remove("alg");
    jwk["kid"] = json!(kid);
    jwk
}

fn rsa_key() -> EncodingKey {
    EncodingKey::from_rsa_pem(RSA_PEM).unwrap()
}

/// A fresh P-256 key: its PKCS#8 DER (to sign) and its public JWK.
fn es256_key(kid: &str) -> (EncodingKey, Value) {
    use p256::pkcs8::EncodePrivateKey;
    let mut secret = [0u8; 32];
    let key = loop {
        getrandom::fill(&mut secret).unwrap();
        if let Ok(key) = p256::ecdsa::SigningKey::from_slice(&secret) {
            break key;
        }
    };
    let point = key.verifying_key().to_encoded_point(false);
    let jwk = json!({"kty": "EC", "crv": "P-256", "kid": kid,
        "x": b64(point.x().unwrap()), "y": b64(point.y().unwrap())});
    let der = key.to_pkcs8_der().unwrap();
    (EncodingKey::from_ec_der(der.as_bytes()), jwk)
}

/// A fresh P-384 key, made with ring: its PKCS#8 DER and its public JWK.
fn es384_key(kid: &str) -> (EncodingKey, Value) {
    let alg = &ring::signature::ECDSA_P384_SHA384_FIXED_SIGNING;
    let random = ring::rand::SystemRandom::new();
    let der = ring::signature::EcdsaKeyPair::generate_pkcs8(alg, &random).unwrap();
    let pair = ring::signature::EcdsaKeyPair::from_pkcs8(alg, der.as_ref(), &random).unwrap();
    // An uncompressed point: 0x04, x, y.
    let (x, y) = pair.public_key().as_ref()[1..].split_at(48);
    let jwk = json!({"kty": "EC", "crv": "P-384", "kid": kid, "x": b64(x), "y": b64(y)});
    (EncodingKey::from_ec_der(der.as_ref()), jwk)
}

/// A fresh Ed25519 key, made with ring: its PKCS#8 DER and its public JWK.
fn ed25519_key(kid: &str) -> (EncodingKey, Value) {
    let random = ring::rand::SystemRandom::new();
    let der = ring::signature::Ed25519KeyPair::generate_pkcs8(&random).unwrap();
    let pair = ring::signature::Ed25519KeyPair::from_pkcs8(der.as_ref()).unwrap();
    let jwk = json!({"kty": "OKP", "crv": "Ed25519", "kid": kid,
        "x": b64(pair.public_key().as_ref())});
    (EncodingKey::from_ed_der(der.as_ref()), jwk)
}

/// `token` with one byte of its decoded signature changed.
fn flip_signature_byte(token: &str) -> String {
    let (signed, signature) = token.rsplit_once('.').unwrap();
    let mut signature = URL_SAFE_NO_PAD.decode(signature).unwrap();
    let middle = signature.len() / 2;
    signature[middle] ^= 0x01;
    format!("{signed}.{}", b64(&signature))
}

async fn refusal(authenticator: &JwtAuthenticator, token: &str) -> String {
    match authenticator.verify(token).await {
        Err(Refusal::InvalidToken(why)) => why,
        other => panic!("expected invalid_token, got {other:?}"),
    }
}

#[tokio::test]
async fn every_allowed_algorithm_verifies() {
    let (es256, es256_jwk) = es256_key("ec-256");
    let (es384, es384_jwk) = es384_key("ec-384");
    let (ed, ed_jwk) = ed25519_key("ed");
    let issuer = start_issuer(vec![rsa_jwk("rsa"), es256_jwk, es384_jwk, ed_jwk]).await;
    let authenticator = authenticator(&issuer);
    let claims = claims(&issuer);
    let rsa = rsa_key();
    let cases = [
        (Algorithm::RS256, "rsa", &rsa),
        (Algorithm::RS384, "rsa", &rsa),
        (Algorithm::RS512, "rsa", &rsa),
        (Algorithm::PS256, "rsa", &rsa),
        (Algorithm::PS384, "rsa", &rsa),
        (Algorithm::PS512, "rsa", &rsa),
        (Algorithm::ES256, "ec-256", &es256),
        (Algorithm::ES384, "ec-384", &es384),
        (Algorithm::EdDSA, "ed", &ed),
    ];
    for (alg, kid, key) in cases {
        let token = sign(alg, kid, key, &claims);
        let principal = authenticator
            .verify(&token)
            .await
            .unwrap_or_else(|refusal| panic!("{alg:?}: {refusal:?}"));
        assert_eq!(principal.subject, "alice", "{alg:?}");
        // Checked again, not remembered: the same answer.
        assert!(authenticator.verify(&token).await.is_ok(), "{alg:?}");

        assert_eq!(
            refusal(&authenticator, &flip_signature_byte(&token)).await,
            BAD_SIGNATURE,
            "{alg:?}: a flipped signature byte"
        );
        // The claims changed under the same signature.
        let (header, rest) = token.split_once('.').unwrap();
        let (_, signature) = rest.split_once('.').unwrap();
        let mut forged = claims.clone();
        forged["sub"] = json!("mallory");
        let forged = format!(
            "{header}.{}.{signature}",
            b64(forged.to_string().as_bytes())
        );
        assert_eq!(
            refusal(&authenticator, &forged).await,
            BAD_SIGNATURE,
            "{alg:?}: other claims"
        );
        // No signature at all.
        let unsigned = format!("{}.", token.rsplit_once('.').unwrap().0);
        assert_eq!(
            refusal(&authenticator, &unsigned).await,
            BAD_SIGNATURE,
            "{alg:?}: no signature"
        );
    }
}

#[tokio::test]
async fn a_token_signed_by_another_key_is_refused() {
    let (_, es256_jwk) = es256_key("ec-256");
    let (_, es384_jwk) = es384_key("ec-384");
    let (_, ed_jwk) = ed25519_key("ed");
    // The RSA key id names another modulus (the test key's with one byte changed).
    let mut other_rsa = rsa_jwk("rsa");
    let mut n = URL_SAFE_NO_PAD
        .decode(other_rsa["n"].as_str().unwrap())
        .unwrap();
    n[100] ^= 0x10;
    other_rsa["n"] = json!(b64(&n));
    let issuer = start_issuer(vec![other_rsa, es256_jwk, es384_jwk, ed_jwk]).await;
    let authenticator = authenticator(&issuer);
    let claims = claims(&issuer);
    // Same kid and algorithm, fresh keys of the same kind.
    let tokens = [
        sign(Algorithm::RS256, "rsa", &rsa_key(), &claims),
        sign(Algorithm::PS256, "rsa", &rsa_key(), &claims),
        sign(Algorithm::ES256, "ec-256", &es256_key("x").0, &claims),
        sign(Algorithm::ES384, "ec-384", &es384_key("x").0, &claims),
        sign(Algorithm::EdDSA, "ed", &ed25519_key("x").0, &claims),
    ];
    for token in tokens {
        assert_eq!(refusal(&authenticator, &token).await, BAD_SIGNATURE);
    }
}

#[tokio::test]
async fn none_hmac_and_keys_of_another_type_are_refused() {
    let (es256, es256_jwk) = es256_key("ec-256");
    let (ed, ed_jwk) = ed25519_key("ed");
    // An RSA key restricted to RS256 by its `alg`.
    let mut rs256_only = rsa_jwk("rsa-rs256");
    rs256_only["alg"] = json!("RS256");
    let issuer = start_issuer(vec![rsa_jwk("rsa"), rs256_only, es256_jwk, ed_jwk]).await;
    let authenticator = authenticator(&issuer);
    let claims = claims(&issuer);

    // `alg: none`, with and without a signature.
    for signature in ["", "c2ln"] {
        let none = format!(
            "{}.{}.{signature}",
            b64(br#"{"alg":"none","typ":"JWT","kid":"rsa"}"#),
            b64(claims.to_string().as_bytes())
        );
        assert_eq!(
            refusal(&authenticator, &none).await,
            "the access token is not a well-formed JWT"
        );
    }
    // HS256/384/512 "signed" with the RSA public key (PEM or JWK) as the HMAC secret.
    for secret in [RSA_PUBLIC_PEM, RSA_JWK.as_bytes()] {
        for alg in [Algorithm::HS256, Algorithm::HS384, Algorithm::HS512] {
            let hs = sign(alg, "rsa", &EncodingKey::from_secret(secret), &claims);
            assert_eq!(
                refusal(&authenticator, &hs).await,
                format!("tokens signed with {alg:?} are not accepted")
            );
        }
    }
    // The RSA key's id on an ES256 and an EdDSA token (whatever signed them).
    for token in [
        sign(Algorithm::ES256, "rsa", &es256, &claims),
        sign(Algorithm::EdDSA, "rsa", &ed, &claims),
    ] {
        assert_eq!(refusal(&authenticator, &token).await, UNKNOWN_KEY);
    }
    // An EC and an Ed25519 key's id on RSA tokens; an RS256-only key on PS256 and RS512.
    for (alg, kid) in [
        (Algorithm::RS256, "ec-256"),
        (Algorithm::PS256, "ec-256"),
        (Algorithm::RS256, "ed"),
        (Algorithm::PS256, "rsa-rs256"),
        (Algorithm::RS512, "rsa-rs256"),
    ] {
        let token = sign(alg, kid, &rsa_key(), &claims);
        assert_eq!(
            refusal(&authenticator, &token).await,
            UNKNOWN_KEY,
            "{alg:?} {kid}"
        );
    }
    // ES256 on the Ed25519 key's id, EdDSA on the P-256 key's id.
    assert_eq!(
        refusal(
            &authenticator,
            &sign(Algorithm::ES256, "ed", &es256, &claims)
        )
        .await,
        UNKNOWN_KEY
    );
    assert_eq!(
        refusal(
            &authenticator,
            &sign(Algorithm::EdDSA, "ec-256", &ed, &claims)
        )
        .await,
        UNKNOWN_KEY
    );
    // The RS256-only key still verifies RS256.
    let token = sign(Algorithm::RS256, "rsa-rs256", &rsa_key(), &claims);
    assert!(authenticator.verify(&token).await.is_ok());
}

#[tokio::test]
async fn malformed_tokens_and_keys() {
    // The RSA modulus with a leading zero byte, as some issuers encode it: the same key.
    let mut padded = rsa_jwk("rsa");
    let n = URL_SAFE_NO_PAD
        .decode(padded["n"].as_str().unwrap())
        .unwrap();
    padded["n"] = json!(b64(&[&[0u8][..], &n].concat()));
    let issuer = start_issuer(vec![padded]).await;
    let authenticator = authenticator(&issuer);
    let claims = claims(&issuer);
    let token = sign(Algorithm::RS256, "rsa", &rsa_key(), &claims);
    assert!(authenticator.verify(&token).await.is_ok());

    // A signature that is not base64url; a payload that is not a JSON object (signed).
    let (signed, _) = token.rsplit_once('.').unwrap();
    assert_eq!(
        refusal(&authenticator, &format!("{signed}.not*base64")).await,
        "the access token is malformed"
    );
    let header = signed.split_once('.').unwrap().0;
    let list = jsonwebtoken::crypto::sign(
        format!("{header}.{}", b64(b"[1,2]")).as_bytes(),
        &rsa_key(),
        Algorithm::RS256,
    )
    .unwrap();
    assert_eq!(
        refusal(
            &authenticator,
            &format!("{header}.{}.{list}", b64(b"[1,2]"))
        )
        .await,
        "the access token is malformed"
    );
    // Not three parts.
    for bad in [signed.to_owned(), format!("{token}.x"), "a.b.c".into()] {
        assert_eq!(
            refusal(&authenticator, &bad).await,
            "the access token is not a well-formed JWT"
        );
    }
}

/// The cost of one signature check per algorithm, keys cached, nothing remembered: `cargo test
/// --release -p mcp-runtime --features jwt --test auth_signatures -- --ignored --nocapture
/// signature_cost`. Ignored: a timing, meaningful only in a release build.
#[tokio::test]
#[ignore]
async fn signature_cost() {
    let (es256, es256_jwk) = es256_key("ec-256");
    let (es384, es384_jwk) = es384_key("ec-384");
    let (ed, ed_jwk) = ed25519_key("ed");
    let issuer = start_issuer(vec![rsa_jwk("rsa"), es256_jwk, es384_jwk, ed_jwk]).await;
    let authenticator = authenticator(&issuer);
    let claims = claims(&issuer);
    let rsa = rsa_key();
    for (alg, kid, key) in [
        (Algorithm::RS256, "rsa", &rsa),
        (Algorithm::PS256, "rsa", &rsa),
        (Algorithm::RS512, "rsa", &rsa),
        (Algorithm::ES256, "ec-256", &es256),
        (Algorithm::ES384, "ec-384", &es384),
        (Algorithm::EdDSA, "ed", &ed),
    ] {
        let token = sign(alg, kid, key, &claims);
        authenticator.verify(&token).await.unwrap();
        // The best of 10 batches: the machine is shared, the minimum is the cost.
        let mut best = std::time::Duration::MAX;
        for _ in 0..10 {
            let rounds = 200;
            let start = std::time::Instant::now();
            for _ in 0..rounds {
                std::hint::black_box(authenticator.verify(&token).await.unwrap());
            }
            best = best.min(start.elapsed() / rounds);
        }
        println!("{alg:?}: {best:?} per token (best of 10 batches of 200)");
    }
}
