//! The plain JSON-RPC endpoint (`config.endpoints.jsonrpc_path`), through a real server on
//! loopback:
//!
//! - every method of the contract, with or without `x-mcp` (`--jsonrpc-unexposed`), by name and
//!   by position, its typed result as `result`, and that result valid against the method's
//!   result schema in `fixtures/http-test.openrpc.json`;
//! - without `--jsonrpc-unexposed`, a method without an MCP face is `-32601` however it is
//!   spelled (raw bytes: `params` first, the name escaped), alone, in a batch or as a
//!   notification (which runs nothing), and `rpc.discover` leaves it out;
//! - a notification runs (`record_event` records) and answers 204 with no body; a batch
//!   answers its requests in order (its notifications run, unanswered); an all-notification
//!   batch is 204; a batch's elements run concurrently (sleeps side by side take the longest
//!   one, not their sum), answered in the order of the requests;
//! - `rpc.discover` answers the document the server was generated from;
//! - the error codes: -32700, -32600, -32601, -32602, a panic -32603;
//! - the guards of `/mcp` apply (bad Host 403, media types, body limit 413);
//! - off by default: the path is 404, and `/mcp` still refuses the plain method.

mod support;

use http::StatusCode;
use serde_json::{json, Value};
use std::net::SocketAddr;

use mcp_runtime::Config;
use support::{send_to, start, Client, TestServer};

const PATH: &str = "/jsonrpc";

/// The contract the test server was generated from.
fn contract() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/http-test.openrpc.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The plain endpoint serving every method, those without `x-mcp` too.
async fn server() -> TestServer {
    start(
        Config::builder()
            .jsonrpc_path(Some(PATH.to_string()))
            .jsonrpc_unexposed(true)
            .build(),
    )
    .await
}

#[tokio::test]
async fn methods_mcp_does_not_expose_are_not_served_by_default() {
    let server = start(
        Config::builder()
            .jsonrpc_path(Some(PATH.to_string()))
            .build(),
    )
    .await;
    let addr = server.addr;
    for body in [
        r#"{"params":{"event":"asked"},"id":1,"method":"record_event","jsonrpc":"2.0"}"#,
        r#"{"params":["asked"],"id":1,"method":"record_event","jsonrpc":"2.0"}"#,
    ] {
        let (status, text) = post_text(addr, body).await;
        let answer: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            (status, error_code(&answer)),
            (StatusCode::OK, -32601),
            "{text}"
        );
    }
    // In a batch: the exposed method answers, the other is -32601.
    let batch = r#"[{"params":{"text":"hi"},"id":1,"method":"echo","jsonrpc":"2.0"},{"params":["x"],"id":2,"method":"record_event","jsonrpc":"2.0"}]"#;
    let (status, text) = post_text(addr, batch).await;
    let answers: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(status, StatusCode::OK);
    assert!(answers[0].get("result").is_some(), "{text}");
    assert_eq!(error_code(&answers[1]), -32601, "{text}");
    // A notification runs nothing.
    let (status, _) = post_text(
        addr,
        r#"{"params":["noted"],"method":"record_event","jsonrpc":"2.0"}"#,
    )
    .await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    assert!(server.handler.events().is_empty());
    // `rpc.discover` lists what MCP exposes, and nothing else.
    let (_, answer) = rpc(
        addr,
        &json!({"jsonrpc": "2.0", "id": 1, "method": "rpc.discover"}),
    )
    .await;
    let listed: Vec<&str> = answer["result"]["methods"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["name"].as_str().unwrap())
        .collect();
    let contract = contract();
    let exposed: Vec<&str> = contract["methods"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m.get("x-mcp").is_some_and(|x| !x.is_null()))
        .map(|m| m["name"].as_str().unwrap())
        .collect();
    assert!(
        listed.contains(&"echo") && !listed.contains(&"record_event"),
        "{listed:?}"
    );
    assert_eq!(listed, exposed);
}

/// POSTs `body` (any text) to the plain endpoint with a JSON content type.
async fn post_text(addr: SocketAddr, body: &str) -> (StatusCode, String) {
    let reply = send_to(
        addr,
        PATH,
        "POST",
        &[("content-type", "application/json")],
        body,
    )
    .await;
    (reply.status, reply.text().await)
}

/// POSTs `body`: the status and the JSON answer (`Null` for an empty body).
async fn rpc(addr: SocketAddr, body: &Value) -> (StatusCode, Value) {
    let (status, text) = post_text(addr, &body.to_string()).await;
    let json = match text.is_empty() {
        true => Value::Null,
        false => serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}")),
    };
    (status, json)
}

