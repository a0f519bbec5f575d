//! Sessions of the session-era revisions (2025-03-26 .. 2025-11-25) and where they are kept.
//!
//! A [`Session`] holds what `initialize` negotiated and the live state of one client: log level,
//! resource subscriptions, requests it is waiting on, requests it is serving, and its SSE
//! streams. Sessions are kept in the server's [`Stores`](crate::stores::Stores): in memory
//! by default.
//!
//! Several instances share sessions through Redis (feature `redis`): what a session *is*
//! travels as a record (`record.rs`), each instance serving it holds a replica, and what a process holds (streams, running requests, waiting
//! futures) stays in the replica where it was opened.

// Public only so the fuzz checks (`runtime/tests/fuzz_checks/`) and `bench/benches/hot_path.rs`
// reach the SSE framing and replay window; not part of the API.
#[doc(hidden)]
pub mod events;
mod minted;
// A session as a shared store keeps it (`stores::redis`).
#[cfg(feature = "redis")]
mod record;
mod store;

pub(crate) use crate::bus::SessionChange;
#[cfg(feature = "redis")]
pub(crate) use record::{unix_ms, SessionRecord};
pub(crate) use store::{MemorySessionStore, SessionStore, SharedSessions, StoreError};

use serde_json::value::RawValue;
use serde_json::Value;
use std::collections::{BTreeSet, HashMap};
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};
use tokio::sync::oneshot;

use crate::jsonrpc::RpcError;
use crate::protocol::ProtocolVersion;
use events::Streams;

/// What one session may hold, from [`Config`](crate::Config): every per-client resource has a bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionLimits {
    /// SSE events kept for `Last-Event-ID` replay
    /// ([`config.streams.replay_window`](crate::config::Streams::replay_window)).
    pub replay_window: usize,
    /// Standalone messages kept while no GET stream is open
    /// ([`config.streams.buffered_messages`](crate::config::Streams::buffered_messages)).
    pub buffered_messages: usize,
    /// Resources subscribed at once
    /// ([`config.streams.max_subscriptions`](crate::config::Streams::max_subscriptions)).
    pub max_subscriptions: usize,
    /// Bytes of the URIs subscribed at once
    /// ([`config.streams.max_subscription_bytes`](crate::config::Streams::max_subscription_bytes)).
    pub max_subscription_bytes: usize,
    /// Requests running at once
    /// ([`config.streams.max_session_requests`](crate::config::Streams::max_session_requests)).
    pub max_running: usize,
    /// Server-to-client requests awaiting an answer at once
    /// ([`config.limits.max_pending_client_requests`](crate::config::Limits::max_pending_client_requests)).
    pub max_pending_client_requests: usize,
    /// How long the session may live however busy it is
    /// ([`config.sessions.session_max_lifetime`](crate::config::Sessions::session_max_lifetime)).
    pub max_lifetime: Option<Duration>,
}

/// Why a session does not take one more running request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NotAdmitted {
    /// Its id is that of one still running in the session.
    IdInUse,
    /// The session runs its maximum of requests
    /// ([`config.streams.max_session_requests`](crate::config::Streams::max_session_requests)).
    Busy(usize),
}

impl NotAdmitted {
    /// The JSON-RPC error the request gets.
    pub(crate) fn error(self) -> RpcError {
        match self {
            NotAdmitted::IdInUse => RpcError::new(
                crate::jsonrpc::INVALID_REQUEST,
                "Invalid Request: a request with this id is still running (ids must be unique)",
            ),
            NotAdmitted::Busy(running) => RpcError::new(
                crate::jsonrpc::SERVER_ERROR,
                format!("Server busy: this session runs {running} requests already, the most it may (config.streams.max_session_requests); retry when one ends"),
            ),
        }
    }

    /// The HTTP status of the refusal.
    pub(crate) fn status(self) -> http::StatusCode {
        match self {
            NotAdmitted::IdInUse => http::StatusCode::BAD_REQUEST,
            NotAdmitted::Busy(_) => http::StatusCode::SERVICE_UNAVAILABLE,
        }
    }
}

/// A per-session bound was reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Full;

/// The answer to a server-to-client request: its `result`, or its `error` object.
pub(crate) type ClientAnswer = Result<Box<RawValue>, Value>;

