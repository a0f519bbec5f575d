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
