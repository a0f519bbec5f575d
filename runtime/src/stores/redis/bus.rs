//! [`RedisBus`]: [`BusEvent`]s between instances over Redis pub/sub.
//!
//! Each instance has an address (the name its task lease and task records carry too) and
//! listens on two channels: `{prefix}:bus`, for the events every instance may need (a list
//! change, a session's change), and `{prefix}:bus:{address}`, for those only it needs
//! ([`BusEvent::addressee`]: a client's answer to a request it sent, a part of a stream it asked
//! for, a task it runs). An addressed event is published on its addressee's channel, so Redis
//! sends it to that instance alone, not to all of them. On a Redis Cluster, both are sharded
//! channels (`SPUBLISH`, `SSUBSCRIBE`): a message goes to the master that owns its channel's
//! slot and its replicas, not over the cluster bus to every node.
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
#[doc(hidden)]
pub struct RedisBus {
    link: Link,
    /// The channel every instance listens on.
    channel: String,
    /// This instance's address (see the module documentation).
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
    /// The bus of the instance at `address`, on `{prefix}:bus` and `{prefix}:bus:{address}`,
    /// publishing through `connection`; subscribing opens its own connection from `link`.
    /// Starts the publisher on the current Tokio runtime.
    ///
    /// # Panics
    ///
    /// Outside a Tokio runtime.
    pub(crate) fn start(link: Link, connection: Connection, prefix: &str, address: &str) -> Self {
        let channel = format!("{prefix}:bus");
        let instance = address.to_string();
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
            ::redis::cmd("SPUBLISH")
                .arg(channel_of(&self.channel, &envelope.event))
                .arg(text)
                .query_async::<()>(connection)
                .await?;
            return Ok(written);
        }
        pipeline
            .cmd("PUBLISH")
            .arg(channel_of(&self.channel, &envelope.event))
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
        let own = format!("{}:{}", self.channel, self.instance);
        self.runtime.spawn(subscribe(
            self.link.clone(),
            [self.channel.clone(), own],
            self.instance.clone(),
            deliver,
        ));
    }

    fn address(&self) -> Option<&str> {
        Some(&self.instance)
    }
}

/// The channel that carries `event`: its addressee's (`{channel}:{address}`) when it has one
/// (an address of letters and digits only), else `channel`, which every instance hears.
fn channel_of(channel: &str, event: &BusEvent) -> String {
    match event.addressee() {
        Some(address)
            if !address.is_empty()
                && address.len() <= 64
                && address.bytes().all(|b| b.is_ascii_alphanumeric()) =>
        {
            format!("{channel}:{address}")
        }
        _ => channel.to_string(),
    }
}

/// Publishes what is queued until every sender is gone.
async fn publish(
    mut connection: Connection,
    channel: String,
    instance: String,
    mut queued: mpsc::Receiver<BusEvent>,
) {
    // A Cluster's channels are sharded: each message goes to its channel's shard only.
    let command = if connection.is_cluster() {
        "SPUBLISH"
    } else {
        "PUBLISH"
    };
    while let Some(event) = queued.recv().await {
        let to = channel_of(&channel, &event);
        let envelope = Envelope {
            from: instance.clone(),
            event,
        };
        let Ok(text) = serde_json::to_string(&envelope) else {
            continue;
        };
        let sent: Result<i64, _> = ::redis::cmd(command)
            .arg(to)
            .arg(text)
            .query_async(&mut connection)
            .await;
        if let Err(error) = sent {
            tracing::warn!(%error, "bus event dropped: Redis refused it");
        }
    }
}

async fn subscribe(link: Link, channels: [String; 2], instance: String, deliver: Deliver) {
    let mut backoff = Duration::from_millis(50);
    while deliver.strong_count() > 0 {
        match listen(&link, &channels, &instance, &deliver, &mut backoff).await {
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
    channels: &[String; 2],
    instance: &str,
    deliver: &Deliver,
    backoff: &mut Duration,
) -> Result<(), ::redis::RedisError> {
    let mut messages = link.subscribe(channels).await?;
    tracing::info!(channel = %channels[0], own = %channels[1], "bus subscribed");
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
