//! The SSE writer against the `sse-stream` parser (see `fuzz_checks/sse.rs`): any JSON text
//! reads back as the same JSON. The first two bytes pick where the frame is cut into chunks.
#![no_main]

#[allow(dead_code)]
#[path = "../../runtime/tests/fuzz_checks/mod.rs"]
mod fuzz_checks;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let [a, b, json @ ..] = data else {
        return;
    };
    fuzz_checks::sse::check_frame(json, &[usize::from(*a), usize::from(*b) * 3]);
});
