//! Upstream subscriptions as MCP resources: each resource URI of a subscription template
//! (`eth://subscription/newHeads`) is one subscription at the upstream, shared by every client
//! of this instance that wants its updates.
//!
//! - **Opened by the first subscriber.** A session's `resources/subscribe`, or a
//!   `subscriptions/listen` stream naming the URI, reaches the dispatch as a
//!   [`CallKind::Subscribe`](crate::dispatch::CallKind::Subscribe) call, and the generated
//!   code calls [`Upstream::open_feed`](super::Upstream::open_feed): the first opens the
//!   upstream subscription (its refusal is the client's error), the others share it.
//! - **Each notification** is kept in the URI's window (the latest [`WINDOW`] events, and no
//!   more bytes than [`UpstreamSettings::max_response_bytes`](super::UpstreamSettings)) and
//!   told with [`Notifier::resource_updated`]: `notifications/resources/updated` to the
//!   subscribed sessions, the listen streams naming it, and the other instances'.
//!   `resources/read` of the URI returns the window ([`Upstream::read_feed`](super::Upstream::read_feed)).
//!   A connection lost and the subscription opened again is told the same way, the window
//!   counting it (`reopened`): events may have been missed in between.
//! - **Closed after the last.** Every [`REAP_EVERY`], a feed whose URI no client of this
//!   instance still wants (a scan of its sessions and listen streams)
//!   is closed at the upstream (`eth_unsubscribe`): an unsubscription, a session's end and a
//!   stream's end all count, at most that long later.
//! - **Per instance.** With several instances sharing sessions (`--redis`), each instance with
//!   a subscriber opens its own subscription at the upstream, and every instance's clients
//!   are told of each one's notifications (the same event may be told once per instance).

use serde_json::value::RawValue;
use std::collections::{HashMap, VecDeque};
use std::fmt::Write as _;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::OnceCell;
use tokio::time::Instant;

use super::subscription::{SubscriptionEvent, UpstreamSubscription};
use crate::error::Error;
use crate::notifier::Notifier;

/// The most events a feed's window keeps for `resources/read` (the latest).
pub const WINDOW: usize = 16;

/// How often a feed checks that a client still wants it (and is closed otherwise).
pub const REAP_EVERY: Duration = Duration::from_secs(2);

/// The feeds of one upstream, by resource URI.
#[derive(Default)]
pub(super) struct Feeds {
    open: Arc<Mutex<HashMap<Box<str>, Arc<Feed>>>>,
}

/// One upstream subscription behind a resource URI.
struct Feed {
    /// Whether it opened (its error otherwise), once the first subscriber has tried.
    opened: OnceCell<Result<(), Error>>,
    /// The last time a client asked for it: a feed just asked for is not closed, even
    /// before its subscriber is recorded.
    wanted: Mutex<Instant>,
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

impl Feeds {
    /// The feed of `uri`, opened by `open` unless it is open already (or opening: then its
    /// outcome is awaited), kept in the window of at most `max_bytes` and told through
    /// `notifier`.
    pub(super) async fn open<F>(
        &self,
        uri: &str,
        notifier: Option<&Notifier>,
        max_bytes: usize,
        open: F,
    ) -> Result<(), Error>
    where
        F: std::future::Future<Output = Result<UpstreamSubscription, Error>>,
    {
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
                let subscription = open.await?;
                tracing::info!(%uri, "a subscription opened at the upstream");
                tokio::spawn(pump(
                    self.open.clone(),
                    uri.into(),
                    feed.clone(),
                    subscription,
                    notifier.cloned(),
                    max_bytes,
                ));
                Ok(())
            })
            .await
            .clone();
        if outcome.is_err() {
            // Not kept: the next subscriber tries again.
            let mut feeds = lock(&self.open);
            if feeds.get(uri).is_some_and(|kept| Arc::ptr_eq(kept, &feed)) {
                feeds.remove(uri);
            }
        }
        outcome
    }

    /// `resources/read` of `uri`: one JSON content holding the feed's window.
    pub(super) fn read(&self, uri: &str) -> Box<RawValue> {
        let feed = lock(&self.open).get(uri).cloned();
        let open = feed
            .as_ref()
            .is_some_and(|feed| matches!(feed.opened.get(), Some(Ok(()))));
        let mut text = String::with_capacity(256);
        let _ = write!(text, r#"{{"subscribed":{open},"#);
        match feed.as_ref().filter(|_| open) {
            Some(feed) => {
                let window = lock(&feed.window);
                let _ = write!(
                    text,
                    r#""received":{},"reopened":{},"events":["#,
                    window.received, window.reopened
                );
                for (i, event) in window.events.iter().enumerate() {
                    if i > 0 {
                        text.push(',');
                    }
                    text.push_str(event.get());
                }
            }
            None => text.push_str(r#""received":0,"reopened":0,"events":["#),
        }
        text.push_str("]}");
        let result = serde_json::json!({
            "contents": [{"uri": uri, "mimeType": "application/json", "text": text}]
        });
        serde_json::value::to_raw_value(&result).expect("a JSON value serializes")
    }

    /// How many feeds are open (or opening).
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        lock(&self.open).len()
    }
}

