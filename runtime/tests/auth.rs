//! Authorization over real HTTP on 127.0.0.1 (feature `jwt`): an issuer's metadata and JWKS
//! served by a small hyper server, tokens signed here (an RS256 test key from
//! `fixtures/auth-test-rsa.pem`, ES256 keys made by the test), and a server whose handler
//! reports the principal it sees. Every refusal is checked for its exact status,
//! `WWW-Authenticate` and body.

use bytes::Bytes;
use http::header::{CONTENT_TYPE, WWW_AUTHENTICATE};
use http::{Request, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use mcp_runtime::auth::jwt::{JwtAuthenticator, JwtSettings};
use mcp_runtime::auth::Principal;
use mcp_runtime::dispatch::{Answer as Outcome, Call, CallKind};
use mcp_runtime::{BoxFuture, Catalog, Config, Contract, Dispatch, McpServer, RequestContext};
use serde_json::value::RawValue;
use serde_json::{json, Value};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use tokio::net::TcpListener;

#[cfg(feature = "redis")]
mod common;

const RSA_PEM: &[u8] = include_bytes!("fixtures/auth-test-rsa.pem");
const RSA_PUBLIC_PEM: &[u8] = include_bytes!("fixtures/auth-test-rsa.pub.pem");
const RSA_JWK: &str = include_str!("fixtures/auth-test-rsa.jwk.json");
const SCOPE: &str = "mcp:tools";

// ---------------------------------------------------------------------------------------
// The server under test: a tool and a plain method that answer with the principal.

struct WhoAmI;

static CATALOG: Catalog = Catalog::empty("whoami", "1");

fn principal_json(ctx: &RequestContext) -> Value {
    match ctx.principal() {
        Some(Principal {
            subject,
            scopes,
            claims,
            ..
        }) => json!({"subject": subject, "scopes": scopes, "iss": claims["iss"]}),
        None => json!({"anonymous": true}),
    }
}

impl Dispatch for WhoAmI {
    fn contract(&self) -> &'static Contract {
        fn required_scopes(method: &str, key: &str) -> &'static [&'static str] {
            match (method, key) {
                ("tools/call", "admin_whoami") | ("jsonrpc", "admin_whoami") => &["mcp:admin"],
                ("prompts/get", "admin_prompt") | ("resources/read", "admin://notes") => {
                    &["mcp:admin"]
                }
                _ => &[],
            }
        }
        static CONTRACT: Contract = Contract::new(&CATALOG)
            .with_required_scopes(&required_scopes)
            .with_scopes_supported(&["mcp:admin"]);
        &CONTRACT
    }

    fn call<'a>(&'a self, call: Call<'a>) -> Option<BoxFuture<'a, Outcome>> {
        let (kind, name) = (call.kind(), call.name());
        let ctx = call.into_context();
        if kind == CallKind::Method {
            return (name == "whoami" || name == "admin_whoami").then(|| -> BoxFuture<'a, _> {
                Box::pin(async move { Outcome::json(&principal_json(&ctx)) })
            });
        }
        let future: BoxFuture<'a, Outcome> = match (kind, name) {
            (CallKind::Tool, "whoami" | "admin_whoami") => Box::pin(async move {
                let text = RawValue::from_string(principal_json(&ctx).to_string()).unwrap();
                Outcome::Success(text)
            }),
            // Continues as a task (2026-07-28 clients declaring the extension), and runs
            // until cancelled.
            (CallKind::Tool, "background") => Box::pin(async move {
                ctx.start_task();
                std::future::pending::<()>().await;
                Outcome::from_result(Ok(json!({})))
            }),
            // Asks the client for its roots: a 2026-07-28 call answers with an
            // `InputRequiredResult` and a sealed `requestState`.
            (CallKind::Tool, "ask_roots") => Box::pin(async move {
                let roots = ctx.list_roots("roots").await.map(|roots| json!(roots));
                Outcome::from_result(roots)
            }),
            _ => return None,
        };
        Some(future)
    }
}

// ---------------------------------------------------------------------------------------
// The authorization server: RFC 8414 metadata and a JWKS the test can change.

struct Issuer {
    url: String,
    jwks: Arc<Mutex<Value>>,
    jwks_fetches: Arc<AtomicUsize>,
}

async fn start_issuer(keys: Vec<Value>) -> Issuer {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let jwks = Arc::new(Mutex::new(json!({ "keys": keys })));
    let jwks_fetches = Arc::new(AtomicUsize::new(0));
    let (state, fetches, issuer) = (jwks.clone(), jwks_fetches.clone(), url.clone());
    tokio::spawn(async move {
        loop {
            let (stream, _) = listener.accept().await.unwrap();
            let (state, fetches, issuer) = (state.clone(), fetches.clone(), issuer.clone());
            let service =
                hyper::service::service_fn(move |request: Request<hyper::body::Incoming>| {
                    let body = match request.uri().path() {
                        "/.well-known/oauth-authorization-server" => Some(
                            json!({"issuer": issuer, "jwks_uri": format!("{issuer}/jwks"),
                               "token_endpoint": format!("{issuer}/token")}),
                        ),
                        "/jwks" => {
                            fetches.fetch_add(1, Ordering::SeqCst);
                            Some(state.lock().unwrap().clone())
                        }
                        _ => None,
                    };
                    let response = match body {
                        Some(body) => http::Response::builder()
                            .header(CONTENT_TYPE, "application/json")
                            .body(Full::new(Bytes::from(body.to_string()))),
                        None => http::Response::builder()
                            .status(404)
                            .body(Full::new(Bytes::new())),
                    };
                    async move { response.map_err(|e| e.to_string()) }
                });
            tokio::spawn(
                hyper::server::conn::http1::Builder::new()
                    .serve_connection(hyper_util::rt::TokioIo::new(stream), service),
            );
        }
    });
    Issuer {
        url,
        jwks,
        jwks_fetches,
    }
}

// ---------------------------------------------------------------------------------------
// Keys and tokens.

fn rsa_jwk(kid: &str) -> Value {
    let mut jwk: Value = serde_json::from_str(RSA_JWK).unwrap();
    jwk["kid"] = json!(kid);
    jwk["use"] = json!("sig");
    jwk
}

/// A fresh P-256 key: its PKCS#8 DER (to sign) and its public JWK.
fn es256_key(kid: &str) -> (EncodingKey, Value) {
    use base64::Engine as _;
    use p256::pkcs8::EncodePrivateKey;
    let mut secret = [0u8; 32];
    let key = loop {
        getrandom::fill(&mut secret).unwrap();
        if let Ok(key) = p256::ecdsa::SigningKey::from_slice(&secret) {
            break key;
        }
    };
    let point = key.verifying_key().to_encoded_point(false);
    let b64 = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    let jwk = json!({"kty": "EC", "crv": "P-256", "kid": kid, "alg": "ES256",
        "x": b64.encode(point.x().unwrap()), "y": b64.encode(point.y().unwrap())});
    let der = key.to_pkcs8_der().unwrap();
    (EncodingKey::from_ec_der(der.as_bytes()), jwk)
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

fn claims(issuer: &str, audience: &str) -> Value {
    json!({"iss": issuer, "aud": audience, "sub": "alice", "scope": format!("{SCOPE} extra"),
           "iat": now(), "exp": now() + 300})
}

fn sign(alg: Algorithm, kid: &str, key: &EncodingKey, claims: &Value) -> String {
    let mut header = Header::new(alg);
    header.kid = Some(kid.into());
    jsonwebtoken::encode(&header, claims, key).unwrap()
}

fn rs256(kid: &str, claims: &Value) -> String {
    sign(
        Algorithm::RS256,
        kid,
        &EncodingKey::from_rsa_pem(RSA_PEM).unwrap(),
        claims,
    )
}

// ---------------------------------------------------------------------------------------
// The server and a client.

struct Server {
    addr: SocketAddr,
    resource: String,
}

async fn start_server(issuer: &Issuer) -> Server {
    start_server_refreshing(issuer, Duration::from_millis(300)).await
}

/// [`start_server`] whose keys are fetched at most once per `refresh_interval`.
async fn start_server_refreshing(issuer: &Issuer, refresh_interval: Duration) -> Server {
    start_server_with(issuer, |settings| {
        settings.refresh_interval = refresh_interval
    })
    .await
}

/// [`start_server`] with its settings changed by `change`.
async fn start_server_with(issuer: &Issuer, change: impl FnOnce(&mut JwtSettings)) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let resource = format!("http://{addr}/mcp");
    let mut settings = JwtSettings::new(&issuer.url, &resource);
    settings.refresh_interval = Duration::from_millis(300);
    change(&mut settings);
    let auth = JwtAuthenticator::auth(settings)
        .unwrap()
        .require_scopes(vec![SCOPE.into()]);
    let config = Config::builder()
        .auth(Some(auth))
        .jsonrpc_path(Some("/jsonrpc".into()))
        .build();
    let server = McpServer::builder(WhoAmI).config(config).build();
    tokio::spawn(server.serve_listener(listener, std::future::pending()));
    Server { addr, resource }
}

