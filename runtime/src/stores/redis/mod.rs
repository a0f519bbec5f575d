//! Redis as the state several instances share (feature `redis`), one node or a Redis Cluster:
//! [`connect`] (or [`connect_to`], with [`Options`]) gives the
//! [`Stores`] of one instance, whose session-era sessions ([`RedisSessionStore`]) and tasks
//! ([`RedisTaskStore`]) live in Redis, whose events travel over Redis pub/sub
//! ([`RedisBus`]) and whose broadcasts go through one Redis Stream ([`RedisEventLog`]).
//!
//! Why the `redis` crate: it is the most used Rust client, BSD-licensed, and its
//! `ConnectionManager` is what a server needs and no more: one multiplexed connection that
//! reconnects by itself after Redis comes back (fred offers the same with a larger API and
//! its own pools and policies, which one connection per instance does not need).
//!
//! Keys, all under one prefix (`mcp` by default, so several deployments can share a Redis):
//!
//! | key | type | what |
//! |---|---|---|
//! | `{prefix}:session:{{sN}}:{id}` | hash, expiring after the idle timeout (refreshed lazily) | one session: `record` (JSON `SessionRecord`), `level`, `sub:{uri}`, `seen`; `sN` its bucket (one of up to 16, by a hash of the id) |
//! | `{prefix}:sessions:{{sN}}` | sorted set, id → expiry (ms) | the live sessions of bucket `sN`, to bound them across instances (its share of `config.sessions.max_sessions`) |
//! | `{prefix}:task:{{tN}}:{id}` | string (JSON `TaskRecord`), expiring with the task | one task |
//! | `{prefix}:tasks:{{tN}}` | sorted set, id → expiry (ms) | the live tasks of bucket `tN`, to bound them (its share of `config.tasks.max_tasks`) |
//! | `{prefix}:instance:{name}` | string, expiring ([`LEASE`]) | an instance's lease: its tasks are abandoned once it is gone |
//! | `{prefix}:bus` | pub/sub channel (sharded on a Cluster) | `BusEvent`s any instance may need |
//! | `{prefix}:bus:{address}` | pub/sub channel (sharded on a Cluster) | the events for one instance (`BusEvent::addressee`): a client's answer, a relayed stream's part, a task's cancellation or answers |
//! | `{prefix}:rate:{{caller}}`, `{prefix}:rate:{{caller}}:{target}` | hash, expiring after its period untouched | a shared rate-limit bucket (`--rate-limit-shared`; digests, never raw names): `t` tokens, `at` when ([`RedisRateBuckets`]) |
//! | `{prefix}:result:{id}-{page size}:{owner}` | string, expiring ([`Results::result_keep`](crate::config::Results::result_keep)) | a tool result over its budget (`crate::result_budget`); `owner` the principal's owner digest (as a task's), `-` without authorization |
//! | `{prefix}:feed:{{digest}}:*` | a lease, a sorted set, a list, a hash | a gateway's upstream subscription shared by its instances (feature `upstream`; `feeds.rs`) |
//! | `{prefix}:events` | stream, trimmed to about [`LOG_LENGTH`] entries | the broadcasts (list changes, resource updates) every standalone stream carries, field `b` (`Broadcast` JSON) |
//!
//! The braces are literal: they are the keys' hash tags. On a Redis Cluster
//! ([`Options::cluster`]), a script or pipeline touches the keys of one slot only, and every key
//! written together shares one tag (a session's hash and its bucket's set; a task's record and
//! its bucket's index; a caller's rate buckets; a feed's keys); no key is written by every
//! request. `{prefix}:events` and `{prefix}:bus` are one each, on any Redis.
//!
//! Faults: Redis unreachable at start is an error ([`connect`] fails, the binary exits 1);
//! lost while running, a request that needs a task answers HTTP 503 with a retryable
//! JSON-RPC error and a log line, everything else keeps working, and the connection comes
//! back by itself when Redis does.

mod bus;
mod connection;
mod events;
#[cfg(feature = "upstream")]
mod feeds;
mod proofs;
mod rate_limit;
mod results;
mod sessions;
mod tasks;

pub use bus::RedisBus;
pub use events::{RedisEventLog, LOG_LENGTH};
pub use rate_limit::RedisRateBuckets;
pub use sessions::RedisSessionStore;
pub use tasks::{RedisTaskStore, LEASE, LEASE_RENEWAL};

use std::sync::Arc;
use std::time::Duration;

