//! Where the stores' commands go: one Redis node or a Redis Cluster, behind one type.
//!
//! [`Link`] is what `--redis` (and `--redis-cluster`) name, and opens the three kinds of
//! connection the stores use: the shared one every command goes through ([`Connection`]), one
//! whose commands may block (the event log's `XREAD BLOCK`), and a subscription (the bus).
//! On a node, they are a [`ConnectionManager`], a multiplexed connection and a pub/sub
//! connection; on a Cluster, three [`ClusterConnection`]s, each routing every command to the
//! master of its key's slot, following `MOVED` and a failover by itself.
//!
//! On a Cluster, every script and pipeline must touch keys of one slot (a `CROSSSLOT` error
//! otherwise): the key layout (`mod.rs`) gives the keys used together one hash tag.

use std::time::Duration;

use futures_util::StreamExt;

use ::redis::aio::{
    ConnectionLike, ConnectionManager, ConnectionManagerConfig, MultiplexedConnection,
};
use ::redis::cluster::{ClusterClient, ClusterClientBuilder};
use ::redis::cluster_async::ClusterConnection;
use ::redis::{
    AsyncConnectionConfig, Client, Cmd, ErrorKind, Pipeline, PushInfo, PushKind, RedisFuture,
    RedisResult, Value,
};

use super::TIMEOUT;

/// The connection the stores share: commands from every request are multiplexed on it, and it
/// reconnects by itself (see the module documentation).
#[derive(Clone)]
pub(crate) enum Connection {
    /// One Redis node.
    Node(ConnectionManager),
    /// A Redis Cluster.
    Cluster(ClusterConnection),
    /// One Redis node, for commands that block ([`Link::blocking`]).
    Blocking(MultiplexedConnection),
}

impl Connection {
    /// Whether commands go to a Cluster (one slot per script or pipeline).
    pub(crate) fn is_cluster(&self) -> bool {
        matches!(self, Self::Cluster(_))
    }
}

impl ConnectionLike for Connection {
    fn req_packed_command<'a>(&'a mut self, cmd: &'a Cmd) -> RedisFuture<'a, Value> {
        match self {
            Self::Node(connection) => connection.req_packed_command(cmd),
            Self::Cluster(connection) => connection.req_packed_command(cmd),
            Self::Blocking(connection) => connection.req_packed_command(cmd),
        }
    }

    fn req_packed_commands<'a>(
        &'a mut self,
        pipeline: &'a Pipeline,
        offset: usize,
        count: usize,
    ) -> RedisFuture<'a, Vec<Value>> {
        match self {
            Self::Node(connection) => connection.req_packed_commands(pipeline, offset, count),
            // The cluster client follows a slot's move for a command, not for a pipeline: a
            // pipeline that met one (a failover under way) is sent again, after a pause. All
            // its keys share a slot, so a move means none of them was written.
            Self::Cluster(connection) => Box::pin(async move {
                let mut attempt = 0;
                loop {
                    let replies = connection
                        .req_packed_commands(pipeline, offset, count)
                        .await;
                    let moving = match &replies {
                        Err(error) => is_moving(error.kind()),
                        Ok(values) => values.iter().any(|value| match value {
                            Value::ServerError(error) => error
                                .kind()
                                .is_some_and(|kind| is_moving(ErrorKind::Server(kind))),
                            _ => false,
                        }),
                    };
                    if !moving || attempt == PIPELINE_RETRIES {
                        return replies;
                    }
                    attempt += 1;
                    tokio::time::sleep(RETRY_PAUSE * attempt).await;
                }
            }),
            Self::Blocking(connection) => connection.req_packed_commands(pipeline, offset, count),
        }
    }

    fn get_db(&self) -> i64 {
        match self {
            Self::Node(connection) => connection.get_db(),
            Self::Cluster(connection) => connection.get_db(),
            Self::Blocking(connection) => connection.get_db(),
        }
    }
}

/// The Redis the stores use and how to reach it (see the module documentation).
#[derive(Clone)]
pub(crate) enum Link {
    /// One node: `redis://` or `rediss://`.
    Node(Client),
    /// A Cluster, reached through any of its nodes (the seeds); the slot map comes from them.
    Cluster {
        /// The seed nodes' URLs.
        seeds: Vec<String>,
        /// A private CA for `rediss://` seeds.
        ca_pem: Option<Vec<u8>>,
    },
}

impl Link {
    /// The node at `url`, its `rediss://` certificate checked against `ca_pem` when given.
    pub(crate) fn node(url: &str, ca_pem: Option<&[u8]>) -> RedisResult<Self> {
        let client = match ca_pem {
            None => Client::open(url)?,
            Some(pem) => Client::build_with_tls(url, certificates(pem))?,
        };
        Ok(Self::Node(client))
    }

    /// The Cluster that `seeds` belong to (checked when a connection opens).
    pub(crate) fn cluster(seeds: &[String], ca_pem: Option<&[u8]>) -> RedisResult<Self> {
        let link = Self::Cluster {
            seeds: seeds.to_vec(),
            ca_pem: ca_pem.map(<[u8]>::to_vec),
        };
        link.cluster_builder()?.build()?;
        Ok(link)
    }

    /// Whether this is a Cluster.
    pub(crate) fn is_cluster(&self) -> bool {
        matches!(self, Self::Cluster { .. })
    }

