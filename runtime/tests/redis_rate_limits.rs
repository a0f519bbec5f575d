//! Shared rate limits (`RateLimits::shared`, `--rate-limit-shared`, #34 item 2) against a real
//! `redis-server` started here on a free 127.0.0.1 port (CI installs it): two servers on
//! 127.0.0.1 sharing one Redis and prefix, sent raw request bytes (`params` before `method`).
//!
//! A caller's calls to both instances together are refused once the shared limit is spent
//! (429, `Retry-After`, `RateLimit-*`, `-32023` with `retryAfterMs`), per peer and per
//! principal; a tool's limit is shared too, and a batch is refused whole; a bucket is whole
//! again after its period, its key a digest that expires; Redis killed: each instance counts
//! the calls in its own buckets (fail open to the local limit, counted in `Load`), and once
//! Redis is back the limit is shared again; without the switch, each instance counts alone.
#![cfg(feature = "redis")]

mod common;
#[allow(dead_code)]
#[path = "operations/ops.rs"]
mod ops;

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use common::redis::Redis;
use mcp_runtime::rate_limit::{Rate, RateLimits};
use mcp_runtime::stores::redis::connect;
use mcp_runtime::{Config, Dispatch, McpServer};
use ops::{post_raw, shop, Limited, Shop};
use serde_json::{json, Value};

type Answer = (u16, http::HeaderMap, Value);

/// A server of `shop` on 127.0.0.1 with `config`, its stores in the Redis at `redis` under
/// `prefix`: the server (for its load) and its `/mcp` URL.
async fn instance<D: Dispatch>(
    redis: &Redis,
    prefix: &str,
    shop: D,
    config: Config,
) -> (McpServer<D>, String) {
    let stores = connect(&redis.url(), prefix, &config).await.unwrap();
    let server = McpServer::builder(shop)
        .config(config)
        .stores(stores)
        .build();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(
        server
            .clone()
            .serve_listener(listener, std::future::pending::<()>()),
    );
    (server, format!("http://{addr}/mcp"))
}

fn config(limits: RateLimits) -> Config {
    let mut config = Config::default();
    config.rate_limits = Some(limits);
    // The instances share sessions: they must seal requestState with one key.
    config.request_state.request_state_key = Some(mcp_runtime::request_state::SealingKey::random());
    config
}

/// Two instances of one deployment (one prefix), each with a shop of its own; the calls
/// both handled.
async fn pair(
    redis: &Redis,
    prefix: &str,
    config: Config,
) -> (
    (McpServer<Shop>, String),
    (McpServer<Shop>, String),
    impl Fn() -> usize,
) {
    let (a, _, calls_a) = shop();
    let (b, _, calls_b) = shop();
    let first = instance(redis, prefix, a, config.clone()).await;
    let second = instance(redis, prefix, b, config).await;
    let calls = move || calls_a.load(Ordering::SeqCst) + calls_b.load(Ordering::SeqCst);
    (first, second, calls)
}

/// A stateless (2026-07-28) tools/call of `tool`, written by hand: `params` first, `method`
/// last, the tool's name with an escape.
async fn stateless(url: &str, tool: &str, bearer: Option<&str>) -> Answer {
    let auth = bearer.map(|b| format!("Bearer {b}"));
    let mut headers = vec![
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", tool),
    ];
    if let Some(auth) = &auth {
        headers.push(("authorization", auth));
    }
    let escaped = tool.replacen('e', "\\u0065", 1);
    let body = format!(
        r#"{{"params":{{"arguments":{{"n":1}},"_meta":{{"io.modelcontextprotocol/clientCapabilities":{{}},"io.modelcontextprotocol/protocolVersion":"2026-07-28"}},"name":"{escaped}"}},"id":"s-1","jsonrpc":"2.0","method":"tools/call"}}"#
    );
    post_raw(url, &headers, &body).await
}

/// A 2025-03-26 batch in the session `id`, written by hand.
async fn batch(url: &str, id: &str, body: &str) -> Answer {
    let headers = [
        ("mcp-session-id", id),
        ("mcp-protocol-version", "2025-03-26"),
    ];
    post_raw(url, &headers, body).await
}

/// The 429 shape: status, headers and the `-32023` error with `retryAfterMs`.
#[track_caller]
fn assert_limited(answer: &Answer, limit: u32, id: Value) -> u64 {
    let (status, headers, body) = answer;
    assert_eq!(*status, 429, "{body}");
    assert_eq!(body["id"], id, "{body}");
    assert_eq!(body["error"]["code"], json!(-32023), "{body}");
    assert_eq!(body["error"]["message"], "Rate limit exceeded", "{body}");
    let retry_ms = body["error"]["data"]["retryAfterMs"]
        .as_u64()
        .expect("retryAfterMs");
    assert!(retry_ms >= 1, "{body}");
    let retry_after: u64 = headers["retry-after"].to_str().unwrap().parse().unwrap();
    assert_eq!(retry_after, retry_ms.div_ceil(1000).max(1));
    assert_eq!(headers["ratelimit-limit"], limit.to_string().as_str());
    assert_eq!(headers["ratelimit-remaining"], "0");
    retry_ms
}

