//! The handle an application keeps to tell clients that its lists or resources changed.

use serde_json::json;
use std::sync::Arc;

use crate::events::STANDALONE;
use crate::session::SessionStore;

/// Sends `notifications/*/list_changed` and `notifications/resources/updated` to every
/// session's standalone stream (subscribed sessions only, for resource updates).
///
/// Get it from [`crate::McpServer::notifier`]; it is cheap to clone and can be moved into the
/// application's own tasks.
#[derive(Clone)]
pub struct Notifier {
    store: Arc<dyn SessionStore>,
}

impl std::fmt::Debug for Notifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Notifier")
            .field("sessions", &self.store.len())
            .finish()
    }
}

impl Notifier {
    pub(crate) fn new(store: Arc<dyn SessionStore>) -> Self {
        Self { store }
    }

    /// The tool list changed.
    pub fn tools_changed(&self) {
        self.broadcast("notifications/tools/list_changed");
    }

    /// The prompt list changed.
    pub fn prompts_changed(&self) {
        self.broadcast("notifications/prompts/list_changed");
    }

    /// The resource list changed.
    pub fn resources_changed(&self) {
        self.broadcast("notifications/resources/list_changed");
    }

    /// The resource at `uri` changed: tells the sessions subscribed to it.
    pub fn resource_updated(&self, uri: &str) {
        let message = json!({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": uri}}).to_string();
        self.store.for_each(&mut |session| {
            if session.is_subscribed(uri) {
                session.streams().push(STANDALONE, message.as_bytes());
            }
        });
    }

    fn broadcast(&self, method: &str) {
        let message = json!({"jsonrpc": "2.0", "method": method}).to_string();
        self.store.for_each(&mut |session| {
            session.streams().push(STANDALONE, message.as_bytes());
        });
    }
}
