//! A kubelet's view of a server: its probes asked the way the kubelet asks them.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// A server with nothing to serve: only its probes are asked.
pub struct Nothing;

static NOTHING: mcp_runtime::Catalog = mcp_runtime::Catalog::empty("nothing", "1");

impl mcp_runtime::Dispatch for Nothing {
    fn contract(&self) -> &'static mcp_runtime::Contract {
        static CONTRACT: mcp_runtime::Contract = mcp_runtime::Contract::new(&NOTHING);
        &CONTRACT
    }
}

/// A kubelet's GET of `path` on a fresh connection (its own Host, no Origin): status, body.
pub async fn kubelet_get(addr: SocketAddr, path: &str) -> (u16, String) {
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let request = format!(
        "GET {path} HTTP/1.1\r\nHost: 10.244.0.9:{}\r\nUser-Agent: kube-probe/1.31\r\nConnection: close\r\n\r\n",
        addr.port()
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut answer = String::new();
    let asked = Instant::now();
    tokio::time::timeout(Duration::from_secs(5), stream.read_to_string(&mut answer))
        .await
        .expect("the probe answers")
        .unwrap();
    assert!(
        asked.elapsed() < Duration::from_millis(500),
        "a probe never waits on a dependency: {:?}",
        asked.elapsed()
    );
    let status = answer.split(' ').nth(1).unwrap().parse().unwrap();
    let body = answer.split_once("\r\n\r\n").unwrap().1.to_owned();
    (status, body)
}

/// Asks `/readyz` until it answers `status` (within 10 s), checking `/healthz` each time.
pub async fn until_ready_is(addr: SocketAddr, status: u16) -> String {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        assert_eq!(kubelet_get(addr, "/healthz").await.0, 200);
        let (got, body) = kubelet_get(addr, "/readyz").await;
        if got == status {
            return body;
        }
        assert!(
            Instant::now() < deadline,
            "/readyz: {got} {body:?}, not {status}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
