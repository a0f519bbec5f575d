//! Rate limits (`Config::rate_limits`, `Contract::rate_limit`, #34 item 2) on a server on
//! 127.0.0.1, with raw HTTP requests: a call over its limit is HTTP 429 with `Retry-After`,
//! `RateLimit-Limit` and `RateLimit-Remaining` and the JSON-RPC error `-32023` with
//! `data.retryAfterMs`, in the 2025-11-25 session era and the 2026-07-28 stateless one; per
//! peer address without authorization, per principal with it, per tool; stdio gets the
//! JSON-RPC error.

use crate::ops;

use std::sync::atomic::Ordering;

use mcp_runtime::rate_limit::{Rate, RateLimits};
use mcp_runtime::{Config, Dispatch, McpServer};
use ops::{post, post_raw, serve_with, shop, Limited};
use serde_json::{json, Value};

/// A tools/call of `tool` in the session `id`: status, headers, body.
async fn in_session(
    url: &str,
    id: &str,
    tool: &str,
    bearer: Option<&str>,
) -> (u16, http::HeaderMap, Value) {
    let auth = bearer.map(|b| format!("Bearer {b}"));
    let mut headers = vec![
        ("mcp-session-id", id),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    if let Some(auth) = &auth {
        headers.push(("authorization", auth));
    }
    post(
        url,
        &headers,
        json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
               "params": {"name": tool, "arguments": {"n": 1}}}),
    )
    .await
}

