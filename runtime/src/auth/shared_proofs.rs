//! [`SharedProofs`]: the DPoP proofs every instance has seen, so that a proof used on one
//! instance is a replay on all of them (RFC 9449 §11.1).
//!
//! Each instance keeps its own replay memory (`jwt::dpop`); with a shared one set
//! (`stores::redis::connect` sets Redis's), a proof this instance has not seen is
//! also recorded there before it is accepted, and refused when another instance recorded it
//! first. When the shared memory does not answer, the instance's own memory decides alone
//! (logged): DPoP clients are not locked out while Redis is away.

use std::sync::Arc;
use std::time::Duration;

use crate::future::BoxFuture;

/// The replay memory several instances share.
pub trait SharedProofs: Send + Sync + 'static {
    /// Records the proof `digest` (a SHA-256 of its key's thumbprint and its `jti`) for
    /// `keep`: `Ok(true)` when no instance recorded it before, `Ok(false)` for a replay, `Err`
    /// (why) when the memory cannot say.
    #[cfg_attr(not(feature = "jwt"), allow(dead_code))] // DPoP proofs are checked with `jwt`
    fn first_use<'a>(
        &'a self,
        digest: &'a [u8; 32],
        keep: Duration,
    ) -> BoxFuture<'a, Result<bool, String>>;
}

tokio::task_local! {
    /// The shared memory, in reach of the authenticator while the HTTP edge runs it (set only
    /// when the server has one, so a request pays nothing for it otherwise). Only the JWT
    /// authenticator (feature `jwt`) reads it.
    pub(crate) static SHARED_PROOFS: Arc<dyn SharedProofs>;
}
