//! The 2026-07-28 routing headers a client mirrors from the body: `Mcp-Name` and the
//! `Mcp-Param-{Name}` of every argument whose schema property carries `x-mcp-header`, with the
//! specification's `=?base64?...?=` form for values that are not plain ASCII.

use base64::Engine as _;
use serde_json::Value;

/// A header value as the specification writes it: plain when it is visible ASCII without
/// leading or trailing whitespace (and does not itself look like the sentinel), otherwise
/// `=?base64?<base64 of the UTF-8 bytes>?=`.
pub(crate) fn header_value(value: &str) -> String {
    let plain = value.bytes().all(|b| b == b' ' || b.is_ascii_graphic())
        && value.trim() == value
        && !(value.starts_with("=?base64?") && value.ends_with("?="));
    if plain {
        value.to_owned()
    } else {
        let encoded = base64::engine::general_purpose::STANDARD.encode(value.as_bytes());
        format!("=?base64?{encoded}?=")
    }
}

/// One `x-mcp-header` annotation of a tool's `inputSchema`: the header's name part and the
/// path of `properties` keys to the argument.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ParamHeader {
    pub(crate) name: String,
    pub(crate) path: Vec<String>,
}

/// The `x-mcp-header` annotations of `input_schema`, reached through `properties` alone (the
/// only places the specification allows them).
pub(crate) fn param_headers(input_schema: &Value) -> Vec<ParamHeader> {
    let mut found = Vec::new();
    collect(input_schema, &mut Vec::new(), &mut found);
    found
}

fn collect(schema: &Value, path: &mut Vec<String>, found: &mut Vec<ParamHeader>) {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return;
    };
    for (key, property) in properties {
        path.push(key.clone());
        if let Some(name) = property.get("x-mcp-header").and_then(Value::as_str) {
            found.push(ParamHeader {
                name: name.to_owned(),
                path: path.clone(),
            });
        }
        collect(property, path, found);
        path.pop();
    }
}

/// Why `input_schema`'s `x-mcp-header` annotations make its tool invalid (clients drop such
/// tools), if they do: a name that is empty, not an RFC 9110 token or repeated
/// (case-insensitively); an annotation on a property that is not `string`, `integer` or
/// `boolean`, or one not reached from the root through `properties` alone.
pub(crate) fn invalid_annotations(input_schema: &Value) -> Option<String> {
    let mut seen = Vec::new();
    check(input_schema, true, &mut seen)
}

fn check(schema: &Value, through_properties: bool, seen: &mut Vec<String>) -> Option<String> {
    match schema {
        Value::Object(object) => {
            if let Some(annotation) = object.get("x-mcp-header") {
                let name = annotation.as_str().unwrap_or_default();
                if !through_properties {
                    return Some(format!(
                        "x-mcp-header {name:?} is not on a property reached through `properties`"
                    ));
                }
                if name.is_empty() || !name.bytes().all(is_tchar) {
                    return Some(format!(
                        "x-mcp-header {annotation} is not a header name token"
                    ));
                }
                if seen.iter().any(|other| other.eq_ignore_ascii_case(name)) {
                    return Some(format!("x-mcp-header {name:?} is used twice"));
                }
                if !matches!(
                    object.get("type").and_then(Value::as_str),
                    Some("string" | "integer" | "boolean")
                ) {
                    return Some(format!("x-mcp-header {name:?} is on a property that is not a string, integer or boolean"));
                }
                seen.push(name.to_owned());
            }
            for (key, value) in object {
                let reason = if key == "properties" {
                    value.as_object().and_then(|properties| {
                        properties
                            .values()
                            .find_map(|property| check(property, through_properties, seen))
                    })
                } else {
                    check(value, false, seen)
                };
                if reason.is_some() {
                    return reason;
                }
            }
            None
        }
        Value::Array(items) => items.iter().find_map(|item| check(item, false, seen)),
        _ => None,
    }
}

/// RFC 9110 `tchar`.
fn is_tchar(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&byte)
}

