//! Delivery: how what the server sends reaches the client it is for, on whichever connection
//! or instance holds the client's stream.
//!
//! - `outbound`: where the messages a request sends go (its SSE stream, stdout lines, or a
//!   stateless response that turns into a stream), and how its answer leaves;
//! - `notifier`: the handle an application keeps to announce list changes and resource
//!   updates ([`crate::Notifier`]), and their delivery to each session's stream;
//! - [`event_log`]: those broadcasts as one log every instance reads, when instances share
//!   the sessions (the standalone streams' numbering and replay);
//! - `relay`: a POST's stream resumed on an instance that does not hold it;
//! - `legacy_streams`: the open streams of the 2024-11-05 HTTP+SSE transport.
//!
//! Below it: one session's SSE streams and replay window (`session::events`), and the bus
//! instances tell each other on ([`crate::bus`]).

pub(crate) mod event_log;
pub(crate) mod legacy_streams;
pub(crate) mod notifier;
pub(crate) mod outbound;
pub(crate) mod relay;