/// One client's session.
#[derive(Debug)]
pub struct Session {
    id: String,
    version: ProtocolVersion,
    client_capabilities: ClientJson,
    client_info: ClientJson,
    created: Instant,
    /// Milliseconds since `created` at the last request, for idle expiry.
    last_seen_ms: AtomicU64,
    /// Milliseconds after `created` when the session ends however busy it is (`u64::MAX`:
    /// never).
    lifetime_ms: u64,
    max_subscriptions: usize,
    max_subscription_bytes: usize,
    max_running: usize,
    max_pending_client_requests: usize,
    /// Minimum log level rank to send (see [`crate::mcp::level_rank`]); 255 = none set.
    log_level: AtomicU8,
    next_request_id: AtomicU64,
    subscriptions: Mutex<BTreeSet<String>>,
    pending: Mutex<HashMap<String, oneshot::Sender<ClientAnswer>>>,
    in_flight: Mutex<HashMap<String, Stop>>,
    streams: Mutex<Streams>,
    /// Who created it, when authorization is on (the digest of [`crate::Principal`]'s issuer
    /// and subject, as a shared store keeps it): only they may use it.
    owner: OnceLock<Box<str>>,
    /// For a session a shared store keeps: when (ms after `created`) this instance last
    /// refreshed its record's time to live. `u64::MAX`: kept in this process only.
    shared_refreshed_ms: AtomicU64,
    /// For a session a shared store keeps: the key its server-to-client request ids are
    /// tagged with, so that only answers to ids some instance minted travel on the bus.
    mint_key: OnceLock<minted::MintKey>,
    /// This instance's address on the bus, which the request ids it mints carry (a shared
    /// session's, set by its store: [`Session::set_bus_address`]).
    bus_address: OnceLock<String>,
    /// [`crate::ids::fingerprint`] of `id`, made on first use (an audit record per call).
    fingerprint: OnceLock<Box<str>>,
}

/// A JSON value the client sent in `initialize`, kept as its text and parsed the first time
/// it is read: most sessions never look at it, and a parsed tree costs more to build and to
/// keep than its text.
#[derive(Debug)]
struct ClientJson {
    text: Option<Box<RawValue>>,
    parsed: OnceLock<Value>,
}

impl ClientJson {
    fn text(text: Option<Box<RawValue>>) -> Self {
        Self {
            text,
            parsed: OnceLock::new(),
        }
    }

    fn value(value: Value) -> Self {
        Self {
            text: None,
            parsed: OnceLock::from(value),
        }
    }

    /// The value; `Null` when the client sent none.
    fn get(&self) -> &Value {
        self.parsed.get_or_init(|| {
            self.text
                .as_ref()
                .and_then(|text| serde_json::from_str(text.get()).ok())
                .unwrap_or(Value::Null)
        })
    }
}

