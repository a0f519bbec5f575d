//! The soak test: a real server on 127.0.0.1, in this process, loaded by many concurrent
//! clients over real HTTP (hyper, keep-alive connections) with a weighted mix of everything a
//! client does, sessions created and ended (DELETE) or abandoned (expired); then, once the
//! timeouts have passed, everything the server held is gone and the process's memory is back
//! near its level after warm-up.
//!
//! Ignored by `cargo test`: CI runs the short form, RELIABILITY.md records the long one.
//!
//! ```sh
//! # short form (CI): 5,000 sessions, 50,000 requests, 32 clients, debug build
//! cargo test -p workspace-tests --test soak -- --ignored --nocapture
//! # long form: 100,000 sessions, 1,000,000 requests
//! SOAK_SESSIONS=100000 SOAK_REQUESTS=1000000 \
//!   cargo test --release -p workspace-tests --test soak -- --ignored --nocapture
//! ```
//!
//! Settings (environment): `SOAK_SESSIONS` (5,000), `SOAK_REQUESTS` (50,000; HTTP requests of
//! every kind, counted as sent), `SOAK_CONCURRENCY` (32 clients), `SOAK_SEED` (1),
//! `SOAK_RSS_TOLERANCE` (0.10: the end RSS may exceed the one after warm-up by this share).
//!
//! The mix. A client picks a session or a stateless unit, in proportion to what is left of
//! each budget so that both end together.
//!
//! - Session (2025-11-25): `initialize`, `notifications/initialized`, then a few of: `echo`,
//!   `count` (60 ms), a `slow` call cancelled with `notifications/cancelled`, a `slow` call
//!   whose connection is dropped mid-flight, `ask_model` with the sampling request answered or
//!   left unanswered (its stream dropped; the handler gives up after
//!   `config.limits.client_request_timeout`), a GET stream opened and dropped. Then DELETE, or
//!   abandonment (the session expires after `config.sessions.session_idle_timeout`).
//! - Stateless (2026-07-28): `echo`; `ask_model` answered in a second round (MRTR) or left
//!   after the first; `linger` whose SSE stream is dropped after its first progress event, or
//!   `slow` whose connection is dropped before any answer (both cancel the handler);
//!   `subscriptions/listen` streams opened, sometimes sent a `touch_tools` notification, and
//!   dropped; `background_job` as a task, polled to completion, cancelled, or abandoned.
//!
//! Afterwards: [`McpServer::load`] is all zeros (sessions, session requests in flight, pending
//! server-to-client requests, listen streams, SSE replay bookkeeping, tasks held and running:
//! the server's expiry sweep forgets tasks past their TTL); the tokio tasks
//! alive are those alive before the load (connections, handlers, relays: all gone); and RSS is
//! within the tolerance of its value after warm-up (the first 10% of the requests).

use bytes::Bytes;
use http::{HeaderMap, Request, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use serde_json::{json, Value};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

use mcp_runtime::stores::Stores;
use mcp_runtime::{Config, Load, McpServer};
use workspace_tests::server::Server;
use workspace_tests::TestHandler;

/// The session-era revision the sessions negotiate.
const SESSION_VERSION: &str = "2025-11-25";
/// The stateless revision.
const STATELESS_VERSION: &str = "2026-07-28";
/// The tasks extension.
const TASKS: &str = "io.modelcontextprotocol/tasks";
/// The names of the steps a session takes between `initialize` and its end.
const SESSION_STEPS: [&str; 7] = [
    "echo",
    "count",
    "cancel",
    "disconnect",
    "sampling answered",
    "sampling unanswered",
    "GET stream",
];
/// Their weights in the mix.
const SESSION_WEIGHTS: [u64; 7] = [40, 15, 10, 10, 12, 5, 8];
/// How long any one answer may take before the soak counts a failure.
const ANSWER_WITHIN: Duration = Duration::from_secs(30);

// ---- Settings -------------------------------------------------------------------------------

/// The soak's parameters, from the environment.
#[derive(Debug, Clone, Copy)]
struct Settings {
    sessions: u64,
    requests: u64,
    concurrency: usize,
    seed: u64,
    rss_tolerance: f64,
}

impl Settings {
    fn from_env() -> Self {
        fn var<T: std::str::FromStr>(name: &str, default: T) -> T {
            std::env::var(name)
                .ok()
                .map(|v| v.replace(['_', ','], ""))
                .map(|v| {
                    v.parse()
                        .unwrap_or_else(|_| panic!("{name}={v} is not a number"))
                })
                .unwrap_or(default)
        }
        Self {
            sessions: var("SOAK_SESSIONS", 5_000),
            requests: var("SOAK_REQUESTS", 50_000),
            concurrency: var("SOAK_CONCURRENCY", 32),
            seed: var("SOAK_SEED", 1),
            rss_tolerance: var("SOAK_RSS_TOLERANCE", 0.10),
        }
    }
}

/// The server's timeouts: short, so that abandoned things end within seconds of the load.
fn server_config() -> Config {
    Config::builder()
        .session_idle_timeout(Some(Duration::from_millis(1000)))
        .session_max_lifetime(Some(Duration::from_secs(10)))
        .client_request_timeout(Duration::from_millis(1000))
        .sse_keep_alive(Duration::from_millis(250))
        .task_ttl(Duration::from_secs(3))
        .task_poll_interval(Duration::from_millis(20))
        .build()
}

/// How long after the load everything must have ended: the longest timeout above (the
/// session lifetime) and the sweeps that notice it, with room for a busy machine.
const SETTLE_WITHIN: Duration = Duration::from_secs(30);

// ---- Counting ---------------------------------------------------------------------------------

/// What the clients did and saw.
#[derive(Debug, Default)]
struct Stats {
    requests: AtomicU64,
    sessions: AtomicU64,
    sessions_started: AtomicU64,
    deleted: AtomicU64,
    abandoned: AtomicU64,
    calls: AtomicU64,
    cancelled: AtomicU64,
    cancel_too_late: AtomicU64,
    disconnects: AtomicU64,
    samples_answered: AtomicU64,
    samples_unanswered: AtomicU64,
    get_streams: AtomicU64,
    stateless_calls: AtomicU64,
    mrtr_answered: AtomicU64,
    mrtr_left: AtomicU64,
    listens: AtomicU64,
    listen_notified: AtomicU64,
    tasks_completed: AtomicU64,
    tasks_cancelled: AtomicU64,
    tasks_abandoned: AtomicU64,
    failures: AtomicU64,
    first_failures: Mutex<Vec<String>>,
}

impl Stats {
    fn add(counter: &AtomicU64) {
        counter.fetch_add(1, Ordering::Relaxed);
    }

    fn get(counter: &AtomicU64) -> u64 {
        counter.load(Ordering::Relaxed)
    }

    fn fail(&self, what: String) {
        if self.failures.fetch_add(1, Ordering::Relaxed) < 20 {
            self.first_failures.lock().unwrap().push(what);
        }
    }

    /// One line per kind of work.
    fn summary(&self) -> String {
        let g = Self::get;
        format!(
            "sessions {} (deleted {}, abandoned {}); session calls {}, cancelled {} (too late {}), \
             disconnects {}, sampling answered {} / unanswered {}, GET streams {}; stateless \
             calls {}, MRTR answered {} / left {}, listen streams {} (notified {}), tasks \
             completed {} / cancelled {} / abandoned {}; failures {}",
            g(&self.sessions),
            g(&self.deleted),
            g(&self.abandoned),
            g(&self.calls),
            g(&self.cancelled),
            g(&self.cancel_too_late),
            g(&self.disconnects),
            g(&self.samples_answered),
            g(&self.samples_unanswered),
            g(&self.get_streams),
            g(&self.stateless_calls),
            g(&self.mrtr_answered),
            g(&self.mrtr_left),
            g(&self.listens),
            g(&self.listen_notified),
            g(&self.tasks_completed),
            g(&self.tasks_cancelled),
            g(&self.tasks_abandoned),
            g(&self.failures),
        )
    }
}

/// This process's resident set, in KiB (`VmRSS` of `/proc/self/status`).
fn rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("a VmRSS line")
}