#[track_caller]
fn assert_passed(answer: &Answer) {
    let (status, headers, body) = answer;
    assert_eq!(*status, 200, "{body}");
    assert_eq!(
        body["result"]["structuredContent"],
        json!({"n": 1}),
        "{body}"
    );
    assert!(!headers.contains_key("retry-after"));
}

/// The keys under `prefix` in the Redis at `redis`, with their time to live (ms).
async fn rate_keys(redis: &Redis, prefix: &str) -> Vec<(String, i64)> {
    let client = redis::Client::open(redis.url()).unwrap();
    let mut connection = client.get_multiplexed_async_connection().await.unwrap();
    let keys: Vec<String> = redis::cmd("KEYS")
        .arg(format!("{prefix}:rate:*"))
        .query_async(&mut connection)
        .await
        .unwrap();
    let mut found = Vec::new();
    for key in keys {
        let ttl: i64 = redis::cmd("PTTL")
            .arg(&key)
            .query_async(&mut connection)
            .await
            .unwrap();
        found.push((key, ttl));
    }
    found.sort();
    found
}

#[tokio::test]
async fn a_callers_calls_to_both_instances_share_one_limit() {
    let redis = Redis::start();
    let limits = RateLimits::new()
        .per_caller(Some(Rate::new(3, 60_000)))
        .shared(true);
    let ((_, a), (_, b), calls) = pair(&redis, "shared1", config(limits)).await;
    // The peer 127.0.0.1 has 3 calls in all, whichever instance takes them.
    assert_passed(&stateless(&a, "echo", None).await);
    assert_passed(&stateless(&b, "echo", None).await);
    assert_passed(&stateless(&a, "echo", None).await);
    let retry = assert_limited(&stateless(&b, "echo", None).await, 3, json!("s-1"));
    assert!(
        retry <= 20_000,
        "one token of 3/min comes back within 20 s: {retry}"
    );
    assert_limited(&stateless(&a, "echo", None).await, 3, json!("s-1"));
    assert_eq!(calls(), 3);

    // A session opened on A, used on B (sessions are shared too): its batch is refused whole
    // at its first call over the limit, before any of it runs.
    let id = ops::session_at(&a, "2025-03-26").await;
    let body = r#"[{"params":{"name":"echo","arguments":{"n":1}},"id":1,"jsonrpc":"2.0","method":"tools/call"},{"method":"tools/list","id":2,"jsonrpc":"2.0"}]"#;
    assert_limited(&batch(&b, &id, body).await, 3, json!(1));
    assert_eq!(calls(), 3);

    // The keys are digests under the prefix (a peer's: 16 hex digits), never the address;
    // they expire.
    let keys = rate_keys(&redis, "shared1").await;
    assert_eq!(keys.len(), 1, "{keys:?}");
    let (key, ttl) = &keys[0];
    let digest = key
        .strip_prefix("shared1:rate:{")
        .and_then(|k| k.strip_suffix('}'))
        .unwrap_or_else(|| panic!("{key}"));
    assert!(
        digest.len() == 16 && digest.bytes().all(|b| b.is_ascii_hexdigit()),
        "{key}"
    );
    assert!((1..=60_000).contains(ttl), "{key}: {ttl}");
}

#[tokio::test]
async fn each_principal_has_one_bucket_across_instances() {
    let redis = Redis::start();
    let limits = RateLimits::new()
        .per_caller(Some(Rate::new(1, 60_000)))
        .shared(true);
    let mut config = config(limits);
    config.auth = Some(ops::names());
    let ((_, a), (_, b), _) = pair(&redis, "shared2", config).await;
    assert_passed(&stateless(&a, "echo", Some("alice")).await);
    assert_limited(&stateless(&b, "echo", Some("alice")).await, 1, json!("s-1"));
    // Same address, another principal.
    assert_passed(&stateless(&b, "echo", Some("bob")).await);
    assert_limited(&stateless(&a, "echo", Some("bob")).await, 1, json!("s-1"));
    let keys = rate_keys(&redis, "shared2").await;
    assert_eq!(keys.len(), 2, "{keys:?}");
    for (key, _) in keys {
        // A principal's digest: 32 hex digits of SHA-256, never the subject.
        let digest = key
            .strip_prefix("shared2:rate:{")
            .and_then(|k| k.strip_suffix('}'))
            .unwrap_or_else(|| panic!("{key}"));
        assert!(
            digest.len() == 32 && digest.bytes().all(|b| b.is_ascii_hexdigit()),
            "{key}"
        );
    }
}

