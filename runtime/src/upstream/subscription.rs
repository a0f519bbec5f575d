//! Subscriptions at the upstream (`eth_subscribe("newHeads")`, Starknet's
//! `starknet_subscribeNewHeads`, Substrate's `chain_subscribeNewHeads`): opened over a WebSocket
//! or Unix-socket upstream, their notifications handed over one by one, opened again after a
//! lost connection, closed when dropped.
//!
//! - One upstream subscription per [`UpstreamSubscription`]; sharing one between MCP
//!   subscribers is the caller's (it is a value: keep it where they meet).
//! - **Bounded.** At most [`EVENTS_BUFFERED`] notifications wait for [`UpstreamSubscription::next`];
//!   past that, newer ones are dropped (logged at `debug`) until it catches up.
//! - **Opened again.** When its connection closes, the subscription is requested again on
//!   another (with the pool's backoff, 100 ms doubling to 5 s, while the upstream cannot be
//!   reached), under the new id the upstream gives, and [`SubscriptionEvent::Reopened`] says
//!   that notifications may have been missed. An upstream that refuses the request it accepted
//!   before (a JSON-RPC error) ends it: `next` gives `None`.
//! - **Closed when dropped.** The unsubscription (`eth_unsubscribe([id])`, or by name with
//!   [`SubscriptionMethods::by_name`]) goes on the connection the subscription is on, in the
//!   background, bounded by the call timeout.

use serde_json::value::RawValue;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};

use super::error::UpstreamError;
use super::params::request_body;
use super::socket::{self, Conn, Sockets};

/// The most notifications that wait for [`UpstreamSubscription::next`].
#[doc(hidden)]
pub const EVENTS_BUFFERED: usize = 256;

/// How an upstream opens and closes a subscription: the methods a vendor document declares
/// (or an overlay adds), and how the unsubscription names the subscription.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SubscriptionMethods {
    /// The method that opens one and answers its id (`eth_subscribe`).
    pub subscribe: &'static str,
    /// The method that closes one (`eth_unsubscribe`).
    pub unsubscribe: &'static str,
    /// The unsubscription's param that names the subscription, when params go by name
    /// (Starknet: `subscription_id`); `None`: by position, the id alone (`["0x1a"]`).
    pub unsubscribe_param: Option<&'static str>,
}

impl SubscriptionMethods {
    /// Methods whose unsubscription takes the id by position (Ethereum, Substrate, Lotus).
    pub const fn positional(subscribe: &'static str, unsubscribe: &'static str) -> Self {
        Self {
            subscribe,
            unsubscribe,
            unsubscribe_param: None,
        }
    }

    /// Methods whose unsubscription takes the id by name (Starknet:
    /// `by_name("starknet_subscribeNewHeads", "starknet_unsubscribe", "subscription_id")`).
    pub const fn by_name(
        subscribe: &'static str,
        unsubscribe: &'static str,
        param: &'static str,
    ) -> Self {
        Self {
            subscribe,
            unsubscribe,
            unsubscribe_param: Some(param),
        }
    }
}

/// What an [`UpstreamSubscription`] hands over.
#[derive(Debug)]
pub enum SubscriptionEvent {
    /// A notification's `params.result`, as the upstream sent it.
    Notification(Box<RawValue>),
    /// The connection was lost and the subscription opened again: notifications sent in
    /// between are missed.
    Reopened,
}

/// A subscription open at the upstream
/// ([`Upstream::subscribe`](super::Upstream::subscribe)). Dropping it closes it in the
/// background; [`close`](Self::close) waits for the upstream's answer.
#[derive(Debug)]
pub struct UpstreamSubscription {
    events: mpsc::Receiver<SubscriptionEvent>,
    /// The subscription's end (its unsubscription's outcome), when its task ends.
    ended: oneshot::Receiver<Result<(), UpstreamError>>,
}

impl UpstreamSubscription {
    /// The next event; `None` once the subscription has ended (the upstream refused to open
    /// it again after a lost connection).
    pub async fn next(&mut self) -> Option<SubscriptionEvent> {
        self.events.recv().await
    }

    /// Closes the subscription at the upstream and returns once it has answered: `Ok` when
    /// it said `true` (or when nothing was open: the connection was lost), else why not (it
    /// said `false`, an error, no answer within the call timeout).
    pub async fn close(self) -> Result<(), UpstreamError> {
        let Self { events, ended } = self;
        drop(events);
        ended.await.unwrap_or(Ok(()))
    }
}

/// One opening: the connection, the upstream's id (as sent, and as notifications name it) and
/// the channel of its notifications.
struct Opened {
    conn: Arc<Conn>,
    id: Box<RawValue>,
    key: Box<str>,
    notifications: mpsc::Receiver<Box<RawValue>>,
}

/// What a subscription needs of the upstream it is open at; an
/// [`Upstream`](super::Upstream) over a socket gives it.
pub(super) trait Link: Clone + Send + Sync + 'static {
    /// The connections the subscription goes on.
    fn sockets(&self) -> &Sockets;
    /// The next request id (one space with the calls').
    fn next_id(&self) -> u64;
    /// The longest a request waits for its answer.
    fn timeout(&self) -> Duration;
    /// The upstream's origin, for messages.
    fn shown(&self) -> &str;
    /// The `result` of `message`, the answer to request `id`, or what it says went wrong.
    fn result_of(&self, message: &[u8], id: u64) -> Result<Box<RawValue>, UpstreamError>;
}

