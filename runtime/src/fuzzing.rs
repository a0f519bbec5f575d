//! Entry points for the fuzz targets (`runtime/tests/fuzz_*.rs` on stable, `fuzz/` under
//! cargo-fuzz): thin wrappers that run the runtime's internal parsers on raw input and hand
//! back what they read as plain owned values, so a target can compare them with an independent
//! reading of the same input.
//!
//! Compiled only with the `fuzzing` feature, hidden from the docs, and not part of the API:
//! nothing here is stable, and no server needs it. Each function does what the transport or
//! the engine does with the same input, and nothing more.

use http::HeaderValue;
use serde_json::{Map, Value};
use std::time::Duration;

use crate::catalog::Catalog;
use crate::engine::incoming::{self, Incoming};
use crate::engine::param_headers::ParamHeaders;
use crate::request_state::{Binding, SealingKey, StatePayload, StateSealer};

// ---- the JSON-RPC reader (engine/incoming.rs) ----

/// What the reader made of one message body (`http/post.rs` and `stdio.rs` do the same).
// One value per fuzz input: its size does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum Body {
    /// The bytes are not UTF-8 (`-32700` before any JSON is read).
    NotUtf8,
    /// One message, or the JSON-RPC error code it is refused with.
    Single(Result<Message, i32>),
    /// A batch: its messages, each read on its own, or the code the whole batch is refused with.
    Batch(Result<Vec<Result<Message, i32>>, i32>),
}

/// One message as the reader read it (`engine::incoming::Incoming`, owned).
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    /// A request.
    Request {
        /// The id's JSON text, as written.
        id: String,
        /// The method.
        method: String,
        /// The params, and what the engine reads of them.
        params: Params,
    },
    /// A notification.
    Notification {
        /// The method.
        method: String,
        /// The params' JSON text (`None` when absent or `null`).
        params: Option<String>,
    },
    /// The client's answer to a server request.
    Response {
        /// The id's JSON text, as written.
        id: String,
        /// `result`'s JSON text, or `error` as a value (`null` when it is not JSON).
        answer: Result<String, Value>,
    },
}

/// A request's params, and every view of them the engine takes.
#[derive(Debug, Clone, PartialEq)]
pub struct Params {
    /// Whether the call's members were read with the envelope (the one-pass fast path)
    /// rather than kept as raw text.
    pub read_as_members: bool,
    /// The raw JSON text, when kept raw (`None` when absent, `null`, or read as members).
    pub raw: Option<String>,
    /// `Params::is_object_or_absent`.
    pub is_object_or_absent: bool,
    /// `Params::meta_version`: `_meta["io.modelcontextprotocol/protocolVersion"]`.
    pub meta_version: Option<String>,
    /// `Params::has_meta`: a non-null `_meta`.
    pub has_meta: bool,
    /// `Params::into_members`: the members the runtime reads itself, or the error code.
    pub members: Result<Members, i32>,
}

/// The members of `params` the runtime reads itself (`params::RequestParams`, owned).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Members {
    /// `name`.
    pub name: Option<String>,
    /// `uri`.
    pub uri: Option<String>,
    /// `arguments`' JSON text.
    pub arguments: Option<String>,
    /// `taskId`.
    pub task_id: Option<String>,
    /// `inputResponses`' JSON text.
    pub input_responses: Option<String>,
    /// `requestState`.
    pub request_state: Option<String>,
    /// Whether `_meta` is present and not `null`.
    pub has_meta: bool,
    /// `_meta["io.modelcontextprotocol/protocolVersion"]`.
    pub protocol_version: Option<String>,
    /// `_meta["io.modelcontextprotocol/clientCapabilities"]`' JSON text.
    pub client_capabilities: Option<String>,
    /// `_meta.progressToken`'s JSON text.
    pub progress_token: Option<String>,
}

/// Reads a message body as the HTTP transport does: UTF-8 first, then a batch when the text
/// opens an array, else one message with `announced` as the `Mcp-Method` header's method.
pub fn read_body(bytes: &[u8], announced: Option<&str>) -> Body {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return Body::NotUtf8;
    };
    if incoming::is_batch(text) {
        return Body::Batch(
            incoming::read_batch(text)
                .map_err(|e| e.code)
                .map(|messages| {
                    messages
                        .iter()
                        .map(|message| read_message(message.get(), None))
                        .collect()
                }),
        );
    }
    Body::Single(read_message(text, announced))
}

