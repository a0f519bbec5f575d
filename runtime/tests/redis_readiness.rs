//! The readiness probe of a server sharing its state through Redis (feature `redis`), against
//! a real `redis-server` started here on a free 127.0.0.1 port (CI installs it): `/readyz`
//! answers 200 while Redis answers, 503 naming it within a few seconds of Redis being killed
//! (the background check: no probe waits on Redis), 200 again once Redis is back, and
//! `/healthz` 200 throughout.
#![cfg(feature = "redis")]

mod common;

use common::kubelet::{until_ready_is, Nothing};
use common::redis::Redis;

use mcp_runtime::stores::redis::connect;
use mcp_runtime::{Config, McpServer};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn readiness_follows_redis_down_and_back() {
    let mut redis = Redis::start();
    let config = Config::default();
    let stores = connect(&redis.url(), "readiness", &config).await.unwrap();
    let server = McpServer::builder(Nothing)
        .config(config)
        .stores(stores)
        .build();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(server.serve_listener(listener, std::future::pending()));

    assert_eq!(until_ready_is(addr, 200).await, "ready\n");
    redis.stop();
    assert_eq!(
        until_ready_is(addr, 503).await,
        "not ready: shared state (Redis) unreachable\n"
    );
    redis.spawn();
    assert_eq!(until_ready_is(addr, 200).await, "ready\n");
}
