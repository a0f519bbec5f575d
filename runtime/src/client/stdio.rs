//! The stdio side of a client: the server is a child process spoken to in newline-delimited
//! JSON-RPC over its stdin and stdout (its stderr goes to the log).
//!
//! One task reads the child's stdout. A response goes to the call waiting for its id; a
//! notification goes to the call it belongs to (a `progressToken`, or the
//! `io.modelcontextprotocol/subscriptionId` of a `subscriptions/listen`) when one is waiting,
//! else to the [`ClientHandler`]; a request of the server's is answered by the handler, in a
//! task of its own so that a slow answer holds nothing else up.

use super::error::ClientError;
use super::handler::{self, ClientHandler};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::process::Stdio as Piped;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::mpsc;

/// The longest line the client reads from the server (a larger one ends the connection: a
/// server is not allowed to make the client hold unbounded memory).
const MAX_LINE: usize = 64 << 20;

/// How long [`Stdio::close`] waits for the server to exit once its stdin is closed, before
/// killing it.
const EXIT_GRACE: Duration = Duration::from_secs(2);

/// Where the messages of one waiting call go, by the numbers that name it (its request id,
/// its progress token).
type Routes = Arc<Mutex<HashMap<i64, mpsc::UnboundedSender<Value>>>>;

/// A server running as a child process.
pub(crate) struct Stdio {
    stdin: tokio::sync::Mutex<Option<ChildStdin>>,
    child: tokio::sync::Mutex<Child>,
    routes: Routes,
    reader: tokio::task::JoinHandle<()>,
}

/// The messages of one call, as the reader routes them; the routes are removed when it is
/// dropped.
pub(crate) struct Route {
    keys: Vec<i64>,
    routes: Routes,
    receiver: mpsc::UnboundedReceiver<Value>,
}

impl Route {
    /// The next message of the call; an error once the server's stdout has closed.
    pub(crate) async fn next(&mut self) -> Result<Option<Value>, ClientError> {
        match self.receiver.recv().await {
            Some(message) => Ok(Some(message)),
            None => Err(ClientError::Transport(
                "the server process closed its stdout (it exited?)".into(),
            )),
        }
    }
}

impl Drop for Route {
    fn drop(&mut self) {
        let mut routes = self.routes.lock().unwrap();
        for key in &self.keys {
            routes.remove(key);
        }
    }
}

impl Stdio {
    /// Starts `command` with piped stdin and stdout (killed if the client is dropped without
    /// [`close`](Stdio::close)), and the reader that answers with `handler`.
    pub(crate) fn spawn(
        command: std::process::Command,
        handler: Arc<dyn ClientHandler>,
    ) -> Result<Arc<Self>, ClientError> {
        let program = command.get_program().to_string_lossy().into_owned();
        let mut command = Command::from(command);
        command
            .stdin(Piped::piped())
            .stdout(Piped::piped())
            .stderr(Piped::piped())
            .kill_on_drop(true);
        let mut child = command.spawn().map_err(|e| {
            ClientError::Config(format!("starting the server command {program:?}: {e}"))
        })?;
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err(ClientError::Transport(
                "the child's pipes are missing".into(),
            ));
        };
        tokio::spawn(log_stderr(BufReader::new(stderr), program));
        Ok(Arc::new_cyclic(|this: &std::sync::Weak<Stdio>| {
            let routes = Routes::default();
            let reader = tokio::spawn(read(
                BufReader::new(stdout),
                routes.clone(),
                handler,
                this.clone(),
            ));
            Stdio {
                stdin: tokio::sync::Mutex::new(Some(stdin)),
                child: tokio::sync::Mutex::new(child),
                routes,
                reader,
            }
        }))
    }

    /// Sends a request, its messages routed to the returned [`Route`] by `keys` (its id
    /// first, then its progress token or anything else that names it).
    pub(crate) async fn request(&self, keys: &[i64], body: &[u8]) -> Result<Route, ClientError> {
        let (sender, receiver) = mpsc::unbounded_channel();
        {
            let mut routes = self.routes.lock().unwrap();
            for key in keys {
                routes.insert(*key, sender.clone());
            }
        }
        let route = Route {
            keys: keys.to_vec(),
            routes: self.routes.clone(),
            receiver,
        };
        self.send(body).await?;
        Ok(route)
    }

    /// Writes one message (a line).
    pub(crate) async fn send(&self, body: &[u8]) -> Result<(), ClientError> {
        let mut stdin = self.stdin.lock().await;
        let Some(stdin) = stdin.as_mut() else {
            return Err(ClientError::Transport("the client was closed".into()));
        };
        let mut line = Vec::with_capacity(body.len() + 1);
        line.extend_from_slice(body);
        line.push(b'\n');
        let written = async {
            stdin.write_all(&line).await?;
            stdin.flush().await
        };
        written.await.map_err(|e| {
            ClientError::Transport(format!("writing to the server process's stdin: {e}"))
        })
    }

    /// Ends the server as the stdio transport says: its stdin closed, a wait for it to exit,
    /// then a kill.
    pub(crate) async fn close(&self) -> Result<(), ClientError> {
        self.stdin.lock().await.take();
        let mut child = self.child.lock().await;
        let exited = tokio::time::timeout(EXIT_GRACE, child.wait()).await;
        if exited.is_err() {
            tracing::debug!("the server process did not exit when its stdin closed; killing it");
            child
                .kill()
                .await
                .map_err(|e| ClientError::Transport(format!("killing the server process: {e}")))?;
        }
        self.reader.abort();
        Ok(())
    }
}

