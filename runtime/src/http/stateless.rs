//! The stateless 2026-07-28 path of the MCP endpoint: every request stands alone, carrying its
//! version and client capabilities in `params._meta` and routing headers that must match.
//!
//! Served: `server/discover`, the lists, `tools/call`, `prompts/get` and `resources/read` (with
//! multi round-trip requests, see `crate::mrtr`), `completion/complete`,
//! `subscriptions/listen`, progress and log notifications on an SSE response, and the
//! validation errors of the specification in their order (including `Mcp-Param-*` headers).

use bytes::Bytes;
use http::StatusCode;
use serde::Deserialize;
use serde_json::json;
use serde_json::value::RawValue;
use tokio::sync::{mpsc, oneshot};

use super::headers::Headers;
use super::{json_response, rpc_error, sse_response, Body};
use crate::context::{Outbound, RequestContext};
use crate::dispatch::Dispatch;
use crate::events::{encode_frame, Delivery, CONNECTION_QUEUE};
use crate::json::JsonText;
use crate::jsonrpc::{error_response, success_response, RpcError, INVALID_PARAMS};
use crate::mcp::level_rank;
use crate::notifier::SubscriptionFilter;
use crate::params::{self, CallMembers, RequestMeta, RequestParams};
use crate::protocol::ProtocolVersion;
use crate::server::McpServer;
use crate::tasks::{self, TaskSlot};
use serde_json::Value;
use std::sync::{Arc, LazyLock};

/// `_meta` key of the request's protocol version.
pub const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// `_meta` key of the client's capabilities.
pub const META_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// `_meta` key of the minimum log level the client wants on this request.
pub const META_LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
/// `_meta` key of the server identity in `server/discover`.
pub const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

pub use crate::jsonrpc::{HEADER_MISMATCH, MISSING_CAPABILITY, UNSUPPORTED_VERSION};

/// Whether a POST belongs to the stateless path: no session id, and either `params._meta` or
/// an `MCP-Protocol-Version` header that does not name a session-era version.
pub(crate) fn is_stateless(headers: &Headers<'_>, params: Option<&RawValue>) -> bool {
    if headers.session_id.is_some() {
        return false;
    }
    // A header naming anything but a session-era revision decides alone, without reading
    // the params.
    if headers.protocol_version.is_some_and(|v| !is_session_era(v)) {
        return true;
    }
    // Otherwise `params._meta` makes it stateless (the substring test skips the parse for
    // session-era traffic).
    #[derive(Deserialize)]
    struct MetaProbe<'a> {
        #[serde(rename = "_meta", borrow, default)]
        meta: Option<&'a RawValue>,
    }
    params
        .filter(|p| p.get().contains("\"_meta\""))
        .and_then(|p| serde_json::from_str::<MetaProbe<'_>>(p.get()).ok())
        .is_some_and(|p| p.meta.is_some_and(|meta| meta.get() != "null"))
}

/// A 2026-07-28 call (`tools/call`, `prompts/get`, `resources/read`) read in one pass: the
/// envelope and the members of its params.
pub(crate) struct CallRequest<'a> {
    pub id: &'a RawValue,
    pub method: &'a str,
    pub fields: RequestParams<'a>,
}

/// Reads a stateless call in one pass when the routing headers announce one; `None` sends the
/// request down the general path (envelope first, params after), which also gives every
/// error its exact code. A stateless request names its method in `Mcp-Method`, so the params
/// can be read as the call's members while the envelope is parsed, instead of being skipped
/// as raw text and parsed again.
pub(crate) fn read_call<'a>(headers: &Headers<'_>, text: &'a str) -> Option<CallRequest<'a>> {
    #[derive(Deserialize)]
    struct Envelope<'a> {
        #[serde(borrow)]
        jsonrpc: &'a str,
        #[serde(borrow, default)]
        id: Option<&'a RawValue>,
        #[serde(borrow)]
        method: &'a str,
        #[serde(borrow, default)]
        params: Option<RequestParams<'a>>,
    }
    let announced = headers.session_id.is_none()
        && headers.protocol_version.is_some_and(|v| !is_session_era(v))
        && headers.mcp_method.is_some_and(params::is_call);
    if !announced {
        return None;
    }
    let envelope: Envelope<'a> = serde_json::from_str(text).ok()?;
    if envelope.jsonrpc != "2.0" {
        return None;
    }
    Some(CallRequest {
        id: envelope.id?,
        method: envelope.method,
        fields: envelope.params.unwrap_or_default(),
    })
}

