//! Our client (`mcp_runtime::client`) against rmcp 3.11's Streamable HTTP server
//! (`rmcp-interop-server`, the official Rust SDK), in every era each server speaks: issue #21,
//! "our client against other servers". `tests/rmcp-peer/run.sh` builds and runs it.
//!
//! Servers: rmcp's defaults (sessions for the legacy revisions, 2026-07-28 served without one),
//! legacy-only ones (up to 2025-11-25, 2025-06-18, 2025-03-26) and rmcp's sessionless HTTP mode;
//! clients in `Era::Auto`, `Era::Legacy` and `Era::Stateless`.
//!
//! Each scenario starts the server on a free 127.0.0.1 port, connects one client and checks: the
//! era chosen, the server's info and capabilities, `tools/list` over three pages, `tools/call`
//! (text, `structuredContent`, `isError` as `ClientError::Tool`, an unknown tool as `-32602`),
//! progress notifications reaching the handler, an elicitation answered by the handler (an
//! `InputRequiredResult` round in 2026-07-28, a request on the call's stream in a session),
//! `ping`, `prompts/get`, `resources/read` (and an unknown resource), and `close()` (in a
//! session, a DELETE after which the server no longer knows the session). Each check prints a
//! line; the last line is `N passed, M failed`, and the exit status is 1 on any failure.
//!
//! usage: rmcp-interop [--server PATH] [--url URL] [--only NAME]
//! - `--server PATH`: the server binary (default: `rmcp-interop-server` beside this one).
//! - `--url URL`: no server is started; every scenario connects to URL (a negative control:
//!   nothing listening there must fail).
//! - `--only NAME`: the scenarios whose name contains NAME.

use mcp_runtime::client::{Client, ClientError, ClientHandler, Era};
use mcp_runtime::{BoxFuture, RpcError};
use serde_json::{json, Value};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The longest one call may take before the check fails (the server is local).
const CALL_TIMEOUT: Duration = Duration::from_secs(10);

/// One run: a server configuration and the era the client asks for.
struct Scenario {
    name: &'static str,
    /// The server's flags beyond `--addr`.
    server: &'static [&'static str],
    /// The era asked for.
    era: Era,
    /// What should come of it: the era chosen and the protocol version, or `None` when
    /// `connect` must fail.
    expect: Option<(Era, &'static str)>,
}

const SCENARIOS: &[Scenario] = &[
    // rmcp's defaults: sessions for the legacy revisions, 2026-07-28 served statelessly.
    Scenario {
        name: "sessions-server/auto",
        server: &["--http", "sessions"],
        era: Era::Auto,
        expect: Some((Era::Stateless, "2026-07-28")),
    },
    Scenario {
        name: "sessions-server/legacy",
        server: &["--http", "sessions"],
        era: Era::Legacy,
        expect: Some((Era::Legacy, "2025-11-25")),
    },
    Scenario {
        name: "sessions-server/stateless",
        server: &["--http", "sessions"],
        era: Era::Stateless,
        expect: Some((Era::Stateless, "2026-07-28")),
    },
    // A legacy-only rmcp server: server/discover refuses 2026-07-28, so Auto falls back.
    Scenario {
        name: "legacy-only-server/auto",
        server: &["--http", "sessions", "--max-version", "2025-11-25"],
        era: Era::Auto,
        expect: Some((Era::Legacy, "2025-11-25")),
    },
    // Older servers: the client asks for 2025-11-25 and takes the version the server offers.
    Scenario {
        name: "2025-06-18-server/auto",
        server: &["--http", "sessions", "--max-version", "2025-06-18"],
        era: Era::Auto,
        expect: Some((Era::Legacy, "2025-06-18")),
    },
    Scenario {
        name: "2025-03-26-server/legacy",
        server: &["--http", "sessions", "--max-version", "2025-03-26"],
        era: Era::Legacy,
        expect: Some((Era::Legacy, "2025-03-26")),
    },
    Scenario {
        name: "legacy-only-server/stateless",
        server: &["--http", "sessions", "--max-version", "2025-11-25"],
        era: Era::Stateless,
        expect: None,
    },
    // rmcp's stateless HTTP mode (legacy_session_mode = false, JSON answers): initialize is
    // answered without a session.
    Scenario {
        name: "sessionless-server/auto",
        server: &["--http", "stateless"],
        era: Era::Auto,
        expect: Some((Era::Stateless, "2026-07-28")),
    },
    Scenario {
        name: "sessionless-server/legacy",
        server: &["--http", "stateless"],
        era: Era::Legacy,
        expect: Some((Era::Legacy, "2025-11-25")),
    },
];

