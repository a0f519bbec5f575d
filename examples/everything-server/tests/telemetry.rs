//! Telemetry of the real binary, built with `--features otel,metrics`, as an operator turns it
//! on: `OTEL_EXPORTER_OTLP_ENDPOINT` pointing at an OTLP receiver (HTTP/protobuf, `POST
//! /v1/traces`) that this test runs on 127.0.0.1, and `--metrics ADDR` scraped over HTTP. A
//! client's `traceparent` (the HTTP header on `initialize`, `_meta` on a call) becomes the
//! parent of the exported spans, named and with the attributes of the OpenTelemetry semantic
//! conventions for MCP (checked against their list); the scrape has the conventions'
//! `mcp.server.operation.duration` and the counters of before; SIGTERM flushes the exporter
//! before the process exits.
//!
//! `cargo test -p everything-server --features otel,metrics --test telemetry` (in `.ci/run`).

#![cfg(all(feature = "otel", feature = "metrics"))]

mod common;

use common::{exit_code_within, free_port, http, session_id, terminate};
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::any_value::Value as AnyValue;
use opentelemetry_proto::tonic::trace::v1::Span;
use prost::Message;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

const BINARY: &str = env!("CARGO_BIN_EXE_everything-server");

/// The span attributes the OpenTelemetry semantic conventions for MCP define
/// (open-telemetry/semantic-conventions-genai, docs/gen-ai/mcp.md, status Development).
const CONVENTIONS: [&str; 20] = [
    "mcp.method.name",
    "mcp.session.id",
    "mcp.protocol.version",
    "mcp.resource.uri",
    "jsonrpc.request.id",
    "jsonrpc.protocol.version",
    "gen_ai.tool.name",
    "gen_ai.operation.name",
    "gen_ai.prompt.name",
    "gen_ai.tool.call.arguments",
    "gen_ai.tool.call.result",
    "error.type",
    "rpc.response.status_code",
    "network.transport",
    "network.protocol.name",
    "network.protocol.version",
    "client.address",
    "client.port",
    "server.address",
    "server.port",
];

/// The runtime's attributes that have no convention, and what `tracing-opentelemetry` adds.
const OURS: [&str; 5] = [
    "era",
    "outcome",
    "duration_us",
    "trace_id",
    "parent_span_id",
];
const LAYERS: [&str; 6] = ["code.", "thread.", "busy_ns", "idle_ns", "target", "level"];
const HEADER_TRACE: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const HEADER_PARENT: &str = "00f067aa0ba902b7";
const META_TRACE: &str = "0af7651916cd43dd8448eb211c80319c";
const META_PARENT: &str = "b7ad6b7169203331";

/// An OTLP/HTTP receiver: every `POST /v1/traces` body, decoded, sent to the returned channel.
fn otlp_receiver() -> (u16, mpsc::Receiver<ExportTraceServiceRequest>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let (sender, received) = mpsc::channel();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let sender = sender.clone();
            std::thread::spawn(move || serve_otlp(stream, &sender));
        }
    });
    (port, received)
}

/// One connection of the receiver: requests answered `200` with an empty (valid) export
/// response, for as long as the exporter keeps the connection.
fn serve_otlp(stream: TcpStream, sender: &mpsc::Sender<ExportTraceServiceRequest>) {
    let mut writer = stream.try_clone().unwrap();
    let mut reader = BufReader::new(stream);
    loop {
        let mut request_line = String::new();
        if reader.read_line(&mut request_line).unwrap_or(0) == 0 {
            return;
        }
        let mut length = 0;
        loop {
            let mut line = String::new();
            if reader.read_line(&mut line).unwrap_or(0) == 0 {
                return;
            }
            if line == "\r\n" {
                break;
            }
            if let Some((name, value)) = line.split_once(':') {
                if name.eq_ignore_ascii_case("content-length") {
                    length = value.trim().parse().unwrap();
                }
            }
        }
        let mut body = vec![0; length];
        reader.read_exact(&mut body).unwrap();
        if request_line.starts_with("POST /v1/traces ") {
            let request = ExportTraceServiceRequest::decode(body.as_slice())
                .expect("the body is an OTLP export request");
            let _ = sender.send(request);
        }
        writer
            .write_all(
                b"HTTP/1.1 200 OK\r\nContent-Type: application/x-protobuf\r\nContent-Length: 0\r\n\r\n",
            )
            .unwrap();
    }
}

struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

const JSON_POST: [(&str, &str); 2] = [
    ("Content-Type", "application/json"),
    ("Accept", "application/json, text/event-stream"),
];

fn post(port: u16, headers: &[(&str, &str)], body: Value) -> (u16, String, String) {
    let mut all = JSON_POST.to_vec();
    all.extend_from_slice(headers);
    http(port, "POST", "/mcp", &all, &body.to_string())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn attribute(span: &Span, key: &str) -> Option<String> {
    span.attributes
        .iter()
        .find(|kv| kv.key == key)
        .and_then(|kv| match kv.value.as_ref()?.value.as_ref()? {
            AnyValue::StringValue(text) => Some(text.clone()),
            AnyValue::IntValue(number) => Some(number.to_string()),
            other => Some(format!("{other:?}")),
        })
}

#[test]
fn spans_reach_an_otlp_receiver_and_requests_are_counted_on_the_metrics_endpoint() {
    let (otlp_port, exports) = otlp_receiver();
    let (port, metrics_port) = (free_port(), free_port());
    let mut command = Command::new(BINARY);
    for (var, _) in std::env::vars() {
        if var.starts_with("MCP_") || var.starts_with("OTEL_") || var == "RUST_LOG" {
            command.env_remove(var);
        }
    }
    let child = command
        .args(["--addr", &format!("127.0.0.1:{port}")])
        .args(["--metrics", &format!("127.0.0.1:{metrics_port}")])
        .env(
            "OTEL_EXPORTER_OTLP_ENDPOINT",
            format!("http://127.0.0.1:{otlp_port}"),
        )
        .env("OTEL_SERVICE_NAME", "telemetry-e2e")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the server starts");
    let mut running = Running(child);
    let deadline = Instant::now() + Duration::from_secs(30);
    while TcpStream::connect(("127.0.0.1", port)).is_err()
        || TcpStream::connect(("127.0.0.1", metrics_port)).is_err()
    {
        assert!(running.0.try_wait().unwrap().is_none(), "the server exited");
        assert!(Instant::now() < deadline, "the server did not listen");
        std::thread::sleep(Duration::from_millis(50));
    }

    // A session: initialize with the client's trace in the HTTP header, a call with another
    // in `_meta`, and a call of a tool that does not exist.
    let traceparent = format!("00-{HEADER_TRACE}-{HEADER_PARENT}-01");
    let (status, head, body) = post(
        port,
        &[("traceparent", &traceparent)],
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "telemetry-e2e", "version": "1"}}}),
    );
    assert_eq!(status, 200, "{head}\n{body}");
    let session = session_id(&head).expect("a session id");
    let in_session = [
        ("Mcp-Session-Id", session.as_str()),
        ("MCP-Protocol-Version", "2025-11-25"),
    ];
    let (status, _, _) = post(
        port,
        &in_session,
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    );
    assert_eq!(status, 202);
    let (status, _, body) = post(
        port,
        &in_session,
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "test_simple_text", "arguments": {},
            "_meta": {"traceparent": format!("00-{META_TRACE}-{META_PARENT}-01")}}}),
    );
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("This is a simple text response"), "{body}");
    let (_, _, body) = post(
        port,
        &in_session,
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "no_such_tool"}}),
    );
    assert!(body.contains("-32602"), "{body}");
    // A tool error: a result with `isError: true`.
    let (_, _, body) = post(
        port,
        &in_session,
        json!({"jsonrpc": "2.0", "id": "e-4", "method": "tools/call", "params": {
            "name": "test_error_handling", "arguments": {}}}),
    );
    assert!(body.contains(r#""isError":true"#), "{body}");
    // A stateless request.
    let (status, _, body) = post(
        port,
        &[
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", "tools/list"),
        ],
        json!({"jsonrpc": "2.0", "id": 4, "method": "tools/list", "params": {"_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "telemetry-e2e", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {}}}}),
    );
    assert_eq!(status, 200, "{body}");

    // The scrape.
    let (status, _, scrape) = http(metrics_port, "GET", "/metrics", &[], "");
    assert_eq!(status, 200);
    for line in [
        r#"mcp_server_operation_duration_seconds_count{mcp_method_name="initialize",network_transport="tcp"} 1"#,
        r#"mcp_server_operation_duration_seconds_count{mcp_method_name="tools/call",network_transport="tcp"} 1"#,
        r#"mcp_server_operation_duration_seconds_count{mcp_method_name="tools/call",error_type="-32602",network_transport="tcp"} 1"#,
        r#"mcp_server_operation_duration_seconds_count{mcp_method_name="tools/call",error_type="tool_error",network_transport="tcp"} 1"#,
        r#"mcp_server_operation_duration_seconds_count{mcp_method_name="tools/list",network_transport="tcp"} 1"#,
        // The names of before, kept for one release (a tool error is an `ok` outcome).
        r#"mcp_requests_total{method="initialize",outcome="ok"} 1"#,
        r#"mcp_requests_total{method="tools/call",outcome="ok"} 2"#,
        r#"mcp_requests_total{method="tools/call",outcome="error"} 1"#,
        r#"mcp_request_errors_total{method="tools/call",code="-32602"} 1"#,
        r#"mcp_requests_total{method="tools/list",outcome="ok"} 1"#,
        "mcp_sessions 1",
    ] {
        assert!(
            scrape.lines().any(|l| l == line),
            "no `{line}` in:\n{scrape}"
        );
    }
    assert!(
        scrape.contains(
            r#"mcp_request_duration_seconds_bucket{method="tools/call",outcome="ok",le="#
        ),
        "{scrape}"
    );

    // SIGTERM: the server drains, the exporter flushes, the process exits 0.
    terminate(&running.0);
    let exit = exit_code_within(&mut running.0, Duration::from_secs(20));
    assert_eq!(exit, Some(0), "the server exits 0 after SIGTERM");

    let mut spans = Vec::new();
    let mut service_names = Vec::new();
    while let Ok(export) = exports.recv_timeout(Duration::from_secs(2)) {
        for resource_spans in export.resource_spans {
            if let Some(resource) = &resource_spans.resource {
                service_names.extend(
                    resource
                        .attributes
                        .iter()
                        .filter(|kv| kv.key == "service.name")
                        .filter_map(|kv| match kv.value.as_ref()?.value.as_ref()? {
                            AnyValue::StringValue(name) => Some(name.clone()),
                            _ => None,
                        }),
                );
            }
            for scope in resource_spans.scope_spans {
                spans.extend(scope.spans);
            }
        }
    }
    assert!(
        service_names.iter().all(|name| name == "telemetry-e2e") && !service_names.is_empty(),
        "{service_names:?}"
    );
    let named = |name: &str| -> Vec<&Span> { spans.iter().filter(|s| s.name == name).collect() };
    // Every request span's attributes are the conventions' or ours.
    for span in spans
        .iter()
        .filter(|s| attribute(s, "mcp.method.name").is_some())
    {
        for kv in &span.attributes {
            let key = kv.key.as_str();
            assert!(
                CONVENTIONS.contains(&key)
                    || OURS.contains(&key)
                    || LAYERS.iter().any(|own| key.starts_with(own)),
                "`{key}` is neither a convention's attribute nor ours: {span:#?}"
            );
        }
        assert_eq!(attribute(span, "network.transport").as_deref(), Some("tcp"));
        assert_eq!(
            attribute(span, "network.protocol.name").as_deref(),
            Some("http")
        );
    }
    let summary: Vec<_> = spans
        .iter()
        .map(|s| (s.name.clone(), hex(&s.trace_id), hex(&s.parent_span_id)))
        .collect();

    let initialize = named("initialize");
    assert_eq!(initialize.len(), 1, "{summary:#?}");
    assert_eq!(
        (
            hex(&initialize[0].trace_id),
            hex(&initialize[0].parent_span_id)
        ),
        (HEADER_TRACE.into(), HEADER_PARENT.into())
    );
    assert_eq!(attribute(initialize[0], "era").as_deref(), Some("session"));
    assert_eq!(
        attribute(initialize[0], "mcp.protocol.version").as_deref(),
        Some("2025-11-25")
    );
    let session_fingerprint = attribute(initialize[0], "mcp.session.id").expect("a session");
    assert!(
        session_fingerprint.len() == 8 && !session.contains(&session_fingerprint),
        "the session's fingerprint, never its id"
    );

    let ok = named("tools/call test_simple_text");
    assert_eq!(ok.len(), 1, "{summary:#?}");
    let ok = ok[0];
    for (key, value) in [
        ("mcp.method.name", "tools/call"),
        ("gen_ai.tool.name", "test_simple_text"),
        ("gen_ai.operation.name", "execute_tool"),
        ("jsonrpc.request.id", "2"),
        ("mcp.session.id", session_fingerprint.as_str()),
    ] {
        assert_eq!(attribute(ok, key).as_deref(), Some(value), "{key}: {ok:#?}");
    }
    assert_eq!(attribute(ok, "error.type"), None, "{ok:#?}");
    assert_eq!(
        (hex(&ok.trace_id), hex(&ok.parent_span_id)),
        (META_TRACE.into(), META_PARENT.into())
    );
    assert_eq!(attribute(ok, "outcome").as_deref(), Some("ok"));
    let failed = named("tools/call no_such_tool");
    assert_eq!(failed.len(), 1, "{summary:#?}");
    let failed = failed[0];
    assert_eq!(
        attribute(failed, "error.type").as_deref(),
        Some("-32602"),
        "{failed:?}"
    );
    assert_eq!(
        attribute(failed, "rpc.response.status_code").as_deref(),
        Some("-32602"),
        "{failed:?}"
    );
    let status = failed.status.as_ref().map(|status| status.code);
    assert_eq!(
        status,
        Some(opentelemetry_proto::tonic::trace::v1::status::StatusCode::Error as i32)
    );
    // No trace context came with it: a trace of its own, no parent.
    assert!(failed.parent_span_id.is_empty() && hex(&failed.trace_id) != META_TRACE);

    let tool_error = named("tools/call test_error_handling");
    assert_eq!(tool_error.len(), 1, "{summary:#?}");
    let tool_error = tool_error[0];
    assert_eq!(
        attribute(tool_error, "error.type").as_deref(),
        Some("tool_error"),
        "{tool_error:?}"
    );
    assert_eq!(attribute(tool_error, "outcome").as_deref(), Some("ok"));
    assert_eq!(
        attribute(tool_error, "jsonrpc.request.id").as_deref(),
        Some("e-4")
    );
    assert_eq!(
        tool_error.status.as_ref().map(|status| status.code),
        Some(opentelemetry_proto::tonic::trace::v1::status::StatusCode::Error as i32)
    );

    let list = named("tools/list");
    assert_eq!(list.len(), 1, "{summary:#?}");
    assert_eq!(attribute(list[0], "era").as_deref(), Some("stateless"));
    assert_eq!(
        attribute(list[0], "mcp.protocol.version").as_deref(),
        Some("2026-07-28")
    );
    assert_eq!(attribute(list[0], "mcp.session.id"), None);
}
