//! The authorization edge ([`crate::auth`]): authenticating a request before the engine
//! runs, the challenges of a refusal, and the Protected Resource Metadata document.
//!
//! Only reached when [`Config::auth`](crate::config::Config::auth) is set; every function here is
//! off the unauthenticated hot path.

use http::header::{HeaderValue, ACCESS_CONTROL_ALLOW_ORIGIN, CACHE_CONTROL, WWW_AUTHENTICATE};
use http::{Method, Response, StatusCode};
use std::sync::Arc;

use super::body::Body;
use super::response::{json_response, method_not_allowed, rpc_error};
use crate::auth::{Auth, Principal, Refusal};
use crate::dispatch::Dispatch;
use crate::engine::incoming::{self, Incoming, Request};
use crate::jsonrpc::{id_less_error_response, RpcError, INVALID_REQUEST, SERVER_ERROR};
use crate::policy::Target;
use serde_json::value::RawValue;

/// The principal `parts` acts for, or the refusal's response. Scopes every request needs
/// ([`Auth::required_scopes`]) are checked here, whatever the authenticator. The DPoP proofs
/// every instance has seen (`proofs`, when instances share them) are in reach of the
/// authenticator while it runs ([`crate::auth::SharedProofs`]).
pub(super) async fn authenticate(
    auth: &Auth,
    parts: &http::request::Parts,
    proofs: Option<&Arc<dyn crate::auth::SharedProofs>>,
) -> Result<Arc<Principal>, Response<Body>> {
    let authenticating = auth.authenticator().authenticate(parts);
    let authenticated = match proofs {
        Some(proofs) => {
            crate::auth::SHARED_PROOFS
                .scope(proofs.clone(), authenticating)
                .await
        }
        None => authenticating.await,
    };
    let principal = match authenticated {
        Ok(principal) => principal,
        Err(refusal) => return Err(challenge(auth, &refusal, None)),
    };
    if !principal.missing_scopes(auth.required_scopes()).is_empty() {
        let refusal = Refusal::InsufficientScope {
            scope: auth.required_scopes().join(" "),
        };
        return Err(challenge(auth, &refusal, None));
    }
    if auth.keeps_access_token() {
        if let Some(token) = access_token(&parts.headers) {
            return Ok(Arc::new(principal.keeping_access_token(token)));
        }
    }
    Ok(Arc::new(principal))
}

