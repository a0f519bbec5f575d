//! The one reader: every transport turns a message's bytes into an [`Incoming`] here.
//!
//! A message is read once. Its envelope members are borrowed from the bytes; the params of a
//! call (`tools/call`, `prompts/get`, `resources/read`) are read as the call's members in the
//! same pass when the method is known before them (clients write `method` first, and a
//! 2026-07-28 request names it in its `Mcp-Method` header); other params stay raw text for the
//! method's own type. Anything unusual (a member of the wrong type inside a call's params)
//! is read a second time with the params raw, so the engine can answer `-32602` with the
//! request's id instead of losing it.
//!
//! The envelope rules are the same for every transport and every era: `jsonrpc` is `"2.0"`,
//! an `id` is a string or a number, a response has exactly one of `result` and `error`.

use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;
use std::fmt;

use super::fixed_name::FixedName;
use super::method::Method;
use super::params::{self, RequestParams};
use crate::jsonrpc::{RpcError, INVALID_REQUEST, PARSE_ERROR};
use crate::policy::Target;
use crate::session::ClientAnswer;

/// One incoming JSON-RPC message, borrowed from its bytes.
pub(crate) enum Incoming<'a> {
    /// A request: it gets an answer.
    Request(Request<'a>),
    /// A notification: no answer.
    Notification {
        method: &'a str,
        params: Option<&'a RawValue>,
    },
    /// The client's answer to a request the server sent.
    Response {
        id: &'a RawValue,
        answer: ClientAnswer,
    },
}

/// A request: its id (a string or a number), method and params.
pub(crate) struct Request<'a> {
    pub id: &'a RawValue,
    pub method: &'a str,
    pub params: Params<'a>,
}

impl<'a> Request<'a> {
    /// What a call names, read from the members the engine will run it with: its method
    /// (`tools/call`, `prompts/get`, `resources/read`), the tool or prompt name or the
    /// resource URI, and its `arguments`. `None` for other methods, and for a call whose
    /// params did not read as members, which the engine refuses with `-32602` before anything
    /// runs. The policy's view of a call starts here ([`Request::target`]).
    pub fn call(&self) -> Option<(&'static str, &str, Option<&'a RawValue>)> {
        let Params::Members(members) = &self.params else {
            return None;
        };
        let (method, key) = match Method::of(self.method) {
            Method::ToolsCall => ("tools/call", members.name.as_deref()?),
            Method::PromptsGet => ("prompts/get", members.name.as_deref()?),
            Method::ResourcesRead => ("resources/read", members.uri.as_deref()?),
            _ => return None,
        };
        Some((method, key, members.arguments))
    }

    /// The target the policy decides this call on ([`Target`]): `None` for a request that is
    /// not a call (and for a call whose params did not read, which the engine refuses with
    /// `-32602`).
    pub fn target(&self, contract: &crate::dispatch::Contract) -> Option<Target<'_>> {
        let (method, key, arguments) = self.call()?;
        Some(Target::of_call(
            contract,
            method,
            std::borrow::Cow::Borrowed(key),
            arguments,
        ))
    }
}

/// A request's params, as the reader left them.
pub(crate) enum Params<'a> {
    /// The raw text (absent or `null`: none), for the method to read.
    Raw(Option<&'a RawValue>),
    /// A call's members, read with the envelope.
    Members(RequestParams<'a>),
}

impl<'a> Params<'a> {
    /// The raw text, for the methods that read their own params (`None` for members, which
    /// only the call methods have).
    pub fn raw(&self) -> Option<&'a RawValue> {
        match self {
            Params::Raw(raw) => *raw,
            Params::Members(_) => None,
        }
    }

    /// The members the runtime reads itself: as read, or parsed from the raw text now
    /// (`-32602` when they do not fit).
    pub fn into_members(self) -> Result<RequestParams<'a>, RpcError> {
        match self {
            Params::Members(members) => Ok(members),
            Params::Raw(raw) => RequestParams::parse(raw),
        }
    }

    /// Whether the params are a JSON object or absent (JSON-RPC also allows an array, which
    /// no MCP method takes).
    pub fn is_object_or_absent(&self) -> bool {
        match self {
            Params::Members(_) | Params::Raw(None) => true,
            Params::Raw(Some(raw)) => raw.get().trim_start().starts_with('{'),
        }
    }

    /// The protocol version the params' `_meta` names (a 2026-07-28 request's).
    pub fn meta_version(&self) -> Option<&'a str> {
        match self {
            Params::Members(members) => members.meta.as_ref()?.protocol_version,
            Params::Raw(raw) => params::meta_version(*raw),
        }
    }

    /// Whether the params carry a non-null `_meta` (which makes a request without a session
    /// a 2026-07-28 one).
    pub fn has_meta(&self) -> bool {
        match self {
            Params::Members(members) => members.meta.is_some(),
            Params::Raw(raw) => params::has_meta(*raw),
        }
    }
}

