//! What the emitter needs to know about each method, decided once: Rust names and the types of
//! its params and result in the type space.

use heck::ToUpperCamelCase;
use serde_json::{json, Map, Value};

use crate::diagnostics::{Diagnostic, Diagnostics, Location};
use crate::names::{camel_ident, snake_ident, Scope};
use crate::openrpc::{Document, McpBinding, McpOutput, Method};
use crate::typespace::{TypeId, TypeSpace};
use proc_macro2::TokenStream;
use quote::quote;

/// One method, ready to emit.
pub struct MethodPlan<'d> {
    /// The method as loaded.
    pub method: &'d Method,
    /// The handler method's identifier (`snake_case`, unique in the trait).
    pub fn_name: String,
    /// The params struct, or `None` when the method takes no params.
    pub params: Option<TypeId>,
    /// The result type, or `None` for a notification.
    pub result: Option<TypeId>,
    /// The prompt arguments or template variables the application completes
    /// (`x-mcp.complete`), each with its handler method.
    pub completions: Vec<CompletionPlan>,
    /// Whether the handler method forwards to the upstream by default (a gateway's method:
    /// [`super::Gateway`]); its result is then `mcp_runtime::upstream::Forwarded<T>`.
    pub forwarded: bool,
    /// Whether the forwarding body checks the upstream's result against the result schema
    /// (`--check-results`), so the tool publishes its `outputSchema`.
    pub checks_result: bool,
    /// The tool's result budget in bytes ([`super::result_budget`]): a larger result is kept
    /// and answered with a preview and a link to read it in pages, so the tool publishes no
    /// `outputSchema`. `None`: no budget (every result whole; always so for a method that is
    /// not a tool).
    pub result_budget: Option<u32>,
}

/// A prompt argument or template variable the handler completes.
pub struct CompletionPlan {
    /// The param's name (the argument or variable).
    pub argument: String,
    /// The handler method's identifier (`complete_<method>_<param>`, unique in the trait).
    pub fn_name: String,
}

impl<'d> MethodPlan<'d> {
    /// The method's MCP binding, if it has one.
    pub fn binding(&self) -> Option<&'d McpBinding> {
        self.method.mcp.as_ref()
    }

    /// Whether the handler returns the MCP result itself (`x-mcp.output: "mcp"`).
    pub fn returns_mcp(&self) -> bool {
        returns_mcp(self.method)
    }

    /// Whether the result is passed through unchecked (forwarded without `--check-results`):
    /// the tool then publishes no `outputSchema`.
    pub fn passes_through(&self) -> bool {
        self.forwarded && !self.checks_result
    }

    /// Whether the tool publishes no `outputSchema` though its result is typed: its result is
    /// passed through ([`MethodPlan::passes_through`]), or it has a result budget (a preview
    /// does not have the result's shape).
    pub fn publishes_no_output_schema(&self) -> bool {
        self.passes_through() || self.result_budget.is_some()
    }

    /// The handler's return type as seen from next to the types module: the result schema's
    /// type, the runtime's MCP result type, or `()` for a notification.
    pub fn result_type(&self, types: &TypeSpace) -> TokenStream {
        if let (true, Some(ty)) = (self.forwarded, self.result) {
            let ty = types.type_expr(ty, &quote!(types));
            return quote!(::mcp_runtime::upstream::Forwarded<#ty>);
        }
        match (self.binding(), self.result) {
            (Some(binding), _) if self.returns_mcp() => match binding {
                McpBinding::Tool(_) => quote!(::mcp_runtime::mcp::ToolResult),
                McpBinding::Prompt(_) => quote!(::mcp_runtime::mcp::GetPromptResult),
                McpBinding::Resource(_) | McpBinding::ResourceTemplate(_) => {
                    quote!(::mcp_runtime::mcp::ReadResourceResult)
                }
            },
            (_, Some(ty)) => types.type_expr(ty, &quote!(types)),
            (_, None) => quote!(()),
        }
    }
}

