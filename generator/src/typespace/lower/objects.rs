//! Objects: structs with their fields, and maps for objects that name no properties.

use super::{doc_lines, Target, MAX_RESOLVE_DEPTH};
use crate::names::{camel_ident, snake_ident, Scope};
use crate::typespace::ir::{Body, Builtin, Field, Presence, StructDef, TypeKind};
use crate::typespace::{TypeId, TypeSpace};
use serde_json::{Map, Value};

impl TypeSpace {
    pub(super) fn lower_object(
        &mut self,
        schema: &Value,
        target: Target,
        notes: &mut Vec<String>,
    ) -> TypeId {
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
            let alias = schema
                .get(super::super::ALIASES_KEY)
                .and_then(|aliases| aliases.get(wire))
                .and_then(Value::as_str)
                .map(str::to_string);
            def.fields.push(Field {
                name,
                wire: wire.clone(),
                alias,
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
                alias: None,
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
}
