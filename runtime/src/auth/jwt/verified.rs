//! The tokens already verified, so a client reusing its access token (the usual case: one
//! token for many calls) costs a hash and a lookup instead of a signature check.
//!
//! An entry is keyed by the SHA-256 of the whole token (signature included: another token,
//! even with the same claims, misses), keeps the principal and the token's time window, and
//! is only used with the key set it was verified against: when the keys are fetched again,
//! every entry is dropped. Only successes are kept. Bounded by
//! [`JwtSettings::cache_capacity`](super::JwtSettings::cache_capacity).

use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Instant;

use super::super::Principal;

/// One verified token.
struct Entry {
    principal: Principal,
    /// `exp` and `nbf` (seconds since the epoch), checked again on every hit.
    exp: u64,
    nbf: Option<u64>,
    /// When the key set that verified it was fetched.
    keys_fetched: Instant,
}

/// The verified tokens.
pub(super) struct Verified {
    entries: Mutex<HashMap<[u8; 32], Entry>>,
    capacity: usize,
    leeway: u64,
}

/// The cache key of `token`.
pub(super) fn digest(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

impl Verified {
    pub fn new(capacity: usize, leeway: u64) -> Self {
        Self {
            entries: Mutex::new(HashMap::new()),
            capacity,
            leeway,
        }
    }

    /// The principal of a token verified against the keys fetched at `keys_fetched`, if it
    /// is still within its time window at `now` (seconds since the epoch).
    pub fn get(&self, digest: &[u8; 32], keys_fetched: Instant, now: u64) -> Option<Principal> {
        let entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        let entry = entries.get(digest)?;
        let in_window = now <= entry.exp.saturating_add(self.leeway)
            && entry
                .nbf
                .is_none_or(|nbf| nbf <= now.saturating_add(self.leeway));
        (entry.keys_fetched == keys_fetched && in_window).then(|| entry.principal.clone())
    }

    /// Keeps `principal` for a token verified against the keys fetched at `keys_fetched`.
    pub fn put(&self, digest: [u8; 32], principal: &Principal, keys_fetched: Instant, now: u64) {
        if self.capacity == 0 {
            return;
        }
        let Some(exp) = principal.claims["exp"].as_u64() else {
            return;
        };
        let nbf = principal.claims["nbf"].as_u64();
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        if entries.len() >= self.capacity {
            // Expired tokens and those of older keys go first; if that frees nothing, all.
            let leeway = self.leeway;
            entries.retain(|_, e| {
                e.keys_fetched == keys_fetched && now <= e.exp.saturating_add(leeway)
            });
            if entries.len() >= self.capacity {
                entries.clear();
            }
        }
        entries.insert(
            digest,
            Entry {
                principal: principal.clone(),
                exp,
                nbf,
                keys_fetched,
            },
        );
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.entries.lock().unwrap().len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn hits_within_the_window_and_the_key_set() {
        let cache = Verified::new(2, 30);
        let keys = Instant::now();
        let principal = Principal::new("a", vec![]).with_claims(json!({"exp": 1000, "nbf": 500}));
        let key = digest("t1");
        cache.put(key, &principal, keys, 600);
        assert_eq!(cache.get(&key, keys, 600).unwrap().subject, "a");
        assert!(cache.get(&key, keys, 1030).is_some());
        assert!(
            cache.get(&key, keys, 1031).is_none(),
            "expired past the leeway"
        );
        assert!(cache.get(&key, keys, 469).is_none(), "not valid yet");
        assert!(
            cache
                .get(
                    &key,
                    Instant::now() + std::time::Duration::from_secs(1),
                    600
                )
                .is_none(),
            "other keys"
        );
        assert!(cache.get(&digest("t2"), keys, 600).is_none());
        // Bounded: a full cache drops what expired, then everything.
        cache.put(digest("t2"), &principal, keys, 600);
        cache.put(digest("t3"), &principal, keys, 600);
        assert!(cache.len() <= 2);
        // A token without `exp` is never kept.
        cache.put(digest("t4"), &Principal::new("b", vec![]), keys, 600);
        assert!(cache.get(&digest("t4"), keys, 600).is_none());
    }
}
