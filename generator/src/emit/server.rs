//! `Server<H>`: the generated `Dispatch` implementation (decode, call, encode per method), and
//! the catalog constant.

use heck::ToKebabCase;
use proc_macro2::TokenStream;
use quote::quote;
use serde_json::Value;

use super::descriptors::descriptor_json_of;
use super::format::{Frame, Piece, Reach, Slot};
use super::layout::{self, piece_module};
use super::plan::MethodPlan;
use crate::openrpc::{
    Document, McpBinding, McpKind, ParamStructure, PromptBinding, ResourceBinding,
    ResourceTemplateBinding, ServerExtension,
};
use crate::tokens::ident;
use crate::tokens::str_lit;
use crate::typespace::{Checks, TypeSpace};

/// `pub struct Server<H>`, its `Dispatch` implementation and `mod dispatch`: a module per
/// method with its dispatch functions (decode, call, encode: the futures the runtime polls), so
/// that a change to one method compiles one module again; each `Dispatch` method's arms call
/// into them. The arms and the modules are set aside in `frame`.
pub(crate) fn server(
    methods: &[MethodPlan<'_>],
    types: &TypeSpace,
    checks: &Checks,
    identity: &ServerExtension,
    has_skills: bool,
    frame: &mut Frame,
) -> TokenStream {
    let scopes = scopes(methods, identity.scopes.as_deref());
    let rate_limits = rate_limits(methods);
    // Off by default (the trait's `false`): every caller sees the whole lists.
    let hides_unauthorized = identity.hide_unauthorized.then(|| {
        quote! {
            fn hides_unauthorized(&self) -> bool {
                true
            }
        }
    });
    let server_card = identity.card.is_some().then(|| {
        quote! {
            fn server_card(&self) -> ::std::option::Option<&'static str> {
                ::std::option::Option::Some(descriptors::SERVER_CARD)
            }
        }
    });
    let skills = has_skills.then(|| {
        quote! {
            fn skills(&self) -> &'static [::mcp_runtime::skills::Skill] {
                descriptors::SKILLS
            }
        }
    });
    let complete = complete(methods);
    let typed = Typed { types, checks };
    let modules: Vec<String> =
        layout::piece_names(methods.iter().map(|plan| plan.fn_name.as_str()));
    let call_method = call_method(methods, &modules, frame);
    let call_tool = call_tool(methods, &modules, frame);
    let get_prompt = get_prompt(methods, &modules, frame);
    let read_resource = read_resource(methods, &modules);
    let pieces: Vec<Piece> = methods
        .iter()
        .zip(modules)
        .map(|(plan, name)| Piece {
            tokens: dispatch_fns(plan, &typed),
            name,
        })
        .collect();
    let dispatch = (!pieces.is_empty()).then(|| {
        let pieces = frame.pieces(layout::DISPATCH_DIR, pieces, Reach::Modules);
        quote! {
            /// Each method's dispatch, in a module of its own: decode the params, call the
            /// handler, encode the result.
            // Deprecated methods are still served: the contract deprecates them for callers.
            #[allow(deprecated)]
            mod dispatch {
                #[allow(unused_imports)]
                use super::*;
                #pieces
            }
        }
    });
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

            fn openrpc_document(&self) -> ::std::option::Option<&'static str> {
                ::std::option::Option::Some(descriptors::OPENRPC_DOCUMENT)
            }

            #scopes
            #rate_limits
            #hides_unauthorized
            #server_card

            #complete

            #skills

            #call_method
            #call_tool
            #get_prompt
            #read_resource
        }

        #dispatch
    }
}

