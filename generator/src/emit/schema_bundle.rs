//! Self-contained JSON Schemas for descriptors: the params and result schemas of a method with
//! every `$ref` into the document's named schemas moved into `$defs` (2020-12) or
//! `definitions` (draft-07), so a client can read `inputSchema` and `outputSchema` alone.

use indexmap::IndexMap;
use serde_json::{Map, Value};

use super::inline_defs::inline_cheap_definitions;
use crate::names::Scope;
use crate::openrpc::{Document, NamedSchema};

/// The JSON Schema dialect a protocol revision expects in descriptors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// Draft-07, implicit (2025-03-26, 2025-06-18): definitions under `definitions`.
    Draft07,
    /// 2020-12, declared with `$schema` (2025-11-25 on): definitions under `$defs`.
    Draft2020_12,
}

impl Dialect {
    fn defs_key(self) -> &'static str {
        match self {
            Dialect::Draft07 => "definitions",
            Dialect::Draft2020_12 => "$defs",
        }
    }
}

/// The `$schema` URI of JSON Schema 2020-12.
pub const SCHEMA_2020_12: &str = "https://json-schema.org/draft/2020-12/schema";

/// Builds self-contained schemas out of a document's schemas, one root at a time.
pub struct Bundler<'d> {
    registry: &'d IndexMap<String, NamedSchema>,
    dialect: Dialect,
    /// Registry key -> definition name, in first-use order.
    used: IndexMap<String, String>,
    names: Scope,
    /// Publish `oneOf` as written; else as `anyOf` ([`Bundler::strict_unions`]).
    strict_unions: bool,
}

impl<'d> Bundler<'d> {
    /// A bundler over `document`'s named schemas for `dialect`.
    pub fn new(document: &'d Document, dialect: Dialect) -> Self {
        Self {
            registry: &document.schemas,
            dialect,
            used: IndexMap::new(),
            names: Scope::new(),
            strict_unions: false,
        }
    }

    /// Publishes a `oneOf` as written when `strict`; by default as `anyOf`, which is what the
    /// generated code does with it (the first alternative that accepts a value), so that a
    /// client checking a value against the published schema agrees with the server.
    pub fn strict_unions(mut self, strict: bool) -> Self {
        self.strict_unions = strict;
        self
    }

    /// Follows `$ref`s at the root of `schema` until a schema that is not a bare reference, so a
    /// root keeps its `type: "object"` visible (clients check it there).
    pub fn resolve_root(&self, schema: &Value) -> Value {
        let mut current = schema;
        for _ in 0..64 {
            let Some(key) = bare_ref(current) else { break };
            match self.registry.get(key) {
                Some(named) => current = &named.schema,
                None => break,
            }
        }
        current.clone()
    }

    /// Rewrites every `$ref` in `schema` to the bundle's definitions, recording what is used,
    /// and writes a `type` array in its portable form, the same schema which function-calling
    /// dialects such as Gemini's accept: one element as that type (`["object"]` as
    /// `"object"`), several as an `anyOf` of one type each ([`split_type_array`]); and a
    /// `oneOf` as `anyOf` unless [`Bundler::strict_unions`]. Values that are data, not schemas
    /// (`const`, `enum`, `default`, `examples`), are kept as written.
    pub fn rewrite(&mut self, schema: &Value) -> Value {
        match schema {
            Value::Object(map) => {
                let mut out = Map::with_capacity(map.len());
                for (key, value) in map {
                    match (key.as_str(), value) {
                        ("$ref", Value::String(target)) => {
                            out.insert(key.clone(), Value::String(self.reference(target)));
                        }
                        // An array: the keyword (a property named `oneOf` is an object).
                        ("oneOf", Value::Array(_))
                            if !self.strict_unions && !map.contains_key("anyOf") =>
                        {
                            out.insert("anyOf".into(), self.rewrite(value));
                        }
                        ("type", Value::Array(types))
                            if types.len() == 1 && types[0].is_string() =>
                        {
                            out.insert(key.clone(), types[0].clone());
                        }
                        ("const" | "enum" | "default" | "examples" | "example", _) => {
                            out.insert(key.clone(), value.clone());
                        }
                        _ => {
                            out.insert(key.clone(), self.rewrite(value));
                        }
                    }
                }
                split_type_array(&mut out);
                Value::Object(out)
            }
            Value::Array(items) => Value::Array(items.iter().map(|v| self.rewrite(v)).collect()),
            other => other.clone(),
        }
    }

    /// Adds the collected definitions (and `$schema` for 2020-12) to `root`, transitively, then
    /// writes in place those whose inline copies are smaller ([`inline_cheap_definitions`]).
    pub fn finish(mut self, mut root: Value) -> Value {
        let mut defs = Map::new();
        let mut done = 0;
        while done < self.used.len() {
            let (key, name) = self
                .used
                .get_index(done)
                .map(|(k, n)| (k.clone(), n.clone()))
                .expect("index in range");
            done += 1;
            let schema = self
                .registry
                .get(&key)
                .map(|n| n.schema.clone())
                .unwrap_or(Value::Bool(true));
            let rewritten = self.rewrite(&schema);
            defs.insert(name, rewritten);
        }
        let pointer_prefix = format!("#/{}/", self.dialect.defs_key());
        inline_cheap_definitions(&mut root, &mut defs, &pointer_prefix);
        if let Value::Object(map) = &mut root {
            if self.dialect == Dialect::Draft2020_12 {
                map.shift_insert(0, "$schema".into(), Value::String(SCHEMA_2020_12.into()));
            }
            if !defs.is_empty() {
                map.insert(self.dialect.defs_key().into(), Value::Object(defs));
            }
        }
        root
    }