impl Drop for Stdio {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

/// Reads the server's stdout until it closes (or sends a line over [`MAX_LINE`]); then every
/// waiting call hears that it has.
async fn read(
    mut stdout: impl AsyncBufRead + Unpin,
    routes: Routes,
    handler: Arc<dyn ClientHandler>,
    stdio: std::sync::Weak<Stdio>,
) {
    let mut line = Vec::new();
    loop {
        line.clear();
        match read_line(&mut stdout, &mut line).await {
            Ok(true) => {}
            Ok(false) => break,
            Err(error) => {
                tracing::warn!(%error, "reading the server process's stdout; the connection ends");
                break;
            }
        }
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let message: Value = match serde_json::from_slice(&line) {
            Ok(message) => message,
            Err(error) => {
                tracing::warn!(%error, "a line from the server that is not JSON; skipped");
                continue;
            }
        };
        let route =
            |key: Option<i64>| key.and_then(|key| routes.lock().unwrap().get(&key).cloned());
        match (
            message.get("method").and_then(Value::as_str),
            message.get("id"),
        ) {
            (Some(method), Some(id)) => {
                let (method, id) = (method.to_owned(), id.clone());
                let (handler, stdio) = (handler.clone(), stdio.clone());
                tokio::spawn(async move {
                    let answer = match handler::answer(&*handler, &method, &message["params"]).await
                    {
                        Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
                        Err(error) => json!({"jsonrpc": "2.0", "id": id, "error": error}),
                    };
                    if let Some(stdio) = stdio.upgrade() {
                        if let Err(error) = stdio.send(answer.to_string().as_bytes()).await {
                            tracing::warn!(%error, method, "the answer to a server request was not delivered");
                        }
                    }
                });
            }
            (Some(method), None) => match route(notification_owner(&message["params"])) {
                Some(call) => drop(call.send(message)),
                None => handler.notification(method, &message["params"]),
            },
            (None, _) => match route(message["id"].as_i64()) {
                Some(call) => drop(call.send(message)),
                None => tracing::debug!(id = %message["id"], "a response no call waits for"),
            },
        }
    }
    routes.lock().unwrap().clear();
}

/// The number naming the call a notification belongs to: its progress token, or the
/// subscription it is delivered on.
fn notification_owner(params: &Value) -> Option<i64> {
    params["progressToken"]
        .as_i64()
        .or_else(|| params["_meta"]["io.modelcontextprotocol/subscriptionId"].as_i64())
}

/// One line into `line` (without its `\n`): `false` at the end of the stream, an error past
/// [`MAX_LINE`].
async fn read_line(
    reader: &mut (impl AsyncBufRead + Unpin),
    line: &mut Vec<u8>,
) -> std::io::Result<bool> {
    loop {
        let buffer = reader.fill_buf().await?;
        if buffer.is_empty() {
            return Ok(!line.is_empty());
        }
        let (taken, done) = match buffer.iter().position(|&b| b == b'\n') {
            Some(end) => (end + 1, true),
            None => (buffer.len(), false),
        };
        let end = if done { taken - 1 } else { taken };
        line.extend_from_slice(&buffer[..end]);
        reader.consume(taken);
        if line.len() > MAX_LINE {
            return Err(std::io::Error::other(format!(
                "a line of over {MAX_LINE} bytes"
            )));
        }
        if done {
            return Ok(true);
        }
    }
}

/// The server's stderr, line by line, as debug log lines.
async fn log_stderr(mut stderr: impl AsyncBufRead + Unpin, program: String) {
    let mut line = Vec::new();
    while let Ok(true) = read_line(&mut stderr, &mut line).await {
        tracing::debug!(server = %program, "{}", String::from_utf8_lossy(&line));
        line.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn lines_are_split_and_the_last_one_needs_no_newline() {
        let mut input: &[u8] = b"{\"a\":1}\n\n{\"b\":2}";
        let mut line = Vec::new();
        let mut lines = Vec::new();
        while read_line(&mut input, &mut line).await.unwrap() {
            lines.push(String::from_utf8(std::mem::take(&mut line)).unwrap());
        }
        assert_eq!(lines, ["{\"a\":1}", "", "{\"b\":2}"]);
    }

    #[test]
    fn notifications_belong_to_their_progress_token_or_subscription() {
        assert_eq!(notification_owner(&json!({"progressToken": 7})), Some(7));
        let meta = json!({"_meta": {"io.modelcontextprotocol/subscriptionId": 3}});
        assert_eq!(notification_owner(&meta), Some(3));
        assert_eq!(notification_owner(&json!({"progressToken": "x"})), None);
    }
}