/// Calls `method` with `params`: the whole response object, after checking the status is 200.
async fn call(addr: SocketAddr, method: &str, params: Value) -> Value {
    let (status, answer) = rpc(
        addr,
        &json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{method}: {answer}");
    assert_eq!(answer["jsonrpc"], "2.0");
    assert_eq!(answer["id"], 1);
    answer
}

fn error_code(answer: &Value) -> i64 {
    answer["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("an error expected: {answer}"))
}

#[tokio::test]
async fn by_name_and_by_position() {
    let server = server().await;
    let addr = server.addr;
    for params in [json!({"text": "hi"}), json!(["hi"])] {
        let answer = call(addr, "echo", params.clone()).await;
        assert_eq!(answer["result"], "hi", "{params}");
        assert!(answer.get("error").is_none());
    }
    // Two params by position, in declaration order; the optional one may be left out.
    let answer = call(addr, "greet", json!(["Ada", "warm"])).await;
    assert_eq!(answer["result"], "Say hello to Ada.");
    let answer = call(addr, "greet", json!(["Ada"])).await;
    assert_eq!(answer["result"], "Say hello to Ada.");
    // A typed object result is the `result` member itself, not MCP content.
    let answer = call(addr, "item", json!({"id": 7})).await;
    assert_eq!(answer["result"]["id"], 7);
    // A string id comes back as it was sent.
    let (_, answer) = rpc(
        addr,
        &json!({"jsonrpc": "2.0", "id": "a-1", "method": "hello"}),
    )
    .await;
    assert_eq!(
        answer,
        json!({"jsonrpc": "2.0", "id": "a-1", "result": "hello, world"})
    );
}

#[tokio::test]
async fn a_plain_method_without_x_mcp() {
    let server = server().await;
    let answer = call(server.addr, "record_event", json!({"event": "asked"})).await;
    // No `result` in the contract: the answer's result is null.
    assert_eq!(answer["result"], Value::Null);
    assert!(answer.as_object().unwrap().contains_key("result"));
    assert_eq!(server.handler.events(), ["asked"]);
}

#[tokio::test]
async fn a_notification_runs_and_answers_204() {
    let server = server().await;
    let reply = send_to(
        server.addr,
        PATH,
        "POST",
        &[("content-type", "application/json")],
        &json!({"jsonrpc": "2.0", "method": "record_event", "params": ["noted"]}).to_string(),
    )
    .await;
    assert_eq!(reply.status, StatusCode::NO_CONTENT);
    assert_eq!(reply.text().await, "");
    // Answered after it ran.
    assert_eq!(server.handler.events(), ["noted"]);
    // A notification of an unknown method, or with bad params: still 204, nothing runs.
    for body in [
        json!({"jsonrpc": "2.0", "method": "no_such_method"}),
        json!({"jsonrpc": "2.0", "method": "record_event", "params": {"event": 5}}),
    ] {
        let (status, answer) = rpc(server.addr, &body).await;
        assert_eq!((status, answer), (StatusCode::NO_CONTENT, Value::Null));
    }
    assert_eq!(server.handler.events(), ["noted"]);
}

#[tokio::test]
async fn batches() {
    let server = server().await;
    let addr = server.addr;
    let (status, answer) = rpc(
        addr,
        &json!([
            {"jsonrpc": "2.0", "id": 1, "method": "echo", "params": ["one"]},
            {"jsonrpc": "2.0", "method": "record_event", "params": {"event": "first"}},
            {"jsonrpc": "2.0", "id": 2, "method": "no_such_method"},
            {"jsonrpc": "2.0", "id": 3, "method": "record_event", "params": {"event": "second"}},
            {"jsonrpc": "2.0", "id": 4, "method": "echo", "params": {"text": 5}},
            {"foo": "bar"},
            {"jsonrpc": "2.0", "id": 5, "result": 1}
        ]),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let answers = answer.as_array().unwrap();
    assert_eq!(answers.len(), 6, "the notification adds none: {answer}");
    assert_eq!(
        answers[0],
        json!({"jsonrpc": "2.0", "id": 1, "result": "one"})
    );
    assert_eq!(
        (answers[1]["id"].clone(), error_code(&answers[1])),
        (json!(2), -32601)
    );
    assert_eq!(
        answers[2],
        json!({"jsonrpc": "2.0", "id": 3, "result": null})
    );
    assert_eq!(
        (answers[3]["id"].clone(), error_code(&answers[3])),
        (json!(4), -32602)
    );
    assert_eq!(
        (answers[4]["id"].clone(), error_code(&answers[4])),
        (Value::Null, -32600)
    );
    assert_eq!(
        (answers[5]["id"].clone(), error_code(&answers[5])),
        (json!(5), -32600)
    );
    // Started in order (neither waits for anything).
    assert_eq!(server.handler.events(), ["first", "second"]);

    // Only notifications: 204, every one run.
    let (status, answer) = rpc(
        addr,
        &json!([
            {"jsonrpc": "2.0", "method": "record_event", "params": ["third"]},
            {"jsonrpc": "2.0", "method": "record_event", "params": ["fourth"]}
        ]),
    )
    .await;
    assert_eq!((status, answer), (StatusCode::NO_CONTENT, Value::Null));
    assert_eq!(
        server.handler.events(),
        ["first", "second", "third", "fourth"]
    );

    // An empty batch is one Invalid Request.
    let (status, answer) = rpc(addr, &json!([])).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(error_code(&answer), -32600);
}

#[tokio::test]
async fn a_batch_runs_its_elements_concurrently() {
    let server = server().await;
    let addr = server.addr;
    // Three sleeps (2.4 s one after another) beside a fast call and a notification: together
    // they take about the longest one, and the answers keep the order of the requests although
    // the short sleep and the echo finish first.
    let started = std::time::Instant::now();
    let (status, answer) = rpc(
        addr,
        &json!([
            {"jsonrpc": "2.0", "id": 1, "method": "slow", "params": {"millis": 1000}},
            {"jsonrpc": "2.0", "id": 2, "method": "slow", "params": [1000]},
            {"jsonrpc": "2.0", "method": "record_event", "params": {"event": "meanwhile"}},
            {"jsonrpc": "2.0", "id": 3, "method": "slow", "params": {"millis": 400}},
            {"jsonrpc": "2.0", "id": 4, "method": "echo", "params": ["fast"]}
        ]),
    )
    .await;
    let elapsed = started.elapsed();
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        answer,
        json!([
            {"jsonrpc": "2.0", "id": 1, "result": 1000},
            {"jsonrpc": "2.0", "id": 2, "result": 1000},
            {"jsonrpc": "2.0", "id": 3, "result": 400},
            {"jsonrpc": "2.0", "id": 4, "result": "fast"}
        ])
    );
    assert!(
        elapsed >= std::time::Duration::from_millis(1000),
        "{elapsed:?}"
    );
    assert!(
        elapsed < std::time::Duration::from_millis(1900),
        "the batch took {elapsed:?}: its sleeps ran one after another"
    );
    assert_eq!(server.handler.events(), ["meanwhile"]);

    // A longer batch runs at most `batch_concurrency` (4) elements at once: eight sleeps of
    // 300 ms, each shorter one after, take two rounds or more, answered in order.
    let count: u64 = 8;
    let batch: Vec<Value> = (0..count)
        .map(|i| json!({"jsonrpc": "2.0", "id": i, "method": "slow", "params": [300 - i]}))
        .collect();
    let started = std::time::Instant::now();
    let (status, answer) = rpc(addr, &Value::Array(batch)).await;
    let elapsed = started.elapsed();
    assert_eq!(status, StatusCode::OK);
    let expected: Vec<Value> = (0..count)
        .map(|i| json!({"jsonrpc": "2.0", "id": i, "result": 300 - i}))
        .collect();
    assert_eq!(answer, Value::Array(expected));
    assert!(
        elapsed >= std::time::Duration::from_millis(580),
        "the batch took {elapsed:?}: more than 4 elements ran at once"
    );
    assert!(
        elapsed < std::time::Duration::from_millis(2000),
        "the batch took {elapsed:?}: its sleeps ran one after another"
    );
}

/// A batch longer than `max_batch_len` (64) is refused whole, before any element runs.
#[tokio::test]
async fn a_batch_longer_than_the_limit_is_refused_whole() {
    let server = server().await;
    let batch: Vec<Value> = (0..65)
        .map(|i| json!({"jsonrpc": "2.0", "id": i, "method": "record_event", "params": {"event": "ran"}}))
        .collect();
    let (status, answer) = rpc(server.addr, &Value::Array(batch)).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(error_code(&answer), -32600);
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("config.streams.max_batch_len"),
        "{answer}"
    );
    assert!(server.handler.events().is_empty(), "nothing ran");
}

#[tokio::test]
async fn errors_have_their_codes() {
    let server = server().await;
    let addr = server.addr;
    // Unknown method.
    let answer = call(addr, "no_such_method", json!({})).await;
    assert_eq!(error_code(&answer), -32601);
    assert!(answer["error"]["message"]
        .as_str()
        .unwrap()
        .contains("no_such_method"));
    // MCP methods are not contract methods.
    assert_eq!(
        error_code(&call(addr, "tools/list", json!({})).await),
        -32601
    );
    // Bad params: wrong type, missing, not an object or array, unknown position.
    for params in [
        json!({"text": 5}),
        json!({}),
        json!("hi"),
        json!(["hi", "extra"]),
    ] {
        let answer = call(addr, "echo", params.clone()).await;
        assert_eq!(error_code(&answer), -32602, "{params}: {answer}");
    }
    // The schema's rules are checked too, every violation in the one message.
    let answer = call(addr, "bounded", json!({"limit": 51, "name": "a1"})).await;
    assert_eq!(
        answer["error"]["message"],
        json!("Invalid params: /limit: must be ≤ 50; /name: must match the pattern \"^[a-z]+$\""),
        "{answer}"
    );
    // A panicking handler: -32603, and the server goes on.
    assert_eq!(error_code(&call(addr, "explode", json!({})).await), -32603);
    // A handler's own error: -32000 unless it named a code.
    assert_eq!(
        error_code(&call(addr, "failing_job", json!({})).await),
        -32000
    );
    assert_eq!(
        error_code(&call(addr, "broken_job", json!({})).await),
        -32603
    );
    // Not JSON: -32700 with a null id, 400.
    for body in [r#"{"jsonrpc":"2.0","id":1,"method":"echo""#, "[1,", "\u{0}"] {
        let (status, text) = post_text(addr, body).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body:?}");
        let answer: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            (answer["id"].clone(), error_code(&answer)),
            (Value::Null, -32700)
        );
    }
    // JSON, but not a request: -32600.
    for body in [
        json!({"jsonrpc": "1.0", "id": 1, "method": "echo"}),
        json!({"jsonrpc": "2.0", "id": null, "method": "echo"}),
        json!({"jsonrpc": "2.0", "id": 1, "method": 5}),
        json!({"jsonrpc": "2.0", "id": 1, "result": "a response"}),
        json!("a string"),
    ] {
        let (status, answer) = rpc(addr, &body).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
        assert_eq!(error_code(&answer), -32600, "{body}");
    }
    assert_eq!(
        call(addr, "echo", json!(["still serving"])).await["result"],
        "still serving"
    );
}

