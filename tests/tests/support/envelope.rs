//! Requests whose JSON-RPC envelope is wrong, and how their refusal looks: shared by the HTTP
//! and stdio envelope tests.

use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// The session-era revisions, oldest first.
pub const SESSION_VERSIONS: [&str; 3] = ["2025-03-26", "2025-06-18", "2025-11-25"];

/// What is wrong with a request's envelope.
#[derive(Clone, Copy, Debug)]
pub enum Flaw {
    /// An `id` that is neither a string nor a number: `null`, `{}`, `[]`, `true`.
    Id,
    /// A `jsonrpc` other than `"2.0"`, or none.
    Jsonrpc,
}

/// Requests that are not valid JSON-RPC 2.0 requests because of `flaw`, each with a label,
/// built around a valid `method` and `params`.
pub fn bad_envelopes(flaw: Flaw, method: &str, params: Value) -> Vec<(&'static str, Value)> {
    match flaw {
        Flaw::Id => vec![
            (
                "id null",
                json!({"jsonrpc": "2.0", "id": null, "method": method, "params": params}),
            ),
            (
                "id object",
                json!({"jsonrpc": "2.0", "id": {}, "method": method, "params": params}),
            ),
            (
                "id array",
                json!({"jsonrpc": "2.0", "id": [], "method": method, "params": params}),
            ),
            (
                "id true",
                json!({"jsonrpc": "2.0", "id": true, "method": method, "params": params}),
            ),
        ],
        Flaw::Jsonrpc => vec![
            (
                "jsonrpc 1.0",
                json!({"jsonrpc": "1.0", "id": 7, "method": method, "params": params}),
            ),
            (
                "jsonrpc missing",
                json!({"id": 7, "method": method, "params": params}),
            ),
        ],
    }
}

/// Whether `answer` is an Invalid Request error (`-32600`) with `id: null` and no result.
pub fn is_invalid_request(answer: &Value) -> bool {
    answer["jsonrpc"] == json!("2.0")
        && answer.get("id").is_some_and(Value::is_null)
        && answer["error"]["code"] == json!(-32600)
        && answer.get("result").is_none()
}

/// Waits up to 2 s for `ready` to hold.
pub async fn eventually(mut ready: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + Duration::from_secs(2);
    loop {
        if ready() {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

fn count_call(id: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "count", "arguments": {}}})
        .to_string()
}

// 1 (d): bad envelopes on stdio.