/// A small deterministic generator (xorshift64*): the mix needs no more.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Self(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number in `0..n`.
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// Picks an index of `weights` in proportion to them.
    fn pick(&mut self, weights: &[u64]) -> usize {
        let mut roll = self.below(weights.iter().sum());
        for (i, &weight) in weights.iter().enumerate() {
            if roll < weight {
                return i;
            }
            roll -= weight;
        }
        unreachable!()
    }
}

// ---- HTTP -------------------------------------------------------------------------------------

type Sender = hyper::client::conn::http1::SendRequest<Full<Bytes>>;

/// A POST (or GET, DELETE) to `/mcp` with the headers every client sends.
fn request(
    addr: SocketAddr,
    method: &str,
    headers: &[(&str, &str)],
    body: String,
) -> Request<Full<Bytes>> {
    let mut request = Request::builder()
        .method(method)
        .uri(format!("http://{addr}/mcp"))
        .header("host", addr.to_string())
        .header("accept", "application/json, text/event-stream");
    if method == "POST" {
        request = request.header("content-type", "application/json");
    }
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request.body(Full::new(Bytes::from(body))).unwrap()
}

/// A new connection, its driver task aborted by the caller when done.
async fn connect(addr: SocketAddr) -> Result<(Sender, JoinHandle<()>), String> {
    let stream = TcpStream::connect(addr)
        .await
        .map_err(|e| format!("connect: {e}"))?;
    stream.set_nodelay(true).ok();
    let (sender, connection) =
        hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream))
            .await
            .map_err(|e| format!("handshake: {e}"))?;
    let driver = tokio::spawn(async move {
        let _ = connection.await;
    });
    Ok((sender, driver))
}

/// A whole answer.
struct Answer {
    status: StatusCode,
    headers: HeaderMap,
    body: Bytes,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// The JSON-RPC response with `id`: the JSON body, or the SSE event carrying it.
    fn response(&self, id: &Value) -> Result<Value, String> {
        let text = std::str::from_utf8(&self.body).map_err(|e| e.to_string())?;
        let found = if self.header("content-type") == Some("text/event-stream") {
            sse_messages(text).into_iter().find(|m| &m["id"] == id)
        } else {
            serde_json::from_str::<Value>(text).ok()
        };
        found.ok_or_else(|| format!("{}: no response with id {id}: {text}", self.status))
    }
}

/// The JSON messages of SSE text.
fn sse_messages(text: &str) -> Vec<Value> {
    text.lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .filter_map(|data| serde_json::from_str(data.trim()).ok())
        .collect()
}

/// One client's keep-alive connection, opened again when the server closed it.
struct KeepAlive {
    addr: SocketAddr,
    stats: Arc<Stats>,
    connection: Option<(Sender, JoinHandle<()>)>,
}

impl Drop for KeepAlive {
    fn drop(&mut self) {
        if let Some((_, driver)) = self.connection.take() {
            driver.abort();
        }
    }
}

impl KeepAlive {
    fn new(addr: SocketAddr, stats: Arc<Stats>) -> Self {
        Self {
            addr,
            stats,
            connection: None,
        }
    }

