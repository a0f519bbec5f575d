//! Unions: `oneOf`/`anyOf` and multi-valued `type`, as options, tagged or untagged enums.

use super::{doc_lines, Target};
use crate::names::{camel_ident, Scope};
use crate::typespace::discriminator::{find_discriminator, Discriminator};
use crate::typespace::ir::{
    Body, Builtin, TaggedDef, TaggedVariant, TypeKind, UntaggedVariant, VariantFields,
};
use crate::typespace::{TypeId, TypeSpace};
use serde_json::{json, Map, Value};

impl TypeSpace {
    /// `type: [A, B, ...]`: `null` makes it an `Option`, several others an untagged enum.
    pub(super) fn lower_multi_type(
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
    /// anything else is an untagged enum. `properties` and `required` beside the keyword are
    /// members of every variant, merged into each as by `allOf`.
    pub(super) fn lower_union(
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
        let common = common_members(schema);
        let rest: Vec<&Value> = members.iter().filter(|m| !is_null(m)).collect();
        let merged: Vec<Value> = rest
            .iter()
            .map(|m| match &common {
                Some(common) => json!({"allOf": [common, m]}),
                None => (*m).clone(),
            })
            .collect();
        let inner_hint = format!("{}Value", self.hint_of(target));
        let inner = match merged.as_slice() {
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
                // A variant keeps its `$ref`'s struct only when nothing is merged into it.
                let named: Vec<&Value> = match common {
                    Some(_) => several.iter().collect(),
                    None => rest.clone(),
                };
                let body = match find_discriminator(&resolved) {
                    Some(discriminator) => {
                        self.lower_tagged(&name, &named, &resolved, discriminator)
                    }
                    None => {
                        let body = self.lower_untagged(&name, &rest, several);
                        let keyword = if schema.get("oneOf").is_some() {
                            "oneOf"
                        } else {
                            "anyOf"
                        };
                        let registered = self.registered_key();
                        self.overlap_queue.push((id, keyword, registered));
                        body
                    }
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

    /// Newtype variants named after `members` (a `$ref` gives its type's name), lowered from
    /// `lowered` (the members with the union's common members merged in).
    fn lower_untagged(&mut self, name: &str, members: &[&Value], lowered: &[Value]) -> Body {
        let mut scope = Scope::new();
        let mut variants = Vec::new();
        for (index, (member, schema)) in members.iter().zip(lowered).enumerate() {
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
            let ty = self.lower(schema, Target::Inline(&hint), &mut ignored);
            variants.push(UntaggedVariant {
                name: variant_name,
                ty,
            });
        }
        Body::Untagged(variants)
    }

    /// A union member as the discriminator finder needs it: `$ref`s and `allOf` resolved, at the
    /// top and in each property.
    fn resolve_for_discriminator(&mut self, member: &Value) -> Value {
        let mut resolved = self.resolve_raw(member, 0);
        if let Some(Value::Object(properties)) = resolved.get_mut("properties") {
            for property in properties.values_mut() {
                *property = self.resolve_raw(property, 0);
            }
        }
        resolved
    }
}

/// The members a union's schema gives every variant: its `properties` and `required` (and
/// `type: object`), as a schema to merge into each; `None` when it has none.
fn common_members(schema: &Value) -> Option<Value> {
    let obj = schema.as_object()?;
    let mut common = Map::new();
    for key in ["properties", "required"] {
        if let Some(value) = obj.get(key) {
            common.insert(key.to_string(), value.clone());
        }
    }
    if common.is_empty() {
        return None;
    }
    if obj.get("type") == Some(&Value::from("object")) {
        common.insert("type".into(), "object".into());
    }
    Some(Value::Object(common))
}
