//! Drives the generated dispatch of the quickstart: typed values arrive by name and by
//! position, tools/prompts/resources route to the handler, and the descriptors are the ones the
//! contract describes.

use mcp_runtime::dispatch::{Answer, Call, CallKind};
use mcp_runtime::stdio::block_on;
use mcp_runtime::{Dispatch, ProtocolVersion, RequestContext, RpcError};
use quickstart::server::Server;
use quickstart::Notes;
use serde_json::value::RawValue;
use serde_json::{json, Value};

fn raw(value: Value) -> Box<RawValue> {
    serde_json::value::to_raw_value(&value).unwrap()
}

/// The server's answer to a call of `kind` to `name` (in 2025-11-25), `None` for an unknown
/// name.
fn answer(
    server: &Server<Notes>,
    kind: CallKind,
    name: &str,
    arguments: Option<&RawValue>,
) -> Option<Answer> {
    let ctx = RequestContext::default();
    Some(block_on(
        server.call(Call::new(kind, name, arguments, ctx))?,
    ))
}

/// A prompt's or resource's result, or its error.
fn read(
    server: &Server<Notes>,
    kind: CallKind,
    name: &str,
    arguments: Option<&RawValue>,
) -> Result<Value, RpcError> {
    let answer = answer(server, kind, name, arguments).expect("a known name");
    answer
        .into_result()
        .map(|result| serde_json::from_str(result.get()).unwrap())
}

fn call(server: &Server<Notes>, method: &str, params: Option<Value>) -> Result<Value, RpcError> {
    let params = params.map(raw);
    read(server, CallKind::Method, method, params.as_deref())
}

fn tool(
    server: &Server<Notes>,
    name: &str,
    arguments: Value,
    version: ProtocolVersion,
) -> Result<Value, RpcError> {
    let arguments = raw(arguments);
    let call = Call::new(
        CallKind::Tool,
        name,
        Some(&arguments),
        RequestContext::new(version),
    );
    let future = server.call(call).expect("known tool");
    block_on(future)
        .into_call_tool_result(version)
        .map(|r| serde_json::from_str(r.get()).unwrap())
}

#[test]
fn typed_params_arrive_by_name_and_by_position() {
    let server = Server::new(Notes::default());
    assert_eq!(
        call(&server, "add", Some(json!({"a": 40, "b": 2}))).unwrap(),
        json!(42)
    );
    assert_eq!(
        call(&server, "add", Some(json!([40, 2]))).unwrap(),
        json!(42)
    );
    // Trailing optional params may be left out of a by-position call; defaults apply.
    call(
        &server,
        "create_note",
        Some(json!({"title": "Milk", "body": "2 litres", "priority": "high"})),
    )
    .unwrap();
    call(
        &server,
        "create_note",
        Some(json!({"title": "Bread", "body": "whole grain milk bread"})),
    )
    .unwrap();
    let found = call(&server, "search_notes", Some(json!(["milk"]))).unwrap();
    assert_eq!(found["total"], json!(2));
    assert_eq!(found["notes"][0]["priority"], json!("high"));
    assert_eq!(found["notes"][1]["priority"], json!("normal"));
    let limited = call(&server, "search_notes", Some(json!(["milk", 1]))).unwrap();
    assert_eq!(limited["notes"].as_array().unwrap().len(), 1);
    assert_eq!(limited["total"], json!(2));
}

#[test]
fn bad_params_are_invalid_params_errors() {
    let server = Server::new(Notes::default());
    let wrong_type = call(&server, "add", Some(json!({"a": "forty", "b": 2}))).unwrap_err();
    assert_eq!(wrong_type.code, -32602);
    let missing = call(&server, "add", Some(json!([1]))).unwrap_err();
    assert_eq!(missing.code, -32602);
    // create_note is by-name only in the contract.
    let by_position = call(&server, "create_note", Some(json!(["t", "b"]))).unwrap_err();
    assert!(
        by_position.message.contains("by name"),
        "{}",
        by_position.message
    );
    // additionalProperties: false on Note is not on the params, but unknown enum values are refused.
    let bad_enum = call(
        &server,
        "create_note",
        Some(json!({"title": "t", "body": "b", "priority": "urgent"})),
    )
    .unwrap_err();
    assert_eq!(bad_enum.code, -32602);
    assert!(answer(&server, CallKind::Method, "nope", None).is_none());
}