/// A stateless (2026-07-28) tools/call of `tool`: status, headers, body.
async fn stateless(url: &str, tool: &str, bearer: Option<&str>) -> (u16, http::HeaderMap, Value) {
    let auth = bearer.map(|b| format!("Bearer {b}"));
    let mut headers = vec![
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", tool),
    ];
    if let Some(auth) = &auth {
        headers.push(("authorization", auth));
    }
    post(
        url,
        &headers,
        json!({"jsonrpc": "2.0", "id": "s-1", "method": "tools/call", "params": {
            "name": tool, "arguments": {"n": 1}, "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {}}}}),
    )
    .await
}

/// The 429 shape: status, headers and the `-32023` error with `retryAfterMs`.
fn assert_limited(answer: &(u16, http::HeaderMap, Value), limit: u32, id: Value) {
    let (status, headers, body) = answer;
    assert_eq!(*status, 429, "{body}");
    assert_eq!(body["id"], id, "{body}");
    assert_eq!(body["error"]["code"], json!(-32023), "{body}");
    let retry_ms = body["error"]["data"]["retryAfterMs"]
        .as_u64()
        .expect("retryAfterMs");
    assert!(retry_ms >= 1, "{body}");
    let retry_after: u64 = headers["retry-after"].to_str().unwrap().parse().unwrap();
    assert_eq!(retry_after, retry_ms.div_ceil(1000).max(1));
    assert_eq!(headers["ratelimit-limit"], limit.to_string().as_str());
    assert_eq!(headers["ratelimit-remaining"], "0");
}

fn assert_passed(answer: &(u16, http::HeaderMap, Value)) {
    let (status, headers, body) = answer;
    assert_eq!(*status, 200, "{body}");
    assert_eq!(
        body["result"]["structuredContent"],
        json!({"n": 1}),
        "{body}"
    );
    assert!(!headers.contains_key("retry-after"));
}

fn config(limits: RateLimits) -> Config {
    let mut config = Config::default();
    config.rate_limits = Some(limits);
    config
}

#[tokio::test]
async fn a_peer_over_its_limit_gets_429_and_minus_32023_in_both_eras() {
    let (shop, _, calls) = shop();
    let limits = RateLimits::new().per_caller(Some(Rate::new(2, 60_000)));
    let url = serve_with(shop, config(limits)).await;
    let id = ops::session(&url).await;
    // One bucket for the peer 127.0.0.1, whatever the era: two calls, then refusals.
    assert_passed(&in_session(&url, &id, "echo", None).await);
    assert_passed(&stateless(&url, "echo", None).await);
    assert_limited(&in_session(&url, &id, "echo", None).await, 2, json!(7));
    assert_limited(&stateless(&url, "echo", None).await, 2, json!("s-1"));
    assert_eq!(calls.load(Ordering::SeqCst), 2);
    // What is not a call is not limited.
    let headers = [
        ("mcp-session-id", id.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    let (status, _, body) = post(
        &url,
        &headers,
        json!({"jsonrpc": "2.0", "id": 9, "method": "tools/list"}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
}

#[tokio::test]
async fn each_principal_has_its_own_bucket() {
    let (shop, _, _) = shop();
    let mut config = config(RateLimits::new().per_caller(Some(Rate::new(1, 60_000))));
    config.auth = Some(ops::names());
    let url = serve_with(shop, config).await;
    assert_passed(&stateless(&url, "echo", Some("alice")).await);
    assert_limited(
        &stateless(&url, "echo", Some("alice")).await,
        1,
        json!("s-1"),
    );
    // Same address, another principal.
    assert_passed(&stateless(&url, "echo", Some("bob")).await);
}

#[tokio::test]
async fn a_tools_limit_from_the_contract_and_from_a_flag() {
    let (first_shop, _, _) = shop();
    // No configuration: the contract's limit alone.
    let url = serve_with(Limited(first_shop), Config::default()).await;
    let first = stateless(&url, "blocks", None).await;
    assert_eq!(first.0, 200, "{}", first.2);
    assert_limited(&stateless(&url, "blocks", None).await, 1, json!("s-1"));
    // Other tools are not limited.
    for _ in 0..5 {
        assert_passed(&stateless(&url, "echo", None).await);
    }

    // A flag's limit for `echo`, 2/min.
    let (second_shop, _, _) = shop();
    let limits = RateLimits::new().per_tool("echo", Rate::new(2, 60_000));
    let url = serve_with(Limited(second_shop), config(limits)).await;
    let id = ops::session(&url).await;
    assert_passed(&in_session(&url, &id, "echo", None).await);
    assert_passed(&in_session(&url, &id, "echo", None).await);
    assert_limited(&in_session(&url, &id, "echo", None).await, 2, json!(7));
}

#[tokio::test]
async fn stdio_gets_the_json_rpc_error() {
    let (shop, _, _) = shop();
    let limits = RateLimits::new().per_caller(Some(Rate::new(1, 60_000)));
    let server = McpServer::builder(shop).config(config(limits)).build();
    let call = |id: u32| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{{}}}}}}"#
        )
    };
    let text = over_stdio(server, "2025-11-25", &[&call(2), &call(3)]).await;
    let lines: Vec<Value> = text
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let by_id = |id: u32| lines.iter().find(|l| l["id"] == json!(id)).unwrap().clone();
    assert!(by_id(2)["result"].is_object(), "{text}");
    let refused = by_id(3);
    assert_eq!(refused["error"]["code"], json!(-32023), "{text}");
    assert!(refused["error"]["data"]["retryAfterMs"].as_u64().unwrap() > 0);
}

#[tokio::test]
async fn a_refusal_leaves_an_audit_record() {
    use tracing_subscriber::layer::SubscriberExt;
    #[derive(Clone, Default)]
    struct Count(std::sync::Arc<std::sync::Mutex<Vec<String>>>);
    impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for Count {
        fn on_event(
            &self,
            event: &tracing::Event<'_>,
            _: tracing_subscriber::layer::Context<'_, S>,
        ) {
            if event.metadata().target() == "mcp::audit" {
                struct Outcome(String);
                impl tracing::field::Visit for Outcome {
                    fn record_str(&mut self, field: &tracing::field::Field, value: &str) {
                        if field.name() == "outcome" {
                            self.0 = value.into();
                        }
                    }
                    fn record_debug(&mut self, _: &tracing::field::Field, _: &dyn std::fmt::Debug) {
                    }
                }
                let mut outcome = Outcome(String::new());
                event.record(&mut outcome);
                self.0.lock().unwrap().push(outcome.0);
            }
        }
    }
    let count = Count::default();
    let _guard =
        tracing::subscriber::set_default(tracing_subscriber::registry().with(count.clone()));
    let (shop, _, _) = shop();
    let mut config = config(RateLimits::new().per_caller(Some(Rate::new(1, 60_000))));
    config.audit = Some(mcp_runtime::audit::Audit::new());
    let url = serve_with(shop, config).await;
    assert_passed(&stateless(&url, "echo", None).await);
    assert_limited(&stateless(&url, "echo", None).await, 1, json!("s-1"));
    assert_eq!(count.0.lock().unwrap().clone(), ["ok", "error"]);
}

/// A 2025-03-26 batch is no way around a limit: its calls take their tokens in order, and
/// the first one over the limit refuses the whole batch before any runs. Raw bytes: members
/// in other orders (`params` before `method`) and escaped names count as the calls they are.
#[tokio::test]
async fn a_batch_is_refused_when_one_of_its_calls_is_over_the_limit() {
    let (shop, _, calls) = shop();
    let limits = RateLimits::new().per_caller(Some(Rate::new(2, 60_000)));
    let url = serve_with(shop, config(limits)).await;
    let id = ops::session_at(&url, "2025-03-26").await;
    let session = [("mcp-session-id", id.as_str())];
    let batch = r#"[
        {"params":{"arguments":{"n":1},"name":"echo"},"id":1,"jsonrpc":"2.0","method":"tools/call"},
        {"id":2,"method":"tools\/call","jsonrpc":"2.0","params":{"n\u0061me":"echo","arguments":{"n":1}}},
        {"jsonrpc":"2.0","params":{"name":"ech\u006f","arguments":{"n":1}},"method":"tools\u002fcall","id":3}
    ]"#;
    let answer = post_raw(&url, &session, batch).await;
    assert_limited(&answer, 2, json!(3));
    assert_eq!(calls.load(Ordering::SeqCst), 0, "no call of the batch ran");
    // The tokens the refused batch's first two calls took are spent.
    let single = r#"{"params":{"name":"echo","arguments":{"n":1}},"jsonrpc":"2.0","id":4,"method":"tools/call"}"#;
    assert_limited(&post_raw(&url, &session, single).await, 2, json!(4));
    assert_eq!(calls.load(Ordering::SeqCst), 0);
}