    fn reference(&mut self, target: &str) -> String {
        let name = match self.used.get(target) {
            Some(name) => name.clone(),
            None => {
                let base = self
                    .registry
                    .get(target)
                    .map_or("Unresolved", |n| n.name.as_str());
                let name = self.names.unique_ident(base);
                self.used.insert(target.to_string(), name.clone());
                name
            }
        };
        format!("#/{}/{}", self.dialect.defs_key(), escape_pointer(&name))
    }
}

/// The target of a schema that is only `{"$ref": ...}` (siblings such as `description` allowed).
fn bare_ref(schema: &Value) -> Option<&str> {
    let map = schema.as_object()?;
    let target = map.get("$ref")?.as_str()?;
    let only_annotations = map
        .keys()
        .all(|k| matches!(k.as_str(), "$ref" | "description" | "title"));
    only_annotations.then_some(target)
}

fn escape_pointer(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

/// Removes `x-mcp-header` annotations (meaningful from 2026-07-28 only).
pub fn strip_header_annotations(schema: &mut Value) {
    match schema {
        Value::Object(map) => {
            map.shift_remove("x-mcp-header");
            map.values_mut().for_each(strip_header_annotations);
        }
        Value::Array(items) => items.iter_mut().for_each(strip_header_annotations),
        _ => {}
    }
}

/// True when values of `schema` (after root references) are JSON objects.
pub fn is_object_schema(schema: &Value) -> bool {
    let Some(map) = schema.as_object() else {
        return false;
    };
    match map.get("type") {
        Some(Value::String(t)) => t == "object",
        Some(_) => false,
        None => {
            map.contains_key("properties")
                && !map.contains_key("oneOf")
                && !map.contains_key("anyOf")
        }
    }
}

/// The keywords that apply to values of one JSON type only (JSON Schema's validation
/// vocabulary, by the type it applies to).
const TYPE_KEYWORDS: &[(&str, &[&str])] = &[
    (
        "array",
        &[
            "items",
            "prefixItems",
            "additionalItems",
            "minItems",
            "maxItems",
            "uniqueItems",
            "contains",
            "minContains",
            "maxContains",
            "unevaluatedItems",
        ],
    ),
    (
        "object",
        &[
            "properties",
            "required",
            "additionalProperties",
            "patternProperties",
            "minProperties",
            "maxProperties",
            "propertyNames",
            "dependentRequired",
            "dependentSchemas",
            "unevaluatedProperties",
        ],
    ),
    (
        "string",
        &[
            "minLength",
            "maxLength",
            "pattern",
            "format",
            "contentEncoding",
            "contentMediaType",
        ],
    ),
    (
        "number",
        &[
            "minimum",
            "maximum",
            "exclusiveMinimum",
            "exclusiveMaximum",
            "multipleOf",
        ],
    ),
    (
        "integer",
        &[
            "minimum",
            "maximum",
            "exclusiveMinimum",
            "exclusiveMaximum",
            "multipleOf",
        ],
    ),
];

/// A schema whose `type` lists several types (`["array", "null"]`, which the MCP Inspector's
/// `--strict` and some function-calling dialects refuse) as the equal `anyOf` of one type
/// each, every type-specific keyword moved into its type's branch; what applies to any value
/// (`description`, `enum`, ...) stays where it is. A schema that has an `anyOf` already keeps
/// its `type` array.
fn split_type_array(schema: &mut Map<String, Value>) {
    let types: Vec<String> = match schema.get("type") {
        Some(Value::Array(types)) if types.len() > 1 && types.iter().all(Value::is_string) => types
            .iter()
            .filter_map(|t| t.as_str().map(str::to_string))
            .collect(),
        _ => return,
    };
    if schema.contains_key("anyOf") {
        return;
    }
    schema.remove("type");
    let branches: Vec<Value> = types
        .iter()
        .map(|ty| {
            let mut branch = Map::new();
            branch.insert("type".into(), Value::String(ty.clone()));
            let keywords = TYPE_KEYWORDS
                .iter()
                .find(|(of, _)| of == ty)
                .map_or(&[][..], |(_, keywords)| *keywords);
            for keyword in keywords {
                if let Some(value) = schema.get(*keyword) {
                    branch.insert((*keyword).to_string(), value.clone());
                }
            }
            Value::Object(branch)
        })
        .collect();
    for (_, keywords) in TYPE_KEYWORDS {
        for keyword in *keywords {
            schema.shift_remove(*keyword);
        }
    }
    schema.insert("anyOf".into(), Value::Array(branches));
}
