//! [`RedisEventLog`]: the shared [`EventLog`] as one Redis Stream, `{prefix}:events`.
//!
//! Appending is `XADD … MAXLEN ~ LOG_LENGTH`, queued like the bus's publishing (one task, in
//! order, never waited on). Each instance tails the stream with a blocking `XREAD` on a
//! connection of its own, from the entry it saw last, so a Redis that goes away and comes
//! back costs no entry that was appended. An entry's Redis id `<ms>-<n>` is its sequence
//! `ms << 20 | n`: ordered as the stream is, and one number in a standard SSE event id.

use std::time::Duration;
use tokio::sync::mpsc;

use ::redis::{RedisError, Value};

use super::connection::{Connection, Link};

use crate::delivery::event_log::{Broadcast, EventLog, LogDeliver, Logged, ReplayError};
use crate::future::BoxFuture;
use crate::session::StoreError;

/// How many entries the stream keeps, at least (trimming is approximate, so a few more): a
/// client may resume its standalone stream as long as fewer broadcasts than this followed
/// its last event.
#[doc(hidden)]
pub const LOG_LENGTH: usize = 10_000;

/// Most entries one resumption replays: what the stream keeps, with room for approximate
/// trimming's few more.
const MAX_REPLAY: usize = LOG_LENGTH + 1024;

/// Broadcasts waiting to be appended; more are dropped (with a warning) while Redis is slow.
const QUEUE: usize = 1024;

/// How long one `XREAD` waits for new entries: how soon a dropped server's tail stops.
const BLOCK: Duration = Duration::from_secs(1);

/// The longest pause between two attempts to tail the stream again.
const MAX_BACKOFF: Duration = Duration::from_secs(2);

/// Bits of a sequence holding the entry's number within its millisecond.
const SEQUENCE_BITS: u32 = 20;

/// The log of one instance (see the module documentation).
#[doc(hidden)]
pub struct RedisEventLog {
    link: Link,
    connection: Connection,
    key: String,
    outgoing: mpsc::Sender<Broadcast>,
    runtime: tokio::runtime::Handle,
}

impl std::fmt::Debug for RedisEventLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisEventLog")
            .field("key", &self.key)
            .finish_non_exhaustive()
    }
}

impl RedisEventLog {
    /// The log at `{prefix}:events`, appending and reading through `connection`; tailing
    /// opens a connection of its own from `link`. Starts the appender on the current Tokio
    /// runtime.
    ///
    /// # Panics
    ///
    /// Outside a Tokio runtime.
    pub(crate) fn start(link: Link, connection: Connection, prefix: &str) -> Self {
        let key = format!("{prefix}:events");
        let (outgoing, queued) = mpsc::channel(QUEUE);
        let runtime = tokio::runtime::Handle::current();
        runtime.spawn(append(connection.clone(), key.clone(), queued));
        Self {
            link,
            connection,
            key,
            outgoing,
            runtime,
        }
    }
}

impl EventLog for RedisEventLog {
    fn append(&self, broadcast: Broadcast) {
        if let Err(error) = self.outgoing.try_send(broadcast) {
            tracing::warn!(%error, "broadcast dropped: the event log's queue is full");
        }
    }

    fn subscribe(&self, deliver: LogDeliver) {
        self.runtime
            .spawn(tail(self.link.clone(), self.key.clone(), deliver));
    }

