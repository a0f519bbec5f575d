//! Rate limits: token buckets per caller and per tool, local to an instance.
//!
//! A caller is the authenticated principal (its issuer and subject) when authorization is on,
//! else the peer's IP address over HTTP; on stdio there is one caller. Two kinds of limit,
//! each a [`Rate`] (`N/PERIOD`: a bucket of `N` tokens refilled evenly over `PERIOD`):
//!
//! - per caller ([`RateLimits::per_caller`], `--rate-limit`): every `tools/call`,
//!   `prompts/get` and `resources/read` of a caller takes a token;
//! - per tool ([`RateLimits::per_tool`], `--tool-rate-limit NAME=RATE`, or the contract's
//!   `x-mcp.rateLimit` on the method, which a flag overrides): each caller has a bucket per
//!   tool, prompt or resource URI so limited.
//!
//! A call over a limit is refused before anything runs: JSON-RPC `-32023` with
//! `data.retryAfterMs`, and over HTTP status 429 with `Retry-After` (seconds, rounded up) and
//! `RateLimit-Limit`/`RateLimit-Remaining` (the limit that refused it, and `0`), in the
//! session era and the stateless one alike.
//!
//! Memory is bounded: at most [`RateLimits::max_callers`] buckets are kept. A bucket that is
//! full again says nothing a new one would not, so those go first when the table is full; if
//! that is not enough, an eighth of the table is dropped at once (those callers start again
//! with full buckets), so a client with many addresses cannot make every call sweep the table.
//! A server without limits (no flag, nothing in the contract) has no table and checks nothing.
//!
//! Shared limits ([`RateLimits::shared`], `--rate-limit-shared` with `--redis`): the buckets
//! live in Redis instead, one atomic step per call (`shared.rs`); the HTTP doors await that
//! step through `Limiter::take_shared` before routing, and the synchronous checks are not
//! used for them.

use std::collections::HashMap;
use std::hash::{BuildHasher, Hash, Hasher};
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::Instant;

use crate::auth::Principal;
use crate::dispatch::Dispatch;
use crate::jsonrpc::RpcError;
use settings::SHARDS;

pub(crate) mod settings;
pub(crate) mod shared;

pub(crate) use settings::RATE_LIMITED;
pub use settings::{ParseRateError, Rate, RateLimits, DEFAULT_MAX_CALLERS};

/// A peer address as the limits count it: a keyed hash of it, made once per connection (8
/// bytes in a rate-limited request's future instead of an address's 17).
pub(crate) type PeerKey = std::num::NonZeroU64;

/// The [`PeerKey`] of `ip`: SipHash with keys random per process.
pub(crate) fn peer_key(ip: IpAddr) -> PeerKey {
    static KEYS: std::sync::OnceLock<std::collections::hash_map::RandomState> =
        std::sync::OnceLock::new();
    let hash = KEYS.get_or_init(Default::default).hash_one(ip);
    PeerKey::new(hash).unwrap_or(PeerKey::MIN)
}

/// The [`PeerKey`] of `ip` for shared limits: the same on every instance (the first 8 bytes
/// of SHA-256 over the address), where [`peer_key`]'s random keys differ between processes.
/// The local table (a shared limiter's fallback) hashes it again with its random keys, so a
/// fixed hash opens no flooding of it.
pub(crate) fn stable_peer_key(ip: IpAddr) -> PeerKey {
    use sha2::Digest;
    let octets = match ip {
        IpAddr::V4(v4) => v4.to_ipv6_mapped().octets(),
        IpAddr::V6(v6) => v6.octets(),
    };
    let digest = sha2::Sha256::digest(octets);
    let mut first = [0u8; 8];
    first.copy_from_slice(&digest[..8]);
    PeerKey::new(u64::from_be_bytes(first)).unwrap_or(PeerKey::MIN)
}

thread_local! {
    /// The peer of the connection being polled ([`with_peer`]).
    static PEER: std::cell::Cell<Option<PeerKey>> = const { std::cell::Cell::new(None) };
}