#[tokio::test]
async fn rpc_discover_answers_the_contract() {
    let server = server().await;
    for params in [None, Some(json!([])), Some(json!({}))] {
        let mut request = json!({"jsonrpc": "2.0", "id": 1, "method": "rpc.discover"});
        if let Some(params) = params {
            request["params"] = params;
        }
        let (status, answer) = rpc(server.addr, &request).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(answer["result"], contract());
    }
    let answer = call(server.addr, "rpc.discover", json!({"x": 1})).await;
    assert_eq!(error_code(&answer), -32602);
}

/// Every method of the contract answers on the plain endpoint, and each result is valid
/// against the method's result schema (`null` for a method without one). The methods that
/// need a client to talk back (sampling, elicitation) fail there with a JSON-RPC error:
/// a detached context cannot ask anything.
#[tokio::test]
async fn every_result_validates_against_its_result_schema() {
    let server = server().await;
    let contract = contract();
    let params = |method: &str| match method {
        "echo" => json!({"text": "hi"}),
        "bounded" => json!({"limit": 2, "name": "ok", "tags": ["a"]}),
        "slow" | "background_job" => json!({"millis": 1}),
        "ask_model" => json!({"question": "why?"}),
        "interview" | "styled" => json!({"topic": "rust"}),
        "region_echo" => json!({"region": "eu-west"}),
        "limit_echo" => json!([3]),
        "flood" => json!({"count": 2, "size": 4}),
        "greet" => json!({"name": "Ada", "tone": "wry"}),
        "item" => json!({"id": 3}),
        "record_event" => json!(["validated"]),
        _ => json!({}),
    };
    // They sleep a minute on purpose (cancellation tests).
    let long = ["linger", "endless_job"];
    // They fail on purpose, or need a client able to answer.
    let failing = [
        "explode",
        "failing_job",
        "broken_job",
        "ask_model",
        "interview",
        "tally",
        "needs_sampling",
        "vault",
        "two_questions",
        "styled",
    ];
    let mut validated = Vec::new();
    for (index, method) in contract["methods"].as_array().unwrap().iter().enumerate() {
        let name = method["name"].as_str().unwrap();
        if long.contains(&name) {
            continue;
        }
        let answer = call(server.addr, name, params(name)).await;
        if failing.contains(&name) {
            assert!(answer.get("error").is_some(), "{name}: {answer}");
            continue;
        }
        let result = answer
            .get("result")
            .unwrap_or_else(|| panic!("{name}: {answer}"));
        if method.get("result").is_none() {
            assert_eq!(result, &Value::Null, "{name}");
        } else {
            // The contract is the schema's root, so `$ref`s into it resolve.
            let mut root = contract.clone();
            root["$ref"] = json!(format!("#/methods/{index}/result/schema"));
            let validator = jsonschema::validator_for(&root).unwrap();
            let errors: Vec<String> = validator
                .iter_errors(result)
                .map(|e| e.to_string())
                .collect();
            if name == "item" {
                // The validator does check: a wrong result would fail.
                assert!(!validator.is_valid(&json!({"id": "seven"})));
            }
            assert!(
                errors.is_empty(),
                "{name}: {result} does not validate: {errors:?}"
            );
        }
        validated.push(name);
    }
    assert_eq!(
        validated.len() + long.len() + failing.len(),
        contract["methods"].as_array().unwrap().len()
    );
    assert!(validated.contains(&"record_event") && validated.contains(&"item"));
}

