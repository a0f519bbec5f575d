//! [`RedisTaskStore`]: task records in Redis, so that any instance answers `tasks/*`.
//!
//! A record is one JSON string, `{prefix}:task:{{tN}}:{id}`, that expires with the task (`PX`):
//! Redis forgets it on time without a sweep. Tasks are spread over up to 16 buckets by id
//! ([`Buckets`]): insertion is one script on the record and its bucket's index,
//! `{prefix}:tasks:{{tN}}`, which share the hash tag (bound the bucket's live tasks by its
//! share of `max_tasks`, index, store: one Cluster slot per script); a change is
//! read, applied here, and written back only if nobody wrote in between (a compare-and-set
//! script), else read again: two instances answering the same task never lose each other's
//! change.
//!
//! Each instance holds a lease, `{prefix}:instance:{name}`, renewed every
//! [`LEASE_RENEWAL`] and expiring after [`LEASE`]: a task whose runner's lease is gone was
//! left by an instance that stopped (killed, or cut from Redis for longer than the lease), and
//! the instance asked about it marks it `failed` (`Tasks`). An instance judges another's
//! lease only after holding its own for a whole [`LEASE`] without a failure, so that a Redis
//! just back does not make every running task look abandoned.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Weak};
use std::time::Duration;

use super::connection::Connection;
use ::redis::RedisError;

use super::{is_unreachable, Buckets, Durability};
use crate::future::BoxFuture;
use crate::tasks::{TaskChange, TaskRecord, TaskStore, TaskStoreError, TaskStoreResult};

/// Forget expired ids in the index, refuse past the bound, index the new id, store the
/// record with its time to live. Returns the live count (0 when full).
///
/// KEYS: index, record. ARGV: now (ms), expiry (ms), max tasks, record JSON, id, ttl (ms).
const INSERT: &str = r"
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
local live = redis.call('ZCARD', KEYS[1])
if live >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[5])
redis.call('SET', KEYS[2], ARGV[4], 'PX', ARGV[6])
return live + 1
";

/// Replace the record only if it is still what was read; keep its expiry.
///
/// KEYS: record. ARGV: the JSON read, the new JSON. Returns 1 if written, 0 if it changed.
const COMPARE_AND_SET: &str = r"
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
  return 1
end
return 0
";

/// How many times a change is tried again when other writers keep getting in first (each
/// retry after a short random pause, so that writers racing for one task spread out).
const MAX_ATTEMPTS: u32 = 64;

/// How long an instance's lease lasts without renewal.
#[doc(hidden)]
pub const LEASE: Duration = Duration::from_secs(6);

/// How often an instance renews its lease.
#[doc(hidden)]
pub const LEASE_RENEWAL: Duration = Duration::from_secs(2);

/// Task records in Redis (see the module documentation).
#[doc(hidden)]
pub struct RedisTaskStore {
    connection: Connection,
    prefix: String,
    max_tasks: usize,
    /// The hash tags the tasks spread over, each bounding its share of `max_tasks`.
    buckets: Buckets,
    /// What an insertion or a change waits for before it is acknowledged.
    durability: Durability,
    /// Live tasks (every instance's, estimated from one bucket's) as of this instance's last insertion: what
    /// [`TaskStore::len`] can tell without a round trip.
    live_at_last_insert: AtomicUsize,
    /// This instance's name in the records and in its lease key.
    instance: String,
    /// Since when (ms) this instance has renewed its lease without a failure; 0: not now.
    /// Shared with the renewing task, which stops when the store is dropped.
    lease_held_since_ms: Arc<AtomicU64>,
}

impl std::fmt::Debug for RedisTaskStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisTaskStore")
            .field("prefix", &self.prefix)
            .field("max_tasks", &self.max_tasks)
            .finish_non_exhaustive()
    }
}

