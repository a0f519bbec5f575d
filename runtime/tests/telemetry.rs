//! The request span and the W3C trace context: what a subscriber that enables `mcp::request`
//! sees, over both eras of `/mcp` and stdio, and what the handler sees.

use bytes::Bytes;
use http::{Request, StatusCode};
use http_body_util::{BodyExt, Full};
use mcp_runtime::dispatch::{Call, CallKind};
use mcp_runtime::{Answer, BoxFuture, Catalog, Contract, Dispatch, McpServer, RequestContext};
use serde_json::value::RawValue;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::Subscriber;
use tracing_subscriber::filter::Targets;
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::Layer;

const PARENT: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
const OTHER: &str = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00";

/// What the `echo` tool saw of its request.
#[derive(Debug, Clone, Default, PartialEq)]
struct Seen {
    /// The current span's name while the handler ran.
    span: Option<&'static str>,
    traceparent: Option<String>,
    tracestate: Option<String>,
}

impl Seen {
    /// What a handler running now with `ctx` sees.
    fn now(ctx: &RequestContext) -> Self {
        Seen {
            span: tracing::Span::current().metadata().map(|m| m.name()),
            traceparent: ctx.trace_context().map(|t| t.traceparent()),
            tracestate: ctx
                .trace_context()
                .and_then(|t| t.tracestate())
                .map(str::to_string),
        }
    }
}

/// One tool and one plain JSON-RPC method, both `echo`, recording what they saw; the tool
/// `fail` answers a tool error.
struct Echo(Arc<Mutex<Vec<Seen>>>);

static CATALOG: Catalog = Catalog::empty("echo", "1");

impl Dispatch for Echo {
    fn contract(&self) -> &'static Contract {
        static CONTRACT: Contract = Contract::new(&CATALOG);
        &CONTRACT
    }

    /// The tool `echo` and the plain JSON-RPC method `echo`, recording what they saw.
    fn call<'a>(&'a self, call: Call<'a>) -> Option<BoxFuture<'a, Answer>> {
        let (kind, name) = (call.kind(), call.name());
        let ctx = call.into_context();
        match (kind, name) {
            (CallKind::Method, "echo") => Some(Box::pin(async move {
                self.0.lock().unwrap().push(Seen::now(&ctx));
                Answer::Success(RawValue::from_string("\"hi\"".into()).unwrap())
            })),
            (CallKind::Tool, "echo") => Some(Box::pin(async move {
                self.0.lock().unwrap().push(Seen::now(&ctx));
                Answer::from_mcp(Ok(mcp_runtime::mcp::ToolResult::text("hi")))
            })),
            // A tool error (`isError: true`): a result, not a JSON-RPC error.
            (CallKind::Tool, "fail") => Some(Box::pin(async move {
                Answer::from_mcp(Ok(mcp_runtime::mcp::ToolResult::error(
                    "\"isError\":false, as this text says",
                )))
            })),
            _ => None,
        }
    }
}

/// A closed request span: its fields as text.
type Fields = BTreeMap<String, String>;

#[derive(Default)]
struct FieldText(Fields);

impl Visit for FieldText {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.insert(
            field.name().to_string(),
            format!("{value:?}").replace('"', ""),
        );
    }
}

/// Keeps the fields of every `mcp::request` span, in the order they close.
#[derive(Clone, Default)]
struct Capture(Arc<Mutex<Vec<Fields>>>);

impl<S: Subscriber + for<'a> LookupSpan<'a>> Layer<S> for Capture {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let mut fields = FieldText::default();
        attrs.record(&mut fields);
        ctx.span(id).unwrap().extensions_mut().insert(fields);
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, ctx: Context<'_, S>) {
        let span = ctx.span(id).unwrap();
        let mut extensions = span.extensions_mut();
        values.record(extensions.get_mut::<FieldText>().unwrap());
    }

    fn on_close(&self, id: Id, ctx: Context<'_, S>) {
        let span = ctx.span(&id).unwrap();
        let fields = span.extensions_mut().remove::<FieldText>().unwrap();
        self.0.lock().unwrap().push(fields.0);
    }
}

