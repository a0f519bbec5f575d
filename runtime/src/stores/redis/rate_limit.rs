//! [`RedisRateBuckets`]: the shared rate-limit buckets (`--rate-limit-shared`) in Redis.
//!
//! A bucket is a hash (`t`: tokens, `at`: when, ms by Redis's clock) under
//! `{prefix}:rate:{<caller>}` (the caller's own) or `{prefix}:rate:{<caller>}:<target>` (the
//! caller's bucket of one tool, prompt or URI), each part a 32-hex digest. The braces are a
//! Cluster hash tag: a call's buckets sit in one slot, so one script can take them both. A
//! bucket expires after its period untouched, when it would be full again anyway.
//!
//! A call is one `EVALSHA` of [`TAKE`] (loaded at start; loaded again by `EVAL` if Redis lost
//! it, e.g. after a restart): refill by Redis's `TIME`, so every instance's clock agrees,
//! then take a token from each bucket, or none if one has none.

use std::sync::Mutex;

use super::connection::Connection;
use ::redis::{ErrorKind, RedisError, ServerErrorKind};

use crate::future::BoxFuture;
use crate::rate_limit::shared::{SharedBucket, SharedBuckets};

/// Refill and take, all or none.
///
/// KEYS: the buckets. ARGV: per bucket, its size and its period (ms). Returns `{0, 0}` when
/// taken, else `{i, ms}`: bucket `i` (from 1) has no token, one comes in `ms`.
const TAKE: &str = r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local left = {}
for i = 1, #KEYS do
  local size = tonumber(ARGV[2 * i - 1])
  local per = tonumber(ARGV[2 * i])
  local b = redis.call('HMGET', KEYS[i], 't', 'at')
  local tokens = tonumber(b[1])
  local at = tonumber(b[2])
  if tokens == nil or at == nil then
    tokens = size
  else
    tokens = math.min(size, tokens + math.max(0, now - at) * size / per)
  end
  if tokens < 1 then
    return {i, math.max(1, math.ceil((1 - tokens) * per / size))}
  end
  left[i] = tokens - 1
end
for i = 1, #KEYS do
  redis.call('HSET', KEYS[i], 't', tostring(left[i]), 'at', now)
  redis.call('PEXPIRE', KEYS[i], ARGV[2 * i])
end
return {0, 0}
";

/// Rate-limit buckets in Redis (see the module documentation).
#[doc(hidden)]
pub struct RedisRateBuckets {
    connection: Connection,
    prefix: String,
    /// The SHA1 of [`TAKE`] as Redis reported it when loading it.
    sha: Mutex<String>,
}

impl std::fmt::Debug for RedisRateBuckets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisRateBuckets")
            .field("prefix", &self.prefix)
            .finish_non_exhaustive()
    }
}

impl RedisRateBuckets {
    /// Loads the script into the Redis behind `connection`.
    pub(super) async fn start(
        mut connection: Connection,
        prefix: &str,
    ) -> Result<Self, RedisError> {
        let sha: String = ::redis::cmd("SCRIPT")
            .arg("LOAD")
            .arg(TAKE)
            .query_async(&mut connection)
            .await?;
        Ok(Self {
            connection,
            prefix: prefix.to_owned(),
            sha: Mutex::new(sha),
        })
    }

    fn key(&self, bucket: &SharedBucket) -> String {
        match &bucket.target {
            None => format!("{}:rate:{{{}}}", self.prefix, bucket.caller),
            Some(target) => format!("{}:rate:{{{}}}:{target}", self.prefix, bucket.caller),
        }
    }

    async fn run(&self, buckets: &[SharedBucket]) -> Result<(i64, i64), RedisError> {
        let sha = self.sha.lock().unwrap_or_else(|p| p.into_inner()).clone();
        let mut connection = self.connection.clone();
        let invoke = |command: &str, script: &str| {
            let mut cmd = ::redis::cmd(command);
            cmd.arg(script).arg(buckets.len());
            for bucket in buckets {
                cmd.arg(self.key(bucket));
            }
            for bucket in buckets {
                cmd.arg(bucket.rate.count()).arg(bucket.rate.per_ms());
            }
            cmd
        };
        match invoke("EVALSHA", &sha).query_async(&mut connection).await {
            Err(error) if error.kind() == ErrorKind::Server(ServerErrorKind::NoScript) => {
                // Redis restarted or flushed its scripts: EVAL caches it again.
                invoke("EVAL", TAKE).query_async(&mut connection).await
            }
            answer => answer,
        }
    }
}

impl SharedBuckets for RedisRateBuckets {
    fn take<'a>(
        &'a self,
        buckets: &'a [SharedBucket],
    ) -> BoxFuture<'a, Result<Option<(usize, u64)>, String>> {
        Box::pin(async move {
            match self.run(buckets).await {
                Ok((0, _)) => Ok(None),
                Ok((index, ms)) => Ok(Some((
                    usize::try_from(index - 1).unwrap_or_default(),
                    u64::try_from(ms).unwrap_or(1),
                ))),
                Err(error) => Err(error.to_string()),
            }
        })
    }
}