#[tokio::test]
async fn the_guards_of_mcp_apply() {
    let small = start(
        Config::builder()
            .jsonrpc_path(Some(PATH.to_string()))
            .body_limit(64)
            .build(),
    )
    .await;
    let addr = small.addr;
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "echo", "params": ["hi"]}).to_string();
    let post = |headers: Vec<(&'static str, &'static str)>, body: String| async move {
        send_to(addr, PATH, "POST", &headers, &body).await.status
    };
    let json_type = ("content-type", "application/json");
    assert_eq!(post(vec![json_type], body.clone()).await, StatusCode::OK);
    // DNS rebinding: a foreign Host or Origin is refused before anything runs.
    assert_eq!(
        post(vec![json_type, ("host", "evil.example")], body.clone()).await,
        StatusCode::FORBIDDEN
    );
    assert_eq!(
        post(
            vec![json_type, ("origin", "http://evil.example")],
            body.clone()
        )
        .await,
        StatusCode::FORBIDDEN
    );
    // Media types.
    assert_eq!(
        post(vec![("content-type", "text/plain")], body.clone()).await,
        StatusCode::UNSUPPORTED_MEDIA_TYPE
    );
    assert_eq!(
        post(vec![json_type, ("accept", "text/html")], body.clone()).await,
        StatusCode::NOT_ACCEPTABLE
    );
    for accept in ["*/*", "application/json", "application/*"] {
        assert_eq!(
            post(vec![json_type, ("accept", accept)], body.clone()).await,
            StatusCode::OK
        );
    }
    // The body limit.
    let large = json!({"jsonrpc": "2.0", "id": 1, "method": "echo", "params": ["x".repeat(100)]});
    assert_eq!(
        post(vec![json_type], large.to_string()).await,
        StatusCode::PAYLOAD_TOO_LARGE
    );
    // POST only.
    let get = send_to(addr, PATH, "GET", &[], "").await;
    assert_eq!(get.status, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(get.header("allow"), Some("POST"));
    assert_eq!(small.handler.events(), Vec::<String>::new());
}

