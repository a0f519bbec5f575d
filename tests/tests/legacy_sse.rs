//! The 2024-11-05 HTTP+SSE transport (`config.endpoints.legacy_sse`) against a real server on
//! 127.0.0.1: `GET /sse` and its `endpoint` event, `POST /messages?sessionId=…` answered 202
//! with the answers on the stream, the refusals (400, 403, 404, 405, 406, 415), a
//! server-to-client request answered over a POST, the stream's end ending the session, and the
//! option off (404). Also protocol version 2024-11-05 negotiated on `/mcp` and on stdio.

mod support;

use http::StatusCode;
use serde_json::{json, Value};
use std::net::SocketAddr;
use std::time::Duration;

use mcp_runtime::{Config, McpServer};
use support::schema::assert_response;
use support::sse::SseStream;
use support::{post, send_to, start, TestServer};
use workspace_tests::server::Server;
use workspace_tests::TestHandler;

const WAIT: Duration = Duration::from_secs(10);

fn on() -> Config {
    Config::builder().legacy_sse(true).build()
}

/// The schema 2024-11-05 answers are checked against: 2025-03-26's, which only added to it
/// (what 2024-11-05 lacks is asserted absent separately).
const SCHEMA: &str = "2025-03-26";

/// An open `GET /sse` stream and the POST URL its `endpoint` event named.
struct Legacy {
    addr: SocketAddr,
    stream: SseStream,
    endpoint: String,
    next_id: i64,
}

impl Legacy {
    async fn open(addr: SocketAddr) -> Legacy {
        let mut stream =
            SseStream::open_at(addr, "/sse", "GET", &[("accept", "text/event-stream")], "").await;
        assert_eq!(stream.status, StatusCode::OK);
        assert_eq!(stream.header("content-type"), Some("text/event-stream"));
        let block = stream.next_block(WAIT).await.expect("the endpoint event");
        let endpoint = block
            .strip_prefix("event: endpoint\ndata: ")
            .and_then(|rest| rest.strip_suffix("\n\n"))
            .unwrap_or_else(|| panic!("not an endpoint event: {block:?}"))
            .to_string();
        let id = endpoint
            .strip_prefix("/messages?sessionId=")
            .unwrap_or_else(|| panic!("endpoint {endpoint}"));
        assert_eq!(id.len(), 64);
        assert!(id.bytes().all(|b| b.is_ascii_hexdigit()));
        Legacy {
            addr,
            stream,
            endpoint,
            next_id: 1,
        }
    }

    /// POSTs `message` to the endpoint; the status.
    async fn post(&self, message: &Value) -> StatusCode {
        send_to(
            self.addr,
            &self.endpoint,
            "POST",
            &[("content-type", "application/json")],
            &message.to_string(),
        )
        .await
        .status
    }

    /// The next message on the stream: one `message` event.
    async fn message(&mut self) -> Value {
        let block = self.stream.next_block(WAIT).await.expect("a message event");
        let data = block
            .lines()
            .find_map(|line| line.strip_prefix("data: "))
            .unwrap_or_else(|| panic!("no data in {block:?}"));
        assert!(
            block.starts_with("event: message\n") || block.contains("\nevent: message\n"),
            "not a message event: {block:?}"
        );
        serde_json::from_str(data).unwrap_or_else(|e| panic!("not JSON ({e}): {data}"))
    }

    /// Sends a request (202) and returns its answer from the stream.
    async fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let status = self
            .post(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        assert_eq!(status, StatusCode::ACCEPTED, "{method}");
        let answer = self.message().await;
        assert_eq!(answer["id"], json!(id), "{answer}");
        answer
    }