/// The `Mcp-Param-*` headers for `arguments`: one per annotation whose argument is present
/// and a string, integer or boolean (null or absent means no header).
pub(crate) fn param_header_values(
    headers: &[ParamHeader],
    arguments: &Value,
) -> Vec<(String, String)> {
    headers
        .iter()
        .filter_map(|header| {
            let value = header
                .path
                .iter()
                .try_fold(arguments, |at, key| at.get(key))?;
            let text = match value {
                Value::String(text) => header_value(text),
                Value::Bool(flag) => flag.to_string(),
                Value::Number(number) if number.is_i64() || number.is_u64() => number.to_string(),
                // A whole number written as a float (`42.0`) is still an integer argument.
                Value::Number(number) => match number.as_f64() {
                    Some(float)
                        if float.fract() == 0.0 && float.abs() < 9_007_199_254_740_992.0 =>
                    {
                        format!("{}", float as i64)
                    }
                    _ => return None,
                },
                _ => return None,
            };
            Some((format!("mcp-param-{}", header.name), text))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn invalid_annotations_are_found_anywhere_in_the_schema() {
        let valid = json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "nested": {"type": "object", "properties": {"n": {"type": "integer", "x-mcp-header": "N"}}}}});
        assert_eq!(invalid_annotations(&valid), None);
        for (property, why) in [
            (
                json!({"type": "string", "x-mcp-header": ""}),
                "not a header name token",
            ),
            (
                json!({"type": "string", "x-mcp-header": "A B"}),
                "not a header name token",
            ),
            (
                json!({"type": "string", "x-mcp-header": "A:B"}),
                "not a header name token",
            ),
            (
                json!({"type": "string", "x-mcp-header": "Région"}),
                "not a header name token",
            ),
            (
                json!({"type": "string", "x-mcp-header": 7}),
                "not a header name token",
            ),
            (
                json!({"type": "number", "x-mcp-header": "N"}),
                "not a string, integer or boolean",
            ),
            (
                json!({"type": "object", "x-mcp-header": "O"}),
                "not a string, integer or boolean",
            ),
            (
                json!({"type": "string", "x-mcp-header": "REGION"}),
                "used twice",
            ),
        ] {
            let schema = json!({"type": "object", "properties": {
                "region": {"type": "string", "x-mcp-header": "Region"}, "other": property}});
            let reason = invalid_annotations(&schema).unwrap_or_default();
            assert!(reason.contains(why), "{schema}: {reason}");
        }
        let in_items = json!({"type": "object", "properties": {"list": {"type": "array",
            "items": {"type": "string", "x-mcp-header": "Item"}}}});
        assert!(invalid_annotations(&in_items)
            .unwrap()
            .contains("not on a property"));
    }

    #[test]
    fn values_that_are_not_plain_ascii_are_base64() {
        assert_eq!(header_value("us-west1"), "us-west1");
        assert_eq!(
            header_value("Hello, 世界"),
            "=?base64?SGVsbG8sIOS4lueVjA==?="
        );
        assert_eq!(header_value(" padded "), "=?base64?IHBhZGRlZCA=?=");
        assert_eq!(header_value("a\nb"), "=?base64?YQpi?=");
        assert_eq!(header_value("=?base64?x?="), "=?base64?PT9iYXNlNjQ/eD89?=");
    }

    #[test]
    fn annotations_are_found_through_properties_and_mirrored() {
        let schema = json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "options": {"type": "object", "properties": {
                "dry": {"type": "boolean", "x-mcp-header": "Dry"}}},
            "count": {"type": "integer", "x-mcp-header": "Count"},
            "list": {"type": "array", "items": {"properties": {
                "hidden": {"type": "string", "x-mcp-header": "Hidden"}}}}
        }});
        let headers = param_headers(&schema);
        assert_eq!(headers.len(), 3, "{headers:?}");
        let values = param_header_values(
            &headers,
            &json!({"region": "eu", "options": {"dry": true}, "count": 42.0}),
        );
        assert!(values.contains(&("mcp-param-Region".into(), "eu".into())));
        assert!(values.contains(&("mcp-param-Dry".into(), "true".into())));
        assert!(values.contains(&("mcp-param-Count".into(), "42".into())));
        assert!(param_header_values(&headers, &json!({"region": null})).is_empty());
    }
}
