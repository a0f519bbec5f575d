//! The engine: one method table for both eras, behind every transport.
//!
//! A transport reads each message once into an [`Incoming`](incoming::Incoming), decides the
//! request's [`Era`] at its edge, and hands the request to [`Engine::start`] (see [`run`]).
//! The engine checks what the era requires, answers the MCP methods itself and routes calls
//! through the generated [`Dispatch`] to the user's handler. It knows nothing of HTTP status
//! codes or stdout lines: it produces [`Reply`](crate::delivery::outbound::Reply) values, which the
//! transports frame.

mod access;
pub(crate) mod batch;
mod calls;
pub(crate) mod era;
mod expiry;
pub(crate) mod fixed_name;
pub(crate) mod incoming;
pub(crate) mod limits;
pub(crate) mod method;
pub(crate) mod param_headers;
pub(crate) mod params;
mod results;
pub(crate) mod run;
pub(crate) mod sessions;
pub(crate) mod stateless;

pub(crate) use era::Era;
pub(crate) use sessions::{answer_text, unavailable, Sessions};
use sessions::{session_bus_event, session_method};

use serde::Deserialize;
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::sync::Arc;

use crate::auth::Principal;
use crate::bus::Bus;
use crate::bus::BusEvent;
use crate::config::Config;
use crate::context::RequestContext;
use crate::delivery::notifier::Notifier;
use crate::dispatch::{CallKind, Dispatch};
use crate::json::JsonText;
use crate::jsonrpc::{self, RpcError};
use crate::protocol::ProtocolVersion;
use crate::request_state::StateSealer;
use crate::session::{Session, SessionChange, SessionLimits};
use crate::skills;
use crate::stores::Stores;
use crate::tasks::{self, Tasks};
use crate::telemetry::{TraceHeaders, Transport};
use incoming::Params;
use method::Method;
use param_headers::ParamHeaders;
use params::{CallMembers, RequestParams};

/// A request's params kept past its bytes, as the method table reads them: a call's members
/// (with `_meta` already consumed), or the raw text the other methods decode themselves.
pub(crate) enum OwnedParams {
    Members(CallMembers),
    Raw(Option<Box<RawValue>>),
}

impl OwnedParams {
    /// Keeps what `method` reads of `params`: a call's members (`-32602` when they do not
    /// fit), or a copy of the raw text.
    pub(crate) fn keep(method: Method, params: Params<'_>) -> Result<Self, RpcError> {
        Ok(match params {
            Params::Members(members) => OwnedParams::Members(members.call_members()),
            Params::Raw(raw) if method.is_call() => {
                OwnedParams::Members(RequestParams::parse(raw)?.call_members())
            }
            Params::Raw(raw) => OwnedParams::Raw(raw.map(RawValue::to_owned)),
        })
    }

    /// What the request names: the tool's or prompt's name, or the resource's URI (telemetry,
    /// feature `trace`).
    #[cfg(feature = "trace")]
    pub(crate) fn routed_name(&self) -> Option<&str> {
        match self {
            OwnedParams::Members(members) => members.name().or_else(|_| members.uri()).ok(),
            OwnedParams::Raw(_) => None,
        }
    }

    fn raw(&self) -> Option<&RawValue> {
        match self {
            OwnedParams::Raw(raw) => raw.as_deref(),
            OwnedParams::Members(_) => None,
        }
    }

    fn members(&self) -> Result<&CallMembers, RpcError> {
        match self {
            OwnedParams::Members(members) => Ok(members),
            OwnedParams::Raw(_) => Err(RpcError::invalid_params("Invalid params")),
        }
    }
}

