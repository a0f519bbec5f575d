//! The gateway's upstream client against a real JSON-RPC server on 127.0.0.1 (hyper, in the
//! test): params encoded as the document says and received byte for byte, results passed on
//! as sent, the upstream's errors as tool results, and a hostile upstream (refused, slow,
//! failing, garbage, HTML, endless, stalled, a wrong id) met with a clear error in bounded
//! time, after which the same `Upstream` serves the next call. Keep-alive, the concurrency
//! bound and the configured headers (their `env:` and `file:` forms) too.

use bytes::Bytes;
use http_body_util::{combinators::BoxBody, BodyExt, Full, StreamBody};
use hyper::body::{Frame, Incoming};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use mcp_runtime::upstream::{Forwarded, Param, Upstream, UpstreamError, UpstreamSettings};
use mcp_runtime::{Answer, Error, ParamStructure, ProtocolVersion};
use serde::Serialize;
use serde_json::Value;
use std::convert::Infallible;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

type Body = BoxBody<Bytes, Infallible>;

/// What the test's upstream saw.
#[derive(Default)]
struct Seen {
    /// Connections accepted.
    accepts: AtomicUsize,
    /// Every request body, as received.
    bodies: Mutex<Vec<String>>,
    /// Every request's headers.
    headers: Mutex<Vec<http::HeaderMap>>,
    /// Calls of `slow_ok` being answered now, and the most at once.
    in_flight: AtomicUsize,
    most_in_flight: AtomicUsize,
    /// Bytes of an endless body handed to hyper.
    endless_sent: AtomicU64,
}