    fn after(&self, sequence: u64) -> BoxFuture<'_, Result<Vec<Logged>, ReplayError>> {
        let mut connection = self.connection.clone();
        Box::pin(async move {
            let id = entry_id(sequence);
            // First one entry each: `id` itself and the oldest kept. An id the log does not
            // hold (`Last-Event-ID: 0-1`) is answered from these two, without reading the
            // log after it.
            let (at, oldest): (Value, Value) = ::redis::pipe()
                .cmd("XRANGE")
                .arg(&self.key)
                .arg(&id)
                .arg(&id)
                .cmd("XRANGE")
                .arg(&self.key)
                .arg("-")
                .arg("+")
                .arg("COUNT")
                .arg(1)
                .query_async(&mut connection)
                .await
                .map_err(unavailable)?;
            if entries_of(at).first().map(|entry| entry.sequence) != Some(sequence) {
                // Not there: gone if it would be older than what is kept, else never issued.
                return match entries_of(oldest).first() {
                    Some(oldest) if oldest.sequence < sequence => Err(ReplayError::Unknown),
                    _ => Err(ReplayError::Lost),
                };
            }
            // Then what followed it, bounded by what the log keeps (trimming is approximate:
            // more than that means the client missed more than any instance can replay).
            let from: Value = ::redis::cmd("XRANGE")
                .arg(&self.key)
                .arg(&id)
                .arg("+")
                .arg("COUNT")
                .arg(MAX_REPLAY + 2)
                .query_async(&mut connection)
                .await
                .map_err(unavailable)?;
            let mut entries = entries_of(from);
            if entries.len() > MAX_REPLAY + 1 {
                return Err(ReplayError::Lost);
            }
            match entries.first() {
                Some(first) if first.sequence == sequence => Ok(entries.split_off(1)),
                // Trimmed between the two reads.
                _ => Err(ReplayError::Lost),
            }
        })
    }
}

/// Appends what is queued, in order, until every sender is gone.
async fn append(mut connection: Connection, key: String, mut queued: mpsc::Receiver<Broadcast>) {
    while let Some(broadcast) = queued.recv().await {
        let Ok(body) = serde_json::to_string(&broadcast) else {
            continue;
        };
        let appended: Result<Value, _> = ::redis::cmd("XADD")
            .arg(&key)
            .arg("MAXLEN")
            .arg("~")
            .arg(LOG_LENGTH)
            .arg("*")
            .arg("b")
            .arg(body)
            .query_async(&mut connection)
            .await;
        if let Err(error) = appended {
            tracing::warn!(%error, "broadcast dropped: Redis refused it");
        }
    }
}

/// Delivers the log's new entries until `deliver` is gone, tailing again after each lost
/// connection from the last entry delivered.
async fn tail(link: Link, key: String, deliver: LogDeliver) {
    let mut last = None;
    let mut backoff = Duration::from_millis(50);
    while deliver.strong_count() > 0 {
        match tail_once(&link, &key, &deliver, &mut last, &mut backoff).await {
            Ok(()) => return,
            Err(error) => {
                tracing::warn!(%error, ?backoff, "event log tail lost; tailing again");
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(MAX_BACKOFF);
            }
        }
    }
}

/// One connection's tail: `Ok` when `deliver` is gone, `Err` when the connection is. The
/// first one starts at the log's end (what was appended before this instance started is not
/// its clients' news).
async fn tail_once(
    link: &Link,
    key: &str,
    deliver: &LogDeliver,
    last: &mut Option<String>,
    backoff: &mut Duration,
) -> Result<(), RedisError> {
    // No response timeout: a blocking read waits on purpose.
    let mut connection = link.blocking().await?;
    if last.is_none() {
        let newest: Value = ::redis::cmd("XREVRANGE")
            .arg(key)
            .arg("+")
            .arg("-")
            .arg("COUNT")
            .arg(1)
            .query_async(&mut connection)
            .await?;
        let start = entries_of(newest)
            .first()
            .map_or_else(|| "0-0".to_string(), |entry| entry_id(entry.sequence));
        *last = Some(start);
    }
    tracing::info!(key, "event log tailed");
    *backoff = Duration::from_millis(50);
    loop {
        let Some(from) = last.clone() else {
            return Ok(());
        };
        let read: Value = ::redis::cmd("XREAD")
            .arg("COUNT")
            .arg(256)
            .arg("BLOCK")
            .arg(BLOCK.as_millis() as u64)
            .arg("STREAMS")
            .arg(key)
            .arg(&from)
            .query_async(&mut connection)
            .await?;
        let Some(deliver) = deliver.upgrade() else {
            return Ok(());
        };
        for logged in read_entries(read) {
            *last = Some(entry_id(logged.sequence));
            deliver(logged);
        }
    }
}

/// The Redis stream id of `sequence`.
fn entry_id(sequence: u64) -> String {
    format!(
        "{}-{}",
        sequence >> SEQUENCE_BITS,
        sequence & ((1 << SEQUENCE_BITS) - 1)
    )
}

