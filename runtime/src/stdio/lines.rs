//! The pipes' lines: one line of input read within its bound, the backlog of output lines
//! the reader waits on, a line written.

use std::collections::VecDeque;
use std::io;
use std::pin::pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::{mpsc, Notify};

use crate::jsonrpc::{self, RpcError};

/// The bytes of the lines waiting for the output: the reader waits for room before each line.
#[derive(Debug)]
pub(super) struct Backlog {
    pub(super) bytes: AtomicUsize,
    limit: usize,
    /// Signalled when the backlog falls under the limit, or the output fails.
    drained: Notify,
    /// The output failed: nothing will drain, and nothing more is written.
    closed: AtomicBool,
}

impl Backlog {
    pub(super) fn new(limit: usize) -> Self {
        Self {
            bytes: AtomicUsize::new(0),
            limit,
            drained: Notify::new(),
            closed: AtomicBool::new(false),
        }
    }

    /// Resolves once the backlog is under the limit (or the output is gone).
    pub(super) async fn room(&self) {
        loop {
            // Created before the check: a `notify_waiters` in between still wakes it.
            let drained = self.drained.notified();
            if self.bytes.load(Ordering::Acquire) < self.limit
                || self.closed.load(Ordering::Acquire)
            {
                return;
            }
            drained.await;
        }
    }

    pub(super) fn queued(&self, line: &str) {
        self.bytes.fetch_add(line.len() + 1, Ordering::AcqRel);
    }

    pub(super) fn written(&self, line: &str) {
        let before = self.bytes.fetch_sub(line.len() + 1, Ordering::AcqRel);
        if before >= self.limit && before - (line.len() + 1) < self.limit {
            self.drained.notify_waiters();
        }
    }

    pub(super) fn close(&self) {
        self.closed.store(true, Ordering::Release);
        self.drained.notify_waiters();
    }
}

/// Writes the lines of `lines` to `output`, one per line, until every sender is gone. While a
/// write waits for the client to read, the lines sent meanwhile are taken off the channel and
/// counted in `backlog`, so the reader sees how much waits.
pub(super) async fn write_lines<W>(
    mut lines: mpsc::UnboundedReceiver<String>,
    mut output: W,
    backlog: Arc<Backlog>,
) -> io::Result<()>
where
    W: AsyncWrite + Unpin,
{
    let mut waiting = VecDeque::new();
    let written = async {
        loop {
            let line = match waiting.pop_front() {
                Some(line) => line,
                None => match lines.recv().await {
                    Some(line) => {
                        backlog.queued(&line);
                        line
                    }
                    None => return Ok(()),
                },
            };
            let mut write = pin!(write_line(&mut output, &line));
            loop {
                tokio::select! {
                    biased;
                    written = &mut write => {
                        written?;
                        break;
                    }
                    Some(more) = lines.recv() => {
                        backlog.queued(&more);
                        waiting.push_back(more);
                    }
                }
            }
            backlog.written(&line);
        }
    }
    .await;
    backlog.close();
    written
}

pub(super) async fn write_line<W: AsyncWrite + Unpin>(
    output: &mut W,
    line: &str,
) -> io::Result<()> {
    output.write_all(line.as_bytes()).await?;
    output.write_all(b"\n").await?;
    output.flush().await
}

/// How a line of input ended.
pub(super) enum Line {
    /// Whole, within the limit.
    Whole,
    /// Longer than the limit: skipped to its end, unread.
    TooLong,
}

/// Reads the next line (without its `\n`) into `line`, keeping at most `limit` bytes of it: a
/// client cannot make the server hold more than that for one message, however long its line.
/// `None` once the input has ended.
pub(super) async fn next_line<R: AsyncBufRead + Unpin>(
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
pub(super) fn too_long(limit: usize) -> RpcError {
    RpcError::new(
        jsonrpc::INVALID_REQUEST,
        format!("Invalid Request: a line over {limit} bytes (config.limits.body_limit)"),
    )
}

#[cold]
pub(super) fn not_utf8() -> RpcError {
    RpcError::new(jsonrpc::PARSE_ERROR, "Parse error: the line is not UTF-8")
}
