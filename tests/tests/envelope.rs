//! JSON-RPC envelope rules over HTTP, the same on every path and in every era: a request whose
//! `id` is not a string or a number, or whose `jsonrpc` is not `"2.0"`, is an Invalid Request
//! answered with `id: null` and never run; a 2026-07-28 request whose `params` is not an object
//! is refused like one without `_meta`; a session's requests carry the version it negotiated
//! (or none); and a method of the contract without `x-mcp` is not reachable at all.
//!
//! Whether a method ran is read from the handler: `count` counts its calls, `record_event`
//! records its events.

mod support;

use http::StatusCode;
use serde_json::{json, Value};

use mcp_runtime::Config;
use support::envelope::{bad_envelopes, is_invalid_request, Flaw, SESSION_VERSIONS};
use support::stateless::{meta, V};
use support::{post, start, Client, TestServer};

/// At most 300 characters of `text` (failure messages stay readable).
fn short(text: &str) -> String {
    match text.char_indices().nth(300) {
        Some((at, _)) => format!("{}...", &text[..at]),
        None => text.to_string(),
    }
}

/// The status and the body (parsed as JSON, `Null` if it is not JSON) of a reply.
async fn status_and_json(reply: support::Reply) -> (StatusCode, Value, String) {
    let status = reply.status;
    let text = reply.text().await;
    let body = serde_json::from_str(&text).unwrap_or(Value::Null);
    (status, body, text)
}

/// `tools/call` of `count` in a session.
fn count_call(id: i64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "count", "arguments": {}}})
}

/// Asserts no bad request ran, then that a good `count` call does run (the counter works): a
/// request that ran late, on a task of its own, has started by the time this one answered.
async fn assert_only_the_good_call_runs(server: &TestServer, client: &Client, label: &str) {
    assert_eq!(
        server.handler.count_calls(),
        0,
        "{label}: a request with a bad envelope ran its method"
    );
    let reply = client.post_raw(&count_call(99)).await;
    assert_eq!(reply.status, StatusCode::OK, "{label}");
    let answers = support::read_messages(reply).await;
    assert!(
        answers
            .iter()
            .any(|a| a["id"] == json!(99) && a.get("result").is_some()),
        "{label}: {answers:?}"
    );
    assert_eq!(
        server.handler.count_calls(),
        1,
        "{label}: only the good call ran"
    );
    assert!(
        server.handler.events().is_empty(),
        "{label}: record_event ran for a bad envelope: {:?}",
        server.handler.events()
    );
}

// 1 (a): in a session.

/// Sends every request with `flaw` in a session of each revision: each is a 400 Invalid Request
/// with `id: null`, and neither `count` nor `record_event` runs.
async fn session_bad_envelopes_are_refused(flaw: Flaw) {
    let mut failures = Vec::new();
    for version in SESSION_VERSIONS {
        let server = start(Config::default()).await;
        let client = Client::connect(server.addr, version).await;
        let cases = bad_envelopes(
            flaw,
            "tools/call",
            json!({"name": "count", "arguments": {}}),
        )
        .into_iter()
        .map(|(label, body)| (format!("{version} tools/call {label}"), body))
        .chain(
            bad_envelopes(flaw, "record_event", json!({"event": "bad"}))
                .into_iter()
                .map(|(label, body)| (format!("{version} record_event {label}"), body)),
        );
        for (label, body) in cases {
            let (status, answer, text) = status_and_json(client.post_raw(&body).await).await;
            if status != StatusCode::BAD_REQUEST || !is_invalid_request(&answer) {
                failures.push(format!("{label}: {status} {}", short(&text)));
            }
        }
        if server.handler.count_calls() != 0 || !server.handler.events().is_empty() {
            failures.push(format!(
                "{version}: bad envelopes ran: count {} times, events {:?}",
                server.handler.count_calls(),
                server.handler.events()
            ));
            continue;
        }
        assert_only_the_good_call_runs(&server, &client, version).await;
    }
    assert!(
        failures.is_empty(),
        "expected 400 {{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{{\"code\":-32600,...}}}} and nothing run:\n{}",
        failures.join("\n")
    );
}

#[tokio::test]
async fn session_request_whose_id_is_not_a_string_or_number_is_an_invalid_request_400_and_does_not_run(
) {
    session_bad_envelopes_are_refused(Flaw::Id).await;
}

#[tokio::test]
async fn session_request_whose_jsonrpc_is_not_2_0_is_an_invalid_request_400_and_does_not_run() {
    session_bad_envelopes_are_refused(Flaw::Jsonrpc).await;
}

