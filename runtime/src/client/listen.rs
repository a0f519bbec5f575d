//! Notifications outside any call, as a stream: [`Client::listen`](super::Client::listen).
//!
//! In 2026-07-28 that is a `subscriptions/listen` request whose answer stays open: over HTTP
//! an SSE stream (closed when the [`Subscription`] is dropped), over stdio the messages
//! carrying its id (a `notifications/cancelled` naming it when dropped). In a session it is
//! the session's own notifications (its GET stream and the calls' streams), filtered the same
//! way through the [`Inbox`], with `resources/subscribe` for the resources asked for.

use super::cache::Cache;
use super::error::ClientError;
use super::handler::ClientHandler;
use super::transport::{Answer, Transport};
use crate::future::BoxFuture;
use crate::jsonrpc::RpcError;
use serde_json::{json, Map, Value};
use std::sync::{Arc, Mutex};
use tokio::sync::mpsc;

/// What a [`Subscription`] asks for (the `SubscriptionFilter` of 2026-07-28); nothing by
/// default.
///
/// ```
/// use mcp_runtime::client::Listen;
///
/// let filter = Listen::new().tools_list_changed().resource("file:///notes/1");
/// # drop(filter);
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Listen {
    tools_list_changed: bool,
    prompts_list_changed: bool,
    resources_list_changed: bool,
    resources: Vec<String>,
    tasks: Vec<String>,
}

impl Listen {
    /// Asks for nothing yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// `notifications/tools/list_changed`.
    pub fn tools_list_changed(mut self) -> Self {
        self.tools_list_changed = true;
        self
    }

    /// `notifications/prompts/list_changed`.
    pub fn prompts_list_changed(mut self) -> Self {
        self.prompts_list_changed = true;
        self
    }

    /// `notifications/resources/list_changed`.
    pub fn resources_list_changed(mut self) -> Self {
        self.resources_list_changed = true;
        self
    }

    /// `notifications/resources/updated` for `uri` (and the resources under it).
    pub fn resource(mut self, uri: impl Into<String>) -> Self {
        self.resources.push(uri.into());
        self
    }

    /// `notifications/tasks` for the task `task_id` (2026-07-28's tasks extension).
    pub fn task(mut self, task_id: impl Into<String>) -> Self {
        self.tasks.push(task_id.into());
        self
    }

    /// The `SubscriptionFilter` object.
    pub(crate) fn to_filter(&self) -> Value {
        let mut filter = Map::new();
        for (key, wanted) in [
            ("toolsListChanged", self.tools_list_changed),
            ("promptsListChanged", self.prompts_list_changed),
            ("resourcesListChanged", self.resources_list_changed),
        ] {
            if wanted {
                filter.insert(key.into(), json!(true));
            }
        }
        if !self.resources.is_empty() {
            filter.insert("resourceSubscriptions".into(), json!(self.resources));
        }
        if !self.tasks.is_empty() {
            filter.insert("taskIds".into(), json!(self.tasks));
        }
        Value::Object(filter)
    }

    /// Whether the task ids ask for the tasks extension.
    pub(crate) fn wants_tasks(&self) -> bool {
        !self.tasks.is_empty()
    }

    /// The resources asked for.
    pub(crate) fn resources(&self) -> &[String] {
        &self.resources
    }

    /// What a session's server can honour of this filter, by its capabilities (what a
    /// 2026-07-28 server acknowledges itself).
    pub(crate) fn honoured_by(&self, capabilities: &Value) -> Listen {
        let list_changed = |kind: &str| capabilities[kind]["listChanged"] == true;
        Listen {
            tools_list_changed: self.tools_list_changed && list_changed("tools"),
            prompts_list_changed: self.prompts_list_changed && list_changed("prompts"),
            resources_list_changed: self.resources_list_changed && list_changed("resources"),
            resources: if capabilities["resources"]["subscribe"] == true {
                self.resources.clone()
            } else {
                Vec::new()
            },
            tasks: Vec::new(),
        }
    }

    /// Whether `method` (with `params`) is a notification this filter asks for.
    fn matches(&self, method: &str, params: &Value) -> bool {
        match method {
            "notifications/tools/list_changed" => self.tools_list_changed,
            "notifications/prompts/list_changed" => self.prompts_list_changed,
            "notifications/resources/list_changed" => self.resources_list_changed,
            "notifications/resources/updated" => {
                let uri = params["uri"].as_str().unwrap_or_default();
                self.resources
                    .iter()
                    .any(|wanted| uri.starts_with(wanted.as_str()))
            }
            _ => false,
        }
    }
}

