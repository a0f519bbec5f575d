//! Multi round-trip requests (2026-07-28, SEP-2322): one round of a call (`rounds`'s
//! `InputRound`) and the sealed `requestState` that carries what the next round needs.
//!
//! The server keeps nothing between the rounds of a request: what it needs on the retry (the
//! answers already given, the handler's own saved values) travels to the client inside
//! `requestState` and comes back with the retry. The client must not be able to forge or move
//! it, so the state is sealed:
//!
//! ```text
//! base64url(payload JSON) "." base64url(HMAC-SHA256(key, payload JSON))
//! ```
//!
//! The payload names the request it belongs to (a SHA-256 digest of the method, the
//! tool/prompt/resource name, the canonical arguments and, when authorization is on, the
//! principal asking) and an expiry. A state whose MAC does
//! not verify, whose expiry passed, or whose binding names another request is rejected before
//! anything in it is read. The payload is signed, not encrypted: the client can read what the
//! server saved, so handlers must not save secrets in it.
//!
//! **Key rotation.** States are always sealed with the current key; opening tries the current
//! key, then the previous one ([`PREVIOUS_KEY_ENV`],
//! `config.request_state.request_state_previous_key`). To rotate: deploy with the new key as
//! current and the old one as previous, then drop the previous key once
//! `config.request_state.request_state_ttl` has passed, when every state it sealed has expired.
//!
//! **Replay.** A sealed state is a bearer value: until it expires, the same state can be sent
//! again with the same request (the binding stops it moving to another one), and each retry
//! runs the handler again with the answers it carries. Handlers whose effect must happen once
//! should be idempotent, or the server can set `config.request_state.request_state_single_use`:
//! each instance then remembers the states it opened until they expire and refuses a second
//! redemption. That memory is per instance: behind a load balancer without affinity, a state can
//! still be redeemed once on each instance.

pub(crate) mod rounds;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use std::collections::{BTreeSet, HashMap};
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::jsonrpc::RpcError;

type HmacSha256 = Hmac<Sha256>;

/// The environment variable that holds the sealing key (at least 32 random bytes as hex or
/// base64, see [`SealingKey::from_text`]).
pub const KEY_ENV: &str = "MCP_REQUEST_STATE_KEY";

/// The environment variable that holds the previous sealing key during a rotation (same form
/// as [`KEY_ENV`]; empty means none): states it sealed still open until they expire.
pub const PREVIOUS_KEY_ENV: &str = "MCP_REQUEST_STATE_PREVIOUS_KEY";

/// Most redeemed states a server remembers at once with
/// `config.request_state.request_state_single_use`; past it, retries are refused until remembered
/// states expire (failing closed: forgetting one early would let it be replayed).
#[doc(hidden)]
pub const SINGLE_USE_CAPACITY: usize = 100_000;

/// Most of [`SINGLE_USE_CAPACITY`] one principal's redeemed states may take (with
/// authorization on), so that one client retrying in a loop cannot make the server refuse
/// everyone else's retries.
#[doc(hidden)]
pub const SINGLE_USE_PER_PRINCIPAL: usize = 1_000;

/// The smallest key accepted, in bytes.
#[doc(hidden)]
pub const MIN_KEY_LEN: usize = 32;

/// The secret that seals `requestState`. Every instance behind one load balancer needs the
/// same key, so that any of them can open a state another sealed.
#[derive(Clone, PartialEq, Eq)]
pub struct SealingKey(Vec<u8>);

/// Why a [`SealingKey`] could not be made ([`SealingKey::new`], [`SealingKey::from_text`],
/// [`SealingKey::from_env`], [`SealingKey::previous_from_env`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum KeyError {
    /// Fewer than [`MIN_KEY_LEN`] bytes ([`SealingKey::new`]).
    TooShort {
        /// How many bytes were given.
        len: usize,
    },
    /// Hex or base64 text of fewer than [`MIN_KEY_LEN`] bytes ([`SealingKey::from_text`]).
    TooFewRandomBytes {
        /// How many bytes the text held.
        len: usize,
    },
    /// Text that is neither hex nor base64, such as a passphrase ([`SealingKey::from_text`]).
    NotAKey,
    /// The environment variable `name` holds no key: `error` says why.
    Variable {
        /// The variable ([`KEY_ENV`] or [`PREVIOUS_KEY_ENV`]).
        name: &'static str,
        /// Why its text is not a key.
        error: Box<KeyError>,
    },
}

