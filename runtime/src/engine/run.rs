//! Starting a request, for every transport and both eras: the context the era gives it, the
//! params kept past the request's bytes, and the handler boxed with them and raced against
//! its cancellation (a session's `notifications/cancelled`, a task's `tasks/cancel`).
//!
//! Everything is set up synchronously and boxed once: the future a transport awaits holds
//! only pointers, so a connection's future stays small, and the handler runs inline in the
//! transport's task (no spawn, no channel) unless it streams or becomes a task.

use serde_json::value::RawValue;
use std::borrow::Cow;
use std::sync::Arc;
use tokio::sync::oneshot;

use super::era::Stateless;
use super::incoming::{Params, Request};
use super::method::Method;
use super::params;
#[cfg(feature = "trace")]
use super::params::RequestMeta;
use super::stateless::{capabilities_of, log_rank};
use super::{Engine, Era, OwnedParams};
use crate::auth::Principal;
use crate::context::RequestContext;
use crate::delivery::outbound::{Outbound, Outcome, Reply};
use crate::dispatch::{BoxFuture, Dispatch, Door};
use crate::json::JsonText;
use crate::jsonrpc::{error_response, success_response, RpcError, MISSING_CAPABILITY};
use crate::session::Session;
use crate::tasks::{self, TaskSlot};
use crate::telemetry::TraceHeaders;
#[cfg(feature = "trace")]
use crate::telemetry::Transport;
#[cfg(feature = "trace")]
use crate::telemetry::{self, RequestTrace, TraceContext};

/// A started request: what its transport awaits and frames.
pub(crate) struct Started {
    /// Resolves to the answer; `None` when the request was cancelled, or when it became a
    /// task (then `task_reply` carried the answer).
    pub work: BoxFuture<'static, Option<Reply>>,
    /// Where the request's messages go.
    pub outbound: Outbound,
    /// The `CreateTaskResult`, for a tool call that may become a task.
    pub task_reply: Option<oneshot::Receiver<Reply>>,
}

/// Where a request comes from: the door it came through, the principal the edge
/// authenticated (with [`Config::auth`](crate::config::Config::auth); `None` otherwise) and the
/// W3C trace headers it carried (`traceparent` and `tracestate`: HTTP).
pub(crate) struct Source<'h> {
    /// The way in.
    pub door: Door,
    /// Who the request acts for.
    pub principal: Option<Arc<Principal>>,
    /// The trace headers; zero-sized without the `trace` feature.
    pub trace: TraceHeaders<'h>,
}

impl Source<'_> {
    /// A request through `door` that carries no principal and no trace headers (stdio, the
    /// 2024-11-05 stream).
    pub(crate) fn door(door: Door) -> Self {
        Self {
            door,
            principal: None,
            trace: TraceHeaders::default(),
        }
    }
}

