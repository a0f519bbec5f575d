//! The whole flow against a fake resource and authorization server on 127.0.0.1: discovery,
//! dynamic registration, the authorization code with PKCE, and the refresh of a token that
//! expired (no conformance scenario covers refreshing); DPoP with the nonces of both
//! servers; enterprise-managed authorization and the JWT-bearer grant.

use super::*;
use crate::future::BoxFuture;
use base64::Engine as _;
use bytes::Bytes;
use http::{Request, Response};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
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

/// The client's pool (`http` and `https`, the system's roots).
fn pool() -> Pool {
    super::super::pool::pool(&Default::default()).unwrap()
}

/// The fake `handler` on a free port: its base URL.
async fn serve<F, Fut>(handler: F) -> String
where
    F: Fn(String, Request<Incoming>) -> Fut + Clone + Send + Sync + 'static,
    Fut: std::future::Future<Output = Response<Full<Bytes>>> + Send + 'static,
{
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let for_task = base.clone();
    tokio::spawn(async move {
        loop {
            let (stream, _) = listener.accept().await.unwrap();
            let (base, handler) = (for_task.clone(), handler.clone());
            tokio::spawn(async move {
                let service = hyper::service::service_fn(move |request| {
                    let response = handler(base.clone(), request);
                    async move { Ok::<_, std::convert::Infallible>(response.await) }
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    base
}

/// The fake of the authorization code flow on a free port: its base URL.
async fn start(seen: Arc<Seen>) -> String {
    serve(move |base, request| fake(base, seen.clone(), request)).await
}

#[tokio::test]
async fn authorizes_then_refreshes_the_expired_token() {
    let seen = Arc::new(Seen::default());
    let base = start(seen.clone()).await;
    let pool = pool();
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
async fn an_unreachable_metadata_url_is_a_clear_error() {
    let pool = pool();
    let session = Session::new(OAuth::new(), pool, "http://127.0.0.1:9/mcp").unwrap();
    let challenge = parse_challenge([r#"Bearer resource_metadata="https://127.0.0.1:9/prm""#]);
    match session
        .challenged(StatusCode::UNAUTHORIZED, &challenge, None)
        .await
    {
        Err(ClientError::Transport(message)) => {
            assert!(message.contains("GET https://127.0.0.1:9/prm"), "{message}");
            assert!(message.contains("refused"), "{message}");
        }
        other => panic!("{:?}", other.err()),
    }
}

/// A response with `status`, JSON `body` and `headers`.
fn answer(status: u16, headers: &[(&str, &str)], body: Value) -> Response<Full<Bytes>> {
    let mut response = Response::builder()
        .status(status)
        .header("content-type", "application/json");
    for (name, value) in headers {
        response = response.header(*name, *value);
    }
    response
        .body(Full::new(Bytes::from(body.to_string())))
        .unwrap()
}

/// What the DPoP fake saw.
#[derive(Default)]
struct DpopSeen {
    /// Every proof's `jti`, to the token endpoint and the MCP server.
    jtis: Mutex<Vec<String>>,
    /// The `dpop_jkt` of the authorization request.
    jkt: Mutex<Option<String>>,
    as_nonce_challenges: AtomicUsize,
    rs_nonce_challenges: AtomicUsize,
    mcp_requests: AtomicUsize,
    /// The MCP server asks for a new nonce every time (a hostile or broken server).
    rs_always_new_nonce: bool,
}

/// The claims of a valid proof for `method` `url`, recorded; or why it is not one.
fn checked_proof(
    seen: &DpopSeen,
    headers: &http::HeaderMap,
    method: &str,
    url: &str,
) -> Result<(Value, Value), String> {
    let proof = headers
        .get("dpop")
        .and_then(|p| p.to_str().ok())
        .ok_or("no proof")?;
    let (header, claims) = dpop::verify(proof)?;
    if claims["htm"] != method || claims["htu"] != url || !claims["iat"].is_u64() {
        return Err(format!("claims {claims}"));
    }
    let jti = claims["jti"].as_str().ok_or("no jti")?.to_owned();
    let mut jtis = seen.jtis.lock().unwrap();
    if jtis.contains(&jti) {
        return Err("jti replayed".into());
    }
    jtis.push(jti);
    Ok((header, claims))
}

/// An authorization server that wants a DPoP nonce at its token endpoint, and an MCP server
/// that wants one too.
async fn dpop_fake(
    base: String,
    seen: Arc<DpopSeen>,
    request: Request<Incoming>,
) -> Response<Full<Bytes>> {
    let (parts, body) = request.into_parts();
    let body = body.collect().await.unwrap().to_bytes();
    let form: HashMap<String, String> = form_urlencoded::parse(&body).into_owned().collect();
    let query: HashMap<String, String> = parts
        .uri
        .query()
        .map(|q| form_urlencoded::parse(q.as_bytes()).into_owned().collect())
        .unwrap_or_default();
    let prm = format!("{base}/.well-known/oauth-protected-resource/mcp");
    match (parts.method.as_str(), parts.uri.path()) {
        ("GET", "/.well-known/oauth-protected-resource/mcp") => answer(
            200,
            &[],
            json!({"resource": format!("{base}/mcp"), "authorization_servers": [base]}),
        ),
        ("GET", "/.well-known/oauth-authorization-server") => answer(
            200,
            &[],
            json!({
                "issuer": base, "authorization_endpoint": format!("{base}/authorize"),
                "token_endpoint": format!("{base}/token"), "registration_endpoint": format!("{base}/register"),
                "code_challenge_methods_supported": ["S256"], "token_endpoint_auth_methods_supported": ["none"],
                "dpop_signing_alg_values_supported": ["ES256"],
            }),
        ),
        ("POST", "/register") => answer(201, &[], json!({"client_id": "registered"})),
        ("GET", "/authorize") => {
            *seen.jkt.lock().unwrap() = query.get("dpop_jkt").cloned();
            let location = url::with_query(
                &query["redirect_uri"],
                &[("code", "the-code"), ("state", &query["state"])],
            );
            Response::builder()
                .status(302)
                .header("location", location)
                .body(Full::default())
                .unwrap()
        }
        ("POST", "/token") => {
            let (header, claims) =
                match checked_proof(&seen, &parts.headers, "POST", &format!("{base}/token")) {
                    Ok(proof) => proof,
                    Err(reason) => {
                        return answer(
                            400,
                            &[],
                            json!({"error": "invalid_dpop_proof", "error_description": reason}),
                        )
                    }
                };
            assert!(claims.get("ath").is_none());
            assert_eq!(form["grant_type"], "authorization_code");
            if claims["nonce"] != "as-nonce" {
                seen.as_nonce_challenges.fetch_add(1, Ordering::SeqCst);
                return answer(
                    400,
                    &[("dpop-nonce", "as-nonce")],
                    json!({"error": "use_dpop_nonce"}),
                );
            }
            // The code was bound to the key of the token request's proof (RFC 9449 §10).
            let jwk = &header["jwk"];
            let canonical = format!(
                r#"{{"crv":"P-256","kty":"EC","x":"{}","y":"{}"}}"#,
                jwk["x"].as_str().unwrap(),
                jwk["y"].as_str().unwrap()
            );
            assert_eq!(
                seen.jkt.lock().unwrap().as_deref(),
                Some(pkce::challenge(&canonical).as_str())
            );
            answer(
                200,
                &[],
                json!({"access_token": "bound-token", "token_type": "DPoP", "expires_in": 3600}),
            )
        }
        ("POST", "/mcp") => {
            seen.mcp_requests.fetch_add(1, Ordering::SeqCst);
            let challenge = format!(r#"DPoP resource_metadata="{prm}""#);
            let authorization = parts
                .headers
                .get("authorization")
                .map(|a| a.to_str().unwrap());
            let Some(authorization) = authorization else {
                return answer(401, &[("www-authenticate", &challenge)], json!({}));
            };
            assert_eq!(authorization, "DPoP bound-token");
            let (_, claims) =
                checked_proof(&seen, &parts.headers, "POST", &format!("{base}/mcp")).unwrap();
            assert_eq!(claims["ath"], pkce::challenge("bound-token"));
            let fresh = format!(
                "rs-nonce-{}",
                seen.rs_nonce_challenges.load(Ordering::SeqCst)
            );
            let wanted = if seen.rs_always_new_nonce {
                fresh.as_str()
            } else {
                "rs-nonce"
            };
            if claims["nonce"] != wanted {
                seen.rs_nonce_challenges.fetch_add(1, Ordering::SeqCst);
                let challenge =
                    format!(r#"DPoP error="use_dpop_nonce", resource_metadata="{prm}""#);
                return answer(
                    401,
                    &[("www-authenticate", &challenge), ("dpop-nonce", wanted)],
                    json!({"error": "use_dpop_nonce"}),
                );
            }
            answer(200, &[], json!({"jsonrpc": "2.0", "id": 1, "result": {}}))
        }
        _ => answer(404, &[], json!({})),
    }
}

/// The client's HTTP side with `oauth`, to the fake's `/mcp`.
fn http_client(base: &str, oauth: OAuth) -> super::super::http::Http {
    let url = format!("{base}/mcp").parse().unwrap();
    super::super::http::Http::new(url, Default::default(), Some(oauth), &Default::default())
        .unwrap()
}

const PING: &[u8] = br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;

#[tokio::test]
async fn dpop_bound_tokens_with_both_servers_nonces() {
    let seen = Arc::new(DpopSeen::default());
    let for_fake = seen.clone();
    let base = serve(move |base, request| dpop_fake(base, for_fake.clone(), request)).await;
    let http = http_client(&base, OAuth::new().dpop(Dpop::WhenSupported));
    for _ in 0..2 {
        match http.post(PING.to_vec(), &[]).await {
            Ok((_, super::super::http::Reply::Messages(_))) => {}
            Ok(_) => panic!("202"),
            Err(error) => panic!("{error}"),
        }
    }
    // One nonce challenge at each server: the nonces are remembered, each for its server.
    assert_eq!(seen.as_nonce_challenges.load(Ordering::SeqCst), 1);
    assert_eq!(seen.rs_nonce_challenges.load(Ordering::SeqCst), 1);
    // No token, proof without nonce, proof with it; then the second request at once.
    assert_eq!(seen.mcp_requests.load(Ordering::SeqCst), 4);
    // Two token requests and three MCP requests with proofs, every jti fresh.
    assert_eq!(seen.jtis.lock().unwrap().len(), 5);
}

#[tokio::test]
async fn a_server_that_always_wants_a_new_nonce_is_retried_once() {
    let seen = Arc::new(DpopSeen {
        rs_always_new_nonce: true,
        ..DpopSeen::default()
    });
    let for_fake = seen.clone();
    let base = serve(move |base, request| dpop_fake(base, for_fake.clone(), request)).await;
    let http = http_client(&base, OAuth::new().dpop(Dpop::Required));
    match http.post(PING.to_vec(), &[]).await {
        Err(ClientError::Http { status: 401, .. }) => {}
        Err(error) => panic!("{error}"),
        Ok(_) => panic!("accepted"),
    }
    // Without a token; with it; the one nonce retry; then with each new authorization's
    // token until the authorizations run out.
    assert_eq!(
        seen.mcp_requests.load(Ordering::SeqCst),
        3 + (DEFAULT_MAX_AUTHORIZATIONS - 1)
    );
    assert_eq!(seen.rs_nonce_challenges.load(Ordering::SeqCst), 3);
}

/// What the enterprise fake saw.
#[derive(Default)]
struct EnterpriseSeen {
    exchanges: AtomicUsize,
    jwt_bearer_grants: AtomicUsize,
}

/// An identity provider (`/idp/token`) and an authorization server that takes only the
/// JWT-bearer grant, with `client_secret_basic`.
async fn enterprise_fake(
    base: String,
    seen: Arc<EnterpriseSeen>,
    request: Request<Incoming>,
) -> Response<Full<Bytes>> {
    let (parts, body) = request.into_parts();
    let body = body.collect().await.unwrap().to_bytes();
    let form: HashMap<String, String> = form_urlencoded::parse(&body).into_owned().collect();
    match (parts.method.as_str(), parts.uri.path()) {
        ("GET", "/.well-known/oauth-protected-resource/mcp") => answer(
            200,
            &[],
            json!({"resource": format!("{base}/mcp"), "authorization_servers": [base],
                   "scopes_supported": ["read"]}),
        ),
        ("GET", "/.well-known/oauth-authorization-server") => answer(
            200,
            &[],
            json!({
                "issuer": base, "token_endpoint": format!("{base}/token"),
                "grant_types_supported": [token::JWT_BEARER],
                "token_endpoint_auth_methods_supported": ["client_secret_basic"],
            }),
        ),
        ("POST", "/idp/token") => {
            seen.exchanges.fetch_add(1, Ordering::SeqCst);
            assert_eq!(
                form["grant_type"],
                "urn:ietf:params:oauth:grant-type:token-exchange"
            );
            assert_eq!(form["subject_token"], "the-id-token");
            assert_eq!(
                form["subject_token_type"],
                "urn:ietf:params:oauth:token-type:id_token"
            );
            assert_eq!(
                form["requested_token_type"],
                "urn:ietf:params:oauth:token-type:id-jag"
            );
            assert_eq!(form["audience"], base);
            assert_eq!(form["resource"], format!("{base}/mcp"));
            assert_eq!(form["scope"], "read");
            assert_eq!(form["client_id"], "idp-client");
            answer(
                200,
                &[],
                json!({"access_token": "the-id-jag", "token_type": "N_A",
                       "issued_token_type": "urn:ietf:params:oauth:token-type:id-jag"}),
            )
        }
        ("POST", "/token") => {
            seen.jwt_bearer_grants.fetch_add(1, Ordering::SeqCst);
            assert_eq!(form["grant_type"], token::JWT_BEARER);
            let basic = parts.headers["authorization"].to_str().unwrap();
            let expected = format!(
                "Basic {}",
                base64::engine::general_purpose::STANDARD.encode("as-client:as-secret")
            );
            if basic != expected {
                return answer(401, &[], json!({"error": "invalid_client"}));
            }
            match form["assertion"].as_str() {
                "the-id-jag" | "workload-jwt" => answer(
                    200,
                    &[],
                    json!({"access_token": "granted", "token_type": "Bearer"}),
                ),
                _ => answer(400, &[], json!({"error": "invalid_grant"})),
            }
        }
        _ => answer(404, &[], json!({})),
    }
}

async fn enterprise_session(grant: Grant) -> (Arc<EnterpriseSeen>, Session) {
    let seen = Arc::new(EnterpriseSeen::default());
    let for_fake = seen.clone();
    let base = serve(move |base, request| enterprise_fake(base, for_fake.clone(), request)).await;
    let pool = pool();
    let oauth = OAuth::new().grant(grant).pre_registered(
        PreRegistered::new("as-client")
            .secret("as-secret")
            .for_any_issuer(),
    );
    let session = Session::new(oauth, pool, &format!("{base}/mcp")).unwrap();
    (seen, session)
}

#[tokio::test]
async fn enterprise_managed_authorization_exchanges_then_presents_the_id_jag() {
    // The user's ID token, from their single sign-on session: asked for with the client's
    // ID at the identity provider as audience.
    struct SignOn;
    impl TokenSource for SignOn {
        fn token<'a>(&'a self, audience: &'a str) -> BoxFuture<'a, Result<String, ClientError>> {
            assert_eq!(audience, "idp-client");
            Box::pin(async { Ok("the-id-token".to_owned()) })
        }
    }
    let seen = Arc::new(EnterpriseSeen::default());
    let for_fake = seen.clone();
    let base = serve(move |base, request| enterprise_fake(base, for_fake.clone(), request)).await;
    let idp = IdentityProvider::new(
        format!("{base}/idp/token"),
        "idp-client",
        Assertion::source(SignOn),
    );
    let pool = pool();
    let oauth = OAuth::new()
        .grant(Grant::EnterpriseManaged(idp))
        .pre_registered(
            PreRegistered::new("as-client")
                .secret("as-secret")
                .for_any_issuer(),
        );
    let session = Session::new(oauth, pool, &format!("{base}/mcp")).unwrap();
    let challenge = parse_challenge([r#"Bearer error="invalid_token""#]);
    session
        .challenged(StatusCode::UNAUTHORIZED, &challenge, None)
        .await
        .unwrap();
    assert_eq!(session.access_token().await.as_deref(), Some("granted"));
    assert_eq!(seen.exchanges.load(Ordering::SeqCst), 1);
    assert_eq!(seen.jwt_bearer_grants.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn the_jwt_bearer_grant_presents_the_workload_token_and_reports_a_refusal() {
    let (seen, session) =
        enterprise_session(Grant::JwtBearer(Assertion::fixed("workload-jwt"))).await;
    let challenge = parse_challenge([r#"Bearer error="invalid_token""#]);
    session
        .challenged(StatusCode::UNAUTHORIZED, &challenge, None)
        .await
        .unwrap();
    assert_eq!(session.access_token().await.as_deref(), Some("granted"));

    let (seen_bad, refused) =
        enterprise_session(Grant::JwtBearer(Assertion::fixed("expired-jwt"))).await;
    match refused
        .challenged(StatusCode::UNAUTHORIZED, &challenge, None)
        .await
    {
        Err(ClientError::OAuth(message)) => assert!(message.contains("invalid_grant"), "{message}"),
        other => panic!("{:?}", other.err()),
    }
    // Reported, not retried.
    assert_eq!(seen_bad.jwt_bearer_grants.load(Ordering::SeqCst), 1);
    assert_eq!(seen.exchanges.load(Ordering::SeqCst), 0);
}
