//! Plain JSON-RPC 2.0 over stdin/stdout: one message per line, answers on stdout, nothing else
//! written there, and a clean return when stdin closes.
//!
//! This serves a generated server's OpenRPC methods as they are; the MCP methods come with the
//! MCP transports.

use std::future::Future;
use std::io::{self, BufRead, Write};
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::thread::{self, Thread};

use crate::context::RequestContext;
use crate::dispatch::Dispatch;
use crate::jsonrpc::{error_response, success_response, Request, RpcError};

/// Serves `server` on stdin/stdout until stdin reaches end of file.
pub fn serve_jsonrpc(server: &impl Dispatch) -> io::Result<()> {
    let stdin = io::stdin().lock();
    let mut stdout = io::stdout().lock();
    serve_lines(server, stdin, &mut stdout)
}

/// Serves `server` on any line-oriented reader and writer (what [`serve_jsonrpc`] does with
/// stdin and stdout; tests use it with buffers).
pub fn serve_lines(
    server: &impl Dispatch,
    input: impl BufRead,
    output: &mut impl Write,
) -> io::Result<()> {
    for line in input.lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        if let Some(answer) = answer(server, &line) {
            output.write_all(answer.as_bytes())?;
            output.write_all(b"\n")?;
            output.flush()?;
        }
    }
    Ok(())
}

/// The response line to one message, or `None` for a notification.
fn answer(server: &impl Dispatch, line: &str) -> Option<String> {
    let request = match Request::parse(line) {
        Ok(request) => request,
        Err(error) => return Some(error_response(None, &error)),
    };
    let outcome =
        match server.call_method(&request.method, request.params, RequestContext::default()) {
            Some(call) => block_on(call),
            None => Err(RpcError::method_not_found(&request.method)),
        };
    let id = request.id?;
    Some(match outcome {
        Ok(result) => success_response(id, &result),
        Err(error) => error_response(Some(id), &error),
    })
}

/// Runs a future to completion on the current thread. For the stdio loop and for tests; the
/// HTTP transport runs on tokio.
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