impl RedisTaskStore {
    /// Tasks under `prefix` through `connection`, at most `max_tasks` live at once across
    /// every instance sharing them, each write acknowledged as `durability` says; `instance`
    /// names this instance in its lease and in the records of the tasks it runs.
    ///
    /// Takes this instance's lease first (one round trip) and renews it from then on, on the
    /// current Tokio runtime, until the store is dropped.
    pub(crate) async fn start(
        connection: Connection,
        prefix: &str,
        instance: &str,
        max_tasks: usize,
        durability: Durability,
    ) -> Result<Self, RedisError> {
        let store = Self {
            connection,
            prefix: prefix.to_string(),
            max_tasks,
            buckets: Buckets::new('t', max_tasks),
            durability,
            live_at_last_insert: AtomicUsize::new(0),
            instance: instance.to_string(),
            lease_held_since_ms: Arc::new(AtomicU64::new(0)),
        };
        let lease_key = store.lease_key(&store.instance);
        let mut connection = store.connection.clone();
        renew(&mut connection, &lease_key).await?;
        store
            .lease_held_since_ms
            .store(crate::tasks::now_ms(), Ordering::Relaxed);
        tokio::spawn(keep_lease(
            connection,
            lease_key,
            Arc::downgrade(&store.lease_held_since_ms),
        ));
        Ok(store)
    }

    fn record_key(&self, id: &str) -> String {
        format!("{}:task:{}:{id}", self.prefix, self.buckets.tag(id))
    }

    fn lease_key(&self, instance: &str) -> String {
        format!("{}:instance:{instance}", self.prefix)
    }

    async fn runner_is_alive(&self, runner: &str) -> TaskStoreResult<bool> {
        let since = self.lease_held_since_ms.load(Ordering::Relaxed);
        let judged_for = crate::tasks::now_ms().saturating_sub(since);
        if since == 0 || judged_for < LEASE.as_millis() as u64 {
            return Ok(true);
        }
        let exists: bool = ::redis::cmd("EXISTS")
            .arg(self.lease_key(runner))
            .query_async(&mut self.connection.clone())
            .await
            .map_err(store_error)?;
        Ok(exists)
    }

    /// The sorted set of the live tasks in `id`'s bucket.
    fn index_key(&self, id: &str) -> String {
        format!("{}:tasks:{}", self.prefix, self.buckets.tag(id))
    }

    async fn read(&self, id: &str) -> TaskStoreResult<Option<(String, TaskRecord)>> {
        let text: Option<String> = ::redis::cmd("GET")
            .arg(self.record_key(id))
            .query_async(&mut self.connection.clone())
            .await
            .map_err(store_error)?;
        let Some(text) = text else {
            return Ok(None);
        };
        let record: TaskRecord = serde_json::from_str(&text)
            .map_err(|e| TaskStoreError::Other(format!("a stored task does not parse: {e}")))?;
        let live = !record.is_expired(crate::tasks::now_ms());
        Ok(live.then_some((text, record)))
    }

    async fn insert_record(&self, task: TaskRecord) -> TaskStoreResult<()> {
        let text = to_json(&task)?;
        let now = crate::tasks::now_ms();
        let expires_at = task.created_at_ms + task.ttl_ms;
        let mut insert = ::redis::cmd("EVAL");
        insert
            .arg(INSERT)
            .arg(2)
            .arg(self.index_key(&task.task_id))
            .arg(self.record_key(&task.task_id))
            .arg(now)
            .arg(expires_at)
            .arg(self.buckets.bound())
            .arg(text)
            .arg(&task.task_id)
            .arg(expires_at.saturating_sub(now).max(1));
        let replies = self.durably(insert).await?;
        let live = replies.first().copied().unwrap_or(0).max(0) as usize;
        if live == 0 {
            return Err(TaskStoreError::Full {
                max_tasks: self.max_tasks,
            });
        }
        // One bucket's count stands for each of them (they fill evenly).
        self.live_at_last_insert
            .store(live * self.buckets.count(), Ordering::Relaxed);
        Ok(())
    }

    /// Runs `write` (a script answering an integer), followed by the `WAIT` [`Durability`] asks
    /// for: its replies, or unavailable when too few replicas confirmed.
    async fn durably(&self, write: ::redis::Cmd) -> TaskStoreResult<Vec<i64>> {
        let mut pipeline = ::redis::pipe();
        pipeline.add_command(write);
        self.durability.append(&mut pipeline);
        let replies: Vec<i64> = pipeline
            .query_async(&mut self.connection.clone())
            .await
            .map_err(store_error)?;
        self.durability
            .check(replies.get(1).copied())
            .map_err(TaskStoreError::Unavailable)?;
        Ok(replies)
    }

