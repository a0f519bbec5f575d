//! A small closed-loop HTTP/1.1 load generator for MCP `tools/call` (hyper 1, keep-alive,
//! one tokio thread: pin it with taskset).
//!
//! ```text
//! loadgen check    --addr A --mode session|stateless|stateless2026|jsonrpc
//! loadgen load     --addr A --mode session|stateless|stateless2026|jsonrpc --conns N --secs S [--warmup S] [--pid PID] [--pid2 PID] [--rate R]
//! loadgen sessions --addr A --count N [--conns C] [--pid PID]
//! ```
//!
//! - `session`: every connection first sends `initialize` (its own session) and
//!   `notifications/initialized`, then every request carries `Mcp-Session-Id` and
//!   `MCP-Protocol-Version`.
//! - `stateless`: no initialize; every request carries `MCP-Protocol-Version: 2025-11-25`
//!   (rmcp's stateless mode and the ceiling).
//! - `stateless2026`: the 2026-07-28 revision: every request carries `_meta` (protocol
//!   version, client capabilities) and the `MCP-Protocol-Version: 2026-07-28`, `Mcp-Method`
//!   and `Mcp-Name` headers.
//! - `jsonrpc`: not MCP: a plain JSON-RPC 2.0 `echo` request (`{"text": ...}` by name) POSTed
//!   to `/`, answered with the text as its result (the gateway table's upstream, called
//!   directly).
//!
//! Every request has a fresh JSON-RPC id. A response counts as correct when its status is 200
//! and its body holds the echoed text block (JSON or one SSE `data:` line). `load` prints
//! `key=value` pairs on one line: requests, errors, secs, rps, p50_us, p99_us, p999_us, max_us
//! (latency tail, for telling a wider distribution from rare stalls), and, with `--pid`, the
//! server's CPU microseconds per request over the measured window (utime+stime from
//! /proc/PID/stat: cpu_us_per_req, and apart: user_us_per_req, sys_us_per_req) and its
//! VmRSS/VmHWM in KiB at the end; with `--pid2` (a second process the requests go through,
//! the gateway's upstream) also that one's CPU per request, apart: cpu2_us_per_req. With
//! `--rate R` the load is paced instead of closed-loop: R requests per second in all, each
//! connection sending one every conns/R seconds (staggered, sent on time to a few µs: the
//! timer is set short of the time, then the task yields until it); a request sent late
//! because the last answer came late is timed from when it was due (a server that falls
//! behind is charged for the wait). `sessions` prints sessions, secs and per_sec, and with
//! `--pid` the server's CPU microseconds per session.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context, Result};
use bytes::Bytes;
use hdrhistogram::Histogram;
use http::Request;
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1::SendRequest;

const VERSION: &str = "2025-11-25";
const ACCEPT: &str = "application/json, text/event-stream";

struct Args {
    addr: SocketAddr,
    mode: String,
    conns: usize,
    secs: f64,
    warmup: f64,
    pid: Option<u32>,
    pid2: Option<u32>,
    count: usize,
    rate: Option<f64>,
}

fn parse() -> Result<(String, Args)> {
    let (addr, rest) = mcp_bench::addr_and_rest();
    let mut it = rest.into_iter();
    let command = it
        .next()
        .ok_or_else(|| anyhow!("usage: loadgen check|load|sessions ..."))?;
    let mut args = Args {
        addr,
        mode: "session".into(),
        conns: 1,
        secs: 2.0,
        warmup: 0.5,
        pid: None,
        pid2: None,
        count: 1000,
        rate: None,
    };
    while let Some(flag) = it.next() {
        let value = it.next().ok_or_else(|| anyhow!("{flag} needs a value"))?;
        match flag.as_str() {
            "--mode" => args.mode = value,
            "--conns" => args.conns = value.parse()?,
            "--secs" => args.secs = value.parse()?,
            "--warmup" => args.warmup = value.parse()?,
            "--pid" => args.pid = Some(value.parse()?),
            "--pid2" => args.pid2 = Some(value.parse()?),
            "--count" => args.count = value.parse()?,
            "--rate" => args.rate = Some(value.parse()?),
            other => bail!("unknown flag {other}"),
        }
    }
    let modes = ["session", "stateless", "stateless2026", "outline2026", "jsonrpc"];
    if !modes.contains(&args.mode.as_str()) {
        bail!("--mode session|stateless|stateless2026|outline2026|jsonrpc");
    }
    Ok((command, args))
}

/// One keep-alive connection, with its session if any.
struct Conn {
    sender: SendRequest<Full<Bytes>>,
    session: Option<String>,
    version: String,
    next_id: u64,
    /// 2026-07-28 requests: `_meta` in the body, routing headers.
    modern: bool,
    /// Plain JSON-RPC `echo` to `/`, no MCP.
    jsonrpc: bool,
    /// The answer is an outline and a `resource_link` (a server whose result budget the echo
    /// is over: `outline2026`), not the text.
    outline: bool,
}