/// A subscriber that enables the request spans only, as `RUST_LOG=mcp::request=debug` does.
fn capturing() -> (Capture, impl Subscriber + Send + Sync) {
    let capture = Capture::default();
    let filter = Targets::new().with_target(mcp_runtime::telemetry::TARGET, tracing::Level::DEBUG);
    let subscriber = tracing_subscriber::registry().with(capture.clone().with_filter(filter));
    (capture, subscriber)
}

async fn post(
    server: &McpServer<Echo>,
    headers: &[(&str, &str)],
    body: Value,
) -> (StatusCode, http::HeaderMap, Value) {
    post_to(server, "/mcp", headers, body).await
}

async fn post_to(
    server: &McpServer<Echo>,
    path: &str,
    headers: &[(&str, &str)],
    body: Value,
) -> (StatusCode, http::HeaderMap, Value) {
    let mut request = Request::post(path)
        .header("host", "localhost")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let request = request
        .body(Full::new(Bytes::from(body.to_string())))
        .unwrap();
    let response = server.handle(request).await;
    let (parts, body) = response.into_parts();
    let bytes = body.collect().await.unwrap().to_bytes();
    let json = if bytes.is_empty() {
        Value::Null
    } else {
        serde_json::from_slice(&bytes)
            .unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&bytes)))
    };
    (parts.status, parts.headers, json)
}

/// A session: `initialize` and `notifications/initialized`; its id.
async fn session(server: &McpServer<Echo>) -> String {
    let (status, headers, _) = post(
        server,
        &[],
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}}),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let id = headers["mcp-session-id"].to_str().unwrap().to_string();
    let (status, _, _) = post(
        server,
        &[
            ("mcp-session-id", &id),
            ("mcp-protocol-version", "2025-11-25"),
        ],
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    )
    .await;
    assert_eq!(status, StatusCode::ACCEPTED);
    id
}

fn stateless_meta(extra: Value) -> Value {
    let mut meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    meta.as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    meta
}

async fn stateless_call(
    server: &McpServer<Echo>,
    tool: &str,
    meta: Value,
    headers: &[(&str, &str)],
) -> Value {
    let mut all = vec![
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", tool),
    ];
    all.extend_from_slice(headers);
    let (status, _, body) = post(
        server,
        &all,
        json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
               "params": {"name": tool, "arguments": {}, "_meta": stateless_meta(meta)}}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body
}

