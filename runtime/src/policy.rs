//! The policy's one view of a call: the target that actually runs, whatever the door.
//!
//! Selection, scopes, step-up, rate limits and audit records are decided on a [`Target`]:
//! the MCP call (`tools/call`, `prompts/get`, `resources/read`), the tool or prompt name or
//! resource key, and the named arguments of what will run. Every door makes its target here:
//!
//! - `/mcp` (both eras, batches), the 2024-11-05 transport and stdio: the call as sent
//!   (`engine::incoming::Request::target`, through [`Target::of_call`]), but a catalog's
//!   `call_tool` ([`crate::tool_catalog`]) is the tool its arguments name, with that tool's
//!   arguments;
//! - the plain JSON-RPC endpoint: the contract method's MCP face ([`Target::of_plain`],
//!   [`crate::Contract::face`]), its params named when sent by position; a method without a
//!   face is not served unless the operator opted in
//!   ([`crate::config::Endpoints::jsonrpc_unexposed`]), and then keeps the `"jsonrpc"` scopes
//!   and limit of its name.
//!
//! A resource template's rate limit is one bucket per template, not per concrete URI
//! ([`Target::limit_key`]): changing a variable is no way around it.

use serde::Deserialize;
use serde_json::value::RawValue;
use std::borrow::Cow;

use crate::dispatch::{Call, CallKind, Contract, Face};

/// What [`Contract::required_scopes`] and [`Contract::rate_limit`] are asked for a method of
/// the plain JSON-RPC endpoint without an MCP face (the key is the method's name).
pub(crate) const PLAIN: &str = "jsonrpc";

/// One call as the policy decides on it: see the [module](self).
#[derive(Debug)]
pub(crate) struct Target<'a> {
    /// `tools/call`, `prompts/get`, `resources/read`, or [`PLAIN`] for a plain method served
    /// without an MCP face.
    pub method: &'static str,
    /// The tool or prompt name, the resource URI (or template, for a plain call), or the plain
    /// method's name.
    pub key: Cow<'a, str>,
    /// The arguments of what runs, by name (a plain call's positional params named with its
    /// face's), when there are any.
    pub arguments: Option<Cow<'a, RawValue>>,
}

/// Why the plain JSON-RPC endpoint does not serve a method.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct NotServed;

impl<'a> Target<'a> {
    /// The target of `call` as a door made it: a plain method's is its face
    /// ([`Target::of_plain`]; itself when the door served it without one), an MCP call's as
    /// [`Target::of_call`] reads it.
    pub fn of(contract: &Contract, call: &Call<'a>, unexposed: bool) -> Self {
        let (name, arguments) = (call.name(), call.sent_arguments());
        match call.kind() {
            CallKind::Method => Self::of_plain(contract, name, arguments, unexposed)
                .unwrap_or_else(|NotServed| Self {
                    method: PLAIN,
                    key: Cow::Borrowed(name),
                    arguments: arguments.map(Cow::Borrowed),
                }),
            kind => Self::of_call(contract, kind.method(), Cow::Borrowed(name), arguments),
        }
    }

    /// The target of the call `method` of `key` with `arguments`: a catalog's `call_tool` is
    /// the tool its arguments name (when they read; otherwise the catalog refuses the call
    /// itself, and the target stays `call_tool`).
    pub fn of_call(
        contract: &Contract,
        method: &'static str,
        key: Cow<'a, str>,
        arguments: Option<&'a RawValue>,
    ) -> Self {
        if method == "tools/call" && contract.catalog_call() == Some(&*key) {
            if let Ok(inner) = InnerCall::read(arguments) {
                return Self {
                    method,
                    key: inner.name,
                    arguments: inner.arguments.map(Cow::Borrowed),
                };
            }
        }
        Self {
            method,
            key,
            arguments: arguments.map(Cow::Borrowed),
        }
    }

    /// The target of a call of the contract method `method` on the plain JSON-RPC endpoint:
    /// its MCP face, or (with `unexposed` on, or a contract that names no faces) the plain
    /// method itself; [`NotServed`] for a method MCP does not expose.
    pub fn of_plain(
        contract: &Contract,
        method: &'a str,
        params: Option<&'a RawValue>,
        unexposed: bool,
    ) -> Result<Self, NotServed> {
        match contract.face(method) {
            Some(face) => Ok(Self {
                method: face.method,
                key: Cow::Borrowed(face.key),
                arguments: named(&face, params),
            }),
            None if unexposed || !contract.names_faces() => Ok(Self {
                method: PLAIN,
                key: Cow::Borrowed(method),
                arguments: params.map(Cow::Borrowed),
            }),
            None => Err(NotServed),
        }
    }