    /// Sends one request and reads its whole answer.
    async fn send(
        &mut self,
        method: &str,
        headers: &[(&str, &str)],
        body: String,
    ) -> Result<Answer, String> {
        if let Some((sender, _)) = &mut self.connection {
            if sender.ready().await.is_err() {
                self.connection = None;
            }
        }
        if self.connection.is_none() {
            self.connection = Some(connect(self.addr).await?);
        }
        let (sender, _) = self.connection.as_mut().unwrap();
        Stats::add(&self.stats.requests);
        let request = request(self.addr, method, headers, body);
        let exchange = async {
            let response = sender
                .send_request(request)
                .await
                .map_err(|e| e.to_string())?;
            let (parts, body) = response.into_parts();
            let body = body.collect().await.map_err(|e| e.to_string())?.to_bytes();
            Ok::<_, String>(Answer {
                status: parts.status,
                headers: parts.headers,
                body,
            })
        };
        match tokio::time::timeout(ANSWER_WITHIN, exchange).await {
            Ok(Ok(answer)) => Ok(answer),
            Ok(Err(e)) => {
                self.connection = None;
                Err(format!("{method}: {e}"))
            }
            Err(_) => {
                self.connection = None;
                Err(format!("{method}: no answer within {ANSWER_WITHIN:?}"))
            }
        }
    }
}

/// A response on its own connection, read event by event; dropping it closes the connection
/// (how a client ends a stream or abandons a request).
struct Stream {
    status: StatusCode,
    body: Incoming,
    buffer: String,
    driver: JoinHandle<()>,
}

impl Drop for Stream {
    fn drop(&mut self) {
        self.driver.abort();
    }
}

impl Stream {
    /// Sends one request on a new connection and waits for the response's head.
    async fn open(
        stats: &Stats,
        addr: SocketAddr,
        method: &str,
        headers: &[(&str, &str)],
        body: String,
    ) -> Result<Stream, String> {
        let (mut sender, driver) = connect(addr).await?;
        Stats::add(&stats.requests);
        let response = tokio::time::timeout(
            ANSWER_WITHIN,
            sender.send_request(request(addr, method, headers, body)),
        )
        .await
        .map_err(|_| format!("{method}: no response head within {ANSWER_WITHIN:?}"))
        .and_then(|r| r.map_err(|e| format!("{method}: {e}")));
        let response = match response {
            Ok(response) => response,
            Err(e) => {
                driver.abort();
                return Err(e);
            }
        };
        let (parts, body) = response.into_parts();
        Ok(Stream {
            status: parts.status,
            body,
            buffer: String::new(),
            driver,
        })
    }

    /// The next JSON message (`None` when the body ended), skipping comments and events
    /// without JSON (priming events).
    async fn next_message(&mut self) -> Result<Option<Value>, String> {
        loop {
            while let Some(end) = self.buffer.find("\n\n") {
                let event: String = self.buffer.drain(..end + 2).collect();
                if let Some(message) = sse_messages(&event).into_iter().next() {
                    return Ok(Some(message));
                }
            }
            match tokio::time::timeout(ANSWER_WITHIN, self.body.frame()).await {
                Err(_) => return Err(format!("no event within {ANSWER_WITHIN:?}")),
                Ok(None) => return Ok(None),
                Ok(Some(Err(e))) => return Err(format!("the stream broke: {e}")),
                Ok(Some(Ok(frame))) => {
                    if let Ok(data) = frame.into_data() {
                        self.buffer.push_str(&String::from_utf8_lossy(&data));
                    }
                }
            }
        }
    }

    /// The next message that satisfies `wanted`.
    async fn find(&mut self, wanted: impl Fn(&Value) -> bool) -> Result<Value, String> {
        loop {
            match self.next_message().await? {
                Some(message) if wanted(&message) => return Ok(message),
                Some(_) => {}
                None => return Err("the stream ended first".into()),
            }
        }
    }
}

/// Sends one request on a new connection and closes it after `after`, whatever came.
async fn send_and_drop(
    stats: &Stats,
    addr: SocketAddr,
    headers: &[(&str, &str)],
    body: String,
    after: Duration,
) -> Result<(), String> {
    let (mut sender, driver) = connect(addr).await?;
    Stats::add(&stats.requests);
    let _ = tokio::time::timeout(
        after,
        sender.send_request(request(addr, "POST", headers, body)),
    )
    .await;
    driver.abort();
    Ok(())
}

// ---- The mix ------------------------------------------------------------------------------

/// One client: its keep-alive connection, its generator, its request ids.
struct Client {
    addr: SocketAddr,
    stats: Arc<Stats>,
    http: KeepAlive,
    rng: Rng,
    next_id: i64,
}

/// The result of a tool call that is no error.
fn tool_result(response: &Value) -> Result<&Value, String> {
    let result = response
        .get("result")
        .ok_or_else(|| format!("not a result: {response}"))?;
    if result.get("isError") == Some(&json!(true)) {
        return Err(format!("a tool error: {response}"));
    }
    Ok(result)
}

/// The first text block of a tool result.
fn tool_text(response: &Value) -> Result<String, String> {
    tool_result(response)?["content"][0]["text"]
        .as_str()
        .map(str::to_string)
        .ok_or_else(|| format!("no text block: {response}"))
}

fn expect(what: &str, ok: bool, detail: impl std::fmt::Display) -> Result<(), String> {
    if ok {
        Ok(())
    } else {
        Err(format!("{what}: {detail}"))
    }
}

/// A sampling answer.
fn model_answer(text: &str) -> Value {
    json!({"role": "assistant", "content": {"type": "text", "text": text}, "model": "soak-model", "stopReason": "endTurn"})
}

impl Client {
    fn id(&mut self) -> i64 {
        self.next_id += 1;
        self.next_id
    }

    fn millis(&mut self, from: u64, to: u64) -> Duration {
        Duration::from_millis(from + self.rng.below(to - from + 1))
    }

    // ---- Sessions ----

