//! The tasks extension of 2026-07-28 (`io.modelcontextprotocol/tasks`, SEP-2663).
//!
//! A tool handler decides when its call becomes a task: [`RequestContext::start_task`] (or
//! `require_task`) answers the client at once with a `CreateTaskResult`, and the handler keeps
//! running in the background. From then on its requests to the client park the task in
//! `input_required` until `tasks/update` brings the answers; its result (or JSON-RPC error)
//! becomes the task's `completed` (or `failed`) state, read with `tasks/get`. `tasks/cancel`
//! stops the handler.
//!
//! Task state lives behind `TaskStore` (in memory by default). What cannot leave the
//! process (the running handler, its wake-ups) stays in `Tasks`. With a shared store, any
//! instance answers `tasks/*`: a cancel or an answer for a task another instance runs reaches
//! it over the `Bus`, and a handler waiting for input also re-reads the
//! store every second, so an answer whose event was lost still arrives.
//!
//! [`RequestContext::start_task`]: crate::RequestContext::start_task

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{watch, Notify};

use crate::bus::{Bus, BusEvent};
use crate::error::Error;
use crate::json::JsonText;
use crate::jsonrpc::{RpcError, MISSING_CAPABILITY};

mod slot;
mod store;

pub(crate) use slot::TaskSlot;
pub(crate) use store::now_ms;
pub use store::{iso8601, TaskStatus};
pub(crate) use store::{
    MemoryTaskStore, TaskChange, TaskRecord, TaskStore, TaskStoreError, TaskStoreResult,
};

/// The extension's identifier, in `capabilities.extensions`.
#[doc(hidden)]
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// The running side of this instance's tasks, in front of the [`TaskStore`].
pub(crate) struct Tasks {
    store: Arc<dyn TaskStore>,
    bus: Arc<dyn Bus>,
    ttl: Duration,
    poll_interval: Duration,
    /// Running handlers started here: how to stop them and wake them.
    local: Mutex<HashMap<String, LocalTask>>,
}

struct LocalTask {
    cancel: Arc<watch::Sender<bool>>,
    answered: Arc<Notify>,
    /// When the task's record expires: its handler is stopped then, in any store.
    expires_at_ms: u64,
}

impl std::fmt::Debug for Tasks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tasks")
            .field("ttl", &self.ttl)
            .field("poll_interval", &self.poll_interval)
            .finish_non_exhaustive()
    }
}

impl Tasks {
    /// Tasks kept in `store` for `ttl` after creation, with `poll_interval` suggested; the
    /// other instances sharing `store` hear of cancels and answers through `bus`.
    pub fn new(
        store: Arc<dyn TaskStore>,
        bus: Arc<dyn Bus>,
        ttl: Duration,
        poll_interval: Duration,
    ) -> Self {
        Self {
            store,
            bus,
            ttl,
            poll_interval,
            local: Mutex::default(),
        }
    }

    fn local(&self) -> std::sync::MutexGuard<'_, HashMap<String, LocalTask>> {
        self.local.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Forgets the tasks past their TTL; a running one is stopped. Returns how many the store
    /// dropped.
    pub(crate) fn remove_expired(&self) -> usize {
        let now = now_ms();
        let removed = self.store.remove_expired(now);
        self.local().retain(|_, task| {
            let live = task.expires_at_ms > now;
            if !live {
                task.cancel.send_replace(true);
            }
            live
        });
        removed
    }

    /// Tasks held by the store (on every instance sharing it, as far as the store can tell
    /// without a round trip).
    pub(crate) fn held(&self) -> usize {
        self.store.len()
    }

    /// Tasks whose handler runs on this instance.
    pub(crate) fn running_here(&self) -> usize {
        self.local().len()
    }

    /// A new `working` task record for `owner` (a principal's digest, `None` without
    /// authorization).
    fn new_record(&self, owner: Option<String>) -> TaskRecord {
        let now = now_ms();
        TaskRecord {
            task_id: crate::ids::random_id(),
            status: TaskStatus::Working,
            created_at_ms: now,
            last_updated_at_ms: now,
            ttl_ms: self.ttl.as_millis() as u64,
            poll_interval_ms: self.poll_interval.as_millis().max(1) as u64,
            result: None,
            error: None,
            input_requests: Map::new(),
            input_responses: Map::new(),
            owner,
            runner: self.store.instance().map(str::to_owned),
        }
    }

    /// Registers the handler of task `record` as running here; `cancel` is set when it is
    /// cancelled.
    fn run_here(&self, record: &TaskRecord, cancel: Arc<watch::Sender<bool>>) {
        self.local().insert(
            record.task_id.clone(),
            LocalTask {
                cancel,
                answered: Arc::default(),
                expires_at_ms: record.created_at_ms + record.ttl_ms,
            },
        );
    }

