//! Upstream subscriptions as MCP resources: each resource URI of a subscription template
//! (`eth://subscription/newHeads`) is one subscription at the upstream, shared by every client
//! that wants its updates.
//!
//! - **Opened by the first subscriber.** A session's `resources/subscribe`, or a
//!   `subscriptions/listen` stream naming the URI, reaches the dispatch as a
//!   [`CallKind::Subscribe`](crate::dispatch::CallKind::Subscribe) call, and the generated
//!   code calls [`Upstream::open_feed`](super::Upstream::open_feed): the first opens the
//!   upstream subscription (its refusal is the client's error), the others share it.
//! - **Each notification** is kept in the URI's window (the latest
//!   [`UpstreamSettings::subscription_window`](super::UpstreamSettings::subscription_window)
//!   events, and no more bytes than
//!   [`UpstreamSettings::max_response_bytes`](super::UpstreamSettings::max_response_bytes)) and
//!   told with [`Notifier::resource_updated`]: `notifications/resources/updated` to the
//!   subscribed sessions, the listen streams naming it, and the other instances'.
//!   `resources/read` of the URI returns the window ([`Upstream::read_feed`](super::Upstream::read_feed)).
//!   A connection lost and the subscription opened again is told the same way, the window
//!   counting it (`reopened`): events may have been missed in between.
//! - **Closed after the last.** Every [`REAP_EVERY`], a feed whose URI no client of this
//!   instance still wants (a scan of its sessions and listen streams)
//!   is closed at the upstream (`eth_unsubscribe`): an unsubscription, a session's end and a
//!   stream's end all count, at most that long later.
//! - **One per deployment** when instances share Redis (`--redis`, [`SharedFeeds`]): one
//!   instance holds each URI's subscription (a lease, [`FEED_LEASE`]), and the window lives
//!   in Redis, where any instance reads it. The others follow: every [`SHARE_EVERY`] each
//!   says it still wants the URI, and takes the lease over when its holder is gone (killed,
//!   or cut from Redis), opening the subscription again (told as a reopening). The holder
//!   closes it when no instance wants it any more.

use serde_json::value::RawValue;
use std::collections::{HashMap, VecDeque};
use std::fmt::Write as _;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;
use tokio::sync::OnceCell;
use tokio::time::{Instant, Interval};

use super::subscription::{SubscriptionEvent, UpstreamSubscription};
use crate::delivery::notifier::Notifier;
use crate::error::Error;
use crate::future::BoxFuture;

/// How often a feed checks that a client of this instance still wants it (and is closed
/// otherwise), when the instance does not share its feeds.
#[doc(hidden)]
pub const REAP_EVERY: Duration = Duration::from_secs(2);

/// With shared feeds (`--redis`): how often the holder of a URI's subscription renews its
/// lease and sees whether any instance still wants it, and each other instance with a
/// client of it says so (and takes the lease over if it is free).
#[doc(hidden)]
pub const SHARE_EVERY: Duration = Duration::from_secs(5);

/// With shared feeds: how long a holder's lease, and an instance's "still wanted", last
/// without renewal. A holder that stops is replaced within this and [`SHARE_EVERY`].
#[doc(hidden)]
pub const FEED_LEASE: Duration = Duration::from_secs(15);

/// Where the feeds of several instances meet ([`crate::stores::redis`]'s `RedisFeeds`):
/// each URI's lease, who still wants it, and its window.
pub(crate) trait SharedFeeds: Send + Sync {
    /// Records that this instance wants `uri` (for [`FEED_LEASE`]) and takes its lease if
    /// nobody holds it: whether this instance holds it now.
    fn claim<'a>(&'a self, uri: &'a str) -> BoxFuture<'a, Result<bool, String>>;

    /// The holder's renewal, every [`SHARE_EVERY`]: the lease kept while this instance
    /// (`wanted_here`) or another still wants `uri`, else given up with the window.
    fn renew<'a>(
        &'a self,
        uri: &'a str,
        wanted_here: bool,
    ) -> BoxFuture<'a, Result<Renewal, String>>;

    /// Gives `uri`'s lease up, if this instance holds it (the subscription did not open).
    fn release<'a>(&'a self, uri: &'a str) -> BoxFuture<'a, Result<(), String>>;

    /// Keeps `event` in `uri`'s window of at most `window` events; `None`: the subscription
    /// was opened again (counted).
    fn push<'a>(
        &'a self,
        uri: &'a str,
        event: Option<&'a RawValue>,
        window: usize,
    ) -> BoxFuture<'a, Result<(), String>>;

    /// `uri`'s window as every instance sees it.
    fn read<'a>(&'a self, uri: &'a str) -> BoxFuture<'a, Result<Snapshot, String>>;
}

