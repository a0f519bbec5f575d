//! The `params` members the runtime reads itself, parsed in one pass per request.

use serde::Deserialize;
use serde_json::value::RawValue;
use std::borrow::Cow;

use crate::jsonrpc::RpcError;
use crate::mcp::LoggingLevel;

/// The `params._meta` members the runtime reads.
#[derive(Deserialize, Default)]
pub(crate) struct RequestMeta<'a> {
    /// 2026-07-28: the request's protocol version.
    #[serde(
        rename = "io.modelcontextprotocol/protocolVersion",
        borrow,
        default,
        deserialize_with = "crate::engine::fixed_name::optional"
    )]
    pub protocol_version: Option<&'a str>,
    /// 2026-07-28: the client's capabilities.
    #[serde(rename = "io.modelcontextprotocol/clientCapabilities", borrow, default)]
    pub client_capabilities: Option<&'a RawValue>,
    /// 2026-07-28: the minimum log level wanted on this request.
    #[serde(rename = "io.modelcontextprotocol/logLevel", default)]
    pub log_level: Option<LoggingLevel>,
    /// The token progress notifications name, when the client wants them.
    #[serde(rename = "progressToken", borrow, default)]
    pub progress_token: Option<&'a RawValue>,
    /// The W3C trace context of the client's span (the MCP convention; feature `trace`): kept
    /// as text, checked by `telemetry::TraceContext::parse`; a value of another type is
    /// ignored, never an error.
    #[cfg(feature = "trace")]
    #[serde(borrow, default, deserialize_with = "crate::json::lenient_str")]
    pub traceparent: Option<&'a str>,
    /// The W3C `tracestate` that goes with `traceparent` (feature `trace`).
    #[cfg(feature = "trace")]
    #[serde(borrow, default, deserialize_with = "crate::json::lenient_str")]
    pub tracestate: Option<&'a str>,
    /// `otel`: what the client asks of server-execution telemetry (draft SEP-2448; feature
    /// `otel`), read only when the member is there (one byte: the request types stay as
    /// small as they were); the engine looks at it only when the server returns traces.
    #[cfg(feature = "otel")]
    #[serde(default, deserialize_with = "crate::telemetry::passback::asked_member")]
    pub otel: Option<crate::telemetry::Asked>,
}

#[cfg(feature = "trace")]
impl<'a> RequestMeta<'a> {
    /// `traceparent` and `tracestate`, when a `traceparent` came.
    pub fn trace(&self) -> Option<(&'a str, Option<&'a str>)> {
        Some((self.traceparent?, self.tracestate))
    }
}

/// The members of the MCP methods the runtime routes itself (`tools/call`, `prompts/get`,
/// `resources/read`, `tasks/*`) and of every stateless request. Members a method does not
/// have stay `None`; unknown members are ignored.
///
/// Read only from a JSON object (a derived struct would also take an array, by position),
/// by a visitor written out: it is the one request-path parse of every call's params.
#[derive(Default)]
pub(crate) struct RequestParams<'a> {
    pub meta: Option<RequestMeta<'a>>,
    pub name: Option<Cow<'a, str>>,
    pub uri: Option<Cow<'a, str>>,
    pub arguments: Option<&'a RawValue>,
    pub task_id: Option<Cow<'a, str>>,
    /// 2026-07-28 retry: the answers to the previous round's input requests.
    pub input_responses: Option<&'a RawValue>,
    /// 2026-07-28 retry: the sealed state of the previous round.
    pub request_state: Option<Cow<'a, str>>,
}

/// The members of [`RequestParams`], as serde names the fields of a derived struct.
#[derive(Deserialize, Clone, Copy)]
#[serde(field_identifier)]
enum Member {
    #[serde(rename = "_meta")]
    Meta,
    #[serde(rename = "name")]
    Name,
    #[serde(rename = "uri")]
    Uri,
    #[serde(rename = "arguments")]
    Arguments,
    #[serde(rename = "taskId")]
    TaskId,
    #[serde(rename = "inputResponses")]
    InputResponses,
    #[serde(rename = "requestState")]
    RequestState,
    #[serde(other)]
    Other,
}

impl<'de> Deserialize<'de> for RequestParams<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(MembersVisitor)
    }
}

struct MembersVisitor;

impl<'de> serde::de::Visitor<'de> for MembersVisitor {
    type Value = RequestParams<'de>;

