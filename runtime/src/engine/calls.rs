//! The calls that run a user's handler with client input: `tools/call`, `prompts/get` and
//! `resources/read`.
//!
//! In a session a handler that asks the client waits for the answer on the session. On the
//! stateless revision a call runs in rounds (see `crate::request_state::rounds`): the retry's answers and
//! sealed `requestState` are opened before the handler runs, and a handler that failed while
//! questions are pending ends the round with an `InputRequiredResult`. A round's state is
//! bound to the call and, when authorization is on, to the principal making it.

use serde_json::json;
use serde_json::value::RawValue;
use serde_json::Value;
use std::sync::Arc;

use super::params::CallMembers;
use super::Engine;
use crate::auth::Principal;
use crate::catalog::Descriptor;
use crate::context::RequestContext;
use crate::delivery::outbound::Outbound;
use crate::dispatch::{Answer, BoxFuture, Call, CallKind, Dispatch};
use crate::json::JsonText;
use crate::jsonrpc::{self, RpcError};
use crate::panic::CatchUnwind;
use crate::policy;
use crate::protocol::ProtocolVersion;
use crate::request_state::rounds::InputRound;
use crate::request_state::{Binding, StateSealer};

/// What a round of a call is bound to: method, target (tool or prompt name, resource URI)
/// and arguments.
type Target<'a> = (&'a str, &'a str, Option<&'a RawValue>);

/// A stateless call's round: where its input requests go, and who makes the call (its
/// sealed state is bound to them).
struct Round {
    outbound: Outbound,
    principal: Option<Arc<Principal>>,
}

impl<D: Dispatch> Engine<D> {
    /// The one seam every call that can reach a handler goes through, whatever its door
    /// (`/mcp`, the plain JSON-RPC endpoint, stdio): the dispatch's future for `call`, inside
    /// the audit records when they are on (which see the target that runs:
    /// [`policy::Target::of`]); `None` for a name the server does not know.
    #[inline]
    pub(crate) fn run<'a>(&'a self, call: Call<'a>) -> Option<BoxFuture<'a, Answer>> {
        let Some(audit) = crate::audit::recording(self.config.audit.as_ref()) else {
            return self.dispatch.call(call);
        };
        let unexposed = self.config.endpoints.jsonrpc_unexposed;
        let target = policy::Target::of(self.dispatch.contract(), &call, unexposed);
        crate::middleware::as_target(audit, &self.dispatch, call, target)
    }

    /// `tools/call`, `prompts/get` or `resources/read` (`kind`) with its `members`. A tool's
    /// panic or failure is an `isError` result, a prompt's or resource's a JSON-RPC error; an
    /// unknown tool or prompt is `-32602`, an unknown URI `-32002` on a session and `-32602`
    /// from 2026-07-28 on (never an empty `contents`).
    pub(super) async fn call(
        &self,
        kind: CallKind,
        members: &CallMembers,
        ctx: RequestContext,
    ) -> Result<JsonText, RpcError> {
        let (name, arguments) = match kind {
            CallKind::Resource => {
                let uri = members.uri()?;
                // A bundled skill file (skills extension); never one on a server without skills.
                if let Some(answer) = crate::skills::read(self.dispatch.contract().skills(), uri) {
                    return Ok(answer);
                }
                // A tool result kept because it was over its budget.
                // Boxed: the read's state stays out of every other call's future.
                if self.budgets.active() {
                    if let Some(answer) = Box::pin(self.budgets.read(uri, &ctx)).await {
                        return answer;
                    }
                }
                (uri, None)
            }
            _ => (members.name()?, members.arguments()),
        };
        let target = (kind.method(), name, arguments);
        let round = self.open_round(target, members, &ctx)?;
        let version = ctx.protocol_version();
        let principal = self.caller_for_hints(&ctx);
        // Who may read a result kept for being over its budget (only a server with budgets
        // pays for holding it).
        let owner = match self.budgets.active() {
            true => ctx.shared_principal(),
            false => None,
        };
        // A `jq` filter passed to a tool with a budget (`result_budget::projection`).
        let filter = match kind {
            CallKind::Tool if self.budgets.active() => {
                self.budgets
                    .filter_of(self.dispatch.contract(), name, arguments)
            }
            _ => None,
        };
        let Some(future) = self.run(Call::new(kind, name, arguments, ctx)) else {
            let answer = Err(self.unknown_call(kind, name, version, principal));
            return close_round(&self.sealer, target, round, true, answer);
        };
        let answer = match &filter {
            // Not a filter: refused before the tool runs (its future is dropped unpolled).
            Some(Err(why)) => Answer::InvalidArguments(why.clone()),
            _ => CatchUnwind::new(future).await.unwrap_or_else(|panic| {
                // The panic's text may hold anything the handler saw: the log gets it, the
                // client does not.
                tracing::error!(method = kind.method(), %name, %panic, "handler panicked");
                match kind {
                    CallKind::Tool => {
                        Answer::Failed(crate::error::Error::new("the tool failed unexpectedly"))
                    }
                    _ => Answer::Refused(RpcError::internal(format!(
                        "Internal error: the {} handler failed unexpectedly",
                        what(kind)
                    ))),
                }
            }),
        };
        let answer = match filter {
            // Boxed, as the read above.
            Some(Ok(filter)) => Box::pin(self.budgets.project(filter, answer)).await,
            _ => answer,
        };
        let failed = !matches!(answer, Answer::Success(_) | Answer::Content(_));
        let answer = match kind {
            CallKind::Tool if self.budgets.may_exceed(&answer) => {
                let contract = self.dispatch.contract();
                let owner = owner.as_deref();
                // Boxed, as the read above.
                let kept = self
                    .budgets
                    .apply(contract, name, arguments, version, owner, answer);
                Box::pin(kept).await
            }
            CallKind::Tool => answer.into_call_tool_result(version),
            _ => answer.into_result().map(JsonText::from),
        };
        close_round(&self.sealer, target, round, failed, answer)
    }

