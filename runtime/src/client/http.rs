//! The HTTP side of a client: one POST per message, its answer read as a single JSON body or
//! as an SSE stream of messages, the GET that resumes a broken stream, and the session's
//! DELETE. With OAuth, every one of them carries the access token (a bearer token, or a
//! DPoP-bound one with a fresh proof), and a 401 (or a 403 `insufficient_scope`) runs the
//! authorization flow and sends the request again, as does a DPoP `use_dpop_nonce` 401 (once,
//! with the nonce), here in [`Http::send`], the one place all of them go through. `http` and
//! `https` alike, on the client's one [`Pool`].

use super::error::ClientError;
use super::oauth::{self, OAuth};
use super::pool::{pool, transport_error, Pool};
use super::sse::SseParser;
use super::tls::TlsConfig;
use bytes::Bytes;
use http::header::{
    HeaderName, HeaderValue, ACCEPT, AUTHORIZATION, CONTENT_TYPE, WWW_AUTHENTICATE,
};
use http::{HeaderMap, Method, Request, StatusCode, Uri};
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use serde_json::Value;
use std::collections::VecDeque;

/// At most this much of an unexpected body is kept for [`ClientError::Http`].
const ERROR_BODY_LIMIT: usize = 4096;

/// The endpoint and what goes on every request to it.
pub(crate) struct Http {
    pool: Pool,
    url: Uri,
    headers: HeaderMap,
    /// The OAuth flow and its token, when the client was given [`OAuth`].
    oauth: Option<oauth::Session>,
}

/// The answer to a POST.
pub(crate) enum Reply {
    /// `202 Accepted`: a notification or response was taken.
    Accepted,
    /// Messages: one JSON body, or the events of an SSE stream as they come.
    Messages(Messages),
}

impl Http {
    pub(crate) fn new(
        url: Uri,
        headers: HeaderMap,
        oauth: Option<OAuth>,
        tls: &TlsConfig,
    ) -> Result<Self, ClientError> {
        let pool = pool(tls)?;
        let oauth = oauth
            .map(|config| oauth::Session::new(config, pool.clone(), &url.to_string()))
            .transpose()?;
        Ok(Self {
            pool,
            url,
            headers,
            oauth,
        })
    }

    /// POSTs `body` with the client's headers and `extra`.
    pub(crate) async fn post(
        &self,
        body: Vec<u8>,
        extra: &[(HeaderName, HeaderValue)],
    ) -> Result<(HeaderMap, Reply), ClientError> {
        let mut headers = self.headers(extra);
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        headers.insert(
            ACCEPT,
            HeaderValue::from_static("application/json, text/event-stream"),
        );
        let response = self.send(Method::POST, Bytes::from(body), headers).await?;
        let (parts, body) = response.into_parts();
        let media = parts
            .headers
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_ascii_lowercase();
        if media.starts_with("text/event-stream") && parts.status.is_success() {
            return Ok((parts.headers, Reply::Messages(Messages::stream(body))));
        }
        if parts.status == StatusCode::ACCEPTED {
            return Ok((parts.headers, Reply::Accepted));
        }
        // A body is read whole only up to the bound an SSE event has: a server sending more is
        // an error, not the client's memory.
        let bytes = Limited::new(body, super::sse::MAX_EVENT_BYTES)
            .collect()
            .await
            .map_err(|e| ClientError::Transport(format!("reading the response: {e}")))?
            .to_bytes();
        // A JSON-RPC answer is read whatever the status: 2026-07-28 errors come with 400/404.
        if media.starts_with("application/json") {
            if let Ok(message) = serde_json::from_slice::<Value>(&bytes) {
                if message.get("jsonrpc").is_some() {
                    return Ok((parts.headers, Reply::Messages(Messages::one(message))));
                }
            }
        }
        Err(ClientError::Http {
            status: parts.status.as_u16(),
            body: String::from_utf8_lossy(&bytes[..bytes.len().min(ERROR_BODY_LIMIT)]).into_owned(),
        })
    }