#[tokio::test]
async fn a_tools_limit_is_shared_and_its_refusal_leaves_the_callers_token() {
    let redis = Redis::start();
    let limits = RateLimits::new()
        .per_caller(Some(Rate::new(4, 60_000)))
        .per_tool("echo", Rate::new(2, 60_000))
        .shared(true);
    let ((_, a), (_, b), calls) = pair(&redis, "shared3", config(limits)).await;
    assert_passed(&stateless(&a, "echo", None).await);
    assert_passed(&stateless(&b, "echo", None).await);
    // The tool's bucket (2) refuses, on either instance.
    assert_limited(&stateless(&a, "echo", None).await, 2, json!("s-1"));
    assert_limited(&stateless(&b, "echo", None).await, 2, json!("s-1"));
    // Those refusals took none of the caller's 4: two more calls of another tool pass.
    let blocks = stateless(&b, "blocks", None).await;
    assert_eq!(blocks.0, 200, "{}", blocks.2);
    let blocks = stateless(&a, "blocks", None).await;
    assert_eq!(blocks.0, 200, "{}", blocks.2);
    assert_limited(&stateless(&a, "blocks", None).await, 4, json!("s-1"));
    assert_eq!(calls(), 4);
    // The caller's bucket and its bucket of `echo`, in one hash slot (`{caller}`).
    let keys = rate_keys(&redis, "shared3").await;
    assert_eq!(keys.len(), 2, "{keys:?}");
    assert!(
        keys[1].0.starts_with(&format!("{}:", keys[0].0)),
        "{keys:?}"
    );
}

