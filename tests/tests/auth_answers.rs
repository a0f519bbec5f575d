//! Authorization's answers against the official MCP schemas, over real HTTP: the test server
//! behind a custom [`Authenticator`] (API keys; no cargo feature needed).
//!
//! - A request refused at the edge, before its body is read (no token, an unknown one, a
//!   malformed `Authorization`, a scope every request needs), answers a JSON-RPC error
//!   without `id`: the form 2025-11-25 and 2026-07-28 define for an id that cannot be known
//!   (`"id": null` matches no revision's schema).
//! - A contract-scope refusal, once the body is read, answers the request's id.
//! - Another principal's task is an unknown task: the `InvalidParamsError` of the schema, as
//!   for an id that never existed, and the owner's own requests still see it.

mod support;

use http::StatusCode;
use serde_json::{json, Value};

use mcp_runtime::auth::{bearer_token, Auth, Authenticator, Principal, Refusal, ResourceMetadata};
use mcp_runtime::{BoxFuture, Config};
use support::schema::assert_valid;
use support::stateless::exchange;
use support::{post, start};

/// API keys: alice and bob with the scope every request needs, carol without it.
struct Keys;

impl Authenticator for Keys {
    fn authenticate<'a>(
        &'a self,
        request: &'a http::request::Parts,
    ) -> BoxFuture<'a, Result<Principal, Refusal>> {
        Box::pin(async move {
            match bearer_token(&request.headers)? {
                Some("alice-key") => Ok(Principal::new("alice", vec!["mcp".into()])),
                Some("bob-key") => Ok(Principal::new("bob", vec!["mcp".into()])),
                Some("carol-key") => Ok(Principal::new("carol", vec![])),
                Some(_) => Err(Refusal::invalid_token("unknown API key")),
                None => Err(Refusal::Missing),
            }
        })
    }
}

/// The test server, every request needing the scope `mcp`.
async fn start_with_keys() -> support::TestServer {
    let metadata = ResourceMetadata::new(
        "http://127.0.0.1/mcp",
        vec!["https://issuer.example".into()],
    )
    .unwrap();
    let auth = Auth::new(metadata, Keys).require_scopes(vec!["mcp".into()]);
    start(Config::builder().auth(Some(auth)).build()).await
}

/// Asserts that `body` is an error response without `id` valid in both revisions that allow
/// one.
fn assert_id_less_error(body: &Value) {
    assert!(body.get("id").is_none(), "{body}");
    for version in ["2025-11-25", "2026-07-28"] {
        assert_valid(version, "JSONRPCErrorResponse", body);
    }
}

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "auth-answers", "version": "1"}}})
}

#[tokio::test]
async fn refusals_at_the_edge_are_errors_without_an_id() {
    let server = start_with_keys().await;
    for (authorization, status) in [
        (None, StatusCode::UNAUTHORIZED),
        (Some("Bearer nobody-key"), StatusCode::UNAUTHORIZED),
        (Some("Basic YWxpY2U6eA=="), StatusCode::BAD_REQUEST),
        (Some("Bearer carol-key"), StatusCode::FORBIDDEN),
    ] {
        let headers: Vec<(&str, &str)> = authorization
            .map(|value| ("authorization", value))
            .into_iter()
            .collect();
        let reply = post(server.addr, &headers, &initialize()).await;
        assert_eq!(reply.status, status, "{authorization:?}");
        assert!(
            reply.header("www-authenticate").is_some(),
            "{authorization:?}"
        );
        assert_id_less_error(&reply.json().await);
    }
    // A valid key goes through.
    let reply = post(
        server.addr,
        &[("authorization", "Bearer alice-key")],
        &initialize(),
    )
    .await;
    assert_eq!(reply.status, StatusCode::OK);
}

#[tokio::test]
async fn another_principals_task_is_an_unknown_task() {
    let server = start_with_keys().await;
    let tasks = json!({"extensions": {"io.modelcontextprotocol/tasks": {}}});
    let alice = [("authorization", "Bearer alice-key")];
    let bob = [("authorization", "Bearer bob-key")];
    let call = json!({"name": "background_job", "arguments": {"millis": 5000}});
    // `exchange` checks every answer against the 2026-07-28 schema.
    let created = exchange(server.addr, 1, "tools/call", call, tasks.clone(), &alice).await;
    assert_eq!(created.status, StatusCode::OK, "{}", created.text);
    let task = created.body["result"]["taskId"]
        .as_str()
        .unwrap()
        .to_string();
    let about = json!({"taskId": task});
    let bobs = [bob[0], ("mcp-name", task.as_str())];
    for (id, method) in [(2, "tasks/get"), (3, "tasks/cancel")] {
        let answer = exchange(server.addr, id, method, about.clone(), tasks.clone(), &bobs).await;
        assert_eq!(
            answer.body["error"],
            json!({"code": -32602, "message": format!("Unknown task: {task}"),
                   "data": {"taskId": task}}),
            "{method}: {}",
            answer.text
        );
    }
    // Bob's cancel changed nothing: alice's task still works.
    let alices = [alice[0], ("mcp-name", task.as_str())];
    let seen = exchange(server.addr, 4, "tasks/get", about, tasks, &alices).await;
    assert_eq!(seen.body["result"]["status"], "working", "{}", seen.text);
}
