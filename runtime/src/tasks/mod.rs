//! The tasks extension of 2026-07-28 (`io.modelcontextprotocol/tasks`, SEP-2663).
//!
//! A tool handler decides when its call becomes a task: [`RequestContext::start_task`] (or
//! `require_task`) answers the client at once with a `CreateTaskResult`, and the handler keeps
//! running in the background. From then on its requests to the client park the task in
//! `input_required` until `tasks/update` brings the answers; its result (or JSON-RPC error)
//! becomes the task's `completed` (or `failed`) state, read with `tasks/get`. `tasks/cancel`
//! stops the handler.
//!
//! Task state lives behind [`TaskStore`] (in memory by default). What cannot leave the
//! process (the running handler, its wake-ups) stays in `Tasks`. With a shared store, any
//! instance answers `tasks/*`: a cancel or an answer for a task another instance runs reaches
//! it over the [`Bus`], and a handler waiting for input also re-reads the
//! store every second, so an answer whose event was lost still arrives.
//!
//! [`RequestContext::start_task`]: crate::RequestContext::start_task

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::task::{Context, Poll, Waker};
use std::time::Duration;
use tokio::sync::{oneshot, watch, Notify};

use crate::bus::{Bus, BusEvent};
use crate::error::Error;
use crate::future::BoxFuture;
use crate::json::JsonText;
use crate::jsonrpc::{error_response, success_response, RpcError, MISSING_CAPABILITY};
use crate::outbound::{Outcome, Reply};

mod store;

pub(crate) use store::now_ms;
pub use store::{
    iso8601, MemoryTaskStore, TaskChange, TaskRecord, TaskStatus, TaskStore, TaskStoreError,
    TaskStoreResult,
};

