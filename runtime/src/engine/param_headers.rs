//! `Mcp-Param-*` headers (2026-07-28, SEP-2243): a tool argument whose schema carries
//! `"x-mcp-header": "Name"` is mirrored in the header `Mcp-Param-Name`, so that load balancers
//! can route on it without reading the body. The server checks that header and body agree.

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use http::HeaderMap;
use serde_json::Value;
use std::collections::HashMap;

use crate::catalog::Catalog;
use crate::protocol::ProtocolVersion;

/// One argument mirrored in a header.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ParamHeader {
    /// The property names from the arguments object down to the value (`properties` hops only).
    path: Vec<String>,
    /// The header name, lowercase (`mcp-param-region`).
    header: String,
}

/// The mirrored arguments of every tool that has some, read once from the published schemas.
#[derive(Debug, Default)]
pub(crate) struct ParamHeaders(HashMap<&'static str, Vec<ParamHeader>>);

impl ParamHeaders {
    /// Scans the 2026-07-28 `inputSchema` of every tool in `catalog`.
    pub(crate) fn from_catalog(catalog: &Catalog) -> Self {
        let mut tools = HashMap::new();
        for tool in catalog.tools {
            let Ok(descriptor) =
                serde_json::from_str::<Value>(tool.json_for(ProtocolVersion::V2026_07_28))
            else {
                continue;
            };
            let mut found = Vec::new();
            if let Some(schema) = descriptor.get("inputSchema") {
                collect(schema, &mut Vec::new(), &mut found);
            }
            if !found.is_empty() {
                tools.insert(tool.key, found);
            }
        }
        Self(tools)
    }

    /// Whether `tool` mirrors any argument in a header (most tools do not; their calls skip
    /// the check without touching the arguments).
    pub(crate) fn has(&self, tool: &str) -> bool {
        self.0.contains_key(tool)
    }

    /// Checks every mirrored argument of `tool` against its header; the error says which one
    /// disagrees.
    pub(crate) fn check(
        &self,
        tool: &str,
        headers: &HeaderMap,
        arguments: Option<&Value>,
    ) -> Result<(), String> {
        for param in self.0.get(tool).into_iter().flatten() {
            let value = arguments
                .and_then(|args| {
                    param
                        .path
                        .iter()
                        .try_fold(args, |value, key| value.get(key))
                })
                .filter(|v| !v.is_null());
            let header = match headers.get(&param.header) {
                None => None,
                Some(raw) => Some(
                    raw.to_str()
                        .ok()
                        .and_then(decode)
                        .ok_or_else(|| format!("{} is not a valid header value", param.header))?,
                ),
            };
            match (value, header) {
                (None, None) => {}
                (Some(_), None) => {
                    return Err(format!(
                        "the {} header is missing for argument `{}`",
                        param.header,
                        param.path.join(".")
                    ))
                }
                (None, Some(_)) => {
                    return Err(format!(
                        "the {} header is set but argument `{}` is absent",
                        param.header,
                        param.path.join(".")
                    ))
                }
                (Some(value), Some(header)) if matches(value, &header) => {}
                (Some(_), Some(_)) => {
                    return Err(format!(
                        "the {} header differs from argument `{}`",
                        param.header,
                        param.path.join(".")
                    ))
                }
            }
        }
        Ok(())
    }
}

/// Walks `properties` only: the specification allows `x-mcp-header` nowhere else.
fn collect(schema: &Value, path: &mut Vec<String>, found: &mut Vec<ParamHeader>) {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return;
    };
    for (name, property) in properties {
        path.push(name.clone());
        if let Some(header) = property.get("x-mcp-header").and_then(Value::as_str) {
            found.push(ParamHeader {
                path: path.clone(),
                header: format!("mcp-param-{}", header.to_ascii_lowercase()),
            });
        }
        collect(property, path, found);
        path.pop();
    }
}

/// A header value as text: the `=?base64?...?=` form decoded (strictly: canonical padding,
/// standard alphabet, UTF-8), any other value as itself without surrounding whitespace.
/// `None` when the encoded form is malformed.
pub(crate) fn decode(value: &str) -> Option<String> {
    let value = value.trim();
    match value
        .strip_prefix("=?base64?")
        .and_then(|rest| rest.strip_suffix("?="))
    {
        Some(encoded) => String::from_utf8(STANDARD.decode(encoded).ok()?).ok(),
        None => Some(value.to_string()),
    }
}

