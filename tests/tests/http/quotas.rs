//! Per-client bounds against a real server: subscriptions, the bytes a session keeps from
//! `initialize`, the absolute session lifetime, listen streams, and an SSE client too slow
//! for its queue (cut visibly, then resumed whole or told it cannot be).

use http::StatusCode;
use http_body_util::BodyExt;
use serde_json::{json, Value};
use std::time::Duration;

use crate::support::stateless::{meta, V};
use crate::support::{post, send, sse_messages, start, Client, Reply};
use mcp_runtime::Config;

#[tokio::test]
async fn subscriptions_per_session_are_bounded() {
    let server = start(Config::builder().max_subscriptions(2).build()).await;
    let mut client = Client::connect(server.addr, "2025-11-25").await;
    for uri in ["test://a", "test://b", "test://b"] {
        let answer = client
            .call("resources/subscribe", json!({ "uri": uri }))
            .await;
        assert_eq!(answer["result"], json!({}), "{uri}: {answer}");
    }
    let refused = client
        .call("resources/subscribe", json!({"uri": "test://c"}))
        .await;
    assert_eq!(refused["error"]["code"], json!(-32602), "{refused}");
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("config.streams.max_subscriptions"),
        "{message}"
    );
    client
        .call("resources/unsubscribe", json!({"uri": "test://a"}))
        .await;
    let again = client
        .call("resources/subscribe", json!({"uri": "test://c"}))
        .await;
    assert_eq!(again["result"], json!({}), "{again}");
}

/// Subscriptions are bounded by bytes too: a URI over 8 KiB names no resource, and the URIs
/// one session holds add up to at most `max_subscription_bytes` (the count alone let one
/// session hold 1,000 URIs of 1 MiB).
#[tokio::test]
async fn subscriptions_per_session_are_bounded_by_bytes() {
    let server = start(Config::builder().max_subscription_bytes(20_000).build()).await;
    let mut client = Client::connect(server.addr, "2025-11-25").await;
    let huge = format!("test://{}", "a".repeat(1024 * 1024));
    let refused = client
        .call("resources/subscribe", json!({ "uri": huge }))
        .await;
    assert_eq!(refused["error"]["code"], json!(-32602), "a 1 MiB URI");
    let long = |n: usize| format!("test://{n}/{}", "b".repeat(8_000));
    for n in 0..2 {
        let answer = client
            .call("resources/subscribe", json!({ "uri": long(n) }))
            .await;
        assert_eq!(answer["result"], json!({}), "URI {n}");
    }
    let refused = client
        .call("resources/subscribe", json!({ "uri": long(2) }))
        .await;
    assert_eq!(refused["error"]["code"], json!(-32602));
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("config.streams.max_subscription_bytes"),
        "{message}"
    );
    client
        .call("resources/unsubscribe", json!({ "uri": long(0) }))
        .await;
    let again = client
        .call("resources/subscribe", json!({ "uri": long(2) }))
        .await;
    assert_eq!(
        again["result"],
        json!({}),
        "room again after an unsubscribe"
    );
}

#[tokio::test]
async fn initialize_with_more_client_json_than_a_session_keeps_is_invalid_params() {
    let server = start(Config::builder().max_client_json_bytes(1024).build()).await;
    let big = "x".repeat(2000);
    let reply = post(
        server.addr,
        &[],
        &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": big, "version": "1"}}}),
    )
    .await;
    assert!(reply.header("mcp-session-id").is_none(), "no session made");
    let answer = reply.json().await;
    assert_eq!(answer["error"]["code"], json!(-32602), "{answer}");
    assert!(answer["error"]["message"]
        .as_str()
        .unwrap()
        .contains("config.limits.max_client_json_bytes"));
    assert_eq!(server.server.load().sessions, 0);
}

