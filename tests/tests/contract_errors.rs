//! Contract errors (`fixtures/openrpc/errors.openrpc.json`), through a real server on
//! loopback: a handler returning a generated `errors::*` constructor answers
//!
//! - on the plain JSON-RPC endpoint, a JSON-RPC error with the contract's code and message and
//!   the handler's `data` (none for an error that declares no `data`), for a plain method and
//!   for a tool's method alike;
//! - as a tool over `/mcp`, an `isError` result whose text is the contract's message.

mod support;

use http::StatusCode;
use serde_json::{json, Value};
use std::net::SocketAddr;
use tokio::net::TcpListener;
use tokio::sync::oneshot;

use mcp_runtime::{Config, McpServer};
use support::{send_to, Client};
use workspace_tests::errors_server::Server;
use workspace_tests::ErrorsHandler;

const PATH: &str = "/jsonrpc";

/// Serves [`ErrorsHandler`] on an ephemeral port, `/mcp` and the plain endpoint, until the
/// returned sender is dropped.
async fn start() -> (SocketAddr, oneshot::Sender<()>) {
    let config = Config::builder()
        .jsonrpc_path(Some(PATH.to_string()))
        // `transfer` has no MCP face: served on the plain endpoint only when asked.
        .jsonrpc_unexposed(true)
        .build();
    let server = McpServer::builder(Server::new(ErrorsHandler))
        .config(config)
        .build();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = oneshot::channel::<()>();
    tokio::spawn(async move {
        server
            .serve_listener(listener, async {
                let _ = stopped.await;
            })
            .await
            .unwrap();
    });
    (addr, stop)
}

/// Calls `method` on the plain endpoint: the whole response object.
async fn rpc(addr: SocketAddr, method: &str, params: Value) -> Value {
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params});
    let reply = send_to(
        addr,
        PATH,
        "POST",
        &[("content-type", "application/json")],
        &body.to_string(),
    )
    .await;
    assert_eq!(reply.status, StatusCode::OK, "{method}");
    reply.json().await
}

#[tokio::test]
async fn a_contract_error_is_a_json_rpc_error_with_its_code_message_and_data() {
    let (addr, _stop) = start().await;
    for method in ["transfer", "withdraw"] {
        let answer = rpc(addr, method, json!({"amount": 10})).await;
        assert_eq!(
            answer,
            json!({"jsonrpc": "2.0", "id": 7, "error": {
                "code": 4001,
                "message": "Insufficient funds",
                "data": {"balance": 0, "needed": 10},
            }}),
            "{method}"
        );
    }
    // An error declared without `data` carries none.
    let answer = rpc(addr, "transfer", json!([-1])).await;
    assert_eq!(
        answer,
        json!({"jsonrpc": "2.0", "id": 7, "error": {
            "code": 4004,
            "message": "Account <b>frozen</b>",
        }})
    );
    // Success is unchanged.
    let answer = rpc(addr, "transfer", json!({"amount": 0})).await;
    assert_eq!(answer, json!({"jsonrpc": "2.0", "id": 7, "result": 0}));
}

#[tokio::test]
async fn a_contract_error_from_a_tool_is_an_is_error_result_with_its_message() {
    let (addr, _stop) = start().await;
    let mut client = Client::connect(addr, "2025-11-25").await;
    let answer = client
        .call(
            "tools/call",
            json!({"name": "withdraw", "arguments": {"amount": 10}}),
        )
        .await;
    assert!(answer.get("error").is_none(), "{answer}");
    let result = &answer["result"];
    assert_eq!(result["isError"], true, "{answer}");
    assert_eq!(result["content"][0]["type"], "text");
    assert_eq!(
        result["content"][0]["text"], "Insufficient funds",
        "{answer}"
    );
}