/// Whether the decoded header text stands for the argument: strings as themselves, integers
/// compared as numbers, booleans as `true`/`false`.
fn matches(value: &Value, header: &str) -> bool {
    match value {
        Value::String(text) => text == header,
        Value::Bool(flag) => header == if *flag { "true" } else { "false" },
        Value::Number(number) => {
            let integer = number
                .as_i64()
                .map(i128::from)
                .or_else(|| number.as_u64().map(i128::from));
            match (integer, integer_text(header)) {
                // Integers exactly: past 2^53, neighbours are the same f64.
                (Some(a), Some(b)) => a == b,
                (Some(a), None) if a.unsigned_abs() >= 1 << 53 => false,
                _ => match (number.as_f64(), header.parse::<f64>()) {
                    (Some(a), Ok(b)) => a == b,
                    _ => false,
                },
            }
        }
        _ => false,
    }
}

/// The integer a header writes as `-?digits` or `-?digits.0…` (exactly, at any size).
fn integer_text(header: &str) -> Option<i128> {
    let whole = match header.split_once('.') {
        Some((whole, fraction)) if !fraction.is_empty() && fraction.bytes().all(|b| b == b'0') => {
            whole
        }
        Some(_) => return None,
        None => header,
    };
    whole.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use http::HeaderValue;
    use serde_json::json;

    fn table() -> ParamHeaders {
        let mut found = Vec::new();
        collect(
            &json!({"type": "object", "properties": {
                "region": {"type": "string", "x-mcp-header": "Region"},
                "limit": {"type": "integer", "x-mcp-header": "Limit"},
                "target": {"type": "object", "properties": {"zone": {"type": "string", "x-mcp-header": "Zone"}}},
                "items": {"type": "array", "items": {"properties": {"no": {"x-mcp-header": "No"}}}}
            }}),
            &mut Vec::new(),
            &mut found,
        );
        ParamHeaders(HashMap::from([("t", found)]))
    }

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, HeaderValue::from_static(value));
        }
        map
    }

    #[test]
    fn finds_properties_only() {
        let table = table();
        let names: Vec<&str> = table.0["t"].iter().map(|p| p.header.as_str()).collect();
        assert_eq!(
            names,
            ["mcp-param-region", "mcp-param-limit", "mcp-param-zone"]
        );
    }

    #[test]
    fn checks_values() {
        let table = table();
        let args = json!({"region": "Hello", "limit": 10, "target": {"zone": "a"}});
        let ok = headers(&[
            ("mcp-param-region", "=?base64?SGVsbG8=?="),
            ("mcp-param-limit", "10"),
            ("mcp-param-zone", " a "),
        ]);
        assert_eq!(table.check("t", &ok, Some(&args)), Ok(()));
        for bad in [
            ("mcp-param-region", "=?base64?SGVsbG8?="),
            ("mcp-param-region", "=?base64?SGVs!!!bG8=?="),
            ("mcp-param-region", "World"),
            ("mcp-param-limit", "11"),
        ] {
            let mut map = ok.clone();
            map.insert(bad.0, HeaderValue::from_static(bad.1));
            assert!(table.check("t", &map, Some(&args)).is_err(), "{bad:?}");
        }
        let mut missing = ok.clone();
        missing.remove("mcp-param-region");
        assert!(table.check("t", &missing, Some(&args)).is_err());
        // Absent arguments need no header, and must not have one.
        assert_eq!(
            table.check("t", &HeaderMap::new(), Some(&json!({}))),
            Ok(())
        );
        assert!(table.check("t", &ok, Some(&json!({}))).is_err());
    }

    #[test]
    fn unwrapped_values_are_literal() {
        assert_eq!(
            decode("=?base64?SGVsbG8=").as_deref(),
            Some("=?base64?SGVsbG8=")
        );
        assert_eq!(decode("SGVsbG8=?=").as_deref(), Some("SGVsbG8=?="));
        assert_eq!(
            decode("=?base64?SGVsbG8sIOS4lueVjA==?=").as_deref(),
            Some("Hello, 世界")
        );
    }
}
