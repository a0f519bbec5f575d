//! The application on 127.0.0.1, driven over HTTP/1.1: its own route, the MCP server nested at
//! `/mcp` in both eras, the middleware around both, and session expiry without the runtime's
//! own listener.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use mcp_runtime::Config;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// One answer: status, headers (lower-case names) and body.
struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Sends one request on a fresh connection and reads the whole answer.
async fn send(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> Answer {
    let mut request = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(body);
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut raw))
        .await
        .expect("the answer completes")
        .unwrap();
    let raw = String::from_utf8(raw).unwrap();
    let (head, body) = raw.split_once("\r\n\r\n").unwrap();
    let mut lines = head.lines();
    let status = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect::<Vec<_>>();
    let body = if headers
        .iter()
        .any(|(n, v)| n == "transfer-encoding" && v == "chunked")
    {
        dechunk(body)
    } else {
        body.to_owned()
    };
    Answer {
        status,
        headers,
        body,
    }
}

/// The payload of a chunked body.
fn dechunk(mut body: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let size = usize::from_str_radix(size.trim(), 16).unwrap();
        if size == 0 {
            break;
        }
        out.push_str(&rest[..size]);
        body = &rest[size + 2..];
    }
    out
}

const JSON: (&str, &str) = ("content-type", "application/json");
const ACCEPT: (&str, &str) = ("accept", "application/json, text/event-stream");

async fn start(
    config: Config,
) -> (
    SocketAddr,
    mcp_runtime::McpServer<quickstart::server::Server<quickstart::Notes>>,
) {
    let mcp = axum_app::notes_server(config);
    let app = axum_app::app(mcp.clone());
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (addr, mcp)
}

#[tokio::test]
async fn the_application_routes_and_the_mcp_server_share_one_router() {
    let (addr, _mcp) = start(Config::default()).await;

    let health = send(addr, "GET", "/health", &[], "").await;
    assert_eq!((health.status, health.body.as_str()), (200, "ok"));
    assert_eq!(health.header(axum_app::SERVED_BY), Some("axum-app"));
    assert_eq!(send(addr, "GET", "/elsewhere", &[], "").await.status, 404);

    // Session era, through the nested service.
    let initialize = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"axum-test","version":"1"}}}"#;
    let answer = send(addr, "POST", "/mcp", &[JSON, ACCEPT], initialize).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert_eq!(
        answer.header(axum_app::SERVED_BY),
        Some("axum-app"),
        "the middleware wraps MCP too"
    );
    assert!(
        answer.body.contains(r#""protocolVersion":"2025-11-25""#),
        "{}",
        answer.body
    );
    let session = answer
        .header("mcp-session-id")
        .expect("a session id")
        .to_owned();
    let in_session = [
        JSON,
        ACCEPT,
        ("mcp-session-id", session.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    assert_eq!(
        send(addr, "POST", "/mcp", &in_session, initialized)
            .await
            .status,
        202
    );
    let call = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":3}}}"#;
    let answer = send(addr, "POST", "/mcp", &in_session, call).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert!(answer.body.contains(r#""text":"5""#), "{}", answer.body);

    // Stateless era (2026-07-28), same path.
    let call = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"add","arguments":{"a":40,"b":2},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    let stateless = [
        JSON,
        ACCEPT,
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", "add"),
    ];
    let answer = send(addr, "POST", "/mcp", &stateless, call).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert!(answer.body.contains(r#""text":"42""#), "{}", answer.body);

    // The guards still apply when embedded.
    let foreign = [JSON, ACCEPT, ("origin", "https://evil.example")];
    assert_eq!(
        send(addr, "POST", "/mcp", &foreign, initialize)
            .await
            .status,
        403
    );
}

#[tokio::test]
async fn sessions_expire_without_the_runtimes_listener() {
    let config = Config::builder()
        .session_idle_timeout(Some(Duration::from_millis(200)))
        .build();
    let (addr, mcp) = start(config).await;
    let initialize = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"axum-test","version":"1"}}}"#;
    let answer = send(addr, "POST", "/mcp", &[JSON, ACCEPT], initialize).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert_eq!(mcp.load().sessions, 1);
    // No request touches the session again: only the background sweep can remove it.
    let deadline = Instant::now() + Duration::from_secs(5);
    while mcp.load().sessions > 0 {
        assert!(
            Instant::now() < deadline,
            "the idle session was never evicted"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
