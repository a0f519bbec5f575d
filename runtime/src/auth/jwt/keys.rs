//! The issuer's signing keys: found through its metadata (RFC 8414, else OpenID Connect
//! discovery) unless configured, fetched as a JWKS, cached, and refreshed when a token names
//! a key id the cache does not hold (key rotation) or the cache is older than its maximum
//! age, at most once per refresh interval, one fetch at a time.

use jsonwebtoken::jwk::{Jwk, PublicKeyUse};
use jsonwebtoken::Algorithm;
use serde_json::Value;
use std::str::FromStr;
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use super::fetch::{self, Fetcher};
use super::jws::PublicKey;

/// One verification key of the JWKS.
pub(super) struct Key {
    kid: Option<String>,
    /// The algorithms the key verifies: its JWK `alg`, else every algorithm of its type.
    algorithms: Vec<Algorithm>,
    /// The key, decoded once when the JWKS is fetched.
    pub public: PublicKey,
}

/// The keys of one fetch.
pub(super) struct KeySet {
    keys: Vec<Key>,
    fetched: Instant,
}

impl KeySet {
    /// When these keys were fetched: what identifies this set.
    pub fn fetched(&self) -> Instant {
        self.fetched
    }

    /// The key for a token signed with `alg` naming `kid`. Without a `kid`, the only key
    /// that verifies `alg`, if there is exactly one.
    pub fn find(&self, kid: Option<&str>, alg: Algorithm) -> Option<&Key> {
        let mut fitting = self.keys.iter().filter(|key| key.algorithms.contains(&alg));
        match kid {
            Some(kid) => fitting.find(|key| key.kid.as_deref() == Some(kid)),
            None => match (fitting.next(), fitting.next()) {
                (Some(key), None) => Some(key),
                _ => None,
            },
        }
    }
}

/// Where the keys come from, and the timing of refreshes.
pub(super) struct KeySource {
    pub issuer: String,
    /// The JWKS URL, when configured (else discovered from the issuer's metadata).
    pub jwks_url: Option<String>,
    /// Least time between two fetches.
    pub refresh_interval: Duration,
    /// Keys older than this are fetched again before use.
    pub max_age: Duration,
    /// Keys older than this are not used, even when the issuer cannot be reached.
    pub max_stale: Duration,
}

/// The cached keys.
pub(super) struct KeyCache {
    source: KeySource,
    fetcher: Fetcher,
    current: RwLock<Option<Arc<KeySet>>>,
    /// The last fetch attempt and the discovered JWKS URL; held while fetching, so
    /// concurrent misses wait for one fetch.
    refresh: tokio::sync::Mutex<Refresh>,
}

#[derive(Default)]
struct Refresh {
    last_attempt: Option<Instant>,
    jwks_url: Option<String>,
}

/// Why there are no keys to check a token with.
#[derive(Debug)]
pub(super) enum KeyError {
    /// The keys could not be fetched (and none are cached).
    Unavailable(String),
}

impl KeyCache {
    pub fn new(source: KeySource, fetcher: Fetcher) -> Self {
        Self {
            source,
            fetcher,
            current: RwLock::new(None),
            refresh: tokio::sync::Mutex::new(Refresh::default()),
        }
    }

    /// The keys fetched last, while they may still be used (younger than the stale limit).
    fn cached(&self) -> Option<Arc<KeySet>> {
        self.current
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone()
            .filter(|keys| keys.fetched.elapsed() < self.source.max_stale)
    }

    /// The cached keys if younger than the maximum age; never fetches.
    pub fn fresh(&self) -> Option<Arc<KeySet>> {
        self.cached()
            .filter(|keys| keys.fetched.elapsed() < self.source.max_age)
    }

    /// The keys to check a token with, refreshed first when there are none yet or they are
    /// older than the maximum age.
    pub async fn keys(&self) -> Result<Arc<KeySet>, KeyError> {
        match self.fresh() {
            Some(keys) => Ok(keys),
            None => self.refresh().await,
        }
    }