impl Conn {
    async fn open(addr: SocketAddr) -> Result<Self> {
        let stream = tokio::net::TcpStream::connect(addr).await?;
        stream.set_nodelay(true)?;
        let (sender, connection) =
            hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream)).await?;
        tokio::task::spawn_local(async move {
            let _ = connection.await;
        });
        Ok(Self {
            sender,
            session: None,
            version: VERSION.into(),
            next_id: 1,
            modern: false,
            outline: false,
            jsonrpc: false,
        })
    }

    async fn post(&mut self, body: String) -> Result<(http::StatusCode, http::HeaderMap, Bytes)> {
        if self.jsonrpc {
            let request = Request::post("/")
                .header("host", "127.0.0.1")
                .header("content-type", "application/json")
                .header("accept", "application/json")
                .body(Full::new(Bytes::from(body)))?;
            return self.send(request).await;
        }
        let mut request = Request::post("/mcp")
            .header("host", "127.0.0.1")
            .header("content-type", "application/json")
            .header("accept", ACCEPT)
            .header("mcp-protocol-version", &self.version);
        if let Some(session) = &self.session {
            request = request.header("mcp-session-id", session);
        }
        if self.modern {
            request = request
                .header("mcp-method", "tools/call")
                .header("mcp-name", "echo");
        }
        let request = request.body(Full::new(Bytes::from(body)))?;
        self.send(request).await
    }

    async fn send(
        &mut self,
        request: Request<Full<Bytes>>,
    ) -> Result<(http::StatusCode, http::HeaderMap, Bytes)> {
        self.sender.ready().await?;
        let response = self.sender.send_request(request).await?;
        let (parts, body) = response.into_parts();
        let bytes = body.collect().await?.to_bytes();
        Ok((parts.status, parts.headers, bytes))
    }

    /// `initialize` + `notifications/initialized`: this connection gets its own session.
    async fn initialize(&mut self) -> Result<()> {
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"{VERSION}","capabilities":{{}},"clientInfo":{{"name":"loadgen","version":"1"}}}}}}"#
        );
        let (status, headers, bytes) = self.post(body).await?;
        if !status.is_success() {
            bail!(
                "initialize: HTTP {status}: {}",
                String::from_utf8_lossy(&bytes)
            );
        }
        let session = headers
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .ok_or_else(|| anyhow!("initialize: no Mcp-Session-Id header"))?;
        self.session = Some(session.to_string());
        let result = json_of(&bytes)?;
        if let Some(version) = result["result"]["protocolVersion"].as_str() {
            self.version = version.to_string();
        }
        let (status, _, bytes) = self
            .post(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.into())
            .await?;
        if !status.is_success() {
            bail!(
                "notifications/initialized: HTTP {status}: {}",
                String::from_utf8_lossy(&bytes)
            );
        }
        Ok(())
    }

    /// One `tools/call` of `echo`; returns whether the answer was right, and the body.
    async fn call(&mut self) -> Result<(bool, Bytes)> {
        let id = self.next_id;
        self.next_id += 1;
        if self.jsonrpc {
            let body = format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"echo","params":{{"text":"{}"}}}}"#,
                mcp_bench::ECHO_TEXT
            );
            let (status, _, bytes) = self.post(body).await?;
            let ok = status == http::StatusCode::OK && contains(&bytes, EXPECT_JSONRPC.as_bytes());
            return Ok((ok, bytes));
        }
        let meta = if self.modern {
            r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"#
        } else {
            ""
        };
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{{meta}"name":"echo","arguments":{{"text":"{}"}}}}}}"#,
            mcp_bench::ECHO_TEXT
        );
        let (status, _, bytes) = self.post(body).await?;
        let expect = if self.outline { EXPECT_LINK } else { EXPECT };
        let ok = status == http::StatusCode::OK && contains(&bytes, expect.as_bytes());
        Ok((ok, bytes))
    }
}

/// How much earlier than a paced request is due its task's timer is set (then it yields).
const TIMER_SLACK: Duration = Duration::from_micros(1500);

const EXPECT: &str = r#"{"type":"text","text":"hello"}"#;
const EXPECT_JSONRPC: &str = r#""result":"hello""#;
const EXPECT_LINK: &str = r#"{"type":"resource_link","uri":"mcp-result://"#;

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// The JSON-RPC message of a body: the body itself, or the last SSE `data:` line.
fn json_of(bytes: &[u8]) -> Result<serde_json::Value> {
    let text = std::str::from_utf8(bytes)?;
    let json = if text.trim_start().starts_with('{') {
        text.to_string()
    } else {
        text.lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .map(str::trim)
            .rfind(|d| d.starts_with('{'))
            .ok_or_else(|| anyhow!("no JSON in body: {text:?}"))?
            .to_string()
    };
    serde_json::from_str(&json).with_context(|| format!("body: {text:?}"))
}

