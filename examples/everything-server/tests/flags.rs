//! The everything server's settings as an operator meets them: `--help` lists every flag with
//! its `MCP_*` variable and default, a bad flag or variable stops the process with status 2
//! and one line naming it, and flags and variables given together reach the running server.

mod common;

use serde_json::{json, Value};
use std::io::Read;
use std::net::TcpStream;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

const BINARY: &str = env!("CARGO_BIN_EXE_everything-server");

/// The binary run to its end with `args` and the variables `env` (and no other `MCP_*` or
/// `RUST_LOG` of this process's environment).
fn run(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(BINARY);
    for (var, _) in std::env::vars() {
        if var.starts_with("MCP_") || var == "RUST_LOG" {
            command.env_remove(var);
        }
    }
    command
        .args(args)
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .output()
        .expect("the binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn version_names_the_server_from_its_contract_and_the_runtime() {
    for flag in ["--version", "-V"] {
        let output = run(&[flag], &[]);
        assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
        let line = text(&output.stdout);
        assert!(
            line.starts_with("mcp-conformance-test-server 1.0.0 (")
                && line.contains(concat!("(mcp-runtime ", env!("CARGO_PKG_VERSION")))
                && line.contains("2026-07-28)\n"),
            "{line}"
        );
    }
}

#[test]
fn help_lists_the_flags_their_variables_and_defaults() {
    let output = run(&["--help"], &[]);
    assert_eq!(output.status.code(), Some(0));
    let help = text(&output.stdout);
    for needle in [
        // Groups.
        "Transport:",
        "Endpoints (HTTP):",
        "Limits:",
        "Sessions (HTTP):",
        "Streams:",
        "Request state",
        "Tasks:",
        "Authorization",
        "Logging:",
        // Flags, their variables and defaults, old and new.
        "--addr <HOST:PORT>",
        "[env: MCP_ADDR] [default: 127.0.0.1:8080]",
        "--stdio",
        "--jsonrpc <PATH>",
        "[env: MCP_JSONRPC_PATH]",
        "--legacy-sse",
        "[env: MCP_LEGACY_SSE] [default: off]",
        "--server-card",
        "[env: MCP_SERVER_CARD]",
        "--public-url <URL>",
        "[env: MCP_PUBLIC_URL]",
        "--allowed-hosts <LIST>",
        "[env: MCP_ALLOWED_HOSTS] [default: localhost,127.0.0.1,::1]",
        "--body-limit <SIZE>",
        "[env: MCP_BODY_LIMIT] [default: 4MiB]",
        "--max-sessions <N>",
        "[env: MCP_MAX_SESSIONS] [default: 100000]",
        "--session-idle-timeout <DURATION>",
        "[env: MCP_SESSION_IDLE_TIMEOUT] [default: 30m]",
        "--request-state-key-file <PATH>",
        "MCP_REQUEST_STATE_KEY",
        "--task-poll-interval <DURATION>",
        "[default: 250ms]",
        "--auth-issuer <URL>",
        "[env: MCP_AUTH_ISSUER]",
        "--log-level <FILTER>",
        "[env: RUST_LOG] [default: info]",
        "--log-format <FORMAT>",
        "[env: MCP_LOG_FORMAT] [default: text]",
    ] {
        assert!(help.contains(needle), "--help lacks {needle:?}:\n{help}");
    }
    assert!(output.stderr.is_empty(), "{}", text(&output.stderr));
}

#[test]
fn a_bad_value_exits_2_naming_the_flag_or_variable() {
    for (args, env, expected) in [
        (
            &["--body-limit", "0"][..],
            &[][..],
            "error: --body-limit 0: must be at least 1 byte",
        ),
        (
            &[],
            &[("MCP_MAX_SESSIONS", "abc")],
            "error: MCP_MAX_SESSIONS=abc: not a number",
        ),
        (
            &["--session-idle-timeout", "30"],
            &[],
            "error: --session-idle-timeout 30: 30 needs a unit",
        ),
        (
            &["--stdio", "--jsonrpc", "/rpc"],
            &[],
            "error: --jsonrpc is for HTTP: it cannot be combined with --stdio",
        ),
        // The runtime's `jwt` feature is off unless another package of the build turns it
        // on: without it, that comes first (the missing issuer is the next mistake).
        (&["--auth-scopes", "mcp"], &[], "error: --auth-scopes"),
        (
            &[],
            &[("MCP_LEGACY_SSE", "maybe")],
            "error: MCP_LEGACY_SSE=maybe: expected 1, true, on or yes",
        ),
        (&["--bogus"], &[], "error: unknown argument `--bogus`"),
    ] {
        let output = run(args, env);
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?} {env:?}: {stderr}");
        assert!(
            stderr.starts_with(expected),
            "{args:?} {env:?}:\n  got      {stderr}\n  expected {expected}…"
        );
        if args.first() == Some(&"--auth-scopes") {
            assert!(
                stderr.contains("authorization needs an issuer")
                    || stderr.contains("built without mcp-runtime's `jwt` feature"),
                "{stderr}"
            );
        }
        assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
        assert!(output.stdout.is_empty());
    }
}

