//! [`SessionRecord`]: what a session *is*, apart from the process serving it, so that a shared
//! store can keep it and any instance can rebuild a replica of the session from it.
//!
//! What a process *holds* (open SSE streams, requests running, futures waiting for the
//! client's answers) is not in the record: it stays with the [`Session`] in the process that
//! opened it.

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use std::collections::BTreeSet;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use super::minted::MintKey;
use super::{lock, ClientJson, Session, SessionLimits};
use crate::bus::SessionChange;
use crate::protocol::ProtocolVersion;

/// One session as a shared store keeps it.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SessionRecord {
    /// The session id.
    pub id: String,
    /// The negotiated revision, as the wire spells it (`"2025-11-25"`).
    pub version: String,
    /// The client's `capabilities` from `initialize`, as it sent them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_capabilities: Option<Box<RawValue>>,
    /// The client's `clientInfo`, as it sent it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_info: Option<Box<RawValue>>,
    /// Who created it, when authorization is on: a digest of [`crate::auth::Principal`]'s issuer
    /// and subject (SHA-256, hex), never the subject itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    /// When it was created (ms since the Unix epoch).
    pub created_at_ms: u64,
    /// When it was last used (ms since the Unix epoch), as of the last write.
    pub last_seen_at_ms: u64,
    /// The minimum log level rank the client set (`logging/setLevel`), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_level: Option<u8>,
    /// The resources it subscribed to.
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub subscriptions: BTreeSet<String>,
    /// The key the session's server-to-client request ids are tagged with (64 hex digits),
    /// shared by every instance serving it and never sent to the client: an answer whose id
    /// it does not verify is not published on the bus.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mint_key: Option<String>,
}

/// Milliseconds since the Unix epoch.
pub(crate) fn unix_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_millis() as u64)
}

impl Session {
    /// What the session is, for a shared store.
    pub(crate) fn record(&self) -> SessionRecord {
        let now = unix_ms();
        let age = self.created.elapsed().as_millis() as u64;
        let created_at_ms = now.saturating_sub(age);
        SessionRecord {
            id: self.id.clone(),
            version: self.version.as_str().to_string(),
            client_capabilities: self.client_capabilities.raw(),
            client_info: self.client_info.raw(),
            owner: self.owner.get().map(|owner| owner.to_string()),
            created_at_ms,
            last_seen_at_ms: created_at_ms + self.last_seen_ms.load(Ordering::Relaxed),
            log_level: self.log_level(),
            subscriptions: lock(&self.subscriptions).clone(),
            mint_key: Some(self.mint_key.get_or_init(MintKey::random).to_hex()),
        }
    }

    /// A replica of the session `record` describes, in this process, bounded by `limits`
    /// (its lifetime counted from the record's creation); `None` when the record names a
    /// revision this runtime does not speak, or one without sessions.
    pub(crate) fn from_record(record: SessionRecord, limits: SessionLimits) -> Option<Self> {
        let version = ProtocolVersion::parse(&record.version).filter(|v| !v.is_stateless())?;
        let mut session = Self::with_client(
            version,
            ClientJson::text(record.client_capabilities),
            ClientJson::text(record.client_info),
            limits,
        );
        let now = unix_ms();
        let age = Duration::from_millis(now.saturating_sub(record.created_at_ms));
        let now_instant = Instant::now();
        session.created = now_instant.checked_sub(age).unwrap_or(now_instant);
        session.last_seen_ms = (session.created.elapsed().as_millis() as u64).into();
        session.id = record.id;
        if let Some(owner) = record.owner {
            session.bind_owner(owner);
        }
        if let Some(rank) = record.log_level {
            session.set_log_level(rank);
        }
        *lock(&session.subscriptions) = record.subscriptions;
        if let Some(key) = record.mint_key.as_deref().and_then(MintKey::from_hex) {
            let _ = session.mint_key.set(key);
        }
        // A replica mints its server-to-client request ids from a random point, so that two
        // instances asking the same client something at once do not both use `s1`.
        let mut seed = [0u8; 4];
        let _ = getrandom::fill(&mut seed);
        session.next_request_id = (u64::from(u32::from_le_bytes(seed)) << 16 | 1).into();
        // And its SSE stream ids, so that a `Last-Event-ID` names one instance's stream: from
        // 2^16 up (the creating instance counts from 1), below 2^31.
        let mut seed = [0u8; 4];
        let _ = getrandom::fill(&mut seed);
        let first_stream = (u32::from_le_bytes(seed) >> 1) | 1 << 16;
        session
            .streams
            .get_mut()
            .unwrap_or_else(|p| p.into_inner())
            .start_streams_at(first_stream);
        Some(session)
    }

