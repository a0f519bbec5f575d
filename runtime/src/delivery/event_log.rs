//! [`EventLog`]: the standalone SSE stream's replay window when several instances share the
//! sessions.
//!
//! A session-era session's standalone (GET) stream carries broadcasts only: list changes and
//! resource updates. One instance alone numbers them per session and keeps the last ones in the
//! session ([`crate::session::events`]). Behind a load balancer the client's GET stream lives on one
//! instance, which may die, and the client reconnects with `Last-Event-ID` to another: that
//! one must know what the first sent and what it did not. So with a shared log every broadcast
//! is appended to one log, in one order every instance sees, and its place in the log is its
//! event id (`0-<sequence>`) on every session's standalone stream. Each instance delivers the
//! log's entries to its own clients as they arrive; a resumption anywhere reads the log after
//! the client's last id. Nothing is written per session or per request.
//!
//! The default is no log (`Stores::events` is `None`): one process numbers its own events.
//! Redis implements it with a Redis Stream (`stores::redis`, feature `redis`).

use serde::{Deserialize, Serialize};
use std::sync::Weak;

use crate::future::BoxFuture;
use crate::session::StoreError;

/// What a standalone stream carries: a notification meant for every session (list changes),
/// or for the sessions subscribed to one resource.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Broadcast {
    /// `method` is `notifications/tools/list_changed`, `notifications/prompts/list_changed` or
    /// `notifications/resources/list_changed`.
    ListChanged {
        /// The notification's method.
        method: String,
    },
    /// `notifications/resources/updated` for `uri`.
    ResourceUpdated {
        /// The resource.
        uri: String,
    },
}

/// A broadcast and its place in the log: sequences grow in log order, and `0-<sequence>` is
/// its event id on every standalone stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Logged {
    /// Its place in the log (never 0).
    pub sequence: u64,
    /// What it says.
    pub broadcast: Broadcast,
}

/// Why the log cannot say what followed an event id.
#[cfg_attr(not(feature = "redis"), allow(dead_code))] // what a shared store (`stores::redis`) uses
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReplayError {
    /// The log never held that id: HTTP 400.
    Unknown,
    /// Entries after the id left the log (or the log itself was lost): the stream cannot be
    /// replayed whole, HTTP 410.
    Lost,
    /// The log cannot be reached now: HTTP 503.
    Unavailable(StoreError),
}

/// Where an instance receives the log's entries: held by the server, weakly by the log (a
/// dropped server stops receiving).
pub type LogDeliver = Weak<dyn Fn(Logged) + Send + Sync>;

/// The broadcasts of every instance in one order (see the module documentation).
pub trait EventLog: Send + Sync + 'static {
    /// Appends `broadcast`. It does not wait: every subscriber, this instance's included,
    /// receives it from the log. One that cannot be appended now is logged and dropped.
    fn append(&self, broadcast: Broadcast);

    /// Delivers the entries appended from now on to `deliver`, in log order, each once (after
    /// a lost connection, from where it left off), until `deliver` is gone.
    fn subscribe(&self, deliver: LogDeliver);

    /// The entries after `sequence`, oldest first.
    fn after(&self, sequence: u64) -> BoxFuture<'_, Result<Vec<Logged>, ReplayError>>;
}