    fn expecting(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("params as an object")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut params = RequestParams::default();
        // One bit per member seen: a member met twice is an error, as in a derived struct.
        let mut seen = 0u8;
        while let Some(member) = map.next_key::<Member>()? {
            let bit = match member {
                Member::Other => {
                    map.next_value::<serde::de::IgnoredAny>()?;
                    continue;
                }
                known => 1u8 << known as u8,
            };
            if seen & bit != 0 {
                return Err(serde::de::Error::custom("a member of params appears twice"));
            }
            seen |= bit;
            match member {
                Member::Meta => params.meta = map.next_value()?,
                Member::Name => params.name = next_text(&mut map)?,
                Member::Uri => params.uri = next_text(&mut map)?,
                Member::Arguments => params.arguments = map.next_value()?,
                Member::TaskId => params.task_id = next_text(&mut map)?,
                Member::InputResponses => params.input_responses = map.next_value()?,
                Member::RequestState => params.request_state = next_text(&mut map)?,
                Member::Other => {}
            }
        }
        Ok(params)
    }
}

/// The next value as an optional string, borrowed when it has no escapes.
fn next_text<'de, A: serde::de::MapAccess<'de>>(
    map: &mut A,
) -> Result<Option<Cow<'de, str>>, A::Error> {
    #[derive(Deserialize)]
    struct Borrowed<'a>(#[serde(borrow)] Cow<'a, str>);
    Ok(map
        .next_value::<Option<Borrowed<'de>>>()?
        .map(|text| text.0))
}

impl<'a> RequestParams<'a> {
    /// Parses `params` (absent means `{}`); `-32602` when it is not an object of these members.
    pub fn parse(params: Option<&'a RawValue>) -> Result<Self, RpcError> {
        match params {
            Some(params) => serde_json::from_str(params.get())
                .map_err(|e| RpcError::invalid_params(format!("Invalid params: {e}"))),
            None => Ok(Self::default()),
        }
    }

    /// `params._meta.progressToken`.
    pub fn progress_token(&self) -> Option<&'a RawValue> {
        self.meta.as_ref()?.progress_token
    }
}

/// The members `tools/call`, `prompts/get` and `resources/read` read, owned: what a call that
/// may outlive the request's bytes keeps (stateless, or in a session once read in one pass),
/// instead of a copy of all its params.
#[derive(Default)]
pub(crate) struct CallMembers {
    name: Option<String>,
    uri: Option<String>,
    arguments: Option<Box<RawValue>>,
    input_responses: Option<Box<RawValue>>,
    request_state: Option<String>,
}

impl CallMembers {
    /// `name`, which `tools/call` and `prompts/get` require.
    pub fn name(&self) -> Result<&str, RpcError> {
        self.name.as_deref().ok_or_else(|| missing("name"))
    }

    /// `uri`, which `resources/read` requires.
    pub fn uri(&self) -> Result<&str, RpcError> {
        self.uri.as_deref().ok_or_else(|| missing("uri"))
    }

    /// The tool's or prompt's `arguments` (absent: none).
    pub fn arguments(&self) -> Option<&RawValue> {
        self.arguments.as_deref()
    }

    /// 2026-07-28 retry: the answers to the previous round's input requests.
    pub fn input_responses(&self) -> Option<&RawValue> {
        self.input_responses.as_deref()
    }

    /// 2026-07-28 retry: the sealed state of the previous round.
    pub fn request_state(&self) -> Option<&str> {
        self.request_state.as_deref()
    }

    /// Whether this is the retry of a multi round-trip request.
    pub fn is_retry(&self) -> bool {
        self.input_responses.is_some() || self.request_state.is_some()
    }
}

impl RequestParams<'_> {
    /// The members a call keeps (see [`CallMembers`]).
    pub fn call_members(&self) -> CallMembers {
        CallMembers {
            name: self.name.as_deref().map(str::to_string),
            uri: self.uri.as_deref().map(str::to_string),
            arguments: self.arguments.map(RawValue::to_owned),
            input_responses: self.input_responses.map(RawValue::to_owned),
            request_state: self.request_state.as_deref().map(str::to_string),
        }
    }
}

fn missing(member: &str) -> RpcError {
    RpcError::invalid_params(format!("Invalid params: missing field `{member}`"))
}

/// Whether raw params carry a non-null `_meta` (which makes a request without a session a
/// 2026-07-28 one). Params that never mention it (nearly all session-era ones) are not
/// parsed.
pub(crate) fn has_meta(params: Option<&RawValue>) -> bool {
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

/// The `_meta` protocol version of raw params, which makes a stdio request a 2026-07-28
/// one. Params that never mention it are not parsed.
pub(crate) fn meta_version(params: Option<&RawValue>) -> Option<&str> {
    #[derive(Deserialize)]
    struct MetaOnly<'a> {
        #[serde(rename = "_meta", borrow, default)]
        meta: Option<VersionOnly<'a>>,
    }
    #[derive(Deserialize)]
    struct VersionOnly<'a> {
        #[serde(
            rename = "io.modelcontextprotocol/protocolVersion",
            borrow,
            default,
            deserialize_with = "crate::engine::fixed_name::optional"
        )]
        version: Option<&'a str>,
    }
    let params = params.filter(|p| p.get().contains("io.modelcontextprotocol/protocolVersion"))?;
    let parsed: MetaOnly<'_> = serde_json::from_str(params.get()).ok()?;
    parsed.meta?.version
}

