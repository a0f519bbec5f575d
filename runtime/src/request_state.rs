//! The sealed `requestState` of multi round-trip requests (2026-07-28, SEP-2322).
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
//! tool/prompt/resource name and the canonical arguments) and an expiry. A state whose MAC does
//! not verify, whose expiry passed, or whose binding names another request is rejected before
//! anything in it is read. The payload is signed, not encrypted: the client can read what the
//! server saved, so handlers must not save secrets in it.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use std::fmt;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::jsonrpc::RpcError;

type HmacSha256 = Hmac<Sha256>;

/// The environment variable that holds the sealing key (at least 32 bytes of text).
pub const KEY_ENV: &str = "MCP_REQUEST_STATE_KEY";

/// The smallest key accepted, in bytes.
pub const MIN_KEY_LEN: usize = 32;

/// The secret that seals `requestState`. Every instance behind one load balancer needs the
/// same key, so that any of them can open a state another sealed.
#[derive(Clone, PartialEq, Eq)]
pub struct SealingKey(Vec<u8>);

impl SealingKey {
    /// A key from `bytes`; at least [`MIN_KEY_LEN`] bytes.
    pub fn new(bytes: impl Into<Vec<u8>>) -> Result<Self, String> {
        let bytes = bytes.into();
        if bytes.len() < MIN_KEY_LEN {
            return Err(format!(
                "the requestState key must be at least {MIN_KEY_LEN} bytes, got {}",
                bytes.len()
            ));
        }
        Ok(Self(bytes))
    }

    /// The key in [`KEY_ENV`], if set (see [`SealingKey::from_text`]).
    pub fn from_env() -> Result<Option<Self>, String> {
        match std::env::var(KEY_ENV) {
            Ok(text) => Self::from_text(&text)
                .map(Some)
                .map_err(|e| format!("{KEY_ENV}: {e}")),
            Err(_) => Ok(None),
        }
    }

    /// A key written as text: at least [`MIN_KEY_LEN`] random bytes as hex digits or base64
    /// (standard or URL-safe, padded or not), e.g. the output of `openssl rand -hex 32`. Any
    /// other text is refused: a passphrase, however long, has far fewer unguessable bits than
    /// its length suggests.
    pub fn from_text(text: &str) -> Result<Self, String> {
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
            Some(bytes) => Err(format!(
                "the requestState key must be at least {MIN_KEY_LEN} random bytes, got {}",
                bytes.len()
            )),
            None => Err(format!(
                "the requestState key must be {MIN_KEY_LEN} or more random bytes written as hex \
                 or base64 (e.g. `openssl rand -hex 32`); a passphrase is not a key"
            )),
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
pub(crate) struct Binding([u8; 32]);

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
        Self(hasher.finalize().into())
    }

    fn to_hex(self) -> String {
        crate::ids::hex(&self.0)
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
    /// Produced for another request (other method, name or arguments).
    Foreign,
}

impl StateError {
    /// The JSON-RPC error the client gets: `-32602` with a message naming the reason.
    pub fn into_rpc_error(self) -> RpcError {
        let message = match self {
            StateError::Tampered => "Invalid params: requestState integrity check failed",
            StateError::Expired => "Invalid params: requestState has expired; start the request again",
            StateError::Foreign => {
                "Invalid params: requestState belongs to another request (method, name or arguments differ)"
            }
        };
        RpcError::invalid_params(message)
    }
}

/// Seals and opens `requestState` values with one HMAC-SHA256 key.
#[derive(Debug, Clone)]
pub(crate) struct StateSealer {
    key: SealingKey,
    ttl: Duration,
}

impl StateSealer {
    /// A sealer with this `key`; states expire `ttl` after they are sealed.
    pub fn new(key: SealingKey, ttl: Duration) -> Self {
        Self { key, ttl }
    }

    /// Seals `payload` for the request `binding`.
    pub fn seal(&self, binding: Binding, payload: StatePayload) -> String {
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
        let mac = self.mac(&json);
        format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(&json),
            URL_SAFE_NO_PAD.encode(mac)
        )
    }

