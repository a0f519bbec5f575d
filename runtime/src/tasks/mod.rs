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
//! process (the running handler, its wake-ups) stays in `Tasks`; a handler waiting for input
//! also re-reads the store every second, so answers written by another instance reach it.
//!
//! [`RequestContext::start_task`]: crate::RequestContext::start_task

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;
use tokio::sync::{oneshot, watch, Notify};

use crate::error::Error;
use crate::json::JsonText;
use crate::jsonrpc::{success_response, RpcError, MISSING_CAPABILITY};
use crate::outbound::Reply;

mod store;

use store::now_ms;
pub use store::{iso8601, MemoryTaskStore, TaskRecord, TaskStatus, TaskStore, TaskStoreError};

/// The extension's identifier, in `capabilities.extensions`.
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// The running side of this instance's tasks, in front of the [`TaskStore`].
pub(crate) struct Tasks {
    store: Arc<dyn TaskStore>,
    ttl: Duration,
    poll_interval: Duration,
    /// Running handlers started here: how to stop them and wake them.
    local: Mutex<HashMap<String, LocalTask>>,
}

struct LocalTask {
    cancel: Arc<watch::Sender<bool>>,
    answered: Arc<Notify>,
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
    /// Tasks kept in `store` for `ttl` after creation, with `poll_interval` suggested.
    pub fn new(store: Arc<dyn TaskStore>, ttl: Duration, poll_interval: Duration) -> Self {
        Self {
            store,
            ttl,
            poll_interval,
            local: Mutex::default(),
        }
    }

    /// Changes the TTL and the suggested poll interval (`entry::run`, before serving).
    pub(crate) fn set_timing(&mut self, ttl: Duration, poll_interval: Duration) {
        self.ttl = ttl;
        self.poll_interval = poll_interval;
    }

    fn local(&self) -> std::sync::MutexGuard<'_, HashMap<String, LocalTask>> {
        self.local.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Forgets the tasks past their TTL; a running one is stopped. Returns how many went.
    pub(crate) fn remove_expired(&self) -> usize {
        let expired = self.store.remove_expired(now_ms());
        for id in &expired {
            if let Some(local) = self.local().remove(id) {
                local.cancel.send_replace(true);
            }
        }
        expired.len()
    }

    /// Tasks held by the store (on every instance sharing it).
    pub(crate) fn held(&self) -> usize {
        self.store.len()
    }

    /// Tasks whose handler runs on this instance.
    pub(crate) fn running_here(&self) -> usize {
        self.local().len()
    }

    /// Creates a `working` task run by this instance for `owner` (a principal's digest, `None`
    /// without authorization); `cancel` is set when it is cancelled.
    fn create(
        &self,
        cancel: Arc<watch::Sender<bool>>,
        owner: Option<String>,
    ) -> Result<TaskRecord, Error> {
        // Expired tasks go as new ones come (and on the server's expiry sweep).
        self.remove_expired();
        let now = now_ms();
        let record = TaskRecord {
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
        };
        self.store
            .insert(record.clone())
            .map_err(|e| Error::protocol(crate::jsonrpc::INTERNAL_ERROR, e.to_string()))?;
        self.local().insert(
            record.task_id.clone(),
            LocalTask {
                cancel,
                answered: Arc::default(),
            },
        );
        Ok(record)
    }

    /// Records how the handler ended, unless the task already ended (cancelled).
    fn finish(&self, id: &str, outcome: Result<JsonText, RpcError>) {
        self.store.update(id, &mut |task| {
            if task.status.is_terminal() {
                return;
            }
            match &outcome {
                Ok(result) => {
                    task.status = TaskStatus::Completed;
                    task.result = serde_json::from_str(result.get()).ok();
                }
                Err(error) => {
                    task.status = TaskStatus::Failed;
                    task.error = serde_json::to_value(error).ok();
                }
            }
            task.input_requests.clear();
            task.touch();
        });
        self.local().remove(id);
    }

