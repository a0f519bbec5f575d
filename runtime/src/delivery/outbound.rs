//! [`Outbound`]: where the messages a request sends go (its SSE stream, stdout lines, or a
//! stateless response that turns into a stream), and [`Reply`], how its answer leaves.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use tokio::sync::{mpsc, Notify};

use crate::request_state::rounds::InputRound;
use crate::session::events::{Delivery, Streams, CONNECTION_QUEUE};
use crate::session::Session;

/// Where messages sent during a request go, and how the transport learns that the request
/// started streaming or was cancelled.
///
/// Nothing is allocated for a stream until the handler sends its first message: most requests
/// never do, and answer with plain JSON.
#[derive(Debug, Clone)]
pub(crate) struct Outbound(Arc<OutboundInner>);

#[derive(Debug)]
struct OutboundInner {
    route: Route,
    /// Signalled when the first message opens the stream.
    opened: Notify,
    /// Signalled by [`Outbound::cancel`].
    cancel: Notify,
    cancelled: AtomicBool,
    /// The multi round-trip state of a stateless call, once it has one: carried from an
    /// earlier round, or asked for by the handler.
    input: OnceLock<Box<InputRound>>,
}

#[derive(Debug)]
enum Route {
    /// A POST response that becomes an SSE stream of the session on its first message.
    Session {
        session: Arc<Session>,
        state: Mutex<SessionStream>,
        priming_retry_ms: Option<u64>,
        /// Answer on the stream even when nothing was sent before (`config.streams.sse_responses`).
        always_stream: bool,
    },
    /// Messages written in order to a line-oriented peer (stdio).
    Lines(mpsc::UnboundedSender<String>),
    /// A stateless POST: its messages queue on a channel created by the first one, which the
    /// transport takes to stream them.
    Deferred(Mutex<DeferredLines>),
}

#[derive(Debug)]
struct SessionStream {
    state: StreamState,
    /// The receiving end of the opened stream, until the transport takes it.
    receiver: Option<mpsc::Receiver<Delivery>>,
}

#[derive(Debug)]
enum StreamState {
    /// Nothing sent yet: the response may still be plain JSON.
    Unopened,
    /// The SSE stream with this id carries the request's messages.
    Open(u32),
    /// The result was sent; later messages are dropped.
    Finished,
}

#[derive(Debug, Default)]
struct DeferredLines {
    sender: Option<mpsc::Sender<String>>,
    receiver: Option<mpsc::Receiver<String>>,
    /// Messages dropped because the client read too slowly (logged when the request ends).
    dropped: u64,
}

/// How many messages of a stateless request may wait for a slow client. They are
/// notifications (progress, logs): past this many, new ones are dropped and counted, and the
/// request's answer, which travels apart, still arrives.
const STATELESS_QUEUE: usize = CONNECTION_QUEUE;

/// How a request's answer leaves: as the JSON body, or on the stream already opened. What a
/// transport frames; tasks and rounds produce it too, and know nothing of HTTP.
#[derive(Debug)]
pub(crate) enum Reply {
    /// Nothing was streamed: answer with this JSON body; HTTP shows `outcome` in its status.
    Json { json: String, outcome: Outcome },
    /// Nothing was streamed, but SSE was asked for: answer with this whole stream.
    Sse(bytes::Bytes),
    /// It was pushed on the request's SSE stream, which has ended.
    Streamed,
}

/// What a JSON answer means for the HTTP status it travels with (2026-07-28 requests; a
/// session's answers are always 200).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// A result, or an error of the method: 200.
    Answered,
    /// A refusal of the request itself (a missing client capability): 400, so that clients
    /// and intermediaries see it without reading the body.
    Refused,
    /// The shared state it needs cannot be reached now (Redis down): 503, to retry later.
    Unavailable,
}

impl Reply {
    /// A JSON answer.
    pub(crate) fn json(json: String) -> Self {
        Reply::Json {
            json,
            outcome: Outcome::Answered,
        }
    }
}

impl Outbound {
    fn new(route: Route) -> Self {
        Self(Arc::new(OutboundInner {
            route,
            opened: Notify::new(),
            cancel: Notify::new(),
            cancelled: AtomicBool::new(false),
            input: OnceLock::new(),
        }))
    }

    /// A session POST whose messages go to an SSE stream of `session` once the first one is
    /// sent.
    pub(crate) fn session_stream(
        session: Arc<Session>,
        priming_retry_ms: Option<u64>,
        always_stream: bool,
    ) -> Self {
        Self::new(Route::Session {
            session,
            state: Mutex::new(SessionStream {
                state: StreamState::Unopened,
                receiver: None,
            }),
            priming_retry_ms,
            always_stream,
        })
    }

    /// A line-oriented peer.
    pub(crate) fn lines(sender: mpsc::UnboundedSender<String>) -> Self {
        Self::new(Route::Lines(sender))
    }

    /// A stateless POST: see [`Outbound::take_lines`].
    pub(crate) fn deferred_lines() -> Self {
        Self::new(Route::Deferred(Mutex::default()))
    }

    /// Resolves once the first message opened the stream (never for stdio).
    pub(crate) async fn opened(&self) {
        self.0.opened.notified().await;
    }

    /// The SSE stream a session request opened, once: the transport streams it as the
    /// response.
    pub(crate) fn take_stream(&self) -> Option<mpsc::Receiver<Delivery>> {
        match &self.0.route {
            Route::Session { state, .. } => lock(state).receiver.take(),
            _ => None,
        }
    }

