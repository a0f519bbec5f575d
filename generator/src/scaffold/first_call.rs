//! The first MCP session the scaffold's README shows: `initialize`, `notifications/initialized`
//! and one request that answers something real for this contract, piped to `--stdio`.
//!
//! The request is a `tools/call` when the arguments are known to be valid (the tool's own
//! example pairing, or a tool with no required argument); otherwise a list of what the server
//! has, so the command always gets the answer the README says it gets.

use serde_json::{json, Map, Value};

use crate::escape::markdown;
use crate::openrpc::{Document, McpKind, Method};

/// The protocol revision of the README's `initialize`: the newest one with a handshake.
const PROTOCOL_VERSION: &str = "2025-11-25";

/// The README's first session with the server.
pub(super) struct FirstCall {
    /// The JSON-RPC messages, one a line, in the order they are sent.
    pub messages: Vec<Value>,
    /// What the last message's answer is, in Markdown, for the sentence after the command.
    pub answer: String,
}

/// The first session for `document`; `gateway` says whether unimplemented methods are
/// forwarded (the answer then comes from the upstream).
pub(super) fn first_call(document: &Document, gateway: bool) -> FirstCall {
    let handshake = [
        json!({
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": PROTOCOL_VERSION,
                "capabilities": {},
                "clientInfo": {"name": "readme", "version": "1.0.0"},
            },
        }),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    ];
    let (request, answer) = request(document, gateway);
    let mut messages = handshake.to_vec();
    messages.push(request);
    FirstCall { messages, answer }
}

/// The third message and what its answer says.
fn request(document: &Document, gateway: bool) -> (Value, String) {
    let bound = |kind: McpKind| {
        document
            .methods
            .iter()
            .filter(move |m| m.mcp.as_ref().is_some_and(|b| b.kind() == kind))
    };
    let tools: Vec<&Method> = bound(McpKind::Tool).collect();
    let callable = tools
        .iter()
        .find_map(|m| example_arguments(m).map(|args| (m, args)))
        .or_else(|| {
            tools
                .iter()
                .find(|m| m.params.iter().all(|p| !p.required))
                .map(|m| (m, Map::new()))
        });
    if let Some((method, arguments)) = callable {
        let name = method.mcp.as_ref().map_or("", |b| b.key());
        let answer = if gateway {
            format!(
                "the tool's result: {} forwarded to the upstream (an `isError` result saying it \
                 could not be reached when no upstream runs)",
                markdown::code_span(&method.name)
            )
        } else {
            format!(
                "the tool's result: until {} is written in `src/handler.rs`, an `isError` result \
                 saying it is not implemented yet",
                markdown::code_span(&method.name)
            )
        };
        let request = json!({
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": name, "arguments": arguments},
        });
        return (request, answer);
    }
    let (method, answer) = if !tools.is_empty() {
        (
            "tools/list",
            "the tools, each with the `inputSchema` its `tools/call` arguments follow",
        )
    } else if bound(McpKind::Prompt).next().is_some() {
        ("prompts/list", "the prompts and their arguments")
    } else if bound(McpKind::Resource).next().is_some() {
        ("resources/list", "the resources")
    } else if bound(McpKind::ResourceTemplate).next().is_some() {
        ("resources/templates/list", "the resource templates")
    } else {
        (
            "tools/list",
            "an empty list: the contract binds no method to MCP (`x-mcp`), so its methods are \
             plain JSON-RPC, served at `/jsonrpc` with `--jsonrpc`; regenerate with \
             `--tools '*'` to expose every method as a tool",
        )
    };
    let request = json!({"jsonrpc": "2.0", "id": 2, "method": method, "params": {}});
    (request, answer.to_string())
}

/// The arguments of `method`'s first example pairing that gives every required param a value,
/// by param name.
fn example_arguments(method: &Method) -> Option<Map<String, Value>> {
    method.examples.iter().find_map(|pairing| {
        let examples = pairing.params.as_ref()?;
        let mut arguments = Map::new();
        for (position, param) in method.params.iter().enumerate() {
            let by_name = examples
                .iter()
                .find(|e| e.name.as_deref() == Some(param.name.as_str()));
            let example = by_name.or_else(|| examples.get(position).filter(|e| e.name.is_none()));
            match example.and_then(|e| e.value.clone()) {
                Some(value) => {
                    arguments.insert(param.name.clone(), value);
                }
                None if param.required => return None,
                None => {}
            }
        }
        Some(arguments)
    })
}
