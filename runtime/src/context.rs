//! The context handed to every handler call: who is asking, and how to talk back mid-call
//! (progress, log messages, requests to the client).

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;
use tokio::sync::{mpsc, Notify};

use crate::error::Error;
use crate::events::{Delivery, Streams, CONNECTION_QUEUE};
use crate::mcp::{level_rank, CreateMessageResult, ElicitResult, ListRootsResult, LoggingLevel};
use crate::mrtr::InputRound;
use crate::notifier::Notifier;
use crate::protocol::ProtocolVersion;
use crate::session::Session;
use crate::tasks::{self, TaskSlot};

/// What a handler knows about the request it serves, and its line back to the client.
///
/// Cloning is cheap. Without a transport behind it (tests, plain JSON-RPC) the talking-back
/// methods do nothing and client requests fail with a clear error.
#[derive(Debug, Clone)]
pub struct RequestContext {
    protocol_version: ProtocolVersion,
    progress_token: Option<Arc<RawValue>>,
    session: Option<Arc<Session>>,
    outbound: Option<Outbound>,
    /// Minimum log rank for this request when it is not the session's (stateless `_meta`).
    request_log_level: Option<u8>,
    /// The client capabilities of a stateless request.
    request_capabilities: Option<Arc<Value>>,
    notifier: Option<Notifier>,
    /// How long a request to the client may wait for its answer, in milliseconds (a `u32`
    /// keeps the context small: every level of a handler's future holds a copy).
    client_request_timeout_ms: u32,
    /// A stateless `tools/call`, `prompts/get` or `resources/read`, which runs in rounds:
    /// client requests are answered from the round its outbound keeps instead of being sent.
    in_rounds: bool,
    /// Where the call goes if it continues as a task: a stateless `tools/call` whose client
    /// declared the tasks extension.
    task_slot: Option<Arc<TaskSlot>>,
    /// A stateless `tools/call`, where tasks exist (with or without a slot). Sessions and the
    /// other methods have no tasks.
    tasks_exist: bool,
}

impl RequestContext {
    /// A context for a request at `protocol_version`, with no transport behind it.
    pub fn new(protocol_version: ProtocolVersion) -> Self {
        Self {
            protocol_version,
            progress_token: None,
            session: None,
            outbound: None,
            request_log_level: None,
            request_capabilities: None,
            notifier: None,
            client_request_timeout_ms: 60_000,
            in_rounds: false,
            task_slot: None,
            tasks_exist: false,
        }
    }

    /// The protocol revision of the request.
    pub fn protocol_version(&self) -> ProtocolVersion {
        self.protocol_version
    }

    /// The session the request belongs to (session-era revisions).
    pub fn session(&self) -> Option<&Arc<Session>> {
        self.session.as_ref()
    }

    /// The client's declared capabilities (`Value::Null` when unknown).
    pub fn client_capabilities(&self) -> &Value {
        static NULL: Value = Value::Null;
        match (&self.session, &self.request_capabilities) {
            (Some(session), _) => session.client_capabilities(),
            (None, Some(capabilities)) => capabilities,
            (None, None) => &NULL,
        }
    }

    /// The `_meta.progressToken` of the request, if the client asked for progress.
    pub fn progress_token(&self) -> Option<&RawValue> {
        self.progress_token.as_deref()
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
        let threshold = self
            .request_log_level
            .or_else(|| self.session.as_ref().and_then(|s| s.log_level()));
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
        if let Some(required) = undeclared_capability(self.client_capabilities(), method, &params) {
            return Err(Error::missing_capabilities(required));
        }
        if let Some(slot) = self.task_slot().filter(|slot| slot.task_id().is_some()) {
            let answer = slot.ask(key, method, params).await?;
            return R::deserialize(&answer).map_err(|e| {
                Error::new(format!("{method}: the answer to `{key}` does not fit: {e}"))
            });
        }
        if let Some(round) = self.input_round() {
            return round.answer(key, method, params);
        }
        let (Some(session), Some(outbound)) = (&self.session, &self.outbound) else {
            return Err(Error::new(format!(
                "cannot send {method}: this transport has no way to reach the client"
            )));
        };
        let (id, answer) = session.register_client_request();
        let message = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
        if !outbound.send(message.to_string()) {
            session.forget_client_request(&id);
            return Err(Error::new(format!(
                "cannot send {method}: the response stream is closed"
            )));
        }
        let timeout = Duration::from_millis(self.client_request_timeout_ms.into());
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
            Ok(result) => serde_json::from_str(result.get()).map_err(|e| {
                Error::new(format!("{method}: the client's answer does not fit: {e}"))
            }),
            Err(error) => Err(Error::new(format!(
                "{method} failed on the client: {error}"
            ))),
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
        match (&self.task_slot, self.tasks_exist) {
            (Some(slot), _) => slot.start(),
            (None, true) => Err(tasks::extension_required()),
            (None, false) => Ok(()),
        }
    }

