//! The era is decided at the edge, and a stateless request's validation errors come in the
//! specification's order with the request id echoed.

use http::StatusCode;
use serde_json::{json, Value};

use crate::call;
use crate::support::stateless::{meta, V};
use crate::support::{post, send, start, Client, POST_HEADERS};
use mcp_runtime::Config;

#[tokio::test]
async fn validation_errors_come_in_order_and_echo_the_id() {
    let server = start(Config::default()).await;
    let addr = server.addr;
    let request = |id: i64, method: &str, params: Value| json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});

    // 1. `_meta` without the client capabilities: 400 / -32602.
    let reply = post(
        addr,
        &[("mcp-protocol-version", V), ("mcp-method", "tools/list")],
        &request(
            101,
            "tools/list",
            json!({"_meta": {"io.modelcontextprotocol/protocolVersion": V}}),
        ),
    )
    .await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    let body = reply.json().await;
    assert_eq!(
        (body["id"].clone(), body["error"]["code"].clone()),
        (json!(101), json!(-32602))
    );

    // 2. Header and body disagree: 400 / -32020 (version, method, name).
    let reply = post(
        addr,
        &[
            ("mcp-protocol-version", "2025-11-25"),
            ("mcp-method", "tools/list"),
        ],
        &request(102, "tools/list", json!({"_meta": meta(json!({}))})),
    )
    .await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    assert_eq!(reply.json().await["error"]["code"], json!(-32020));
    let reply = post(
        addr,
        &[("mcp-protocol-version", V), ("mcp-method", "prompts/list")],
        &request(103, "tools/list", json!({"_meta": meta(json!({}))})),
    )
    .await;
    assert_eq!(reply.json().await["error"]["code"], json!(-32020));
    let reply = post(
        addr,
        &[
            ("mcp-protocol-version", V),
            ("mcp-method", "tools/call"),
            ("mcp-name", "count"),
        ],
        &request(
            104,
            "tools/call",
            json!({"_meta": meta(json!({})), "name": "echo", "arguments": {"text": "x"}}),
        ),
    )
    .await;
    let body = reply.json().await;
    assert_eq!(
        (body["id"].clone(), body["error"]["code"].clone()),
        (json!(104), json!(-32020))
    );
    // The Base64 form of Mcp-Name is decoded before comparing.
    let reply = post(
        addr,
        &[
            ("mcp-protocol-version", V),
            ("mcp-method", "tools/call"),
            ("mcp-name", "=?base64?ZWNobw==?="),
        ],
        &request(
            105,
            "tools/call",
            json!({"_meta": meta(json!({})), "name": "echo", "arguments": {"text": "x"}}),
        ),
    )
    .await;
    assert_eq!(reply.status, StatusCode::OK);

    // 3. Unsupported version: 400 / -32022 with data.supported and data.requested.
    let mut bad_meta = meta(json!({}));
    bad_meta["io.modelcontextprotocol/protocolVersion"] = json!("v999.0.0");
    let reply = post(
        addr,
        &[
            ("mcp-protocol-version", "v999.0.0"),
            ("mcp-method", "tools/list"),
        ],
        &request(106, "tools/list", json!({"_meta": bad_meta})),
    )
    .await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    let body = reply.json().await;
    assert_eq!(body["error"]["code"], json!(-32022));
    assert_eq!(
        body["error"]["data"],
        json!({"supported": ["2026-07-28"], "requested": "v999.0.0"})
    );

    // 4. Removed and unknown methods: 404 / -32601.
    for (id, method) in [
        (107, "initialize"),
        (108, "ping"),
        (109, "logging/setLevel"),
        (110, "resources/subscribe"),
        (111, "unknown/method"),
    ] {
        let reply = post(
            addr,
            &[("mcp-protocol-version", V), ("mcp-method", method)],
            &request(id, method, json!({"_meta": meta(json!({}))})),
        )
        .await;
        assert_eq!(reply.status, StatusCode::NOT_FOUND, "{method}");
        let body = reply.json().await;
        assert_eq!(
            (body["id"].clone(), body["error"]["code"].clone()),
            (json!(id), json!(-32601)),
            "{method}"
        );
    }

    // Resource not found is -32602 on this revision, with the uri.
    let missing = call(addr, 112, "resources/read", json!({"uri": "test://nope"}))
        .await
        .body;
    assert_eq!(missing["error"]["code"], json!(-32602));
    assert_eq!(missing["error"]["data"]["uri"], json!("test://nope"));
}

#[tokio::test]
async fn the_era_is_decided_at_the_edge() {
    let server = start(Config::default()).await;
    // A legacy initialize (no `_meta`, a session-era header) still opens a session...
    let legacy = Client::connect(server.addr, "2025-11-25").await;
    assert!(!legacy.session.is_empty());
    // ...and so does one whose `_meta` is the client's own (a trace, a progress token), with
    // no header at all; `_meta` naming the 2026 version makes it a stateless request, which
    // knows no initialize.
    let initialize = |meta: Value| {
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}, "_meta": meta}})
        .to_string()
    };
    let own_meta = json!({"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "progressToken": 1});
    let reply = send(server.addr, "POST", &POST_HEADERS, &initialize(own_meta)).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert!(reply.headers.contains_key("mcp-session-id"));
    let reply = send(
        server.addr,
        "POST",
        &POST_HEADERS,
        &initialize(meta(json!({}))),
    )
    .await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    assert!(!reply.headers.contains_key("mcp-session-id"));
    // ...a 2026 header without a session is the stateless path, where GET and DELETE are 405...
    for method in ["GET", "DELETE"] {
        let reply = send(
            server.addr,
            method,
            &[("mcp-protocol-version", V), ("accept", "text/event-stream")],
            "",
        )
        .await;
        assert_eq!(reply.status, StatusCode::METHOD_NOT_ALLOWED, "{method}");
    }
    // ...and no batches there.
    let batch = send(
        server.addr,
        "POST",
        &[
            POST_HEADERS[0],
            POST_HEADERS[1],
            ("mcp-protocol-version", V),
        ],
        "[]",
    )
    .await;
    assert_eq!(batch.status, StatusCode::BAD_REQUEST);
}