/// Keeps a feed's events and tells of them, until no client wants it (then closes it at the
/// upstream) or the upstream ends it.
async fn pump(
    feeds: Arc<Mutex<HashMap<Box<str>, Arc<Feed>>>>,
    uri: Box<str>,
    feed: Arc<Feed>,
    mut subscription: UpstreamSubscription,
    notifier: Option<Notifier>,
    max_bytes: usize,
) {
    let tell = |notifier: &Option<Notifier>| {
        if let Some(notifier) = notifier {
            notifier.resource_updated(&uri);
        }
    };
    let mut reap = tokio::time::interval_at(Instant::now() + REAP_EVERY, REAP_EVERY);
    loop {
        tokio::select! {
            event = subscription.next() => match event {
                Some(SubscriptionEvent::Notification(result)) => {
                    lock(&feed.window).push(result, max_bytes);
                    tell(&notifier);
                }
                Some(SubscriptionEvent::Reopened) => {
                    lock(&feed.window).reopened += 1;
                    tell(&notifier);
                }
                None => {
                    tracing::warn!(%uri, "the upstream ended a subscription (it refused to open it again): its subscribers get no more updates");
                    forget(&feeds, &uri, &feed);
                    tell(&notifier);
                    return;
                }
            },
            _ = reap.tick() => {
                let Some(notifier) = &notifier else { continue };
                if notifier.watches(&uri) {
                    continue;
                }
                {
                    let mut open = lock(&feeds);
                    if lock(&feed.wanted).elapsed() < REAP_EVERY {
                        continue;
                    }
                    if open.get(&uri).is_some_and(|kept| Arc::ptr_eq(kept, &feed)) {
                        open.remove(&uri);
                    }
                }
                match subscription.close().await {
                    Ok(()) => tracing::info!(%uri, "a subscription closed at the upstream: no client wants it"),
                    Err(error) => tracing::warn!(%uri, %error, "a subscription no client wants could not be closed at the upstream"),
                }
                return;
            }
        }
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
    /// Keeps `event`, the oldest dropped past [`WINDOW`] events or `max_bytes` (the newest is
    /// always kept).
    fn push(&mut self, event: Box<RawValue>, max_bytes: usize) {
        self.received += 1;
        self.bytes += event.get().len();
        self.events.push_back(event);
        while self.events.len() > WINDOW || (self.bytes > max_bytes && self.events.len() > 1) {
            if let Some(old) = self.events.pop_front() {
                self.bytes -= old.get().len();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_window_keeps_the_latest_events_within_its_bytes() {
        let mut window = Window::default();
        for i in 0..40 {
            window.push(RawValue::from_string(i.to_string()).unwrap(), 1 << 20);
        }
        let kept: Vec<&str> = window.events.iter().map(|e| e.get()).collect();
        assert_eq!(kept.len(), WINDOW);
        assert_eq!(
            (kept[0], kept[WINDOW - 1], window.received),
            ("24", "39", 40)
        );
        // Four bytes at most: the two newest two-byte events.
        window.push(RawValue::from_string("40".into()).unwrap(), 4);
        let kept: Vec<&str> = window.events.iter().map(|e| e.get()).collect();
        assert_eq!(kept, ["39", "40"]);
        // One event over the bytes is still kept alone.
        window.push(RawValue::from_string(r#""long""#.into()).unwrap(), 4);
        assert_eq!(window.events.len(), 1);
        assert_eq!(window.bytes, 6);
    }

    #[test]
    fn a_uri_without_a_feed_reads_as_not_subscribed() {
        let feeds = Feeds::default();
        let read: serde_json::Value =
            serde_json::from_str(feeds.read("eth://subscription/newHeads").get()).unwrap();
        let content = &read["contents"][0];
        assert_eq!(content["uri"], "eth://subscription/newHeads");
        assert_eq!(content["mimeType"], "application/json");
        let text: serde_json::Value =
            serde_json::from_str(content["text"].as_str().unwrap()).unwrap();
        assert_eq!(
            text,
            serde_json::json!({"subscribed": false, "received": 0, "reopened": 0, "events": []})
        );
        assert_eq!(feeds.len(), 0);
    }
}
