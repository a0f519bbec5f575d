//! Results of the stateless path: `resultType` on every result and cache hints on `discover`,
//! the lists and `resources/read`, following the configuration.

use http::StatusCode;
use serde_json::{json, Value};
use std::net::SocketAddr;
use std::time::Duration;

use crate::call;
use crate::support::schema::assert_valid;
use crate::support::start;
use crate::support::stateless::V;
use mcp_runtime::Config;

/// The body of a stateless `resources/read` of `test://hello` with JSON-RPC id `id`.
async fn read_hello(addr: SocketAddr, id: i64) -> Value {
    call(addr, id, "resources/read", json!({"uri": "test://hello"}))
        .await
        .body
}

#[tokio::test]
async fn cache_hints_follow_the_configuration() {
    use mcp_runtime::{CacheHint, CacheHints, CacheScope};
    let hints = CacheHints {
        tools_list: CacheHint::new(Duration::from_secs(7), CacheScope::Private),
        resources_read: CacheHint::new(Duration::from_millis(1500), CacheScope::Public),
        discover: CacheHint::new(Duration::from_secs(60), CacheScope::Public),
        ..CacheHints::default()
    };
    let server = start(Config::builder().cache_hints(hints).build()).await;
    let hint = |body: &Value| {
        (
            body["result"]["ttlMs"].clone(),
            body["result"]["cacheScope"].clone(),
        )
    };
    let tools = call(server.addr, 1, "tools/list", json!({})).await.body;
    assert_eq!(hint(&tools), (json!(7000), json!("private")));
    let prompts = call(server.addr, 2, "prompts/list", json!({})).await.body;
    assert_eq!(hint(&prompts), (json!(300000), json!("public")));
    let read = read_hello(server.addr, 3).await;
    assert_eq!(hint(&read), (json!(1500), json!("public")));
    let discover = call(server.addr, 4, "server/discover", json!({}))
        .await
        .body;
    assert_eq!(hint(&discover), (json!(60000), json!("public")));
}

#[tokio::test]
async fn discover_and_lists_carry_result_type_and_cache_hints() {
    let server = start(Config::default()).await;
    let discover = call(server.addr, 1, "server/discover", json!({})).await;
    assert_eq!(discover.status, StatusCode::OK);
    let result = &discover.body["result"];
    assert_eq!(result["resultType"], json!("complete"));
    assert_eq!(
        result["supportedVersions"],
        json!([
            "2024-11-05",
            "2025-03-26",
            "2025-06-18",
            "2025-11-25",
            "2026-07-28"
        ])
    );
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        json!("http-test-server")
    );
    assert_eq!(
        (result["ttlMs"].clone(), result["cacheScope"].clone()),
        (json!(0), json!("private"))
    );
    assert_valid(V, "DiscoverResult", result);
    for (method, definition) in [
        ("tools/list", "ListToolsResult"),
        ("prompts/list", "ListPromptsResult"),
        ("resources/list", "ListResourcesResult"),
        ("resources/templates/list", "ListResourceTemplatesResult"),
    ] {
        let list = call(server.addr, 2, method, json!({})).await;
        assert_eq!(list.status, StatusCode::OK, "{method}");
        assert_eq!(list.body["result"]["ttlMs"], json!(300000));
        assert_eq!(list.body["result"]["cacheScope"], json!("public"));
        assert_valid(V, definition, &list.body["result"]);
    }
    let read = read_hello(server.addr, 3).await;
    assert_eq!(read["result"]["contents"][0]["text"], json!("hello, world"));
    assert_valid(V, "ReadResourceResult", &read["result"]);
    let called = call(server.addr, 4, "tools/call", json!({"name": "count"}))
        .await
        .body;
    assert_eq!(called["result"]["structuredContent"], json!({"steps": 3}));
    assert_valid(V, "CallToolResult", &called["result"]);
    let prompt = call(
        server.addr,
        5,
        "prompts/get",
        json!({"name": "greet", "arguments": {"name": "Ada"}}),
    )
    .await
    .body;
    assert_valid(V, "GetPromptResult", &prompt["result"]);
    assert_eq!(
        server.server.load().sessions,
        0,
        "the stateless path keeps no session"
    );
}