struct Answer {
    status: StatusCode,
    challenge: Option<String>,
    content_type: Option<String>,
    session: Option<String>,
    body: Value,
}

async fn send(
    addr: SocketAddr,
    method: &str,
    path: &str,
    authorization: Option<&str>,
    session: Option<&str>,
    body: Option<Value>,
) -> Answer {
    let mut headers = vec![("mcp-protocol-version", "2025-06-18")];
    if let Some(authorization) = authorization {
        headers.push(("authorization", authorization));
    }
    if let Some(session) = session {
        headers.push(("mcp-session-id", session));
    }
    send_with(addr, method, path, &headers, body).await
}

async fn send_with(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<Value>,
) -> Answer {
    let body = body.map_or_else(Bytes::new, |b| Bytes::from(b.to_string()));
    send_bytes(addr, method, path, headers, body).await
}

/// A POST of `body` exactly as written (`json!` always writes its keys in one order; an
/// attacker writes them in any).
async fn send_raw(addr: SocketAddr, path: &str, headers: &[(&str, &str)], body: &str) -> Answer {
    send_bytes(addr, "POST", path, headers, Bytes::from(body.to_string())).await
}

async fn send_bytes(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Bytes,
) -> Answer {
    let client = Client::builder(TokioExecutor::new()).build_http::<Full<Bytes>>();
    let mut request = Request::builder()
        .method(method)
        .uri(format!("http://{addr}{path}"))
        .header("accept", "application/json, text/event-stream")
        .header(CONTENT_TYPE, "application/json");
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = client
        .request(request.body(Full::new(body)).unwrap())
        .await
        .unwrap();
    let header = |name: &str| {
        response
            .headers()
            .get(name)
            .map(|v| v.to_str().unwrap().to_string())
    };
    let (status, challenge, content_type, session) = (
        response.status(),
        header(WWW_AUTHENTICATE.as_str()),
        header(CONTENT_TYPE.as_str()),
        header("mcp-session-id"),
    );
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    let body = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    Answer {
        status,
        challenge,
        content_type,
        session,
        body,
    }
}

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "auth-test", "version": "1"}}})
}

fn whoami_call() -> Value {
    json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
           "params": {"name": "whoami", "arguments": {}}})
}

/// initialize then `tools/call whoami` with `token`: the principal the handler saw.
async fn call_as(server: &Server, token: &str) -> Value {
    let bearer = format!("Bearer {token}");
    let init = send(
        server.addr,
        "POST",
        "/mcp",
        Some(&bearer),
        None,
        Some(initialize()),
    )
    .await;
    assert_eq!(init.status, StatusCode::OK, "{}", init.body);
    let session = init.session.expect("a session id");
    let call = send(
        server.addr,
        "POST",
        "/mcp",
        Some(&bearer),
        Some(&session),
        Some(whoami_call()),
    )
    .await;
    assert_eq!(call.status, StatusCode::OK, "{}", call.body);
    call.body["result"]["structuredContent"].clone()
}

fn metadata_url(server: &Server) -> String {
    format!(
        "http://{}/.well-known/oauth-protected-resource/mcp",
        server.addr
    )
}

/// Asserts a refusal at the edge, before the body is read: status, exact challenge, and a
/// JSON-RPC error without `id` (it cannot be known; the 2025-11-25 schema allows the form).
fn assert_refused(answer: &Answer, status: u16, challenge: Option<&str>, message: &str) {
    assert_refused_answering(answer, status, challenge, message, None);
}

/// [`assert_refused`] for a request refused once its body was read: the error answers `id`.
fn assert_refused_answering(
    answer: &Answer,
    status: u16,
    challenge: Option<&str>,
    message: &str,
    id: Option<i64>,
) {
    assert_eq!(answer.status.as_u16(), status, "{}", answer.body);
    assert_eq!(answer.challenge.as_deref(), challenge);
    assert_eq!(answer.content_type.as_deref(), Some("application/json"));
    let code = if status == 400 { -32600 } else { -32000 };
    let mut expected = json!({"jsonrpc": "2.0", "error": {"code": code, "message": message}});
    if let Some(id) = id {
        expected["id"] = json!(id);
    }
    assert_eq!(answer.body, expected);
}

async fn refused_with(server: &Server, token: &str) -> Answer {
    send(
        server.addr,
        "POST",
        "/mcp",
        Some(&format!("Bearer {token}")),
        None,
        Some(initialize()),
    )
    .await
}

fn invalid_token(server: &Server, description: &str) -> String {
    format!(
        "Bearer resource_metadata=\"{}\", scope=\"{SCOPE}\", error=\"invalid_token\", error_description=\"{description}\"",
        metadata_url(server)
    )
}

// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn valid_tokens_reach_the_handler_with_their_principal() {
    let (es_key, es_jwk) = es256_key("ec-1");
    let issuer = start_issuer(vec![rsa_jwk("rsa-1"), es_jwk]).await;
    let server = start_server(&issuer).await;
    let claims = claims(&issuer.url, &server.resource);

    let seen = call_as(&server, &rs256("rsa-1", &claims)).await;
    assert_eq!(
        seen,
        json!({"subject": "alice", "scopes": [SCOPE, "extra"], "iss": issuer.url})
    );
    let seen = call_as(&server, &sign(Algorithm::ES256, "ec-1", &es_key, &claims)).await;
    assert_eq!(seen["subject"], "alice");
    // One fetch served both: the keys are cached.
    assert_eq!(issuer.jwks_fetches.load(Ordering::SeqCst), 1);

    // A stateless 2026-07-28 call sees it too.
    let token = format!("Bearer {}", rs256("rsa-1", &claims));
    let stateless = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
        "name": "whoami", "arguments": {}, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}}}});
    let headers = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", "whoami"),
    ];
    let answer = send_with(
        server.addr,
        "POST",
        "/mcp",
        &headers,
        Some(stateless.clone()),
    )
    .await;
    assert_eq!(answer.status, StatusCode::UNAUTHORIZED);
    let with_token = [
        headers[0],
        headers[1],
        headers[2],
        ("authorization", token.as_str()),
    ];
    let answer = send_with(server.addr, "POST", "/mcp", &with_token, Some(stateless)).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    assert_eq!(
        answer.body["result"]["structuredContent"]["subject"],
        "alice"
    );

    // The plain JSON-RPC endpoint is behind the same edge.
    let plain = json!({"jsonrpc": "2.0", "id": 7, "method": "whoami"});
    let answer = send(
        server.addr,
        "POST",
        "/jsonrpc",
        Some(&token),
        None,
        Some(plain.clone()),
    )
    .await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(answer.body["result"]["subject"], "alice");
    let answer = send(server.addr, "POST", "/jsonrpc", None, None, Some(plain)).await;
    assert_eq!(answer.status, StatusCode::UNAUTHORIZED);

    // GET and DELETE of /mcp too.
    let answer = send(server.addr, "DELETE", "/mcp", None, Some("x"), None).await;
    assert_eq!(answer.status, StatusCode::UNAUTHORIZED);
    let answer = send(
        server.addr,
        "DELETE",
        "/mcp",
        Some(&token),
        Some("unknown"),
        None,
    )
    .await;
    assert_eq!(answer.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn missing_and_malformed_credentials() {
    let issuer = start_issuer(vec![rsa_jwk("rsa-1")]).await;
    let server = start_server(&issuer).await;
    let answer = send(server.addr, "POST", "/mcp", None, None, Some(initialize())).await;
    assert_refused(
        &answer,
        401,
        Some(&format!(
            "Bearer resource_metadata=\"{}\", scope=\"{SCOPE}\"",
            metadata_url(&server)
        )),
        "Unauthorized: no access token: send Authorization: Bearer <token>",
    );
    let answer = send(
        server.addr,
        "POST",
        "/mcp",
        Some("Basic YWxpY2U6cHc="),
        None,
        Some(initialize()),
    )
    .await;
    assert_refused(
        &answer,
        400,
        Some(&format!(
            "Bearer resource_metadata=\"{}\", scope=\"{SCOPE}\", error=\"invalid_request\", error_description=\"the Authorization scheme must be Bearer\"",
            metadata_url(&server)
        )),
        "Bad Request: the Authorization scheme must be Bearer",
    );
    let answer = refused_with(&server, "not-a-jwt").await;
    let why = "the access token is not a well-formed JWT";
    assert_refused(
        &answer,
        401,
        Some(&invalid_token(&server, why)),
        &format!("Unauthorized: {why}"),
    );
}

#[tokio::test]
async fn tokens_that_fail_a_check_are_refused() {
    let issuer = start_issuer(vec![rsa_jwk("rsa-1")]).await;
    let server = start_server(&issuer).await;
    let good = claims(&issuer.url, &server.resource);
    let with = |member: &str, value: Value| {
        let mut claims = good.clone();
        claims[member] = value;
        claims
    };
    let cases = [
        (
            with("exp", json!(now() - 120)),
            "the access token has expired",
        ),
        (
            with("nbf", json!(now() + 120)),
            "the access token is not valid yet (nbf)",
        ),
        (
            with("iss", json!("https://evil.example")),
            "the access token is from another issuer",
        ),
        (
            with("aud", json!("https://other.example/mcp")),
            "the access token was issued for another resource (aud)",
        ),
        (
            with("sub", Value::Null),
            "the access token names no subject (sub)",
        ),
    ];
    for (claims, why) in cases {
        let answer = refused_with(&server, &rs256("rsa-1", &claims)).await;
        assert_refused(
            &answer,
            401,
            Some(&invalid_token(&server, why)),
            &format!("Unauthorized: {why}"),
        );
    }
    // Within the leeway (30 s) an expired token still passes.
    call_as(&server, &rs256("rsa-1", &with("exp", json!(now() - 5)))).await;
    // `aud` as a list naming this server is fine.
    call_as(
        &server,
        &rs256("rsa-1", &with("aud", json!(["https://x", server.resource]))),
    )
    .await;

    // A forged signature.
    let (other_key, _) = es256_key("rsa-1");
    let mut header = Header::new(Algorithm::ES256);
    header.kid = Some("rsa-1".into());
    let forged = jsonwebtoken::encode(&header, &good, &other_key).unwrap();
    let answer = refused_with(&server, &forged).await;
    assert_eq!(answer.status, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn algorithm_confusion_is_refused() {
    use base64::Engine as _;
    let issuer = start_issuer(vec![rsa_jwk("rsa-1")]).await;
    let server = start_server(&issuer).await;
    let claims = claims(&issuer.url, &server.resource);
    let b64 = base64::engine::general_purpose::URL_SAFE_NO_PAD;

    // `alg: none`, no signature.
    let none = format!(
        "{}.{}.",
        b64.encode(r#"{"alg":"none","typ":"JWT","kid":"rsa-1"}"#),
        b64.encode(claims.to_string())
    );
    let answer = refused_with(&server, &none).await;
    let why = "the access token is not a well-formed JWT";
    assert_refused(
        &answer,
        401,
        Some(&invalid_token(&server, why)),
        &format!("Unauthorized: {why}"),
    );

    // HS256 "signed" with the public key as the HMAC secret.
    let hs = sign(
        Algorithm::HS256,
        "rsa-1",
        &EncodingKey::from_secret(RSA_PUBLIC_PEM),
        &claims,
    );
    let answer = refused_with(&server, &hs).await;
    let why = "tokens signed with HS256 are not accepted";
    assert_refused(
        &answer,
        401,
        Some(&invalid_token(&server, why)),
        &format!("Unauthorized: {why}"),
    );

    // RS256 header on a key published as ES256 only.
    let (_, es_jwk) = es256_key("ec-1");
    issuer.jwks.lock().unwrap()["keys"] = json!([rsa_jwk("rsa-1"), es_jwk]);
    let answer = refused_with(&server, &rs256("ec-1", &claims)).await;
    assert_eq!(answer.status, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn unknown_key_ids_refresh_the_keys_once_then_refuse() {
    let issuer = start_issuer(vec![rsa_jwk("rsa-1")]).await;
    let interval = Duration::from_secs(1);
    let server = start_server_refreshing(&issuer, interval).await;
    let claims = claims(&issuer.url, &server.resource);
    // Signed up front: RSA signing is slow in a debug build, and the checks below are timed.
    let (known, rotated) = (rs256("rsa-1", &claims), rs256("rotated", &claims));
    call_as(&server, &known).await;
    assert_eq!(issuer.jwks_fetches.load(Ordering::SeqCst), 1);
    // Past the refresh interval, an unknown kid fetches the keys again, then is refused.
    tokio::time::sleep(interval).await;
    let answer = refused_with(&server, &rotated).await;
    let why = "the access token is signed with a key the issuer does not publish";
    assert_refused(
        &answer,
        401,
        Some(&invalid_token(&server, why)),
        &format!("Unauthorized: {why}"),
    );
    assert_eq!(issuer.jwks_fetches.load(Ordering::SeqCst), 2);
    // Within the interval, more unknown kids fetch nothing.
    for _ in 0..3 {
        let answer = refused_with(&server, &rotated).await;
        assert_eq!(answer.status, StatusCode::UNAUTHORIZED);
    }
    assert_eq!(issuer.jwks_fetches.load(Ordering::SeqCst), 2);
    // The issuer rotates: the new kid is fetched and accepted.
    issuer.jwks.lock().unwrap()["keys"] = json!([rsa_jwk("rotated")]);
    tokio::time::sleep(interval).await;
    assert_eq!(call_as(&server, &rotated).await["subject"], "alice");
    assert_eq!(issuer.jwks_fetches.load(Ordering::SeqCst), 3);
}

#[tokio::test]
async fn a_session_belongs_to_the_principal_that_created_it() {
    let issuer = start_issuer(vec![rsa_jwk("rsa-1")]).await;
    let server = start_server(&issuer).await;
    let alice = format!(
        "Bearer {}",
        rs256("rsa-1", &claims(&issuer.url, &server.resource))
    );
    let mut bob_claims = claims(&issuer.url, &server.resource);
    bob_claims["sub"] = json!("bob");
    let bob = format!("Bearer {}", rs256("rsa-1", &bob_claims));
    let init = send(
        server.addr,
        "POST",
        "/mcp",
        Some(&alice),
        None,
        Some(initialize()),
    )
    .await;
    let session = init.session.unwrap();
    // To bob, alice's session does not exist: POST, GET and DELETE alike.
    let answer = send(
        server.addr,
        "POST",
        "/mcp",
        Some(&bob),
        Some(&session),
        Some(whoami_call()),
    )
    .await;
    assert_eq!(answer.status, StatusCode::NOT_FOUND, "{}", answer.body);
    assert_eq!(answer.body["error"]["message"], "Session not found");
    let answer = send(server.addr, "GET", "/mcp", Some(&bob), Some(&session), None).await;
    assert_eq!(answer.status, StatusCode::NOT_FOUND);
    let answer = send(
        server.addr,
        "DELETE",
        "/mcp",
        Some(&bob),
        Some(&session),
        None,
    )
    .await;
    assert_eq!(answer.status, StatusCode::NOT_FOUND);
    // Alice's goes on, and she can end it.
    let answer = send(
        server.addr,
        "POST",
        "/mcp",
        Some(&alice),
        Some(&session),
        Some(whoami_call()),
    )
    .await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(
        answer.body["result"]["structuredContent"]["subject"],
        "alice"
    );
    let answer = send(
        server.addr,
        "DELETE",
        "/mcp",
        Some(&alice),
        Some(&session),
        None,
    )
    .await;
    assert_eq!(answer.status, StatusCode::NO_CONTENT);
}

#[tokio::test]
async fn a_missing_scope_is_403_with_the_scope_to_ask_for() {
    let issuer = start_issuer(vec![rsa_jwk("rsa-1")]).await;
    let server = start_server(&issuer).await;
    let mut claims = claims(&issuer.url, &server.resource);
    claims["scope"] = json!("other");
    let answer = refused_with(&server, &rs256("rsa-1", &claims)).await;
    let why = format!("the access token lacks the scope this request needs: {SCOPE}");
    assert_refused(
        &answer,
        403,
        Some(&format!(
            "Bearer resource_metadata=\"{}\", scope=\"{SCOPE}\", error=\"insufficient_scope\", error_description=\"{why}\"",
            metadata_url(&server)
        )),
        &format!("Forbidden: {why}"),
    );
    // A tool whose contract asks for another scope: 403 naming every scope to ask for.
    claims["scope"] = json!(SCOPE);
    let bearer = format!("Bearer {}", rs256("rsa-1", &claims));
    let init = send(
        server.addr,
        "POST",
        "/mcp",
        Some(&bearer),
        None,
        Some(initialize()),
    )
    .await;
    let session = init.session.unwrap();
    let mut admin_call = whoami_call();
    admin_call["params"]["name"] = json!("admin_whoami");
    let answer = send(
        server.addr,
        "POST",
        "/mcp",
        Some(&bearer),
        Some(&session),
        Some(admin_call.clone()),
    )
    .await;
    let why = format!("the access token lacks the scope this request needs: {SCOPE} mcp:admin");
    assert_refused_answering(
        &answer,
        403,
        Some(&format!(
            "Bearer resource_metadata=\"{}\", scope=\"{SCOPE} mcp:admin\", error=\"insufficient_scope\", error_description=\"{why}\"",
            metadata_url(&server)
        )),
        &format!("Forbidden: {why}"),
        Some(2),
    );
    // Neither a plain JSON-RPC call nor a 2025-03-26 batch goes around it.
    let plain = json!({"jsonrpc": "2.0", "id": 8, "method": "admin_whoami"});
    let answer = send(
        server.addr,
        "POST",
        "/jsonrpc",
        Some(&bearer),
        None,
        Some(plain.clone()),
    )
    .await;
    assert_eq!(answer.status, StatusCode::FORBIDDEN);
    assert!(answer
        .challenge
        .unwrap()
        .contains("scope=\"mcp:tools mcp:admin\""));
    let answer = send(
        server.addr,
        "POST",
        "/jsonrpc",
        Some(&bearer),
        None,
        Some(json!([{"jsonrpc": "2.0", "id": 9, "method": "whoami"}, plain])),
    )
    .await;
    assert_eq!(answer.status, StatusCode::FORBIDDEN);
    let answer = send(
        server.addr,
        "POST",
        "/jsonrpc",
        Some(&bearer),
        None,
        Some(json!({"jsonrpc": "2.0", "id": 9, "method": "whoami"})),
    )
    .await;
    assert_eq!(answer.status, StatusCode::OK);
    let mut init_2025_03 = initialize();
    init_2025_03["params"]["protocolVersion"] = json!("2025-03-26");
    let old = send_with(
        server.addr,
        "POST",
        "/mcp",
        &[("authorization", bearer.as_str())],
        Some(init_2025_03),
    )
    .await;
    assert_eq!(old.status, StatusCode::OK, "{}", old.body);
    let old_session = old.session.unwrap();
    let headers = [
        ("authorization", bearer.as_str()),
        ("mcp-session-id", old_session.as_str()),
    ];
    let batch = json!([whoami_call(), admin_call.clone()]);
    let answer = send_with(server.addr, "POST", "/mcp", &headers, Some(batch)).await;
    assert_eq!(answer.status, StatusCode::FORBIDDEN, "{}", answer.body);
    let answer = send_with(
        server.addr,
        "POST",
        "/mcp",
        &headers,
        Some(json!([whoami_call()])),
    )
    .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);

    // The other tools still work with that token; with the scope, so does this one.
    let answer = send(
        server.addr,
        "POST",
        "/mcp",
        Some(&bearer),
        Some(&session),
        Some(whoami_call()),
    )
    .await;
    assert_eq!(answer.status, StatusCode::OK);
    claims["scope"] = json!(format!("{SCOPE} mcp:admin"));
    let bearer = format!("Bearer {}", rs256("rsa-1", &claims));
    let answer = send(
        server.addr,
        "POST",
        "/mcp",
        Some(&bearer),
        Some(&session),
        Some(admin_call),
    )
    .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    assert_eq!(
        answer.body["result"]["structuredContent"]["scopes"],
        json!([SCOPE, "mcp:admin"])
    );

    // `scp` as a list counts too.
    claims["scope"] = Value::Null;
    claims["scp"] = json!([SCOPE]);
    call_as(&server, &rs256("rsa-1", &claims)).await;
}

/// A token with the scope every request needs but not `mcp:admin` (a full `Authorization`
/// value), and a 2025-06-18 session it opened.
async fn session_without_admin(issuer: &Issuer, server: &Server) -> (String, String) {
    let mut claims = claims(&issuer.url, &server.resource);
    claims["scope"] = json!(SCOPE);
    let bearer = format!("Bearer {}", rs256("rsa-1", &claims));
    let init = send(
        server.addr,
        "POST",
        "/mcp",
        Some(&bearer),
        None,
        Some(initialize()),
    )
    .await;
    (bearer, init.session.unwrap())
}

/// Every order of a message's members, as raw bytes.
fn member_orders(members: &[(&str, &str)]) -> Vec<String> {
    fn permute(rest: Vec<(String, String)>, done: Vec<(String, String)>, out: &mut Vec<String>) {
        if rest.is_empty() {
            let body: Vec<String> = done.iter().map(|(k, v)| format!("\"{k}\":{v}")).collect();
            out.push(format!("{{{}}}", body.join(",")));
            return;
        }
        for i in 0..rest.len() {
            let (mut rest, mut done) = (rest.clone(), done.clone());
            done.push(rest.remove(i));
            permute(rest, done, out);
        }
    }
    let mut out = Vec::new();
    let members = members
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    permute(members, Vec::new(), &mut out);
    out
}

/// The scope check decides on what the engine runs, whatever the order of `jsonrpc`, `id`,
/// `method` and `params`, escapes in names, batches, both eras and both endpoints. Bodies are
/// raw bytes: a token without `mcp:admin` never reaches `admin_whoami`.
#[tokio::test]
async fn a_call_is_authorized_as_it_runs_whatever_its_bytes() {
    let issuer = start_issuer(vec![rsa_jwk("rsa-1")]).await;
    let server = start_server(&issuer).await;
    let (bearer, session) = session_without_admin(&issuer, &server).await;
    let session_headers = [
        ("authorization", bearer.as_str()),
        ("mcp-session-id", session.as_str()),
        ("mcp-protocol-version", "2025-06-18"),
    ];
    let admin_params = [
        r#"{"name":"admin_whoami","arguments":{}}"#,
        r#"{"arguments":{},"name":"admin_whoami"}"#,
        r#"{"n\u0061me":"admin\u005fwhoami","arguments":{}}"#,
        r#"{"name":"admin_whoami"}"#,
    ];
    let methods = [
        r#""tools/call""#,
        r#""tools\/call""#,
        r#""tools\u002fcall""#,
    ];
    let refused = |answer: &Answer, body: &str| {
        assert_eq!(
            answer.status,
            StatusCode::FORBIDDEN,
            "{body}: {}",
            answer.body
        );
        assert!(
            answer
                .challenge
                .as_deref()
                .unwrap()
                .contains("scope=\"mcp:tools mcp:admin\""),
            "{body}"
        );
    };
    let mut bodies = Vec::new();
    for params in admin_params {
        for method in methods {
            bodies.extend(member_orders(&[
                ("jsonrpc", r#""2.0""#),
                ("id", "7"),
                ("method", method),
                ("params", params),
            ]));
        }
    }
    for body in &bodies {
        refused(
            &send_raw(server.addr, "/mcp", &session_headers, body).await,
            body,
        );
    }
    // The same tool with the scope it needs, params first: it runs (the check is not a
    // refusal of an order).
    let allowed = r#"{"params":{"name":"whoami","arguments":{}},"id":7,"method":"tools/call","jsonrpc":"2.0"}"#;
    let answer = send_raw(server.addr, "/mcp", &session_headers, allowed).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    assert_eq!(
        answer.body["result"]["structuredContent"]["subject"],
        "alice"
    );

    // 2025-03-26 batches, the refused call in any order inside any element.
    let old = send_with(
        server.addr,
        "POST",
        "/mcp",
        &[("authorization", bearer.as_str())],
        Some(
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-03-26", "capabilities": {},
            "clientInfo": {"name": "auth-test", "version": "1"}}}),
        ),
    )
    .await;
    let old_session = old.session.unwrap();
    let old_headers = [
        ("authorization", bearer.as_str()),
        ("mcp-session-id", old_session.as_str()),
    ];
    for body in bodies.iter().step_by(5) {
        let batch = format!(r#"[{{"jsonrpc":"2.0","id":1,"method":"ping"}},{body}]"#);
        refused(
            &send_raw(server.addr, "/mcp", &old_headers, &batch).await,
            &batch,
        );
    }

    // 2026-07-28, with and without the routing headers that announce the method.
    let meta = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
    let stateless_params = format!(r#"{{"arguments":{{}},"_meta":{meta},"name":"admin_whoami"}}"#);
    let stateless_bodies = member_orders(&[
        ("jsonrpc", r#""2.0""#),
        ("id", "7"),
        ("method", r#""tools/call""#),
        ("params", &stateless_params),
    ]);
    let announced = [
        ("authorization", bearer.as_str()),
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", "admin_whoami"),
    ];
    for body in &stateless_bodies {
        refused(&send_raw(server.addr, "/mcp", &announced, body).await, body);
        refused(
            &send_raw(server.addr, "/mcp", &announced[..2], body).await,
            body,
        );
    }

    // The plain JSON-RPC endpoint: the method named in any order.
    for body in member_orders(&[
        ("jsonrpc", r#""2.0""#),
        ("id", "7"),
        ("method", r#""admin_whoami""#),
        ("params", "{}"),
    ]) {
        let answer = send_raw(server.addr, "/jsonrpc", &old_headers[..1], &body).await;
        refused(&answer, &body);
    }
}

/// A token bound to a key (`cnf`: DPoP's `jkt`, mTLS's `x5t#S256`) is refused as a Bearer
/// token (RFC 9449 §7.1); with `token_type` set, a JWT of another `typ` (an ID token signed
/// with the same keys) is refused, and `at+jwt` is accepted in any case, with or without
/// `application/`.
#[tokio::test]
async fn bound_tokens_and_other_token_types_are_refused() {
    let issuer = start_issuer(vec![rsa_jwk("rsa-1")]).await;
    let server = start_server(&issuer).await;
    for cnf in [
        json!({"jkt": "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I"}),
        json!({"x5t#S256": "bwcK0esc3ACC3DB2Y5_lESsXE8o9ltc05O89jdN-dg2"}),
    ] {
        let mut bound = claims(&issuer.url, &server.resource);
        bound["cnf"] = cnf;
        let answer = refused_with(&server, &rs256("rsa-1", &bound)).await;
        assert_eq!(answer.status, StatusCode::UNAUTHORIZED, "{}", answer.body);
        let challenge = answer.challenge.unwrap();
        assert!(
            challenge.contains("invalid_token") && challenge.contains("cnf"),
            "{challenge}"
        );
    }
    // Without token_type, typ is not looked at.
    call_as(
        &server,
        &rs256("rsa-1", &claims(&issuer.url, &server.resource)),
    )
    .await;

    let typed = start_server_with(&issuer, |s| s.token_type = Some("at+jwt".into())).await;
    let key = EncodingKey::from_rsa_pem(RSA_PEM).unwrap();
    let with_typ = |typ: Option<&str>| {
        let mut header = Header::new(Algorithm::RS256);
        header.kid = Some("rsa-1".into());
        header.typ = typ.map(str::to_owned);
        jsonwebtoken::encode(&header, &claims(&issuer.url, &typed.resource), &key).unwrap()
    };
    for typ in [Some("at+jwt"), Some("application/AT+JWT")] {
        call_as(&typed, &with_typ(typ)).await;
    }
    for typ in [Some("JWT"), None] {
        let answer = refused_with(&typed, &with_typ(typ)).await;
        assert_eq!(
            answer.status,
            StatusCode::UNAUTHORIZED,
            "{typ:?}: {}",
            answer.body
        );
        assert!(answer.challenge.unwrap().contains("typ"), "{typ:?}");
    }
}

/// `resources/subscribe` and `completion/complete` are decided as the read or the prompt they
/// stand for: without `mcp:admin`, neither subscribing to an admin resource nor completing an
/// admin prompt gets past the edge (an answer would tell that a hidden prompt exists).
#[tokio::test]
async fn subscriptions_and_completions_need_the_scopes_of_what_they_name() {
    let issuer = start_issuer(vec![rsa_jwk("rsa-1")]).await;
    let server = start_server(&issuer).await;
    let (bearer, session) = session_without_admin(&issuer, &server).await;
    let headers = [
        ("authorization", bearer.as_str()),
        ("mcp-session-id", session.as_str()),
        ("mcp-protocol-version", "2025-06-18"),
    ];
    for body in [
        r#"{"jsonrpc":"2.0","id":3,"method":"resources/subscribe","params":{"uri":"admin://notes"}}"#,
        r#"{"params":{"uri":"admin://notes"},"method":"resources/subscribe","id":3,"jsonrpc":"2.0"}"#,
        r#"{"jsonrpc":"2.0","id":4,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"admin_prompt"},"argument":{"name":"a","value":""}}}"#,
        r#"{"jsonrpc":"2.0","id":4,"method":"completion/complete","params":{"argument":{"name":"a","value":""},"ref":{"name":"admin\u005fprompt","type":"ref/prompt"}}}"#,
        r#"{"jsonrpc":"2.0","id":5,"method":"completion/complete","params":{"ref":{"type":"ref/resource","uri":"admin://notes"},"argument":{"name":"a","value":""}}}"#,
    ] {
        let answer = send_raw(server.addr, "/mcp", &headers, body).await;
        assert_eq!(
            answer.status,
            StatusCode::FORBIDDEN,
            "{body}: {}",
            answer.body
        );
        assert!(answer.challenge.unwrap().contains("mcp:admin"), "{body}");
    }
    // What needs no other scope gets its ordinary answer.
    let free =
        r#"{"jsonrpc":"2.0","id":6,"method":"resources/subscribe","params":{"uri":"test://open"}}"#;
    let answer = send_raw(server.addr, "/mcp", &headers, free).await;
    assert_ne!(answer.status, StatusCode::FORBIDDEN, "{}", answer.body);
}

/// A 2026-07-28 `subscriptions/listen` stream is decided as the read of each resource it
/// names (its updates tell what the resource holds, and a gateway opens a subscription at its
/// upstream for it): naming an admin resource without `mcp:admin` is refused at the edge,
/// wherever the URI stands among the others and whatever the order of the members.
#[tokio::test]
async fn a_listen_stream_needs_the_scopes_of_each_resource_it_names() {
    let issuer = start_issuer(vec![rsa_jwk("rsa-1")]).await;
    let server = start_server(&issuer).await;
    let mut claims = claims(&issuer.url, &server.resource);
    claims["scope"] = json!(SCOPE);
    let bearer = format!("Bearer {}", rs256("rsa-1", &claims));
    let headers = [
        ("authorization", bearer.as_str()),
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "subscriptions/listen"),
    ];
    let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
    for body in [
        format!(
            r#"{{"jsonrpc":"2.0","id":8,"method":"subscriptions/listen","params":{{{meta},"notifications":{{"resourceSubscriptions":["admin://notes"]}}}}}}"#
        ),
        format!(
            r#"{{"params":{{"notifications":{{"toolsListChanged":true,"resourceSubscriptions":["test://open","admin://notes"]}},{meta}}},"id":9,"method":"subscriptions/listen","jsonrpc":"2.0"}}"#
        ),
    ] {
        // A stream let through would never end: its answer is not waited for past 5 s.
        let sent = send_raw(server.addr, "/mcp", &headers, &body);
        let answer = tokio::time::timeout(std::time::Duration::from_secs(5), sent)
            .await
            .unwrap_or_else(|_| panic!("{body}: the stream was opened"));
        assert_eq!(
            answer.status,
            StatusCode::FORBIDDEN,
            "{body}: {}",
            answer.body
        );
        assert!(answer.challenge.unwrap().contains("mcp:admin"), "{body}");
    }
}

#[tokio::test]
async fn unreachable_keys_are_503_without_a_challenge() {
    let issuer = start_issuer(vec![rsa_jwk("rsa-1")]).await;
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let resource = format!("http://{addr}/mcp");
    let mut settings = JwtSettings::new(&issuer.url, &resource);
    // Nothing listens there.
    settings.jwks_url = Some("http://127.0.0.1:9/jwks".into());
    let config = Config::builder()
        .auth(Some(JwtAuthenticator::auth(settings).unwrap()))
        .build();
    tokio::spawn(
        McpServer::builder(WhoAmI)
            .config(config)
            .build()
            .serve_listener(listener, std::future::pending()),
    );
    let server = Server { addr, resource };
    let answer = refused_with(
        &server,
        &rs256("rsa-1", &claims(&issuer.url, &server.resource)),
    )
    .await;
    assert_refused(
        &answer,
        503,
        None,
        "Service Unavailable: the issuer's signing keys cannot be fetched",
    );
}

#[tokio::test]
async fn protected_resource_metadata_is_served() {
    let issuer = start_issuer(vec![rsa_jwk("rsa-1")]).await;
    let server = start_server(&issuer).await;
    let expected = json!({
        "resource": server.resource,
        "authorization_servers": [issuer.url],
        "scopes_supported": [SCOPE, "mcp:admin"],
        "bearer_methods_supported": ["header"],
    });
    for path in [
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource",
    ] {
        // No token needed: it is how a client learns where to get one.
        let answer = send(server.addr, "GET", path, None, None, None).await;
        assert_eq!(answer.status, StatusCode::OK, "{path}");
        assert_eq!(answer.content_type.as_deref(), Some("application/json"));
        assert_eq!(answer.body, expected);
        // The URL in the challenges is this document's.
        assert!(metadata_url(&server).ends_with("/.well-known/oauth-protected-resource/mcp"));
    }
    let answer = send(
        server.addr,
        "POST",
        "/.well-known/oauth-protected-resource",
        None,
        None,
        None,
    )
    .await;
    assert_eq!(answer.status, StatusCode::METHOD_NOT_ALLOWED);
    let answer = send(
        server.addr,
        "GET",
        "/.well-known/oauth-protected-resource/other",
        None,
        None,
        None,
    )
    .await;
    assert_eq!(answer.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn without_auth_nothing_changes() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(McpServer::new(WhoAmI).serve_listener(listener, std::future::pending()));
    let answer = send(
        addr,
        "GET",
        "/.well-known/oauth-protected-resource/mcp",
        None,
        None,
        None,
    )
    .await;
    assert_eq!(answer.status, StatusCode::NOT_FOUND);
    let init = send(addr, "POST", "/mcp", None, None, Some(initialize())).await;
    assert_eq!(init.status, StatusCode::OK);
    let call = send(
        addr,
        "POST",
        "/mcp",
        None,
        init.session.as_deref(),
        Some(whoami_call()),
    )
    .await;
    // No principal: the handler sees `None`.
    assert_eq!(
        call.body["result"]["structuredContent"],
        json!({"anonymous": true})
    );
}

/// What one check of a token costs with the keys cached (one signature verification and the
/// claims): `cargo test --release -p mcp-runtime --features jwt --test auth -- --ignored
/// --nocapture verify_cost`. Ignored: a timing, meaningful only in a release build.
#[tokio::test]
#[ignore]
async fn verify_cost() {
    let (es_key, es_jwk) = es256_key("ec-1");
    let issuer = start_issuer(vec![rsa_jwk("rsa-1"), es_jwk]).await;
    let audience = "https://mcp.example.com/mcp";
    let claims = claims(&issuer.url, audience);
    let tokens = [
        ("RS256", rs256("rsa-1", &claims)),
        ("ES256", sign(Algorithm::ES256, "ec-1", &es_key, &claims)),
    ];
    for (what, capacity) in [
        ("verified each time", 0),
        ("verified once, then remembered", 10_000),
    ] {
        let mut settings = JwtSettings::new(&issuer.url, audience);
        settings.cache_capacity = capacity;
        let authenticator = JwtAuthenticator::new(settings).unwrap();
        for (alg, token) in &tokens {
            authenticator.verify(token).await.unwrap();
            let rounds = 2_000;
            let start = std::time::Instant::now();
            for _ in 0..rounds {
                std::hint::black_box(authenticator.verify(token).await.unwrap());
            }
            let each = start.elapsed() / rounds;
            println!("{alg}, {what}: {each:?} per token (keys cached)");
        }
    }
    assert_eq!(issuer.jwks_fetches.load(Ordering::SeqCst), 2);
}

// ---------------------------------------------------------------------------------------
// State that outlives a request belongs to its principal: tasks and `requestState`.

/// A 2026-07-28 request `method` by `token` (a full `Authorization` value), declaring the
/// tasks extension and the roots capability; `name` is its `Mcp-Name`.
async fn stateless_as(
    server: &Server,
    token: &str,
    method: &str,
    name: &str,
    mut params: Value,
) -> Answer {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {
            "roots": {}, "extensions": {"io.modelcontextprotocol/tasks": {}}}});
    let body = json!({"jsonrpc": "2.0", "id": 9, "method": method, "params": params});
    let headers = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", method),
        ("mcp-name", name),
        ("authorization", token),
    ];
    send_with(server.addr, "POST", "/mcp", &headers, Some(body)).await
}

/// Alice's and Bob's `Authorization` values (same issuer, other subjects).
fn alice_and_bob(issuer: &Issuer, server: &Server) -> (String, String) {
    let alice = format!(
        "Bearer {}",
        rs256("rsa-1", &claims(&issuer.url, &server.resource))
    );
    let mut bob_claims = claims(&issuer.url, &server.resource);
    bob_claims["sub"] = json!("bob");
    (alice, format!("Bearer {}", rs256("rsa-1", &bob_claims)))
}

#[tokio::test]
async fn a_task_belongs_to_the_principal_that_started_it() {
    let issuer = start_issuer(vec![rsa_jwk("rsa-1")]).await;
    let server = start_server(&issuer).await;
    let (alice, bob) = alice_and_bob(&issuer, &server);
    let call = json!({"name": "background", "arguments": {}});
    let created = stateless_as(&server, &alice, "tools/call", "background", call).await;
    assert_eq!(created.status, StatusCode::OK, "{}", created.body);
    assert_eq!(
        created.body["result"]["resultType"], "task",
        "{}",
        created.body
    );
    let task = created.body["result"]["taskId"]
        .as_str()
        .unwrap()
        .to_string();
    let about = |extra: Value| {
        let mut params = json!({"taskId": task});
        for (key, value) in extra.as_object().unwrap() {
            params[key] = value.clone();
        }
        params
    };
    // To bob, alice's task does not exist: get, update and cancel answer as for an unknown
    // task, and change nothing.
    let unknown = json!({"code": -32602, "message": format!("Unknown task: {task}"),
                         "data": {"taskId": task}});
    for (method, extra) in [
        ("tasks/get", json!({})),
        ("tasks/update", json!({"inputResponses": {"x": {}}})),
        ("tasks/cancel", json!({})),
    ] {
        let answer = stateless_as(&server, &bob, method, &task, about(extra)).await;
        assert_eq!(answer.body["error"], unknown, "{method}: {}", answer.body);
    }
    let seen = stateless_as(&server, &alice, "tasks/get", &task, about(json!({}))).await;
    assert_eq!(seen.body["result"]["status"], "working", "{}", seen.body);
    // Alice can cancel it.
    let cancelled = stateless_as(&server, &alice, "tasks/cancel", &task, about(json!({}))).await;
    assert_eq!(
        cancelled.body["result"],
        json!({"resultType": "complete"}),
        "{}",
        cancelled.body
    );
    let seen = stateless_as(&server, &alice, "tasks/get", &task, about(json!({}))).await;
    assert_eq!(seen.body["result"]["status"], "cancelled", "{}", seen.body);
}

#[tokio::test]
async fn a_request_state_opens_only_for_the_principal_it_was_sealed_for() {
    let issuer = start_issuer(vec![rsa_jwk("rsa-1")]).await;
    let server = start_server(&issuer).await;
    let (alice, bob) = alice_and_bob(&issuer, &server);
    let call = json!({"name": "ask_roots", "arguments": {}});
    let first = stateless_as(&server, &alice, "tools/call", "ask_roots", call.clone()).await;
    let result = &first.body["result"];
    assert_eq!(result["resultType"], "input_required", "{}", first.body);
    let state = result["requestState"].as_str().unwrap().to_string();
    let mut retry = call.clone();
    retry["inputResponses"] = json!({"roots": {"roots": [{"uri": "file:///alice"}]}});
    retry["requestState"] = json!(state);
    // Bob replaying alice's state, with the same call and answers: refused before the
    // handler runs.
    let stolen = stateless_as(&server, &bob, "tools/call", "ask_roots", retry.clone()).await;
    assert_eq!(stolen.body["error"]["code"], -32602, "{}", stolen.body);
    let message = stolen.body["error"]["message"].as_str().unwrap();
    assert!(message.contains("another request"), "{message}");
    // Alice's own retry goes through.
    let own = stateless_as(&server, &alice, "tools/call", "ask_roots", retry).await;
    assert_eq!(
        own.body["result"]["structuredContent"]["roots"][0]["uri"], "file:///alice",
        "{}",
        own.body
    );
}

/// A `subscriptions/listen` stream opened by `token` on `addr`: its status, and the response
/// (kept open while held).
async fn open_listen(
    addr: SocketAddr,
    token: &str,
    id: u32,
) -> (StatusCode, hyper::Response<hyper::body::Incoming>) {
    let body = json!({"jsonrpc": "2.0", "id": id, "method": "subscriptions/listen", "params": {
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}},
        "notifications": {"toolsListChanged": true}}});
    let request = Request::builder()
        .method("POST")
        .uri(format!("http://{addr}/mcp"))
        .header("accept", "application/json, text/event-stream")
        .header(CONTENT_TYPE, "application/json")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "subscriptions/listen")
        .header("authorization", token)
        .body(Full::new(Bytes::from(body.to_string())))
        .unwrap();
    let client = Client::builder(TokioExecutor::new()).build_http::<Full<Bytes>>();
    let response = client.request(request).await.unwrap();
    (response.status(), response)
}

#[tokio::test]
async fn one_principal_holds_at_most_its_share_of_listen_streams() {
    let issuer = start_issuer(vec![rsa_jwk("rsa-1")]).await;
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let resource = format!("http://{addr}/mcp");
    let auth = JwtAuthenticator::auth(JwtSettings::new(&issuer.url, &resource)).unwrap();
    let config = Config::builder()
        .auth(Some(auth))
        .max_listen_streams_per_principal(2)
        .build();
    tokio::spawn(
        McpServer::builder(WhoAmI)
            .config(config)
            .build()
            .serve_listener(listener, std::future::pending()),
    );
    let server = Server { addr, resource };
    let (alice, bob) = alice_and_bob(&issuer, &server);
    let (first, _first) = open_listen(addr, &alice, 1).await;
    let (second, _second) = open_listen(addr, &alice, 2).await;
    assert_eq!((first, second), (StatusCode::OK, StatusCode::OK));
    // A third from the same principal is refused, whatever connection it comes on...
    let (third, refused) = open_listen(addr, &alice, 3).await;
    assert_eq!(third, StatusCode::SERVICE_UNAVAILABLE);
    let body = refused.into_body().collect().await.unwrap().to_bytes();
    let body: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(body["error"]["code"], -32603, "{body}");
    let message = body["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("config.streams.max_listen_streams_per_principal"),
        "{message}"
    );
    // ...while another principal opens its own.
    let (other, _other) = open_listen(addr, &bob, 4).await;
    assert_eq!(other, StatusCode::OK);
    // A stream that closes gives its place back.
    drop(_first);
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    loop {
        let (again, _again) = open_listen(addr, &alice, 5).await;
        if again == StatusCode::OK {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the place never came back"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn a_stream_ends_when_its_token_expires() {
    let issuer = start_issuer(vec![rsa_jwk("rsa-1")]).await;
    let server = start_server(&issuer).await;
    let token = |lifetime: u64| {
        let mut claims = claims(&issuer.url, &server.resource);
        claims["exp"] = json!(now() + lifetime);
        format!("Bearer {}", rs256("rsa-1", &claims))
    };
    let started = std::time::Instant::now();
    let (status, short) = open_listen(server.addr, &token(2), 1).await;
    assert_eq!(status, StatusCode::OK);
    let (status, long) = open_listen(server.addr, &token(300), 2).await;
    assert_eq!(status, StatusCode::OK);
    // The stream of the token that expires in 2 s ends cleanly then (its acknowledgement
    // first): the client resumes under a fresh token.
    let body = tokio::time::timeout(Duration::from_secs(10), short.into_body().collect())
        .await
        .expect("the stream outlived its token")
        .expect("a clean end, not a cut")
        .to_bytes();
    let ended = started.elapsed();
    assert!(
        ended >= Duration::from_millis(900) && ended < Duration::from_secs(6),
        "ended after {ended:?}"
    );
    assert!(
        String::from_utf8_lossy(&body).contains("notifications/subscriptions/acknowledged"),
        "{body:?}"
    );
    // The other is still open: its acknowledgement, then nothing yet.
    let mut long = long.into_body();
    let ack = long.frame().await.unwrap().unwrap().into_data().unwrap();
    assert!(
        String::from_utf8_lossy(&ack).contains("acknowledged"),
        "{ack:?}"
    );
    let next = tokio::time::timeout(Duration::from_millis(300), long.frame()).await;
    assert!(next.is_err(), "the stream of a live token ended: {next:?}");
}

// ---------------------------------------------------------------------------------------
// DPoP (RFC 9449): a token bound to a key, presented with a fresh proof of that key.

/// A client's DPoP key: signs proofs, and names itself by its RFC 7638 thumbprint.
struct DpopKey {
    signing: EncodingKey,
    jwk: Value,
}

impl DpopKey {
    fn new() -> Self {
        let (signing, mut jwk) = es256_key("dpop");
        // A proof's jwk carries the key, not the issuer's bookkeeping.
        jwk.as_object_mut()
            .unwrap()
            .retain(|k, _| ["kty", "crv", "x", "y"].contains(&k.as_str()));
        Self { signing, jwk }
    }

    /// RFC 7638: SHA-256 of the required members in lexicographic order, no white space.
    fn thumbprint(&self) -> String {
        use base64::Engine as _;
        use sha2::Digest as _;
        let j = &self.jwk;
        let canonical = format!(
            r#"{{"crv":"{}","kty":"EC","x":"{}","y":"{}"}}"#,
            j["crv"].as_str().unwrap(),
            j["x"].as_str().unwrap(),
            j["y"].as_str().unwrap()
        );
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(sha2::Sha256::digest(canonical))
    }

    /// A proof for `method` on `url` with access token `token`, its claims changed by `change`.
    fn proof(
        &self,
        method: &str,
        url: &str,
        token: &str,
        change: impl FnOnce(&mut Value),
    ) -> String {
        use base64::Engine as _;
        use sha2::Digest as _;
        let ath = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .encode(sha2::Sha256::digest(token.as_bytes()));
        let mut jti = [0u8; 16];
        getrandom::fill(&mut jti).unwrap();
        let mut claims = json!({"jti": format!("{jti:x?}"), "htm": method, "htu": url,
                                "iat": now(), "ath": ath});
        change(&mut claims);
        let mut header = Header::new(Algorithm::ES256);
        header.typ = Some("dpop+jwt".into());
        header.jwk = Some(serde_json::from_value(self.jwk.clone()).unwrap());
        jsonwebtoken::encode(&header, &claims, &self.signing).unwrap()
    }
}

/// An `initialize` POST with `Authorization: {authorization}` and these `DPoP` headers.
async fn dpop_initialize(server: &Server, authorization: &str, proofs: &[&str]) -> Answer {
    let mut headers = vec![
        ("mcp-protocol-version", "2025-06-18"),
        ("authorization", authorization),
    ];
    for proof in proofs {
        headers.push(("dpop", proof));
    }
    send_with(server.addr, "POST", "/mcp", &headers, Some(initialize())).await
}

#[tokio::test]
async fn dpop_bound_tokens_need_a_fresh_proof_of_their_key() {
    let issuer = start_issuer(vec![rsa_jwk("rsa-1")]).await;
    let server = start_server(&issuer).await;
    let key = DpopKey::new();
    let mut bound = claims(&issuer.url, &server.resource);
    bound["cnf"] = json!({"jkt": key.thumbprint()});
    let token = rs256("rsa-1", &bound);
    let authorization = format!("DPoP {token}");
    let url = server.resource.clone();

    // A fresh proof for this request, token and key: served.
    let proof = key.proof("POST", &url, &token, |_| {});
    let answer = dpop_initialize(&server, &authorization, &[&proof]).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    // The same proof again: a replay.
    let again = dpop_initialize(&server, &authorization, &[&proof]).await;
    assert_eq!(again.status, StatusCode::UNAUTHORIZED, "{}", again.body);
    let challenge = again.challenge.unwrap();
    assert!(
        challenge.starts_with("DPoP ")
            && challenge.contains("invalid_dpop_proof")
            && challenge.contains("used before"),
        "{challenge}"
    );

    // Each claim that does not fit this request is refused, naming it.
    let other = DpopKey::new();
    let other_token = rs256("rsa-1", &claims(&issuer.url, &server.resource));
    let cases: Vec<(&str, String)> = vec![
        ("htm", key.proof("GET", &url, &token, |_| {})),
        (
            "htu",
            key.proof("POST", &format!("{url}/other"), &token, |_| {}),
        ),
        ("ath", key.proof("POST", &url, &other_token, |_| {})),
        (
            "iat",
            key.proof("POST", &url, &token, |c| c["iat"] = json!(now() - 600)),
        ),
        (
            "iat",
            key.proof("POST", &url, &token, |c| c["iat"] = json!(now() + 600)),
        ),
        (
            "jti",
            key.proof("POST", &url, &token, |c| c["jti"] = json!("")),
        ),
        ("cnf.jkt", other.proof("POST", &url, &token, |_| {})),
    ];
    for (claim, proof) in &cases {
        let answer = dpop_initialize(&server, &authorization, &[proof]).await;
        assert_eq!(
            answer.status,
            StatusCode::UNAUTHORIZED,
            "{claim}: {}",
            answer.body
        );
        let challenge = answer.challenge.unwrap();
        assert!(
            challenge.contains("invalid_dpop_proof") && challenge.contains(claim),
            "{claim}: {challenge}"
        );
    }
    // A proof whose header names another key than the one that signed it.
    let mut forged = key.proof("POST", &url, &token, |_| {});
    let other_signed = other.proof("POST", &url, &token, |_| {});
    let signature = other_signed.rsplit_once('.').unwrap().1;
    forged = format!("{}.{signature}", forged.rsplit_once('.').unwrap().0);
    let answer = dpop_initialize(&server, &authorization, &[&forged]).await;
    assert!(
        answer
            .challenge
            .unwrap()
            .contains("signature does not verify"),
        "{}",
        answer.body
    );
    // No proof, two proofs, a proof with typ JWT, and garbage.
    let fresh = || key.proof("POST", &url, &token, |_| {});
    for proofs in [vec![], vec![fresh(), fresh()], vec!["a.b.c".to_string()]] {
        let refs: Vec<&str> = proofs.iter().map(String::as_str).collect();
        let answer = dpop_initialize(&server, &authorization, &refs).await;
        assert_eq!(
            answer.status,
            StatusCode::UNAUTHORIZED,
            "{proofs:?}: {}",
            answer.body
        );
        assert!(answer.challenge.unwrap().contains("invalid_dpop_proof"));
    }

    // The bound token as a plain Bearer token is refused (whoever holds it is not shown to
    // hold its key), even after it was verified once as DPoP; an unbound token sent as DPoP too.
    let answer = refused_with(&server, &token).await;
    assert_eq!(answer.status, StatusCode::UNAUTHORIZED);
    assert!(answer.challenge.unwrap().contains("cnf"));
    let unbound = format!("DPoP {other_token}");
    let proof = key.proof("POST", &url, &other_token, |_| {});
    let answer = dpop_initialize(&server, &unbound, &[&proof]).await;
    assert_eq!(answer.status, StatusCode::UNAUTHORIZED);
    assert!(
        answer.challenge.unwrap().contains("not bound"),
        "{}",
        answer.body
    );
}

// ---------------------------------------------------------------------------------------
// Step-up: scopes that depend on what a request asks for (SEP-2350).

#[tokio::test]
async fn step_up_scopes_depend_on_the_arguments_and_the_uri() {
    use mcp_runtime::auth::StepUpRequest;
    let issuer = start_issuer(vec![rsa_jwk("rsa-1")]).await;
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let resource = format!("http://{addr}/mcp");
    // A call with an amount over 100 needs `payments:large`; a read of `tenant://ID/...` needs
    // `tenant:ID` (one scope per template id).
    let policy = |request: &StepUpRequest<'_>| -> Vec<String> {
        let mut scopes = Vec::new();
        if let Some(arguments) = request.arguments {
            let arguments: Value = serde_json::from_str(arguments.get()).unwrap_or_default();
            if arguments["amount"]
                .as_u64()
                .is_some_and(|amount| amount > 100)
            {
                scopes.push("payments:large".to_string());
            }
        }
        if let Some(rest) = request.target.strip_prefix("tenant://") {
            let tenant = rest.split('/').next().unwrap_or_default();
            scopes.push(format!("tenant:{tenant}"));
        }
        scopes
    };
    let auth = JwtAuthenticator::auth(JwtSettings::new(&issuer.url, &resource))
        .unwrap()
        .require_scopes(vec![SCOPE.into()])
        .step_up(policy);
    let config = Config::builder().auth(Some(auth)).build();
    tokio::spawn(
        McpServer::builder(WhoAmI)
            .config(config)
            .build()
            .serve_listener(listener, std::future::pending()),
    );
    let server = Server { addr, resource };
    let (bearer, session) = session_without_admin(&issuer, &server).await;
    let call = |id: u32, method: &str, params: Value| json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    let small = call(
        3,
        "tools/call",
        json!({"name": "whoami", "arguments": {"amount": 5}}),
    );
    let answer = send(
        addr,
        "POST",
        "/mcp",
        Some(&bearer),
        Some(&session),
        Some(small),
    )
    .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    // Over the threshold: 403 naming the whole set to ask for, in one challenge.
    let large = call(
        4,
        "tools/call",
        json!({"name": "whoami", "arguments": {"amount": 500}}),
    );
    let answer = send(
        addr,
        "POST",
        "/mcp",
        Some(&bearer),
        Some(&session),
        Some(large.clone()),
    )
    .await;
    assert_eq!(answer.status, StatusCode::FORBIDDEN, "{}", answer.body);
    let challenge = answer.challenge.unwrap();
    assert!(
        challenge.contains(&format!("scope=\"{SCOPE} payments:large\""))
            && challenge.contains("insufficient_scope"),
        "{challenge}"
    );
    // The same call written with params first and escaped names is decided the same way.
    let raw = r#"{"params":{"arguments":{"amount":500},"n\u0061me":"whoami"},"id":5,"method":"tools\/call","jsonrpc":"2.0"}"#;
    let headers = [
        ("mcp-protocol-version", "2025-06-18"),
        ("authorization", bearer.as_str()),
        ("mcp-session-id", session.as_str()),
    ];
    assert_eq!(
        send_raw(addr, "/mcp", &headers, raw).await.status,
        StatusCode::FORBIDDEN
    );
    // With the scope, it runs.
    let mut stepped = claims(&issuer.url, &server.resource);
    stepped["scope"] = json!(format!("{SCOPE} payments:large"));
    let stepped = format!("Bearer {}", rs256("rsa-1", &stepped));
    let answer = send(
        addr,
        "POST",
        "/mcp",
        Some(&stepped),
        None,
        Some(initialize()),
    )
    .await;
    let stepped_session = answer.session.unwrap();
    let answer = send(
        addr,
        "POST",
        "/mcp",
        Some(&stepped),
        Some(&stepped_session),
        Some(large),
    )
    .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    // By URI: each tenant's read (and subscription) needs that tenant's scope.
    for (method, id) in [("resources/read", 6), ("resources/subscribe", 7)] {
        let read = call(id, method, json!({"uri": "tenant://acme/report"}));
        let answer = send(
            addr,
            "POST",
            "/mcp",
            Some(&bearer),
            Some(&session),
            Some(read),
        )
        .await;
        assert_eq!(
            answer.status,
            StatusCode::FORBIDDEN,
            "{method}: {}",
            answer.body
        );
        assert!(answer
            .challenge
            .unwrap()
            .contains(&format!("scope=\"{SCOPE} tenant:acme\"")));
    }
}

/// While the issuer is down, the keys fetched last verify tokens only until
/// `JwtSettings::max_stale_key_age`: then 503 until the issuer answers again.
#[tokio::test]
async fn keys_of_an_unreachable_issuer_expire() {
    let issuer = start_issuer(vec![rsa_jwk("rsa-1")]).await;
    let server = start_server_with(&issuer, |s| {
        s.max_key_age = Duration::from_millis(200);
        s.max_stale_key_age = Duration::from_millis(1200);
        s.refresh_interval = Duration::from_millis(100);
        s.cache_capacity = 0;
    })
    .await;
    let token = rs256("rsa-1", &claims(&issuer.url, &server.resource));
    call_as(&server, &token).await;
    // The issuer breaks: its JWKS no longer reads.
    *issuer.jwks.lock().unwrap() = json!("not a key set");
    tokio::time::sleep(Duration::from_millis(400)).await;
    // Past max_key_age, the fetch fails, the old keys still serve...
    call_as(&server, &token).await;
    // ...until they are older than max_stale_key_age.
    tokio::time::sleep(Duration::from_millis(1200)).await;
    let answer = refused_with(&server, &token).await;
    assert_refused(
        &answer,
        503,
        None,
        "Service Unavailable: the issuer's signing keys cannot be fetched",
    );
    // Back: served again.
    *issuer.jwks.lock().unwrap() = json!({"keys": [rsa_jwk("rsa-1")]});
    tokio::time::sleep(Duration::from_millis(150)).await;
    call_as(&server, &token).await;
}

/// Two instances sharing Redis (features `jwt` and `redis`): a DPoP proof used on one is a
/// replay on the other, and each proof of the same key is still taken once anywhere.
#[cfg(feature = "redis")]
#[tokio::test]
async fn a_dpop_proof_used_on_one_instance_is_a_replay_on_the_others() {
    let redis = common::redis::Redis::start();
    let issuer = start_issuer(vec![rsa_jwk("rsa-1")]).await;
    // Both instances publish one resource, as behind a load balancer.
    let resource = "http://127.0.0.1:9/mcp".to_string();
    let mut servers = Vec::new();
    for _ in 0..2 {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let mut settings = JwtSettings::new(&issuer.url, &resource);
        settings.refresh_interval = Duration::from_millis(300);
        let auth = JwtAuthenticator::auth(settings)
            .unwrap()
            .require_scopes(vec![SCOPE.into()]);
        let config = Config::builder().auth(Some(auth)).build();
        let stores = mcp_runtime::stores::redis::connect(&redis.url(), "dpop", &config)
            .await
            .unwrap();
        let server = McpServer::builder(WhoAmI)
            .config(config)
            .stores(stores)
            .build();
        tokio::spawn(server.serve_listener(listener, std::future::pending()));
        servers.push(Server {
            addr,
            resource: resource.clone(),
        });
    }
    let key = DpopKey::new();
    let mut bound = claims(&issuer.url, &resource);
    bound["cnf"] = json!({"jkt": key.thumbprint()});
    let token = rs256("rsa-1", &bound);
    let authorization = format!("DPoP {token}");
    let proof = key.proof("POST", &resource, &token, |_| {});
    let first = dpop_initialize(&servers[0], &authorization, &[&proof]).await;
    assert_eq!(first.status, StatusCode::OK, "{}", first.body);
    let replayed = dpop_initialize(&servers[1], &authorization, &[&proof]).await;
    assert_eq!(
        replayed.status,
        StatusCode::UNAUTHORIZED,
        "{}",
        replayed.body
    );
    let challenge = replayed.challenge.unwrap();
    assert!(
        challenge.contains("invalid_dpop_proof") && challenge.contains("another instance"),
        "{challenge}"
    );
    // A fresh proof of the same key is served by either.
    for server in &servers {
        let fresh = key.proof("POST", &resource, &token, |_| {});
        let answer = dpop_initialize(server, &authorization, &[&fresh]).await;
        assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    }
}