#[tokio::test]
async fn a_session_call_runs_in_its_span_and_continues_the_clients_trace() {
    let (capture, subscriber) = capturing();
    let _guard = tracing::subscriber::set_default(subscriber);
    let seen = Arc::new(Mutex::new(Vec::new()));
    let server = McpServer::new(Echo(seen.clone()));
    let id = session(&server).await;
    let headers = [
        ("mcp-session-id", id.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    let (_, _, body) = post(
        &server,
        &headers,
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": "echo", "arguments": {},
            "_meta": {"traceparent": PARENT, "tracestate": "rojo=1"}}}),
    )
    .await;
    assert_eq!(body["result"]["content"][0]["text"], json!("hi"), "{body}");
    // An unknown tool: the span says which error.
    let (_, _, body) = post(
        &server,
        &headers,
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "nope"}}),
    )
    .await;
    assert_eq!(body["error"]["code"], json!(-32602), "{body}");
    // A tool error: `error.type` `tool_error`, the JSON-RPC outcome `ok`.
    let (_, _, body) = post(
        &server,
        &headers,
        json!({"jsonrpc": "2.0", "id": "c-3", "method": "tools/call", "params": {"name": "fail"}}),
    )
    .await;
    assert_eq!(body["result"]["isError"], json!(true), "{body}");

    assert_eq!(
        seen.lock().unwrap().clone(),
        vec![Seen {
            span: Some("mcp.request"),
            traceparent: Some(PARENT.into()),
            tracestate: Some("rojo=1".into()),
        }]
    );
    let spans = capture.0.lock().unwrap().clone();
    // initialize (answered by the HTTP edge, its span made by the engine) and the three calls.
    assert_eq!(spans.len(), 4, "{spans:#?}");
    let initialize = &spans[0];
    for (field, value) in [
        ("mcp.method.name", "initialize"),
        ("otel.name", "initialize"),
        ("mcp.protocol.version", "2025-11-25"),
        ("network.transport", "tcp"),
        ("network.protocol.name", "http"),
        ("era", "session"),
        ("outcome", "ok"),
    ] {
        assert_eq!(
            initialize.get(field).map(String::as_str),
            Some(value),
            "{field}: {initialize:#?}"
        );
    }
    let spans = &spans[1..];
    let fingerprint = &spans[0]["mcp.session.id"];
    assert_eq!(&initialize["mcp.session.id"], fingerprint, "{spans:#?}");
    assert!(
        fingerprint.len() == 8 && fingerprint.bytes().all(|b| b.is_ascii_hexdigit()),
        "{spans:#?}"
    );
    assert!(
        !id.contains(fingerprint.as_str()),
        "the session id is not logged"
    );
    let first = &spans[0];
    for (field, value) in [
        ("otel.name", "tools/call echo"),
        ("otel.kind", "server"),
        ("mcp.method.name", "tools/call"),
        ("gen_ai.tool.name", "echo"),
        ("gen_ai.operation.name", "execute_tool"),
        ("jsonrpc.request.id", "1"),
        ("mcp.protocol.version", "2025-11-25"),
        ("network.transport", "tcp"),
        ("network.protocol.name", "http"),
        ("era", "session"),
        ("outcome", "ok"),
        ("trace_id", "4bf92f3577b34da6a3ce929d0e0e4736"),
        ("parent_span_id", "00f067aa0ba902b7"),
    ] {
        assert_eq!(
            first.get(field).map(String::as_str),
            Some(value),
            "{field}: {first:#?}"
        );
    }
    assert!(first["duration_us"].parse::<u64>().is_ok(), "{first:#?}");
    for gone in [
        "error.type",
        "rpc.response.status_code",
        "otel.status_code",
        // The names of before the conventions.
        "method",
        "name",
        "session",
        "error_code",
    ] {
        assert!(!first.contains_key(gone), "{gone}: {first:#?}");
    }
    let second = &spans[1];
    assert_eq!(second["outcome"], "error", "{second:#?}");
    assert_eq!(second["error.type"], "-32602", "{second:#?}");
    assert_eq!(second["rpc.response.status_code"], "-32602", "{second:#?}");
    assert_eq!(second["otel.status_code"], "error", "{second:#?}");
    assert_eq!(second["gen_ai.tool.name"], "nope");
    assert_eq!(second["otel.name"], "tools/call nope");
    assert!(!second.contains_key("trace_id"), "{second:#?}");
    let third = &spans[2];
    assert_eq!(third["outcome"], "ok", "{third:#?}");
    assert_eq!(third["error.type"], "tool_error", "{third:#?}");
    assert_eq!(third["otel.status_code"], "error", "{third:#?}");
    assert_eq!(third["jsonrpc.request.id"], "c-3", "{third:#?}");
    assert!(
        !third.contains_key("rpc.response.status_code"),
        "{third:#?}"
    );
}