impl<D: Dispatch> Engine<D> {
    /// Starts `request` of `era` from `source`, its messages going to `outbound`: the one
    /// start of every transport's requests.
    ///
    /// The request's telemetry (feature `trace`) starts here: its span (see
    /// [`crate::telemetry`]) when enabled, which the work then runs inside, and its metrics
    /// with the `metrics` feature. Without the feature the trace headers are zero-sized and
    /// nothing here differs from a runtime without telemetry.
    pub(crate) fn start(
        self: &Arc<Self>,
        source: Source<'_>,
        era: Era<'_>,
        request: Request<'_>,
        outbound: Outbound,
    ) -> Started {
        #[cfg_attr(not(feature = "trace"), allow(unused_variables))]
        let Source {
            door,
            principal,
            trace: trace_headers,
        } = source;
        let method = Method::of(request.method);
        let mut ctx = self.context_for(&era, &outbound).through(door);
        // The progress token is the one member of `_meta` the work reads: it goes into the
        // context now, and the params are kept without `_meta`.
        let token = match (&era, &request.params) {
            (Era::Stateless(Stateless { meta, .. }), _) => meta.progress_token,
            (_, Params::Members(members)) => members.progress_token(),
            (_, Params::Raw(raw)) => params::progress_token(*raw),
        };
        if token.is_some() {
            ctx = ctx.with_progress_token(token);
        }
        if principal.is_some() {
            ctx = ctx.with_principal(principal);
        }
        #[cfg(feature = "trace")]
        let trace = {
            let (trace_context, trace) = start_trace(
                &era,
                &request,
                method,
                door.transport(),
                trace_headers,
                self.config.telemetry.return_traces,
            );
            if trace_context.is_some() {
                ctx = ctx.with_trace_context(trace_context);
            }
            trace
        };
        let id = request.id.to_owned();
        let params = match OwnedParams::keep(method, request.params) {
            Ok(params) => params,
            Err(error) => {
                #[cfg(feature = "trace")]
                if let Some(mut trace) = trace {
                    trace.end(Some(&error));
                }
                return refused(id, error, outbound);
            }
        };
        #[cfg(feature = "trace")]
        let span = trace.as_ref().and_then(|trace| {
            trace.name(params.routed_name());
            trace.span().cloned()
        });
        let call = Call {
            engine: self.clone(),
            id,
            method,
            name: method.owned_name(request.method),
            params,
            #[cfg(feature = "trace")]
            trace,
        };
        let started = match era {
            Era::Session(session) => Started {
                work: call.in_session(session.clone(), ctx, outbound.clone()),
                outbound,
                task_reply: None,
            },
            Era::Stateless(_) => {
                let (work, task_reply) = call.stateless(ctx);
                Started {
                    work,
                    outbound,
                    task_reply,
                }
            }
        };
        #[cfg(feature = "trace")]
        let started = in_span(started, span);
        started
    }
}

impl<D: Dispatch> Engine<D> {
    /// The context `era` gives a request, its messages going to `outbound`: the context's own
    /// form of the era (it owns the session, or what the stateless `_meta` declared, and
    /// outlives the request's bytes).
    #[inline]
    pub(crate) fn context_for(&self, era: &Era<'_>, outbound: &Outbound) -> RequestContext {
        match era {
            Era::Session(session) => self.session_context(session, Some(outbound.clone())),
            Era::Stateless(Stateless { version, meta }) => RequestContext::in_round(
                *version,
                capabilities_of(meta.client_capabilities),
                log_rank(meta),
                outbound.clone(),
                self.notifier.clone(),
            ),
        }
    }
}

/// The request's W3C trace context and its telemetry (feature `trace`). The context comes
/// from `_meta` (a call's members and a stateless request's `_meta` were read with it; raw
/// params are probed only when the span is on, or for a call read without its members, rare,
/// so no request pays an extra pass for it), else from the HTTP headers; the telemetry only
/// when [`telemetry::wanted`].
#[cfg(feature = "trace")]
fn start_trace(
    era: &Era<'_>,
    request: &Request<'_>,
    method: Method,
    transport: Transport,
    headers: TraceHeaders<'_>,
    #[cfg_attr(not(feature = "otel"), allow(unused_variables))] return_traces: bool,
) -> (Option<Arc<TraceContext>>, Option<Box<RequestTrace>>) {
    #[cfg(feature = "otel")]
    let passback = return_traces
        .then(|| asked_passback(era, request, method))
        .flatten();
    #[cfg(not(feature = "otel"))]
    let passback = None;
    let wanted = telemetry::wanted() || passback.is_some();
    let meta_trace = match (era, &request.params) {
        (Era::Stateless(Stateless { meta, .. }), _) => meta.trace(),
        (_, Params::Members(members)) => members.meta.as_ref().and_then(RequestMeta::trace),
        (_, Params::Raw(raw)) if wanted || method.is_call() => crate::telemetry::trace_meta(*raw),
        (_, Params::Raw(_)) => None,
    };
    let trace_context = if meta_trace.is_some() || headers.value.is_some() {
        telemetry::trace_context(meta_trace, headers.value).map(Arc::new)
    } else {
        None
    };
    let trace = wanted.then(|| {
        let (session, version) = match era {
            Era::Session(session) => (Some(session.id()), session.version()),
            Era::Stateless(Stateless { version, .. }) => (None, *version),
        };
        let trace = RequestTrace::start(telemetry::Start {
            method: request.method,
            label: method.name().unwrap_or("other"),
            era: era.name(),
            transport,
            id: Some(request.id),
            session,
            version: Some(version),
            trace: trace_context.as_deref(),
            passback,
        });
        // Their params are kept raw: the URI is read here, only with the span on.
        if let (Method::Subscribe | Method::Unsubscribe, Params::Raw(raw), Some(_)) =
            (method, &request.params, trace.span())
        {
            trace.name(telemetry::uri_of(*raw).as_deref());
        }
        trace
    });
    (trace_context, trace)
}