/// Reads one message (`engine::incoming::read`).
pub fn read_message(text: &str, announced: Option<&str>) -> Result<Message, i32> {
    Ok(match incoming::read(text, announced).map_err(|e| e.code)? {
        Incoming::Request(request) => Message::Request {
            id: request.id.get().to_string(),
            method: request.method.to_string(),
            params: params(request.params),
        },
        Incoming::Notification { method, params } => Message::Notification {
            method: method.to_string(),
            params: params.map(|raw| raw.get().to_string()),
        },
        Incoming::Response { id, answer } => Message::Response {
            id: id.get().to_string(),
            answer: answer.map(|result| result.get().to_string()),
        },
    })
}

fn params(params: incoming::Params<'_>) -> Params {
    let text = |raw: Option<&serde_json::value::RawValue>| raw.map(|raw| raw.get().to_string());
    let read_as_members = matches!(params, incoming::Params::Members(_));
    let raw = text(params.raw());
    let is_object_or_absent = params.is_object_or_absent();
    let meta_version = params.meta_version().map(str::to_string);
    let has_meta = params.has_meta();
    let members = params
        .into_members()
        .map(|m| Members {
            name: m.name.as_deref().map(str::to_string),
            uri: m.uri.as_deref().map(str::to_string),
            arguments: text(m.arguments),
            task_id: m.task_id.as_deref().map(str::to_string),
            input_responses: text(m.input_responses),
            request_state: m.request_state.as_deref().map(str::to_string),
            has_meta: m.meta.is_some(),
            protocol_version: m
                .meta
                .as_ref()
                .and_then(|meta| meta.protocol_version)
                .map(str::to_string),
            client_capabilities: text(m.meta.as_ref().and_then(|meta| meta.client_capabilities)),
            progress_token: text(m.progress_token()),
        })
        .map_err(|e| e.code);
    Params {
        read_as_members,
        raw,
        is_object_or_absent,
        meta_version,
        has_meta,
        members,
    }
}

// ---- authorization (http/auth.rs) against what the engine runs (engine/mod.rs) ----

/// What one request body is authorized as and what it would run as, each the call's method
/// and target (the tool or prompt name, the resource URI).
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    /// The method and target the scope check looks up (`Request::call`), `None` when
    /// it checks nothing call-specific.
    pub authorized: Option<(String, String)>,
    /// The method and target the engine would run (`OwnedParams::keep`, then the member its
    /// method reads), `None` when it refuses the request before anything runs.
    pub runs: Option<(String, String)>,
}

/// [`Decision`] for one message read as the HTTP transport reads it (`announced` is the
/// `Mcp-Method` header); `None` when the text is not a request.
pub fn authorization_decision(text: &str, announced: Option<&str>) -> Option<Decision> {
    use crate::engine::method::Method;
    let Ok(Incoming::Request(request)) = incoming::read(text, announced) else {
        return None;
    };
    let authorized = request
        .call()
        .map(|(method, target, _)| (method.to_string(), target.to_string()));
    let method = Method::of(request.method);
    let runs = match crate::engine::OwnedParams::keep(method, request.params) {
        Ok(crate::engine::OwnedParams::Members(members)) => match method {
            Method::ToolsCall | Method::PromptsGet => members.name().ok().map(str::to_string),
            Method::ResourcesRead => members.uri().ok().map(str::to_string),
            _ => None,
        },
        _ => None,
    }
    .map(|target| (request.method.to_string(), target));
    Some(Decision { authorized, runs })
}

/// [`Decision`] for one message to a server in the catalog mode (`tool_catalog`), read as the
/// HTTP transport reads it: what the policy decides on (`Request::target`: a
/// `call_tool` as the tool its arguments name) and what the catalog runs (the tool it calls,
/// read from the members the engine passes it); `runs` is `None` when nothing runs (the
/// request or the catalog's arguments refused). `None` when the text is not a request.
pub fn catalog_decision(text: &str, announced: Option<&str>) -> Option<Decision> {
    use crate::engine::method::Method;
    static CATALOG: Catalog = Catalog::empty("fuzz", "1");
    static CONTRACT: crate::Contract =
        crate::Contract::new(&CATALOG).with_catalog_call("call_tool");
    let Ok(Incoming::Request(request)) = incoming::read(text, announced) else {
        return None;
    };
    let authorized = request
        .target(&CONTRACT)
        .map(|target| (target.method.to_string(), target.key.into_owned()));
    let method = Method::of(request.method);
    let runs = match crate::engine::OwnedParams::keep(method, request.params) {
        Ok(crate::engine::OwnedParams::Members(members)) => match method {
            Method::ToolsCall => match members.name().ok() {
                Some("call_tool") => crate::policy::InnerCall::read(members.arguments())
                    .ok()
                    .map(|call| call.name.into_owned()),
                name => name.map(str::to_string),
            },
            Method::PromptsGet => members.name().ok().map(str::to_string),
            Method::ResourcesRead => members.uri().ok().map(str::to_string),
            _ => None,
        },
        _ => None,
    }
    .map(|target| (request.method.to_string(), target));
    Some(Decision { authorized, runs })
}

