//! The context handed to every handler call: who is asking, and how to talk back mid-call
//! (progress, log messages, requests to the client).
//!
//! What a context can do depends on where the request came from, and that is one value,
//! [`OwnedEra`]: detached (no transport), in a session, a stateless round, or a stateless tool
//! call that may become a task. Each talking-back method is one `match` on it, and a
//! combination the protocol does not have cannot be built.

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;

use crate::auth::Principal;
use crate::delivery::notifier::Notifier;
use crate::delivery::outbound::Outbound;
use crate::error::Error;
use crate::future::BoxFuture;
use crate::mcp::{level_rank, CreateMessageResult, ElicitResult, ListRootsResult, LoggingLevel};
use crate::protocol::ProtocolVersion;
use crate::session::Session;
use crate::tasks::{self, TaskSlot};
use crate::telemetry::TraceContext;

/// What a handler knows about the request it serves, and its line back to the client.
///
/// Cloning is cheap. Without a transport behind it (tests, a handler called directly) the
/// talking-back methods do nothing and client requests fail with a clear error.
#[derive(Debug, Clone)]
pub struct RequestContext {
    protocol_version: ProtocolVersion,
    /// The way the request came in.
    door: Door,
    progress_token: Option<Arc<RawValue>>,
    /// Who the request acts for (HTTP with [`crate::Config::auth`]).
    principal: Option<Arc<Principal>>,
    /// The client's W3C trace context (`_meta.traceparent` or the HTTP header), when valid
    /// (feature `trace`).
    #[cfg(feature = "trace")]
    trace_context: Option<Arc<TraceContext>>,
    notifier: Option<Notifier>,
    era: OwnedEra,
}

/// The way a call came into the server: each transport names its door where it hands the
/// request to the engine, so every call's context ([`Call::context`](crate::dispatch::Call::context)) says which it came through
/// ([`RequestContext::door`]), and a door added later has to name itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Door {
    /// Streamable HTTP, `/mcp`: both eras, batches (and through it, the tool catalog's
    /// `call_tool` and tasks).
    Mcp,
    /// The plain JSON-RPC endpoint ([`crate::config::Endpoints::jsonrpc_path`]).
    Jsonrpc,
    /// The 2024-11-05 HTTP+SSE transport ([`crate::config::Endpoints::legacy_sse`]).
    LegacySse,
    /// stdin and stdout ([`crate::stdio`]).
    Stdio,
    /// No door: a context the program made itself ([`RequestContext::new`]), a call no
    /// client sent.
    Direct,
}

impl Door {
    /// Every door a client's call can come through ([`Door::Direct`] aside).
    pub const ALL: [Door; 4] = [Door::Mcp, Door::Jsonrpc, Door::LegacySse, Door::Stdio];

    /// The span's `network.transport` of a request through this door.
    #[cfg_attr(not(feature = "trace"), allow(dead_code))]
    pub(crate) fn transport(self) -> crate::telemetry::Transport {
        match self {
            Door::Stdio => crate::telemetry::Transport::Stdio,
            Door::Mcp | Door::Jsonrpc | Door::LegacySse | Door::Direct => {
                crate::telemetry::Transport::Http
            }
        }
    }
}

/// The request's era as its context owns it, and so how its handler talks back: the engine's
/// [`Era`](crate::engine::Era) borrows the request's bytes, which a context outlives
/// (`Engine::context_for` builds this from it, with where the messages go).
#[derive(Debug, Clone)]
enum OwnedEra {
    /// No transport behind it.
    Detached,
    /// A request of a session (HTTP or stdio): messages go to `outbound` (none in a batch),
    /// client requests are sent there and their answers awaited.
    Session {
        session: Arc<Session>,
        outbound: Option<Outbound>,
        /// How long a client request may wait, in milliseconds (a `u32` keeps the context
        /// small: every level of a handler's future holds a copy).
        client_request_timeout_ms: u32,
    },
    /// A stateless 2026-07-28 request: it runs in rounds, and client requests are answered
    /// from the retry's `inputResponses` instead of being sent.
    Round(Round),
    /// A stateless `tools/call`: a round that may continue as a task. `slot` is where it goes
    /// then; `None` when the client did not declare the tasks extension.
    Task {
        round: Round,
        slot: Option<Arc<TaskSlot>>,
    },
}