    /// Records how the handler ended, unless the task already ended (cancelled).
    async fn finish(&self, id: &str, outcome: Result<JsonText, RpcError>) {
        let outcome = outcome.map(|result| serde_json::from_str::<Value>(result.get()).ok());
        let error = outcome
            .as_ref()
            .err()
            .and_then(|e| serde_json::to_value(e).ok());
        let stored = self
            .store
            .update(id, &mut |task| {
                if task.status.is_terminal() {
                    return;
                }
                match &outcome {
                    Ok(result) => {
                        task.status = TaskStatus::Completed;
                        task.result = result.clone();
                    }
                    Err(_) => {
                        task.status = TaskStatus::Failed;
                        task.error = error.clone();
                    }
                }
                task.input_requests.clear();
                task.touch();
            })
            .await;
        if let Err(error) = stored {
            // The outcome is lost; the task stays `working` until it expires.
            tracing::error!(task = %crate::ids::fingerprint(id), %error, "a task's outcome could not be stored");
        }
        self.local().remove(id);
    }

    /// Parks the task in `input_required` until `tasks/update` answers `key`.
    async fn ask(&self, id: &str, key: &str, request: Value) -> Result<Value, Error> {
        let answered = self
            .local()
            .get(id)
            .map(|l| l.answered.clone())
            .unwrap_or_default();
        let mut asked = false;
        loop {
            let notified = answered.notified();
            let mut answer = None;
            let task = self
                .store
                .update(id, &mut |task| {
                    answer = task.input_responses.remove(key);
                    if answer.is_none() && !asked && !task.input_requests.contains_key(key) {
                        task.input_requests.insert(key.to_string(), request.clone());
                        task.status = TaskStatus::InputRequired;
                        task.touch();
                    }
                })
                .await;
            match task {
                Ok(None) => return Err(Error::new("the task expired while waiting for input")),
                Ok(Some(_)) => asked = true,
                // The shared store is gone for now: look again at the next tick.
                Err(error) => {
                    tracing::warn!(%error, "a task waiting for input cannot read its store")
                }
            }
            if let Some(answer) = answer {
                return Ok(answer);
            }
            // Answers written by another instance arrive with a bus event, or on the next look.
            let _ = tokio::time::timeout(Duration::from_secs(1), notified).await;
        }
    }

    /// `tasks/get` by `owner` (every `tasks/*` method takes the requester's principal digest:
    /// another principal's task is, to them, an unknown one).
    pub(crate) async fn get(
        &self,
        params: Option<&RawValue>,
        owner: Option<&str>,
    ) -> Result<String, RpcError> {
        let params: TaskIdParams = parse(params)?;
        let task = self
            .store
            .get(&params.task_id)
            .await
            .map_err(store_error)?
            .filter(|task| task.is_visible_to(owner))
            .ok_or_else(|| unknown(&params.task_id))?;
        Ok(self.failed_if_orphaned(task).await?.get_result())
    }

    /// `task` as it stands, or `failed` from now on when it is still running on another
    /// instance that stopped (killed, or cut from the store for longer than its lease): its
    /// handler will never finish it, and its client must not poll until the TTL ends.
    async fn failed_if_orphaned(&self, task: TaskRecord) -> Result<TaskRecord, RpcError> {
        let Some(runner) = task.runner.as_deref() else {
            return Ok(task);
        };
        let here =
            Some(runner) == self.store.instance() || self.local().contains_key(&task.task_id);
        if task.status.is_terminal() || here {
            return Ok(task);
        }
        if self.store.is_alive(runner).await.map_err(store_error)? {
            return Ok(task);
        }
        tracing::warn!(
            task = %crate::ids::fingerprint(&task.task_id),
            runner = %crate::ids::fingerprint(runner),
            "the instance running a task stopped: the task failed"
        );
        let error = json!({"code": crate::jsonrpc::INTERNAL_ERROR,
            "message": "the server instance running this task stopped before it finished"});
        let failed = self
            .store
            .update(&task.task_id, &mut |task| {
                if !task.status.is_terminal() {
                    task.status = TaskStatus::Failed;
                    task.error = Some(error.clone());
                    task.input_requests.clear();
                    task.touch();
                }
            })
            .await
            .map_err(store_error)?;
        Ok(failed.unwrap_or(task))
    }

    /// `change` applied to the task `id` if `owner` may see it; `None` (unknown to them)
    /// otherwise, and nothing changed.
    async fn update_owned(
        &self,
        id: &str,
        owner: Option<&str>,
        change: &mut TaskChange<'_>,
    ) -> Result<TaskRecord, RpcError> {
        let mut visible = false;
        let task = self
            .store
            .update(id, &mut |task| {
                visible = task.is_visible_to(owner);
                if visible {
                    change(task);
                }
            })
            .await
            .map_err(store_error)?;
        task.filter(|_| visible).ok_or_else(|| unknown(id))
    }