/// What a holder's [`SharedFeeds::renew`] found.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Renewal {
    /// Still wanted: the lease is renewed.
    Held,
    /// Nobody wants it: the lease and the window are gone, the subscription is to be closed.
    Released,
    /// Another instance holds the lease (this one was cut from Redis past it).
    #[cfg_attr(not(feature = "redis"), allow(dead_code))]
    Lost,
}

/// A feed's window, as read.
#[derive(Debug, Default)]
pub(crate) struct Snapshot {
    /// Whether a subscription is open behind it.
    pub(crate) open: bool,
    /// Events received since it opened.
    pub(crate) received: u64,
    /// Times it was opened again (after a lost connection, or by another instance).
    pub(crate) reopened: u64,
    /// The latest events, oldest first.
    pub(crate) events: Vec<Box<RawValue>>,
}

/// Opens the upstream subscription behind a feed (again, after a lease taken over).
pub(super) type Opener =
    Arc<dyn Fn() -> BoxFuture<'static, Result<UpstreamSubscription, Error>> + Send + Sync>;

type Open = Arc<Mutex<HashMap<Box<str>, Arc<Feed>>>>;

/// The feeds of one upstream, by resource URI.
pub(super) struct Feeds {
    open: Open,
    /// Where they meet other instances' (`--redis`), once given.
    shared: OnceLock<Arc<dyn SharedFeeds>>,
    /// The most events a window keeps.
    window: usize,
    /// The most bytes a window keeps (the newest event always).
    max_bytes: usize,
}

/// One upstream subscription behind a resource URI.
struct Feed {
    /// Whether it opened (or follows another instance's), its error otherwise, once the first
    /// subscriber has tried.
    opened: OnceCell<Result<(), Error>>,
    /// The last time a client asked for it: a feed just asked for is not closed, even
    /// before its subscriber is recorded.
    wanted: Mutex<Instant>,
    /// The window, when this instance keeps it (not shared).
    window: Mutex<Window>,
}

/// The latest events of a feed.
#[derive(Default)]
struct Window {
    events: VecDeque<Box<RawValue>>,
    bytes: usize,
    /// Events received since the feed opened.
    received: u64,
    /// Times the subscription was opened again after a lost connection.
    reopened: u64,
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A failure of the shared store, as the client's error.
fn unshared(uri: &str, error: String) -> Error {
    Error::new(format!(
        "{uri}: the subscriptions shared between instances cannot be reached ({error}); try again"
    ))
}

impl Feeds {
    /// No feeds yet; windows of at most `window` events and `max_bytes` bytes.
    pub(super) fn new(window: usize, max_bytes: usize) -> Self {
        Self {
            open: Open::default(),
            shared: OnceLock::new(),
            window,
            max_bytes,
        }
    }

    /// Shares the feeds with the other instances through `shared` (once; later calls are
    /// ignored).
    pub(super) fn share(&self, shared: Arc<dyn SharedFeeds>) {
        let _ = self.shared.set(shared);
    }