/// What a stateless request carries in its `_meta`, and where its messages go.
#[derive(Debug, Clone)]
struct Round {
    capabilities: Arc<Value>,
    /// Minimum log rank the client wants on this request.
    log_level: Option<u8>,
    outbound: Outbound,
}

impl RequestContext {
    /// A context for a request at `protocol_version`, with no transport behind it.
    pub fn new(protocol_version: ProtocolVersion) -> Self {
        Self {
            protocol_version,
            door: Door::Direct,
            progress_token: None,
            principal: None,
            #[cfg(feature = "trace")]
            trace_context: None,
            notifier: None,
            era: OwnedEra::Detached,
        }
    }

    /// The protocol revision of the request.
    pub fn protocol_version(&self) -> ProtocolVersion {
        self.protocol_version
    }

    /// The way the request came in ([`Door::Direct`] for a context made by the program
    /// itself).
    pub fn door(&self) -> Door {
        self.door
    }

    /// This context, of a request that came in through `door` (set by the transport that
    /// hands it to the engine).
    pub(crate) fn through(mut self, door: Door) -> Self {
        self.door = door;
        self
    }

    /// The session the request belongs to (session-era revisions).
    pub fn session(&self) -> Option<&Arc<Session>> {
        match &self.era {
            OwnedEra::Session { session, .. } => Some(session),
            _ => None,
        }
    }

    /// The client's declared capabilities (`Value::Null` when unknown).
    pub fn client_capabilities(&self) -> &Value {
        static NULL: Value = Value::Null;
        match &self.era {
            OwnedEra::Detached => &NULL,
            OwnedEra::Session { session, .. } => session.client_capabilities(),
            OwnedEra::Round(round) | OwnedEra::Task { round, .. } => &round.capabilities,
        }
    }

    /// The `_meta.progressToken` of the request, if the client asked for progress.
    pub fn progress_token(&self) -> Option<&RawValue> {
        self.progress_token.as_deref()
    }

    /// Who the request acts for: the [`Principal`] the HTTP edge authenticated when
    /// authorization is on ([`crate::Config::auth`]); `None` without it, and on stdio.
    pub fn principal(&self) -> Option<&Principal> {
        self.principal.as_deref()
    }

    /// The principal, shared (what outlives the context: a round's binding).
    pub(crate) fn shared_principal(&self) -> Option<Arc<Principal>> {
        self.principal.clone()
    }

    /// The same context acting for `principal` (for tests and handlers calling handlers;
    /// the transports set it themselves).
    pub fn with_principal(mut self, principal: Option<Arc<Principal>>) -> Self {
        self.principal = principal;
        self
    }

    /// The W3C trace context the client sent with the request (`_meta.traceparent` and
    /// `tracestate`, the MCP convention, else the HTTP `traceparent` and `tracestate`
    /// headers), when it was valid: the request is a child of the client's span
    /// [`TraceContext::parent_id`] in trace [`TraceContext::trace_id`].
    ///
    /// Read only with the runtime's `trace` feature (which `otel` and `metrics` turn on; a
    /// generated crate passes it through as its own `trace` feature): without it, always
    /// `None`, and a request pays nothing for it.
    pub fn trace_context(&self) -> Option<&TraceContext> {
        #[cfg(feature = "trace")]
        {
            self.trace_context.as_deref()
        }
        #[cfg(not(feature = "trace"))]
        {
            None
        }
    }

    /// The same context with `trace_context` (for tests and handlers calling handlers; the
    /// transports set it themselves). Feature `trace` only.
    #[cfg(feature = "trace")]
    pub fn with_trace_context(mut self, trace_context: Option<Arc<TraceContext>>) -> Self {
        self.trace_context = trace_context;
        self
    }

    /// The server's notifier (list changes, resource updates).
    pub fn notifier(&self) -> Option<&Notifier> {
        self.notifier.as_ref()
    }

