//! What the generated `static CONTRACT` enforces besides the catalog: each tool's, prompt's
//! and resource's scopes, rate limit and result budget, and each plain method's MCP face (the
//! call the policy decides it as), as the `fn`s `Contract::with_*` take.

use std::collections::{BTreeMap, BTreeSet};

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use super::plan::MethodPlan;
use crate::openrpc::McpBinding;
use crate::tokens::str_lit;

/// `fn required_scopes` and the contract's `.with_required_scopes(..).with_scopes_supported(..)`,
/// from `x-mcp` `scopes` and the document's default (for the plain JSON-RPC endpoint too,
/// under `"jsonrpc"` and the method's name, for every method, those without `x-mcp`
/// included); nothing (the contract's defaults, no scopes) when the document names none.
pub(super) fn scopes(
    methods: &[MethodPlan<'_>],
    default: Option<&[String]>,
) -> (TokenStream, TokenStream) {
    let mut arms = Vec::new();
    // After the exact URIs: a read of a URI the template matches (or of the template itself,
    // which is how lists filtered per caller name it).
    let mut template_arms = Vec::new();
    let mut plain_arms = Vec::new();
    let mut supported: Vec<&str> = default
        .unwrap_or_default()
        .iter()
        .map(String::as_str)
        .collect();
    for plan in methods {
        // On the plain JSON-RPC endpoint a method is decided as its MCP face (`fn face`); one
        // without (served there only with `--jsonrpc-unexposed`) takes the document's default.
        let Some(binding) = plan.binding() else {
            if let Some(scopes) = default {
                let name = plan.method.name.as_str();
                plain_arms.push(quote! { ("jsonrpc", #name) => &[#(#scopes),*], });
            }
            continue;
        };
        let common = binding.common();
        let Some(scopes) = &common.scopes else {
            continue;
        };
        let (method, key) = match binding {
            McpBinding::Tool(_) => ("tools/call", common.name.as_str()),
            McpBinding::Prompt(_) => ("prompts/get", common.name.as_str()),
            McpBinding::Resource(resource) => ("resources/read", resource.uri.as_str()),
            McpBinding::ResourceTemplate(template) => {
                ("resources/read", template.uri_template.as_str())
            }
        };
        for scope in scopes {
            if !supported.contains(&scope.as_str()) {
                supported.push(scope);
            }
        }
        if let McpBinding::ResourceTemplate(_) = binding {
            template_arms.push(quote! {
                ("resources/read", uri)
                    if uri == #key
                        || match_uri(#key, uri).is_some() =>
                {
                    &[#(#scopes),*]
                }
            });
            continue;
        }
        arms.push(quote! { (#method, #key) => &[#(#scopes),*], });
    }
    if arms.is_empty() && template_arms.is_empty() && default.is_none() {
        return (TokenStream::new(), TokenStream::new());
    }
    let default = default.unwrap_or_default();
    let lookup = quote! {
        /// The scopes a principal needs for `method` on `key` (the contract's `x-mcp` `scopes`).
        fn required_scopes(method: &str, key: &str) -> &'static [&'static str] {
            match (method, key) {
                #(#arms)*
                #(#template_arms)*
                ("tools/call" | "prompts/get" | "resources/read", _) => &[#(#default),*],
                #(#plain_arms)*
                _ => &[],
            }
        }
    };
    let builder = quote! {
        .with_required_scopes(&required_scopes)
        .with_scopes_supported(&[#(#supported),*])
    };
    (lookup, builder)
}

/// `fn rate_limit` and the contract's `.with_rate_limits(..)`, from `x-mcp` `rateLimit`: a match
/// on the MCP method and the tool or prompt name or resource URI (a template's URI through its
/// matcher; the plain JSON-RPC endpoint counts a method as its MCP face, `fn face`); nothing
/// (the contract's default, no limit) when no method has one.
pub(super) fn rate_limits(methods: &[MethodPlan<'_>]) -> (TokenStream, TokenStream) {
    let mut arms = Vec::new();
    let mut template_arms = Vec::new();
    for plan in methods {
        let Some(binding) = plan.binding() else {
            continue;
        };
        let common = binding.common();
        let Some((count, per_ms)) = common.rate_limit else {
            continue;
        };
        let rate = quote!(::mcp_runtime::rate_limit::Rate::new(#count, #per_ms));
        let (method, key) = match binding {
            McpBinding::Tool(_) => ("tools/call", common.name.as_str()),
            McpBinding::Prompt(_) => ("prompts/get", common.name.as_str()),
            McpBinding::Resource(resource) => ("resources/read", resource.uri.as_str()),
            McpBinding::ResourceTemplate(template) => {
                let key = template.uri_template.as_str();
                template_arms.push(quote! {
                    ("resources/read", uri)
                        if uri == #key
                            || ::mcp_runtime::uri_template::match_uri(#key, uri).is_some() =>
                    {
                        ::std::option::Option::Some(#rate)
                    }
                });
                continue;
            }
        };
        arms.push(quote! { (#method, #key) => ::std::option::Option::Some(#rate), });
    }
    if arms.is_empty() && template_arms.is_empty() {
        return (TokenStream::new(), TokenStream::new());
    }
    let lookup = quote! {
        /// The rate limit of `method` on `key` (the contract's `x-mcp` `rateLimit`).
        fn rate_limit(
            method: &str,
            key: &str,
        ) -> ::std::option::Option<::mcp_runtime::rate_limit::Rate> {
            match (method, key) {
                #(#arms)*
                #(#template_arms)*
                _ => ::std::option::Option::None,
            }
        }
    };
    (lookup, quote!(.with_rate_limits(&rate_limit)))
}

/// `fn result_budget` and the contract's `.with_result_budgets(&result_budget, SMALLEST)`,
/// from each tool's [`MethodPlan::result_budget`]: a match on the tool's published name, the
/// tools of one budget in one arm, arms by budget then name; SMALLEST is the smallest budget (a
/// result no longer than it is never kept, so the runtime measures no other). Nothing (the
/// contract's default, every result whole) when no tool has one.
pub(super) fn result_budgets(methods: &[MethodPlan<'_>]) -> (TokenStream, TokenStream) {
    let mut by_budget: BTreeMap<u32, BTreeSet<&str>> = BTreeMap::new();
    for plan in methods {
        if let (Some(bytes), Some(McpBinding::Tool(tool))) = (plan.result_budget, plan.binding()) {
            by_budget
                .entry(bytes)
                .or_default()
                .insert(tool.common.name.as_str());
        }
    }
    let Some(&smallest) = by_budget.keys().next() else {
        return (TokenStream::new(), TokenStream::new());
    };
    let bytes_lit = |bytes: u32| Literal::usize_suffixed(bytes as usize);
    let arms = by_budget.iter().map(|(&bytes, names)| {
        let names = names.iter().map(|name| str_lit(name));
        let bytes = bytes_lit(bytes);
        quote! { #(#names)|* => ::std::option::Option::Some(#bytes), }
    });
    let lookup = quote! {
        /// Each tool's result budget in bytes (`--result-budget`, `x-mcp` `resultBudget`): a larger
        /// result is kept and answered with a preview and a link to read it in pages.
        fn result_budget(tool: &str) -> ::std::option::Option<usize> {
            match tool {
                #(#arms)*
                _ => ::std::option::Option::None,
            }
        }
    };
    let smallest = bytes_lit(smallest);
    (
        lookup,
        quote!(.with_result_budgets(&result_budget, #smallest)),
    )
}

/// `fn face` and the contract's `.with_faces(..)`: each method MCP exposes, by its JSON-RPC
/// name, as the tool, prompt or resource it is published as, with its params' names (the
/// plain JSON-RPC endpoint serves only these, each decided as that MCP call).
pub(super) fn faces(methods: &[MethodPlan<'_>]) -> (TokenStream, TokenStream) {
    let arms: Vec<TokenStream> = methods
        .iter()
        .filter_map(|plan| {
            let binding = plan.binding()?;
            let name = plan.method.name.as_str();
            let params = plan.method.params.iter().map(|p| p.name.as_str());
            let (kind, key) = match binding {
                McpBinding::Tool(_) => (quote!(tool), binding.common().name.as_str()),
                McpBinding::Prompt(_) => (quote!(prompt), binding.common().name.as_str()),
                McpBinding::Resource(resource) => (quote!(resource), resource.uri.as_str()),
                McpBinding::ResourceTemplate(template) => {
                    (quote!(resource), template.uri_template.as_str())
                }
            };
            Some(quote! { #name => Face::#kind(#key, &[#(#params),*]), })
        })
        .collect();
    if arms.is_empty() {
        let lookup = quote! {
            /// No method is exposed to MCP: the plain JSON-RPC endpoint serves none.
            fn face(_: &str) -> ::std::option::Option<::mcp_runtime::dispatch::Face> {
                ::std::option::Option::None
            }
        };
        return (lookup, quote!(.with_faces(&face)));
    }
    let lookup = quote! {
        /// What each method MCP exposes is published as: the plain JSON-RPC endpoint serves
        /// only these, each decided as that MCP call.
        fn face(method: &str) -> ::std::option::Option<::mcp_runtime::dispatch::Face> {
            use ::mcp_runtime::dispatch::Face;
            ::std::option::Option::Some(match method {
                #(#arms)*
                _ => return ::std::option::Option::None,
            })
        }
    };
    (lookup, quote!(.with_faces(&face)))
}
