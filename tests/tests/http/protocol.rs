//! The protocol over a session: version negotiation at `initialize`, every method answering
//! in the schema of each version, JSON-RPC errors, a panicking handler, completion of enum
//! values and pagination with opaque cursors.

use http::StatusCode;
use serde_json::json;

use crate::support::schema::assert_response;
use crate::support::{post, start, Client};
use crate::VERSIONS;
use mcp_runtime::Config;

#[tokio::test]
async fn initialize_negotiates_and_issues_a_session() {
    let server = start(Config::default()).await;
    for (asked, expected) in [
        ("2025-03-26", "2025-03-26"),
        ("2025-06-18", "2025-06-18"),
        ("2025-11-25", "2025-11-25"),
        ("2024-11-05", "2024-11-05"),
        ("2026-07-28", "2025-11-25"),
    ] {
        let reply = post(
            server.addr,
            &[],
            &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": asked, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}),
        )
        .await;
        assert_eq!(reply.status, StatusCode::OK);
        assert_eq!(reply.header("content-type"), Some("application/json"));
        let session = reply.header("mcp-session-id").unwrap().to_string();
        assert!(session.bytes().all(|b| (0x21..=0x7e).contains(&b)));
        let body = reply.json().await;
        assert_eq!(
            body["result"]["protocolVersion"],
            json!(expected),
            "asked {asked}"
        );
        assert_eq!(
            body["result"]["serverInfo"]["name"],
            json!("http-test-server")
        );
        // No schema of its own here: 2024-11-05 answers fit 2025-03-26's.
        let schema = match expected {
            "2024-11-05" => "2025-03-26",
            other => other,
        };
        assert_response(schema, "initialize", &body);
    }
    assert_eq!(server.server.load().sessions, 5);
}

#[tokio::test]
async fn every_method_answers_and_matches_the_schema_of_each_version() {
    let server = start(Config::default()).await;
    for version in VERSIONS {
        let mut client = Client::connect(server.addr, version).await;
        let calls = [
            ("ping", json!({})),
            ("logging/setLevel", json!({"level": "debug"})),
            ("tools/list", json!({})),
            (
                "tools/call",
                json!({"name": "echo", "arguments": {"text": "hi"}}),
            ),
            ("tools/call", json!({"name": "count"})),
            ("prompts/list", json!({})),
            (
                "prompts/get",
                json!({"name": "greet", "arguments": {"name": "Ada"}}),
            ),
            ("resources/list", json!({})),
            ("resources/templates/list", json!({})),
            ("resources/read", json!({"uri": "test://hello"})),
            ("resources/read", json!({"uri": "test://items/42"})),
            ("resources/subscribe", json!({"uri": "test://hello"})),
            ("resources/unsubscribe", json!({"uri": "test://hello"})),
            (
                "completion/complete",
                json!({"ref": {"type": "ref/prompt", "name": "greet"}, "argument": {"name": "name", "value": "A"}}),
            ),
        ];
        for (method, params) in calls {
            let response = client.call(method, params).await;
            assert!(
                response.get("result").is_some(),
                "{version} {method}: {response}"
            );
            assert_response(version, method, &response);
        }
        assert_eq!(
            client.call("ping", json!({})).await["result"],
            json!({}),
            "ping is exactly {{}}"
        );
        let tools = client.call("tools/list", json!({})).await;
        let item = client
            .call("resources/read", json!({"uri": "test://items/7"}))
            .await;
        assert_eq!(item["result"]["contents"][0]["text"], json!("{\"id\":7}"));
        let structured = client.call("tools/call", json!({"name": "count"})).await;
        if version == "2025-03-26" {
            assert!(tools["result"]["tools"][1].get("outputSchema").is_none());
            assert!(structured["result"].get("structuredContent").is_none());
        } else {
            assert_eq!(
                structured["result"]["structuredContent"],
                json!({"steps": 3})
            );
        }
    }
}

