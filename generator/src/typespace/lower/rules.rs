//! The rules serde does not check (`minimum`, `maxLength`, `pattern`, `format`, `minItems`,
//! `uniqueItems`, `minProperties`, non-string `const` and `enum`, ...), read from the schema
//! into the IR for the generated validation. Each is kept only on the type it applies to.

use crate::typespace::ir::{Body, Builtin, Rule, TypeKind};
use crate::typespace::{TypeId, TypeSpace};
use serde_json::Value;

/// The formats `mcp_runtime::validate::formats` checks; any other `format` is an annotation.
pub(crate) const CHECKED_FORMATS: [&str; 9] = [
    "date-time",
    "date",
    "time",
    "uuid",
    "email",
    "hostname",
    "uri",
    "ipv4",
    "ipv6",
];

/// What a type is, for the rules that apply to it.
enum Shape {
    Number,
    String,
    Array,
    Object,
    Any,
    /// Nothing to add: serde checks it all (string enums, unions, options).
    Checked,
}

impl TypeSpace {
    /// Keeps the rules of `schema` that apply to `id`, the type it lowered to. A schema that
    /// only composes others (`$ref`, `allOf`, `oneOf`, `anyOf`, several types) has its rules
    /// read where its members are lowered, not here.
    pub(super) fn attach_rules(&mut self, schema: &Value, id: TypeId) {
        let Some(obj) = schema.as_object() else {
            return;
        };
        let composed = ["$ref", "allOf", "oneOf", "anyOf"]
            .iter()
            .any(|k| obj.contains_key(*k))
            || matches!(obj.get("type"), Some(Value::Array(_)));
        if composed || self.rules.contains_key(&id) {
            return;
        }
        let mut rules = Vec::new();
        let count = |key: &str| obj.get(key).and_then(Value::as_u64);
        let number = |key: &str| {
            obj.get(key)
                .and_then(Value::as_f64)
                .filter(|f| f.is_finite())
        };
        match self.shape(id) {
            Shape::Number => {
                // Draft 4 says `exclusiveMinimum: true` beside `minimum`; later drafts give the
                // bound itself.
                let exclusive_flag = |key: &str| obj.get(key) == Some(&Value::Bool(true));
                if let Some(bound) = number("minimum") {
                    let exclusive = exclusive_flag("exclusiveMinimum");
                    rules.push(Rule::Minimum { bound, exclusive });
                }
                if let Some(bound) = number("exclusiveMinimum") {
                    rules.push(Rule::Minimum {
                        bound,
                        exclusive: true,
                    });
                }
                if let Some(bound) = number("maximum") {
                    let exclusive = exclusive_flag("exclusiveMaximum");
                    rules.push(Rule::Maximum { bound, exclusive });
                }
                if let Some(bound) = number("exclusiveMaximum") {
                    rules.push(Rule::Maximum {
                        bound,
                        exclusive: true,
                    });
                }
                if let Some(factor) = number("multipleOf").filter(|f| *f > 0.0) {
                    rules.push(Rule::MultipleOf(factor));
                }
            }
            Shape::String => {
                if let Some(n) = count("minLength").filter(|n| *n > 0) {
                    rules.push(Rule::MinLength(n));
                }
                if let Some(n) = count("maxLength") {
                    rules.push(Rule::MaxLength(n));
                }
                // A pattern the `regex` crate does not compile (lookaround, backreferences) is
                // not enforced: the generated code must never fail to compile one.
                if let Some(pattern) = obj.get("pattern").and_then(Value::as_str) {
                    if regex::Regex::new(pattern).is_ok() {
                        rules.push(Rule::Pattern(pattern.to_string()));
                    }
                }
                if let Some(format) = obj.get("format").and_then(Value::as_str) {
                    if CHECKED_FORMATS.contains(&format) {
                        rules.push(Rule::Format(format.to_string()));
                    }
                }
            }
            Shape::Array => {
                if let Some(n) = count("minItems").filter(|n| *n > 0) {
                    rules.push(Rule::MinItems(n));
                }
                if let Some(n) = count("maxItems") {
                    rules.push(Rule::MaxItems(n));
                }
                if obj.get("uniqueItems") == Some(&Value::Bool(true)) {
                    rules.push(Rule::UniqueItems);
                }
            }
            Shape::Object => {
                if let Some(n) = count("minProperties").filter(|n| *n > 0) {
                    rules.push(Rule::MinProperties(n));
                }
                if let Some(n) = count("maxProperties") {
                    rules.push(Rule::MaxProperties(n));
                }
            }
            Shape::Any => {
                if let Some(Value::Array(values)) = obj.get("enum") {
                    rules.push(Rule::Enum(values.clone()));
                } else if let Some(value) = obj.get("const") {
                    rules.push(Rule::Const(value.clone()));
                }
            }
            Shape::Checked => {}
        }
        if !rules.is_empty() {
            self.rules.insert(id, rules);
        }
    }

    /// What `id` is, through aliases.
    fn shape(&self, mut id: TypeId) -> Shape {
        for depth in 0..super::MAX_RESOLVE_DEPTH {
            match &self.types[id.0] {
                TypeKind::Builtin(Builtin::String) => return Shape::String,
                TypeKind::Builtin(Builtin::Value) => return Shape::Any,
                TypeKind::Builtin(Builtin::Bool) => return Shape::Checked,
                TypeKind::Builtin(_) => return Shape::Number,
                TypeKind::Vec(_) => return Shape::Array,
                TypeKind::Map(_) => return Shape::Object,
                TypeKind::Option(_) => return Shape::Checked,
                TypeKind::Named(named) => match &named.body {
                    Body::Alias(target) => id = *target,
                    // A struct's members are counted in its own impl, not through an alias.
                    Body::Struct(_) if depth == 0 => return Shape::Object,
                    _ => return Shape::Checked,
                },
            }
        }
        Shape::Checked
    }
}
