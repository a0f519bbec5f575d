//! A session at protocol version 2024-11-05 (over stdio): the quickstart's tools carry
//! annotations, which 2025-03-26 publishes and 2024-11-05 does not have.

use mcp_runtime::McpServer;
use quickstart::server::Server;
use quickstart::Notes;
use serde_json::{json, Value};

/// `tools/list` in a session that asked for `version`: the negotiated version and the tools.
async fn tools_at(version: &str) -> (Value, Vec<Value>) {
    let input = [
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": version, "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
    ]
    .map(|line| line.to_string())
    .join("\n")
        + "\n";
    let (writer, mut reader) = tokio::io::duplex(1 << 20);
    let server = McpServer::new(Server::new(Notes::default()));
    mcp_runtime::stdio::serve_io(server, input.as_bytes(), writer)
        .await
        .unwrap();
    let mut output = String::new();
    tokio::io::AsyncReadExt::read_to_string(&mut reader, &mut output)
        .await
        .unwrap();
    let lines: Vec<Value> = output
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(lines.len(), 2, "{output}");
    let negotiated = lines[0]["result"]["protocolVersion"].clone();
    let tools = lines[1]["result"]["tools"].as_array().unwrap().clone();
    (negotiated, tools)
}

#[tokio::test]
async fn tool_annotations_are_left_out_at_2024_11_05() {
    let (negotiated, newer) = tools_at("2025-03-26").await;
    assert_eq!(negotiated, json!("2025-03-26"));
    let add = newer.iter().find(|t| t["name"] == "add").unwrap();
    assert_eq!(add["annotations"]["readOnlyHint"], json!(true));

    let (negotiated, older) = tools_at("2024-11-05").await;
    assert_eq!(negotiated, json!("2024-11-05"));
    assert_eq!(older.len(), newer.len());
    for (old, new) in older.iter().zip(&newer) {
        assert!(old.get("annotations").is_none(), "{old}");
        // Everything else is 2025-03-26's, in the same order.
        let mut stripped = new.clone();
        stripped
            .as_object_mut()
            .unwrap()
            .shift_remove("annotations");
        assert_eq!(old, &stripped);
        assert_eq!(
            old.as_object().unwrap().keys().collect::<Vec<_>>(),
            stripped.as_object().unwrap().keys().collect::<Vec<_>>()
        );
    }
}
