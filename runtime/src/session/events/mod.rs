//! SSE streams of one session: event ids, the replay window, and routing of each message to
//! the one connection currently carrying its stream.
//!
//! Every message the server sends on SSE belongs to exactly one logical stream: the standalone
//! GET stream (id 0) or the stream of one POST request (ids 1, 2, ...). Event ids are
//! `"<stream>-<sequence>"`, unique in the session, so a `Last-Event-ID` names both the stream to
//! resume and where to resume it. The last `window` events are kept for replay.
//!
//! When instances share a log of broadcasts (`delivery/event_log.rs`), the standalone stream
//! carries the log's entries under the log's numbering (`0-<place in the log>`) and keeps
//! none of them: the log is its window, and any instance can resume it.

use bytes::Bytes;
use std::collections::{HashMap, VecDeque};
use tokio::sync::mpsc;

pub use frame::encode_frame;
use frame::{write_frame, write_priming, FRAME_OVERHEAD};

mod frame;

/// The id of the standalone GET stream.
pub const STANDALONE: u32 = 0;

/// How many frames a connection may have queued. A client that lets more pile up is too slow
/// for its stream: its connection is cut (the response ends with an error, not cleanly) and
/// the stream waits in the replay window for a `Last-Event-ID` resumption.
pub const CONNECTION_QUEUE: usize = 64;

/// What a connection receives: frames, then the end of its stream.
#[derive(Debug)]
pub enum Delivery {
    /// A frame to write.
    Frame(Bytes),
    /// The logical stream is complete: end the HTTP response.
    End,
    /// Drop the connection without ending the logical stream (SSE polling).
    Detach,
}

/// Why a `Last-Event-ID` cannot resume a stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResumeError {
    /// The id is not an event id this session issued.
    Unknown,
    /// Events after the id rolled out of the replay window: the stream cannot be replayed
    /// whole.
    Lost,
}

/// The session's streams and replay window.
#[derive(Debug)]
pub struct Streams {
    window: usize,
    buffered_limit: usize,
    /// The first request stream id this process issued in the session: ids in
    /// `first_stream..next_stream` are its own.
    first_stream: u32,
    next_stream: u32,
    next_sequence: u64,
    log: ReplayLog,
    /// The connection of each live logical stream (None while detached).
    live: HashMap<u32, Option<mpsc::Sender<Delivery>>, StreamIdHasher>,
    /// Standalone messages published while no GET stream was open.
    pending_standalone: VecDeque<Pending>,
    /// The last entry of the shared event log the standalone stream carried (0: none).
    standalone_through: u64,
    /// Standalone messages dropped because `pending_standalone` was full (logged in bulk).
    dropped_standalone: u64,
}

impl Streams {
    /// Streams keeping `window` events for replay and at most `buffered_limit` standalone
    /// messages while no GET stream is open.
    pub fn new(window: usize, buffered_limit: usize) -> Self {
        Self {
            window,
            buffered_limit,
            first_stream: 1,
            next_stream: 1,
            next_sequence: 1,
            log: ReplayLog::default(),
            live: HashMap::default(),
            pending_standalone: VecDeque::new(),
            standalone_through: 0,
            dropped_standalone: 0,
        }
    }

    /// Issues request stream ids from `first` on (a replica of a shared session starts at a
    /// random point, so that the instances serving one session never issue the same id).
    #[cfg_attr(not(feature = "redis"), allow(dead_code))] // what a shared store (`stores::redis`) uses
    pub(crate) fn start_streams_at(&mut self, first: u32) {
        self.first_stream = first.max(1);
        self.next_stream = self.first_stream;
    }

    /// Whether request stream `stream` is one this process issued in the session.
    pub fn issued(&self, stream: u32) -> bool {
        if self.first_stream <= self.next_stream {
            (self.first_stream..self.next_stream).contains(&stream)
        } else {
            // The ids wrapped around (after 2^32 streams): both ends are ours.
            stream >= self.first_stream || (1..self.next_stream).contains(&stream)
        }
    }