async fn connect(args: &Args) -> Result<Conn> {
    let mut conn = Conn::open(args.addr).await?;
    match args.mode.as_str() {
        "session" => conn.initialize().await?,
        "stateless2026" | "outline2026" => {
            conn.modern = true;
            conn.outline = args.mode == "outline2026";
            conn.version = "2026-07-28".into();
        }
        "jsonrpc" => conn.jsonrpc = true,
        _ => {}
    }
    Ok(conn)
}

/// Checks one call's answer strictly: status, id, and the exact result.
async fn check(args: &Args) -> Result<()> {
    let mut conn = connect(args).await?;
    for _ in 0..3 {
        let id = conn.next_id;
        let (ok, bytes) = conn.call().await?;
        let message = json_of(&bytes)?;
        let expected = serde_json::json!({"type": "text", "text": mcp_bench::ECHO_TEXT});
        let content = &message["result"]["content"];
        let right = if conn.jsonrpc {
            message["result"] == mcp_bench::ECHO_TEXT
        } else if conn.outline {
            content.as_array().map(Vec::len) == Some(2) && content[1]["type"] == "resource_link"
        } else {
            content.as_array().map(Vec::len) == Some(1) && content[0] == expected
        };
        if !ok || message["jsonrpc"] != "2.0" || message["id"] != id || !right {
            bail!(
                "wrong answer to tools/call id {id}: {}",
                String::from_utf8_lossy(&bytes)
            );
        }
        if id == 1 {
            println!(
                "{}",
                String::from_utf8_lossy(&bytes)
                    .trim_end()
                    .replace('\n', "\\n")
            );
        }
    }
    Ok(())
}

/// CPU time a process has used so far, in clock ticks.
#[derive(Clone, Copy)]
struct CpuTicks {
    user: u64,
    system: u64,
}

impl CpuTicks {
    fn total(self) -> u64 {
        self.user + self.system
    }
}

fn cpu_ticks(pid: u32) -> Option<CpuTicks> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = after.split_whitespace().collect();
    // fields[0] is field 3 (state); utime is field 14, stime 15.
    Some(CpuTicks {
        user: fields[11].parse().ok()?,
        system: fields[12].parse().ok()?,
    })
}