    /// One session from `initialize` to DELETE or abandonment, with `calls` calls in between.
    async fn session(&mut self, calls: u64) -> Result<(), String> {
        let body = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": SESSION_VERSION, "capabilities": {"sampling": {}},
            "clientInfo": {"name": "soak", "version": "1.0.0"}}});
        let answer = self.http.send("POST", &[], body.to_string()).await?;
        expect("initialize", answer.status == StatusCode::OK, answer.status)?;
        let session = answer
            .header("mcp-session-id")
            .ok_or("initialize: no session id")?
            .to_string();
        Stats::add(&self.stats.sessions);
        let headers = [
            ("mcp-session-id", session.as_str()),
            ("mcp-protocol-version", SESSION_VERSION),
        ];
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let answer = self
            .http
            .send("POST", &headers, initialized.to_string())
            .await?;
        expect(
            "initialized",
            answer.status == StatusCode::ACCEPTED,
            answer.status,
        )?;
        // The previous step and when it ended, for the failures' messages.
        let (mut previous, mut ended) = ("initialize", Instant::now());
        for _ in 0..calls {
            // echo, count, cancel, disconnect, sampling answered, unanswered, GET stream
            let step = self.rng.pick(&SESSION_WEIGHTS);
            let outcome = match step {
                0 => self.session_echo(&headers).await,
                1 => self.session_count(&headers).await,
                2 => self.session_cancel(&headers).await,
                3 => self.session_disconnect(&headers).await,
                4 => self.session_sample(&headers, true).await,
                5 => self.session_sample(&headers, false).await,
                _ => self.session_get_stream(&headers).await,
            };
            let name = SESSION_STEPS[step];
            outcome.map_err(|e| {
                let gap = ended.elapsed().as_millis();
                format!("{e} (session step {name}, {gap} ms after the end of {previous})")
            })?;
            (previous, ended) = (name, Instant::now());
        }
        if self.rng.below(10) < 7 {
            let answer = self.http.send("DELETE", &headers, String::new()).await?;
            expect("DELETE", answer.status.is_success(), answer.status)?;
            Stats::add(&self.stats.deleted);
        } else {
            Stats::add(&self.stats.abandoned);
        }
        Ok(())
    }

    /// A `tools/call` body in a session.
    fn call_body(&mut self, name: &str, arguments: Value) -> (i64, String) {
        let id = self.id();
        let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": name, "arguments": arguments}});
        (id, body.to_string())
    }

    async fn session_echo(&mut self, headers: &[(&str, &str)]) -> Result<(), String> {
        let text = format!("soak-{}", self.rng.below(1_000_000));
        let (id, body) = self.call_body("echo", json!({ "text": text }));
        let answer = self.http.send("POST", headers, body).await?;
        let got = tool_text(&answer.response(&json!(id))?)?;
        expect("echo", got == text, got)?;
        Stats::add(&self.stats.calls);
        Ok(())
    }

    async fn session_count(&mut self, headers: &[(&str, &str)]) -> Result<(), String> {
        let (id, body) = self.call_body("count", json!({}));
        let answer = self.http.send("POST", headers, body).await?;
        let response = answer.response(&json!(id))?;
        let result = tool_result(&response)?;
        expect(
            "count",
            result["structuredContent"]["steps"] == json!(3),
            &response,
        )?;
        Stats::add(&self.stats.calls);
        Ok(())
    }

    /// A `slow` call on its own connection, cancelled with `notifications/cancelled` on the
    /// keep-alive one: its POST then ends without a response (202), unless the cancellation
    /// came before the server registered the request (it then answers after 600 ms: shorter than
    /// the idle timeout, see RELIABILITY.md).
    async fn session_cancel(&mut self, headers: &[(&str, &str)]) -> Result<(), String> {
        let (id, body) = self.call_body("slow", json!({"millis": 600}));
        let owned: Vec<(String, String)> = headers
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect();
        let (stats, addr) = (self.stats.clone(), self.addr);
        let call = tokio::spawn(async move {
            let headers: Vec<(&str, &str)> = owned
                .iter()
                .map(|(a, b)| (a.as_str(), b.as_str()))
                .collect();
            let mut stream = Stream::open(&stats, addr, "POST", &headers, body).await?;
            let status = stream.status;
            while stream.next_message().await?.is_some() {}
            Ok::<_, String>(status)
        });
        tokio::time::sleep(self.millis(5, 30)).await;
        let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": id, "reason": "soak"}});
        let answer = self.http.send("POST", headers, cancel.to_string()).await?;
        expect(
            "notifications/cancelled",
            answer.status == StatusCode::ACCEPTED,
            answer.status,
        )?;
        let status = call.await.map_err(|e| e.to_string())??;
        match status {
            StatusCode::ACCEPTED => Stats::add(&self.stats.cancelled),
            StatusCode::OK => Stats::add(&self.stats.cancel_too_late),
            other => return Err(format!("cancelled slow: {other}")),
        }
        Ok(())
    }

    /// A `slow` call whose connection is closed before its answer.
    async fn session_disconnect(&mut self, headers: &[(&str, &str)]) -> Result<(), String> {
        let (_, body) = self.call_body("slow", json!({"millis": 300}));
        let after = self.millis(5, 50);
        send_and_drop(&self.stats, self.addr, headers, body, after).await?;
        Stats::add(&self.stats.disconnects);
        Ok(())
    }

    /// `ask_model`: its sampling request comes on the call's stream; answered by POST (the
    /// call completes), or not (the stream is dropped; the handler waits until
    /// `config.limits.client_request_timeout`, or until the session ends).
    async fn session_sample(
        &mut self,
        headers: &[(&str, &str)],
        answer: bool,
    ) -> Result<(), String> {
        let (id, body) = self.call_body("ask_model", json!({"question": "2+2?"}));
        let mut stream = Stream::open(&self.stats, self.addr, "POST", headers, body).await?;
        expect("ask_model", stream.status == StatusCode::OK, stream.status)?;
        let request = stream
            .find(|m| m["method"] == json!("sampling/createMessage"))
            .await?;
        if !answer {
            drop(stream);
            Stats::add(&self.stats.samples_unanswered);
            return Ok(());
        }
        let reply = json!({"jsonrpc": "2.0", "id": request["id"], "result": model_answer("4")});
        let posted = self.http.send("POST", headers, reply.to_string()).await?;
        expect(
            "sampling answer",
            posted.status == StatusCode::ACCEPTED,
            posted.status,
        )?;
        let response = stream.find(|m| m["id"] == json!(id)).await?;
        let text = tool_text(&response)?;
        expect("ask_model", text == "model said: 4", text)?;
        Stats::add(&self.stats.samples_answered);
        Ok(())
    }

    /// The session's GET stream, opened (its `: ping` read) and dropped.
    async fn session_get_stream(&mut self, headers: &[(&str, &str)]) -> Result<(), String> {
        let (mut sender, driver) = connect(self.addr).await?;
        Stats::add(&self.stats.requests);
        let mut request = request(self.addr, "GET", headers, String::new());
        request
            .headers_mut()
            .insert("accept", "text/event-stream".parse().unwrap());
        let opened = tokio::time::timeout(ANSWER_WITHIN, sender.send_request(request)).await;
        let result = match opened {
            Ok(Ok(response)) if response.status() == StatusCode::OK => {
                let mut body = response.into_body();
                match tokio::time::timeout(ANSWER_WITHIN, body.frame()).await {
                    Ok(Some(Ok(_))) => Ok(()),
                    _ => Err("GET stream: no first event".to_string()),
                }
            }
            Ok(Ok(response)) => Err(format!("GET stream: {}", response.status())),
            Ok(Err(e)) => Err(format!("GET stream: {e}")),
            Err(_) => Err("GET stream: no response".into()),
        };
        driver.abort();
        result?;
        Stats::add(&self.stats.get_streams);
        Ok(())
    }

    // ---- Stateless ----

    /// A stateless request body (`_meta` added to `params`) and its routing headers.
    fn stateless(&mut self, method: &str, mut params: Value, capabilities: Value) -> (i64, String) {
        let id = self.id();
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": STATELESS_VERSION,
            "io.modelcontextprotocol/clientCapabilities": capabilities,
        });
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        (id, body.to_string())
    }

    /// Sends a stateless request on the keep-alive connection; its response.
    async fn stateless_exchange(
        &mut self,
        method: &str,
        name: Option<&str>,
        params: Value,
        capabilities: Value,
    ) -> Result<Value, String> {
        let (id, body) = self.stateless(method, params, capabilities);
        let mut headers = vec![
            ("mcp-protocol-version", STATELESS_VERSION),
            ("mcp-method", method),
        ];
        if let Some(name) = name {
            headers.push(("mcp-name", name));
        }
        let answer = self.http.send("POST", &headers, body).await?;
        expect(
            method,
            answer.status == StatusCode::OK,
            format!(
                "{} {}",
                answer.status,
                String::from_utf8_lossy(&answer.body)
            ),
        )?;
        answer.response(&json!(id))
    }

    /// One stateless piece of work.
    async fn stateless_unit(&mut self) -> Result<(), String> {
        // echo, MRTR sampling, disconnect, listen, task
        match self.rng.pick(&[45, 10, 10, 15, 20]) {
            0 => {
                let text = format!("stateless-{}", self.rng.below(1_000_000));
                let params = json!({"name": "echo", "arguments": {"text": text}});
                let response = self
                    .stateless_exchange("tools/call", Some("echo"), params, json!({}))
                    .await?;
                let got = tool_text(&response)?;
                expect("stateless echo", got == text, got)?;
                Stats::add(&self.stats.stateless_calls);
            }
            1 => self.stateless_sample().await?,
            2 => self.stateless_disconnect().await?,
            3 => self.listen().await?,
            _ => self.task().await?,
        }
        Ok(())
    }

    /// `ask_model` in rounds: the first answers `input_required`; the client answers in a
    /// second round, or walks away (the server kept nothing).
    async fn stateless_sample(&mut self) -> Result<(), String> {
        let params = json!({"name": "ask_model", "arguments": {"question": "2+2?"}});
        let capabilities = json!({"sampling": {}});
        let first = self
            .stateless_exchange(
                "tools/call",
                Some("ask_model"),
                params.clone(),
                capabilities.clone(),
            )
            .await?;
        let result = &first["result"];
        expect(
            "MRTR round 1",
            result["resultType"] == json!("input_required"),
            &first,
        )?;
        if self.rng.below(10) < 3 {
            Stats::add(&self.stats.mrtr_left);
            return Ok(());
        }
        let mut retry = params;
        retry["inputResponses"] = json!({"question": model_answer("4")});
        retry["requestState"] = result["requestState"].clone();
        let second = self
            .stateless_exchange("tools/call", Some("ask_model"), retry, capabilities)
            .await?;
        let text = tool_text(&second)?;
        expect("MRTR round 2", text == "model said: 4", text)?;
        Stats::add(&self.stats.mrtr_answered);
        Ok(())
    }

    /// A call whose connection closes mid-flight: `linger` after its first progress event
    /// (an SSE answer), or `slow` before any answer (a JSON one). Both cancel the handler.
    async fn stateless_disconnect(&mut self) -> Result<(), String> {
        if self.rng.below(2) == 0 {
            let (id, _) = self.stateless("tools/call", json!({}), json!({}));
            let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
            "name": "linger", "arguments": {}, "_meta": {
                "io.modelcontextprotocol/protocolVersion": STATELESS_VERSION,
                "io.modelcontextprotocol/clientCapabilities": {},
                "progressToken": format!("p{id}"),
            }}})
            .to_string();
            let headers = [
                ("mcp-protocol-version", STATELESS_VERSION),
                ("mcp-method", "tools/call"),
                ("mcp-name", "linger"),
            ];
            let mut stream = Stream::open(&self.stats, self.addr, "POST", &headers, body).await?;
            expect("linger", stream.status == StatusCode::OK, stream.status)?;
            stream
                .find(|m| m["method"] == json!("notifications/progress"))
                .await?;
        } else {
            let (_, body) = self.stateless(
                "tools/call",
                json!({"name": "slow", "arguments": {"millis": 5000}}),
                json!({}),
            );
            let headers = [
                ("mcp-protocol-version", STATELESS_VERSION),
                ("mcp-method", "tools/call"),
                ("mcp-name", "slow"),
            ];
            let after = self.millis(5, 50);
            send_and_drop(&self.stats, self.addr, &headers, body, after).await?;
        }
        Stats::add(&self.stats.disconnects);
        Ok(())
    }

    /// A `subscriptions/listen` stream: acknowledged, held a little, sometimes sent a tool
    /// list change, dropped.
    async fn listen(&mut self) -> Result<(), String> {
        let (id, body) = self.stateless(
            "subscriptions/listen",
            json!({"notifications": {"toolsListChanged": true}}),
            json!({}),
        );
        let headers = [
            ("mcp-protocol-version", STATELESS_VERSION),
            ("mcp-method", "subscriptions/listen"),
        ];
        let mut stream = Stream::open(&self.stats, self.addr, "POST", &headers, body).await?;
        expect("listen", stream.status == StatusCode::OK, stream.status)?;
        let ack = stream
            .next_message()
            .await?
            .ok_or("listen: no acknowledgement")?;
        expect(
            "listen",
            ack["method"] == json!("notifications/subscriptions/acknowledged"),
            &ack,
        )?;
        if self.rng.below(20) == 0 {
            let params = json!({"name": "touch_tools", "arguments": {}});
            self.stateless_exchange("tools/call", Some("touch_tools"), params, json!({}))
                .await?;
            let note = stream
                .find(|m| m["method"] == json!("notifications/tools/list_changed"))
                .await?;
            let tagged =
                note["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"] == json!(id);
            expect("list_changed", tagged, &note)?;
            Stats::add(&self.stats.listen_notified);
        } else {
            tokio::time::sleep(self.millis(0, 100)).await;
        }
        drop(stream);
        Stats::add(&self.stats.listens);
        Ok(())
    }

    /// `background_job` as a task: polled until completed, cancelled, or abandoned.
    async fn task(&mut self) -> Result<(), String> {
        let millis = 20 + self.rng.below(130);
        let params = json!({"name": "background_job", "arguments": {"millis": millis}});
        let capabilities = json!({"extensions": {TASKS: {}}});
        let created = self
            .stateless_exchange(
                "tools/call",
                Some("background_job"),
                params,
                capabilities.clone(),
            )
            .await?;
        let result = &created["result"];
        expect("task", result["resultType"] == json!("task"), &created)?;
        let task = result["taskId"]
            .as_str()
            .ok_or("task: no taskId")?
            .to_string();
        match self.rng.pick(&[50, 30, 20]) {
            0 => loop {
                tokio::time::sleep(Duration::from_millis(20)).await;
                let got = self
                    .stateless_exchange(
                        "tasks/get",
                        Some(&task),
                        json!({"taskId": task}),
                        capabilities.clone(),
                    )
                    .await?;
                match got["result"]["status"].as_str() {
                    Some("working") => continue,
                    Some("completed") => {
                        let text = got["result"]["result"]["content"][0]["text"].as_str();
                        let done = format!("done in {millis} ms");
                        expect("task result", text == Some(done.as_str()), &got)?;
                        Stats::add(&self.stats.tasks_completed);
                        break;
                    }
                    _ => return Err(format!("tasks/get: {got}")),
                }
            },
            1 => {
                let got = self
                    .stateless_exchange(
                        "tasks/cancel",
                        Some(&task),
                        json!({"taskId": task}),
                        capabilities,
                    )
                    .await?;
                expect(
                    "tasks/cancel",
                    got["result"]["resultType"] == json!("complete"),
                    &got,
                )?;
                Stats::add(&self.stats.tasks_cancelled);
            }
            _ => Stats::add(&self.stats.tasks_abandoned),
        }
        Ok(())
    }
}

