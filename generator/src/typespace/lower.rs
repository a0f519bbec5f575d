//! Schema to IR: every lowering rule lives here.

use super::discriminator::{find_discriminator, Discriminator};
use super::ir::{
    Body, Builtin, EnumVariant, Field, Named, Presence, StringEnumDef, StructDef, TaggedDef,
    TaggedVariant, TypeKind, UntaggedVariant, VariantFields,
};
use super::{TypeId, TypeSpace};
use crate::names::{camel_ident, snake_ident, Scope};
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
    /// comment of whatever uses the result.
    pub(crate) fn lower(
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

    /// `const`: a string becomes a one-variant enum; any other constant stays a JSON value.
    fn lower_const(
        &mut self,
        schema: &Value,
        value: &Value,
        target: Target,
        notes: &mut Vec<String>,
    ) -> TypeId {
        match value {
            Value::String(s) => {
                let def = StringEnumDef {
                    variants: vec![EnumVariant {
                        name: camel_ident(s),
                        wire: s.clone(),
                    }],
                    is_const: true,
                };
                let (id, _) = self.reserve(target);
                self.set_body(id, doc_lines(schema, notes), Body::StringEnum(def));
                id
            }
            other => {
                notes.push(format!(
                    "Always `{other}` (a non-string constant, kept as a JSON value)."
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
            "null" => {
                notes.push("Always `null`.".to_string());
                Builtin::Value
            }
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
            (_, Some(_)) | (Some(Value::Array(_)), _) => {
                notes.push("A tuple (positional `items`), kept as a JSON value.".to_string());
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

    fn lower_object(&mut self, schema: &Value, target: Target, notes: &mut Vec<String>) -> TypeId {
        let has_properties = schema
            .get("properties")
            .and_then(Value::as_object)
            .is_some_and(|p| !p.is_empty());
        let closed = schema.get("additionalProperties") == Some(&Value::Bool(false));
        if !has_properties && !closed {
            let hint = format!("{}Value", self.hint_of(target));
            let value = self.extra_value_type(schema, &hint);
            let id = self.push(TypeKind::Map(value));
            return self.alias_or(target, id, schema, notes);
        }
        let (id, name) = self.reserve(target);
        let def = self.lower_struct_fields(schema, &name, None);
        self.set_body(id, doc_lines(schema, notes), Body::Struct(def));
        id
    }

    /// The value type of the properties an object does not name, `Value` when unconstrained.
    fn extra_value_type(&mut self, schema: &Value, hint: &str) -> TypeId {
        let mut ignored = Vec::new();
        if let Some(patterns) = schema.get("patternProperties").and_then(Value::as_object) {
            if let (1, Some(only)) = (patterns.len(), patterns.values().next()) {
                return self.lower(only, Target::Inline(hint), &mut ignored);
            }
            return self.builtin(Builtin::Value);
        }
        match schema.get("additionalProperties") {
            Some(extra @ Value::Object(_)) => self.lower(extra, Target::Inline(hint), &mut ignored),
            _ => self.builtin(Builtin::Value),
        }
    }

    /// The fields of an object schema, in schema order, leaving out `exclude` (a union's tag).
    pub(crate) fn lower_struct_fields(
        &mut self,
        schema: &Value,
        parent: &str,
        exclude: Option<&str>,
    ) -> StructDef {
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let empty = Map::new();
        let properties = schema
            .get("properties")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        let mut scope = Scope::new();
        let mut def = StructDef::default();
        for (wire, property) in properties {
            if Some(wire.as_str()) == exclude {
                continue;
            }
            let name = scope.unique_ident(&snake_ident(wire));
            let hint = format!("{parent}{}", camel_ident(wire));
            let mut notes = Vec::new();
            let mut ty = self.lower(property, Target::Inline(&hint), &mut notes);
            let default = property.get("default").filter(|d| !d.is_null());
            let presence = if required.contains(&wire.as_str()) {
                Presence::Required
            } else if let Some(value) = default {
                if self.is_type_default(ty, value) {
                    Presence::Default
                } else {
                    let base = format!("{}_{}", snake_ident(parent), name.trim_start_matches("r#"));
                    let fn_name = self.default_fns.unique_ident(&base);
                    Presence::DefaultFn {
                        fn_name,
                        value: value.clone(),
                    }
                }
            } else {
                if !matches!(self.types[ty.0], TypeKind::Option(_)) {
                    ty = self.push(TypeKind::Option(ty));
                }
                Presence::Optional
            };
            let docs = doc_lines(property, &notes);
            def.fields.push(Field {
                name,
                wire: wire.clone(),
                ty,
                docs,
                presence,
                flatten: false,
            });
        }
        let additional = schema.get("additionalProperties");
        let patterns = schema
            .get("patternProperties")
            .and_then(Value::as_object)
            .is_some_and(|p| !p.is_empty());
        if patterns || additional.is_some_and(|a| a != &Value::Bool(false)) {
            let value = self.extra_value_type(schema, &format!("{parent}ExtraValue"));
            let ty = self.push(TypeKind::Map(value));
            let name = scope.unique_ident("extra");
            let docs = vec!["Properties not named in the schema.".to_string()];
            def.fields.push(Field {
                name,
                wire: String::new(),
                ty,
                docs,
                presence: Presence::Default,
                flatten: true,
            });
        } else {
            def.deny_unknown_fields = additional == Some(&Value::Bool(false));
        }
        def
    }

    fn lower_enum(
        &mut self,
        schema: &Value,
        values: &[Value],
        target: Target,
        notes: &mut Vec<String>,
    ) -> TypeId {
        let nullable = values.iter().any(Value::is_null);
        let strings: Option<Vec<&str>> = values
            .iter()
            .filter(|v| !v.is_null())
            .map(Value::as_str)
            .collect();
        let Some(strings) = strings.filter(|s| !s.is_empty()) else {
            let listed: Vec<String> = values.iter().map(Value::to_string).collect();
            notes.push(format!(
                "One of `{}` (not all strings, kept as a JSON value).",
                listed.join("`, `")
            ));
            return self.unnamed(target, Builtin::Value, schema, notes);
        };
        let (id, _) = match (nullable, target) {
            (true, _) => self.reserve(Target::Inline(&format!("{}Value", self.hint_of(target)))),
            (false, target) => self.reserve(target),
        };
        let mut scope = Scope::new();
        let mut variants: Vec<EnumVariant> = Vec::new();
        for wire in strings {
            if variants.iter().any(|v| v.wire == wire) {
                continue;
            }
            variants.push(EnumVariant {
                name: scope.unique_ident(&camel_ident(wire)),
                wire: wire.to_string(),
            });
        }
        let def = StringEnumDef {
            variants,
            is_const: false,
        };
        self.set_body(
            id,
            doc_lines(schema, if nullable { &[] } else { notes }),
            Body::StringEnum(def),
        );
        if nullable {
            let option = self.push(TypeKind::Option(id));
            return self.alias_or(target, option, schema, notes);
        }
        id
    }

    /// `type: [A, B, ...]`: `null` makes it an `Option`, several others an untagged enum.
    fn lower_multi_type(
        &mut self,
        schema: &Value,
        types: &[Value],
        target: Target,
        notes: &mut Vec<String>,
    ) -> TypeId {
        let nullable = types.iter().any(|t| t == "null");
        let rest: Vec<&str> = types
            .iter()
            .filter_map(Value::as_str)
            .filter(|t| *t != "null")
            .collect();
        let with_type = |ty: &str| {
            let mut single = schema.as_object().cloned().unwrap_or_default();
            single.insert("type".into(), Value::String(ty.to_string()));
            Value::Object(single)
        };
        let inner_target = |space: &Self| match (nullable, target) {
            (true, _) => format!("{}Value", space.hint_of(target)),
            (false, _) => space.hint_of(target),
        };
        let inner = match rest.as_slice() {
            [] => return self.unnamed(target, Builtin::Value, schema, notes),
            [single] if !nullable => return self.lower(&with_type(single), target, notes),
            [single] => {
                let hint = inner_target(self);
                self.lower(&with_type(single), Target::Inline(&hint), notes)
            }
            several => {
                let hint = inner_target(self);
                let (id, name) = if nullable {
                    self.reserve(Target::Inline(&hint))
                } else {
                    self.reserve(target)
                };
                let mut scope = Scope::new();
                let mut variants = Vec::new();
                for ty in several {
                    let variant = scope.unique_ident(&camel_ident(ty));
                    let mut ignored = Vec::new();
                    let vty = self.lower(
                        &with_type(ty),
                        Target::Inline(&format!("{name}{variant}")),
                        &mut ignored,
                    );
                    variants.push(UntaggedVariant {
                        name: variant,
                        ty: vty,
                    });
                }
                let docs = doc_lines(schema, if nullable { &[] } else { notes });
                self.set_body(id, docs, Body::Untagged(variants));
                if !nullable {
                    return id;
                }
                id
            }
        };
        let option = self.push(TypeKind::Option(inner));
        self.alias_or(target, option, schema, notes)
    }

    /// `oneOf` / `anyOf`: `null` members make an `Option`; a discriminator makes a tagged enum;
    /// anything else is an untagged enum.
    fn lower_union(
        &mut self,
        schema: &Value,
        members: &[Value],
        target: Target,
        notes: &mut Vec<String>,
    ) -> TypeId {
        let is_null = |m: &Value| {
            m.get("type") == Some(&Value::from("null")) || m.get("const") == Some(&Value::Null)
        };
        let nullable = members.iter().any(is_null);
        let rest: Vec<&Value> = members.iter().filter(|m| !is_null(m)).collect();
        let inner_hint = format!("{}Value", self.hint_of(target));
        let inner = match rest.as_slice() {
            [] => return self.unnamed(target, Builtin::Value, schema, notes),
            [single] if !nullable => return self.lower(single, target, notes),
            [single] => self.lower(single, Target::Inline(&inner_hint), notes),
            several => {
                let union_target = if nullable {
                    Target::Inline(&inner_hint)
                } else {
                    target
                };
                let docs = doc_lines(schema, if nullable { &[] } else { notes });
                let resolved: Vec<Value> = several
                    .iter()
                    .map(|m| self.resolve_for_discriminator(m))
                    .collect();
                let (id, name) = self.reserve(union_target);
                let body = match find_discriminator(&resolved) {
                    Some(discriminator) => {
                        self.lower_tagged(&name, several, &resolved, discriminator)
                    }
                    None => self.lower_untagged(&name, several),
                };
                self.set_body(id, docs, body);
                if !nullable {
                    return id;
                }
                id
            }
        };
        let option = self.push(TypeKind::Option(inner));
        self.alias_or(target, option, schema, notes)
    }

    fn lower_tagged(
        &mut self,
        name: &str,
        members: &[&Value],
        resolved: &[Value],
        d: Discriminator,
    ) -> Body {
        let mut scope = Scope::new();
        let mut variants = Vec::new();
        for ((member, resolved), tag_value) in members.iter().zip(resolved).zip(d.values) {
            let referenced = member
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| self.refs.get(r));
            let variant = match referenced {
                Some((id, _)) => {
                    let id = *id;
                    let variant_name = self.type_name(id).unwrap_or("Variant").to_string();
                    TaggedVariant {
                        name: scope.unique_ident(&variant_name),
                        tag_value,
                        docs: Vec::new(),
                        fields: VariantFields::FromStruct(id),
                    }
                }
                None => {
                    let variant_name = scope.unique_ident(&camel_ident(&tag_value));
                    let def = self.lower_struct_fields(
                        resolved,
                        &format!("{name}{variant_name}"),
                        Some(&d.property),
                    );
                    TaggedVariant {
                        name: variant_name,
                        tag_value,
                        docs: doc_lines(resolved, &[]),
                        fields: VariantFields::Inline(def),
                    }
                }
            };
            variants.push(variant);
        }
        Body::Tagged(TaggedDef {
            tag: d.property,
            variants,
        })
    }

    fn lower_untagged(&mut self, name: &str, members: &[&Value]) -> Body {
        let mut scope = Scope::new();
        let mut variants = Vec::new();
        for (index, member) in members.iter().enumerate() {
            let referenced = member
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| self.refs.get(r));
            let variant_name = match referenced {
                Some((id, _)) => self.type_name(*id).unwrap_or("Variant").to_string(),
                None => format!("Variant{index}"),
            };
            let variant_name = scope.unique_ident(&variant_name);
            let mut ignored = Vec::new();
            let hint = format!("{name}Variant{index}");
            let ty = self.lower(member, Target::Inline(&hint), &mut ignored);
            variants.push(UntaggedVariant {
                name: variant_name,
                ty,
            });
        }
        Body::Untagged(variants)
    }

    /// A union member as the discriminator finder needs it: `$ref`s and `allOf` resolved, at the
    /// top and in each property.
    fn resolve_for_discriminator(&self, member: &Value) -> Value {
        let mut resolved = self.resolve_raw(member, 0);
        if let Some(Value::Object(properties)) = resolved.get_mut("properties") {
            for property in properties.values_mut() {
                *property = self.resolve_raw(property, 0);
            }
        }
        resolved
    }

    /// Follows `$ref` to registered schemas and merges `allOf`, on the raw schema.
    pub(crate) fn resolve_raw(&self, schema: &Value, depth: usize) -> Value {
        if depth > MAX_RESOLVE_DEPTH {
            return schema.clone();
        }
        if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
            if let Some((_, raw)) = self.refs.get(reference) {
                return self.resolve_raw(raw, depth + 1);
            }
        }
        if schema.get("allOf").is_some() {
            return self.merge_all_of(schema, depth + 1);
        }
        schema.clone()
    }

    /// Merges `allOf` members (through `$ref`) and the schema's own keywords into one schema:
    /// properties and `required` are unioned; the schema's own annotations win.
    fn merge_all_of(&self, schema: &Value, depth: usize) -> Value {
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
            let member = self.resolve_raw(member, depth + 1);
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

    /// Whether `value` is what `Default::default()` gives for `ty`.
    fn is_type_default(&self, ty: TypeId, value: &Value) -> bool {
        match &self.types[ty.0] {
            TypeKind::Builtin(Builtin::String) => value == "",
            TypeKind::Builtin(Builtin::Bool) => value == false,
            TypeKind::Builtin(Builtin::F64) => value.as_f64() == Some(0.0),
            TypeKind::Builtin(Builtin::Value) => value.is_null(),
            TypeKind::Builtin(_) => value.as_i64() == Some(0) || value.as_u64() == Some(0),
            TypeKind::Vec(_) => value.as_array().is_some_and(Vec::is_empty),
            TypeKind::Map(_) => value.as_object().is_some_and(Map::is_empty),
            TypeKind::Option(_) => value.is_null(),
            TypeKind::Named(_) => false,
        }
    }

    /// The struct a type is, following aliases.
    pub(crate) fn struct_def(&self, mut ty: TypeId) -> Option<&StructDef> {
        for _ in 0..MAX_RESOLVE_DEPTH {
            match &self.named(ty)?.body {
                Body::Struct(def) => return Some(def),
                Body::Alias(target) => ty = *target,
                _ => return None,
            }
        }
        None
    }

    /// A built-in result: into a registered target it becomes an alias.
    fn unnamed(
        &mut self,
        target: Target,
        builtin: Builtin,
        schema: &Value,
        notes: &mut Vec<String>,
    ) -> TypeId {
        let id = self.builtin(builtin);
        self.alias_or(target, id, schema, notes)
    }

    /// `id` itself inline; `pub type Name = id;` for a registered target.
    fn alias_or(
        &mut self,
        target: Target,
        id: TypeId,
        schema: &Value,
        notes: &mut Vec<String>,
    ) -> TypeId {
        match target {
            Target::Inline(_) => id,
            Target::Registered(own) => {
                let docs = doc_lines(schema, notes);
                notes.clear();
                self.set_body(own, docs, Body::Alias(id));
                own
            }
        }
    }

    /// The entry a named result goes into: the registered one, or a new one named after the hint.
    fn reserve(&mut self, target: Target) -> (TypeId, String) {
        match target {
            Target::Registered(id) => (id, self.type_name(id).unwrap_or_default().to_string()),
            Target::Inline(hint) => {
                let name = self.type_names.unique_ident(&camel_ident(hint));
                let body = Body::Untagged(Vec::new());
                let id = self.push(TypeKind::Named(Named {
                    name: name.clone(),
                    docs: Vec::new(),
                    body,
                }));
                if let Some(owner) = self.lowering {
                    self.owners.insert(id, owner);
                }
                (id, name)
            }
        }
    }

    fn set_body(&mut self, id: TypeId, docs: Vec<String>, body: Body) {
        if let TypeKind::Named(named) = &mut self.types[id.0] {
            named.docs = docs;
            named.body = body;
        }
    }

    /// The name sub-types of `target` are called after.
    fn hint_of(&self, target: Target) -> String {
        match target {
            Target::Registered(id) => self.type_name(id).unwrap_or_default().to_string(),
            Target::Inline(hint) => hint.to_string(),
        }
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
