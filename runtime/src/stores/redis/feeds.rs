//! [`RedisFeeds`]: a gateway's upstream subscriptions shared by its instances (features
//! `redis` and `upstream`): one subscription at the upstream per resource URI for the whole
//! deployment, and its window in Redis, where any instance reads it.
//!
//! Per URI, under one hash tag (the first 32 hex digits of the URI's SHA-256, so that a
//! script's keys share a slot on Redis Cluster and no URI appears in a key):
//!
//! | key | type | what |
//! |---|---|---|
//! | `{prefix}:feed:{digest}:holder` | string, expiring ([`FEED_LEASE`]) | the instance that holds the subscription at the upstream (its lease) |
//! | `{prefix}:feed:{digest}:wanted` | sorted set, instance → expiry (ms) | the instances with a client of it, each renewed every [`SHARE_EVERY`] |
//! | `{prefix}:feed:{digest}:events` | list, newest first | the window: the latest events |
//! | `{prefix}:feed:{digest}:counts` | hash: `received`, `reopened` | what a read shows beside the events |
//!
//! The window and the counts expire two leases after the holder last renewed (a holder that
//! stops without a successor leaves nothing behind), and go with the lease when nobody wants
//! the URI any more.
//!
//! Cost per open URI: one round trip per interested instance every [`SHARE_EVERY`]; per event,
//! one pipelined round trip of the holder (whatever the number of instances), beside the
//! broadcast every event is anyway; per read, one round trip.

use super::connection::Connection;
use serde_json::value::RawValue;
use sha2::{Digest, Sha256};
use std::fmt::Write as _;

use crate::future::BoxFuture;
use crate::upstream::{Renewal, SharedFeeds, Snapshot, FEED_LEASE, SHARE_EVERY};

/// Records the instance as wanting the URI until ARGV[3]; takes the lease if it is free.
/// Returns 1 when the instance holds it, 0 when another does.
///
/// KEYS: holder, wanted. ARGV: instance, now (ms), expiry (ms), lease (ms).
const CLAIM: &str = r"
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
redis.call('PEXPIRE', KEYS[2], ARGV[4])
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] then return 1 end
if holder then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[4])
return 1
";

/// The holder's renewal: -1 when another instance holds the lease; 1 (renewed, the window
/// kept) while the holder (ARGV[4] = 1) or another instance still wants the URI; else 0, the
/// lease and the window deleted.
///
/// KEYS: holder, wanted, events, counts. ARGV: instance, now (ms), lease (ms), wanted here.
const RENEW: &str = r"
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return -1 end
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[2])
if ARGV[4] == '1' or redis.call('ZCARD', KEYS[2]) > 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
  redis.call('PEXPIRE', KEYS[3], 2 * tonumber(ARGV[3]))
  redis.call('PEXPIRE', KEYS[4], 2 * tonumber(ARGV[3]))
  return 1
end
redis.call('DEL', KEYS[1], KEYS[3], KEYS[4])
return 0
";

/// Gives the lease up if the instance holds it. KEYS: holder. ARGV: instance.
const RELEASE: &str = r"
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 0
";

/// The shared side of a gateway's subscriptions (see the module documentation).
pub(crate) struct RedisFeeds {
    connection: Connection,
    prefix: String,
    /// This instance's name in the leases.
    instance: String,
}

/// The keys of one URI.
struct Keys {
    holder: String,
    wanted: String,
    events: String,
    counts: String,
}

impl RedisFeeds {
    /// The subscriptions of the instances sharing `prefix` through `connection`.
    pub(crate) fn new(connection: Connection, prefix: &str) -> Self {
        Self {
            connection,
            prefix: prefix.to_string(),
            instance: crate::ids::random_id(),
        }
    }

    fn keys(&self, uri: &str) -> Keys {
        let digest = Sha256::digest(uri.as_bytes());
        let mut base = format!("{}:feed:{{", self.prefix);
        for byte in &digest[..16] {
            let _ = write!(base, "{byte:02x}");
        }
        base.push('}');
        Keys {
            holder: format!("{base}:holder"),
            wanted: format!("{base}:wanted"),
            events: format!("{base}:events"),
            counts: format!("{base}:counts"),
        }
    }
}

fn lease_ms() -> u64 {
    FEED_LEASE.as_millis() as u64
}

fn failed(error: ::redis::RedisError) -> String {
    format!("Redis: {error}")
}