/// `required_scopes` and `scopes_supported` of the `Dispatch` impl, from `x-mcp` `scopes`
/// and the document's default (for the plain JSON-RPC endpoint too, under `"jsonrpc"` and the
/// method's name, for every method, those without `x-mcp` included); nothing (the trait's
/// defaults) when the document names none.
fn scopes(methods: &[MethodPlan<'_>], default: Option<&[String]>) -> TokenStream {
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
        // On the plain JSON-RPC endpoint a method keeps the scopes of its MCP face; one
        // without an MCP face (served only there) takes the document's default.
        let own = plan
            .binding()
            .and_then(|binding| binding.common().scopes.as_deref());
        if let Some(scopes) = own.or(default) {
            let name = plan.method.name.as_str();
            plain_arms.push(quote! { ("jsonrpc", #name) => &[#(#scopes),*], });
        }
        let Some(binding) = plan.binding() else {
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
                        || ::mcp_runtime::uri_template::match_uri(#key, uri).is_some() =>
                {
                    &[#(#scopes),*]
                }
            });
            continue;
        }
        arms.push(quote! { (#method, #key) => &[#(#scopes),*], });
    }
    if arms.is_empty() && template_arms.is_empty() && default.is_none() {
        return TokenStream::new();
    }
    let default = default.unwrap_or_default();
    quote! {
        fn required_scopes(&self, method: &str, key: &str) -> &'static [&'static str] {
            match (method, key) {
                #(#arms)*
                #(#template_arms)*
                ("tools/call" | "prompts/get" | "resources/read", _) => &[#(#default),*],
                #(#plain_arms)*
                _ => &[],
            }
        }

        fn scopes_supported(&self) -> &'static [&'static str] {
            &[#(#supported),*]
        }
    }
}

/// `rate_limit` of the `Dispatch` impl, from `x-mcp` `rateLimit`: a match on the MCP method
/// and the tool or prompt name or resource URI (a template's URI through its matcher);
/// nothing (the trait's default, no limit) when no method has one.
fn rate_limits(methods: &[MethodPlan<'_>]) -> TokenStream {
    let mut arms = Vec::new();
    let mut template_arms = Vec::new();
    for binding in methods.iter().filter_map(MethodPlan::binding) {
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
        return TokenStream::new();
    }
    quote! {
        fn rate_limit(
            &self,
            method: &str,
            key: &str,
        ) -> ::std::option::Option<::mcp_runtime::rate_limit::Rate> {
            match (method, key) {
                #(#arms)*
                #(#template_arms)*
                _ => ::std::option::Option::None,
            }
        }
    }
}

/// `Dispatch::call_method`: every method, by its JSON-RPC name, to its module's `call_method`.
fn call_method(methods: &[MethodPlan<'_>], modules: &[String], frame: &mut Frame) -> TokenStream {
    let arms: Vec<TokenStream> = methods
        .iter()
        .zip(modules)
        .map(|(plan, module)| {
            let wire = str_lit(&plan.method.name);
            let module = piece_module(module);
            quote! {
                #wire => ::std::option::Option::Some(dispatch::#module::call_method(self, params, ctx)),
            }
        })
        .collect();
    let any = !arms.is_empty();
    let (method, params, ctx) = (used(any, "method"), used(any, "params"), used(any, "ctx"));
    let body = route(frame, &method, arms);
    quote! {
        fn call_method<'a>(
            &'a self,
            #method: &str,
            #params: ::std::option::Option<&'a ::serde_json::value::RawValue>,
            #ctx: ::mcp_runtime::RequestContext,
        ) -> ::std::option::Option<::mcp_runtime::BoxFuture<'a, ::std::result::Result<
            ::std::boxed::Box<::serde_json::value::RawValue>,
            ::mcp_runtime::RpcError,
        >>> {
            #body
        }
    }
}

/// The items of a method's module in `mod dispatch`: `call_method` (the plain JSON-RPC call,
/// every method has one) and, for a method bound to MCP, `call_tool`, `get_prompt` or
/// `read_resource`. Each is generic over the handler and returns the boxed future the `Dispatch`
/// method returns.
fn dispatch_fns(plan: &MethodPlan<'_>, types: &Typed<'_>) -> TokenStream {
    let encoded = encoded_type(plan, types);
    let method = method_fn(plan, types);
    let bound = match plan.binding() {
        Some(McpBinding::Tool(_)) => tool_fn(plan, types),
        Some(McpBinding::Prompt(prompt)) => prompt_fn(plan, prompt, types),
        Some(McpBinding::Resource(resource)) => resource_fn(plan, resource, types),
        Some(McpBinding::ResourceTemplate(template)) => template_fn(plan, template, types),
        None => TokenStream::new(),
    };
    quote!(#encoded #method #bound)
}

/// `Encoded`, beside the dispatch functions of a method whose result is a generated type: what
/// the runtime's generic encoders (`encode_result`, `ToolOutcome::from_result`, ...) are given
/// instead of the result. Generic functions of other crates are compiled into codegen units
/// named for their own modules, shared by every method: instantiated with the result type, each
/// change to its schema would compile those shared units again. Instantiated with `Encoded`, a
/// reference that stays the same, they are reused, and only this module and the type's own are
/// compiled again.
fn encoded_type(plan: &MethodPlan<'_>, types: &Typed<'_>) -> Option<TokenStream> {
    if !wraps_result(plan, types.types) {
        return None;
    }
    let ty = plan.result_type(types.types);
    Some(quote! {
        /// The result as the runtime's generic encoders see it: a type that stays the same when
        /// the result's schema changes, so that their code, shared by every method, is not
        /// compiled again then.
        struct Encoded<'r>(&'r #ty);

        impl ::serde::Serialize for Encoded<'_> {
            fn serialize<S: ::serde::Serializer>(
                &self,
                serializer: S,
            ) -> ::std::result::Result<S::Ok, S::Error> {
                ::serde::Serialize::serialize(self.0, serializer)
            }
        }
    })
}

/// Whether the method's dispatch module wraps its result in `Encoded` ([`encoded_type`]): its
/// result is or holds a generated type (not a built-in one, not the runtime's MCP results).
fn wraps_result(plan: &MethodPlan<'_>, types: &TypeSpace) -> bool {
    !plan.returns_mcp() && plan.result.is_some_and(|ty| types.mentions_named(ty))
}

/// `&Encoded(&result)`, or `&result` when the method's result is not wrapped.
fn encoded(plan: &MethodPlan<'_>, types: &TypeSpace) -> TokenStream {
    if wraps_result(plan, types) {
        quote!(&Encoded(&result))
    } else {
        quote!(&result)
    }
}

/// The output of `call_method`, `get_prompt` and `read_resource`.
fn rpc_output() -> TokenStream {
    quote!(
        ::std::result::Result<
            ::std::boxed::Box<::serde_json::value::RawValue>,
            ::mcp_runtime::RpcError,
        >
    )
}

/// A method's `call_method`: decode the params in the method's `paramStructure`, call, encode.
fn method_fn(plan: &MethodPlan<'_>, types: &Typed<'_>) -> TokenStream {
    let call = call_expr(plan);
    let decode = params_type(plan, types).map(|(ty, checked)| {
        let structure = match plan.method.param_structure {
            ParamStructure::ByName => quote!(ByName),
            ParamStructure::ByPosition => quote!(ByPosition),
            ParamStructure::Either => quote!(Either),
        };
        let decode = if checked {
            quote!(decode_valid_params)
        } else {
            quote!(decode_params)
        };
        quote! {
            let params: #ty = match ::mcp_runtime::dispatch::#decode(
                params,
                ::mcp_runtime::ParamStructure::#structure,
            ) {
                ::std::result::Result::Ok(params) => params,
                ::std::result::Result::Err(error) => return ::std::result::Result::Err(error),
            };
        }
    });
    let params = used(decode.is_some(), "params");
    // A `match` rather than `map_err` and `?`: those are generic functions of `core`,
    // instantiated with the result type (see `encoded_type`).
    let (bind, value) = match plan.result {
        Some(_) => (quote!(result), encoded(plan, types.types)),
        None => (quote!(_), quote!(&())),
    };
    let call_and_encode = quote! {
        match #call.await {
            ::std::result::Result::Ok(#bind) => ::mcp_runtime::dispatch::encode_result(#value),
            ::std::result::Result::Err(error) => ::std::result::Result::Err(error.into_rpc_error()),
        }
    };
    dispatch_fn(
        quote!(call_method),
        quote!(#params: ::std::option::Option<&'a ::serde_json::value::RawValue>,),
        rpc_output(),
        quote!(#decode #call_and_encode),
    )
}

/// `Dispatch::call_tool`: every tool, by its MCP name, to its module's `call_tool`.
fn call_tool(methods: &[MethodPlan<'_>], modules: &[String], frame: &mut Frame) -> TokenStream {
    let arms = bound_arms(
        methods,
        modules,
        McpBinding::as_tool,
        |tool| &tool.common.name,
        quote!(call_tool),
    );
    let output = quote!(::mcp_runtime::ToolOutcome);
    by_name_with_arguments(quote!(call_tool), output, arms, frame)
}

/// A tool's `call_tool`: arguments that do not decode are the tool's error, not the protocol's.
fn tool_fn(plan: &MethodPlan<'_>, types: &Typed<'_>) -> TokenStream {
    let call = call_expr(plan);
    let decode = params_type(plan, types).map(|(ty, checked)| {
        let decode = decode_arguments_fn(checked);
        quote! {
            let params: #ty = match ::mcp_runtime::dispatch::#decode(arguments) {
                ::std::result::Result::Ok(params) => params,
                ::std::result::Result::Err(message) => {
                    return ::mcp_runtime::ToolOutcome::InvalidArguments(message);
                }
            };
        }
    });
    let arguments = used(decode.is_some(), "arguments");
    let outcome = if plan.returns_mcp() {
        quote!(::mcp_runtime::ToolOutcome::from_mcp(#call.await))
    } else if wraps_result(plan, types.types) {
        quote! {
            match #call.await {
                ::std::result::Result::Ok(result) => {
                    ::mcp_runtime::ToolOutcome::from_result(::std::result::Result::Ok(Encoded(&result)))
                }
                ::std::result::Result::Err(error) => ::mcp_runtime::ToolOutcome::Failed(error),
            }
        }
    } else {
        quote!(::mcp_runtime::ToolOutcome::from_result(#call.await))
    };
    dispatch_fn(
        quote!(call_tool),
        quote!(#arguments: ::std::option::Option<&'a ::serde_json::value::RawValue>,),
        quote!(::mcp_runtime::ToolOutcome),
        quote!(#decode #outcome),
    )
}

/// `Dispatch::get_prompt`: every prompt, by its MCP name, to its module's `get_prompt`.
fn get_prompt(methods: &[MethodPlan<'_>], modules: &[String], frame: &mut Frame) -> TokenStream {
    let arms = bound_arms(
        methods,
        modules,
        McpBinding::as_prompt,
        |prompt| &prompt.common.name,
        quote!(get_prompt),
    );
    by_name_with_arguments(quote!(get_prompt), rpc_output(), arms, frame)
}

/// The arms of a `Dispatch` method that routes by MCP name (`call_tool`, `get_prompt`): the
/// name of each method bound to that kind, to the function `function` of its module.
fn bound_arms<'d, B>(
    methods: &[MethodPlan<'d>],
    modules: &[String],
    pick: fn(&'d McpBinding) -> Option<&'d B>,
    name: fn(&B) -> &String,
    function: TokenStream,
) -> Vec<TokenStream> {
    methods
        .iter()
        .zip(modules)
        .filter_map(|(plan, module)| {
            let binding = pick(plan.binding()?)?;
            let key = str_lit(name(binding));
            let module = piece_module(module);
            Some(quote! {
                #key => ::std::option::Option::Some(dispatch::#module::#function(self, arguments, ctx)),
            })
        })
        .collect()
}

/// A `Dispatch` method that routes by MCP name and hands the raw `arguments` on
/// (`call_tool`, `get_prompt`): `arms` match the name, anything else is `None`.
fn by_name_with_arguments(
    function: TokenStream,
    output: TokenStream,
    arms: Vec<TokenStream>,
    frame: &mut Frame,
) -> TokenStream {
    let any = !arms.is_empty();
    let (name, arguments, ctx) = (used(any, "name"), used(any, "arguments"), used(any, "ctx"));
    let body = route(frame, &name, arms);
    quote! {
        fn #function<'a>(
            &'a self,
            #name: &str,
            #arguments: ::std::option::Option<&'a ::serde_json::value::RawValue>,
            #ctx: ::mcp_runtime::RequestContext,
        ) -> ::std::option::Option<::mcp_runtime::BoxFuture<'a, #output>> {
            #body
        }
    }
}

/// A prompt's `get_prompt`: a typed result becomes one text message under the prompt's
/// description.
fn prompt_fn(plan: &MethodPlan<'_>, prompt: &PromptBinding, types: &Typed<'_>) -> TokenStream {
    let description = option_str(prompt.common.description.as_deref());
    let value = encoded(plan, types.types);
    let encode = if plan.returns_mcp() {
        quote!(::mcp_runtime::dispatch::encode_result(#value))
    } else {
        quote!(::mcp_runtime::dispatch::prompt_result(#description, #value))
    };
    let call = call_expr(plan);
    let decode = params_type(plan, types).map(|(ty, checked)| {
        let decode = decode_arguments_fn(checked);
        quote! {
            let params: #ty = match ::mcp_runtime::dispatch::#decode(arguments) {
                ::std::result::Result::Ok(params) => params,
                ::std::result::Result::Err(message) => {
                    return ::std::result::Result::Err(::mcp_runtime::RpcError::invalid_params(
                        ::std::format!("Invalid arguments: {message}"),
                    ));
                }
            };
        }
    });
    let arguments = used(decode.is_some(), "arguments");
    let call_and_encode = mcp_call_and_encode(&call, &encode);
    dispatch_fn(
        quote!(get_prompt),
        quote!(#arguments: ::std::option::Option<&'a ::serde_json::value::RawValue>,),
        rpc_output(),
        quote!(#decode #call_and_encode),
    )
}

/// `Dispatch::read_resource`: the static resources by URI, then the templates in declaration
/// order (the first template that matches reads), each to its module's `read_resource`.
fn read_resource(methods: &[MethodPlan<'_>], modules: &[String]) -> TokenStream {
    let mut resources = Vec::new();
    let mut templates = Vec::new();
    for (plan, module) in methods.iter().zip(modules) {
        let module = piece_module(module);
        match plan.binding() {
            Some(McpBinding::Resource(resource)) => {
                let uri = str_lit(&resource.uri);
                resources.push(quote! {
                    if uri == #uri {
                        return ::std::option::Option::Some(dispatch::#module::read_resource(self, uri, ctx));
                    }
                });
            }
            Some(McpBinding::ResourceTemplate(template)) => {
                let uri_template = str_lit(&template.uri_template);
                templates.push(quote! {
                    if let ::std::option::Option::Some(vars) = ::mcp_runtime::uri_template::match_uri(#uri_template, uri) {
                        return ::std::option::Option::Some(dispatch::#module::read_resource(self, uri, vars, ctx));
                    }
                });
            }
            _ => {}
        }
    }
    let any = !resources.is_empty() || !templates.is_empty();
    let (uri, ctx) = (used(any, "uri"), used(any, "ctx"));
    let output = rpc_output();
    quote! {
        fn read_resource<'a>(
            &'a self,
            #uri: &'a str,
            #ctx: ::mcp_runtime::RequestContext,
        ) -> ::std::option::Option<::mcp_runtime::BoxFuture<'a, #output>> {
            #(#resources)*
            #(#templates)*
            ::std::option::Option::None
        }
    }
}

/// A static resource's `read_resource`.
fn resource_fn(
    plan: &MethodPlan<'_>,
    resource: &ResourceBinding,
    types: &Typed<'_>,
) -> TokenStream {
    let encode = resource_encode(plan, resource.mime_type.as_deref(), types.types);
    let call = call_expr(plan);
    let uri = used(!plan.returns_mcp(), "uri");
    dispatch_fn(
        quote!(read_resource),
        quote!(#uri: &'a str,),
        rpc_output(),
        mcp_call_and_encode(&call, &encode),
    )
}

/// A resource template's `read_resource`, given the variables of the URI it matched, decoded
/// as the params (numbers and booleans parsed as JSON, everything else taken as a string).
fn template_fn(
    plan: &MethodPlan<'_>,
    template: &ResourceTemplateBinding,
    types: &Typed<'_>,
) -> TokenStream {
    let encode = resource_encode(plan, template.mime_type.as_deref(), types.types);
    let call = call_expr(plan);
    let json_vars: Vec<&str> = plan
        .method
        .params
        .iter()
        .filter(|p| {
            let ty = p.schema.get("type").and_then(Value::as_str);
            matches!(ty, Some("integer" | "number" | "boolean"))
        })
        .map(|p| p.name.as_str())
        .collect();
    let decode = params_type(plan, types).map(|(ty, checked)| {
        let check = checked.then(|| {
            quote! {
                ::mcp_runtime::validate::check(&params).map_err(|message| {
                    ::mcp_runtime::RpcError::invalid_params(::std::format!("Invalid params: {message}"))
                })?;
            }
        });
        quote! {
            let params: #ty = match ::mcp_runtime::dispatch::template_params(vars, &[#(#json_vars),*]) {
                ::std::result::Result::Ok(params) => params,
                ::std::result::Result::Err(error) => return ::std::result::Result::Err(error),
            };
            #check
        }
    });
    let vars = used(decode.is_some(), "vars");
    let uri = used(!plan.returns_mcp(), "uri");
    let call_and_encode = mcp_call_and_encode(&call, &encode);
    dispatch_fn(
        quote!(read_resource),
        quote!(#uri: &'a str, #vars: ::std::vec::Vec<(&'static str, ::std::string::String)>,),
        rpc_output(),
        quote!(#decode #call_and_encode),
    )
}

/// The type space and which of its types have checks beyond serde's.
struct Typed<'a> {
    types: &'a TypeSpace,
    checks: &'a Checks,
}

/// The type params decode into, named from next to the types module, and whether it has checks
/// beyond serde's (`impl ::mcp_runtime::validate::Validate`).
fn params_type(plan: &MethodPlan<'_>, types: &Typed<'_>) -> Option<(TokenStream, bool)> {
    plan.params.map(|ty| {
        (
            types.types.type_expr(ty, &quote!(types)),
            types.checks.needed(ty),
        )
    })
}

/// `decode_valid_arguments` for params with checks beyond serde's, `decode_arguments` for the
/// others (which then pay nothing for validation).
fn decode_arguments_fn(checked: bool) -> TokenStream {
    if checked {
        quote!(decode_valid_arguments)
    } else {
        quote!(decode_arguments)
    }
}

/// `name`, or `_name` when the generated body does not read it (so users' crates compile
/// without unused-variable warnings).
fn used(flag: bool, name: &str) -> TokenStream {
    let name = if flag {
        name.to_string()
    } else {
        format!("_{name}")
    };
    let name = proc_macro2::Ident::new(&name, proc_macro2::Span::call_site());
    quote!(#name)
}

/// `match key { arms..., _ => None }`, its arms set aside in `frame`. A `match` with only the
/// catch-all arm trips clippy in users' crates, so no arms is `None` alone.
fn route(frame: &mut Frame, key: &TokenStream, arms: Vec<TokenStream>) -> TokenStream {
    if arms.is_empty() {
        return quote!(::std::option::Option::None);
    }
    let arms = frame.run(Slot::ImplMethodMatchArms, arms);
    quote! {
        match #key {
            #arms
            _ => ::std::option::Option::None,
        }
    }
}

/// How a resource handler's result becomes a `resources/read` result.
fn resource_encode(
    plan: &MethodPlan<'_>,
    mime_type: Option<&str>,
    types: &TypeSpace,
) -> TokenStream {
    let value = encoded(plan, types);
    if plan.returns_mcp() {
        quote!(::mcp_runtime::dispatch::encode_result(#value))
    } else {
        let mime = option_str(mime_type);
        quote!(::mcp_runtime::dispatch::resource_result(uri, #mime, #value))
    }
}

/// `server.handler.<fn>(&ctx, params)` (without params when the method has none).
fn call_expr(plan: &MethodPlan<'_>) -> TokenStream {
    let name = ident(&plan.fn_name);
    match plan.params {
        Some(_) => quote!(server.handler.#name(&ctx, params)),
        None => quote!(server.handler.#name(&ctx)),
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

/// `Dispatch::complete`, routing each argument the contract marks `x-mcp.complete` to its
/// handler method; nothing when none is marked (the runtime then completes from enums only).
fn complete(methods: &[MethodPlan<'_>]) -> Option<TokenStream> {
    let arms: Vec<TokenStream> = methods
        .iter()
        .flat_map(|plan| {
            let (kind, reference) = match plan.binding() {
                Some(McpBinding::Prompt(prompt)) => (quote!(Prompt), prompt.common.name.as_str()),
                Some(McpBinding::ResourceTemplate(template)) => {
                    (quote!(Resource), template.uri_template.as_str())
                }
                _ => return Vec::new(),
            };
            plan.completions
                .iter()
                .map(|completion| {
                    let reference = str_lit(reference);
                    let argument = str_lit(&completion.argument);
                    let name = ident(&completion.fn_name);
                    quote! {
                        (::mcp_runtime::CompletionKind::#kind, #reference, #argument) => {
                            ::std::option::Option::Some(::std::boxed::Box::pin(async move {
                                self.handler.#name(&ctx, request).await
                            }))
                        }
                    }
                })
                .collect()
        })
        .collect();
    if arms.is_empty() {
        return None;
    }
    Some(quote! {
        fn complete<'a>(
            &'a self,
            kind: ::mcp_runtime::CompletionKind,
            reference: &str,
            argument: &str,
            request: ::mcp_runtime::CompletionRequest,
            ctx: ::mcp_runtime::RequestContext,
        ) -> ::std::option::Option<
            ::mcp_runtime::BoxFuture<
                'a,
                ::std::result::Result<::std::vec::Vec<::std::string::String>, ::mcp_runtime::Error>,
            >,
        > {
            match (kind, reference, argument) {
                #(#arms)*
                _ => ::std::option::Option::None,
            }
        }
    })
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
                let json =
                    descriptor_json_of(document, plan.method, binding, plan.passes_through());
                let json = json.iter().map(|j| str_lit(j));
                Some(quote! {
                    ::mcp_runtime::Descriptor { key: #key, json: [#(#json),*] }
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
    let templates = list(McpKind::ResourceTemplate, Vec::new());
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

/// One method's dispatch function in its module: `name(server, INPUTS ctx)`, a boxed future of
/// `output` running `body`.
fn dispatch_fn(
    name: TokenStream,
    inputs: TokenStream,
    output: TokenStream,
    body: TokenStream,
) -> TokenStream {
    quote! {
        pub(crate) fn #name<'a, H: Handler>(
            server: &'a Server<H>,
            #inputs
            ctx: ::mcp_runtime::RequestContext,
        ) -> ::mcp_runtime::BoxFuture<'a, #output> {
            ::std::boxed::Box::pin(async move {
                #body
            })
        }
    }
}

/// A prompt's or a resource's handler call, its result encoded, its error the MCP one.
fn mcp_call_and_encode(call: &TokenStream, encode: &TokenStream) -> TokenStream {
    quote! {
        match #call.await {
            ::std::result::Result::Ok(result) => #encode,
            ::std::result::Result::Err(error) => ::std::result::Result::Err(error.into_mcp_error()),
        }
    }
}
