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

use super::connection::{Connection, Link};

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
    link: Link,
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
    /// connection from `link`. Starts the publisher on the current Tokio runtime.
    ///
    /// # Panics
    ///
    /// Outside a Tokio runtime.
    pub(crate) fn start(link: Link, connection: Connection, prefix: &str) -> Self {
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
            link,
            channel,
            instance,
            outgoing,
            runtime,
        }
    }
}

impl RedisBus {
    /// Runs `pipeline` (a store's write) and publishes `event` from this instance before it
    /// returns, so that the other instances hear of the write before the client that made it
    /// hears back: in the same round trip on a node; on a Cluster, right after (a pipeline
    /// goes to one slot, and the channel's is not the write's). Returns the pipeline's reply.
    pub(crate) async fn write_and_tell<T: ::redis::FromRedisValue>(
        &self,
        connection: &mut Connection,
        mut pipeline: ::redis::Pipeline,
        event: BusEvent,
    ) -> Result<T, ::redis::RedisError> {
        let envelope = Envelope {
            from: self.instance.clone(),
            event,
        };
        let text = serde_json::to_string(&envelope).unwrap_or_default();
        if connection.is_cluster() {
            let written = pipeline.query_async(connection).await?;
            ::redis::cmd("PUBLISH")
                .arg(&self.channel)
                .arg(text)
                .query_async::<()>(connection)
                .await?;
            return Ok(written);
        }
        pipeline
            .cmd("PUBLISH")
            .arg(&self.channel)
            .arg(text)
            .ignore()
            .query_async(connection)
            .await
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
            self.link.clone(),
            self.channel.clone(),
            self.instance.clone(),
            deliver,
        ));
    }
}

/// Publishes what is queued until every sender is gone.
async fn publish(
    mut connection: Connection,
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
async fn subscribe(link: Link, channel: String, instance: String, deliver: Deliver) {
    let mut backoff = Duration::from_millis(50);
    while deliver.strong_count() > 0 {
        match listen(&link, &channel, &instance, &deliver, &mut backoff).await {
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
    link: &Link,
    channel: &str,
    instance: &str,
    deliver: &Deliver,
    backoff: &mut Duration,
) -> Result<(), ::redis::RedisError> {
    let mut messages = link.subscribe(channel).await?;
    tracing::info!(channel, "bus subscribed");
    *backoff = Duration::from_millis(50);
    while let Some(message) = messages.next().await {
        let Some(deliver) = deliver.upgrade() else {
            return Ok(());
        };
        let envelope: Envelope = match serde_json::from_slice(&message) {
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
