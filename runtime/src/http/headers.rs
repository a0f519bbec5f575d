//! The request headers the endpoint reads, found in one pass over the header map.
//!
//! A lookup by name hashes the name every time; a request carries a handful of headers, so
//! one walk that compares names is cheaper than the ten lookups the endpoint would make.

use http::header::{HeaderValue, ACCEPT, CONTENT_TYPE, HOST, ORIGIN};
use http::HeaderMap;

use super::guard;
use crate::dispatch::Door;
use crate::engine::run::Source;
use crate::telemetry::TraceHeaders;

/// The media types a POST must accept.
const ACCEPTED: [&str; 2] = ["application/json", "text/event-stream"];

/// The `Accept` value the specification tells clients to send, and nearly all do: it is
/// compared whole before the general parser runs.
const USUAL_ACCEPT: &[u8] = b"application/json, text/event-stream";

/// The headers of one request that the endpoint reads (the first value of each, like
/// [`HeaderMap::get`]; a value that is not visible ASCII counts as absent; `Host` and `Origin`
/// are noted when repeated). Text values come
/// without surrounding whitespace.
pub(crate) struct Headers<'a> {
    /// All headers, for the rare ones (`Mcp-Param-*`, `Last-Event-ID`).
    pub map: &'a HeaderMap,
    pub host: Option<&'a HeaderValue>,
    pub origin: Option<&'a HeaderValue>,
    /// Whether `Host` or `Origin` came more than once: which one counts would be a guess.
    pub repeated_authority: bool,
    pub content_type: Option<&'a HeaderValue>,
    /// Whether some `Accept` value covers `application/json`.
    pub accepts_json: bool,
    /// Whether some `Accept` value covers `text/event-stream`.
    pub accepts_sse: bool,
    pub session_id: Option<&'a str>,
    pub protocol_version: Option<&'a str>,
    pub mcp_method: Option<&'a str>,
    pub mcp_name: Option<&'a str>,
    /// Who the request acts for, when authorization is on ([`Config::auth`](crate::config::Config::auth)): set by
    /// `route` after the headers are read.
    pub principal: Option<std::sync::Arc<crate::auth::Principal>>,
    /// The peer's address as a rate limit's key, under the runtime's own listener when rate
    /// limits are on (`None` embedded in another router): who a rate limit counts when there
    /// is no principal. Set by `route`.
    pub peer: Option<crate::rate_limit::PeerKey>,
}

impl<'a> Headers<'a> {
    /// Who a rate limit counts this request against: the principal, else the peer.
    pub fn caller(&self) -> crate::rate_limit::Caller<'_> {
        use crate::rate_limit::Caller;
        match (&self.principal, self.peer) {
            (Some(principal), _) => Caller::Principal(principal),
            (None, Some(peer)) => Caller::Peer(peer),
            (None, None) => Caller::Local,
        }
    }

    /// Reads `map` once.
    pub fn scan(map: &'a HeaderMap) -> Self {
        let mut headers = Headers {
            map,
            host: None,
            origin: None,
            repeated_authority: false,
            content_type: None,
            accepts_json: false,
            accepts_sse: false,
            session_id: None,
            protocol_version: None,
            mcp_method: None,
            mcp_name: None,
            principal: None,
            peer: None,
        };
        let mut seen_session = false;
        let mut seen_version = false;
        let mut seen_method = false;
        let mut seen_name = false;
        for (name, value) in map {
            if name == HOST {
                headers.repeated_authority |= headers.host.replace(value).is_some();
            } else if name == ORIGIN {
                headers.repeated_authority |= headers.origin.replace(value).is_some();
            } else if name == CONTENT_TYPE {
                headers.content_type.get_or_insert(value);
            } else if name == ACCEPT {
                let [json, sse] = if value.as_bytes() == USUAL_ACCEPT {
                    [true, true]
                } else {
                    guard::accepted_in(value, &ACCEPTED)
                };
                headers.accepts_json |= json;
                headers.accepts_sse |= sse;
            } else {
                let (slot, seen) = match name.as_str() {
                    super::SESSION_HEADER => (&mut headers.session_id, &mut seen_session),
                    super::VERSION_HEADER => (&mut headers.protocol_version, &mut seen_version),
                    "mcp-method" => (&mut headers.mcp_method, &mut seen_method),
                    "mcp-name" => (&mut headers.mcp_name, &mut seen_name),
                    _ => continue,
                };
                if !*seen {
                    *seen = true;
                    *slot = value.to_str().ok().map(str::trim_ascii);
                }
            }
        }
        headers
    }

    /// The W3C trace context headers, `traceparent` and `tracestate` (the first of each), when
    /// a `traceparent` came; nothing without the `trace` feature. A request's `_meta` ones come
    /// first: see `telemetry::trace_context`. Looked up here rather than kept by
    /// [`Headers::scan`]: `Headers` lives in every request's future, which must stay within
    /// the allocator's per-thread cache (1 KiB) in a build with telemetry too.
    pub fn trace(&self) -> TraceHeaders<'a> {
        #[cfg(feature = "trace")]
        {
            let first = |name: &str| {
                self.map
                    .get(name)
                    .and_then(|value| value.to_str().ok())
                    .map(str::trim_ascii)
            };
            TraceHeaders {
                value: first("traceparent").map(|parent| (parent, first("tracestate"))),
            }
        }
        #[cfg(not(feature = "trace"))]
        {
            TraceHeaders::default()
        }
    }

    /// Where a request of `/mcp` with these headers comes from: the principal the edge
    /// authenticated and the trace headers.
    pub(super) fn source(&self) -> Source<'a> {
        Source {
            door: Door::Mcp,
            principal: self.principal.clone(),
            trace: self.trace(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_pass_finds_the_first_of_each() {
        let mut map = HeaderMap::new();
        map.insert(HOST, HeaderValue::from_static("localhost:3000"));
        map.append(ACCEPT, HeaderValue::from_static("application/json"));
        map.append(ACCEPT, HeaderValue::from_static("text/event-stream"));
        map.insert("Mcp-Session-Id", HeaderValue::from_static(" abc\t"));
        map.append("mcp-name", HeaderValue::from_static("first"));
        map.append("mcp-name", HeaderValue::from_static("second"));
        map.insert(
            "mcp-method",
            HeaderValue::from_bytes(b"caf\xc3\xa9").unwrap(),
        );
        let headers = Headers::scan(&map);
        assert_eq!(headers.host.unwrap(), "localhost:3000");
        assert!(headers.accepts_json && headers.accepts_sse);
        assert_eq!(headers.session_id, Some("abc"));
        assert_eq!(headers.mcp_name, Some("first"));
        assert_eq!(headers.mcp_method, None, "not visible ASCII");
        assert!(headers.origin.is_none() && headers.protocol_version.is_none());
    }

    #[cfg(feature = "trace")]
    #[test]
    fn the_trace_headers_are_found_with_the_rest() {
        const PARENT: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        let mut map = HeaderMap::new();
        map.insert("mcp-name", HeaderValue::from_static("echo"));
        map.insert("traceparent", HeaderValue::from_static(PARENT));
        let headers = Headers::scan(&map);
        assert_eq!(headers.trace().value, Some((PARENT, None)));
        assert_eq!(headers.mcp_name, Some("echo"));
        map.append("traceparent", HeaderValue::from_static("second"));
        map.insert("tracestate", HeaderValue::from_static(" a=b "));
        let headers = Headers::scan(&map);
        assert_eq!(headers.trace().value, Some((PARENT, Some("a=b"))));
        assert_eq!(Headers::scan(&HeaderMap::new()).trace().value, None);
    }
}
