//! The session-era Streamable HTTP transport against a real server on 127.0.0.1: status codes,
//! headers, SSE framing, replay, expiry, batches, cancellation, client requests, concurrent
//! sessions. Every message the server sends is checked against the official schema of the
//! negotiated version.
//!
//! One test binary, one module per behaviour: `limits` (slow and greedy clients), `quotas`
//! (per-session and per-stream bounds, slow SSE readers),
//! `protocol` (negotiation, methods, errors,
//! completion, pagination), `transport` (HTTP guards, 202s, batches, the tower service),
//! `sessions` (session rules, expiry, bounds, concurrency) and `streams` (SSE responses,
//! progress, logs, sampling, cancellation, GET streams, resumption).

#[path = "../support/mod.rs"]
mod support;

mod limits;
mod probes;
mod protocol;
mod quotas;
mod server_card;
mod sessions;
mod shutdown;
mod streams;
mod transport;

const VERSIONS: [&str; 3] = ["2025-03-26", "2025-06-18", "2025-11-25"];