/// The tally, and one line per check.
#[derive(Default)]
struct Report {
    passed: usize,
    failed: usize,
}

impl Report {
    fn check(&mut self, scenario: &str, what: &str, outcome: Result<(), String>) {
        match outcome {
            Ok(()) => {
                self.passed += 1;
                println!("ok   {scenario}: {what}");
            }
            Err(why) => {
                self.failed += 1;
                println!("FAIL {scenario}: {what}: {why}");
            }
        }
    }
}

/// `Ok` when `cond`, else the message.
fn ensure(cond: bool, message: impl FnOnce() -> String) -> Result<(), String> {
    if cond {
        Ok(())
    } else {
        Err(message())
    }
}

/// The user: accepts every elicitation with the name "Ada", and keeps what the server sent.
#[derive(Clone, Default)]
struct User {
    elicited: Arc<Mutex<Vec<Value>>>,
    notifications: Arc<Mutex<Vec<(String, Value)>>>,
}

impl ClientHandler for User {
    fn capabilities(&self) -> Value {
        json!({"elicitation": {"form": {}}})
    }

    fn elicit<'a>(&'a self, params: &'a Value) -> BoxFuture<'a, Result<Value, RpcError>> {
        self.elicited.lock().unwrap().push(params.clone());
        Box::pin(async { Ok(json!({"action": "accept", "content": {"name": "Ada"}})) })
    }

    fn notification(&self, method: &str, params: &Value) {
        self.notifications
            .lock()
            .unwrap()
            .push((method.to_owned(), params.clone()));
    }
}