    /// Sends `notifications/progress` for this request; does nothing when the client gave no
    /// progress token.
    pub fn progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        let Some(token) = &self.progress_token else {
            return;
        };
        let token = serde_json::from_str::<Value>(token.get()).unwrap_or(Value::Null);
        let mut params = json!({ "progressToken": token, "progress": number(progress) });
        if let Some(total) = total {
            params["total"] = number(total);
        }
        if let Some(message) = message {
            params["message"] = json!(message);
        }
        self.notify("notifications/progress", params);
    }

    /// Sends `notifications/message` when `level` is at or above the level the client set.
    pub fn log(&self, level: LoggingLevel, logger: Option<&str>, data: impl Serialize) {
        let threshold = match &self.era {
            OwnedEra::Detached => None,
            OwnedEra::Session { session, .. } => session.log_level(),
            OwnedEra::Round(round) | OwnedEra::Task { round, .. } => round.log_level,
        };
        match threshold {
            Some(threshold) if level_rank(level) >= threshold => {}
            _ => return,
        }
        let mut params =
            json!({ "level": level, "data": serde_json::to_value(data).unwrap_or(Value::Null) });
        if let Some(logger) = logger {
            params["logger"] = json!(logger);
        }
        self.notify("notifications/message", params);
    }

    /// Asks the client to fill a form or visit a URL (`elicitation/create`).
    ///
    /// `key` names this question within the request. On a session the request goes out on the
    /// request's stream and the answer is awaited. On a stateless 2026-07-28 request the answer
    /// comes from the client's retry: while it is missing this returns an input-required error,
    /// and the handler's `?` ends the round with an `InputRequiredResult` (see
    /// [`RequestContext::request_client`]).
    pub async fn elicit(&self, key: &str, params: impl Serialize) -> Result<ElicitResult, Error> {
        self.request_client(key, "elicitation/create", params).await
    }

    /// Asks the client's model for a completion (`sampling/createMessage`). See
    /// [`RequestContext::elicit`] for `key`.
    pub async fn sample(
        &self,
        key: &str,
        params: impl Serialize,
    ) -> Result<CreateMessageResult, Error> {
        self.request_client(key, "sampling/createMessage", params)
            .await
    }

    /// Asks the client for its roots (`roots/list`). See [`RequestContext::elicit`] for `key`.
    pub async fn list_roots(&self, key: &str) -> Result<ListRootsResult, Error> {
        self.request_client(key, "roots/list", json!({})).await
    }

    /// Sends a request to the client and returns its answer.
    ///
    /// - The client must have declared the capability the method needs (`elicitation`,
    ///   `sampling`, `roots`); otherwise this fails with [`Error::missing_capability`] and
    ///   nothing is sent.
    /// - Session: sent on this request's stream, answered within the configured timeout.
    /// - Stateless (2026-07-28): answered from the retry's `inputResponses[key]`. While the
    ///   answer is missing the request is recorded and this returns an input-required error;
    ///   when the handler fails with pending requests the round ends with an
    ///   `InputRequiredResult` listing all of them. To ask several questions in one round,
    ///   make every call first and apply `?` afterwards:
    /// - A call that became a task: the task waits in `input_required` until `tasks/update`
    ///   brings the answer.
    ///
    /// ```ignore
    /// let name = ctx.elicit("name", ask_name).await;
    /// let roots = ctx.list_roots("roots").await;
    /// let (name, roots) = (name?, roots?);
    /// ```
    pub async fn request_client<R: DeserializeOwned>(
        &self,
        key: &str,
        method: &str,
        params: impl Serialize,
    ) -> Result<R, Error> {
        let params = serde_json::to_value(params)
            .map_err(|e| Error::new(format!("{method} params: {e}")))?;
        // The layers of the call being polled (a task-local: a field would grow every
        // context, with or without middleware).
        let Some(hook) = client_hook() else {
            return self.to_client(key, method, params).await;
        };
        let answer = hook.run(self, key, method, params).await?;
        R::deserialize(&answer)
            .map_err(|e| Error::new(format!("{method}: the answer to `{key}` does not fit: {e}")))
    }

    /// Sends `method` with `params` to the client (see [`request_client`](Self::request_client)),
    /// past any middleware.
    pub(crate) async fn to_client<R: DeserializeOwned>(
        &self,
        key: &str,
        method: &str,
        params: Value,
    ) -> Result<R, Error> {
        if let Some(required) = undeclared_capability(self.client_capabilities(), method, &params) {
            return Err(Error::missing_capabilities(required));
        }
        match &self.era {
            OwnedEra::Detached => Err(Error::new(format!(
                "cannot send {method}: this transport has no way to reach the client"
            ))),
            OwnedEra::Session {
                session,
                outbound,
                client_request_timeout_ms,
            } => {
                let timeout = Duration::from_millis((*client_request_timeout_ms).into());
                ask_on_session(session, outbound.as_ref(), timeout, method, params).await
            }
            OwnedEra::Task {
                slot: Some(slot), ..
            } if slot.task_id().is_some() => {
                let answer = slot.ask(key, method, params).await?;
                R::deserialize(&answer).map_err(|e| {
                    Error::new(format!("{method}: the answer to `{key}` does not fit: {e}"))
                })
            }
            OwnedEra::Round(round) | OwnedEra::Task { round, .. } => round
                .outbound
                .input_round_or_new()
                .answer(key, method, params),
        }
    }

    /// Continues this `tools/call` as a task, when the request allows it (a stateless
    /// 2026-07-28 request whose client declared the `io.modelcontextprotocol/tasks`
    /// extension): the client gets a `CreateTaskResult` now, and polls `tasks/get` for what this
    /// handler returns later. Requests to the client then park the task in `input_required`
    /// until `tasks/update` answers; progress and log messages are no longer sent. Returns
    /// whether the call is now a task; when it is not, the handler simply goes on and its result
    /// is the answer.
    ///
    /// Answer any multi round-trip questions first: a round cannot end once the call is a task.
    pub fn start_task(&self) -> bool {
        match self.task_slot().map(|slot| slot.start()) {
            Some(Ok(())) => true,
            Some(Err(error)) => {
                tracing::warn!(%error, "could not start a task; answering synchronously");
                false
            }
            None => false,
        }
    }

    /// Like [`RequestContext::start_task`] for a tool that only works as a task: a stateless
    /// client that did not declare the tasks extension gets `-32021` naming it. On a session
    /// (where the extension does not exist) the call goes on synchronously.
    pub fn require_task(&self) -> Result<(), Error> {
        match &self.era {
            OwnedEra::Task {
                slot: Some(slot), ..
            } => slot.start(),
            OwnedEra::Task { slot: None, .. } => Err(tasks::extension_required()),
            _ => Ok(()),
        }
    }

    /// The id of the task this call became, if it did.
    pub fn task_id(&self) -> Option<&str> {
        self.task_slot()?.task_id()
    }

    fn task_slot(&self) -> Option<&Arc<TaskSlot>> {
        match &self.era {
            OwnedEra::Task { slot, .. } => slot.as_ref(),
            _ => None,
        }
    }

    /// A value this handler saved with [`RequestContext::save`] in an earlier round of the same
    /// stateless request; `None` on a session, in the first round, or if it does not fit `T`.
    pub fn saved<T: DeserializeOwned>(&self, name: &str) -> Option<T> {
        self.round_outbound()?.input_round()?.saved(name)
    }

    /// Keeps a small value for the next rounds of this stateless request. It travels inside
    /// the sealed `requestState`: the client cannot change it, but can read it, so never save
    /// secrets. Does nothing on a session, where the handler simply keeps running.
    pub fn save(&self, name: &str, value: impl Serialize) {
        if let (Some(outbound), Ok(value)) = (self.round_outbound(), serde_json::to_value(value)) {
            outbound.input_round_or_new().save(name, value);
        }
    }

    /// Ends this request's SSE connection without ending its stream, so the client reconnects
    /// with `Last-Event-ID` (2025-11-25 polling). Later messages wait in the replay window.
    pub fn close_sse_stream(&self) {
        if let OwnedEra::Session {
            outbound: Some(outbound),
            ..
        } = &self.era
        {
            outbound.detach();
        }
    }

    fn notify(&self, method: &str, params: Value) {
        let outbound = match &self.era {
            OwnedEra::Detached => return,
            OwnedEra::Session { outbound, .. } => outbound.as_ref(),
            OwnedEra::Round(round) => Some(&round.outbound),
            // A task reports through `tasks/get`, not notifications.
            OwnedEra::Task { .. } if self.task_id().is_some() => return,
            OwnedEra::Task { round, .. } => Some(&round.outbound),
        };
        if let Some(outbound) = outbound {
            outbound
                .send(json!({ "jsonrpc": "2.0", "method": method, "params": params }).to_string());
        }
    }

    // Constructors used by the engine.

    /// A request of `session`, its messages going to `outbound`.
    pub(crate) fn in_session(
        session: Arc<Session>,
        outbound: Option<Outbound>,
        notifier: Notifier,
        client_request_timeout: Duration,
    ) -> Self {
        Self {
            protocol_version: session.version(),
            door: Door::Direct,
            progress_token: None,
            principal: None,
            #[cfg(feature = "trace")]
            trace_context: None,
            notifier: Some(notifier),
            era: OwnedEra::Session {
                session,
                outbound,
                client_request_timeout_ms: u32::try_from(client_request_timeout.as_millis())
                    .unwrap_or(u32::MAX),
            },
        }
    }

    /// A stateless request at `version` whose `_meta` declared `capabilities` and `log_level`.
    pub(crate) fn in_round(
        version: ProtocolVersion,
        capabilities: Arc<Value>,
        log_level: Option<u8>,
        outbound: Outbound,
        notifier: Notifier,
    ) -> Self {
        Self {
            protocol_version: version,
            door: Door::Direct,
            progress_token: None,
            principal: None,
            #[cfg(feature = "trace")]
            trace_context: None,
            notifier: Some(notifier),
            era: OwnedEra::Round(Round {
                capabilities,
                log_level,
                outbound,
            }),
        }
    }

    /// This context, telling of changes through `notifier` (a call the engine makes itself,
    /// such as a listen stream's [`crate::dispatch::CallKind::Subscribe`]).
    pub(crate) fn with_notifier(mut self, notifier: &Notifier) -> Self {
        self.notifier = Some(notifier.clone());
        self
    }

    /// This stateless round as a `tools/call` that may become a task (through `slot`, when
    /// the client declared the extension). A context of another era is returned unchanged.
    pub(crate) fn into_task(self, slot: Option<Arc<TaskSlot>>) -> Self {
        let era = match self.era {
            OwnedEra::Round(round) => OwnedEra::Task { round, slot },
            other => other,
        };
        Self { era, ..self }
    }

    pub(crate) fn with_progress_token(mut self, token: Option<&RawValue>) -> Self {
        self.progress_token = token.map(|t| Arc::from(t.to_owned()));
        self
    }

    /// The outbound that keeps the round of a stateless request (`None` in other eras).
    pub(crate) fn round_outbound(&self) -> Option<&Outbound> {
        match &self.era {
            OwnedEra::Round(round) | OwnedEra::Task { round, .. } => Some(&round.outbound),
            _ => None,
        }
    }
}