/// Runs `poll` (one poll of a connection of the runtime's listener) with `peer` as the
/// connection's peer: the routing of a request, polled within it, reads it with
/// [`current_peer`]. A thread-local set and restored around a synchronous call: the poll
/// cannot move to another thread halfway.
pub(crate) fn with_peer<T>(peer: PeerKey, poll: impl FnOnce() -> T) -> T {
    let outer = PEER.with(|slot| slot.replace(Some(peer)));
    // Restored even if `poll` panics (a handler's panic is caught further in, but a guard
    // costs nothing).
    struct Restore(Option<PeerKey>);
    impl Drop for Restore {
        fn drop(&mut self) {
            PEER.with(|slot| slot.set(self.0));
        }
    }
    let _restore = Restore(outer);
    poll()
}

/// The peer of the connection being polled, when the runtime's listener serves it with rate
/// limits on ([`with_peer`]); `None` elsewhere (a server embedded in another router).
pub(crate) fn current_peer() -> Option<PeerKey> {
    PEER.with(std::cell::Cell::get)
}

/// Who makes a call, as the limits count it.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Caller<'a> {
    /// The authenticated principal.
    Principal(&'a Principal),
    /// The peer's address (HTTP without authorization), as [`peer_key`] made it.
    Peer(PeerKey),
    /// No principal and no address: stdio's one client, or a service embedded in another
    /// router without authorization (every caller shares the bucket).
    Local,
}

impl Caller<'_> {
    fn hash_into(&self, hasher: &mut impl Hasher) {
        match self {
            Caller::Principal(principal) => {
                0u8.hash(hasher);
                principal.claims["iss"].as_str().hash(hasher);
                principal.subject.hash(hasher);
            }
            Caller::Peer(ip) => {
                1u8.hash(hasher);
                ip.hash(hasher);
            }
            Caller::Local => 2u8.hash(hasher),
        }
    }
}

/// A call as the limits count it (what the policy decided it is: `crate::policy::Target`,
/// whichever door it came through).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Call<'a> {
    /// `tools/call`, `prompts/get`, `resources/read`, or `jsonrpc` for a plain method.
    pub method: &'a str,
    /// The tool or prompt name, the resource URI, or the plain method's name: what the
    /// contract's limit and `--tool-rate-limit` name.
    pub key: &'a str,
    /// The key of its bucket: a resource's template, else `key`.
    pub bucket: &'a str,
}

/// A call over a limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Limited {
    /// The limit that refused it (its bucket's size).
    pub limit: u32,
    /// When a token will be there again.
    pub retry_after_ms: u64,
}

impl Limited {
    /// `-32023` with `data.retryAfterMs`.
    pub fn error(&self) -> RpcError {
        RpcError::new(RATE_LIMITED, "Rate limit exceeded")
            .with_data(serde_json::json!({ "retryAfterMs": self.retry_after_ms }))
    }

    /// `Retry-After`: whole seconds, rounded up, at least 1.
    pub fn retry_after_secs(&self) -> u64 {
        self.retry_after_ms.div_ceil(1_000).max(1)
    }
}

/// The keys are keyed hashes already: the table takes them as they are.
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Only `write_u64` is used; anything else folds in, to stay a hash.
        for byte in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(*byte);
        }
    }

    fn write_u64(&mut self, key: u64) {
        self.0 = key;
    }
}

/// One shard of buckets, by key.
type Buckets = HashMap<u64, Bucket, std::hash::BuildHasherDefault<KeyHasher>>;

/// One bucket: its tokens when last touched, and when (ms since the limiter's start); the
/// period of its own rate, after which untouched it is full again.
#[derive(Debug, Clone, Copy)]
struct Bucket {
    tokens: f64,
    at_ms: u64,
    per_ms: u64,
}

/// The buckets of a running server; built when some limit exists (flags or contract).
#[derive(Debug)]
pub(crate) struct Limiter {
    limits: RateLimits,
    /// Whether the contract declares limits (else its lookup is skipped).
    contract: bool,
    shards: Vec<Mutex<Buckets>>,
    keys: std::collections::hash_map::RandomState,
    started: Instant,
    /// The store of shared buckets, when the limits are shared ([`shared`]).
    shared: Option<shared::Shared>,
}