/// Everything a server shares between its requests: the generated dispatch, the
/// configuration, the stores and the results that never change. Its fields are its own: the
/// rest of the runtime reads them through the accessors of `access.rs`, or asks the engine.
///
/// Its jobs are owned parts, each a type a reader can open: the sessions and their lifecycle
/// ([`Sessions`]), the tasks ([`Tasks`]), the rate limits (`rate_limit::Limiter`), result
/// budgets (`result_budget::Budgets`), the fixed results (`results::Fixed`), the
/// `requestState` sealer (`StateSealer`), what reaches the clients (`Notifier`,
/// `delivery::relay::Relays`, `delivery::legacy_streams::Connections`).
pub(crate) struct Engine<D> {
    dispatch: D,
    config: Config,
    /// The sessions and their lifecycle (`sessions.rs`).
    sessions: Sessions,
    /// Carries what the other instances must hear (answers and cancellations meant for a
    /// request another instance runs).
    bus: Arc<dyn Bus>,
    notifier: Notifier,
    sealer: StateSealer,
    /// The tool arguments mirrored in `Mcp-Param-*` headers (read from the catalog).
    param_headers: ParamHeaders,
    /// Tool calls that became tasks.
    tasks: Arc<Tasks>,
    /// The results that never change, each built on first use (`results.rs`).
    fixed: results::Fixed,
    /// Whether the expiry sweep runs (`expiry.rs`).
    expiry_started: std::sync::atomic::AtomicBool,
    /// The open streams of the opt-in 2024-11-05 HTTP+SSE transport
    /// (`config.endpoints.legacy_sse`): kept here, reached through the engine every request already
    /// holds, so the option costs `/mcp` requests nothing (empty when off).
    legacy_sse: Arc<crate::delivery::legacy_streams::Connections>,
    /// Where the other instances' events arrive (the bus holds it weakly: it lives as long as
    /// the engine).
    _bus_delivery: Arc<dyn Fn(BusEvent) + Send + Sync>,
    /// The log of broadcasts shared by the instances, if any: resumptions of a standalone
    /// stream read it.
    event_log: Option<Arc<dyn crate::delivery::event_log::EventLog>>,
    /// The streams of shared sessions this instance asked another to relay.
    relays: Arc<crate::delivery::relay::Relays>,
    /// Where the log's entries arrive (held weakly by the log).
    _log_delivery: Option<Arc<dyn Fn(crate::delivery::event_log::Logged) + Send + Sync>>,
    /// The DPoP proofs every instance has seen, when instances share them.
    proofs: Option<Arc<dyn crate::auth::SharedProofs>>,
    /// The rate limits' buckets, when the configuration or the contract sets a limit
    /// (`crate::rate_limit`); `None`: nothing is checked.
    limiter: Option<crate::rate_limit::Limiter>,
    /// Tool results over their budget: which are, where they are kept.
    budgets: crate::result_budget::Budgets,
}

impl<D: Dispatch> Engine<D> {
    pub(crate) fn new(dispatch: D, mut config: Config, stores: Stores) -> Self {
        access::publish_scopes(&mut config, &dispatch);
        let sealer = access::sealer(&config);
        let tasks = Arc::new(Tasks::new(
            stores.tasks,
            stores.bus.clone(),
            config.tasks.task_ttl,
            config.tasks.task_poll_interval,
        ));
        let notifier = Notifier::new(
            stores.sessions.clone(),
            stores.bus.clone(),
            stores.events.clone(),
        );
        let log_delivery = stores.events.as_ref().map(|log| {
            let notifier = notifier.clone();
            let deliver: Arc<dyn Fn(crate::delivery::event_log::Logged) + Send + Sync> =
                Arc::new(move |logged| notifier.on_logged(&logged));
            log.subscribe(Arc::downgrade(&deliver));
            deliver
        });
        let relays = Arc::new(crate::delivery::relay::Relays::default());
        let bus_delivery: Arc<dyn Fn(BusEvent) + Send + Sync> = {
            let (tasks, notifier, relays) = (tasks.clone(), notifier.clone(), relays.clone());
            let (store, shared) = (stores.sessions.clone(), stores.shared_sessions.clone());
            let bus = stores.bus.clone();
            Arc::new(move |event: BusEvent| {
                tasks.on_bus_event(&event);
                notifier.on_bus_event(&event);
                if let Some(shared) = &shared {
                    shared.on_bus_event(&event);
                    session_bus_event(&*store, &event);
                    crate::delivery::relay::on_bus_event(&*store, &bus, &relays, &event);
                }
            })
        };
        stores.bus.subscribe(Arc::downgrade(&bus_delivery));
        let endpoints = &config.endpoints;
        if endpoints.jsonrpc_path.is_some() && endpoints.jsonrpc_unexposed {
            let count = crate::policy::unexposed_methods(dispatch.contract());
            tracing::warn!(
                methods = count,
                "--jsonrpc-unexposed: the plain JSON-RPC endpoint also serves {count} methods \
                 MCP does not expose, with the document's default scopes (a gateway forwards \
                 them with its upstream credentials)"
            );
        }
        let limiter = crate::rate_limit::Limiter::of(
            config.rate_limits.as_ref(),
            &dispatch,
            stores.rate_buckets,
        );
        let budgets = crate::result_budget::Budgets::new(
            dispatch.contract(),
            &config.results,
            stores.results,
        );
        Self {
            sessions: Sessions::new(stores.sessions, stores.shared_sessions, &config),
            limiter,
            budgets,
            proofs: stores.proofs,
            notifier,
            param_headers: ParamHeaders::from_catalog(dispatch.contract().catalog()),
            dispatch,
            config,
            bus: stores.bus,
            sealer,
            tasks,
            _bus_delivery: bus_delivery,
            event_log: stores.events,
            relays,
            _log_delivery: log_delivery,
            fixed: results::Fixed::default(),
            expiry_started: Default::default(),
            legacy_sse: Arc::default(),
        }
    }

