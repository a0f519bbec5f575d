//! The bus: what one instance tells the others when several serve the same clients behind a
//! load balancer and share their state (Redis, with the `redis` feature).
//!
//! State that can be written down (a task's record) lives in a shared store; what cannot
//! leave a process (a running handler, an open `subscriptions/listen` stream) stays where it
//! is, and the bus carries the events that must reach it: a cancel or an answer for a task
//! another instance runs, a list change for every instance's listeners. One instance alone
//! needs none of it: [`LocalBus`] is the default and does nothing.

use serde::{Deserialize, Serialize};
use std::sync::Weak;

/// What one instance tells the others.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum BusEvent {
    /// `tasks/cancel` marked task `task_id` cancelled: the instance running it stops its
    /// handler.
    TaskCancelled {
        /// The task.
        task_id: String,
        /// The instance running it ([`TaskRecord::runner`](crate::tasks::TaskRecord::runner)):
        /// the event is for it alone.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        runner: Option<String>,
    },
    /// `tasks/update` brought answers for task `task_id`: the instance running it wakes its
    /// handler (which would otherwise see them at its next look at the store).
    TaskAnswered {
        /// The task.
        task_id: String,
        /// The instance running it: the event is for it alone.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        runner: Option<String>,
    },
    /// A list changed: `method` is `notifications/tools/list_changed`,
    /// `notifications/prompts/list_changed` or `notifications/resources/list_changed`.
    ListChanged {
        /// The notification's method.
        method: String,
    },
    /// The resource `uri` changed (`notifications/resources/updated`).
    ResourceUpdated {
        /// The resource.
        uri: String,
    },
    /// Session `session_id` was deleted (or found gone): every instance drops its replica,
    /// which ends the streams it holds there.
    SessionClosed {
        /// The session.
        session_id: String,
    },
    /// Session `session_id`'s log level or subscriptions changed on one instance (and in the
    /// shared store): the instances holding a replica apply the same change.
    SessionChanged {
        /// The session.
        session_id: String,
        /// What changed.
        change: SessionChange,
    },
    /// The client answered server-to-client request `request_id` of session `session_id`
    /// with a POST that reached an instance where nothing waits for it: the instance that
    /// sent the request (and waits) takes it.
    ClientAnswered {
        /// The session.
        session_id: String,
        /// The request id the server minted (`s…`).
        request_id: String,
        /// The answer: `{"result": …}` or `{"error": …}`, as JSON text.
        answer: String,
    },
    /// A client resumed stream `stream` of session `session_id` after event sequence `after`
    /// (its `Last-Event-ID`) on an instance that does not hold the stream: the instance that
    /// issued it relays it, as [`BusEvent::StreamRelayed`] parts tagged `relay`.
    StreamWanted {
        /// The session.
        session_id: String,
        /// The stream (a POST's: the standalone stream resumes from the event log).
        stream: u32,
        /// The sequence number of the last event the client has.
        after: u64,
        /// The tag of the parts, minted by the asking instance.
        relay: String,
    },
    /// Part of the stream relayed under `relay`, for the instance that asked for it.
    StreamRelayed {
        /// The tag the asking instance minted.
        relay: String,
        /// What comes next on the stream.
        part: RelayPart,
    },
    /// `notifications/cancelled` for request `request_id` of session `session_id` reached an
    /// instance that does not run it: the one that does stops it.
    RequestCancelled {
        /// The session.
        session_id: String,
        /// The request id's JSON text.
        request_id: String,
    },
}

impl BusEvent {
    /// The bus address of the one instance this event is for, when only one needs it: a
    /// client's answer (the address is in the request id the instance minted), a relayed
    /// stream's part (in the tag the asking instance minted), a task's cancellation or answers
    /// (its runner). `None`: every instance may need it (a list change, a session's change, a
    /// stream or a cancellation whose holder is unknown).
    #[cfg_attr(not(feature = "redis"), allow(dead_code))] // what a shared store (`stores::redis`) uses
    pub fn addressee(&self) -> Option<&str> {
        match self {
            Self::ClientAnswered { request_id, .. } => crate::ids::minted_address(request_id),
            Self::StreamRelayed { relay, .. } => relay.split_once('.').map(|(address, _)| address),
            Self::TaskCancelled { runner, .. } | Self::TaskAnswered { runner, .. } => {
                runner.as_deref()
            }
            _ => None,
        }
    }
}

