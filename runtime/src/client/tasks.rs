//! Tasks (2026-07-28's tasks extension, `io.modelcontextprotocol/tasks`): a `tools/call` the
//! server may turn into a task, then `tasks/get`, `tasks/update` and `tasks/cancel`, and
//! [`Client::wait_task`] polling one to its end, answering its input requests with the
//! [`ClientHandler`](super::ClientHandler) on the way.
//!
//! The extension is declared only on the requests made here, so a plain
//! [`Client::call_tool`] never receives a task. The 2025-11-25 experimental tasks (the `task`
//! param, `tasks/result`) are not spoken.

use super::error::ClientError;
use super::options::CallOptions;
use super::{handler, Client, State};
use serde_json::{json, Map, Value};
use std::time::Duration;

/// The extension's identifier, under `capabilities.extensions`.
#[doc(hidden)]
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// The poll interval when the server suggests none.
const DEFAULT_POLL: Duration = Duration::from_millis(500);

/// The poll interval's bounds, whatever the server suggests.
const POLL_BOUNDS: (Duration, Duration) = (Duration::from_millis(10), Duration::from_secs(30));

/// What a `tools/call` that allowed a task returned.
#[derive(Debug, Clone, PartialEq)]
pub enum CallOutcome {
    /// The `CallToolResult`, at once.
    Complete(Value),
    /// The `CreateTaskResult`: the task (`taskId`, `status`, `pollIntervalMs`, ...) to follow
    /// with [`Client::get_task`] or [`Client::wait_task`].
    Task(Value),
}

impl Client {
    /// `tools/call` declaring the tasks extension: the server may answer with a task
    /// ([`CallOutcome::Task`]) instead of the result. A result with `isError: true` is
    /// [`ClientError::Tool`], as from [`Client::call_tool`].
    pub async fn call_tool_as_task(
        &self,
        name: &str,
        arguments: Value,
    ) -> Result<CallOutcome, ClientError> {
        let options = CallOptions::new().with_tasks();
        let result = self.call_tool_with(name, arguments, &options).await?;
        Ok(match result["resultType"].as_str() {
            Some("task") => CallOutcome::Task(result),
            _ => CallOutcome::Complete(result),
        })
    }

    /// `tasks/get`: the task as the server holds it now (`status`, and `result`, `error` or
    /// `inputRequests` as it says).
    pub async fn get_task(&self, task_id: &str) -> Result<Value, ClientError> {
        self.task_request("tasks/get", json!({"taskId": task_id}))
            .await
    }

    /// `tasks/update`: answers to the task's input requests, by key.
    pub async fn update_task(
        &self,
        task_id: &str,
        input_responses: Map<String, Value>,
    ) -> Result<(), ClientError> {
        let params = json!({"taskId": task_id, "inputResponses": input_responses});
        self.task_request("tasks/update", params).await.map(drop)
    }

    /// `tasks/cancel`: asks the server to stop the task (it may still end otherwise).
    pub async fn cancel_task(&self, task_id: &str) -> Result<(), ClientError> {
        self.task_request("tasks/cancel", json!({"taskId": task_id}))
            .await
            .map(drop)
    }

    /// Polls the task until it ends (every `pollIntervalMs`, as the server suggests),
    /// answering its input requests with the handler (`tasks/update`): the tool's result when
    /// it completed ([`ClientError::Tool`] for `isError`), the JSON-RPC error when it failed,
    /// [`ClientError::Cancelled`] when it was cancelled. Bounded by the client's timeout per
    /// request, not as a whole: wrap it in `tokio::time::timeout` for a deadline.
    pub async fn wait_task(&self, task_id: &str) -> Result<Value, ClientError> {
        let mut answered = std::collections::HashSet::new();
        loop {
            let task = self.get_task(task_id).await?;
            match task["status"].as_str().unwrap_or_default() {
                "completed" => {
                    let result = task.get("result").cloned().ok_or_else(|| {
                        ClientError::Protocol(format!("task {task_id}: completed without a result"))
                    })?;
                    if result["isError"] == true {
                        return Err(ClientError::Tool(result));
                    }
                    return Ok(result);
                }
                "failed" => return Err(ClientError::rpc(&task["error"])),
                "cancelled" => return Err(ClientError::Cancelled(task_id.to_owned())),
                "input_required" => {
                    let mut responses = Map::new();
                    for (key, input) in task["inputRequests"].as_object().into_iter().flatten() {
                        // Keys are unique for the task's lifetime: each is answered once.
                        if !answered.insert(key.clone()) {
                            continue;
                        }
                        let method = input["method"].as_str().unwrap_or_default();
                        let answer = handler::answer(&*self.handler, method, &input["params"])
                            .await
                            .map_err(ClientError::Rpc)?;
                        responses.insert(key.clone(), answer);
                    }
                    if !responses.is_empty() {
                        self.update_task(task_id, responses).await?;
                        continue;
                    }
                }
                _ => {}
            }
            let suggested = task["pollIntervalMs"].as_u64().map(Duration::from_millis);
            let wait = suggested
                .unwrap_or(DEFAULT_POLL)
                .clamp(POLL_BOUNDS.0, POLL_BOUNDS.1);
            tokio::time::sleep(wait).await;
        }
    }

    /// One `tasks/*` request, declaring the extension; refused in a session.
    async fn task_request(&self, method: &str, params: Value) -> Result<Value, ClientError> {
        if matches!(self.state, State::Legacy { .. }) {
            return Err(ClientError::Unsupported(
                "tasks: this client speaks 2026-07-28's tasks extension, not a session's",
            ));
        }
        self.request_with(method, params, &CallOptions::new().with_tasks())
            .await
    }
}
