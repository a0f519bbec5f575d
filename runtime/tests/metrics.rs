//! The `metrics` feature for real: a server on 127.0.0.1 with the Prometheus endpoint on a
//! listener of its own (as `--metrics ADDR` starts it), requests over HTTP in both eras, then
//! a scrape of `/metrics`: the semantic conventions' `mcp.server.operation.duration`, the
//! counters and histogram of before, and the gauges say what happened.
//!
//! One test in this file: the `metrics` recorder is global to the process.

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use mcp_runtime::dispatch::{Call, CallKind};
use mcp_runtime::{Answer, BoxFuture, Catalog, Contract, Dispatch, McpServer};
use serde_json::{json, Value};
use std::net::SocketAddr;

struct Echo;

static CATALOG: Catalog = Catalog::empty("metrics-echo", "1");

impl Dispatch for Echo {
    fn contract(&self) -> &'static Contract {
        static CONTRACT: Contract = Contract::new(&CATALOG);
        &CONTRACT
    }

    fn call<'a>(&'a self, call: Call<'a>) -> Option<BoxFuture<'a, Answer>> {
        let name = call.name();
        (call.kind() == CallKind::Tool).then_some(())?;
        if name == "fail" {
            // A tool error: `error_type` `tool_error`.
            return Some(Box::pin(async move {
                Answer::from_mcp(Ok(mcp_runtime::mcp::ToolResult::error("no")))
            }));
        }
        (name == "echo").then_some(())?;
        Some(Box::pin(async move {
            // The handler's own span: a child of the request's.
            tracing::info_span!("echo.work")
                .in_scope(|| Answer::from_mcp(Ok(mcp_runtime::mcp::ToolResult::text("hi"))))
        }))
    }
}

type Client = hyper_util::client::legacy::Client<
    hyper_util::client::legacy::connect::HttpConnector,
    Full<Bytes>,
>;

async fn send(
    client: &Client,
    request: http::request::Builder,
    body: String,
) -> (http::StatusCode, http::HeaderMap, String) {
    let response = client
        .request(request.body(Full::new(Bytes::from(body))).unwrap())
        .await
        .unwrap();
    let (parts, body) = response.into_parts();
    let bytes = body.collect().await.unwrap().to_bytes();
    (
        parts.status,
        parts.headers,
        String::from_utf8(bytes.to_vec()).unwrap(),
    )
}

fn post(addr: SocketAddr, headers: &[(&str, &str)]) -> http::request::Builder {
    let mut request = http::Request::post(format!("http://{addr}/mcp"))
        .header("host", "localhost")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request
}