    /// Opens the stream of a POST request on `connection`; returns its id.
    pub fn open_request_stream(&mut self, connection: mpsc::Sender<Delivery>) -> u32 {
        let id = self.next_stream;
        self.next_stream = self.next_stream.wrapping_add(1).max(1);
        self.live.insert(id, Some(connection));
        id
    }

    /// Opens a GET stream on `connection`: the resumption of the stream `last_event_id` names,
    /// or else the standalone stream (ending any previous one). Returns what the response
    /// starts with: the replayed events and the standalone messages that waited for a GET
    /// stream, as one chunk (more than a connection queue may have waited).
    pub fn open_get(
        &mut self,
        last_event_id: Option<&str>,
        connection: mpsc::Sender<Delivery>,
    ) -> Result<Vec<u8>, ResumeError> {
        let Some(last_event_id) = last_event_id else {
            return Ok(self.attach_standalone(connection, Vec::new()));
        };
        let (stream, after) = parse_event_id(last_event_id).ok_or(ResumeError::Unknown)?;
        if (stream != STANDALONE && !self.issued(stream)) || after >= self.next_sequence {
            return Err(ResumeError::Unknown);
        }
        let alive = self.live.contains_key(&stream) || stream == STANDALONE;
        if self.window == 0 || self.log.lost_after(stream, after, alive) {
            return Err(ResumeError::Lost);
        }
        let replay = self.log.after(stream, after);
        if stream == STANDALONE {
            return Ok(self.attach_standalone(connection, replay));
        }
        match self.live.get_mut(&stream) {
            Some(slot) => {
                if let Some(previous) = slot.replace(connection) {
                    let _ = previous.try_send(Delivery::End);
                }
            }
            // Ended: the replay is all there is.
            None => {
                let _ = connection.try_send(Delivery::End);
            }
        }
        Ok(replay)
    }

    /// Attaches `connection` as the standalone stream after `head`, ending any previous one;
    /// the messages buffered while none was open follow `head`.
    fn attach_standalone(
        &mut self,
        connection: mpsc::Sender<Delivery>,
        mut head: Vec<u8>,
    ) -> Vec<u8> {
        if let Some(Some(previous)) = self.live.insert(STANDALONE, Some(connection)) {
            let _ = previous.try_send(Delivery::End);
        }
        if self.dropped_standalone > 0 {
            tracing::warn!(
                dropped = self.dropped_standalone,
                kept = self.buffered_limit,
                "standalone messages were dropped while no GET stream was open (config.streams.buffered_messages)"
            );
            self.dropped_standalone = 0;
        }
        for pending in std::mem::take(&mut self.pending_standalone) {
            match pending.logged {
                None => {
                    let frame = self.message_frame(STANDALONE, &pending.data);
                    head.extend_from_slice(&frame);
                }
                // Waited here, but the resumption's replay may have carried it already.
                Some(sequence) if sequence > self.standalone_through => {
                    self.standalone_through = sequence;
                    write_frame(&mut head, STANDALONE, sequence, &pending.data);
                }
                Some(_) => {}
            }
        }
        head
    }

    /// Opens the standalone stream on `connection`, resuming after entry `after` of the
    /// shared event log: `replay` (the entries after it this session receives, as
    /// `(sequence, json)`, oldest first), then what waited here and came later.
    pub fn resume_standalone(
        &mut self,
        connection: mpsc::Sender<Delivery>,
        after: u64,
        replay: &[(u64, String)],
    ) -> Vec<u8> {
        let mut head = Vec::new();
        for (sequence, json) in replay {
            write_frame(&mut head, STANDALONE, *sequence, json.as_bytes());
        }
        // What this instance sent after `after` is what the client missed: the replay has it.
        self.standalone_through = replay.last().map_or(after, |(sequence, _)| *sequence);
        self.attach_standalone(connection, head)
    }