    /// The id of the task this call became, if it did.
    pub fn task_id(&self) -> Option<&str> {
        self.task_slot()?.task_id()
    }

    fn task_slot(&self) -> Option<&Arc<TaskSlot>> {
        self.task_slot.as_ref()
    }

    /// A value this handler saved with [`RequestContext::save`] in an earlier round of the same
    /// stateless request; `None` on a session, in the first round, or if it does not fit `T`.
    pub fn saved<T: DeserializeOwned>(&self, name: &str) -> Option<T> {
        self.outbound.as_ref()?.input_round()?.saved(name)
    }

    /// Keeps a small value for the next rounds of this stateless request. It travels inside
    /// the sealed `requestState`: the client cannot change it, but can read it, so never save
    /// secrets. Does nothing on a session, where the handler simply keeps running.
    pub fn save(&self, name: &str, value: impl Serialize) {
        if let (Some(round), Ok(value)) = (self.input_round(), serde_json::to_value(value)) {
            round.save(name, value);
        }
    }

    /// Ends this request's SSE connection without ending its stream, so the client reconnects
    /// with `Last-Event-ID` (2025-11-25 polling). Later messages wait in the replay window.
    pub fn close_sse_stream(&self) {
        if let Some(outbound) = &self.outbound {
            outbound.detach();
        }
    }

    fn notify(&self, method: &str, params: Value) {
        // A task reports through `tasks/get`, not notifications.
        if self.task_id().is_some() {
            return;
        }
        if let Some(outbound) = &self.outbound {
            outbound
                .send(json!({ "jsonrpc": "2.0", "method": method, "params": params }).to_string());
        }
    }

    // Builders used by the transports.

    pub(crate) fn with_session(mut self, session: Arc<Session>) -> Self {
        self.session = Some(session);
        self
    }

    pub(crate) fn with_outbound(mut self, outbound: Outbound) -> Self {
        self.outbound = Some(outbound);
        self
    }

    pub(crate) fn with_progress_token(mut self, token: Option<&RawValue>) -> Self {
        self.progress_token = token.map(|t| Arc::from(t.to_owned()));
        self
    }

    pub(crate) fn with_log_level(mut self, rank: Option<u8>) -> Self {
        self.request_log_level = rank;
        self
    }

    pub(crate) fn with_client_capabilities(mut self, capabilities: Arc<Value>) -> Self {
        self.request_capabilities = Some(capabilities);
        self
    }

    pub(crate) fn with_notifier(mut self, notifier: Notifier) -> Self {
        self.notifier = Some(notifier);
        self
    }

    /// A call that runs in rounds, and the outbound that keeps its round (see
    /// [`Outbound::start_round`]); one is made if the transport gave none.
    pub(crate) fn in_rounds(mut self) -> (Self, Outbound) {
        self.in_rounds = true;
        let outbound = self
            .outbound
            .get_or_insert_with(Outbound::deferred_lines)
            .clone();
        (self, outbound)
    }

    /// The round of a call that runs in rounds, created when first needed: a first round
    /// that asks the client nothing never has one.
    fn input_round(&self) -> Option<&InputRound> {
        match (&self.outbound, self.in_rounds) {
            (Some(outbound), true) => Some(outbound.input_round_or_new()),
            _ => None,
        }
    }

    /// A stateless `tools/call`: `slot` when the client declared the tasks extension.
    pub(crate) fn with_task_slot(mut self, slot: Option<Arc<TaskSlot>>) -> Self {
        self.task_slot = slot;
        self.tasks_exist = true;
        self
    }

