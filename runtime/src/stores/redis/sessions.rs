//! [`RedisSessionStore`]: session-era sessions shared by every instance through Redis.
//!
//! Each session is one hash, `{prefix}:session:{{sN}}:{id}`, expiring after the idle timeout:
//! `record` is its [`SessionRecord`] as created (JSON), and what changes later has a field
//! of its own, so that two instances changing one session at once both keep their change:
//! `level` (the log level rank), `sub:{uri}` (one per subscribed resource) and `seen` (ms
//! since the epoch at the last refresh).
//!
//! An instance holds a replica of every session it serves, in memory: a request finds it
//! without a round trip. A request naming a session the instance has not seen loads it once
//! (`HGETALL`, one round trip). The record's time to live is refreshed lazily, in the
//! background, when a replica is used and its last refresh is older than a quarter of the
//! time to live: a busy session costs one write every few minutes, not one per request.
//! `logging/setLevel` and `resources/(un)subscribe` write through before they answer, and
//! tell the replicas elsewhere over the bus ([`BusEvent::SessionChanged`]); DELETE removes the
//! record and every replica ([`BusEvent::SessionClosed`]).
//!
//! `config.sessions.max_sessions` bounds the deployment, not only each instance's replicas:
//! sessions are spread over up to 16 buckets by id ([`Buckets`]), each a sorted set,
//! `{prefix}:sessions:{{sN}}`, holding its live sessions' ids scored by when their records
//! expire (kept with each refresh), and a creation beyond the bucket's share of the bound is
//! refused (`StoreError::Full`: HTTP 503) in the same script, so two instances creating at once
//! cannot both pass it. A session's hash and its bucket's set share the hash tag `{sN}`: on a
//! Redis Cluster, each script touches one slot, and no key is touched by every creation. Those two
//! messages are published in the round trip of the write itself, not through the bus's queue: the
//! other instances hear of a change before the client that made it hears back (then only their own
//! delivery, a few microseconds, is left to race the client's next request).

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;
use std::time::Duration;

use super::connection::Connection;
use ::redis::RedisError;

use super::RedisBus;
use super::{is_unreachable, Buckets, Durability};
use crate::bus::{Bus, BusEvent};
use crate::config::Config;
use crate::future::BoxFuture;
use crate::session::{
    unix_ms, MemorySessionStore, Session, SessionChange, SessionLimits, SessionRecord,
    SessionStore, SharedSessions, StoreError,
};

/// Change one field of a session's hash and renew its time to live, only while the session
/// exists (a change or refresh never brings back a deleted or expired one).
///
/// KEYS: the session's hash, the set of live sessions. ARGV: ttl (ms), `set` or `del`, field,
/// value, the session's id, now (ms). Returns 1 if the session exists, else 0.
const CHANGE: &str = r"
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if ARGV[2] == 'del' then
  redis.call('HDEL', KEYS[1], ARGV[3])
else
  redis.call('HSET', KEYS[1], ARGV[3], ARGV[4])
end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
redis.call('ZADD', KEYS[2], 'XX', tonumber(ARGV[6]) + tonumber(ARGV[1]), ARGV[5])
return 1
";

/// Write a new session's record, unless the deployment holds `max` live sessions already.
///
/// KEYS: the session's hash, the set of live sessions. ARGV: now (ms), ttl (ms), max, the
/// session's id, its record (JSON), last seen (ms). Returns 1 when written, 0 when full.
const CREATE: &str = r"
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[3]) then return 0 end
redis.call('HSET', KEYS[1], 'record', ARGV[5], 'seen', ARGV[6])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('ZADD', KEYS[2], tonumber(ARGV[1]) + tonumber(ARGV[2]), ARGV[4])
return 1
";

/// The time to live when sessions neither idle out nor end at a lifetime.
const DEFAULT_TTL: Duration = Duration::from_secs(24 * 60 * 60);

