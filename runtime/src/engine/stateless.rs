//! The era checks of a stateless 2026-07-28 request, in the order the specification gives:
//! 1. `params` is an object whose `_meta` carries the version and the client capabilities
//!    (`-32602`);
//! 2. the routing headers match the body (a transport's own step: HTTP, `-32020`);
//! 3. the version is one this server speaks statelessly (`-32022`);
//! 4. the method exists in this revision (`-32601`).

use serde_json::json;
use serde_json::value::RawValue;
use serde_json::Value;
use std::borrow::Cow;
use std::sync::{Arc, LazyLock};

use super::incoming::{Params, Request};
use super::method::Method;
use super::params::RequestMeta;
use crate::jsonrpc::{RpcError, INVALID_PARAMS, UNSUPPORTED_VERSION};
use crate::mcp::level_rank;
use crate::protocol::ProtocolVersion;

/// `_meta` key of the request's protocol version.
#[doc(hidden)]
pub const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// `_meta` key of the client's capabilities.
#[doc(hidden)]
pub const META_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// `_meta` key of the minimum log level the client wants on this request.
#[doc(hidden)]
pub const META_LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
/// `_meta` key of the server identity in `server/discover`.
#[doc(hidden)]
pub const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

/// A stateless request after step 1: its method, its `_meta`, and the request with the
/// params its method reads (a call's members without `_meta`, or the raw text of the others).
pub(crate) struct MetaChecked<'a> {
    pub method: Method,
    pub request: Request<'a>,
    pub meta: RequestMeta<'a>,
    /// What a routing header names: the tool or prompt, the resource URI, the task id.
    pub routed_name: Option<Cow<'a, str>>,
}

/// Step 1: the params are an object (or absent) and `_meta` carries the version and the
/// client capabilities.
pub(crate) fn checked_meta(request: Request<'_>) -> Result<MetaChecked<'_>, RpcError> {
    let Request {
        id,
        method: name,
        params,
    } = request;
    if !params.is_object_or_absent() {
        return Err(incomplete_meta());
    }
    let method = Method::of(name);
    let raw = params.raw();
    let mut members = params.into_members()?;
    let meta = match members.meta.take() {
        Some(meta) if meta.protocol_version.is_some() && meta.client_capabilities.is_some() => meta,
        _ => return Err(incomplete_meta()),
    };
    let routed_name = match method {
        Method::ToolsCall | Method::PromptsGet => members.name.clone(),
        Method::ResourcesRead => members.uri.clone(),
        Method::TasksGet | Method::TasksUpdate | Method::TasksCancel => members.task_id.clone(),
        _ => None,
    };
    let params = match method.is_call() {
        true => Params::Members(members),
        false => Params::Raw(raw),
    };
    Ok(MetaChecked {
        method,
        request: Request {
            id,
            method: name,
            params,
        },
        meta,
        routed_name,
    })
}

/// Steps 3 and 4: the version this request is served at.
///
/// `has_skills`: whether the server bundles skills; without them the skills extension's
/// methods do not exist, and are refused here like any unknown method.
pub(crate) fn checked_version_and_method(
    checked: &MetaChecked<'_>,
    has_skills: bool,
) -> Result<ProtocolVersion, RpcError> {
    let requested = checked.meta.protocol_version.unwrap_or_default();
    let version = ProtocolVersion::parse(requested)
        .filter(|v| v.is_stateless())
        .ok_or_else(|| unsupported_version(requested))?;
    if !checked.method.in_stateless() || (checked.method.is_skills() && !has_skills) {
        return Err(RpcError::method_not_found(checked.request.method));
    }
    Ok(version)
}

#[cold]
fn incomplete_meta() -> RpcError {
    RpcError::new(
        INVALID_PARAMS,
        format!(
            "Invalid params: params must be an object whose _meta carries {META_PROTOCOL_VERSION} and {META_CLIENT_CAPABILITIES}"
        ),
    )
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

/// The minimum log rank a request's `_meta` asks for.
pub(crate) fn log_rank(meta: &RequestMeta<'_>) -> Option<u8> {
    meta.log_level.map(level_rank)
}

/// The declared client capabilities; the common `{}` is shared, not parsed.
pub(crate) fn capabilities_of(raw: Option<&RawValue>) -> Arc<Value> {
    static NONE_DECLARED: LazyLock<Arc<Value>> = LazyLock::new(|| Arc::new(json!({})));
    match raw.map(|raw| raw.get().trim_ascii()) {
        Some("{}") => NONE_DECLARED.clone(),
        raw => Arc::new(
            raw.and_then(|raw| serde_json::from_str(raw).ok())
                .unwrap_or_default(),
        ),
    }
}
