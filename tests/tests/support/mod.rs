//! A real server on 127.0.0.1 and a small HTTP client for the MCP endpoint.

#![allow(dead_code)]

use bytes::Bytes;
use http::{HeaderMap, Request, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use serde_json::{json, Value};
use std::net::SocketAddr;
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;

use mcp_runtime::{Config, McpServer};
use workspace_tests::server::Server;
use workspace_tests::TestHandler;

pub mod envelope;
pub mod schema;
pub mod sse;
pub mod stateless;

/// A server running on an ephemeral loopback port until dropped.
pub struct TestServer {
    pub addr: SocketAddr,
    pub handler: TestHandler,
    pub server: McpServer<Server<TestHandler>>,
    stop: Option<oneshot::Sender<()>>,
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

impl TestServer {
    /// Starts the server's graceful shutdown now.
    pub fn shut_down(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

/// Starts a server with `config`.
pub async fn start(config: Config) -> TestServer {
    let handler = TestHandler::default();
    let server = McpServer::builder(Server::new(handler.clone()))
        .config(config)
        .build();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = oneshot::channel::<()>();
    let serving = server.clone();
    tokio::spawn(async move {
        serving
            .serve_listener(listener, async {
                let _ = stopped.await;
            })
            .await
            .unwrap();
    });
    TestServer {
        addr,
        handler,
        server,
        stop: Some(stop),
    }
}

/// A response, with its body still streaming.
pub struct Reply {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Incoming,
}

impl Reply {
    /// The whole body as text.
    pub async fn text(self) -> String {
        let bytes = tokio::time::timeout(Duration::from_secs(10), self.body.collect())
            .await
            .expect("body within 10 s")
            .unwrap()
            .to_bytes();
        String::from_utf8(bytes.to_vec()).unwrap()
    }

    /// The whole body as JSON.
    pub async fn json(self) -> Value {
        let text = self.text().await;
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
    }

    /// The next chunk of a streaming body (`None` at its end).
    pub async fn chunk(&mut self) -> Option<String> {
        loop {
            let frame = tokio::time::timeout(Duration::from_secs(10), self.body.frame())
                .await
                .expect("a chunk within 10 s")?;
            if let Ok(data) = frame.unwrap().into_data() {
                return Some(String::from_utf8(data.to_vec()).unwrap());
            }
        }
    }

    /// The header `name`.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
}

/// Sends one request to `/mcp` on a fresh connection.
pub async fn send(addr: SocketAddr, method: &str, headers: &[(&str, &str)], body: &str) -> Reply {
    send_to(addr, "/mcp", method, headers, body).await
}

/// Sends one request to `path` on a fresh connection.
pub async fn send_to(
    addr: SocketAddr,
    path: &str,
    method: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> Reply {
    let stream = TcpStream::connect(addr).await.unwrap();
    let (mut sender, connection) =
        hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream))
            .await
            .unwrap();
    tokio::spawn(connection);
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
    let response = sender.send_request(request).await.unwrap();
    let (parts, body) = response.into_parts();
    Reply {
        status: parts.status,
        headers: parts.headers,
        body,
    }
}

/// The headers every well-behaved POST carries.
pub const POST_HEADERS: [(&str, &str); 2] = [
    ("content-type", "application/json"),
    ("accept", "application/json, text/event-stream"),
];

/// POSTs `body` with the standard headers plus `extra`.
pub async fn post(addr: SocketAddr, extra: &[(&str, &str)], body: &Value) -> Reply {
    let mut headers = POST_HEADERS.to_vec();
    headers.extend_from_slice(extra);
    send(addr, "POST", &headers, &body.to_string()).await
}

/// A client session: initialize done, ids and headers handled.
pub struct Client {
    pub addr: SocketAddr,
    pub session: String,
    pub version: String,
    next_id: i64,
}

impl Client {
    /// Initializes a session at `version`.
    pub async fn connect(addr: SocketAddr, version: &str) -> Client {
        Self::connect_with(addr, version, json!({"sampling": {}, "elicitation": {}})).await
    }

    /// Initializes a session at `version` declaring `capabilities`.
    pub async fn connect_with(addr: SocketAddr, version: &str, capabilities: Value) -> Client {
        let reply = post(
            addr,
            &[],
            &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": version, "capabilities": capabilities,
                "clientInfo": {"name": "workspace-tests", "version": "1.0.0"}}}),
        )
        .await;
        assert_eq!(reply.status, StatusCode::OK);
        let session = reply
            .header("mcp-session-id")
            .expect("a session id")
            .to_string();
        let result = reply.json().await;
        let version = result["result"]["protocolVersion"]
            .as_str()
            .unwrap()
            .to_string();
        let client = Client {
            addr,
            session,
            version,
            next_id: 1,
        };
        let ack = client
            .post_raw(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        assert_eq!(ack.status, StatusCode::ACCEPTED);
        client
    }

    /// The session and version headers.
    pub fn headers(&self) -> Vec<(&str, &str)> {
        vec![
            ("mcp-session-id", self.session.as_str()),
            ("mcp-protocol-version", self.version.as_str()),
        ]
    }

    /// POSTs any message in this session.
    pub async fn post_raw(&self, message: &Value) -> Reply {
        post(self.addr, &self.headers(), message).await
    }

    /// Sends a request; returns the reply (JSON or SSE) without reading it.
    pub async fn request(&mut self, method: &str, params: Value) -> (i64, Reply) {
        let id = self.next_id;
        self.next_id += 1;
        let reply = self
            .post_raw(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        (id, reply)
    }

    /// Sends a request and returns its JSON-RPC response, reading SSE if the server streams.
    pub async fn call(&mut self, method: &str, params: Value) -> Value {
        let (id, reply) = self.request(method, params).await;
        assert_eq!(reply.status, StatusCode::OK, "{method}");
        let messages = read_messages(reply).await;
        messages
            .into_iter()
            .find(|m| m["id"] == json!(id))
            .expect("a response with the request's id")
    }
}

/// Every JSON-RPC message of a reply: the JSON body, or each SSE `data:` line.
pub async fn read_messages(reply: Reply) -> Vec<Value> {
    let is_sse = reply.header("content-type") == Some("text/event-stream");
    let text = reply.text().await;
    if !is_sse {
        return vec![serde_json::from_str(&text).unwrap()];
    }
    sse_messages(&text)
}

/// The JSON messages in SSE text (non-JSON data such as priming events skipped).
pub fn sse_messages(text: &str) -> Vec<Value> {
    text.lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .filter_map(|data| serde_json::from_str(data.trim()).ok())
        .collect()
}
