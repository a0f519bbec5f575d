//! Server-execution telemetry (draft SEP-2448, `config.telemetry.return_traces` /
//! `--return-traces`) against a real server on 127.0.0.1: a call whose `_meta.otel.traces.request`
//! is true gets its request span and the handler's spans back in the result's `_meta.otel.traces`,
//! as OTLP JSON under the client's trace; a call that does not ask, or a server that does not
//! return traces, gets no `_meta.otel`; the bounds hold; a capture outlives no call.
//!
//! The request bodies are raw text with their keys in unusual orders (`params` before
//! `method`, `_meta` before `name`), as a client may send them.
//!
//! The process's global subscriber has the passback layer (as `entry` installs it); the tests
//! run one at a time (`SERIAL`), since they count the captures alive in the process.

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use mcp_runtime::dispatch::{Call, CallKind};
use mcp_runtime::telemetry::passback::{self, PassbackLayer};
use mcp_runtime::{Answer, BoxFuture, Catalog, Config, Contract, Dispatch, McpServer};
use serde_json::value::RawValue;
use serde_json::{json, Value};
use std::sync::Once;
use std::time::Duration;
use tokio::net::TcpListener;
use tracing_subscriber::filter::Targets;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::Layer;

const TRACE_ID: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT_ID: &str = "00f067aa0ba902b7";
const HANDLER_SPANS: usize = 200;

static CATALOG: Catalog = Catalog::empty("passback-test", "1");

struct Traced;

fn text(text: &str) -> Answer {
    Answer::from_mcp(Ok(mcp_runtime::mcp::ToolResult::text(text)))
}

impl Dispatch for Traced {
    fn contract(&self) -> &'static Contract {
        static CONTRACT: Contract = Contract::new(&CATALOG);
        &CONTRACT
    }

    fn call<'a>(&'a self, call: Call<'a>) -> Option<BoxFuture<'a, Answer>> {
        let name = call.name();
        match call.kind() {
            CallKind::Prompt => return Some(prompt(name)),
            CallKind::Resource => return Some(resource(name)),
            CallKind::Tool => {}
            // A plain method, a subscription: nothing here serves them.
            _ => return None,
        }
        Some(Box::pin(async move {
            match name {
                // A child with a grandchild.
                "echo" => tracing::info_span!("echo.work", work.items = 3_i64).in_scope(|| {
                    tracing::info_span!("echo.inner", deep = true).in_scope(|| {});
                    text("hi")
                }),
                "many" => {
                    for step in 0..HANDLER_SPANS {
                        tracing::info_span!("many.step", step).in_scope(|| {});
                    }
                    text("many")
                }
                // Few spans, each of several long attributes: the byte bound is what stops them.
                "big" => {
                    let long = "x".repeat(4096);
                    for _ in 0..40 {
                        tracing::info_span!(
                            "big.step",
                            a = %long, b = %long, c = %long, d = %long,
                            e = %long, f = %long, g = %long, h = %long
                        )
                        .in_scope(|| {});
                    }
                    text("big")
                }
                "fail" => tracing::info_span!("fail.check").in_scope(|| {
                    Answer::from_mcp(Ok(mcp_runtime::mcp::ToolResult::error("refused")))
                }),
                "hang" => {
                    tracing::info_span!("hang.before").in_scope(|| {});
                    let wait = tracing::info_span!("hang.wait");
                    tracing::Instrument::instrument(std::future::pending::<Answer>(), wait).await
                }
                _ => text("?"),
            }
        }))
    }
}

/// A prompt of `name`, rendered in a span of its own.
fn prompt(name: &str) -> BoxFuture<'_, Answer> {
    Box::pin(async move {
        tracing::info_span!("prompt.render", prompt = %name).in_scope(|| {
            let text = json!({"messages": [
                {"role": "user", "content": {"type": "text", "text": name}}
            ]})
            .to_string();
            Answer::Success(RawValue::from_string(text).unwrap())
        })
    })
}

/// The resource at `uri`, loaded in a span of its own.
fn resource(uri: &str) -> BoxFuture<'_, Answer> {
    Box::pin(async move {
        tracing::info_span!("resource.load").in_scope(|| {
            let text = json!({"contents": [{"uri": uri, "text": "r"}]}).to_string();
            Answer::Success(RawValue::from_string(text).unwrap())
        })
    })
}