    async fn update_record(
        &self,
        id: &str,
        change: &mut TaskChange<'_>,
    ) -> TaskStoreResult<Option<TaskRecord>> {
        for _ in 0..MAX_ATTEMPTS {
            let Some((read, mut record)) = self.read(id).await? else {
                return Ok(None);
            };
            change(&mut record);
            let mut compare_and_set = ::redis::cmd("EVAL");
            compare_and_set
                .arg(COMPARE_AND_SET)
                .arg(1)
                .arg(self.record_key(id))
                .arg(read)
                .arg(to_json(&record)?);
            let written = self
                .durably(compare_and_set)
                .await?
                .first()
                .copied()
                .unwrap_or(0);
            if written == 1 {
                return Ok(Some(record));
            }
            let mut jitter = [0u8; 1];
            crate::ids::random_bytes(&mut jitter);
            tokio::time::sleep(std::time::Duration::from_micros(
                50 + 10 * u64::from(jitter[0]),
            ))
            .await;
        }
        Err(TaskStoreError::Other(format!(
            "task {} kept changing under {MAX_ATTEMPTS} attempts to update it",
            crate::ids::fingerprint(id)
        )))
    }
}

impl TaskStore for RedisTaskStore {
    fn insert(&self, task: TaskRecord) -> BoxFuture<'_, TaskStoreResult<()>> {
        Box::pin(self.insert_record(task))
    }

    fn get<'a>(&'a self, id: &'a str) -> BoxFuture<'a, TaskStoreResult<Option<TaskRecord>>> {
        Box::pin(async move { Ok(self.read(id).await?.map(|(_, record)| record)) })
    }

    fn update<'a>(
        &'a self,
        id: &'a str,
        change: &'a mut TaskChange<'_>,
    ) -> BoxFuture<'a, TaskStoreResult<Option<TaskRecord>>> {
        Box::pin(self.update_record(id, change))
    }

    /// Nothing to do: records expire in Redis by themselves, and insertion trims the index.
    fn remove_expired(&self, _now_ms: u64) -> usize {
        0
    }

    /// The live tasks of every instance as of this instance's last insertion (0 before it),
    /// estimated from its bucket's count times the number of buckets.
    fn len(&self) -> usize {
        self.live_at_last_insert.load(Ordering::Relaxed)
    }

    fn instance(&self) -> Option<&str> {
        Some(&self.instance)
    }

    fn is_alive<'a>(&'a self, runner: &'a str) -> BoxFuture<'a, TaskStoreResult<bool>> {
        Box::pin(self.runner_is_alive(runner))
    }
}

/// Sets this instance's lease for [`LEASE`].
async fn renew(connection: &mut Connection, key: &str) -> Result<(), RedisError> {
    ::redis::cmd("SET")
        .arg(key)
        .arg(1)
        .arg("PX")
        .arg(LEASE.as_millis() as u64)
        .query_async::<()>(connection)
        .await
}

/// Renews the lease every [`LEASE_RENEWAL`] until the store is gone, recording since when it
/// has been held without a failure.
async fn keep_lease(mut connection: Connection, key: String, held_since: Weak<AtomicU64>) {
    loop {
        tokio::time::sleep(LEASE_RENEWAL).await;
        let Some(held_since) = held_since.upgrade() else {
            return;
        };
        match renew(&mut connection, &key).await {
            Ok(()) => {
                let _ = held_since.compare_exchange(
                    0,
                    crate::tasks::now_ms(),
                    Ordering::Relaxed,
                    Ordering::Relaxed,
                );
            }
            Err(error) => {
                if held_since.swap(0, Ordering::Relaxed) != 0 {
                    tracing::warn!(%error, "this instance's task lease cannot be renewed");
                }
            }
        }
    }
}

fn to_json(task: &TaskRecord) -> TaskStoreResult<String> {
    serde_json::to_string(task).map_err(|e| TaskStoreError::Other(e.to_string()))
}

fn store_error(error: RedisError) -> TaskStoreError {
    if is_unreachable(&error) {
        TaskStoreError::Unavailable(format!("Redis: {error}"))
    } else {
        TaskStoreError::Other(format!("Redis: {error}"))
    }
}