impl fmt::Display for KeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::TooShort { len } => write!(
                f,
                "the requestState key must be at least {MIN_KEY_LEN} bytes, got {len}"
            ),
            Self::TooFewRandomBytes { len } => write!(
                f,
                "the requestState key must be at least {MIN_KEY_LEN} random bytes, got {len}"
            ),
            Self::NotAKey => write!(
                f,
                "the requestState key must be {MIN_KEY_LEN} or more random bytes written as hex \
                 or base64 (e.g. `openssl rand -hex 32`); a passphrase is not a key"
            ),
            Self::Variable { name, error } => write!(f, "{name}: {error}"),
        }
    }
}

impl std::error::Error for KeyError {}

impl SealingKey {
    /// A key from `bytes`; at least [`MIN_KEY_LEN`] bytes.
    pub fn new(bytes: impl Into<Vec<u8>>) -> Result<Self, KeyError> {
        let bytes = bytes.into();
        if bytes.len() < MIN_KEY_LEN {
            return Err(KeyError::TooShort { len: bytes.len() });
        }
        Ok(Self(bytes))
    }

    /// The key in [`KEY_ENV`], if set and not empty (see [`SealingKey::from_text`]).
    pub fn from_env() -> Result<Option<Self>, KeyError> {
        Self::from_variable(KEY_ENV)
    }

    /// The previous key in [`PREVIOUS_KEY_ENV`], if set and not empty (see
    /// [`SealingKey::from_text`]).
    pub fn previous_from_env() -> Result<Option<Self>, KeyError> {
        Self::from_variable(PREVIOUS_KEY_ENV)
    }

    /// The key in the environment variable `name`, if set and not empty.
    fn from_variable(name: &'static str) -> Result<Option<Self>, KeyError> {
        match std::env::var(name) {
            Ok(text) if !text.trim().is_empty() => {
                Self::from_text(&text)
                    .map(Some)
                    .map_err(|error| KeyError::Variable {
                        name,
                        error: Box::new(error),
                    })
            }
            _ => Ok(None),
        }
    }

    /// A key written as text: at least [`MIN_KEY_LEN`] random bytes as hex digits or base64
    /// (standard or URL-safe, padded or not), e.g. the output of `openssl rand -hex 32`. Any
    /// other text is refused: a passphrase, however long, has far fewer unguessable bits than
    /// its length suggests.
    pub fn from_text(text: &str) -> Result<Self, KeyError> {
        use base64::engine::general_purpose::{
            STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD,
        };
        use base64::Engine as _;
        let text = text.trim();
        let hex = (text.len() % 2 == 0 && text.bytes().all(|b| b.is_ascii_hexdigit()))
            .then(|| decode_hex(text));
        let bytes = hex.or_else(|| {
            [STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD]
                .iter()
                .find_map(|engine| engine.decode(text).ok())
        });
        match bytes {
            Some(bytes) if bytes.len() >= MIN_KEY_LEN => Ok(Self(bytes)),
            Some(bytes) => Err(KeyError::TooFewRandomBytes { len: bytes.len() }),
            None => Err(KeyError::NotAKey),
        }
    }

    /// A fresh random key.
    pub fn random() -> Self {
        let mut key = [0u8; 32];
        getrandom::fill(&mut key).expect("the OS random number generator is available");
        Self(key.to_vec())
    }
}

/// The bytes of an even number of hex digits.
fn decode_hex(text: &str) -> Vec<u8> {
    let digit = |b: u8| (b as char).to_digit(16).unwrap_or(0) as u8;
    text.as_bytes()
        .chunks_exact(2)
        .map(|pair| digit(pair[0]) << 4 | digit(pair[1]))
        .collect()
}

