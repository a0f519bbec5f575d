//! Lean descriptors: a bundled schema's definitions inlined wherever the inline copies take
//! fewer bytes than the definition and its references.
//!
//! A client downloads every tool's `inputSchema` and `outputSchema` in each `tools/list`, and a
//! model reads them on every turn, so their size matters. The bundler moves every `$ref` target
//! into the definitions; most are used once, where `{"$ref":"#/$defs/Name"}` plus the entry costs
//! more than the schema written in place. Recursive definitions stay (they cannot be inlined),
//! and so does any definition referenced with sibling keywords other than annotations, whose
//! meaning differs between draft-07 (siblings ignored) and 2020-12 (siblings apply).

use std::collections::HashMap;

use serde_json::{Map, Value};

/// Keywords that may sit beside an inlined `$ref` without changing what the schema accepts.
const ANNOTATIONS: [&str; 6] = [
    "description",
    "title",
    "$comment",
    "examples",
    "default",
    "deprecated",
];

/// Inlines, leaves first, each definition of `defs` whose inline copies in `root` and the other
/// definitions are no larger than keeping it. `pointer_prefix` is how references to `defs` begin
/// (`#/$defs/` or `#/definitions/`).
///
/// Linear in the size of the bundle apart from the sites of each inlined definition: hostile
/// documents chain thousands of definitions, so nothing here recurses per definition.
pub(super) fn inline_cheap_definitions(
    root: &mut Value,
    defs: &mut Map<String, Value>,
    pointer_prefix: &str,
) {
    let names: Vec<String> = defs.keys().cloned().collect();
    let index: HashMap<&str, usize> = names
        .iter()
        .enumerate()
        .map(|(i, n)| (n.as_str(), i))
        .collect();
    let targets = |schema: &Value| {
        let mut found = Vec::new();
        collect_targets(schema, pointer_prefix, &mut found);
        found
            .iter()
            .filter_map(|n| index.get(n.as_str()).copied())
            .collect::<Vec<usize>>()
    };
    let children: Vec<Vec<usize>> = names.iter().map(|n| targets(&defs[n])).collect();
    // Who holds references to each definition: `None` is the root.
    let mut holders: Vec<Vec<Option<usize>>> = vec![Vec::new(); names.len()];
    for target in targets(root) {
        holders[target].push(None);
    }
    for (holder, targets) in children.iter().enumerate() {
        for &target in targets {
            holders[target].push(Some(holder));
        }
    }
    let cyclic = in_cycles(&children);
    let mut inlined = vec![false; names.len()];
    for i in post_order(&children) {
        if cyclic[i] {
            continue;
        }
        holders[i].dedup();
        let pointer = format!("{pointer_prefix}{}", escape_pointer(&names[i]));
        let mut sites = Sites::default();
        for holder in &holders[i] {
            match holder {
                None => count_sites(root, &pointer, &mut sites),
                Some(h) => count_sites(&defs[&names[*h]], &pointer, &mut sites),
            }
        }
        let schema = &defs[&names[i]];
        if sites.with_other_siblings || !cheaper_inline(&names[i], schema, &pointer, sites.count) {
            continue;
        }
        let schema = schema.clone();
        for holder in &holders[i] {
            match holder {
                None => replace_sites(root, &pointer, &schema),
                Some(h) => {
                    if let Some(value) = defs.get_mut(&names[*h]) {
                        replace_sites(value, &pointer, &schema);
                    }
                }
            }
        }
        inlined[i] = true;
    }
    let mut position = 0;
    defs.retain(|_, _| {
        position += 1;
        !inlined[position - 1]
    });
}

/// True when `count` inline copies of `schema` take no more bytes than its `"name":schema` entry
/// and `count` references to it.
fn cheaper_inline(name: &str, schema: &Value, pointer: &str, count: usize) -> bool {
    let size = compact_len(schema);
    let reference = compact_len(&serde_json::json!({ "$ref": pointer }));
    let entry = compact_len(&Value::String(name.to_string())) + 1 + size + 1;
    count * size <= entry + count * reference
}

