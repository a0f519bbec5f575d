//! Serving once the flags are read: the async runtime, Redis (`--redis`), the metrics listener
//! (`--metrics`) and the transport.

use std::net::SocketAddr;
use std::process::ExitCode;

use super::{Args, Transport};
use crate::dispatch::Dispatch;
use crate::server::McpServer;

/// `--redis`, if given: the URL, the flag or variable it came from, the key prefix, whether it
/// is a Cluster, how many replicas a write waits for.
pub(super) struct Shared {
    url: String,
    cluster: bool,
    wait_replicas: usize,
    source: &'static str,
    prefix: String,
    /// A gateway's upstream, whose subscriptions the instances share too.
    #[cfg(feature = "upstream")]
    pub(super) upstream: Option<crate::upstream::Upstream>,
}

pub(super) fn shared(args: &Args) -> Option<Shared> {
    args.redis.as_ref().map(|url| Shared {
        url: url.clone(),
        cluster: args.redis_cluster,
        wait_replicas: args.redis_wait_replicas,
        source: args.redis_source,
        prefix: args.redis_prefix.clone(),
        #[cfg(feature = "upstream")]
        upstream: None,
    })
}

/// Serves `server` on `transport` until the end (see [`main`]), its tasks and notifications
/// shared through Redis first when `shared` says so, its Prometheus metrics at `metrics` when
/// given (`--metrics`, a listener of its own).
pub(super) fn serve<D: Dispatch>(
    mut server: McpServer<D>,
    transport: Transport,
    shared: Option<Shared>,
    metrics: Option<SocketAddr>,
) -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("error: cannot start the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    if let Some(shared) = shared {
        server = match runtime.block_on(shared_through_redis(server, shared)) {
            Ok(server) => server,
            Err((code, message)) => {
                eprintln!("error: {message}");
                return ExitCode::from(code);
            }
        };
    }
    if let Some(addr) = metrics {
        if let Err((code, message)) =
            crate::telemetry::start_metrics(&runtime, server.load_source(), addr)
        {
            eprintln!("error: {message}");
            return ExitCode::from(code);
        }
    }
    let result = runtime.block_on(async move {
        match transport {
            Transport::Http(addr) => server.serve(addr).await,
            // stdin closing is the usual end; a signal ends it too, with success.
            Transport::Stdio => tokio::select! {
                served = crate::stdio::serve_stdio(server) => served,
                () = crate::lifecycle::shutdown::signal() => Ok(()),
            },
        }
    });
    // What is still running is dropped: handlers past the shutdown grace, and the thread
    // blocked reading stdin (which would otherwise keep the process alive until a line comes).
    runtime.shutdown_timeout(std::time::Duration::from_millis(100));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

/// `server` rebuilt with its tasks and notifications shared through the Redis `shared` names
/// (`--redis URL`; errors name the flag or variable it came from, never the URL). On failure,
/// the exit code and the message: 2 for a setup that cannot work, 1 when Redis cannot be
/// reached.
pub(super) async fn shared_through_redis<D: Dispatch>(
    server: McpServer<D>,
    shared: Shared,
) -> Result<McpServer<D>, (u8, String)> {
    let source = shared.source;
    #[cfg(not(feature = "redis"))]
    {
        let _ = (
            server,
            shared.url,
            shared.prefix,
            shared.cluster,
            shared.wait_replicas,
        );
        Err((
            2,
            format!("{source}: this server was built without the `redis` feature (build it with `--features redis`)"),
        ))
    }
    #[cfg(feature = "redis")]
    {
        use crate::request_state::{SealingKey, KEY_ENV};
        let shared_key = server.config().request_state.request_state_key.is_some()
            || matches!(SealingKey::from_env(), Ok(Some(_)));
        if !shared_key {
            return Err((
                2,
                format!("{source} needs {KEY_ENV} (or --request-state-key-file): every instance must seal requestState with the same key (e.g. `openssl rand -hex 32`)"),
            ));
        }
        let seeds: Vec<String> = shared
            .url
            .split(',')
            .map(str::trim)
            .filter(|url| !url.is_empty())
            .map(String::from)
            .collect();
        if !shared.cluster && seeds.len() > 1 {
            return Err((
                2,
                format!("{source}: several URLs are the nodes of a Redis Cluster: add --redis-cluster (or MCP_REDIS_CLUSTER=1)"),
            ));
        }
        let options = crate::stores::redis::Options::new(&shared.prefix)
            .cluster(shared.cluster)
            .wait_for_replicas(shared.wait_replicas);
        let stores = crate::stores::redis::connect_to(&seeds, &options, server.config())
            .await
            .map_err(|error| (1, format!("{source}: {error}")))?;
        #[cfg(feature = "upstream")]
        if let Some(upstream) = &shared.upstream {
            let feeds = crate::stores::redis::connect_feeds(&seeds, shared.cluster, &shared.prefix)
                .await
                .map_err(|error| (1, format!("{source}: {error}")))?;
            upstream.share_feeds(feeds);
        }
        server.rebuilt_with(stores).map_err(|_| {
            (
                2,
                format!("{source} cannot change a server that was cloned before entry::run; build it in entry::run_with's closure, or with McpServer::builder(..).stores(..)"),
            )
        })
    }
}
