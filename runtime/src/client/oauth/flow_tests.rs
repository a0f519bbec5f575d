//! The whole flow against a fake resource and authorization server on 127.0.0.1: discovery,
//! dynamic registration, the authorization code with PKCE, and the refresh of a token that
//! expired (no conformance scenario covers refreshing).

use super::*;
use bytes::Bytes;
use http::{Request, Response};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicUsize, Ordering};

/// What the fake saw.
#[derive(Default)]
struct Seen {
    registrations: AtomicUsize,
    code_grants: AtomicUsize,
    refresh_grants: AtomicUsize,
    challenge: Mutex<Option<String>>,
    verifier: Mutex<Option<String>>,
}

async fn fake(base: String, seen: Arc<Seen>, request: Request<Incoming>) -> Response<Full<Bytes>> {
    let (parts, body) = request.into_parts();
    let body = body.collect().await.unwrap().to_bytes();
    let form: HashMap<String, String> = form_urlencoded::parse(&body).into_owned().collect();
    let query: HashMap<String, String> = parts
        .uri
        .query()
        .map(|q| form_urlencoded::parse(q.as_bytes()).into_owned().collect())
        .unwrap_or_default();
    let json = |value: Value| {
        Response::builder()
            .header("content-type", "application/json")
            .body(Full::new(Bytes::from(value.to_string())))
            .unwrap()
    };
    match (parts.method.as_str(), parts.uri.path()) {
        ("GET", "/.well-known/oauth-protected-resource/mcp") => json(json!({
            "resource": format!("{base}/mcp"), "authorization_servers": [base],
            "scopes_supported": ["read"],
        })),
        ("GET", "/.well-known/oauth-authorization-server") => json(json!({
            "issuer": base, "authorization_endpoint": format!("{base}/authorize"),
            "token_endpoint": format!("{base}/token"), "registration_endpoint": format!("{base}/register"),
            "code_challenge_methods_supported": ["S256"], "token_endpoint_auth_methods_supported": ["none"],
            "authorization_response_iss_parameter_supported": true,
        })),
        ("POST", "/register") => {
            seen.registrations.fetch_add(1, Ordering::SeqCst);
            json(json!({"client_id": "registered"}))
        }
        ("GET", "/authorize") => {
            *seen.challenge.lock().unwrap() = query.get("code_challenge").cloned();
            assert_eq!(query["resource"], format!("{base}/mcp"));
            assert_eq!(query["scope"], "read");
            let location = url::with_query(
                &query["redirect_uri"],
                &[
                    ("code", "the-code"),
                    ("state", &query["state"]),
                    ("iss", &base),
                ],
            );
            Response::builder()
                .status(302)
                .header("location", location)
                .body(Full::default())
                .unwrap()
        }
        ("POST", "/token") => match form["grant_type"].as_str() {
            "authorization_code" => {
                seen.code_grants.fetch_add(1, Ordering::SeqCst);
                assert_eq!(form["code"], "the-code");
                assert_eq!(form["client_id"], "registered");
                *seen.verifier.lock().unwrap() = form.get("code_verifier").cloned();
                // Expired on arrival: the next use refreshes it.
                json(
                    json!({"access_token": "first", "token_type": "Bearer", "expires_in": 0,
                            "refresh_token": "r1"}),
                )
            }
            "refresh_token" => {
                seen.refresh_grants.fetch_add(1, Ordering::SeqCst);
                assert_eq!(form["refresh_token"], "r1");
                assert_eq!(form["resource"], format!("{base}/mcp"));
                json(json!({"access_token": "second", "token_type": "bearer", "expires_in": 3600}))
            }
            other => panic!("grant {other}"),
        },
        _ => Response::builder()
            .status(404)
            .body(Full::default())
            .unwrap(),
    }
}

/// The fake on a free port: its base URL.
async fn start(seen: Arc<Seen>) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let for_task = base.clone();
    tokio::spawn(async move {
        loop {
            let (stream, _) = listener.accept().await.unwrap();
            let (base, seen) = (for_task.clone(), seen.clone());
            tokio::spawn(async move {
                let service = hyper::service::service_fn(move |request| {
                    let (base, seen) = (base.clone(), seen.clone());
                    async move { Ok::<_, std::convert::Infallible>(fake(base, seen, request).await) }
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    base
}

#[tokio::test]
async fn authorizes_then_refreshes_the_expired_token() {
    let seen = Arc::new(Seen::default());
    let base = start(seen.clone()).await;
    let pool = hyper_util::client::legacy::Client::builder(TokioExecutor::new()).build_http();
    let session = Session::new(OAuth::new(), pool, &format!("{base}/mcp")).unwrap();
    assert_eq!(session.access_token().await, None);

    let challenge = parse_challenge([r#"Bearer error="invalid_token""#]);
    session
        .challenged(StatusCode::UNAUTHORIZED, &challenge, None)
        .await
        .unwrap();
    assert_eq!(seen.registrations.load(Ordering::SeqCst), 1);
    assert_eq!(seen.code_grants.load(Ordering::SeqCst), 1);
    let verifier = seen.verifier.lock().unwrap().clone().unwrap();
    assert_eq!(
        seen.challenge.lock().unwrap().clone().unwrap(),
        pkce::challenge(&verifier)
    );

    // The first token expired on arrival: it is refreshed before it is sent.
    assert_eq!(session.access_token().await.as_deref(), Some("second"));
    assert_eq!(seen.refresh_grants.load(Ordering::SeqCst), 1);
    assert_eq!(session.access_token().await.as_deref(), Some("second"));

    // A 401 for a token that has since been replaced starts nothing.
    session
        .challenged(StatusCode::UNAUTHORIZED, &challenge, Some("first"))
        .await
        .unwrap();
    assert_eq!(seen.code_grants.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn an_unusable_metadata_url_is_a_clear_error() {
    let pool = hyper_util::client::legacy::Client::builder(TokioExecutor::new()).build_http();
    let session = Session::new(OAuth::new(), pool, "http://127.0.0.1:9/mcp").unwrap();
    let challenge = parse_challenge([r#"Bearer resource_metadata="https://h/prm""#]);
    match session
        .challenged(StatusCode::UNAUTHORIZED, &challenge, None)
        .await
    {
        Err(ClientError::OAuth(message)) => assert!(message.contains("https://h/prm"), "{message}"),
        other => panic!("{:?}", other.err()),
    }
}