    /// `tasks/update`: answers for outstanding keys are taken (others ignored); once nothing
    /// is outstanding the task is `working` again.
    pub(crate) async fn update(
        &self,
        params: Option<&RawValue>,
        owner: Option<&str>,
    ) -> Result<String, RpcError> {
        #[derive(Deserialize)]
        struct UpdateParams {
            #[serde(rename = "taskId")]
            task_id: String,
            #[serde(rename = "inputResponses", default)]
            input_responses: Option<Map<String, Value>>,
        }
        let params: UpdateParams = parse(params)?;
        let responses = params.input_responses.unwrap_or_default();
        let task = self
            .update_owned(&params.task_id, owner, &mut |task| {
                if task.status.is_terminal() {
                    return;
                }
                for (key, value) in &responses {
                    if task.input_requests.remove(key).is_some() {
                        task.input_responses.insert(key.clone(), value.clone());
                    }
                }
                if task.input_requests.is_empty() && task.status == TaskStatus::InputRequired {
                    task.status = TaskStatus::Working;
                }
                task.touch();
            })
            .await?;
        if !self.wake_here(&params.task_id) {
            self.bus.publish(BusEvent::TaskAnswered {
                task_id: params.task_id,
                runner: task.runner,
            });
        }
        Ok(ACK.to_string())
    }

    /// `tasks/cancel`: stops the handler (here, or on the instance running it) and marks the
    /// task `cancelled`; a finished task stays as it is (the same acknowledgement).
    pub(crate) async fn cancel(
        &self,
        params: Option<&RawValue>,
        owner: Option<&str>,
    ) -> Result<String, RpcError> {
        let params: TaskIdParams = parse(params)?;
        let task = self
            .update_owned(&params.task_id, owner, &mut |task| {
                if !task.status.is_terminal() {
                    task.status = TaskStatus::Cancelled;
                    task.input_requests.clear();
                    task.touch();
                }
            })
            .await?;
        if !self.stop_here(&params.task_id) && task.status == TaskStatus::Cancelled {
            self.bus.publish(BusEvent::TaskCancelled {
                task_id: params.task_id,
                runner: task.runner,
            });
        }
        Ok(ACK.to_string())
    }

    /// Stops the handler of task `id` if it runs here; whether it did.
    fn stop_here(&self, id: &str) -> bool {
        match self.local().remove(id) {
            Some(local) => {
                local.cancel.send_replace(true);
                true
            }
            None => false,
        }
    }

    /// Wakes the handler of task `id` if it runs here (answers arrived); whether it does.
    fn wake_here(&self, id: &str) -> bool {
        match self.local().get(id) {
            Some(local) => {
                local.answered.notify_waiters();
                true
            }
            None => false,
        }
    }

    /// Another instance's event about a task.
    pub(crate) fn on_bus_event(&self, event: &BusEvent) {
        match event {
            BusEvent::TaskCancelled { task_id, .. } => {
                self.stop_here(task_id);
            }
            BusEvent::TaskAnswered { task_id, .. } => {
                self.wake_here(task_id);
            }
            _ => {}
        }
    }
}

/// The acknowledgement of `tasks/update` and `tasks/cancel`.
const ACK: &str = r#"{"resultType":"complete"}"#;

#[derive(Deserialize)]
struct TaskIdParams {
    #[serde(rename = "taskId")]
    task_id: String,
}

fn parse<'a, T: Deserialize<'a>>(params: Option<&'a RawValue>) -> Result<T, RpcError> {
    serde_json::from_str(params.map_or("{}", RawValue::get))
        .map_err(|e| RpcError::invalid_params(format!("Invalid params: {e}")))
}

fn unknown(id: &str) -> RpcError {
    RpcError::invalid_params(format!("Unknown task: {id}")).with_data(json!({"taskId": id}))
}

/// The JSON-RPC error of a store failure: an unreachable shared store is retryable (HTTP
/// 503); anything else is an internal error.
#[cold]
fn store_error(error: TaskStoreError) -> RpcError {
    match error {
        TaskStoreError::Unavailable(message) => {
            tracing::warn!(%message, "task store unavailable");
            RpcError::unavailable(format!(
                "Service unavailable: the task store cannot be reached ({message}); retry later"
            ))
        }
        other => RpcError::internal(other.to_string()),
    }
}

/// The -32021 error of a request that needs the tasks extension.
pub(crate) fn extension_required() -> Error {
    Error::protocol(
        MISSING_CAPABILITY,
        format!("Missing required client capability: extensions.{TASKS_EXTENSION}"),
    )
    .with_data(json!({"requiredCapabilities": {"extensions": {TASKS_EXTENSION: {}}}}))
}

/// Whether declared client capabilities include the tasks extension.
pub(crate) fn declared(capabilities: &Value) -> bool {
    capabilities
        .get("extensions")
        .and_then(|e| e.get(TASKS_EXTENSION))
        .is_some()
}

#[cfg(test)]
mod tests;
