//! Accepting connections: at most [`config.limits.max_connections`] open at once (the next wait in
//! the listen backlog) and [`config.limits.max_connections_per_peer`] from one address (one more is
//! closed at once), a back-off when accepting fails (out of file descriptors), a header block of at
//! most [`config.limits.max_header_bytes`] on every connection (431 above), and a deadline for a
//! connection between requests (see `supervisor`). Expired sessions are evicted in the background.
//! On shutdown: mark the server not ready (the readiness probe answers 503), end the long-lived SSE
//! streams cleanly, let the running requests finish within [`config.transport.shutdown_grace`];
//! meanwhile new connections get only the probes (anything else 503), so that an orchestrator sees
//! the server draining rather than a refused connection.
//!
//! [`config.limits.max_connections`]: crate::config::Limits::max_connections
//! [`config.limits.max_connections_per_peer`]: crate::config::Limits::max_connections_per_peer
//! [`config.limits.max_header_bytes`]: crate::config::Limits::max_header_bytes
//! [`config.transport.shutdown_grace`]: crate::config::Transport::shutdown_grace

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::peers::{PeerPlace, Peers};
use super::supervisor::{Supervisor, Verdict};
use super::Endpoint;
use super::ENDPOINT;
use crate::dispatch::Dispatch;

/// The first pause after a failed accept; it doubles up to [`MAX_ACCEPT_BACKOFF`] while
/// accepting keeps failing.
const FIRST_ACCEPT_BACKOFF: Duration = Duration::from_millis(10);
/// The longest pause between two failed accepts.
const MAX_ACCEPT_BACKOFF: Duration = Duration::from_secs(1);
/// Most connections accepted while draining (probes) open at once.
const DRAINING_CONNECTIONS: usize = 64;
/// How long a connection accepted while draining may take for its one request.
const DRAINING_CONNECTION_TIME: Duration = Duration::from_secs(5);

