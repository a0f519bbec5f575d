//! Task state: what a client can see of a task ([`TaskRecord`]), where it is kept
//! ([`TaskStore`], in memory by default with [`MemoryTaskStore`]), and its wire shapes.

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::future::BoxFuture;

/// Where a task stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    /// The handler is running.
    Working,
    /// The handler waits for answers (`inputRequests`), given with `tasks/update`.
    InputRequired,
    /// The handler returned a result (possibly an `isError` tool result).
    Completed,
    /// The handler failed with a JSON-RPC error.
    Failed,
    /// The client cancelled the task.
    Cancelled,
}

impl TaskStatus {
    /// Whether the task is over.
    pub fn is_terminal(self) -> bool {
        matches!(self, Self::Completed | Self::Failed | Self::Cancelled)
    }
}

/// Everything a task's client can see: what [`TaskStore`] keeps.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskRecord {
    /// The unguessable id (64 hex characters).
    pub task_id: String,
    /// Where it stands.
    pub status: TaskStatus,
    /// Creation time, milliseconds since the Unix epoch.
    pub created_at_ms: u64,
    /// Last change, milliseconds since the Unix epoch.
    pub last_updated_at_ms: u64,
    /// How long the task is kept after creation.
    pub ttl_ms: u64,
    /// The polling interval suggested to the client.
    pub poll_interval_ms: u64,
    /// The tool result once `completed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    /// The JSON-RPC error once `failed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<Value>,
    /// The questions waiting for an answer, by key (`{method, params}`).
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub input_requests: Map<String, Value>,
    /// Answers given with `tasks/update` and not yet taken by the handler.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub input_responses: Map<String, Value>,
    /// Who started it, when authorization is on: a digest of the principal (never the
    /// subject itself). Only the same principal may read, answer or cancel it; to anyone
    /// else it does not exist. `None`: started without authorization.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    /// The instance whose process runs the handler, when the store is shared
    /// ([`TaskStore::instance`]): if it stops before the task ends, the next instance asked
    /// about the task marks it `failed`. `None` with a store only one process uses.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runner: Option<String>,
}

impl TaskRecord {
    pub(crate) fn touch(&mut self) {
        self.last_updated_at_ms = now_ms();
    }

    /// Whether its time to live has passed at `now_ms`.
    pub fn is_expired(&self, now_ms: u64) -> bool {
        self.created_at_ms + self.ttl_ms <= now_ms
    }

    /// Whether a request by `owner` (its principal's digest, `None` without authorization)
    /// may see this task: only the one who started it.
    pub fn is_visible_to(&self, owner: Option<&str>) -> bool {
        self.owner.as_deref() == owner
    }

    /// The task fields shared by `CreateTaskResult` and `tasks/get`.
    fn envelope(&self, result_type: &str) -> Map<String, Value> {
        let mut out = Map::new();
        out.insert("resultType".into(), json!(result_type));
        out.insert("taskId".into(), json!(self.task_id));
        out.insert("status".into(), json!(self.status));
        out.insert("createdAt".into(), json!(iso8601(self.created_at_ms)));
        out.insert(
            "lastUpdatedAt".into(),
            json!(iso8601(self.last_updated_at_ms)),
        );
        out.insert("ttlMs".into(), json!(self.ttl_ms));
        out.insert("pollIntervalMs".into(), json!(self.poll_interval_ms));
        out
    }

    /// The `CreateTaskResult` (`resultType: "task"`).
    pub fn create_result(&self) -> String {
        Value::Object(self.envelope("task")).to_string()
    }

    /// The detailed task of `tasks/get`: the result, the error or the pending questions,
    /// depending on the status.
    pub fn get_result(&self) -> String {
        let mut out = self.envelope("complete");
        match self.status {
            TaskStatus::Completed => {
                if let Some(result) = &self.result {
                    out.insert("result".into(), result.clone());
                }
            }
            TaskStatus::Failed => {
                if let Some(error) = &self.error {
                    out.insert("error".into(), error.clone());
                }
            }
            TaskStatus::InputRequired => {
                out.insert(
                    "inputRequests".into(),
                    Value::Object(self.input_requests.clone()),
                );
            }
            TaskStatus::Working | TaskStatus::Cancelled => {}
        }
        Value::Object(out).to_string()
    }
}

/// Why a [`TaskStore`] could not do what was asked. Its `Display` is the message the client
/// gets (as an internal error; [`TaskStoreError::Unavailable`] as HTTP 503).
#[cfg_attr(not(feature = "redis"), allow(dead_code))] // what a shared store (`stores::redis`) uses
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum TaskStoreError {
    /// The store holds its maximum number of tasks.
    Full {
        /// That maximum.
        max_tasks: usize,
    },
    /// A shared store cannot be reached now (Redis down): the request may be retried later.
    Unavailable(String),
    /// Any other failure of the store.
    Other(String),
}

impl std::fmt::Display for TaskStoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TaskStoreError::Full { max_tasks } => write!(f, "too many tasks (at most {max_tasks})"),
            TaskStoreError::Unavailable(message) | TaskStoreError::Other(message) => {
                f.write_str(message)
            }
        }
    }
}

impl std::error::Error for TaskStoreError {}

/// What a [`TaskStore`] answers.
pub type TaskStoreResult<T> = Result<T, TaskStoreError>;

/// A change to a task record, applied by [`TaskStore::update`]. A shared store may apply it
/// more than once (to a fresher copy, when another instance changed the task meanwhile): it
/// must compute everything from the record it is given, and each call overwrites what an
/// earlier one recorded.
pub type TaskChange<'a> = dyn FnMut(&mut TaskRecord) + Send + 'a;