/// The extension's identifier, in `capabilities.extensions`.
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
        self.update_owned(&params.task_id, owner, &mut |task| {
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
            BusEvent::TaskCancelled { task_id } => {
                self.stop_here(task_id);
            }
            BusEvent::TaskAnswered { task_id } => {
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

/// One stateless `tools/call` that may turn into a task: how its answer is sent (once,
/// by whoever comes first: the result, or the `CreateTaskResult`) and, once it is a task,
/// which one.
pub(crate) struct TaskSlot {
    tasks: Arc<Tasks>,
    /// The JSON-RPC id of the `tools/call`.
    request_id: Box<RawValue>,
    /// The caller's principal digest (authorization on), which the task will carry.
    owner: Option<String>,
    reply: Mutex<Option<oneshot::Sender<Reply>>>,
    task: OnceLock<String>,
    /// Whether the store holds the task: `None` while a shared store is still writing it,
    /// then `Some(true)`, or `Some(false)` if it could not (the call was answered with the
    /// error and the handler stopped).
    stored: watch::Sender<Option<bool>>,
    /// Set by `tasks/cancel` (or expiry). It exists from the start, so that a handler
    /// watching it before it became a task still sees the cancellation.
    cancel: Arc<watch::Sender<bool>>,
}

impl std::fmt::Debug for TaskSlot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskSlot")
            .field("task", &self.task.get())
            .finish_non_exhaustive()
    }
}

impl TaskSlot {
    /// The slot of the call `request_id` by `owner`, answered through `reply`.
    pub(crate) fn new(
        tasks: Arc<Tasks>,
        request_id: Box<RawValue>,
        owner: Option<String>,
        reply: oneshot::Sender<Reply>,
    ) -> Self {
        Self {
            tasks,
            request_id,
            owner,
            reply: Mutex::new(Some(reply)),
            task: OnceLock::new(),
            stored: watch::channel(None).0,
            cancel: Arc::new(watch::channel(false).0),
        }
    }

    /// Turns the call into a task: creates it and answers the request with its
    /// `CreateTaskResult`. Idempotent.
    ///
    /// A store that answers at once (memory) decides here: when it refuses (full), the call is
    /// not a task and keeps its way to answer. A shared store's write is awaited in the
    /// background, and the client hears of the task once it is stored (so that `tasks/get`
    /// on any instance finds it). A shared store that cannot be reached (at once or later)
    /// answers the call with its retryable error (HTTP 503) and stops the handler: a task
    /// nobody could poll is no task.
    pub(crate) fn start(self: &Arc<Self>) -> Result<(), Error> {
        if self.task.get().is_some() {
            return Ok(());
        }
        let mut unanswered = self.reply.lock().unwrap_or_else(|p| p.into_inner());
        if unanswered.is_none() {
            return Err(Error::new("the request was already answered"));
        }
        // Expired tasks go as new ones come (and on the server's expiry sweep).
        self.tasks.remove_expired();
        let record = self.tasks.new_record(self.owner.clone());
        let store = self.tasks.store.clone();
        let stored_record = record.clone();
        let mut insert: BoxFuture<'static, TaskStoreResult<()>> =
            Box::pin(async move { store.insert(stored_record).await });
        let written = match insert
            .as_mut()
            .poll(&mut Context::from_waker(Waker::noop()))
        {
            Poll::Ready(Err(error)) if !matches!(error, TaskStoreError::Unavailable(_)) => {
                return Err(Error::new(store_error(error).message));
            }
            Poll::Ready(written) => Some(written),
            Poll::Pending => None,
        };
        let reply = unanswered.take().expect("checked above");
        drop(unanswered);
        self.tasks.run_here(&record, self.cancel.clone());
        let _ = self.task.set(record.task_id.clone());
        tracing::debug!(task = %crate::ids::fingerprint(&record.task_id), "tool call continues as a task");
        match written {
            Some(written) => self.answer_start(reply, &record, written),
            None => {
                let slot = self.clone();
                tokio::spawn(async move {
                    let written = insert.await;
                    slot.answer_start(reply, &record, written);
                });
            }
        }
        Ok(())
    }

    /// Answers the call once the store `written` the task: its `CreateTaskResult`, or the
    /// store's error (and the handler stops).
    fn answer_start(
        &self,
        reply: oneshot::Sender<Reply>,
        record: &TaskRecord,
        written: TaskStoreResult<()>,
    ) {
        let answer = match written {
            Ok(()) => {
                self.stored.send_replace(Some(true));
                Reply::json(success_response(&self.request_id, &record.create_result()))
            }
            Err(error) => {
                let error = store_error(error);
                self.stored.send_replace(Some(false));
                self.tasks.stop_here(&record.task_id);
                Reply::Json {
                    json: error_response(Some(&self.request_id), &error),
                    outcome: if error.is_unavailable() {
                        Outcome::Unavailable
                    } else {
                        Outcome::Answered
                    },
                }
            }
        };
        let _ = reply.send(answer);
    }

    /// Whether the task is in the store, once its write is done (at once for memory).
    async fn is_stored(&self) -> bool {
        let mut stored = self.stored.subscribe();
        let outcome = match stored.wait_for(Option::is_some).await {
            Ok(stored) => *stored == Some(true),
            Err(_) => false,
        };
        outcome
    }

    /// The task id once the call became a task.
    pub(crate) fn task_id(&self) -> Option<&str> {
        self.task.get().map(String::as_str)
    }

    /// Resolves when the task is cancelled (only a task can be).
    pub(crate) async fn cancelled(&self) {
        let mut cancelled = self.cancel.subscribe();
        if cancelled.wait_for(|c| *c).await.is_err() {
            std::future::pending::<()>().await;
        }
    }

    /// Answers the request with the call's own outcome (`answer` renders it), or, once the
    /// call is a task, records the outcome in the task.
    pub(crate) async fn finish(
        &self,
        outcome: Result<JsonText, RpcError>,
        answer: impl FnOnce(&Result<JsonText, RpcError>) -> Reply,
    ) {
        if let Some(id) = self.task_id() {
            if self.is_stored().await {
                self.tasks.finish(id, outcome).await;
            }
        } else if let Some(reply) = self.reply.lock().unwrap_or_else(|p| p.into_inner()).take() {
            let _ = reply.send(answer(&outcome));
        }
    }

    /// Asks the client through the task (`input_required` until `tasks/update`).
    pub(crate) async fn ask(&self, key: &str, method: &str, params: Value) -> Result<Value, Error> {
        let id = self.task_id().ok_or_else(|| Error::new("not a task"))?;
        if !self.is_stored().await {
            return Err(Error::new("the task could not be stored"));
        }
        self.tasks
            .ask(id, key, json!({"method": method, "params": params}))
            .await
    }
}

#[cfg(test)]
mod tests;
