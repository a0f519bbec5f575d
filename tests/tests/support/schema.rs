//! Validation of what the server sends against the official MCP `schema.json` of the
//! negotiated version (vendored in `fixtures/mcp-schema/`).

use serde_json::{json, Value};
use std::collections::HashMap;
use std::path::Path;
use std::sync::{Mutex, OnceLock};

/// The schema definition a method's result must match.
fn result_definition(method: &str) -> Option<&'static str> {
    Some(match method {
        "initialize" => "InitializeResult",
        "ping" | "logging/setLevel" | "resources/subscribe" | "resources/unsubscribe" => {
            "EmptyResult"
        }
        "tools/list" => "ListToolsResult",
        "tools/call" => "CallToolResult",
        "prompts/list" => "ListPromptsResult",
        "prompts/get" => "GetPromptResult",
        "resources/list" => "ListResourcesResult",
        "resources/templates/list" => "ListResourceTemplatesResult",
        "resources/read" => "ReadResourceResult",
        "completion/complete" => "CompleteResult",
        _ => return None,
    })
}

/// The definition a server-sent notification or request must match.
fn message_definition(method: &str) -> Option<&'static str> {
    Some(match method {
        "notifications/progress" => "ProgressNotification",
        "notifications/message" => "LoggingMessageNotification",
        "notifications/tools/list_changed" => "ToolListChangedNotification",
        "notifications/resources/updated" => "ResourceUpdatedNotification",
        "sampling/createMessage" => "CreateMessageRequest",
        "elicitation/create" => "ElicitRequest",
        "roots/list" => "ListRootsRequest",
        _ => return None,
    })
}

fn schema_document(version: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/mcp-schema")
        .join(version)
        .join("schema.json");
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

type Validators = HashMap<(String, String), jsonschema::Validator>;

fn validator(version: &str, definition: &str) -> &'static Mutex<Validators> {
    static CACHE: OnceLock<Mutex<Validators>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    let key = (version.to_string(), definition.to_string());
    let mut map = cache
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let std::collections::hash_map::Entry::Vacant(slot) = map.entry(key) {
        let mut root = schema_document(version);
        let defs = if root.get("$defs").is_some() {
            "$defs"
        } else {
            "definitions"
        };
        let object = root.as_object_mut().unwrap();
        object.insert("$ref".into(), json!(format!("#/{defs}/{definition}")));
        let compiled = jsonschema::validator_for(&root)
            .unwrap_or_else(|e| panic!("{version} {definition}: {e}"));
        slot.insert(compiled);
    }
    drop(map);
    cache
}

/// Asserts that `value` matches `definition` of the `version` schema.
pub fn assert_valid(version: &str, definition: &str, value: &Value) {
    let cache = validator(version, definition);
    let map = cache
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let compiled = &map[&(version.to_string(), definition.to_string())];
    let errors: Vec<String> = compiled
        .iter_errors(value)
        .map(|e| format!("{} at {}", e, e.instance_path))
        .collect();
    // Released before asserting, so that a failed check does not poison the cache.
    drop(map);
    assert!(
        errors.is_empty(),
        "{version} {definition} rejects {value}:\n{}",
        errors.join("\n")
    );
}

/// Asserts that a response to `method` (envelope and result, or error) matches `version`.
pub fn assert_response(version: &str, method: &str, response: &Value) {
    let modern = version >= "2025-11-25";
    if response.get("error").is_some() {
        assert_valid(
            version,
            if modern {
                "JSONRPCErrorResponse"
            } else {
                "JSONRPCError"
            },
            response,
        );
        return;
    }
    assert_valid(
        version,
        if modern {
            "JSONRPCResultResponse"
        } else {
            "JSONRPCResponse"
        },
        response,
    );
    if let Some(definition) = result_definition(method) {
        assert_valid(version, definition, &response["result"]);
    }
}

/// Asserts that a notification or request the server sent matches `version`.
pub fn assert_server_message(version: &str, message: &Value) {
    let method = message["method"]
        .as_str()
        .expect("a server message has a method");
    if let Some(definition) = message_definition(method) {
        assert_valid(version, definition, message);
    }
}

/// Asserts that a 2026-07-28 response to `method` matches the schema: the envelope, then the
/// result by its `resultType` (`InputRequiredResult` or the method's result), or the error by
/// its code (`HeaderMismatchError`, `MissingRequiredClientCapabilityError`,
/// `UnsupportedProtocolVersionError`, `InvalidParamsError`).
pub fn assert_stateless_response(method: &str, response: &Value) {
    const V: &str = "2026-07-28";
    if let Some(error) = response.get("error") {
        assert_valid(V, "JSONRPCErrorResponse", response);
        match error["code"].as_i64() {
            Some(-32020) => assert_valid(V, "HeaderMismatchError", response),
            Some(-32021) => assert_valid(V, "MissingRequiredClientCapabilityError", response),
            Some(-32022) => assert_valid(V, "UnsupportedProtocolVersionError", response),
            Some(-32602) => assert_valid(V, "InvalidParamsError", error),
            _ => {}
        }
        return;
    }
    assert_valid(V, "JSONRPCResultResponse", response);
    let result = &response["result"];
    if result["resultType"] == json!("input_required") {
        assert_valid(V, "InputRequiredResult", result);
        for (key, request) in result["inputRequests"].as_object().into_iter().flatten() {
            assert!(
                request.get("jsonrpc").is_none() && request.get("id").is_none(),
                "input request {key} is a bare {{method, params}}: {request}"
            );
            assert_valid(V, "InputRequest", request);
        }
    } else if let Some(definition) = result_definition(method) {
        assert_valid(V, definition, result);
    }
}