    /// Parks the task in `input_required` until `tasks/update` answers `key`.
    async fn ask(&self, id: &str, key: &str, request: Value) -> Result<Value, Error> {
        let answered = self
            .local()
            .get(id)
            .map(|l| l.answered.clone())
            .unwrap_or_default();
        let mut request = Some(request);
        loop {
            let notified = answered.notified();
            let mut answer = None;
            let task = self.store.update(id, &mut |task| {
                if let Some(value) = task.input_responses.remove(key) {
                    answer = Some(value);
                } else if let Some(request) = request.take() {
                    task.input_requests.insert(key.to_string(), request);
                    task.status = TaskStatus::InputRequired;
                    task.touch();
                }
            });
            if task.is_none() {
                return Err(Error::new("the task expired while waiting for input"));
            }
            if let Some(answer) = answer {
                return Ok(answer);
            }
            // A shared store may be answered by another instance: look again now and then.
            let _ = tokio::time::timeout(Duration::from_secs(1), notified).await;
        }
    }

    /// `tasks/get` by `owner` (every `tasks/*` method takes the requester's principal digest:
    /// another principal's task is, to them, an unknown one).
    pub(crate) fn get(
        &self,
        params: Option<&RawValue>,
        owner: Option<&str>,
    ) -> Result<String, RpcError> {
        let params: TaskIdParams = parse(params)?;
        let task = self
            .store
            .get(&params.task_id)
            .filter(|task| task.is_visible_to(owner))
            .ok_or_else(|| unknown(&params.task_id))?;
        Ok(task.get_result())
    }

    /// `change` applied to the task `id` if `owner` may see it; `None` (unknown to them)
    /// otherwise, and nothing changed.
    fn update_owned(
        &self,
        id: &str,
        owner: Option<&str>,
        change: &mut dyn FnMut(&mut TaskRecord),
    ) -> Option<TaskRecord> {
        let mut visible = false;
        let task = self.store.update(id, &mut |task| {
            visible = task.is_visible_to(owner);
            if visible {
                change(task);
            }
        });
        task.filter(|_| visible)
    }

    /// `tasks/update`: answers for outstanding keys are taken (others ignored); once nothing
    /// is outstanding the task is `working` again.
    pub(crate) fn update(
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
        .ok_or_else(|| unknown(&params.task_id))?;
        if let Some(local) = self.local().get(&params.task_id) {
            local.answered.notify_waiters();
        }
        Ok(ACK.to_string())
    }