impl Limiter {
    /// The limiter of `limits` and the contract's, or `None` when there is neither; its
    /// buckets in `buckets` when given and `limits` asks for shared ones.
    pub fn of(
        limits: Option<&RateLimits>,
        dispatch: &dyn Dispatch,
        buckets: Option<std::sync::Arc<dyn shared::SharedBuckets>>,
    ) -> Option<Self> {
        let catalog = dispatch.contract().catalog();
        let contract = [
            ("tools/call", catalog.tools),
            ("prompts/get", catalog.prompts),
            ("resources/read", catalog.resources),
        ]
        .iter()
        .any(|(method, descriptors)| {
            descriptors
                .iter()
                .any(|d| dispatch.contract().rate_limit(method, d.key).is_some())
        }) || catalog.resource_templates.iter().any(|d| {
            dispatch
                .contract()
                .rate_limit("resources/read", d.key)
                .is_some()
        });
        if limits.is_none() && !contract {
            return None;
        }
        Some(Self {
            limits: limits.cloned().unwrap_or_default(),
            contract,
            shards: (0..SHARDS).map(|_| Mutex::default()).collect(),
            keys: Default::default(),
            started: Instant::now(),
            shared: buckets
                .filter(|_| limits.is_some_and(RateLimits::is_shared))
                .map(shared::Shared::new),
        })
    }

    /// Whether the buckets are shared: the HTTP doors await [`Limiter::take_shared`].
    pub fn is_shared(&self) -> bool {
        self.shared.is_some()
    }

    /// The key of a peer at `ip`: the same on every instance when the buckets are shared.
    pub fn peer_key(&self, ip: IpAddr) -> PeerKey {
        if self.is_shared() {
            stable_peer_key(ip)
        } else {
            peer_key(ip)
        }
    }

    /// The store of the shared buckets, if shared.
    pub fn shared_buckets(&self) -> Option<std::sync::Arc<dyn shared::SharedBuckets>> {
        self.shared.as_ref().map(|s| s.buckets.clone())
    }

    /// Calls counted locally because the shared store did not answer.
    pub fn fallbacks(&self) -> u64 {
        self.shared.as_ref().map_or(0, |s| {
            s.fallbacks.load(std::sync::atomic::Ordering::Relaxed)
        })
    }

    /// [`Limiter::check`] in the shared buckets: one atomic step of the store for the call's
    /// buckets; this instance's own buckets when the store does not answer within
    /// [`shared::TIMEOUT`] (see [`shared`]). A local limiter checks locally.
    pub async fn take_shared(
        &self,
        dispatch: &dyn Dispatch,
        caller: Caller<'_>,
        call: Call<'_>,
    ) -> Result<(), Limited> {
        let Some(shared) = &self.shared else {
            return self.check(dispatch, caller, call);
        };
        let tool_rate = self.tool_rate(dispatch.contract(), call);
        let mut buckets = Vec::with_capacity(2);
        let digest = shared::caller_digest(caller);
        if let Some(rate) = self.limits.per_caller {
            buckets.push(shared::SharedBucket {
                caller: digest.clone(),
                target: None,
                rate,
            });
        }
        if let Some(rate) = tool_rate {
            buckets.push(shared::SharedBucket {
                caller: digest,
                target: Some(shared::target_digest(call.method, call.bucket)),
                rate,
            });
        }
        if buckets.is_empty() {
            return Ok(());
        }
        let why = match tokio::time::timeout(shared::TIMEOUT, shared.buckets.take(&buckets)).await {
            Ok(Ok(None)) => return Ok(()),
            Ok(Ok(Some((index, retry_after_ms)))) => {
                return Err(Limited {
                    limit: buckets.get(index).map_or(1, |b| b.rate.count),
                    retry_after_ms: retry_after_ms.max(1),
                })
            }
            Ok(Err(error)) => error,
            Err(_) => format!("no answer within {} ms", shared::TIMEOUT.as_millis()),
        };
        let now = self.started.elapsed().as_millis() as u64;
        shared.fell_back(now, &why);
        self.check(dispatch, caller, call)
    }

    /// Takes the tokens of `call` by `caller`: the caller's, then the call's bucket's (the
    /// caller's given back when the call's refuses).
    pub fn check(
        &self,
        dispatch: &dyn Dispatch,
        caller: Caller<'_>,
        call: Call<'_>,
    ) -> Result<(), Limited> {
        let tool_rate = self.tool_rate(dispatch.contract(), call);
        let now = self.started.elapsed().as_millis() as u64;
        if let Some(rate) = self.limits.per_caller {
            self.take(self.caller_key(caller), rate, now)?;
        }
        if let Some(rate) = tool_rate {
            let key = self.key(|h| {
                caller.hash_into(h);
                call.method.hash(h);
                call.bucket.hash(h);
            });
            if let Err(limited) = self.take(key, rate, now) {
                // The caller's token goes back: the call did not happen.
                if let Some(rate) = self.limits.per_caller {
                    self.give_back(self.caller_key(caller), rate);
                }
                return Err(limited);
            }
        }
        Ok(())
    }