    /// Frames and sends entry `sequence` of the shared event log on the standalone stream,
    /// as event `0-<sequence>`. An entry not after the last one carried is skipped (a
    /// resumption replayed it). Nothing is kept here: the log is the replay window.
    pub fn push_logged(&mut self, sequence: u64, json: &[u8]) -> bool {
        if sequence <= self.standalone_through {
            return false;
        }
        if !matches!(self.live.get(&STANDALONE), Some(Some(_))) {
            self.hold_standalone(Some(sequence), json);
            return false;
        }
        self.standalone_through = sequence;
        let mut frame = Vec::with_capacity(json.len() + FRAME_OVERHEAD);
        write_frame(&mut frame, STANDALONE, sequence, json);
        self.deliver(STANDALONE, Delivery::Frame(Bytes::from(frame)))
    }

    /// Keeps a standalone message until a GET stream opens, dropping the oldest past the
    /// limit.
    fn hold_standalone(&mut self, logged: Option<u64>, json: &[u8]) {
        if self.pending_standalone.len() >= self.buffered_limit {
            self.pending_standalone.pop_front();
            self.dropped_standalone += 1;
        }
        self.pending_standalone.push_back(Pending {
            logged,
            data: Bytes::copy_from_slice(json),
        });
    }

    /// Frames and sends `json` on `stream`, recording it for replay. Returns false when the
    /// message could not be delivered now (it stays in the replay window).
    pub fn push(&mut self, stream: u32, json: &[u8]) -> bool {
        if stream == STANDALONE && !matches!(self.live.get(&STANDALONE), Some(Some(_))) {
            self.hold_standalone(None, json);
            return false;
        }
        let bytes = self.message_frame(stream, json);
        self.deliver(stream, Delivery::Frame(bytes))
    }

    /// A priming event (an id and empty data) and a `retry` hint, sent first on 2025-11-25 SSE
    /// responses so the client can resume from it.
    pub fn prime(&mut self, stream: u32, retry_ms: u64) -> bool {
        let bytes = self.priming_frame(stream, retry_ms);
        self.deliver(stream, Delivery::Frame(bytes))
    }

    /// A request stream opened and ended at once, as one chunk: its priming event (when
    /// `priming_retry_ms` is given) and `json`, both recorded for replay. For an answer that
    /// streams only because SSE was asked for: no connection is registered.
    pub fn whole_stream(&mut self, priming_retry_ms: Option<u64>, json: &[u8]) -> Bytes {
        let stream = self.next_stream;
        self.next_stream = self.next_stream.wrapping_add(1).max(1);
        let Some(retry) = priming_retry_ms else {
            return self.message_frame(stream, json);
        };
        // The priming event comes first in sequence too: resuming after it replays the answer.
        let priming_sequence = self.next_event();
        let message_sequence = self.next_event();
        let mut body = Vec::with_capacity(json.len() + 2 * FRAME_OVERHEAD);
        write_priming(&mut body, stream, priming_sequence, retry);
        let priming_len = body.len();
        write_frame(&mut body, stream, message_sequence, json);
        self.remember(stream, priming_sequence, &body[..priming_len]);
        self.remember(stream, message_sequence, &body[priming_len..]);
        Bytes::from(body)
    }

    /// The next priming event of `stream`, recorded for replay.
    fn priming_frame(&mut self, stream: u32, retry_ms: u64) -> Bytes {
        let sequence = self.next_event();
        let mut bytes = Vec::with_capacity(FRAME_OVERHEAD);
        write_priming(&mut bytes, stream, sequence, retry_ms);
        self.remember(stream, sequence, &bytes);
        Bytes::from(bytes)
    }

