//! The skills extension off (a contract without a `skills/` directory), through a real server
//! on loopback: nothing is declared and the extension's methods are unknown, exactly as before
//! the extension existed. (With skills: `examples/everything-server/tests/skills.rs` and the
//! conformance suite's `sep-2640-skills-*` scenarios.)

mod support;

use http::StatusCode;
use serde_json::json;

use mcp_runtime::Config;
use support::stateless::exchange;
use support::{start, Client};

const METHODS: [&str; 3] = ["skills/list", "skills/get", "resources/directory/read"];

#[tokio::test]
async fn without_skills_nothing_is_declared_and_the_methods_are_not_found() {
    let server = start(Config::default()).await;

    let discover = exchange(server.addr, 1, "server/discover", json!({}), json!({}), &[]).await;
    let capabilities = &discover.result()["capabilities"];
    assert!(
        capabilities["extensions"]
            .get("io.modelcontextprotocol/skills")
            .is_none(),
        "{capabilities}"
    );
    for (n, method) in METHODS.into_iter().enumerate() {
        let params = json!({"uri": "skill://any/SKILL.md"});
        let answer = exchange(server.addr, 10 + n as i64, method, params, json!({}), &[]).await;
        answer.error(StatusCode::NOT_FOUND, -32601);
    }
    // A skill URI is an ordinary unknown resource.
    let read = exchange(
        server.addr,
        20,
        "resources/read",
        json!({"uri": "skill://any/SKILL.md"}),
        json!({}),
        &[],
    )
    .await;
    assert_eq!(
        read.invalid_params(),
        "Resource not found: skill://any/SKILL.md"
    );

    let mut client = Client::connect(server.addr, "2025-11-25").await;
    for method in METHODS {
        let answer = client.call(method, json!({"uri": "skill://any"})).await;
        assert_eq!(answer["error"]["code"], json!(-32601), "{method}: {answer}");
    }
    let (_, init) = {
        let reply = support::post(
            server.addr,
            &[],
            &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"}}}),
        )
        .await;
        (reply.status, reply.json().await)
    };
    assert!(init["result"]["capabilities"].get("extensions").is_none());
}