/// The sequence of Redis stream id `id`; `None` for one that does not fit (more than 2^20
/// entries in one millisecond: never from `XADD *`).
fn sequence_of(id: &str) -> Option<u64> {
    let (ms, n) = id.split_once('-')?;
    let (ms, n) = (ms.parse::<u64>().ok()?, n.parse::<u64>().ok()?);
    (ms < 1 << (64 - SEQUENCE_BITS) && n < 1 << SEQUENCE_BITS).then_some(ms << SEQUENCE_BITS | n)
}

/// The entries of an `XREAD` reply (one stream): nothing when it timed out.
fn read_entries(reply: Value) -> Vec<Logged> {
    let streams = match reply {
        Value::Array(streams) => streams
            .into_iter()
            .filter_map(|stream| match stream {
                Value::Array(mut pair) if pair.len() == 2 => pair.pop(),
                _ => None,
            })
            .collect(),
        Value::Map(streams) => streams.into_iter().map(|(_, entries)| entries).collect(),
        _ => Vec::new(),
    };
    streams.into_iter().flat_map(entries_of).collect()
}

/// The entries of an `XRANGE` reply, oldest first: entries `[[id, [field, value, …]], …]` that parse; others are logged and skipped.
fn entries_of(reply: Value) -> Vec<Logged> {
    let Value::Array(entries) = reply else {
        return Vec::new();
    };
    entries.into_iter().filter_map(entry).collect()
}

fn entry(value: Value) -> Option<Logged> {
    let Value::Array(mut pair) = value else {
        return None;
    };
    let (Some(fields), Some(Value::BulkString(id))) = (pair.pop(), pair.pop()) else {
        return None;
    };
    let id = String::from_utf8(id).ok()?;
    let fields = match fields {
        Value::Array(fields) => fields,
        Value::Map(fields) => fields.into_iter().flat_map(|(k, v)| [k, v]).collect(),
        _ => return None,
    };
    let body = fields.chunks(2).find_map(|field| match field {
        [Value::BulkString(name), Value::BulkString(body)] if name == b"b" => Some(body),
        _ => None,
    })?;
    let parsed = sequence_of(&id).zip(serde_json::from_slice::<Broadcast>(body).ok());
    if parsed.is_none() {
        tracing::warn!(id, "an event log entry that does not parse was skipped");
    }
    let (sequence, broadcast) = parsed?;
    Some(Logged {
        sequence,
        broadcast,
    })
}

fn unavailable(error: RedisError) -> ReplayError {
    ReplayError::Unavailable(StoreError::Unavailable(error.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequences_keep_the_stream_order_and_map_back_to_their_ids() {
        let ids = [
            "0-1",
            "1700000000000-0",
            "1700000000000-7",
            "1700000000001-0",
        ];
        let sequences: Vec<u64> = ids.iter().map(|id| sequence_of(id).unwrap()).collect();
        assert!(sequences.windows(2).all(|pair| pair[0] < pair[1]));
        for (id, sequence) in ids.iter().zip(sequences) {
            assert_eq!(entry_id(sequence), *id);
        }
        assert_eq!(
            sequence_of("1-1048576"),
            None,
            "more than 2^20 in a millisecond"
        );
        assert_eq!(sequence_of("x-1"), None);
    }

    #[test]
    fn replies_of_both_protocols_parse() {
        let body = |b: &str| Value::BulkString(b.as_bytes().to_vec());
        let one = Value::Array(vec![
            body("5-1"),
            Value::Array(vec![
                body("b"),
                body(r#"{"kind":"list_changed","method":"notifications/tools/list_changed"}"#),
            ]),
        ]);
        let resp2 = Value::Array(vec![Value::Array(vec![
            body("k"),
            Value::Array(vec![one.clone()]),
        ])]);
        let resp3 = Value::Map(vec![(body("k"), Value::Array(vec![one]))]);
        for reply in [resp2, resp3] {
            let entries = read_entries(reply);
            assert_eq!(entries.len(), 1);
            assert_eq!(entries[0].sequence, 5 << SEQUENCE_BITS | 1);
        }
        assert!(read_entries(Value::Nil).is_empty(), "a timed-out read");
    }
}
