//! `Server<H>`: the generated `Dispatch` implementation (decode, call, encode per method), and
//! the catalog constant.

use heck::ToKebabCase;
use proc_macro2::TokenStream;
use quote::quote;
use serde_json::Value;

use super::descriptors::descriptor_json;
use super::format::{Frame, Slot};
use super::plan::MethodPlan;
use crate::openrpc::{
    Document, McpBinding, McpKind, ParamStructure, PromptBinding, ResourceBinding,
    ResourceTemplateBinding, ServerExtension, ToolBinding,
};
use crate::tokens::ident;
use crate::tokens::str_lit;
use crate::typespace::{Checks, TypeSpace};

/// `pub struct Server<H>` and its `Dispatch` implementation, the arms of its `match`es set aside
/// in `frame`.
pub(crate) fn server(
    methods: &[MethodPlan<'_>],
    types: &TypeSpace,
    checks: &Checks,
    identity: &ServerExtension,
    has_skills: bool,
    frame: &mut Frame,
) -> TokenStream {
    let scopes = scopes(methods, identity.scopes.as_deref());
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
    let call_method = call_method(methods, &typed, frame);
    let call_tool = call_tool(methods, &typed, frame);
    let get_prompt = get_prompt(methods, &typed, frame);
    let read_resource = read_resource(methods, &typed);
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
            #hides_unauthorized
            #server_card

            #complete

            #skills

            #call_method
            #call_tool
            #get_prompt
            #read_resource
        }
    }
}