    /// `initialize` at `version`, then `notifications/initialized`: the result.
    async fn initialize(&mut self, version: &str) -> Value {
        let answer = self
            .request(
                "initialize",
                json!({"protocolVersion": version, "capabilities": {"sampling": {}},
                       "clientInfo": {"name": "legacy-test", "version": "1"}}),
            )
            .await;
        let status = self
            .post(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        assert_eq!(status, StatusCode::ACCEPTED);
        answer
    }
}

#[tokio::test]
async fn off_by_default_the_paths_are_not_found() {
    let server = start(Config::default()).await;
    for (path, method) in [("/sse", "GET"), ("/messages?sessionId=ab", "POST")] {
        let reply = send_to(
            server.addr,
            path,
            method,
            &[
                ("accept", "text/event-stream"),
                ("content-type", "application/json"),
            ],
            "{}",
        )
        .await;
        assert_eq!(reply.status, StatusCode::NOT_FOUND, "{method} {path}");
    }
}

#[tokio::test]
async fn a_session_over_sse_at_2024_11_05() {
    let server = start(on()).await;
    let mut legacy = Legacy::open(server.addr).await;
    let answer = legacy.initialize("2024-11-05").await;
    assert_response(SCHEMA, "initialize", &answer);
    let result = &answer["result"];
    assert_eq!(result["protocolVersion"], json!("2024-11-05"));
    assert!(
        result["capabilities"].get("completions").is_none(),
        "{result}"
    );
    assert!(result["capabilities"]["tools"].is_object());
    assert_eq!(server.server.load().sessions, 1);

    let tools = legacy.request("tools/list", json!({})).await;
    assert_response(SCHEMA, "tools/list", &tools);
    for tool in tools["result"]["tools"].as_array().unwrap() {
        for absent in ["annotations", "title", "outputSchema", "icons"] {
            assert!(tool.get(absent).is_none(), "{tool}");
        }
    }
    let echoed = legacy
        .request(
            "tools/call",
            json!({"name": "echo", "arguments": {"text": "hi"}}),
        )
        .await;
    assert_response(SCHEMA, "tools/call", &echoed);
    assert_eq!(echoed["result"]["content"][0]["text"], json!("hi"));
    assert!(echoed["result"].get("structuredContent").is_none());
    let pong = legacy.request("ping", json!({})).await;
    assert_eq!(pong["result"], json!({}));
    let unknown = legacy.request("tools/nope", json!({})).await;
    assert_eq!(unknown["error"]["code"], json!(-32601));
    let again = legacy
        .request(
            "initialize",
            json!({"protocolVersion": "2024-11-05", "capabilities": {},
                   "clientInfo": {"name": "t", "version": "1"}}),
        )
        .await;
    assert_eq!(again["error"]["code"], json!(-32600));

    // A handler's log messages and a server-to-client request come on the stream too; the
    // client answers the request with a POST.
    let status = legacy
        .post(&json!({"jsonrpc": "2.0", "id": 50, "method": "tools/call",
        "params": {"name": "ask_model", "arguments": {"question": "why?"}}}))
        .await;
    assert_eq!(status, StatusCode::ACCEPTED);
    let asked = legacy.message().await;
    assert_eq!(asked["method"], json!("sampling/createMessage"), "{asked}");
    let status = legacy
        .post(&json!({"jsonrpc": "2.0", "id": asked["id"], "result": {
            "role": "assistant", "model": "m", "content": {"type": "text", "text": "because"}}}))
        .await;
    assert_eq!(status, StatusCode::ACCEPTED);
    let answered = legacy.message().await;
    assert_eq!(answered["id"], json!(50));
    assert_eq!(
        answered["result"]["content"][0]["text"],
        json!("model said: because")
    );
}

#[tokio::test]
async fn later_revisions_negotiate_over_sse_too() {
    let server = start(on()).await;
    let mut legacy = Legacy::open(server.addr).await;
    let answer = legacy.initialize("2025-06-18").await;
    assert_eq!(answer["result"]["protocolVersion"], json!("2025-06-18"));
    let echoed = legacy
        .request(
            "tools/call",
            json!({"name": "echo", "arguments": {"text": "x"}}),
        )
        .await;
    assert_response("2025-06-18", "tools/call", &echoed);
}

#[tokio::test]
async fn refusals_have_their_status() {
    let server = start(on()).await;
    let addr = server.addr;
    let json_type = [("content-type", "application/json")];
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}).to_string();

    // The stream wants SSE.
    let reply = send_to(addr, "/sse", "GET", &[("accept", "application/json")], "").await;
    assert_eq!(reply.status, StatusCode::NOT_ACCEPTABLE);
    // Each path has its method.
    let reply = send_to(addr, "/sse", "POST", &json_type, &ping).await;
    assert_eq!(reply.status, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(reply.header("allow"), Some("GET"));
    let reply = send_to(addr, "/messages?sessionId=ab", "GET", &[], "").await;
    assert_eq!(reply.status, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(reply.header("allow"), Some("POST"));
    // No session id: 400; one that names no stream: 404.
    let reply = send_to(addr, "/messages", "POST", &json_type, &ping).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    assert_eq!(reply.json().await["error"]["code"], json!(-32600));
    let reply = send_to(addr, "/messages?sessionId=", "POST", &json_type, &ping).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    let unknown = format!("/messages?sessionId={}", "0".repeat(64));
    let reply = send_to(addr, &unknown, "POST", &json_type, &ping).await;
    assert_eq!(reply.status, StatusCode::NOT_FOUND);

    let mut legacy = Legacy::open(addr).await;
    let endpoint = legacy.endpoint.clone();
    // Bodies: not JSON content, not JSON, a batch, too large.
    let reply = send_to(
        addr,
        &endpoint,
        "POST",
        &[("content-type", "text/plain")],
        &ping,
    )
    .await;
    assert_eq!(reply.status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
    let reply = send_to(addr, &endpoint, "POST", &json_type, "{not json").await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    assert_eq!(reply.json().await["error"]["code"], json!(-32700));
    let reply = send_to(addr, &endpoint, "POST", &json_type, &format!("[{ping}]")).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    let big = "x".repeat(Config::default().limits.body_limit + 1);
    let reply = send_to(addr, &endpoint, "POST", &json_type, &big).await;
    assert_eq!(reply.status, StatusCode::PAYLOAD_TOO_LARGE);
    // The Host and Origin guard of `/mcp`.
    let reply = send_to(
        addr,
        &endpoint,
        "POST",
        &[
            ("content-type", "application/json"),
            ("host", "evil.example"),
        ],
        &ping,
    )
    .await;
    assert_eq!(reply.status, StatusCode::FORBIDDEN);
    let reply = send_to(
        addr,
        "/sse",
        "GET",
        &[
            ("accept", "text/event-stream"),
            ("origin", "https://evil.example"),
        ],
        "",
    )
    .await;
    assert_eq!(reply.status, StatusCode::FORBIDDEN);

    // A request before `initialize` is accepted and answered with an error on the stream.
    assert_eq!(
        legacy.post(&serde_json::from_str(&ping).unwrap()).await,
        StatusCode::ACCEPTED
    );
    let answer = legacy.message().await;
    assert_eq!(answer["id"], json!(1));
    assert_eq!(answer["error"]["code"], json!(-32600));
    // After `initialize`, a version header other than the negotiated one is a 400.
    legacy.initialize("2024-11-05").await;
    let reply = send_to(
        addr,
        &endpoint,
        "POST",
        &[
            ("content-type", "application/json"),
            ("mcp-protocol-version", "2025-06-18"),
        ],
        &ping,
    )
    .await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    let reply = send_to(
        addr,
        &endpoint,
        "POST",
        &[
            ("content-type", "application/json"),
            ("mcp-protocol-version", "2024-11-05"),
        ],
        &ping,
    )
    .await;
    assert_eq!(reply.status, StatusCode::ACCEPTED);
}

#[tokio::test]
async fn the_stream_ending_ends_the_session() {
    let server = start(on()).await;
    let mut legacy = Legacy::open(server.addr).await;
    legacy.initialize("2024-11-05").await;
    assert_eq!(server.server.load().sessions, 1);
    let Legacy {
        addr,
        stream,
        endpoint,
        ..
    } = legacy;
    stream.close();
    gone(&server, addr, &endpoint).await;

    // A stream that never initialized is forgotten as well.
    let legacy = Legacy::open(server.addr).await;
    let endpoint = legacy.endpoint.clone();
    legacy.stream.close();
    gone(&server, server.addr, &endpoint).await;
}

#[tokio::test]
async fn a_stream_without_initialize_ends_after_the_idle_timeout() {
    let config = Config::builder()
        .legacy_sse(true)
        .session_idle_timeout(Some(Duration::from_millis(300)))
        .build();
    let server = start(config).await;
    let mut legacy = Legacy::open(server.addr).await;
    assert_eq!(legacy.stream.next_block(WAIT).await, None);
    let endpoint = legacy.endpoint.clone();
    gone(&server, server.addr, &endpoint).await;
}

/// Waits until the session of `endpoint` is gone: its POSTs are 404, the store is empty.
async fn gone(server: &TestServer, addr: SocketAddr, endpoint: &str) {
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}).to_string();
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let reply = send_to(
            addr,
            endpoint,
            "POST",
            &[("content-type", "application/json")],
            &ping,
        )
        .await;
        if reply.status == StatusCode::NOT_FOUND && server.server.load().sessions == 0 {
            return;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the session outlived its stream"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn the_server_shutting_down_ends_the_streams_cleanly() {
    let mut server = start(on()).await;
    let mut initialized = Legacy::open(server.addr).await;
    initialized.initialize("2024-11-05").await;
    let mut fresh = Legacy::open(server.addr).await;
    server.shut_down();
    assert_eq!(initialized.stream.next_block(WAIT).await, None);
    assert_eq!(fresh.stream.next_block(WAIT).await, None);
}

#[tokio::test]
async fn initialize_at_2024_11_05_negotiates_on_mcp() {
    let server = start(Config::default()).await;
    let reply = post(
        server.addr,
        &[],
        &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2024-11-05", "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}}),
    )
    .await;
    assert_eq!(reply.status, StatusCode::OK);
    let session = reply.header("mcp-session-id").unwrap().to_string();
    let body = reply.json().await;
    assert_eq!(body["result"]["protocolVersion"], json!("2024-11-05"));
    assert!(body["result"]["capabilities"].get("completions").is_none());
    let headers = [("mcp-session-id", session.as_str())];
    // Its version header is accepted in its session; another revision's is not.
    let ping = json!({"jsonrpc": "2.0", "id": 2, "method": "ping"});
    let mut with_version = headers.to_vec();
    with_version.push(("mcp-protocol-version", "2024-11-05"));
    let reply = post(server.addr, &with_version, &ping).await;
    assert_eq!(reply.status, StatusCode::OK);
    let mut other = headers.to_vec();
    other.push(("mcp-protocol-version", "2025-03-26"));
    assert_eq!(
        post(server.addr, &other, &ping).await.status,
        StatusCode::BAD_REQUEST
    );
    // No batches in 2024-11-05.
    let reply = support::send(
        server.addr,
        "POST",
        &[
            support::POST_HEADERS[0],
            support::POST_HEADERS[1],
            ("mcp-session-id", session.as_str()),
        ],
        &json!([ping]).to_string(),
    )
    .await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    assert!(reply.text().await.contains("2024-11-05"));
    let tools = post(
        server.addr,
        &headers,
        &json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"}),
    )
    .await
    .json()
    .await;
    assert_response(SCHEMA, "tools/list", &tools);
}

