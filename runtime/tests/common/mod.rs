//! Helpers shared by the runtime's integration tests; each test uses part of them.
#![allow(dead_code)]

pub mod kubelet;
#[cfg(feature = "redis")]
pub mod redis;