// ---- The run ----------------------------------------------------------------------------------

/// What the monitor saw during the load.
#[derive(Debug, Default)]
struct Observed {
    warm_rss_kib: AtomicU64,
    peak_rss_kib: AtomicU64,
    peak_sessions: AtomicUsize,
    peak_listen_streams: AtomicUsize,
    peak_tasks_held: AtomicUsize,
}

/// Claims one unit of the budget; false when it is spent.
fn claim(counter: &AtomicU64, budget: u64) -> bool {
    counter
        .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| {
            (n < budget).then_some(n + 1)
        })
        .is_ok()
}

/// One client: sessions and stateless units, in proportion to what is left of each budget.
async fn client_loop(
    mut client: Client,
    settings: Settings,
    calls_per_session: u64,
    session_cost: f64,
) {
    loop {
        let stats = client.stats.clone();
        let sessions_left = settings
            .sessions
            .saturating_sub(Stats::get(&stats.sessions_started));
        let requests_left = settings
            .requests
            .saturating_sub(Stats::get(&stats.requests));
        if sessions_left == 0 && requests_left == 0 {
            return;
        }
        // The share of the requests left that the remaining sessions will take, and the
        // chance of picking a session that gives them that share of the requests.
        let share = (sessions_left as f64 * session_cost / requests_left.max(1) as f64).min(1.0);
        let chance =
            share * STATELESS_COST / (session_cost * (1.0 - share) + share * STATELESS_COST);
        let take_session =
            sessions_left > 0 && (client.rng.next() as f64 / u64::MAX as f64) < chance;
        let outcome = if take_session {
            if !claim(&stats.sessions_started, settings.sessions) {
                continue;
            }
            let calls = calls_per_session.saturating_sub(1) + client.rng.below(3);
            client.session(calls).await
        } else if requests_left > 0 {
            client.stateless_unit().await
        } else {
            continue;
        };
        if let Err(e) = outcome {
            stats.fail(e);
        }
    }
}

