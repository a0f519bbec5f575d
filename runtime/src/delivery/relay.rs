//! Relayed streams: a POST's SSE stream of a shared session, resumed with `Last-Event-ID` on
//! an instance that does not hold it.
//!
//! A POST's stream lives where its request runs: the handler writes into that instance's
//! replay window. When the client's connection breaks (or the server lets it go, 2025-11-25
//! polling) and the load balancer sends its GET elsewhere, the instance it reaches asks over
//! the bus ([`BusEvent::StreamWanted`]); the instance that issued the stream (stream ids are
//! per instance, see `Session::from_record`) resumes it onto a connection of its own and
//! publishes what that connection carries ([`BusEvent::StreamRelayed`]), which the asking
//! instance writes to its client. Nothing of this runs unless a resumption lands elsewhere.

use bytes::Bytes;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::mpsc;

use crate::bus::{Bus, BusEvent, RelayPart};
use crate::ids::random_id;
use crate::session::events::{Delivery, ResumeError, CONNECTION_QUEUE};
use crate::session::SessionStore;

/// How long an asking instance waits for the holder's first part before it answers that no
/// instance holds the stream.
pub(crate) const FIRST_PART_WITHIN: Duration = Duration::from_secs(2);

/// The relays this instance waits on, by tag.
#[derive(Debug, Default)]
pub(crate) struct Relays {
    waiting: Mutex<HashMap<String, mpsc::Sender<RelayPart>>>,
}

/// A relay this instance waits on: its parts, in order; dropping it stops waiting.
pub(crate) struct Waiting {
    relays: Arc<Relays>,
    relay: String,
    /// What the holder sends.
    pub(crate) parts: mpsc::Receiver<RelayPart>,
}

impl Drop for Waiting {
    fn drop(&mut self) {
        lock(&self.relays.waiting).remove(&self.relay);
    }
}

impl Relays {
    /// Asks the instance holding stream `stream` of session `session_id` to relay it after
    /// event `after`; the parts arrive on the returned [`Waiting`].
    pub(crate) fn ask(
        self: &Arc<Self>,
        bus: &dyn Bus,
        session_id: &str,
        stream: u32,
        after: u64,
    ) -> Waiting {
        // The holder publishes the parts for this instance alone when the bus can address it.
        let relay = match bus.address() {
            Some(address) => format!("{address}.{}", random_id()),
            None => random_id(),
        };
        let (sender, parts) = mpsc::channel(CONNECTION_QUEUE);
        lock(&self.waiting).insert(relay.clone(), sender);
        bus.publish(BusEvent::StreamWanted {
            session_id: session_id.to_string(),
            stream,
            after,
            relay: relay.clone(),
        });
        Waiting {
            relays: self.clone(),
            relay,
            parts,
        }
    }

    /// A part of a relay this instance may wait on. One that does not fit (the client reads
    /// too slowly) ends that relay: its response ends, and the client resumes again.
    fn arrived(&self, relay: &str, part: RelayPart) {
        let mut waiting = lock(&self.waiting);
        if let Some(sender) = waiting.get(relay) {
            if sender.try_send(part).is_err() {
                waiting.remove(relay);
            }
        }
    }
}

/// What the relays make of another instance's event: a stream wanted from this instance, or
/// a part of a stream this instance asked for.
pub(crate) fn on_bus_event(
    store: &dyn SessionStore,
    bus: &Arc<dyn Bus>,
    relays: &Relays,
    event: &BusEvent,
) {
    match event {
        BusEvent::StreamWanted {
            session_id,
            stream,
            after,
            relay,
        } => relay_stream(store, bus, session_id, *stream, *after, relay),
        BusEvent::StreamRelayed { relay, part } => relays.arrived(relay, part.clone()),
        _ => {}
    }
}

/// Resumes stream `stream` of session `session_id` after `after` onto a connection whose
/// deliveries go to the bus under `relay`, if this instance issued that stream (any other
/// instance stays silent).
fn relay_stream(
    store: &dyn SessionStore,
    bus: &Arc<dyn Bus>,
    session_id: &str,
    stream: u32,
    after: u64,
    relay: &str,
) {
    let Some(session) = store.get(session_id) else {
        return;
    };
    let (connection, mut deliveries) = mpsc::channel(CONNECTION_QUEUE);
    let resumed = {
        let mut streams = session.streams();
        if !streams.issued(stream) {
            return;
        }
        streams.open_get(Some(&format!("{stream}-{after}")), connection)
    };
    match resumed {
        Ok(replay) => publish(&**bus, relay, RelayPart::Events { sse: text(&replay) }),
        Err(ResumeError::Lost) => return publish(&**bus, relay, RelayPart::Lost),
        // Issued here, but the sequence number is not one of this session's.
        Err(ResumeError::Unknown) => return,
    }
    tracing::debug!(
        stream,
        "a stream resumed on another instance is relayed from here"
    );
    let (bus, relay) = (bus.clone(), relay.to_string());
    tokio::spawn(async move {
        while let Some(delivery) = deliveries.recv().await {
            let part = match delivery {
                Delivery::Frame(frame) => RelayPart::Events { sse: text(&frame) },
                Delivery::End => return publish(&*bus, &relay, RelayPart::End),
                Delivery::Detach => return publish(&*bus, &relay, RelayPart::Detach),
            };
            publish(&*bus, &relay, part);
        }
        // The connection was cut (another resumption took the stream): let the client go.
        publish(&*bus, &relay, RelayPart::Detach);
    });
}

/// Publishes the next `part` of the stream relayed under `relay`.
fn publish(bus: &dyn Bus, relay: &str, part: RelayPart) {
    bus.publish(BusEvent::StreamRelayed {
        relay: relay.to_string(),
        part,
    });
}

/// Writes a relay's parts (after its first, `head`) to a connection of this instance: what
/// the asking GET's response streams.
pub(crate) fn forward(mut waiting: Waiting, connection: mpsc::Sender<Delivery>) {
    tokio::spawn(async move {
        loop {
            let part = tokio::select! {
                part = waiting.parts.recv() => part,
                // The client went away: stop waiting (the holder's later parts are dropped).
                () = connection.closed() => return,
            };
            let Some(part) = part else { return };
            let delivery = match part {
                RelayPart::Events { sse } => Delivery::Frame(Bytes::from(sse)),
                RelayPart::End => Delivery::End,
                RelayPart::Detach | RelayPart::Lost => Delivery::Detach,
            };
            let last = !matches!(delivery, Delivery::Frame(_));
            if connection.send(delivery).await.is_err() || last {
                return;
            }
        }
    });
}

/// SSE bytes as text (ours are UTF-8: JSON and ASCII field names).
fn text(sse: &[u8]) -> String {
    String::from_utf8_lossy(sse).into_owned()
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|p| p.into_inner())
}