static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// One test at a time, the global subscriber set up once (the passback layer under an `info`
/// filter, as `entry` installs it with `--log-level info`).
async fn serial() -> tokio::sync::MutexGuard<'static, ()> {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let layer = passback::layer("passback-test").with_filter(
            Targets::new()
                .with_default(tracing::Level::INFO)
                .with_target(mcp_runtime::telemetry::TARGET, tracing::Level::INFO),
        );
        tracing::subscriber::set_global_default(tracing_subscriber::registry().with(layer))
            .unwrap();
    });
    SERIAL.lock().await
}

/// A server on 127.0.0.1, serving until `stop`.
struct Running {
    addr: std::net::SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.stop.take().map(|stop| stop.send(()));
    }
}

async fn start(return_traces: bool) -> Running {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let config = Config::builder().return_traces(return_traces).build();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(
        McpServer::builder(Traced)
            .config(config)
            .build()
            .serve_listener(listener, async move {
                let _ = stopped.await;
            }),
    );
    Running {
        addr,
        stop: Some(stop),
    }
}

/// POSTs `body` (raw text) to `/mcp`; the status, the session id it names, and the JSON
/// answer (from an SSE `data:` line when the answer is a stream).
async fn post(
    server: &Running,
    headers: &[(&str, &str)],
    body: String,
) -> (u16, Option<String>, Value) {
    let client = hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
        .build_http::<Full<Bytes>>();
    let mut request = hyper::Request::post(format!("http://{}/mcp", server.addr))
        .header("host", "localhost")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = client
        .request(request.body(Full::new(Bytes::from(body))).unwrap())
        .await
        .unwrap();
    let status = response.status().as_u16();
    let session = response
        .headers()
        .get("mcp-session-id")
        .map(|v| v.to_str().unwrap().to_string());
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    let text = String::from_utf8(bytes.to_vec()).unwrap();
    let json = if text.trim().is_empty() {
        Value::Null
    } else if let Ok(json) = serde_json::from_str(&text) {
        json
    } else {
        let data = text
            .lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .find(|data| data.contains("\"id\""))
            .unwrap_or_else(|| panic!("no answer in {text}"));
        serde_json::from_str(data.trim()).unwrap()
    };
    (status, session, json)
}

/// A 2025-11-25 session: its id, and the `initialize` result.
async fn session(server: &Running) -> (String, Value) {
    let (status, id, init) = post(
        server,
        &[],
        r#"{"params":{"clientInfo":{"version":"1","name":"t"},"capabilities":{},"protocolVersion":"2025-11-25"},"id":0,"method":"initialize","jsonrpc":"2.0"}"#.into(),
    )
    .await;
    assert_eq!(status, 200, "{init}");
    let id = id.unwrap();
    let (status, _, _) = post(
        server,
        &[
            ("mcp-session-id", &id),
            ("mcp-protocol-version", "2025-11-25"),
        ],
        r#"{"method":"notifications/initialized","jsonrpc":"2.0"}"#.into(),
    )
    .await;
    assert_eq!(status, 202);
    (id, init)
}

async fn session_call(server: &Running, session: &str, id: u32, tool: &str, meta: &str) -> Value {
    let body = format!(
        r#"{{"params":{{"_meta":{meta},"arguments":{{}},"name":"{tool}"}},"id":{id},"jsonrpc":"2.0","method":"tools/call"}}"#
    );
    let (status, _, answer) = post(
        server,
        &[
            ("mcp-session-id", session),
            ("mcp-protocol-version", "2025-11-25"),
        ],
        body,
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    answer
}

/// A 2026-07-28 (stateless) request of `method` naming `name`, its `_meta` members `meta`
/// (text, without braces) before the era's own.
async fn stateless(server: &Running, method: &str, name: &str, meta: &str) -> Value {
    let target = if method == "resources/read" {
        format!(r#""uri":"{name}""#)
    } else {
        format!(r#""name":"{name}","arguments":{{}}"#)
    };
    let comma = if meta.is_empty() { "" } else { "," };
    let body = format!(
        r#"{{"params":{{"_meta":{{{meta}{comma}"io.modelcontextprotocol/clientCapabilities":{{}},"io.modelcontextprotocol/protocolVersion":"2026-07-28"}},{target}}},"id":"s-1","method":"{method}","jsonrpc":"2.0"}}"#
    );
    let (status, _, answer) = post(
        server,
        &[
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", method),
            ("mcp-name", name),
        ],
        body,
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    answer
}

fn asking(detailed: bool) -> String {
    format!(
        r#"{{"x-unknown":{{"keep":"out"}},"otel":{{"traces":{{"detailed":{detailed},"request":true,"x-more":1}}}},"traceparent":"00-{TRACE_ID}-{PARENT_ID}-01"}}"#
    )
}

/// The returned spans, checked to be one resource of one scope; with `droppedSpansCount`.
fn spans_of(answer: &Value) -> (Vec<Value>, u64) {
    let traces = &answer["result"]["_meta"]["otel"]["traces"];
    let resources = traces["resourceSpans"]
        .as_array()
        .unwrap_or_else(|| panic!("{answer}"));
    assert_eq!(resources.len(), 1, "{traces}");
    assert_eq!(
        resources[0]["resource"]["attributes"][0],
        json!({"key": "service.name", "value": {"stringValue": "passback-test"}})
    );
    let scopes = resources[0]["scopeSpans"].as_array().unwrap();
    assert_eq!(scopes.len(), 1, "{traces}");
    assert_eq!(scopes[0]["scope"]["name"], "mcp-runtime");
    let dropped = traces["droppedSpansCount"].as_u64().unwrap_or(0);
    (scopes[0]["spans"].as_array().unwrap().clone(), dropped)
}

fn attribute<'a>(span: &'a Value, key: &str) -> &'a Value {
    span["attributes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["key"] == key)
        .map_or(&Value::Null, |a| &a["value"])
}

fn named<'a>(spans: &'a [Value], name: &str) -> &'a Value {
    spans
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("no span {name}: {spans:#?}"))
}

