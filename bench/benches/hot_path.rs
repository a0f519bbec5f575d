//! Micro-benchmarks of the generated server's hot path for one `tools/call` of `echo`:
//! params decode into the generated type, tool dispatch, result encode, SSE
//! frame write, and the whole in-process HTTP handler (no socket). Era detection comes with
//! the stateless revision.

use bench_server::server::{types::EchoParams, Server};
use bench_server::Echo;
use bytes::Bytes;
use criterion::{black_box, criterion_group, criterion_main, Criterion};
use http_body_util::{BodyExt, Full};
use mcp_runtime::dispatch::{decode_arguments, Answer, Call, CallKind, Dispatch};
use mcp_runtime::jsonrpc::success_response;
use mcp_runtime::mcp::ToolResult;
use mcp_runtime::stdio::block_on;
use mcp_runtime::{McpServer, ProtocolVersion, RequestContext};
use serde_json::value::RawValue;

const CALL: &str = r#"{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}"#;
const ARGS: &str = r#"{"text":"hello"}"#;
const V: ProtocolVersion = ProtocolVersion::V2025_11_25;

fn hot_path(c: &mut Criterion) {
    let mut g = c.benchmark_group("hot_path");

    let args: Box<RawValue> = RawValue::from_string(ARGS.to_string()).unwrap();
    g.bench_function("params_decode", |b| {
        b.iter(|| black_box(decode_arguments::<EchoParams>(Some(black_box(&args))).unwrap()))
    });

    let server = Server::new(Echo);
    g.bench_function("dispatch_tools_call", |b| {
        b.iter(|| {
            let call = Call::new(
                CallKind::Tool,
                "echo",
                Some(black_box(&args)),
                RequestContext::new(V),
            );
            let future = server.call(call).unwrap();
            black_box(block_on(future))
        })
    });

    let id: Box<RawValue> = RawValue::from_string("42".to_string()).unwrap();
    g.bench_function("result_encode", |b| {
        b.iter(|| {
            let outcome = Answer::Content(ToolResult::text(black_box("hello")));
            let result = outcome.into_call_tool_result(V).unwrap();
            black_box(success_response(&id, result.get()))
        })
    });

    let answer =
        r#"{"jsonrpc":"2.0","id":42,"result":{"content":[{"type":"text","text":"hello"}]}}"#;
    g.bench_function("sse_frame_write", |b| {
        b.iter(|| {
            black_box(mcp_runtime::session::events::encode_frame(
                black_box("3"),
                answer.as_bytes(),
            ))
        })
    });

    // The whole HTTP handler in process: headers, body, session lookup, dispatch, response.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let mcp = McpServer::new(Server::new(Echo));
    let post = |body: &'static str, session: Option<&str>| {
        let mut request = http::Request::post("/mcp")
            .header("host", "127.0.0.1")
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2025-11-25");
        if let Some(session) = session {
            request = request.header("mcp-session-id", session);
        }
        request
            .body(Full::new(Bytes::from_static(body.as_bytes())))
            .unwrap()
    };
    let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}"#;
    let response = runtime.block_on(mcp.handle(post(init, None)));
    let session = response.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_string();
    g.bench_function("http_handle_tools_call", |b| {
        b.iter(|| {
            runtime.block_on(async {
                let response = mcp.handle(post(CALL, Some(&session))).await;
                black_box(response.into_body().collect().await.unwrap().to_bytes())
            })
        })
    });
    // The same call on the stateless 2026-07-28 path: `_meta` and routing headers, no session.
    const CALL_2026: &str = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"echo","arguments":{"text":"hello"}}}"#;
    g.bench_function("http_handle_tools_call_stateless", |b| {
        b.iter(|| {
            runtime.block_on(async {
                let request = http::Request::post("/mcp")
                    .header("host", "127.0.0.1")
                    .header("content-type", "application/json")
                    .header("accept", "application/json, text/event-stream")
                    .header("mcp-protocol-version", "2026-07-28")
                    .header("mcp-method", "tools/call")
                    .header("mcp-name", "echo")
                    .body(Full::new(Bytes::from_static(CALL_2026.as_bytes())))
                    .unwrap();
                let response = mcp.handle(request).await;
                black_box(response.into_body().collect().await.unwrap().to_bytes())
            })
        })
    });
    g.finish();
}

criterion_group!(benches, hot_path);
criterion_main!(benches);