    /// The DPoP proofs every instance has seen, when instances share them (the HTTP edge
    /// hands them to the authenticator).
    pub(crate) fn shared_proofs(&self) -> Option<&Arc<dyn crate::auth::SharedProofs>> {
        self.proofs.as_ref()
    }

    /// The document `rpc.discover` answers on the plain JSON-RPC endpoint: the contract's,
    /// with only the methods that endpoint serves.
    pub(crate) fn plain_document(&self) -> Option<&str> {
        self.fixed
            .plain_document
            .get_or_init(|| {
                let unexposed = self.config.endpoints.jsonrpc_unexposed;
                crate::policy::plain_document(self.dispatch.contract(), unexposed)
            })
            .as_deref()
    }

    /// The sessions: find, load, close and discard one; the store.
    pub(crate) fn sessions(&self) -> &Sessions {
        &self.sessions
    }

    /// The dispatch and configuration back, the rest dropped (a server rebuilt with other
    /// stores).
    #[cfg_attr(not(feature = "redis"), allow(dead_code))]
    pub(crate) fn into_parts(self) -> (D, Config) {
        (self.dispatch, self.config)
    }

    /// Answers one request whose era was decided and checked: the one method table.
    ///
    /// A method the era does not serve is `-32601`. A call's members come read (its progress
    /// token is in `ctx` already); other methods read their raw params. Stateless results
    /// carry `resultType`, cacheable ones `ttlMs` and `cacheScope`.
    ///
    /// Everything is borrowed: this future is boxed on its own per request, and stays under
    /// the size the allocator's per-thread cache serves (1,032 bytes in glibc).
    pub(crate) async fn handle(
        &self,
        era: Era<'_, ()>,
        method: Method,
        name: &str,
        params: &OwnedParams,
        ctx: RequestContext,
    ) -> Result<JsonText, RpcError> {
        let served = match era {
            Era::Session(_) => method.in_sessions(),
            Era::Stateless(()) => method.in_stateless(),
        };
        if !served {
            return Err(RpcError::method_not_found(name));
        }
        let version = ctx.protocol_version();
        let raw = params.raw();
        // Whether a stateless read carried client input: such a result is never cached.
        let mut retried = false;
        // Lists filtered for their caller are that caller's alone: never `public`.
        let filtered_lists =
            self.dispatch.contract().hides_unauthorized() && ctx.principal().is_some();
        let result = match method {
            Method::Ping | Method::SetLogLevel | Method::Subscribe | Method::Unsubscribe => {
                let (result, change) = session_method(era, method, raw)?;
                if let (Some(SessionChange::Subscribed { uri }), Era::Session(session)) =
                    (&change, era)
                {
                    // Recorded first, so that what it opens sees a subscriber; undone when
                    // the dispatch refuses. Boxed, as below.
                    if let Err(refused) = Box::pin(self.open_updates(uri, ctx.clone())).await {
                        session.unsubscribe(uri);
                        return Err(refused);
                    }
                }
                if let (Some(change), Era::Session(session)) = (change, era) {
                    // Boxed: only the methods that change a session pay for its state.
                    Box::pin(self.sessions.write_through(session, change)).await?;
                }
                result
            }
            Method::ToolsList
            | Method::PromptsList
            | Method::ResourcesList
            | Method::TemplatesList => self.list(method, raw, version, ctx.principal())?,
            Method::ToolsCall => self.call(CallKind::Tool, params.members()?, ctx).await?,
            Method::PromptsGet => self.call(CallKind::Prompt, params.members()?, ctx).await?,
            Method::ResourcesRead => {
                let read = params.members()?;
                retried = read.is_retry();
                self.call(CallKind::Resource, read, ctx).await?
            }
            // Boxed: a completion handler's state stays out of every other request's future.
            Method::Complete => Box::pin(self.complete(raw, ctx)).await?,
            Method::Initialize => {
                return Err(RpcError::new(
                    jsonrpc::INVALID_REQUEST,
                    "Invalid Request: the session is already initialized",
                ))
            }
            // Built whole, cache hints included.
            Method::Discover => {
                return Ok(JsonText::trusted(
                    self.fixed
                        .discover
                        .get_or_init(|| self.build_discover_result())
                        .clone(),
                ))
            }
            // Boxed: a shared store's round trip stays out of every other request's future.
            Method::TasksGet | Method::TasksUpdate | Method::TasksCancel => {
                Box::pin(self.task_method(method, raw, &ctx)).await?
            }
            Method::SkillsList | Method::SkillsGet | Method::DirectoryRead => {
                self.skills_method(method, name, raw)?
            }
            // A stream, opened by the transport before a request reaches the table.
            Method::Listen => return Err(RpcError::method_not_found(name)),
            // The contract's methods without `x-mcp` are plain JSON-RPC, not MCP: unreachable
            // here in every era (a separate endpoint may serve them).
            Method::Plain => return Err(RpcError::method_not_found(name)),
        };
        Ok(match era {
            Era::Session(_) => result,
            Era::Stateless(()) => {
                // A read that took client input is specific to that exchange: never cached.
                let cache = match retried {
                    true => Some((0, "private")),
                    false => method
                        .cache_hint(&self.config.cache_hints)
                        .and_then(|hint| hint.pair())
                        .map(|(ttl, scope)| match filtered_lists && method.is_list() {
                            true => (ttl, "private"),
                            false => (ttl, scope),
                        }),
                };
                decorate(result, cache)
            }
        })
    }