    /// The feed of `uri`, opened by `opener` unless it is open already (or opening: then its
    /// outcome is awaited), or held by another instance; told through `notifier`.
    pub(super) async fn open(
        &self,
        uri: &str,
        notifier: Option<&Notifier>,
        opener: Opener,
    ) -> Result<(), Error> {
        let feed = {
            let mut feeds = lock(&self.open);
            let feed = feeds.entry(uri.into()).or_insert_with(|| {
                Arc::new(Feed {
                    opened: OnceCell::new(),
                    wanted: Mutex::new(Instant::now()),
                    window: Mutex::default(),
                })
            });
            *lock(&feed.wanted) = Instant::now();
            feed.clone()
        };
        let outcome = feed
            .opened
            .get_or_init(|| async {
                let shared = self.shared.get().cloned();
                let held = match &shared {
                    None => true,
                    Some(shared) => shared
                        .claim(uri)
                        .await
                        .map_err(|error| unshared(uri, error))?,
                };
                let role = if held {
                    match opener().await {
                        Ok(subscription) => Role::Holding(subscription),
                        Err(error) => {
                            if let Some(Err(release)) = match &shared {
                                Some(shared) => Some(shared.release(uri).await),
                                None => None,
                            } {
                                tracing::warn!(%uri, error = %release, "a lease on a subscription that did not open could not be given up: another instance takes it once it expires");
                            }
                            return Err(error);
                        }
                    }
                } else {
                    Role::Following
                };
                tracing::info!(
                    %uri,
                    held,
                    "a subscription opened at the upstream{}",
                    if held { "" } else { " by another instance: this one follows it" }
                );
                let pump = Pump {
                    feeds: self.open.clone(),
                    uri: uri.into(),
                    feed: feed.clone(),
                    notifier: notifier.cloned(),
                    shared,
                    opener,
                    window: self.window,
                    max_bytes: self.max_bytes,
                };
                tokio::spawn(pump.run(role));
                Ok(())
            })
            .await
            .clone();
        if outcome.is_err() {
            // Not kept: the next subscriber tries again.
            forget(&self.open, uri, &feed);
        }
        outcome
    }

    /// `resources/read` of `uri`: one JSON content holding the feed's window.
    pub(super) async fn read(&self, uri: &str) -> Result<Box<RawValue>, Error> {
        let snapshot = match self.shared.get() {
            Some(shared) => shared
                .read(uri)
                .await
                .map_err(|error| unshared(uri, error))?,
            None => {
                let feed = lock(&self.open).get(uri).cloned();
                match feed.filter(|feed| matches!(feed.opened.get(), Some(Ok(())))) {
                    Some(feed) => {
                        let window = lock(&feed.window);
                        Snapshot {
                            open: true,
                            received: window.received,
                            reopened: window.reopened,
                            events: window.events.iter().cloned().collect(),
                        }
                    }
                    None => Snapshot::default(),
                }
            }
        };
        Ok(render(uri, snapshot, self.max_bytes))
    }

    /// How many feeds are open (or opening).
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        lock(&self.open).len()
    }
}

/// The `resources/read` result of `uri` showing `snapshot`, its oldest events left out past
/// `max_bytes` (the newest always kept).
fn render(uri: &str, snapshot: Snapshot, max_bytes: usize) -> Box<RawValue> {
    let mut events = snapshot.events.as_slice();
    let mut bytes: usize = events.iter().map(|event| event.get().len()).sum();
    while bytes > max_bytes && events.len() > 1 {
        bytes -= events[0].get().len();
        events = &events[1..];
    }
    let mut text = String::with_capacity(64 + bytes + events.len());
    let _ = write!(
        text,
        r#"{{"subscribed":{},"received":{},"reopened":{},"events":["#,
        snapshot.open, snapshot.received, snapshot.reopened
    );
    for (i, event) in events.iter().enumerate() {
        if i > 0 {
            text.push(',');
        }
        text.push_str(event.get());
    }
    text.push_str("]}");
    let result = serde_json::json!({
        "contents": [{"uri": uri, "mimeType": "application/json", "text": text}]
    });
    serde_json::value::to_raw_value(&result).expect("a JSON value serializes")
}

/// What this instance does for a feed.
enum Role {
    /// It holds the subscription at the upstream.
    Holding(UpstreamSubscription),
    /// Another instance does (shared feeds only).
    Following,
}

/// Keeps a feed's events and tells of them, until no client wants it (then closes it at the
/// upstream) or the upstream ends it.
struct Pump {
    feeds: Open,
    uri: Box<str>,
    feed: Arc<Feed>,
    notifier: Option<Notifier>,
    shared: Option<Arc<dyn SharedFeeds>>,
    opener: Opener,
    window: usize,
    max_bytes: usize,
}

impl Pump {
    async fn run(self, mut role: Role) {
        let every = if self.shared.is_some() {
            SHARE_EVERY
        } else {
            REAP_EVERY
        };
        let mut tick = tokio::time::interval_at(Instant::now() + every, every);
        loop {
            let next = match role {
                Role::Holding(subscription) => self.hold(subscription, &mut tick, every).await,
                Role::Following => self.follow(&mut tick, every).await,
            };
            match next {
                Some(next) => role = next,
                None => return,
            }
        }
    }

