//! The JSON Schema keywords that hold subschemas, and how each holds them: the one table the
//! loader (rewriting every `$ref`), the validator (finding every `x-mcp-header`) and the type
//! lowering (saying which constraints have no Rust type) read, so a keyword added here is walked
//! and typed alike everywhere.

use serde_json::Value;

use crate::openrpc::json_pos::escape_token;

/// How a keyword holds its subschemas.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Holds {
    /// One schema (`not`, `additionalProperties`).
    Schema,
    /// A list of schemas (`allOf`, 2020-12 `prefixItems`); the single-schema form some drafts
    /// allow (draft-07 `items: {...}`) is walked too.
    SchemaOrList,
    /// A map from names to schemas (`properties`, `$defs`).
    Map,
    /// A map whose members are schemas or something else: draft-07 `dependencies` maps to a
    /// schema or to a list of property names. Only the schemas are walked.
    MapOfSchemasOrOther,
}

/// What type lowering makes of a keyword's constraint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Typing {
    /// Lowering turns it into Rust types (fields, elements, unions).
    Typed,
    /// No Rust type here expresses it: when it decides a schema's shape, lowering falls back to
    /// `Value` and says why in the docs.
    Noted,
    /// Lowering leaves it out without a word (validation detail, or definitions reached through
    /// `$ref` instead).
    Ignored,
}

/// One subschema-bearing keyword.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Keyword {
    /// The keyword as written in a schema.
    pub name: &'static str,
    /// How it holds its subschemas.
    pub holds: Holds,
    /// What type lowering makes of it.
    pub typing: Typing,
}

const fn keyword(name: &'static str, holds: Holds, typing: Typing) -> Keyword {
    Keyword {
        name,
        holds,
        typing,
    }
}

/// Every keyword that holds subschemas, drafts 07 to 2020-12. Lowering names the first
/// [`Typing::Noted`] keyword a schema has in this order, so keep their order.
pub(crate) const KEYWORDS: &[Keyword] = &[
    keyword("properties", Holds::Map, Typing::Typed),
    keyword("patternProperties", Holds::Map, Typing::Typed),
    keyword("additionalProperties", Holds::Schema, Typing::Typed),
    keyword("items", Holds::SchemaOrList, Typing::Typed),
    keyword("prefixItems", Holds::SchemaOrList, Typing::Typed),
    keyword("allOf", Holds::SchemaOrList, Typing::Typed),
    keyword("anyOf", Holds::SchemaOrList, Typing::Typed),
    keyword("oneOf", Holds::SchemaOrList, Typing::Typed),
    keyword("not", Holds::Schema, Typing::Noted),
    keyword("if", Holds::Schema, Typing::Noted),
    keyword("then", Holds::Schema, Typing::Noted),
    keyword("else", Holds::Schema, Typing::Noted),
    keyword("dependentSchemas", Holds::Map, Typing::Noted),
    keyword("contains", Holds::Schema, Typing::Noted),
    keyword("dependencies", Holds::MapOfSchemasOrOther, Typing::Ignored),
    keyword("additionalItems", Holds::SchemaOrList, Typing::Ignored),
    keyword("propertyNames", Holds::Schema, Typing::Ignored),
    keyword("unevaluatedItems", Holds::Schema, Typing::Ignored),
    keyword("unevaluatedProperties", Holds::Schema, Typing::Ignored),
    keyword("contentSchema", Holds::Schema, Typing::Ignored),
    keyword("definitions", Holds::Map, Typing::Ignored),
    keyword("$defs", Holds::Map, Typing::Ignored),
];

/// The keyword named `name`, if it holds subschemas.
pub(crate) fn keyword_named(name: &str) -> Option<&'static Keyword> {
    KEYWORDS.iter().find(|k| k.name == name)
}

/// Where a subschema sits under its keyword.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Member<'a> {
    /// The keyword's value is the subschema.
    Whole,
    /// The member of that name (`properties/name`).
    Name(&'a str),
    /// The list element at that index (`allOf/0`).
    Index(usize),
}

impl Member<'_> {
    /// The JSON pointer of the subschema, given the pointer of the keyword's value.
    pub(crate) fn pointer(self, keyword_pointer: &str) -> String {
        match self {
            Member::Whole => keyword_pointer.to_string(),
            Member::Name(name) => format!("{keyword_pointer}/{}", escape_token(name)),
            Member::Index(index) => format!("{keyword_pointer}/{index}"),
        }
    }
}

