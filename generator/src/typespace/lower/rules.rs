//! The rules serde does not check (`minimum`, `maxLength`, `pattern`, `format`, `minItems`,
//! `uniqueItems`, `minProperties`, non-string `const` and `enum`, ...), read from the schema
//! into the IR for the generated validation. Each is kept only on the type it applies to.

use crate::typespace::ir::{Applied, Body, Builtin, Rule, Sub, TypeKind};
use crate::typespace::{TypeId, TypeSpace, RULE_SCHEMA_NOT_ENFORCED};
use serde_json::{Map, Value};

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
        if !matches!(self.shape(id), Shape::Checked) {
            self.applicator_rules(obj, id, &mut rules);
        }
        if !rules.is_empty() {
            self.rules.insert(id, rules);
        }
    }

    /// `not`, `if`/`then`/`else` and several `patternProperties`, when their sub-schemas are
    /// within [`Sub`]; otherwise a [`RULE_SCHEMA_NOT_ENFORCED`] warning names what is not.
    fn applicator_rules(&mut self, obj: &Map<String, Value>, id: TypeId, rules: &mut Vec<Rule>) {
        let owner = match self.type_name(id) {
            Some(name) => format!("type `{name}`"),
            None => "a schema".to_string(),
        };
        let mut unenforced = Vec::new();
        if let Some(schema) = obj.get("not") {
            match applied(schema) {
                Ok(sub) => rules.push(Rule::Not(sub)),
                Err(keyword) => unenforced.push(format!("`not` (it uses `{keyword}`)")),
            }
        }
        if let Some(when) = obj.get("if") {
            let branch = |key: &str| obj.get(key).map(applied).transpose();
            match (applied(when), branch("then"), branch("else")) {
                (_, Ok(None), Ok(None)) => {}
                (Ok(when), Ok(then), Ok(otherwise)) => rules.push(Rule::Conditional {
                    when,
                    then,
                    otherwise,
                }),
                (Err(keyword), _, _) | (_, Err(keyword), _) | (_, _, Err(keyword)) => {
                    unenforced.push(format!("`if`/`then`/`else` (it uses `{keyword}`)"))
                }
            }
        }
        if let Some(patterns) = obj.get("patternProperties").and_then(Value::as_object) {
            // One pattern types the map's values already (`lower_object`); several leave them
            // `Value`, checked here.
            if patterns.len() > 1 {
                let mut checked = Vec::new();
                for (pattern, schema) in patterns {
                    if regex::Regex::new(pattern).is_err() {
                        unenforced.push(format!(
                            "`patternProperties` {pattern:?} (the regex crate does not compile it)"
                        ));
                        continue;
                    }
                    match applied(schema) {
                        Ok(sub) => checked.push((pattern.clone(), sub)),
                        Err(keyword) => unenforced.push(format!(
                            "`patternProperties` {pattern:?} (it uses `{keyword}`)"
                        )),
                    }
                }
                if !checked.is_empty() {
                    rules.push(Rule::PatternProperties(checked));
                }
            }
        }
        for what in unenforced {
            self.warn(
                RULE_SCHEMA_NOT_ENFORCED,
                format!(
                    "{what} of {owner} is published in the schema but not enforced: the generated checks evaluate only `type`, `const`, `enum`, `required` and `properties` made of those"
                ),
            );
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

/// How long the sub-schema a violation message quotes may be before it is cut.
const QUOTED_SCHEMA: usize = 80;

/// A sub-schema as a check, or the first keyword outside [`Sub`].
fn applied(schema: &Value) -> Result<Applied, String> {
    let check = sub(schema)?;
    let mut text = schema.to_string();
    if text.chars().count() > QUOTED_SCHEMA {
        text = text.chars().take(QUOTED_SCHEMA - 1).collect::<String>() + "…";
    }
    Ok(Applied { check, text })
}

/// The check of a sub-schema made of `type`, `const`, `enum`, `required` and `properties`
/// (each member itself such a sub-schema), annotations aside; otherwise the first other keyword.
fn sub(schema: &Value) -> Result<Sub, String> {
    let obj = match schema {
        Value::Bool(true) => return Ok(Sub::Any),
        Value::Bool(false) => return Ok(Sub::Nothing),
        Value::Object(obj) => obj,
        _ => return Err("a schema that is not an object".to_string()),
    };
    let mut all = Vec::new();
    for (key, value) in obj {
        match (key.as_str(), value) {
            ("type", Value::String(name)) => all.push(Sub::Type(vec![name.clone()])),
            ("type", Value::Array(names)) => all.push(Sub::Type(
                names
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect(),
            )),
            ("const", value) => all.push(Sub::Const(value.clone())),
            ("enum", Value::Array(values)) => all.push(Sub::Enum(values.clone())),
            ("required", Value::Array(names)) => all.push(Sub::Required(
                names
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect(),
            )),
            ("properties", Value::Object(members)) => {
                for (name, member) in members {
                    all.push(Sub::Property(name.clone(), Box::new(sub(member)?)));
                }
            }
            (key, _) if super::is_annotation(key) => {}
            (key, _) => return Err(key.to_string()),
        }
    }
    Ok(match all.len() {
        0 => Sub::Any,
        1 => all.remove(0),
        _ => Sub::All(all),
    })
}