    /// Holds the subscription: its events kept and told, until nobody wants it (`None`) or
    /// another instance holds it (following it then).
    async fn hold(
        &self,
        mut subscription: UpstreamSubscription,
        tick: &mut Interval,
        every: Duration,
    ) -> Option<Role> {
        let uri = &*self.uri;
        loop {
            tokio::select! {
                event = subscription.next() => match event {
                    Some(SubscriptionEvent::Notification(result)) => {
                        self.keep(Some(result)).await;
                        self.tell();
                    }
                    Some(SubscriptionEvent::Reopened) => {
                        self.keep(None).await;
                        self.tell();
                    }
                    None => {
                        tracing::warn!(%uri, "the upstream ended a subscription (it refused to open it again): its subscribers get no more updates");
                        if let Some(shared) = &self.shared {
                            let _ = shared.release(uri).await;
                        }
                        forget(&self.feeds, uri, &self.feed);
                        self.tell();
                        return None;
                    }
                },
                _ = tick.tick() => {
                    let renewal = match &self.shared {
                        None if self.wanted_here(every) => Renewal::Held,
                        None => Renewal::Released,
                        Some(shared) => match shared.renew(uri, self.wanted_here(every)).await {
                            Ok(renewal) => renewal,
                            Err(error) => {
                                tracing::warn!(%uri, %error, "the lease on a subscription cannot be renewed: this instance keeps it open meanwhile");
                                Renewal::Held
                            }
                        },
                    };
                    let ends = match renewal {
                        Renewal::Held => continue,
                        Renewal::Lost => false,
                        Renewal::Released if self.forget_unless_wanted(every) => true,
                        // Asked for again meanwhile: kept if the lease can be had again.
                        Renewal::Released => match &self.shared {
                            None => continue,
                            Some(shared) => match shared.claim(uri).await {
                                Ok(true) => continue,
                                _ => false,
                            },
                        },
                    };
                    match subscription.close().await {
                        Ok(()) if ends => tracing::info!(%uri, "a subscription closed at the upstream: no client wants it"),
                        Ok(()) => tracing::info!(%uri, "a subscription closed at the upstream: another instance holds it"),
                        Err(error) => tracing::warn!(%uri, %error, "a subscription could not be closed at the upstream"),
                    }
                    return (!ends).then_some(Role::Following);
                }
            }
        }
    }

    /// Follows another instance's subscription while a client of this one wants it, taking
    /// it over when its lease is free (`Some(Role::Holding)`); `None` once nobody here wants
    /// it.
    async fn follow(&self, tick: &mut Interval, every: Duration) -> Option<Role> {
        let uri = &*self.uri;
        let shared = self.shared.as_ref()?;
        loop {
            tick.tick().await;
            if !self.wanted_here(every) && self.forget_unless_wanted(every) {
                tracing::debug!(%uri, "no client of this instance follows a subscription any more");
                return None;
            }
            match shared.claim(uri).await {
                Ok(false) => continue,
                Ok(true) => match (self.opener)().await {
                    Ok(subscription) => {
                        tracing::info!(%uri, "a subscription opened at the upstream again: its holder is gone, this instance holds it now");
                        self.keep(None).await;
                        self.tell();
                        return Some(Role::Holding(subscription));
                    }
                    Err(error) => {
                        tracing::warn!(%uri, %error, "a subscription whose holder is gone could not be opened again: tried again in a while");
                        let _ = shared.release(uri).await;
                    }
                },
                Err(error) => {
                    tracing::warn!(%uri, %error, "whether a subscription's holder is still there cannot be seen")
                }
            }
        }
    }

    /// Keeps `event` in the window (`None`: the subscription was opened again).
    async fn keep(&self, event: Option<Box<RawValue>>) {
        match &self.shared {
            None => {
                let mut window = lock(&self.feed.window);
                match event {
                    Some(event) => window.push(event, self.window, self.max_bytes),
                    None => window.reopened += 1,
                }
            }
            Some(shared) => {
                if let Err(error) = shared.push(&self.uri, event.as_deref(), self.window).await {
                    tracing::warn!(uri = %self.uri, %error, "an event of a subscription could not be kept for reads (still told)");
                }
            }
        }
    }

    /// Tells the subscribers (of every instance) that the URI changed.
    fn tell(&self) {
        if let Some(notifier) = &self.notifier {
            notifier.resource_updated(&self.uri);
        }
    }