    /// The rate of `target`'s bucket under `method`: the flag's, else the contract's.
    fn tool_rate(&self, contract: &crate::dispatch::Contract, call: Call<'_>) -> Option<Rate> {
        self.limits
            .per_tool
            .iter()
            .find(|(name, _)| name == call.key)
            .map(|(_, rate)| *rate)
            .or_else(|| {
                self.contract
                    .then(|| contract.rate_limit(call.method, call.key))
                    .flatten()
            })
    }

    /// The key of `caller`'s own bucket. A peer's key is a keyed hash already (made once per
    /// connection): it is the key, without hashing it again.
    /// A shared limiter's peer keys are the same everywhere (and so could be chosen to
    /// collide in this table): hashed again with this process's random keys.
    fn caller_key(&self, caller: Caller<'_>) -> u64 {
        match caller {
            Caller::Peer(peer) if !self.is_shared() => peer.get(),
            _ => self.key(|h| caller.hash_into(h)),
        }
    }

    fn key(&self, fill: impl FnOnce(&mut std::collections::hash_map::DefaultHasher)) -> u64 {
        let mut hasher = self.keys.build_hasher();
        fill(&mut hasher);
        hasher.finish()
    }

    fn shard(&self, key: u64) -> std::sync::MutexGuard<'_, Buckets> {
        // The top bits: the table inside a shard indexes by the low ones.
        self.shards[(key >> 60) as usize % SHARDS]
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Takes a token from the bucket `key` at `rate`, or says when one will be there.
    fn take(&self, key: u64, rate: Rate, now: u64) -> Result<(), Limited> {
        let mut shard = self.shard(key);
        let capacity = f64::from(rate.count);
        let bucket = match shard.get_mut(&key) {
            Some(bucket) => bucket,
            None => {
                let bound = (self.limits.max_callers / SHARDS).max(1);
                if shard.len() >= bound {
                    evict(&mut shard, bound, now);
                }
                shard.entry(key).or_insert(Bucket {
                    tokens: capacity,
                    at_ms: now,
                    per_ms: rate.per_ms,
                })
            }
        };
        let elapsed = now.saturating_sub(bucket.at_ms) as f64;
        bucket.tokens = (bucket.tokens + elapsed * rate.refill()).min(capacity);
        bucket.at_ms = now;
        if bucket.tokens >= 1.0 {
            bucket.tokens -= 1.0;
            return Ok(());
        }
        let missing = 1.0 - bucket.tokens;
        Err(Limited {
            limit: rate.count,
            retry_after_ms: (missing / rate.refill()).ceil().max(1.0) as u64,
        })
    }

    /// Puts back a token taken from the bucket `key`.
    fn give_back(&self, key: u64, rate: Rate) {
        if let Some(bucket) = self.shard(key).get_mut(&key) {
            bucket.tokens = (bucket.tokens + 1.0).min(f64::from(rate.count));
        }
    }

    /// Buckets held now (for tests).
    #[cfg(test)]
    fn len(&self) -> usize {
        self.shards.iter().map(|s| s.lock().unwrap().len()).sum()
    }
}

/// Makes room in a full shard (see the [module](self)): drops the buckets that are full again
/// (each judged by its own rate's period, so buckets of a short period coming in never reset
/// one of a long period), then, if fewer than an eighth went, an eighth of the shard.
fn evict(shard: &mut Buckets, bound: usize, now: u64) {
    shard.retain(|_, bucket| now.saturating_sub(bucket.at_ms) < bucket.per_ms);
    let keep = bound - bound.div_ceil(8);
    if shard.len() > keep {
        let excess: Vec<u64> = shard.keys().take(shard.len() - keep).copied().collect();
        for key in excess {
            shard.remove(&key);
        }
    }
}

#[cfg(test)]
mod tests;