    /// Fetches the keys again unless the last attempt was within the refresh interval; the
    /// keys held afterwards (the old ones when the fetch failed or was skipped).
    ///
    ///
    /// With no usable keys at all, a miss fetches again at once, one fetch at a time: the
    /// readiness probe asks as the server starts, maybe before the issuer listens, and its
    /// failed attempt must not refuse the first clients for a whole refresh interval. Either
    /// way, a caller that waited while another fetched takes that fetch's outcome.
    pub async fn refresh(&self) -> Result<Arc<KeySet>, KeyError> {
        let asked = Instant::now();
        let mut refresh = self.refresh.lock().await;
        let have_keys = self.cached().is_some();
        let recent = refresh.last_attempt.is_some_and(|at| {
            at >= asked || (have_keys && at.elapsed() < self.source.refresh_interval)
        });
        if recent {
            // The same words as the failed fetch's: a client cannot tell whether this request
            // or the readiness probe's (which asks at start) made the attempt.
            return self.cached().ok_or_else(|| {
                KeyError::Unavailable("the issuer's signing keys cannot be fetched".into())
            });
        }
        refresh.last_attempt = Some(Instant::now());
        match self.fetch(&mut refresh).await {
            Ok(keys) => {
                tracing::info!(keys = keys.keys.len(), issuer = %self.source.issuer, "fetched the issuer's signing keys");
                let keys = Arc::new(keys);
                *self
                    .current
                    .write()
                    .unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(keys.clone());
                Ok(keys)
            }
            Err(error) => {
                tracing::warn!(%error, issuer = %self.source.issuer, "cannot fetch the issuer's signing keys");
                self.cached().ok_or(KeyError::Unavailable(
                    "the issuer's signing keys cannot be fetched".into(),
                ))
            }
        }
    }

    async fn fetch(&self, refresh: &mut Refresh) -> Result<KeySet, String> {
        let jwks_url = match (&self.source.jwks_url, &refresh.jwks_url) {
            (Some(url), _) | (None, Some(url)) => url.clone(),
            (None, None) => {
                let url = self.discover().await?;
                refresh.jwks_url = Some(url.clone());
                url
            }
        };
        let jwks = self.fetcher.get_json(&jwks_url).await?;
        let keys = parse_jwks(&jwks).map_err(|why| format!("{jwks_url}: {why}"))?;
        Ok(KeySet {
            keys,
            fetched: Instant::now(),
        })
    }

    /// The `jwks_uri` of the issuer's metadata: RFC 8414 (path-inserted), else OpenID
    /// Connect discovery (appended). The metadata's `issuer` must be the issuer's.
    async fn discover(&self) -> Result<String, String> {
        let mut errors = Vec::new();
        for url in metadata_urls(&self.source.issuer) {
            match self.fetcher.get_json(&url).await {
                Ok(metadata) => return jwks_uri_of(&metadata, &self.source.issuer, &url),
                Err(error) => errors.push(error),
            }
        }
        Err(format!(
            "no authorization server metadata for {}: {}",
            self.source.issuer,
            errors.join("; ")
        ))
    }
}

/// Where the metadata of `issuer` may be: RFC 8414 §3.1 inserts the well-known segment
/// before the issuer's path; OpenID Connect Discovery appends it.
pub(super) fn metadata_urls(issuer: &str) -> [String; 2] {
    let trimmed = issuer.trim_end_matches('/');
    let after_scheme = trimmed.find("://").map_or(0, |i| i + 3);
    let (origin, path) = match trimmed[after_scheme..].find('/') {
        Some(i) => trimmed.split_at(after_scheme + i),
        None => (trimmed, ""),
    };
    [
        format!("{origin}/.well-known/oauth-authorization-server{path}"),
        format!("{trimmed}/.well-known/openid-configuration"),
    ]
}

/// The `jwks_uri` of a metadata document fetched from `url`, checked (RFC 8414 §3.3: its
/// `issuer` is the one asked for).
fn jwks_uri_of(metadata: &Value, issuer: &str, url: &str) -> Result<String, String> {
    if metadata["issuer"].as_str() != Some(issuer) {
        return Err(format!(
            "{url}: the metadata's issuer is {}, not {issuer}",
            metadata["issuer"]
        ));
    }
    let jwks_uri = metadata["jwks_uri"]
        .as_str()
        .ok_or_else(|| format!("{url}: the metadata has no jwks_uri"))?;
    fetch::checked_url(jwks_uri)?;
    Ok(jwks_uri.to_owned())
}

