//! The scope check against what runs (see `fuzz_checks/authorization.rs`). The first byte
//! picks the announced `Mcp-Method`, the rest is the body.
#![no_main]

#[allow(dead_code)]
#[path = "../../runtime/tests/fuzz_checks/mod.rs"]
mod fuzz_checks;

use libfuzzer_sys::fuzz_target;

const ANNOUNCED: [Option<&str>; 4] = [
    None,
    Some("tools/call"),
    Some("resources/read"),
    Some("prompts/get"),
];

fuzz_target!(|data: &[u8]| {
    let Some((&pick, body)) = data.split_first() else {
        return;
    };
    fuzz_checks::authorization::check(body, ANNOUNCED[usize::from(pick) % ANNOUNCED.len()]);
});
