//! The handle an application keeps to tell clients that its lists or resources changed.

use serde::{Deserialize, Serialize};
use serde_json::json;
use serde_json::value::RawValue;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use tokio::sync::mpsc;

use crate::bus::{Bus, BusEvent};
use crate::delivery::event_log::{Broadcast, EventLog, Logged};
use crate::session::events::STANDALONE;
use crate::session::{Session, SessionStore};

/// The list-changed notifications: the only methods another instance may ask to broadcast.
const LIST_CHANGED: [&str; 3] = [
    "notifications/tools/list_changed",
    "notifications/prompts/list_changed",
    "notifications/resources/list_changed",
];

/// How many notifications may wait for one slow `subscriptions/listen` stream; more are
/// dropped for that stream (with a warning) rather than held without bound.
pub const LISTENER_QUEUE: usize = 64;

/// Sends `notifications/*/list_changed` and `notifications/resources/updated` to every
/// session's standalone stream (subscribed sessions only, for resource updates) and to every
/// 2026-07-28 `subscriptions/listen` stream whose filter asked for that kind.
///
/// Get it from [`crate::McpServer::notifier`]; it is cheap to clone and can be moved into the
/// application's own tasks.
#[derive(Clone)]
pub struct Notifier {
    // One pointer: every request context carries a notifier.
    shared: Arc<Shared>,
}

struct Shared {
    store: Arc<dyn SessionStore>,
    listeners: Arc<Listeners>,
    /// Sessions whose client reads lines (stdio): not in the store, and without SSE streams.
    line_sessions: LineSessions,
    /// The other instances, told of every change (they tell their own clients).
    bus: Arc<dyn Bus>,
    /// The log every instance's broadcasts go through when they share one: then a change
    /// reaches this instance's clients from the log too, numbered by it.
    log: Option<Arc<dyn EventLog>>,
}

/// The notification kinds a `subscriptions/listen` stream opts in to (`SubscriptionFilter`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionFilter {
    /// `notifications/tools/list_changed`.
    #[serde(default, skip_serializing_if = "is_false")]
    pub tools_list_changed: bool,
    /// `notifications/prompts/list_changed`.
    #[serde(default, skip_serializing_if = "is_false")]
    pub prompts_list_changed: bool,
    /// `notifications/resources/list_changed`.
    #[serde(default, skip_serializing_if = "is_false")]
    pub resources_list_changed: bool,
    /// `notifications/resources/updated` for these URIs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resource_subscriptions: Vec<String>,
}

fn is_false(flag: &bool) -> bool {
    !flag
}

impl SubscriptionFilter {
    fn wants(&self, method: &str) -> bool {
        match method {
            "notifications/tools/list_changed" => self.tools_list_changed,
            "notifications/prompts/list_changed" => self.prompts_list_changed,
            "notifications/resources/list_changed" => self.resources_list_changed,
            _ => false,
        }
    }
}

/// The session-era sessions of line transports (stdio: one per process), told of changes
/// through the line their output writes, since they have no standalone SSE stream.
#[derive(Default)]
struct LineSessions {
    next_id: AtomicU64,
    open: Mutex<Vec<LineSession>>,
}

struct LineSession {
    id: u64,
    session: Weak<Session>,
    out: mpsc::UnboundedSender<String>,
}

/// A line session's registration ([`Notifier::attach_lines`]): told of changes until dropped.
pub(crate) struct LinesAttached {
    notifier: Notifier,
    id: u64,
}

impl Drop for LinesAttached {
    fn drop(&mut self) {
        let id = self.id;
        lock(&self.notifier.shared.line_sessions.open).retain(|line| line.id != id);
    }
}

/// `notifications/<kind>/list_changed`, as sent.
pub(crate) fn list_changed_message(method: &str) -> String {
    json!({"jsonrpc": "2.0", "method": method}).to_string()
}

