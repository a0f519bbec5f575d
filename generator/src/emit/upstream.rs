//! What the code of a gateway (a contract forwarded to its upstream, `--upstream`) needs from a
//! method's plan, read by both the handler's emitter (`handler.rs`: forwarded calls) and the
//! server's (`server.rs`: subscription templates).

use proc_macro2::TokenStream;
use quote::quote;

use super::plan::MethodPlan;
use crate::openrpc::ParamStructure;
use crate::openrpc::{McpBinding, ResourceTemplateBinding};

/// How a forwarded method's params go to the upstream: its `ParamStructure`, the params
/// (`&params`, or `&()` for none) and their order (`const { &[Param::required("a"), ..] }`,
/// in declaration order, each by its document name).
pub(super) fn upstream_params(plan: &MethodPlan<'_>) -> (TokenStream, TokenStream, TokenStream) {
    let method = plan.method;
    let structure = match method.param_structure {
        ParamStructure::ByName => quote!(ByName),
        ParamStructure::ByPosition => quote!(ByPosition),
        ParamStructure::Either => quote!(Either),
    };
    let order = method.params.iter().map(|param| {
        let name = param.document_name.as_ref().unwrap_or(&param.name);
        let param_of = match param.required {
            true => quote!(::mcp_runtime::upstream::Param::required(#name)),
            false => quote!(::mcp_runtime::upstream::Param::optional(#name)),
        };
        match &param.document_name {
            Some(_) => {
                let key = &param.name;
                quote!(#param_of.keyed(#key))
            }
            None => param_of,
        }
    });
    let params = match plan.params {
        Some(_) => quote!(&params),
        None => quote!(&()),
    };
    (
        quote!(::mcp_runtime::ParamStructure::#structure),
        params,
        quote!(const { &[#(#order),*] }),
    )
}

/// The template of a forwarded method that opens a subscription at the upstream
/// (`x-mcp.subscription`): each of its URIs is one, read and subscribed to through the
/// upstream's feeds (`server.rs`'s `feed_fns`). `None` for any other method (a subscription template of a
/// server that is not a gateway is read by its handler, as any template).
pub(super) fn feed<'p>(plan: &'p MethodPlan<'_>) -> Option<&'p ResourceTemplateBinding> {
    match plan.binding() {
        Some(McpBinding::ResourceTemplate(template))
            if plan.forwarded && template.subscription.is_some() =>
        {
            Some(template)
        }
        _ => None,
    }
}