#[tokio::test]
async fn a_session_ends_at_its_lifetime_however_busy_it_is() {
    let lifetime = Duration::from_millis(1000);
    let config = Config::builder()
        .session_idle_timeout(None)
        .session_max_lifetime(Some(lifetime))
        .build();
    let server = start(config).await;
    let born = tokio::time::Instant::now();
    let mut client = Client::connect(server.addr, "2025-11-25").await;
    for _ in 0..3 {
        let pong = client.call("ping", json!({})).await;
        assert_eq!(pong["result"], json!({}));
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    tokio::time::sleep_until(born + lifetime + Duration::from_millis(100)).await;
    let (_, reply) = client.request("ping", json!({})).await;
    assert_eq!(reply.status, StatusCode::NOT_FOUND, "past its lifetime");
    assert_eq!(server.server.load().sessions, 0);
}

/// A stateless `subscriptions/listen` POST asking for tool list changes.
async fn listen(addr: std::net::SocketAddr, id: i64, uris: Vec<String>) -> Reply {
    let params = json!({
        "notifications": {"toolsListChanged": true, "resourceSubscriptions": uris},
        "_meta": meta(json!({}))
    });
    post(
        addr,
        &[
            ("mcp-protocol-version", V),
            ("mcp-method", "subscriptions/listen"),
        ],
        &json!({"jsonrpc": "2.0", "id": id, "method": "subscriptions/listen", "params": params}),
    )
    .await
}

#[tokio::test]
async fn listen_streams_are_bounded_and_so_are_the_uris_one_names() {
    let config = Config::builder()
        .max_listen_streams(1)
        .max_subscriptions(3)
        .max_subscription_bytes(20_000)
        .build();
    let server = start(config).await;
    let first = listen(server.addr, 1, vec![]).await;
    assert_eq!(first.status, StatusCode::OK);
    let second = listen(server.addr, 2, vec![]).await;
    assert_eq!(second.status, StatusCode::SERVICE_UNAVAILABLE);
    let answer = second.json().await;
    assert_eq!(answer["id"], json!(2));
    assert!(answer["error"]["message"]
        .as_str()
        .unwrap()
        .contains("config.streams.max_listen_streams"));
    drop(first);
    // The first stream's end frees its place (noticed at its next write or keep-alive).
    let uris = (0..4).map(|i| format!("test://{i}")).collect();
    let too_many = listen(server.addr, 3, uris).await;
    assert_eq!(too_many.status, StatusCode::BAD_REQUEST);
    assert_eq!(too_many.json().await["error"]["code"], json!(-32602));
    // By bytes too: a URI over 8 KiB, or URIs adding up past max_subscription_bytes.
    for uris in [
        vec![format!("test://{}", "a".repeat(9_000))],
        (0..3)
            .map(|i| format!("test://{i}/{}", "a".repeat(8_000)))
            .collect(),
    ] {
        let too_big = listen(server.addr, 4, uris).await;
        assert_eq!(too_big.status, StatusCode::BAD_REQUEST);
        let answer = too_big.json().await;
        assert!(
            answer["error"]["message"]
                .as_str()
                .unwrap()
                .contains("config.streams.max_subscription_bytes"),
            "{answer}"
        );
    }
}

/// Reads an SSE body until it ends; returns its text and whether it ended cleanly (false: the
/// server cut it).
async fn read_until_end(reply: Reply) -> (String, bool) {
    let mut body = reply.body;
    let mut text = String::new();
    loop {
        match tokio::time::timeout(Duration::from_secs(20), body.frame()).await {
            Err(_) => panic!("the stream neither ended nor was cut within 20 s"),
            Ok(None) => return (text, true),
            Ok(Some(Err(_))) => return (text, false),
            Ok(Some(Ok(frame))) => {
                if let Ok(data) = frame.into_data() {
                    text.push_str(std::str::from_utf8(&data).unwrap());
                }
            }
        }
    }
}

/// The ids of the complete events of an SSE text (a cut may leave half an event at the end).
fn event_ids(text: &str) -> Vec<String> {
    let complete = &text[..text.rfind("\n\n").map_or(0, |end| end + 2)];
    complete
        .lines()
        .filter_map(|line| line.strip_prefix("id: "))
        .map(str::to_string)
        .collect()
}

/// Calls `flood` (`count` logs of 16 KiB: far more than the socket buffers and the
/// connection queue hold) without reading, until the handler has answered; then reads what
/// the connection carried.
async fn flood_a_slow_reader(client: &mut Client, count: usize) -> (i64, String, bool) {
    let level = client
        .call("logging/setLevel", json!({"level": "info"}))
        .await;
    assert_eq!(level["result"], json!({}));
    let (id, reply) = client
        .request(
            "tools/call",
            json!({"name": "flood", "arguments": {"count": count, "size": 16384}}),
        )
        .await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.header("content-type"), Some("text/event-stream"));
    // The handler never waits for the client: give it time to send everything.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let (text, clean) = read_until_end(reply).await;
    (id, text, clean)
}

