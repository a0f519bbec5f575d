//! Writes a synthetic OpenRPC document with N tool methods (default 1,000) to stdout, for the
//! generator benchmark: each method has a required string, an optional integer, an optional
//! enum and a `$ref` to a shared object schema, and returns an object.
//!
//! `gen-synthetic [N] > synthetic.json`

use serde_json::json;

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .map(|a| a.parse().expect("N"))
        .unwrap_or(1000);
    let methods: Vec<_> = (0..n)
        .map(|i| {
            json!({
                "name": format!("method_{i:04}"),
                "summary": format!("Synthetic method number {i}."),
                "x-mcp": {"kind": "tool"},
                "params": [
                    {"name": "query", "required": true, "schema": {"type": "string"}},
                    {"name": "limit", "schema": {"type": "integer", "minimum": 1}},
                    {"name": "mode", "schema": {"type": "string", "enum": ["fast", "thorough"]}},
                    {"name": "filter", "schema": {"$ref": "#/components/schemas/Filter"}}
                ],
                "result": {"name": "result", "schema": {
                    "type": "object",
                    "properties": {
                        "items": {"type": "array", "items": {"$ref": "#/components/schemas/Item"}},
                        "total": {"type": "integer"}
                    },
                    "required": ["items", "total"]
                }}
            })
        })
        .collect();
    let document = json!({
        "openrpc": "1.3.2",
        "info": {"title": "Synthetic", "version": "0.1.0", "x-mcp": {"name": "synthetic"}},
        "methods": methods,
        "components": {"schemas": {
            "Filter": {"type": "object", "properties": {
                "tags": {"type": "array", "items": {"type": "string"}},
                "since": {"type": "string"}
            }},
            "Item": {"type": "object", "properties": {
                "id": {"type": "integer"}, "title": {"type": "string"}
            }, "required": ["id", "title"]}
        }}
    });
    println!("{}", serde_json::to_string_pretty(&document).unwrap());
}