fn nanos(span: &Value, key: &str) -> u128 {
    span[key].as_str().unwrap().parse().unwrap()
}

/// Waits for every capture to be freed (a span closing on another thread may lag the answer).
async fn no_capture_left() {
    for _ in 0..100 {
        if PassbackLayer::live_captures() == 0 {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("{} captures still alive", PassbackLayer::live_captures());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_call_that_asks_gets_its_spans_under_the_clients_trace() {
    let _serial = serial().await;
    let server = start(true).await;
    let (session, init) = session(&server).await;
    assert_eq!(
        init["result"]["capabilities"]["serverExecutionTelemetry"],
        json!({"version": "2026-03-01", "signals": {"traces": {"supported": true}}}),
        "{init}"
    );

    let answer = session_call(&server, &session, 1, "echo", &asking(true)).await;
    assert_eq!(answer["result"]["content"][0]["text"], "hi", "{answer}");
    // Only `otel.traces` in the result's `_meta`: the request's other members stay out.
    let meta = answer["result"]["_meta"].as_object().unwrap();
    assert_eq!(meta.keys().collect::<Vec<_>>(), ["otel"], "{answer}");
    assert_eq!(
        meta["otel"].as_object().unwrap().keys().collect::<Vec<_>>(),
        ["traces"]
    );
    let (spans, dropped) = spans_of(&answer);
    assert_eq!((spans.len(), dropped), (3, 0), "{spans:#?}");
    let root = &spans[0];
    assert_eq!(root["name"], "tools/call echo");
    assert_eq!(root["kind"], 2, "SERVER");
    assert_eq!(root["status"]["code"], 1, "OK");
    assert_eq!(root["parentSpanId"], PARENT_ID);
    for (key, value) in [
        ("mcp.method.name", "tools/call"),
        ("gen_ai.tool.name", "echo"),
        ("gen_ai.operation.name", "execute_tool"),
        ("mcp.protocol.version", "2025-11-25"),
        ("jsonrpc.request.id", "1"),
        ("network.transport", "tcp"),
        ("network.protocol.name", "http"),
        ("era", "session"),
    ] {
        assert_eq!(
            attribute(root, key),
            &json!({ "stringValue": value }),
            "{key}: {root:#}"
        );
    }
    // The log-only fields restate the ids, which the record itself carries.
    assert!(attribute(root, "trace_id").is_null() && attribute(root, "otel.name").is_null());
    let work = named(&spans, "echo.work");
    let inner = named(&spans, "echo.inner");
    assert_eq!(work["parentSpanId"], root["spanId"]);
    assert_eq!(inner["parentSpanId"], work["spanId"]);
    assert_eq!(work["kind"], 1, "INTERNAL");
    assert_eq!(attribute(work, "work.items"), &json!({"intValue": "3"}));
    assert_eq!(attribute(inner, "deep"), &json!({"boolValue": true}));
    for span in &spans {
        assert_eq!(span["traceId"], TRACE_ID, "{span:#}");
        assert_eq!(span["spanId"].as_str().unwrap().len(), 16, "{span:#}");
        assert!(nanos(span, "startTimeUnixNano") <= nanos(span, "endTimeUnixNano"));
        assert!(nanos(root, "startTimeUnixNano") <= nanos(span, "startTimeUnixNano"));
    }
    let ids: std::collections::BTreeSet<_> = spans.iter().map(|s| s["spanId"].as_str()).collect();
    assert_eq!(ids.len(), 3);

    // Not `detailed` (the draft's default): the request span and its direct children.
    let answer = session_call(&server, &session, 2, "echo", &asking(false)).await;
    let (spans, _) = spans_of(&answer);
    let names: Vec<_> = spans.iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["tools/call echo", "echo.work"]);
    no_capture_left().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stateless_calls_reads_and_tool_errors_return_their_spans() {
    let _serial = serial().await;
    let server = start(true).await;
    let (status, _, discover) = post(
        &server,
        &[
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "server/discover"),
        ],
        r#"{"params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/protocolVersion":"2026-07-28"}},"id":2,"method":"server/discover","jsonrpc":"2.0"}"#.into(),
    )
    .await;
    assert_eq!(status, 200, "{discover}");
    assert_eq!(
        discover["result"]["capabilities"]["serverExecutionTelemetry"]["signals"]["traces"]
            ["supported"],
        true,
        "{discover}"
    );
    // A tool error: the result carries its spans, the request span's status is an error.
    let answer = stateless(
        &server,
        "tools/call",
        "fail",
        &asking(false)[1..asking(false).len() - 1],
    )
    .await;
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    let (spans, _) = spans_of(&answer);
    let root = &spans[0];
    assert_eq!(root["status"]["code"], 2, "{root:#}");
    assert_eq!(
        attribute(root, "error.type"),
        &json!({"stringValue": "tool_error"})
    );
    assert_eq!(attribute(root, "era"), &json!({"stringValue": "stateless"}));
    assert_eq!(
        attribute(root, "mcp.protocol.version"),
        &json!({"stringValue": "2026-07-28"})
    );
    assert_eq!(named(&spans, "fail.check")["parentSpanId"], root["spanId"]);
    assert!(spans.iter().all(|s| s["traceId"] == TRACE_ID));

    // resources/read, without a traceparent: a trace of the server's own, the request span a
    // root.
    let answer = stateless(
        &server,
        "resources/read",
        "test://r",
        r#""otel":{"traces":{"request":true}}"#,
    )
    .await;
    assert_eq!(answer["result"]["contents"][0]["text"], "r", "{answer}");
    let (spans, _) = spans_of(&answer);
    let root = &spans[0];
    assert_eq!(root["name"], "resources/read");
    assert_eq!(
        attribute(root, "mcp.resource.uri"),
        &json!({"stringValue": "test://r"})
    );
    assert!(root.get("parentSpanId").is_none(), "{root:#}");
    let trace = root["traceId"].as_str().unwrap();
    assert!(trace.len() == 32 && trace != TRACE_ID && trace != "0".repeat(32));
    assert_eq!(named(&spans, "resource.load")["traceId"], trace);
    no_capture_left().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_that_does_not_ask_or_a_server_that_does_not_return_traces_gets_no_otel() {
    let _serial = serial().await;
    let server = start(true).await;
    for meta in [
        "",
        r#""traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01""#,
        r#""otel":{"traces":{"request":false,"detailed":true}}"#,
        r#""otel":{"traces":{"request":"yes"}}"#,
        r#""otel":"traces""#,
    ] {
        let answer = stateless(&server, "tools/call", "echo", meta).await;
        assert_eq!(answer["result"]["content"][0]["text"], "hi", "{answer}");
        assert!(answer["result"].get("_meta").is_none(), "{meta}: {answer}");
    }
    drop(server);

    let off = start(false).await;
    let (session, init) = session(&off).await;
    assert!(init["result"]["capabilities"]
        .get("serverExecutionTelemetry")
        .is_none());
    let answer = session_call(&off, &session, 1, "echo", &asking(true)).await;
    assert_eq!(answer["result"]["content"][0]["text"], "hi", "{answer}");
    assert!(answer["result"].get("_meta").is_none(), "{answer}");
    let inner = asking(true);
    let answer = stateless(&off, "tools/call", "echo", &inner[1..inner.len() - 1]).await;
    assert!(answer["result"].get("_meta").is_none(), "{answer}");
    assert_eq!(PassbackLayer::live_captures(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_bounds_hold_for_handlers_that_make_many_or_large_spans() {
    let _serial = serial().await;
    let server = start(true).await;
    let inner = asking(true);
    let meta = &inner[1..inner.len() - 1];
    let answer = stateless(&server, "tools/call", "many", meta).await;
    let (spans, dropped) = spans_of(&answer);
    assert_eq!(spans.len(), passback::MAX_SPANS);
    assert_eq!(dropped as usize, HANDLER_SPANS + 1 - passback::MAX_SPANS);
    assert_eq!(spans[0]["name"], "tools/call many");
    assert_eq!(
        named(&spans, "many.step")["attributes"][0]["value"]["intValue"],
        "0"
    );

    let answer = stateless(&server, "tools/call", "big", meta).await;
    let (spans, dropped) = spans_of(&answer);
    let bytes = answer["result"]["_meta"]["otel"]["traces"]
        .to_string()
        .len();
    assert!(bytes <= passback::MAX_BYTES, "{bytes}");
    assert!(
        dropped > 0 && spans.len() < 41,
        "{} spans, {dropped} dropped",
        spans.len()
    );
    assert_eq!(spans.len() - 1 + dropped as usize, 40);
    // Each long value cut to the attribute bound.
    let value = attribute(&spans[1], "a")["stringValue"].as_str().unwrap();
    assert_eq!(value.len(), passback::MAX_VALUE_BYTES);
    no_capture_left().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_call_keeps_no_capture() {
    let _serial = serial().await;
    let server = start(true).await;
    let (session, _) = session(&server).await;
    let call = {
        let session = session.clone();
        let addr = server.addr;
        tokio::spawn(async move {
            let server = Running { addr, stop: None };
            let body = format!(
                r#"{{"params":{{"_meta":{},"name":"hang"}},"id":7,"jsonrpc":"2.0","method":"tools/call"}}"#,
                asking(true)
            );
            post(
                &server,
                &[
                    ("mcp-session-id", &session),
                    ("mcp-protocol-version", "2025-11-25"),
                ],
                body,
            )
            .await
        })
    };
    // The call is running (its capture alive), then cancelled.
    for _ in 0..100 {
        if PassbackLayer::live_captures() == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(PassbackLayer::live_captures(), 1);
    let (status, _, _) = post(
        &server,
        &[("mcp-session-id", &session), ("mcp-protocol-version", "2025-11-25")],
        r#"{"params":{"requestId":7,"reason":"test"},"method":"notifications/cancelled","jsonrpc":"2.0"}"#.into(),
    )
    .await;
    assert_eq!(status, 202);
    no_capture_left().await;
    call.abort();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stdio_calls_and_prompts_get_their_spans_too() {
    let _serial = serial().await;
    let config = Config::builder().return_traces(true).build();
    let input = format!(
        "{}\n{}\n{}\n{}\n",
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        format_args!(
            r#"{{"params":{{"name":"echo","_meta":{}}},"method":"tools/call","id":1,"jsonrpc":"2.0"}}"#,
            asking(false)
        ),
        r#"{"params":{"_meta":{"otel":{"traces":{"request":true}}},"name":"greet"},"method":"prompts/get","id":2,"jsonrpc":"2.0"}"#,
    );
    let (writer, mut reader) = tokio::io::duplex(256 * 1024);
    mcp_runtime::stdio::serve_io(
        McpServer::builder(Traced).config(config).build(),
        input.as_bytes(),
        writer,
    )
    .await
    .unwrap();
    let mut output = String::new();
    tokio::io::AsyncReadExt::read_to_string(&mut reader, &mut output)
        .await
        .unwrap();
    let answer: Value = output
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .find(|line| line["id"] == 1)
        .unwrap_or_else(|| panic!("{output}"));
    let (spans, _) = spans_of(&answer);
    assert_eq!(spans[0]["traceId"], TRACE_ID);
    assert_eq!(
        attribute(&spans[0], "network.transport"),
        &json!({"stringValue": "pipe"})
    );
    assert_eq!(
        named(&spans, "echo.work")["parentSpanId"],
        spans[0]["spanId"]
    );
    let answer: Value = output
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .find(|line| line["id"] == 2)
        .unwrap_or_else(|| panic!("{output}"));
    let (spans, _) = spans_of(&answer);
    assert_eq!(spans[0]["name"], "prompts/get greet", "{answer}");
    assert_eq!(
        attribute(&spans[0], "gen_ai.prompt.name"),
        &json!({"stringValue": "greet"})
    );
    assert_eq!(
        attribute(named(&spans, "prompt.render"), "prompt"),
        &json!({"stringValue": "greet"})
    );
    assert_eq!(answer["result"]["messages"][0]["content"]["text"], "greet");
    no_capture_left().await;
}