/// A JSON-RPC server on a free port of 127.0.0.1 whose behaviour is the method called.
async fn upstream_server() -> (String, Arc<Seen>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/rpc", listener.local_addr().unwrap());
    let seen = Arc::new(Seen::default());
    let state = seen.clone();
    tokio::spawn(async move {
        loop {
            let (tcp, _) = listener.accept().await.unwrap();
            state.accepts.fetch_add(1, Ordering::SeqCst);
            let state = state.clone();
            tokio::spawn(async move {
                let service = hyper::service::service_fn(move |request| {
                    let state = state.clone();
                    async move { Ok::<_, Infallible>(answer(request, state).await) }
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(tcp), service)
                    .await;
            });
        }
    });
    (url, seen)
}

fn full(text: impl Into<Bytes>) -> Body {
    Full::new(text.into()).boxed()
}

fn json(status: StatusCode, text: String) -> Response<Body> {
    Response::builder()
        .status(status)
        .header("content-type", "application/json")
        .body(full(text))
        .unwrap()
}

/// The upstream's answer to `request`, chosen by its method.
async fn answer(request: Request<Incoming>, seen: Arc<Seen>) -> Response<Body> {
    seen.headers.lock().unwrap().push(request.headers().clone());
    let body = request.into_body().collect().await.unwrap().to_bytes();
    let text = String::from_utf8(body.to_vec()).unwrap();
    seen.bodies.lock().unwrap().push(text.clone());
    let message: Value = serde_json::from_str(&text).unwrap();
    let id = message["id"].as_u64().unwrap();
    let method = message["method"].as_str().unwrap().to_owned();
    let ok = |result: &str| {
        json(
            StatusCode::OK,
            format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{result}}}"#),
        )
    };
    match method.as_str() {
        // Whatever was sent, answered with an oddly written result (kept as written).
        "eth_getBalance" | "eth_getBlockByNumber" | "Filecoin.ChainHead" | "ok" => {
            ok(r#"{"b": 1.50, "a":[1, 2e3],"s":"\u00e9"}"#)
        }
        "rpc_error" => json(
            StatusCode::OK,
            format!(
                r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":-32602,"message":"invalid argument 0: hex string without 0x prefix","data":{{"arg":0}}}}}}"#
            ),
        ),
        // bitcoind's way: an error status carrying the JSON-RPC error.
        "error_status_rpc" => json(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!(
                r#"{{"result":null,"error":{{"code":-8,"message":"Block height out of range"}},"id":{id}}}"#
            ),
        ),
        "slow" => {
            tokio::time::sleep(Duration::from_secs(10)).await;
            ok("1")
        }
        "slow_ok" => {
            let now = seen.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
            seen.most_in_flight.fetch_max(now, Ordering::SeqCst);
            tokio::time::sleep(Duration::from_millis(150)).await;
            seen.in_flight.fetch_sub(1, Ordering::SeqCst);
            ok("1")
        }
        "http500" => Response::builder()
            .status(500)
            .header("content-type", "text/plain")
            .body(full("internal failure: database locked"))
            .unwrap(),
        "http429" => Response::builder()
            .status(429)
            .header("retry-after", "7")
            .header("content-type", "application/json")
            // Even a JSON-RPC error with a 429 is the status.
            .body(full(format!(
                r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":-32005,"message":"rate limited"}}}}"#
            )))
            .unwrap(),
        "garbage" => Response::new(full(&b"\x00\x01garbage \xff{"[..])),
        "html" => Response::builder()
            .header("content-type", "text/html")
            .body(full(
                "<!DOCTYPE html><html><head><title>Login</title></head><body><h1>Please sign in</h1></body></html>",
            ))
            .unwrap(),
        "endless" | "endless_declared" => {
            // 100 MB in chunks of 64 KiB, made as they are asked for.
            const CHUNK: usize = 64 << 10;
            const TOTAL: u64 = 100_000_000;
            let chunk = Bytes::from(vec![b' '; CHUNK]);
            let stream = futures_util::stream::unfold(0u64, move |done| {
                let (chunk, seen) = (chunk.clone(), seen.clone());
                async move {
                    if done >= TOTAL {
                        return None;
                    }
                    let len = (TOTAL - done).min(CHUNK as u64) as usize;
                    seen.endless_sent.fetch_add(len as u64, Ordering::SeqCst);
                    let frame = Ok::<_, Infallible>(Frame::data(chunk.slice(..len)));
                    Some((frame, done + len as u64))
                }
            });
            let mut response = Response::builder();
            if method == "endless_declared" {
                response = response.header("content-length", TOTAL.to_string());
            }
            response.body(StreamBody::new(stream).boxed()).unwrap()
        }
        "wrong_id" => json(
            StatusCode::OK,
            format!(r#"{{"jsonrpc":"2.0","id":{},"result":1}}"#, id + 1000),
        ),
        "stall" => {
            let stream = futures_util::stream::pending::<Result<Frame<Bytes>, Infallible>>();
            Response::builder()
                .header("content-type", "application/json")
                .body(StreamBody::new(stream).boxed())
                .unwrap()
        }
        "headers" => ok("true"),
        other => panic!("the test upstream has no method {other}"),
    }
}

fn settings(url: &str) -> UpstreamSettings {
    let mut settings = UpstreamSettings::new(url);
    settings.timeout = Duration::from_millis(500);
    settings.max_response_bytes = 1 << 20;
    settings
}

/// The last request body the upstream received, with its id.
fn last_body(seen: &Seen) -> (String, u64) {
    let body = seen.bodies.lock().unwrap().last().unwrap().clone();
    let id = serde_json::from_str::<Value>(&body).unwrap()["id"]
        .as_u64()
        .unwrap();
    (body, id)
}

const RESULT: &str = r#"{"b": 1.50, "a":[1, 2e3],"s":"\u00e9"}"#;

#[derive(Serialize)]
struct GetBlock {
    block: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    full: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    extra: Option<u32>,
}

/// Optional params written as `null` (a struct without `skip_serializing_if`).
#[derive(Serialize)]
struct GetBalance {
    address: Option<String>,
    block: Option<String>,
    tag: Option<String>,
}

const BLOCK_ORDER: &[Param] = &[
    Param::required("block"),
    Param::optional("full"),
    Param::optional("extra"),
];
const BALANCE_ORDER: &[Param] = &[
    Param::required("address"),
    Param::optional("block"),
    Param::optional("tag"),
];

/// What generated code awaits in a `Send` future (a handler's) is `Send`.
#[test]
fn a_forward_is_send() {
    fn send<F: std::future::Future + Send>(_: F) {}
    let upstream = Upstream::new(UpstreamSettings::new("http://127.0.0.1:1")).unwrap();
    let params = GetBlock {
        block: "0x1".into(),
        full: None,
        extra: None,
    };
    let ctx = ctx();
    send(upstream.forward::<_, Value>(
        &ctx,
        "eth_getBlockByNumber",
        ParamStructure::Either,
        &params,
        BLOCK_ORDER,
    ));
    send(upstream.forward_none::<Value>(&ctx, "eth_blockNumber"));
    send(upstream.call("eth_blockNumber", None));
}

#[tokio::test]
async fn params_by_position_and_by_name_as_received() {
    let (url, seen) = upstream_server().await;
    let upstream = Upstream::new(settings(&url)).unwrap();

    // By position: the trailing absent optional params are left out.
    let params = GetBlock {
        block: "0x10".into(),
        full: None,
        extra: None,
    };
    let result: Forwarded<Value> = upstream
        .forward(
            &ctx(),
            "eth_getBlockByNumber",
            ParamStructure::ByPosition,
            &params,
            BLOCK_ORDER,
        )
        .await
        .unwrap();
    assert_eq!(serde_json::to_string(&result).unwrap(), RESULT);
    let (body, id) = last_body(&seen);
    assert_eq!(
        body,
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"eth_getBlockByNumber","params":["0x10"]}}"#
        )
    );

    // Either (OpenRPC's default) is by position; `null` for an absent one before a given one.
    let params = GetBalance {
        address: Some("0xab".into()),
        block: None,
        tag: Some("latest".into()),
    };
    upstream
        .forward::<_, Value>(
            &ctx(),
            "eth_getBalance",
            ParamStructure::Either,
            &params,
            BALANCE_ORDER,
        )
        .await
        .unwrap();
    let (body, id) = last_body(&seen);
    assert_eq!(
        body,
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"eth_getBalance","params":["0xab",null,"latest"]}}"#
        )
    );

    // A required param that is null is sent as null.
    let params = GetBalance {
        address: None,
        block: None,
        tag: None,
    };
    upstream
        .forward::<_, Value>(
            &ctx(),
            "eth_getBalance",
            ParamStructure::Either,
            &params,
            BALANCE_ORDER,
        )
        .await
        .unwrap();
    assert!(last_body(&seen).0.ends_with(r#""params":[null]}"#));

    // By name: an object without the absent optional params (null or left out).
    let params = GetBalance {
        address: Some("0xab".into()),
        block: None,
        tag: Some("latest".into()),
    };
    upstream
        .forward::<_, Value>(
            &ctx(),
            "eth_getBalance",
            ParamStructure::ByName,
            &params,
            BALANCE_ORDER,
        )
        .await
        .unwrap();
    let (body, id) = last_body(&seen);
    assert_eq!(
        body,
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"eth_getBalance","params":{{"address":"0xab","tag":"latest"}}}}"#
        )
    );
    let params = GetBlock {
        block: "0x10".into(),
        full: Some(true),
        extra: None,
    };
    upstream
        .forward::<_, Value>(
            &ctx(),
            "eth_getBlockByNumber",
            ParamStructure::ByName,
            &params,
            BLOCK_ORDER,
        )
        .await
        .unwrap();
    assert!(last_body(&seen)
        .0
        .ends_with(r#""params":{"block":"0x10","full":true}}"#));

    // No params; a method name with a dot, as written.
    let result: Forwarded<Value> = upstream
        .forward_none(&ctx(), "Filecoin.ChainHead")
        .await
        .unwrap();
    let (body, id) = last_body(&seen);
    assert_eq!(
        body,
        format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"Filecoin.ChainHead","params":[]}}"#)
    );
    // The result as the upstream wrote it, through a tool result too.
    let outcome = Answer::from_result(Ok::<_, Error>(result));
    let json = outcome
        .into_call_tool_result(ProtocolVersion::V2025_11_25)
        .unwrap();
    assert!(
        json.get()
            .ends_with(&format!(r#","structuredContent":{RESULT}}}"#)),
        "{}",
        json.get()
    );
    upstream
        .forward::<_, Value>(
            &ctx(),
            "Filecoin.ChainHead",
            ParamStructure::ByName,
            &(),
            &[],
        )
        .await
        .unwrap();
    assert!(last_body(&seen).0.ends_with(r#""params":{}}"#));

    // `call` with raw params, or none at all.
    let raw = serde_json::value::RawValue::from_string(r#"["0x1", true]"#.into()).unwrap();
    let result = upstream.call("ok", Some(&raw)).await.unwrap();
    assert_eq!(result.get(), RESULT);
    assert!(last_body(&seen)
        .0
        .ends_with(r#""method":"ok","params":["0x1", true]}"#));
    upstream.call("ok", None).await.unwrap();
    assert!(last_body(&seen).0.ends_with(r#""method":"ok"}"#));
}

#[tokio::test]
async fn the_upstreams_error_as_error_and_tool_result() {
    let (url, _seen) = upstream_server().await;
    let upstream = Upstream::new(settings(&url)).unwrap();
    let error = upstream.call("rpc_error", None).await.unwrap_err();
    let UpstreamError::Rpc {
        code,
        message,
        data,
        ..
    } = &error
    else {
        panic!("{error}")
    };
    assert_eq!(*code, -32602);
    assert_eq!(message, "invalid argument 0: hex string without 0x prefix");
    assert_eq!(data.as_deref(), Some(&serde_json::json!({"arg": 0})));
    assert!(
        error.to_string().contains(url.trim_end_matches("/rpc")),
        "{error}"
    );

    let error = Error::from(error);
    // A plain JSON-RPC method keeps the upstream's code, message and data.
    let rpc = error.clone().into_rpc_error();
    assert_eq!(rpc.code, -32602);
    assert_eq!(
        &*rpc.message,
        "invalid argument 0: hex string without 0x prefix"
    );
    assert_eq!(rpc.data, Some(serde_json::json!({"arg": 0})));
    // A tool: isError, the code and message in the text, the structure where it exists.
    let text = r#"{"type":"text","text":"upstream error -32602: invalid argument 0: hex string without 0x prefix"}"#;
    let structured = r#"{"code":-32602,"message":"invalid argument 0: hex string without 0x prefix","data":{"arg":0}}"#;
    for (version, expected) in [
        (
            ProtocolVersion::V2025_03_26,
            format!(r#"{{"content":[{text}],"isError":true}}"#),
        ),
        (
            ProtocolVersion::V2025_11_25,
            format!(r#"{{"content":[{text}],"structuredContent":{structured},"isError":true}}"#),
        ),
        (
            ProtocolVersion::V2026_07_28,
            format!(r#"{{"content":[{text}],"structuredContent":{structured},"isError":true}}"#),
        ),
    ] {
        let json = Answer::Failed(error.clone())
            .into_call_tool_result(version)
            .unwrap();
        assert_eq!(json.get(), expected, "{version:?}");
    }

    // Through `forward`, the same error; without data, no `data` member.
    let error = upstream
        .forward::<_, Value>(&ctx(), "error_status_rpc", ParamStructure::Either, &(), &[])
        .await
        .unwrap_err();
    assert_eq!(error.code(), Some(-8));
    assert_eq!(error.message(), "Block height out of range");
    let json = Answer::Failed(error)
        .into_call_tool_result(ProtocolVersion::V2025_06_18)
        .unwrap();
    assert_eq!(
        json.get(),
        r#"{"content":[{"type":"text","text":"upstream error -8: Block height out of range"}],"structuredContent":{"code":-8,"message":"Block height out of range"},"isError":true}"#
    );
}

/// A failure's tool result: `isError`, one text, no structure.
fn tool_text(error: UpstreamError) -> String {
    let json = Answer::Failed(error.into())
        .into_call_tool_result(ProtocolVersion::V2025_11_25)
        .unwrap();
    let value: Value = serde_json::from_str(json.get()).unwrap();
    assert_eq!(value["isError"], true);
    assert!(value.get("structuredContent").is_none(), "{value}");
    value["content"][0]["text"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn a_hostile_upstream_fails_clearly_and_the_next_call_works() {
    let (url, seen) = upstream_server().await;
    let origin = url.trim_end_matches("/rpc").to_owned();
    let upstream = Upstream::new(settings(&url)).unwrap();
    let timeout = Duration::from_millis(500);
    let margin = Duration::from_millis(700);

    for method in [
        "slow",
        "http500",
        "http429",
        "garbage",
        "html",
        "endless",
        "endless_declared",
        "wrong_id",
        "stall",
    ] {
        seen.endless_sent.store(0, Ordering::SeqCst);
        let started = Instant::now();
        let error = upstream.call(method, None).await.unwrap_err();
        let took = started.elapsed();
        if method.starts_with("endless") {
            // Reading stopped at the limit: not 100 MB, not even close (what the socket
            // buffers took is all hyper could hand out).
            tokio::time::sleep(Duration::from_millis(100)).await;
            let sent = seen.endless_sent.load(Ordering::SeqCst);
            eprintln!("{method}: {sent} bytes handed out of 100 MB");
            assert!(sent < 16_000_000, "{method}: {sent} bytes were sent");
        }
        assert!(took < timeout + margin, "{method}: {took:?}");
        let message = error.to_string();
        eprintln!("{method} ({took:?}): {message}");
        assert!(message.contains(&origin), "{method}: {message}");
        match (method, &error) {
            ("slow" | "stall", UpstreamError::Timeout { after, .. }) => {
                assert_eq!(*after, timeout);
                assert!(message.contains("--upstream-timeout"), "{message}");
            }
            (
                "http500",
                UpstreamError::Status {
                    status: 500,
                    excerpt,
                    ..
                },
            ) => {
                assert_eq!(excerpt, "internal failure: database locked");
            }
            (
                "http429",
                UpstreamError::Status {
                    status: 429,
                    retry_after,
                    ..
                },
            ) => {
                assert_eq!(retry_after.as_deref(), Some("7"));
                assert!(message.contains("Retry-After: 7"), "{message}");
            }
            ("garbage", UpstreamError::NotJsonRpc { reason, .. }) => {
                assert!(reason.starts_with("not JSON"), "{reason}")
            }
            ("html", UpstreamError::NotJsonRpc { reason, .. }) => {
                assert!(
                    reason.contains("HTML") && reason.contains("Please sign in"),
                    "{reason}"
                )
            }
            ("endless" | "endless_declared", UpstreamError::TooLarge { limit, .. }) => {
                assert_eq!(*limit, 1 << 20);
            }
            ("wrong_id", UpstreamError::WrongId { expected, got, .. }) => {
                assert_eq!(got, &(expected + 1000).to_string());
            }
            _ => panic!("{method}: {error:?}"),
        }
        // The tool result of a failure is text only, names the kind and a correlation id, and
        // nothing of the deployment: not the upstream's origin, not the error's details.
        let text = tool_text(error.clone());
        assert!(text.starts_with("upstream call failed: "), "{text}");
        assert!(text.contains("(correlation id "), "{text}");
        assert!(
            !text.contains(&origin) && !text.contains("127.0.0.1"),
            "{text}"
        );
        assert!(!text.contains("--upstream"), "{text}");
        // The same upstream serves the next good call.
        let result = upstream.call("ok", None).await.unwrap();
        assert_eq!(result.get(), RESULT, "after {method}");
    }
}

#[tokio::test]
async fn a_refused_connection() {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let upstream = Upstream::new(settings(&format!("http://127.0.0.1:{port}/"))).unwrap();
    let started = Instant::now();
    let error = upstream.call("ok", None).await.unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(1));
    let UpstreamError::Connect { reason, .. } = &error else {
        panic!("{error:?}")
    };
    assert!(reason.to_lowercase().contains("refused"), "{reason}");
    // The client is told the kind and a correlation id; the address and the OS error stay in
    // the log.
    let text = tool_text(error);
    assert!(
        text.starts_with("upstream call failed: could not be reached (correlation id "),
        "{text}"
    );
    assert!(
        !text.contains(&port.to_string()) && !text.to_lowercase().contains("refused"),
        "{text}"
    );
}

#[tokio::test]
async fn sequential_calls_share_one_connection() {
    let (url, seen) = upstream_server().await;
    let upstream = Upstream::new(settings(&url)).unwrap();
    for _ in 0..20 {
        upstream.clone().call("ok", None).await.unwrap();
    }
    assert_eq!(seen.accepts.load(Ordering::SeqCst), 1);
    assert_eq!(seen.bodies.lock().unwrap().len(), 20);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_most_max_concurrency_calls_at_the_upstream() {
    let (url, seen) = upstream_server().await;
    let mut settings = settings(&url);
    settings.max_concurrency = 2;
    settings.timeout = Duration::from_secs(5);
    let upstream = Upstream::new(settings).unwrap();
    let calls = (0..5).map(|_| {
        let upstream = upstream.clone();
        tokio::spawn(async move { upstream.call("slow_ok", None).await })
    });
    for call in futures_util::future::join_all(calls).await {
        call.unwrap().unwrap();
    }
    assert_eq!(seen.most_in_flight.load(Ordering::SeqCst), 2);
    assert!(seen.accepts.load(Ordering::SeqCst) <= 2);

    // A call waiting for a slot counts against its timeout.
    let mut tight = UpstreamSettings::new(&url);
    tight.max_concurrency = 1;
    tight.timeout = Duration::from_millis(250);
    let tight = Upstream::new(tight).unwrap();
    let (first, second) = tokio::join!(tight.call("slow_ok", None), async {
        tokio::time::sleep(Duration::from_millis(20)).await;
        tight.call("slow_ok", None).await
    });
    first.unwrap();
    assert!(
        matches!(second, Err(UpstreamError::Timeout { .. })),
        "{second:?}"
    );
}

/// The context of an MCP request without a caller (no authorization).
fn ctx() -> mcp_runtime::RequestContext {
    mcp_runtime::RequestContext::new(ProtocolVersion::V2025_11_25)
}

fn header<'a>(headers: &'a http::HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).map(|v| v.to_str().unwrap())
}

#[tokio::test]
async fn configured_headers_arrive_and_nothing_else() {
    let (url, seen) = upstream_server().await;
    let mut settings = settings(&url);
    settings.headers.push((
        http::HeaderName::from_static("x-api-key"),
        http::HeaderValue::from_static("k-1"),
    ));
    let upstream = Upstream::new(settings).unwrap();
    upstream.call("headers", None).await.unwrap();
    let headers = seen.headers.lock().unwrap().last().unwrap().clone();
    assert_eq!(header(&headers, "x-api-key"), Some("k-1"));
    assert_eq!(header(&headers, "content-type"), Some("application/json"));
    assert_eq!(header(&headers, "authorization"), None);
}

#[tokio::test]
async fn header_flags_with_env_and_file_values() {
    let (url, seen) = upstream_server().await;
    let dir = tempfile::tempdir().unwrap();
    let cookie = dir.path().join("auth");
    std::fs::write(&cookie, "Basic X19jb29raWVfXzpzZWNyZXQ=\n").unwrap();
    let file_header = format!("Authorization: file:{}", cookie.display());
    let args = [
        "--upstream",
        &url,
        "--upstream-header",
        "X-Api-Key: env:TEST_NODE_KEY",
        "--upstream-header",
        &file_header,
        "--upstream-timeout",
        "2s",
    ];
    let env = |var: &str| (var == "TEST_NODE_KEY").then(|| "from-env".to_owned());
    let (_, settings) = mcp_runtime::entry::parse_gateway(
        args.iter().map(|s| s.to_string()),
        &mcp_runtime::Config::default(),
        env,
        None,
    )
    .unwrap();
    assert_eq!(settings.timeout, Duration::from_secs(2));
    let upstream = Upstream::new(settings).unwrap();
    upstream.call("headers", None).await.unwrap();
    let headers = seen.headers.lock().unwrap().last().unwrap().clone();
    assert_eq!(header(&headers, "x-api-key"), Some("from-env"));
    assert_eq!(
        header(&headers, "authorization"),
        Some("Basic X19jb29raWVfXzpzZWNyZXQ=")
    );
}

#[test]
fn an_upstream_that_is_no_endpoint_is_refused_naming_the_flag() {
    for url in ["ftp://127.0.0.1:8546", "/tmp/geth.ipc", "unix:"] {
        let refused = mcp_runtime::entry::parse_gateway(
            ["--upstream".to_owned(), url.to_owned()],
            &mcp_runtime::Config::default(),
            |_| None,
            None,
        );
        match refused {
            Err(mcp_runtime::entry::ArgsError::Invalid(message)) => assert!(
                message.starts_with("--upstream: ") && message.contains("unix:"),
                "{message}"
            ),
            other => panic!("{url}: {other:?}"),
        }
    }
    assert!(matches!(
        Upstream::new(UpstreamSettings::new("ftp://127.0.0.1:8546")),
        Err(UpstreamError::Config { .. })
    ));
    // WebSocket and Unix-socket upstreams are taken (runtime/src/upstream/tests.rs calls them).
    for url in ["ws://127.0.0.1:8546", "wss://node/ws", "unix:/run/geth.ipc"] {
        assert!(Upstream::new(UpstreamSettings::new(url)).is_ok(), "{url}");
    }
}

// ---- Identity headers: the caller's verified claims, per call ---------------------------------

/// The context of an MCP request whose verified caller is `subject`, with `claims`.
fn as_caller(subject: &str, claims: Value) -> mcp_runtime::RequestContext {
    let principal = mcp_runtime::auth::Principal::new(subject, vec![]).with_claims(claims);
    ctx().with_principal(Some(Arc::new(principal)))
}

#[tokio::test]
async fn identity_headers_carry_each_callers_verified_claims_and_nothing_else() {
    use mcp_runtime::upstream::IdentityHeader;
    let (url, seen) = upstream_server().await;
    let mut settings = settings(&url);
    settings.identity_headers = vec![
        IdentityHeader::parse("X-User: {sub}").unwrap(),
        IdentityHeader::parse("X-Tenant: org-{org}").unwrap(),
    ];
    let upstream = Upstream::new(settings).unwrap();
    let sent = || seen.bodies.lock().unwrap().len();
    let last = || seen.headers.lock().unwrap().last().unwrap().clone();
    // Each caller's own, at once: a string claim and a number.
    let alice = as_caller("alice", serde_json::json!({"sub": "alice", "org": "a1"}));
    let bob = as_caller("bob", serde_json::json!({"sub": "bob", "org": 7}));
    let _: Forwarded<Value> = upstream.forward_none(&alice, "headers").await.unwrap();
    let headers = last();
    assert_eq!(header(&headers, "x-user"), Some("alice"));
    assert_eq!(header(&headers, "x-tenant"), Some("org-a1"));
    let _: Forwarded<Value> = upstream.forward_none(&bob, "headers").await.unwrap();
    let headers = last();
    assert_eq!(header(&headers, "x-user"), Some("bob"));
    assert_eq!(header(&headers, "x-tenant"), Some("org-7"));
    assert_eq!(header(&headers, "authorization"), None);
    // No verified caller, a claim missing, a claim no header can carry, a raw call: each
    // refused before anything is sent, the claim named and its value not.
    let before = sent();
    let refusals = [
        (ctx(), "no verified caller"),
        (
            as_caller("carol", serde_json::json!({"sub": "carol"})),
            "no `org` claim",
        ),
        (
            as_caller("dan", serde_json::json!({"org": "a\r\nX-Admin: yes"})),
            "cannot carry",
        ),
        (
            as_caller("erin", serde_json::json!({"org": ["a", "b"]})),
            "not a string, number or boolean",
        ),
    ];
    for (caller, says) in refusals {
        let error = upstream
            .forward_none::<Value>(&caller, "headers")
            .await
            .unwrap_err();
        let text = error.tool_text();
        assert!(
            text.starts_with("upstream call failed: the upstream needs the caller's identity: ")
                && text.contains(says),
            "{text}"
        );
        assert!(!text.contains("X-Admin"), "{text}");
    }
    match upstream.call("headers", None).await {
        Err(UpstreamError::Identity { reason }) => assert!(reason.contains("no verified caller")),
        other => panic!("{other:?}"),
    }
    assert_eq!(sent(), before, "a refused call reached the upstream");
}

#[test]
fn identity_headers_that_cannot_work_are_refused() {
    use mcp_runtime::upstream::IdentityHeader;
    for (line, says) in [
        ("X-User {sub}", "not `Name: template`"),
        ("X-User: {sub", "without its `}`"),
        ("X-User: sub}", "without its `{`"),
        ("X-User: fixed", "names no claim"),
        ("X-User: {a b}", "not a claim name"),
        ("X User: {sub}", "not a header name"),
    ] {
        let why = IdentityHeader::parse(line).unwrap_err();
        assert!(why.contains(says), "{line}: {why}");
    }
    let refused = |url: &str, fixed: Option<&str>, identity: &str| {
        let mut settings = UpstreamSettings::new(url);
        if let Some(name) = fixed {
            settings.headers.push((
                http::HeaderName::from_bytes(name.as_bytes()).unwrap(),
                http::HeaderValue::from_static("x"),
            ));
        }
        settings.identity_headers = vec![IdentityHeader::parse(identity).unwrap()];
        match Upstream::new(settings) {
            Err(UpstreamError::Config { reason }) => reason,
            other => panic!("{other:?}"),
        }
    };
    assert!(refused("ws://127.0.0.1:8546", None, "X-User: {sub}").contains("http://"));
    assert!(refused("unix:/run/geth.ipc", None, "X-User: {sub}").contains("http://"));
    assert!(refused("http://h:1", Some("x-user"), "X-User: {sub}").contains("both"));
    assert!(refused("http://h:1", None, "Content-Length: {sub}").contains("own"));
    // The settings' Debug shows the templates, which hold no caller's value.
    let mut settings = UpstreamSettings::new("http://h:1");
    settings.identity_headers = vec![IdentityHeader::parse("X-User: u-{sub}").unwrap()];
    assert!(format!("{settings:?}").contains("x-user: u-{sub}"));
}

/// `parse_gateway` of `--upstream http://h:1` and `args`, with the variables `env`.
fn parse_flags(
    args: &[&str],
    env: &[(&str, &str)],
) -> Result<(mcp_runtime::entry::Args, UpstreamSettings), mcp_runtime::entry::ArgsError> {
    let env: Vec<(String, String)> = env
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    mcp_runtime::entry::parse_gateway(
        ["--upstream", "http://h:1"]
            .iter()
            .chain(args)
            .map(|s| s.to_string()),
        &mcp_runtime::Config::default(),
        move |var| env.iter().find(|(k, _)| k == var).map(|(_, v)| v.clone()),
        None,
    )
}

#[test]
fn the_identity_header_flag_and_its_variable() {
    let parse = parse_flags;
    let (_, settings) = parse(
        &[
            "--upstream-identity-header",
            "X-User: {sub}",
            "--upstream-identity-header",
            "X-Org: {org}",
        ],
        &[],
    )
    .unwrap();
    assert_eq!(settings.identity_headers.len(), 2);
    let (_, settings) = parse(
        &[],
        &[(
            "MCP_UPSTREAM_IDENTITY_HEADERS",
            "X-User: {sub}\n\nX-Org: {org}\n",
        )],
    )
    .unwrap();
    assert_eq!(settings.identity_headers.len(), 2);
    match parse(&["--upstream-identity-header", "X-User: {sub"], &[]) {
        Err(mcp_runtime::entry::ArgsError::Invalid(message)) => {
            assert!(
                message.starts_with("--upstream-identity-header #1: "),
                "{message}"
            )
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_token_exchange_flags_and_their_variables() {
    let parse = parse_flags;
    let refused = |args: &[&str], env: &[(&str, &str)]| match parse(args, env) {
        Err(mcp_runtime::entry::ArgsError::Invalid(message)) => message,
        Err(other) => panic!("{other:?}"),
        Ok((_, settings)) => panic!("accepted: {settings:?}"),
    };
    let dir = std::env::temp_dir().join(format!("mcp-exchange-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let secret_file = dir.join("secret");
    std::fs::write(&secret_file, "s3cret\n").unwrap();
    let secret = format!("file:{}", secret_file.display());
    let full = [
        "--upstream-auth",
        "token-exchange",
        "--upstream-token-endpoint",
        "http://127.0.0.1:9/token",
        "--upstream-client-id",
        "gw",
        "--upstream-client-secret",
        &secret,
        "--upstream-audience",
        "node",
        "--upstream-scope",
        "eth",
    ];
    let (_, settings) = parse(&full, &[]).unwrap();
    let exchange = settings.token_exchange.expect("the exchange");
    assert_eq!(exchange.token_endpoint, "http://127.0.0.1:9/token");
    assert_eq!(exchange.client_id, "gw");
    assert_eq!(exchange.client_secret, "s3cret");
    assert_eq!(exchange.audience.as_deref(), Some("node"));
    assert_eq!(exchange.resource, None);
    assert_eq!(exchange.scope.as_deref(), Some("eth"));
    // The variables, the secret itself in its variable (it is on no command line).
    let (_, settings) = parse(
        &[],
        &[
            ("MCP_UPSTREAM_AUTH", "token-exchange"),
            ("MCP_UPSTREAM_TOKEN_ENDPOINT", "https://as.example/token"),
            ("MCP_UPSTREAM_CLIENT_ID", "gw"),
            ("MCP_UPSTREAM_CLIENT_SECRET", "from-the-environment"),
            ("MCP_UPSTREAM_RESOURCE", "https://node.example/"),
        ],
    )
    .unwrap();
    let exchange = settings.token_exchange.unwrap();
    assert_eq!(exchange.client_secret, "from-the-environment");
    assert_eq!(exchange.resource.as_deref(), Some("https://node.example/"));
    // Off by default; its settings alone are refused, as is a secret on the command line.
    assert!(parse(&[], &[]).unwrap().1.token_exchange.is_none());
    let message = refused(&["--upstream-client-id", "gw"], &[]);
    assert!(
        message.contains("--upstream-auth token-exchange"),
        "{message}"
    );
    let message = refused(&["--upstream-auth", "exchange"], &[]);
    assert!(message.starts_with("--upstream-auth: "), "{message}");
    let mut literal = full.to_vec();
    literal[7] = "s3cret";
    let message = refused(&literal, &[]);
    assert!(
        message.starts_with("--upstream-client-secret: ") && !message.contains("s3cret"),
        "{message}"
    );
    let mut unset = full.to_vec();
    unset[7] = "env:NO_SUCH_SECRET_VARIABLE";
    assert!(refused(&unset, &[]).contains("NO_SUCH_SECRET_VARIABLE is not set"));
    for (missing, says) in [
        (
            "--upstream-token-endpoint",
            "needs --upstream-token-endpoint",
        ),
        ("--upstream-client-id", "needs --upstream-client-id"),
        ("--upstream-client-secret", "needs --upstream-client-secret"),
        (
            "--upstream-audience",
            "needs --upstream-audience or --upstream-resource",
        ),
    ] {
        let at = full.iter().position(|arg| *arg == missing).unwrap();
        let mut args = full.to_vec();
        args.drain(at..at + 2);
        let message = refused(&args, &[]);
        assert!(message.contains(says), "{missing}: {message}");
    }
    let mut plain = full.to_vec();
    plain[3] = "http://as.example/token";
    assert!(refused(&plain, &[]).contains("only fetched over https"));
    std::fs::remove_dir_all(&dir).unwrap();
}
