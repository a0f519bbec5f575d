//! Schema to IR: every lowering rule lives in this module and its children.

mod all_of;
mod entries;
mod enums;
mod literals;
mod nullable;
mod objects;
mod rules;
mod tuples;
mod unions;

use super::ir::{Body, Builtin, TypeKind};
use super::{TypeId, TypeSpace};
use crate::schema_walk;
use serde_json::{Map, Value};

/// Where the result of a lowering goes.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Target<'a> {
    /// Into this registered type (it becomes an alias when the schema lowers to an unnamed type).
    Registered(TypeId),
    /// Anywhere; a named type it needs is called after this hint.
    Inline(&'a str),
}

/// How deep `$ref`/`allOf` chains are followed before giving up (guards against cycles).
const MAX_RESOLVE_DEPTH: usize = 32;

impl TypeSpace {
    /// Lowers a registered schema into its reserved entry.
    pub(crate) fn lower_registered(&mut self, id: TypeId, schema: &Value) {
        self.set_body(id, Vec::new(), Body::Untagged(Vec::new()));
        let mut notes = Vec::new();
        self.lowering = Some(id);
        self.lower(schema, Target::Registered(id), &mut notes);
        self.lowering = None;
        if let TypeKind::Named(named) = &mut self.types[id.0] {
            if named.docs.is_empty() {
                named.docs = doc_lines(schema, &notes);
            }
        }
    }

    /// Lowers `schema`; `notes` collects remarks (e.g. why a schema became `Value`) for the doc
    /// comment of whatever uses the result. Within the type space's budget: past it, every
    /// schema is `Value`, and [`TypeSpace::budget_exceeded`] says why.
    pub(crate) fn lower(
        &mut self,
        schema: &Value,
        target: Target,
        notes: &mut Vec<String>,
    ) -> TypeId {
        if !self.budget.enter() {
            notes.push("Not lowered: the document exceeds the generator's budget.".to_string());
            return self.unnamed(target, Builtin::Value, schema, notes);
        }
        let id = self.lower_within_budget(schema, target, notes);
        self.attach_rules(schema, id);
        self.budget.leave();
        id
    }

    fn lower_within_budget(
        &mut self,
        schema: &Value,
        target: Target,
        notes: &mut Vec<String>,
    ) -> TypeId {
        let obj = match schema {
            Value::Object(obj) => obj,
            Value::Bool(true) => return self.unnamed(target, Builtin::Value, schema, notes),
            other => {
                notes.push(format!(
                    "The schema `{other}` admits no value; any JSON value is accepted."
                ));
                return self.unnamed(target, Builtin::Value, schema, notes);
            }
        };
        if let Some(reference) = obj.get("$ref").and_then(Value::as_str) {
            return self.lower_ref(schema, reference, target, notes);
        }
        if obj.get("nullable") == Some(&Value::Bool(true)) {
            return self.lower_nullable(schema, target, notes);
        }
        if let Some(members) = obj.get("allOf").and_then(Value::as_array) {
            let own_shape = obj.keys().any(|k| !is_annotation(k) && k != "allOf");
            if let ([single], false) = (members.as_slice(), own_shape) {
                return self.lower(single, target, notes);
            }
            let merged = self.merge_all_of(schema, 0);
            return self.lower(&merged, target, notes);
        }
        for keyword in ["oneOf", "anyOf"] {
            if let Some(members) = obj.get(keyword).and_then(Value::as_array) {
                return self.lower_union(schema, members, target, notes);
            }
        }
        if let Some(values) = obj.get("enum").and_then(Value::as_array) {
            return self.lower_enum(schema, values, target, notes);
        }
        if let Some(value) = obj.get("const") {
            return self.lower_const(schema, value, target, notes);
        }
        match obj.get("type") {
            Some(Value::Array(types)) => self.lower_multi_type(schema, types, target, notes),
            Some(Value::String(ty)) => self.lower_typed(schema, ty, target, notes),
            Some(other) => {
                notes.push(format!(
                    "`type: {other}` is not a JSON Schema type; any JSON value is accepted."
                ));
                self.unnamed(target, Builtin::Value, schema, notes)
            }
            None => match implied_type(obj) {
                Some(ty) => self.lower_typed(schema, ty, target, notes),
                None => {
                    if let Some(keyword) = schema_walk::first_untypeable(obj) {
                        notes.push(format!(
                            "The schema uses `{keyword}`, which has no Rust type; any JSON value is accepted."
                        ));
                    }
                    self.unnamed(target, Builtin::Value, schema, notes)
                }
            },
        }
    }