/// `notifications/resources/updated` for `uri`, as sent.
pub(crate) fn resource_updated_message(uri: &str) -> String {
    json!({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": uri}})
        .to_string()
}

/// What entry `logged` of the shared event log says to `session`, if it concerns it (a
/// resource update concerns the sessions subscribed to the resource).
pub(crate) fn logged_message(session: &Session, logged: &Logged) -> Option<String> {
    match &logged.broadcast {
        Broadcast::ListChanged { method } => LIST_CHANGED
            .contains(&method.as_str())
            .then(|| list_changed_message(method)),
        Broadcast::ResourceUpdated { uri } => session
            .is_subscribed(uri)
            .then(|| resource_updated_message(uri)),
    }
}

/// Sends `message` on the standalone stream of `session`: numbered by the session, or as
/// entry `logged` of the shared event log.
fn push_standalone(session: &Session, logged: Option<u64>, message: &str) {
    match logged {
        Some(sequence) => session.streams().push_logged(sequence, message.as_bytes()),
        None => session.streams().push(STANDALONE, message.as_bytes()),
    };
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The open `subscriptions/listen` streams of this instance.
#[derive(Default)]
struct Listeners {
    next_id: std::sync::atomic::AtomicU64,
    open: Mutex<Vec<Listener>>,
}

struct Listener {
    id: u64,
    /// The JSON of the listen request's id: every notification carries it.
    subscription_id: Box<RawValue>,
    filter: SubscriptionFilter,
    sender: mpsc::Sender<String>,
    /// Set when the stream is cut for reading too slowly (shared with its [`Subscription`]).
    cut: Arc<AtomicBool>,
    /// Who opened it, with authorization on ([`crate::Principal`]'s owner digest).
    owner: Option<String>,
}

/// How many listen streams may be open ([`Notifier::listen`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct ListenBounds {
    /// In this process ([`crate::config::Streams::max_listen_streams`]).
    pub(crate) total: usize,
    /// Per owner ([`crate::config::Streams::max_listen_streams_per_principal`]).
    pub(crate) per_owner: usize,
}

/// Which bound refused a listen stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ListenFull {
    /// The process holds [`ListenBounds::total`].
    Server,
    /// The owner holds [`ListenBounds::per_owner`].
    Owner,
}

impl Listener {
    /// Queues one notification; false when the stream is to be dropped: its client reads too
    /// slowly for [`LISTENER_QUEUE`] (the stream is cut, visibly), or it is gone.
    fn deliver(&self, method: &str, extra_params: &str) -> bool {
        let message = format!(
            r#"{{"jsonrpc":"2.0","method":"{method}","params":{{"_meta":{{"io.modelcontextprotocol/subscriptionId":{}}}{extra_params}}}}}"#,
            self.subscription_id.get()
        );
        match self.sender.try_send(message) {
            Ok(()) => true,
            Err(mpsc::error::TrySendError::Full(_)) => {
                tracing::warn!(
                    subscription = self.subscription_id.get(),
                    method,
                    "a listen stream's client reads too slowly: the stream is cut"
                );
                self.cut.store(true, Ordering::Release);
                false
            }
            Err(mpsc::error::TrySendError::Closed(_)) => false,
        }
    }
}

/// A registered `subscriptions/listen` stream: receives its notifications until dropped.
pub(crate) struct Subscription {
    id: u64,
    listeners: Arc<Listeners>,
    /// The tagged notifications, as JSON-RPC message text.
    pub(crate) messages: mpsc::Receiver<String>,
    cut: Arc<AtomicBool>,
    /// The resources whose updates the stream asked for (opened at the dispatch by
    /// `Engine::open_listen_updates`).
    pub(crate) resources: Vec<String>,
}

impl Subscription {
    /// Whether the stream ended because its client read too slowly (its response must end
    /// with an error, not as complete).
    pub(crate) fn was_cut(&self) -> bool {
        self.cut.load(Ordering::Acquire)
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        let mut open = self
            .listeners
            .open
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        open.retain(|listener| listener.id != self.id);
    }
}

impl std::fmt::Debug for Notifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Notifier")
            .field("sessions", &self.shared.store.len())
            .field("listen_streams", &self.listen_streams())
            .finish()
    }
}