/// What a call asked of server-execution telemetry, in its `_meta.otel` (feature `otel`, when
/// the server returns traces): `tools/call`, `prompts/get` and `resources/read` (the draft
/// names the first and the last), read with the call's members.
#[cfg(feature = "otel")]
fn asked_passback(
    era: &Era<'_>,
    request: &Request<'_>,
    method: Method,
) -> Option<telemetry::Asked> {
    if !matches!(
        method,
        Method::ToolsCall | Method::PromptsGet | Method::ResourcesRead
    ) {
        return None;
    }
    match (era, &request.params) {
        (Era::Stateless(Stateless { meta, .. }), _) => meta.otel,
        (_, Params::Members(members)) => members.meta.as_ref().and_then(|meta| meta.otel),
        (_, Params::Raw(_)) => None,
    }
}

/// The work run inside its span, when the span is on (feature `trace`).
#[cfg(feature = "trace")]
#[inline]
fn in_span(mut started: Started, span: Option<tracing::Span>) -> Started {
    if let Some(span) = span {
        started.work = instrumented(started.work, span);
    }
    started
}

/// The work run inside its span (boxed again: only requests whose span is on pay for it).
#[cfg(feature = "trace")]
#[cold]
#[inline(never)]
fn instrumented(
    work: BoxFuture<'static, Option<Reply>>,
    span: tracing::Span,
) -> BoxFuture<'static, Option<Reply>> {
    Box::pin(tracing::Instrument::instrument(work, span))
}

/// What the boxed work of a request owns.
struct Call<D> {
    engine: Arc<Engine<D>>,
    id: Box<RawValue>,
    method: Method,
    name: Cow<'static, str>,
    params: OwnedParams,
    /// The request's telemetry (feature `trace`; `None` when off: see [`crate::telemetry`]).
    #[cfg(feature = "trace")]
    trace: Option<Box<RequestTrace>>,
}