    /// `$ref` to a registered schema: an alias of its type (or the type itself inline).
    fn lower_ref(
        &mut self,
        schema: &Value,
        reference: &str,
        target: Target,
        notes: &mut Vec<String>,
    ) -> TypeId {
        match self.refs.get(reference) {
            Some((id, _)) => {
                let id = *id;
                self.alias_or(target, id, schema, notes)
            }
            None => {
                notes.push(format!(
                    "`$ref` `{reference}` does not resolve to a known schema, so any JSON value is accepted."
                ));
                self.unnamed(target, Builtin::Value, schema, notes)
            }
        }
    }

    /// `type: "<ty>"` with no composition keywords.
    fn lower_typed(
        &mut self,
        schema: &Value,
        ty: &str,
        target: Target,
        notes: &mut Vec<String>,
    ) -> TypeId {
        let builtin = match ty {
            "object" => return self.lower_object(schema, target, notes),
            "array" => return self.lower_array(schema, target, notes),
            "string" => Builtin::String,
            "boolean" => Builtin::Bool,
            "number" => Builtin::F64,
            "integer" => match schema.get("format").and_then(Value::as_str) {
                Some("int8") => Builtin::I8,
                Some("int16") => Builtin::I16,
                Some("int32") => Builtin::I32,
                Some("uint8") => Builtin::U8,
                Some("uint16") => Builtin::U16,
                Some("uint32") => Builtin::U32,
                Some("uint64" | "uint") => Builtin::U64,
                _ => Builtin::I64,
            },
            // A literal enum that accepts only `null`, so that a `oneOf` of it and another type
            // tells them apart (as `Value` it would accept everything).
            "null" => return self.lower_const(schema, &Value::Null, target, notes),
            other => {
                notes.push(format!(
                    "`type: {other:?}` is not a JSON Schema type; any JSON value is accepted."
                ));
                Builtin::Value
            }
        };
        self.unnamed(target, builtin, schema, notes)
    }

    fn lower_array(&mut self, schema: &Value, target: Target, notes: &mut Vec<String>) -> TypeId {
        let hint = format!("{}Item", self.hint_of(target));
        let element = match (schema.get("items"), schema.get("prefixItems")) {
            (items, Some(Value::Array(prefix))) => {
                return self.lower_tuple(schema, prefix, items, target, notes)
            }
            (Some(Value::Array(prefix)), _) => {
                let rest = schema.get("additionalItems");
                return self.lower_tuple(schema, prefix, rest, target, notes);
            }
            (_, Some(_)) => {
                notes
                    .push("`prefixItems` is not an array; any JSON value is accepted.".to_string());
                return self.unnamed(target, Builtin::Value, schema, notes);
            }
            (Some(items), None) => {
                let mut item_notes = Vec::new();
                self.lower(items, Target::Inline(&hint), &mut item_notes)
            }
            (None, None) => self.builtin(Builtin::Value),
        };
        let id = self.push(TypeKind::Vec(element));
        self.alias_or(target, id, schema, notes)
    }
}

/// The type a schema without `type` still has: `object` when it constrains properties, `array`
/// when it constrains items.
fn implied_type(schema: &Map<String, Value>) -> Option<&'static str> {
    const OBJECT: [&str; 4] = [
        "properties",
        "additionalProperties",
        "patternProperties",
        "required",
    ];
    if OBJECT.iter().any(|k| schema.contains_key(*k)) {
        Some("object")
    } else if schema.contains_key("items") || schema.contains_key("prefixItems") {
        Some("array")
    } else {
        None
    }
}

/// Keywords that document a schema without changing its shape.
fn is_annotation(key: &str) -> bool {
    matches!(
        key,
        "description"
            | "title"
            | "default"
            | "examples"
            | "deprecated"
            | "readOnly"
            | "writeOnly"
            | "$comment"
    )
}

/// Doc lines from `title` and `description`, then the lowering notes.
pub(crate) fn doc_lines(schema: &Value, notes: &[String]) -> Vec<String> {
    let mut paragraphs: Vec<&str> = Vec::new();
    for key in ["title", "description"] {
        if let Some(text) = schema.get(key).and_then(Value::as_str).map(str::trim) {
            if !text.is_empty() && !paragraphs.contains(&text) {
                paragraphs.push(text);
            }
        }
    }
    paragraphs.extend(notes.iter().map(String::as_str));
    let mut lines = Vec::new();
    for paragraph in paragraphs {
        if !lines.is_empty() {
            lines.push(String::new());
        }
        lines.extend(paragraph.lines().map(|l| l.trim_end().to_string()));
    }
    lines
}