    /// The connection the stores share, commands timing out after [`TIMEOUT`].
    pub(crate) async fn connect(&self) -> RedisResult<Connection> {
        match self {
            Self::Node(client) => {
                let config = ConnectionManagerConfig::new()
                    .set_connection_timeout(Some(TIMEOUT))
                    .set_response_timeout(Some(TIMEOUT))
                    .set_number_of_retries(2)
                    .set_max_delay(Duration::from_secs(1));
                let connection = ConnectionManager::new_with_config(client.clone(), config).await?;
                Ok(Connection::Node(connection))
            }
            Self::Cluster { .. } => {
                let client = self.cluster_builder()?.response_timeout(TIMEOUT).build()?;
                Ok(Connection::Cluster(client.get_async_connection().await?))
            }
        }
    }

    /// A connection of its own for commands that block (`XREAD BLOCK`): nothing else waits
    /// behind it, and its response timeout is [`BLOCKING`].
    pub(crate) async fn blocking(&self) -> RedisResult<Connection> {
        match self {
            Self::Node(client) => {
                let config = AsyncConnectionConfig::new()
                    .set_connection_timeout(Some(TIMEOUT))
                    .set_response_timeout(Some(BLOCKING));
                let connection = client
                    .get_multiplexed_async_connection_with_config(&config)
                    .await?;
                Ok(Connection::Blocking(connection))
            }
            Self::Cluster { .. } => {
                let client = self.cluster_builder()?.response_timeout(BLOCKING).build()?;
                Ok(Connection::Cluster(client.get_async_connection().await?))
            }
        }
    }

    /// The payloads of the messages published on `channels`, on a connection of its own: on
    /// a node, `PUBLISH`ed ones, and the stream ends when the connection is lost (subscribe
    /// again); on a Cluster, `SPUBLISH`ed ones (sharded channels), each subscribed on the
    /// master of its slot, again by the client itself after a reconnection or a failover (the
    /// stream does not end).
    pub(crate) async fn subscribe(&self, channels: &[String]) -> RedisResult<Messages> {
        match self {
            Self::Node(client) => {
                let mut pubsub = client.get_async_pubsub().await?;
                pubsub.subscribe(channels).await?;
                Ok(Box::pin(
                    pubsub
                        .into_on_message()
                        .map(|message| message.get_payload_bytes().to_vec()),
                ))
            }
            Self::Cluster { .. } => {
                let (sender, pushed) = tokio::sync::mpsc::unbounded_channel::<PushInfo>();
                let client = self.cluster_builder()?.push_sender(sender).build()?;
                let mut connection = client.get_async_connection().await?;
                for channel in channels {
                    connection.ssubscribe(channel).await?;
                }
                Ok(Box::pin(futures_util::stream::unfold(
                    (pushed, connection),
                    |(mut pushed, connection)| async move {
                        loop {
                            let info = pushed.recv().await?;
                            if !matches!(info.kind, PushKind::Message | PushKind::SMessage) {
                                continue;
                            }
                            if let Some(Value::BulkString(payload)) = info.data.into_iter().nth(1) {
                                return Some((payload, (pushed, connection)));
                            }
                        }
                    },
                )))
            }
        }
    }

    fn cluster_builder(&self) -> RedisResult<ClusterClientBuilder> {
        let Self::Cluster { seeds, ca_pem } = self else {
            unreachable!("cluster_builder on a node");
        };
        let mut builder = ClusterClient::builder(seeds.iter().map(String::as_str))
            .connection_timeout(TIMEOUT)
            .use_protocol(::redis::ProtocolVersion::RESP3)
            .retries(8)
            .min_retry_wait(50)
            .max_retry_wait(1_000);
        if let Some(pem) = ca_pem {
            builder = builder.certs(certificates(pem));
        }
        Ok(builder)
    }
}

/// What [`Link::subscribe`] gives: each message's payload.
pub(crate) type Messages = std::pin::Pin<Box<dyn futures_util::Stream<Item = Vec<u8>> + Send>>;

/// How many times a Cluster pipeline that met a slot moving is sent again; the pauses grow by
/// [`RETRY_PAUSE`] each time (2.75 s in all, about a failover on a LAN with a short
/// `cluster-node-timeout`).
const PIPELINE_RETRIES: u32 = 10;

/// See [`PIPELINE_RETRIES`].
const RETRY_PAUSE: Duration = Duration::from_millis(50);

/// Whether an error means a slot is moving or its master is being replaced (the request did
/// not run, and will where the cluster says, soon).
pub(crate) fn is_moving(kind: ErrorKind) -> bool {
    use ::redis::ServerErrorKind::{Ask, ClusterDown, ExecAbort, MasterDown, Moved, TryAgain};
    matches!(
        kind,
        ErrorKind::Server(Moved | Ask | TryAgain | ClusterDown | MasterDown | ExecAbort)
    )
}

/// The response timeout of a [`Link::blocking`] connection: well past the longest block the
/// stores ask for (the event log's `XREAD BLOCK` of 1 s), so that a Redis gone silent (a network
/// partition, which closes no connection) is noticed and the reader connects again.
const BLOCKING: Duration = Duration::from_secs(10);

fn certificates(pem: &[u8]) -> ::redis::TlsCertificates {
    ::redis::TlsCertificates {
        client_tls: None,
        root_cert: Some(pem.to_vec()),
    }
}
