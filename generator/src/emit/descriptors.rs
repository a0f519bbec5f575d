//! MCP descriptors computed at generation time: the `Tool`, `Prompt`, `Resource` and
//! `ResourceTemplate` objects of every MCP method, serialized once per protocol revision.

use serde_json::{json, Map, Value};

use super::schema_bundle::{is_object_schema, strip_header_annotations, Bundler, Dialect};
use crate::openrpc::{Document, McpBinding, McpCommon, McpOutput, Method, ToolBinding};

/// The protocol revisions descriptors are shaped for, in the runtime's index order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Revision {
    /// 2025-03-26.
    V2025_03_26,
    /// 2025-06-18.
    V2025_06_18,
    /// 2025-11-25.
    V2025_11_25,
    /// 2026-07-28.
    V2026_07_28,
}

impl Revision {
    /// All revisions, oldest first (the runtime's `ProtocolVersion::ALL` order).
    pub const ALL: [Revision; 4] = [
        Revision::V2025_03_26,
        Revision::V2025_06_18,
        Revision::V2025_11_25,
        Revision::V2026_07_28,
    ];

    fn dialect(self) -> Dialect {
        if self >= Revision::V2025_11_25 {
            Dialect::Draft2020_12
        } else {
            Dialect::Draft07
        }
    }

    /// `title`, `outputSchema`, `_meta` exist from 2025-06-18.
    fn has_titles(self) -> bool {
        self >= Revision::V2025_06_18
    }

    /// `icons` exist from 2025-11-25.
    fn has_icons(self) -> bool {
        self >= Revision::V2025_11_25
    }
}

/// The descriptor of `method` (which must have an MCP binding) for every revision, in
/// [`Revision::ALL`] order, serialized compactly.
pub fn descriptor_json(document: &Document, method: &Method, binding: &McpBinding) -> [String; 4] {
    descriptor_json_of(document, method, binding, false, false, false)
}

/// [`descriptor_json`], with `passed_through` for a tool whose result is not promised to fit
/// its schema: a gateway passes it through unchecked (forwarded without `--check-results`), or
/// it may be answered with a preview (the tool has a result budget). Such a tool has no
/// `outputSchema`: its result is the upstream's as sent, which the document does not promise to
/// describe, or a preview, which has not the result's shape, and a client that checks
/// `structuredContent` against an `outputSchema` would refuse either. A checked result sent
/// whole fits the schema, so it is published.
///
/// Without `strict_unions` every `oneOf` of the schemas is published as `anyOf`: the
/// generated code takes the first alternative that accepts a value (docs/validation.md), and a
/// client that checks `structuredContent` against a `oneOf` would refuse a value two
/// alternatives accept (an empty array, to a `oneOf` of two arrays).
///
/// With `takes_filter` (a tool with a result budget) the tool's `inputSchema` gains the optional
/// `jq` argument ([`add_filter`]).
pub fn descriptor_json_of(
    document: &Document,
    method: &Method,
    binding: &McpBinding,
    passed_through: bool,
    strict_unions: bool,
    takes_filter: bool,
) -> [String; 4] {
    Revision::ALL.map(|revision| {
        let value = match binding {
            McpBinding::Tool(tool_binding) => {
                let mut tool = tool(
                    document,
                    method,
                    tool_binding,
                    revision,
                    (!passed_through, strict_unions),
                );
                if takes_filter {
                    add_filter(&mut tool["inputSchema"]);
                }
                tool
            }
            McpBinding::Prompt(prompt_binding) => prompt(method, &prompt_binding.common, revision),
            McpBinding::Resource(r) => resource(
                ("uri", &r.uri),
                &r.common,
                r.mime_type.as_deref(),
                r.annotations.as_ref(),
                revision,
            ),
            McpBinding::ResourceTemplate(t) => resource(
                ("uriTemplate", &t.uri_template),
                &t.common,
                t.mime_type.as_deref(),
                t.annotations.as_ref(),
                revision,
            ),
        };
        serde_json::to_string(&value).expect("descriptor values always serialize")
    })
}

/// Fields every kind shares: `name`, `title`, `description`, `icons`.
fn base(common: &McpCommon, revision: Revision) -> Map<String, Value> {
    let mut map = Map::new();
    map.insert("name".into(), json!(common.name));
    if revision.has_titles() {
        if let Some(title) = &common.title {
            map.insert("title".into(), json!(title));
        }
    }
    if let Some(description) = &common.description {
        map.insert("description".into(), json!(description));
    }
    if revision.has_icons() {
        if let Some(icons) = &common.icons {
            map.insert("icons".into(), icons.clone());
        }
    }
    map
}

/// `_meta` from 2025-06-18 on.
fn finish(mut map: Map<String, Value>, common: &McpCommon, revision: Revision) -> Value {
    if revision.has_titles() {
        if let Some(meta) = &common.meta {
            map.insert("_meta".into(), meta.clone());
        }
    }
    Value::Object(map)
}