/// The revisions whose requests belong to a session.
fn is_session_era(version: &str) -> bool {
    matches!(
        version,
        "2024-11-05" | "2025-03-26" | "2025-06-18" | "2025-11-25"
    )
}

/// Methods 2026-07-28 removed.
const REMOVED: [&str; 5] = [
    "initialize",
    "ping",
    "logging/setLevel",
    "resources/subscribe",
    "resources/unsubscribe",
];

/// Methods the stateless path serves.
const SERVED: [&str; 13] = [
    "server/discover",
    "tools/list",
    "tools/call",
    "prompts/list",
    "prompts/get",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "completion/complete",
    "subscriptions/listen",
    "tasks/get",
    "tasks/update",
    "tasks/cancel",
];

/// The SSE comment sent on a quiet listen stream, so proxies do not time it out.
const KEEP_ALIVE: &[u8] = b": keep-alive\n\n";

/// Step 1 of the validation, on every transport: `_meta` carries the version and the client
/// capabilities (`-32602` otherwise).
pub(crate) fn checked_meta(meta: Option<RequestMeta<'_>>) -> Result<RequestMeta<'_>, RpcError> {
    match meta {
        Some(meta) if meta.protocol_version.is_some() && meta.client_capabilities.is_some() => {
            Ok(meta)
        }
        _ => Err(incomplete_meta()),
    }
}

#[cold]
fn incomplete_meta() -> RpcError {
    RpcError::new(
        INVALID_PARAMS,
        format!(
            "Invalid params: params._meta must carry {META_PROTOCOL_VERSION} and {META_CLIENT_CAPABILITIES}"
        ),
    )
}

/// Step 3: the version is one this server speaks statelessly (`-32022` naming the supported
/// ones otherwise).
pub(crate) fn checked_version(requested: &str) -> Result<ProtocolVersion, RpcError> {
    ProtocolVersion::parse(requested)
        .filter(|v| v.is_stateless())
        .ok_or_else(|| unsupported_version(requested))
}

#[cold]
fn unsupported_version(requested: &str) -> RpcError {
    let supported: Vec<&str> = ProtocolVersion::ALL
        .iter()
        .filter(|v| v.is_stateless())
        .map(|v| v.as_str())
        .collect();
    RpcError::new(
        UNSUPPORTED_VERSION,
        format!("Unsupported protocol version: {requested}"),
    )
    .with_data(json!({"supported": supported, "requested": requested}))
}

/// Step 4: the method exists in this revision (`-32601` otherwise).
pub(crate) fn checked_method(method: &str) -> Result<(), RpcError> {
    if REMOVED.contains(&method) || !SERVED.contains(&method) {
        return Err(RpcError::method_not_found(method));
    }
    Ok(())
}

/// The handler context of a validated stateless request.
pub(crate) fn request_context(
    notifier: &crate::Notifier,
    version: ProtocolVersion,
    meta: &RequestMeta<'_>,
) -> RequestContext {
    RequestContext::new(version)
        .with_progress_token(meta.progress_token)
        .with_log_level(meta.log_level.map(level_rank))
        .with_client_capabilities(capabilities_of(meta.client_capabilities))
        .with_notifier(notifier.clone())
}

/// The declared client capabilities; the common `{}` is shared, not parsed.
fn capabilities_of(raw: Option<&RawValue>) -> Arc<Value> {
    static NONE_DECLARED: LazyLock<Arc<Value>> = LazyLock::new(|| Arc::new(json!({})));
    match raw.map(|raw| raw.get().trim_ascii()) {
        Some("{}") => NONE_DECLARED.clone(),
        raw => Arc::new(
            raw.and_then(|raw| serde_json::from_str(raw).ok())
                .unwrap_or_default(),
        ),
    }
}

#[cold]
fn invalid(id: &RawValue, status: StatusCode, error: RpcError) -> super::Response<Body> {
    rpc_error(status, error, Some(id))
}

/// The `-32001` answer to routing headers that do not match the body.
#[cold]
fn header_mismatch(id: &RawValue, what: &str) -> Next {
    invalid(
        id,
        StatusCode::BAD_REQUEST,
        RpcError::new(HEADER_MISMATCH, format!("Header mismatch: {what}")),
    )
    .into()
}

/// What a validated stateless request leads to: an answer already, or a handler to run.
pub(crate) enum Next {
    /// Boxed: refusals are rare, and a response is three times the size of a started call.
    Respond(Box<super::Response<Body>>),
    Run(StartedCall),
}

impl From<super::Response<Body>> for Next {
    fn from(response: super::Response<Body>) -> Self {
        Next::Respond(Box::new(response))
    }
}

impl<D: Dispatch> McpServer<D> {
    /// Validates one stateless request in the order the specification gives. Validation is
    /// synchronous: only the handler (already boxed in the [`StartedCall`]) is awaited, so
    /// the request's parsed members never become part of the connection's future.
    pub(super) fn stateless(
        &self,
        headers: &Headers<'_>,
        id: &RawValue,
        method: &str,
        params: Option<&RawValue>,
    ) -> Next {
        match RequestParams::parse(params) {
            Ok(fields) => self.validated(headers, id, method, params, fields),
            Err(error) => invalid(id, StatusCode::BAD_REQUEST, error).into(),
        }
    }

    /// [`McpServer::stateless`] for a call read by [`read_call`]: its raw params are never
    /// read, its handler gets the members.
    pub(super) fn stateless_call_request(
        &self,
        headers: &Headers<'_>,
        call: CallRequest<'_>,
    ) -> Next {
        self.validated(headers, call.id, call.method, None, call.fields)
    }

    /// Validates a stateless request whose params were read into `fields` (`params` is the
    /// raw text for the methods that read more than those members), then starts it.
    fn validated(
        &self,
        headers: &Headers<'_>,
        id: &RawValue,
        method: &str,
        params: Option<&RawValue>,
        mut fields: RequestParams<'_>,
    ) -> Next {
        // 1. `_meta` must carry the version and the client capabilities.
        let meta = match checked_meta(fields.meta.take()) {
            Ok(meta) => meta,
            Err(error) => return invalid(id, StatusCode::BAD_REQUEST, error).into(),
        };
        let body_version = meta.protocol_version.unwrap_or_default();
        // 2. Routing headers must match the body.
        let mismatch = |what: &str| header_mismatch(id, what);
        match headers.protocol_version {
            Some(v) if v == body_version => {}
            Some(v) => {
                return mismatch(&format!(
                "MCP-Protocol-Version {v:?} differs from _meta protocolVersion {body_version:?}"
            ))
            }
            None => return mismatch("the MCP-Protocol-Version header is missing"),
        }
        match headers.mcp_method {
            Some(m) if m == method => {}
            Some(m) => {
                return mismatch(&format!(
                    "Mcp-Method {m:?} differs from the body's method {method:?}"
                ))
            }
            None => return mismatch("the Mcp-Method header is missing"),
        }
        let routed_name = match method {
            "tools/call" | "prompts/get" => fields.name.as_deref(),
            "resources/read" => fields.uri.as_deref(),
            "tasks/get" | "tasks/update" | "tasks/cancel" => fields.task_id.as_deref(),
            _ => None,
        };
        if let Some(name) = routed_name {
            let plain_or_decoded = |value: &str| match value {
                plain if !plain.starts_with("=?") => plain == name,
                encoded => decode_header_value(encoded).as_deref() == Some(name),
            };
            match headers.mcp_name.map(plain_or_decoded) {
                Some(true) => {}
                Some(_) => return mismatch(&format!("Mcp-Name differs from the body's {name:?}")),
                None => return mismatch("the Mcp-Name header is missing"),
            }
        }
        if let (true, Some(tool)) = (method == "tools/call", routed_name) {
            if self.core.param_headers.has(tool) {
                let arguments = fields
                    .arguments
                    .and_then(|a| serde_json::from_str::<serde_json::Value>(a.get()).ok());
                if let Err(what) =
                    self.core
                        .param_headers
                        .check(tool, headers.map, arguments.as_ref())
                {
                    return mismatch(&what);
                }
            }
        }
        // 3. The version must be one this server speaks statelessly.
        let version = match checked_version(body_version) {
            Ok(version) => version,
            Err(error) => return invalid(id, StatusCode::BAD_REQUEST, error).into(),
        };
        // 4. The method must exist in this revision.
        if let Err(error) = checked_method(method) {
            return invalid(id, StatusCode::NOT_FOUND, error).into();
        }
        if method == "subscriptions/listen" {
            return self.listen(id, params).into();
        }
        let ctx = request_context(&self.core.notifier, version, &meta);
        Next::Run(self.start_call(id, method, params, fields.call_members(), ctx))
    }

    /// `subscriptions/listen`: an SSE stream that stays open. It starts with
    /// `notifications/subscriptions/acknowledged` naming the honoured filter, then carries the
    /// notifications the filter asked for, each tagged with the subscription id (the listen
    /// request's id), and a keep-alive comment whenever it has been quiet for
    /// `Config::sse_keep_alive`. It ends when the client disconnects.
    fn listen(&self, id: &RawValue, params: Option<&RawValue>) -> super::Response<Body> {
        let (ack, mut subscription) = match self.subscribe(id, params) {
            Ok(opened) => opened,
            Err(error) => return invalid(id, StatusCode::BAD_REQUEST, error),
        };
        let keep_alive = self.core.config.sse_keep_alive;
        let (frames, rx) = mpsc::channel::<Delivery>(CONNECTION_QUEUE);
        tokio::spawn(async move {
            let mut sequence = 0u64;
            let mut frame = |json: &str| {
                sequence += 1;
                Delivery::Frame(encode_frame(&sequence.to_string(), json.as_bytes()))
            };
            if frames.send(frame(&ack)).await.is_err() {
                return;
            }
            let mut quiet =
                tokio::time::interval_at(tokio::time::Instant::now() + keep_alive, keep_alive);
            loop {
                let delivery = tokio::select! {
                    message = subscription.messages.recv() => match message {
                        Some(message) => frame(&message),
                        None => break,
                    },
                    _ = quiet.tick() => Delivery::Frame(Bytes::from_static(KEEP_ALIVE)),
                    () = frames.closed() => break,
                };
                if frames.send(delivery).await.is_err() {
                    break;
                }
                quiet.reset();
            }
            // Dropping `subscription` unregisters the stream.
        });
        sse_response(None::<Bytes>, rx)
    }

    /// Registers a `subscriptions/listen` stream (any transport): the acknowledgement message
    /// and the subscription its notifications arrive on. Only what this server can ever send
    /// is honoured, and echoed in the acknowledgement.
    pub(crate) fn subscribe(
        &self,
        id: &RawValue,
        params: Option<&RawValue>,
    ) -> Result<(String, crate::notifier::Subscription), RpcError> {
        #[derive(Deserialize)]
        struct ListenParams {
            notifications: SubscriptionFilter,
        }
        let requested = serde_json::from_str::<ListenParams>(params.map_or("{}", |p| p.get()))
            .map_err(|e| RpcError::invalid_params(format!("Invalid params: {e}")))?
            .notifications;
        let catalog = self.core.dispatch.catalog();
        let has_resources = !catalog.resources.is_empty() || !catalog.resource_templates.is_empty();
        let honoured = SubscriptionFilter {
            tools_list_changed: requested.tools_list_changed && !catalog.tools.is_empty(),
            prompts_list_changed: requested.prompts_list_changed && !catalog.prompts.is_empty(),
            resources_list_changed: requested.resources_list_changed && has_resources,
            resource_subscriptions: if has_resources {
                requested.resource_subscriptions
            } else {
                Vec::new()
            },
        };
        let ack = format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{{"_meta":{{"io.modelcontextprotocol/subscriptionId":{}}},"notifications":{}}}}}"#,
            id.get(),
            serde_json::to_string(&honoured).expect("a filter serializes")
        );
        Ok((ack, self.core.notifier.listen(id.to_owned(), honoured)))
    }

    /// Starts the request: its handler, boxed with everything it reads, ready to be awaited
    /// by [`StartedCall::answer`].
    fn start_call(
        &self,
        id: &RawValue,
        method: &str,
        params: Option<&RawValue>,
        call: CallMembers,
        ctx: RequestContext,
    ) -> StartedCall {
        let outbound = Outbound::deferred_lines();
        let mut ctx = ctx.with_outbound(outbound.clone());
        // A tool call may continue as a task: then whoever comes first answers, the handler's
        // outcome or the `CreateTaskResult` (and the outcome goes to the task).
        let mut slot = None;
        let mut replied = None;
        if method == "tools/call" {
            if tasks::declared(ctx.client_capabilities()) {
                let (reply, replied_rx) = oneshot::channel();
                slot = Some(Arc::new(TaskSlot::new(
                    self.core.tasks.clone(),
                    id.to_owned(),
                    reply,
                )));
                replied = Some(replied_rx);
            }
            ctx = ctx.with_task_slot(slot.clone());
        }
        let core = self.core.clone();
        let owned_id = id.to_owned();
        let owned_method = params::owned_method(method);
        // The call methods keep only the members they read.
        let owned_params = params
            .filter(|_| !params::is_call(method))
            .map(RawValue::to_owned);
        let work = Box::pin(async move {
            let call = call.params();
            // Boxed on its own: together with the rest of `work` it would pass the size the
            // allocator's per-thread cache serves (1,032 bytes in glibc), and every call
            // would take malloc's slow path.
            let handled =
                Box::pin(core.handle_stateless(&owned_method, owned_params.as_deref(), &call, ctx));
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
            let answer = |outcome: &Result<JsonText, RpcError>| match outcome {
                Ok(result) => (StatusCode::OK, success_response(&owned_id, result.get())),
                // A missing client capability is an HTTP error too, so that clients and
                // intermediaries see it without reading the body.
                Err(error) if error.code == MISSING_CAPABILITY => (
                    StatusCode::BAD_REQUEST,
                    error_response(Some(&owned_id), error),
                ),
                Err(error) => (StatusCode::OK, error_response(Some(&owned_id), error)),
            };
            match (slot, outcome) {
                (Some(slot), outcome) => {
                    slot.finish(outcome, answer);
                    None
                }
                // The usual answer reuses the result's buffer.
                (None, Ok(result)) => {
                    Some((StatusCode::OK, result.into_success_response(&owned_id)))
                }
                (None, outcome) => Some(answer(&outcome)),
            }
        });
        StartedCall {
            work,
            outbound,
            replied,
        }
    }
}