#[tokio::test]
async fn initialize_at_2024_11_05_negotiates_on_stdio() {
    let server = McpServer::builder(Server::new(TestHandler::default()))
        .config(Config::default())
        .build();
    let input = [
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2024-11-05", "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!([{"jsonrpc": "2.0", "id": 1, "method": "ping"}]),
    ]
    .map(|line| line.to_string())
    .join("\n")
        + "\n";
    let (writer, mut reader) = tokio::io::duplex(1 << 20);
    tokio::time::timeout(
        WAIT,
        mcp_runtime::stdio::serve_io(server, input.as_bytes(), writer),
    )
    .await
    .expect("stdio within 10 s")
    .unwrap();
    let mut output = String::new();
    tokio::io::AsyncReadExt::read_to_string(&mut reader, &mut output)
        .await
        .unwrap();
    let lines: Vec<Value> = output
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(lines.len(), 2, "{output}");
    assert_eq!(lines[0]["result"]["protocolVersion"], json!("2024-11-05"));
    assert_response(SCHEMA, "initialize", &lines[0]);
    // The batch is refused whole: 2024-11-05 has none.
    assert_eq!(lines[1]["error"]["code"], json!(-32600), "{}", lines[1]);
}

/// A rate limit holds on this transport too (#34): the call over it is answered `-32023` on
/// the stream, and its POST is 429 with `Retry-After`; the handler does not run.
#[tokio::test]
async fn a_rate_limit_holds_over_the_legacy_transport() {
    use mcp_runtime::rate_limit::{Rate, RateLimits};
    let mut config = on();
    config.rate_limits = Some(RateLimits::new().per_caller(Some(Rate::new(1, 60_000))));
    let server = start(config).await;
    let mut legacy = Legacy::open(server.addr).await;
    legacy.initialize("2024-11-05").await;
    let call = json!({"name": "echo", "arguments": {"text": "hi"}});
    let echoed = legacy.request("tools/call", call.clone()).await;
    assert_eq!(echoed["result"]["content"][0]["text"], json!("hi"));
    // Raw bytes, `params` before `method`: the second call is over the limit.
    let reply = send_to(
        legacy.addr,
        &legacy.endpoint,
        "POST",
        &[("content-type", "application/json")],
        r#"{"params":{"arguments":{"text":"hi"},"name":"echo"},"id":"again","jsonrpc":"2.0","method":"tools\/call"}"#,
    )
    .await;
    assert_eq!(reply.status, StatusCode::TOO_MANY_REQUESTS);
    assert!(reply.header("retry-after").is_some());
    let refused = legacy.message().await;
    assert_eq!(refused["id"], json!("again"), "{refused}");
    assert_eq!(refused["error"]["code"], json!(-32023), "{refused}");
    assert!(refused["error"]["data"]["retryAfterMs"].as_u64().unwrap() >= 1);
    // What is not a call still passes.
    let pong = legacy.request("ping", json!({})).await;
    assert_eq!(pong["result"], json!({}));
}
