//! Rate limits at the engine's door ([`crate::rate_limit`]): each transport asks here before a
//! call starts, so a call is counted the same way whichever way it came in (streamable HTTP in
//! either era, a 2025-03-26 batch, the 2024-11-05 HTTP+SSE transport, stdio, the plain
//! JSON-RPC endpoint), and a refusal is recorded when audit records are on. Each transport
//! frames the refusal its own way (HTTP: `429` with `Retry-After`; stdio: the error line).

use serde_json::value::RawValue;

use super::incoming::{self, Incoming, Request};
use super::Engine;
use crate::auth::Principal;
use crate::dispatch::Dispatch;
use crate::jsonrpc::RpcError;
use crate::rate_limit::{Caller, Limited, PLAIN};

/// A call refused by a rate limit: the limit, and the id of the request it answers (none for
/// a notification of the plain endpoint).
pub(crate) struct RateRefusal<'a> {
    pub limited: Limited,
    pub id: Option<&'a RawValue>,
}

impl<D: Dispatch> Engine<D> {
    /// Takes the tokens of `request` by `caller`, or refuses it (recorded when audit records
    /// are on). `None` when no limit is configured or it may go on.
    pub(crate) fn rate_refusal<'a>(
        &self,
        caller: Caller<'_>,
        principal: Option<&Principal>,
        request: &Request<'a>,
    ) -> Option<RateRefusal<'a>> {
        let limited = self
            .limiter
            .as_ref()?
            .check(&self.dispatch, caller, request)
            .err()?;
        self.audit_refusal(principal, request, &limited.error());
        Some(RateRefusal {
            limited,
            id: Some(request.id),
        })
    }

    /// The refusal of a 2025-03-26 batch one of whose calls is over its limit: each call
    /// takes its tokens in order, as it would alone, and the first refusal refuses the whole
    /// batch (as a missing scope does) before any of it runs, so a batch is no way around a
    /// limit.
    #[cold]
    pub(crate) fn batch_rate_refusal<'a>(
        &self,
        caller: Caller<'_>,
        principal: Option<&Principal>,
        messages: &[&'a RawValue],
    ) -> Option<RateRefusal<'a>> {
        self.limiter.as_ref()?;
        messages
            .iter()
            .find_map(|message| match incoming::read(message.get(), None) {
                Ok(Incoming::Request(request)) => self.rate_refusal(caller, principal, &request),
                _ => None,
            })
    }

    /// The refusal of a body of the plain JSON-RPC endpoint (one message or a batch): every
    /// request and notification of it is a call of the contract's method it names, counted
    /// as [`crate::rate_limit::Limiter::check_plain`] says, in order; the first refusal
    /// refuses the whole body before any of it runs.
    #[cold]
    pub(crate) fn plain_rate_refusal<'a>(
        &self,
        caller: Caller<'_>,
        principal: Option<&Principal>,
        text: &'a str,
    ) -> Option<RateRefusal<'a>> {
        let limiter = self.limiter.as_ref()?;
        let check = |text: &'a str| {
            let (id, method) = match incoming::read_plain(text) {
                Ok(Incoming::Request(Request { id, method, .. })) => (Some(id), method),
                Ok(Incoming::Notification { method, .. }) => (None, method),
                _ => return None,
            };
            let limited = limiter.check_plain(&self.dispatch, caller, method).err()?;
            if let Some(audit) = &self.config.audit {
                crate::audit::refused(audit, principal, PLAIN, method, limited.error().code);
            }
            Some(RateRefusal { limited, id })
        };
        if incoming::is_batch(text) {
            let messages: Vec<&'a RawValue> = incoming::read_batch(text).ok()?;
            messages
                .into_iter()
                .find_map(|message| check(message.get()))
        } else {
            check(text)
        }
    }

    /// The audit record of `request`, refused with `error` before it started (a rate limit),
    /// when audit records are on and it is a call.
    #[cold]
    fn audit_refusal(
        &self,
        principal: Option<&Principal>,
        request: &Request<'_>,
        error: &RpcError,
    ) {
        let (Some(audit), Some(name)) = (&self.config.audit, request.call_target()) else {
            return;
        };
        let method = match request.method {
            "tools/call" => "tools/call",
            "prompts/get" => "prompts/get",
            _ => "resources/read",
        };
        crate::audit::refused(audit, principal, method, name, error.code);
    }
}