/// Opens a subscription at `link` ([`Upstream::subscribe`](super::Upstream::subscribe)).
pub(super) async fn subscribe<L: Link>(
    link: L,
    methods: &SubscriptionMethods,
    params: Option<&RawValue>,
) -> Result<UpstreamSubscription, UpstreamError> {
    let params: Option<Box<RawValue>> = params.map(ToOwned::to_owned);
    let opened = open(&link, methods, params.as_deref()).await?;
    let (events, receiver) = mpsc::channel(EVENTS_BUFFERED);
    let (done, ended) = oneshot::channel();
    let methods = *methods;
    tokio::spawn(async move {
        let _ = done.send(run(link, methods, params, opened, events).await);
    });
    Ok(UpstreamSubscription {
        events: receiver,
        ended,
    })
}

/// One subscription request, within the call timeout.
async fn open<L: Link>(
    link: &L,
    methods: &SubscriptionMethods,
    params: Option<&RawValue>,
) -> Result<Opened, UpstreamError> {
    let id = link.next_id();
    let body = request_body(id, methods.subscribe, params.map(RawValue::get));
    let (route, notifications) = mpsc::channel(EVENTS_BUFFERED);
    let opening = link.sockets().subscribe(id, body, route);
    let (conn, answer) = tokio::time::timeout(link.timeout(), opening)
        .await
        .map_err(|_| UpstreamError::Timeout {
            url: link.shown().to_owned(),
            after: link.timeout(),
        })??;
    let result = link.result_of(&answer, id)?;
    let key = socket::subscription_key(&result).ok_or_else(|| UpstreamError::NotJsonRpc {
        url: link.shown().to_owned(),
        reason: format!(
            "{} answered {}, not a subscription id (a string or a number)",
            methods.subscribe,
            super::response::excerpt(result.get().as_bytes(), false)
        ),
    })?;
    tracing::debug!(upstream = %link.shown(), method = methods.subscribe, subscription = %result.get(), "upstream subscription opened");
    Ok(Opened {
        conn,
        id: result,
        key,
        notifications,
    })
}

/// Closes `opened` at the upstream, within the call timeout (a failure is also logged).
async fn close<L: Link>(
    link: &L,
    methods: &SubscriptionMethods,
    opened: Opened,
) -> Result<(), UpstreamError> {
    opened.conn.unroute(&opened.key);
    if opened.conn.closed() {
        return Ok(());
    }
    let params = match methods.unsubscribe_param {
        None => format!("[{}]", opened.id.get()),
        Some(name) => format!(
            "{{{}:{}}}",
            serde_json::to_string(name).expect("a string serializes"),
            opened.id.get()
        ),
    };
    let id = link.next_id();
    let body = request_body(id, methods.unsubscribe, Some(&params));
    let closing = link.sockets().exchange_on(&opened.conn, id, body, None);
    let outcome = match tokio::time::timeout(link.timeout(), closing).await {
        Ok(Ok(answer)) => match link.result_of(&answer, id) {
            Ok(result) if result.get() == "false" => Err(UpstreamError::NotJsonRpc {
                url: link.shown().to_owned(),
                reason: format!(
                    "{} answered false: the upstream did not know the subscription",
                    methods.unsubscribe
                ),
            }),
            Ok(_) => Ok(()),
            Err(error) => Err(error),
        },
        Ok(Err(error)) => Err(error),
        Err(_) => Err(UpstreamError::Timeout {
            url: link.shown().to_owned(),
            after: link.timeout(),
        }),
    };
    match &outcome {
        Ok(()) => {
            tracing::debug!(upstream = %link.shown(), method = methods.unsubscribe, subscription = %opened.id.get(), "upstream subscription closed")
        }
        Err(error) => {
            tracing::warn!(upstream = %link.shown(), method = methods.unsubscribe, "closing an upstream subscription: {error}")
        }
    }
    outcome
}

/// A subscription's life: notifications handed over until its holder leaves (then it is
/// closed) or its connection closes (then it is opened again).
async fn run<L: Link>(
    link: L,
    methods: SubscriptionMethods,
    params: Option<Box<RawValue>>,
    mut opened: Opened,
    events: mpsc::Sender<SubscriptionEvent>,
) -> Result<(), UpstreamError> {
    loop {
        loop {
            tokio::select! {
                _ = events.closed() => return close(&link, &methods, opened).await,
                result = opened.notifications.recv() => match result {
                    Some(result) => {
                        if events.try_send(SubscriptionEvent::Notification(result)).is_err() {
                            tracing::debug!(upstream = %link.shown(), "a notification dropped: its subscriber is behind");
                        }
                    }
                    // The connection closed.
                    None => break,
                },
            }
        }
        tracing::info!(upstream = %link.shown(), method = methods.subscribe, "upstream subscription lost with its connection: opening it again");
        let mut failures = 0;
        opened = loop {
            let attempt = open(&link, &methods, params.as_deref());
            let outcome = tokio::select! {
                _ = events.closed() => return Ok(()),
                outcome = attempt => outcome,
            };
            match outcome {
                Ok(opened) => break opened,
                Err(error @ UpstreamError::Rpc { .. }) => {
                    tracing::warn!(upstream = %link.shown(), method = methods.subscribe, "the upstream refused to open the subscription again, which ends it: {error}");
                    return Err(error);
                }
                Err(error) => {
                    failures += 1;
                    let wait = socket::backoff(failures);
                    tracing::debug!(upstream = %link.shown(), wait_ms = wait.as_millis() as u64, "opening the subscription again: {error}");
                    tokio::select! {
                        _ = events.closed() => return Ok(()),
                        _ = tokio::time::sleep(wait) => {}
                    }
                }
            }
        };
        tracing::info!(upstream = %link.shown(), method = methods.subscribe, "upstream subscription opened again");
        if events.send(SubscriptionEvent::Reopened).await.is_err() {
            return close(&link, &methods, opened).await;
        }
    }
}