#[tokio::test]
async fn a_stateless_call_takes_meta_first_then_the_http_header_and_ignores_bad_values() {
    let (capture, subscriber) = capturing();
    let _guard = tracing::subscriber::set_default(subscriber);
    let seen = Arc::new(Mutex::new(Vec::new()));
    let server = McpServer::new(Echo(seen.clone()));
    // _meta and the header: _meta wins.
    stateless_call(
        &server,
        "echo",
        json!({"traceparent": PARENT}),
        &[("traceparent", OTHER)],
    )
    .await;
    // The header alone.
    stateless_call(
        &server,
        "echo",
        json!({}),
        &[("traceparent", OTHER), ("tracestate", "congo=2")],
    )
    .await;
    // Bad values: ignored, the call answers.
    stateless_call(
        &server,
        "echo",
        json!({"traceparent": 7, "tracestate": {"a": 1}}),
        &[],
    )
    .await;
    stateless_call(
        &server,
        "echo",
        json!({"traceparent": PARENT.to_uppercase()}),
        &[(
            "traceparent",
            "00-00000000000000000000000000000000-b7ad6b7169203331-01",
        )],
    )
    .await;
    let seen = seen.lock().unwrap().clone();
    let parents: Vec<_> = seen.iter().map(|s| s.traceparent.as_deref()).collect();
    assert_eq!(parents, [Some(PARENT), Some(OTHER), None, None]);
    assert_eq!(seen[1].tracestate.as_deref(), Some("congo=2"));
    assert!(seen.iter().all(|s| s.span == Some("mcp.request")));
    let spans = capture.0.lock().unwrap().clone();
    assert_eq!(spans.len(), 4, "{spans:#?}");
    assert!(
        spans.iter().all(|s| s["era"] == "stateless"
            && s["gen_ai.tool.name"] == "echo"
            && s["mcp.protocol.version"] == "2026-07-28"
            && s["jsonrpc.request.id"] == "5"
            && s["outcome"] == "ok"
            && !s.contains_key("mcp.session.id")),
        "{spans:#?}"
    );
    assert_eq!(spans[1]["trace_id"], "0af7651916cd43dd8448eb211c80319c");
    assert_eq!(spans[1]["parent_span_id"], "b7ad6b7169203331");
    assert!(!spans[2].contains_key("trace_id") && !spans[3].contains_key("trace_id"));
}

#[tokio::test]
async fn stdio_requests_have_spans_too() {
    let (capture, subscriber) = capturing();
    let _guard = tracing::subscriber::set_default(subscriber);
    let seen = Arc::new(Mutex::new(Vec::new()));
    let input = [
        json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}),
        json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
        // Params before the method: read raw, probed for the trace since the span is on.
        json!({"params":{"_meta":{"traceparent":PARENT}},"jsonrpc":"2.0","id":1,"method":"tools/list"}),
        json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","_meta":{"traceparent":OTHER}}}),
        // No resources here: the read fails, the subscription is taken; both spans name the URI.
        json!({"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"test://r"}}),
        json!({"jsonrpc":"2.0","id":4,"method":"resources/subscribe","params":{"uri":"test://s"}}),
    ]
    .iter()
    .map(|line| line.to_string() + "\n")
    .collect::<String>();
    let (writer, _reader) = tokio::io::duplex(64 * 1024);
    let server = McpServer::new(Echo(seen.clone()));
    mcp_runtime::stdio::serve_io(server, input.as_bytes(), writer)
        .await
        .unwrap();
    let mut spans = capture.0.lock().unwrap().clone();
    spans.sort_by(|a, b| a["mcp.method.name"].cmp(&b["mcp.method.name"]));
    let field = |s: &Fields, name: &str| s.get(name).cloned().unwrap_or_default();
    let summary: Vec<_> = spans
        .iter()
        .map(|s| {
            (
                field(s, "mcp.method.name"),
                field(s, "trace_id"),
                field(s, "era"),
            )
        })
        .collect();
    let expected: Vec<_> = [
        ("initialize", "", "session"),
        ("resources/read", "", "session"),
        ("resources/subscribe", "", "session"),
        ("tools/call", "0af7651916cd43dd8448eb211c80319c", "session"),
        ("tools/list", "4bf92f3577b34da6a3ce929d0e0e4736", "session"),
    ]
    .iter()
    .map(|(m, t, e)| (m.to_string(), t.to_string(), e.to_string()))
    .collect();
    assert_eq!(summary, expected, "{spans:#?}");
    // stdio: a pipe, no HTTP.
    assert!(
        spans.iter().all(|s| s["network.transport"] == "pipe"
            && !s.contains_key("network.protocol.name")
            && s["mcp.protocol.version"] == "2025-06-18"),
        "{spans:#?}"
    );
    assert_eq!(spans[3]["otel.name"], "tools/call echo", "{spans:#?}");
    assert_eq!(spans[4]["jsonrpc.request.id"], "1", "{spans:#?}");
    for (span, uri) in [(&spans[1], "test://r"), (&spans[2], "test://s")] {
        assert_eq!(span["mcp.resource.uri"], uri, "{span:#?}");
        assert_eq!(span["otel.name"], span["mcp.method.name"], "{span:#?}");
    }
    assert_eq!(spans[1]["outcome"], "error", "{spans:#?}");
    assert_eq!(seen.lock().unwrap()[0].traceparent.as_deref(), Some(OTHER));
}