/// Lowers every named schema and every method's params and result into `types`, and names the
/// handler methods. What lowering warns about is added to `warnings`, placed at the schema it
/// was found in (a named schema, a method's params or its result).
pub fn plan<'d>(
    document: &'d Document,
    types: &mut TypeSpace,
    warnings: &mut Diagnostics,
) -> Vec<MethodPlan<'d>> {
    for (key, named) in &document.schemas {
        types.add_named(key, &named.name, &named.schema);
    }
    let mut fn_names = Scope::new();
    let mut plans: Vec<MethodPlan<'d>> = document
        .methods
        .iter()
        .map(|method| {
            let type_base = camel_ident(&method.name)
                .trim_start_matches("r#")
                .to_upper_camel_case();
            let params = (!method.params.is_empty())
                .then(|| types.add_inline(&params_schema(method), &format!("{type_base}Params")));
            let params_at = document.sources.child_or_self(&method.location, "params");
            place_warnings(document, types, &params_at, warnings);
            let result = method
                .result
                .as_ref()
                .filter(|_| !returns_mcp(method))
                .map(|result| types.add_inline(&result.schema, &format!("{type_base}Result")));
            if let Some(result) = &method.result {
                let result_at = document.sources.child_or_self(&result.location, "schema");
                place_warnings(document, types, &result_at, warnings);
            }
            MethodPlan {
                method,
                fn_name: fn_names.unique_ident(&snake_ident(&method.name)),
                params,
                result,
                completions: Vec::new(),
                forwarded: false,
                checks_result: false,
                result_budget: None,
            }
        })
        .collect();
    // Named after every method, so a method keeps its own name when they would collide.
    for plan in &mut plans {
        plan.completions = plan
            .method
            .params
            .iter()
            .filter(|param| param.complete)
            .map(|param| CompletionPlan {
                argument: param.name.clone(),
                fn_name: fn_names.unique_ident(&snake_ident(&format!(
                    "complete_{}_{}",
                    plan.fn_name.trim_start_matches("r#"),
                    param.name
                ))),
            })
            .collect();
    }
    plans
}

/// Moves the warnings lowering has found into `warnings`: one about a named schema at that
/// schema, one about the inline schema just added at `inline`.
pub fn place_warnings(
    document: &Document,
    types: &mut TypeSpace,
    inline: &Location,
    warnings: &mut Diagnostics,
) {
    for warning in types.take_warnings() {
        let location = warning
            .registered
            .as_deref()
            .and_then(|key| document.schemas.get(key))
            .map_or_else(|| inline.clone(), |named| named.location.clone());
        warnings.push(Diagnostic::warning(warning.rule, location, warning.message));
    }
}

/// Whether the handler of `method` returns the MCP result itself (`x-mcp.output: "mcp"`), so
/// its result schema types nothing (and a gateway cannot forward it: the upstream answers
/// with a result of the contract, not an MCP one).
pub(crate) fn returns_mcp(method: &Method) -> bool {
    method
        .mcp
        .as_ref()
        .is_some_and(|b| b.common().output == McpOutput::Mcp)
}

/// The object schema of a method's params: properties in declaration order, the required ones
/// listed, each carrying its content descriptor's description when its schema has none.
fn params_schema(method: &Method) -> Value {
    let mut properties = Map::new();
    let mut required = Vec::new();
    for param in &method.params {
        let mut schema = param.schema.clone();
        let description = param.description.as_ref().or(param.summary.as_ref());
        if let (Value::Object(map), Some(description)) = (&mut schema, description) {
            if !map.contains_key("description") && !map.contains_key("$ref") {
                map.insert("description".into(), json!(description));
            }
        }
        properties.insert(param.name.clone(), schema);
        if param.required {
            required.push(json!(param.name));
        }
    }
    let mut schema = json!({
        "type": "object",
        "description": format!("Params of `{}`.", method.name),
        "properties": properties,
        "required": required,
    });
    // A param whose name was made portable is read under the document's name too (the plain
    // JSON-RPC endpoint's callers use the document's).
    let aliases: Map<String, Value> = method
        .params
        .iter()
        .filter_map(|param| Some((param.name.clone(), json!(param.document_name.as_ref()?))))
        .collect();
    if !aliases.is_empty() {
        schema[crate::typespace::ALIASES_KEY] = Value::Object(aliases);
    }
    schema
}
