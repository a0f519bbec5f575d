//! The `otel` feature for real: an OTLP receiver (HTTP/protobuf, `POST /v1/traces`) on
//! 127.0.0.1 in this test, a server whose subscriber `telemetry::init` set up from
//! `OTEL_EXPORTER_OTLP_ENDPOINT` as a server binary's does, a request carrying a
//! `traceparent`: the exported request span continues the client's trace, is named and has
//! the attributes of the OpenTelemetry semantic conventions for MCP, and a span the handler
//! opens is its child.
//!
//! One test in this file: it sets the process's global subscriber and environment.

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::service::service_fn;
use mcp_runtime::dispatch::{Call, CallKind};
use mcp_runtime::{Answer, BoxFuture, Catalog, Contract, Dispatch, McpServer};
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::any_value::Value as AnyValue;
use opentelemetry_proto::tonic::trace::v1::Span;
use prost::Message;
use serde_json::json;
use std::sync::mpsc;
use std::time::Duration;
use tokio::net::TcpListener;

/// The span attributes the OpenTelemetry semantic conventions for MCP define
/// (open-telemetry/semantic-conventions-genai, docs/gen-ai/mcp.md, status Development): every
/// attribute of the request span is one of these, one of [`OURS`], or the `tracing` layer's
/// own ([`LAYERS`]).
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

/// The runtime's attributes that have no convention.
const OURS: [&str; 5] = [
    "era",
    "outcome",
    "duration_us",
    "trace_id",
    "parent_span_id",
];

/// Prefixes and names of what `tracing-opentelemetry` adds to every span.
const LAYERS: [&str; 6] = ["code.", "thread.", "busy_ns", "idle_ns", "target", "level"];

const TRACE_ID: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT_ID: &str = "00f067aa0ba902b7";

struct Echo;

static CATALOG: Catalog = Catalog::empty("otel-echo", "1");

impl Dispatch for Echo {
    fn contract(&self) -> &'static Contract {
        static CONTRACT: Contract = Contract::new(&CATALOG);
        &CONTRACT
    }

    fn call<'a>(&'a self, call: Call<'a>) -> Option<BoxFuture<'a, Answer>> {
        if call.kind() != CallKind::Tool {
            return None;
        }
        Some(Box::pin(async move {
            // The handler's own span: a child of the request's.
            tracing::info_span!("echo.work")
                .in_scope(|| Answer::from_mcp(Ok(mcp_runtime::mcp::ToolResult::text("hi"))))
        }))
    }
}