/// The token of the request's `Authorization: Bearer <token>` or `DPoP <token>` header (the
/// authenticator accepted it: only its scheme is skipped here).
fn access_token(headers: &http::HeaderMap) -> Option<&str> {
    let value = headers.get(http::header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.trim().split_once(' ')?;
    let token = token.trim();
    ((scheme.eq_ignore_ascii_case("bearer") || scheme.eq_ignore_ascii_case("dpop"))
        && !token.is_empty())
    .then_some(token)
}

/// 403 `insufficient_scope` when `principal` lacks a scope the contract requires for
/// `request` (`x-mcp` `scopes`: [`Contract::required_scopes`](crate::dispatch::Contract::required_scopes)) or the step-up policy
/// asks of it; `None` when it may go on.
///
/// The call is decided on the target that runs ([`Request::target`]): the tool, prompt or
/// resource the engine will run, read from the members the engine reads whatever their order,
/// and for a catalog's `call_tool` the tool its arguments name.
#[cold]
pub(super) fn scope_refusal<D: Dispatch>(
    dispatch: &D,
    auth: &Auth,
    principal: &Principal,
    request: &Request<'_>,
) -> Option<Response<Body>> {
    let contract = dispatch.contract();
    if let Some(target) = request.target(contract) {
        return target_refusal(contract, auth, principal, &target, Some(request.id));
    }
    if request.method == "subscriptions/listen" {
        // Each resource it names, as the read it stands for (its updates tell what it holds;
        // a gateway opens a subscription at its upstream for it).
        return listened_resources(request).into_iter().find_map(|uri| {
            let target = Target::of_call(contract, "resources/read", uri.into(), None);
            target_refusal(contract, auth, principal, &target, Some(request.id))
        });
    }
    let (method, key) = indirect_target(request)?;
    let target = Target::of_call(contract, method, key.into(), None);
    target_refusal(contract, auth, principal, &target, Some(request.id))
}

/// 403 when `principal` lacks a scope `target` needs: the contract's, and the step-up
/// policy's for it and its named arguments.
fn target_refusal(
    contract: &crate::dispatch::Contract,
    auth: &Auth,
    principal: &Principal,
    target: &Target<'_>,
    id: Option<&RawValue>,
) -> Option<Response<Body>> {
    let required = target.required_scopes(contract);
    let stepped = stepped_up(auth, principal, target);
    missing_scope(auth, principal, required, &stepped, id)
}

/// The scopes the [`crate::auth::StepUp`] policy, if any, requires of this call.
fn stepped_up(auth: &Auth, principal: &Principal, target: &Target<'_>) -> Vec<String> {
    let Some(policy) = auth.step_up_policy() else {
        return Vec::new();
    };
    policy.required_scopes(&crate::auth::StepUpRequest {
        principal,
        method: target.method,
        target: &target.key,
        arguments: target.arguments.as_deref(),
    })
}

/// What a request that is not a call reaches, as the call it stands for: the resource
/// `resources/subscribe` names (its updates tell what it holds), the prompt or resource
/// `completion/complete` names (its answer tells that a hidden one exists). Params that do not
/// read are `None`: the engine refuses them with `-32602` before anything is answered.
fn indirect_target(request: &Request<'_>) -> Option<(&'static str, String)> {
    #[derive(serde::Deserialize)]
    struct Subscribe {
        uri: String,
    }
    #[derive(serde::Deserialize)]
    struct Complete {
        #[serde(rename = "ref")]
        reference: Reference,
    }
    #[derive(serde::Deserialize)]
    struct Reference {
        #[serde(rename = "type")]
        kind: String,
        name: Option<String>,
        uri: Option<String>,
    }
    let raw = request.params.raw()?.get();
    match request.method {
        "resources/subscribe" => {
            let subscribe: Subscribe = serde_json::from_str(raw).ok()?;
            Some(("resources/read", subscribe.uri))
        }
        "completion/complete" => {
            let reference = serde_json::from_str::<Complete>(raw).ok()?.reference;
            match reference.kind.as_str() {
                "ref/prompt" => Some(("prompts/get", reference.name?)),
                "ref/resource" => Some(("resources/read", reference.uri?)),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The resource URIs a `subscriptions/listen` request names (`notifications.
/// resourceSubscriptions`); none when its params do not read (the engine refuses them).
fn listened_resources(request: &Request<'_>) -> Vec<String> {
    #[derive(serde::Deserialize)]
    struct Listen {
        notifications: Notifications,
    }
    #[derive(serde::Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Notifications {
        #[serde(default)]
        resource_subscriptions: Vec<String>,
    }
    request
        .params
        .raw()
        .and_then(|raw| serde_json::from_str::<Listen>(raw.get()).ok())
        .map(|listen| listen.notifications.resource_subscriptions)
        .unwrap_or_default()
}

/// [`scope_refusal`] for every message of a 2025-03-26 batch (`messages`, each read on its
/// own): the first refusal refuses the whole batch.
#[cold]
pub(super) fn batch_scope_refusal<D: Dispatch>(
    dispatch: &D,
    auth: &Auth,
    principal: &Principal,
    messages: &[&serde_json::value::RawValue],
) -> Option<Response<Body>> {
    messages
        .iter()
        .find_map(|message| match incoming::read(message.get(), None) {
            Ok(Incoming::Request(request)) => scope_refusal(dispatch, auth, principal, &request),
            _ => None,
        })
}

/// 403 `insufficient_scope` when `principal` lacks a scope the contract requires for a
/// plain JSON-RPC message of `text` (one message or a batch: the first refusal refuses the
/// whole request): a method is decided as the MCP call it stands for (its scopes and the
/// step-up policy's, [`Engine::plain_target`](crate::engine::Engine::plain_target)); a method
/// the endpoint does not serve is answered `-32601` later, whatever the principal.
#[cold]
pub(super) fn plain_scope_refusal<D: Dispatch>(
    engine: &crate::engine::Engine<D>,
    auth: &Auth,
    principal: &Principal,
    text: &str,
) -> Option<Response<Body>> {
    let contract = engine.dispatch().contract();
    let check = |text: &str| {
        let (method, params) = match incoming::read_plain(text) {
            Ok(Incoming::Request(request)) => (request.method, request.params.raw()),
            Ok(Incoming::Notification { method, params }) => (method, params),
            _ => return None,
        };
        let target = engine.plain_target(method, params)?;
        target_refusal(contract, auth, principal, &target, None)
    };
    if incoming::is_batch(text) {
        let messages = incoming::read_batch(text).ok()?;
        messages.iter().find_map(|message| check(message.get()))
    } else {
        check(text)
    }
}

/// 403 naming the scopes to ask for (those every request needs, then `required`) when
/// `principal` lacks one of `required`; the error answers request `id` when there is one
/// (a batch is refused whole, without one).
fn missing_scope(
    auth: &Auth,
    principal: &Principal,
    required: &[&str],
    stepped_up: &[String],
    id: Option<&RawValue>,
) -> Option<Response<Body>> {
    let stepped_up = stepped_up.iter().map(String::as_str);
    if required
        .iter()
        .copied()
        .chain(stepped_up.clone())
        .all(|scope| principal.has_scope(scope))
    {
        return None;
    }
    // The whole set the request needs, in one challenge: the client asks once.
    let mut scopes: Vec<&str> = auth.required_scopes().iter().map(String::as_str).collect();
    for scope in required.iter().copied().chain(stepped_up) {
        if !scopes.contains(&scope) {
            scopes.push(scope);
        }
    }
    let refusal = Refusal::InsufficientScope {
        scope: scopes.join(" "),
    };
    Some(challenge(auth, &refusal, id))
}

/// The response to `refusal`: its status, a JSON-RPC error saying why (answering `id`, or
/// without an `id` for a request refused before its body was read), and (but for 503) a
/// `WWW-Authenticate: Bearer` challenge naming the metadata URL.
#[cold]
pub(super) fn challenge(auth: &Auth, refusal: &Refusal, id: Option<&RawValue>) -> Response<Body> {
    let status = refusal.status();
    let description = refusal.description();
    tracing::debug!(status = status.as_u16(), reason = %description, "request refused by auth");
    let (code, prefix) = match status {
        StatusCode::UNAUTHORIZED => (SERVER_ERROR, "Unauthorized"),
        StatusCode::FORBIDDEN => (SERVER_ERROR, "Forbidden"),
        StatusCode::BAD_REQUEST => (INVALID_REQUEST, "Bad Request"),
        _ => (SERVER_ERROR, "Service Unavailable"),
    };
    let error = RpcError::new(code, format!("{prefix}: {description}"));
    let mut response = match id {
        Some(id) => rpc_error(status, error, Some(id)),
        None => json_response(status, id_less_error_response(&error)),
    };
    if status == StatusCode::SERVICE_UNAVAILABLE {
        return response;
    }
    // A DPoP proof's refusal is a DPoP challenge (RFC 9449 §7.1); every other is Bearer's.
    let scheme = match refusal {
        Refusal::InvalidDpopProof(_) => "DPoP algs=\"ES256 ES384 EdDSA RS256 PS256\",",
        _ => "Bearer",
    };
    let mut value = format!("{scheme} resource_metadata=\"{}\"", auth.metadata_url());
    let scope = match refusal {
        Refusal::InsufficientScope { scope } => Some(scope.clone()),
        _ => auth.challenge_scope(),
    };
    if let Some(scope) = scope {
        value.push_str(&format!(", scope=\"{}\"", quoted(&scope)));
    }
    if let Some(error) = refusal.error_code() {
        value.push_str(&format!(
            ", error=\"{error}\", error_description=\"{}\"",
            quoted(&description)
        ));
    }
    if let Ok(value) = HeaderValue::from_str(&value) {
        response.headers_mut().insert(WWW_AUTHENTICATE, value);
    }
    response
}

/// `text` as the content of an RFC 6750 quoted parameter: printable ASCII other than `"`
/// and `\` (anything else becomes `?`).
fn quoted(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            ' ' | '!' | '#'..='[' | ']'..='~' => c,
            _ => '?',
        })
        .collect()
}

/// When `principal`'s access token expires (its `exp` claim), as a deadline of this process's
/// clock; `None` for a token without one (or a custom authenticator's principal).
pub(super) fn expires_at(principal: &Principal) -> Option<tokio::time::Instant> {
    let exp = principal.claims.get("exp")?.as_u64()?;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?
        .as_secs();
    let left = std::time::Duration::from_secs(exp.saturating_sub(now));
    Some(tokio::time::Instant::now() + left)
}

/// GET of the Protected Resource Metadata (RFC 9728 §3.2): `200` JSON, readable from any
/// origin (it is public, and browser-based clients fetch it cross-origin).
#[cold]
pub(super) fn metadata_response(auth: &Auth, method: &Method) -> Response<Body> {
    if method != Method::GET && method != Method::HEAD {
        return method_not_allowed("GET, HEAD");
    }
    let mut response = json_response(StatusCode::OK, auth.document().to_owned());
    let headers = response.headers_mut();
    headers.insert(ACCESS_CONTROL_ALLOW_ORIGIN, HeaderValue::from_static("*"));
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("max-age=3600"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_keeps_header_values_valid() {
        assert_eq!(quoted("a \"b\" \\ c\u{e9}\n"), "a ?b? ? c??");
    }
}
