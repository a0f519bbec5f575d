//! Sealed `requestState` (`request_state.rs`): arbitrary tokens never open (and never panic),
//! a sealed state opens to what was sealed, and a state with any one bit flipped never opens.

use mcp_runtime::fuzzing::{Payload, Sealer};
use mcp_runtime::request_state::SealingKey;
use serde_json::Value;
use std::sync::OnceLock;
use std::time::Duration;

fn sealer() -> &'static Sealer {
    static SEALER: OnceLock<Sealer> = OnceLock::new();
    SEALER.get_or_init(|| {
        let key = SealingKey::new(*b"fuzzing-key-0123456789abcdef-xyz").expect("32 bytes");
        Sealer::new(key, Duration::from_secs(3600))
    })
}

/// Any text given as `requestState` is refused, without a panic.
pub fn check_arbitrary_token(token: &str) {
    let arguments = serde_json::json!({"a": 1});
    let opened = sealer().open(token, "tools/call", "t", Some(&arguments));
    assert!(opened.is_err(), "{token:?} opened: {opened:?}");
}

/// Sealing then opening for the same request gives the payload back; opening for another
/// request is refused; flipping bit `flip` (modulo the token's bits) makes the token
/// unopenable.
pub fn check_seal_open(payload: Payload, name: &str, arguments: Option<&Value>, flip: usize) {
    let state = sealer().seal("tools/call", name, arguments, payload.clone());
    let opened = sealer().open(&state, "tools/call", name, arguments);
    assert_eq!(opened.as_ref(), Ok(&payload), "{state}");
    let other_name = format!("{name}.");
    assert!(sealer()
        .open(&state, "tools/call", &other_name, arguments)
        .is_err());
    assert!(sealer()
        .open(&state, "prompts/get", name, arguments)
        .is_err());

    let mut bytes = state.clone().into_bytes();
    let bit = flip % (bytes.len() * 8);
    bytes[bit / 8] ^= 1 << (bit % 8);
    if let Ok(flipped) = String::from_utf8(bytes) {
        let opened = sealer().open(&flipped, "tools/call", name, arguments);
        assert!(
            opened.is_err(),
            "bit {bit} of {state:?} flipped, still opens: {opened:?}"
        );
    }
}
