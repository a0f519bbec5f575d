//! Connection limits against slow and greedy clients, spoken to over raw TCP: a body that
//! stalls, a header block over the limit, more connections than the cap (the open ones are
//! still served), and more from one peer address than its share.

use serde_json::json;
use std::net::SocketAddr;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::support::{post, start};
use mcp_runtime::Config;

/// A short timeout, so the tests stay fast.
const SHORT: Duration = Duration::from_millis(300);

/// Reads until the server closes the connection (or `within` passes): what it sent, and
/// whether it closed.
async fn read_until_closed(stream: &mut TcpStream, within: Duration) -> (String, bool) {
    let mut received = Vec::new();
    let deadline = tokio::time::Instant::now() + within;
    let mut buffer = [0u8; 4096];
    loop {
        match tokio::time::timeout_at(deadline, stream.read(&mut buffer)).await {
            Ok(Ok(0)) | Ok(Err(_)) => return (String::from_utf8_lossy(&received).into(), true),
            Ok(Ok(n)) => received.extend_from_slice(&buffer[..n]),
            Err(_) => return (String::from_utf8_lossy(&received).into(), false),
        }
    }
}

async fn connect(addr: SocketAddr) -> TcpStream {
    TcpStream::connect(addr).await.unwrap()
}

#[tokio::test]
async fn a_body_that_stalls_is_408() {
    let server = start(Config::builder().body_read_timeout(SHORT).build()).await;
    let mut stream = connect(server.addr).await;
    let head = "POST /mcp HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\n\
                accept: application/json, text/event-stream\r\ncontent-length: 100\r\n\r\n";
    stream.write_all(head.as_bytes()).await.unwrap();
    stream.write_all(br#"{"jsonrpc":"#).await.unwrap();
    let (answer, _) = read_until_closed(&mut stream, Duration::from_secs(5)).await;
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("body_read_timeout"), "{answer}");
}

#[tokio::test]
async fn a_header_block_over_the_limit_is_431() {
    let server = start(Config::builder().max_header_bytes(16 * 1024).build()).await;
    let mut stream = connect(server.addr).await;
    let request = format!(
        "POST /mcp HTTP/1.1\r\nhost: localhost\r\nx-padding: {}\r\n\r\n",
        "a".repeat(32 * 1024)
    );
    // The server may close before it read everything: the write can fail, the answer cannot.
    let _ = stream.write_all(request.as_bytes()).await;
    let (answer, _) = read_until_closed(&mut stream, Duration::from_secs(5)).await;
    assert!(answer.starts_with("HTTP/1.1 431"), "{answer}");
}

#[tokio::test]
async fn connections_past_the_cap_wait_and_the_open_ones_are_served() {
    let server = start(Config::builder().max_connections(2).build()).await;
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
    // Two connections take both places and say nothing.
    let first = connect(server.addr).await;
    let mut second = connect(server.addr).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    // A third waits in the backlog while both are open...
    let waiting = tokio::spawn(async move { post(server.addr, &[], &ping).await.status });
    tokio::time::sleep(SHORT).await;
    assert!(
        !waiting.is_finished(),
        "a third connection was served past the cap"
    );
    // ...while an open one is still served.
    second
        .write_all(b"GET /elsewhere HTTP/1.1\r\nhost: localhost\r\n\r\n")
        .await
        .unwrap();
    let mut answer = [0u8; 12];
    second.read_exact(&mut answer).await.unwrap();
    assert_eq!(&answer, b"HTTP/1.1 404");
    // Closing one lets the third in.
    drop(first);
    let status = tokio::time::timeout(Duration::from_secs(5), waiting)
        .await
        .expect("the waiting connection was served once a place freed")
        .unwrap();
    // No session header: the request got as far as the protocol.
    assert_eq!(status, http::StatusCode::BAD_REQUEST);
}

/// A connection to `addr` from the loopback address `from` (any of 127.0.0.0/8 reaches a
/// server on 127.0.0.1): another peer, as the server sees it.
async fn connect_from(from: &str, addr: SocketAddr) -> TcpStream {
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind(format!("{from}:0").parse().unwrap()).unwrap();
    socket.connect(addr).await.unwrap()
}

