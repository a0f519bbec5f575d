//! The open streams of the 2024-11-05 HTTP+SSE transport (`http::legacy_sse`), by the id
//! their endpoint URL carries. The table lives on the engine, which every request already
//! holds, so the transport costs `/mcp` requests nothing; the transport itself stays in `http`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use tokio::sync::{mpsc, oneshot, Notify};

use crate::session::events::Delivery;
use crate::session::Session;

/// The open 2024-11-05 streams of a server, by the id their endpoint URL carries.
#[derive(Debug, Default)]
pub(crate) struct Connections {
    pub(crate) open: Mutex<HashMap<String, Arc<Connection>>>,
}

/// One open stream, as its POSTs find it.
#[derive(Debug)]
pub(crate) struct Connection {
    /// Messages for the client (`Outbound::lines` of its requests, answers, errors).
    pub(crate) lines: mpsc::UnboundedSender<String>,
    /// The session `initialize` created.
    pub(crate) session: OnceLock<Arc<Session>>,
    /// Hands the session's standalone stream (and what was buffered for it) to the
    /// connection's writer, once.
    pub(crate) attach: Mutex<Option<oneshot::Sender<Standalone>>>,
    /// Signalled when the server shuts down: the stream ends cleanly.
    pub(crate) end: Notify,
}

/// The session's standalone stream, as the writer receives it.
pub(crate) type Standalone = (Vec<u8>, mpsc::Receiver<Delivery>);

impl Connections {
    pub(crate) fn get(&self, id: &str) -> Option<Arc<Connection>> {
        lock(&self.open).get(id).cloned()
    }

    pub(crate) fn remove(&self, id: &str) {
        lock(&self.open).remove(id);
    }

    /// Ends every open stream cleanly (the server is shutting down).
    pub(crate) fn end_all(&self) {
        for connection in lock(&self.open).values() {
            connection.end.notify_one();
        }
    }
}

impl Connection {
    /// Queues a message for the stream (dropped when the stream has ended).
    pub(crate) fn send(&self, json: String) {
        let _ = self.lines.send(json);
    }
}

/// Locks `mutex`, poisoned or not: every update of these tables is one insert or removal.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|p| p.into_inner())
}