    /// `tasks/get`, `tasks/update` and `tasks/cancel`: the capability gate comes before any
    /// task lookup, and only the principal that started a task finds it.
    async fn task_method(
        &self,
        method: Method,
        raw: Option<&RawValue>,
        ctx: &RequestContext,
    ) -> Result<JsonText, RpcError> {
        if !tasks::declared(ctx.client_capabilities()) {
            return Err(tasks::extension_required().into_mcp_error());
        }
        let owner = ctx.principal().map(Principal::owner_digest);
        let owner = owner.as_deref();
        Ok(JsonText::trusted(match method {
            Method::TasksGet => self.tasks.get(raw, owner).await?,
            Method::TasksUpdate => self.tasks.update(raw, owner).await?,
            _ => self.tasks.cancel(raw, owner).await?,
        }))
    }

    /// The skills extension's methods (`-32601` on a server without skills).
    fn skills_method(
        &self,
        method: Method,
        name: &str,
        raw: Option<&RawValue>,
    ) -> Result<JsonText, RpcError> {
        let which = match method {
            Method::SkillsList => skills::SkillsMethod::List,
            Method::SkillsGet => skills::SkillsMethod::Get,
            _ => skills::SkillsMethod::DirectoryRead,
        };
        skills::serve(
            self.dispatch.contract().skills(),
            which,
            name,
            raw,
            self.config.limits.page_size,
        )
    }

