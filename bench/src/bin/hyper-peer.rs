//! The ceiling: raw hyper 1 + serde_json answering `tools/call` of `echo` with the same JSON
//! bytes the generated server sends, and nothing else (no sessions, no header checks beyond
//! the path, no MCP layer). `initialize` gets a minimal result and an `Mcp-Session-Id` (a
//! counter, nothing stored) so clients can start: the bound on sessions per second that the
//! HTTP exchange alone allows.
//!
//! `--addr HOST:PORT`; TCP_NODELAY on accepted sockets, like the generated server.
//!
//! `--sse`: `tools/call` is answered as the generated server answers it with
//! `config.streams.sse_responses`, the same bytes in an SSE stream (a priming event, then the
//! answer as a `message` event; event ids `<stream>-<n>` with a stream counter per connection),
//! formatted with `format!`: the ceiling of the session-era SSE mode.
//!
//! `--jsonrpc`: a plain JSON-RPC 2.0 service instead (POST on any path), answering `echo` with
//! params `{"text": ...}` with the text as its result: the fast upstream of the gateway table,
//! which the gateway and the rmcp proxy forward to and the load generator calls directly. A
//! `GET` asking for a WebSocket upgrade is served on the same port as nodes do (hardhat,
//! anvil): each text message a request, answered by the same function.

use std::convert::Infallible;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use bytes::Bytes;
use http::{Request, Response, StatusCode};
use http_body_util::{BodyExt, Full};
use serde::Deserialize;
use serde_json::value::RawValue;

#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
    #[serde(borrow)]
    method: &'a str,
    #[serde(borrow, default)]
    params: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct CallParams<'a> {
    #[serde(borrow)]
    name: &'a str,
    #[serde(borrow)]
    arguments: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct EchoArgs {
    text: String,
}

fn respond(status: StatusCode, body: String) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from(body)));
    *response.status_mut() = status;
    response.headers_mut().insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static("application/json"),
    );
    response
}

/// The plain JSON-RPC answer to one request (`--jsonrpc`): `echo` returns its `text`.
fn answer_jsonrpc(body: &[u8]) -> Response<Full<Bytes>> {
    let Ok(envelope) = serde_json::from_slice::<Envelope<'_>>(body) else {
        return respond(
            StatusCode::OK,
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#.into(),
        );
    };
    let Some(id) = envelope.id else {
        return respond(StatusCode::NO_CONTENT, String::new());
    };
    let id = id.get();
    let args = match (
        envelope.method,
        envelope
            .params
            .map(|p| serde_json::from_str::<EchoArgs>(p.get())),
    ) {
        ("echo", Some(Ok(args))) => args,
        ("echo", _) => {
            return respond(
                StatusCode::OK,
                format!(
                    r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":-32602,"message":"Invalid params"}}}}"#
                ),
            )
        }
        _ => {
            return respond(
                StatusCode::OK,
                format!(
                    r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":-32601,"message":"Method not found"}}}}"#
                ),
            )
        }
    };
    let text = serde_json::to_string(&args.text).expect("a string serializes");
    respond(
        StatusCode::OK,
        format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{text}}}"#),
    )
}

/// `json` as the generated server's SSE answer on stream `stream`.
fn sse(stream: u64, json: String) -> Response<Full<Bytes>> {
    let body = format!(
        "id: {stream}-1\nretry: 1000\ndata: \n\nid: {stream}-2\nevent: message\ndata: {json}\n\n"
    );
    let mut response = Response::new(Full::new(Bytes::from(body)));
    let headers = response.headers_mut();
    headers.insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(
        http::header::CACHE_CONTROL,
        http::HeaderValue::from_static("no-cache"),
    );
    response
}

/// The answer to one request; `sse_stream` numbers the SSE stream when `tools/call` is
/// answered with SSE. A 2026-07-28 request (by its `MCP-Protocol-Version` header) gets the
/// `resultType` member that revision's results carry.
fn answer(body: &[u8], sse_stream: Option<&AtomicU64>, stateless: bool) -> Response<Full<Bytes>> {
    let Ok(envelope) = serde_json::from_slice::<Envelope<'_>>(body) else {
        return respond(StatusCode::BAD_REQUEST, String::new());
    };
    let Some(id) = envelope.id else {
        return respond(StatusCode::ACCEPTED, String::new());
    };
    let result = match envelope.method {
        "tools/call" => {
            let call: CallParams<'_> = match envelope.params.map(|p| serde_json::from_str(p.get())) {
                Some(Ok(call)) => call,
                _ => return respond(StatusCode::BAD_REQUEST, String::new()),
            };
            let args: EchoArgs = match (call.name, call.arguments.map(|a| serde_json::from_str(a.get()))) {
                ("echo", Some(Ok(args))) => args,
                _ => return respond(StatusCode::BAD_REQUEST, String::new()),
            };
            let text = serde_json::to_string(&args.text).expect("a string serializes");
            let result_type = if stateless { r#""resultType":"complete","# } else { "" };
            format!(r#"{{{result_type}"content":[{{"type":"text","text":{text}}}]}}"#)
        }
        "initialize" => r#"{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"hyper-peer","version":"0.1.0"}}"#.to_string(),
        _ => "{}".to_string(),
    };
    let json = format!(r#"{{"jsonrpc":"2.0","id":{},"result":{result}}}"#, id.get());
    if let (Some(streams), "tools/call") = (sse_stream, envelope.method) {
        return sse(streams.fetch_add(1, Ordering::Relaxed) + 1, json);
    }
    let mut response = respond(StatusCode::OK, json);
    if envelope.method == "initialize" {
        static SESSIONS: AtomicU64 = AtomicU64::new(1);
        let n = SESSIONS.fetch_add(1, Ordering::Relaxed);
        let id = http::HeaderValue::from_str(&format!("ceiling-{n}")).expect("ASCII");
        response.headers_mut().insert("mcp-session-id", id);
    }
    response
}

/// Whether `request` asks for a WebSocket.
fn is_upgrade(request: &Request<hyper::body::Incoming>) -> bool {
    request.method() == http::Method::GET
        && request
            .headers()
            .get(http::header::UPGRADE)
            .is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"websocket"))
}

