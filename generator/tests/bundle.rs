//! The document `rpc.discover` answers: a multi-file document bundled into one, which loads
//! again to the same methods and types.

mod common;

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

fn fixture(path: &str) -> PathBuf {
    common::workspace().join("fixtures").join(path)
}

fn bundled(path: &Path) -> Value {
    let (document, _) = mcp_codegen::openrpc::load(path)
        .unwrap_or_else(|d| panic!("{} loads:\n{d}", path.display()));
    document.bundled_json
}

/// Decodes `%XX` escapes (the tests' own, to check the generator's encoding).
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            out.push(u8::from_str_radix(&text[i + 1..i + 3], 16).unwrap());
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).unwrap()
}

/// Every `$ref` in `value` (example values, which are data, left out).
fn refs<'v>(value: &'v Value, out: &mut Vec<&'v str>) {
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                match (key.as_str(), child) {
                    ("$ref", Value::String(r)) => out.push(r),
                    ("value", _) => {}
                    _ => refs(child, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| refs(item, out)),
        _ => {}
    }
}

/// Asserts that every reference of `document` points inside it, at a value that exists.
fn assert_self_contained(document: &Value) {
    let mut all = Vec::new();
    refs(document, &mut all);
    assert!(!all.is_empty());
    for reference in all {
        let pointer = reference
            .strip_prefix('#')
            .unwrap_or_else(|| panic!("{reference:?} points outside the document"));
        assert!(
            document.pointer(&percent_decode(pointer)).is_some(),
            "{reference:?} points at nothing"
        );
    }
}

/// The generated server source without what names the document itself (the header names its
/// file, `OPENRPC_DOCUMENT` is the bundle, its doc comment says so), its descriptors' JSON left out, and those
/// descriptors with every `$ref` expanded (the names of their definitions are the document's
/// names for its schemas, which the bundle makes unique).
fn generated(path: &Path) -> (String, Vec<Value>) {
    let generated =
        mcp_codegen::generate(path).unwrap_or_else(|d| panic!("{} is valid:\n{d}", path.display()));
    let mut code = String::new();
    let mut descriptors = Vec::new();
    let mut in_document = false;
    for line in generated.server.source.lines() {
        // `OPENRPC_DOCUMENT` and its doc comment (which says whether it was bundled).
        in_document |= line.contains("/// The OpenRPC document this server was generated from");
        if in_document || line.starts_with("// @generated") {
            in_document &= !line.contains("OPENRPC_DOCUMENT: &str");
            continue;
        }
        match line.trim().strip_prefix("r##\"") {
            Some(literal) => {
                let json = literal.trim_end_matches(',').trim_end_matches("\"##");
                let mut descriptor: Value = serde_json::from_str(json).unwrap();
                for key in ["inputSchema", "outputSchema", "arguments"] {
                    if let Some(schema) = descriptor.get_mut(key) {
                        *schema = expand(schema, schema, &mut Vec::new());
                    }
                }
                descriptors.push(descriptor);
                code.push_str("<descriptor>\n");
            }
            None => {
                code.push_str(line);
                code.push('\n');
            }
        }
    }
    (code, descriptors)
}

/// `value` (inside the schema `root`) with every local `$ref` replaced by what it points at; a reference
/// back to a definition being expanded becomes `{"$back": how many levels up}`.
fn expand(value: &Value, root: &Value, stack: &mut Vec<String>) -> Value {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(reference)) = map.get("$ref") {
                if let Some(pointer) = reference.strip_prefix('#') {
                    if let Some(depth) = stack.iter().rev().position(|p| p == pointer) {
                        return json!({ "$back": depth });
                    }
                    let target = root
                        .pointer(pointer)
                        .unwrap_or_else(|| panic!("{reference} points at nothing"));
                    stack.push(pointer.to_string());
                    let expanded = expand(target, root, stack);
                    stack.pop();
                    return expanded;
                }
            }
            Value::Object(
                map.iter()
                    .filter(|(key, _)| !matches!(key.as_str(), "$defs" | "definitions"))
                    .map(|(key, child)| (key.clone(), expand(child, root, stack)))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.iter().map(|i| expand(i, root, stack)).collect()),
        other => other.clone(),
    }
}

