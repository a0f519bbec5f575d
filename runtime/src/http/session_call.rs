//! A call in a session (`tools/call`, `prompts/get`, `resources/read`) read in one pass.
//!
//! The general reader ([`classify`](crate::jsonrpc::classify)) keeps `params` as raw text,
//! which the call then parses again for its members: two passes over the params. A session
//! request carries no header naming its method, but clients write `method` before `params`,
//! so a reader that meets the method first can read the params as the call's members at once.
//!
//! Its stateless twin, [`read_call`](super::stateless::read_call), needs no such order: the
//! `Mcp-Method` header has named the call before the body is read, so it reads the params as
//! members wherever they stand, and leaves a body method that differs from the header to
//! validation.

use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;
use std::fmt;

use super::stateless::CallRequest;
use crate::params::{self, RequestParams};

/// Reads `text` as a call request in one pass; `None` when it is anything else (another
/// method, a notification, a response, params before the method, a duplicate member, any
/// error): the general reader then reads it and gives every error its exact code.
pub(crate) fn read_session_call(text: &str) -> Option<CallRequest<'_>> {
    let envelope: CallEnvelope<'_> = serde_json::from_str(text).ok()?;
    if envelope.jsonrpc != Some("2.0") {
        return None;
    }
    Some(CallRequest {
        // A `null` id is a notification's (which the general reader tells apart).
        id: envelope.id.filter(|id| id.get().trim() != "null")?,
        method: envelope.method?,
        fields: envelope.fields?,
    })
}

/// The members of a request envelope, with the params of a call method named before them
/// read as [`RequestParams`].
#[derive(Default)]
struct CallEnvelope<'a> {
    jsonrpc: Option<&'a str>,
    id: Option<&'a RawValue>,
    method: Option<&'a str>,
    fields: Option<RequestParams<'a>>,
}

/// The envelope members, as serde names the fields of a derived struct.
#[derive(Deserialize)]
#[serde(field_identifier, rename_all = "lowercase")]
enum Member {
    Jsonrpc,
    Id,
    Method,
    Params,
    Result,
    Error,
    #[serde(other)]
    Other,
}

impl<'de> Deserialize<'de> for CallEnvelope<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(EnvelopeVisitor)
    }
}

struct EnvelopeVisitor;

impl<'de> Visitor<'de> for EnvelopeVisitor {
    type Value = CallEnvelope<'de>;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a JSON-RPC call request")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        use serde::de::Error;
        let mut envelope = CallEnvelope::default();
        // Any member met twice ends the fast read: the general reader reports it.
        while let Some(member) = map.next_key::<Member>()? {
            match member {
                Member::Jsonrpc if envelope.jsonrpc.is_none() => {
                    envelope.jsonrpc = Some(map.next_value()?)
                }
                Member::Id if envelope.id.is_none() => envelope.id = Some(map.next_value()?),
                Member::Method if envelope.method.is_none() => {
                    envelope.method = Some(map.next_value()?)
                }
                Member::Params
                    if envelope.fields.is_none()
                        && envelope.method.is_some_and(params::is_call) =>
                {
                    envelope.fields = Some(map.next_value()?)
                }
                Member::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
                // Params before the method or of another method, a response member, a
                // duplicate, or a `null` where a value must be.
                _ => return Err(A::Error::custom("not a call request")),
            }
        }
        Ok(envelope)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_is_read_with_its_members() {
        let call = read_session_call(
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},"_meta":{"progressToken":"p"}},"extra":[1]}"#,
        )
        .expect("a call");
        assert_eq!(call.id.get(), "7");
        assert_eq!(call.method, "tools/call");
        assert_eq!(call.fields.name.as_deref(), Some("echo"));
        assert_eq!(
            call.fields.arguments.map(RawValue::get),
            Some(r#"{"text":"hi"}"#)
        );
        assert_eq!(
            call.fields.progress_token().map(RawValue::get),
            Some(r#""p""#)
        );
    }

    #[test]
    fn everything_else_goes_to_the_general_reader() {
        for text in [
            // Not a call method, or no params to read.
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call"}"#,
            // Params before the method.
            r#"{"jsonrpc":"2.0","id":1,"params":{"name":"echo"},"method":"tools/call"}"#,
            // A notification, a response, a wrong or missing version.
            r#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
            r#"{"jsonrpc":"1.0","id":1,"method":"tools/call","params":{"name":"echo"}}"#,
            r#"{"id":1,"method":"tools/call","params":{"name":"echo"}}"#,
            // Duplicates, nulls, members of the wrong type, bad JSON.
            r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"tools/call","params":{"name":"echo"}}"#,
            r#"{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{"name":"echo"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":null}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":5}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}} x"#,
        ] {
            assert!(read_session_call(text).is_none(), "{text}");
        }
    }
}
