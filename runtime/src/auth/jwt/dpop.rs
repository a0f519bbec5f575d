//! DPoP on the resource server (RFC 9449 §7): a token bound to a key (`cnf.jkt`) is accepted
//! only as `Authorization: DPoP <token>`, with a `DPoP` header holding a fresh proof signed
//! by that key for this very request.
//!
//! A proof is a JWS whose header has `typ: dpop+jwt`, an asymmetric `alg` and the public
//! `jwk` it is signed with; its claims name the request (`htm` the method, `htu` the URL
//! without query and fragment), when it was made (`iat`, within [`JwtSettings::dpop_window`]
//! of now), a unique `jti` (a proof is used once: replays within the window are refused, a
//! proof remembered by its key's thumbprint and `jti`, at most a share of the memory per key) and
//! `ath`, the base64url SHA-256 of the access token. The token's `cnf.jkt` must be the
//! proof key's RFC 7638 thumbprint. Server-provided nonces (§8) are not issued.
//!
//! [`JwtSettings::dpop_window`]: super::JwtSettings::dpop_window

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use http::HeaderMap;
use jsonwebtoken::jwk::Jwk;
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Mutex;

use super::jws::{self, PublicKey};
use crate::auth::Refusal;

/// Most proofs remembered for replay detection, all keys together; past it (after forgetting
/// the expired ones) a new proof is refused until some expire.
const MAX_REMEMBERED: usize = 100_000;

/// Most proofs one key (one token's `cnf.jkt`) may have remembered at once: past it, that
/// key's proofs are refused until some expire, and every other key is served as before. One
/// holder of a bound token cannot fill the memory the other clients need.
const MAX_PER_KEY: usize = 1_000;

/// The longest `jti` taken (its digest is what is remembered, but the proof is parsed whole).
const MAX_JTI: usize = 256;

/// The proofs seen within the window, for replay detection: each keyed by its key's thumbprint
/// and its `jti` (two keys' proofs never collide), counted per key, and forgotten oldest first
/// (a queue in the order they came, so forgetting scans nothing that must stay).
pub(super) struct Proofs {
    /// How far `iat` may be from now, in seconds (both ways).
    window: u64,
    seen: Mutex<Seen>,
}

/// What [`Proofs`] holds.
#[derive(Default)]
struct Seen {
    /// SHA-256 of each (thumbprint, `jti`) remembered.
    proofs: HashSet<[u8; 32]>,
    /// Proofs remembered per key (SHA-256 of its thumbprint).
    per_key: HashMap<[u8; 32], usize>,
    /// Each proof with its key and the time (seconds) after which it can no longer be
    /// presented, in the order they came: that time only grows along the queue.
    queue: VecDeque<([u8; 32], [u8; 32], u64)>,
}

impl Seen {
    /// Forgets the proofs that can no longer be presented at `now`.
    fn forget_expired(&mut self, now: u64) {
        while let Some(&(proof, key, until)) = self.queue.front() {
            if until >= now {
                break;
            }
            self.queue.pop_front();
            self.proofs.remove(&proof);
            if let Some(count) = self.per_key.get_mut(&key) {
                *count -= 1;
                if *count == 0 {
                    self.per_key.remove(&key);
                }
            }
        }
    }
}

/// What one request presents: the access token and its proof.
pub(super) struct Presented<'a> {
    /// The request's method, as `htm` must name it.
    pub method: &'a str,
    /// The URL `htu` must name (scheme, authority and path; no query).
    pub url: &'a str,
    /// The access token (for `ath`).
    pub token: &'a str,
    /// The token's `cnf.jkt`.
    pub thumbprint: &'a str,
}

fn proof_error(why: impl Into<String>) -> Refusal {
    Refusal::InvalidDpopProof(why.into())
}

/// The one `DPoP` header of a request; `None` when there is none.
pub(super) fn proof_header(headers: &HeaderMap) -> Result<Option<&str>, Refusal> {
    let mut values = headers.get_all("dpop").iter();
    let Some(value) = values.next() else {
        return Ok(None);
    };
    if values.next().is_some() {
        return Err(proof_error("the DPoP header may appear once"));
    }
    value
        .to_str()
        .map(|text| Some(text.trim()))
        .map_err(|_| proof_error("the DPoP header is not ASCII"))
}

impl Proofs {
    /// Proofs within `window` seconds of now.
    pub(super) fn new(window: u64) -> Self {
        Self {
            window,
            seen: Mutex::default(),
        }
    }