    /// The error of a call of `kind` to `name` the server does not have, with the name a slip
    /// away among those the caller's lists show, if any.
    #[cold]
    fn unknown_call(
        &self,
        kind: CallKind,
        name: &str,
        version: ProtocolVersion,
        principal: Option<Arc<Principal>>,
    ) -> RpcError {
        let catalog = self.dispatch.contract().catalog();
        let descriptors = match kind {
            CallKind::Tool => catalog.tools,
            CallKind::Prompt => catalog.prompts,
            _ => catalog.resources,
        };
        let near = self.nearest(descriptors, kind.method(), name, principal);
        if kind != CallKind::Resource {
            return unknown(what(kind), name, near);
        }
        let tip = did_you_mean(near);
        match version.is_stateless() {
            true => RpcError::invalid_params(format!("Resource not found: {name}{tip}")),
            false => RpcError::new(
                jsonrpc::RESOURCE_NOT_FOUND,
                format!("Resource not found{tip}"),
            ),
        }
        .with_data(json!({ "uri": name }))
    }

    /// Who makes the call, kept for the did-you-mean of an unknown name only when the
    /// contract hides what a caller may not use: otherwise every name is shown to everyone,
    /// and the call pays nothing (not even a reference count) for the hint.
    #[inline]
    fn caller_for_hints(&self, ctx: &RequestContext) -> Option<Arc<Principal>> {
        match self.dispatch.contract().hides_unauthorized() {
            true => ctx.shared_principal(),
            false => None,
        }
    }

    /// The key of `descriptors` (tools, prompts or resources, used by `method`) a slip away
    /// from `given`, among those the caller's lists show (see [`Engine::list`]). Only for an
    /// unknown name, and bounded: no suggestion for a name past [`crate::similar::LONGEST`]
    /// characters or a catalog of more than [`MOST_COMPARED`] entries.
    #[cold]
    #[inline(never)]
    fn nearest(
        &self,
        descriptors: &'static [Descriptor],
        method: &str,
        given: &str,
        principal: Option<Arc<Principal>>,
    ) -> Option<&'static str> {
        if descriptors.len() > MOST_COMPARED || given.len() > 4 * crate::similar::LONGEST {
            return None;
        }
        let shown = descriptors.iter().filter(|d| match principal.as_deref() {
            Some(principal) => self
                .dispatch
                .contract()
                .required_scopes(method, d.key)
                .iter()
                .all(|scope| principal.has_scope(scope)),
            None => true,
        });
        crate::similar::nearest(given, shown.map(|d| d.key))
    }

    /// The round of a stateless call (`None` in a session), started: a retry's
    /// `requestState` is opened first, so a tampered, expired or foreign one (another call's,
    /// or another principal's) is refused before the handler runs. A first round asks nothing
    /// yet.
    fn open_round(
        &self,
        target: Target<'_>,
        call: &CallMembers,
        ctx: &RequestContext,
    ) -> Result<Option<Round>, RpcError> {
        let Some(outbound) = ctx.round_outbound() else {
            return Ok(None);
        };
        let round = Round {
            outbound: outbound.clone(),
            principal: ctx.shared_principal(),
        };
        if call.is_retry() {
            let bound = binding(target, round.principal.as_deref())?;
            outbound.start_round(InputRound::start(
                &self.sealer,
                || bound,
                call.input_responses(),
                call.request_state(),
            )?);
        }
        Ok(Some(round))
    }
}