    /// GETs an SSE stream of the session `extra` names: its standalone stream, or with
    /// `last_event_id` the rest of a broken one. The answer is read like a POST's.
    pub(crate) async fn get_stream(
        &self,
        last_event_id: Option<&str>,
        extra: &[(HeaderName, HeaderValue)],
    ) -> Result<Messages, ClientError> {
        let mut headers = self.headers(extra);
        headers.insert(ACCEPT, HeaderValue::from_static("text/event-stream"));
        if let Some(id) = last_event_id {
            let id = HeaderValue::try_from(id).map_err(|_| {
                ClientError::Protocol(format!("an event id that is no header value: {id:?}"))
            })?;
            headers.insert(HeaderName::from_static("last-event-id"), id);
        }
        let response = self.send(Method::GET, Bytes::new(), headers).await?;
        let (parts, body) = response.into_parts();
        let sse = parts
            .headers
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|media| media.to_ascii_lowercase().starts_with("text/event-stream"));
        if parts.status.is_success() && sse {
            return Ok(Messages::stream(body));
        }
        let bytes = Limited::new(body, super::sse::MAX_EVENT_BYTES)
            .collect()
            .await
            .map(|b| b.to_bytes())
            .unwrap_or_default();
        Err(ClientError::Http {
            status: parts.status.as_u16(),
            body: String::from_utf8_lossy(&bytes[..bytes.len().min(ERROR_BODY_LIMIT)]).into_owned(),
        })
    }

    /// DELETEs the session (`extra` names it); a 405 (the server keeps sessions until they
    /// expire) is not an error.
    pub(crate) async fn delete(
        &self,
        extra: &[(HeaderName, HeaderValue)],
    ) -> Result<(), ClientError> {
        let headers = self.headers(extra);
        let status = self
            .send(Method::DELETE, Bytes::new(), headers)
            .await?
            .status();
        if status.is_success() || status == StatusCode::METHOD_NOT_ALLOWED {
            Ok(())
        } else {
            Err(ClientError::Http {
                status: status.as_u16(),
                body: String::new(),
            })
        }
    }

    /// The client's headers and `extra` (a later one of a name replacing an earlier one).
    fn headers(&self, extra: &[(HeaderName, HeaderValue)]) -> HeaderMap {
        let mut headers = self.headers.clone();
        for (name, value) in extra {
            headers.insert(name.clone(), value.clone());
        }
        headers
    }

    /// Sends a request to the endpoint: with OAuth, with the access token (and its DPoP
    /// proof), and sent again after the flow when the answer is a 401 or a 403
    /// `insufficient_scope` (at most [`OAuth::max_authorizations`] times; then that answer is
    /// returned, for the caller to report), or at once with the server's nonce after a DPoP
    /// `use_dpop_nonce` 401 (once per request).
    async fn send(
        &self,
        method: Method,
        body: Bytes,
        headers: HeaderMap,
    ) -> Result<hyper::Response<Incoming>, ClientError> {
        let mut authorizations = 0;
        let mut nonce_retried = false;
        loop {
            let credentials = match &self.oauth {
                Some(oauth) => oauth.credentials(&method).await?,
                None => None,
            };
            let mut request = Request::builder()
                .method(method.clone())
                .uri(self.url.clone())
                .body(Full::new(body.clone()))
                .map_err(|e| ClientError::Transport(format!("building the request: {e}")))?;
            *request.headers_mut() = headers.clone();
            if let Some(credentials) = &credentials {
                let headers = request.headers_mut();
                headers.insert(AUTHORIZATION, credentials.authorization.clone());
                if let Some(proof) = &credentials.proof {
                    headers.insert(oauth::DPOP, proof.clone());
                }
            }
            let response = self
                .pool
                .request(request)
                .await
                .map_err(|e| transport_error(format_args!("{method} {}", self.url), &e))?;
            let status = response.status();
            let Some(oauth) = &self.oauth else {
                return Ok(response);
            };
            let nonce = oauth.resource_nonce(response.headers());
            if status != StatusCode::UNAUTHORIZED && status != StatusCode::FORBIDDEN {
                return Ok(response);
            }
            let challenge = oauth::parse_challenge(
                response
                    .headers()
                    .get_all(WWW_AUTHENTICATE)
                    .iter()
                    .filter_map(|value| value.to_str().ok()),
            );
            if status == StatusCode::FORBIDDEN && !challenge.insufficient_scope() {
                return Ok(response);
            }
            let proved = credentials.as_ref().is_some_and(|c| c.proof.is_some());
            if status == StatusCode::UNAUTHORIZED
                && challenge.use_dpop_nonce
                && nonce
                && proved
                && !nonce_retried
            {
                tracing::debug!(%method, "oauth: the MCP server asked for a DPoP nonce; sending again with it");
                nonce_retried = true;
                continue;
            }
            if authorizations >= oauth.max_authorizations() {
                tracing::debug!(%method, status = status.as_u16(), authorizations, "oauth: no more authorizations for this request");
                return Ok(response);
            }
            authorizations += 1;
            drop(response);
            let sent = credentials.as_ref().map(|c| c.token.as_str());
            oauth.challenged(status, &challenge, sent).await?;
        }
    }
}

/// The JSON-RPC messages of one answer, read one at a time.
pub(crate) struct Messages {
    ready: VecDeque<Value>,
    stream: Option<(Incoming, SseParser)>,
}

impl Messages {
    fn one(message: Value) -> Self {
        Self {
            ready: VecDeque::from([message]),
            stream: None,
        }
    }

