//! `Server<H>`: the generated `Dispatch` implementation (decode, call, encode per method), and
//! the catalog constant.

use heck::ToKebabCase;
use proc_macro2::TokenStream;
use quote::quote;
use serde_json::Value;

use super::descriptors::descriptor_json;
use super::format::{Frame, Slot};
use super::plan::MethodPlan;
use super::str_lit;
use crate::openrpc::{Document, McpKind, ParamStructure};
use crate::tokens::ident;
use crate::typespace::TypeSpace;

/// `pub struct Server<H>` and its `Dispatch` implementation, the arms of its `match`es set aside
/// in `frame`.
pub(crate) fn server(
    methods: &[MethodPlan<'_>],
    types: &TypeSpace,
    frame: &mut Frame,
) -> TokenStream {
    let types_path = quote!(types);
    let params_ty = |plan: &MethodPlan<'_>| plan.params.map(|ty| types.type_expr(ty, &types_path));

    let method_arms = methods.iter().map(|plan| {
        let wire = str_lit(&plan.method.name);
        let call = call_expr(plan);
        let decode = params_ty(plan).map(|ty| {
            let structure = match plan.method.param_structure {
                ParamStructure::ByName => quote!(ByName),
                ParamStructure::ByPosition => quote!(ByPosition),
                ParamStructure::Either => quote!(Either),
            };
            quote! {
                let params: #ty = ::mcp_runtime::dispatch::decode_params(
                    params,
                    ::mcp_runtime::ParamStructure::#structure,
                )?;
            }
        });
        let call_and_encode = match plan.result {
            Some(_) => quote! {
                let result = #call.await.map_err(::mcp_runtime::Error::into_rpc_error)?;
                ::mcp_runtime::dispatch::encode_result(&result)
            },
            None => quote! {
                #call.await.map_err(::mcp_runtime::Error::into_rpc_error)?;
                ::mcp_runtime::dispatch::encode_result(&())
            },
        };
        quote! {
            #wire => ::std::option::Option::Some(::std::boxed::Box::pin(async move {
                #decode
                #call_and_encode
            })),
        }
    });

    let of_kind = |kind: McpKind| {
        methods
            .iter()
            .filter(move |plan| plan.binding().is_some_and(|b| b.kind == kind))
    };

    let tool_arms = of_kind(McpKind::Tool).map(|plan| {
        let name = str_lit(&plan.binding().expect("filtered on binding").name);
        let call = call_expr(plan);
        let decode = params_ty(plan).map(|ty| {
            quote! {
                let params: #ty = match ::mcp_runtime::dispatch::decode_arguments(arguments) {
                    ::std::result::Result::Ok(params) => params,
                    ::std::result::Result::Err(message) => {
                        return ::mcp_runtime::ToolOutcome::InvalidArguments(message);
                    }
                };
            }
        });
        let outcome = if plan.returns_mcp() {
            quote!(::mcp_runtime::ToolOutcome::from_mcp(#call.await))
        } else {
            quote!(::mcp_runtime::ToolOutcome::from_result(#call.await))
        };
        quote! {
            #name => ::std::option::Option::Some(::std::boxed::Box::pin(async move {
                #decode
                #outcome
            })),
        }
    });

    let prompt_arms = of_kind(McpKind::Prompt).map(|plan| {
        let binding = plan.binding().expect("filtered on binding");
        let name = str_lit(&binding.name);
        let description = option_str(binding.description.as_deref());
        let encode = if plan.returns_mcp() {
            quote!(::mcp_runtime::dispatch::encode_result(&result))
        } else {
            quote!(::mcp_runtime::dispatch::prompt_result(#description, &result))
        };
        let call = call_expr(plan);
        let decode = params_ty(plan).map(|ty| {
            quote! {
                let params: #ty = ::mcp_runtime::dispatch::decode_arguments(arguments)
                    .map_err(|message| ::mcp_runtime::RpcError::invalid_params(
                        ::std::format!("Invalid arguments: {message}"),
                    ))?;
            }
        });
        quote! {
            #name => ::std::option::Option::Some(::std::boxed::Box::pin(async move {
                #decode
                let result = #call.await.map_err(::mcp_runtime::Error::into_mcp_error)?;
                #encode
            })),
        }
    });

    let static_resources = of_kind(McpKind::Resource).map(|plan| {
        let binding = plan.binding().expect("filtered on binding");
        let uri = str_lit(binding.uri.as_deref().unwrap_or_default());
        let encode = resource_encode(plan, binding.mime_type.as_deref());
        let call = call_expr(plan);
        quote! {
            if uri == #uri {
                return ::std::option::Option::Some(::std::boxed::Box::pin(async move {
                    let result = #call.await.map_err(::mcp_runtime::Error::into_mcp_error)?;
                    #encode
                }));
            }
        }
    });

    let templates = of_kind(McpKind::ResourceTemplate).map(|plan| {
        let binding = plan.binding().expect("filtered on binding");
        let template = str_lit(binding.uri_template.as_deref().unwrap_or_default());
        let encode = resource_encode(plan, binding.mime_type.as_deref());
        let call = call_expr(plan);
        let json_vars: Vec<&str> = plan
            .method
            .params
            .iter()
            .filter(|p| matches!(p.schema.get("type").and_then(Value::as_str), Some("integer" | "number" | "boolean")))
            .map(|p| p.name.as_str())
            .collect();
        let decode = params_ty(plan).map(|ty| {
            quote! {
                let params: #ty = ::mcp_runtime::dispatch::template_params(vars, &[#(#json_vars),*])?;
            }
        });
        let bind = if decode.is_some() { quote!(vars) } else { quote!(_vars) };
        quote! {
            if let ::std::option::Option::Some(#bind) = ::mcp_runtime::uri_template::match_uri(#template, uri) {
                return ::std::option::Option::Some(::std::boxed::Box::pin(async move {
                    #decode
                    let result = #call.await.map_err(::mcp_runtime::Error::into_mcp_error)?;
                    #encode
                }));
            }
        }
    });

    let has_tools = of_kind(McpKind::Tool).next().is_some();
    let has_prompts = of_kind(McpKind::Prompt).next().is_some();
    let has_resources = of_kind(McpKind::Resource)
        .chain(of_kind(McpKind::ResourceTemplate))
        .next()
        .is_some();
    let used = |flag: bool, name: &str| -> TokenStream {
        let name = if flag {
            name.to_string()
        } else {
            format!("_{name}")
        };
        let name = proc_macro2::Ident::new(&name, proc_macro2::Span::call_site());
        quote!(#name)
    };
    let (arguments_t, ctx_t) = (used(has_tools, "arguments"), used(has_tools, "ctx"));
    let (arguments_p, ctx_p) = (used(has_prompts, "arguments"), used(has_prompts, "ctx"));
    let ctx_r = used(has_resources, "ctx");
    let uri_r = used(has_resources, "uri");
    let (params_m, ctx_m) = (
        used(methods.iter().any(|p| p.params.is_some()), "params"),
        used(!methods.is_empty(), "ctx"),
    );

    // A `match` with only the catch-all arm trips clippy in users' crates: emit `None` alone.
    let mut route = |key: &TokenStream, arms: Vec<TokenStream>| {
        if arms.is_empty() {
            quote!(::std::option::Option::None)
        } else {
            let arms = frame.run(Slot::ImplMethodMatchArms, arms);
            quote! {
                match #key {
                    #arms
                    _ => ::std::option::Option::None,
                }
            }
        }
    };
    let method_arms: Vec<TokenStream> = method_arms.collect();
    let tool_arms: Vec<TokenStream> = tool_arms.collect();
    let prompt_arms: Vec<TokenStream> = prompt_arms.collect();
    let method_p = used(!method_arms.is_empty(), "method");
    let name_t = used(!tool_arms.is_empty(), "name");
    let name_p = used(!prompt_arms.is_empty(), "name");
    let method_body = route(&method_p, method_arms);
    let tool_body = route(&name_t, tool_arms);
    let prompt_body = route(&name_p, prompt_arms);
    quote! {
        /// Serves a [`Handler`]: decodes params into their generated types, calls the handler,
        /// and encodes its result. Give it to an `mcp_runtime` transport.
        #[derive(Debug, Clone, Default)]
        pub struct Server<H> {
            handler: H,
        }

        impl<H: Handler> Server<H> {
            /// A server answering with `handler`.
            pub fn new(handler: H) -> Self {
                Self { handler }
            }

            /// The handler.
            #[allow(dead_code)]
            pub fn handler(&self) -> &H {
                &self.handler
            }
        }

        // Deprecated methods are still served: the contract deprecates them for callers.
        #[allow(deprecated)]
        impl<H: Handler> ::mcp_runtime::Dispatch for Server<H> {
            fn catalog(&self) -> &'static ::mcp_runtime::Catalog {
                &descriptors::CATALOG
            }

            fn call_method<'a>(
                &'a self,
                #method_p: &str,
                #params_m: ::std::option::Option<&'a ::serde_json::value::RawValue>,
                #ctx_m: ::mcp_runtime::RequestContext,
            ) -> ::std::option::Option<::mcp_runtime::BoxFuture<'a, ::std::result::Result<
                ::std::boxed::Box<::serde_json::value::RawValue>,
                ::mcp_runtime::RpcError,
            >>> {
                #method_body
            }

            fn call_tool<'a>(
                &'a self,
                #name_t: &str,
                #arguments_t: ::std::option::Option<&'a ::serde_json::value::RawValue>,
                #ctx_t: ::mcp_runtime::RequestContext,
            ) -> ::std::option::Option<::mcp_runtime::BoxFuture<'a, ::mcp_runtime::ToolOutcome>> {
                #tool_body
            }

            fn get_prompt<'a>(
                &'a self,
                #name_p: &str,
                #arguments_p: ::std::option::Option<&'a ::serde_json::value::RawValue>,
                #ctx_p: ::mcp_runtime::RequestContext,
            ) -> ::std::option::Option<::mcp_runtime::BoxFuture<'a, ::std::result::Result<
                ::std::boxed::Box<::serde_json::value::RawValue>,
                ::mcp_runtime::RpcError,
            >>> {
                #prompt_body
            }

            fn read_resource<'a>(
                &'a self,
                #uri_r: &'a str,
                #ctx_r: ::mcp_runtime::RequestContext,
            ) -> ::std::option::Option<::mcp_runtime::BoxFuture<'a, ::std::result::Result<
                ::std::boxed::Box<::serde_json::value::RawValue>,
                ::mcp_runtime::RpcError,
            >>> {
                #(#static_resources)*
                #(#templates)*
                ::std::option::Option::None
            }
        }
    }
}