    /// Applies a change another instance made (replicas follow the shared record; the
    /// subscription bound was checked where the change was made).
    pub(crate) fn apply(&self, change: &SessionChange) {
        match change {
            SessionChange::LogLevel { rank } => self.set_log_level(*rank),
            SessionChange::Subscribed { uri } => {
                lock(&self.subscriptions).insert(uri.clone());
            }
            SessionChange::Unsubscribed { uri } => self.unsubscribe(uri),
        }
    }
}

impl ClientJson {
    /// The JSON text, as sent (or printed from the value it was made with).
    fn raw(&self) -> Option<Box<RawValue>> {
        match (&self.text, self.parsed.get()) {
            (Some(text), _) => Some(text.clone()),
            (None, Some(serde_json::Value::Null)) | (None, None) => None,
            (None, Some(value)) => serde_json::value::to_raw_value(value).ok(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_replica_is_the_session_the_record_describes() {
        let limits = SessionLimits::default();
        let session = Session::from_initialize(
            ProtocolVersion::V2025_06_18,
            Some(RawValue::from_string(r#"{"elicitation":{}}"#.into()).unwrap()),
            None,
            limits,
        );
        session.bind_owner("alice".into());
        session.set_log_level(3);
        session.subscribe("file:///a").unwrap();
        session.touch();
        let text = serde_json::to_string(&session.record()).unwrap();
        let record: SessionRecord = serde_json::from_str(&text).unwrap();
        let replica = Session::from_record(record, limits).unwrap();
        assert_eq!(replica.id(), session.id());
        assert_eq!(replica.version(), ProtocolVersion::V2025_06_18);
        assert_eq!(replica.client_capabilities(), &json!({"elicitation": {}}));
        assert_eq!(replica.client_info(), &serde_json::Value::Null);
        assert_eq!(replica.log_level(), Some(3));
        assert!(replica.is_subscribed("file:///a"));
        assert!(replica.idle_for() < Duration::from_secs(1));
        replica.apply(&SessionChange::Unsubscribed {
            uri: "file:///a".into(),
        });
        assert!(!replica.is_subscribed("file:///a"));
        // Every instance verifies the ids any of them mints for the session, and no other.
        let (id, _answer) = replica.register_client_request().unwrap();
        assert!(session.minted(&id) && replica.minted(&id), "{id}");
        assert!(!session.minted("s1") && !replica.minted(&format!("{id}0")));
        let alone = Session::new(
            ProtocolVersion::V2025_06_18,
            serde_json::Value::Null,
            serde_json::Value::Null,
            limits,
        );
        let (local, _answer) = alone.register_client_request().unwrap();
        assert_eq!(local, "s1", "a session kept in one process mints plain ids");
        assert!(!alone.minted(&local), "and publishes no answer");
    }

    #[test]
    fn a_record_of_a_revision_without_sessions_makes_no_replica() {
        let mut record = Session::new(
            ProtocolVersion::V2025_11_25,
            serde_json::Value::Null,
            serde_json::Value::Null,
            SessionLimits::default(),
        )
        .record();
        record.version = "2026-07-28".into();
        assert!(Session::from_record(record, SessionLimits::default()).is_none());
    }
}