/// The server process, killed when dropped.
struct Running {
    child: Child,
    port: u16,
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts the binary on a free loopback port with `args` and `env`, and waits until it
/// accepts connections.
fn start(args: &[&str], env: &[(&str, &str)]) -> Running {
    let port = common::free_port();
    let addr = format!("127.0.0.1:{port}");
    let child = Command::new(BINARY)
        .args(["--addr", &addr])
        .args(args)
        .envs(env.iter().copied())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the server starts");
    let mut running = Running { child, port };
    let deadline = Instant::now() + Duration::from_secs(30);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        if let Some(status) = running.child.try_wait().unwrap() {
            panic!("the server exited: {status}");
        }
        assert!(Instant::now() < deadline, "the server did not listen");
        std::thread::sleep(Duration::from_millis(50));
    }
    running
}

/// One HTTP/1.1 POST of `body` to `path` with `Host: host` and the extra header lines
/// `headers` (each ending in CRLF): the status, the head and the body.
fn post(
    running: &Running,
    path: &str,
    host: &str,
    headers: &str,
    body: &str,
) -> (u16, String, String) {
    let mut all = vec![
        ("Host", host),
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
    ];
    all.extend(
        headers
            .split("\r\n")
            .filter_map(|line| line.split_once(": ")),
    );
    common::http(running.port, "POST", path, &all, body)
}

#[test]
fn flags_and_variables_reach_the_running_server() {
    let running = start(
        &[
            "--allowed-hosts",
            "mcp.test",
            "--page-size",
            "1",
            "--body-limit",
            "2KiB",
        ],
        &[
            ("MCP_JSONRPC_PATH", "/rpc"),
            ("MCP_LOG_FORMAT", "json"),
            ("RUST_LOG", "info"),
            // A flag wins over its variable.
            ("MCP_PAGE_SIZE", "50"),
            ("MCP_LIST_CACHE", "1m,private"),
        ],
    );
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "flags-test", "version": "1"}}})
    .to_string();

    // --allowed-hosts replaced the loopback names.
    let (status, _, _) = post(
        &running,
        "/mcp",
        &format!("127.0.0.1:{}", running.port),
        "",
        &init,
    );
    assert_eq!(status, 403);

    let (status, head, _) = post(&running, "/mcp", "mcp.test", "", &init);
    assert_eq!(status, 200, "{head}");
    let session = common::session_id(&head).expect("a session id");

    // --page-size 1: one tool a page.
    let (status, _, body) = post(
        &running,
        "/mcp",
        "mcp.test",
        &format!("Mcp-Session-Id: {session}\r\nMcp-Protocol-Version: 2025-11-25\r\n"),
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
    );
    assert_eq!(status, 200);
    let page: Value = serde_json::from_str(&body).unwrap_or_else(|e| panic!("{e}: {body}"));
    assert_eq!(
        page["result"]["tools"].as_array().map(Vec::len),
        Some(1),
        "{page}"
    );
    assert!(page["result"]["nextCursor"].is_string(), "{page}");

    // --body-limit 2KiB.
    let big = format!(
        r#"{{"jsonrpc":"2.0","id":3,"method":"ping","params":{{"pad":"{}"}}}}"#,
        "x".repeat(4096)
    );
    let (status, _, _) = post(
        &running,
        "/mcp",
        "mcp.test",
        &format!("Mcp-Session-Id: {session}\r\n"),
        &big,
    );
    assert_eq!(status, 413);

    // MCP_JSONRPC_PATH=/rpc.
    let (status, _, body) = post(
        &running,
        "/rpc",
        "mcp.test",
        "",
        r#"{"jsonrpc":"2.0","id":4,"method":"rpc.discover"}"#,
    );
    assert_eq!(status, 200, "{body}");
    let discovered: Value = serde_json::from_str(&body).unwrap();
    assert!(discovered["result"]["methods"].is_array(), "{discovered}");

    // MCP_LIST_CACHE=1m,private: the cache hint of a 2026-07-28 list.
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "flags-test", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let list =
        json!({"jsonrpc": "2.0", "id": 5, "method": "tools/list", "params": {"_meta": meta}});
    let (status, _, body) = post(
        &running,
        "/mcp",
        "mcp.test",
        "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/list\r\n",
        &list.to_string(),
    );
    assert_eq!(status, 200, "{body}");
    let page: Value = serde_json::from_str(&body).unwrap_or_else(|e| panic!("{e}: {body}"));
    assert_eq!(page["result"]["ttlMs"], 60_000, "{page}");
    assert_eq!(page["result"]["cacheScope"], "private", "{page}");

    // MCP_LOG_FORMAT=json: every log line is a JSON object.
    let mut running = running;
    let _ = running.child.kill();
    let _ = running.child.wait();
    let mut stderr = String::new();
    running
        .child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert!(!stderr.is_empty());
    for line in stderr.lines() {
        let event: Value =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
        assert!(event["level"].is_string(), "{event}");
    }
}
