//! A stateless `tools/call` that may become a task: its answer sent once, by whoever comes
//! first (the result or the `CreateTaskResult`).

use serde_json::value::RawValue;
use serde_json::{json, Value};
use std::sync::{Arc, Mutex, OnceLock};
use std::task::{Context, Poll, Waker};
use tokio::sync::{oneshot, watch};

use super::{store_error, TaskRecord, TaskStoreError, TaskStoreResult, Tasks};
use crate::delivery::outbound::{Outcome, Reply};
use crate::error::Error;
use crate::future::BoxFuture;
use crate::json::JsonText;
use crate::jsonrpc::{error_response, success_response, RpcError};

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