/// The test server on 127.0.0.1.
struct Running {
    server: McpServer<Server<TestHandler>>,
    addr: SocketAddr,
    stop: tokio::sync::oneshot::Sender<()>,
    served: JoinHandle<()>,
}

impl Running {
    async fn start(config: Config) -> Running {
        let stores = Stores::memory(&config);
        let server = McpServer::builder(Server::new(TestHandler::default()))
            .config(config)
            .stores(stores)
            .build();
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let serving = server.clone();
        let served = tokio::spawn(async move {
            serving
                .serve_listener(listener, async {
                    let _ = stopped.await;
                })
                .await
                .unwrap();
        });
        Running {
            server,
            addr,
            stop,
            served,
        }
    }

    /// Shuts the server down and waits until it has.
    async fn stop(stop: tokio::sync::oneshot::Sender<()>, served: JoinHandle<()>) {
        let _ = stop.send(());
        served.await.unwrap();
    }
}

/// The requests a stateless unit takes on average: most take one, an answered MRTR call two,
/// a polled task a few (an estimate: the budgets correct for its error as they go).
const STATELESS_COST: f64 = 1.6;

/// The tokio tasks alive now.
fn alive_tasks() -> usize {
    tokio::runtime::Handle::current()
        .metrics()
        .num_alive_tasks()
}

