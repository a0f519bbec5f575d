//! The stdio transport: newline-delimited JSON-RPC on stdin/stdout, logs only on stderr, and a
//! clean return when stdin closes.
//!
//! One process is one session: `initialize` negotiates it; requests then run concurrently, so a
//! handler can wait for the client's answer to a request it sent while the reader goes on.

use serde_json::value::RawValue;
use std::future::Future;
use std::io;
use std::pin::pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};
use std::thread::{self, Thread};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;
use tokio::task::JoinSet;

use crate::context::Outbound;
use crate::dispatch::Dispatch;
use crate::http::stateless;
use crate::json::JsonText;
use crate::jsonrpc::{self, classify, error_response, success_response, Incoming, RpcError};
use crate::params::RequestParams;
use crate::server::McpServer;
use crate::session::Session;
use crate::tasks::{self, TaskSlot};
use tokio::sync::oneshot;

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
    let session: Arc<Mutex<Option<Arc<Session>>>> = Arc::new(Mutex::new(None));
    let mut running = JoinSet::new();
    // `subscriptions/listen` streams: they never answer, so they end with the input.
    let mut listeners = JoinSet::new();
    let mut lines = BufReader::new(input).lines();
    while let Some(line) = lines.next_line().await? {
        if line.trim().is_empty() {
            continue;
        }
        let body: Box<RawValue> = match serde_json::from_str(&line) {
            Ok(body) => body,
            Err(e) => {
                let _ = tx.send(error_response(
                    None,
                    &RpcError::new(jsonrpc::PARSE_ERROR, format!("Parse error: {e}")),
                ));
                continue;
            }
        };
        let messages: Vec<Box<RawValue>> = if body.get().trim_start().starts_with('[') {
            serde_json::from_str(body.get()).unwrap_or_default()
        } else {
            vec![body]
        };
        for message in messages {
            let mut tasks = Spawned {
                running: &mut running,
                listeners: &mut listeners,
            };
            handle_line(&server, &session, &tx, &mut tasks, &message);
        }
        while running.try_join_next().is_some() {}
    }
    listeners.abort_all();
    while running.join_next().await.is_some() {}
    drop(tx);
    writer.await.map_err(io::Error::other)?
}

/// Where the tasks of one input line go.
struct Spawned<'a> {
    /// Requests: awaited before the server returns.
    running: &'a mut JoinSet<()>,
    /// Listen streams: stopped when the input ends.
    listeners: &'a mut JoinSet<()>,
}

fn handle_line<D: Dispatch>(
    server: &McpServer<D>,
    session: &Arc<Mutex<Option<Arc<Session>>>>,
    tx: &mpsc::UnboundedSender<String>,
    spawned: &mut Spawned<'_>,
    message: &RawValue,
) {
    let running = &mut *spawned.running;
    let message = match classify(message.get()) {
        Ok(message) => message,
        Err(error) => {
            let _ = tx.send(error_response(None, &error));
            return;
        }
    };
    // A 2026-07-28 request names its version in `_meta`: served without a session.
    if let Incoming::Request { id, method, params } = message {
        let fields = RequestParams::parse(params).unwrap_or_default();
        if fields
            .meta
            .as_ref()
            .is_some_and(|m| m.protocol_version.is_some())
        {
            stateless_request(server, tx, spawned, id, method, params, fields);
            return;
        }
    }
    let current = session.lock().unwrap_or_else(|p| p.into_inner()).clone();
    match message {
        Incoming::Request {
            id,
            method: "initialize",
            params,
        } => {
            let answer = match server.core.initialize(params) {
                Ok((created, result)) => {
                    *session.lock().unwrap_or_else(|p| p.into_inner()) = Some(created);
                    success_response(id, result.get())
                }
                Err(error) => error_response(Some(id), &error),
            };
            let _ = tx.send(answer);
        }
        Incoming::Request { id, method, params } => {
            let Some(current) = current else {
                let error = RpcError::new(
                    jsonrpc::INVALID_REQUEST,
                    "Invalid Request: send initialize first",
                );
                let _ = tx.send(error_response(Some(id), &error));
                return;
            };
            let core = server.core.clone();
            let ctx = core
                .context(&current)
                .with_outbound(Outbound::lines(tx.clone()));
            let id = id.to_owned();
            let method = method.to_string();
            let params = params.map(RawValue::to_owned);
            let key = id.get().trim().to_string();
            let out = tx.clone();
            let task_session = current.clone();
            let task_key = key.clone();
            let handle = running.spawn(async move {
                let answer = match core
                    .handle(&task_session, &method, params.as_deref(), None, ctx)
                    .await
                {
                    Ok(result) => result.into_success_response(&id),
                    Err(error) => error_response(Some(&id), &error),
                };
                task_session.untrack(&task_key);
                let _ = out.send(answer);
            });
            current.track(&key, move || handle.abort());
        }
        Incoming::Notification {
            method: "notifications/cancelled",
            params,
        } => {
            #[derive(serde::Deserialize)]
            struct Cancelled<'a> {
                #[serde(rename = "requestId", borrow)]
                request_id: &'a RawValue,
            }
            if let (Some(current), Some(Ok(cancelled))) = (
                current,
                params.map(|p| serde_json::from_str::<Cancelled<'_>>(p.get())),
            ) {
                current.cancel(cancelled.request_id.get().trim());
            }
        }
        Incoming::Notification { .. } => {}
        Incoming::Response { id, result } => {
            let Some(current) = current else { return };
            let key =
                serde_json::from_str::<String>(id.get()).unwrap_or_else(|_| id.get().to_string());
            current.answer_client_request(&key, result);
        }
    }
}

