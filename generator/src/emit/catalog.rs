//! The catalog constant (`descriptors::CATALOG`: every descriptor per revision, the
//! completions), the bundled OpenRPC document `rpc.discover` answers, and the server card.

use heck::ToKebabCase;
use proc_macro2::TokenStream;
use quote::quote;
use serde_json::Value;

use super::descriptors::descriptor_json_of;
use super::plan::MethodPlan;
use crate::openrpc::{Document, McpBinding, McpKind};
use crate::tokens::str_lit;

/// `OPENRPC_DOCUMENT`: the document bundled into one, compact, for `rpc.discover`.
pub fn openrpc_document(document: &Document) -> TokenStream {
    let text = serde_json::to_string(&document.bundled_json)
        .expect("a JSON value read from text always serializes");
    let text = str_lit(&text);
    let doc = if document.files.len() > 1 {
        quote! {
            /// The OpenRPC document this server was generated from (its root file with the
            /// files it refers to bundled in, compact JSON): the result of `rpc.discover` on
            /// the plain JSON-RPC endpoint.
        }
    } else {
        quote! {
            /// The OpenRPC document this server was generated from (its root file, compact JSON):
            /// the result of `rpc.discover` on the plain JSON-RPC endpoint.
        }
    };
    quote! {
        #doc
        pub const OPENRPC_DOCUMENT: &str = #text;
    }
}

/// `SERVER_CARD`: the contract's server card, compact, when it has one (`info["x-mcp"].card`).
pub fn server_card(document: &Document) -> TokenStream {
    let Some(card) = crate::server_card::card(document) else {
        return TokenStream::new();
    };
    let text = serde_json::to_string(&card).expect("a JSON value always serializes");
    let text = str_lit(&text);
    quote! {
        /// The server card (SEP-2127) from the contract, without the `remotes` a running server
        /// adds: served at `<mcp-url>/server-card` when the server card is turned on.
        pub const SERVER_CARD: &str = #text;
    }
}

/// `pub static CATALOG: ::mcp_runtime::Catalog = ...`.
pub fn catalog(
    document: &Document,
    methods: &[MethodPlan<'_>],
    skills: &[crate::skills::Skill],
    strict_unions: bool,
) -> TokenStream {
    let server = &document.server;
    let name = server
        .name
        .clone()
        .unwrap_or_else(|| document.info.title.to_kebab_case());
    let name = str_lit(&name);
    let version = str_lit(&document.info.version);
    let title = option_str(
        server
            .title
            .as_deref()
            .or(Some(document.info.title.as_str()))
            .filter(|t| !t.is_empty()),
    );
    let website = option_str(server.website_url.as_deref());
    let instructions = option_str(server.instructions.as_deref());
    let list = |kind: McpKind, extra: Vec<TokenStream>| {
        let mut entries: Vec<TokenStream> = methods
            .iter()
            .filter_map(|plan| {
                let binding = plan.binding().filter(|b| b.kind() == kind)?;
                let key = str_lit(binding.key());
                let json = descriptor_json_of(
                    document,
                    plan.method,
                    binding,
                    plan.publishes_no_output_schema(),
                    strict_unions,
                    plan.result_budget.is_some(),
                );
                let json = super::descriptors::revision_texts(&json);
                Some(quote! {
                    ::mcp_runtime::Descriptor { key: #key, json: #json }
                })
            })
            .collect();
        entries.extend(extra);
        quote!(&[#(#entries),*])
    };
    let tools = list(McpKind::Tool, Vec::new());
    let prompts = list(McpKind::Prompt, Vec::new());
    // Each skill's SKILL.md is a resource too, after the contract's own.
    let resources = list(McpKind::Resource, crate::skills::skill_descriptors(skills));
    // A server that keeps results over a tool's budget serves their pages, after the
    // contract's own templates (a contract's URI cannot be `mcp-result:`: `validate`).
    let pages = methods
        .iter()
        .any(|plan| plan.result_budget.is_some())
        .then(|| quote!(::mcp_runtime::generated_support::RESULT_PAGES));
    let templates = list(McpKind::ResourceTemplate, pages.into_iter().collect());
    let completions = completions(document, methods);
    quote! {
        /// The server's identity and its tools, prompts, resources and resource templates.
        pub static CATALOG: ::mcp_runtime::Catalog = ::mcp_runtime::Catalog {
            server: ::mcp_runtime::ServerInfo {
                name: #name,
                version: #version,
                title: #title,
                website_url: #website,
            },
            instructions: #instructions,
            tools: #tools,
            prompts: #prompts,
            resources: #resources,
            resource_templates: #templates,
            completions: &[#(#completions),*],
        };
    }
}

/// `completion/complete` entries: every prompt argument and template variable whose schema is a
/// string enum offers its values.
fn completions(document: &Document, methods: &[MethodPlan<'_>]) -> Vec<TokenStream> {
    let mut entries = Vec::new();
    for plan in methods {
        let Some(binding) = plan.binding() else {
            continue;
        };
        let (kind, reference) = match binding {
            McpBinding::Prompt(prompt) => (quote!(Prompt), prompt.common.name.as_str()),
            McpBinding::ResourceTemplate(template) => {
                (quote!(Resource), template.uri_template.as_str())
            }
            McpBinding::Tool(_) | McpBinding::Resource(_) => continue,
        };
        for param in &plan.method.params {
            let Some(values) = string_enum(document, &param.schema) else {
                continue;
            };
            let reference = str_lit(reference);
            let argument = str_lit(&param.name);
            let values = values.iter().map(|v| str_lit(v));
            entries.push(quote! {
                ::mcp_runtime::Completion {
                    kind: ::mcp_runtime::CompletionKind::#kind,
                    reference: #reference,
                    argument: #argument,
                    values: &[#(#values),*],
                }
            });
        }
    }
    entries
}

/// The values of a string `enum` schema, following `$ref`s to the document's named schemas.
fn string_enum(document: &Document, schema: &Value) -> Option<Vec<String>> {
    let mut current = schema;
    for _ in 0..16 {
        match current.get("$ref").and_then(Value::as_str) {
            Some(key) => current = &document.schemas.get(key)?.schema,
            None => break,
        }
    }
    current
        .get("enum")?
        .as_array()?
        .iter()
        .map(|v| v.as_str().map(str::to_string))
        .collect()
}

/// `::std::option::Option::Some("text")` or `::std::option::Option::None`, in the
/// descriptors (which have no prelude).
fn option_str(value: Option<&str>) -> TokenStream {
    match value {
        Some(text) => {
            let lit = str_lit(text);
            quote!(::std::option::Option::Some(#lit))
        }
        None => quote!(::std::option::Option::None),
    }
}
