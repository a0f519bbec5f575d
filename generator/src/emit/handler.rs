//! The `Handler` trait: one async method per OpenRPC method, typed params in, typed result out.

use proc_macro2::TokenStream;
use quote::quote;

use super::format::{Frame, Slot};
use super::plan::MethodPlan;
use super::upstream::upstream_params;
use crate::tokens::{doc_attrs, ident, paragraphs};
use crate::typespace::{Checks, TypeId, TypeSpace};

/// `pub trait Handler { ... }`, its methods set aside in `frame`.
pub(crate) fn handler_trait(
    methods: &[MethodPlan<'_>],
    types: &TypeSpace,
    checks: &Checks,
    frame: &mut Frame,
) -> TokenStream {
    let types_path = quote!(types);
    // A subscription's method is no call the handler answers: its resource's feed is the
    // upstream's (`upstream::feed`).
    let methods: Vec<&MethodPlan<'_>> = methods
        .iter()
        .filter(|plan| super::upstream::feed(plan).is_none())
        .collect();
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
        let forwarding = plan.forwarded.then(|| {
            let checked = match plan.checks_result {
                true => " Its result is checked against the document's result schema.",
                false => "",
            };
            format!(
                "Forwarded to the upstream's `{}` unless the handler implements it.{checked}",
                method.name
            )
        });
        let docs = doc_attrs(&paragraphs(&[
            method.summary.as_deref(),
            method.description.as_deref(),
            Some(&kind),
            forwarding.as_deref(),
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
                    ctx: &RequestContext,
                    request: CompletionRequest,
                ) -> impl Future<Output = Result<Vec<String>, Error>> + Send;
            }
        });
        let body = match plan.forwarded {
            // A call of the method's function in `forwarding`: the upstream call compiled once
            // there, not again for each type that implements the trait (a default body is
            // compiled where it is used, in the crate that implements it).
            true => {
                let args = plan.params.map(|_| quote!(, params));
                quote!({
                    forwarding::#name(self.upstream(), ctx #args)
                })
            }
            false => quote!(;),
        };
        quote! {
            #docs
            #deprecated
            fn #name(
                &self,
                ctx: &RequestContext
                #params
            ) -> impl Future<Output = Result<#output, Error>> + Send #body
            #(#completions)*
        }
    });
    let fns = frame.run(Slot::TraitItems, fns.collect());
    let forwarded: Vec<TokenStream> = methods
        .iter()
        .filter(|plan| plan.forwarded)
        .map(|plan| {
            let name = ident(&plan.fn_name);
            let params = plan.params.map(|ty| {
                let ty = types.type_expr(ty, &types_path);
                quote!(, params: #ty)
            });
            let output = plan.result_type(types);
            let body = forwarding_body(plan, types, checks);
            quote! {
                pub(super) async fn #name(
                    upstream: &::mcp_runtime::upstream::Upstream,
                    ctx: &RequestContext
                    #params
                ) -> Result<#output, Error> {
                    #body
                }
            }
        })
        .collect();
    if !forwarded.is_empty() {
        let forwarded = frame.run(Slot::ModuleItems, forwarded);
        return quote! {
            /// Implement this trait to serve the document: one method per OpenRPC method,
            /// each forwarded to the upstream JSON-RPC service unless implemented here.
            ///
            /// Give the upstream with `upstream`; write any method as an `async fn` to serve it
            /// by hand (the others stay forwarded). A returned `Err` becomes an `isError`
            /// result for a tool, and a JSON-RPC error otherwise.
            pub trait Handler: Send + Sync + 'static {
                /// The upstream the forwarded methods call.
                fn upstream(&self) -> &::mcp_runtime::upstream::Upstream;

                #fns
            }

            /// Each forwarded method's call of the upstream, which the `Handler` trait's
            /// default bodies return: compiled here once, not in the crate that implements
            /// the trait.
            #[allow(unused_imports)]
            mod forwarding {
                use super::*;

                #forwarded
            }
        };
    }
    quote! {
        /// Implement this trait to serve the document: one method per OpenRPC method.
        ///
        /// Write each method as an `async fn`. A returned `Err` becomes an `isError` result for
        /// a tool, and a JSON-RPC error otherwise.
        pub trait Handler: Send + Sync + 'static {
            #fns
        }
    }
}

/// The default body of a forwarded method: its params encoded as the method's
/// `paramStructure` says, in declaration order, and sent to the upstream under the method's
/// own name; the result passed through (a notification's result dropped), or with
/// `--check-results` checked first ([`result_check`]).
fn forwarding_body(plan: &MethodPlan<'_>, types: &TypeSpace, checks: &Checks) -> TokenStream {
    let method = plan.method;
    let wire = &method.name;
    let (structure, params, order) = upstream_params(plan);
    let call = quote! {
        upstream.forward(
            ctx,
            #wire,
            #structure,
            #params,
            #order,
        )
    };
    match plan.result {
        Some(ty) if plan.checks_result => {
            let check = result_check(&method.name, ty, types, checks);
            quote!(#call.await?#check)
        }
        Some(_) => quote!(#call.await),
        None => quote! {
            let _: ::mcp_runtime::upstream::Forwarded<::serde_json::Value> = #call.await?;
            ::std::result::Result::Ok(())
        },
    }
}

/// `.check_result("method", |value: &T, path, out| { ... })`: the forwarded result decoded into
/// its type (the pointer of a value that does not decode) and then checked by the rules serde
/// does not check, the same generated checks as arguments get; `|_: &T, _, _| {}` when the type has
/// none.
fn result_check(wire: &str, ty: TypeId, types: &TypeSpace, checks: &Checks) -> TokenStream {
    // The value's type written out: it is what decides the forwarded call's result type.
    let value_type = types.type_expr(ty, &quote!(types));
    let rules = match checks.value_checks(types, ty) {
        Some(statements) => quote!(|value: &#value_type, path, out| { #statements }),
        None => quote!(|_: &#value_type, _, _| {}),
    };
    quote!(.check_result(#wire, #rules))
}