/// Reads one message. `announced` is the method a header named before the body was read (the
/// 2026-07-28 `Mcp-Method`), so that a call's params are read as members wherever they stand;
/// a body whose method differs is refused later, by the era's checks.
///
/// Text that is not JSON is `-32700`; JSON that is not a valid message is `-32600`.
pub(crate) fn read<'a>(text: &'a str, announced: Option<&str>) -> Result<Incoming<'a>, RpcError> {
    let mut reader = EnvelopeReader {
        announced,
        members: true,
    };
    let envelope = match reader.read(text) {
        Ok(envelope) => envelope,
        // A call's params did not fit its members: read again, params raw.
        Err(_) => {
            reader.members = false;
            reader.read(text).map_err(|e| reading_error(text, e))?
        }
    };
    envelope.into_message()
}

/// Reads one message of the plain JSON-RPC endpoint: the same envelope rules as [`read`], but
/// every method's params stay raw text (the contract's methods decode their own, and a
/// contract method may bear any name, an MCP one included).
pub(crate) fn read_plain(text: &str) -> Result<Incoming<'_>, RpcError> {
    let reader = EnvelopeReader {
        announced: None,
        members: false,
    };
    reader
        .read(text)
        .map_err(|e| reading_error(text, e))?
        .into_message()
}

/// Reads a batch (a JSON array) into its elements, each for [`read`]. An empty array is
/// `-32600`, text that is not JSON `-32700`.
pub(crate) fn read_batch(text: &str) -> Result<Vec<&RawValue>, RpcError> {
    let messages: Vec<&RawValue> =
        serde_json::from_str(text).map_err(|e| reading_error(text, e))?;
    if messages.is_empty() {
        return Err(RpcError::new(
            INVALID_REQUEST,
            "Invalid Request: an empty batch",
        ));
    }
    Ok(messages)
}

/// `-32600` when `messages` are more than a batch may hold
/// ([`crate::config::Streams::max_batch_len`]).
pub(crate) fn check_batch_len(messages: &[&RawValue], max: usize) -> Result<(), RpcError> {
    if messages.len() <= max {
        return Ok(());
    }
    Err(RpcError::new(
        INVALID_REQUEST,
        format!(
            "Invalid Request: a batch of {} messages, more than the server takes (config.streams.max_batch_len = {max})",
            messages.len()
        ),
    ))
}

/// Whether `text` is a batch (its first non-blank character opens an array).
pub(crate) fn is_batch(text: &str) -> bool {
    text.trim_start().starts_with('[')
}

/// The JSON-RPC error for text serde could not read as a message.
#[cold]
fn reading_error(text: &str, error: serde_json::Error) -> RpcError {
    if error.is_syntax() || error.is_eof() {
        return RpcError::new(PARSE_ERROR, format!("Parse error: {error}"));
    }
    // A type error may come before a syntax error later in the text: only a full check
    // tells which of the two the client gets.
    match serde_json::from_str::<IgnoredAny>(text) {
        Err(syntax) => RpcError::new(PARSE_ERROR, format!("Parse error: {syntax}")),
        Ok(_) => RpcError::new(INVALID_REQUEST, format!("Invalid Request: {error}")),
    }
}