/// Sends `method` to the client of `session` on the request's stream and awaits the answer
/// for at most `timeout`.
async fn ask_on_session<R: DeserializeOwned>(
    session: &Arc<Session>,
    outbound: Option<&Outbound>,
    timeout: Duration,
    method: &str,
    params: Value,
) -> Result<R, Error> {
    let Some(outbound) = outbound else {
        return Err(Error::new(format!(
            "cannot send {method}: this transport has no way to reach the client"
        )));
    };
    let Ok((id, answer)) = session.register_client_request() else {
        return Err(Error::new(format!(
            "cannot send {method}: the session awaits answers to {} requests already, the most the server allows (config.limits.max_pending_client_requests)",
            session.pending_client_requests()
        )));
    };
    let message = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
    if !outbound.send(message.to_string()) {
        session.forget_client_request(&id);
        return Err(Error::new(format!(
            "cannot send {method}: the response stream is closed"
        )));
    }
    let answer = match tokio::time::timeout(timeout, answer).await {
        Ok(Ok(answer)) => answer,
        Ok(Err(_)) => {
            return Err(Error::new(format!(
                "{method}: the session ended before the client answered"
            )))
        }
        Err(_) => {
            session.forget_client_request(&id);
            return Err(Error::new(format!(
                "{method}: the client did not answer within {timeout:?}"
            )));
        }
    };
    match answer {
        Ok(result) => serde_json::from_str(result.get())
            .map_err(|e| Error::new(format!("{method}: the client's answer does not fit: {e}"))),
        Err(error) => Err(Error::new(format!(
            "{method} failed on the client: {error}"
        ))),
    }
}

