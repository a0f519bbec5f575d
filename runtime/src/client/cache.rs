//! The cache hints of 2026-07-28 honoured: a list page or a `resources/read` result whose
//! `ttlMs` is above 0 is reused until it runs out, keyed by method and what changes the result
//! (the cursor, the URI), and dropped as soon as the client sees the notification that says it
//! changed (`notifications/tools/list_changed`, `notifications/resources/updated`, ...).
//!
//! `cacheScope` is not consulted: it tells shared caches (gateways) whether a result may serve
//! other users, and this cache serves one client, one authorization context.

use serde_json::Value;
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Entries kept at most; past it the cache is emptied (a server handing out endless cursors
/// must not grow it without bound).
const MAX_ENTRIES: usize = 4096;

/// The longest a result is reused, whatever its `ttlMs` says.
const MAX_TTL: Duration = Duration::from_secs(24 * 3600);

/// A result kept, by `(method, key)`: when it goes stale, and the result.
type Entries = HashMap<(&'static str, String), (Instant, Value)>;

/// Results that may be reused.
#[derive(Default)]
pub(crate) struct Cache {
    entries: Mutex<Entries>,
}

impl Cache {
    /// The result of `method` for `key` while it is fresh.
    pub(crate) fn get(&self, method: &'static str, key: &str) -> Option<Value> {
        let mut entries = self.entries.lock().unwrap();
        let entry = (method, key.to_owned());
        match entries.get(&entry) {
            Some((expires, result)) if Instant::now() < *expires => Some(result.clone()),
            Some(_) => {
                entries.remove(&entry);
                None
            }
            None => None,
        }
    }

    /// Keeps `result` for its `ttlMs` (nothing when it has none, or 0).
    pub(crate) fn put(&self, method: &'static str, key: &str, result: &Value) {
        let Some(ttl) = result["ttlMs"].as_u64().filter(|ttl| *ttl > 0) else {
            return;
        };
        let expires = Instant::now() + Duration::from_millis(ttl).min(MAX_TTL);
        let mut entries = self.entries.lock().unwrap();
        if entries.len() >= MAX_ENTRIES {
            entries.clear();
        }
        entries.insert((method, key.to_owned()), (expires, result.clone()));
    }

    /// Forgets what the notification `method` (with `params`) says has changed.
    pub(crate) fn changed(&self, method: &str, params: &Value) {
        let stale: &[&str] = match method {
            "notifications/tools/list_changed" => &["tools/list"],
            "notifications/prompts/list_changed" => &["prompts/list"],
            "notifications/resources/list_changed" => {
                &["resources/list", "resources/templates/list"]
            }
            "notifications/resources/updated" => {
                let uri = params["uri"].as_str().unwrap_or_default();
                // The updated resource, and those it contains.
                self.entries.lock().unwrap().retain(|(cached, key), _| {
                    *cached != "resources/read" || !key.starts_with(uri)
                });
                return;
            }
            _ => return,
        };
        self.entries
            .lock()
            .unwrap()
            .retain(|(cached, _), _| !stale.contains(cached));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_result_is_reused_for_its_ttl_only() {
        let cache = Cache::default();
        cache.put("tools/list", "", &json!({"tools": [], "ttlMs": 60_000}));
        cache.put("prompts/list", "", &json!({"prompts": [], "ttlMs": 0}));
        cache.put("resources/list", "", &json!({"resources": []}));
        assert!(cache.get("tools/list", "").is_some());
        assert!(cache.get("tools/list", "page-2").is_none());
        assert!(cache.get("prompts/list", "").is_none());
        assert!(cache.get("resources/list", "").is_none());
        cache.put("tools/list", "x", &json!({"tools": [], "ttlMs": 1}));
        std::thread::sleep(Duration::from_millis(5));
        assert!(cache.get("tools/list", "x").is_none());
    }

    #[test]
    fn a_notification_drops_what_it_says_changed() {
        let cache = Cache::default();
        let fresh = json!({"ttlMs": 60_000});
        cache.put("tools/list", "", &fresh);
        cache.put("prompts/list", "", &fresh);
        cache.put("resources/read", "file:///a/1", &fresh);
        cache.put("resources/read", "file:///b", &fresh);
        cache.changed("notifications/tools/list_changed", &Value::Null);
        assert!(cache.get("tools/list", "").is_none());
        assert!(cache.get("prompts/list", "").is_some());
        cache.changed(
            "notifications/resources/updated",
            &json!({"uri": "file:///a"}),
        );
        assert!(cache.get("resources/read", "file:///a/1").is_none());
        assert!(cache.get("resources/read", "file:///b").is_some());
    }
}