impl fmt::Debug for SealingKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SealingKey(<redacted>)")
    }
}

/// The request a state belongs to: SHA-256 of method, name and canonical arguments.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct Binding {
    digest: [u8; 32],
    /// The principal it is bound to ([`Binding::owned_by`]), as a digest: what a single-use
    /// server counts its redeemed states by.
    owner: Option<[u8; 32]>,
}

impl Binding {
    /// Binds `method` on `name` (tool, prompt or resource URI) with these `arguments`.
    ///
    /// Arguments are hashed in a canonical form (object keys sorted, no whitespace), so a client
    /// that re-serializes them in another order still matches.
    pub fn new(method: &str, name: &str, arguments: Option<&Value>) -> Self {
        let mut hasher = Sha256::new();
        hasher.update(method.as_bytes());
        hasher.update([0]);
        hasher.update(name.as_bytes());
        hasher.update([0]);
        let mut canonical = String::new();
        if let Some(arguments) = arguments {
            write_canonical(arguments, &mut canonical);
        }
        hasher.update(canonical.as_bytes());
        Self {
            digest: hasher.finalize().into(),
            owner: None,
        }
    }

    /// The same binding for the principal whose owner key is `owner` only: a state sealed
    /// for one principal does not open for another, even for the same request.
    pub fn owned_by(self, owner: &str) -> Self {
        let mut hasher = Sha256::new();
        hasher.update(self.digest);
        hasher.update([0]);
        hasher.update(owner.as_bytes());
        Self {
            digest: hasher.finalize().into(),
            owner: Some(Sha256::digest(owner.as_bytes()).into()),
        }
    }

    fn to_hex(self) -> String {
        crate::ids::hex(&self.digest)
    }
}

impl fmt::Debug for Binding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Binding({})", self.to_hex())
    }
}

/// JSON with object keys sorted at every level.
fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (i, (key, value)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                write_canonical(value, out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

/// What a sealed state carries from one round to the next.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct StatePayload {
    /// The answers given in earlier rounds, by input-request key.
    #[serde(rename = "a", default, skip_serializing_if = "Map::is_empty")]
    pub answers: Map<String, Value>,
    /// Values the handler saved with `RequestContext::save`.
    #[serde(rename = "s", default, skip_serializing_if = "Map::is_empty")]
    pub saved: Map<String, Value>,
    /// The keys of the input requests the round that sealed this state asked: the only
    /// answers the next round takes.
    #[serde(rename = "q", default, skip_serializing_if = "Vec::is_empty")]
    pub asked: Vec<String>,
}

/// The sealed envelope: the payload plus what binds it to one request and one time window.
#[derive(Serialize, Deserialize)]
struct Envelope {
    /// Format version.
    v: u8,
    /// Hex SHA-256 binding of the request.
    b: String,
    /// Expiry, in milliseconds since the Unix epoch.
    e: u64,
    /// A random nonce, so two states of the same request never repeat.
    n: String,
    #[serde(flatten)]
    payload: StatePayload,
}

/// Why a `requestState` was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StateError {
    /// Not produced by this server's key, or altered.
    Tampered,
    /// Produced for this server, but too long ago.
    Expired,
    /// Produced for another request (other method, name or arguments), or for another
    /// principal.
    Foreign,
    /// Already redeemed once (`config.request_state.request_state_single_use`).
    Redeemed,
    /// Cannot be checked for reuse: [`SINGLE_USE_CAPACITY`] redeemed states are remembered.
    Busy,
}

impl StateError {
    /// The JSON-RPC error the client gets: `-32602` with a message naming the reason.
    pub fn into_rpc_error(self) -> RpcError {
        let message = match self {
            StateError::Tampered => "Invalid params: requestState integrity check failed",
            StateError::Expired => "Invalid params: requestState has expired; start the request again",
            StateError::Foreign => {
                "Invalid params: requestState belongs to another request (method, name, arguments or caller differ)"
            }
            StateError::Redeemed => {
                "Invalid params: requestState was already used (this server accepts each state once); start the request again"
            }
            StateError::Busy => {
                "Invalid params: requestState cannot be checked for reuse now (too many recent retries); try again later"
            }
        };
        RpcError::invalid_params(message)
    }
}

