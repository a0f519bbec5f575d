//! Rate limits at the engine's door ([`crate::rate_limit`]): each transport asks here before a
//! call starts, so a call is counted the same way whichever way it came in (streamable HTTP in
//! either era, a 2025-03-26 batch, the 2024-11-05 HTTP+SSE transport, stdio, the plain
//! JSON-RPC endpoint), and a refusal is recorded when audit records are on. Each transport
//! frames the refusal its own way (HTTP: `429` with `Retry-After`; stdio: the error line).
//!
//! Shared limits (`--rate-limit-shared`) need a round trip to Redis: the HTTP doors await
//! [`Engine::shared_rate_refusal`] (boxed, so a request's future grows by nothing without it)
//! before they route, and the synchronous checks below answer `None` for them (stdio's
//! excepted: its one client is counted in the process's own buckets). A server
//! without limits still pays one `None` check; with local limits, one flag more.

use serde_json::value::RawValue;

use super::incoming::{self, Incoming, Request};
use super::Engine;
use crate::auth::Principal;
use crate::dispatch::{Dispatch, Door};
use crate::jsonrpc::RpcError;
use crate::policy::Target;
use crate::rate_limit::{Caller, Limited};

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
        self.refusal_in(self.local_limiter()?, caller, principal, request)
    }

    /// stdio's [`Engine::rate_refusal`]: this process's buckets even when the limits are
    /// shared (one client, whose line loop does not wait for Redis; `--redis` is HTTP only).
    pub(crate) fn stdio_rate_refusal<'a>(&self, request: &Request<'a>) -> Option<RateRefusal<'a>> {
        self.refusal_in(self.limiter.as_ref()?, Caller::Local, None, request)
    }

    /// stdio's [`Engine::batch_rate_refusal`], in this process's buckets as
    /// [`Engine::stdio_rate_refusal`].
    #[cold]
    pub(crate) fn stdio_batch_rate_refusal<'a>(
        &self,
        messages: &[&'a RawValue],
    ) -> Option<RateRefusal<'a>> {
        let limiter = self.limiter.as_ref()?;
        self.batch_refusal_in(limiter, Caller::Local, None, messages)
    }

    /// Takes the tokens of `request` from `limiter`'s own buckets, or refuses it.
    #[inline]
    fn refusal_in<'a>(
        &self,
        limiter: &crate::rate_limit::Limiter,
        caller: Caller<'_>,
        principal: Option<&Principal>,
        request: &Request<'a>,
    ) -> Option<RateRefusal<'a>> {
        let contract = self.dispatch.contract();
        let target = request.target(contract)?;
        let bucket = target.limit_key(contract);
        let limited = limiter
            .check(&self.dispatch, caller, counted(&target, &bucket))
            .err()?;
        self.audit_refusal(principal, &target, &limited.error());
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
        let limiter = self.local_limiter()?;
        self.batch_refusal_in(limiter, caller, principal, messages)
    }

    /// [`Engine::batch_rate_refusal`] in `limiter`'s own buckets.
    fn batch_refusal_in<'a>(
        &self,
        limiter: &crate::rate_limit::Limiter,
        caller: Caller<'_>,
        principal: Option<&Principal>,
        messages: &[&'a RawValue],
    ) -> Option<RateRefusal<'a>> {
        messages
            .iter()
            .find_map(|message| match incoming::read(message.get(), None) {
                Ok(Incoming::Request(request)) => {
                    self.refusal_in(limiter, caller, principal, &request)
                }
                _ => None,
            })
    }

    /// The target of a call of the plain JSON-RPC endpoint to `method` with `params`
    /// ([`Target::of_plain`]): `None` for a method it does not serve.
    pub(crate) fn plain_target<'a>(
        &self,
        method: &'a str,
        params: Option<&'a RawValue>,
    ) -> Option<Target<'a>> {
        let unexposed = self.config.endpoints.jsonrpc_unexposed;
        Target::of_plain(self.dispatch.contract(), method, params, unexposed).ok()
    }

    /// Whether the plain JSON-RPC endpoint serves `method` ([`Target::of_plain`] does not
    /// refuse it), without naming its params.
    #[inline]
    pub(crate) fn serves_plain(&self, method: &str) -> bool {
        let contract = self.dispatch.contract();
        contract.face(method).is_some()
            || self.config.endpoints.jsonrpc_unexposed
            || !contract.names_faces()
    }

    /// The refusal of a body of the plain JSON-RPC endpoint (one message or a batch): every
    /// request and notification of it is counted as the MCP call it stands for
    /// ([`Engine::plain_target`]), in order; the first refusal refuses the whole body before
    /// any of it runs.
    #[cold]
    pub(crate) fn plain_rate_refusal<'a>(
        &self,
        caller: Caller<'_>,
        principal: Option<&Principal>,
        text: &'a str,
    ) -> Option<RateRefusal<'a>> {
        let limiter = self.local_limiter()?;
        let check = |text: &'a str| {
            let (id, method, params) = match incoming::read_plain(text) {
                Ok(Incoming::Request(request)) => {
                    (Some(request.id), request.method, request.params.raw())
                }
                Ok(Incoming::Notification { method, params }) => (None, method, params),
                _ => return None,
            };
            let target = self.plain_target(method, params)?;
            let bucket = target.limit_key(self.dispatch.contract());
            let limited = limiter
                .check(&self.dispatch, caller, counted(&target, &bucket))
                .err()?;
            self.audit_refusal(principal, &target, &limited.error());
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

    /// The limiter, when its buckets are this instance's (shared ones are checked by
    /// [`Engine::shared_rate_refusal`]).
    #[inline]
    fn local_limiter(&self) -> Option<&crate::rate_limit::Limiter> {
        self.limiter.as_ref().filter(|limiter| !limiter.is_shared())
    }

    /// Whether the rate limits' buckets are shared: the HTTP doors then await
    /// [`Engine::shared_rate_refusal`] before routing.
    #[inline]
    pub(crate) fn limits_shared(&self) -> bool {
        self.limiter
            .as_ref()
            .is_some_and(crate::rate_limit::Limiter::is_shared)
    }

    /// The refusal of a body (one message or a 2025-03-26 batch) that came in through `door`
    /// (an HTTP one)
    /// by `caller`, its calls counted in order in the shared buckets (one Redis step each) as
    /// the local checks count them; the first call over a limit refuses the whole body.
    /// `None` when every call may go on (or the limits are not shared).
    #[cold]
    pub(crate) async fn shared_rate_refusal<'a>(
        &self,
        caller: Caller<'_>,
        principal: Option<&Principal>,
        text: &'a str,
        door: Door,
    ) -> Option<RateRefusal<'a>> {
        let limiter = self.limiter.as_ref().filter(|l| l.is_shared())?;
        let messages: Vec<&'a str> = if incoming::is_batch(text) {
            let batch: Vec<&'a RawValue> = incoming::read_batch(text).ok()?;
            batch.into_iter().map(RawValue::get).collect()
        } else {
            vec![text]
        };
        let contract = self.dispatch.contract();
        for message in messages {
            // What the call is, read before the await (the parsed message is not kept).
            let (id, target) = match door {
                // `tools/call`, `prompts/get` and `resources/read` are calls.
                Door::Mcp | Door::LegacySse | Door::Stdio | Door::Direct => {
                    match incoming::read(message, None) {
                        Ok(Incoming::Request(request)) => match request.target(contract) {
                            Some(target) => (Some(request.id), target.into_owned()),
                            None => continue,
                        },
                        _ => continue,
                    }
                }
                // Every request and notification is a call of the method it names.
                Door::Jsonrpc => {
                    let (id, method, params) = match incoming::read_plain(message) {
                        Ok(Incoming::Request(request)) => {
                            (Some(request.id), request.method, request.params.raw())
                        }
                        Ok(Incoming::Notification { method, params }) => (None, method, params),
                        _ => continue,
                    };
                    match self.plain_target(method, params) {
                        Some(target) => (id, target.into_owned()),
                        None => continue,
                    }
                }
            };
            let bucket = target.limit_key(contract).into_owned();
            let call = counted(&target, &bucket);
            if let Err(limited) = limiter.take_shared(&self.dispatch, caller, call).await {
                self.audit_refusal(principal, &target, &limited.error());
                return Some(RateRefusal { limited, id });
            }
        }
        None
    }

    /// The audit record of a call to `target`, refused with `error` before it started (a rate
    /// limit), when audit records are on.
    #[cold]
    fn audit_refusal(&self, principal: Option<&Principal>, target: &Target<'_>, error: &RpcError) {
        if let Some(audit) = &self.config.audit {
            crate::audit::refused(audit, principal, target.method, &target.key, error.code);
        }
    }
}

/// `target` as the rate limits count it, in `bucket` ([`Target::limit_key`]).
fn counted<'a>(target: &'a Target<'_>, bucket: &'a str) -> crate::rate_limit::Call<'a> {
    crate::rate_limit::Call {
        method: target.method,
        key: &target.key,
        bucket,
    }
}
