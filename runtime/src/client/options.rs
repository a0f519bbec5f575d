//! What one call may ask beyond its params: a progress callback (the client picks the
//! `progressToken` and routes the call's `notifications/progress` to it).

use serde_json::Value;
use std::fmt;
use std::sync::Arc;

/// One `notifications/progress` of a call.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    /// How far the call is (grows with each notification).
    pub progress: f64,
    /// The total `progress` will reach, when the server knows it.
    pub total: Option<f64>,
    /// What the server says it is doing.
    pub message: Option<String>,
}

impl Progress {
    /// The progress of a `notifications/progress`'s `params`.
    pub(crate) fn from_params(params: &Value) -> Self {
        Self {
            progress: params["progress"].as_f64().unwrap_or_default(),
            total: params["total"].as_f64(),
            message: params["message"].as_str().map(str::to_owned),
        }
    }
}

type ProgressCallback = Arc<dyn Fn(Progress) + Send + Sync>;

/// Options of one call ([`Client::request_with`](super::Client::request_with),
/// [`Client::call_tool_with`](super::Client::call_tool_with)).
///
/// ```
/// use mcp_runtime::client::CallOptions;
///
/// let options = CallOptions::new().on_progress(|p| println!("{}/{:?}", p.progress, p.total));
/// # drop(options);
/// ```
#[derive(Clone, Default)]
pub struct CallOptions {
    pub(crate) progress: Option<ProgressCallback>,
    /// Declares the tasks extension on this request (2026-07-28): the server may answer with
    /// a task.
    pub(crate) tasks: bool,
}

impl CallOptions {
    /// No options.
    pub fn new() -> Self {
        Self::default()
    }

    /// Asks the server for progress (`_meta.progressToken`) and hands each of the call's
    /// `notifications/progress` to `callback` (they do not reach the
    /// [`ClientHandler`](super::ClientHandler)).
    pub fn on_progress(mut self, callback: impl Fn(Progress) + Send + Sync + 'static) -> Self {
        self.progress = Some(Arc::new(callback));
        self
    }

    /// Declares the tasks extension on this request ([`Client::call_tool_as_task`](super::Client::call_tool_as_task)).
    pub(crate) fn with_tasks(mut self) -> Self {
        self.tasks = true;
        self
    }
}

impl fmt::Debug for CallOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CallOptions")
            .field("progress", &self.progress.is_some())
            .field("tasks", &self.tasks)
            .finish()
    }
}
