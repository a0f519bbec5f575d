//! The example's middleware on its generated server: the policy refuses a large order before
//! the handler runs, the cache answers a price the second time, the policy runs first; the
//! contract's `x-mcp.rateLimit` on `order` reaches the runtime (generated `rate_limit`), which
//! refuses the sixth order in a minute with -32023.

use std::sync::atomic::Ordering;

use mcp_runtime::dispatch::{Call, CallKind};
use mcp_runtime::rate_limit::Rate;
use mcp_runtime::stdio::block_on;
use mcp_runtime::{Dispatch, McpServer, ProtocolVersion, RequestContext};
use middleware_example::{shop_server, ShopServer, ORDER_REFUSED};
use serde_json::{json, Value};

fn tool(server: &ShopServer, name: &str, arguments: Value) -> Result<Value, mcp_runtime::RpcError> {
    let arguments = serde_json::value::to_raw_value(&arguments).unwrap();
    let version = ProtocolVersion::V2025_11_25;
    let call = Call::new(
        CallKind::Tool,
        name,
        Some(&arguments),
        RequestContext::new(version),
    );
    let future = server.call(call).expect("a known tool");
    block_on(future)
        .into_call_tool_result(version)
        .map(|result| serde_json::from_str(result.get()).unwrap())
}

/// The handler's call count.
fn handled(server: &ShopServer) -> usize {
    server
        .inner()
        .inner()
        .handler()
        .handled
        .load(Ordering::SeqCst)
}

#[test]
fn the_policy_refuses_a_large_order_before_the_handler() {
    let server = shop_server();
    let small = tool(&server, "order", json!({"item": "tea", "count": 2})).unwrap();
    assert_eq!(small["structuredContent"]["total_cents"], json!(700));
    let refused = tool(&server, "order", json!({"item": "tea", "count": 50})).unwrap_err();
    assert_eq!(refused.code, ORDER_REFUSED);
    assert_eq!(refused.data, Some(json!({"max": 10})));
    assert_eq!(handled(&server), 1);
}

#[test]
fn the_cache_answers_a_price_the_second_time() {
    let server = shop_server();
    let first = tool(&server, "price", json!({"item": "cake"})).unwrap();
    let second = tool(&server, "price", json!({"item": "cake"})).unwrap();
    assert_eq!(first, second);
    assert_eq!(
        first["structuredContent"],
        json!({"item": "cake", "cents": 420})
    );
    assert_eq!(handled(&server), 1);
    assert_eq!(server.inner().middleware().hits.load(Ordering::SeqCst), 1);
    // A failure is not cached.
    assert!(tool(&server, "price", json!({"item": "scone"})).unwrap()["isError"] == json!(true));
    assert!(tool(&server, "price", json!({"item": "scone"})).unwrap()["isError"] == json!(true));
    assert_eq!(handled(&server), 3);
}

#[test]
fn the_contracts_rate_limit_is_enforced() {
    let server = shop_server();
    assert_eq!(
        server.contract().rate_limit("tools/call", "order"),
        Some(Rate::new(5, 60_000))
    );
    assert_eq!(server.contract().rate_limit("tools/call", "price"), None);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut requests = String::from(concat!(
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
        "\n",
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        "\n"
    ));
    for id in 1..=6 {
        requests.push_str(&format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"order","arguments":{{"item":"tea","count":1}}}}}}"#
        ));
        requests.push('\n');
    }
    let text = runtime.block_on(async {
        let (output, mut answers) = tokio::io::duplex(64 * 1024);
        mcp_runtime::stdio::serve_io(McpServer::new(shop_server()), requests.as_bytes(), output)
            .await
            .unwrap();
        let mut text = String::new();
        tokio::io::AsyncReadExt::read_to_string(&mut answers, &mut text)
            .await
            .unwrap();
        text
    });
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let by_id = |id: i64| lines.iter().find(|l| l["id"] == json!(id)).unwrap();
    for id in 1..=5 {
        assert!(by_id(id)["result"].is_object(), "{text}");
    }
    assert_eq!(by_id(6)["error"]["code"], json!(-32023), "{text}");
}
