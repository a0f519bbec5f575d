//! The liveness and readiness probes against a real server on 127.0.0.1, asked the way a
//! kubelet asks (raw bytes: `Host: <pod-ip>:<port>`, `User-Agent: kube-probe/1.31`, no
//! Origin, no token, a fresh connection each): 200 with authorization and the Origin checks
//! on, at a configured path (the default then 404), while `/mcp` is saturated, and 503 ready /
//! 200 alive once the server drains after its shutdown signal.

use http::StatusCode;
use serde_json::json;
use std::net::SocketAddr;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;

use crate::support::{send, Client};
use mcp_runtime::auth::{Auth, Authenticator, Principal, Refusal, ResourceMetadata};
use mcp_runtime::{BoxFuture, Config, McpServer};
use workspace_tests::server::Server;
use workspace_tests::TestHandler;

/// A server on `config` until `stop` is sent; `serving` is its `serve_listener`.
async fn serve(
    config: Config,
) -> (
    SocketAddr,
    oneshot::Sender<()>,
    tokio::task::JoinHandle<std::io::Result<()>>,
) {
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

/// A kubelet's HTTP GET of `path` (its own Host, no Origin unless given), on a fresh
/// connection: the status and the body.
async fn kubelet_get(addr: SocketAddr, path: &str, origin: Option<&str>) -> (u16, String) {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let origin = origin
        .map(|origin| format!("Origin: {origin}\r\n"))
        .unwrap_or_default();
    let request = format!(
        "GET {path} HTTP/1.1\r\nHost: 10.244.1.17:{}\r\nUser-Agent: kube-probe/1.31\r\n\
         Accept: */*\r\n{origin}Connection: close\r\n\r\n",
        addr.port()
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(5), stream.read_to_end(&mut answer))
        .await
        .expect("the probe answers within 5 s")
        .unwrap();
    let answer = String::from_utf8_lossy(&answer).into_owned();
    let status = answer
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or_else(|| panic!("an HTTP status line: {answer:?}"));
    let body = answer
        .split_once("\r\n\r\n")
        .map(|(_, body)| body.to_owned())
        .unwrap_or_default();
    (status, body)
}

/// Asks `path` until it answers `status` (within 3 s).
async fn until_status(addr: SocketAddr, path: &str, status: u16) -> String {
    let deadline = Instant::now() + Duration::from_secs(3);
    loop {
        let (got, body) = kubelet_get(addr, path, None).await;
        if got == status {
            return body;
        }
        assert!(
            Instant::now() < deadline,
            "{path}: {got} {body:?}, not {status}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Refuses every request: no token is ever valid.
struct NoOne;

impl Authenticator for NoOne {
    fn authenticate<'a>(
        &'a self,
        _request: &'a http::request::Parts,
    ) -> BoxFuture<'a, Result<Principal, Refusal>> {
        Box::pin(async { Err(Refusal::Missing) })
    }
}

#[tokio::test]
async fn probes_answer_without_token_host_or_origin_checks() {
    let metadata = ResourceMetadata::new(
        "http://127.0.0.1/mcp",
        vec!["https://issuer.example".into()],
    )
    .unwrap();
    let config = Config::builder()
        .auth(Some(Auth::new(metadata, NoOne)))
        .build();
    let (addr, _stop, _serving) = serve(config).await;
    // Authorization is on: /mcp without a token is refused.
    let refused = send(addr, "POST", &[], "{}").await;
    assert_eq!(refused.status, StatusCode::UNAUTHORIZED);
    let (status, body) = kubelet_get(addr, "/healthz", None).await;
    assert_eq!((status, body.as_str()), (200, "ok\n"));
    // Ready once the authenticator decided (the background check's first round).
    assert_eq!(until_status(addr, "/readyz", 200).await, "ready\n");
    // An Origin /mcp would refuse (not an allowed host) does not fail a probe.
    let (status, _) = kubelet_get(addr, "/readyz", Some("http://evil.example")).await;
    assert_eq!(status, 200);
    let (status, _) = kubelet_get(addr, "/healthz", Some("http://evil.example")).await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn configured_paths_move_the_probes_and_off_turns_them_off() {
    let config = Config::builder()
        .health_path(Some("/live".into()))
        .ready_path(None)
        .build();
    let (addr, _stop, _serving) = serve(config).await;
    assert_eq!(kubelet_get(addr, "/live", None).await.0, 200);
    assert_eq!(kubelet_get(addr, "/healthz", None).await.0, 404);
    assert_eq!(kubelet_get(addr, "/readyz", None).await.0, 404);
    // Probes take GET and HEAD only.
    let posted = crate::support::send_to(addr, "/live", "POST", &[], "").await;
    assert_eq!(posted.status, StatusCode::METHOD_NOT_ALLOWED);
}

#[tokio::test]
async fn draining_answers_not_ready_and_still_alive_until_the_end() {
    let config = Config::builder()
        .shutdown_grace(Duration::from_secs(5))
        .build();
    let (addr, stop, serving) = serve(config).await;
    assert_eq!(kubelet_get(addr, "/readyz", None).await.0, 200);
    let mut client = Client::connect(addr, "2025-11-25").await;
    let running = tokio::spawn(async move {
        client
            .call(
                "tools/call",
                json!({"name": "slow", "arguments": {"millis": 1500}}),
            )
            .await
    });
    tokio::time::sleep(Duration::from_millis(150)).await;
    stop.send(()).unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(!running.is_finished(), "the slow call is still draining");
    let (status, body) = kubelet_get(addr, "/readyz", None).await;
    assert_eq!((status, body.as_str()), (503, "not ready: draining\n"));
    assert_eq!(kubelet_get(addr, "/healthz", None).await.0, 200);
    // Anything else on a connection accepted while draining: 503, not served.
    assert_eq!(
        send(addr, "POST", &[], "{}").await.status,
        StatusCode::SERVICE_UNAVAILABLE
    );
    assert!(!running.is_finished(), "the slow call is still draining");
    // The running call answers, then the server returns and accepts nothing more.
    let answer = running.await.unwrap();
    assert!(answer["result"].is_object(), "{answer}");
    tokio::time::timeout(Duration::from_secs(5), serving)
        .await
        .expect("serve_listener returns")
        .unwrap()
        .unwrap();
    assert!(TcpStream::connect(addr).await.is_err());
}

/// Calls `linger` (a minute's sleep) in `client`'s session under id `id`, without waiting.
fn linger(client: &Client, id: i64) -> tokio::task::JoinHandle<crate::support::Reply> {
    let (addr, session, version) = (client.addr, client.session.clone(), client.version.clone());
    tokio::spawn(async move {
        let headers = [
            ("mcp-session-id", session.as_str()),
            ("mcp-protocol-version", version.as_str()),
        ];
        let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "linger", "arguments": {}}});
        crate::support::post(addr, &headers, &call).await
    })
}