/// A tool's descriptor; `outputSchema` only with `typed_output`, `oneOf` as written only with
/// `strict_unions` (see [`descriptor_json_of`]).
fn tool(
    document: &Document,
    method: &Method,
    binding: &ToolBinding,
    revision: Revision,
    (typed_output, strict_unions): (bool, bool),
) -> Value {
    let mut map = base(&binding.common, revision);
    let input = match &binding.input_schema {
        Some(verbatim) => verbatim.clone(),
        None => input_schema(document, method, revision, strict_unions),
    };
    map.insert("inputSchema".into(), input);
    if typed_output && revision.has_titles() && binding.common.output == McpOutput::Typed {
        if let Some(output) = output_schema(document, method, revision, strict_unions) {
            map.insert("outputSchema".into(), output);
        }
    }
    if let Some(annotations) = &binding.annotations {
        map.insert("annotations".into(), annotations.clone());
    }
    finish(map, &binding.common, revision)
}

/// The `jq` argument of a tool with a result budget: a jq filter the runtime applies to the
/// result before the budget (`mcp_runtime::result_budget`). Not added when the tool already has
/// an argument of that name, or an `inputSchema` without `properties` (written as is).
fn add_filter(input: &mut Value) {
    let Some(properties) = input.get_mut("properties").and_then(Value::as_object_mut) else {
        return;
    };
    if properties.contains_key("jq") {
        return;
    }
    properties.insert(
        "jq".into(),
        json!({
            "type": "string",
            "maxLength": 4096,
            "description": "Optional jq filter applied to the result, to get only what you need, e.g. `{number, hash}`; its output is the answer."
        }),
    );
}

/// `{"type":"object","properties":{...},"required":[...]}` from the params in declaration
/// order, each property carrying the param's description when its schema has none.
fn input_schema(
    document: &Document,
    method: &Method,
    revision: Revision,
    strict_unions: bool,
) -> Value {
    let mut bundler = Bundler::new(document, revision.dialect()).strict_unions(strict_unions);
    let mut properties = Map::new();
    let mut required = Vec::new();
    for param in &method.params {
        let mut schema = bundler.rewrite(&param.schema);
        if let (Value::Object(map), Some(description)) = (&mut schema, &param.description) {
            if !map.contains_key("description") && !map.contains_key("$ref") {
                map.insert("description".into(), json!(description));
            }
        }
        properties.insert(param.name.clone(), schema);
        if param.required {
            required.push(json!(param.name));
        }
    }
    let mut root = Map::new();
    root.insert("type".into(), json!("object"));
    root.insert("properties".into(), Value::Object(properties));
    if !required.is_empty() {
        root.insert("required".into(), Value::Array(required));
    }
    let mut schema = bundler.finish(Value::Object(root));
    if revision < Revision::V2026_07_28 {
        strip_header_annotations(&mut schema);
    }
    schema
}

/// The result schema as `outputSchema`; before 2026-07-28 only when results are objects
/// (`structuredContent` must be an object there).
fn output_schema(
    document: &Document,
    method: &Method,
    revision: Revision,
    strict_unions: bool,
) -> Option<Value> {
    let result = method.result.as_ref()?;
    let mut bundler = Bundler::new(document, revision.dialect()).strict_unions(strict_unions);
    let root = bundler.resolve_root(&result.schema);
    if revision < Revision::V2026_07_28 && !is_object_schema(&root) {
        return None;
    }
    let rewritten = bundler.rewrite(&root);
    let mut schema = bundler.finish(rewritten);
    strip_header_annotations(&mut schema);
    Some(schema)
}

fn prompt(method: &Method, common: &McpCommon, revision: Revision) -> Value {
    let mut map = base(common, revision);
    if !method.params.is_empty() {
        let arguments = method
            .params
            .iter()
            .map(|param| {
                let mut argument = Map::new();
                argument.insert("name".into(), json!(param.name));
                if let Some(description) = param.description.as_ref().or(param.summary.as_ref()) {
                    argument.insert("description".into(), json!(description));
                }
                argument.insert("required".into(), json!(param.required));
                Value::Object(argument)
            })
            .collect();
        map.insert("arguments".into(), Value::Array(arguments));
    }
    finish(map, common, revision)
}

/// A resource or a resource template: its `address` (`("uri", ...)` or `("uriTemplate", ...)`)
/// first, then the common fields, `mimeType` and `annotations`.
fn resource(
    (address_key, address): (&str, &str),
    common: &McpCommon,
    mime_type: Option<&str>,
    annotations: Option<&Value>,
    revision: Revision,
) -> Value {
    let mut map = Map::new();
    map.insert(address_key.into(), json!(address));
    map.extend(base(common, revision));
    if let Some(mime_type) = mime_type {
        map.insert("mimeType".into(), json!(mime_type));
    }
    if let Some(annotations) = annotations {
        map.insert("annotations".into(), annotations.clone());
    }
    finish(map, common, revision)
}

/// A descriptor's texts for the four revisions (`Descriptor::json`), each stored once: the
/// array itself when the last two differ, else the texts up to the first of the last run of
/// equal ones, through `mcp_runtime::generated_support::revisions`, which repeats the last.
pub(crate) fn revision_texts(json: &[String]) -> proc_macro2::TokenStream {
    let mut distinct = json.len();
    while distinct > 1 && json[distinct - 1] == json[distinct - 2] {
        distinct -= 1;
    }
    let texts = json[..distinct].iter().map(|j| crate::tokens::str_lit(j));
    if distinct == json.len() {
        quote::quote!([#(#texts),*])
    } else {
        quote::quote!(::mcp_runtime::generated_support::revisions([#(#texts),*]))
    }
}
