//! The protocol era of a request: one type, decided once at the transport's edge, that the
//! engine, its method table and telemetry all read.

use std::sync::Arc;

use super::params::RequestMeta;
use crate::protocol::ProtocolVersion;
use crate::session::Session;

/// The era's name for telemetry (the span's `era` field): a session request.
pub(crate) const SESSION: &str = "session";
/// The era's name for telemetry: a stateless 2026-07-28 request.
pub(crate) const STATELESS: &str = "stateless";

/// Which era a request belongs to, and what the engine knows of its client in that era: the
/// session it belongs to, or what a stateless request's checked `_meta` says.
///
/// One type, in two forms that differ only in `S`, what a stateless request carries:
/// - `Era<'a>` (the default, `S` = [`Stateless`]) is what a transport hands
///   [`Engine::start`](super::Engine::start): a stateless request's `_meta`, borrowed from
///   the request's bytes, which starting the request reads into its context (capabilities,
///   log level, progress token, trace context);
/// - `Era<'a, ()>` is what the method table ([`Engine::handle`](super::Engine::handle)) gets:
///   it runs after those bytes are gone and needs only the era and the session. It is `Copy`
///   and one pointer wide: every request's future holds it.
///
/// The request's [`RequestContext`](crate::RequestContext) owns its own form of the era (it
/// outlives the request's bytes and is cloned into handlers), built from this one by
/// [`Engine::context_for`](super::Engine::context_for).
#[derive(Clone, Copy)]
pub(crate) enum Era<'a, S = Stateless<'a>> {
    /// A request of this session (2024-11-05 .. 2025-11-25).
    Session(&'a Arc<Session>),
    /// A stateless 2026-07-28 request, whose `_meta` passed the era's checks.
    Stateless(S),
}

/// What a stateless request carries instead of a session: the version it is served at and its
/// checked `_meta`.
pub(crate) struct Stateless<'a> {
    pub version: ProtocolVersion,
    pub meta: RequestMeta<'a>,
}

impl<S> Era<'_, S> {
    /// The era's name for telemetry: [`SESSION`] or [`STATELESS`].
    #[cfg_attr(not(feature = "trace"), allow(dead_code))]
    #[inline]
    pub(crate) fn name(&self) -> &'static str {
        match self {
            Era::Session(_) => SESSION,
            Era::Stateless(_) => STATELESS,
        }
    }
}
