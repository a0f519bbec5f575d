//! Lean descriptors (#20 item 5): the `tools/list` payload of every fixture at every revision,
//! beside the smallest equivalent this test can find for the same schemas, in a snapshot. A
//! payload more than 10% above that fails.
//!
//! The smallest equivalent is computed here, independently of the generator's bundler: each
//! `inputSchema`/`outputSchema` is expanded into one tree (every non-recursive `$ref` replaced by
//! its target), then repeated subtrees are factored into definitions while that saves bytes,
//! largest saving first, under two-character names. Only reference structure changes, so both
//! forms accept the same values.

mod common;

use mcp_codegen::emit::{descriptor_json, Revision};
use mcp_codegen::openrpc::{McpBinding, McpCommon, McpOutput, Method, ToolBinding};
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::fmt::Write as _;

/// How far above the smallest equivalent a payload may be.
const SLACK: f64 = 1.10;

#[test]
fn tools_list_payloads_are_within_ten_percent_of_the_smallest_equivalent() {
    let mut report = String::from(
        "fixture | revision | tools | tools/list bytes | smallest equivalent | ratio\n",
    );
    let mut over = Vec::new();
    for (name, path) in common::valid_fixtures() {
        let generated = mcp_codegen::generate(&path).unwrap_or_else(|d| panic!("{name}:\n{d}"));
        let document = &generated.document;
        let mut tools: Vec<[String; 4]> = document
            .methods
            .iter()
            .filter_map(|m| match &m.mcp {
                Some(binding @ McpBinding::Tool(_)) => Some(descriptor_json(document, m, binding)),
                _ => None,
            })
            .collect();
        if tools.is_empty() {
            // A plain JSON-RPC document (the third-party ones): every method as a typed tool,
            // for the size of its schemas.
            tools = document
                .methods
                .iter()
                .map(|m| descriptor_json(document, m, &as_tool(m)))
                .collect();
        }
        for (index, revision) in Revision::ALL.iter().enumerate() {
            let descriptors: Vec<Value> = tools
                .iter()
                .map(|d| serde_json::from_str(&d[index]).expect("descriptors are JSON"))
                .collect();
            let ours = payload_len(&descriptors);
            let smallest = payload_len(
                &descriptors
                    .iter()
                    .map(smallest_descriptor)
                    .collect::<Vec<_>>(),
            );
            let ratio = ours as f64 / smallest as f64;
            writeln!(
                report,
                "{name} | {revision:?} | {} | {ours} | {smallest} | {ratio:.3}",
                tools.len()
            )
            .unwrap();
            if ratio > SLACK {
                over.push(format!(
                    "{name} at {revision:?}: {ours} bytes, smallest {smallest}"
                ));
            }
        }
    }
    insta::assert_snapshot!("tools_list_sizes", report);
    assert!(
        over.is_empty(),
        "payloads over {SLACK}x the smallest equivalent:\n{}",
        over.join("\n")
    );
}

fn as_tool(method: &Method) -> McpBinding {
    McpBinding::Tool(ToolBinding {
        common: McpCommon {
            name: method.name.clone(),
            title: None,
            description: method.description.clone(),
            icons: None,
            meta: None,
            output: McpOutput::Typed,
            scopes: None,
            rate_limit: None,
            result_budget: None,
            location: method.location.clone(),
        },
        annotations: None,
        input_schema: None,
    })
}

fn payload_len(tools: &[Value]) -> usize {
    serde_json::to_string(&json!({ "tools": tools }))
        .unwrap()
        .len()
}

/// `descriptor` with its schemas in their smallest form found here.
fn smallest_descriptor(descriptor: &Value) -> Value {
    let mut descriptor = descriptor.clone();
    for key in ["inputSchema", "outputSchema"] {
        if let Some(schema) = descriptor.get(key) {
            let small = smallest_schema(schema);
            descriptor[key] = small;
        }
    }
    descriptor
}

fn smallest_schema(schema: &Value) -> Value {
    let (defs_key, prefix) = if schema.get("$defs").is_some() {
        ("$defs", "#/$defs/")
    } else if schema.get("definitions").is_some() {
        ("definitions", "#/definitions/")
    } else {
        return factor(schema.clone(), "$defs", "#/$defs/", Map::new());
    };
    let mut root = schema.clone();
    let defs = root
        .as_object_mut()
        .and_then(|m| m.remove(defs_key))
        .and_then(|d| d.as_object().cloned())
        .unwrap_or_default();
    let recursive: Vec<String> = defs
        .keys()
        .filter(|name| reaches(&defs, prefix, name, name, &mut Vec::new()))
        .cloned()
        .collect();
    let expanded_root = expand(&root, &defs, prefix, &recursive, 0);
    let kept: Map<String, Value> = recursive
        .iter()
        .map(|name| {
            (
                name.clone(),
                expand(&defs[name], &defs, prefix, &recursive, 0),
            )
        })
        .collect();
    factor(expanded_root, defs_key, prefix, kept)
}