    /// Checks `proof` for the request `presented`, at `now` (seconds since the epoch), and
    /// remembers it so it cannot be used again here: its digest (of its key's thumbprint and
    /// its `jti`), for a memory shared with other instances ([`Proofs::first_use_shared`]).
    pub(super) fn check(
        &self,
        proof: &str,
        presented: &Presented<'_>,
        now: u64,
    ) -> Result<[u8; 32], Refusal> {
        let malformed = || proof_error("the DPoP proof is not a well-formed JWT");
        let parts = jws::split(proof).ok_or_else(malformed)?;
        let (header, _) = parts.signing_input.split_once('.').ok_or_else(malformed)?;
        let header: Value = jws::decode_part(header)
            .and_then(|json| serde_json::from_slice(&json).ok())
            .ok_or_else(malformed)?;
        if !header["typ"]
            .as_str()
            .is_some_and(|typ| typ.eq_ignore_ascii_case("dpop+jwt"))
        {
            return Err(proof_error("the DPoP proof's typ must be dpop+jwt"));
        }
        let jwk = &header["jwk"];
        if !jwk.is_object() || jwk.get("d").is_some() {
            return Err(proof_error(
                "the DPoP proof's header must carry the public jwk it is signed with",
            ));
        }
        let alg: jsonwebtoken::Algorithm = header["alg"]
            .as_str()
            .and_then(|alg| alg.parse().ok())
            .filter(|alg| super::is_asymmetric(*alg))
            .ok_or_else(|| proof_error("the DPoP proof's alg must be an asymmetric algorithm"))?;
        let key = serde_json::from_value::<Jwk>(jwk.clone())
            .ok()
            .and_then(|jwk| PublicKey::from_jwk(&jwk.algorithm))
            .ok_or_else(|| proof_error("the DPoP proof's jwk is not a usable public key"))?;
        if thumbprint(jwk).as_deref() != Some(presented.thumbprint) {
            return Err(proof_error(
                "the DPoP proof is signed with another key than the token is bound to (cnf.jkt)",
            ));
        }
        key.verify(alg, parts.signing_input, parts.signature)
            .map_err(|_| proof_error("the DPoP proof's signature does not verify"))?;
        let claims: Value = jws::decode_part(parts.payload)
            .and_then(|json| serde_json::from_slice(&json).ok())
            .ok_or_else(malformed)?;
        if claims["htm"].as_str() != Some(presented.method) {
            return Err(proof_error("the DPoP proof is for another method (htm)"));
        }
        if !claims["htu"]
            .as_str()
            .is_some_and(|htu| same_url(htu, presented.url))
        {
            return Err(proof_error("the DPoP proof is for another URL (htu)"));
        }
        let ath = URL_SAFE_NO_PAD.encode(Sha256::digest(presented.token.as_bytes()));
        if claims["ath"].as_str() != Some(ath.as_str()) {
            return Err(proof_error(
                "the DPoP proof is for another access token (ath)",
            ));
        }
        let iat = claims["iat"]
            .as_u64()
            .ok_or_else(|| proof_error("the DPoP proof has no iat"))?;
        if iat.abs_diff(now) > self.window {
            return Err(proof_error(
                "the DPoP proof was not made just now (iat): make a fresh one",
            ));
        }
        let jti = claims["jti"]
            .as_str()
            .filter(|jti| !jti.is_empty() && jti.len() <= MAX_JTI)
            .ok_or_else(|| proof_error("the DPoP proof has no jti (at most 256 bytes)"))?;
        self.remember(presented.thumbprint, jti, now)
    }

    /// Records the proof `digest`, new here, in the memory other instances share: a replay
    /// when another instance recorded it first. When that memory does not answer, this
    /// instance's own memory has decided alone (logged).
    pub(super) async fn first_use_shared(
        &self,
        shared: &dyn crate::auth::SharedProofs,
        digest: &[u8; 32],
    ) -> Result<(), Refusal> {
        let keep = std::time::Duration::from_secs(2 * self.window);
        match shared.first_use(digest, keep).await {
            Ok(true) => Ok(()),
            Ok(false) => Err(proof_error(
                "the DPoP proof was used before (jti), on another instance",
            )),
            Err(why) => {
                tracing::warn!(%why, "the shared DPoP replay memory did not answer: this instance's own decided");
                Ok(())
            }
        }
    }

    /// Remembers the proof `jti` of the key `thumbprint`, seen at `now`: its digest; refuses
    /// one seen within the window, and a key past its share ([`MAX_PER_KEY`]).
    fn remember(&self, thumbprint: &str, jti: &str, now: u64) -> Result<[u8; 32], Refusal> {
        let key: [u8; 32] = Sha256::digest(thumbprint.as_bytes()).into();
        let proof: [u8; 32] = Sha256::new()
            .chain_update(key)
            .chain_update(jti.as_bytes())
            .finalize()
            .into();
        let mut seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        seen.forget_expired(now);
        if seen.proofs.contains(&proof) {
            return Err(proof_error("the DPoP proof was used before (jti)"));
        }
        if seen.per_key.get(&key).copied().unwrap_or(0) >= MAX_PER_KEY {
            return Err(Refusal::Unavailable(
                "too many DPoP proofs of this key within the window; retry shortly".into(),
            ));
        }
        if seen.proofs.len() >= MAX_REMEMBERED {
            return Err(Refusal::Unavailable(
                "too many DPoP proofs within the window; retry shortly".into(),
            ));
        }
        // A proof's `iat` is within the window of `now` either way, so it can be presented
        // until `now + 2 * window` at the latest: kept that long, in arrival order.
        seen.proofs.insert(proof);
        *seen.per_key.entry(key).or_insert(0) += 1;
        seen.queue.push_back((proof, key, now + 2 * self.window));
        Ok(proof)
    }
}

