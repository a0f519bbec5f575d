//! The stdio transport: newline-delimited JSON-RPC on stdin/stdout, logs only on stderr, and a
//! clean return when stdin closes.
//!
//! One process is one session: `initialize` negotiates it; requests then run concurrently, so a
//! handler can wait for the client's answer to a request it sent while the reader goes on. A
//! 2026-07-28 request (its `_meta` names the version) is served without a session. Like HTTP,
//! this module only frames: each line is read into the engine's request model, and the
//! engine's answers are written back as lines.
//!
//! Bounded: once [`config.limits.stdio_output_limit`](crate::config::Limits::stdio_output_limit)
//! bytes wait for stdout (a client that does not read), no further line is read until the backlog
//! drains, so the client's own writes block instead of the server's memory growing; nothing queued
//! is dropped. Every running request is in one table by id: `notifications/cancelled` stops it in
//! either era, an id already running is refused, and the entry leaves before the answer does.

use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::pin::pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};
use std::thread::{self, Thread};
use tokio::io::{AsyncRead, AsyncWrite, BufReader};
use tokio::sync::mpsc;
use tokio::task::JoinSet;

use crate::delivery::notifier::LinesAttached;
use crate::delivery::outbound::{Outbound, Reply};
use crate::dispatch::{Dispatch, Door};
use crate::engine::era::{Era, Stateless};
use crate::engine::incoming::{self, Incoming, Request};
use crate::engine::method::Method;
use crate::engine::run::{Source, Started};
use crate::engine::sessions::{Keep, Opened, Refusal};
use crate::engine::stateless as era;
use crate::engine::{answer_key, batch, cancelled_id, id_key, Engine};
use crate::jsonrpc::{self, error_response, success_response, RpcError};
use crate::server::McpServer;
use crate::session::Session;
use crate::telemetry::Transport;
use lines::{next_line, not_utf8, too_long, write_lines, Backlog, Line};

mod lines;

/// Serves `server` on stdin/stdout until stdin closes.
pub async fn serve_stdio<D: Dispatch>(server: McpServer<D>) -> io::Result<()> {
    serve_io(server, tokio::io::stdin(), tokio::io::stdout()).await
}

/// Serves `server` on any byte streams (what [`serve_stdio`] does with stdin and stdout; tests
/// use pipes). Returns when `input` ends and every running request has answered.
pub async fn serve_io<D, R, W>(server: McpServer<D>, input: R, output: W) -> io::Result<()>
where
    D: Dispatch,
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
{
    // Unbounded because the engine sends on it without waiting (`Outbound::lines`); the bound
    // is the backlog, which stops the reader.
    let (tx, rx) = mpsc::unbounded_channel::<String>();
    let backlog = Arc::new(Backlog::new(
        server.engine().config().limits.stdio_output_limit,
    ));
    let writer = tokio::spawn(write_lines(rx, output, backlog.clone()));
    let mut peer = Peer {
        engine: server.engine().clone(),
        out: tx,
        session: Arc::default(),
        notified: None,
        running: JoinSet::new(),
        listeners: JoinSet::new(),
        in_flight: Arc::default(),
    };
    let limit = server.engine().config().limits.body_limit;
    let mut input = BufReader::new(input);
    let mut bytes = Vec::new();
    loop {
        backlog.room().await;
        let Some(read) = next_line(&mut input, &mut bytes, limit).await? else {
            break;
        };
        match (read, String::from_utf8(std::mem::take(&mut bytes))) {
            (Line::TooLong, _) => peer.send(error_response(None, &too_long(limit))),
            (Line::Whole, Err(_)) => peer.send(error_response(None, &not_utf8())),
            (Line::Whole, Ok(line)) if line.trim().is_empty() => {}
            (Line::Whole, Ok(line)) => peer.line(line),
        }
        while peer.running.try_join_next().is_some() {}
    }
    peer.listeners.abort_all();
    while peer.running.join_next().await.is_some() {}
    debug_assert!(
        peer.in_flight.is_empty(),
        "every request left the in-flight table"
    );
    drop(peer);
    writer.await.map_err(io::Error::other)?
}