impl Notifier {
    pub(crate) fn new(
        store: Arc<dyn SessionStore>,
        bus: Arc<dyn Bus>,
        log: Option<Arc<dyn EventLog>>,
    ) -> Self {
        Self {
            shared: Arc::new(Shared {
                store,
                listeners: Arc::default(),
                line_sessions: LineSessions::default(),
                bus,
                log,
            }),
        }
    }

    /// Tells `session`, whose client reads lines written to `out` (stdio), of every list change
    /// and of updates to the resources it subscribed to, until the registration drops.
    pub(crate) fn attach_lines(
        &self,
        session: &Arc<Session>,
        out: mpsc::UnboundedSender<String>,
    ) -> LinesAttached {
        let lines = &self.shared.line_sessions;
        let id = lines.next_id.fetch_add(1, Ordering::Relaxed);
        lock(&lines.open).push(LineSession {
            id,
            session: Arc::downgrade(session),
            out,
        });
        LinesAttached {
            notifier: self.clone(),
            id,
        }
    }

    /// Writes `message` to the line sessions `wanted` picks.
    fn tell_line_sessions(&self, message: &str, wanted: impl Fn(&Session) -> bool) {
        let open = lock(&self.shared.line_sessions.open);
        for line in open.iter() {
            if line
                .session
                .upgrade()
                .is_some_and(|session| wanted(&session))
            {
                let _ = line.out.send(message.to_owned());
            }
        }
    }

    /// Registers a listen stream with this filter; `subscription_id` is the JSON of the listen
    /// request's id. `None` when `max_streams` are open already.
    pub(crate) fn listen(
        &self,
        subscription_id: Box<RawValue>,
        filter: SubscriptionFilter,
        owner: Option<String>,
        bounds: ListenBounds,
    ) -> Result<Subscription, ListenFull> {
        let (sender, messages) = mpsc::channel(LISTENER_QUEUE);
        let cut = Arc::new(AtomicBool::new(false));
        let resources = filter.resource_subscriptions.clone();
        let id = self
            .shared
            .listeners
            .next_id
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut open = self.lock_listeners();
        if open.len() >= bounds.total {
            return Err(ListenFull::Server);
        }
        if let Some(owner) = &owner {
            // A scan, only when a stream opens with authorization on: the list is bounded.
            let held = open
                .iter()
                .filter(|l| l.owner.as_ref() == Some(owner))
                .count();
            if held >= bounds.per_owner {
                return Err(ListenFull::Owner);
            }
        }
        open.push(Listener {
            id,
            subscription_id,
            filter,
            sender,
            cut: cut.clone(),
            owner,
        });
        Ok(Subscription {
            id,
            listeners: self.shared.listeners.clone(),
            messages,
            cut,
            resources,
        })
    }

    /// Whether a client of this instance still wants the updates of `uri`: a session
    /// subscribed to it (HTTP or lines) or a listen stream that names it. A scan of the
    /// sessions, for what keeps a subscription open at the upstream
    /// ([`crate::dispatch::CallKind::Subscribe`]), every few seconds per subscription.
    #[cfg_attr(not(feature = "upstream"), allow(dead_code))]
    pub(crate) fn watches(&self, uri: &str) -> bool {
        let mut watched = self.lock_listeners().iter().any(|listener| {
            listener
                .filter
                .resource_subscriptions
                .iter()
                .any(|u| u == uri)
        });
        if !watched {
            self.shared.store.for_each(&mut |session| {
                watched = watched || session.is_subscribed(uri);
            });
        }
        watched
            || lock(&self.shared.line_sessions.open).iter().any(|line| {
                line.session
                    .upgrade()
                    .is_some_and(|session| session.is_subscribed(uri))
            })
    }