    /// Opens a state sealed for `binding`, checking integrity first, then expiry, then binding.
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
        let mac = URL_SAFE_NO_PAD
            .decode(mac)
            .map_err(|_| StateError::Tampered)?;
        let mut verifier = HmacSha256::new_from_slice(&self.key.0).expect("HMAC takes any key");
        verifier.update(&json);
        // Constant-time comparison.
        verifier
            .verify_slice(&mac)
            .map_err(|_| StateError::Tampered)?;
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
        Ok(envelope.payload)
    }

    fn mac(&self, data: &[u8]) -> [u8; 32] {
        let mut mac = HmacSha256::new_from_slice(&self.key.0).expect("HMAC takes any key");
        mac.update(data);
        mac.finalize().into_bytes().into()
    }
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_key_is_random_bytes_as_hex_or_base64_never_a_passphrase() {
        let hex = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";
        assert_eq!(SealingKey::from_text(hex).unwrap().0.len(), 32);
        assert_eq!(
            SealingKey::from_text(&format!(" {} \n", hex.to_uppercase()))
                .unwrap()
                .0,
            SealingKey::from_text(hex).unwrap().0
        );
        let base64 = "ABEiM0RVZneImaq7zN3u/wARIjNEVWZ3iJmqu8zd7v8=";
        assert_eq!(
            SealingKey::from_text(base64).unwrap().0,
            SealingKey::from_text(hex).unwrap().0
        );
        let url_safe = base64.replace('/', "_").replace('+', "-").replace('=', "");
        assert!(SealingKey::from_text(&url_safe).is_ok());
        let passphrase = "correct horse battery staple, and then some more words";
        assert!(SealingKey::from_text(passphrase)
            .unwrap_err()
            .contains("a passphrase is not a key"));
        assert!(SealingKey::from_text("00112233")
            .unwrap_err()
            .contains("at least 32"));
    }

    fn sealer() -> StateSealer {
        StateSealer::new(
            SealingKey::new(*b"0123456789abcdef0123456789abcdef").unwrap(),
            Duration::from_secs(60),
        )
    }

    fn payload() -> StatePayload {
        let mut payload = StatePayload::default();
        payload
            .answers
            .insert("name".into(), json!({"action": "accept"}));
        payload.saved.insert("step".into(), json!(2));
        payload
    }

    #[test]
    fn short_keys_are_refused() {
        assert!(SealingKey::new(*b"short").is_err());
    }

    #[test]
    fn round_trip() {
        let binding = Binding::new("tools/call", "t", Some(&json!({"a": 1})));
        let state = sealer().seal(binding, payload());
        assert_eq!(sealer().open(&state, binding), Ok(payload()));
    }

    #[test]
    fn two_seals_differ() {
        let binding = Binding::new("tools/call", "t", None);
        assert_ne!(
            sealer().seal(binding, payload()),
            sealer().seal(binding, payload())
        );
    }

    #[test]
    fn canonical_arguments() {
        let a: Value =
            serde_json::from_str(r#"{"x":1,"y":{"b":2,"a":[1,{"d":0,"c":1}]}}"#).unwrap();
        let b: Value =
            serde_json::from_str(r#"{"y":{"a":[1,{"c":1,"d":0}],"b":2},"x":1}"#).unwrap();
        assert_eq!(
            Binding::new("tools/call", "t", Some(&a)),
            Binding::new("tools/call", "t", Some(&b))
        );
    }

    #[test]
    fn tampered_states_are_refused() {
        let binding = Binding::new("tools/call", "t", None);
        let state = sealer().seal(binding, payload());
        for bad in [
            format!("{state}-TAMPERED"),
            state.replacen('e', "f", 1),
            state.split('.').next().unwrap().to_string(),
            String::new(),
            "not.base64!".into(),
        ] {
            assert_eq!(
                sealer().open(&bad, binding),
                Err(StateError::Tampered),
                "{bad}"
            );
        }
        let other_key = StateSealer::new(SealingKey::random(), Duration::from_secs(60));
        assert_eq!(other_key.open(&state, binding), Err(StateError::Tampered));
    }

    #[test]
    fn expired_states_are_refused() {
        let binding = Binding::new("tools/call", "t", None);
        let state = sealer().seal_at(binding, payload(), 1_000);
        assert_eq!(
            sealer().open_at(&state, binding, 1_000 + 60_000),
            Err(StateError::Expired)
        );
        assert!(sealer().open_at(&state, binding, 1_000 + 59_999).is_ok());
    }

    #[test]
    fn states_do_not_move_to_other_requests() {
        let binding = Binding::new("tools/call", "t", Some(&json!({"a": 1})));
        let state = sealer().seal(binding, payload());
        for other in [
            Binding::new("tools/call", "t", Some(&json!({"a": 2}))),
            Binding::new("tools/call", "u", Some(&json!({"a": 1}))),
            Binding::new("prompts/get", "t", Some(&json!({"a": 1}))),
        ] {
            assert_eq!(sealer().open(&state, other), Err(StateError::Foreign));
        }
    }
}
