//! A gateway's readiness follows its upstream (feature `upstream`): `/readyz` answers 503
//! `not ready: upstream unreachable` within a few seconds of the upstream going away, at once
//! when a forwarded call cannot connect, and 200 again once the upstream listens; `/healthz`
//! stays 200 throughout, and no probe waits on the upstream.
#![cfg(feature = "upstream")]

mod common;

use common::kubelet::{until_ready_is, Nothing};
use mcp_runtime::http::NotReady;
use mcp_runtime::upstream::{Upstream, UpstreamError, UpstreamSettings};
use mcp_runtime::{Config, McpServer};
use std::net::SocketAddr;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

/// An upstream that accepts connections on `addr` (and closes them): reachable while it runs.
async fn listen(addr: SocketAddr) -> JoinHandle<()> {
    let listener = TcpListener::bind(addr).await.unwrap();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            drop(stream);
        }
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn readiness_follows_the_upstream_down_and_back() {
    let upstream_addr = {
        let probe = TcpListener::bind("127.0.0.1:0").await.unwrap();
        probe.local_addr().unwrap()
    };
    let accepting = listen(upstream_addr).await;
    let upstream =
        Upstream::new(UpstreamSettings::new(format!("http://{upstream_addr}/rpc"))).unwrap();
    let config = Config::default();
    let readiness = config.readiness.clone();
    upstream.report_readiness(&readiness);
    // Not ready before the first check, so that a probe never says ready unchecked.
    assert_eq!(readiness.first_reason(), Some(NotReady::Upstream));

    let server = McpServer::builder(Nothing).config(config).build();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(server.serve_listener(listener, std::future::pending()));
    assert_eq!(until_ready_is(addr, 200).await, "ready\n");

    // The upstream goes away: the background check sees it.
    accepting.abort();
    let _ = accepting.await;
    assert_eq!(
        until_ready_is(addr, 503).await,
        "not ready: upstream unreachable\n"
    );
    // Back on its port: ready again.
    let accepting = listen(upstream_addr).await;
    assert_eq!(until_ready_is(addr, 200).await, "ready\n");

    // A forwarded call that cannot connect marks it at once, before the next check.
    accepting.abort();
    let _ = accepting.await;
    let error = upstream.call("eth_blockNumber", None).await.unwrap_err();
    assert!(matches!(error, UpstreamError::Connect { .. }), "{error}");
    assert_eq!(readiness.first_reason(), Some(NotReady::Upstream));
    assert_eq!(
        until_ready_is(addr, 503).await,
        "not ready: upstream unreachable\n"
    );
}