/// Locks `mutex`, recovering the data if a panicking thread poisoned it: every critical section
/// here leaves the data consistent at each step.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Session {
    /// A new session with a fresh random id.
    pub fn new(
        version: ProtocolVersion,
        client_capabilities: Value,
        client_info: Value,
        limits: SessionLimits,
    ) -> Self {
        Self::with_client(
            version,
            ClientJson::value(client_capabilities),
            ClientJson::value(client_info),
            limits,
        )
    }

    /// A new session whose client capabilities and `clientInfo` are the JSON texts the client
    /// sent (`None` when absent), parsed only when read.
    pub(crate) fn from_initialize(
        version: ProtocolVersion,
        client_capabilities: Option<Box<RawValue>>,
        client_info: Option<Box<RawValue>>,
        limits: SessionLimits,
    ) -> Self {
        Self::with_client(
            version,
            ClientJson::text(client_capabilities),
            ClientJson::text(client_info),
            limits,
        )
    }

    fn with_client(
        version: ProtocolVersion,
        client_capabilities: ClientJson,
        client_info: ClientJson,
        limits: SessionLimits,
    ) -> Self {
        Self {
            id: crate::ids::random_id(),
            version,
            client_capabilities,
            client_info,
            created: Instant::now(),
            last_seen_ms: AtomicU64::new(0),
            lifetime_ms: limits
                .max_lifetime
                .map_or(u64::MAX, |lifetime| lifetime.as_millis() as u64),
            max_subscriptions: limits.max_subscriptions,
            max_subscription_bytes: limits.max_subscription_bytes,
            max_running: limits.max_running,
            max_pending_client_requests: limits.max_pending_client_requests,
            log_level: AtomicU8::new(u8::MAX),
            next_request_id: AtomicU64::new(1),
            subscriptions: Mutex::new(BTreeSet::new()),
            pending: Mutex::new(HashMap::new()),
            in_flight: Mutex::new(HashMap::new()),
            streams: Mutex::new(Streams::new(limits.replay_window, limits.buffered_messages)),
            owner: OnceLock::new(),
            shared_refreshed_ms: AtomicU64::new(u64::MAX),
            mint_key: OnceLock::new(),
            bus_address: OnceLock::new(),
            fingerprint: OnceLock::new(),
        }
    }

    /// Marks the session as kept by a shared store, its record refreshed now.
    pub fn mark_shared(&self) {
        self.shared_refreshed_ms
            .store(self.created.elapsed().as_millis() as u64, Ordering::Relaxed);
    }

    /// Sets the bus address of the instance holding this replica: the server-to-client request
    /// ids it mints name it, so that a client's answer posted to another instance is published
    /// for this one alone (see `session/minted.rs`). Set once; later calls are ignored.
    #[cfg_attr(not(feature = "redis"), allow(dead_code))]
    pub(crate) fn set_bus_address(&self, address: &str) {
        let _ = self.bus_address.set(address.to_string());
    }

    /// Whether a shared store keeps the session (its changes are written through).
    pub fn is_shared(&self) -> bool {
        self.shared_refreshed_ms.load(Ordering::Relaxed) != u64::MAX
    }

    /// For a shared session whose record was last refreshed more than `every` ago: marks it
    /// refreshed now and returns true (the caller refreshes it). False otherwise, and for a
    /// session kept in this process only.
    pub fn refresh_due(&self, every: Duration) -> bool {
        let last = self.shared_refreshed_ms.load(Ordering::Relaxed);
        let now = self.created.elapsed().as_millis() as u64;
        if last == u64::MAX || now.saturating_sub(last) < every.as_millis() as u64 {
            return false;
        }
        self.shared_refreshed_ms
            .compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed)
            .is_ok()
    }

    /// The session id (visible ASCII, from the OS CSPRNG).
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Binds the session to the principal that created it (once; later calls change nothing).
    pub(crate) fn bind_owner(&self, owner: String) {
        let _ = self.owner.set(owner.into_boxed_str());
    }

    /// Whether `principal` may use this session: the one that created it, or anyone for a
    /// session created without authorization.
    pub(crate) fn is_usable_by(&self, principal: &crate::auth::Principal) -> bool {
        self.owner
            .get()
            .is_none_or(|owner| **owner == principal.owner_digest())
    }

    /// The negotiated protocol version.
    pub fn version(&self) -> ProtocolVersion {
        self.version
    }

    /// The client's declared capabilities.
    pub fn client_capabilities(&self) -> &Value {
        self.client_capabilities.get()
    }

    /// What logs and records name the session by: [`crate::ids::fingerprint`] of its id,
    /// made once.
    pub(crate) fn fingerprint(&self) -> &str {
        self.fingerprint
            .get_or_init(|| crate::ids::fingerprint(&self.id).into())
    }

    /// The client's `clientInfo`.
    pub fn client_info(&self) -> &Value {
        self.client_info.get()
    }

    /// Marks the session as used now; false when it outlived its lifetime (it is over, and
    /// stays unused).
    pub fn touch(&self) -> bool {
        let ms = self.created.elapsed().as_millis() as u64;
        if ms >= self.lifetime_ms {
            return false;
        }
        self.last_seen_ms.store(ms, Ordering::Relaxed);
        true
    }

    /// Whether the session outlived its lifetime.
    pub fn outlived(&self) -> bool {
        self.created.elapsed().as_millis() as u64 >= self.lifetime_ms
    }

    /// How long since the last request.
    pub fn idle_for(&self) -> Duration {
        let last = Duration::from_millis(self.last_seen_ms.load(Ordering::Relaxed));
        self.created.elapsed().saturating_sub(last)
    }

    /// The minimum log level rank the client wants, if it set one.
    pub fn log_level(&self) -> Option<u8> {
        let rank = self.log_level.load(Ordering::Relaxed);
        (rank != u8::MAX).then_some(rank)
    }

    /// Sets the minimum log level rank (`logging/setLevel`).
    pub(crate) fn set_log_level(&self, rank: u8) {
        self.log_level.store(rank, Ordering::Relaxed);
    }

    /// Subscribes to updates of `uri`; `Full` when the session holds its maximum of
    /// subscriptions, or of their URIs' bytes, already (subscribing again to one of them is
    /// fine).
    pub(crate) fn subscribe(&self, uri: &str) -> Result<(), Full> {
        let mut subscriptions = lock(&self.subscriptions);
        if subscriptions.contains(uri) {
            return Ok(());
        }
        let bytes: usize = subscriptions.iter().map(String::len).sum();
        if subscriptions.len() >= self.max_subscriptions
            || bytes + uri.len() > self.max_subscription_bytes
        {
            return Err(Full);
        }
        subscriptions.insert(uri.to_string());
        Ok(())
    }

    /// Number of resources subscribed.
    pub fn subscriptions(&self) -> usize {
        lock(&self.subscriptions).len()
    }

    /// Unsubscribes from `uri`.
    pub(crate) fn unsubscribe(&self, uri: &str) {
        lock(&self.subscriptions).remove(uri);
    }

    /// Whether the session subscribed to `uri`.
    pub fn is_subscribed(&self, uri: &str) -> bool {
        lock(&self.subscriptions).contains(uri)
    }

    /// A fresh id for a server-to-client request, and the receiver of its answer; `Full`
    /// when the session awaits its maximum of answers already.
    pub(crate) fn register_client_request(
        &self,
    ) -> Result<(String, oneshot::Receiver<ClientAnswer>), Full> {
        let mut pending = lock(&self.pending);
        if pending.len() >= self.max_pending_client_requests {
            return Err(Full);
        }
        let n = self.next_request_id.fetch_add(1, Ordering::Relaxed);
        let id = match self.mint_key.get() {
            Some(key) => key.id(n, self.bus_address.get().map(String::as_str)),
            None => format!("s{n}"),
        };
        let (tx, rx) = oneshot::channel();
        pending.insert(id.clone(), tx);
        Ok((id, rx))
    }

    /// Whether `id` is a server-to-client request id some instance minted for this shared
    /// session (see [`minted`]); always false for a session kept in this process only, whose
    /// answers never leave it.
    pub(crate) fn minted(&self, id: &str) -> bool {
        self.mint_key.get().is_some_and(|key| key.minted(id))
    }

    /// Number of server-to-client requests awaiting the client's answer.
    pub fn pending_client_requests(&self) -> usize {
        lock(&self.pending).len()
    }

    /// Forgets a server-to-client request (timed out or abandoned).
    pub(crate) fn forget_client_request(&self, id: &str) {
        lock(&self.pending).remove(id);
    }

    /// Whether this process waits for the client's answer to request `id`.
    pub(crate) fn awaits(&self, id: &str) -> bool {
        lock(&self.pending).contains_key(id)
    }

    /// Delivers the client's answer to request `id`; false when nothing waits for it.
    pub(crate) fn answer_client_request(&self, id: &str, answer: ClientAnswer) -> bool {
        match lock(&self.pending).remove(id) {
            Some(waiter) => waiter.send(answer).is_ok(),
            None => false,
        }
    }

    /// Records a running request so `notifications/cancelled` can stop it: `stop` is called
    /// on cancellation (or when the session closes). `Err` when a request with this id is
    /// running already (ids must be unique, and the earlier one keeps its hook), or when the
    /// session runs its maximum of requests.
    pub(crate) fn track(
        &self,
        request_id: &str,
        stop: impl FnOnce() + Send + 'static,
    ) -> Result<(), NotAdmitted> {
        let mut running = lock(&self.in_flight);
        if running.len() >= self.max_running && !running.contains_key(request_id) {
            return Err(NotAdmitted::Busy(running.len()));
        }
        match running.entry(request_id.to_string()) {
            std::collections::hash_map::Entry::Occupied(_) => Err(NotAdmitted::IdInUse),
            std::collections::hash_map::Entry::Vacant(slot) => {
                slot.insert(Stop(Box::new(stop)));
                Ok(())
            }
        }
    }

    /// Whether the session takes one more running request with this id (its JSON text,
    /// [`crate::engine`]'s key): checked before it starts, so that nothing of it runs.
    pub(crate) fn admits(&self, request_id: &str) -> Result<(), NotAdmitted> {
        let running = lock(&self.in_flight);
        if running.contains_key(request_id) {
            return Err(NotAdmitted::IdInUse);
        }
        if running.len() >= self.max_running {
            return Err(NotAdmitted::Busy(running.len()));
        }
        Ok(())
    }

    /// Forgets a finished request.
    pub(crate) fn untrack(&self, request_id: &str) {
        lock(&self.in_flight).remove(request_id);
    }

    /// Stops the running request `request_id` (its handler future is dropped); false when no
    /// such request is running.
    pub(crate) fn cancel(&self, request_id: &str) -> bool {
        // Bound first: the lock is released before `stop` runs.
        let stop = lock(&self.in_flight).remove(request_id);
        match stop {
            Some(stop) => {
                (stop.0)();
                true
            }
            None => false,
        }
    }

    /// Number of requests running.
    pub fn in_flight(&self) -> usize {
        lock(&self.in_flight).len()
    }

    /// The session's SSE streams.
    pub(crate) fn streams(&self) -> MutexGuard<'_, Streams> {
        lock(&self.streams)
    }

    /// Stops everything the session runs (on DELETE or expiry).
    pub fn close(&self) {
        let running: Vec<Stop> = lock(&self.in_flight)
            .drain()
            .map(|(_, stop)| stop)
            .collect();
        for stop in running {
            (stop.0)();
        }
        lock(&self.pending).clear();
        self.streams().end_all();
    }
}

/// How to stop one running request.
struct Stop(Box<dyn FnOnce() + Send>);

impl std::fmt::Debug for Stop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Stop")
    }
}

#[cfg(test)]
mod tests;