#[tokio::test]
async fn off_by_default() {
    let server = start(Config::default()).await;
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "record_event", "params": ["x"]});
    let reply = send_to(
        server.addr,
        PATH,
        "POST",
        &[("content-type", "application/json")],
        &body.to_string(),
    )
    .await;
    assert_eq!(reply.status, StatusCode::NOT_FOUND);
    // `/mcp` still refuses the plain method, in a session as before.
    let mut client = Client::connect(server.addr, "2025-11-25").await;
    let answer = client.call("record_event", json!({"event": "x"})).await;
    assert_eq!(error_code(&answer), -32601);
    assert_eq!(server.handler.events(), Vec::<String>::new());
}

#[tokio::test]
async fn mcp_is_unchanged_when_the_plain_endpoint_is_on() {
    let server = server().await;
    let mut client = Client::connect(server.addr, "2025-11-25").await;
    let answer = client.call("record_event", json!({"event": "x"})).await;
    assert_eq!(error_code(&answer), -32601);
    let answer = client
        .call(
            "tools/call",
            json!({"name": "echo", "arguments": {"text": "mcp"}}),
        )
        .await;
    assert_eq!(answer["result"]["content"][0]["text"], "mcp");
    // Other paths are still 404.
    let reply = send_to(server.addr, "/jsonrpc/", "POST", &[], "{}").await;
    assert_eq!(reply.status, StatusCode::NOT_FOUND);
}