/// `schema` with every reference to a non-recursive definition replaced by its expansion.
fn expand(
    schema: &Value,
    defs: &Map<String, Value>,
    prefix: &str,
    recursive: &[String],
    depth: usize,
) -> Value {
    assert!(depth < 64, "expansion too deep: a cycle not detected");
    match schema {
        Value::Object(map) => {
            if let Some(name) = target(map, prefix) {
                if !recursive.contains(&name) {
                    if let Some(Value::Object(def)) = defs.get(&name) {
                        let mut out = expand(
                            &Value::Object(def.clone()),
                            defs,
                            prefix,
                            recursive,
                            depth + 1,
                        );
                        for (k, v) in map.iter().filter(|(k, _)| *k != "$ref") {
                            out.as_object_mut()
                                .unwrap()
                                .entry(k.clone())
                                .or_insert_with(|| v.clone());
                        }
                        return out;
                    }
                }
            }
            Value::Object(
                map.iter()
                    .map(|(k, v)| (k.clone(), expand(v, defs, prefix, recursive, depth)))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|v| expand(v, defs, prefix, recursive, depth))
                .collect(),
        ),
        other => other.clone(),
    }
}

fn target(map: &Map<String, Value>, prefix: &str) -> Option<String> {
    let name = map.get("$ref")?.as_str()?.strip_prefix(prefix)?;
    Some(name.replace("~1", "/").replace("~0", "~"))
}

fn reaches(
    defs: &Map<String, Value>,
    prefix: &str,
    from: &str,
    goal: &str,
    seen: &mut Vec<String>,
) -> bool {
    let mut targets = Vec::new();
    collect(&defs[from], prefix, &mut targets);
    for t in targets.into_iter().filter(|t| defs.contains_key(t)) {
        if t == goal {
            return true;
        }
        if !seen.contains(&t) {
            seen.push(t.clone());
            if reaches(defs, prefix, &t, goal, seen) {
                return true;
            }
        }
    }
    false
}

fn collect(schema: &Value, prefix: &str, out: &mut Vec<String>) {
    match schema {
        Value::Object(map) => {
            out.extend(target(map, prefix));
            map.values().for_each(|v| collect(v, prefix, out));
        }
        Value::Array(items) => items.iter().for_each(|v| collect(v, prefix, out)),
        _ => {}
    }
}

/// Factors repeated object subtrees of `root` into definitions while that saves bytes, largest
/// saving first; `defs` are definitions that must stay (recursive ones).
fn factor(mut root: Value, defs_key: &str, prefix: &str, mut defs: Map<String, Value>) -> Value {
    for n in 0.. {
        let mut counts: HashMap<String, usize> = HashMap::new();
        count_subtrees(&root, true, &mut counts);
        let name = format!("d{n}");
        let reference = json!({ "$ref": format!("{prefix}{name}") })
            .to_string()
            .len();
        let best = counts
            .iter()
            .filter(|(_, &c)| c >= 2)
            .map(|(text, &c)| {
                let saving = c as isize * text.len() as isize
                    - (text.len() + name.len() + 4 + c * reference) as isize;
                (saving, text.clone())
            })
            .filter(|(saving, _)| *saving > 0)
            .max();
        let Some((_, text)) = best else { break };
        let subtree: Value = serde_json::from_str(&text).unwrap();
        replace(
            &mut root,
            &subtree,
            &json!({ "$ref": format!("{prefix}{name}") }),
            true,
        );
        defs.insert(name, subtree);
    }
    if !defs.is_empty() {
        root.as_object_mut()
            .unwrap()
            .insert(defs_key.to_string(), Value::Object(defs));
    }
    root
}

/// Calls `f` on each subschema of `schema` (not `schema` itself), by keyword: a `properties` map
/// is not a schema, its values are; `enum` or `default` values are not schemas at all.
fn for_each_subschema(schema: &mut Value, f: &mut dyn FnMut(&mut Value)) {
    let Value::Object(map) = schema else { return };
    for (key, value) in map.iter_mut() {
        match key.as_str() {
            "properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas" => {
                if let Value::Object(members) = value {
                    members.values_mut().for_each(&mut *f);
                }
            }
            "allOf" | "anyOf" | "oneOf" | "prefixItems" => {
                if let Value::Array(members) = value {
                    members.iter_mut().for_each(&mut *f);
                }
            }
            "items" if value.is_array() => {
                value.as_array_mut().unwrap().iter_mut().for_each(&mut *f)
            }
            "items"
            | "additionalItems"
            | "additionalProperties"
            | "not"
            | "if"
            | "then"
            | "else"
            | "contains"
            | "propertyNames"
            | "unevaluatedItems"
            | "unevaluatedProperties" => f(value),
            _ => {}
        }
    }
}

fn count_subtrees(value: &Value, is_root: bool, counts: &mut HashMap<String, usize>) {
    if !is_root && value.is_object() {
        *counts.entry(value.to_string()).or_default() += 1;
    }
    let mut copy = value.clone();
    for_each_subschema(&mut copy, &mut |sub| count_subtrees(sub, false, counts));
}

fn replace(value: &mut Value, subtree: &Value, with: &Value, is_root: bool) {
    if !is_root && value == subtree {
        *value = with.clone();
        return;
    }
    for_each_subschema(value, &mut |sub| replace(sub, subtree, with, false));
}