#[tokio::test]
async fn one_peer_cannot_take_every_connection() {
    let config = Config::builder()
        .max_connections(10)
        .max_connections_per_peer(2)
        .build();
    let server = start(config).await;
    // One address takes its two places and says nothing.
    let first = connect_from("127.0.0.2", server.addr).await;
    let _second = connect_from("127.0.0.2", server.addr).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    // Its third is closed at once, though the server has places left...
    let mut third = connect_from("127.0.0.2", server.addr).await;
    let _ = third.write_all(KEEP_ALIVE_REQUEST.as_bytes()).await;
    let (answer, closed) = read_until_closed(&mut third, Duration::from_secs(5)).await;
    assert!(
        closed && answer.is_empty(),
        "served past the per-peer cap: {answer:?}"
    );
    // ...which another address still gets.
    let mut other = connect_from("127.0.0.3", server.addr).await;
    other
        .write_all(KEEP_ALIVE_REQUEST.as_bytes())
        .await
        .unwrap();
    let mut status = [0u8; 12];
    other.read_exact(&mut status).await.unwrap();
    assert_eq!(&status, b"HTTP/1.1 404");
    // A place the first address gives back is its own again.
    drop(first);
    tokio::time::sleep(Duration::from_millis(100)).await;
    let mut again = connect_from("127.0.0.2", server.addr).await;
    again
        .write_all(KEEP_ALIVE_REQUEST.as_bytes())
        .await
        .unwrap();
    again.read_exact(&mut status).await.unwrap();
    assert_eq!(&status, b"HTTP/1.1 404");
}

/// A complete `ping`-free request that keeps the connection alive: a GET of a path that is not
/// the endpoint (404, no body to wait for).
const KEEP_ALIVE_REQUEST: &str = "GET /nothing HTTP/1.1\r\nhost: localhost\r\n\r\n";

#[tokio::test]
async fn an_idle_keep_alive_connection_is_closed() {
    let server = start(Config::builder().idle_connection_timeout(SHORT).build()).await;
    let mut stream = connect(server.addr).await;
    stream
        .write_all(KEEP_ALIVE_REQUEST.as_bytes())
        .await
        .unwrap();
    let started = tokio::time::Instant::now();
    let (answer, closed) = read_until_closed(&mut stream, Duration::from_secs(5)).await;
    assert!(answer.starts_with("HTTP/1.1 404"), "{answer}");
    assert!(closed, "the idle connection stays open");
    let waited = started.elapsed();
    // Between one and one and a half timeouts; the margin above is for a busy machine.
    assert!(
        waited >= SHORT && waited < SHORT * 6,
        "closed after {waited:?}, expected about {SHORT:?} to 1.5 × that"
    );
}

#[tokio::test]
async fn headers_sent_a_byte_at_a_time_do_not_hold_a_connection() {
    let server = start(Config::builder().idle_connection_timeout(SHORT).build()).await;
    let mut stream = connect(server.addr).await;
    let started = tokio::time::Instant::now();
    let mut closed_after = None;
    // One byte every 50 ms: headers that never end (a "slowloris" client).
    for byte in "POST /mcp HTTP/1.1\r\nhost: localhost\r\nx-slow: "
        .bytes()
        .cycle()
    {
        if stream.write_all(&[byte]).await.is_err() {
            closed_after = Some(started.elapsed());
            break;
        }
        let mut probe = [0u8; 64];
        if let Ok(Ok(0)) =
            tokio::time::timeout(Duration::from_millis(50), stream.read(&mut probe)).await
        {
            closed_after = Some(started.elapsed());
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(5), "never closed");
    }
    let closed_after = closed_after.unwrap();
    assert!(closed_after < SHORT * 6, "closed after {closed_after:?}");
}

#[tokio::test]
async fn a_quiet_sse_stream_outlives_the_idle_timeout() {
    let server = start(Config::builder().idle_connection_timeout(SHORT).build()).await;
    let client = crate::support::Client::connect(server.addr, "2025-11-25").await;
    let mut headers = client.headers();
    headers.push(("accept", "text/event-stream"));
    let mut stream = crate::support::send(server.addr, "GET", &headers, "").await;
    assert_eq!(stream.status, http::StatusCode::OK);
    assert!(stream.chunk().await.unwrap().starts_with(": ping"));
    tokio::time::sleep(SHORT * 3).await;
    // Still open: a notification sent now arrives on it.
    server.server.notifier().tools_changed();
    let next = stream.chunk().await.unwrap();
    assert!(next.contains("notifications/tools/list_changed"), "{next}");
}

#[tokio::test]
async fn an_oversized_request_target_is_refused_and_the_server_goes_on() {
    let server = start(Config::default()).await;
    let mut stream = connect(server.addr).await;
    let request = format!(
        "GET /mcp?{} HTTP/1.1\r\nhost: localhost\r\n\r\n",
        "a".repeat(128 * 1024)
    );
    let _ = stream.write_all(request.as_bytes()).await;
    let (answer, closed) = read_until_closed(&mut stream, Duration::from_secs(5)).await;
    assert!(
        answer.starts_with("HTTP/1.1 414") || answer.starts_with("HTTP/1.1 431"),
        "{answer}"
    );
    assert!(closed);
    let ping = post(
        server.addr,
        &[],
        &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}}),
    )
    .await;
    assert_eq!(ping.status, http::StatusCode::OK);
}