use connection::Connection;
pub(crate) use connection::Link;

use super::Stores;
use crate::config::Config;

/// How long a command (or a connection attempt) may take before the request that needs it
/// gives up with 503: long enough for a loaded Redis, short enough that clients are not left
/// hanging while it is gone.
const TIMEOUT: Duration = Duration::from_secs(2);

/// The key prefix when none is given.
pub const DEFAULT_PREFIX: &str = "mcp";

/// Why [`connect`] failed; its `Display` names the URL (without its password).
#[derive(Debug)]
pub struct ConnectError {
    url: String,
    reason: String,
}

impl std::fmt::Display for ConnectError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cannot reach Redis at {}: {}", self.url, self.reason)
    }
}

impl std::error::Error for ConnectError {}

impl ConnectError {
    fn new(url: &str, reason: String) -> Self {
        Self {
            url: without_password(url),
            reason,
        }
    }
}

/// Connects to the Redis at `url` (`redis://[user:password@]host:port[/db]`, or
/// `rediss://` for TLS, its certificate checked against the system's roots) and returns the
/// stores of one instance: sessions, tasks, the bus and the DPoP proofs seen in Redis under
/// `prefix` (this instance's session replicas bounded by `config`), and the rate-limit buckets when
/// `config`'s [`RateLimits::shared`](crate::rate_limit::RateLimits::shared) asks (Redis 5 or
/// later). Fails when Redis does not answer a `PING` within two seconds, and when `url` is a
/// node of a Redis Cluster (see [`Options::cluster`]).
///
/// Call it inside the Tokio runtime that will serve: the bus's subscriber runs on it.
///
/// ```no_run
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// use mcp_runtime::stores::redis::{connect, connect_to, Options};
/// use mcp_runtime::Config;
///
/// let config = Config::default();
/// // One node:
/// let stores = connect("redis://127.0.0.1:6379/", "mcp", &config).await?;
/// // A Cluster, through two of its nodes, a session or task acknowledged once a replica has it:
/// let seeds = ["redis://10.0.0.1:7000/".to_string(), "redis://10.0.0.2:7000/".to_string()];
/// let options = Options::new("mcp").cluster(true).wait_for_replicas(1);
/// let stores = connect_to(&seeds, &options, &config).await?;
/// # let _ = stores; Ok(()) }
/// ```
pub async fn connect(url: &str, prefix: &str, config: &Config) -> Result<Stores, ConnectError> {
    connect_to(&[url.to_string()], &Options::new(prefix), config).await
}

/// [`connect`] with every option: `urls` is one node's URL, or (with [`Options::cluster`]) the
/// URLs of any of a Redis Cluster's nodes (one is enough; more help when one is down).
pub async fn connect_to(
    urls: &[String],
    options: &Options,
    config: &Config,
) -> Result<Stores, ConnectError> {
    let shown = urls.join(",");
    let link = options
        .link(urls)
        .map_err(|reason| ConnectError::new(&shown, reason))?;
    connect_link(&link, &shown, options, config).await
}

/// How [`connect_to`] reaches Redis and what an acknowledgment waits for.
#[derive(Clone, Debug)]
pub struct Options {
    prefix: String,
    ca_pem: Option<Vec<u8>>,
    cluster: bool,
    durability: Durability,
}

impl Options {
    /// Keys and channels under `prefix` (no spaces or braces); one node; `rediss://`
    /// certificates checked against the system's roots; nothing waited for.
    pub fn new(prefix: &str) -> Self {
        Self {
            prefix: prefix.to_string(),
            ca_pem: None,
            cluster: false,
            durability: Durability::default(),
        }
    }

    /// The URLs are nodes of a Redis Cluster (`--redis-cluster`): every command goes to the
    /// master of its key's slot and follows a failover by itself; the keys a script or a
    /// pipeline touches together share a hash tag (see the module documentation).
    pub fn cluster(mut self, cluster: bool) -> Self {
        self.cluster = cluster;
        self
    }

    /// Check a `rediss://` server's certificate against `pem` (one or more PEM certificates:
    /// a private CA) instead of the system's roots.
    pub fn ca_pem(mut self, pem: &[u8]) -> Self {
        self.ca_pem = Some(pem.to_vec());
        self
    }