/// The value of the sample `name` (with its labels, as rendered) in a scrape.
fn sample(scrape: &str, name: &str) -> Option<f64> {
    scrape.lines().find_map(|line| {
        line.strip_prefix(name)?
            .strip_prefix(' ')?
            .trim()
            .parse()
            .ok()
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_are_counted_and_scraped() {
    let server = McpServer::new(Echo);
    let metrics = mcp_runtime::telemetry::metrics::serve(
        server.load_source(),
        "127.0.0.1:0".parse().unwrap(),
    )
    .await
    .unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let served = tokio::spawn(server.serve_listener(listener, async move {
        let _ = stopped.await;
    }));
    let client: Client =
        hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
            .build_http();

    // A session: initialize, two calls (one an unknown tool), a tools/list.
    let (_, headers, _) = send(
        &client,
        post(addr, &[]),
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}})
        .to_string(),
    )
    .await;
    let session = headers["mcp-session-id"].to_str().unwrap().to_string();
    let in_session = [
        ("mcp-session-id", session.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    let (status, _, _) = send(
        &client,
        post(addr, &in_session),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string(),
    )
    .await;
    assert_eq!(status, 202);
    for (id, tool) in [(1, "echo"), (2, "echo"), (3, "nope")] {
        let (_, _, body) = send(
            &client,
            post(addr, &in_session),
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                   "params": {"name": tool, "arguments": {}}})
            .to_string(),
        )
        .await;
        let body: Value = serde_json::from_str(&body).unwrap();
        assert!(body.get("result").is_some() == (tool == "echo"), "{body}");
    }
    let (_, _, body) = send(
        &client,
        post(addr, &in_session),
        json!({"jsonrpc": "2.0", "id": 6, "method": "tools/call",
               "params": {"name": "fail", "arguments": {}}})
        .to_string(),
    )
    .await;
    assert!(body.contains(r#""isError":true"#), "{body}");
    // A stateless call, and a method nobody serves (counted as `other`).
    let (status, _, body) = send(
        &client,
        post(
            addr,
            &[
                ("mcp-protocol-version", "2026-07-28"),
                ("mcp-method", "tools/call"),
                ("mcp-name", "echo"),
            ],
        ),
        json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {
            "name": "echo", "arguments": {},
            "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                      "io.modelcontextprotocol/clientCapabilities": {}}}})
        .to_string(),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let (_, _, body) = send(
        &client,
        post(addr, &in_session),
        json!({"jsonrpc": "2.0", "id": 5, "method": "no/such/method"}).to_string(),
    )
    .await;
    assert!(body.contains("-32601"), "{body}");

    let (status, headers, scrape) = send(
        &client,
        http::Request::get(format!("http://{metrics}/metrics")),
        String::new(),
    )
    .await;
    assert_eq!(status, 200);
    assert!(headers["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/plain"));
    for (name, value) in [
        // The semantic conventions' histogram: a failure's `error_type` is its JSON-RPC code
        // or `tool_error`.
        (
            r#"mcp_server_operation_duration_seconds_count{mcp_method_name="tools/call",network_transport="tcp"}"#,
            3.0,
        ),
        (
            r#"mcp_server_operation_duration_seconds_count{mcp_method_name="tools/call",error_type="-32602",network_transport="tcp"}"#,
            1.0,
        ),
        (
            r#"mcp_server_operation_duration_seconds_count{mcp_method_name="tools/call",error_type="tool_error",network_transport="tcp"}"#,
            1.0,
        ),
        (
            r#"mcp_server_operation_duration_seconds_count{mcp_method_name="other",error_type="-32601",network_transport="tcp"}"#,
            1.0,
        ),
        (
            r#"mcp_server_operation_duration_seconds_count{mcp_method_name="initialize",network_transport="tcp"}"#,
            1.0,
        ),
        (
            r#"mcp_server_operation_duration_seconds_bucket{mcp_method_name="tools/call",network_transport="tcp",le="300"}"#,
            3.0,
        ),
        // The names of before, kept for one release (a tool error is an `ok` outcome).
        (
            r#"mcp_requests_total{method="tools/call",outcome="ok"}"#,
            4.0,
        ),
        (
            r#"mcp_requests_total{method="tools/call",outcome="error"}"#,
            1.0,
        ),
        (
            r#"mcp_request_errors_total{method="tools/call",code="-32602"}"#,
            1.0,
        ),
        (r#"mcp_requests_total{method="other",outcome="error"}"#, 1.0),
        (
            r#"mcp_request_errors_total{method="other",code="-32601"}"#,
            1.0,
        ),
        (
            r#"mcp_request_duration_seconds_count{method="tools/call",outcome="ok"}"#,
            4.0,
        ),
        (
            r#"mcp_request_duration_seconds_bucket{method="tools/call",outcome="ok",le="+Inf"}"#,
            4.0,
        ),
        ("mcp_sessions", 1.0),
        ("mcp_listen_streams", 0.0),
        ("mcp_tasks", 0.0),
    ] {
        assert_eq!(sample(&scrape, name), Some(value), "{name}:\n{scrape}");
    }
    assert!(
        !scrape.contains("no/such/method"),
        "a label never takes a client's method name"
    );
    let (status, _, _) = send(
        &client,
        http::Request::get(format!("http://{metrics}/other")),
        String::new(),
    )
    .await;
    assert_eq!(status, 404);
    let _ = stop.send(());
    served.await.unwrap().unwrap();
}
