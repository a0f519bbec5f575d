//! Graceful shutdown against a real server: once `shutdown` resolves, no connection is
//! accepted, a running request still answers, long-lived SSE streams end cleanly, and
//! `serve_listener` returns.

use http::StatusCode;
use http_body_util::BodyExt;
use serde_json::json;
use std::time::{Duration, Instant};
use tokio::net::TcpListener;
use tokio::sync::oneshot;

use crate::support::{read_messages, send, Client};
use mcp_runtime::{Config, McpServer};
use workspace_tests::server::Server;
use workspace_tests::TestHandler;

/// A server with `grace` serving until `stop` is sent; `serving` is its `serve_listener`.
async fn serve_until_stopped(
    grace: Duration,
) -> (
    std::net::SocketAddr,
    oneshot::Sender<()>,
    tokio::task::JoinHandle<std::io::Result<()>>,
) {
    let config = Config::builder().shutdown_grace(grace).build();
    let server = McpServer::builder(Server::new(TestHandler::default()))
        .config(config)
        .build();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = oneshot::channel::<()>();
    let serving = tokio::spawn(server.serve_listener(listener, async {
        let _ = stopped.await;
    }));
    (addr, stop, serving)
}

#[tokio::test]
async fn shutdown_finishes_running_requests_ends_streams_and_returns() {
    let (addr, stop, serving) = serve_until_stopped(Duration::from_secs(5)).await;

    let mut client = Client::connect(addr, "2025-11-25").await;
    let mut headers = client.headers();
    headers.push(("accept", "text/event-stream"));
    let standalone = send(addr, "GET", &headers, "").await;
    assert_eq!(standalone.status, StatusCode::OK);
    let (id, running) = client
        .request(
            "tools/call",
            json!({"name": "slow", "arguments": {"millis": 400}}),
        )
        .await;
    tokio::time::sleep(Duration::from_millis(100)).await;

    stop.send(()).unwrap();
    let asked = Instant::now();
    // The running request answers.
    let answers = read_messages(running).await;
    assert!(
        answers
            .iter()
            .any(|a| a["id"] == json!(id) && a["result"].is_object()),
        "{answers:?}"
    );
    // The standalone stream ends as a complete response, not with an error.
    let ended = tokio::time::timeout(Duration::from_secs(5), standalone.body.collect()).await;
    assert!(matches!(ended, Ok(Ok(_))), "the GET stream ends cleanly");
    // serve_listener returns once the connections closed, well within the grace.
    tokio::time::timeout(Duration::from_secs(5), serving)
        .await
        .expect("serve_listener returns")
        .unwrap()
        .unwrap();
    assert!(
        asked.elapsed() < Duration::from_secs(3),
        "{:?}",
        asked.elapsed()
    );
    assert!(
        tokio::net::TcpStream::connect(addr).await.is_err(),
        "no connection is accepted after shutdown"
    );
}

#[tokio::test]
async fn shutdown_stops_waiting_after_the_grace() {
    let (addr, stop, serving) = serve_until_stopped(Duration::from_millis(300)).await;
    let mut client = Client::connect(addr, "2025-11-25").await;
    // `linger` sleeps for a minute: its answer would come long after the grace.
    let _lingering = tokio::spawn(async move {
        client
            .request("tools/call", json!({"name": "linger", "arguments": {}}))
            .await
    });
    tokio::time::sleep(Duration::from_millis(100)).await;
    stop.send(()).unwrap();
    let asked = Instant::now();
    tokio::time::timeout(Duration::from_secs(5), serving)
        .await
        .expect("serve_listener returns after the grace")
        .unwrap()
        .unwrap();
    let waited = asked.elapsed();
    assert!(
        waited >= Duration::from_millis(300) && waited < Duration::from_secs(2),
        "{waited:?}"
    );
}