/// A stateless request whose handler is ready: boxed with everything it reads, so that
/// awaiting it holds only these few pointers in the connection's future.
pub(crate) struct StartedCall {
    /// Resolves to the answer, or to `None` when the task slot took it.
    work: crate::BoxFuture<'static, Option<(StatusCode, String)>>,
    outbound: Outbound,
    /// The task slot's answer (`CreateTaskResult`), when the call may become a task.
    replied: Option<oneshot::Receiver<(StatusCode, String)>>,
}

impl Next {
    /// The response: the one validation gave, or the handler's answer.
    pub(crate) async fn respond(self) -> super::Response<Body> {
        match self {
            Next::Respond(response) => *response,
            Next::Run(call) => call.answer().await,
        }
    }
}

impl StartedCall {
    /// Runs the handler; answers JSON, or SSE when the handler sends notifications first.
    ///
    /// The handler runs inline in this connection's task, so a plain call costs no spawn, no
    /// channel and no cross-task wake-up. Only when it streams, or continues as a task, is the
    /// rest of it handed to its own tokio task.
    async fn answer(self) -> super::Response<Body> {
        let StartedCall {
            mut work,
            outbound,
            mut replied,
        } = self;
        let reply_now = |answer: Option<(StatusCode, String)>| {
            let Some((status, json)) = answer else {
                return super::status_only(StatusCode::ACCEPTED);
            };
            // Notifications sent just before the answer still go first, on SSE.
            match outbound.take_lines() {
                Some(mut lines) => match lines.try_recv() {
                    Ok(line) => stream(line, lines, Answer::Ready(json), None),
                    Err(_) => json_response(status, json),
                },
                None => json_response(status, json),
            }
        };
        enum First {
            Answered(Option<(StatusCode, String)>),
            BecameTask((StatusCode, String)),
            Streaming,
        }
        let first = {
            let task_reply = async {
                match replied.as_mut() {
                    Some(replied) => match replied.await {
                        Ok(answer) => answer,
                        // The slot is gone only once the work has finished: the first branch.
                        Err(_) => std::future::pending().await,
                    },
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                biased;
                answer = &mut work => First::Answered(answer),
                answer = task_reply => First::BecameTask(answer),
                () = outbound.opened() => First::Streaming,
            }
        };
        match first {
            First::Answered(answer) => {
                let answer = answer.or_else(|| replied.as_mut()?.try_recv().ok());
                return reply_now(answer);
            }
            First::BecameTask(answer) => {
                // The handler goes on in the background.
                tokio::spawn(work);
                return reply_now(Some(answer));
            }
            First::Streaming => {}
        }
        // The handler streams: from now on its answer arrives through `done`.
        let done = match replied {
            Some(replied) => replied,
            None => {
                let (done_tx, done) = oneshot::channel();
                let inner = work;
                work = Box::pin(async move {
                    if let Some(answer) = inner.await {
                        let _ = done_tx.send(answer);
                    }
                    None
                });
                done
            }
        };
        let Some(mut lines) = outbound.take_lines() else {
            // Not reached: `opened` fires once the first line is queued. Answer plainly.
            tokio::spawn(work);
            return match done.await {
                Ok((status, json)) => json_response(status, json),
                Err(_) => super::status_only(StatusCode::ACCEPTED),
            };
        };
        drop(outbound);
        let first = lines.try_recv().unwrap_or_default();
        let abort = tokio::spawn(work).abort_handle();
        stream(first, lines, Answer::Pending(done), Some(abort))
    }
}

/// The answer of a streamed request: already there, or still to come from the handler.
enum Answer {
    Ready(String),
    Pending(oneshot::Receiver<(StatusCode, String)>),
}

/// An SSE response: `first`, every later notification, then the answer. Dropping the
/// response (the client closed the stream) aborts the handler: on this revision that is the
/// cancellation.
fn stream(
    first: String,
    mut lines: mpsc::UnboundedReceiver<String>,
    answer: Answer,
    abort: Option<tokio::task::AbortHandle>,
) -> super::Response<Body> {
    let (frames, rx) = mpsc::channel::<Delivery>(CONNECTION_QUEUE);
    let stop = move || {
        if let Some(abort) = &abort {
            abort.abort();
        }
    };
    tokio::spawn(async move {
        let mut sequence = 0u64;
        let mut frame = |json: &str| {
            sequence += 1;
            Delivery::Frame(encode_frame(&sequence.to_string(), json.as_bytes()))
        };
        if frames.send(frame(&first)).await.is_err() {
            stop();
            return;
        }
        let answer = match answer {
            Answer::Ready(json) => json,
            Answer::Pending(mut done) => loop {
                tokio::select! {
                    line = lines.recv() => match line {
                        Some(line) => if frames.send(frame(&line)).await.is_err() { stop(); return; },
                        None => match (&mut done).await { Ok((_, json)) => break json, Err(_) => return },
                    },
                    answered = &mut done => match answered {
                        Ok((_, json)) => break json,
                        Err(_) => return,
                    },
                    () = frames.closed() => { stop(); return; }
                }
            },
        };
        // Notifications sent just before the answer go first.
        while let Ok(line) = lines.try_recv() {
            let _ = frames.send(frame(&line)).await;
        }
        let _ = frames.send(frame(&answer)).await;
        let _ = frames.send(Delivery::End).await;
    });
    sse_response(None::<Bytes>, rx)
}

/// Decodes a header value that may use the `=?base64?...?=` form (strictly), trimming
/// surrounding whitespace; `None` when the encoded form is malformed.
pub fn decode_header_value(value: &str) -> Option<String> {
    super::param_headers::decode(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use http::HeaderMap;

    fn stateless_headers(method: &'static str) -> HeaderMap {
        let mut map = HeaderMap::new();
        map.insert("mcp-protocol-version", header("2026-07-28"));
        map.insert("mcp-method", header(method));
        map
    }

    fn header(value: &'static str) -> http::HeaderValue {
        http::HeaderValue::from_static(value)
    }

    #[test]
    fn a_call_announced_by_its_headers_is_read_in_one_pass() {
        let map = stateless_headers("tools/call");
        let text = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#;
        let call = read_call(&Headers::scan(&map), text).expect("read in one pass");
        assert_eq!((call.id.get(), call.method), ("7", "tools/call"));
        assert_eq!(call.fields.name.as_deref(), Some("echo"));
        assert_eq!(call.fields.arguments.unwrap().get(), r#"{"text":"hi"}"#);
        let meta = call.fields.meta.unwrap();
        assert_eq!(meta.protocol_version, Some("2026-07-28"));
        // The body's method is read as it is: a mismatch with the header is found later.
        let other = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}"#;
        assert_eq!(
            read_call(&Headers::scan(&map), other).unwrap().method,
            "tools/list"
        );
    }

    #[test]
    fn anything_unusual_goes_down_the_general_path() {
        let call = stateless_headers("tools/call");
        let scan = Headers::scan(&call);
        for text in [
            // Errors, which the general path reports with their exact codes.
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":5}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":"echo"}"#,
            r#"{"jsonrpc":"1.0","id":1,"method":"tools/call"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}"#,
            r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"tools/call"}"#,
            // A notification, and a request whose id is null.
            r#"{"jsonrpc":"2.0","method":"tools/call"}"#,
            r#"{"jsonrpc":"2.0","id":null,"method":"tools/call"}"#,
        ] {
            assert!(read_call(&scan, text).is_none(), "{text}");
        }
        let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
        for map in [stateless_headers("tools/list"), HeaderMap::new()] {
            assert!(read_call(&Headers::scan(&map), body).is_none());
        }
        let mut session = stateless_headers("tools/call");
        session.insert("mcp-protocol-version", header("2025-11-25"));
        assert!(read_call(&Headers::scan(&session), body).is_none());
    }

    #[test]
    fn base64_header_values() {
        assert_eq!(
            decode_header_value("=?base64?SGVsbG8sIOS4lueVjA==?=").as_deref(),
            Some("Hello, 世界")
        );
        assert_eq!(
            decode_header_value("=?base64?IHBhZGRlZCA=?=").as_deref(),
            Some(" padded ")
        );
        assert_eq!(decode_header_value("plain").as_deref(), Some("plain"));
        assert_eq!(decode_header_value("=?base64?!!?="), None);
        assert_eq!(decode_header_value("=?base64?SGVsbG8?="), None);
    }
}