/// What a relayed stream carries next ([`BusEvent::StreamRelayed`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "part", rename_all = "snake_case")]
#[non_exhaustive]
pub enum RelayPart {
    /// SSE events, as written (the replay first, then each new one).
    Events {
        /// The events' bytes.
        sse: String,
    },
    /// The stream is complete: the response ends.
    End,
    /// The connection is let go without ending the stream (SSE polling, or a client too slow):
    /// the client resumes again.
    Detach,
    /// Events after the client's id left the replay window: 410.
    Lost,
}

/// Where a server receives the other instances' events: the server registers it once, and
/// holds it (the bus keeps only a weak handle, so a dropped server stops receiving).
pub type Deliver = Weak<dyn Fn(BusEvent) + Send + Sync>;

/// Carries [`BusEvent`]s between the instances of one deployment.
pub trait Bus: Send + Sync + 'static {
    /// Sends `event` to every other instance (never back to this one). It does not wait: an
    /// event that cannot be sent now (the bus is down) is logged and dropped; what it is
    /// about is in the shared store, where the others find it on their next look.
    fn publish(&self, event: BusEvent);

    /// Delivers every other instance's events to `deliver` from now on, until it is gone.
    fn subscribe(&self, deliver: Deliver);

    /// This instance's address on the bus, when the bus can carry an event to one instance
    /// ([`BusEvent::addressee`]): minted request ids and relay tags carry it. `None` (the
    /// default): every event reaches every instance.
    fn address(&self) -> Option<&str> {
        None
    }
}

/// One instance alone: nothing to tell, nothing to hear.
#[derive(Debug, Clone, Copy, Default)]
pub struct LocalBus;

impl Bus for LocalBus {
    fn publish(&self, _: BusEvent) {}

    fn subscribe(&self, _: Deliver) {}
}

/// A change to what a session is, written through to a shared store and applied by every
/// instance holding a replica (carried to them by [`BusEvent::SessionChanged`]). It lives here,
/// with the messages, so the bus depends on no session type.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "what", rename_all = "snake_case")]
pub enum SessionChange {
    /// `logging/setLevel`: the minimum rank ([`crate::mcp::level_rank`]).
    LogLevel {
        /// The rank.
        rank: u8,
    },
    /// `resources/subscribe`.
    Subscribed {
        /// The resource.
        uri: String,
    },
    /// `resources/unsubscribe`.
    Unsubscribed {
        /// The resource.
        uri: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_travel_as_tagged_json() {
        let event = BusEvent::TaskCancelled {
            task_id: "t1".into(),
            runner: None,
        };
        let text = serde_json::to_string(&event).unwrap();
        assert_eq!(text, r#"{"kind":"task_cancelled","task_id":"t1"}"#);
        assert_eq!(serde_json::from_str::<BusEvent>(&text).unwrap(), event);
    }

    #[test]
    fn an_event_one_instance_needs_names_it() {
        let runner = BusEvent::TaskAnswered {
            task_id: "t1".into(),
            runner: Some("ab12".into()),
        };
        assert_eq!(runner.addressee(), Some("ab12"));
        let answered = |request_id: &str| BusEvent::ClientAnswered {
            session_id: "s".into(),
            request_id: request_id.into(),
            answer: "{}".into(),
        };
        assert_eq!(
            answered("s3.ab12.0011223344556677").addressee(),
            Some("ab12")
        );
        assert_eq!(answered("s3.0011223344556677").addressee(), None);
        let relayed = |relay: &str| BusEvent::StreamRelayed {
            relay: relay.into(),
            part: RelayPart::End,
        };
        assert_eq!(relayed("ab12.99").addressee(), Some("ab12"));
        assert_eq!(relayed("99").addressee(), None);
        let everyone = BusEvent::ListChanged {
            method: "notifications/tools/list_changed".into(),
        };
        assert_eq!(everyone.addressee(), None);
    }
}
