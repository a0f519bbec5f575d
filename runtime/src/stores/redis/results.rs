//! [`RedisResultStore`]: tool results over their budget ([`ResultStore`]), in Redis, readable
//! from every instance.
//!
//! A result is a string `{prefix}:result:{key}` set with `SET PX` (it expires by itself); a
//! page is read with `STRLEN` and `GETRANGE` in one round trip, so a page of a large result
//! costs its own bytes, not the whole.

use std::time::Duration;

use super::connection::Connection;

use crate::future::BoxFuture;
use crate::result_budget::{ResultStore, Slice};

/// Results over their budget in Redis (see the module documentation).
pub(crate) struct RedisResultStore {
    connection: Connection,
    prefix: String,
}

impl RedisResultStore {
    pub(crate) fn new(connection: Connection, prefix: &str) -> Self {
        Self {
            connection,
            prefix: prefix.to_owned(),
        }
    }

    fn key(&self, key: &str) -> String {
        format!("{}:result:{key}", self.prefix)
    }
}

impl ResultStore for RedisResultStore {
    fn keep<'a>(
        &'a self,
        key: &'a str,
        text: &'a str,
        keep: Duration,
    ) -> BoxFuture<'a, Result<(), String>> {
        Box::pin(async move {
            ::redis::cmd("SET")
                .arg(self.key(key))
                .arg(text)
                .arg("PX")
                .arg(keep.as_millis().max(1) as u64)
                .query_async::<()>(&mut self.connection.clone())
                .await
                .map_err(|e| e.to_string())
        })
    }

    fn read<'a>(
        &'a self,
        key: &'a str,
        from: usize,
        to: usize,
    ) -> BoxFuture<'a, Result<Option<Slice>, String>> {
        Box::pin(async move {
            let key = self.key(key);
            if to <= from {
                let len: usize = ::redis::cmd("STRLEN")
                    .arg(&key)
                    .query_async(&mut self.connection.clone())
                    .await
                    .map_err(|e| e.to_string())?;
                return Ok((len > 0).then_some(Slice {
                    len,
                    bytes: Vec::new(),
                }));
            }
            // GETRANGE's end is inclusive; -1 is the last byte.
            let last: i64 = i64::try_from(to - 1).unwrap_or(-1);
            let (len, bytes): (usize, Vec<u8>) = ::redis::pipe()
                .cmd("STRLEN")
                .arg(&key)
                .cmd("GETRANGE")
                .arg(&key)
                .arg(from as i64)
                .arg(last)
                .query_async(&mut self.connection.clone())
                .await
                .map_err(|e| e.to_string())?;
            Ok((len > 0).then_some(Slice { len, bytes }))
        })
    }
}