    pub(crate) fn with_client_request_timeout(mut self, timeout: Duration) -> Self {
        self.client_request_timeout_ms = u32::try_from(timeout.as_millis()).unwrap_or(u32::MAX);
        self
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

/// Where messages sent during a request go, and how the transport learns that the request
/// started streaming or was cancelled.
///
/// Nothing is allocated for a stream until the handler sends its first message: most requests
/// never do, and answer with plain JSON.
#[derive(Debug, Clone)]
pub(crate) struct Outbound(Arc<OutboundInner>);

#[derive(Debug)]
struct OutboundInner {
    route: Route,
    /// Signalled when the first message opens the stream.
    opened: Notify,
    /// Signalled by [`Outbound::cancel`].
    cancel: Notify,
    cancelled: AtomicBool,
    /// The multi round-trip state of a stateless call, once it has one: carried from an
    /// earlier round, or asked for by the handler.
    input: OnceLock<Box<InputRound>>,
}

#[derive(Debug)]
enum Route {
    /// A POST response that becomes an SSE stream of the session on its first message.
    Session {
        session: Arc<Session>,
        state: Mutex<SessionStream>,
        priming_retry_ms: Option<u64>,
        /// Answer on the stream even when nothing was sent before (`Config::sse_responses`).
        always_stream: bool,
    },
    /// Messages written in order to a line-oriented peer (stdio).
    Lines(mpsc::UnboundedSender<String>),
    /// A stateless POST: its messages queue on a channel created by the first one, which the
    /// transport takes to stream them.
    Deferred(Mutex<DeferredLines>),
}

#[derive(Debug)]
struct SessionStream {
    state: StreamState,
    /// The receiving end of the opened stream, until the transport takes it.
    receiver: Option<mpsc::Receiver<Delivery>>,
}

#[derive(Debug)]
enum StreamState {
    /// Nothing sent yet: the response may still be plain JSON.
    Unopened,
    /// The SSE stream with this id carries the request's messages.
    Open(u32),
    /// The result was sent; later messages are dropped.
    Finished,
}

#[derive(Debug, Default)]
struct DeferredLines {
    sender: Option<mpsc::UnboundedSender<String>>,
    receiver: Option<mpsc::UnboundedReceiver<String>>,
}

/// How a request's result leaves: as the JSON body, or on the stream already opened.
pub(crate) enum Completion {
    /// Nothing was streamed: answer with this JSON body.
    Json(String),
    /// Nothing was streamed, but SSE was asked for: answer with this whole stream.
    Sse(bytes::Bytes),
    /// It was pushed on the request's SSE stream, which has ended.
    Streamed,
}

impl Outbound {
    fn new(route: Route) -> Self {
        Self(Arc::new(OutboundInner {
            route,
            opened: Notify::new(),
            cancel: Notify::new(),
            cancelled: AtomicBool::new(false),
            input: OnceLock::new(),
        }))
    }

    /// A session POST whose messages go to an SSE stream of `session` once the first one is
    /// sent.
    pub(crate) fn session_stream(
        session: Arc<Session>,
        priming_retry_ms: Option<u64>,
        always_stream: bool,
    ) -> Self {
        Self::new(Route::Session {
            session,
            state: Mutex::new(SessionStream {
                state: StreamState::Unopened,
                receiver: None,
            }),
            priming_retry_ms,
            always_stream,
        })
    }

    /// A line-oriented peer.
    pub(crate) fn lines(sender: mpsc::UnboundedSender<String>) -> Self {
        Self::new(Route::Lines(sender))
    }

    /// A stateless POST: see [`Outbound::take_lines`].
    pub(crate) fn deferred_lines() -> Self {
        Self::new(Route::Deferred(Mutex::default()))
    }

    /// Resolves once the first message opened the stream (never for stdio).
    pub(crate) async fn opened(&self) {
        self.0.opened.notified().await;
    }

    /// The SSE stream a session request opened, once: the transport streams it as the
    /// response.
    pub(crate) fn take_stream(&self) -> Option<mpsc::Receiver<Delivery>> {
        match &self.0.route {
            Route::Session { state, .. } => lock(state).receiver.take(),
            _ => None,
        }
    }

    /// The messages a stateless request sent so far and will send, once.
    pub(crate) fn take_lines(&self) -> Option<mpsc::UnboundedReceiver<String>> {
        match &self.0.route {
            Route::Deferred(lines) => lock(lines).receiver.take(),
            _ => None,
        }
    }

    /// Asks the request to stop (`notifications/cancelled`, or its session closing).
    pub(crate) fn cancel(&self) {
        self.0.cancelled.store(true, Ordering::Release);
        self.0.cancel.notify_one();
    }

    /// Starts a round that carries answers or saved values from earlier rounds. A round that
    /// carries nothing is created only if the handler asks the client something.
    pub(crate) fn start_round(&self, round: InputRound) {
        let _ = self.0.input.set(Box::new(round));
    }

    /// The round, if the request has one.
    pub(crate) fn input_round(&self) -> Option<&InputRound> {
        self.0.input.get().map(|round| &**round)
    }

    fn input_round_or_new(&self) -> &InputRound {
        self.0.input.get_or_init(Box::default)
    }

    /// Resolves when [`Outbound::cancel`] was called.
    pub(crate) async fn cancelled(&self) {
        while !self.0.cancelled.load(Ordering::Acquire) {
            self.0.cancel.notified().await;
        }
    }

    /// Sends one JSON-RPC message; false when it cannot go anywhere.
    pub(crate) fn send(&self, json: String) -> bool {
        match &self.0.route {
            Route::Lines(sender) => sender.send(json).is_ok(),
            Route::Deferred(lines) => {
                let mut lines = lock(lines);
                if lines.sender.is_none() {
                    let (sender, receiver) = mpsc::unbounded_channel();
                    lines.sender = Some(sender);
                    lines.receiver = Some(receiver);
                    self.0.opened.notify_one();
                }
                lines.sender.as_ref().is_some_and(|s| s.send(json).is_ok())
            }
            Route::Session {
                session,
                state,
                priming_retry_ms,
                ..
            } => {
                let mut state = lock(state);
                let mut streams = session.streams();
                match self.open(&mut state, &mut streams, *priming_retry_ms) {
                    Some(stream) => {
                        streams.push(stream, json.as_bytes());
                        true
                    }
                    None => false,
                }
            }
        }
    }

    /// Delivers the response: on the open stream (then ends it) or as the JSON body.
    pub(crate) fn complete(&self, response: String) -> Completion {
        match &self.0.route {
            Route::Lines(_) | Route::Deferred(_) => Completion::Json(response),
            Route::Session {
                session,
                state,
                priming_retry_ms,
                always_stream,
            } => {
                let mut state = lock(state);
                let stream = match std::mem::replace(&mut state.state, StreamState::Finished) {
                    StreamState::Open(stream) => stream,
                    // Opened and ended at once: no connection to route to, one write.
                    StreamState::Unopened if *always_stream => {
                        let body = session
                            .streams()
                            .whole_stream(*priming_retry_ms, response.as_bytes());
                        return Completion::Sse(body);
                    }
                    _ => return Completion::Json(response),
                };
                let mut streams = session.streams();
                streams.push(stream, response.as_bytes());
                streams.end(stream);
                Completion::Streamed
            }
        }
    }

    /// Ends the SSE stream of a request that will not answer (cancelled).
    pub(crate) fn abandon(&self) {
        if let Route::Session { session, state, .. } = &self.0.route {
            let mut state = lock(state);
            if let StreamState::Open(stream) =
                std::mem::replace(&mut state.state, StreamState::Finished)
            {
                session.streams().end(stream);
            }
        }
    }

    /// Ends the connection but not the stream (opening it first, so the client gets the
    /// priming event to resume from).
    fn detach(&self) {
        if let Route::Session {
            session,
            state,
            priming_retry_ms,
            ..
        } = &self.0.route
        {
            let mut state = lock(state);
            let mut streams = session.streams();
            if let Some(stream) = self.open(&mut state, &mut streams, *priming_retry_ms) {
                streams.detach(stream);
            }
        }
    }

    /// The id of the request's stream, opening it (with its priming event) on first use;
    /// `None` once the request has finished.
    fn open(
        &self,
        slot: &mut SessionStream,
        streams: &mut Streams,
        priming_retry_ms: Option<u64>,
    ) -> Option<u32> {
        match slot.state {
            StreamState::Finished => None,
            StreamState::Open(stream) => Some(stream),
            StreamState::Unopened => {
                let (connection, receiver) = mpsc::channel(CONNECTION_QUEUE);
                let stream = streams.open_request_stream(connection);
                if let Some(retry) = priming_retry_ms {
                    streams.prime(stream, retry);
                }
                slot.state = StreamState::Open(stream);
                slot.receiver = Some(receiver);
                self.0.opened.notify_one();
                Some(stream)
            }
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|p| p.into_inner())
}
