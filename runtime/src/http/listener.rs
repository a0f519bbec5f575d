//! Accepting connections: at most [`Config::max_connections`] open at once (the next wait in
//! the listen backlog), a back-off when accepting fails (out of file descriptors), and a header
//! block of at most [`Config::max_header_bytes`] on every connection (431 above). Expired
//! sessions are evicted in the background.
//!
//! Not here yet: a deadline for a request's headers and for an idle keep-alive connection.
//! hyper's `header_read_timeout` gives both, but arms a timer before every request's headers:
//! measured at 1.7k instructions per request with tokio's timer and 0.75k with a coarse timer
//! of our own (3%), against a hot path of 25k. It is to come from the connection's reads
//! instead (see BENCHMARKS.md, session 9).
//!
//! [`Config::max_connections`]: crate::Config::max_connections
//! [`Config::max_header_bytes`]: crate::Config::max_header_bytes

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream, ToSocketAddrs};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::ENDPOINT;
use crate::dispatch::Dispatch;
use crate::server::McpServer;

/// The first pause after a failed accept; it doubles up to [`MAX_ACCEPT_BACKOFF`] while
/// accepting keeps failing.
const FIRST_ACCEPT_BACKOFF: Duration = Duration::from_millis(10);
/// The longest pause between two failed accepts.
const MAX_ACCEPT_BACKOFF: Duration = Duration::from_secs(1);

impl<D: Dispatch> McpServer<D> {
    /// Serves the MCP endpoint on `addr` until the process ends.
    pub async fn serve(self, addr: impl ToSocketAddrs) -> std::io::Result<()> {
        let listener = TcpListener::bind(addr).await?;
        self.serve_listener(listener, std::future::pending()).await
    }

    /// Serves on `listener` until `shutdown` completes. Expired sessions are evicted in the
    /// background.
    pub async fn serve_listener(
        self,
        listener: TcpListener,
        shutdown: impl Future<Output = ()>,
    ) -> std::io::Result<()> {
        let local: SocketAddr = listener.local_addr()?;
        tracing::info!("MCP server listening on http://{local}{ENDPOINT}");
        let sweeper = self.spawn_expiry();
        let open = Arc::new(Semaphore::new(self.engine.config.max_connections.max(1)));
        let mut shutdown = std::pin::pin!(shutdown);
        let mut backoff = FIRST_ACCEPT_BACKOFF;
        loop {
            // A connection past the cap waits in the listen backlog until one closes.
            let accepted = tokio::select! {
                accepted = accept_within(&listener, &open) => accepted,
                () = &mut shutdown => break,
            };
            let (stream, peer, permit) = match accepted {
                Ok(accepted) => accepted,
                Err(error) => {
                    // Out of file descriptors, most likely: retrying at once would spin.
                    tracing::warn!(%error, pause = ?backoff, "accept failed");
                    tokio::select! {
                        () = tokio::time::sleep(backoff) => {}
                        () = &mut shutdown => break,
                    }
                    backoff = (backoff * 2).min(MAX_ACCEPT_BACKOFF);
                    continue;
                }
            };
            backoff = FIRST_ACCEPT_BACKOFF;
            tokio::spawn(self.clone().serve_connection(stream, peer, permit));
        }
        if let Some(sweeper) = sweeper {
            sweeper.abort();
        }
        Ok(())
    }

    /// Serves one connection until it closes; its `permit` frees a place for the next.
    async fn serve_connection(
        self,
        stream: TcpStream,
        peer: SocketAddr,
        permit: OwnedSemaphorePermit,
    ) {
        let _permit = permit;
        // Without TCP_NODELAY a small SSE frame waits for the peer's delayed ACK.
        let _ = stream.set_nodelay(true);
        let config = &self.engine.config;
        let mut http = hyper::server::conn::http1::Builder::new();
        http.max_header_size(config.max_header_bytes.max(1));
        let server = self.clone();
        // Boxed: hyper moves each request's future into a slot of the connection, last
        // written one turn of all connections ago and cold by now; a box reuses the block the
        // previous request just freed, still in cache (measured: 1.5 µs less user CPU per
        // stateless request at 64 connections).
        let service = hyper::service::service_fn(move |request| {
            Box::pin(server.clone().serve_request(request))
        });
        let io = hyper_util::rt::TokioIo::new(stream);
        if let Err(error) = http.serve_connection(io, service).await {
            tracing::debug!(%peer, %error, "connection ended with an error");
        }
    }

    /// Evicts expired sessions every quarter of the idle timeout or lifetime, whichever is
    /// shorter (at most every 30 s).
    fn spawn_expiry(&self) -> Option<tokio::task::JoinHandle<()>> {
        let config = &self.engine.config;
        let idle = config.session_idle_timeout;
        let shortest = match (idle, config.session_max_lifetime) {
            (Some(idle), Some(lifetime)) => idle.min(lifetime),
            (one, other) => one.or(other)?,
        };
        let store = self.engine.store.clone();
        let period = (shortest / 4).clamp(Duration::from_millis(10), Duration::from_secs(30));
        Some(tokio::spawn(async move {
            let mut ticker = tokio::time::interval(period);
            loop {
                ticker.tick().await;
                let evicted = store.evict_expired(idle);
                if evicted > 0 {
                    tracing::debug!(evicted, "expired sessions evicted");
                }
            }
        }))
    }
}

/// The next connection, once fewer than the cap are open.
async fn accept_within(
    listener: &TcpListener,
    open: &Arc<Semaphore>,
) -> std::io::Result<(TcpStream, SocketAddr, OwnedSemaphorePermit)> {
    let permit = open
        .clone()
        .acquire_owned()
        .await
        .expect("the connection semaphore is never closed");
    let (stream, peer) = listener.accept().await?;
    Ok((stream, peer, permit))
}
