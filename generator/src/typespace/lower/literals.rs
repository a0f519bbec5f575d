//! Literal enums: `enum` lists and `const`s of scalars that are not all strings (integers,
//! numbers, booleans, `null`, mixed with strings or not), each a variant written back exactly.

use super::{doc_lines, Target};
use crate::names::{camel_ident, Scope};
use crate::typespace::ir::{Body, Builtin, LiteralEnumDef, LiteralVariant};
use crate::typespace::{TypeId, TypeSpace};
use serde_json::Value;

impl TypeSpace {
    /// `values` (one for a `const`) as a literal enum; an array or object among them keeps the
    /// schema a JSON value.
    pub(super) fn lower_literals(
        &mut self,
        schema: &Value,
        values: &[Value],
        is_const: bool,
        target: Target,
        notes: &mut Vec<String>,
    ) -> TypeId {
        let listed: Vec<String> = values.iter().map(Value::to_string).collect();
        if values.is_empty() || values.iter().any(|v| v.is_array() || v.is_object()) {
            notes.push(format!(
                "One of `{}` (arrays and objects as values have no Rust enum, kept as a JSON value).",
                listed.join("`, `")
            ));
            return self.unnamed(target, Builtin::Value, schema, notes);
        }
        let mut scope = Scope::new();
        let mut variants: Vec<LiteralVariant> = Vec::new();
        for value in values {
            if variants.iter().any(|v| same_value(&v.value, value)) {
                continue;
            }
            variants.push(LiteralVariant {
                name: scope.unique_ident(&variant_name(value)),
                value: value.clone(),
            });
        }
        let (id, _) = self.reserve(target);
        notes.push(if is_const {
            format!("Always `{}`.", listed.join(""))
        } else {
            format!("One of `{}`.", listed.join("`, `"))
        });
        self.set_body(
            id,
            doc_lines(schema, notes),
            Body::Literal(LiteralEnumDef { variants, is_const }),
        );
        notes.clear();
        id
    }
}

/// JSON Schema's equality of scalars: numbers by value (`1` is `1.0`).
pub(crate) fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_i64(), y.as_i64()) {
            (Some(x), Some(y)) => x == y,
            _ => match (x.as_u64(), y.as_u64()) {
                (Some(x), Some(y)) => x == y,
                _ => x.as_f64() == y.as_f64(),
            },
        },
        _ => a == b,
    }
}

/// A variant's name: `Null`, `True`, `False`, `V5`, `Minus3`, `V1Point5`, or the string's.
fn variant_name(value: &Value) -> String {
    match value {
        Value::Null => "Null".to_string(),
        Value::Bool(true) => "True".to_string(),
        Value::Bool(false) => "False".to_string(),
        Value::Number(n) => {
            let text = n.to_string();
            let (sign, digits) = match text.strip_prefix('-') {
                Some(rest) => ("Minus", rest),
                None => ("V", text.as_str()),
            };
            let digits = digits
                .replace('.', "Point")
                .replace("e+", "E")
                .replace("e-", "EMinus")
                .replace('e', "E");
            format!("{sign}{digits}")
        }
        Value::String(s) => camel_ident(s),
        Value::Array(_) | Value::Object(_) => "Value".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::{same_value, variant_name};
    use serde_json::json;

    #[test]
    fn names_spell_every_scalar() {
        let names: Vec<String> = [
            json!(null),
            json!(true),
            json!(false),
            json!(5),
            json!(-3),
            json!(1.5),
            json!("a-b"),
        ]
        .iter()
        .map(variant_name)
        .collect();
        assert_eq!(
            names,
            ["Null", "True", "False", "V5", "Minus3", "V1Point5", "AB"]
        );
    }

    #[test]
    fn numbers_compare_by_value() {
        assert!(same_value(&json!(1), &json!(1.0)));
        assert!(!same_value(&json!(1), &json!(2)));
        assert!(!same_value(&json!(1), &json!("1")));
        assert!(!same_value(
            &json!(9007199254740993_u64),
            &json!(9007199254740992_u64)
        ));
    }
}