#[tokio::test]
async fn probes_answer_while_mcp_is_saturated() {
    let config = Config::builder().max_session_requests(8).build();
    let (addr, _stop, _serving) = serve(config).await;
    let mut callers = Vec::new();
    let mut clients = Vec::new();
    for _ in 0..4 {
        let client = Client::connect(addr, "2025-11-25").await;
        for id in 100..108 {
            callers.push(linger(&client, id));
        }
        clients.push(client);
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    // Every session holds its limit: one more call is refused.
    let over = linger(&clients[0], 200).await.unwrap();
    assert_eq!(over.status, StatusCode::SERVICE_UNAVAILABLE);
    for path in ["/healthz", "/readyz"] {
        let asked = Instant::now();
        assert_eq!(kubelet_get(addr, path, None).await.0, 200, "{path}");
        assert!(
            asked.elapsed() < Duration::from_millis(500),
            "{path}: {:?}",
            asked.elapsed()
        );
    }
    for caller in callers {
        caller.abort();
    }
}

/// An authenticator whose issuer's keys come when `fetched` is set: until then it cannot
/// decide (as the JWT authenticator before its first JWKS fetch).
struct KeysLater(std::sync::Arc<std::sync::atomic::AtomicBool>);

impl Authenticator for KeysLater {
    fn authenticate<'a>(
        &'a self,
        _request: &'a http::request::Parts,
    ) -> BoxFuture<'a, Result<Principal, Refusal>> {
        let fetched = self.0.load(std::sync::atomic::Ordering::Relaxed);
        Box::pin(async move {
            if fetched {
                Err(Refusal::invalid_token("no such key"))
            } else {
                Err(Refusal::Unavailable("the keys cannot be fetched".into()))
            }
        })
    }
}

#[tokio::test]
async fn not_ready_until_the_authenticator_can_decide() {
    let fetched = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let metadata = ResourceMetadata::new(
        "http://127.0.0.1/mcp",
        vec!["https://issuer.example".into()],
    )
    .unwrap();
    let config = Config::builder()
        .auth(Some(Auth::new(metadata, KeysLater(fetched.clone()))))
        .build();
    let (addr, _stop, _serving) = serve(config).await;
    let (status, body) = kubelet_get(addr, "/readyz", None).await;
    assert_eq!(
        (status, body.as_str()),
        (
            503,
            "not ready: the issuer's signing keys are not fetched\n"
        )
    );
    assert_eq!(kubelet_get(addr, "/healthz", None).await.0, 200);
    fetched.store(true, std::sync::atomic::Ordering::Relaxed);
    assert_eq!(until_status(addr, "/readyz", 200).await, "ready\n");
}