/// The receiver: decodes every `POST /v1/traces` body and answers an empty
/// `ExportTraceServiceResponse`.
async fn receive(
    listener: TcpListener,
    exported: mpsc::Sender<(String, ExportTraceServiceRequest)>,
) {
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            return;
        };
        let exported = exported.clone();
        tokio::spawn(async move {
            let service = service_fn(move |request: hyper::Request<hyper::body::Incoming>| {
                let exported = exported.clone();
                async move {
                    let path = request.uri().path().to_string();
                    let content_type = request
                        .headers()
                        .get("content-type")
                        .and_then(|v| v.to_str().ok())
                        .unwrap_or("")
                        .to_string();
                    assert_eq!(content_type, "application/x-protobuf");
                    let body = request.into_body().collect().await?.to_bytes();
                    let decoded = ExportTraceServiceRequest::decode(body).expect("OTLP protobuf");
                    let _ = exported.send((path, decoded));
                    Ok::<_, hyper::Error>(
                        hyper::Response::builder()
                            .header("content-type", "application/x-protobuf")
                            .body(Full::new(Bytes::new()))
                            .unwrap(),
                    )
                }
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                .await;
        });
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn attribute(span: &Span, key: &str) -> Option<String> {
    let value = span
        .attributes
        .iter()
        .find(|a| a.key == key)?
        .value
        .as_ref()?;
    Some(match value.value.as_ref()? {
        AnyValue::StringValue(s) => s.clone(),
        AnyValue::IntValue(i) => i.to_string(),
        other => format!("{other:?}"),
    })
}

#[test]
fn request_spans_reach_an_otlp_receiver_as_children_of_the_clients_span() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let (sender, exported) = mpsc::channel();
    let receiver = runtime.block_on(TcpListener::bind("127.0.0.1:0")).unwrap();
    let receiver_addr = receiver.local_addr().unwrap();
    runtime.spawn(receive(receiver, sender));

    // As a server binary starts (outside the async runtime: the exporter's HTTP client is a
    // blocking one, on the batch processor's thread).
    std::env::set_var(
        "OTEL_EXPORTER_OTLP_ENDPOINT",
        format!("http://{receiver_addr}"),
    );
    std::env::remove_var("OTEL_SERVICE_NAME");
    std::env::remove_var("RUST_LOG");
    let telemetry = mcp_runtime::telemetry::init("otel-echo").expect("the exporter starts");

    let listener = runtime.block_on(TcpListener::bind("127.0.0.1:0")).unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let served = runtime.spawn(McpServer::new(Echo).serve_listener(listener, async move {
        let _ = stopped.await;
    }));

    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
    "name": "echo", "arguments": {},
    "_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "traceparent": format!("00-{TRACE_ID}-{PARENT_ID}-01"),
    }}});
    let answer = runtime.block_on(async {
        let client =
            hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
                .build_http::<Full<Bytes>>();
        let request = hyper::Request::post(format!("http://{addr}/mcp"))
            .header("host", "localhost")
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "tools/call")
            .header("mcp-name", "echo")
            .body(Full::new(Bytes::from(body.to_string())))
            .unwrap();
        let response = client.request(request).await.unwrap();
        assert_eq!(response.status(), 200);
        response.into_body().collect().await.unwrap().to_bytes()
    });
    let answer: serde_json::Value = serde_json::from_slice(&answer).unwrap();
    assert_eq!(
        answer["result"]["content"][0]["text"],
        json!("hi"),
        "{answer}"
    );

    // Dropping the handle flushes the exporter.
    drop(telemetry);
    let mut spans = Vec::new();
    let mut service_names = Vec::new();
    while let Ok((path, request)) = exported.recv_timeout(Duration::from_secs(10)) {
        assert_eq!(path, "/v1/traces");
        for resource_spans in request.resource_spans {
            if let Some(resource) = &resource_spans.resource {
                for a in &resource.attributes {
                    if a.key == "service.name" {
                        service_names.push(format!("{:?}", a.value));
                    }
                }
            }
            for scope in resource_spans.scope_spans {
                spans.extend(scope.spans);
            }
        }
        if spans.iter().any(|s| s.name == "tools/call echo")
            && spans.iter().any(|s| s.name == "echo.work")
        {
            break;
        }
    }
    let _ = stop.send(());
    runtime.block_on(served).unwrap().unwrap();

    let request = spans
        .iter()
        .find(|s| s.name == "tools/call echo")
        .unwrap_or_else(|| panic!("no request span exported: {spans:#?}"));
    assert_eq!(hex(&request.trace_id), TRACE_ID, "{request:#?}");
    assert_eq!(hex(&request.parent_span_id), PARENT_ID, "{request:#?}");
    assert_eq!(request.kind, 2, "SPAN_KIND_SERVER: {request:#?}");
    for (key, value) in [
        ("mcp.method.name", "tools/call"),
        ("gen_ai.tool.name", "echo"),
        ("gen_ai.operation.name", "execute_tool"),
        ("jsonrpc.request.id", "1"),
        ("mcp.protocol.version", "2026-07-28"),
        ("network.transport", "tcp"),
        ("network.protocol.name", "http"),
        ("era", "stateless"),
        ("outcome", "ok"),
        ("trace_id", TRACE_ID),
        ("parent_span_id", PARENT_ID),
    ] {
        assert_eq!(
            attribute(request, key).as_deref(),
            Some(value),
            "{key}: {request:#?}"
        );
    }
    for attribute in &request.attributes {
        let key = attribute.key.as_str();
        assert!(
            CONVENTIONS.contains(&key)
                || OURS.contains(&key)
                || LAYERS.iter().any(|own| key.starts_with(own)),
            "`{key}` is neither a convention's attribute nor ours: {request:#?}"
        );
    }
    // The names of before the conventions are gone; a success has no error.
    for gone in ["method", "name", "session", "error_code", "error.type"] {
        assert_eq!(attribute(request, gone), None, "{gone}: {request:#?}");
    }
    let work = spans.iter().find(|s| s.name == "echo.work").unwrap();
    assert_eq!(work.trace_id, request.trace_id);
    assert_eq!(
        work.parent_span_id, request.span_id,
        "the handler's span is a child"
    );
    assert!(
        service_names.iter().all(|n| n.contains("otel-echo")) && !service_names.is_empty(),
        "{service_names:?}"
    );
}
