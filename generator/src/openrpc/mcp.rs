//! The MCP vocabulary of an OpenRPC document: `x-mcp` on methods and `info["x-mcp"]`.

use serde_json::{Map, Value};

use super::model::{McpBinding, McpKind, McpOutput, ServerExtension};
use crate::diagnostics::{Diagnostic, Location};

/// Rule id of every problem with an `x-mcp` extension.
pub const RULE: &str = "mcp-extension";

/// Keys allowed in a method's `x-mcp` object.
pub const METHOD_KEYS: &[&str] = &[
    "kind",
    "name",
    "title",
    "description",
    "annotations",
    "icons",
    "uri",
    "uriTemplate",
    "mimeType",
    "_meta",
    "output",
    "inputSchema",
];

/// Keys allowed in `info["x-mcp"]`.
pub const SERVER_KEYS: &[&str] = &["name", "title", "instructions", "websiteUrl"];

/// The method facts `x-mcp` defaults come from.
pub struct MethodFacts<'a> {
    /// The method name (default exposed name).
    pub name: &'a str,
    /// The method description (default description).
    pub description: Option<&'a str>,
    /// The method summary (default description when there is no description).
    pub summary: Option<&'a str>,
}

/// Parses `kind` text.
pub fn parse_kind(text: &str) -> Option<McpKind> {
    match text {
        "tool" => Some(McpKind::Tool),
        "prompt" => Some(McpKind::Prompt),
        "resource" => Some(McpKind::Resource),
        "resource-template" => Some(McpKind::ResourceTemplate),
        _ => None,
    }
}

fn kind_error(found: &str, location: Location) -> Diagnostic {
    Diagnostic::error(
        RULE,
        location,
        format!(
            "unknown `x-mcp` kind {found}; expected \"tool\", \"prompt\", \"resource\" or \"resource-template\""
        ),
    )
}

