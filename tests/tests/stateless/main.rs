//! The stateless 2026-07-28 path of the endpoint, over real HTTP.
//!
//! - The era decision, validation errors in the specification's order with the request id
//!   echoed, `resultType` and cache hints, progress and logs on an SSE response.
//! - Multi round-trip requests (MRTR) on `tools/call`, `prompts/get` and `resources/read`: the
//!   first round is an `InputRequiredResult` listing every pending input request with a
//!   `requestState`; retries carry `inputResponses` and the echoed state; answers and
//!   `ctx.save` values travel in the state from round to round; a missing answer is asked
//!   again, unknown answers are ignored, malformed ones are `-32602`, `inputResponses: null`
//!   is no answer.
//! - `requestState` security: tampered, expired, moved to other arguments, another tool or
//!   another method, or sealed with another key → `-32602`; instances sharing one
//!   `SealingKey` resume each other's requests.
//! - Client capabilities: a request needing an undeclared capability is HTTP 400 `-32021`
//!   with `data.requiredCapabilities`; MRTR never asks for an undeclared capability.
//! - `Mcp-Param-*` headers (`x-mcp-header`): the Base64 form, numeric comparison of
//!   integers, case-insensitive names; malformed, mismatched, missing or unexpected headers
//!   are HTTP 400 `-32020`.
//!
//! - Request-scoped notifications: closing a streamed answer cancels its handler within 100 ms;
//!   log messages only at or above the `_meta` log level, before the result.
//!
//! Every server message is checked against the official 2026-07-28 schema as it arrives
//! (`support::stateless::exchange`), `InputRequiredResult` and the error shapes included.
//!
//! One test binary, one module per behaviour: `validation` (era decision, error order),
//! `results` (`resultType`, cache hints), `rounds` (MRTR rounds), `request_state`
//! (`requestState` security), `capabilities` (client capabilities), `param_headers`
//! (`Mcp-Param-*` headers) and `notifications` (progress, logs, cancellation on close).

#[path = "../support/mod.rs"]
mod support;

mod capabilities;
mod notifications;
mod param_headers;
mod request_state;
mod results;
mod rounds;
mod validation;

use serde_json::{json, Value};
use std::net::SocketAddr;

use support::stateless::{exchange, Answer};

/// A stateless request declaring no client capabilities.
async fn call(addr: SocketAddr, id: i64, method: &str, params: Value) -> Answer {
    exchange(addr, id, method, params, json!({}), &[]).await
}

/// A `tools/call` declaring no client capabilities, with `extra` headers.
async fn call_tool(
    addr: SocketAddr,
    id: i64,
    name: &str,
    arguments: Value,
    extra: &[(&str, &str)],
) -> Answer {
    let params = json!({"name": name, "arguments": arguments});
    exchange(addr, id, "tools/call", params, json!({}), extra).await
}