impl<D: Dispatch> Call<D> {
    /// A session request: answers through `outbound` (its stream once opened), stops at
    /// `notifications/cancelled` or when the session ends.
    fn in_session(
        self,
        session: Arc<Session>,
        ctx: RequestContext,
        outbound: Outbound,
    ) -> BoxFuture<'static, Option<Reply>> {
        Box::pin(async move {
            // Ends the stream if the work is dropped unfinished (cancelled).
            let _abandon = AbandonOnDrop(outbound.clone());
            // Boxed on its own: with the rest of the work it would pass the size the
            // allocator's per-thread cache serves (1,032 bytes in glibc).
            let handled = Box::pin(self.engine.handle(
                Era::Session(&session),
                self.method,
                &self.name,
                &self.params,
                ctx,
            ));
            let result = tokio::select! {
                biased;
                result = handled => result,
                () = outbound.cancelled() => return None,
            };
            #[cfg(feature = "trace")]
            let result = match self.trace {
                Some(mut trace) => {
                    trace.end_with(result.as_ref().map(JsonText::get));
                    trace.pass_back(result)
                }
                None => result,
            };
            let response = match result {
                Ok(result) => result.into_success_response(&self.id),
                Err(error) => error_response(Some(&self.id), &error),
            };
            Some(outbound.complete(response))
        })
    }

    /// A stateless request. A tool call whose client declared the tasks extension may become
    /// a task: then whoever comes first answers, the handler's outcome or the
    /// `CreateTaskResult` (and the outcome goes to the task).
    fn stateless(
        self,
        ctx: RequestContext,
    ) -> (
        BoxFuture<'static, Option<Reply>>,
        Option<oneshot::Receiver<Reply>>,
    ) {
        let mut slot = None;
        let mut task_reply = None;
        let ctx = if self.method == Method::ToolsCall {
            if tasks::declared(ctx.client_capabilities()) {
                let (reply, reply_rx) = oneshot::channel();
                let tasks = self.engine.tasks.clone();
                let owner = ctx.principal().map(Principal::owner_digest);
                slot = Some(Arc::new(TaskSlot::new(
                    tasks,
                    self.id.clone(),
                    owner,
                    reply,
                )));
                task_reply = Some(reply_rx);
            }
            ctx.into_task(slot.clone())
        } else {
            ctx
        };
        let work = Box::pin(async move {
            let handled = Box::pin(self.engine.handle(
                Era::Stateless(()),
                self.method,
                &self.name,
                &self.params,
                ctx,
            ));
            let outcome = match &slot {
                None => handled.await,
                Some(slot) => {
                    // Boxed: the watch future would otherwise grow every call's state.
                    let cancelled = Box::pin(slot.cancelled());
                    tokio::select! {
                        outcome = handled => outcome,
                        // `tasks/cancel` already marked the task.
                        () = cancelled => return None,
                    }
                }
            };
            #[cfg(feature = "trace")]
            let outcome = match self.trace {
                Some(mut trace) => {
                    trace.end_with(outcome.as_ref().map(JsonText::get));
                    trace.pass_back(outcome)
                }
                None => outcome,
            };
            match (slot, outcome) {
                (Some(slot), outcome) => {
                    // Boxed: a store's write stays out of every stateless call's state.
                    Box::pin(slot.finish(outcome, |outcome| stateless_reply(&self.id, outcome)))
                        .await;
                    None
                }
                // The usual answer reuses the result's buffer.
                (None, Ok(result)) => Some(Reply::json(result.into_success_response(&self.id))),
                (None, outcome) => Some(stateless_reply(&self.id, &outcome)),
            }
        });
        (work, task_reply)
    }
}

/// A request refused before it ran (its call's members did not fit): the error is its
/// answer, in either era.
#[cold]
fn refused(id: Box<RawValue>, error: RpcError, outbound: Outbound) -> Started {
    let answer = Reply::json(error_response(Some(&id), &error));
    Started {
        work: Box::pin(std::future::ready(Some(answer))),
        outbound,
        task_reply: None,
    }
}

/// The reply to a stateless request. A missing client capability is a refusal, which HTTP
/// also shows in its status, so that clients and intermediaries see it without reading the
/// body.
fn stateless_reply(id: &RawValue, outcome: &Result<JsonText, RpcError>) -> Reply {
    match outcome {
        Ok(result) => Reply::json(success_response(id, result.get())),
        Err(error) => Reply::Json {
            json: error_response(Some(id), error),
            outcome: if error.code == MISSING_CAPABILITY {
                Outcome::Refused
            } else if error.is_unavailable() {
                Outcome::Unavailable
            } else {
                Outcome::Answered
            },
        },
    }
}

/// Ends a request's stream when its work is dropped before answering.
struct AbandonOnDrop(Outbound);

impl Drop for AbandonOnDrop {
    fn drop(&mut self) {
        self.0.abandon();
    }
}