/// Session-era sessions in Redis, with a replica of each in the instances serving it (see
/// the module documentation).
#[doc(hidden)]
pub struct RedisSessionStore {
    /// The replicas this instance holds (bounded by `config.sessions.max_sessions`).
    local: Arc<MemorySessionStore>,
    connection: Connection,
    prefix: String,
    bus: Arc<RedisBus>,
    limits: SessionLimits,
    /// How many sessions the deployment may hold (`config.sessions.max_sessions`).
    max_sessions: usize,
    /// The hash tags the sessions spread over, each bounding its share of `max_sessions`.
    buckets: Buckets,
    /// What a creation waits for before it is acknowledged.
    durability: Durability,
    /// The records' time to live: the idle timeout (else the lifetime, else a day).
    ttl: Duration,
    runtime: tokio::runtime::Handle,
}

impl std::fmt::Debug for RedisSessionStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisSessionStore")
            .field("prefix", &self.prefix)
            .field("replicas", &self.local.len())
            .field("ttl", &self.ttl)
            .finish_non_exhaustive()
    }
}

impl RedisSessionStore {
    /// Sessions under `prefix` through `connection`, changes told on `bus`'s channel (in the
    /// round trip that writes them), a creation acknowledged as `durability` says, bounded and
    /// timed by `config` (`max_sessions` in the deployment and replicas here,
    /// `session_idle_timeout` as the records' time to live). Refreshes run on the current
    /// Tokio runtime.
    ///
    /// # Panics
    ///
    /// Outside a Tokio runtime.
    pub(crate) fn new(
        connection: Connection,
        prefix: &str,
        bus: Arc<RedisBus>,
        config: &Config,
        durability: Durability,
    ) -> Self {
        Self {
            local: Arc::new(MemorySessionStore::new(config.sessions.max_sessions)),
            connection,
            prefix: prefix.to_string(),
            bus,
            limits: SessionLimits::of(config),
            max_sessions: config.sessions.max_sessions,
            buckets: Buckets::new('s', config.sessions.max_sessions),
            durability,
            ttl: config
                .sessions
                .session_idle_timeout
                .or(config.sessions.session_max_lifetime)
                .unwrap_or(DEFAULT_TTL),
            runtime: tokio::runtime::Handle::current(),
        }
    }

    /// The key of session `id`'s hash.
    pub(crate) fn key(&self, id: &str) -> String {
        format!("{}:session:{}:{id}", self.prefix, self.buckets.tag(id))
    }

    /// The key of the set of live sessions in `id`'s bucket.
    fn live_key(&self, id: &str) -> String {
        format!("{}:sessions:{}", self.prefix, self.buckets.tag(id))
    }

    fn ttl_ms(&self) -> u64 {
        (self.ttl.as_millis() as u64).max(1)
    }

    /// Renews session `id`'s time to live in the background (marking it seen now); drops
    /// the replica when the record is gone (the session ended elsewhere, or Redis lost it).
    fn refresh_later(&self, id: &str) {
        let mut connection = self.connection.clone();
        let keys = [self.key(id), self.live_key(id)];
        let (ttl, id) = (self.ttl_ms(), id.to_string());
        let local = Arc::downgrade(&self.local);
        self.runtime.spawn(async move {
            let seen = unix_ms().to_string();
            match change(&mut connection, &keys, ttl, ("set", "seen", &seen), &id).await {
                Ok(true) => {}
                Ok(false) => {
                    tracing::info!(session = %crate::ids::fingerprint(&id), "session gone from Redis (ended elsewhere, or Redis lost it): replica dropped");
                    if let Some(local) = local.upgrade() {
                        local.remove(&id);
                    }
                }
                Err(error) => {
                    tracing::warn!(%error, "could not refresh a session's time to live in Redis; trying again at its next use")
                }
            }
        });
    }

