//! Header values: `Mcp-Param-*`/`Mcp-Name` decoding, `Host`, `Origin`, `Last-Event-ID` (see
//! `fuzz_checks/headers.rs`). The input is one header value, tried as each.
#![no_main]

#[allow(dead_code)]
#[path = "../../runtime/tests/fuzz_checks/mod.rs"]
mod fuzz_checks;

use fuzz_checks::headers;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    headers::check_host(data);
    headers::check_origin(data);
    if let Ok(text) = std::str::from_utf8(data) {
        headers::check_decode(text);
        headers::check_encoded_round_trip(text);
        headers::check_last_event_id(text);
        let (argument, other) = text.split_once('\n').unwrap_or((text, text));
        headers::check_string_param(argument, other, data.len() % 2 == 0, data);
    }
});
