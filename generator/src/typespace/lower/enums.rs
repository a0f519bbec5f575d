//! String enums: `enum` lists of strings and string `const`s. Other scalars go to
//! [`super::literals`].

use super::{doc_lines, Target};
use crate::names::{camel_ident, Scope};
use crate::typespace::ir::{Body, EnumVariant, StringEnumDef, TypeKind};
use crate::typespace::{TypeId, TypeSpace};
use serde_json::Value;

impl TypeSpace {
    /// `const`: a string becomes a one-variant enum; any other scalar a one-variant literal enum.
    pub(super) fn lower_const(
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
            other => self.lower_literals(schema, std::slice::from_ref(other), true, target, notes),
        }
    }

    pub(super) fn lower_enum(
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
            return self.lower_literals(schema, values, false, target, notes);
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
}