/// The subschemas in `value`, the value of `keyword` in some schema, in document order (none
/// when the keyword holds no subschemas, or when its value has the wrong shape to hold any).
pub(crate) fn subschemas<'v>(keyword: &str, value: &'v Value) -> Vec<(Member<'v>, &'v Value)> {
    let Some(keyword) = keyword_named(keyword) else {
        return Vec::new();
    };
    match (keyword.holds, value) {
        (Holds::Schema, _) => vec![(Member::Whole, value)],
        (Holds::SchemaOrList, Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, s)| (Member::Index(i), s))
            .collect(),
        (Holds::SchemaOrList, _) => vec![(Member::Whole, value)],
        (Holds::Map | Holds::MapOfSchemasOrOther, Value::Object(members)) => members
            .iter()
            .filter(|(_, s)| keyword.holds == Holds::Map || is_schema(s))
            .map(|(name, s)| (Member::Name(name.as_str()), s))
            .collect(),
        (Holds::Map | Holds::MapOfSchemasOrOther, _) => Vec::new(),
    }
}

/// [`subschemas`], for rewriting them in place.
pub(crate) fn subschemas_mut<'v>(
    keyword: &str,
    value: &'v mut Value,
) -> Vec<(Member<'v>, &'v mut Value)> {
    let Some(keyword) = keyword_named(keyword) else {
        return Vec::new();
    };
    match (keyword.holds, value) {
        (Holds::Schema, value) => vec![(Member::Whole, value)],
        (Holds::SchemaOrList, Value::Array(items)) => items
            .iter_mut()
            .enumerate()
            .map(|(i, s)| (Member::Index(i), s))
            .collect(),
        (Holds::SchemaOrList, value) => vec![(Member::Whole, value)],
        (Holds::Map | Holds::MapOfSchemasOrOther, Value::Object(members)) => members
            .iter_mut()
            .filter(|(_, s)| keyword.holds == Holds::Map || is_schema(s))
            .map(|(name, s)| (Member::Name(name.as_str()), s))
            .collect(),
        (Holds::Map | Holds::MapOfSchemasOrOther, _) => Vec::new(),
    }
}

/// The first keyword of `schema` (in [`KEYWORDS`] order) whose constraint has no Rust type.
pub(crate) fn first_untypeable(schema: &serde_json::Map<String, Value>) -> Option<&'static str> {
    KEYWORDS
        .iter()
        .find(|k| k.typing == Typing::Noted && schema.contains_key(k.name))
        .map(|k| k.name)
}

/// A JSON Schema: an object or a boolean.
fn is_schema(value: &Value) -> bool {
    value.is_object() || value.is_boolean()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_form_yields_its_subschemas() {
        let one = json!({"type": "string"});
        assert_eq!(subschemas("not", &one), vec![(Member::Whole, &one)]);
        let list = json!([{"type": "string"}, true]);
        let found: Vec<_> = subschemas("allOf", &list)
            .into_iter()
            .map(|(m, _)| m)
            .collect();
        assert_eq!(found, vec![Member::Index(0), Member::Index(1)]);
        assert_eq!(subschemas("items", &one), vec![(Member::Whole, &one)]);
        let deps = json!({"a": ["b"], "c": {"required": ["d"]}});
        let found: Vec<_> = subschemas("dependencies", &deps)
            .into_iter()
            .map(|(m, _)| m)
            .collect();
        assert_eq!(found, vec![Member::Name("c")]);
        assert!(subschemas("properties", &list).is_empty());
        assert!(subschemas("description", &one).is_empty());
    }

    #[test]
    fn pointers_escape_names() {
        assert_eq!(Member::Name("a/b~c").pointer("/p"), "/p/a~1b~0c");
        assert_eq!(Member::Index(2).pointer("/p"), "/p/2");
        assert_eq!(Member::Whole.pointer("/p"), "/p");
    }

    #[test]
    fn untypeable_in_the_order_lowering_names_them() {
        let noted: Vec<&str> = KEYWORDS
            .iter()
            .filter(|k| k.typing == Typing::Noted)
            .map(|k| k.name)
            .collect();
        assert_eq!(
            noted,
            ["not", "if", "then", "else", "dependentSchemas", "contains"]
        );
        let schema = json!({"contains": {}, "if": {}});
        assert_eq!(first_untypeable(schema.as_object().unwrap()), Some("if"));
    }
}
