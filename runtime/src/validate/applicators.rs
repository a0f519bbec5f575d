//! The sub-schema keywords the generated checks apply (`not`, `if`/`then`/`else`, several
//! `patternProperties`) to a value seen as JSON. The generator turns each sub-schema (made of
//! `type`, `const`, `enum`, `required` and `properties` of those) into a `bool` expression over
//! [`has_type`], [`has_members`] and [`super::json_equal`]; these functions report the result.

use super::{Path, Violations};
use serde_json::Value;

/// `type`: `value` has one of the JSON Schema types named (`integer` takes `1.0` too).
#[doc(hidden)]
pub fn has_type(value: &Value, types: &[&str]) -> bool {
    types.iter().any(|name| match *name {
        "null" => value.is_null(),
        "boolean" => value.is_boolean(),
        "string" => value.is_string(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        "number" => value.is_number(),
        "integer" => match value {
            Value::Number(n) => {
                n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
            }
            _ => false,
        },
        _ => false,
    })
}

/// `required`: `value` has every member named, or is not an object (the keyword then holds).
#[doc(hidden)]
pub fn has_members(value: &Value, names: &[&str]) -> bool {
    match value.as_object() {
        Some(members) => names.iter().all(|name| members.contains_key(*name)),
        None => true,
    }
}

/// `not`: `matched` says whether the value matches `schema` (its JSON text), which it must not.
#[inline]
#[doc(hidden)]
pub fn not(matched: bool, schema: &str, path: &Path<'_>, out: &mut Violations) {
    if matched {
        out.push(path, "not", format!("must not match {schema}"));
    }
}

/// `then`: the value matches `if`, so it must match `schema`; `matched` says whether it does.
#[inline]
#[doc(hidden)]
pub fn then(matched: bool, schema: &str, path: &Path<'_>, out: &mut Violations) {
    if !matched {
        out.push(
            path,
            "then",
            format!("must match {schema}, as it matches the `if` schema"),
        );
    }
}

/// `else`: the value does not match `if`, so it must match `schema`; `matched` says whether
/// it does.
#[inline]
#[doc(hidden)]
pub fn otherwise(matched: bool, schema: &str, path: &Path<'_>, out: &mut Violations) {
    if !matched {
        out.push(
            path,
            "else",
            format!("must match {schema}, as it does not match the `if` schema"),
        );
    }
}

/// `patternProperties`: the member at `path`, whose name matches `pattern`, must match
/// `schema`; `matched` says whether it does.
#[inline]
#[doc(hidden)]
pub fn pattern_property(
    matched: bool,
    pattern: &str,
    schema: &str,
    path: &Path<'_>,
    out: &mut Violations,
) {
    if !matched {
        out.push(
            path,
            "patternProperties",
            format!("must match {schema}, the schema of members named {pattern:?}"),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn types_follow_json_schema() {
        assert!(has_type(&json!(1.0), &["integer"]));
        assert!(!has_type(&json!(1.5), &["integer"]));
        assert!(has_type(&json!(1), &["number"]));
        assert!(has_type(&json!(null), &["string", "null"]));
        assert!(!has_type(&json!("a"), &["object"]));
    }

    #[test]
    fn required_holds_for_non_objects() {
        assert!(has_members(&json!({"a": 1, "b": null}), &["a", "b"]));
        assert!(!has_members(&json!({"a": 1}), &["a", "b"]));
        assert!(has_members(&json!("a"), &["a"]));
    }

    #[test]
    fn each_keyword_reports_with_its_pointer() {
        let root = Path::Root;
        let mut out = Violations::new();
        not(false, "{}", &root, &mut out);
        then(true, "{}", &root, &mut out);
        otherwise(true, "{}", &root, &mut out);
        pattern_property(true, "^x-", "{}", &root, &mut out);
        assert!(out.is_empty());
        not(true, r#"{"required":["a"]}"#, &root, &mut out);
        then(false, r#"{"required":["b"]}"#, &root.key("t"), &mut out);
        otherwise(false, r#"{"type":"string"}"#, &root.key("e"), &mut out);
        pattern_property(
            false,
            "^x-",
            r#"{"type":"string"}"#,
            &root.key("x-a"),
            &mut out,
        );
        assert_eq!(
            out.message(),
            [
                r#"(root): must not match {"required":["a"]}"#,
                r#"/t: must match {"required":["b"]}, as it matches the `if` schema"#,
                r#"/e: must match {"type":"string"}, as it does not match the `if` schema"#,
                r#"/x-a: must match {"type":"string"}, the schema of members named "^x-""#,
            ]
            .join("; ")
        );
    }
}