    /// Creates the session `initialize` asks for, and its result, over `transport` (the
    /// span's `network.transport`; feature `trace`). The span has no `jsonrpc.request.id`:
    /// the transports do not pass it here. The transports reach it through
    /// [`open_session`](Self::open_session), which keeps the session.
    fn initialize_over(
        &self,
        #[cfg_attr(not(feature = "trace"), allow(unused_variables))] transport: Transport,
        params: Option<&RawValue>,
        #[cfg_attr(not(feature = "trace"), allow(unused_variables))] trace_headers: TraceHeaders<
            '_,
        >,
    ) -> Result<(Arc<Session>, JsonText), RpcError> {
        #[cfg(feature = "trace")]
        let (_, trace) = crate::telemetry::start_outside_engine(
            "initialize",
            "initialize",
            era::SESSION,
            transport,
            None,
            params,
            trace_headers,
        );
        let created = self.create_session(params);
        #[cfg(feature = "trace")]
        if let Some(mut trace) = trace {
            if let Ok((session, _)) = &created {
                trace.session(session.id(), session.version());
            }
            trace.end(created.as_ref().err());
        }
        created
    }

    fn create_session(
        &self,
        params: Option<&RawValue>,
    ) -> Result<(Arc<Session>, JsonText), RpcError> {
        let params: InitializeParams<'_> = params_as(params)?;
        let version = ProtocolVersion::parse(&params.protocol_version)
            .filter(|v| !v.is_stateless())
            .unwrap_or(ProtocolVersion::LATEST_SESSION_ERA);
        let client_bytes = params.capabilities.map_or(0, |c| c.get().len())
            + params.client_info.map_or(0, |c| c.get().len());
        if client_bytes > self.config.limits.max_client_json_bytes {
            return Err(RpcError::invalid_params(format!(
                "Invalid params: capabilities and clientInfo take {client_bytes} bytes, more than the server keeps per session (config.limits.max_client_json_bytes = {})",
                self.config.limits.max_client_json_bytes
            )));
        }
        let session = Arc::new(Session::from_initialize(
            version,
            params.capabilities.map(RawValue::to_owned),
            params.client_info.map(RawValue::to_owned),
            SessionLimits::of(&self.config),
        ));
        session.touch();
        let result = self.fixed.initialize[version.index()]
            .get_or_init(|| self.build_initialize_result(version))
            .clone();
        Ok((session, JsonText::trusted(result)))
    }

    /// Handles a notification of `session`: a cancellation stops the request it names; every
    /// other notification is acknowledged and dropped. The contract's plain JSON-RPC methods
    /// are not MCP methods, so a notification naming one runs nothing here.
    pub(crate) fn notification(&self, session: &Session, method: &str, params: Option<&RawValue>) {
        if method != "notifications/cancelled" {
            tracing::debug!(%method, "a notification the server does not act on");
            return;
        }
        let Some(request_id) = cancelled_id(params) else {
            return;
        };
        let key = id_key(request_id);
        let stopped = session.cancel(&key);
        // Request ids are the client's own choice: one longer than any id an instance could
        // be running (the reader refuses longer ones) is not broadcast.
        if !stopped && session.is_shared() && key.len() <= incoming::MAX_ID_BYTES {
            // Maybe another instance runs it.
            self.bus.publish(BusEvent::RequestCancelled {
                session_id: session.id().to_string(),
                request_id: key,
            });
        }
        tracing::debug!(request = request_id.get(), stopped, "cancellation");
    }