// 1 (b): stateless 2026-07-28.

/// The routing headers of a stateless `tools/call` of `count`.
const STATELESS_COUNT_HEADERS: [(&str, &str); 3] = [
    ("mcp-protocol-version", V),
    ("mcp-method", "tools/call"),
    ("mcp-name", "count"),
];

/// Sends a stateless `tools/call` of `count` with `flaw` (routing headers and `_meta` right):
/// each is a 400 Invalid Request with `id: null`, and `count` does not run.
async fn stateless_bad_envelopes_are_refused(flaw: Flaw) {
    let server = start(Config::default()).await;
    let params = json!({"name": "count", "arguments": {}, "_meta": meta(json!({}))});
    let mut failures = Vec::new();
    for (label, body) in bad_envelopes(flaw, "tools/call", params.clone()) {
        let (status, answer, text) =
            status_and_json(post(server.addr, &STATELESS_COUNT_HEADERS, &body).await).await;
        if status != StatusCode::BAD_REQUEST || !is_invalid_request(&answer) {
            failures.push(format!("{label}: {status} {}", short(&text)));
        }
    }
    let ran = server.handler.count_calls();
    // The same call with a good envelope runs.
    let good = post(
        server.addr,
        &STATELESS_COUNT_HEADERS,
        &json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": params}),
    )
    .await;
    let (status, answer, text) = status_and_json(good).await;
    assert_eq!(status, StatusCode::OK, "{text}");
    assert_eq!(answer["id"], json!(5), "{text}");
    assert_eq!(server.handler.count_calls(), ran + 1, "the good call ran");
    assert!(
        failures.is_empty() && ran == 0,
        "expected 400 {{\"id\":null,\"error\":{{\"code\":-32600}}}} and nothing run ({ran} bad ones ran):\n{}",
        failures.join("\n")
    );
}

#[tokio::test]
async fn stateless_request_whose_id_is_not_a_string_or_number_is_an_invalid_request_400_and_does_not_run(
) {
    stateless_bad_envelopes_are_refused(Flaw::Id).await;
}

#[tokio::test]
async fn stateless_request_whose_jsonrpc_is_not_2_0_is_an_invalid_request_400_and_does_not_run() {
    stateless_bad_envelopes_are_refused(Flaw::Jsonrpc).await;
}

// 1 (c): in a 2025-03-26 batch.

/// Sends 2025-03-26 batches of a request with `flaw` and a good `count` call: the answer holds
/// the good call's result and an Invalid Request with `id: null`; only the good call runs.
async fn batch_bad_elements_are_refused(flaw: Flaw) {
    let server = start(Config::default()).await;
    let client = Client::connect(server.addr, "2025-03-26").await;
    let mut failures = Vec::new();
    let mut expected_calls = 0;
    for (label, bad) in bad_envelopes(
        flaw,
        "tools/call",
        json!({"name": "count", "arguments": {}}),
    ) {
        let batch = json!([bad, count_call(1)]);
        let reply = client.post_raw(&batch).await;
        expected_calls += 1;
        let (status, answers, text) = status_and_json(reply).await;
        let answers = answers.as_array().cloned().unwrap_or_default();
        let good = answers
            .iter()
            .filter(|a| a["id"] == json!(1) && a.get("result").is_some())
            .count();
        let invalid = answers.iter().filter(|a| is_invalid_request(a)).count();
        if status != StatusCode::OK || answers.len() != 2 || good != 1 || invalid != 1 {
            failures.push(format!("{label}: {status} {}", short(&text)));
        }
        if server.handler.count_calls() != expected_calls {
            failures.push(format!(
                "{label}: count ran {} times, expected {expected_calls} (the good element only)",
                server.handler.count_calls()
            ));
            expected_calls = server.handler.count_calls();
        }
    }
    assert!(
        failures.is_empty(),
        "expected [the good answer, {{\"id\":null,\"error\":{{\"code\":-32600}}}}] with only the good element run:\n{}",
        failures.join("\n")
    );
}

#[tokio::test]
async fn batch_element_whose_id_is_not_a_string_or_number_is_an_invalid_request_beside_the_good_answer(
) {
    batch_bad_elements_are_refused(Flaw::Id).await;
}

#[tokio::test]
async fn batch_element_whose_jsonrpc_is_not_2_0_is_an_invalid_request_beside_the_good_answer() {
    batch_bad_elements_are_refused(Flaw::Jsonrpc).await;
}

// 2: stateless params that are not an object.