/// Serves one 2026-07-28 request: validated like on HTTP (without the headers), answered on
/// stdout; its notifications (progress, logs, a listen stream's) are lines too.
fn stateless_request<D: Dispatch>(
    server: &McpServer<D>,
    tx: &mpsc::UnboundedSender<String>,
    spawned: &mut Spawned<'_>,
    id: &RawValue,
    method: &str,
    params: Option<&RawValue>,
    mut fields: RequestParams<'_>,
) {
    let checked = stateless::checked_meta(fields.meta.take()).and_then(|meta| {
        let version = stateless::checked_version(meta.protocol_version.unwrap_or_default())?;
        stateless::checked_method(method)?;
        Ok(stateless::request_context(
            &server.core.notifier,
            version,
            &meta,
        ))
    });
    let ctx = match checked {
        Ok(ctx) => ctx.with_outbound(Outbound::lines(tx.clone())),
        Err(error) => {
            let _ = tx.send(error_response(Some(id), &error));
            return;
        }
    };
    if method == "subscriptions/listen" {
        return listen(server, tx, spawned.listeners, id, params);
    }
    let core = server.core.clone();
    let out = tx.clone();
    let id = id.to_owned();
    let method = method.to_string();
    let params = params.map(RawValue::to_owned);
    let call = fields.call_members();
    spawned.running.spawn(async move {
        // The answer is the outcome, or the `CreateTaskResult` if the call becomes a task.
        let (reply_tx, mut reply) = oneshot::channel::<(http::StatusCode, String)>();
        let (ctx, slot) = if method == "tools/call" {
            let slot = tasks::declared(ctx.client_capabilities())
                .then(|| Arc::new(TaskSlot::new(core.tasks.clone(), id.clone(), reply_tx)));
            (ctx.with_task_slot(slot.clone()), slot)
        } else {
            (ctx, None)
        };
        let work = async {
            let call = call.params();
            let handled = core.handle_stateless(&method, params.as_deref(), &call, ctx);
            let outcome = match &slot {
                Some(slot) => tokio::select! {
                    outcome = handled => outcome,
                    () = slot.cancelled() => return,
                },
                None => handled.await,
            };
            let render = |outcome: &Result<JsonText, RpcError>| {
                let json = match outcome {
                    Ok(result) => success_response(&id, result.get()),
                    Err(error) => error_response(Some(&id), error),
                };
                (http::StatusCode::OK, json)
            };
            match &slot {
                Some(slot) => slot.finish(outcome, render),
                None => {
                    let _ = out.send(render(&outcome).1);
                }
            }
        };
        let mut work = pin!(work);
        let mut answered = false;
        loop {
            tokio::select! {
                () = &mut work => break,
                reply = &mut reply, if !answered => {
                    answered = true;
                    if let Ok((_, json)) = reply {
                        let _ = out.send(json);
                    }
                }
            }
        }
        if let (false, Ok((_, json))) = (answered, reply.try_recv()) {
            let _ = out.send(json);
        }
    });
}

/// `subscriptions/listen` on stdio: the acknowledgement, then the tagged notifications, as
/// lines, until the input ends.
fn listen<D: Dispatch>(
    server: &McpServer<D>,
    tx: &mpsc::UnboundedSender<String>,
    listeners: &mut JoinSet<()>,
    id: &RawValue,
    params: Option<&RawValue>,
) {
    let (ack, mut subscription) = match server.subscribe(id, params) {
        Ok(opened) => opened,
        Err(error) => {
            let _ = tx.send(error_response(Some(id), &error));
            return;
        }
    };
    let out = tx.clone();
    let _ = out.send(ack);
    listeners.spawn(async move {
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