/// The plain JSON-RPC endpoint (`--jsonrpc`) is no way around a limit: a method keeps its MCP
/// face's limit there, a caller's own limit counts its calls on both endpoints, notifications
/// count (they run), and a batch is refused whole. Raw bytes, `params` before `method`.
#[tokio::test]
async fn the_plain_json_rpc_endpoint_is_limited_too() {
    let (first_shop, _, calls) = shop();
    let mut plain_on = config(RateLimits::new());
    plain_on.endpoints.jsonrpc_path = Some("/jsonrpc".into());
    let url = serve_with(Limited(first_shop), plain_on).await;
    let plain = url.replace("/mcp", "/jsonrpc");
    let call =
        |id: u32| format!(r#"{{"params":{{}},"id":{id},"method":"get_blocks","jsonrpc":"2.0"}}"#);
    let (status, _, body) = post_raw(&plain, &[], &call(1)).await;
    assert_eq!(status, 200, "{body}");
    assert_limited(&post_raw(&plain, &[], &call(2)).await, 1, json!(2));
    // A notification is a call too: refused without an id.
    let notification = r#"{"params":{},"method":"get_blocks","jsonrpc":"2.0"}"#;
    assert_limited(&post_raw(&plain, &[], notification).await, 1, Value::Null);
    let batch = format!(
        "[{}, {}]",
        r#"{"jsonrpc":"2.0","id":3,"method":"rpc.discover"}"#,
        call(4)
    );
    assert_limited(&post_raw(&plain, &[], &batch).await, 1, json!(4));
    assert_eq!(calls.load(Ordering::SeqCst), 1, "only the first call ran");

    // A caller's own limit counts both endpoints in one bucket.
    let (second_shop, _, calls) = shop();
    let mut plain_on = config(RateLimits::new().per_caller(Some(Rate::new(2, 60_000))));
    plain_on.endpoints.jsonrpc_path = Some("/jsonrpc".into());
    let url = serve_with(Limited(second_shop), plain_on).await;
    let plain = url.replace("/mcp", "/jsonrpc");
    assert_passed(&stateless(&url, "echo", None).await);
    assert_eq!(post_raw(&plain, &[], &call(5)).await.0, 200);
    assert_limited(&post_raw(&plain, &[], &call(6)).await, 2, json!(6));
    assert_limited(&stateless(&url, "echo", None).await, 2, json!("s-1"));
    assert_eq!(calls.load(Ordering::SeqCst), 2);
}

/// stdio's batches (2025-03-26) take their calls' tokens as HTTP's do: the first call over
/// the limit refuses the whole batch, and none of it runs.
#[tokio::test]
async fn a_stdio_batch_is_refused_when_one_of_its_calls_is_over_the_limit() {
    let (shop, _, calls) = shop();
    let limits = RateLimits::new().per_caller(Some(Rate::new(1, 60_000)));
    let server = McpServer::builder(shop).config(config(limits)).build();
    let batch = r#"[{"params":{"name":"echo","arguments":{}},"jsonrpc":"2.0","id":2,"method":"tools/call"},{"jsonrpc":"2.0","id":3,"method":"tools\/call","params":{"n\u0061me":"echo","arguments":{}}}]"#;
    let text = over_stdio(server, "2025-03-26", &[batch]).await;
    let last: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    assert_eq!(last["id"], json!(3), "{text}");
    assert_eq!(last["error"]["code"], json!(-32023), "{text}");
    assert_eq!(calls.load(Ordering::SeqCst), 0, "no call of the batch ran");
}

/// Without authorization the caller is the peer's address: two addresses, two buckets (the
/// listener hands the routing its connection's peer).
#[tokio::test]
async fn each_peer_address_has_its_own_bucket() {
    use http_body_util::{BodyExt, Full};
    use hyper_util::client::legacy::connect::HttpConnector;
    use hyper_util::client::legacy::Client;
    let (shop, _, calls) = shop();
    let limits = RateLimits::new().per_caller(Some(Rate::new(1, 60_000)));
    let url = serve_with(shop, config(limits)).await;
    let from = |source: &str| {
        let mut connector = HttpConnector::new();
        connector.set_local_address(Some(source.parse().unwrap()));
        let client = Client::builder(hyper_util::rt::TokioExecutor::new())
            .build::<_, Full<bytes::Bytes>>(connector);
        let url = url.clone();
        async move {
            let request = http::Request::post(url)
                .header("content-type", "application/json")
                .header("accept", "application/json, text/event-stream")
                .header("mcp-protocol-version", "2026-07-28")
                .header("mcp-method", "tools/call")
                .header("mcp-name", "echo")
                .body(Full::new(bytes::Bytes::from(STATELESS_ECHO)))
                .unwrap();
            let response = client.request(request).await.unwrap();
            let status = response.status().as_u16();
            let _ = response.into_body().collect().await;
            status
        }
    };
    assert_eq!(from("127.0.0.1").await, 200);
    assert_eq!(from("127.0.0.1").await, 429);
    assert_eq!(
        from("127.0.0.2").await,
        200,
        "another address, another bucket"
    );
    assert_eq!(from("127.0.0.2").await, 429);
    assert_eq!(calls.load(Ordering::SeqCst), 2);
}

/// A stateless (2026-07-28) tools/call of `echo` as raw text.
const STATELESS_ECHO: &str = r#"{"jsonrpc":"2.0","id":"p","method":"tools/call","params":{"name":"echo","arguments":{"n":1},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;

/// Everything `server` writes on stdio for `initialize` at `version`, the `initialized`
/// notification, then `lines`, until the input ends.
async fn over_stdio<D: Dispatch>(server: McpServer<D>, version: &str, lines: &[&str]) -> String {
    let initialize = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"protocolVersion":"{version}","capabilities":{{}},"clientInfo":{{"name":"t","version":"1"}}}}}}"#
    );
    let mut input = vec![
        initialize.as_str(),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    ];
    input.extend_from_slice(lines);
    let input = input.join("\n") + "\n";
    let (output, mut answers) = tokio::io::duplex(64 * 1024);
    mcp_runtime::stdio::serve_io(server, input.as_bytes(), output)
        .await
        .unwrap();
    let mut text = String::new();
    tokio::io::AsyncReadExt::read_to_string(&mut answers, &mut text)
        .await
        .unwrap();
    text
}