fn mib(kib: u64) -> String {
    format!("{:.1} MiB", kib as f64 / 1024.0)
}

#[test]
#[ignore = "the soak test: run with --ignored (short form: defaults; long form: RELIABILITY.md)"]
fn soak() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(run(Settings::from_env()));
}

async fn run(settings: Settings) {
    eprintln!("soak: {settings:?}");
    let config = server_config();
    let Running {
        server,
        addr,
        stop,
        served,
    } = Running::start(config).await;

    let stats = Arc::new(Stats::default());
    let observed = Arc::new(Observed::default());
    let monitor = {
        let (server, stats, observed) = (server.clone(), stats.clone(), observed.clone());
        let warm_at = settings.requests / 10;
        let step = (settings.requests / 10).max(1);
        tokio::spawn(async move {
            let started = Instant::now();
            let mut next_report = step;
            loop {
                tokio::time::sleep(Duration::from_millis(200)).await;
                let load = server.load();
                let rss = rss_kib();
                let sent = Stats::get(&stats.requests);
                observed.peak_rss_kib.fetch_max(rss, Ordering::Relaxed);
                observed
                    .peak_sessions
                    .fetch_max(load.sessions, Ordering::Relaxed);
                observed
                    .peak_listen_streams
                    .fetch_max(load.listen_streams, Ordering::Relaxed);
                observed
                    .peak_tasks_held
                    .fetch_max(load.tasks_held, Ordering::Relaxed);
                if sent >= warm_at && observed.warm_rss_kib.load(Ordering::Relaxed) == 0 {
                    observed.warm_rss_kib.store(rss, Ordering::Relaxed);
                    eprintln!("soak: warmed up at {sent} requests: RSS {}", mib(rss));
                }
                if sent >= next_report {
                    next_report += step;
                    eprintln!(
                        "soak: {:>6.1} s  {sent} requests, {} sessions begun, RSS {}, {load:?}",
                        started.elapsed().as_secs_f64(),
                        Stats::get(&stats.sessions_started),
                        mib(rss),
                    );
                }
            }
        })
    };
    // Let the server and the monitor reach their waiting points before counting tasks.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let baseline_tasks = alive_tasks();
    let idle_rss = rss_kib();

    // Requests a session takes: initialize, initialized, its calls (a cancellation and an
    // answered sampling request are two), and a DELETE 7 times in 10.
    let per_session_target =
        (settings.requests as f64 * 0.75 / settings.sessions.max(1) as f64).floor() as u64;
    let calls_per_session = per_session_target.saturating_sub(3).max(1);
    let two_request_steps = (SESSION_WEIGHTS[2] + SESSION_WEIGHTS[4]) as f64;
    let per_call = 1.0 + two_request_steps / SESSION_WEIGHTS.iter().sum::<u64>() as f64;
    let session_cost = 2.7 + calls_per_session as f64 * per_call;
    eprintln!("soak: {calls_per_session} (+0..2) calls per session; server on {addr}");

    let started = Instant::now();
    let clients: Vec<_> = (0..settings.concurrency)
        .map(|i| {
            let client = Client {
                addr,
                stats: stats.clone(),
                http: KeepAlive::new(addr, stats.clone()),
                rng: Rng::new(settings.seed.wrapping_mul(1000).wrapping_add(i as u64)),
                next_id: 0,
            };
            tokio::spawn(client_loop(
                client,
                settings,
                calls_per_session,
                session_cost,
            ))
        })
        .collect();
    for client in clients {
        client.await.expect("a client panicked");
    }
    let elapsed = started.elapsed();
    let sent = Stats::get(&stats.requests);
    let end_of_load_rss = rss_kib();
    let load_at_end = server.load();
    eprintln!(
        "soak: load done in {:.1} s: {sent} requests ({:.0}/s), {}",
        elapsed.as_secs_f64(),
        sent as f64 / elapsed.as_secs_f64(),
        stats.summary()
    );
    eprintln!(
        "soak: at the end of the load: RSS {}, {load_at_end:?}",
        mib(end_of_load_rss),
    );

    // Everything abandoned ends by itself: sessions expire, waiting handlers time out, dropped
    // streams are noticed at their next keep-alive, tasks finish.
    let settle_started = Instant::now();
    let (mut load, mut alive) = (server.load(), alive_tasks());
    while !(load.is_idle() && alive <= baseline_tasks) && settle_started.elapsed() < SETTLE_WITHIN {
        tokio::time::sleep(Duration::from_millis(100)).await;
        (load, alive) = (server.load(), alive_tasks());
    }
    let settled_in = settle_started.elapsed();
    let (final_load, final_alive) = (server.load(), alive_tasks());
    let final_rss = rss_kib();
    let warm_rss = observed.warm_rss_kib.load(Ordering::Relaxed);

    eprintln!("soak: settled in {:.1} s", settled_in.as_secs_f64());
    eprintln!("soak: final load {final_load:?}");
    eprintln!("soak: tokio tasks alive: {final_alive} (before the load: {baseline_tasks})");
    eprintln!(
        "soak: RSS idle {}, after warm-up {}, peak {}, end of load {}, final {} ({:+.1}% of after warm-up)",
        mib(idle_rss),
        mib(warm_rss),
        mib(observed.peak_rss_kib.load(Ordering::Relaxed)),
        mib(end_of_load_rss),
        mib(final_rss),
        (final_rss as f64 / warm_rss as f64 - 1.0) * 100.0
    );
    eprintln!(
        "soak: peaks: sessions {}, listen streams {}, tasks held {}",
        observed.peak_sessions.load(Ordering::Relaxed),
        observed.peak_listen_streams.load(Ordering::Relaxed),
        observed.peak_tasks_held.load(Ordering::Relaxed)
    );
    eprintln!(
        "SOAK RESULT: sessions={} requests={sent} seconds={:.1} req_per_s={:.0} rss_warm_kib={warm_rss} rss_final_kib={final_rss} peak_sessions={} failures={}",
        Stats::get(&stats.sessions),
        elapsed.as_secs_f64(),
        sent as f64 / elapsed.as_secs_f64(),
        observed.peak_sessions.load(Ordering::Relaxed),
        Stats::get(&stats.failures)
    );

    Running::stop(stop, served).await;
    monitor.abort();

    let failures = stats.first_failures.lock().unwrap().clone();
    for failure in &failures {
        eprintln!("soak: FAILURE: {failure}");
    }
    assert!(
        failures.is_empty(),
        "{} failures, the first: {failures:#?}",
        Stats::get(&stats.failures)
    );
    assert!(
        Stats::get(&stats.sessions) >= settings.sessions,
        "every session was created"
    );
    assert!(sent >= settings.requests, "every request was sent");
    assert!(
        final_load.is_idle(),
        "the server still holds something: {final_load:?}"
    );
    // `tasks_held` among them: no task is held past its time to live.
    assert_eq!(final_load, Load::default());
    assert!(
        final_alive <= baseline_tasks,
        "{final_alive} tokio tasks alive, {baseline_tasks} before the load"
    );
    assert!(warm_rss > 0, "the warm-up RSS was sampled");
    let limit = warm_rss as f64 * (1.0 + settings.rss_tolerance);
    assert!(
        final_rss as f64 <= limit,
        "RSS {} after the soak, more than {:.0}% over {} after warm-up",
        mib(final_rss),
        settings.rss_tolerance * 100.0,
        mib(warm_rss)
    );
}