/// Seals `requestState` values with the current HMAC-SHA256 key, and opens those sealed with
/// it or with the previous key.
#[derive(Debug, Clone)]
pub(crate) struct StateSealer {
    key: SealingKey,
    /// The key before the last rotation: still opens, never seals.
    previous: Option<SealingKey>,
    ttl: Duration,
    /// The states redeemed, when each may be redeemed only once.
    redeemed: Option<Arc<Redeemed>>,
    /// Set when `key` was made at random, not given: the first state sealed warns (once) that
    /// it resumes only on this instance and until it restarts.
    random_key: Option<Arc<std::sync::Once>>,
}

impl StateSealer {
    /// A sealer with this `key` and no previous one; states expire `ttl` after they are sealed.
    pub fn new(key: SealingKey, ttl: Duration) -> Self {
        Self {
            key,
            previous: None,
            ttl,
            redeemed: None,
            random_key: None,
        }
    }

    /// Says that the key was made at random (no key was configured): the first state sealed
    /// warns about what that costs. A server that never seals a state (no multi round-trip
    /// request) never warns.
    pub fn random_key(mut self, random: bool) -> Self {
        self.random_key = random.then(|| Arc::new(std::sync::Once::new()));
        self
    }

    /// Also opens states sealed with `previous` (a key being rotated out).
    pub fn with_previous(mut self, previous: Option<SealingKey>) -> Self {
        // The same key twice would only verify a bad MAC twice.
        self.previous = previous.filter(|previous| *previous != self.key);
        self
    }

    /// Opens each state at most once when `single_use` is set.
    pub fn single_use(mut self, single_use: bool) -> Self {
        self.redeemed = single_use.then(|| Arc::new(Redeemed::new(SINGLE_USE_CAPACITY)));
        self
    }

    /// Seals `payload` for the request `binding`.
    pub fn seal(&self, binding: Binding, payload: StatePayload) -> String {
        if let Some(once) = &self.random_key {
            once.call_once(|| {
                tracing::warn!(
                    "{KEY_ENV} (or --request-state-key-file) is not set: requestState is sealed \
                     with a random key, so multi round-trip requests only resume on this \
                     instance and until it restarts"
                );
            });
        }
        self.seal_at(binding, payload, now_ms())
    }

    fn seal_at(&self, binding: Binding, payload: StatePayload, now_ms: u64) -> String {
        let mut nonce = [0u8; 12];
        crate::ids::random_bytes(&mut nonce);
        let envelope = Envelope {
            v: 1,
            b: binding.to_hex(),
            e: now_ms.saturating_add(self.ttl.as_millis() as u64),
            n: URL_SAFE_NO_PAD.encode(nonce),
            payload,
        };
        let json = serde_json::to_vec(&envelope).expect("the envelope serializes");
        let mac = mac(&self.key, &json);
        format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(&json),
            URL_SAFE_NO_PAD.encode(mac)
        )
    }

    /// Opens a state sealed for `binding`, checking integrity first (the current key, then the
    /// previous one), then expiry, then binding, then (single-use) that it was not opened
    /// before.
    pub fn open(&self, state: &str, binding: Binding) -> Result<StatePayload, StateError> {
        self.open_at(state, binding, now_ms())
    }

    fn open_at(
        &self,
        state: &str,
        binding: Binding,
        now_ms: u64,
    ) -> Result<StatePayload, StateError> {
        let (body, mac) = state.split_once('.').ok_or(StateError::Tampered)?;
        let json = URL_SAFE_NO_PAD
            .decode(body)
            .map_err(|_| StateError::Tampered)?;
        let mac: [u8; 32] = URL_SAFE_NO_PAD
            .decode(mac)
            .ok()
            .and_then(|mac| mac.try_into().ok())
            .ok_or(StateError::Tampered)?;
        let verified = verifies(&self.key, &json, &mac)
            || self
                .previous
                .as_ref()
                .is_some_and(|previous| verifies(previous, &json, &mac));
        if !verified {
            return Err(StateError::Tampered);
        }
        let envelope: Envelope = serde_json::from_slice(&json).map_err(|_| StateError::Tampered)?;
        if envelope.v != 1 {
            return Err(StateError::Tampered);
        }
        if envelope.e <= now_ms {
            return Err(StateError::Expired);
        }
        if envelope.b != binding.to_hex() {
            return Err(StateError::Foreign);
        }
        if let Some(redeemed) = &self.redeemed {
            // The MAC names the state: it covers the whole payload, random nonce included.
            redeemed.redeem(envelope.e, mac, binding.owner, now_ms)?;
        }
        Ok(envelope.payload)
    }
}