/// The client on the other end of the pipes, and what runs for it.
struct Peer<D> {
    engine: Arc<Engine<D>>,
    /// Lines to write.
    out: mpsc::UnboundedSender<String>,
    /// The session `initialize` created.
    session: Arc<Mutex<Option<Arc<Session>>>>,
    /// Its registration with the notifier: list changes and resource updates come as lines.
    notified: Option<LinesAttached>,
    /// Requests: awaited before the server returns.
    running: JoinSet<()>,
    /// `subscriptions/listen` streams: they never answer, so they end with the input.
    listeners: JoinSet<()>,
    /// The requests running, by id, in both eras.
    in_flight: Arc<InFlight>,
}

/// The requests running, by id: what `notifications/cancelled` stops. A session also tracks
/// its own (for `Session::close`), but only this table sees 2026-07-28 requests, which have no
/// session. JSON-RPC ids are unique among a client's requests, so an id already running is
/// refused: the two could not be told apart to cancel one.
#[derive(Debug, Default)]
struct InFlight {
    requests: Mutex<HashMap<String, (u64, Outbound)>>,
    /// Tells a request from a later one that reuses its id after it answered.
    generation: AtomicU64,
}

impl InFlight {
    /// Records the request `key`, stopped through `outbound`; `None` when a request with that
    /// id is running.
    fn register(self: &Arc<Self>, key: String, outbound: &Outbound) -> Option<Registered> {
        let generation = self.generation.fetch_add(1, Ordering::Relaxed);
        let mut requests = lock(&self.requests);
        if requests.contains_key(&key) {
            return None;
        }
        requests.insert(key.clone(), (generation, outbound.clone()));
        Some(Registered {
            table: self.clone(),
            key,
            generation,
        })
    }

    /// Stops the request `key`, if it runs.
    fn cancel(&self, key: &str) {
        let removed = lock(&self.requests).remove(key);
        if let Some((_, outbound)) = removed {
            outbound.cancel();
        }
    }

    fn is_empty(&self) -> bool {
        lock(&self.requests).is_empty()
    }
}

/// A request's entry in [`InFlight`]: dropped when its answer is about to leave (the client may
/// reuse the id once it has the answer), or with its work (cancelled, or the server stopping).
#[derive(Debug)]
struct Registered {
    table: Arc<InFlight>,
    key: String,
    generation: u64,
}

impl Drop for Registered {
    fn drop(&mut self) {
        let mut requests = lock(&self.table.requests);
        if requests
            .get(&self.key)
            .is_some_and(|(generation, _)| *generation == self.generation)
        {
            requests.remove(&self.key);
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|p| p.into_inner())
}

impl<D: Dispatch> Peer<D> {
    fn send(&self, line: String) {
        let _ = self.out.send(line);
    }

