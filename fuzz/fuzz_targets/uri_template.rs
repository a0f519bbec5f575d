//! URI templates: no panic, bounded time, the reference matcher's answer on small inputs (see
//! `fuzz_checks/uri_template.rs`). The input is `template` NUL `uri`.
#![no_main]

#[allow(dead_code)]
#[path = "../../runtime/tests/fuzz_checks/mod.rs"]
mod fuzz_checks;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (template, uri) = text.split_once('\0').unwrap_or((text, ""));
    fuzz_checks::uri_template::check_match(template, uri);
});