    /// Writes `session`'s record with its time to live (one round trip), and marks it shared.
    async fn write_record(&self, session: &Session) -> Result<(), StoreError> {
        let record = session.record();
        let text =
            serde_json::to_string(&record).map_err(|e| StoreError::Unavailable(e.to_string()))?;
        let mut create = ::redis::cmd("EVAL");
        create
            .arg(CREATE)
            .arg(2)
            .arg(self.key(session.id()))
            .arg(self.live_key(session.id()))
            .arg(unix_ms())
            .arg(self.ttl_ms())
            .arg(self.buckets.bound())
            .arg(session.id())
            .arg(text)
            .arg(record.last_seen_at_ms);
        let mut pipeline = ::redis::pipe();
        pipeline.add_command(create);
        self.durability.append(&mut pipeline);
        let replies: Vec<i64> = pipeline
            .query_async(&mut self.connection.clone())
            .await
            .map_err(store_error)?;
        let written = replies.first().copied().unwrap_or(0);
        self.durability
            .check(replies.get(1).copied())
            .map_err(StoreError::Unavailable)?;
        if written == 0 {
            tracing::warn!(
                max_sessions = self.max_sessions,
                buckets = self.buckets.count(),
                "session refused: the deployment holds config.sessions.max_sessions sessions (its bucket its share of them)"
            );
            return Err(StoreError::Full);
        }
        session.mark_shared();
        if let Some(address) = self.bus.address() {
            session.set_bus_address(address);
        }
        Ok(())
    }

    async fn load_now(&self, id: &str) -> Result<bool, StoreError> {
        let key = self.key(id);
        let (fields,): (HashMap<String, String>,) = ::redis::pipe()
            .cmd("HGETALL")
            .arg(&key)
            .cmd("PEXPIRE")
            .arg(&key)
            .arg(self.ttl_ms())
            .ignore()
            .cmd("ZADD")
            .arg(self.live_key(id))
            .arg("XX")
            .arg(unix_ms() + self.ttl_ms())
            .arg(id)
            .ignore()
            .query_async(&mut self.connection.clone())
            .await
            .map_err(store_error)?;
        let Some(record) = record_of(id, fields) else {
            return Ok(false);
        };
        let Some(replica) = Session::from_record(record, self.limits) else {
            tracing::warn!(
                key,
                "a session record this runtime cannot serve was ignored"
            );
            return Ok(false);
        };
        if !replica.touch() {
            return Ok(false);
        }
        replica.mark_shared();
        if let Some(address) = self.bus.address() {
            replica.set_bus_address(address);
        }
        self.local.insert_if_absent(Arc::new(replica))?;
        Ok(true)
    }
}

/// The record a session's hash holds, its later changes applied; `None` when there is no
/// such session (or its `record` field does not parse).
fn record_of(id: &str, mut fields: HashMap<String, String>) -> Option<SessionRecord> {
    let text = fields.remove("record")?;
    let mut record: SessionRecord = match serde_json::from_str(&text) {
        Ok(record) => record,
        Err(error) => {
            tracing::warn!(%error, session = %crate::ids::fingerprint(id), "a session record that does not parse was ignored");
            return None;
        }
    };
    let mut subscriptions = BTreeSet::new();
    for (field, value) in fields {
        if let Some(uri) = field.strip_prefix("sub:") {
            subscriptions.insert(uri.to_string());
        } else if field == "level" {
            record.log_level = value.parse().ok();
        } else if field == "seen" {
            record.last_seen_at_ms = value.parse().unwrap_or(record.last_seen_at_ms);
        }
    }
    record.subscriptions.extend(subscriptions);
    Some(record)
}

/// Runs [`CHANGE`] on `keys` (the session's hash, the set of live sessions) for session
/// `id`, `(op, field, value)` the change: true when the session exists.
async fn change(
    connection: &mut Connection,
    keys: &[String; 2],
    ttl_ms: u64,
    (op, field, value): (&str, &str, &str),
    id: &str,
) -> Result<bool, RedisError> {
    let exists: i64 = change_command(keys, ttl_ms, (op, field, value), id)
        .query_async(connection)
        .await?;
    Ok(exists == 1)
}

/// The `EVAL` of [`CHANGE`].
fn change_command(
    keys: &[String; 2],
    ttl_ms: u64,
    (op, field, value): (&str, &str, &str),
    id: &str,
) -> ::redis::Cmd {
    let mut command = ::redis::cmd("EVAL");
    command
        .arg(CHANGE)
        .arg(2)
        .arg(&keys[0])
        .arg(&keys[1])
        .arg(ttl_ms)
        .arg(op)
        .arg(field)
        .arg(value)
        .arg(id)
        .arg(unix_ms());
    command
}

