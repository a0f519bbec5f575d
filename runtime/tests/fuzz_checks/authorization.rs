//! The scope check against what runs: for any message, the method and target (tool or
//! prompt name, resource URI) the HTTP edge authorizes are exactly those the engine would
//! run, whatever the order of the members, escapes in their names or values, or the
//! `Mcp-Method` header; and what runs is what a `serde_json::Value` reading of the text
//! names.

use mcp_runtime::fuzzing::{authorization_decision, Decision};
use serde_json::Value;

/// Panics when `body` is authorized as one call and would run as another.
pub fn check(body: &[u8], announced: Option<&str>) {
    let Ok(text) = std::str::from_utf8(body) else {
        return;
    };
    let Some(Decision { authorized, runs }) = authorization_decision(text, announced) else {
        return;
    };
    assert_eq!(
        authorized, runs,
        "authorized as one call, runs as another: {text:?} (Mcp-Method {announced:?})"
    );
    let Some((method, target)) = runs else {
        return;
    };
    // Text serde_json's `Value` refuses though the reader skips it (a lone surrogate escape
    // in an ignored member): the reader's own target, `incoming`, covers that difference.
    let Ok(value) = serde_json::from_str::<Value>(text) else {
        return;
    };
    assert_eq!(value["method"].as_str(), Some(method.as_str()), "{text:?}");
    let member = if method == "resources/read" {
        "uri"
    } else {
        "name"
    };
    assert_eq!(
        value["params"][member].as_str(),
        Some(target.as_str()),
        "the call runs on another target than its text names: {text:?}"
    );
}
