//! The `Handler` trait: one async method per OpenRPC method, typed params in, typed result out.

use proc_macro2::TokenStream;
use quote::quote;

use super::format::{Frame, Slot};
use super::plan::MethodPlan;
use crate::tokens::{doc_attrs, ident, paragraphs};
use crate::typespace::TypeSpace;

/// `pub trait Handler { ... }`, its methods set aside in `frame`.
pub(crate) fn handler_trait(
    methods: &[MethodPlan<'_>],
    types: &TypeSpace,
    frame: &mut Frame,
) -> TokenStream {
    let types_path = quote!(types);
    let fns = methods.iter().map(|plan| {
        let name = ident(&plan.fn_name);
        let method = plan.method;
        let kind = match plan.binding() {
            Some(binding) => format!(
                "MCP {} `{}`; JSON-RPC method `{}`.",
                binding.kind().as_str(),
                binding.common().name,
                method.name
            ),
            None => format!("JSON-RPC method `{}`.", method.name),
        };
        let docs = doc_attrs(&paragraphs(&[
            method.summary.as_deref(),
            method.description.as_deref(),
            Some(&kind),
        ]));
        let deprecated = method.deprecated.then(|| quote!(#[deprecated]));
        let params = plan.params.map(|ty| {
            let ty = types.type_expr(ty, &types_path);
            quote!(, params: #ty)
        });
        let output = plan.result_type(types);
        let completions = plan.completions.iter().map(|completion| {
            let name = ident(&completion.fn_name);
            let target = match plan.binding() {
                Some(binding) => format!(
                    "{} `{}`",
                    binding.kind().as_str().replace('-', " "),
                    binding.common().name
                ),
                None => format!("method `{}`", method.name),
            };
            let docs = doc_attrs(&paragraphs(&[
                Some(&format!(
                    "Completes `{}` of the {target} (`completion/complete`): the values to offer for what the user typed, `request.value`, given the arguments already chosen, `request.arguments`.",
                    completion.argument
                )),
                Some("The first 100 are sent, with the total count."),
            ]));
            quote! {
                #docs
                fn #name(
                    &self,
                    ctx: &::mcp_runtime::RequestContext,
                    request: ::mcp_runtime::CompletionRequest,
                ) -> impl ::std::future::Future<
                    Output = ::std::result::Result<::std::vec::Vec<::std::string::String>, ::mcp_runtime::Error>,
                > + ::std::marker::Send;
            }
        });
        quote! {
            #docs
            #deprecated
            fn #name(
                &self,
                ctx: &::mcp_runtime::RequestContext
                #params
            ) -> impl ::std::future::Future<
                Output = ::std::result::Result<#output, ::mcp_runtime::Error>,
            > + ::std::marker::Send;
            #(#completions)*
        }
    });
    let fns = frame.run(Slot::TraitItems, fns.collect());
    quote! {
        /// Implement this trait to serve the document: one method per OpenRPC method.
        ///
        /// Write each method as an `async fn`. A returned `Err` becomes an `isError` result for
        /// a tool, and a JSON-RPC error otherwise.
        pub trait Handler: ::std::marker::Send + ::std::marker::Sync + 'static {
            #fns
        }
    }
}