/// The server process, killed when dropped.
struct Server {
    child: Child,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `binary` with `flags` on a free loopback port; its URL once it listens.
fn start(binary: &str, flags: &[&str]) -> Result<(Server, String), String> {
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map_err(|e| format!("no free port: {e}"))?
        .port();
    let addr = format!("127.0.0.1:{port}");
    let child = Command::new(binary)
        .arg("--addr")
        .arg(&addr)
        .args(flags)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("{binary}: {e}"))?;
    let mut server = Server { child };
    let deadline = Instant::now() + Duration::from_secs(20);
    while TcpStream::connect(&addr).is_err() {
        if let Ok(Some(status)) = server.child.try_wait() {
            return Err(format!("{binary} exited ({status}) before listening"));
        }
        if Instant::now() > deadline {
            return Err(format!("{binary} did not listen on {addr} within 20 s"));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Ok((server, format!("http://{addr}/mcp")))
}

/// The joined text blocks of a result's `content`.
fn text(result: &Value) -> String {
    result["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|block| block["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

/// A raw POST of `ping` in session `session` (HTTP/1.1 on a fresh connection): the status.
fn post_in_session(url: &str, session: &str, version: &str) -> Result<u16, String> {
    let authority = url
        .strip_prefix("http://")
        .and_then(|rest| rest.split('/').next())
        .ok_or_else(|| format!("URL {url}"))?;
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {authority}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMcp-Session-Id: {session}\r\n\
         Mcp-Protocol-Version: {version}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let mut stream = TcpStream::connect(authority).map_err(|e| e.to_string())?;
    stream
        .set_read_timeout(Some(CALL_TIMEOUT))
        .map_err(|e| e.to_string())?;
    stream
        .write_all(request.as_bytes())
        .map_err(|e| e.to_string())?;
    let mut head = [0u8; 64];
    let n = stream.read(&mut head).map_err(|e| e.to_string())?;
    let line = String::from_utf8_lossy(&head[..n]);
    line.split_whitespace()
        .nth(1)
        .and_then(|code| code.parse().ok())
        .ok_or_else(|| format!("not an HTTP status line: {line:?}"))
}

async fn run(scenario: &Scenario, url: &str, report: &mut Report) {
    let name = scenario.name;
    let user = User::default();
    let connected = Client::builder(url)
        .era(scenario.era)
        .timeout(CALL_TIMEOUT)
        .handler(user.clone())
        .client_info("rmcp-interop", "1")
        .connect()
        .await;
    let Some((era, version)) = scenario.expect else {
        report.check(
            name,
            &format!("connect({:?}) is refused", scenario.era),
            match connected {
                Ok(client) => Err(format!(
                    "connected in {:?} {}",
                    client.era(),
                    client.protocol_version()
                )),
                // Refused by the server (its answer), not a broken connection.
                Err(ClientError::Protocol(_) | ClientError::Rpc(_)) => Ok(()),
                Err(other) => Err(format!("failed, but not by the server's answer: {other}")),
            },
        );
        return;
    };
    let client = match connected {
        Ok(client) => client,
        Err(error) => {
            report.check(
                name,
                &format!("connect({:?})", scenario.era),
                Err(error.to_string()),
            );
            return;
        }
    };
    report.check(
        name,
        &format!("era chosen: {era:?} {version}"),
        ensure(
            client.era() == era && client.protocol_version() == version,
            || format!("{:?} {}", client.era(), client.protocol_version()),
        ),
    );
    let legacy = era == Era::Legacy;
    let sessions = !scenario.server.contains(&"stateless");
    report.check(
        name,
        if legacy && sessions {
            "a session id"
        } else {
            "no session id"
        },
        ensure(
            client.session_id().is_some() == (legacy && sessions),
            || format!("{:?}", client.session_id()),
        ),
    );
    let info = client.server_info();
    report.check(
        name,
        "server info",
        ensure(
            info["name"] == "rmcp-interop-server" && info["version"] == "3.11",
            || info.to_string(),
        ),
    );
    let capabilities = client.server_capabilities();
    report.check(
        name,
        "capabilities: tools, prompts, resources",
        ensure(
            ["tools", "prompts", "resources"]
                .iter()
                .all(|c| capabilities[*c].is_object()),
            || capabilities.to_string(),
        ),
    );

    // tools/list: one page, then all of them.
    report.check(
        name,
        "tools/list first page: 2 tools, nextCursor",
        match client.list_tools(None).await {
            Ok(page) => ensure(
                page.items.len() == 2 && page.next_cursor.as_deref() == Some("2"),
                || format!("{} items, next {:?}", page.items.len(), page.next_cursor),
            ),
            Err(e) => Err(e.to_string()),
        },
    );
    report.check(
        name,
        "tools/list over 3 pages: echo add fail progress ask",
        match client.list_tools_all().await {
            Ok(tools) => {
                let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
                ensure(names == ["echo", "add", "fail", "progress", "ask"], || {
                    format!("{names:?}")
                })
                .and_then(|()| {
                    ensure(tools[1]["outputSchema"]["type"] == "object", || {
                        format!("add has no outputSchema: {}", tools[1])
                    })
                })
            }
            Err(e) => Err(e.to_string()),
        },
    );

    // tools/call
    report.check(
        name,
        "tools/call echo: one text block",
        match client.call_tool("echo", json!({"text": "hello"})).await {
            Ok(result) => ensure(
                result["content"] == json!([{"type": "text", "text": "hello"}]),
                || result.to_string(),
            ),
            Err(e) => Err(e.to_string()),
        },
    );
    report.check(
        name,
        "tools/call add: structuredContent {sum: 5} and its text",
        match client.call_tool("add", json!({"a": 2, "b": 3})).await {
            Ok(result) => ensure(
                result["structuredContent"] == json!({"sum": 5})
                    && serde_json::from_str::<Value>(&text(&result)).ok()
                        == Some(json!({"sum": 5})),
                || result.to_string(),
            ),
            Err(e) => Err(e.to_string()),
        },
    );
    report.check(
        name,
        "tools/call fail: ClientError::Tool (isError)",
        match client.call_tool("fail", json!({})).await {
            Err(ClientError::Tool(result)) => ensure(
                result["isError"] == true && text(&result) == "failed on purpose",
                || result.to_string(),
            ),
            Err(e) => Err(format!("another error: {e}")),
            Ok(result) => Err(format!("succeeded: {result}")),
        },
    );
    report.check(
        name,
        "tools/call of an unknown tool: JSON-RPC -32602",
        match client.call_tool("no-such-tool", json!({})).await {
            Err(ClientError::Rpc(error)) => ensure(error.code == -32602, || {
                format!("{} {}", error.code, error.message)
            }),
            Err(e) => Err(format!("another error: {e}")),
            Ok(result) => Err(format!("succeeded: {result}")),
        },
    );
    user.notifications.lock().unwrap().clear();
    report.check(
        name,
        "tools/call progress: 3 notifications/progress to the handler, then the result",
        match client
            .request(
                "tools/call",
                json!({"name": "progress", "arguments": {"steps": 3}, "_meta": {"progressToken": "p-1"}}),
            )
            .await
        {
            Ok(result) => {
                let seen = user.notifications.lock().unwrap().clone();
                let progress: Vec<(Value, Value)> = seen
                    .iter()
                    .filter(|(method, _)| method == "notifications/progress")
                    .map(|(_, p)| (p["progressToken"].clone(), p["progress"].clone()))
                    .collect();
                ensure(text(&result) == "done", || result.to_string()).and_then(|()| {
                    ensure(
                        progress
                            == [
                                (json!("p-1"), json!(1.0)),
                                (json!("p-1"), json!(2.0)),
                                (json!("p-1"), json!(3.0)),
                            ],
                        || format!("notifications seen: {seen:?}"),
                    )
                })
            }
            Err(e) => Err(e.to_string()),
        },
    );
    // rmcp's sessionless HTTP mode sends its elicitation/create on the call's stream but
    // refuses every JSON-RPC response POSTed to it (400, -32600 "stateless server does not
    // accept JSON-RPC responses"): the call must fail at once, not hang.
    let unanswerable = legacy && !sessions;
    report.check(
        name,
        if unanswerable {
            "tools/call ask: the server refuses the answer to its elicitation: the call fails at once"
        } else if legacy {
            "tools/call ask: elicitation/create on the stream, answered by the handler"
        } else {
            "tools/call ask: InputRequiredResult, answered by the handler, retried"
        },
        match client.call_tool("ask", json!({})).await {
            Err(ClientError::Protocol(_) | ClientError::Rpc(_)) if unanswerable => {
                let elicited = user.elicited.lock().unwrap().len();
                ensure(elicited == 1, || format!("{elicited} elicitations seen"))
            }
            Err(e) if unanswerable => Err(format!("another error: {e}")),
            Ok(result) if unanswerable => Err(format!("succeeded: {result}")),
            Ok(result) => {
                let elicited = user.elicited.lock().unwrap().clone();
                ensure(text(&result) == "hello, Ada", || result.to_string()).and_then(|()| {
                    ensure(
                        elicited.len() == 1 && elicited[0]["message"] == "What is your name?",
                        || format!("elicitations seen: {elicited:?}"),
                    )
                })
            }
            Err(e) => Err(e.to_string()),
        },
    );

    // ping: a session's method; 2026-07-28 removed it.
    report.check(
        name,
        if legacy {
            "ping"
        } else {
            "ping is Unsupported in 2026-07-28"
        },
        match (client.ping().await, legacy) {
            (Ok(()), true) | (Err(ClientError::Unsupported(_)), false) => Ok(()),
            (outcome, _) => Err(format!("{outcome:?}")),
        },
    );

    // Prompts and resources.
    report.check(
        name,
        "prompts/list and prompts/get greet",
        match client.list_prompts_all().await {
            Ok(prompts) if prompts.len() == 1 && prompts[0]["name"] == "greet" => {
                match client.get_prompt("greet", json!({"name": "Ada"})).await {
                    Ok(prompt) => ensure(
                        prompt["messages"]
                            == json!([{"role": "user", "content": {"type": "text", "text": "Hello, Ada!"}}]),
                        || prompt.to_string(),
                    ),
                    Err(e) => Err(e.to_string()),
                }
            }
            Ok(prompts) => Err(format!("{prompts:?}")),
            Err(e) => Err(e.to_string()),
        },
    );
    report.check(
        name,
        "resources/list and resources/read mem://readme",
        match client.list_resources_all().await {
            Ok(resources) if resources.len() == 1 && resources[0]["uri"] == "mem://readme" => {
                match client.read_resource("mem://readme").await {
                    Ok(read) => ensure(
                        read["contents"]
                            == json!([{"uri": "mem://readme", "mimeType": "text/plain", "text": "served by rmcp"}]),
                        || read.to_string(),
                    ),
                    Err(e) => Err(e.to_string()),
                }
            }
            Ok(resources) => Err(format!("{resources:?}")),
            Err(e) => Err(e.to_string()),
        },
    );
    // -32002 in a session; 2026-07-28 (SEP-2164) made it -32602.
    let not_found = if legacy { -32002 } else { -32602 };
    report.check(
        name,
        &format!("resources/read of an unknown URI: JSON-RPC {not_found}"),
        match client.read_resource("mem://nothing").await {
            Err(ClientError::Rpc(error)) => ensure(error.code == not_found, || {
                format!("{} {}", error.code, error.message)
            }),
            Err(e) => Err(format!("another error: {e}")),
            Ok(result) => Err(format!("succeeded: {result}")),
        },
    );

    // close(): a session's DELETE, after which the server no longer knows the session.
    let session = client.session_id().map(str::to_owned);
    if let Some(session) = &session {
        // The control of the check below: the same raw POST is answered while the session
        // lives.
        report.check(
            name,
            "a raw POST in the session is answered (200) before close()",
            match post_in_session(url, session, version) {
                Ok(200) => Ok(()),
                Ok(status) => Err(format!("HTTP {status}")),
                Err(e) => Err(e),
            },
        );
    }
    let closed = client.close().await;
    report.check(
        name,
        match session {
            Some(_) => "close(): DELETE, then the session is gone (404)",
            None => "close()",
        },
        match (closed, session) {
            (Err(e), _) => Err(e.to_string()),
            (Ok(()), None) => Ok(()),
            (Ok(()), Some(session)) => match post_in_session(url, &session, version) {
                Ok(404) => Ok(()),
                Ok(status) => Err(format!("the closed session still answers: HTTP {status}")),
                Err(e) => Err(e),
            },
        },
    );
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let mut server_binary = None;
    let mut fixed_url = None;
    let mut only = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--server" => server_binary = args.next(),
            "--url" => fixed_url = args.next(),
            "--only" => only = args.next(),
            other => {
                eprintln!("unknown argument {other}; usage: rmcp-interop [--server PATH] [--url URL] [--only NAME]");
                std::process::exit(2);
            }
        }
    }
    let server_binary = server_binary.unwrap_or_else(|| {
        let me = std::env::current_exe().expect("the driver's own path");
        me.with_file_name("rmcp-interop-server")
            .to_string_lossy()
            .into_owned()
    });
    let mut report = Report::default();
    for scenario in SCENARIOS {
        if only
            .as_deref()
            .is_some_and(|only| !scenario.name.contains(only))
        {
            continue;
        }
        let (_server, url) = match &fixed_url {
            Some(url) => (None, url.clone()),
            None => match start(&server_binary, scenario.server) {
                Ok((server, url)) => (Some(server), url),
                Err(why) => {
                    report.check(scenario.name, "the rmcp server starts", Err(why));
                    continue;
                }
            },
        };
        run(scenario, &url, &mut report).await;
    }
    println!("{} passed, {} failed", report.passed, report.failed);
    if report.failed > 0 || report.passed == 0 {
        std::process::exit(1);
    }
}
