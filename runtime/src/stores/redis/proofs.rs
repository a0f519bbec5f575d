//! [`RedisProofs`]: the DPoP proofs every instance has seen ([`SharedProofs`]), in Redis.
//!
//! A proof is a key `{prefix}:dpop:<64 hex>` (the SHA-256 of its key's thumbprint and its
//! `jti`) set with `SET NX PX`: set means its first use anywhere, not set a replay. It expires
//! when the proof could no longer be presented anyway.

use std::time::Duration;

use super::connection::Connection;

use crate::auth::SharedProofs;
use crate::future::BoxFuture;

/// DPoP proofs in Redis (see the module documentation).
pub(crate) struct RedisProofs {
    connection: Connection,
    prefix: String,
}

impl RedisProofs {
    pub(crate) fn new(connection: Connection, prefix: &str) -> Self {
        Self {
            connection,
            prefix: prefix.to_owned(),
        }
    }
}

impl SharedProofs for RedisProofs {
    fn first_use<'a>(
        &'a self,
        digest: &'a [u8; 32],
        keep: Duration,
    ) -> BoxFuture<'a, Result<bool, String>> {
        Box::pin(async move {
            let key = format!("{}:dpop:{}", self.prefix, crate::ids::hex(digest));
            let set: Option<String> = ::redis::cmd("SET")
                .arg(&key)
                .arg(1)
                .arg("NX")
                .arg("PX")
                .arg(keep.as_millis().max(1) as u64)
                .query_async(&mut self.connection.clone())
                .await
                .map_err(|e| e.to_string())?;
            Ok(set.is_some())
        })
    }
}