// ---- headers ----

/// Decodes an `Mcp-Param-*` or `Mcp-Name` value (`param_headers::decode`): the
/// `=?base64?...?=` form strictly, anything else as itself, trimmed.
pub fn decode_header_value(value: &str) -> Option<String> {
    crate::engine::param_headers::decode(value)
}

/// The `Mcp-Param-*` table of a catalog's tools (`param_headers::ParamHeaders`).
#[derive(Debug)]
pub struct ParamHeaderTable(ParamHeaders);

impl ParamHeaderTable {
    /// Scans the 2026-07-28 `inputSchema` of every tool in `catalog`.
    pub fn new(catalog: &Catalog) -> Self {
        Self(ParamHeaders::from_catalog(catalog))
    }

    /// Checks the mirrored arguments of `tool` against `headers`; the error names the first
    /// that disagrees.
    pub fn check(
        &self,
        tool: &str,
        headers: &http::HeaderMap,
        arguments: Option<&Value>,
    ) -> Result<(), String> {
        self.0.check(tool, headers, arguments)
    }
}

/// The `Host`/`Origin` check (`http::guard::check_host_and_origin`); the error is the refusal's
/// message (`"no Host"` when the header is missing).
pub fn check_host_and_origin(
    host: Option<&HeaderValue>,
    origin: Option<&HeaderValue>,
    allowed: &[String],
) -> Result<(), String> {
    use crate::http::guard::{self, Refusal};
    guard::check_host_and_origin(host, origin, allowed).map_err(|refusal| match refusal {
        Refusal::MissingHost => "no Host".to_string(),
        Refusal::RepeatedAuthority => "Host or Origin repeated".to_string(),
        Refusal::Forbidden(message) => message,
    })
}

/// A `Last-Event-ID` read as `(stream, sequence)` (`events::parse_event_id`).
pub fn parse_last_event_id(id: &str) -> Option<(u32, u64)> {
    crate::session::events::parse_event_id(id)
}

// ---- requestState (request_state.rs) ----

/// What a sealed `requestState` carries (`request_state::StatePayload`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Payload {
    /// Earlier rounds' answers, by input-request key.
    pub answers: Map<String, Value>,
    /// The handler's saved values.
    pub saved: Map<String, Value>,
    /// The keys the sealing round asked.
    pub asked: Vec<String>,
}

/// Seals and opens states with one key (`request_state::StateSealer`).
#[derive(Debug, Clone)]
pub struct Sealer(StateSealer);

impl Sealer {
    /// A sealer with `key`, whose states live `ttl`.
    pub fn new(key: SealingKey, ttl: Duration) -> Self {
        Self(StateSealer::new(key, ttl))
    }

    /// Seals `payload` for the request `method` on `name` with `arguments`.
    pub fn seal(
        &self,
        method: &str,
        name: &str,
        arguments: Option<&Value>,
        payload: Payload,
    ) -> String {
        let payload = StatePayload {
            answers: payload.answers,
            saved: payload.saved,
            asked: payload.asked,
        };
        self.0.seal(Binding::new(method, name, arguments), payload)
    }

    /// Opens `state` for that request; the error is the refusal's JSON-RPC message.
    pub fn open(
        &self,
        state: &str,
        method: &str,
        name: &str,
        arguments: Option<&Value>,
    ) -> Result<Payload, String> {
        self.0
            .open(state, Binding::new(method, name, arguments))
            .map(|payload| Payload {
                answers: payload.answers,
                saved: payload.saved,
                asked: payload.asked,
            })
            .map_err(|error| error.into_rpc_error().message.into_owned())
    }
}