    fn stream(body: Incoming) -> Self {
        Self {
            ready: VecDeque::new(),
            stream: Some((body, SseParser::default())),
        }
    }

    /// Where a resumption of this stream starts, and how long the server asked to wait
    /// before it (`None` for a JSON answer, or a stream that set no event id).
    pub(crate) fn resumption(&self) -> Option<(&str, Option<u64>)> {
        let (_, parser) = self.stream.as_ref()?;
        Some((parser.last_event_id()?, parser.retry_ms()))
    }

    /// The next message; `None` once the answer has ended.
    pub(crate) async fn next(&mut self) -> Result<Option<Value>, ClientError> {
        loop {
            if let Some(message) = self.ready.pop_front() {
                return Ok(Some(message));
            }
            let Some((body, parser)) = &mut self.stream else {
                return Ok(None);
            };
            let Some(frame) = body.frame().await else {
                return Ok(None);
            };
            let frame =
                frame.map_err(|e| ClientError::Transport(format!("reading the stream: {e}")))?;
            let Ok(data) = frame.into_data() else {
                continue;
            };
            let events = parser.feed(&data).map_err(|_| {
                ClientError::Protocol(format!(
                    "an SSE event longer than {} bytes: the stream was dropped",
                    super::sse::MAX_EVENT_BYTES
                ))
            })?;
            for event in events {
                // An event without JSON (a priming event's empty data) carries no message.
                if event.trim().is_empty() {
                    continue;
                }
                let message = serde_json::from_str(&event).map_err(|e| {
                    ClientError::Protocol(format!("an SSE event that is not JSON ({e}): {event}"))
                })?;
                self.ready.push_back(message);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tls::test_server;
    use super::*;
    use hyper::Response;
    use serde_json::json;

    /// A JSON-RPC endpoint over https answering every POST with the request's own id.
    async fn endpoint() -> u16 {
        test_server::serve(|request: Request<Incoming>| async move {
            assert_eq!(request.method(), Method::POST);
            assert_eq!(request.uri().path(), "/mcp");
            let body = request.into_body().collect().await.unwrap().to_bytes();
            let message: Value = serde_json::from_slice(&body).unwrap();
            let answer = json!({"jsonrpc": "2.0", "id": message["id"], "result": {"over": "tls"}});
            Response::builder()
                .header(CONTENT_TYPE, "application/json")
                .body(Full::new(Bytes::from(answer.to_string())))
                .unwrap()
        })
        .await
    }

    fn http(url: &str, tls: &TlsConfig) -> Http {
        Http::new(url.parse().unwrap(), HeaderMap::new(), None, tls).unwrap()
    }

    async fn ping(http: &Http) -> Result<Value, ClientError> {
        let body = json!({"jsonrpc": "2.0", "id": 7, "method": "ping"});
        match http.post(body.to_string().into_bytes(), &[]).await? {
            (_, Reply::Messages(mut messages)) => Ok(messages.next().await?.unwrap()),
            (_, Reply::Accepted) => panic!("202 to a request"),
        }
    }

    #[tokio::test]
    async fn posts_over_https_to_a_trusted_server() {
        let port = endpoint().await;
        let mut tls = TlsConfig::default();
        tls.add_root_certificate(test_server::CERTIFICATE);
        // The certificate names both: by address and by name.
        for host in ["127.0.0.1", "localhost"] {
            let answer = ping(&http(&format!("https://{host}:{port}/mcp"), &tls))
                .await
                .unwrap();
            assert_eq!(answer["id"], 7);
            assert_eq!(answer["result"]["over"], "tls");
        }
    }

    #[tokio::test]
    async fn refuses_an_untrusted_certificate() {
        let port = endpoint().await;
        let url = format!("https://127.0.0.1:{port}/mcp");
        match ping(&http(&url, &TlsConfig::default())).await {
            Err(ClientError::Transport(message)) => {
                assert!(message.starts_with(&format!("POST {url}: ")), "{message}");
                assert!(message.contains("invalid peer certificate"), "{message}");
                assert!(
                    message.contains("ClientBuilder::root_certificate"),
                    "{message}"
                );
            }
            other => panic!("{:?}", other.map(|_| ())),
        }
    }

    #[tokio::test]
    async fn a_refused_connection_says_why() {
        // A port nothing listens on: bound, then let go.
        let port = {
            let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            listener.local_addr().unwrap().port()
        };
        let url = format!("http://127.0.0.1:{port}/mcp");
        match ping(&http(&url, &TlsConfig::default())).await {
            Err(ClientError::Transport(message)) => {
                assert!(message.contains("refused"), "{message}");
                assert!(!message.contains("certificate"), "{message}");
            }
            other => panic!("{:?}", other.map(|_| ())),
        }
    }
}
