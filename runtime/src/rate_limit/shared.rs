//! Buckets shared by the instances ([`RateLimits::shared`](super::RateLimits::shared),
//! `--rate-limit-shared`): the same limits as the local table, counted in a store every
//! instance reaches (Redis: `stores::redis`), so that N instances behind a load balancer hold
//! one bucket per caller and one per caller and tool.
//!
//! A call's buckets (the caller's, the tool's) are taken in one atomic step of the store, all
//! or none, so a refusal by the tool's bucket leaves the caller's token where it was, as the
//! local table does. The key of a bucket is a fixed-length digest of what it counts (never a
//! raw subject or address), the same on every instance.
//!
//! When the store does not answer (unreachable, or slower than [`TIMEOUT`]) the call is
//! counted by this instance's own buckets instead: the limit holds per instance until the
//! store is back (fail open to the local limit), with a `WARN` at most every
//! [`WARN_EVERY_MS`] and a counter ([`crate::Load::rate_limit_fallbacks`]).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use sha2::{Digest, Sha256};

use super::settings::Rate;
use super::Caller;
use crate::future::BoxFuture;

/// Longest wait for the store before the call is counted locally: a rate limit must not hold
/// calls up for long while Redis is gone (its own response timeout is seconds).
pub(crate) const TIMEOUT: Duration = Duration::from_millis(250);

/// Fewest milliseconds between two warnings of a fallback.
pub(crate) const WARN_EVERY_MS: u64 = 10_000;

/// One bucket of a call, as the store keeps it.
#[derive(Debug, Clone)]
#[cfg_attr(not(feature = "redis"), allow(dead_code))]
pub(crate) struct SharedBucket {
    /// The digest of what it counts: the caller's ([`caller_digest`]) for the caller's own
    /// bucket, the caller's and the target's for a tool's.
    pub caller: String,
    /// The target's digest for a tool's bucket; `None` for the caller's own.
    pub target: Option<String>,
    /// Its rate.
    pub rate: Rate,
}

/// Where shared buckets live (Redis: `stores::redis::RedisRateBuckets`).
pub(crate) trait SharedBuckets: Send + Sync + std::fmt::Debug {
    /// Takes a token from each of `buckets`, all or none, in one atomic step: `Ok(None)` when
    /// taken, `Ok(Some((index, retry_after_ms)))` when the bucket at `index` has none (nothing
    /// taken), `Err` when the store did not answer.
    fn take<'a>(
        &'a self,
        buckets: &'a [SharedBucket],
    ) -> BoxFuture<'a, Result<Option<(usize, u64)>, String>>;
}

/// The shared side of a limiter: the store, and how often it failed.
#[derive(Debug)]
pub(crate) struct Shared {
    pub buckets: Arc<dyn SharedBuckets>,
    /// Calls counted locally because the store did not answer.
    pub fallbacks: AtomicU64,
    /// When the last fallback warning was logged (ms since the limiter started; 0: never).
    last_warning_ms: AtomicU64,
}

impl Shared {
    pub fn new(buckets: Arc<dyn SharedBuckets>) -> Self {
        Self {
            buckets,
            fallbacks: AtomicU64::new(0),
            last_warning_ms: AtomicU64::new(0),
        }
    }

    /// Counts a fallback, and warns about it unless a warning went out lately.
    #[cold]
    pub fn fell_back(&self, now_ms: u64, why: &str) {
        let count = self.fallbacks.fetch_add(1, Ordering::Relaxed) + 1;
        let last = self.last_warning_ms.load(Ordering::Relaxed);
        let due = last == 0 || now_ms.saturating_sub(last) >= WARN_EVERY_MS;
        if due
            && self
                .last_warning_ms
                .compare_exchange(last, now_ms.max(1), Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
        {
            tracing::warn!(
                reason = why,
                fallbacks = count,
                "shared rate limits unreachable: calls are counted by this instance's own buckets until Redis answers again"
            );
        }
    }
}

/// The digest of `caller`, the same on every instance and never the raw name: a principal's
/// is the hex of the first 16 bytes of SHA-256 over its issuer and subject (32 digits); a
/// peer's, the hex of its stable key (16 digits, itself SHA-256 of the address, made once per
/// connection: [`super::stable_peer_key`]); the one local caller's, `local`. The lengths keep
/// the kinds apart.
pub(crate) fn caller_digest(caller: Caller<'_>) -> String {
    match caller {
        Caller::Principal(principal) => {
            let mut hash = Sha256::new();
            let issuer = principal.claims["iss"].as_str().unwrap_or_default();
            hash.update((issuer.len() as u64).to_be_bytes());
            hash.update(issuer.as_bytes());
            hash.update(principal.subject.as_bytes());
            hex(&hash.finalize()[..16])
        }
        Caller::Peer(peer) => hex(&peer.get().to_be_bytes()),
        Caller::Local => "local".to_owned(),
    }
}

/// The digest of a target (`method`, and the tool, prompt or URI `target`): 32 hex digits.
pub(crate) fn target_digest(method: &str, target: &str) -> String {
    let mut hash = Sha256::new();
    hash.update((method.len() as u64).to_be_bytes());
    hash.update(method.as_bytes());
    hash.update(target.as_bytes());
    hex(&hash.finalize()[..16])
}

/// Lowercase hex, by table (the formatting machinery costs more than the digest).
fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut text = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        text.push(char::from(DIGITS[usize::from(byte >> 4)]));
        text.push(char::from(DIGITS[usize::from(byte & 0xf)]));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A store that never answers.
    #[derive(Debug)]
    struct Gone;

    impl SharedBuckets for Gone {
        fn take<'a>(
            &'a self,
            _: &'a [SharedBucket],
        ) -> BoxFuture<'a, Result<Option<(usize, u64)>, String>> {
            Box::pin(async { Err("gone".to_string()) })
        }
    }

    #[test]
    fn every_fallback_counts_and_warnings_are_spaced() {
        let shared = Shared::new(Arc::new(Gone));
        shared.fell_back(5, "gone");
        assert_eq!(shared.last_warning_ms.load(Ordering::Relaxed), 5);
        shared.fell_back(5 + WARN_EVERY_MS - 1, "gone");
        assert_eq!(shared.last_warning_ms.load(Ordering::Relaxed), 5);
        shared.fell_back(5 + WARN_EVERY_MS, "gone");
        assert_eq!(
            shared.last_warning_ms.load(Ordering::Relaxed),
            5 + WARN_EVERY_MS
        );
        assert_eq!(shared.fallbacks.load(Ordering::Relaxed), 3);
    }

    #[test]
    fn digests_are_fixed_length_and_tell_callers_apart() {
        let local = caller_digest(Caller::Local);
        let peer = caller_digest(Caller::Peer(super::super::stable_peer_key(
            "10.0.0.1".parse().unwrap(),
        )));
        let other = caller_digest(Caller::Peer(super::super::stable_peer_key(
            "10.0.0.2".parse().unwrap(),
        )));
        assert_eq!((local.as_str(), peer.len()), ("local", 16));
        assert!(peer.bytes().all(|b| b.is_ascii_hexdigit()));
        assert_eq!(hex(&[0x0f, 0xa0]), "0fa0");
        assert_eq!(target_digest("tools/call", "a").len(), 32);
        assert!(local != peer && peer != other);
        // Stable: the same address gives the same digest (on every instance).
        assert_eq!(
            peer,
            caller_digest(Caller::Peer(super::super::stable_peer_key(
                "10.0.0.1".parse().unwrap()
            )))
        );
        assert_ne!(
            target_digest("tools/call", "a"),
            target_digest("tools/calla", "")
        );
    }
}
