//! Helpers shared by the runtime's integration tests.

pub mod kubelet;
