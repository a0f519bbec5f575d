//! [`RedisBus`]: [`BusEvent`]s between instances over one Redis pub/sub channel.
//!
//! Publishing never waits on Redis: events go through a bounded queue to one task that
//! owns the publishing side (an event that does not fit, or that Redis refuses, is logged and
//! dropped; what it is about is in the shared store). Receiving is one subscriber task with
//! its own connection, which reconnects (with a growing pause, at most two seconds) whenever
//! Redis goes away. Each message names the instance that sent it, so that an instance skips
//! its own.

use futures_util::StreamExt;
use serde::{Deserialize, Serialize};
use std::time::Duration;
use tokio::sync::mpsc;

use ::redis::aio::ConnectionManager;
use ::redis::Client;

use crate::bus::{Bus, BusEvent, Deliver};

/// Events waiting to be published; more are dropped (with a warning) while Redis is slow.
const QUEUE: usize = 1024;

/// The longest pause between two attempts to subscribe again.
const MAX_BACKOFF: Duration = Duration::from_secs(2);

/// One message on the channel.
#[derive(Serialize, Deserialize)]
struct Envelope {
    /// The instance that sent it.
    from: String,
    event: BusEvent,
}

/// The bus of one instance (see the module documentation).
pub struct RedisBus {
    client: Client,
    channel: String,
    instance: String,
    outgoing: mpsc::Sender<BusEvent>,
    runtime: tokio::runtime::Handle,
}

impl std::fmt::Debug for RedisBus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisBus")
            .field("channel", &self.channel)
            .field("instance", &self.instance)
            .finish_non_exhaustive()
    }
}

impl RedisBus {
    /// The bus on `{prefix}:bus`, publishing through `connection`; subscribing opens its own
    /// connection from `client`. Starts the publisher on the current Tokio runtime.
    ///
    /// # Panics
    ///
    /// Outside a Tokio runtime.
    pub fn start(client: Client, connection: ConnectionManager, prefix: &str) -> Self {
        let channel = format!("{prefix}:bus");
        let instance = crate::ids::random_id();
        let (outgoing, queued) = mpsc::channel(QUEUE);
        let runtime = tokio::runtime::Handle::current();
        runtime.spawn(publish(
            connection,
            channel.clone(),
            instance.clone(),
            queued,
        ));
        Self {
            client,
            channel,
            instance,
            outgoing,
            runtime,
        }
    }
}

impl RedisBus {
    /// The channel and the message that carry `event` from this instance: for a store that
    /// publishes it itself, in the same round trip as the write it is about (the other
    /// instances then hear of the write before the client that made it hears back).
    pub(crate) fn message(&self, event: BusEvent) -> (&str, String) {
        let envelope = Envelope {
            from: self.instance.clone(),
            event,
        };
        let text = serde_json::to_string(&envelope).unwrap_or_default();
        (&self.channel, text)
    }
}

impl Bus for RedisBus {
    fn publish(&self, event: BusEvent) {
        if let Err(error) = self.outgoing.try_send(event) {
            tracing::warn!(%error, "bus event dropped: the publishing queue is full");
        }
    }

    fn subscribe(&self, deliver: Deliver) {
        self.runtime.spawn(subscribe(
            self.client.clone(),
            self.channel.clone(),
            self.instance.clone(),
            deliver,
        ));
    }
}

/// Publishes what is queued until every sender is gone.
async fn publish(
    mut connection: ConnectionManager,
    channel: String,
    instance: String,
    mut queued: mpsc::Receiver<BusEvent>,
) {
    while let Some(event) = queued.recv().await {
        let envelope = Envelope {
            from: instance.clone(),
            event,
        };
        let Ok(text) = serde_json::to_string(&envelope) else {
            continue;
        };
        let sent: Result<i64, _> = ::redis::cmd("PUBLISH")
            .arg(&channel)
            .arg(text)
            .query_async(&mut connection)
            .await;
        if let Err(error) = sent {
            tracing::warn!(%error, "bus event dropped: Redis refused it");
        }
    }
}

/// Delivers the other instances' events until `deliver` is gone, subscribing again after
/// each lost connection.
async fn subscribe(client: Client, channel: String, instance: String, deliver: Deliver) {
    let mut backoff = Duration::from_millis(50);
    while deliver.strong_count() > 0 {
        match listen(&client, &channel, &instance, &deliver, &mut backoff).await {
            Ok(()) => return,
            Err(error) => {
                tracing::warn!(%error, ?backoff, "bus subscription lost; subscribing again");
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(MAX_BACKOFF);
            }
        }
    }
}

/// One subscription: `Ok` when `deliver` is gone, `Err` when the connection is. Once
/// subscribed, the next reconnection starts again from a short pause.
async fn listen(
    client: &Client,
    channel: &str,
    instance: &str,
    deliver: &Deliver,
    backoff: &mut Duration,
) -> Result<(), ::redis::RedisError> {
    let mut pubsub = client.get_async_pubsub().await?;
    pubsub.subscribe(channel).await?;
    tracing::info!(channel, "bus subscribed");
    *backoff = Duration::from_millis(50);
    let mut messages = pubsub.into_on_message();
    while let Some(message) = messages.next().await {
        let Some(deliver) = deliver.upgrade() else {
            return Ok(());
        };
        let envelope: Envelope = match serde_json::from_slice(message.get_payload_bytes()) {
            Ok(envelope) => envelope,
            Err(error) => {
                tracing::warn!(%error, "a bus message that does not parse was ignored");
                continue;
            }
        };
        if envelope.from != instance {
            deliver(envelope.event);
        }
    }
    Err(::redis::RedisError::from(std::io::Error::new(
        std::io::ErrorKind::ConnectionAborted,
        "the subscription ended",
    )))
}