/// HMAC-SHA256 of `data` under `key`.
fn mac(key: &SealingKey, data: &[u8]) -> [u8; 32] {
    let mut mac = HmacSha256::new_from_slice(&key.0).expect("HMAC takes any key");
    mac.update(data);
    mac.finalize().into_bytes().into()
}

/// Whether `tag` is the MAC of `data` under `key`, compared in constant time.
fn verifies(key: &SealingKey, data: &[u8], tag: &[u8; 32]) -> bool {
    let mut verifier = HmacSha256::new_from_slice(&key.0).expect("HMAC takes any key");
    verifier.update(data);
    verifier.verify_slice(tag).is_ok()
}

/// The states already redeemed, by expiry and MAC, each kept until it expires: a state is
/// only checked here on a retry that carries it, so ordinary calls never touch this set.
#[derive(Debug)]
struct Redeemed {
    capacity: usize,
    per_owner: usize,
    held: Mutex<Held>,
}

/// What [`Redeemed`] keeps.
#[derive(Debug, Default)]
struct Held {
    /// Ordered by expiry first, so the expired ones are pruned from the front; with the
    /// owner's digest, to count it down when pruned.
    states: BTreeSet<(u64, [u8; 32], Option<[u8; 32]>)>,
    /// How many of `states` each owner holds.
    by_owner: HashMap<[u8; 32], usize>,
}

impl Redeemed {
    fn new(capacity: usize) -> Self {
        Self::with_share(capacity, SINGLE_USE_PER_PRINCIPAL)
    }

    fn with_share(capacity: usize, per_owner: usize) -> Self {
        Self {
            capacity,
            per_owner,
            held: Mutex::default(),
        }
    }

    /// Records the state (`expiry`, `mac`) of `owner` as redeemed; refuses one redeemed
    /// before, and one more when the server, or its owner, holds its maximum.
    fn redeem(
        &self,
        expiry: u64,
        mac: [u8; 32],
        owner: Option<[u8; 32]>,
        now_ms: u64,
    ) -> Result<(), StateError> {
        let mut held = self.held.lock().unwrap_or_else(|p| p.into_inner());
        let Held { states, by_owner } = &mut *held;
        while states.first().is_some_and(|&(e, _, _)| e <= now_ms) {
            if let Some((_, _, Some(gone))) = states.pop_first() {
                if let Some(count) = by_owner.get_mut(&gone) {
                    *count -= 1;
                    if *count == 0 {
                        by_owner.remove(&gone);
                    }
                }
            }
        }
        if states.contains(&(expiry, mac, owner)) {
            return Err(StateError::Redeemed);
        }
        let owned = owner.map_or(0, |owner| by_owner.get(&owner).copied().unwrap_or(0));
        if states.len() >= self.capacity || owned >= self.per_owner {
            return Err(StateError::Busy);
        }
        states.insert((expiry, mac, owner));
        if let Some(owner) = owner {
            *by_owner.entry(owner).or_insert(0) += 1;
        }
        Ok(())
    }
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

#[cfg(test)]
mod tests;