    /// The next message event of `stream`, recorded for replay.
    fn message_frame(&mut self, stream: u32, json: &[u8]) -> Bytes {
        let sequence = self.next_event();
        let mut bytes = Vec::with_capacity(json.len() + FRAME_OVERHEAD);
        write_frame(&mut bytes, stream, sequence, json);
        self.remember(stream, sequence, &bytes);
        Bytes::from(bytes)
    }

    fn next_event(&mut self) -> u64 {
        let sequence = self.next_sequence;
        self.next_sequence += 1;
        sequence
    }

    /// Ends `stream`: its connection (if any) completes and the stream is forgotten.
    pub fn end(&mut self, stream: u32) {
        if let Some(Some(connection)) = self.live.remove(&stream) {
            let _ = connection.try_send(Delivery::End);
        }
        self.log.forget_if_empty(stream);
    }

    /// Ends the standalone GET stream cleanly (the server is shutting down); later
    /// standalone messages wait for the next GET.
    pub fn end_standalone(&mut self) {
        if let Some(Some(connection)) = self.live.remove(&STANDALONE) {
            let _ = connection.try_send(Delivery::End);
        }
    }

    /// Ends every stream's connection cleanly (the session is closing).
    pub fn end_all(&mut self) {
        for (_, connection) in self.live.drain() {
            if let Some(connection) = connection {
                let _ = connection.try_send(Delivery::End);
            }
        }
    }

    /// Drops the connection of `stream` but keeps the stream alive, so a later GET with
    /// `Last-Event-ID` gets the rest (2025-11-25 polling).
    pub fn detach(&mut self, stream: u32) {
        if let Some(slot) = self.live.get_mut(&stream) {
            if let Some(connection) = slot.take() {
                let _ = connection.try_send(Delivery::Detach);
            }
        }
    }

    /// Number of frames kept for replay.
    pub fn window_len(&self) -> usize {
        self.log.len()
    }

    /// Number of streams whose replay bookkeeping is kept (live ones, and ended ones with
    /// events still in the window): bounded by the live streams plus the window.
    pub fn tracked_streams(&self) -> usize {
        self.log.streams.len()
    }

    fn remember(&mut self, stream: u32, sequence: u64, frame: &[u8]) {
        if self.window == 0 {
            return;
        }
        if let Some(evicted) = self.log.record(self.window, stream, sequence, frame) {
            if evicted != STANDALONE && !self.live.contains_key(&evicted) {
                self.log.forget_if_empty(evicted);
            }
        }
    }

    fn deliver(&mut self, stream: u32, delivery: Delivery) -> bool {
        let Some(Some(connection)) = self.live.get(&stream) else {
            return false;
        };
        // One slot stays free for the `End` that completes the response cleanly.
        if connection.capacity() <= 1 {
            tracing::warn!(
                stream,
                queued = CONNECTION_QUEUE,
                "an SSE client reads too slowly: its connection is cut, the stream waits for a Last-Event-ID resumption"
            );
            // Dropping the sender ends the response with an error, not as a complete stream.
            self.live.insert(stream, None);
            return false;
        }
        match connection.try_send(delivery) {
            Ok(()) => true,
            Err(_) => {
                // The client went away: keep the stream for a resumption.
                self.live.insert(stream, None);
                false
            }
        }
    }
}

/// A standalone message waiting for a GET stream.
#[derive(Debug)]
struct Pending {
    /// Its place in the shared event log (`None`: numbered here when it is sent).
    logged: Option<u64>,
    data: Bytes,
}

/// The hasher of the tables keyed by stream id. The ids are ours (1, 2, 3, ... per session),
/// so a keyed hash (std's SipHash: ~300 instructions per SSE answer here) buys nothing; one
/// multiplication spreads them.
#[derive(Debug, Default, Clone, Copy)]
struct StreamIdHasher;

impl std::hash::BuildHasher for StreamIdHasher {
    type Hasher = StreamIdHash;

    fn build_hasher(&self) -> StreamIdHash {
        StreamIdHash(0)
    }
}

