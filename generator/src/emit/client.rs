//! The typed client: `pub mod client { pub struct Client ... }`, one async method per tool,
//! prompt, resource and resource template of the contract, over the runtime's MCP client.
//!
//! Each method is one call of `mcp_runtime::client::typed`, which undoes what the server's
//! dispatch ([`super::server`]) did with a handler's result. Params types with checks beyond
//! serde's are checked before anything is sent, with the server's own rules.

use proc_macro2::TokenStream;
use quote::quote;

use super::plan::MethodPlan;
use crate::names::Scope;
use crate::openrpc::McpBinding;
use crate::tokens::{doc_attrs, ident, paragraphs, str_lit};
use crate::typespace::{Checks, TypeSpace};

/// The names of the client's own methods, which no contract method may take.
const OWN_METHODS: [&str; 5] = ["connect", "from_client", "inner", "into_inner", "close"];

/// `pub mod client { ... }`: the `Client` struct and its methods.
pub(crate) fn client_module(
    methods: &[MethodPlan<'_>],
    types: &TypeSpace,
    checks: &Checks,
) -> TokenStream {
    let bound: Vec<(&MethodPlan<'_>, &McpBinding)> = methods
        .iter()
        .filter_map(|plan| Some((plan, plan.binding()?)))
        .collect();
    let names = method_names(bound.iter().map(|(plan, _)| plan.fn_name.as_str()));
    let calls: Vec<TokenStream> = bound
        .iter()
        .zip(&names)
        .map(|((plan, binding), name)| call_method(plan, binding, name, types, checks))
        .collect();
    // Only when a call names a generated type: params or results of built-in types alone
    // (a string, a number) leave `types` unused.
    let uses_types = calls
        .iter()
        .any(|call| call.to_string().contains("types ::"));
    let types_import = uses_types.then(|| {
        quote!(
            use super::types;
        )
    });
    let calls_import = (!calls.is_empty()).then(|| {
        quote! {
            use ::mcp_runtime::client::typed;
            use ::mcp_runtime::client::CallError;
        }
    });
    quote! {
        /// A typed client of the contract's MCP server: one method per tool, prompt, resource
        /// and resource template, typed params in and typed result out, over
        /// [`mcp_runtime::client::Client`] (either era, chosen when it connects).
        pub mod client {
            #types_import
            #calls_import
            use ::mcp_runtime::client::ClientError;

            /// The contract's methods, called over MCP.
            ///
            /// A call fails with `CallError::InvalidArguments` before sending when its params
            /// break the contract's schema, with `CallError::Tool` when a tool reports an error,
            /// and with `CallError::Client` when the request itself fails.
            pub struct Client {
                inner: ::mcp_runtime::client::Client,
            }

            impl Client {
                /// Connects to the MCP endpoint at `url` with the default settings (era
                /// `Auto`); build a [`mcp_runtime::client::Client`] for headers, a timeout,
                /// an era or a handler, then [`Client::from_client`].
                pub async fn connect(url: &str) -> ::std::result::Result<Self, ClientError> {
                    let inner = ::mcp_runtime::client::Client::builder(url).connect().await?;
                    ::std::result::Result::Ok(Self { inner })
                }

                /// Wraps a connected client.
                pub fn from_client(inner: ::mcp_runtime::client::Client) -> Self {
                    Self { inner }
                }

                /// The untyped client underneath: lists, completion, raw requests.
                pub fn inner(&self) -> &::mcp_runtime::client::Client {
                    &self.inner
                }

                /// Unwraps the untyped client.
                pub fn into_inner(self) -> ::mcp_runtime::client::Client {
                    self.inner
                }

                /// Ends the session (a legacy-era `DELETE`; nothing to do in 2026-07-28).
                pub async fn close(self) -> ::std::result::Result<(), ClientError> {
                    self.inner.close().await
                }

                #(#calls)*
            }
        }
    }
}

/// The client's method names for the handler's `fn_names` of the MCP-bound methods, in
/// order: the same names, except where one is the client's own ([`OWN_METHODS`]).
pub(crate) fn method_names<'a>(fn_names: impl Iterator<Item = &'a str>) -> Vec<String> {
    let mut scope = Scope::new();
    for own in OWN_METHODS {
        scope.reserve(own);
    }
    fn_names.map(|name| scope.unique_ident(name)).collect()
}

/// One method of the client: check the params, make the request, decode the result.
fn call_method(
    plan: &MethodPlan<'_>,
    binding: &McpBinding,
    name: &str,
    types: &TypeSpace,
    checks: &Checks,
) -> TokenStream {
    let common = binding.common();
    let wire = str_lit(&common.name);
    let method = plan.method;
    let calls = match binding {
        McpBinding::Tool(_) => format!("Calls the tool `{}` (`tools/call`).", common.name),
        McpBinding::Prompt(_) => format!("Gets the prompt `{}` (`prompts/get`).", common.name),
        McpBinding::Resource(resource) => {
            format!("Reads the resource `{}` (`resources/read`).", resource.uri)
        }
        McpBinding::ResourceTemplate(template) => format!(
            "Reads the resource template `{}` with the params as its variables (`resources/read`).",
            template.uri_template
        ),
    };
    let docs = doc_attrs(&paragraphs(&[
        method.summary.as_deref(),
        method.description.as_deref(),
        Some(&calls),
    ]));
    let deprecated = method.deprecated.then(|| quote!(#[deprecated]));
    let fn_name = ident(name);
    // A static resource's params, if any, are not part of its URI: the server reads it without
    // them, so the client takes none.
    let params_ty = plan
        .params
        .filter(|_| !matches!(binding, McpBinding::Resource(_)));
    let params = params_ty.map(|ty| types.type_expr(ty, &quote!(types)));
    let param = params.as_ref().map(|ty| quote!(, params: &#ty));
    let check = params_ty
        .filter(|ty| checks.needed(*ty))
        .map(|_| quote!(typed::check_arguments(params)?;));
    let arguments = match params {
        Some(_) => quote!(params),
        None => quote!(&typed::NoArguments {}),
    };
    let mcp = plan.returns_mcp();
    let (output, body) = match binding {
        McpBinding::Tool(_) if mcp => (
            quote!(::serde_json::Value),
            quote!(typed::call_tool_result(&self.inner, #wire, #arguments).await),
        ),
        McpBinding::Tool(_) => (
            plan.result_type(types),
            quote!(typed::call_tool(&self.inner, #wire, #arguments).await),
        ),
        McpBinding::Prompt(_) if mcp => (
            plan.result_type(types),
            quote!(typed::get_prompt_result(&self.inner, #wire, #arguments).await),
        ),
        McpBinding::Prompt(_) => (
            plan.result_type(types),
            quote!(typed::get_prompt(&self.inner, #wire, #arguments).await),
        ),
        McpBinding::Resource(resource) => {
            let uri = str_lit(&resource.uri);
            let read = read_fn(mcp);
            (
                plan.result_type(types),
                quote!(typed::#read(&self.inner, #uri).await),
            )
        }
        McpBinding::ResourceTemplate(template) => {
            let template = str_lit(&template.uri_template);
            let read = read_fn(mcp);
            (
                plan.result_type(types),
                quote! {
                    let uri = typed::template_uri(#template, #arguments)?;
                    typed::#read(&self.inner, &uri).await
                },
            )
        }
    };
    quote! {
        #docs
        #deprecated
        pub async fn #fn_name(&self #param) -> ::std::result::Result<#output, CallError> {
            #check
            #body
        }
    }
}

/// `read_resource`, or `read_resource_result` for a handler that returns the MCP result.
fn read_fn(returns_mcp: bool) -> TokenStream {
    match returns_mcp {
        true => quote!(read_resource_result),
        false => quote!(read_resource),
    }
}
