//! Validation of what the server sends against the official MCP `schema.json` of the
//! negotiated version (vendored in `fixtures/mcp-schema/`).

use serde_json::{json, Value};
use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};

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
        "notifications/prompts/list_changed" => "PromptListChangedNotification",
        "notifications/resources/list_changed" => "ResourceListChangedNotification",
        "notifications/resources/updated" => "ResourceUpdatedNotification",
        "notifications/subscriptions/acknowledged" => "SubscriptionsAcknowledgedNotification",
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

/// One compiled definition, compiled once by whichever test needs it first.
type Slot = Arc<OnceLock<jsonschema::Validator>>;

/// The compiled validator of `definition` in `version`. The cache lock is only held to find
/// the slot: compiling (about a second in a debug build) and validating never block tests that
/// need other definitions, and so never stall a server running on their runtime.
fn validator(version: &str, definition: &str) -> Slot {
    static CACHE: OnceLock<Mutex<HashMap<(String, String), Slot>>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    let slot = cache
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .entry((version.to_string(), definition.to_string()))
        .or_default()
        .clone();
    slot.get_or_init(|| {
        let mut root = schema_document(version);
        let defs = if root.get("$defs").is_some() {
            "$defs"
        } else {
            "definitions"
        };
        let object = root.as_object_mut().unwrap();
        object.insert("$ref".into(), json!(format!("#/{defs}/{definition}")));
        jsonschema::validator_for(&root).unwrap_or_else(|e| panic!("{version} {definition}: {e}"))
    });
    slot
}

/// Compiles these definitions now, so that checks made later in a timed test are quick.
pub fn warm_up(version: &str, definitions: &[&str]) {
    for definition in definitions {
        validator(version, definition);
    }
}

/// Asserts that `value` matches `definition` of the `version` schema.
pub fn assert_valid(version: &str, definition: &str, value: &Value) {
    let slot = validator(version, definition);
    let compiled = slot.get().expect("compiled above");
    let errors: Vec<String> = compiled
        .iter_errors(value)
        .map(|e| format!("{} at {}", e, e.instance_path))
        .collect();
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

/// Like [`assert_server_message`], and the method must be one the schema defines: nothing
/// unknown may slip through unchecked.
pub fn assert_defined_server_message(version: &str, message: &Value) {
    let method = message["method"]
        .as_str()
        .unwrap_or_else(|| panic!("a server message has a method: {message}"));
    assert!(
        message_definition(method).is_some(),
        "not a server message this suite knows: {message}"
    );
    assert_server_message(version, message);
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
    if result["resultType"] == json!("task") {
        assert_eq!(
            method, "tools/call",
            "only a tool call becomes a task: {response}"
        );
        assert_task_result(result, "task");
    } else if method == "tasks/get" {
        assert_task_result(result, "complete");
    } else if matches!(method, "tasks/update" | "tasks/cancel") {
        assert_valid(V, "Result", result);
    } else if result["resultType"] == json!("input_required") {
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

/// The task states of the tasks extension.
const TASK_STATUSES: [&str; 5] = [
    "working",
    "input_required",
    "completed",
    "failed",
    "cancelled",
];

/// Asserts the shape of a tasks-extension result (`io.modelcontextprotocol/tasks`), which
/// `schema.json` does not define: a `CreateTaskResult` (`resultType` `"task"`) or a
/// `tasks/get` result (`"complete"`). Both carry `taskId`, `status`, `createdAt`,
/// `lastUpdatedAt`, `ttlMs` and `pollIntervalMs`; a `tasks/get` result adds `inputRequests`
/// exactly when `input_required`, `result` (a `CallToolResult`) exactly when `completed` and
/// `error` (an `Error`) exactly when `failed`. Nothing else is allowed but `_meta`.
pub fn assert_task_result(result: &Value, result_type: &str) {
    const V: &str = "2026-07-28";
    assert_valid(V, "Result", result);
    assert_eq!(result["resultType"], json!(result_type), "{result}");
    let task_id = result["taskId"].as_str().unwrap_or_default();
    assert!(!task_id.is_empty(), "a taskId: {result}");
    let status = result["status"].as_str().unwrap_or_default();
    assert!(TASK_STATUSES.contains(&status), "a task status: {result}");
    for key in ["createdAt", "lastUpdatedAt"] {
        let stamp = result[key].as_str().unwrap_or_default();
        assert!(
            is_utc_timestamp(stamp),
            "{key} is an ISO 8601 UTC time: {result}"
        );
    }
    for key in ["ttlMs", "pollIntervalMs"] {
        assert!(result[key].is_u64(), "{key} is a whole number: {result}");
    }
    let detail = match (result_type, status) {
        ("task", _) => None,
        (_, "input_required") => Some("inputRequests"),
        (_, "completed") => Some("result"),
        (_, "failed") => Some("error"),
        _ => None,
    };
    let envelope = [
        "resultType",
        "taskId",
        "status",
        "createdAt",
        "lastUpdatedAt",
        "ttlMs",
        "pollIntervalMs",
        "_meta",
    ];
    for key in result.as_object().unwrap().keys() {
        assert!(
            envelope.contains(&key.as_str()) || Some(key.as_str()) == detail,
            "unexpected {key:?} in a {status} task: {result}"
        );
    }
    match detail {
        Some("inputRequests") => {
            let requests = result["inputRequests"]
                .as_object()
                .unwrap_or_else(|| panic!("inputRequests is an object: {result}"));
            assert!(!requests.is_empty(), "something is asked: {result}");
            for request in requests.values() {
                assert_valid(V, "InputRequest", request);
            }
        }
        Some("result") => assert_valid(V, "CallToolResult", &result["result"]),
        Some("error") => assert_valid(V, "Error", &result["error"]),
        _ => {}
    }
}

/// `2026-11-30T06:33:00Z`, with optional fractional seconds.
fn is_utc_timestamp(stamp: &str) -> bool {
    let Some(body) = stamp.strip_suffix('Z').filter(|body| body.is_ascii()) else {
        return false;
    };
    let (seconds, fraction) = body.split_at(body.len().min(19));
    let seconds_match = seconds.len() == 19
        && seconds
            .bytes()
            .zip(b"dddd-dd-ddTdd:dd:dd".iter())
            .all(|(c, &p)| {
                if p == b'd' {
                    c.is_ascii_digit()
                } else {
                    c == p
                }
            });
    let fraction_match = fraction.is_empty()
        || (fraction.len() > 1
            && fraction.starts_with('.')
            && fraction[1..].bytes().all(|b| b.is_ascii_digit()));
    seconds_match && fraction_match
}
