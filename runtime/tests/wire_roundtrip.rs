//! Real MCP messages decode into the generated wire types and encode back to the same JSON:
//! tags, renames, optional and flattened fields all survive the round trip.

use mcp_runtime::wire::{v2025_03_26, v2025_06_18, v2026_07_28};
use serde::{de::DeserializeOwned, Serialize};
use serde_json::{json, Value};

/// Decodes `message` as `T`, encodes it again, and checks nothing was lost or added.
fn round_trip<T: DeserializeOwned + Serialize>(message: Value) -> T {
    let typed: T = serde_json::from_value(message.clone()).expect("message decodes");
    let back = serde_json::to_value(&typed).expect("message encodes");
    assert_eq!(back, message, "round trip changed the message");
    typed
}

#[test]
fn call_tool_result_with_content_blocks_2025_06_18() {
    let result: v2025_06_18::CallToolResult = round_trip(json!({
        "content": [
            {"type": "text", "text": "42 files"},
            {"type": "image", "data": "aGVsbG8=", "mimeType": "image/png",
             "annotations": {"audience": ["user"], "priority": 0.5}},
            {"type": "resource_link", "uri": "file:///a.txt", "name": "a.txt"}
        ],
        "structuredContent": {"count": 42},
        "isError": false
    }));
    assert_eq!(result.is_error, Some(false));
    match &result.content[0] {
        v2025_06_18::ContentBlock::TextContent {
            text, annotations, ..
        } => {
            assert_eq!(text, "42 files");
            assert!(annotations.is_none());
        }
        other => panic!("expected text, got {other:?}"),
    }
    assert!(matches!(
        &result.content[1],
        v2025_06_18::ContentBlock::ImageContent { mime_type, .. } if mime_type == "image/png"
    ));
}

#[test]
fn call_tool_result_2025_03_26_inline_union() {
    let result: v2025_03_26::CallToolResult = round_trip(json!({
        "content": [{"type": "text", "text": "hi"}, {"type": "audio", "data": "AA==", "mimeType": "audio/wav"}],
        "isError": true
    }));
    assert_eq!(result.content.len(), 2);
}

#[test]
fn tools_list_result_2025_06_18() {
    let result: v2025_06_18::ListToolsResult = round_trip(json!({
        "tools": [{
            "name": "add",
            "title": "Add",
            "description": "Adds two numbers",
            "inputSchema": {"type": "object", "properties": {"a": {"type": "number"}}, "required": ["a"]},
            "annotations": {"readOnlyHint": true}
        }],
        "nextCursor": "abc"
    }));
    assert_eq!(result.tools[0].name, "add");
    assert_eq!(result.next_cursor.as_deref(), Some("abc"));
}

#[test]
fn initialize_result_2025_06_18() {
    let result: v2025_06_18::InitializeResult = round_trip(json!({
        "protocolVersion": "2025-06-18",
        "capabilities": {"tools": {"listChanged": true}, "logging": {}},
        "serverInfo": {"name": "demo", "version": "1.0.0"},
        "instructions": "be nice"
    }));
    assert_eq!(result.protocol_version, "2025-06-18");
    assert_eq!(result.server_info.name, "demo");
}

#[test]
fn client_request_is_tagged_by_method_2025_06_18() {
    let request: v2025_06_18::ClientRequest = round_trip(json!({
        "method": "tools/call",
        "params": {"name": "add", "arguments": {"a": 1}}
    }));
    assert!(matches!(
        request,
        v2025_06_18::ClientRequest::CallToolRequest { .. }
    ));
}

#[test]
fn jsonrpc_messages_2026_07_28() {
    let message: v2026_07_28::JsonrpcMessage = round_trip(json!({
        "jsonrpc": "2.0", "id": 7, "method": "tools/list", "params": {"cursor": "x"}
    }));
    assert!(matches!(
        message,
        v2026_07_28::JsonrpcMessage::JsonrpcRequest(_)
    ));
    let message: v2026_07_28::JsonrpcMessage = round_trip(json!({
        "jsonrpc": "2.0", "id": "a", "error": {"code": -32601, "message": "no such method"}
    }));
    assert!(matches!(
        message,
        v2026_07_28::JsonrpcMessage::JsonrpcErrorResponse(_)
    ));
}

#[test]
fn call_tool_result_2026_07_28() {
    let result: v2026_07_28::CallToolResult = round_trip(json!({
        "resultType": "complete",
        "content": [{"type": "text", "text": "ok", "_meta": {"k": 1}}]
    }));
    assert_eq!(result.result_type, "complete");
}

#[test]
fn open_result_keeps_unknown_fields_2026_07_28() {
    // `Result` has `additionalProperties: {}`: unknown fields land in the flattened `extra` map.
    let result: v2026_07_28::Result = round_trip(json!({
        "resultType": "complete",
        "vendorField": {"x": [1, 2]}
    }));
    assert_eq!(result.extra["vendorField"], json!({"x": [1, 2]}));
}

#[test]
fn json_value_is_recursive_2026_07_28() {
    let _: v2026_07_28::JsonValue = round_trip(json!({"a": [1, "two", true, {"b": []}]}));
}

#[test]
fn elicit_params_without_optional_mode_2026_07_28() {
    // `mode` is optional for form elicitation, so the union is untagged, not tagged by `mode`.
    let params: v2026_07_28::ElicitRequestParams = round_trip(json!({
        "message": "Your name?",
        "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}
    }));
    assert!(matches!(
        params,
        v2026_07_28::ElicitRequestParams::ElicitRequestFormParams(_)
    ));
}
