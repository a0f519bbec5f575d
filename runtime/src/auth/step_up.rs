//! [`StepUp`]: scopes that depend on what a request asks for, decided per request at the edge.
//!
//! The contract's `x-mcp` `scopes` are fixed per tool, prompt and resource. Some policies are
//! not: a transfer above an amount, a resource by the template id its URI names, a tool only
//! for some principals. A [`StepUp`] sees the principal, the call and its arguments as the
//! engine will run them, and names the scopes that request needs besides the contract's; a
//! principal lacking one gets 403 `insufficient_scope` whose `WWW-Authenticate` challenge names
//! the whole set to ask for (MCP's step-up authorization, SEP-2350), before anything runs.

use serde_json::value::RawValue;

use super::Principal;

/// One request as a [`StepUp`] policy sees it.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct StepUpRequest<'a> {
    /// Who asks.
    pub principal: &'a Principal,
    /// What it reaches: `tools/call`, `prompts/get` or `resources/read` (a
    /// `resources/subscribe` or a `completion/complete` is asked as the read or the prompt it
    /// stands for).
    pub method: &'a str,
    /// The tool or prompt name, or the resource URI.
    pub target: &'a str,
    /// The call's `arguments` as sent (a tool's or a prompt's), when it has any.
    pub arguments: Option<&'a RawValue>,
}

/// Decides the scopes a request needs besides the contract's: a transfer above an amount, a
/// resource by the template id its URI names, a tool only for some principals. A principal
/// lacking one gets 403 `insufficient_scope` naming the whole set to ask for (SEP-2350).
///
/// Implemented for every `Fn(&StepUpRequest) -> Vec<String>`; install it with
/// [`Auth::step_up`](super::Auth::step_up). It runs on every authenticated call, before the
/// handler: keep it cheap and never block.
pub trait StepUp: Send + Sync + 'static {
    /// The scopes `request` needs besides the contract's; empty when none.
    fn required_scopes(&self, request: &StepUpRequest<'_>) -> Vec<String>;
}

impl<F> StepUp for F
where
    F: Fn(&StepUpRequest<'_>) -> Vec<String> + Send + Sync + 'static,
{
    fn required_scopes(&self, request: &StepUpRequest<'_>) -> Vec<String> {
        self(request)
    }
}