#[test]
fn handler_errors_and_notifications() {
    let server = Server::new(Notes::default());
    let overflow = call(&server, "add", Some(json!([i64::MAX, 1]))).unwrap_err();
    assert_eq!(overflow.code, -32000);
    assert!(overflow.message.contains("overflows"));
    let empty_title = call(
        &server,
        "create_note",
        Some(json!({"title": " ", "body": "b"})),
    )
    .unwrap_err();
    assert_eq!(empty_title.code, -32602);
    call(
        &server,
        "create_note",
        Some(json!({"title": "a", "body": "b"})),
    )
    .unwrap();
    assert_eq!(call(&server, "stats", None).unwrap(), json!({"notes": 1}));
    assert_eq!(call(&server, "clear", None).unwrap(), Value::Null);
    assert_eq!(call(&server, "stats", None).unwrap(), json!({"notes": 0}));
}

#[test]
fn tools_route_by_exposed_name_and_shape_results_per_revision() {
    let server = Server::new(Notes::default());
    assert_eq!(
        tool(
            &server,
            "add",
            json!({"a": 1, "b": 2}),
            ProtocolVersion::V2025_03_26
        )
        .unwrap(),
        json!({"content": [{"type": "text", "text": "3"}]})
    );
    assert_eq!(
        tool(
            &server,
            "add",
            json!({"a": 1, "b": 2}),
            ProtocolVersion::V2026_07_28
        )
        .unwrap(),
        json!({"content": [{"type": "text", "text": "3"}], "structuredContent": 3})
    );
    let created = tool(
        &server,
        "create_note",
        json!({"title": "t", "body": "b"}),
        ProtocolVersion::V2025_06_18,
    )
    .unwrap();
    assert_eq!(created["structuredContent"]["id"], json!(1));
    let failed = tool(
        &server,
        "create_note",
        json!({"title": "", "body": "b"}),
        ProtocolVersion::V2025_11_25,
    )
    .unwrap();
    assert_eq!(failed["isError"], json!(true));
    let invalid = tool(
        &server,
        "add",
        json!({"a": 1}),
        ProtocolVersion::V2025_06_18,
    )
    .unwrap_err();
    assert_eq!(invalid.code, -32602);
    // Plain JSON-RPC methods are not tools.
    assert!(answer(&server, CallKind::Tool, "stats", None).is_none());
}