#[cold]
fn invalid(message: &'static str) -> RpcError {
    RpcError::new(INVALID_REQUEST, message)
}

/// The envelope members as read, before the rules that make them a message.
#[derive(Default)]
struct Envelope<'a> {
    jsonrpc: Option<&'a str>,
    id: Option<&'a RawValue>,
    method: Option<&'a str>,
    params: Option<Params<'a>>,
    result: Option<&'a RawValue>,
    error: Option<&'a RawValue>,
}

impl<'a> Envelope<'a> {
    fn into_message(self) -> Result<Incoming<'a>, RpcError> {
        if self.jsonrpc != Some("2.0") {
            return Err(invalid("Invalid Request: jsonrpc must be \"2.0\""));
        }
        if let Some(id) = self.id {
            if !is_valid_id(id) {
                return Err(invalid("Invalid Request: id must be a string or a number"));
            }
            if id.get().len() > MAX_ID_BYTES {
                return Err(invalid(
                    "Invalid Request: an id longer than 1024 bytes (the server keeps each running request's id)",
                ));
            }
        }
        let params = self.params.unwrap_or(Params::Raw(None));
        match (self.method, self.id) {
            (Some(method), Some(id)) => Ok(Incoming::Request(Request { id, method, params })),
            (Some(method), None) => Ok(Incoming::Notification {
                method,
                params: params.raw(),
            }),
            (None, Some(id)) => {
                let answer = match (self.result, self.error) {
                    (Some(result), None) => Ok(result.to_owned()),
                    (None, Some(error)) => {
                        Err(serde_json::from_str(error.get()).unwrap_or(serde_json::Value::Null))
                    }
                    _ => {
                        return Err(invalid(
                            "Invalid Request: a response needs exactly one of result and error",
                        ))
                    }
                };
                Ok(Incoming::Response { id, answer })
            }
            (None, None) => Err(invalid("Invalid Request: no method and no id")),
        }
    }
}

/// The longest id the server takes, as its JSON text: a session keeps the id of each
/// request it runs (to cancel it, to refuse a duplicate) and may tell the other instances of a
/// deployment about it, so its size is the client's choice only up to here. Clients use
/// counters and UUIDs, far shorter.
pub(crate) const MAX_ID_BYTES: usize = 1024;

/// A JSON-RPC id is a string or a number (`null`, objects, arrays and booleans are not).
fn is_valid_id(id: &RawValue) -> bool {
    matches!(id.get().as_bytes().first(), Some(b'"' | b'-' | b'0'..=b'9'))
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

/// How to read one envelope: whether a call's params may be read as members, and the method
/// a header announced.
#[derive(Clone, Copy)]
struct EnvelopeReader<'h> {
    announced: Option<&'h str>,
    members: bool,
}

impl EnvelopeReader<'_> {
    fn read<'a>(&self, text: &'a str) -> Result<Envelope<'a>, serde_json::Error> {
        let mut deserializer = serde_json::Deserializer::from_str(text);
        let envelope = (&mut deserializer).deserialize_map(*self)?;
        deserializer.end()?;
        Ok(envelope)
    }
}