impl Default for RequestContext {
    /// A context at the newest revision.
    fn default() -> Self {
        Self::new(ProtocolVersion::V2026_07_28)
    }
}

/// The capability a server-to-client request needs that `declared` lacks, as a
/// `requiredCapabilities` object; `None` when the client can take it (or declared nothing we
/// can judge, like a context without a transport).
///
/// Elicitation modes count: `elicitation: {}` means form only; `{url: {}}` alone means URL
/// only. Sampling with `tools` needs `sampling.tools`.
fn undeclared_capability(declared: &Value, method: &str, params: &Value) -> Option<Value> {
    if !declared.is_object() {
        return None;
    }
    let (capability, feature) = match method {
        "elicitation/create" => {
            let mode = params.get("mode").and_then(Value::as_str).unwrap_or("form");
            ("elicitation", Some(mode))
        }
        "sampling/createMessage" => ("sampling", params.get("tools").map(|_| "tools")),
        "roots/list" => ("roots", None),
        _ => return None,
    };
    let Some(granted) = declared.get(capability) else {
        return Some(json!({ capability: {} }));
    };
    let feature = feature?;
    let modes_declared = granted.as_object().is_some_and(|g| !g.is_empty());
    let supported = match (capability, feature) {
        // An empty elicitation capability is form mode, as before modes existed.
        ("elicitation", "form") => !modes_declared || granted.get("form").is_some(),
        _ => granted.get(feature).is_some(),
    };
    (!supported).then(|| json!({ capability: { feature: {} } }))
}