impl SharedFeeds for RedisFeeds {
    fn claim<'a>(&'a self, uri: &'a str) -> BoxFuture<'a, Result<bool, String>> {
        Box::pin(async move {
            let keys = self.keys(uri);
            let now = crate::tasks::now_ms();
            let held: i64 = ::redis::cmd("EVAL")
                .arg(CLAIM)
                .arg(2)
                .arg(&keys.holder)
                .arg(&keys.wanted)
                .arg(&self.instance)
                .arg(now)
                .arg(now + lease_ms())
                .arg(lease_ms())
                .query_async(&mut self.connection.clone())
                .await
                .map_err(failed)?;
            Ok(held == 1)
        })
    }

    fn renew<'a>(
        &'a self,
        uri: &'a str,
        wanted_here: bool,
    ) -> BoxFuture<'a, Result<Renewal, String>> {
        Box::pin(async move {
            let keys = self.keys(uri);
            let renewed: i64 = ::redis::cmd("EVAL")
                .arg(RENEW)
                .arg(4)
                .arg(&keys.holder)
                .arg(&keys.wanted)
                .arg(&keys.events)
                .arg(&keys.counts)
                .arg(&self.instance)
                .arg(crate::tasks::now_ms())
                .arg(lease_ms())
                .arg(u8::from(wanted_here))
                .query_async(&mut self.connection.clone())
                .await
                .map_err(failed)?;
            Ok(match renewed {
                1 => Renewal::Held,
                0 => Renewal::Released,
                _ => Renewal::Lost,
            })
        })
    }

    fn release<'a>(&'a self, uri: &'a str) -> BoxFuture<'a, Result<(), String>> {
        Box::pin(async move {
            ::redis::cmd("EVAL")
                .arg(RELEASE)
                .arg(1)
                .arg(self.keys(uri).holder)
                .arg(&self.instance)
                .query_async::<i64>(&mut self.connection.clone())
                .await
                .map(drop)
                .map_err(failed)
        })
    }

    fn push<'a>(
        &'a self,
        uri: &'a str,
        event: Option<&'a RawValue>,
        window: usize,
    ) -> BoxFuture<'a, Result<(), String>> {
        Box::pin(async move {
            let keys = self.keys(uri);
            let keep = 2 * lease_ms();
            let mut pipe = ::redis::pipe();
            match event {
                Some(event) => {
                    pipe.cmd("LPUSH")
                        .arg(&keys.events)
                        .arg(event.get())
                        .ignore();
                    pipe.cmd("LTRIM")
                        .arg(&keys.events)
                        .arg(0)
                        .arg(window.saturating_sub(1))
                        .ignore();
                    pipe.cmd("PEXPIRE").arg(&keys.events).arg(keep).ignore();
                    pipe.cmd("HINCRBY")
                        .arg(&keys.counts)
                        .arg("received")
                        .arg(1)
                        .ignore();
                }
                None => {
                    pipe.cmd("HINCRBY")
                        .arg(&keys.counts)
                        .arg("reopened")
                        .arg(1)
                        .ignore();
                }
            }
            pipe.cmd("PEXPIRE").arg(&keys.counts).arg(keep).ignore();
            pipe.query_async::<()>(&mut self.connection.clone())
                .await
                .map_err(failed)
        })
    }

    fn read<'a>(&'a self, uri: &'a str) -> BoxFuture<'a, Result<Snapshot, String>> {
        Box::pin(async move {
            let keys = self.keys(uri);
            let (open, counts, events): (bool, (Option<u64>, Option<u64>), Vec<String>) =
                ::redis::pipe()
                    .cmd("EXISTS")
                    .arg(&keys.holder)
                    .cmd("HMGET")
                    .arg(&keys.counts)
                    .arg("received")
                    .arg("reopened")
                    .cmd("LRANGE")
                    .arg(&keys.events)
                    .arg(0)
                    .arg(-1)
                    .query_async(&mut self.connection.clone())
                    .await
                    .map_err(failed)?;
            if !open {
                return Ok(Snapshot::default());
            }
            // Newest first in Redis; each was a JSON value when pushed.
            let events = events
                .into_iter()
                .rev()
                .filter_map(|event| RawValue::from_string(event).ok())
                .collect();
            Ok(Snapshot {
                open,
                received: counts.0.unwrap_or(0),
                reopened: counts.1.unwrap_or(0),
                events,
            })
        })
    }
}