/// A notification as received.
#[derive(Debug, Clone, PartialEq)]
pub struct Notification {
    /// Its method (`notifications/tools/list_changed`, ...).
    pub method: String,
    /// Its params (`Null` when it had none).
    pub params: Value,
}

/// Notifications outside any call, from [`Client::listen`](super::Client::listen); dropping
/// it ends the subscription.
pub struct Subscription {
    acknowledged: Value,
    source: Source,
    /// Whose cache a notification refreshes.
    inbox: Arc<Inbox>,
}

enum Source {
    /// A 2026-07-28 `subscriptions/listen`: its answer, and on stdio what cancels it.
    Listen {
        answer: Answer,
        /// Held for its `Drop`.
        _cancel: Option<CancelListen>,
    },
    /// A session's notifications, filtered by the [`Inbox`].
    Session(mpsc::UnboundedReceiver<Notification>),
}

impl Subscription {
    /// The filter the server agreed to honour (`notifications/subscriptions/acknowledged`'s
    /// `notifications`; in a session, what its capabilities allow).
    pub fn acknowledged(&self) -> &Value {
        &self.acknowledged
    }

    /// The next notification; `None` once the server ended the subscription, an error when
    /// the connection broke (listen again to go on).
    pub async fn next(&mut self) -> Option<Result<Notification, ClientError>> {
        match &mut self.source {
            Source::Session(receiver) => receiver.recv().await.map(Ok),
            Source::Listen { answer, .. } => loop {
                let message = match answer.next().await {
                    Ok(Some(message)) => message,
                    Ok(None) => {
                        return Some(Err(ClientError::Transport(
                            "the subscription's stream ended without the server ending it".into(),
                        )))
                    }
                    Err(error) => return Some(Err(error)),
                };
                if let Some(error) = message.get("error") {
                    return Some(Err(ClientError::rpc(error)));
                }
                let Some(method) = message["method"].as_str() else {
                    // The response: the server ended the subscription.
                    return None;
                };
                if method == "notifications/subscriptions/acknowledged" {
                    continue;
                }
                let params = message.get("params").cloned().unwrap_or(Value::Null);
                self.inbox.cache.changed(method, &params);
                return Some(Ok(Notification {
                    method: method.to_owned(),
                    params,
                }));
            },
        }
    }

    /// A 2026-07-28 subscription, its acknowledgement read.
    pub(crate) async fn listening(
        mut answer: Answer,
        cancel: Option<CancelListen>,
        inbox: Arc<Inbox>,
    ) -> Result<Self, ClientError> {
        loop {
            let Some(message) = answer.next().await? else {
                return Err(ClientError::Protocol(
                    "subscriptions/listen: the stream ended before its acknowledgement".into(),
                ));
            };
            if let Some(error) = message.get("error") {
                return Err(ClientError::rpc(error));
            }
            if message["method"] == "notifications/subscriptions/acknowledged" {
                return Ok(Self {
                    acknowledged: message["params"]["notifications"].clone(),
                    source: Source::Listen {
                        answer,
                        _cancel: cancel,
                    },
                    inbox,
                });
            }
            if message.get("result").is_some() {
                return Err(ClientError::Protocol(
                    "subscriptions/listen: ended before its acknowledgement".into(),
                ));
            }
            // Nothing may come before the acknowledgement; what does is passed over.
        }
    }

    /// A session's subscription.
    pub(crate) fn session(
        acknowledged: Value,
        receiver: mpsc::UnboundedReceiver<Notification>,
        inbox: Arc<Inbox>,
    ) -> Self {
        Self {
            acknowledged,
            source: Source::Session(receiver),
            inbox,
        }
    }
}

/// Ends a 2026-07-28 subscription over stdio when dropped: `notifications/cancelled` naming
/// its request (over HTTP, closing the stream is enough).
pub(crate) struct CancelListen {
    pub(crate) transport: Arc<Transport>,
    pub(crate) id: i64,
}

