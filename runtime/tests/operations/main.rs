//! Operations (issue 34), against servers on 127.0.0.1: middleware around every call, audit
//! records and rate limits. One test binary (its modules share `ops`): each integration test
//! file is a binary of its own to compile and link, which a fresh clone's `cargo test` pays for.

mod audit;
mod middleware;
#[allow(dead_code)]
mod ops;
mod rate_limits;
mod result_budgets;