    /// This target, owning what it borrowed (kept across an await).
    pub fn into_owned(self) -> Target<'static> {
        Target {
            method: self.method,
            key: Cow::Owned(self.key.into_owned()),
            arguments: self.arguments.map(|a| Cow::Owned(a.into_owned())),
        }
    }

    /// The scopes the contract requires of this call.
    pub fn required_scopes(&self, contract: &Contract) -> &'static [&'static str] {
        contract.required_scopes(self.method, &self.key)
    }

    /// The key of the call's own rate-limit bucket: a read of a URI that is no resource of its
    /// own is counted by the template it matches (a template's limit is the template's,
    /// whatever the variables), anything else by its key.
    pub fn limit_key(&self, contract: &Contract) -> Cow<'_, str> {
        let catalog = contract.catalog();
        // A resource of its own is read as itself, before any template (as the engine reads it).
        if self.method == "resources/read" && !catalog.resources.iter().any(|r| r.key == self.key) {
            let templates = catalog.resource_templates;
            if let Some(template) = templates.iter().find(|t| {
                t.key == self.key || crate::uri_template::match_uri(t.key, &self.key).is_some()
            }) {
                return Cow::Borrowed(template.key);
            }
        }
        Cow::Borrowed(&self.key)
    }
}

/// The OpenRPC document `rpc.discover` answers: the contract's, without the methods the plain
/// endpoint does not serve ([`Target::of_plain`]); `None` without a document.
pub(crate) fn plain_document(contract: &Contract, unexposed: bool) -> Option<String> {
    let document = contract.openrpc_document()?;
    if unexposed || !contract.names_faces() {
        return Some(document.to_owned());
    }
    let mut value: serde_json::Value = serde_json::from_str(document).ok()?;
    if let Some(methods) = value.get_mut("methods").and_then(|m| m.as_array_mut()) {
        methods.retain(|method| {
            method["name"]
                .as_str()
                .is_some_and(|name| contract.face(name).is_some())
        });
    }
    Some(value.to_string())
}

/// How many methods of the contract's OpenRPC document have no MCP face: what
/// [`crate::config::Endpoints::jsonrpc_unexposed`] adds to the plain endpoint.
pub(crate) fn unexposed_methods(contract: &Contract) -> usize {
    let Some(document) = contract.openrpc_document() else {
        return 0;
    };
    let value: serde_json::Value = serde_json::from_str(document).unwrap_or_default();
    value["methods"].as_array().map_or(0, |methods| {
        methods
            .iter()
            .filter(|m| {
                m["name"]
                    .as_str()
                    .is_some_and(|n| contract.face(n).is_none())
            })
            .count()
    })
}

/// `params` by name: as they are when sent as an object (or absent), else the array's items
/// named with `face`'s params in order (items past them are dropped: the method's own
/// decoding refuses them). `None` for params that are neither.
fn named<'a>(face: &Face, params: Option<&'a RawValue>) -> Option<Cow<'a, RawValue>> {
    let params = params?;
    if !params.get().trim_start().starts_with('[') {
        return Some(Cow::Borrowed(params));
    }
    let items: Vec<&RawValue> = serde_json::from_str(params.get()).ok()?;
    let mut object = String::with_capacity(params.get().len() + 16 * face.params.len());
    object.push('{');
    for (i, (name, item)) in face.params.iter().zip(items).enumerate() {
        if i > 0 {
            object.push(',');
        }
        object.push_str(&serde_json::to_string(name).ok()?);
        object.push(':');
        object.push_str(item.get());
    }
    object.push('}');
    RawValue::from_string(object).ok().map(Cow::Owned)
}

/// The arguments of a catalog's `call_tool`: the tool that runs and its arguments, borrowed
/// from the request. The catalog reads them with this too, so the policy and the call agree
/// on the name to the byte (escapes, duplicates and unknown members alike).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct InnerCall<'r> {
    #[serde(borrow)]
    pub name: Cow<'r, str>,
    #[serde(borrow)]
    pub arguments: Option<&'r RawValue>,
}

impl<'r> InnerCall<'r> {
    /// Reads `arguments` (absent: `{}`); the error is the reason.
    pub fn read(arguments: Option<&'r RawValue>) -> Result<Self, String> {
        serde_json::from_str(arguments.map_or("{}", RawValue::get)).map_err(|e| e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(text: &str) -> Box<RawValue> {
        RawValue::from_string(text.to_owned()).unwrap()
    }

    #[test]
    fn positional_params_are_named_by_the_face() {
        let face = Face::tool("transfer", &["to", "amount"]);
        let params = raw(r#"[ "bob" , {"v":1} ]"#);
        let named = named(&face, Some(&params)).unwrap();
        assert_eq!(named.get(), r#"{"to":"bob","amount":{"v":1}}"#);
        let object = raw(r#"{"amount":2}"#);
        assert!(matches!(named_of(&face, &object), Cow::Borrowed(_)));
    }

    fn named_of<'a>(face: &Face, params: &'a RawValue) -> Cow<'a, RawValue> {
        named(face, Some(params)).unwrap()
    }

    #[test]
    fn an_inner_call_reads_escaped_names_and_refuses_duplicates() {
        let escaped = raw(r#"{"arguments":{},"name":"get\u005fbalance"}"#);
        assert_eq!(InnerCall::read(Some(&escaped)).unwrap().name, "get_balance");
        let twice = raw(r#"{"name":"a","name":"b"}"#);
        assert!(InnerCall::read(Some(&twice)).is_err());
    }
}