/// Where task state is kept. In memory by default ([`MemoryTaskStore`]); a shared store
/// (Redis with the `redis` feature, a database) lets any instance answer `tasks/get`.
///
/// The methods return futures, so that a shared store can do its round trips; the memory
/// store's are ready at once.
pub trait TaskStore: Send + Sync + 'static {
    /// Stores a new task; fails when the store is full ([`TaskStoreError::Full`]) or cannot
    /// store it.
    fn insert(&self, task: TaskRecord) -> BoxFuture<'_, TaskStoreResult<()>>;
    /// The task `id`; `None` when unknown or expired.
    fn get<'a>(&'a self, id: &'a str) -> BoxFuture<'a, TaskStoreResult<Option<TaskRecord>>>;
    /// Applies `change` to the task `id` and returns the new record; `None` when unknown or
    /// expired (then `change` is not called).
    fn update<'a>(
        &'a self,
        id: &'a str,
        change: &'a mut TaskChange<'_>,
    ) -> BoxFuture<'a, TaskStoreResult<Option<TaskRecord>>>;
    /// Drops the tasks whose time to live has passed (a store whose records expire by
    /// themselves does nothing); returns how many went.
    fn remove_expired(&self, now_ms: u64) -> usize;
    /// Number of tasks held, expired ones not yet removed included; a shared store counts
    /// what it can see without a round trip (see its documentation).
    fn len(&self) -> usize;
    /// This instance's name in the [`TaskRecord::runner`] of the tasks it runs: `None` (the
    /// default) for a store only this process uses, whose tasks all run here.
    fn instance(&self) -> Option<&str> {
        None
    }
    /// Whether the instance named `runner` still runs: a shared store keeps a lease per
    /// instance. `true` (the default) when the store cannot tell, and while this instance's
    /// own view of the store is too fresh to judge another's lease.
    fn is_alive<'a>(&'a self, runner: &'a str) -> BoxFuture<'a, TaskStoreResult<bool>> {
        let _ = runner;
        Box::pin(std::future::ready(Ok(true)))
    }
}

/// Tasks in a bounded in-memory map.
#[derive(Debug)]
pub struct MemoryTaskStore {
    tasks: Mutex<HashMap<String, TaskRecord>>,
    max_tasks: usize,
}

impl MemoryTaskStore {
    /// A store holding at most `max_tasks` tasks at once.
    pub fn new(max_tasks: usize) -> Self {
        Self {
            tasks: Mutex::default(),
            max_tasks,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, TaskRecord>> {
        self.tasks.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn insert_now(&self, task: TaskRecord) -> TaskStoreResult<()> {
        let mut tasks = self.lock();
        if tasks.len() >= self.max_tasks {
            return Err(TaskStoreError::Full {
                max_tasks: self.max_tasks,
            });
        }
        tasks.insert(task.task_id.clone(), task);
        Ok(())
    }

    fn get_now(&self, id: &str) -> Option<TaskRecord> {
        let task = self.lock().get(id).cloned()?;
        (!task.is_expired(now_ms())).then_some(task)
    }

    fn update_now(&self, id: &str, change: &mut TaskChange<'_>) -> Option<TaskRecord> {
        let mut tasks = self.lock();
        let task = tasks.get_mut(id)?;
        // An expired task is gone, even before `remove_expired` drops it.
        if task.is_expired(now_ms()) {
            return None;
        }
        change(task);
        Some(task.clone())
    }
}

impl TaskStore for MemoryTaskStore {
    fn insert(&self, task: TaskRecord) -> BoxFuture<'_, TaskStoreResult<()>> {
        Box::pin(std::future::ready(self.insert_now(task)))
    }

    fn get<'a>(&'a self, id: &'a str) -> BoxFuture<'a, TaskStoreResult<Option<TaskRecord>>> {
        Box::pin(std::future::ready(Ok(self.get_now(id))))
    }

    fn update<'a>(
        &'a self,
        id: &'a str,
        change: &'a mut TaskChange<'_>,
    ) -> BoxFuture<'a, TaskStoreResult<Option<TaskRecord>>> {
        Box::pin(std::future::ready(Ok(self.update_now(id, change))))
    }

    fn remove_expired(&self, now_ms: u64) -> usize {
        let mut removed = 0;
        self.lock().retain(|_, task| {
            let keep = !task.is_expired(now_ms);
            removed += usize::from(!keep);
            keep
        });
        removed
    }

    fn len(&self) -> usize {
        self.lock().len()
    }
}

pub(crate) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// `2026-11-30T06:33:00.123Z` (UTC) from milliseconds since the epoch.
#[doc(hidden)]
pub fn iso8601(ms: u64) -> String {
    let secs = ms / 1000;
    let (days, rest) = (secs / 86_400, secs % 86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60,
        ms % 1000
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(id: &str) -> TaskRecord {
        let now = now_ms();
        TaskRecord {
            task_id: id.into(),
            status: TaskStatus::Working,
            created_at_ms: now,
            last_updated_at_ms: now,
            ttl_ms: 60_000,
            poll_interval_ms: 250,
            result: None,
            error: None,
            input_requests: Map::new(),
            input_responses: Map::new(),
            owner: None,
            runner: None,
        }
    }

    #[test]
    fn a_full_store_says_so() {
        let store = MemoryTaskStore::new(1);
        store.insert_now(record("a")).unwrap();
        let error = store.insert_now(record("b")).unwrap_err();
        assert_eq!(error, TaskStoreError::Full { max_tasks: 1 });
        assert_eq!(error.to_string(), "too many tasks (at most 1)");
    }
}
