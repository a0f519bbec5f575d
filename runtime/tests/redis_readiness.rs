//! The readiness probe of a server sharing its state through Redis (feature `redis`), against
//! a real `redis-server` started here on a free 127.0.0.1 port (CI installs it): `/readyz`
//! answers 200 while Redis answers, 503 naming it within a few seconds of Redis being killed
//! (the background check: no probe waits on Redis), 200 again once Redis is back, and
//! `/healthz` 200 throughout.
#![cfg(feature = "redis")]

mod common;

use common::kubelet::{until_ready_is, Nothing};
use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use mcp_runtime::stores::redis::connect;
use mcp_runtime::{Config, McpServer};

/// A redis-server of this test's own, which can be killed and started again on its port.
struct Redis {
    port: u16,
    child: Option<Child>,
    dir: tempfile::TempDir,
}

impl Redis {
    fn start() -> Self {
        let port = {
            let listener = TcpListener::bind("127.0.0.1:0").unwrap();
            listener.local_addr().unwrap().port()
        };
        let mut redis = Self {
            port,
            child: None,
            dir: tempfile::tempdir().unwrap(),
        };
        redis.spawn();
        redis
    }

    fn spawn(&mut self) {
        let child = Command::new("redis-server")
            .args(["--port", &self.port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no"])
            .arg("--dir")
            .arg(self.dir.path())
            .current_dir(self.dir.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("redis-server on PATH (apt-get install redis-server)");
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::net::TcpStream::connect(("127.0.0.1", self.port)).is_err() {
            assert!(Instant::now() < deadline, "redis-server did not start");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        self.kill();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn readiness_follows_redis_down_and_back() {
    let mut redis = Redis::start();
    let config = Config::default();
    let stores = connect(&redis.url(), "readiness", &config).await.unwrap();
    let server = McpServer::with_stores(Nothing, config, stores);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(server.serve_listener(listener, std::future::pending()));

    assert_eq!(until_ready_is(addr, 200).await, "ready\n");
    redis.kill();
    assert_eq!(
        until_ready_is(addr, 503).await,
        "not ready: shared state (Redis) unreachable\n"
    );
    redis.spawn();
    assert_eq!(until_ready_is(addr, 200).await, "ready\n");
}