/// Whether `htu` names `url` (RFC 9449 §4.3: without query and fragment; scheme and host
/// compared without case, a default port equal to none).
fn same_url(htu: &str, url: &str) -> bool {
    fn normal(url: &str) -> Option<String> {
        let url = url.split(['?', '#']).next()?;
        let (scheme, rest) = url.split_once("://")?;
        let scheme = scheme.to_ascii_lowercase();
        let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
        let mut authority = authority.to_ascii_lowercase();
        let default_port = match scheme.as_str() {
            "https" => ":443",
            "http" => ":80",
            _ => return None,
        };
        if authority.ends_with(default_port) {
            authority.truncate(authority.len() - default_port.len());
        }
        let path = if path.is_empty() { "/" } else { path };
        Some(format!("{scheme}://{authority}{path}"))
    }
    normal(htu).is_some_and(|htu| Some(htu) == normal(url))
}

/// The RFC 7638 thumbprint of a public JWK (base64url SHA-256 of its required members, in
/// lexicographic order, without white space); `None` for a key type it does not define.
pub(crate) fn thumbprint(jwk: &Value) -> Option<String> {
    let member = |name: &str| jwk.get(name)?.as_str().map(str::to_owned);
    let canonical = match jwk.get("kty")?.as_str()? {
        "EC" => serde_json::json!({
            "crv": member("crv")?, "kty": "EC", "x": member("x")?, "y": member("y")?}),
        "RSA" => serde_json::json!({"e": member("e")?, "kty": "RSA", "n": member("n")?}),
        "OKP" => serde_json::json!({"crv": member("crv")?, "kty": "OKP", "x": member("x")?}),
        _ => return None,
    };
    // serde_json's map keeps keys sorted (no `preserve_order` here): the canonical order.
    let text = serde_json::to_string(&canonical).ok()?;
    Some(URL_SAFE_NO_PAD.encode(Sha256::digest(text.as_bytes())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_thumbprint_of_rfc_7638() {
        // RFC 7638 §3.1.
        let jwk = serde_json::json!({
            "kty": "RSA",
            "n": "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw",
            "e": "AQAB",
            "alg": "RS256",
            "kid": "2011-04-29"
        });
        assert_eq!(
            thumbprint(&jwk).as_deref(),
            Some("NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs")
        );
        assert_eq!(
            thumbprint(&serde_json::json!({"kty": "oct", "k": "x"})),
            None
        );
    }

    #[test]
    fn urls_compare_as_rfc_9449_says() {
        let url = "https://mcp.example.com/mcp";
        for same in [
            "https://mcp.example.com/mcp",
            "HTTPS://MCP.example.com:443/mcp",
            "https://mcp.example.com/mcp?x=1",
            "https://mcp.example.com/mcp#f",
        ] {
            assert!(same_url(same, url), "{same}");
        }
        for other in [
            "http://mcp.example.com/mcp",
            "https://mcp.example.com:8443/mcp",
            "https://mcp.example.com/other",
            "https://evil.example.com/mcp",
            "mcp.example.com/mcp",
        ] {
            assert!(!same_url(other, url), "{other}");
        }
    }

    #[test]
    fn a_jti_is_taken_once_within_the_window() {
        let proofs = Proofs::new(60);
        assert!(proofs.remember("key", "a", 1000).is_ok());
        assert!(matches!(
            proofs.remember("key", "a", 1001),
            Err(Refusal::InvalidDpopProof(_))
        ));
        assert!(proofs.remember("key", "b", 1000).is_ok());
        // Another key's proof of the same jti is its own.
        assert!(proofs.remember("other", "a", 1001).is_ok());
        // Forgotten once it can no longer be presented.
        assert!(proofs.remember("key", "a", 1121).is_ok());
    }

    #[test]
    fn one_key_cannot_fill_the_memory_the_others_need() {
        let proofs = Proofs::new(60);
        for i in 0..MAX_PER_KEY {
            assert!(proofs.remember("greedy", &i.to_string(), 1000).is_ok());
        }
        assert!(matches!(
            proofs.remember("greedy", "one more", 1000),
            Err(Refusal::Unavailable(_))
        ));
        assert!(proofs.remember("polite", "1", 1000).is_ok());
        // The greedy key's proofs expire in the order they came, and its share comes back.
        assert!(proofs.remember("greedy", "later", 1121).is_ok());
        let seen = proofs.seen.lock().unwrap();
        assert_eq!(seen.proofs.len(), 1);
        assert_eq!(seen.queue.len(), 1);
        assert_eq!(seen.per_key.len(), 1);
    }
}