fn store_error(error: RedisError) -> StoreError {
    if is_unreachable(&error) {
        tracing::warn!(%error, "Redis unreachable: the session store is unavailable");
    } else {
        tracing::warn!(%error, "Redis refused a session store command");
    }
    StoreError::Unavailable(format!("Redis: {error}"))
}

impl SessionStore for RedisSessionStore {
    fn insert(&self, session: Arc<Session>) -> Result<(), StoreError> {
        self.local.insert(session)
    }

    fn get(&self, id: &str) -> Option<Arc<Session>> {
        let session = self.local.get(id)?;
        if session.refresh_due(self.ttl / 4) {
            self.refresh_later(id);
        }
        Some(session)
    }

    fn remove(&self, id: &str) -> Option<Arc<Session>> {
        self.local.remove(id)
    }

    fn evict_expired(&self, idle: Option<Duration>) -> usize {
        // Replicas only: the records expire in Redis by themselves.
        self.local.evict_expired(idle)
    }

    fn for_each(&self, f: &mut dyn FnMut(&Arc<Session>)) {
        self.local.for_each(f);
    }

    fn len(&self) -> usize {
        self.local.len()
    }
}

impl SharedSessions for RedisSessionStore {
    fn load<'a>(&'a self, id: &'a str) -> Option<BoxFuture<'a, Result<bool, StoreError>>> {
        if self.local.contains(id) {
            return None;
        }
        Some(Box::pin(self.load_now(id)))
    }

    fn created<'a>(&'a self, session: &'a Session) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let written = self.write_record(session).await;
            if written.is_err() {
                // The client never learns its id: nothing will use it.
                self.local.remove(session.id());
            }
            written
        })
    }

    fn changed<'a>(
        &'a self,
        session: &'a Session,
        change_made: SessionChange,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let (op, field, value) = match &change_made {
                SessionChange::LogLevel { rank } => ("set", "level".to_string(), rank.to_string()),
                SessionChange::Subscribed { uri } => ("set", format!("sub:{uri}"), "1".into()),
                SessionChange::Unsubscribed { uri } => ("del", format!("sub:{uri}"), String::new()),
            };
            let keys = [self.key(session.id()), self.live_key(session.id())];
            let mut pipeline = ::redis::pipe();
            pipeline.add_command(change_command(
                &keys,
                self.ttl_ms(),
                (op, &field, &value),
                session.id(),
            ));
            let event = BusEvent::SessionChanged {
                session_id: session.id().to_string(),
                change: change_made,
            };
            let (exists,): (i64,) = self
                .bus
                .write_and_tell(&mut self.connection.clone(), pipeline, event)
                .await
                .map_err(store_error)?;
            if exists == 0 {
                tracing::debug!(session = %crate::ids::fingerprint(session.id()), "a change to a session gone from Redis");
            }
            Ok(())
        })
    }

    fn delete<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async move {
            // The other instances hear of it before this one answers the DELETE.
            let mut pipeline = ::redis::pipe();
            pipeline
                .atomic()
                .cmd("DEL")
                .arg(self.key(id))
                .cmd("ZREM")
                .arg(self.live_key(id))
                .arg(id)
                .ignore();
            let event = BusEvent::SessionClosed {
                session_id: id.to_string(),
            };
            let (deleted,): (i64,) = self
                .bus
                .write_and_tell(&mut self.connection.clone(), pipeline, event)
                .await
                .map_err(store_error)?;
            let held = self.local.remove(id).is_some();
            Ok(deleted > 0 || held)
        })
    }

    fn on_bus_event(&self, event: &BusEvent) {
        match event {
            BusEvent::SessionClosed { session_id } if self.local.remove(session_id).is_some() => {
                tracing::debug!(session = %crate::ids::fingerprint(session_id), "session deleted on another instance: replica dropped");
            }
            BusEvent::SessionChanged { session_id, change } => {
                if let Some(session) = self.local.peek(session_id) {
                    session.apply(change);
                }
            }
            _ => {}
        }
    }
}