/// Accepts a WebSocket and answers each of its text messages as a `POST` body.
fn upgrade(mut request: Request<hyper::body::Incoming>) -> Response<Full<Bytes>> {
    use futures_util::{SinkExt, StreamExt};
    use tokio_tungstenite::tungstenite::{handshake::derive_accept_key, protocol::Role, Message};
    let Some(key) = request.headers().get("sec-websocket-key") else {
        return respond(StatusCode::BAD_REQUEST, String::new());
    };
    let accept = derive_accept_key(key.as_bytes());
    let upgraded = hyper::upgrade::on(&mut request);
    tokio::spawn(async move {
        let Ok(upgraded) = upgraded.await else { return };
        let io = hyper_util::rt::TokioIo::new(upgraded);
        let mut socket =
            tokio_tungstenite::WebSocketStream::from_raw_socket(io, Role::Server, None).await;
        while let Some(Ok(message)) = socket.next().await {
            let Message::Text(text) = message else { continue };
            let answer = answer_jsonrpc(text.as_bytes()).into_body();
            let Ok(body) = answer.collect().await.map(|b| b.to_bytes()) else { return };
            let Ok(text) = String::from_utf8(body.to_vec()) else { return };
            if socket.send(Message::text(text)).await.is_err() {
                return;
            }
        }
    });
    let mut response = Response::new(Full::new(Bytes::new()));
    *response.status_mut() = StatusCode::SWITCHING_PROTOCOLS;
    let headers = response.headers_mut();
    headers.insert(http::header::UPGRADE, http::HeaderValue::from_static("websocket"));
    headers.insert(http::header::CONNECTION, http::HeaderValue::from_static("Upgrade"));
    headers.insert("sec-websocket-accept", http::HeaderValue::from_str(&accept).expect("base64"));
    response
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let (addr, rest) = mcp_bench::addr_and_rest();
    let sse_answers = rest.iter().any(|arg| arg == "--sse");
    let jsonrpc = rest.iter().any(|arg| arg == "--jsonrpc");
    let listener = tokio::net::TcpListener::bind(addr).await?;
    if jsonrpc {
        eprintln!("hyper-peer (JSON-RPC) listening on http://{addr}/");
    } else {
        eprintln!("hyper-peer listening on http://{addr}/mcp");
    }
    loop {
        let (stream, _) = listener.accept().await?;
        let _ = stream.set_nodelay(true);
        let streams = sse_answers.then(|| Arc::new(AtomicU64::new(0)));
        tokio::spawn(async move {
            let service =
                hyper::service::service_fn(move |request: Request<hyper::body::Incoming>| {
                    let streams = streams.clone();
                    async move {
                        if jsonrpc && is_upgrade(&request) {
                            return Ok(upgrade(request));
                        }
                        if jsonrpc && request.method() == http::Method::POST {
                            let body = match request.into_body().collect().await {
                                Ok(body) => body.to_bytes(),
                                Err(_) => {
                                    return Ok(respond(StatusCode::BAD_REQUEST, String::new()))
                                }
                            };
                            return Ok(answer_jsonrpc(&body));
                        }
                        if request.uri().path() != "/mcp" || request.method() != http::Method::POST
                        {
                            return Ok::<_, Infallible>(respond(
                                StatusCode::NOT_FOUND,
                                String::new(),
                            ));
                        }
                        let stateless = request
                            .headers()
                            .get("mcp-protocol-version")
                            .is_some_and(|v| v == "2026-07-28");
                        let body = match request.into_body().collect().await {
                            Ok(body) => body.to_bytes(),
                            Err(_) => return Ok(respond(StatusCode::BAD_REQUEST, String::new())),
                        };
                        Ok(answer(&body, streams.as_deref(), stateless))
                    }
                });
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                .with_upgrades()
                .await;
        });
    }
}
