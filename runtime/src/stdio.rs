//! The stdio transport: newline-delimited JSON-RPC on stdin/stdout, logs only on stderr, and a
//! clean return when stdin closes.
//!
//! One process is one session: `initialize` negotiates it; requests then run concurrently, so a
//! handler can wait for the client's answer to a request it sent while the reader goes on. A
//! 2026-07-28 request (its `_meta` names the version) is served without a session. Like HTTP,
//! this module only frames: each line is read into the engine's request model, and the
//! engine's answers are written back as lines.

use std::future::Future;
use std::io;
use std::pin::pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};
use std::thread::{self, Thread};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;
use tokio::task::JoinSet;

use crate::dispatch::Dispatch;
use crate::engine::incoming::{self, Incoming, Request};
use crate::engine::method::Method;
use crate::engine::run::{Identity, Started};
use crate::engine::stateless as era;
use crate::engine::{answer_key, batch, id_key, Engine};
use crate::jsonrpc::{self, error_response, success_response, RpcError};
use crate::outbound::{Outbound, Reply};
use crate::server::McpServer;
use crate::session::Session;

/// Serves `server` on stdin/stdout until stdin closes.
pub async fn serve_stdio<D: Dispatch>(server: McpServer<D>) -> io::Result<()> {
    serve_io(server, tokio::io::stdin(), tokio::io::stdout()).await
}

/// Serves `server` on any byte streams (what [`serve_stdio`] does with stdin and stdout; tests
/// use pipes). Returns when `input` ends and every running request has answered.
pub async fn serve_io<D, R, W>(server: McpServer<D>, input: R, mut output: W) -> io::Result<()>
where
    D: Dispatch,
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (tx, mut rx) = mpsc::unbounded_channel::<String>();
    let writer = tokio::spawn(async move {
        while let Some(line) = rx.recv().await {
            output.write_all(line.as_bytes()).await?;
            output.write_all(b"\n").await?;
            output.flush().await?;
        }
        Ok::<(), io::Error>(())
    });
    let mut peer = Peer {
        engine: server.engine.clone(),
        out: tx,
        session: Arc::default(),
        running: JoinSet::new(),
        listeners: JoinSet::new(),
    };
    let limit = server.engine.config.body_limit;
    let mut input = BufReader::new(input);
    let mut bytes = Vec::new();
    while let Some(read) = next_line(&mut input, &mut bytes, limit).await? {
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
    drop(peer);
    writer.await.map_err(io::Error::other)?
}

/// How a line of input ended.
enum Line {
    /// Whole, within the limit.
    Whole,
    /// Longer than the limit: skipped to its end, unread.
    TooLong,
}

/// Reads the next line (without its `\n`) into `line`, keeping at most `limit` bytes of it: a
/// client cannot make the server hold more than that for one message, however long its line.
/// `None` once the input has ended.
async fn next_line<R: AsyncBufRead + Unpin>(
    input: &mut R,
    line: &mut Vec<u8>,
    limit: usize,
) -> io::Result<Option<Line>> {
    line.clear();
    let mut too_long = false;
    loop {
        let available = input.fill_buf().await?;
        if available.is_empty() {
            let ended = line.is_empty() && !too_long;
            return Ok((!ended).then_some(if too_long { Line::TooLong } else { Line::Whole }));
        }
        let (taken, end_of_line) = match available.iter().position(|&b| b == b'\n') {
            Some(at) => (at, true),
            None => (available.len(), false),
        };
        if too_long || line.len() + taken > limit {
            too_long = true;
            line.clear();
        } else {
            line.extend_from_slice(&available[..taken]);
        }
        input.consume(taken + usize::from(end_of_line));
        if end_of_line {
            return Ok(Some(if too_long { Line::TooLong } else { Line::Whole }));
        }
    }
}

#[cold]
fn too_long(limit: usize) -> RpcError {
    RpcError::new(
        jsonrpc::INVALID_REQUEST,
        format!("Invalid Request: a line over {limit} bytes (Config::body_limit)"),
    )
}

