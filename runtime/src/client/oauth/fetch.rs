//! The flow's own HTTP exchanges (metadata GETs, form and JSON POSTs, the authorization
//! request) on the client's hyper pool, every body read bounded.

use super::super::error::ClientError;
use super::super::pool::{transport_error, Pool};
use bytes::Bytes;
use http::header::{HeaderValue, ACCEPT, CONTENT_TYPE};
use http::{HeaderMap, Method, Request, StatusCode};
use http_body_util::{BodyExt, Full, Limited};
use serde_json::{Map, Value};

/// The most of a metadata document, registration or token response that is read.
pub(crate) const MAX_BODY: usize = 64 * 1024;

/// A response, its body read (at most [`MAX_BODY`]).
pub(crate) struct Answer {
    /// The status.
    pub(crate) status: StatusCode,
    /// The headers.
    pub(crate) headers: HeaderMap,
    /// The body.
    pub(crate) body: Bytes,
}

impl Answer {
    /// The body as a JSON object, or why it is not one.
    pub(crate) fn json_object(&self) -> Result<Map<String, Value>, String> {
        match serde_json::from_slice::<Value>(&self.body) {
            Ok(Value::Object(object)) => Ok(object),
            Ok(_) => Err("the body is JSON but not an object".into()),
            Err(e) => Err(format!("the body is not JSON ({e})")),
        }
    }

    /// The start of the body, for an error message.
    pub(crate) fn body_start(&self) -> String {
        String::from_utf8_lossy(&self.body[..self.body.len().min(512)]).into_owned()
    }
}

/// A metadata document: found, or why not (a 404, not JSON, ...).
pub(crate) enum Document {
    /// A JSON object.
    Found(Map<String, Value>),
    /// Why the URL gave no document.
    Absent(String),
}

/// GETs the JSON document at `url`. Only a failed connection is an error: a status other than
/// 200 or a body that is no JSON object is [`Document::Absent`], so the next candidate is tried.
pub(crate) async fn get_document(pool: &Pool, url: &str) -> Result<Document, ClientError> {
    let request = request(Method::GET, url, Bytes::new(), None)?;
    let answer = match send(pool, request).await {
        Ok(answer) => answer,
        Err(ClientError::Protocol(reason)) => return Ok(Document::Absent(reason)),
        Err(error) => return Err(error),
    };
    if answer.status != StatusCode::OK {
        return Ok(Document::Absent(format!("HTTP {}", answer.status.as_u16())));
    }
    Ok(match answer.json_object() {
        Ok(object) => Document::Found(object),
        Err(reason) => Document::Absent(reason),
    })
}

/// A POST of `fields`, form-encoded, with `authorization` (a Basic header) when given.
pub(crate) fn form_post(
    url: &str,
    fields: &[(&str, &str)],
    authorization: Option<HeaderValue>,
) -> Result<Request<Full<Bytes>>, ClientError> {
    let body = form_urlencoded::Serializer::new(String::new())
        .extend_pairs(fields)
        .finish();
    let mut request = request(Method::POST, url, Bytes::from(body), authorization)?;
    request.headers_mut().insert(
        CONTENT_TYPE,
        HeaderValue::from_static("application/x-www-form-urlencoded"),
    );
    Ok(request)
}

/// A POST of `body` as JSON.
pub(crate) fn json_post(url: &str, body: &Value) -> Result<Request<Full<Bytes>>, ClientError> {
    let mut request = request(Method::POST, url, Bytes::from(body.to_string()), None)?;
    request
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    Ok(request)
}

/// A request to `url` asking for JSON.
pub(crate) fn request(
    method: Method,
    url: &str,
    body: Bytes,
    authorization: Option<HeaderValue>,
) -> Result<Request<Full<Bytes>>, ClientError> {
    let uri = crate::secure_url::https_or_loopback(url).map_err(ClientError::OAuth)?;
    let mut request = Request::builder()
        .method(method)
        .uri(uri)
        .header(ACCEPT, "application/json")
        .body(Full::new(body))
        .map_err(|e| ClientError::OAuth(format!("{url}: not a usable URL ({e})")))?;
    if let Some(authorization) = authorization {
        request
            .headers_mut()
            .insert(http::header::AUTHORIZATION, authorization);
    }
    Ok(request)
}

/// Sends `request` and reads its body (at most [`MAX_BODY`]; a longer one is a
/// [`ClientError::Protocol`] naming the URL). Redirects are not followed.
pub(crate) async fn send(
    pool: &Pool,
    request: Request<Full<Bytes>>,
) -> Result<Answer, ClientError> {
    let (method, url) = (request.method().clone(), request.uri().to_string());
    let response = pool
        .request(request)
        .await
        .map_err(|e| transport_error(format_args!("{method} {url}"), &e))?;
    let (parts, body) = response.into_parts();
    let body = Limited::new(body, MAX_BODY)
        .collect()
        .await
        .map_err(|e| {
            ClientError::Protocol(format!(
                "{method} {url}: the body could not be read within {MAX_BODY} bytes ({e})"
            ))
        })?
        .to_bytes();
    tracing::debug!(%method, %url, status = parts.status.as_u16(), "oauth: HTTP exchange");
    Ok(Answer {
        status: parts.status,
        headers: parts.headers,
        body,
    })
}

#[cfg(test)]
mod tests {
    use super::super::super::pool::pool;
    use super::super::super::tls::{test_server, TlsConfig};
    use super::*;
    use hyper::Response;
    use serde_json::json;

    #[tokio::test]
    async fn fetches_metadata_over_https() {
        let port = test_server::serve(|request: Request<hyper::body::Incoming>| async move {
            let (status, body) = match request.uri().path() {
                "/.well-known/oauth-authorization-server" => (200, json!({"issuer": "https://a"})),
                _ => (404, json!({})),
            };
            Response::builder()
                .status(status)
                .header(CONTENT_TYPE, "application/json")
                .body(Full::new(Bytes::from(body.to_string())))
                .unwrap()
        })
        .await;
        let mut tls = TlsConfig::default();
        tls.add_root_certificate(test_server::CERTIFICATE);
        let trusted = pool(&tls).unwrap();
        let base = format!("https://localhost:{port}");
        let url = format!("{base}/.well-known/oauth-authorization-server");
        match get_document(&trusted, &url).await.unwrap() {
            Document::Found(object) => assert_eq!(object["issuer"], "https://a"),
            Document::Absent(why) => panic!("{why}"),
        }
        let elsewhere = format!("{base}/.well-known/openid-configuration");
        assert!(matches!(
            get_document(&trusted, &elsewhere).await.unwrap(),
            Document::Absent(_)
        ));
        // Not trusted without the root: a transport error, not an absent document.
        let untrusted = pool(&TlsConfig::default()).unwrap();
        assert!(matches!(
            get_document(&untrusted, &url).await,
            Err(ClientError::Transport(_))
        ));
    }

    #[test]
    fn requests_only_https_and_loopback_http() {
        let usable = |url| request(Method::GET, url, Bytes::new(), None).is_ok();
        assert!(usable("https://as/token") && usable("http://127.0.0.1:8080/token"));
        assert!(!usable("http://as/token") && !usable("ftp://as/token"));
    }
}
