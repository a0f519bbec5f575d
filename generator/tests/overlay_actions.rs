//! An overlay's `actions` (the OpenAPI Overlay Specification 1.0's form) patch a vendor
//! document without editing it: the Ethereum execution APIs' closed `GenericTransaction`
//! takes `data` beside `input` (what nodes and most Ethereum tools send), a method is removed,
//! and every problem, in the actions or in what they wrote, is located in the overlay.

use std::path::{Path, PathBuf};

use mcp_codegen::{Diagnostics, Options, Selection};
use serde_json::Value;

fn ethereum() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/gateway/ethereum.openrpc.json")
}

fn options(overlay: PathBuf) -> Options {
    Options {
        selection: Selection {
            tools: vec!["eth_*".into()],
            overlay: Some(overlay),
            ..Selection::default()
        },
        gateway: Some(mcp_codegen::Upstream::default()),
        ..Options::default()
    }
}

fn overlay(dir: &tempfile::TempDir, text: &str) -> PathBuf {
    let path = dir.path().join("overlay.json");
    std::fs::write(&path, text).unwrap();
    path
}

/// The diagnostics located in the overlay, rendered with its directory left out.
fn in_overlay(diagnostics: &Diagnostics, dir: &tempfile::TempDir) -> String {
    let only = Diagnostics(
        diagnostics
            .0
            .iter()
            .filter(|d| d.location.file.ends_with("overlay.json"))
            .cloned()
            .collect(),
    );
    only.to_string()
        .replace(&format!("{}/", dir.path().display()), "")
}

/// The documented patch (docs/gateway.md): `data` beside `input`, `eth_sign` gone.
const PATCH: &str = r##"{
  "overlay": "1.0.0",
  "info": {"title": "Ethereum as nodes take it", "version": "1"},
  "actions": [
    {
      "target": "$.components.schemas.GenericTransaction.properties",
      "description": "Nodes take the call data as `data` too.",
      "update": {"data": {"title": "input data (as `data`)", "$ref": "#/components/schemas/bytes"}}
    },
    {"target": "$.methods[?@.name == 'eth_sign']", "remove": true}
  ]
}
"##;

#[test]
fn actions_patch_the_vendor_document_before_it_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let generated = mcp_codegen::generate_with_options(&ethereum(), &options(overlay(&dir, PATCH)))
        .unwrap_or_else(|e| panic!("{e}"));
    let document = &generated.document;
    let properties =
        &document.bundled_json["components"]["schemas"]["GenericTransaction"]["properties"];
    assert_eq!(properties["data"]["$ref"], "#/components/schemas/bytes");
    assert_eq!(
        properties["input"]["$ref"], "#/components/schemas/bytes",
        "kept"
    );
    assert!(document.methods.iter().all(|m| m.name != "eth_sign"));
    // The tool's published schema takes `data`.
    let call = document
        .methods
        .iter()
        .find(|m| m.name == "eth_call")
        .unwrap();
    let descriptor = mcp_codegen::emit::descriptor_json(document, call, call.mcp.as_ref().unwrap());
    let descriptor: Value = serde_json::from_str(&descriptor[3]).unwrap();
    let text = descriptor["inputSchema"].to_string();
    assert!(text.contains(r#""data":{"#), "{text}");
    // Without the overlay, nothing of it.
    let plain = mcp_codegen::generate_with_options(
        &ethereum(),
        &Options {
            selection: Selection {
                tools: vec!["eth_*".into()],
                ..Selection::default()
            },
            ..Options::default()
        },
    )
    .unwrap();
    let schemas = &plain.document.bundled_json["components"]["schemas"];
    assert!(schemas["GenericTransaction"]["properties"]
        .get("data")
        .is_none());
    assert!(plain.document.methods.iter().any(|m| m.name == "eth_sign"));
}

#[test]
fn the_actions_problems_and_what_they_wrote_are_located_in_the_overlay() {
    let dir = tempfile::tempdir().unwrap();
    let text = r##"{
  "actions": [
    {"target": "$.components.schemas.Nothing", "update": {"type": "string"}},
    {"target": "$.components[", "update": {}},
    {"target": "$.openrpc", "update": {"x": 1}},
    {"target": "$", "remove": true},
    {"target": "$.info", "updat": {}},
    {"target": "$.components.schemas.GenericTransaction.properties",
     "update": {"data": {"$ref": "#/components/schemas/byets"}}}
  ]
}
"##;
    let errors = mcp_codegen::generate_with_options(&ethereum(), &options(overlay(&dir, text)))
        .expect_err("the overlay has errors");
    let rendered = in_overlay(&errors, &dir);
    let expected = [
        ("error[overlay]: the action's `target` \"$.components[\" is not an RFC 9535 JSONPath", "overlay.json:4:16 (/actions/1/target)"),
        ("error[overlay]: unknown key `updat` in an action (did you mean `update`?)", "overlay.json:7:35 (/actions/4/updat)"),
        ("warning[overlay]: the action's target $.components.schemas.Nothing selects nothing in the document; it changes nothing", "overlay.json:3:16 (/actions/0/target)"),
        ("error[overlay]: the action's target $.openrpc selects a string at /openrpc, which an object cannot update", "overlay.json:5:39 (/actions/2/update)"),
        ("error[overlay]: the action's target $ selects the whole document, which cannot be removed", "overlay.json:6:16 (/actions/3/target)"),
        // A problem in what the action wrote is the overlay's, at the value it wrote.
        ("byets", "overlay.json:9:34 (/actions/5/update/data/$ref)"),
    ];
    for (message, at) in expected {
        let found = rendered
            .lines()
            .position(|line| line.contains(message))
            .unwrap_or_else(|| panic!("no {message:?} in\n{rendered}"));
        let next = rendered.lines().nth(found + 1).unwrap_or_default();
        assert!(
            next.contains(at),
            "{message:?} at {next:?}, not {at}\n{rendered}"
        );
    }
}