/// The signature keys of a JWKS document. Keys this server cannot use (encryption keys,
/// symmetric keys, unknown types or curves) are skipped; a set with none left is an error.
pub(super) fn parse_jwks(jwks: &Value) -> Result<Vec<Key>, String> {
    let entries = jwks["keys"]
        .as_array()
        .ok_or("the JWKS has no `keys` array")?;
    let keys: Vec<Key> = entries.iter().filter_map(key_of).collect();
    if keys.is_empty() {
        return Err("the JWKS holds no usable signature key".into());
    }
    Ok(keys)
}

fn key_of(entry: &Value) -> Option<Key> {
    let jwk: Jwk = serde_json::from_value(entry.clone()).ok()?;
    if matches!(
        jwk.common.public_key_use,
        Some(PublicKeyUse::Encryption | PublicKeyUse::Other(_))
    ) {
        return None;
    }
    // Symmetric keys, unknown curves and malformed keys have no public key.
    let public = PublicKey::from_jwk(&jwk.algorithm)?;
    let by_type = public.algorithms();
    let algorithms = match jwk.common.key_algorithm {
        Some(alg) => {
            let alg = Algorithm::from_str(&alg.to_string()).ok()?;
            // A key whose `alg` does not fit its type is unusable, not a way in.
            by_type.contains(&alg).then(|| vec![alg])?
        }
        None => by_type.to_vec(),
    };
    Some(Key {
        kid: jwk.common.key_id,
        algorithms,
        public,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn metadata_locations() {
        assert_eq!(
            metadata_urls("https://as.example.com"),
            [
                "https://as.example.com/.well-known/oauth-authorization-server",
                "https://as.example.com/.well-known/openid-configuration"
            ]
        );
        assert_eq!(
            metadata_urls("https://as.example.com/tenant/1"),
            [
                "https://as.example.com/.well-known/oauth-authorization-server/tenant/1",
                "https://as.example.com/tenant/1/.well-known/openid-configuration"
            ]
        );
    }

    #[test]
    fn metadata_must_name_the_issuer() {
        let metadata = json!({"issuer": "https://as", "jwks_uri": "https://as/jwks"});
        assert_eq!(
            jwks_uri_of(&metadata, "https://as", "u").unwrap(),
            "https://as/jwks"
        );
        assert!(jwks_uri_of(&metadata, "https://other", "u").is_err());
        let metadata = json!({"issuer": "https://as", "jwks_uri": "http://as/jwks"});
        assert!(jwks_uri_of(&metadata, "https://as", "u").is_err());
    }

    #[test]
    fn unusable_keys_are_skipped() {
        let ec = json!({"kty": "EC", "crv": "P-256", "kid": "ec",
            "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",
            "y": "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"});
        let mut mismatched = ec.clone();
        mismatched["alg"] = json!("RS256");
        mismatched["kid"] = json!("mismatched");
        let mut encryption = ec.clone();
        encryption["use"] = json!("enc");
        let jwks = json!({"keys": [
            ec,
            mismatched,
            encryption,
            {"kty": "oct", "k": "c2VjcmV0", "kid": "hmac"},
            {"kty": "weird"},
        ]});
        let keys = parse_jwks(&jwks).unwrap();
        assert_eq!(keys.len(), 1);
        let set = KeySet {
            keys,
            fetched: Instant::now(),
        };
        assert!(set.find(Some("ec"), Algorithm::ES256).is_some());
        assert!(set.find(None, Algorithm::ES256).is_some());
        assert!(set.find(Some("ec"), Algorithm::RS256).is_none());
        assert!(set.find(Some("hmac"), Algorithm::HS256).is_none());
        assert!(parse_jwks(&json!({"keys": []})).is_err());
        assert!(parse_jwks(&json!({})).is_err());
    }
}