/// The progress token of any request's params. Params that never mention one (nearly all)
/// are not parsed at all.
pub(crate) fn progress_token(params: Option<&RawValue>) -> Option<&RawValue> {
    #[derive(Deserialize)]
    struct MetaOnly<'a> {
        #[serde(rename = "_meta", borrow, default)]
        meta: Option<ProgressOnly<'a>>,
    }
    #[derive(Deserialize)]
    struct ProgressOnly<'a> {
        #[serde(rename = "progressToken", borrow, default)]
        progress_token: Option<&'a RawValue>,
    }
    let params = params.filter(|p| p.get().contains("progressToken"))?;
    let parsed: MetaOnly<'_> = serde_json::from_str(params.get()).ok()?;
    parsed.meta?.progress_token
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(text: &str) -> Box<RawValue> {
        RawValue::from_string(text.to_string()).unwrap()
    }

    #[test]
    fn strings_are_borrowed_unless_escaped() {
        let text = raw(r#"{"name":"echo","uri":"a\"b","taskId":null}"#);
        let params = RequestParams::parse(Some(&text)).unwrap();
        assert!(matches!(params.name, Some(Cow::Borrowed("echo"))));
        assert!(matches!(params.uri.as_deref(), Some("a\"b")));
        assert!(matches!(params.uri, Some(Cow::Owned(_))));
        assert!(params.task_id.is_none() && params.request_state.is_none());
        assert!(RequestParams::parse(Some(&raw(r#"{"name":7}"#))).is_err());
    }

    #[test]
    fn one_pass_reads_every_member() {
        let text = raw(
            r#"{"name":"echo","arguments":{"text":"hi"},"_meta":{"progressToken":7,"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"requestState":"s","other":[1]}"#,
        );
        let params = RequestParams::parse(Some(&text)).unwrap();
        let call = params.call_members();
        assert_eq!(call.name().unwrap(), "echo");
        assert_eq!(params.arguments.unwrap().get(), r#"{"text":"hi"}"#);
        assert_eq!(params.progress_token().unwrap().get(), "7");
        assert!(call.is_retry());
        assert!(call
            .uri()
            .unwrap_err()
            .message
            .contains("missing field `uri`"));
    }

    #[cfg(feature = "trace")]
    #[test]
    fn trace_members_are_read_leniently() {
        use crate::telemetry::trace_meta;
        let text = raw(
            r#"{"name":"echo","_meta":{"traceparent":"00-ab-cd-01","tracestate":"a=b","progressToken":1}}"#,
        );
        let params = RequestParams::parse(Some(&text)).unwrap();
        let meta = params.meta.as_ref().unwrap();
        assert_eq!(meta.trace(), Some(("00-ab-cd-01", Some("a=b"))));
        assert_eq!(trace_meta(Some(&text)), Some(("00-ab-cd-01", Some("a=b"))));
        // Other types, escapes: ignored, and the rest of the params still reads.
        for odd in [r#"7"#, r#"{"a":[1]}"#, r#""a\"b""#, "null"] {
            let text = raw(&format!(
                r#"{{"name":"echo","_meta":{{"traceparent":{odd},"tracestate":{odd}}}}}"#
            ));
            let params = RequestParams::parse(Some(&text)).unwrap();
            assert_eq!(params.name.as_deref(), Some("echo"));
            assert!(params.meta.unwrap().trace().is_none(), "{odd}");
            assert!(trace_meta(Some(&text)).is_none(), "{odd}");
        }
        assert!(trace_meta(Some(&raw(r#"{"a":"traceparent"}"#))).is_none());
    }

    #[test]
    fn the_progress_probe_skips_params_without_a_token() {
        let with = raw(r#"{"_meta":{"progressToken":"p1"},"a":1}"#);
        assert_eq!(progress_token(Some(&with)).unwrap().get(), r#""p1""#);
        let mentioned_elsewhere = raw(r#"{"a":"progressToken"}"#);
        assert!(progress_token(Some(&mentioned_elsewhere)).is_none());
        assert!(progress_token(None).is_none());
    }
}