impl<'de> Visitor<'de> for EnvelopeReader<'_> {
    type Value = Envelope<'de>;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a JSON-RPC message (an object)")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        use serde::de::Error;
        let mut envelope = Envelope::default();
        while let Some(member) = map.next_key::<Member>()? {
            let duplicate = match member {
                Member::Jsonrpc => {
                    let name: FixedName<'de> = map.next_value()?;
                    envelope.jsonrpc.replace(name.0).is_some()
                }
                Member::Id => envelope.id.replace(map.next_value()?).is_some(),
                Member::Method => {
                    let name: FixedName<'de> = map.next_value()?;
                    envelope.method.replace(name.0).is_some()
                }
                Member::Result => envelope.result.replace(map.next_value()?).is_some(),
                Member::Error => envelope.error.replace(map.next_value()?).is_some(),
                Member::Params => {
                    let method = envelope.method.or(self.announced);
                    let params = if self.members && method.is_some_and(Method::is_call_name) {
                        match map.next_value::<Option<RequestParams<'de>>>()? {
                            Some(members) => Params::Members(members),
                            None => Params::Raw(None),
                        }
                    } else {
                        let raw: &'de RawValue = map.next_value()?;
                        Params::Raw(Some(raw).filter(|raw| raw.get() != "null"))
                    };
                    envelope.params.replace(params).is_some()
                }
                Member::Other => {
                    map.next_value::<IgnoredAny>()?;
                    false
                }
            };
            if duplicate {
                return Err(A::Error::custom("a member appears twice"));
            }
        }
        if self.members && matches!(envelope.params, Some(Params::Raw(Some(_)))) {
            envelope.read_call_members();
        }
        Ok(envelope)
    }
}

impl<'a> Envelope<'a> {
    /// A call whose params came before its `method` (and no header announced it) had them
    /// kept raw: read them as the call's members now. Every decision taken before the engine
    /// runs (authorization above all) and the engine itself then read one parse, whatever the
    /// order of the members. Params that do not fit stay raw: the engine refuses them with
    /// `-32602`, and nothing runs.
    fn read_call_members(&mut self) {
        let (Some(method), Some(Params::Raw(Some(raw)))) = (self.method, &self.params) else {
            return;
        };
        if !Method::is_call_name(method) {
            return;
        }
        // Cold: clients write `method` first; this is the rare order.
        if let Ok(members) = serde_json::from_str::<RequestParams<'a>>(raw.get()) {
            self.params = Some(Params::Members(members));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(text: &str) -> Request<'_> {
        match read(text, None) {
            Ok(Incoming::Request(request)) => request,
            Ok(_) => panic!("not a request: {text}"),
            Err(error) => panic!("{text}: {error}"),
        }
    }

    fn error_code(text: &str) -> i32 {
        match read(text, None) {
            Err(error) => error.code,
            Ok(_) => panic!("read: {text}"),
        }
    }