#[tokio::test]
async fn protocol_errors_are_json_rpc_errors() {
    let server = start(Config::default()).await;
    let mut client = Client::connect(server.addr, "2025-11-25").await;
    let unknown_tool = client.call("tools/call", json!({"name": "nope"})).await;
    assert_eq!(unknown_tool["error"]["code"], json!(-32602));
    let unknown_prompt = client.call("prompts/get", json!({"name": "nope"})).await;
    assert_eq!(unknown_prompt["error"]["code"], json!(-32602));
    let missing = client
        .call("resources/read", json!({"uri": "test://missing"}))
        .await;
    assert_eq!(missing["error"]["code"], json!(-32002));
    assert_eq!(missing["error"]["data"]["uri"], json!("test://missing"));
    let no_method = client.call("no/such/method", json!({})).await;
    assert_eq!(no_method["error"]["code"], json!(-32601));
    for response in [unknown_tool, unknown_prompt, missing, no_method] {
        assert_response("2025-11-25", "", &response);
    }
    // Bad arguments: an isError result from 2025-11-25, a -32602 error before.
    let bad = client
        .call(
            "tools/call",
            json!({"name": "echo", "arguments": {"text": 5}}),
        )
        .await;
    assert_eq!(bad["result"]["isError"], json!(true));
    let mut old = Client::connect(server.addr, "2025-06-18").await;
    let bad = old
        .call(
            "tools/call",
            json!({"name": "echo", "arguments": {"text": 5}}),
        )
        .await;
    assert_eq!(bad["error"]["code"], json!(-32602));
}