#[tokio::test]
async fn a_bucket_is_whole_again_after_its_period() {
    let redis = Redis::start();
    let limits = RateLimits::new()
        .per_caller(Some(Rate::new(2, 1_000)))
        .shared(true);
    let ((_, a), (_, b), _) = pair(&redis, "shared4", config(limits)).await;
    assert_passed(&stateless(&a, "echo", None).await);
    assert_passed(&stateless(&b, "echo", None).await);
    let retry = assert_limited(&stateless(&a, "echo", None).await, 2, json!("s-1"));
    assert!(retry <= 500, "one of 2/s comes back within 500 ms: {retry}");
    tokio::time::sleep(Duration::from_millis(1_100)).await;
    // Whole again: two calls, on either instance.
    assert_passed(&stateless(&b, "echo", None).await);
    assert_passed(&stateless(&a, "echo", None).await);
    assert_limited(&stateless(&b, "echo", None).await, 2, json!("s-1"));
    // Untouched for its period, the bucket is gone from Redis (it would be full anyway).
    tokio::time::sleep(Duration::from_millis(1_100)).await;
    assert_eq!(rate_keys(&redis, "shared4").await, vec![]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_gone_each_instance_counts_alone_until_it_is_back() {
    let mut redis = Redis::start();
    let limits = RateLimits::new()
        .per_caller(Some(Rate::new(2, 60_000)))
        .shared(true);
    let ((server_a, a), (server_b, b), _) = pair(&redis, "shared5", config(limits)).await;
    assert_passed(&stateless(&a, "echo", None).await);
    assert_passed(&stateless(&b, "echo", None).await);
    assert_limited(&stateless(&a, "echo", None).await, 2, json!("s-1"));
    assert_eq!(server_a.load().rate_limit_fallbacks, 0);

    redis.stop();
    // Fail open to the local limit: each instance's own bucket of 2 (untouched so far), and
    // no call waits long for the Redis that is gone.
    for (server, url) in [(&server_a, &a), (&server_b, &b)] {
        for _ in 0..2 {
            let started = Instant::now();
            assert_passed(&stateless(url, "echo", None).await);
            assert!(started.elapsed() < Duration::from_secs(1));
        }
        assert_limited(&stateless(url, "echo", None).await, 2, json!("s-1"));
        assert_eq!(server.load().rate_limit_fallbacks, 3);
    }

    // Back (empty: no persistence; the script is loaded again): shared again once each
    // connection is back, one limit of 2 over both instances.
    redis.spawn();
    assert_passed(&until_shared(&server_a, &a).await);
    assert_passed(&until_shared(&server_b, &b).await);
    let fallbacks = server_a.load().rate_limit_fallbacks;
    assert_limited(&stateless(&a, "echo", None).await, 2, json!("s-1"));
    assert_eq!(server_a.load().rate_limit_fallbacks, fallbacks);
    assert_eq!(rate_keys(&redis, "shared5").await.len(), 1);
}

/// Calls `echo` on `url` until a call is counted in Redis (not a fallback): its answer. The
/// calls before it were refused by the instance's spent local bucket.
async fn until_shared(server: &McpServer<Shop>, url: &str) -> Answer {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let before = server.load().rate_limit_fallbacks;
        let answer = stateless(url, "echo", None).await;
        if server.load().rate_limit_fallbacks == before {
            return answer;
        }
        assert_limited(&answer, 2, json!("s-1"));
        assert!(Instant::now() < deadline, "Redis never answered again");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn without_the_switch_each_instance_counts_alone() {
    let redis = Redis::start();
    let limits = RateLimits::new().per_caller(Some(Rate::new(1, 60_000)));
    let ((_, a), (_, b), calls) = pair(&redis, "local", config(limits)).await;
    assert_passed(&stateless(&a, "echo", None).await);
    assert_passed(&stateless(&b, "echo", None).await);
    assert_limited(&stateless(&a, "echo", None).await, 1, json!("s-1"));
    assert_limited(&stateless(&b, "echo", None).await, 1, json!("s-1"));
    assert_eq!(calls(), 2);
    assert_eq!(rate_keys(&redis, "local").await, vec![]);
}

#[tokio::test]
async fn the_plain_endpoints_limits_are_shared_too() {
    let redis = Redis::start();
    let mut config = config(RateLimits::new().shared(true));
    config.endpoints.jsonrpc_path = Some("/jsonrpc".into());
    let (first, _, calls_a) = shop();
    let (second, _, calls_b) = shop();
    let (_, a) = instance(&redis, "plain", Limited(first), config.clone()).await;
    let (_, b) = instance(&redis, "plain", Limited(second), config).await;
    let (a, b) = (a.replace("/mcp", "/jsonrpc"), b.replace("/mcp", "/jsonrpc"));
    let call =
        |id: u32| format!(r#"{{"params":{{}},"id":{id},"method":"get_blocks","jsonrpc":"2.0"}}"#);
    let (status, _, body) = post_raw(&a, &[], &call(1)).await;
    assert_eq!(status, 200, "{body}");
    assert_limited(&post_raw(&b, &[], &call(2)).await, 1, json!(2));
    // A notification is a call: refused without an id; a batch is refused whole.
    let notification = r#"{"params":{},"method":"get_blocks","jsonrpc":"2.0"}"#;
    assert_limited(&post_raw(&a, &[], notification).await, 1, Value::Null);
    let batch = format!(
        r#"[{{"jsonrpc":"2.0","id":3,"method":"rpc.discover"}}, {}]"#,
        call(4)
    );
    assert_limited(&post_raw(&b, &[], &batch).await, 1, json!(4));
    let ran = calls_a.load(Ordering::SeqCst) + calls_b.load(Ordering::SeqCst);
    assert_eq!(ran, 1, "only the first call ran");
}

/// stdio has one client and no Redis of its own (`--redis` is HTTP only): a server whose
/// limits are shared still limits its stdio calls, in the process's own buckets.
#[tokio::test]
async fn stdio_keeps_its_own_buckets_under_shared_limits() {
    let redis = Redis::start();
    let limits = RateLimits::new()
        .per_caller(Some(Rate::new(1, 60_000)))
        .shared(true);
    let config = config(limits);
    let (shop, _, calls) = shop();
    let stores = connect(&redis.url(), "stdio", &config).await.unwrap();
    let server = McpServer::builder(shop)
        .config(config)
        .stores(stores)
        .build();
    let call = |id: u32| {
        format!(
            r#"{{"params":{{"name":"echo","arguments":{{"n":1}}}},"id":{id},"jsonrpc":"2.0","method":"tools/call"}}"#
        )
    };
    let input = [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#.to_owned(),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_owned(),
        call(2),
        call(3),
    ]
    .join("\n")
        + "\n";
    let (output, mut answers) = tokio::io::duplex(64 * 1024);
    mcp_runtime::stdio::serve_io(server, input.as_bytes(), output)
        .await
        .unwrap();
    let mut text = String::new();
    tokio::io::AsyncReadExt::read_to_string(&mut answers, &mut text)
        .await
        .unwrap();
    let refused = text
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .find(|answer| answer["id"] == json!(3))
        .unwrap_or_else(|| panic!("{text}"));
    assert_eq!(refused["error"]["code"], json!(-32023), "{text}");
    assert_eq!(calls.load(Ordering::SeqCst), 1, "{text}");
    assert_eq!(rate_keys(&redis, "stdio").await, vec![]);
}