/// Sends stateless `tools/call`s of `count` whose `params` are each of `cases`: each is refused
/// exactly like params without `_meta` (400, -32602, the request's id), and `count` never runs.
async fn stateless_params_are_refused_like_params_without_meta(cases: Vec<(&str, Value)>) {
    let server = start(Config::default()).await;
    let addr = server.addr;
    let send = |id: i64, params: Value| async move {
        post(
            addr,
            &STATELESS_COUNT_HEADERS,
            &json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}),
        )
        .await
    };
    // The reference: params without `_meta`.
    let (status, answer, text) =
        status_and_json(send(1, json!({"name": "count", "arguments": {}})).await).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{text}");
    assert_eq!(answer["id"], json!(1), "{text}");
    assert_eq!(answer["error"]["code"], json!(-32602), "{text}");
    let reference = (status, answer["error"]["code"].clone());

    let mut failures = Vec::new();
    for (id, (label, params)) in (2..).zip(cases) {
        let (status, answer, text) = status_and_json(send(id, params).await).await;
        let got = (status, answer["error"]["code"].clone());
        if got != reference || answer["id"] != json!(id) {
            failures.push(format!("params {label}: {status} {}", short(&text)));
        }
    }
    let ran = server.handler.count_calls();
    assert!(
        failures.is_empty() && ran == 0,
        "expected 400 with -32602 and the request's id, like params without _meta, and nothing run (count ran {ran} times):\n{}",
        failures.join("\n")
    );
}

#[tokio::test]
async fn stateless_params_that_are_a_string_number_boolean_or_empty_array_are_refused_like_params_without_meta(
) {
    stateless_params_are_refused_like_params_without_meta(vec![
        ("a string", json!("count")),
        ("a number", json!(5)),
        ("true", json!(true)),
        ("an empty array", json!([])),
    ])
    .await;
}

#[tokio::test]
async fn stateless_params_that_are_an_array_are_never_read_by_position() {
    stateless_params_are_refused_like_params_without_meta(vec![
        // What an object's members would be, in the order the runtime reads them: `_meta`,
        // then `name`. Still not an object.
        ("an array of the members", json!([meta(json!({})), "count"])),
        (
            "an array holding the params object",
            json!([{"name": "count", "arguments": {}, "_meta": meta(json!({}))}]),
        ),
    ])
    .await;
}

// 3: a session's requests carry the version it negotiated, or none.

/// POSTs `body` in `client`'s session with `version` as `MCP-Protocol-Version` (none: absent).
async fn post_with_version(client: &Client, version: Option<&str>, body: &Value) -> support::Reply {
    let mut headers = vec![("mcp-session-id", client.session.as_str())];
    if let Some(version) = version {
        headers.push(("mcp-protocol-version", version));
    }
    post(client.addr, &headers, body).await
}

#[tokio::test]
async fn session_requests_must_carry_the_negotiated_protocol_version_or_none() {
    let server = start(Config::default()).await;
    let client = Client::connect(server.addr, "2025-06-18").await;
    assert_eq!(client.version, "2025-06-18");
    let list = |id: i64| json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"});

    let same = post_with_version(&client, Some("2025-06-18"), &list(1)).await;
    assert_eq!(same.status, StatusCode::OK, "the negotiated version");
    let none = post_with_version(&client, None, &list(2)).await;
    assert_eq!(none.status, StatusCode::OK, "no header");

    let mut failures = Vec::new();
    for (id, other) in [(3, "2025-11-25"), (4, "2025-03-26")] {
        let (status, answer, text) =
            status_and_json(post_with_version(&client, Some(other), &list(id)).await).await;
        if status != StatusCode::BAD_REQUEST || answer["error"]["code"] != json!(-32600) {
            failures.push(format!(
                "tools/list with {other}: {status} {}",
                short(&text)
            ));
        }
    }
    // A call (read by the one-pass session reader) is refused the same way, and does not run.
    let (status, answer, text) =
        status_and_json(post_with_version(&client, Some("2025-11-25"), &count_call(5)).await).await;
    if status != StatusCode::BAD_REQUEST || answer["error"]["code"] != json!(-32600) {
        failures.push(format!(
            "tools/call count with 2025-11-25: {status} {}",
            short(&text)
        ));
    }
    if server.handler.count_calls() != 0 {
        failures.push(format!(
            "count ran {} times under a foreign version",
            server.handler.count_calls()
        ));
    }
    assert!(
        failures.is_empty(),
        "expected 400 with -32600 for a supported version other than the negotiated 2025-06-18:\n{}",
        failures.join("\n")
    );
}