/// Waits up to 5 s for `done` to hold of the server's load; returns the last load seen.
async fn load_until(server: &McpServer<Server<TestHandler>>, done: impl Fn(&Load) -> bool) -> Load {
    let started = Instant::now();
    loop {
        let load = server.load();
        if done(&load) || started.elapsed() > Duration::from_secs(5) {
            return load;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// `McpServer::load` counts what the soak expects to go back to zero: a session, its running
/// call, the sampling request it waits on, its request stream, a listen stream.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn load_counts_sessions_requests_listen_streams_and_replay() {
    let config = Config::builder()
        .sse_keep_alive(Duration::from_millis(50))
        .build();
    let Running {
        server,
        addr,
        stop,
        served,
        ..
    } = Running::start(config).await;
    assert!(server.load().is_idle(), "{:?}", server.load());
    let stats = Arc::new(Stats::default());
    let mut client = Client {
        addr,
        stats: stats.clone(),
        http: KeepAlive::new(addr, stats.clone()),
        rng: Rng::new(7),
        next_id: 0,
    };
    let body = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": SESSION_VERSION, "capabilities": {"sampling": {}},
        "clientInfo": {"name": "soak", "version": "1.0.0"}}});
    let answer = client
        .http
        .send("POST", &[], body.to_string())
        .await
        .unwrap();
    let session = answer.header("mcp-session-id").unwrap().to_string();
    let headers = [
        ("mcp-session-id", session.as_str()),
        ("mcp-protocol-version", SESSION_VERSION),
    ];
    assert_eq!(server.load().sessions, 1);

    let (_, body) = client.call_body("ask_model", json!({"question": "?"}));
    let mut call = Stream::open(&stats, addr, "POST", &headers, body)
        .await
        .unwrap();
    call.find(|m| m["method"] == json!("sampling/createMessage"))
        .await
        .unwrap();
    let load = server.load();
    assert_eq!(
        (load.sessions, load.in_flight, load.pending_client_requests),
        (1, 1, 1),
        "{load:?}"
    );
    assert!(
        load.replay_events >= 1 && load.replay_streams >= 1,
        "{load:?}"
    );

    let (_, body) = client.stateless(
        "subscriptions/listen",
        json!({"notifications": {"toolsListChanged": true}}),
        json!({}),
    );
    let listen_headers = [
        ("mcp-protocol-version", STATELESS_VERSION),
        ("mcp-method", "subscriptions/listen"),
    ];
    let mut listen = Stream::open(&stats, addr, "POST", &listen_headers, body)
        .await
        .unwrap();
    listen
        .next_message()
        .await
        .unwrap()
        .expect("an acknowledgement");
    assert_eq!(server.load().listen_streams, 1);

    drop(listen);
    let load = load_until(&server, |l| l.listen_streams == 0).await;
    assert_eq!(load.listen_streams, 0, "noticed at its next keep-alive");
    let answer = client
        .http
        .send("DELETE", &headers, String::new())
        .await
        .unwrap();
    assert!(answer.status.is_success(), "{}", answer.status);
    drop(call);
    let load = load_until(&server, Load::is_idle).await;
    assert!(load.is_idle(), "{load:?}");
    Running::stop(stop, served).await;
}
