//! Where sessions are kept: the [`SessionStore`] trait, its shared side [`SharedSessions`],
//! and the default [`MemorySessionStore`].

use std::collections::HashMap;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use super::{Session, SessionChange};
use crate::bus::BusEvent;
use crate::future::BoxFuture;

/// Why a session could not be stored.
#[cfg_attr(not(feature = "redis"), allow(dead_code))] // what a shared store (`stores::redis`) uses
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreError {
    /// The store holds its maximum number of sessions.
    Full,
    /// The shared store cannot be reached now (a retry may work): HTTP 503.
    Unavailable(String),
}

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StoreError::Full => f.write_str("the session store is full"),
            StoreError::Unavailable(reason) => {
                write!(f, "the session store cannot be reached ({reason})")
            }
        }
    }
}

impl std::error::Error for StoreError {}

/// The shared side of a session store that several instances use (Redis): records written
/// where a session is created or changed, replicas loaded where it is used. The
/// [`SessionStore`] side of the same store is the replicas this instance holds, which
/// requests read without a round trip.
///
/// The transports call it only for what needs it: a request naming a session this instance
/// does not hold ([`load`](Self::load)), `initialize`, `logging/setLevel` and
/// `resources/(un)subscribe`, DELETE.
pub trait SharedSessions: Send + Sync + 'static {
    /// Makes session `id` live in this instance: `None` when it is already (nothing to
    /// wait for), else a future loading its record (one round trip) into a replica, true
    /// when found.
    fn load<'a>(&'a self, id: &'a str) -> Option<BoxFuture<'a, Result<bool, StoreError>>>;
    /// Writes the record of `session`, just created (and held here), before its id reaches
    /// the client.
    fn created<'a>(&'a self, session: &'a Session) -> BoxFuture<'a, Result<(), StoreError>>;
    /// Writes `change` (already applied to `session` here) through, and tells the other
    /// instances holding a replica.
    fn changed<'a>(
        &'a self,
        session: &'a Session,
        change: SessionChange,
    ) -> BoxFuture<'a, Result<(), StoreError>>;
    /// Deletes session `id` everywhere: its record, and the replicas of every instance
    /// (this one's at once, the others' through [`BusEvent::SessionClosed`]). False when no
    /// instance knew it.
    fn delete<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool, StoreError>>;
    /// What another instance said about a session (close a replica, apply a change).
    fn on_bus_event(&self, event: &BusEvent);
}

/// Where sessions live. The default keeps them in memory; a shared store (e.g. Redis) lets
/// several instances serve one session.
pub trait SessionStore: Send + Sync + 'static {
    /// Stores a new session.
    fn insert(&self, session: Arc<Session>) -> Result<(), StoreError>;
    /// The live session `id`, marked as used.
    fn get(&self, id: &str) -> Option<Arc<Session>>;
    /// Removes session `id`, returning it if it was live.
    fn remove(&self, id: &str) -> Option<Arc<Session>>;
    /// Removes the sessions idle for longer than `idle` (when given) and those past their
    /// lifetime, returning how many.
    fn evict_expired(&self, idle: Option<Duration>) -> usize;
    /// Calls `f` with every live session (to deliver notifications).
    fn for_each(&self, f: &mut dyn FnMut(&Arc<Session>));
    /// Number of live sessions.
    fn len(&self) -> usize;
}

/// The hasher of the session table. Session ids are 64 hex digits from the OS CSPRNG, so a
/// keyed hash (std's SipHash, ~600 instructions per 64-byte id) buys nothing: the only keys
/// ever inserted are ours, and a client sending chosen ids can only probe. This one mixes
/// the id eight bytes at a time.
#[derive(Default, Clone, Copy)]
struct BuildIdHasher;

impl std::hash::BuildHasher for BuildIdHasher {
    type Hasher = IdHasher;

    fn build_hasher(&self) -> IdHasher {
        IdHasher(0)
    }
}

/// See [`BuildIdHasher`].
struct IdHasher(u64);