/// How a resource handler's result becomes a `resources/read` result.
fn resource_encode(plan: &MethodPlan<'_>, mime_type: Option<&str>) -> TokenStream {
    if plan.returns_mcp() {
        quote!(::mcp_runtime::dispatch::encode_result(&result))
    } else {
        let mime = option_str(mime_type);
        quote!(::mcp_runtime::dispatch::resource_result(uri, #mime, &result))
    }
}

/// `self.handler.<fn>(&ctx, params)` (without params when the method has none).
fn call_expr(plan: &MethodPlan<'_>) -> TokenStream {
    let name = ident(&plan.fn_name);
    match plan.params {
        Some(_) => quote!(self.handler.#name(&ctx, params)),
        None => quote!(self.handler.#name(&ctx)),
    }
}

fn option_str(value: Option<&str>) -> TokenStream {
    match value {
        Some(text) => {
            let lit = str_lit(text);
            quote!(::std::option::Option::Some(#lit))
        }
        None => quote!(::std::option::Option::None),
    }
}

/// `pub static CATALOG: ::mcp_runtime::Catalog = ...`.
pub fn catalog(document: &Document, methods: &[MethodPlan<'_>]) -> TokenStream {
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
    let list = |kinds: &[McpKind]| {
        let entries = methods.iter().filter_map(|plan| {
            let binding = plan.binding().filter(|b| kinds.contains(&b.kind))?;
            let key = match binding.kind {
                McpKind::Tool | McpKind::Prompt => binding.name.as_str(),
                McpKind::Resource => binding.uri.as_deref().unwrap_or_default(),
                McpKind::ResourceTemplate => binding.uri_template.as_deref().unwrap_or_default(),
            };
            let key = str_lit(key);
            let json = descriptor_json(document, plan.method, binding);
            let json = json.iter().map(|j| str_lit(j));
            Some(quote! {
                ::mcp_runtime::Descriptor { key: #key, json: [#(#json),*] }
            })
        });
        quote!(&[#(#entries),*])
    };
    let tools = list(&[McpKind::Tool]);
    let prompts = list(&[McpKind::Prompt]);
    let resources = list(&[McpKind::Resource]);
    let templates = list(&[McpKind::ResourceTemplate]);
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
        let (kind, reference) = match binding.kind {
            McpKind::Prompt => (quote!(Prompt), binding.name.as_str()),
            McpKind::ResourceTemplate => (
                quote!(Resource),
                binding.uri_template.as_deref().unwrap_or_default(),
            ),
            McpKind::Tool | McpKind::Resource => continue,
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