#[cold]
fn not_utf8() -> RpcError {
    RpcError::new(jsonrpc::PARSE_ERROR, "Parse error: the line is not UTF-8")
}

/// The client on the other end of the pipes, and what runs for it.
struct Peer<D> {
    engine: Arc<Engine<D>>,
    /// Lines to write.
    out: mpsc::UnboundedSender<String>,
    /// The session `initialize` created.
    session: Arc<Mutex<Option<Arc<Session>>>>,
    /// Requests: awaited before the server returns.
    running: JoinSet<()>,
    /// `subscriptions/listen` streams: they never answer, so they end with the input.
    listeners: JoinSet<()>,
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
        match message {
            Incoming::Request(request) if request.params.meta_version().is_some() => {
                self.stateless(request)
            }
            Incoming::Request(Request {
                id,
                method: "initialize",
                params,
            }) => {
                let answer = match self.engine.initialize(params.raw()) {
                    Ok((created, result)) => {
                        *self.session.lock().unwrap_or_else(|p| p.into_inner()) = Some(created);
                        success_response(id, result.get())
                    }
                    Err(error) => error_response(Some(id), &error),
                };
                self.send(answer);
            }
            Incoming::Request(request) => match self.current_session() {
                Some(session) => self.in_session(session, request),
                None => self.send(error_response(Some(request.id), &not_initialized())),
            },
            Incoming::Notification { method, params } => {
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
        let started = self
            .engine
            .start(Identity::Session(session.clone()), request, outbound);
        let canceller = started.outbound.clone();
        session.track(&key, move || canceller.cancel());
        let out = self.out.clone();
        self.running.spawn(async move {
            let reply = started.work.await;
            session.untrack(&key);
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
            let version = era::checked_version_and_method(&checked)?;
            Ok((version, checked))
        });
        let (version, checked) = match checked {
            Ok(checked) => checked,
            Err(error) => return self.send(error_response(Some(id), &error)),
        };
        if checked.method == Method::Listen {
            return self.listen(id, checked.request.params.raw());
        }
        let identity = Identity::Stateless {
            version,
            meta: checked.meta,
        };
        let request = checked.request;
        let started = self
            .engine
            .start(identity, request, Outbound::lines(self.out.clone()));
        self.running.spawn(answer_lines(started, self.out.clone()));
    }

    /// A batch line: answered with one line holding the array of answers (2025-03-26), or one
    /// error (a later revision, no session yet, an empty or malformed batch).
    fn batch(&mut self, line: String) {
        let session = match self.current_session() {
            Some(session) => session,
            None => return self.send(error_response(None, &not_initialized())),
        };
        let engine = self.engine.clone();
        let out = self.out.clone();
        self.running.spawn(async move {
            let answer = match batch::allowed(&session).and_then(|()| incoming::read_batch(&line)) {
                Ok(messages) => engine.batch(&session, &messages).await,
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
        let (ack, mut subscription) = match self.engine.subscribe(id, params) {
            Ok(opened) => opened,
            Err(error) => return self.send(error_response(Some(id), &error)),
        };
        let out = self.out.clone();
        let _ = out.send(ack);
        self.listeners.spawn(async move {
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
/// `CreateTaskResult` if the call became a task first (the handler then goes on).
async fn answer_lines(started: Started, out: mpsc::UnboundedSender<String>) {
    let Started {
        work, task_reply, ..
    } = started;
    let send = |reply: Reply| {
        if let Reply::Json { json, .. } = reply {
            let _ = out.send(json);
        }
    };
    let Some(mut task_reply) = task_reply else {
        if let Some(reply) = work.await {
            send(reply);
        }
        return;
    };
    let mut work = work;
    let mut answered = false;
    loop {
        tokio::select! {
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
fn not_initialized() -> RpcError {
    RpcError::new(
        jsonrpc::INVALID_REQUEST,
        "Invalid Request: send initialize first",
    )
}

/// Runs a future to completion on the current thread (for tests and simple tools; the
/// transports run on tokio).
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