/// The answer of a call: a failure while input requests of its `round` are pending (and no
/// answer was malformed) becomes the `InputRequiredResult` that asks for them.
fn close_round(
    sealer: &StateSealer,
    target: Target<'_>,
    round: Option<Round>,
    failed: bool,
    answer: Result<JsonText, RpcError>,
) -> Result<JsonText, RpcError> {
    let Some(round) = round else {
        return answer;
    };
    match round.outbound.input_round() {
        Some(input) if failed && input.needs_input() => {
            input.input_required_result(sealer, binding(target, round.principal.as_deref())?)
        }
        _ => answer,
    }
}

/// A catalog larger than this gets no did-you-mean: comparing costs a few steps per
/// character of every name.
const MOST_COMPARED: usize = 10_000;

/// `-32602` for a tool or prompt (`what`) the server does not have; `near` is the one a slip
/// away, if any (`Unknown tool: stock_search; did you mean `stock.search`?`).
#[cold]
fn unknown(what: &str, name: &str, near: Option<&str>) -> RpcError {
    let tip = did_you_mean(near);
    RpcError::invalid_params(format!("Unknown {what}: {name}{tip}"))
}

/// What a call of `kind` names, in its errors: `tool`, `prompt`, `resource` or `method`.
fn what(kind: CallKind) -> &'static str {
    match kind {
        CallKind::Tool => "tool",
        CallKind::Prompt => "prompt",
        CallKind::Resource | CallKind::Subscribe => "resource",
        CallKind::Method => "method",
    }
}

/// `; did you mean `near`?`, or nothing.
fn did_you_mean(near: Option<&str>) -> String {
    near.map(|near| format!("; did you mean `{near}`?"))
        .unwrap_or_default()
}

/// The request a multi round-trip state is bound to: method, name and arguments (absent
/// arguments count as `{}`), and the `principal` making it. Arguments that cannot be read as
/// a JSON value (nested past serde_json's depth limit) are refused: bound to `{}` instead, a
/// state issued for one request would open for another.
fn binding(
    (method, name, arguments): Target<'_>,
    principal: Option<&Principal>,
) -> Result<Binding, RpcError> {
    let arguments = match arguments {
        None => json!({}),
        Some(raw) => serde_json::from_str::<Value>(raw.get()).map_err(|e| {
            RpcError::invalid_params(format!(
                "Invalid params: the arguments cannot be bound to a requestState: {e}"
            ))
        })?,
    };
    let binding = Binding::new(method, name, Some(&arguments));
    Ok(match principal {
        Some(principal) => binding.owned_by(&principal.owner_key()),
        None => binding,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(text: String) -> Box<RawValue> {
        RawValue::from_string(text).unwrap()
    }

    #[test]
    fn an_unknown_name_a_slip_away_from_a_known_one_names_it() {
        let near = crate::similar::nearest("stock_search", ["news.search", "stock.search"]);
        let error = unknown("tool", "stock_search", near);
        assert_eq!(error.code, -32602);
        assert_eq!(
            error.message,
            "Unknown tool: stock_search; did you mean `stock.search`?"
        );
        assert_eq!(
            unknown("prompt", "weather", None).message,
            "Unknown prompt: weather"
        );
    }

    #[test]
    fn arguments_that_cannot_be_read_are_refused_not_bound_to_an_empty_object() {
        let empty = binding(("tools/call", "t", None), None).unwrap();
        let braces = raw("{}".into());
        assert!(empty == binding(("tools/call", "t", Some(&braces)), None).unwrap());
        let deep = raw(format!("{{\"a\":{}1{}}}", "[".repeat(200), "]".repeat(200)));
        let refused = binding(("tools/call", "t", Some(&deep)), None)
            .err()
            .unwrap();
        assert_eq!(refused.code, -32602);
    }
}
