//! Long-lived SSE responses (`subscriptions/listen`, session GET streams, streamed tool calls)
//! read one event at a time, and closed on purpose by dropping the connection.

use bytes::Bytes;
use http::{HeaderMap, Request, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use serde_json::Value;
use std::net::SocketAddr;
use std::time::{Duration, Instant};
use tokio::net::TcpStream;
use tokio::task::JoinHandle;

/// One SSE event.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// A comment line (`: keep-alive`), without its colon and surrounding spaces.
    Comment(String),
    /// A `data:` event: its `id:` and its JSON (`Null` for an empty data line).
    Message { id: Option<String>, data: Value },
}

/// An open response whose body is read event by event. Dropping it (or [`SseStream::close`])
/// closes the TCP connection, which is how a client ends a stream.
pub struct SseStream {
    pub status: StatusCode,
    pub headers: HeaderMap,
    body: Incoming,
    buffer: String,
    connection: JoinHandle<()>,
}

impl Drop for SseStream {
    fn drop(&mut self) {
        self.connection.abort();
    }
}

impl SseStream {
    /// Sends one request on its own connection and keeps the response open.
    pub async fn open(
        addr: SocketAddr,
        method: &str,
        headers: &[(&str, &str)],
        body: &str,
    ) -> SseStream {
        Self::open_at(addr, "/mcp", method, headers, body).await
    }

    /// [`SseStream::open`] on `path` instead of `/mcp`.
    pub async fn open_at(
        addr: SocketAddr,
        path: &str,
        method: &str,
        headers: &[(&str, &str)],
        body: &str,
    ) -> SseStream {
        let stream = TcpStream::connect(addr).await.unwrap();
        let (mut sender, connection) =
            hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream))
                .await
                .unwrap();
        let connection = tokio::spawn(async move {
            let _ = connection.await;
        });
        let mut request = Request::builder()
            .method(method)
            .uri(format!("http://{addr}{path}"));
        if !headers
            .iter()
            .any(|(name, _)| name.eq_ignore_ascii_case("host"))
        {
            request = request.header("host", addr.to_string());
        }
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let request = request
            .body(Full::new(Bytes::from(body.to_string())))
            .unwrap();
        let response = tokio::time::timeout(Duration::from_secs(10), sender.send_request(request))
            .await
            .expect("response headers within 10 s")
            .unwrap();
        let (parts, body) = response.into_parts();
        SseStream {
            status: parts.status,
            headers: parts.headers,
            body,
            buffer: String::new(),
            connection,
        }
    }

    /// The header `name`.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// The next event, waiting up to `within` (panics after that); `None` at the end of the
    /// stream.
    pub async fn next(&mut self, within: Duration) -> Option<Event> {
        self.next_before(tokio::time::Instant::now() + within)
            .await
            .unwrap_or_else(|| {
                panic!(
                    "no SSE event within {within:?} (buffered: {:?})",
                    self.buffer
                )
            })
    }

    /// Every event that arrives within `window` (the stream may not end in it).
    pub async fn events_during(&mut self, window: Duration) -> Vec<Event> {
        let deadline = tokio::time::Instant::now() + window;
        let mut events = Vec::new();
        while let Some(event) = self.next_before(deadline).await {
            events.push(event.expect("the stream stays open"));
        }
        events
    }

    /// The next event, `Some(None)` at the end of the stream, `None` at `deadline`.
    async fn next_before(&mut self, deadline: tokio::time::Instant) -> Option<Option<Event>> {
        let block = self.next_block_before(deadline).await?;
        Some(block.map(|block| parse_event(&block)))
    }

    /// The next event block as sent (its lines and blank line), waiting up to `within`
    /// (panics after that); `None` at the end of the stream. For events whose data is not
    /// JSON (the 2024-11-05 `endpoint` event).
    pub async fn next_block(&mut self, within: Duration) -> Option<String> {
        self.next_block_before(tokio::time::Instant::now() + within)
            .await
            .unwrap_or_else(|| panic!("no SSE event within {within:?}"))
    }

    /// The next event block, `Some(None)` at the end of the stream, `None` at `deadline`.
    async fn next_block_before(
        &mut self,
        deadline: tokio::time::Instant,
    ) -> Option<Option<String>> {
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                return Some(Some(self.buffer.drain(..end + 2).collect()));
            }
            let frame = tokio::time::timeout_at(deadline, self.body.frame())
                .await
                .ok()?;
            let Some(frame) = frame else {
                assert!(
                    self.buffer.trim().is_empty(),
                    "the stream ended inside an event: {:?}",
                    self.buffer
                );
                return Some(None);
            };
            if let Ok(data) = frame.expect("a body frame").into_data() {
                self.buffer.push_str(std::str::from_utf8(&data).unwrap());
            }
        }
    }

    /// The next `data:` event's JSON, skipping comments; panics at the end of the stream.
    pub async fn next_message(&mut self, within: Duration) -> Value {
        loop {
            match self.next(within).await {
                Some(Event::Message { data, .. }) => return data,
                Some(Event::Comment(_)) => continue,
                None => panic!("the stream ended while a message was expected"),
            }
        }
    }

    /// Closes the connection now; returns the moment it was closed.
    pub fn close(self) -> Instant {
        let closed_at = Instant::now();
        drop(self);
        closed_at
    }
}

/// One event block (the text up to and including its blank line).
fn parse_event(block: &str) -> Event {
    let mut id = None;
    let mut data: Option<String> = None;
    let mut comment = None;
    for line in block.lines().filter(|line| !line.is_empty()) {
        if let Some(text) = line.strip_prefix(':') {
            comment = Some(text.trim().to_string());
        } else if let Some(value) = line.strip_prefix("id:") {
            id = Some(value.trim().to_string());
        } else if let Some(value) = line.strip_prefix("data:") {
            let value = value.strip_prefix(' ').unwrap_or(value);
            data = Some(match data {
                Some(before) => format!("{before}\n{value}"),
                None => value.to_string(),
            });
        }
    }
    match (data, comment) {
        (Some(data), _) if data.trim().is_empty() => Event::Message {
            id,
            data: Value::Null,
        },
        (Some(data), _) => Event::Message {
            id,
            data: serde_json::from_str(&data)
                .unwrap_or_else(|e| panic!("SSE data is not JSON ({e}): {data}")),
        },
        (None, Some(comment)) => Event::Comment(comment),
        // A priming event (`id:` and `retry:` only).
        (None, None) => Event::Message {
            id,
            data: Value::Null,
        },
    }
}