// `SHARE_EVERY` is what the lease outlives: a holder renews three times within it.
const _: () = assert!(FEED_LEASE.as_millis() >= 3 * SHARE_EVERY.as_millis());

#[cfg(test)]
mod tests {
    //! Against a real `redis-server` (as `stores/redis/tests/shared.rs`), two instances.

    use super::*;
    use crate::stores::redis::tests::harness as server;

    async fn instance(redis: &server::Redis) -> RedisFeeds {
        let link = super::super::Link::node(&redis.url(), None).unwrap();
        let connection = super::super::open(&link).await.unwrap();
        RedisFeeds::new(connection, "f")
    }

    fn raw(text: &str) -> Box<RawValue> {
        RawValue::from_string(text.into()).unwrap()
    }

    #[tokio::test]
    async fn one_instance_holds_a_uri_the_others_follow_and_read_its_window() {
        let redis = server::Redis::start();
        let (a, b) = (instance(&redis).await, instance(&redis).await);
        let heads = "eth://subscription/newHeads";
        assert!(a.claim(heads).await.unwrap(), "the first takes the lease");
        assert!(!b.claim(heads).await.unwrap(), "the second follows");
        assert!(a.claim(heads).await.unwrap(), "the holder keeps it");
        for event in ["1", "2", "3"] {
            a.push(heads, Some(&raw(event)), 2).await.unwrap();
        }
        a.push(heads, None, 2).await.unwrap();
        let read = b.read(heads).await.unwrap();
        let events: Vec<&str> = read.events.iter().map(|e| e.get()).collect();
        assert_eq!(
            (read.open, read.received, read.reopened, events),
            (true, 3, 1, vec!["2", "3"])
        );
        // The second still wants it: renewed, even when the holder's clients are gone.
        assert_eq!(a.renew(heads, false).await.unwrap(), Renewal::Held);
        // Only the holder gives a lease up.
        b.release(heads).await.unwrap();
        assert_eq!(a.renew(heads, true).await.unwrap(), Renewal::Held);

        // Keys: one hash tag per URI, which the keys do not spell.
        let mut connection = a.connection.clone();
        let mut keys: Vec<String> = ::redis::cmd("KEYS")
            .arg("f:*")
            .query_async(&mut connection)
            .await
            .unwrap();
        keys.sort();
        let tag = &keys[0]["f:feed:".len()..][..34];
        assert!(tag.starts_with('{') && tag.ends_with('}'), "{keys:?}");
        let suffixes: Vec<&str> = keys.iter().map(|k| &k["f:feed:".len() + 34..]).collect();
        assert_eq!(suffixes, [":counts", ":events", ":holder", ":wanted"]);
        assert!(keys.iter().all(|k| !k.contains("newHeads")), "{keys:?}");
    }

    #[tokio::test]
    async fn a_uri_nobody_wants_is_released_with_its_window_and_a_lost_lease_is_seen() {
        let redis = server::Redis::start();
        let (a, b) = (instance(&redis).await, instance(&redis).await);
        let uri = "eth://subscription/logs";
        assert!(a.claim(uri).await.unwrap());
        a.push(uri, Some(&raw("{}")), 16).await.unwrap();
        assert_eq!(a.renew(uri, true).await.unwrap(), Renewal::Held);
        assert_eq!(a.renew(uri, false).await.unwrap(), Renewal::Released);
        let read = b.read(uri).await.unwrap();
        assert!(!read.open && read.events.is_empty() && read.received == 0);
        // Free again: the next instance takes it, and the one that lost it (cut from Redis
        // past its lease, here: the key deleted) learns it at its next renewal.
        assert!(b.claim(uri).await.unwrap());
        assert_eq!(a.renew(uri, true).await.unwrap(), Renewal::Lost);
        let holder = b.keys(uri).holder;
        let _: () = ::redis::cmd("DEL")
            .arg(&holder)
            .query_async(&mut b.connection.clone())
            .await
            .unwrap();
        assert!(a.claim(uri).await.unwrap());
        assert_eq!(b.renew(uri, true).await.unwrap(), Renewal::Lost);
        // A lease whose subscription did not open is given up at once.
        a.release(uri).await.unwrap();
        assert!(b.claim(uri).await.unwrap());
    }
}