    /// `tasks/cancel`: stops the handler and marks the task `cancelled`; a finished task
    /// stays as it is (the same acknowledgement).
    pub(crate) fn cancel(
        &self,
        params: Option<&RawValue>,
        owner: Option<&str>,
    ) -> Result<String, RpcError> {
        let params: TaskIdParams = parse(params)?;
        self.update_owned(&params.task_id, owner, &mut |task| {
            if !task.status.is_terminal() {
                task.status = TaskStatus::Cancelled;
                task.input_requests.clear();
                task.touch();
            }
        })
        .ok_or_else(|| unknown(&params.task_id))?;
        if let Some(local) = self.local().remove(&params.task_id) {
            local.cancel.send_replace(true);
        }
        Ok(ACK.to_string())
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
            cancel: Arc::new(watch::channel(false).0),
        }
    }

    /// Turns the call into a task: creates it and answers the request with its
    /// `CreateTaskResult`. Idempotent.
    pub(crate) fn start(&self) -> Result<(), Error> {
        if self.task.get().is_some() {
            return Ok(());
        }
        let mut unanswered = self.reply.lock().unwrap_or_else(|p| p.into_inner());
        if unanswered.is_none() {
            return Err(Error::new("the request was already answered"));
        }
        // Created first: when the store refuses (full), the request keeps its way to answer.
        let record = self.tasks.create(self.cancel.clone(), self.owner.clone())?;
        let reply = unanswered.take().expect("checked above");
        drop(unanswered);
        let _ = self.task.set(record.task_id.clone());
        let result = record.create_result();
        let _ = reply.send(Reply::json(success_response(&self.request_id, &result)));
        tracing::debug!(task = %crate::ids::fingerprint(&record.task_id), "tool call continues as a task");
        Ok(())
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
    pub(crate) fn finish(
        &self,
        outcome: Result<JsonText, RpcError>,
        answer: impl FnOnce(&Result<JsonText, RpcError>) -> Reply,
    ) {
        if let Some(id) = self.task_id() {
            self.tasks.finish(id, outcome);
        } else if let Some(reply) = self.reply.lock().unwrap_or_else(|p| p.into_inner()).take() {
            let _ = reply.send(answer(&outcome));
        }
    }

    /// Asks the client through the task (`input_required` until `tasks/update`).
    pub(crate) async fn ask(&self, key: &str, method: &str, params: Value) -> Result<Value, Error> {
        let id = self.task_id().ok_or_else(|| Error::new("not a task"))?;
        self.tasks
            .ask(id, key, json!({"method": method, "params": params}))
            .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_dates() {
        assert_eq!(iso8601(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso8601(951_782_400_000), "2000-02-29T00:00:00.000Z");
        assert_eq!(iso8601(1_796_000_908_904), "2026-11-30T01:08:28.904Z");
    }

    fn tasks() -> Tasks {
        Tasks::new(
            Arc::new(MemoryTaskStore::new(10)),
            Duration::from_secs(60),
            Duration::from_millis(250),
        )
    }

    fn flag() -> Arc<watch::Sender<bool>> {
        Arc::new(watch::channel(false).0)
    }

    fn raw(text: &str) -> Box<RawValue> {
        RawValue::from_string(text.to_string()).unwrap()
    }

    #[test]
    fn outcomes_and_cancellation() {
        let tasks = tasks();
        let done = tasks.create(flag(), None).unwrap();
        tasks.finish(&done.task_id, Ok(JsonText::from(raw(r#"{"content":[]}"#))));
        let failed = tasks.create(flag(), None).unwrap();
        tasks.finish(&failed.task_id, Err(RpcError::internal("boom")));
        let stop = flag();
        let cancelled = tasks.create(stop.clone(), None).unwrap();
        let params = raw(&json!({"taskId": cancelled.task_id}).to_string());
        assert_eq!(tasks.cancel(Some(&params), None).unwrap(), ACK);
        assert!(*stop.borrow());
        // A late outcome does not resurrect a cancelled task.
        tasks.finish(&cancelled.task_id, Ok(JsonText::from(raw("{}"))));
        let status = |id: &str| tasks.store.get(id).unwrap().status;
        assert_eq!(status(&done.task_id), TaskStatus::Completed);
        assert_eq!(status(&failed.task_id), TaskStatus::Failed);
        assert_eq!(status(&cancelled.task_id), TaskStatus::Cancelled);
        let unknown = raw(r#"{"taskId":"nope"}"#);
        assert_eq!(tasks.get(Some(&unknown), None).unwrap_err().code, -32602);
    }

    #[test]
    fn the_store_is_bounded_and_expires() {
        let store = MemoryTaskStore::new(1);
        let tasks = Tasks::new(
            Arc::new(store),
            Duration::from_millis(1),
            Duration::from_millis(1),
        );
        let first = tasks.create(flag(), None).unwrap();
        assert!(tasks.create(flag(), None).is_err() || tasks.store.get(&first.task_id).is_none());
        assert!(tasks.store.remove_expired(now_ms() + 10).len() <= 1);
    }

    #[tokio::test]
    async fn input_parks_the_task_until_answered() {
        let tasks = Arc::new(tasks());
        let record = tasks.create(flag(), None).unwrap();
        let id = record.task_id.clone();
        let asking = {
            let tasks = tasks.clone();
            let id = id.clone();
            tokio::spawn(async move {
                let a = tasks.ask(&id, "a", json!({"method": "roots/list"}));
                let b = tasks.ask(&id, "b", json!({"method": "roots/list"}));
                tokio::join!(a, b)
            })
        };
        tokio::time::sleep(Duration::from_millis(50)).await;
        let task = tasks.store.get(&id).unwrap();
        assert_eq!(task.status, TaskStatus::InputRequired);
        assert_eq!(task.input_requests.len(), 2);
        let answer = |key: &str| {
            raw(
                &json!({"taskId": id, "inputResponses": {key: {"roots": []}, "stray": 1}})
                    .to_string(),
            )
        };
        tasks.update(Some(&answer("a")), None).unwrap();
        let task = tasks.store.get(&id).unwrap();
        assert_eq!(task.status, TaskStatus::InputRequired);
        assert_eq!(task.input_requests.keys().collect::<Vec<_>>(), ["b"]);
        tasks.update(Some(&answer("b")), None).unwrap();
        let (a, b) = asking.await.unwrap();
        assert_eq!(a.unwrap(), json!({"roots": []}));
        assert_eq!(b.unwrap(), json!({"roots": []}));
        assert_eq!(tasks.store.get(&id).unwrap().status, TaskStatus::Working);
    }
}
