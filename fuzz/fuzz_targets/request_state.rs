//! Sealed requestState (see `fuzz_checks/request_state.rs`): the input as a token never
//! opens; as saved JSON, it seals and opens back, and a flipped bit never opens.
#![no_main]

#[allow(dead_code)]
#[path = "../../runtime/tests/fuzz_checks/mod.rs"]
mod fuzz_checks;

use libfuzzer_sys::fuzz_target;
use mcp_runtime::fuzzing::Payload;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    fuzz_checks::request_state::check_arbitrary_token(text);
    if let Ok(value) = serde_json::from_str::<Value>(text) {
        // B7: only values that survive their own text.
        if serde_json::from_str::<Value>(&value.to_string())
            .ok()
            .as_ref()
            != Some(&value)
        {
            return;
        }
        let payload = Payload {
            saved: [("v".to_string(), value.clone())].into_iter().collect(),
            ..Payload::default()
        };
        fuzz_checks::request_state::check_seal_open(payload, text, Some(&value), data.len() * 7);
    }
});