#[test]
fn prompts_and_resources_route_to_the_handler() {
    let server = Server::new(Notes::default());
    call(
        &server,
        "create_note",
        Some(json!({"title": "Trip", "body": "Lisbon in May"})),
    )
    .unwrap();

    let arguments = raw(json!({"topic": "travel"}));
    let prompt = read(&server, CallKind::Prompt, "summarize", Some(&arguments)).unwrap();
    let text = prompt["messages"][0]["content"]["text"].as_str().unwrap();
    assert!(
        text.contains("about travel") && text.contains("Lisbon in May"),
        "{text}"
    );
    let missing = raw(json!({}));
    let err = read(&server, CallKind::Prompt, "summarize", Some(&missing)).unwrap_err();
    assert_eq!(err.code, -32602);

    let index = read(&server, CallKind::Resource, "notes://index", None).unwrap();
    assert_eq!(index["contents"][0]["mimeType"], json!("application/json"));
    assert_eq!(index["contents"][0]["text"], json!("{\"1\":\"Trip\"}"));

    let note = read(&server, CallKind::Resource, "notes://notes/1", None).unwrap();
    assert_eq!(note["contents"][0]["uri"], json!("notes://notes/1"));
    let body: Value = serde_json::from_str(note["contents"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(body["title"], json!("Trip"));
    let not_a_number = read(&server, CallKind::Resource, "notes://notes/x", None).unwrap_err();
    assert_eq!(not_a_number.code, -32602);
    assert!(answer(&server, CallKind::Resource, "notes://elsewhere", None).is_none());
}

#[test]
fn descriptors_match_the_contract_in_every_revision() {
    let server = Server::new(Notes::default());
    let catalog = server.contract().catalog();
    assert_eq!(catalog.server.name, "quickstart-notes");
    let names: Vec<&str> = catalog.tools.iter().map(|d| d.key).collect();
    assert_eq!(names, ["add", "create_note", "search_notes"]);
    assert_eq!(catalog.prompts[0].key, "summarize");
    assert_eq!(catalog.resources[0].key, "notes://index");
    assert_eq!(catalog.resource_templates[0].key, "notes://notes/{id}");

    let search = catalog.tool("search_notes").unwrap();
    let old: Value = serde_json::from_str(search.json_for(ProtocolVersion::V2025_03_26)).unwrap();
    assert!(old.get("title").is_none() && old.get("outputSchema").is_none());
    assert_eq!(old["inputSchema"]["required"], json!(["query"]));
    assert_eq!(
        old["inputSchema"]["properties"]["limit"]["default"],
        json!(10)
    );
    let new: Value = serde_json::from_str(search.json_for(ProtocolVersion::V2025_11_25)).unwrap();
    assert_eq!(new["title"], json!("Search notes"));
    assert_eq!(
        new["inputSchema"]["$schema"],
        json!("https://json-schema.org/draft/2020-12/schema")
    );
    // `Note` and `Priority` are used once each: written in place, smaller than `$defs` entries.
    let note = &new["outputSchema"]["properties"]["notes"]["items"];
    assert_eq!(note["description"], json!("A saved note."));
    assert_eq!(
        note["properties"]["priority"]["enum"],
        json!(["low", "normal", "high"])
    );
    assert!(new["outputSchema"].get("$defs").is_none());
    // `add` returns an integer: no outputSchema before 2026-07-28, one from then on.
    let add = catalog.tool("add").unwrap();
    let v11: Value = serde_json::from_str(add.json_for(ProtocolVersion::V2025_11_25)).unwrap();
    assert!(v11.get("outputSchema").is_none());
    let v26: Value = serde_json::from_str(add.json_for(ProtocolVersion::V2026_07_28)).unwrap();
    assert_eq!(v26["outputSchema"]["type"], json!("integer"));
    let prompt: Value =
        serde_json::from_str(catalog.prompts[0].json_for(ProtocolVersion::V2025_06_18)).unwrap();
    assert_eq!(
        prompt["arguments"],
        json!([
            {"name": "topic", "description": "What the summary is about.", "required": true},
            {"name": "style", "description": "How to write it.", "required": false}
        ])
    );
}

/// `summarize`'s `topic` is marked `x-mcp.complete`: the handler offers the notes' tags; other
/// arguments are not the handler's to complete.
#[test]
fn topics_complete_from_the_notes_tags() {
    use mcp_runtime::{CompletionKind, CompletionRequest};
    let server = Server::new(Notes::default());
    for (title, tags) in [
        ("a", json!(["rust", "release"])),
        ("b", json!(["Rust", "travel"])),
    ] {
        tool(
            &server,
            "create_note",
            json!({"title": title, "body": "", "tags": tags}),
            ProtocolVersion::V2025_11_25,
        )
        .unwrap();
    }
    let complete = |argument: &str, value: &str| {
        server
            .complete(
                CompletionKind::Prompt,
                "summarize",
                argument,
                CompletionRequest::new(value),
                RequestContext::default(),
            )
            .map(|future| block_on(future).unwrap())
    };
    assert_eq!(
        complete("topic", "r"),
        Some(vec!["Rust".into(), "release".into(), "rust".into()])
    );
    assert_eq!(complete("topic", "t"), Some(vec!["travel".to_string()]));
    assert_eq!(
        complete("style", "h"),
        None,
        "enums complete in the runtime"
    );
}