    /// Whether a client of this instance wants the feed, or asked for it in the last `every`.
    fn wanted_here(&self, every: Duration) -> bool {
        self.notifier
            .as_ref()
            .is_none_or(|notifier| notifier.watches(&self.uri))
            || lock(&self.feed.wanted).elapsed() < every
    }

    /// Forgets the feed, unless a client asked for it in the last `every` (then `false`).
    fn forget_unless_wanted(&self, every: Duration) -> bool {
        let mut open = lock(&self.feeds);
        if lock(&self.feed.wanted).elapsed() < every {
            return false;
        }
        if open
            .get(&self.uri)
            .is_some_and(|kept| Arc::ptr_eq(kept, &self.feed))
        {
            open.remove(&self.uri);
        }
        true
    }
}

/// Removes `feed` from `feeds`, if it is still the one kept for `uri`.
fn forget(feeds: &Mutex<HashMap<Box<str>, Arc<Feed>>>, uri: &str, feed: &Arc<Feed>) {
    let mut open = lock(feeds);
    if open.get(uri).is_some_and(|kept| Arc::ptr_eq(kept, feed)) {
        open.remove(uri);
    }
}

impl Window {
    /// Keeps `event`, the oldest dropped past `most` events or `max_bytes` (the newest is
    /// always kept).
    fn push(&mut self, event: Box<RawValue>, most: usize, max_bytes: usize) {
        self.received += 1;
        self.bytes += event.get().len();
        self.events.push_back(event);
        while self.events.len() > most || (self.bytes > max_bytes && self.events.len() > 1) {
            if let Some(old) = self.events.pop_front() {
                self.bytes -= old.get().len();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MOST: usize = 16;

    #[test]
    fn the_window_keeps_the_latest_events_within_its_bytes() {
        let mut window = Window::default();
        for i in 0..40 {
            window.push(RawValue::from_string(i.to_string()).unwrap(), MOST, 1 << 20);
        }
        let kept: Vec<&str> = window.events.iter().map(|e| e.get()).collect();
        assert_eq!(kept.len(), MOST);
        assert_eq!((kept[0], kept[MOST - 1], window.received), ("24", "39", 40));
        // Four bytes at most: the two newest two-byte events.
        window.push(RawValue::from_string("40".into()).unwrap(), MOST, 4);
        let kept: Vec<&str> = window.events.iter().map(|e| e.get()).collect();
        assert_eq!(kept, ["39", "40"]);
        // One event over the bytes is still kept alone.
        window.push(RawValue::from_string(r#""long""#.into()).unwrap(), MOST, 4);
        assert_eq!(window.events.len(), 1);
        assert_eq!(window.bytes, 6);
    }

    fn text_of(read: &RawValue) -> serde_json::Value {
        let read: serde_json::Value = serde_json::from_str(read.get()).unwrap();
        let content = &read["contents"][0];
        assert_eq!(content["mimeType"], "application/json");
        serde_json::from_str(content["text"].as_str().unwrap()).unwrap()
    }

    #[tokio::test]
    async fn a_uri_without_a_feed_reads_as_not_subscribed() {
        let feeds = Feeds::new(MOST, 1 << 20);
        let read = feeds.read("eth://subscription/newHeads").await.unwrap();
        let uri: serde_json::Value = serde_json::from_str(read.get()).unwrap();
        assert_eq!(uri["contents"][0]["uri"], "eth://subscription/newHeads");
        assert_eq!(
            text_of(&read),
            serde_json::json!({"subscribed": false, "received": 0, "reopened": 0, "events": []})
        );
        assert_eq!(feeds.len(), 0);
    }

    #[test]
    fn a_shared_window_read_is_cut_to_its_bytes_oldest_first() {
        let events = ["1", "22", "333"].map(|e| RawValue::from_string(e.into()).unwrap());
        let snapshot = |events: &[Box<RawValue>]| Snapshot {
            open: true,
            received: 9,
            reopened: 1,
            events: events.to_vec(),
        };
        let all = render("u", snapshot(&events), 6);
        assert_eq!(
            text_of(&all),
            serde_json::json!({"subscribed": true, "received": 9, "reopened": 1, "events": [1, 22, 333]})
        );
        assert_eq!(
            text_of(&render("u", snapshot(&events), 5))["events"],
            serde_json::json!([22, 333])
        );
        assert_eq!(
            text_of(&render("u", snapshot(&events), 1))["events"],
            serde_json::json!([333])
        );
    }
}
