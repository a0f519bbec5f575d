//! The stateless 2026-07-28 path of the same endpoint: the era decision, validation errors in
//! the specification's order with the request id echoed, `resultType` and cache hints, and
//! progress on an SSE response. Results are checked against the official 2026-07-28 schema.

mod support;

use http::StatusCode;
use serde_json::{json, Value};

use mcp_runtime::Config;
use support::schema::{assert_server_message, assert_valid};
use support::{post, send, sse_messages, start, Client, POST_HEADERS};

const V: &str = "2026-07-28";

fn meta() -> Value {
    json!({"io.modelcontextprotocol/protocolVersion": V, "io.modelcontextprotocol/clientCapabilities": {}})
}

/// A stateless request with matching routing headers.
async fn call(
    addr: std::net::SocketAddr,
    id: i64,
    method: &str,
    mut params: Value,
    name: Option<&str>,
) -> (StatusCode, Value, String) {
    params["_meta"] = meta();
    let mut headers = vec![("mcp-protocol-version", V), ("mcp-method", method)];
    if let Some(name) = name {
        headers.push(("mcp-name", name));
    }
    let reply = post(
        addr,
        &headers,
        &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
    )
    .await;
    let status = reply.status;
    let content_type = reply.header("content-type").unwrap_or_default().to_string();
    let text = reply.text().await;
    let body = if content_type == "text/event-stream" {
        sse_messages(&text)
            .into_iter()
            .find(|m| m["id"] == json!(id))
            .unwrap_or(Value::Null)
    } else {
        serde_json::from_str(&text).unwrap_or(Value::Null)
    };
    (status, body, text)
}

#[tokio::test]
async fn discover_and_lists_carry_result_type_and_cache_hints() {
    let server = start(Config::default()).await;
    let (status, discover, _) = call(server.addr, 1, "server/discover", json!({}), None).await;
    assert_eq!(status, StatusCode::OK);
    let result = &discover["result"];
    assert_eq!(result["resultType"], json!("complete"));
    assert_eq!(
        result["supportedVersions"],
        json!(["2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"])
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
        let (status, list, _) = call(server.addr, 2, method, json!({}), None).await;
        assert_eq!(status, StatusCode::OK, "{method}");
        assert_eq!(list["result"]["ttlMs"], json!(300000));
        assert_eq!(list["result"]["cacheScope"], json!("public"));
        assert_valid(V, definition, &list["result"]);
    }
    let (_, read, _) = call(
        server.addr,
        3,
        "resources/read",
        json!({"uri": "test://hello"}),
        Some("test://hello"),
    )
    .await;
    assert_eq!(read["result"]["contents"][0]["text"], json!("hello, world"));
    assert_valid(V, "ReadResourceResult", &read["result"]);
    let (_, called, _) = call(
        server.addr,
        4,
        "tools/call",
        json!({"name": "count"}),
        Some("count"),
    )
    .await;
    assert_eq!(called["result"]["structuredContent"], json!({"steps": 3}));
    assert_valid(V, "CallToolResult", &called["result"]);
    let (_, prompt, _) = call(
        server.addr,
        5,
        "prompts/get",
        json!({"name": "greet", "arguments": {"name": "Ada"}}),
        Some("greet"),
    )
    .await;
    assert_valid(V, "GetPromptResult", &prompt["result"]);
    assert_eq!(
        server.server.sessions().len(),
        0,
        "the stateless path keeps no session"
    );
}

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
        &request(102, "tools/list", json!({"_meta": meta()})),
    )
    .await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    assert_eq!(reply.json().await["error"]["code"], json!(-32020));
    let reply = post(
        addr,
        &[("mcp-protocol-version", V), ("mcp-method", "prompts/list")],
        &request(103, "tools/list", json!({"_meta": meta()})),
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
            json!({"_meta": meta(), "name": "echo", "arguments": {"text": "x"}}),
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
            json!({"_meta": meta(), "name": "echo", "arguments": {"text": "x"}}),
        ),
    )
    .await;
    assert_eq!(reply.status, StatusCode::OK);

    // 3. Unsupported version: 400 / -32022 with data.supported and data.requested.
    let mut bad_meta = meta();
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
            &request(id, method, json!({"_meta": meta()})),
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
    let (_, missing, _) = call(
        addr,
        112,
        "resources/read",
        json!({"uri": "test://nope"}),
        Some("test://nope"),
    )
    .await;
    assert_eq!(missing["error"]["code"], json!(-32602));
    assert_eq!(missing["error"]["data"]["uri"], json!("test://nope"));
}

#[tokio::test]
async fn the_era_is_decided_at_the_edge() {
    let server = start(Config::default()).await;
    // A legacy initialize (no `_meta`, a session-era header) still opens a session...
    let legacy = Client::connect(server.addr, "2025-11-25").await;
    assert!(!legacy.session.is_empty());
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

#[tokio::test]
async fn progress_and_requested_logs_stream_before_the_result() {
    let server = start(Config::default()).await;
    let mut params = json!({"name": "count", "_meta": meta()});
    params["_meta"]["progressToken"] = json!(7);
    let reply = post(
        server.addr,
        &[
            ("mcp-protocol-version", V),
            ("mcp-method", "tools/call"),
            ("mcp-name", "count"),
        ],
        &json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": params}),
    )
    .await;
    assert_eq!(reply.header("content-type"), Some("text/event-stream"));
    let messages = sse_messages(&reply.text().await);
    assert_eq!(messages.len(), 4, "{messages:?}");
    for progress in &messages[..3] {
        assert_eq!(progress["params"]["progressToken"], json!(7));
        assert_server_message(V, progress);
    }
    assert_eq!(messages[3]["result"]["resultType"], json!("complete"));

    // Logs only when the request's `_meta` asks for a level.
    let (_, _, quiet) = call(
        server.addr,
        10,
        "tools/call",
        json!({"name": "chatty"}),
        Some("chatty"),
    )
    .await;
    assert!(!quiet.contains("notifications/message"), "{quiet}");
    let mut params = json!({"name": "chatty", "_meta": meta()});
    params["_meta"]["io.modelcontextprotocol/logLevel"] = json!("error");
    let reply = post(
        server.addr,
        &[
            ("mcp-protocol-version", V),
            ("mcp-method", "tools/call"),
            ("mcp-name", "chatty"),
        ],
        &json!({"jsonrpc": "2.0", "id": 11, "method": "tools/call", "params": params}),
    )
    .await;
    let logs: Vec<Value> = sse_messages(&reply.text().await)
        .into_iter()
        .filter(|m| m["method"] == json!("notifications/message"))
        .collect();
    assert_eq!(logs.len(), 1, "{logs:?}");
    assert_eq!(logs[0]["params"]["level"], json!("error"));
}