    /// The messages a stateless request sent so far and will send, once.
    pub(crate) fn take_lines(&self) -> Option<mpsc::Receiver<String>> {
        match &self.0.route {
            Route::Deferred(lines) => lock(lines).receiver.take(),
            _ => None,
        }
    }

    /// Asks the request to stop (`notifications/cancelled`, or its session closing).
    pub(crate) fn cancel(&self) {
        self.0.cancelled.store(true, Ordering::Release);
        self.0.cancel.notify_one();
    }

    /// Starts a round that carries answers or saved values from earlier rounds. A round that
    /// carries nothing is created only if the handler asks the client something.
    pub(crate) fn start_round(&self, round: InputRound) {
        let _ = self.0.input.set(Box::new(round));
    }

    /// The round, if the request has one.
    pub(crate) fn input_round(&self) -> Option<&InputRound> {
        self.0.input.get().map(|round| &**round)
    }

    pub(crate) fn input_round_or_new(&self) -> &InputRound {
        self.0.input.get_or_init(Box::default)
    }

    /// Resolves when [`Outbound::cancel`] was called.
    pub(crate) async fn cancelled(&self) {
        while !self.0.cancelled.load(Ordering::Acquire) {
            self.0.cancel.notified().await;
        }
    }

    /// Sends one JSON-RPC message; false when it cannot go anywhere.
    pub(crate) fn send(&self, json: String) -> bool {
        match &self.0.route {
            Route::Lines(sender) => sender.send(json).is_ok(),
            Route::Deferred(lines) => {
                let mut lines = lock(lines);
                if lines.sender.is_none() {
                    let (sender, receiver) = mpsc::channel(STATELESS_QUEUE);
                    lines.sender = Some(sender);
                    lines.receiver = Some(receiver);
                    self.0.opened.notify_one();
                }
                let sent = lines.sender.as_ref().map(|sender| sender.try_send(json));
                match sent {
                    Some(Ok(())) => true,
                    Some(Err(mpsc::error::TrySendError::Full(_))) => {
                        lines.dropped += 1;
                        if lines.dropped.is_power_of_two() {
                            tracing::warn!(
                                dropped = lines.dropped,
                                "a stateless client reads too slowly: notifications of its request are dropped"
                            );
                        }
                        false
                    }
                    _ => false,
                }
            }
            Route::Session {
                session,
                state,
                priming_retry_ms,
                ..
            } => {
                let mut state = lock(state);
                let mut streams = session.streams();
                match self.open(&mut state, &mut streams, *priming_retry_ms) {
                    Some(stream) => {
                        streams.push(stream, json.as_bytes());
                        true
                    }
                    None => false,
                }
            }
        }
    }

    /// Delivers the response: on the open stream (then ends it) or as the JSON body.
    pub(crate) fn complete(&self, response: String) -> Reply {
        match &self.0.route {
            Route::Lines(_) | Route::Deferred(_) => Reply::json(response),
            Route::Session {
                session,
                state,
                priming_retry_ms,
                always_stream,
            } => {
                let mut state = lock(state);
                let stream = match std::mem::replace(&mut state.state, StreamState::Finished) {
                    StreamState::Open(stream) => stream,
                    // Opened and ended at once: no connection to route to, one write.
                    StreamState::Unopened if *always_stream => {
                        let body = session
                            .streams()
                            .whole_stream(*priming_retry_ms, response.as_bytes());
                        return Reply::Sse(body);
                    }
                    _ => return Reply::json(response),
                };
                let mut streams = session.streams();
                streams.push(stream, response.as_bytes());
                streams.end(stream);
                Reply::Streamed
            }
        }
    }

    /// Ends the SSE stream of a request that will not answer (cancelled).
    pub(crate) fn abandon(&self) {
        if let Route::Session { session, state, .. } = &self.0.route {
            let mut state = lock(state);
            if let StreamState::Open(stream) =
                std::mem::replace(&mut state.state, StreamState::Finished)
            {
                session.streams().end(stream);
            }
        }
    }

    /// Ends the connection but not the stream (opening it first, so the client gets the
    /// priming event to resume from).
    pub(crate) fn detach(&self) {
        if let Route::Session {
            session,
            state,
            priming_retry_ms,
            ..
        } = &self.0.route
        {
            let mut state = lock(state);
            let mut streams = session.streams();
            if let Some(stream) = self.open(&mut state, &mut streams, *priming_retry_ms) {
                streams.detach(stream);
            }
        }
    }

    /// The id of the request's stream, opening it (with its priming event) on first use;
    /// `None` once the request has finished.
    fn open(
        &self,
        slot: &mut SessionStream,
        streams: &mut Streams,
        priming_retry_ms: Option<u64>,
    ) -> Option<u32> {
        match slot.state {
            StreamState::Finished => None,
            StreamState::Open(stream) => Some(stream),
            StreamState::Unopened => {
                let (connection, receiver) = mpsc::channel(CONNECTION_QUEUE);
                let stream = streams.open_request_stream(connection);
                if let Some(retry) = priming_retry_ms {
                    streams.prime(stream, retry);
                }
                slot.state = StreamState::Open(stream);
                slot.receiver = Some(receiver);
                self.0.opened.notify_one();
                Some(stream)
            }
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|p| p.into_inner())
}