#[tokio::test]
async fn a_2025_11_25_session_refuses_requests_under_another_supported_version() {
    let server = start(Config::default()).await;
    let client = Client::connect(server.addr, "2025-11-25").await;
    let list = |id: i64| json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"});
    let same = post_with_version(&client, Some("2025-11-25"), &list(1)).await;
    assert_eq!(same.status, StatusCode::OK);
    let none = post_with_version(&client, None, &list(2)).await;
    assert_eq!(none.status, StatusCode::OK);
    let (status, answer, text) =
        status_and_json(post_with_version(&client, Some("2025-06-18"), &list(3)).await).await;
    assert_eq!(
        (status, answer["error"]["code"].clone()),
        (StatusCode::BAD_REQUEST, json!(-32600)),
        "{}",
        short(&text)
    );
}

// 5: a method without `x-mcp` is plain JSON-RPC, not MCP: unreachable on `/mcp`.

/// How long a notification that should not run is given to run anyway.
const GRACE: std::time::Duration = std::time::Duration::from_millis(300);

#[tokio::test]
async fn a_method_without_x_mcp_is_not_reachable_in_a_session() {
    let server = start(Config::default()).await;
    for version in SESSION_VERSIONS {
        let client = Client::connect(server.addr, version).await;
        let notified = client
            .post_raw(
                &json!({"jsonrpc": "2.0", "method": "record_event", "params": {"event": version}}),
            )
            .await;
        assert_eq!(notified.status, StatusCode::ACCEPTED, "{version}");
        assert_eq!(notified.text().await, "", "{version}: a 202 has no body");
        let called = client
            .post_raw(&json!({"jsonrpc": "2.0", "id": 7, "method": "record_event", "params": {"event": version}}))
            .await;
        let answers = support::read_messages(called).await;
        assert_eq!(
            answers,
            [
                json!({"jsonrpc": "2.0", "id": 7, "error": {"code": -32601, "message": "Method not found: record_event"}})
            ],
            "{version}"
        );
    }
    tokio::time::sleep(GRACE).await;
    assert!(
        server.handler.events().is_empty(),
        "record_event ran over MCP: {:?}",
        server.handler.events()
    );
}

#[tokio::test]
async fn a_method_without_x_mcp_is_not_reachable_in_a_2025_03_26_batch() {
    let server = start(Config::default()).await;
    let client = Client::connect(server.addr, "2025-03-26").await;
    let reply = client
        .post_raw(&json!([
            {"jsonrpc": "2.0", "method": "record_event", "params": {"event": "batched note"}},
            {"jsonrpc": "2.0", "id": 2, "method": "record_event", "params": {"event": "batched"}},
            {"jsonrpc": "2.0", "id": 1, "method": "ping"}
        ]))
        .await;
    let (status, answers, text) = status_and_json(reply).await;
    assert_eq!(status, StatusCode::OK, "{text}");
    assert_eq!(
        answers,
        json!([
            {"jsonrpc": "2.0", "id": 2, "error": {"code": -32601, "message": "Method not found: record_event"}},
            {"jsonrpc": "2.0", "id": 1, "result": {}}
        ])
    );
    tokio::time::sleep(GRACE).await;
    assert!(
        server.handler.events().is_empty(),
        "{:?}",
        server.handler.events()
    );
}

#[tokio::test]
async fn a_method_without_x_mcp_is_not_reachable_statelessly() {
    let server = start(Config::default()).await;
    let headers = [("mcp-protocol-version", V), ("mcp-method", "record_event")];
    let body = json!({"jsonrpc": "2.0", "id": 3, "method": "record_event",
        "params": {"event": "stateless", "_meta": meta(json!({}))}});
    let (_, answer, text) = status_and_json(post(server.addr, &headers, &body).await).await;
    assert_eq!(answer["error"]["code"], json!(-32601), "{text}");
    assert_eq!(answer["id"], json!(3), "{text}");
    tokio::time::sleep(GRACE).await;
    assert!(
        server.handler.events().is_empty(),
        "{:?}",
        server.handler.events()
    );
}

/// Pins the counter the other tests read: a good `count` call runs once per call.
#[tokio::test]
async fn the_count_probe_counts_good_calls() {
    let server = start(Config::default()).await;
    let mut client = Client::connect(server.addr, "2025-11-25").await;
    let answer = client
        .call("tools/call", json!({"name": "count", "arguments": {}}))
        .await;
    assert!(answer.get("result").is_some(), "{answer}");
    assert_eq!(server.handler.count_calls(), 1);
}