#[tokio::test]
async fn a_slow_sse_reader_is_cut_visibly_and_resumes_everything_from_the_window() {
    let count = 1500;
    let server = start(Config::builder().replay_window(4000).build()).await;
    let mut client = Client::connect(server.addr, "2025-11-25").await;
    let (id, text, clean) = flood_a_slow_reader(&mut client, count).await;
    assert!(!clean, "the stream must end with an error, not as complete");
    let seen = event_ids(&text);
    let before = sse_messages(&text[..text.rfind("\n\n").unwrap() + 2]);
    assert!(
        before.iter().all(|m| m["id"] != json!(id)),
        "the answer came before the cut?"
    );
    let mut headers = client.headers();
    headers.push(("accept", "text/event-stream"));
    headers.push(("last-event-id", seen.last().unwrap()));
    let resumed = send(server.addr, "GET", &headers, "").await;
    assert_eq!(resumed.status, StatusCode::OK);
    let rest = sse_messages(&resumed.text().await);
    let logs = before.len() + rest.len() - 1;
    assert_eq!(logs, count, "every log arrives once, across the cut");
    let answer: &Value = rest.last().unwrap();
    assert_eq!(answer["id"], json!(id));
    assert!(
        answer["result"].to_string().contains(&count.to_string())
            && answer["result"]["isError"] != json!(true),
        "{answer}"
    );
}

#[tokio::test]
async fn a_resumption_past_the_window_is_410_and_an_unknown_id_400() {
    let server = start(Config::builder().replay_window(64).build()).await;
    let mut client = Client::connect(server.addr, "2025-11-25").await;
    let (_, text, clean) = flood_a_slow_reader(&mut client, 1500).await;
    assert!(!clean);
    let seen = event_ids(&text);
    let mut headers = client.headers();
    headers.push(("accept", "text/event-stream"));
    headers.push(("last-event-id", seen.last().unwrap()));
    let gone = send(server.addr, "GET", &headers, "").await;
    assert_eq!(gone.status, StatusCode::GONE);
    let answer = gone.json().await;
    assert!(answer["error"]["message"]
        .as_str()
        .unwrap()
        .contains("config.streams.replay_window"));
    headers.pop();
    headers.push(("last-event-id", "999999-1"));
    let unknown = send(server.addr, "GET", &headers, "").await;
    assert_eq!(unknown.status, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn a_listen_stream_too_slow_for_its_queue_is_cut_visibly() {
    let server = start(Config::default()).await;
    let reply = listen(server.addr, 9, vec![]).await;
    assert_eq!(reply.status, StatusCode::OK);
    let notifier = server.server.notifier();
    assert_eq!(notifier.listen_streams(), 1);
    // Far more than the socket buffers and the queues hold, while the client reads nothing.
    for _ in 0..200_000 {
        notifier.tools_changed();
        if notifier.listen_streams() == 0 {
            break;
        }
    }
    assert_eq!(notifier.listen_streams(), 0, "the stream was not cut");
    let (text, clean) = read_until_end(reply).await;
    assert!(!clean, "a cut stream ends with an error, not as complete");
    assert!(text.contains("notifications/subscriptions/acknowledged"));
}