    /// Ends every listen stream cleanly (the server is shutting down).
    pub(crate) fn end_listen_streams(&self) {
        // Dropping a listener's sender ends its stream's relay, which ends the response.
        self.lock_listeners().clear();
    }

    /// How many listen streams are open on this instance.
    pub fn listen_streams(&self) -> usize {
        self.lock_listeners().len()
    }

    fn lock_listeners(&self) -> std::sync::MutexGuard<'_, Vec<Listener>> {
        self.shared
            .listeners
            .open
            .lock()
            .unwrap_or_else(|p| p.into_inner())
    }

    /// The tool list changed: every client of every instance is told.
    pub fn tools_changed(&self) {
        self.list_changed("notifications/tools/list_changed");
    }

    /// The prompt list changed: every client of every instance is told.
    pub fn prompts_changed(&self) {
        self.list_changed("notifications/prompts/list_changed");
    }

    /// The resource list changed: every client of every instance is told.
    pub fn resources_changed(&self) {
        self.list_changed("notifications/resources/list_changed");
    }

    /// The resource at `uri` changed: tells the sessions and listen streams subscribed to it,
    /// on every instance.
    pub fn resource_updated(&self, uri: &str) {
        let uri = uri.to_string();
        if let Some(log) = &self.shared.log {
            return log.append(Broadcast::ResourceUpdated { uri });
        }
        self.resource_updated_here(&uri, None);
        self.shared.bus.publish(BusEvent::ResourceUpdated { uri });
    }

    /// Another instance's change, for this instance's clients.
    pub(crate) fn on_bus_event(&self, event: &BusEvent) {
        match event {
            BusEvent::ListChanged { method } => {
                if let Some(method) = LIST_CHANGED.iter().find(|known| *known == method) {
                    self.broadcast(method, None);
                }
            }
            BusEvent::ResourceUpdated { uri } => self.resource_updated_here(uri, None),
            _ => {}
        }
    }

    /// An entry of the shared event log (any instance's change, this one's included), for
    /// this instance's clients.
    pub(crate) fn on_logged(&self, logged: &Logged) {
        match &logged.broadcast {
            Broadcast::ListChanged { method } => {
                if let Some(method) = LIST_CHANGED.iter().find(|known| *known == method) {
                    self.broadcast(method, Some(logged.sequence));
                }
            }
            Broadcast::ResourceUpdated { uri } => {
                self.resource_updated_here(uri, Some(logged.sequence));
            }
        }
    }

    fn list_changed(&self, method: &'static str) {
        let method = method.to_string();
        if let Some(log) = &self.shared.log {
            return log.append(Broadcast::ListChanged { method });
        }
        self.broadcast(&method, None);
        self.shared.bus.publish(BusEvent::ListChanged { method });
    }

    /// [`Notifier::resource_updated`] for this instance's clients only; `logged` is its place
    /// in the shared event log, if there is one.
    fn resource_updated_here(&self, uri: &str, logged: Option<u64>) {
        let message = resource_updated_message(uri);
        self.shared.store.for_each(&mut |session| {
            if session.is_subscribed(uri) {
                push_standalone(session, logged, &message);
            }
        });
        self.tell_line_sessions(&message, |session| session.is_subscribed(uri));
        let uri_param = format!(r#","uri":{}"#, json!(uri));
        // A listener that cannot take one more is dropped: its stream ends.
        self.lock_listeners().retain(|listener| {
            let wanted = listener
                .filter
                .resource_subscriptions
                .iter()
                .any(|u| u == uri);
            !wanted || listener.deliver("notifications/resources/updated", &uri_param)
        });
    }

    fn broadcast(&self, method: &str, logged: Option<u64>) {
        let message = list_changed_message(method);
        self.shared.store.for_each(&mut |session| {
            push_standalone(session, logged, &message);
        });
        self.tell_line_sessions(&message, |_| true);
        self.lock_listeners()
            .retain(|listener| !listener.filter.wants(method) || listener.deliver(method, ""));
    }
}