impl std::hash::Hasher for IdHasher {
    fn write(&mut self, bytes: &[u8]) {
        const MULTIPLIER: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let word = u64::from_le_bytes(chunk.try_into().expect("eight bytes"));
            self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(MULTIPLIER);
        }
        for &byte in chunks.remainder() {
            self.0 = (self.0.rotate_left(5) ^ u64::from(byte)).wrapping_mul(MULTIPLIER);
        }
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// Sessions in a bounded in-memory map.
#[derive(Debug)]
pub struct MemorySessionStore {
    sessions: RwLock<HashMap<String, Arc<Session>, BuildIdHasher>>,
    max_sessions: usize,
}

impl MemorySessionStore {
    /// A store that holds at most `max_sessions`.
    pub fn new(max_sessions: usize) -> Self {
        Self {
            sessions: RwLock::new(HashMap::default()),
            max_sessions,
        }
    }
}

impl MemorySessionStore {
    #[cfg_attr(not(feature = "redis"), allow(dead_code))]
    /// Whether session `id` is held (not marked as used).
    pub(crate) fn contains(&self, id: &str) -> bool {
        self.sessions
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .contains_key(id)
    }

    #[cfg_attr(not(feature = "redis"), allow(dead_code))]
    /// Session `id`, not marked as used.
    pub(crate) fn peek(&self, id: &str) -> Option<Arc<Session>> {
        self.sessions
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .get(id)
            .cloned()
    }

    #[cfg_attr(not(feature = "redis"), allow(dead_code))]
    /// Stores `session` unless one with its id is held already (two requests loaded the
    /// same replica at once: the first stays, with whatever streams it holds).
    pub(crate) fn insert_if_absent(&self, session: Arc<Session>) -> Result<(), StoreError> {
        let mut sessions = self.sessions.write().unwrap_or_else(|p| p.into_inner());
        if sessions.contains_key(session.id()) {
            return Ok(());
        }
        if sessions.len() >= self.max_sessions {
            return Err(StoreError::Full);
        }
        sessions.insert(session.id().to_string(), session);
        Ok(())
    }
}

impl SessionStore for MemorySessionStore {
    fn insert(&self, session: Arc<Session>) -> Result<(), StoreError> {
        let mut sessions = self.sessions.write().unwrap_or_else(|p| p.into_inner());
        if sessions.len() >= self.max_sessions {
            return Err(StoreError::Full);
        }
        sessions.insert(session.id().to_string(), session);
        Ok(())
    }

    fn get(&self, id: &str) -> Option<Arc<Session>> {
        let session = self
            .sessions
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .get(id)
            .cloned()?;
        if !session.touch() {
            self.remove(id);
            return None;
        }
        Some(session)
    }

    fn remove(&self, id: &str) -> Option<Arc<Session>> {
        let session = self
            .sessions
            .write()
            .unwrap_or_else(|p| p.into_inner())
            .remove(id)?;
        session.close();
        Some(session)
    }

    fn evict_expired(&self, idle: Option<Duration>) -> usize {
        let mut sessions = self.sessions.write().unwrap_or_else(|p| p.into_inner());
        let before = sessions.len();
        sessions.retain(|_, session| {
            // A session with requests running is not idle: it counts as used now, so a long
            // request that just ended leaves its client a whole idle timeout for the next one.
            // Past its lifetime it ends anyway.
            let busy = session.in_flight() > 0;
            if busy {
                session.touch();
            }
            let idle_expired = !busy && idle.is_some_and(|idle| session.idle_for() > idle);
            let expired = idle_expired || session.outlived();
            if expired {
                session.close();
            }
            !expired
        });
        let evicted = before - sessions.len();
        if evicted > 0 {
            sessions.shrink_to_fit();
        }
        evicted
    }

    fn for_each(&self, f: &mut dyn FnMut(&Arc<Session>)) {
        let sessions: Vec<Arc<Session>> = self
            .sessions
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .values()
            .cloned()
            .collect();
        sessions.iter().for_each(f);
    }

    fn len(&self) -> usize {
        self.sessions
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .len()
    }
}