/// A JSON number, integral when the value is (`3` rather than `3.0`, as clients expect).
fn number(value: f64) -> Value {
    if value.fract() == 0.0 && value.abs() < 9_007_199_254_740_992.0 {
        json!(value as i64)
    } else {
        json!(value)
    }
}

/// What wraps a context's requests to the client: the middleware layers around the call being
/// polled ([`crate::middleware`] implements it). A trait here, so that the context needs
/// nothing of the middleware above it.
pub(crate) trait ClientHook: Send + Sync {
    /// Sends `method` with `params` for `ctx` through the layers, then to the client.
    fn run<'a>(
        &'a self,
        ctx: &'a RequestContext,
        key: &'a str,
        method: &'a str,
        params: Value,
    ) -> BoxFuture<'a, Result<Value, Error>>;
}

tokio::task_local! {
    /// The layers around the call being polled, innermost first: each layer sets it while
    /// its call is polled, over the layers outside it (a task-local: a field would grow
    /// every context, with or without middleware).
    static CLIENT_HOOK: Option<Arc<dyn ClientHook>>;
}

/// The layers around the call being polled (none outside a layered call, and in a task the
/// handler spawned itself).
pub(crate) fn client_hook() -> Option<Arc<dyn ClientHook>> {
    CLIENT_HOOK.try_with(Clone::clone).ok().flatten()
}

/// `future` polled with `hook` around its requests to the client.
pub(crate) async fn with_client_hook<T>(
    hook: Arc<dyn ClientHook>,
    future: impl std::future::Future<Output = T>,
) -> T {
    CLIENT_HOOK.scope(Some(hook), future).await
}