    /// Publishes the client's `answer` to request `request_id` of shared `session` for the
    /// instance that waits for it (the caller checked that some instance minted the id),
    /// unless it is larger than
    /// [`config.streams.max_bus_answer_bytes`](crate::config::Streams::max_bus_answer_bytes): every
    /// instance hears every bus message, so its size is bounded here, where the client chose it.
    pub(crate) fn publish_answer(
        &self,
        session: &Session,
        request_id: String,
        answer: &crate::session::ClientAnswer,
    ) {
        let text = answer_text(answer);
        if text.len() > self.config.streams.max_bus_answer_bytes {
            tracing::warn!(
                session = %crate::ids::fingerprint(session.id()),
                bytes = text.len(),
                max = self.config.streams.max_bus_answer_bytes,
                "a client's answer too large for the bus was dropped (config.streams.max_bus_answer_bytes, --max-bus-answer-bytes)"
            );
            return;
        }
        self.bus.publish(BusEvent::ClientAnswered {
            session_id: session.id().to_string(),
            request_id,
            answer: text,
        });
    }

    /// Ends the SSE streams that never end by themselves (sessions' standalone GET streams,
    /// listen streams), cleanly: the server is shutting down. Request streams end with their
    /// answers.
    pub(crate) fn end_long_lived_streams(&self) {
        self.sessions
            .store()
            .for_each(&mut |session| session.streams().end_standalone());
        self.notifier.end_listen_streams();
    }

    /// The context of a request of `session`, its messages going to `outbound`.
    pub(crate) fn session_context(
        &self,
        session: &Arc<Session>,
        outbound: Option<crate::delivery::outbound::Outbound>,
    ) -> RequestContext {
        RequestContext::in_session(
            session.clone(),
            outbound,
            self.notifier.clone(),
            self.config.limits.client_request_timeout,
        )
    }
}

/// The request id a `notifications/cancelled` names (its JSON text), when its params name one.
pub(crate) fn cancelled_id(params: Option<&RawValue>) -> Option<&RawValue> {
    #[derive(Deserialize)]
    struct Cancelled<'a> {
        #[serde(rename = "requestId", borrow)]
        request_id: &'a RawValue,
    }
    let cancelled: Cancelled<'_> = serde_json::from_str(params?.get()).ok()?;
    Some(cancelled.request_id)
}

/// The key a request id is tracked under (its JSON text, so `1` and `"1"` differ).
pub(crate) fn id_key(id: &RawValue) -> String {
    id.get().trim().to_string()
}

#[derive(Deserialize)]
struct InitializeParams<'a> {
    #[serde(rename = "protocolVersion", borrow)]
    protocol_version: Cow<'a, str>,
    #[serde(borrow, default)]
    capabilities: Option<&'a RawValue>,
    #[serde(rename = "clientInfo", borrow, default)]
    client_info: Option<&'a RawValue>,
}

/// `params` read as `T` (absent: `{}`); `-32602` when they do not fit.
fn params_as<'a, T: Deserialize<'a>>(params: Option<&'a RawValue>) -> Result<T, RpcError> {
    let text = params.map_or("{}", RawValue::get);
    serde_json::from_str(text).map_err(|e| RpcError::invalid_params(format!("Invalid params: {e}")))
}

/// The empty result `{}`.
fn empty() -> JsonText {
    JsonText::trusted("{}".into())
}

/// Adds `resultType: "complete"` and, for cacheable results, `ttlMs` and `cacheScope` to a
/// result object, in place.
fn decorate(mut result: JsonText, cache: Option<(u64, &str)>) -> JsonText {
    // An `InputRequiredResult` has its own `resultType` and is never cacheable.
    if result.starts_with_member("resultType") {
        return result;
    }
    match cache {
        None => result.prepend_members(r#""resultType":"complete""#),
        Some((ttl, scope)) => result.prepend_members(&format!(
            r#""resultType":"complete","ttlMs":{ttl},"cacheScope":"{scope}""#
        )),
    }
    result
}

/// The key a server-to-client request id is registered under (ids are strings we minted).
pub(crate) fn answer_key(id: &RawValue) -> String {
    serde_json::from_str::<String>(id.get()).unwrap_or_else(|_| id.get().to_string())
}