    fn current_session(&self) -> Option<Arc<Session>> {
        self.session
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// One input line: a message or a batch.
    fn line(&mut self, line: String) {
        if incoming::is_batch(&line) {
            return self.batch(line);
        }
        let message = match incoming::read(&line, None) {
            Ok(message) => message,
            Err(error) => return self.send(error_response(None, &error)),
        };
        if let Incoming::Request(request) = &message {
            // One client, no principal: every call shares the one bucket.
            if let Some(refused) = self.engine.stdio_rate_refusal(request) {
                return self.send(error_response(refused.id, &refused.limited.error()));
            }
        }
        match message {
            Incoming::Request(request) if request.params.meta_version().is_some() => {
                self.stateless(request)
            }
            Incoming::Request(Request {
                id,
                method: "initialize",
                params,
            }) => {
                // The process is the session: kept with this peer, in no store (see
                // `Keep::Transport`); no principal (stdio does not authenticate).
                let opened = self.engine.open_session(
                    Transport::Stdio,
                    params.raw(),
                    Default::default(),
                    None,
                    Keep::Transport,
                );
                let answer = match opened {
                    Ok(Opened {
                        session: created,
                        result,
                        ..
                    }) => {
                        self.notified = Some(
                            self.engine
                                .notifier()
                                .attach_lines(&created, self.out.clone()),
                        );
                        *self.session.lock().unwrap_or_else(|p| p.into_inner()) = Some(created);
                        success_response(id, result.get())
                    }
                    Err(refusal) => error_response(Some(id), &refusal.error()),
                };
                self.send(answer);
            }
            Incoming::Request(request) => match self.current_session() {
                Some(session) => self.in_session(session, request),
                None => {
                    let error = Refusal::NotInitialized.error();
                    self.send(error_response(Some(request.id), &error))
                }
            },
            Incoming::Notification { method, params } => {
                if method == "notifications/cancelled" {
                    if let Some(request_id) = cancelled_id(params) {
                        self.in_flight.cancel(&id_key(request_id));
                    }
                }
                let Some(session) = self.current_session() else {
                    return;
                };
                self.engine.notification(&session, method, params);
            }
            Incoming::Response { id, answer } => {
                if let Some(session) = self.current_session() {
                    session.answer_client_request(&answer_key(id), answer);
                }
            }
        }
    }

    /// A request of the session: registered for cancellation while it runs.
    fn in_session(&mut self, session: Arc<Session>, request: Request<'_>) {
        let key = id_key(request.id);
        let outbound = Outbound::lines(self.out.clone());
        let Some(registered) = self.in_flight.register(key.clone(), &outbound) else {
            return self.send(error_response(Some(request.id), &id_in_use()));
        };
        if let Err(refused) = session.admits(&key) {
            return self.send(error_response(Some(request.id), &refused.error()));
        }
        let started = self.engine.start(
            Source::door(Door::Stdio),
            Era::Session(&session),
            request,
            outbound,
        );
        let canceller = started.outbound.clone();
        // Admitted just above, and this peer alone starts the session's requests.
        let _ = session.track(&key, move || canceller.cancel());
        let out = self.out.clone();
        self.running.spawn(async move {
            let reply = started.work.await;
            session.untrack(&key);
            drop(registered);
            if let Some(Reply::Json { json, .. }) = reply {
                let _ = out.send(json);
            }
        });
    }

    /// A 2026-07-28 request: the era's checks (no headers on stdio), then the engine; its
    /// notifications (progress, logs, a listen stream's) are lines too.
    fn stateless(&mut self, request: Request<'_>) {
        let id = request.id;
        let checked = era::checked_meta(request).and_then(|checked| {
            let has_skills = self.engine.has_skills();
            let version = era::checked_version_and_method(&checked, has_skills)?;
            Ok((version, checked))
        });
        let (version, checked) = match checked {
            Ok(checked) => checked,
            Err(error) => return self.send(error_response(Some(id), &error)),
        };
        if checked.method == Method::Listen {
            return self.listen(id, checked.request.params.raw());
        }
        let stateless = Era::Stateless(Stateless {
            version,
            meta: checked.meta,
        });
        let request = checked.request;
        let outbound = Outbound::lines(self.out.clone());
        let Some(registered) = self.in_flight.register(id_key(id), &outbound) else {
            return self.send(error_response(Some(id), &id_in_use()));
        };
        let started = self
            .engine
            .start(Source::door(Door::Stdio), stateless, request, outbound);
        self.running
            .spawn(answer_lines(started, self.out.clone(), registered));
    }

    /// A batch line: answered with one line holding the array of answers (2025-03-26), or one
    /// error (a later revision, no session yet, an empty or malformed batch).
    fn batch(&mut self, line: String) {
        let session = match self.current_session() {
            Some(session) => session,
            None => return self.send(error_response(None, &Refusal::NotInitialized.error())),
        };
        let engine = self.engine.clone();
        let out = self.out.clone();
        self.running.spawn(async move {
            let answer = match batch::allowed(&session).and_then(|()| incoming::read_batch(&line)) {
                Ok(messages) => {
                    match engine.stdio_batch_rate_refusal(&messages) {
                        // As over HTTP: the whole batch refused, the error of the call over.
                        Some(refused) => Some(error_response(refused.id, &refused.limited.error())),
                        None => engine.batch(Door::Stdio, &session, &messages, None).await,
                    }
                }
                Err(error) => Some(error_response(None, &error)),
            };
            if let Some(answer) = answer {
                let _ = out.send(answer);
            }
        });
    }

    /// `subscriptions/listen` on stdio: the acknowledgement, then the tagged notifications, as
    /// lines, until the input ends.
    fn listen(
        &mut self,
        id: &serde_json::value::RawValue,
        params: Option<&serde_json::value::RawValue>,
    ) {
        let (ack, mut subscription) = match self.engine.subscribe(id, params, None) {
            Ok(opened) => opened,
            Err(error) => return self.send(error_response(Some(id), &error)),
        };
        let out = self.out.clone();
        // What the stream's resource updates need opened is open before it is told so; a
        // stream without any is acknowledged at once, in the order of the lines.
        let opening = match subscription.resources.is_empty() {
            true => {
                let _ = out.send(ack);
                None
            }
            false => Some((self.engine.clone(), ack)),
        };
        self.listeners.spawn(async move {
            if let Some((engine, ack)) = opening {
                engine.open_listen_updates(&subscription).await;
                let _ = out.send(ack);
            }
            loop {
                tokio::select! {
                    message = subscription.messages.recv() => match message {
                        Some(message) => if out.send(message).is_err() { break },
                        None => break,
                    },
                    () = out.closed() => break,
                }
            }
        });
    }
}

/// Awaits a started stateless request and writes its answer: the handler's, or the
/// `CreateTaskResult` if the call became a task first (the handler then goes on). A
/// cancellation before the answer drops the work and writes nothing.
async fn answer_lines(
    started: Started,
    out: mpsc::UnboundedSender<String>,
    registered: Registered,
) {
    let Started {
        work,
        task_reply,
        outbound,
    } = started;
    let mut registered = Some(registered);
    let mut send = |reply: Reply| {
        registered.take();
        if let Reply::Json { json, .. } = reply {
            let _ = out.send(json);
        }
    };
    let mut cancelled = pin!(outbound.cancelled());
    let Some(mut task_reply) = task_reply else {
        tokio::select! {
            reply = work => if let Some(reply) = reply {
                send(reply);
            },
            () = &mut cancelled => {}
        }
        return;
    };
    let mut work = work;
    let mut answered = false;
    loop {
        tokio::select! {
            // Once answered, the call is a task: only `tasks/cancel` stops it.
            () = &mut cancelled, if !answered => return,
            reply = &mut work => {
                if let Some(reply) = reply {
                    send(reply);
                    answered = true;
                }
                break;
            }
            reply = &mut task_reply, if !answered => {
                answered = true;
                if let Ok(reply) = reply {
                    send(reply);
                }
            }
        }
    }
    if let (false, Ok(reply)) = (answered, task_reply.try_recv()) {
        send(reply);
    }
}

#[cold]
fn id_in_use() -> RpcError {
    RpcError::new(
        jsonrpc::INVALID_REQUEST,
        "Invalid Request: a request with this id is still running (ids must be unique)",
    )
}

/// Runs a future to completion on the current thread (for tests and simple tools; the
/// transports run on tokio).
#[doc(hidden)]
pub fn block_on<F: Future>(future: F) -> F::Output {
    struct Unpark(Thread);
    impl Wake for Unpark {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
    }
    let waker = Waker::from(Arc::new(Unpark(thread::current())));
    let mut cx = Context::from_waker(&waker);
    let mut future = pin!(future);
    loop {
        match future.as_mut().poll(&mut cx) {
            Poll::Ready(output) => return output,
            Poll::Pending => thread::park(),
        }
    }
}

#[cfg(test)]
mod tests;