impl Drop for CancelListen {
    fn drop(&mut self) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let transport = self.transport.clone();
        let body = json!({
            "jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": self.id, "reason": "the client ended the subscription"},
        });
        runtime.spawn(async move {
            let _ = transport
                .send(
                    "notifications/cancelled",
                    body.to_string().into_bytes(),
                    &[],
                )
                .await;
        });
    }
}

/// The client's handler as every transport sees it: the user's [`ClientHandler`], the
/// session subscriptions that get a copy of the notifications they asked for, and the cache
/// that the notifications refresh.
pub(crate) struct Inbox {
    user: Arc<dyn ClientHandler>,
    subscriptions: Mutex<Vec<(Listen, mpsc::UnboundedSender<Notification>)>>,
    pub(crate) cache: Cache,
}

impl Inbox {
    pub(crate) fn new(user: Arc<dyn ClientHandler>) -> Self {
        Self {
            user,
            subscriptions: Mutex::new(Vec::new()),
            cache: Cache::default(),
        }
    }

    /// A new session subscription to what `filter` asks for.
    pub(crate) fn subscribe(&self, filter: Listen) -> mpsc::UnboundedReceiver<Notification> {
        let (sender, receiver) = mpsc::unbounded_channel();
        self.subscriptions.lock().unwrap().push((filter, sender));
        receiver
    }
}

impl ClientHandler for Inbox {
    fn capabilities(&self) -> Value {
        self.user.capabilities()
    }

    fn elicit<'a>(&'a self, params: &'a Value) -> BoxFuture<'a, Result<Value, RpcError>> {
        self.user.elicit(params)
    }

    fn create_message<'a>(&'a self, params: &'a Value) -> BoxFuture<'a, Result<Value, RpcError>> {
        self.user.create_message(params)
    }

    fn list_roots(&self) -> BoxFuture<'_, Result<Value, RpcError>> {
        self.user.list_roots()
    }

    fn notification(&self, method: &str, params: &Value) {
        self.cache.changed(method, params);
        self.user.notification(method, params);
        let mut subscriptions = self.subscriptions.lock().unwrap();
        // A dropped subscription's receiver is gone: its entry goes at the next notification.
        subscriptions.retain(|(filter, sender)| {
            !filter.matches(method, params)
                || sender
                    .send(Notification {
                        method: method.to_owned(),
                        params: params.clone(),
                    })
                    .is_ok()
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_filter_names_only_what_is_asked() {
        assert_eq!(Listen::new().to_filter(), json!({}));
        let filter = Listen::new()
            .tools_list_changed()
            .resource("a://x")
            .task("t1");
        assert_eq!(
            filter.to_filter(),
            json!({"toolsListChanged": true, "resourceSubscriptions": ["a://x"], "taskIds": ["t1"]})
        );
    }

    #[test]
    fn a_session_honours_what_its_capabilities_allow() {
        let filter = Listen::new()
            .tools_list_changed()
            .prompts_list_changed()
            .resource("a://x");
        let capabilities = json!({"tools": {"listChanged": true}, "prompts": {}, "resources": {}});
        assert_eq!(
            filter.honoured_by(&capabilities).to_filter(),
            json!({"toolsListChanged": true})
        );
    }

    #[test]
    fn resource_updates_match_the_resource_and_those_under_it() {
        let filter = Listen::new().resource("file:///notes");
        let updated = "notifications/resources/updated";
        assert!(filter.matches(updated, &json!({"uri": "file:///notes/1"})));
        assert!(!filter.matches(updated, &json!({"uri": "file:///other"})));
        assert!(!filter.matches("notifications/tools/list_changed", &Value::Null));
    }

    #[tokio::test]
    async fn the_inbox_copies_what_a_subscription_asked_for_and_forgets_dropped_ones() {
        let inbox = Inbox::new(Arc::new(super::super::handler::NoHandler));
        let mut tools = inbox.subscribe(Listen::new().tools_list_changed());
        let dropped = inbox.subscribe(Listen::new().tools_list_changed());
        drop(dropped);
        inbox.notification("notifications/prompts/list_changed", &Value::Null);
        inbox.notification("notifications/tools/list_changed", &Value::Null);
        let got = tools.recv().await.unwrap();
        assert_eq!(got.method, "notifications/tools/list_changed");
        assert_eq!(inbox.subscriptions.lock().unwrap().len(), 1);
    }
}