fn status_kib(pid: u32, key: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find(|l| l.starts_with(key))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

fn ticks_per_sec() -> u64 {
    // SC_CLK_TCK is 100 on every Linux this runs on.
    100
}

async fn load(args: &Args) -> Result<()> {
    let mut conns = Vec::with_capacity(args.conns);
    for _ in 0..args.conns {
        conns.push(connect(args).await?);
    }
    let start = Instant::now();
    let measure_from = start + Duration::from_secs_f64(args.warmup);
    let end = measure_from + Duration::from_secs_f64(args.secs);
    let (cpu_tx, cpu_rx) = tokio::sync::oneshot::channel();
    let (pid, pid2) = (args.pid, args.pid2);
    tokio::task::spawn_local(async move {
        tokio::time::sleep_until(measure_from.into()).await;
        let _ = cpu_tx.send((pid.and_then(cpu_ticks), pid2.and_then(cpu_ticks)));
    });
    let mut tasks = Vec::new();
    // Paced: each connection sends every `interval`, the connections staggered evenly.
    let interval = args
        .rate
        .map(|rate| Duration::from_secs_f64(args.conns as f64 / rate));
    for (i, mut conn) in conns.into_iter().enumerate() {
        let mut next = interval.map(|d| start + d.mul_f64(i as f64 / args.conns as f64));
        tasks.push(tokio::task::spawn_local(async move {
            let mut histogram = Histogram::<u64>::new_with_bounds(1, 60_000_000, 3).unwrap();
            let (mut requests, mut errors) = (0u64, 0u64);
            let mut first_error = None;
            loop {
                // Paced: when the last answer came after this request was due, the latency
                // runs from when it was due, so a server that falls behind pays for the
                // requests it delayed (no coordinated omission); else from when it is sent
                // (tokio's timer wakes up to a millisecond late, which is not the server's).
                let sent = match (next.as_mut(), interval) {
                    (Some(due), Some(interval)) => {
                        let this = *due;
                        *due += interval;
                        if this >= end {
                            break;
                        }
                        if Instant::now() >= this {
                            this
                        } else {
                            // tokio's timer has a millisecond's resolution: sleep to just short
                            // of the time, then yield until it, so requests are spread evenly
                            // and not sent in bursts on each timer tick.
                            tokio::time::sleep_until((this - TIMER_SLACK).into()).await;
                            while Instant::now() < this {
                                tokio::task::yield_now().await;
                            }
                            Instant::now()
                        }
                    }
                    _ => Instant::now(),
                };
                if sent >= end {
                    break;
                }
                let result = conn.call().await;
                let done = Instant::now();
                if sent < measure_from {
                    continue;
                }
                requests += 1;
                match result {
                    Ok((true, _)) => {
                        let _ = histogram.record((done - sent).as_micros().max(1) as u64);
                    }
                    Ok((false, body)) => {
                        errors += 1;
                        first_error
                            .get_or_insert_with(|| String::from_utf8_lossy(&body).into_owned());
                    }
                    Err(error) => {
                        errors += 1;
                        first_error.get_or_insert_with(|| error.to_string());
                        break;
                    }
                }
            }
            (histogram, requests, errors, first_error)
        }));
    }
    let mut histogram = Histogram::<u64>::new_with_bounds(1, 60_000_000, 3).unwrap();
    let (mut requests, mut errors, mut first_error) = (0, 0, None);
    for task in tasks {
        let (h, r, e, f) = task.await?;
        histogram.add(h)?;
        requests += r;
        errors += e;
        if first_error.is_none() {
            first_error = f;
        }
    }
    let cpu_end = args.pid.and_then(cpu_ticks);
    let cpu2_end = args.pid2.and_then(cpu_ticks);
    let (cpu_start, cpu2_start) = cpu_rx.await.unwrap_or((None, None));
    let secs = args.secs;
    let ok = requests - errors;
    let us_per_req = |ticks: u64| ticks as f64 * 1e6 / ticks_per_sec() as f64 / ok.max(1) as f64;
    let mut line = format!(
        "requests={requests} errors={errors} secs={secs} rps={:.0} p50_us={} p99_us={} p999_us={} max_us={}",
        ok as f64 / secs,
        histogram.value_at_quantile(0.50),
        histogram.value_at_quantile(0.99),
        histogram.value_at_quantile(0.999),
        histogram.max(),
    );
    if let (Some(pid), Some(a), Some(b)) = (args.pid, cpu_start, cpu_end) {
        line += &format!(
            " cpu_us_per_req={:.1} user_us_per_req={:.2} sys_us_per_req={:.2} rss_kib={} hwm_kib={}",
            us_per_req(b.total() - a.total()),
            us_per_req(b.user - a.user),
            us_per_req(b.system - a.system),
            status_kib(pid, "VmRSS:").unwrap_or(0),
            status_kib(pid, "VmHWM:").unwrap_or(0),
        );
    }
    if let (Some(a), Some(b)) = (cpu2_start, cpu2_end) {
        line += &format!(" cpu2_us_per_req={:.1}", us_per_req(b.total() - a.total()));
    }
    println!("{line}");
    if let Some(error) = first_error {
        eprintln!("first error: {error}");
    }
    if errors > 0 || ok == 0 {
        bail!("{errors} wrong answers out of {requests}");
    }
    Ok(())
}

/// Creates `count` sessions over `conns` connections (initialize + initialized each).
async fn sessions(args: &Args) -> Result<()> {
    let conns = args.conns.max(1);
    let cpu_start = args.pid.and_then(cpu_ticks);
    let start = Instant::now();
    let mut tasks = Vec::new();
    for i in 0..conns {
        let share = args.count / conns + usize::from(i < args.count % conns);
        let addr = args.addr;
        tasks.push(tokio::task::spawn_local(async move {
            let mut conn = Conn::open(addr).await?;
            for _ in 0..share {
                conn.session = None;
                conn.initialize().await?;
            }
            anyhow::Ok(())
        }));
    }
    for task in tasks {
        task.await??;
    }
    let secs = start.elapsed().as_secs_f64();
    let mut line = format!(
        "sessions={} secs={secs:.3} per_sec={:.0}",
        args.count,
        args.count as f64 / secs
    );
    if let (Some(a), Some(b)) = (cpu_start, args.pid.and_then(cpu_ticks)) {
        let cpu_us = (b.total() - a.total()) as f64 * 1e6 / ticks_per_sec() as f64;
        line += &format!(
            " cpu_us_per_session={:.1}",
            cpu_us / args.count.max(1) as f64
        );
    }
    println!("{line}");
    Ok(())
}

fn main() -> Result<()> {
    let (command, args) = parse()?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let local = tokio::task::LocalSet::new();
    local.block_on(&runtime, async {
        match command.as_str() {
            "check" => check(&args).await,
            "load" => load(&args).await,
            "sessions" => sessions(&args).await,
            other => bail!("unknown command {other}: check|load|sessions"),
        }
    })
}