    #[test]
    fn a_call_is_read_with_its_members() {
        let call = request(
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},"_meta":{"progressToken":"p"}},"extra":[1]}"#,
        );
        assert_eq!((call.id.get(), call.method), ("7", "tools/call"));
        let Params::Members(members) = call.params else {
            panic!("members expected")
        };
        assert_eq!(members.name.as_deref(), Some("echo"));
        assert_eq!(members.arguments.unwrap().get(), r#"{"text":"hi"}"#);
        assert_eq!(members.progress_token().unwrap().get(), r#""p""#);
    }

    #[test]
    fn other_params_stay_raw() {
        for text in [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":"2"}}"#,
            // Members of the wrong type: read again raw, for the engine's -32602.
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":5}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":[1]}"#,
        ] {
            assert!(
                matches!(request(text).params, Params::Raw(Some(_))),
                "{text}"
            );
        }
        let null = request(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":null}"#);
        assert!(matches!(null.params, Params::Raw(None)));
    }

    #[test]
    fn a_call_is_read_with_its_members_whatever_the_order() {
        for text in [
            r#"{"params":{"name":"echo"},"jsonrpc":"2.0","id":1,"method":"tools/call"}"#,
            r#"{"id":1,"params":{"name":"echo"},"method":"tools\/call","jsonrpc":"2.0"}"#,
            r#"{"jsonrpc":"2.0","params":{"n\u0061me":"\u0065cho"},"method":"tools/call","id":1}"#,
        ] {
            let call = request(text);
            assert!(matches!(call.params, Params::Members(_)), "{text}");
            assert_eq!(call.call().map(|c| c.1), Some("echo"), "{text}");
        }
        let read = request(
            r#"{"params":{"uri":"file:///a"},"id":1,"jsonrpc":"2.0","method":"resources/read"}"#,
        );
        assert_eq!(read.call().map(|c| c.1), Some("file:///a"));
        // Params that do not fit stay raw, for the engine's -32602.
        let wrong =
            request(r#"{"params":{"name":5},"jsonrpc":"2.0","id":1,"method":"tools/call"}"#);
        assert!(matches!(wrong.params, Params::Raw(Some(_))));
        assert!(wrong.call().is_none());
    }

    #[test]
    fn an_announced_call_is_read_whole_wherever_its_params_stand() {
        let text = r#"{"params":{"name":"echo"},"jsonrpc":"2.0","id":1,"method":"tools/call"}"#;
        let Ok(Incoming::Request(call)) = read(text, Some("tools/call")) else {
            panic!("a request")
        };
        assert!(matches!(call.params, Params::Members(_)));
    }

    #[test]
    fn ids_are_strings_or_numbers() {
        assert_eq!(
            request(r#"{"jsonrpc":"2.0","id":"a","method":"ping"}"#)
                .id
                .get(),
            r#""a""#
        );
        assert_eq!(
            request(r#"{"jsonrpc":"2.0","id":-1.5,"method":"ping"}"#)
                .id
                .get(),
            "-1.5"
        );
        let longest = format!(r#""{}""#, "i".repeat(MAX_ID_BYTES - 2));
        let text = format!(r#"{{"jsonrpc":"2.0","id":{longest},"method":"ping"}}"#);
        assert_eq!(request(&text).id.get(), longest);
        let longer = format!(r#""{}""#, "i".repeat(MAX_ID_BYTES - 1));
        for id in [longer.as_str(), "null", "{}", "[]", "true", "false"] {
            let text = format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"x"}}}}"#
            );
            assert_eq!(error_code(&text), -32600, "{text}");
        }
    }

    #[test]
    fn envelope_errors_have_their_codes() {
        for (text, code) in [
            (r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#, -32600),
            (r#"{"id":1,"method":"ping"}"#, -32600),
            (r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}"#, -32600),
            (r#"{"jsonrpc":"2.0"}"#, -32600),
            (r#"{"jsonrpc":"2.0","id":1,"result":{},"error":{}}"#, -32600),
            (r#"{"jsonrpc":"2.0","id":1,"method":5}"#, -32600),
            (r#""a string""#, -32600),
            (r#"{"jsonrpc":"2.0","id":1,"method":"ping""#, -32700),
            (r#"{"jsonrpc":"2.0","id":1,"method":"ping"} x"#, -32700),
            (r#"{"jsonrpc":2,"method":"ping","params":{"a":}}"#, -32700),
        ] {
            assert_eq!(error_code(text), code, "{text}");
        }
    }

    #[test]
    fn notifications_and_responses() {
        assert!(matches!(
            read(
                r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
                None
            ),
            Ok(Incoming::Notification {
                method: "notifications/initialized",
                params: None
            })
        ));
        assert!(matches!(
            read(r#"{"jsonrpc":"2.0","id":"s1","result":{"roots":[]}}"#, None),
            Ok(Incoming::Response { answer: Ok(_), .. })
        ));
        assert!(matches!(
            read(
                r#"{"jsonrpc":"2.0","id":"s1","error":{"code":1,"message":"no"}}"#,
                None
            ),
            Ok(Incoming::Response { answer: Err(_), .. })
        ));
    }

    #[test]
    fn plain_messages_keep_their_params_raw() {
        let text = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}"#;
        let Ok(Incoming::Request(request)) = read_plain(text) else {
            panic!("a request")
        };
        assert_eq!(request.params.raw().unwrap().get(), r#"{"name":"echo"}"#);
        assert_eq!(read_plain("{").err().unwrap().code, -32700);
        assert_eq!(
            read_plain(r#"{"id":1,"method":"m"}"#).err().unwrap().code,
            -32600
        );
    }

    #[test]
    fn batches() {
        assert_eq!(read_batch("[]").unwrap_err().code, -32600);
        assert_eq!(read_batch("[1,").unwrap_err().code, -32700);
        assert_eq!(read_batch("[1,2]").unwrap().len(), 2);
        assert!(is_batch(" \n[1]") && !is_batch("{}"));
    }
}