/// `required_scopes` and `scopes_supported` of the `Dispatch` impl, from `x-mcp` `scopes`
/// and the document's default (for the plain JSON-RPC endpoint too, under `"jsonrpc"` and the
/// method's name); nothing (the trait's defaults) when the document names none.
fn scopes(methods: &[MethodPlan<'_>], default: Option<&[String]>) -> TokenStream {
    let mut arms = Vec::new();
    let mut plain_arms = Vec::new();
    let mut supported: Vec<&str> = default
        .unwrap_or_default()
        .iter()
        .map(String::as_str)
        .collect();
    for plan in methods {
        let Some(binding) = plan.binding() else {
            continue;
        };
        let common = binding.common();
        // On the plain JSON-RPC endpoint the method keeps the scopes of its MCP face.
        if let Some(scopes) = common.scopes.as_deref().or(default) {
            let name = plan.method.name.as_str();
            plain_arms.push(quote! { ("jsonrpc", #name) => &[#(#scopes),*], });
        }
        let Some(scopes) = &common.scopes else {
            continue;
        };
        let (method, key) = match binding {
            McpBinding::Tool(_) => ("tools/call", common.name.as_str()),
            McpBinding::Prompt(_) => ("prompts/get", common.name.as_str()),
            McpBinding::Resource(resource) => ("resources/read", resource.uri.as_str()),
            // Refused by the loader: a template's reads take the document's default.
            McpBinding::ResourceTemplate(_) => continue,
        };
        for scope in scopes {
            if !supported.contains(&scope.as_str()) {
                supported.push(scope);
            }
        }
        arms.push(quote! { (#method, #key) => &[#(#scopes),*], });
    }
    if arms.is_empty() && default.is_none() {
        return TokenStream::new();
    }
    let default = default.unwrap_or_default();
    quote! {
        fn required_scopes(&self, method: &str, key: &str) -> &'static [&'static str] {
            match (method, key) {
                #(#arms)*
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

/// `Dispatch::call_method`: every method, by its JSON-RPC name.
fn call_method(methods: &[MethodPlan<'_>], types: &Typed<'_>, frame: &mut Frame) -> TokenStream {
    let arms: Vec<TokenStream> = methods.iter().map(|plan| method_arm(plan, types)).collect();
    let method = used(!arms.is_empty(), "method");
    let params = used(methods.iter().any(|p| p.params.is_some()), "params");
    let ctx = used(!methods.is_empty(), "ctx");
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

/// One `call_method` arm: decode the params in the method's `paramStructure`, call, encode.
fn method_arm(plan: &MethodPlan<'_>, types: &Typed<'_>) -> TokenStream {
    let wire = str_lit(&plan.method.name);
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
            let params: #ty = ::mcp_runtime::dispatch::#decode(
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
}

/// `Dispatch::call_tool`: every tool, by its MCP name.
fn call_tool(methods: &[MethodPlan<'_>], types: &Typed<'_>, frame: &mut Frame) -> TokenStream {
    let arms: Vec<TokenStream> = bound(methods, McpBinding::as_tool)
        .map(|(plan, tool)| tool_arm(plan, tool, types))
        .collect();
    let output = quote!(::mcp_runtime::ToolOutcome);
    let reads = bound(methods, McpBinding::as_tool).any(|(plan, _)| plan.params.is_some());
    by_name_with_arguments(quote!(call_tool), output, arms, reads, frame)
}

/// One `call_tool` arm: arguments that do not decode are the tool's error, not the protocol's.
fn tool_arm(plan: &MethodPlan<'_>, tool: &ToolBinding, types: &Typed<'_>) -> TokenStream {
    let name = str_lit(&tool.common.name);
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
}

/// `Dispatch::get_prompt`: every prompt, by its MCP name.
fn get_prompt(methods: &[MethodPlan<'_>], types: &Typed<'_>, frame: &mut Frame) -> TokenStream {
    let arms: Vec<TokenStream> = bound(methods, McpBinding::as_prompt)
        .map(|(plan, prompt)| prompt_arm(plan, prompt, types))
        .collect();
    let output = quote!(
        ::std::result::Result<
            ::std::boxed::Box<::serde_json::value::RawValue>,
            ::mcp_runtime::RpcError,
        >
    );
    let reads = bound(methods, McpBinding::as_prompt).any(|(plan, _)| plan.params.is_some());
    by_name_with_arguments(quote!(get_prompt), output, arms, reads, frame)
}

/// A `Dispatch` method that routes by MCP name and hands the raw `arguments` on
/// (`call_tool`, `get_prompt`): `arms` match the name, anything else is `None`. `reads_arguments`:
/// some arm decodes them (none does when no bound method has params).
fn by_name_with_arguments(
    function: TokenStream,
    output: TokenStream,
    arms: Vec<TokenStream>,
    reads_arguments: bool,
    frame: &mut Frame,
) -> TokenStream {
    let (arguments, ctx) = (
        used(reads_arguments, "arguments"),
        used(!arms.is_empty(), "ctx"),
    );
    let name = used(!arms.is_empty(), "name");
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

/// One `get_prompt` arm: a typed result becomes one text message under the prompt's
/// description.
fn prompt_arm(plan: &MethodPlan<'_>, prompt: &PromptBinding, types: &Typed<'_>) -> TokenStream {
    let name = str_lit(&prompt.common.name);
    let description = option_str(prompt.common.description.as_deref());
    let encode = if plan.returns_mcp() {
        quote!(::mcp_runtime::dispatch::encode_result(&result))
    } else {
        quote!(::mcp_runtime::dispatch::prompt_result(#description, &result))
    };
    let call = call_expr(plan);
    let decode = params_type(plan, types).map(|(ty, checked)| {
        let decode = decode_arguments_fn(checked);
        quote! {
            let params: #ty = ::mcp_runtime::dispatch::#decode(arguments)
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
}

/// `Dispatch::read_resource`: the static resources by URI, then the templates in declaration
/// order (the first template that matches reads).
fn read_resource(methods: &[MethodPlan<'_>], types: &Typed<'_>) -> TokenStream {
    let resources: Vec<TokenStream> = bound(methods, McpBinding::as_resource)
        .map(|(plan, resource)| resource_branch(plan, resource))
        .collect();
    let templates: Vec<TokenStream> = bound(methods, McpBinding::as_resource_template)
        .map(|(plan, template)| template_branch(plan, template, types))
        .collect();
    let any = !resources.is_empty() || !templates.is_empty();
    let (uri, ctx) = (used(any, "uri"), used(any, "ctx"));
    quote! {
        fn read_resource<'a>(
            &'a self,
            #uri: &'a str,
            #ctx: ::mcp_runtime::RequestContext,
        ) -> ::std::option::Option<::mcp_runtime::BoxFuture<'a, ::std::result::Result<
            ::std::boxed::Box<::serde_json::value::RawValue>,
            ::mcp_runtime::RpcError,
        >>> {
            #(#resources)*
            #(#templates)*
            ::std::option::Option::None
        }
    }
}

/// One static resource: read when the URI is exactly its `uri`.
fn resource_branch(plan: &MethodPlan<'_>, resource: &ResourceBinding) -> TokenStream {
    let uri = str_lit(&resource.uri);
    let encode = resource_encode(plan, resource.mime_type.as_deref());
    let call = call_expr(plan);
    quote! {
        if uri == #uri {
            return ::std::option::Option::Some(::std::boxed::Box::pin(async move {
                let result = #call.await.map_err(::mcp_runtime::Error::into_mcp_error)?;
                #encode
            }));
        }
    }
}

/// One resource template: read when the URI matches, its variables decoded as the params
/// (numbers and booleans parsed as JSON, everything else taken as a string).
fn template_branch(
    plan: &MethodPlan<'_>,
    template: &ResourceTemplateBinding,
    types: &Typed<'_>,
) -> TokenStream {
    let uri_template = str_lit(&template.uri_template);
    let encode = resource_encode(plan, template.mime_type.as_deref());
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
            let params: #ty = ::mcp_runtime::dispatch::template_params(vars, &[#(#json_vars),*])?;
            #check
        }
    });
    let bind = if decode.is_some() {
        quote!(vars)
    } else {
        quote!(_vars)
    };
    quote! {
        if let ::std::option::Option::Some(#bind) = ::mcp_runtime::uri_template::match_uri(#uri_template, uri) {
            return ::std::option::Option::Some(::std::boxed::Box::pin(async move {
                #decode
                let result = #call.await.map_err(::mcp_runtime::Error::into_mcp_error)?;
                #encode
            }));
        }
    }
}

/// The methods bound to one MCP kind, each with its binding; `pick` is one of
/// [`McpBinding::as_tool`] and its siblings.
fn bound<'p, 'd, B>(
    methods: &'p [MethodPlan<'d>],
    pick: fn(&'d McpBinding) -> Option<&'d B>,
) -> impl Iterator<Item = (&'p MethodPlan<'d>, &'d B)> + 'p
where
    'd: 'p,
{
    methods
        .iter()
        .filter_map(move |plan| Some((plan, pick(plan.binding()?)?)))
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
                let json = descriptor_json(document, plan.method, binding);
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