    /// Acknowledge a session's creation and a task's acceptance or change only once `replicas`
    /// replicas of its master have it (`WAIT`, up to one second; `--redis-wait-replicas`):
    /// a master killed right after cannot lose it. When fewer confirm in time, the request
    /// answers 503 (retryable), and the write may or may not survive. 0 (the default): no wait;
    /// a master lost within its replication lag (sub-millisecond on a LAN) loses what it had
    /// not passed on.
    pub fn wait_for_replicas(mut self, replicas: usize) -> Self {
        self.durability = Durability { replicas };
        self
    }

    fn link(&self, urls: &[String]) -> Result<Link, String> {
        let ca = self.ca_pem.as_deref();
        match urls {
            _ if self.cluster => Link::cluster(urls, ca),
            [url] => Link::node(url, ca),
            [] => return Err("no URL".into()),
            _ => return Err("several URLs are the nodes of a Redis Cluster: add --redis-cluster (or MCP_REDIS_CLUSTER=1)".into()),
        }
        .map_err(|e| e.to_string())
    }
}

/// What a write the server acknowledges waits for: `WAIT replicas 1000` after it, in the
/// same round trip (and on a Cluster to the same master).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Durability {
    replicas: usize,
}

/// How long a write waits for its replicas ([`Options::wait_for_replicas`]).
const WAIT_MS: u64 = 1_000;

impl Durability {
    /// Appends the `WAIT` to `pipeline` when replicas are asked for: the pipeline's last reply
    /// is then how many confirmed.
    pub(crate) fn append(&self, pipeline: &mut ::redis::Pipeline) {
        if self.replicas > 0 {
            pipeline.cmd("WAIT").arg(self.replicas).arg(WAIT_MS);
        }
    }

    /// `Ok` when `confirmed` (the `WAIT`'s reply; `None` without one) is enough, else why not.
    pub(crate) fn check(&self, confirmed: Option<i64>) -> Result<(), String> {
        match confirmed {
            Some(n) if (n as usize) < self.replicas => {
                tracing::warn!(confirmed = n, asked = self.replicas, "a write was not confirmed by enough Redis replicas in time (--redis-wait-replicas): refused as unavailable");
                Err(format!(
                    "{n} of {} Redis replicas confirmed the write within {WAIT_MS} ms",
                    self.replicas
                ))
            }
            _ => Ok(()),
        }
    }
}

async fn connect_link(
    link: &Link,
    url: &str,
    options: &Options,
    config: &Config,
) -> Result<Stores, ConnectError> {
    let prefix = options.prefix.as_str();
    let failed = |reason: String| ConnectError::new(url, reason);
    let connection = open(link).await.map_err(failed)?;
    tracing::info!(url = %without_password(url), prefix, cluster = link.is_cluster(), wait_replicas = options.durability.replicas, "sharing sessions, tasks and notifications through Redis");
    // One name for this instance: its task lease and records, and its address on the bus.
    let instance = crate::ids::random_id();
    let tasks = RedisTaskStore::start(
        connection.clone(),
        prefix,
        &instance,
        config.tasks.max_tasks,
        options.durability,
    )
    .await
    .map_err(|e| failed(e.to_string()))?;
    let events = Arc::new(RedisEventLog::start(
        link.clone(),
        connection.clone(),
        prefix,
    ));
    let bus = Arc::new(RedisBus::start(
        link.clone(),
        connection.clone(),
        prefix,
        &instance,
    ));
    let rate_buckets = match &config.rate_limits {
        Some(limits) if limits.is_shared() => Some(
            RedisRateBuckets::start(connection.clone(), prefix)
                .await
                .map_err(|e| failed(e.to_string()))?,
        ),
        _ => None,
    };
    let proofs = Arc::new(proofs::RedisProofs::new(connection.clone(), prefix));
    let results = Arc::new(results::RedisResultStore::new(connection.clone(), prefix));
    let sessions =
        RedisSessionStore::new(connection, prefix, bus.clone(), config, options.durability);
    let sessions = Arc::new(sessions);
    Ok(Stores {
        sessions: sessions.clone(),
        shared_sessions: Some(sessions),
        tasks: Arc::new(tasks),
        bus,
        events: Some(events),
        rate_buckets: rate_buckets.map(|buckets| Arc::new(buckets) as _),
        proofs: Some(proofs),
        results,
    })
}