/// Every node after all the nodes it reaches (cycles aside), without recursion.
fn post_order(children: &[Vec<usize>]) -> Vec<usize> {
    let mut order = Vec::with_capacity(children.len());
    let mut visited = vec![false; children.len()];
    for start in 0..children.len() {
        if visited[start] {
            continue;
        }
        visited[start] = true;
        let mut stack = vec![(start, 0)];
        while let Some((node, next)) = stack.last_mut() {
            if let Some(&child) = children[*node].get(*next) {
                *next += 1;
                if !visited[child] {
                    visited[child] = true;
                    stack.push((child, 0));
                }
            } else {
                order.push(*node);
                stack.pop();
            }
        }
    }
    order
}

/// Which nodes lie on a cycle (a strongly connected component of two or more, or a node that
/// refers to itself), by Kosaraju's two passes.
fn in_cycles(children: &[Vec<usize>]) -> Vec<bool> {
    let mut parents = vec![Vec::new(); children.len()];
    for (node, targets) in children.iter().enumerate() {
        for &target in targets {
            parents[target].push(node);
        }
    }
    let mut component = vec![usize::MAX; children.len()];
    let mut sizes = Vec::new();
    for &start in post_order(children).iter().rev() {
        if component[start] != usize::MAX {
            continue;
        }
        let id = sizes.len();
        let mut size = 0;
        let mut stack = vec![start];
        component[start] = id;
        while let Some(node) = stack.pop() {
            size += 1;
            for &parent in &parents[node] {
                if component[parent] == usize::MAX {
                    component[parent] = id;
                    stack.push(parent);
                }
            }
        }
        sizes.push(size);
    }
    (0..children.len())
        .map(|node| sizes[component[node]] > 1 || children[node].contains(&node))
        .collect()
}

/// The definition names `schema` refers to, once per reference.
fn collect_targets(schema: &Value, pointer_prefix: &str, out: &mut Vec<String>) {
    match schema {
        Value::Object(map) => {
            if let Some(name) = map
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix(pointer_prefix))
            {
                out.push(unescape_pointer(name));
            }
            map.values()
                .for_each(|v| collect_targets(v, pointer_prefix, out));
        }
        Value::Array(items) => items
            .iter()
            .for_each(|v| collect_targets(v, pointer_prefix, out)),
        _ => {}
    }
}

/// How a definition is referred to.
#[derive(Default)]
struct Sites {
    count: usize,
    /// Some reference carries a keyword that is not an annotation.
    with_other_siblings: bool,
}

fn count_sites(schema: &Value, pointer: &str, sites: &mut Sites) {
    match schema {
        Value::Object(map) => {
            if map.get("$ref").and_then(Value::as_str) == Some(pointer) {
                sites.count += 1;
                sites.with_other_siblings |= map
                    .keys()
                    .any(|k| k != "$ref" && !ANNOTATIONS.contains(&k.as_str()));
            }
            map.values().for_each(|v| count_sites(v, pointer, sites));
        }
        Value::Array(items) => items.iter().for_each(|v| count_sites(v, pointer, sites)),
        _ => {}
    }
}

/// Puts `schema` in place of every reference to `pointer`; a reference's own annotations are
/// kept where the definition has none of the same name.
fn replace_sites(value: &mut Value, pointer: &str, schema: &Value) {
    match value {
        Value::Object(map) => {
            if map.get("$ref").and_then(Value::as_str) == Some(pointer) {
                let mut inlined = schema.clone();
                if let Value::Object(target) = &mut inlined {
                    for (key, annotation) in map.iter().filter(|(k, _)| *k != "$ref") {
                        if !target.contains_key(key) {
                            target.insert(key.clone(), annotation.clone());
                        }
                    }
                }
                *value = inlined;
                return;
            }
            map.values_mut()
                .for_each(|v| replace_sites(v, pointer, schema));
        }
        Value::Array(items) => items
            .iter_mut()
            .for_each(|v| replace_sites(v, pointer, schema)),
        _ => {}
    }
}