#[tokio::test]
async fn a_panicking_handler_is_an_error_result_and_the_server_lives_on() {
    let server = start(Config::default()).await;
    let mut client = Client::connect(server.addr, "2025-11-25").await;
    let response = client.call("tools/call", json!({"name": "explode"})).await;
    assert_eq!(response["result"]["isError"], json!(true));
    // The panic's text goes to the log, never to the client.
    let text = response["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("failed unexpectedly"), "{text}");
    assert!(!text.contains("boom on purpose"), "{text}");
    assert_eq!(client.call("ping", json!({})).await["result"], json!({}));
}

#[tokio::test]
async fn a_hostile_resource_uri_is_an_error_not_a_dead_connection() {
    let server = start(Config::default()).await;
    let mut client = Client::connect(server.addr, "2025-11-25").await;
    let too_long = format!("test://items/{}", "9".repeat(9_000));
    // An escape cut by a multi-byte character once panicked the connection's task.
    for uri in [
        "test://items/%€",
        "test://items/%",
        "test://items/%ff",
        &too_long,
    ] {
        let response = client.call("resources/read", json!({"uri": uri})).await;
        assert!(response["error"]["code"].is_i64(), "{uri}: {response}");
    }
    assert_eq!(client.call("ping", json!({})).await["result"], json!({}));
}

#[tokio::test]
async fn completion_offers_declared_enum_values() {
    let server = start(Config::default()).await;
    let mut client = Client::connect(server.addr, "2025-11-25").await;
    let complete = |value: &str| json!({"ref": {"type": "ref/prompt", "name": "greet"}, "argument": {"name": "tone", "value": value}});
    let all = client.call("completion/complete", complete("")).await;
    assert_response("2025-11-25", "completion/complete", &all);
    assert_eq!(
        all["result"]["completion"],
        json!({"values": ["warm", "formal", "wry"], "total": 3, "hasMore": false})
    );
    let w = client.call("completion/complete", complete("W")).await;
    assert_eq!(w["result"]["completion"]["values"], json!(["warm", "wry"]));
    let unknown = client.call("completion/complete", json!({"ref": {"type": "ref/prompt", "name": "nope"}, "argument": {"name": "x", "value": ""}})).await;
    assert_eq!(unknown["error"]["code"], json!(-32602));
}

/// Arguments the contract marks `x-mcp.complete` are completed by the handler, which sees what
/// was typed and the arguments already chosen; at most 100 values go out with the total; a
/// handler's error is a JSON-RPC error. Checked in both eras against their schemas.
#[tokio::test]
async fn completion_asks_the_handler_for_marked_arguments() {
    let server = start(Config::default()).await;
    let mut client = Client::connect(server.addr, "2025-11-25").await;
    let name = |value: &str, context: serde_json::Value| json!({"ref": {"type": "ref/prompt", "name": "greet"}, "argument": {"name": "name", "value": value}, "context": context});
    let names = client
        .call("completion/complete", name("A", json!({})))
        .await;
    assert_response("2025-11-25", "completion/complete", &names);
    assert_eq!(
        names["result"]["completion"],
        json!({"values": ["Ada", "Alan"], "total": 2, "hasMore": false})
    );
    let formal = client
        .call(
            "completion/complete",
            name("G", json!({"arguments": {"tone": "formal"}})),
        )
        .await;
    assert_eq!(
        formal["result"]["completion"]["values"],
        json!(["Dr. Grace"])
    );
    // A template variable, past the 100-value limit: 1..=150 all start with "".
    let id = |value: &str| json!({"ref": {"type": "ref/resource", "uri": "test://items/{id}"}, "argument": {"name": "id", "value": value}});
    let many = client.call("completion/complete", id("")).await;
    assert_response("2025-11-25", "completion/complete", &many);
    let completion = &many["result"]["completion"];
    assert_eq!(completion["values"].as_array().unwrap().len(), 100);
    assert_eq!(
        (completion["total"].clone(), completion["hasMore"].clone()),
        (json!(150), json!(true))
    );
    let ones = client.call("completion/complete", id("14")).await;
    assert_eq!(
        ones["result"]["completion"]["values"],
        json!(["14", "140", "141", "142", "143", "144", "145", "146", "147", "148", "149"])
    );
    let failed = client.call("completion/complete", id("boom")).await;
    assert_eq!(failed["error"]["code"], json!(-32603));
    assert_eq!(
        failed["error"]["message"],
        json!("the item index is unavailable")
    );
    // The enum of an unmarked argument still completes from the catalog.
    let tone = client.call("completion/complete", json!({"ref": {"type": "ref/prompt", "name": "greet"}, "argument": {"name": "tone", "value": "f"}})).await;
    assert_eq!(tone["result"]["completion"]["values"], json!(["formal"]));

    // 2026-07-28: the same handler, one request per POST.
    let answer = crate::support::stateless::exchange(
        server.addr,
        7,
        "completion/complete",
        name("B", json!({})),
        json!({}),
        &[],
    )
    .await;
    assert_eq!(answer.result()["completion"]["values"], json!(["Barbara"]));
}

#[tokio::test]
async fn list_pagination_uses_opaque_cursors() {
    let server = start(Config::builder().page_size(3).build()).await;
    let mut client = Client::connect(server.addr, "2025-06-18").await;
    let mut names = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let params = match &cursor {
            Some(c) => json!({"cursor": c}),
            None => json!({}),
        };
        let page = client.call("tools/list", params).await;
        assert_response("2025-06-18", "tools/list", &page);
        names.extend(
            page["result"]["tools"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t["name"].as_str().unwrap().to_string()),
        );
        match page["result"].get("nextCursor") {
            Some(next) => cursor = Some(next.as_str().unwrap().to_string()),
            None => break,
        }
    }
    assert_eq!(
        names,
        [
            "echo",
            "bounded",
            "count",
            "chatty",
            "slow",
            "explode",
            "ask_model",
            "reconnect",
            "touch_tools",
            "interview",
            "tally",
            "polite_survey",
            "needs_sampling",
            "region_echo",
            "limit_echo",
            "linger",
            "verbose",
            "flood",
            "background_job",
            "failing_job",
            "broken_job",
            "endless_job",
            "two_questions"
        ]
    );
    let bad = client
        .call("tools/list", json!({"cursor": "not-a-cursor"}))
        .await;
    assert_eq!(bad["error"]["code"], json!(-32602));
}