/// Every method of the document at `path` as loaded: its name, params and result, each schema
/// with every `$ref` expanded through the loaded schemas (a cycle as `{"$back": levels}`), and
/// its errors.
fn methods(path: &Path) -> Value {
    let (document, _) = mcp_codegen::openrpc::load(path).unwrap();
    let schemas = &document.schemas;
    fn deref(
        value: &Value,
        schemas: &indexmap::IndexMap<String, mcp_codegen::openrpc::NamedSchema>,
        stack: &mut Vec<String>,
    ) -> Value {
        match value {
            Value::Object(map) => {
                let mut out = serde_json::Map::new();
                for (key, child) in map {
                    match (key.as_str(), child) {
                        ("$ref", Value::String(key)) => {
                            let expanded = match stack.iter().rev().position(|k| k == key) {
                                Some(depth) => json!({ "$back": depth }),
                                None => {
                                    stack.push(key.clone());
                                    let target = &schemas[key.as_str()].schema;
                                    let expanded = deref(target, schemas, stack);
                                    stack.pop();
                                    expanded
                                }
                            };
                            out.insert("$ref".to_string(), expanded);
                        }
                        _ => {
                            out.insert(key.clone(), deref(child, schemas, stack));
                        }
                    }
                }
                Value::Object(out)
            }
            Value::Array(items) => {
                Value::Array(items.iter().map(|i| deref(i, schemas, stack)).collect())
            }
            other => other.clone(),
        }
    }
    let descriptor = |cd: &mcp_codegen::openrpc::ContentDescriptor| {
        json!({
            "name": cd.name,
            "required": cd.required,
            "description": cd.description,
            "schema": deref(&cd.schema, schemas, &mut Vec::new()),
        })
    };
    document
        .methods
        .iter()
        .map(|m| {
            json!({
                "name": m.name,
                "summary": m.summary,
                "params": m.params.iter().map(descriptor).collect::<Vec<_>>(),
                "result": m.result.as_ref().map(descriptor),
                "errors": m.errors.iter().map(|e| json!([e.code, e.message, e.data])).collect::<Vec<_>>(),
            })
        })
        .collect()
}

/// Writes `document` alone into a fresh directory as `main.json` (no other file beside it).
fn write_alone(document: &Value) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("main.json");
    std::fs::write(&path, serde_json::to_string_pretty(document).unwrap()).unwrap();
    (dir, path)
}

/// The bundle, written as a single file, generates what the files did (types, params,
/// dispatch, descriptors), and bundling it again changes nothing.
fn assert_round_trip(path: &Path) -> Value {
    let document = bundled(path);
    assert_self_contained(&document);
    let (_dir, alone) = write_alone(&document);
    assert_eq!(methods(&alone), methods(path), "{}", path.display());
    let (bundle_code, bundle_descriptors) = generated(&alone);
    let (code, descriptors) = generated(path);
    assert_eq!(
        bundle_code,
        code,
        "{}: the bundle generates other code",
        path.display()
    );
    assert_eq!(
        bundle_descriptors,
        descriptors,
        "{}: the bundle describes other schemas",
        path.display()
    );
    assert_eq!(bundled(&alone), document, "a bundle bundles to itself");
    document
}

#[test]
fn the_refs_fixture_bundles_into_one_document() {
    let document = assert_round_trip(&fixture("openrpc/refs/main.json"));
    // The root's own references stay as written; the others point into `components`.
    let method = &document["methods"][0];
    assert_eq!(
        method["params"][0],
        json!({"$ref": "#/components/contentDescriptors/ItemId"})
    );
    assert_eq!(
        method["result"]["schema"],
        json!({"$ref": "#/components/schemas/Item2"})
    );
    assert_eq!(
        method["errors"][0],
        json!({"$ref": "#/components/errors/NotFound"})
    );
    let components = &document["components"];
    assert_eq!(
        components["schemas"]["Item"],
        json!({"$ref": "#/components/schemas/Item2"})
    );
    assert_eq!(
        components["contentDescriptors"]["ItemId"],
        json!({"name": "id", "required": true, "schema": {"$ref": "#/components/schemas/Id"}})
    );
    // The cycle stays a reference; the name with a space is percent-encoded.
    let item = &components["schemas"]["Item2"]["properties"];
    assert_eq!(
        item["children"]["items"],
        json!({"$ref": "#/components/schemas/Item2"})
    );
    assert_eq!(
        item["tag name"],
        json!({"$ref": "#/components/schemas/Tag%20Name"})
    );
    let names: Vec<&String> = components["schemas"].as_object().unwrap().keys().collect();
    assert_eq!(names, ["Item", "Unused", "Item2", "Id", "Tag Name"]);
}

