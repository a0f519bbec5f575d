//! [`ResultStore`]: where results over their budget are kept, and [`MemoryResultStore`], the
//! default (Redis keeps them for every instance with the `redis` feature).

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::future::BoxFuture;

/// Bytes of a kept result, and its whole length.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Slice {
    /// The kept text's length in bytes.
    pub len: usize,
    /// The bytes asked for (fewer at the end of the text; none past it).
    pub bytes: Vec<u8>,
}

/// Where results over their budget are kept for a while, by key (the runtime's keys name the
/// result and who may read it). Each entry expires on its own.
pub trait ResultStore: Send + Sync + 'static {
    /// Keeps `text` under `key` for `keep`. An error says why it was not kept (too large for
    /// the store, the store unreachable).
    fn keep<'a>(
        &'a self,
        key: &'a str,
        text: &'a str,
        keep: Duration,
    ) -> BoxFuture<'a, Result<(), String>>;

    /// The bytes from `from` up to `to` (past the end: to the end) of the text under `key`,
    /// with its length; `None` when nothing is kept under it (never was, or expired).
    fn read<'a>(
        &'a self,
        key: &'a str,
        from: usize,
        to: usize,
    ) -> BoxFuture<'a, Result<Option<Slice>, String>>;
}

/// Results kept in this process, at most `max_bytes` of them (each counted with its key and
/// [`ENTRY_OVERHEAD`]): past it, the oldest are dropped first (a dropped one reads as expired).
/// The default [`ResultStore`].
pub struct MemoryResultStore {
    max_bytes: usize,
    inner: Mutex<Kept>,
}

/// What one kept result costs besides its text and key (its map and queue entries, the
/// shared text's header), counted against the bound, so many small results cannot hold more
/// memory than it says.
#[doc(hidden)]
pub const ENTRY_OVERHEAD: usize = 128;

/// The bytes one entry counts for.
fn cost(key: &str, text: &str) -> usize {
    2 * key.len() + text.len() + ENTRY_OVERHEAD
}

#[derive(Default)]
struct Kept {
    entries: HashMap<String, (Arc<str>, Instant)>,
    /// Keys in the order they were kept, with their expiry.
    order: VecDeque<(String, Instant)>,
    bytes: usize,
}

impl MemoryResultStore {
    /// A store keeping at most `max_bytes` of results.
    pub fn new(max_bytes: usize) -> Self {
        Self {
            max_bytes,
            inner: Mutex::default(),
        }
    }
}

impl std::fmt::Debug for MemoryResultStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kept = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        f.debug_struct("MemoryResultStore")
            .field("max_bytes", &self.max_bytes)
            .field("results", &kept.entries.len())
            .field("bytes", &kept.bytes)
            .finish()
    }
}

impl ResultStore for MemoryResultStore {
    fn keep<'a>(
        &'a self,
        key: &'a str,
        text: &'a str,
        keep: Duration,
    ) -> BoxFuture<'a, Result<(), String>> {
        let size = cost(key, text);
        let result = if size > self.max_bytes {
            Err(format!(
                "{} bytes is more than the store keeps ({} bytes, --max-kept-result-bytes)",
                text.len(),
                self.max_bytes
            ))
        } else {
            let text: Arc<str> = Arc::from(text);
            let now = Instant::now();
            let mut kept = self.inner.lock().unwrap_or_else(|e| e.into_inner());
            // Expired entries first, then the oldest while the new one does not fit.
            while let Some((oldest, expires)) = kept.order.front().cloned() {
                if expires > now && kept.bytes + size <= self.max_bytes {
                    break;
                }
                kept.order.pop_front();
                if let Some((dropped, _)) = kept.entries.remove(&oldest) {
                    kept.bytes -= cost(&oldest, &dropped);
                }
            }
            let expires = now + keep;
            kept.bytes += size;
            if let Some((replaced, _)) = kept.entries.insert(key.to_owned(), (text, expires)) {
                kept.bytes -= cost(key, &replaced);
            }
            kept.order.push_back((key.to_owned(), expires));
            Ok(())
        };
        Box::pin(std::future::ready(result))
    }

    fn read<'a>(
        &'a self,
        key: &'a str,
        from: usize,
        to: usize,
    ) -> BoxFuture<'a, Result<Option<Slice>, String>> {
        let kept = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let slice = kept
            .entries
            .get(key)
            .filter(|(_, expires)| *expires > Instant::now())
            .map(|(text, _)| {
                let bytes = text.as_bytes();
                let from = from.min(bytes.len());
                Slice {
                    len: bytes.len(),
                    bytes: bytes[from..to.clamp(from, bytes.len())].to_vec(),
                }
            });
        Box::pin(std::future::ready(Ok(slice)))
    }
}