impl<D: Dispatch> Endpoint<D> {
    /// `McpServer::serve_listener`: accepts connections until `shutdown` completes, then
    /// drains them.
    pub(crate) async fn serve_listener(
        self,
        listener: TcpListener,
        shutdown: impl Future<Output = ()>,
    ) -> std::io::Result<()> {
        let local: SocketAddr = listener.local_addr()?;
        tracing::info!("MCP server listening on http://{local}{ENDPOINT}");
        if let Some(path) = &self.engine.config().endpoints.jsonrpc_path {
            tracing::info!("plain JSON-RPC endpoint on http://{local}{path}");
        }
        self.warn_if_unreachable(local);
        self.engine.start_expiry();
        let max_connections = self
            .engine
            .config()
            .limits
            .max_connections
            .clamp(1, u32::MAX as usize);
        let open = Arc::new(Semaphore::new(max_connections));
        let peers = Peers::new(self.engine.config().limits.max_connections_per_peer);
        let supervisor = Arc::new(Supervisor::default());
        let idle_closer = tokio::spawn(
            supervisor
                .clone()
                .close_idle(self.engine.config().limits.idle_connection_timeout),
        );
        let watched = super::probes::Watched {
            event_log: self.engine.event_log().cloned(),
            auth: self.engine.config().auth.clone(),
            checks: self.engine.config().readiness.checks(),
        };
        let readiness = self.engine.config().readiness.clone();
        let watcher = (self.engine.config().endpoints.ready_path.is_some() && !watched.is_empty())
            .then(|| tokio::spawn(super::probes::watch(watched, readiness.clone())));
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
            let prefix = self.engine.config().limits.ipv6_peer_prefix;
            let Some(place) = peers.admit(super::peers::peer_of(peer.ip(), prefix)) else {
                // Closed before a byte is read: the peer holds its share of the places.
                tracing::debug!(%peer, "closed a connection: the peer holds config.limits.max_connections_per_peer");
                drop((stream, permit));
                continue;
            };
            let connection =
                self.clone()
                    .serve_connection(stream, peer, (permit, place), supervisor.clone());
            tokio::spawn(connection);
        }
        // Not ready from now on, before anything drains: the orchestrator stops sending.
        readiness.set(super::probes::NotReady::Draining, true);
        idle_closer.abort();
        if let Some(watcher) = watcher {
            watcher.abort();
        }
        let drain = self.drain(&supervisor, open, max_connections as u32);
        let probed = self.engine.config().endpoints.health_path.is_some()
            || self.engine.config().endpoints.ready_path.is_some();
        if probed {
            // The listener stays open while the connections drain, so that probes see the
            // server draining (503 ready, 200 alive) instead of a refused connection.
            tokio::select! {
                () = drain => {}
                () = self.probes_while_draining(&listener) => {}
            }
        } else {
            drop(listener);
            drain.await;
        }
        Ok(())
    }

    /// Accepts connections while the server drains (until dropped), each for one request:
    /// a probe is answered, anything else gets 503. At most [`DRAINING_CONNECTIONS`] at once,
    /// each for at most [`DRAINING_CONNECTION_TIME`].
    async fn probes_while_draining(&self, listener: &TcpListener) {
        let open = Arc::new(Semaphore::new(DRAINING_CONNECTIONS));
        loop {
            let Ok((stream, _peer, permit)) = accept_within(listener, &open).await else {
                tokio::time::sleep(FIRST_ACCEPT_BACKOFF).await;
                continue;
            };
            let server = self.clone();
            tokio::spawn(async move {
                let _permit = permit;
                let service = hyper::service::service_fn(move |request: http::Request<_>| {
                    let config = server.engine.config();
                    let response = match super::probes::probe_at(request.uri().path(), config) {
                        Some(probe) => {
                            super::probes::answer(probe, request.method(), &config.readiness)
                        }
                        None => super::probes::draining(),
                    };
                    std::future::ready(Ok::<_, std::convert::Infallible>(response))
                });
                let io = hyper_util::rt::TokioIo::new(stream);
                let connection = hyper::server::conn::http1::Builder::new()
                    .keep_alive(false)
                    .serve_connection(io, service);
                let _ = tokio::time::timeout(DRAINING_CONNECTION_TIME, connection).await;
            });
        }
    }

    /// The graceful part of a shutdown, once no connection is accepted any more.
    async fn drain(&self, supervisor: &Supervisor, open: Arc<Semaphore>, all: u32) {
        let grace = self.engine.config().transport.shutdown_grace;
        let connections = all as usize - open.available_permits();
        tracing::info!(
            connections,
            ?grace,
            "shutting down: finishing running requests"
        );
        supervisor.finish_all();
        self.engine.end_long_lived_streams();
        self.engine.legacy_streams().end_all();
        match tokio::time::timeout(grace, open.acquire_many(all)).await {
            Ok(_) => tracing::info!("shut down: every connection closed"),
            Err(_) => tracing::warn!(
                connections = all as usize - open.available_permits(),
                "shut down: config.transport.shutdown_grace passed with connections still open"
            ),
        }
    }

    /// Serves one connection until it closes, is idle too long, or the server shuts down;
    /// its `places` (in the whole server, and of its peer) free a place for the next.
    async fn serve_connection(
        self,
        stream: TcpStream,
        peer: SocketAddr,
        places: (OwnedSemaphorePermit, PeerPlace),
        supervisor: Arc<Supervisor>,
    ) {
        let _places = places;
        let registration = supervisor.watch();
        let control = registration.control().clone();
        // Without TCP_NODELAY a small SSE frame waits for the peer's delayed ACK.
        let _ = stream.set_nodelay(true);
        let config = self.engine.config();
        let mut http = hyper::server::conn::http1::Builder::new();
        http.max_header_size(config.limits.max_header_bytes.max(1));
        let server = self.clone();
        let requests = control.clone();
        // Hashed once per connection, and only when some rate limit may count peers.
        let peer_ip = super::peers::peer_of(peer.ip(), config.limits.ipv6_peer_prefix);
        let peer_key = self.engine.rate_peer_key(peer_ip);
        // Boxed: hyper moves each request's future into a slot of the connection, last
        // written one turn of all connections ago and cold by now; a box reuses the block the
        // previous request just freed, still in cache (measured: 1.5 µs less user CPU per
        // stateless request at 64 connections).
        let service = hyper::service::service_fn(move |request: hyper::Request<_>| {
            Box::pin(server.clone().serve_request(
                request,
                super::routes::Mount::Listener,
                Some(requests.start()),
            ))
        });
        let io = hyper_util::rt::TokioIo::new(stream);
        let connection = http.serve_connection(io, service);
        let mut connection = std::pin::pin!(connection);
        let mut waker_set = false;
        let mut finishing = false;
        // The supervisor's verdict is one load per poll; it wakes this task to deliver one.
        let served = std::future::poll_fn(|cx| {
            if !waker_set {
                control.set_waker(cx.waker());
                waker_set = true;
            }
            match control.verdict() {
                Verdict::Serve => {}
                Verdict::Finish => {
                    if !finishing {
                        // Answers the request in progress, if any, then closes.
                        connection.as_mut().graceful_shutdown();
                        finishing = true;
                    }
                }
                Verdict::Close => return std::task::Poll::Ready(None),
            }
            // The peer's key is there while the connection (and so each request's routing,
            // polled within it) is polled, only with rate limits: a field of every request's
            // future would cost every request, and a request extension an allocation.
            match peer_key {
                Some(key) => crate::rate_limit::with_peer(key, || connection.as_mut().poll(cx)),
                None => connection.as_mut().poll(cx),
            }
            .map(Some)
        })
        .await;
        match served {
            None => {
                tracing::debug!(%peer, "closed a connection idle for config.limits.idle_connection_timeout")
            }
            Some(Err(error)) => tracing::debug!(%peer, %error, "connection ended with an error"),
            Some(Ok(())) => {}
        }
    }

    /// Warns when the server listens beyond loopback but only loopback host names are
    /// allowed: every request from elsewhere would get 403.
    fn warn_if_unreachable(&self, local: SocketAddr) {
        let loopback_names = ["localhost", "127.0.0.1", "::1"];
        let only_loopback = self
            .engine
            .config()
            .transport
            .allowed_hosts
            .iter()
            .all(|host| loopback_names.contains(&host.as_str()));
        if !local.ip().is_loopback() && only_loopback {
            tracing::warn!(
                %local,
                "listening beyond loopback, but config.transport.allowed_hosts only names loopback hosts: requests whose Host is this machine's name or address get 403; add the names clients use (--allowed-hosts)"
            );
        }
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