#[test]
fn every_section_cycles_and_collisions() {
    let document = assert_round_trip(&fixture("bundle/main.json"));
    let walk = &document["methods"][0];
    assert_eq!(walk["tags"][0], json!({"$ref": "#/components/tags/graph"}));
    // A chain of content descriptors ends at the one hoisted.
    assert_eq!(
        walk["params"][0],
        json!({"$ref": "#/components/contentDescriptors/StartNode"})
    );
    assert_eq!(
        walk["params"][1]["schema"],
        json!({"$ref": "#/components/schemas/Limit"})
    );
    assert_eq!(
        walk["errors"],
        json!([
            {"$ref": "#/components/errors/NotFound2"},
            {"$ref": "#/components/errors/NotFound"}
        ])
    );
    assert_eq!(walk["links"][0], json!({"$ref": "#/components/links/next"}));
    assert_eq!(
        walk["examples"][0],
        json!({"$ref": "#/components/examplePairings/walkOne"})
    );
    // A method in another file is inlined, its references rewritten.
    let count = &document["methods"][1];
    assert_eq!(count["name"], "count");
    assert_eq!(
        count["params"][0]["schema"],
        json!({"$ref": "#/components/schemas/Node2"})
    );

    let components = &document["components"];
    let keys = |section: &str| -> Vec<String> {
        components[section]
            .as_object()
            .unwrap_or_else(|| panic!("components.{section}"))
            .keys()
            .cloned()
            .collect()
    };
    assert_eq!(keys("schemas"), ["Limit", "Node", "Node2", "ids", "Edge"]);
    assert_eq!(keys("errors"), ["NotFound", "NotFound2"]);
    assert_eq!(keys("contentDescriptors"), ["StartNode"]);
    assert_eq!(keys("tags"), ["graph"]);
    assert_eq!(keys("links"), ["next"]);
    assert_eq!(keys("examplePairings"), ["walkOne"]);
    assert_eq!(keys("examples"), ["start"]);
    // The root's own Node is untouched; the graph's Node and Edge refer to each other.
    assert_eq!(components["schemas"]["Node"]["type"], "string");
    let node = &components["schemas"]["Node2"]["properties"];
    assert_eq!(node["id"], json!({"$ref": "#/components/schemas/ids"}));
    assert_eq!(
        node["edges"]["items"],
        json!({"$ref": "#/components/schemas/Edge"})
    );
    // A reference back into the root file by its path is a reference inside the document.
    assert_eq!(node["limit"], json!({"$ref": "#/components/schemas/Limit"}));
    assert_eq!(
        components["schemas"]["Edge"]["properties"]["to"],
        json!({"$ref": "#/components/schemas/Node2"})
    );
    assert_eq!(
        components["examplePairings"]["walkOne"]["params"][0],
        json!({"$ref": "#/components/examples/start"})
    );
    // An example's value is data: its `$ref` member is not a reference.
    assert_eq!(
        components["examples"]["start"]["value"]["$ref"],
        "data, not a reference"
    );
    assert_eq!(components["errors"]["NotFound2"]["code"], 4040);
}

#[test]
fn a_root_value_outside_components_is_bundled_where_it_stands() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("types.json"),
        r#"{"Weight": {"type": "number", "minimum": 0}, "Pair": {"type": "array", "items": {"$ref": "main.json#/x-definitions/EdgeWeight"}}}"#,
    )
    .unwrap();
    let document = json!({
        "openrpc": "1.3.2",
        "info": {"title": "t", "version": "1"},
        "x-definitions": {
            "EdgeWeight": {"$ref": "types.json#/Weight"},
            "Params": {"pair": {"name": "pair", "schema": {"$ref": "types.json#/Pair"}}}
        },
        "methods": [{
            "name": "weigh",
            "params": [
                {"name": "w", "schema": {"$ref": "#/x-definitions/EdgeWeight"}},
                {"$ref": "#/x-definitions/Params/pair"}
            ],
            "result": {"name": "r", "schema": {"$ref": "#/x-definitions/EdgeWeight"}}
        }]
    });
    let path = dir.path().join("main.json");
    std::fs::write(&path, serde_json::to_string_pretty(&document).unwrap()).unwrap();
    let bundle = bundled(&path);
    assert_self_contained(&bundle);
    // The root's own references stay; what they reach is rewritten where it stands.
    assert_eq!(bundle["methods"], document["methods"]);
    assert_eq!(
        bundle["x-definitions"],
        json!({
            "EdgeWeight": {"$ref": "#/components/schemas/Weight"},
            "Params": {"pair": {"name": "pair", "schema": {"$ref": "#/components/schemas/Pair"}}}
        })
    );
    assert_eq!(
        bundle["components"]["schemas"]["Pair"]["items"],
        json!({"$ref": "#/x-definitions/EdgeWeight"})
    );
    let (_alone_dir, alone) = write_alone(&bundle);
    assert_eq!(methods(&alone), methods(&path));
}

#[test]
fn a_single_file_document_is_its_root_file() {
    for (name, path) in common::valid_fixtures() {
        let (document, _) = mcp_codegen::openrpc::load(&path).unwrap();
        if document.files.len() > 1 {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let as_read: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(document.bundled_json, as_read, "{name}");
    }
}

#[test]
fn a_reference_only_the_bundle_follows_is_checked_like_the_others() {
    let dir = tempfile::tempdir().unwrap();
    let inner = dir.path().join("contract");
    std::fs::create_dir(&inner).unwrap();
    std::fs::write(dir.path().join("outside.json"), r#"{"tag": {"name": "x"}}"#).unwrap();
    let document = json!({
        "openrpc": "1.3.2",
        "info": {"title": "t", "version": "1"},
        "methods": [{
            "name": "m",
            "params": [],
            "result": {"name": "r", "schema": {"type": "string"}},
            "tags": [{"$ref": "../outside.json#/tag"}, {"$ref": "missing.json#/tag"}]
        }]
    });
    let path = inner.join("main.json");
    std::fs::write(&path, serde_json::to_string_pretty(&document).unwrap()).unwrap();
    let diags = mcp_codegen::openrpc::load(&path).unwrap_err();
    let rules: Vec<&str> = diags.0.iter().map(|d| d.rule).collect();
    assert_eq!(rules, ["ref-confined", "ref-resolvable"], "{diags}");
}