#[tokio::test]
async fn the_plain_jsonrpc_endpoint_and_initialize_have_spans_with_the_clients_trace() {
    let (capture, subscriber) = capturing();
    let _guard = tracing::subscriber::set_default(subscriber);
    let seen = Arc::new(Mutex::new(Vec::new()));
    let config = mcp_runtime::Config::builder()
        .jsonrpc_path(Some("/rpc".into()))
        .build();
    let server = McpServer::builder(Echo(seen.clone()))
        .config(config)
        .build();
    // The HTTP header; then `_meta` in by-name params, which wins over it.
    let (status, _, body) = post_to(
        &server,
        "/rpc",
        &[("traceparent", PARENT), ("tracestate", "rojo=1")],
        json!({"jsonrpc": "2.0", "id": 1, "method": "echo"}),
    )
    .await;
    assert_eq!(
        (status, &body["result"]),
        (StatusCode::OK, &json!("hi")),
        "{body}"
    );
    let (_, _, body) = post_to(
        &server,
        "/rpc",
        &[("traceparent", PARENT)],
        json!([{"jsonrpc": "2.0", "id": 2, "method": "echo", "params": {"_meta": {"traceparent": OTHER}}},
               {"jsonrpc": "2.0", "id": 3, "method": "rpc.discover"}]),
    )
    .await;
    assert_eq!(body[0]["result"], json!("hi"), "{body}");
    // This dispatch has no document to discover.
    assert_eq!(body[1]["error"]["code"], json!(-32601), "{body}");
    // initialize, its trace context from `_meta`.
    let (status, _, body) = post(
        &server,
        &[],
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}, "_meta": {"traceparent": OTHER}}}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");

    let inside = |traceparent: &str, tracestate: Option<&str>| Seen {
        span: Some("mcp.request"),
        traceparent: Some(traceparent.into()),
        tracestate: tracestate.map(str::to_string),
    };
    assert_eq!(
        seen.lock().unwrap().clone(),
        vec![inside(PARENT, Some("rojo=1")), inside(OTHER, None)]
    );
    let mut spans = capture.0.lock().unwrap().clone();
    spans.sort_by(|a, b| {
        (&a["mcp.method.name"], &a["trace_id"]).cmp(&(&b["mcp.method.name"], &b["trace_id"]))
    });
    let field = |s: &Fields, name: &str| s.get(name).cloned().unwrap_or_default();
    let summary: Vec<_> = spans
        .iter()
        .map(|s| {
            [
                field(s, "mcp.method.name"),
                field(s, "era"),
                field(s, "outcome"),
                field(s, "trace_id"),
            ]
        })
        .collect();
    let expected: Vec<[String; 4]> = [
        ["echo", "jsonrpc", "ok", "0af7651916cd43dd8448eb211c80319c"],
        ["echo", "jsonrpc", "ok", "4bf92f3577b34da6a3ce929d0e0e4736"],
        [
            "initialize",
            "session",
            "ok",
            "0af7651916cd43dd8448eb211c80319c",
        ],
        [
            "rpc.discover",
            "jsonrpc",
            "error",
            "4bf92f3577b34da6a3ce929d0e0e4736",
        ],
    ]
    .map(|row| row.map(str::to_string))
    .to_vec();
    assert_eq!(summary, expected, "{spans:#?}");
    assert_eq!(spans[3]["error.type"], "-32601", "{spans:#?}");
    assert_eq!(spans[3]["jsonrpc.request.id"], "3", "{spans:#?}");
    assert_eq!(spans[1]["jsonrpc.request.id"], "1", "{spans:#?}");
    // The plain endpoint has no MCP revision; initialize is not given its id.
    assert!(!spans[0].contains_key("mcp.protocol.version"), "{spans:#?}");
    assert!(!spans[2].contains_key("jsonrpc.request.id"), "{spans:#?}");
    assert_eq!(spans[2]["mcp.session.id"].len(), 8, "{spans:#?}");
    assert_eq!(spans[2]["mcp.protocol.version"], "2025-06-18", "{spans:#?}");
}
