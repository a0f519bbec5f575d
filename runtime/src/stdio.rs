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
use crate::jsonrpc::{self, classify, error_response, success_response, Incoming, RpcError};
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
    let session: Arc<Mutex<Option<Arc<Session>>>> = Arc::new(Mutex::new(None));
    let mut running = JoinSet::new();
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
            handle_line(&server, &session, &tx, &mut running, &message);
        }
        while running.try_join_next().is_some() {}
    }
    while running.join_next().await.is_some() {}
    drop(tx);
    writer.await.map_err(io::Error::other)?
}

fn handle_line<D: Dispatch>(
    server: &McpServer<D>,
    session: &Arc<Mutex<Option<Arc<Session>>>>,
    tx: &mpsc::UnboundedSender<String>,
    running: &mut JoinSet<()>,
    message: &RawValue,
) {
    let message = match classify(message) {
        Ok(message) => message,
        Err(error) => {
            let _ = tx.send(error_response(None, &error));
            return;
        }
    };
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
                    success_response(id, &result)
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
                .context(&current, params)
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
                    .handle(&task_session, &method, params.as_deref(), ctx)
                    .await
                {
                    Ok(result) => success_response(&id, &result),
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