/// See [`StreamIdHasher`].
struct StreamIdHash(u64);

impl std::hash::Hasher for StreamIdHash {
    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 = (self.0 << 8) | u64::from(byte);
        }
    }

    fn write_u32(&mut self, id: u32) {
        self.0 = u64::from(id);
    }

    fn finish(&self) -> u64 {
        // Fibonacci hashing: the high bits, which hashbrown uses, depend on every bit of the id.
        self.0.wrapping_mul(0x9e37_79b9_7f4a_7c15)
    }
}

pub(crate) fn parse_event_id(id: &str) -> Option<(u32, u64)> {
    let (stream, sequence) = id.trim().split_once('-')?;
    Some((stream.parse().ok()?, sequence.parse().ok()?))
}

/// The last events of a session, for replay. Their bytes lie back to back in one ring, so
/// recording an event copies it (~150 bytes) instead of keeping an allocation of its own alive
/// for the next `window` events: long-lived small allocations interleaved with each request's
/// short-lived ones push the allocator off its fast path.
#[derive(Debug, Default)]
struct ReplayLog {
    events: VecDeque<LoggedEvent>,
    bytes: VecDeque<u8>,
    /// Per stream: how many of its events are kept, and the newest one that rolled out, so a
    /// resumption knows whether it can replay everything it was asked for.
    streams: HashMap<u32, Kept, StreamIdHasher>,
}

#[derive(Debug)]
struct LoggedEvent {
    stream: u32,
    sequence: u64,
    len: usize,
}

#[derive(Debug, Default, Clone, Copy)]
struct Kept {
    count: u32,
    /// The sequence number of the stream's newest event that left the window (0: none).
    lost_through: u64,
}

impl ReplayLog {
    /// Appends one encoded event, forgetting the oldest when `window` are kept; returns the
    /// stream of the event forgotten.
    fn record(&mut self, window: usize, stream: u32, sequence: u64, frame: &[u8]) -> Option<u32> {
        let mut evicted = None;
        if self.events.len() >= window {
            if let Some(oldest) = self.events.pop_front() {
                self.bytes.drain(..oldest.len);
                let kept = self.streams.entry(oldest.stream).or_default();
                kept.count = kept.count.saturating_sub(1);
                kept.lost_through = oldest.sequence;
                evicted = Some(oldest.stream);
            }
        }
        self.bytes.extend(frame);
        self.events.push_back(LoggedEvent {
            stream,
            sequence,
            len: frame.len(),
        });
        self.streams.entry(stream).or_default().count += 1;
        evicted
    }

    /// Forgets the bookkeeping of an ended stream once none of its events is kept: a later
    /// resumption of it finds nothing and is told so.
    fn forget_if_empty(&mut self, stream: u32) {
        // The standalone stream never ends: its mark is kept for good.
        if stream != STANDALONE
            && self
                .streams
                .get(&stream)
                .is_some_and(|kept| kept.count == 0)
        {
            self.streams.remove(&stream);
        }
    }

    /// Whether events of `stream` after `after` left the window. A stream nothing is known
    /// of lost everything unless it is `alive` (live streams that never recorded an event).
    fn lost_after(&self, stream: u32, after: u64, alive: bool) -> bool {
        match self.streams.get(&stream) {
            Some(kept) => kept.lost_through > after,
            None => !alive,
        }
    }

    /// The events of `stream` after sequence number `after`, oldest first, back to back.
    fn after(&self, stream: u32, after: u64) -> Vec<u8> {
        let mut out = Vec::new();
        let mut start = 0;
        for event in &self.events {
            let range = start..start + event.len;
            start = range.end;
            if event.stream == stream && event.sequence > after {
                out.extend(self.bytes.range(range));
            }
        }
        out
    }

    fn len(&self) -> usize {
        self.events.len()
    }
}

#[cfg(test)]
mod tests;