/// Parses a method's `x-mcp` value. `locate` maps a key path relative to the `x-mcp` value
/// (`""` for the value itself, `"/uri"` for a key) to a location. Returns the binding when the
/// value is usable, plus every problem found.
pub fn parse_method(
    value: &Value,
    method: &MethodFacts<'_>,
    locate: &dyn Fn(&str) -> Location,
) -> (Option<McpBinding>, Vec<Diagnostic>) {
    let mut diags = Vec::new();
    let here = locate("");
    let default_description = method.description.or(method.summary).map(str::to_string);
    let mut binding = McpBinding {
        kind: McpKind::Tool,
        name: method.name.to_string(),
        title: None,
        description: default_description,
        annotations: None,
        icons: None,
        uri: None,
        uri_template: None,
        mime_type: None,
        meta: None,
        output: McpOutput::Typed,
        input_schema: None,
        location: here.clone(),
    };
    let map: &Map<String, Value> = match value {
        Value::String(s) => {
            return match parse_kind(s) {
                Some(McpKind::Resource) => {
                    diags.push(Diagnostic::error(
                        RULE,
                        here,
                        "`x-mcp` kind \"resource\" needs a `uri`; use an object: {\"kind\": \"resource\", \"uri\": ...}",
                    ));
                    (None, diags)
                }
                Some(McpKind::ResourceTemplate) => {
                    diags.push(Diagnostic::error(
                        RULE,
                        here,
                        "`x-mcp` kind \"resource-template\" needs a `uriTemplate`; use an object: {\"kind\": \"resource-template\", \"uriTemplate\": ...}",
                    ));
                    (None, diags)
                }
                Some(kind) => {
                    binding.kind = kind;
                    (Some(binding), diags)
                }
                None => {
                    diags.push(kind_error(&format!("{s:?}"), here));
                    (None, diags)
                }
            };
        }
        Value::Object(map) => map,
        other => {
            diags.push(Diagnostic::error(
                RULE,
                here,
                format!(
                    "`x-mcp` must be a kind string or an object with `kind`, found {}",
                    type_name(other)
                ),
            ));
            return (None, diags);
        }
    };

    let unknown: Vec<&String> = map
        .keys()
        .filter(|k| !METHOD_KEYS.contains(&k.as_str()))
        .collect();
    for key in &unknown {
        diags.push(Diagnostic::error(
            RULE,
            locate(&format!("/{}", super::json_pos::escape_token(key))),
            format!(
                "unknown key `{key}` in `x-mcp`; allowed keys: {}",
                METHOD_KEYS.join(", ")
            ),
        ));
    }

    let mut ok = true;
    match map.get("kind") {
        None => {
            diags.push(Diagnostic::error(
                RULE,
                here.clone(),
                "`x-mcp` object needs a `kind`: \"tool\", \"prompt\", \"resource\" or \"resource-template\"",
            ));
            ok = false;
        }
        Some(Value::String(s)) => match parse_kind(s) {
            Some(kind) => binding.kind = kind,
            None => {
                diags.push(kind_error(&format!("{s:?}"), locate("/kind")));
                ok = false;
            }
        },
        Some(other) => {
            diags.push(kind_error(type_name(other), locate("/kind")));
            ok = false;
        }
    }

    let mut string_field = |key: &str, diags: &mut Vec<Diagnostic>| -> Option<String> {
        match map.get(key) {
            None => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(other) => {
                diags.push(Diagnostic::error(
                    RULE,
                    locate(&format!("/{key}")),
                    format!("`x-mcp.{key}` must be a string, found {}", type_name(other)),
                ));
                ok = false;
                None
            }
        }
    };
    if let Some(name) = string_field("name", &mut diags) {
        binding.name = name;
    }
    binding.title = string_field("title", &mut diags);
    if let Some(d) = string_field("description", &mut diags) {
        binding.description = Some(d);
    }
    binding.uri = string_field("uri", &mut diags);
    binding.uri_template = string_field("uriTemplate", &mut diags);
    binding.mime_type = string_field("mimeType", &mut diags);
    match string_field("output", &mut diags).as_deref() {
        None | Some("typed") => {}
        Some("mcp") => binding.output = McpOutput::Mcp,
        Some(other) => {
            diags.push(Diagnostic::error(
                RULE,
                locate("/output"),
                format!("`x-mcp.output` must be \"typed\" or \"mcp\", found \"{other}\""),
            ));
            ok = false;
        }
    }

    for (key, want_object) in [
        ("annotations", true),
        ("icons", false),
        ("_meta", true),
        ("inputSchema", true),
    ] {
        let Some(v) = map.get(key) else { continue };
        let fits = if want_object {
            v.is_object()
        } else {
            v.is_array()
        };
        if !fits {
            diags.push(Diagnostic::error(
                RULE,
                locate(&format!("/{key}")),
                format!(
                    "`x-mcp.{key}` must be {}, found {}",
                    if want_object { "an object" } else { "an array" },
                    type_name(v)
                ),
            ));
            ok = false;
            continue;
        }
        let slot = match key {
            "annotations" => &mut binding.annotations,
            "icons" => &mut binding.icons,
            "inputSchema" => &mut binding.input_schema,
            _ => &mut binding.meta,
        };
        *slot = Some(v.clone());
    }

    if ok {
        if binding.kind == McpKind::Resource && binding.uri.is_none() {
            diags.push(Diagnostic::error(
                RULE,
                here.clone(),
                "`x-mcp` resource needs a `uri`",
            ));
            ok = false;
        }
        if binding.kind == McpKind::ResourceTemplate && binding.uri_template.is_none() {
            diags.push(Diagnostic::error(
                RULE,
                here.clone(),
                "`x-mcp` resource-template needs a `uriTemplate`",
            ));
            ok = false;
        }
        if binding.kind != McpKind::Resource && binding.uri.is_some() {
            diags.push(Diagnostic::error(
                RULE,
                locate("/uri"),
                format!(
                    "`x-mcp.uri` only applies to kind \"resource\", not \"{}\"",
                    binding.kind.as_str()
                ),
            ));
            ok = false;
        }
        if binding.kind != McpKind::ResourceTemplate && binding.uri_template.is_some() {
            diags.push(Diagnostic::error(
                RULE,
                locate("/uriTemplate"),
                format!(
                    "`x-mcp.uriTemplate` only applies to kind \"resource-template\", not \"{}\"",
                    binding.kind.as_str()
                ),
            ));
            ok = false;
        }
    }
    let ok = ok && unknown.is_empty();
    (ok.then_some(binding), diags)
}

/// Parses `info["x-mcp"]`.
pub fn parse_server(
    value: &Value,
    locate: &dyn Fn(&str) -> Location,
) -> (ServerExtension, Vec<Diagnostic>) {
    let mut diags = Vec::new();
    let mut server = ServerExtension::default();
    let Value::Object(map) = value else {
        diags.push(Diagnostic::error(
            RULE,
            locate(""),
            format!("`info.x-mcp` must be an object, found {}", type_name(value)),
        ));
        return (server, diags);
    };
    for (key, v) in map {
        let slot = match key.as_str() {
            "name" => &mut server.name,
            "title" => &mut server.title,
            "instructions" => &mut server.instructions,
            "websiteUrl" => &mut server.website_url,
            _ => {
                diags.push(Diagnostic::error(
                    RULE,
                    locate(&format!("/{}", super::json_pos::escape_token(key))),
                    format!(
                        "unknown key `{key}` in `info.x-mcp`; allowed keys: {}",
                        SERVER_KEYS.join(", ")
                    ),
                ));
                continue;
            }
        };
        match v {
            Value::String(s) => *slot = Some(s.clone()),
            other => diags.push(Diagnostic::error(
                RULE,
                locate(&format!("/{key}")),
                format!(
                    "`info.x-mcp.{key}` must be a string, found {}",
                    type_name(other)
                ),
            )),
        }
    }
    (server, diags)
}

/// A short name of a JSON value's type, for messages.
pub fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