fn compact_len(value: &Value) -> usize {
    serde_json::to_string(value).map_or(0, |s| s.len())
}

fn escape_pointer(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

fn unescape_pointer(segment: &str) -> String {
    segment.replace("~1", "/").replace("~0", "~")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn inline(root: Value, defs: Value) -> Value {
        let mut root = root;
        let Value::Object(mut defs) = defs else {
            panic!("defs is an object")
        };
        inline_cheap_definitions(&mut root, &mut defs, "#/$defs/");
        if !defs.is_empty() {
            root["$defs"] = Value::Object(defs);
        }
        root
    }

    #[test]
    fn a_definition_used_once_is_written_in_place_with_the_references_annotations() {
        let out = inline(
            json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/A", "description": "the a"}}}),
            json!({"A": {"type": "string", "maxLength": 3}}),
        );
        assert_eq!(
            out,
            json!({"type": "object", "properties": {"a": {"type": "string", "maxLength": 3, "description": "the a"}}})
        );
    }

    #[test]
    fn a_large_definition_used_often_stays_and_a_small_one_does_not() {
        let large = json!({"type": "object", "properties": {"street": {"type": "string"}, "city": {"type": "string"}, "zip": {"type": "string"}}});
        let out = inline(
            json!({"properties": {
                "a": {"$ref": "#/$defs/Address"}, "b": {"$ref": "#/$defs/Address"}, "c": {"$ref": "#/$defs/Address"},
                "x": {"$ref": "#/$defs/Id"}, "y": {"$ref": "#/$defs/Id"}
            }}),
            json!({"Address": large, "Id": {"type": "string"}}),
        );
        assert_eq!(out["properties"]["x"], json!({"type": "string"}));
        assert_eq!(out["properties"]["a"], json!({"$ref": "#/$defs/Address"}));
        assert_eq!(out["$defs"], json!({"Address": large}));
    }

    #[test]
    fn recursive_definitions_and_references_with_other_siblings_stay() {
        let defs = json!({
            "Node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/Node"}}},
            "Name": {"type": "string"}
        });
        let out = inline(
            json!({"properties": {"n": {"$ref": "#/$defs/Node"}, "m": {"$ref": "#/$defs/Name", "minLength": 1}}}),
            defs.clone(),
        );
        assert_eq!(out["$defs"], defs);
    }

    #[test]
    fn mutually_recursive_definitions_stay_and_what_they_use_once_is_inlined() {
        let out = inline(
            json!({"properties": {"a": {"$ref": "#/$defs/A"}}}),
            json!({
                "A": {"type": "object", "properties": {"b": {"$ref": "#/$defs/B"}, "n": {"$ref": "#/$defs/N"}}},
                "B": {"type": "array", "items": {"$ref": "#/$defs/A"}},
                "N": {"type": "number"}
            }),
        );
        assert_eq!(
            out["$defs"],
            json!({
                "A": {"type": "object", "properties": {"b": {"$ref": "#/$defs/B"}, "n": {"type": "number"}}},
                "B": {"type": "array", "items": {"$ref": "#/$defs/A"}}
            })
        );
    }

    #[test]
    fn nested_definitions_are_inlined_leaves_first() {
        let out = inline(
            json!({"properties": {"o": {"$ref": "#/$defs/Outer"}}}),
            json!({
                "Outer": {"type": "object", "properties": {"i": {"$ref": "#/$defs/Inner"}}},
                "Inner": {"type": "integer"}
            }),
        );
        assert_eq!(
            out,
            json!({"properties": {"o": {"type": "object", "properties": {"i": {"type": "integer"}}}}})
        );
    }

    #[test]
    fn escaped_names_are_matched() {
        let out = inline(
            json!({"properties": {"a": {"$ref": "#/$defs/a~1b~0c"}}}),
            json!({"a/b~c": {"type": "boolean"}}),
        );
        assert_eq!(out, json!({"properties": {"a": {"type": "boolean"}}}));
    }
}
