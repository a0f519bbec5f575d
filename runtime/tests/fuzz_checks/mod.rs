//! The properties the fuzz targets check, one module per parser. Each `check_*` takes raw
//! input (what a fuzzer generates), runs the runtime's parser through `mcp_runtime::fuzzing`
//! or its public API, and panics with the input and the disagreement when the parser and an
//! independent reading of the same input differ.
//!
//! Shared by the stable property tests (`runtime/tests/fuzz_props.rs`, proptest) and the
//! cargo-fuzz targets (`fuzz/fuzz_targets/*.rs`, which include this directory by path), so
//! both fuzzers check the same thing.

pub mod authorization;
pub mod headers;
pub mod incoming;
pub mod request_state;
pub mod sse;
pub mod uri_template;