/// The shared connection of `link`, which answered a `PING`; a node that is part of a
/// Cluster is refused (its keys would answer `MOVED`), naming `--redis-cluster`.
async fn open(link: &Link) -> Result<Connection, String> {
    let mut connection = link.connect().await.map_err(|e| e.to_string())?;
    let pong: String = ::redis::cmd("PING")
        .query_async(&mut connection)
        .await
        .map_err(|e| e.to_string())?;
    if pong != "PONG" {
        return Err(format!("PING answered {pong:?}"));
    }
    if !link.is_cluster() {
        let info: String = ::redis::cmd("INFO")
            .arg("cluster")
            .query_async(&mut connection)
            .await
            .unwrap_or_default();
        if info.lines().any(|line| line.trim() == "cluster_enabled:1") {
            return Err("it is a node of a Redis Cluster: name it (and any other nodes) with --redis-cluster, or MCP_REDIS_CLUSTER=1".into());
        }
    }
    Ok(connection)
}

/// A gateway's upstream subscriptions shared through the Redis at `seeds` under `prefix`, on a connection
/// of their own: one subscription at the upstream per URI for every instance (`--redis`, a
/// Cluster's seeds with `cluster`; see
/// [`RedisFeeds`](feeds::RedisFeeds)).
#[cfg(feature = "upstream")]
pub(crate) async fn connect_feeds(
    seeds: &[String],
    cluster: bool,
    prefix: &str,
) -> Result<std::sync::Arc<dyn crate::upstream::SharedFeeds>, ConnectError> {
    let shown = seeds.join(",");
    let failed = |reason: String| ConnectError::new(&shown, reason);
    let link = Options::new(prefix)
        .cluster(cluster)
        .link(seeds)
        .map_err(failed)?;
    let connection = open(&link).await.map_err(failed)?;
    Ok(Arc::new(feeds::RedisFeeds::new(connection, prefix)))
}

/// Most hash tags the sessions (or the tasks) are spread over: each tag's keys live in one
/// Cluster slot, and a slot lives on one master.
const MAX_BUCKETS: usize = 16;

/// Fewest sessions (or tasks) a bucket bounds: below `MAX_BUCKETS × MIN_BUCKET`, fewer buckets,
/// down to one (an exact bound) for small deployments.
const MIN_BUCKET: usize = 64;

/// How ids of one kind (sessions, tasks) spread over hash tags, so that a script touches one
/// slot: an id's record and its bucket's sorted set of live ids share the tag `{kN}` (`k` the
/// kind, `N` the bucket). Each bucket bounds its share of the deployment's bound, `⌈max /
/// count⌉`: the deployment never holds more than `max + count − 1`, and a creation may be
/// refused a little before `max` when its bucket fills first (ids are random, so buckets fill
/// evenly: with 16 buckets of 625, the fullest is about 4% above the mean at 90%).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Buckets {
    kind: char,
    count: usize,
    bound: usize,
}

impl Buckets {
    /// The buckets of `kind` for a deployment bound of `max`.
    pub(crate) fn new(kind: char, max: usize) -> Self {
        let count = (max / MIN_BUCKET).clamp(1, MAX_BUCKETS);
        Self {
            kind,
            count,
            bound: max.div_ceil(count),
        }
    }

    /// The hash tag of `id`'s bucket, braces included.
    pub(crate) fn tag(&self, id: &str) -> String {
        // FNV-1a: stable across instances and versions, unlike std's hasher.
        let hash = id.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| {
            (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
        });
        format!("{{{}{}}}", self.kind, hash % self.count as u64)
    }

    /// How many live ids one bucket may hold.
    pub(crate) fn bound(&self) -> usize {
        self.bound
    }

    /// How many buckets.
    pub(crate) fn count(&self) -> usize {
        self.count
    }
}

/// `url` with any password replaced by `***`, for logs and errors.
fn without_password(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            let userinfo = &url[scheme + 3..at];
            let user = userinfo.split(':').next().unwrap_or_default();
            let hidden = if userinfo.contains(':') {
                format!("{user}:***")
            } else {
                "***".to_string()
            };
            format!("{}{hidden}{}", &url[..scheme + 3], &url[at..])
        }
        _ => url.to_string(),
    }
}

/// Whether a Redis error means "not reachable now" (a retry may work), not a bad command: a
/// Cluster's slot moving or its master being replaced counts.
fn is_unreachable(error: &::redis::RedisError) -> bool {
    connection::is_moving(error.kind())
        || error.is_io_error()
        || error.is_timeout()
        || error.is_connection_refusal()
        || error.is_connection_dropped()
}

#[cfg(test)]
mod tests;
