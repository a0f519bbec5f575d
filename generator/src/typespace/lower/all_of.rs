//! Raw-schema resolution: following `$ref`s to registered schemas and merging `allOf`.

use super::MAX_RESOLVE_DEPTH;
use crate::typespace::TypeSpace;
use serde_json::{Map, Value};

impl TypeSpace {
    /// Follows `$ref` to registered schemas and merges `allOf`, on the raw schema.
    ///
    /// Each registered schema is resolved once and remembered: `allOf: [A, A]` where `A` is
    /// `allOf: [B, B]`, and so on, would otherwise merge `2^depth` copies. A schema met again
    /// while it is being resolved (a cycle) stays a `$ref`.
    pub(crate) fn resolve_raw(&mut self, schema: &Value, depth: usize) -> Value {
        if depth > MAX_RESOLVE_DEPTH {
            return schema.clone();
        }
        if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
            if let Some(resolved) = self.resolved.get(reference) {
                return resolved.clone();
            }
            if let Some((_, raw)) = self.refs.get(reference) {
                if !self.resolving.insert(reference.to_string()) {
                    return schema.clone();
                }
                let raw = raw.clone();
                let resolved = self.resolve_raw(&raw, depth + 1);
                self.resolving.remove(reference);
                self.resolved
                    .insert(reference.to_string(), resolved.clone());
                return resolved;
            }
        }
        if schema.get("allOf").is_some() {
            return self.merge_all_of(schema, depth + 1);
        }
        schema.clone()
    }

    /// Merges `allOf` members (through `$ref`) and the schema's own keywords into one schema:
    /// properties and `required` are unioned; the schema's own annotations win.
    pub(super) fn merge_all_of(&mut self, schema: &Value, depth: usize) -> Value {
        let mut out = Map::new();
        let mut properties = Map::new();
        let mut required: Vec<Value> = Vec::new();
        let mut absorb = |source: &Value, out: &mut Map<String, Value>| {
            let Some(source) = source.as_object() else {
                return;
            };
            for (key, value) in source {
                match key.as_str() {
                    "allOf" => {}
                    "properties" => {
                        for (name, property) in value.as_object().into_iter().flatten() {
                            properties.insert(name.clone(), property.clone());
                        }
                    }
                    "required" => {
                        for name in value.as_array().into_iter().flatten() {
                            if !required.contains(name) {
                                required.push(name.clone());
                            }
                        }
                    }
                    _ => {
                        out.insert(key.clone(), value.clone());
                    }
                }
            }
        };
        for member in schema
            .get("allOf")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let mut member = self.resolve_raw(member, depth + 1);
            // A `$ref` still there is a cycle back into a schema being merged: it adds nothing
            // that is not merged already, and kept it would make the result an alias of itself.
            if let Some(map) = member.as_object_mut() {
                if map
                    .get("$ref")
                    .and_then(Value::as_str)
                    .is_some_and(|r| self.refs.contains_key(r))
                {
                    map.shift_remove("$ref");
                }
            }
            absorb(&member, &mut out);
        }
        absorb(schema, &mut out);
        if !properties.is_empty() {
            out.insert("properties".into(), Value::Object(properties));
        }
        if !required.is_empty() {
            out.insert("required".into(), Value::Array(required));
        }
        Value::Object(out)
    }
}
