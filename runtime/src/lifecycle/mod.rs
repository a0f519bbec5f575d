//! A server's life as an orchestrator sees it: whether it is ready for traffic
//! ([`readiness`], what `/readyz` reports), what it holds at one moment ([`load`], what
//! metrics read), and the signals that stop it ([`shutdown`]). Leaves: they import nothing
//! of the crate, and the configuration, the HTTP edge, telemetry and the entry point use them.

pub mod load;
pub mod readiness;
pub mod shutdown;
