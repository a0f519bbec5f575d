//! `Server<H>`: the generated `Dispatch` implementation (decode, call, encode per method), with
//! the `static CONTRACT` it returns (its lookups: `contract.rs`; the catalog: `catalog.rs`).

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use serde_json::Value;

use super::format::{Frame, Piece, Reach, Slot};
use super::layout;
use super::plan::MethodPlan;
use super::upstream::feed;
use crate::openrpc::{
    McpBinding, ParamStructure, PromptBinding, ResourceBinding, ResourceTemplateBinding,
    ServerExtension,
};
use crate::tokens::ident;
use crate::tokens::str_lit;
use crate::typespace::{Checks, TypeSpace};
use proc_macro2::Ident;

/// `pub struct Server<H>`, its `Dispatch` implementation and `mod dispatch`: a module per
/// method with its dispatch functions (decode, call, encode: the futures the runtime polls), so
/// that a change to one method compiles one module again; the arms of `Dispatch::call`'s one
/// `match` call into them. The arms and the modules are set aside in `frame`.
pub(crate) fn server(
    methods: &[MethodPlan<'_>],
    types: &TypeSpace,
    checks: &Checks,
    identity: &ServerExtension,
    has_skills: bool,
    own_crate: bool,
    frame: &mut Frame,
) -> TokenStream {
    let (scopes_fn, scopes) = super::contract::scopes(methods, identity.scopes.as_deref());
    let (rate_limit_fn, rate_limits) = super::contract::rate_limits(methods);
    let (result_budget_fn, result_budgets) = super::contract::result_budgets(methods);
    let (face_fn, faces) = super::contract::faces(methods);
    // Off by default: every caller sees the whole lists.
    let hides_unauthorized = identity
        .hide_unauthorized
        .then(|| quote!(.with_unauthorized_hidden(true)));
    let server_card = identity
        .card
        .is_some()
        .then(|| quote!(.with_server_card(descriptors::SERVER_CARD)));
    let skills = has_skills.then(|| quote!(.with_skills(descriptors::SKILLS)));
    let complete = complete(methods);
    let typed = Typed {
        types,
        checks,
        own_crate,
    };
    let modules: Vec<String> =
        layout::piece_names(methods.iter().map(|plan| plan.fn_name.as_str()));
    let idents: Vec<Ident> = modules
        .iter()
        .map(|name| frame.piece_module(layout::DISPATCH_DIR, name))
        .collect();
    let call = call_fn(methods, &idents, frame);
    let pieces: Vec<Piece> = methods
        .iter()
        .zip(modules)
        .map(|(plan, name)| Piece {
            tokens: dispatch_fns(plan, &typed),
            name,
        })
        .collect();
    // Deprecated methods are still served (the contract deprecates them for callers): their
    // calls are allowed where the contract has any.
    let any_deprecated = methods.iter().any(|plan| plan.method.deprecated);
    let deprecated = any_deprecated.then(|| quote!(deprecated,));
    let allow_deprecated = any_deprecated.then(|| quote!(#[allow(deprecated)]));
    let dispatch = (!pieces.is_empty()).then(|| {
        let pieces = frame.pieces(layout::DISPATCH_DIR, pieces, Reach::Modules);
        quote! {
            /// Each method's dispatch, in a module of its own: decode the params, call the
            /// handler, encode the result.
            #[allow(#deprecated unused_imports)]
            mod dispatch {
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

        /// What the server publishes and enforces, as the contract states it.
        static CONTRACT: Contract = Contract::new(&descriptors::CATALOG)
            .with_openrpc_document(descriptors::OPENRPC_DOCUMENT)
            #scopes
            #hides_unauthorized
            #rate_limits
            #result_budgets
            #faces
            #server_card
            #skills;

        #scopes_fn
        #rate_limit_fn
        #result_budget_fn
        #face_fn

        #allow_deprecated
        impl<H: Handler> Dispatch for Server<H> {
            fn contract(&self) -> &'static Contract {
                &CONTRACT
            }

            #complete

            #call
        }

        #dispatch
    }
}

/// `Dispatch::call`: one `match` on the call's kind and name (a JSON-RPC method, a tool or
/// prompt name, a static resource's URI) to the function of its method's module; a URI that is
/// no static resource is read by the first template it matches, in declaration order.
fn call_fn(methods: &[MethodPlan<'_>], modules: &[Ident], frame: &mut Frame) -> TokenStream {
    let mut arms = Vec::new();
    let mut templates = Vec::new();
    let mut feeds = Vec::new();
    for (plan, module) in methods.iter().zip(modules) {
        let wire = str_lit(&plan.method.name);
        arms.push(quote! {
            (CallKind::Method, #wire) => Some(dispatch::#module::call_method(self, arguments, ctx)),
        });
        match plan.binding() {
            Some(McpBinding::Tool(tool)) => {
                let name = str_lit(&tool.common.name);
                arms.push(quote! {
                    (CallKind::Tool, #name) => Some(dispatch::#module::call_tool(self, arguments, ctx)),
                });
            }
            Some(McpBinding::Prompt(prompt)) => {
                let name = str_lit(&prompt.common.name);
                arms.push(quote! {
                    (CallKind::Prompt, #name) => Some(dispatch::#module::get_prompt(self, arguments, ctx)),
                });
            }
            Some(McpBinding::Resource(resource)) => {
                let uri = str_lit(&resource.uri);
                arms.push(quote! {
                    (CallKind::Resource, #uri) => Some(dispatch::#module::read_resource(self, name, ctx)),
                });
            }
            Some(McpBinding::ResourceTemplate(template)) => {
                let uri_template = str_lit(&template.uri_template);
                templates.push(quote! {
                    if let Some(vars) = match_uri(#uri_template, uri) {
                        return Some(dispatch::#module::read_resource(self, uri, vars, ctx));
                    }
                });
                if feed(plan).is_some() {
                    feeds.push(quote! {
                        if let Some(vars) = match_uri(#uri_template, uri) {
                            return Some(dispatch::#module::open_feed(self, uri, vars, ctx));
                        }
                    });
                }
            }
            None => {}
        }
    }
    if !templates.is_empty() {
        arms.push(quote! {
            (CallKind::Resource, uri) => {
                #(#templates)*
                None
            }
        });
    }
    if !feeds.is_empty() {
        arms.push(quote! {
            (CallKind::Subscribe, uri) => {
                #(#feeds)*
                None
            }
        });
    }
    if arms.is_empty() {
        return quote! {
            fn call<'a>(&'a self, _call: Call<'a>) -> Option<AnswerFuture<'a>> {
                None
            }
        };
    }
    let body = route(frame, &quote!((kind, name)), arms);
    quote! {
        fn call<'a>(&'a self, call: Call<'a>) -> Option<AnswerFuture<'a>> {
            let (kind, name, arguments, ctx) = call.into_parts();
            let arguments = arguments.as_deref();
            #body
        }
    }
}

/// The items of a method's module in `mod dispatch`: `call_method` (the plain JSON-RPC call,
/// every method has one) and, for a method bound to MCP, `call_tool`, `get_prompt` or
/// `read_resource`. Each is generic over the handler and returns the boxed future the `Dispatch`
/// method returns: one call of the runtime's helper of its kind (`then_reply(method_params(..),
/// ..)`). In a generated crate of its own, each is a thin shim instead: the params are decoded
/// by the module's non-generic `decode_*` function and, for a result of generated type, the
/// result encoded by its `encode_*` function, so that their serde code is compiled once, in the
/// generated crate, and not again in the crate that implements the handler (see
/// `mcp_runtime::generated_support`).
fn dispatch_fns(plan: &MethodPlan<'_>, types: &Typed<'_>) -> TokenStream {
    if let Some(template) = feed(plan) {
        return feed_fns(plan, template, types);
    }
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

/// `encoded!(RESULT);`, beside the dispatch functions of a method whose result is a generated
/// type: the `Encoded` wrapper the runtime's generic encoders are given instead of the result
/// (why: `mcp_runtime::generated_support`).
fn encoded_type(plan: &MethodPlan<'_>, types: &Typed<'_>) -> Option<TokenStream> {
    if !wraps_result(plan, types.types) {
        return None;
    }
    let ty = plan.result_type(types.types);
    Some(quote!(encoded!(#ty);))
}

/// Whether the method's dispatch module wraps its result in `Encoded` ([`encoded_type`]): its
/// result is or holds a generated type (not a built-in one, not the runtime's MCP results).
fn wraps_result(plan: &MethodPlan<'_>, types: &TypeSpace) -> bool {
    !plan.returns_mcp() && plan.result.is_some_and(|ty| types.mentions_named(ty))
}

/// What the encoders wrap the result in: `Encoded`, or `as_is`.
fn wrap(plan: &MethodPlan<'_>, types: &TypeSpace) -> TokenStream {
    if wraps_result(plan, types) {
        quote!(Encoded)
    } else {
        quote!(as_is)
    }
}

/// How a dispatch function decodes its params: the suffix of its `decode_*` function, the
/// runtime helper that decodes (`valid_` before its name when the params have checks beyond
/// serde's), its error type, then the `decode_*` function's parameters, the arguments the
/// generic function passes it, and what else the helper is given.
struct Decode {
    name: &'static str,
    helper: &'static str,
    error: TokenStream,
    decl: TokenStream,
    args: TokenStream,
    extra: TokenStream,
}

/// The decoding half of a dispatch function: `(items, expr)`, where `expr` hands the decoded
/// params and `move |params| async move { body }` to `then_reply` or `then_tool`;
/// `Box::pin(async move { body })` for a method without params. The runtime's helper decodes,
/// in `expr` itself, or, in a generated crate of its own, the method's non-generic
/// `decode_NAME` (`items`: the params' serde code compiled there, once) calls it.
fn decoded(
    plan: &MethodPlan<'_>,
    types: &Typed<'_>,
    decode: Decode,
    body: TokenStream,
) -> (TokenStream, TokenStream) {
    let Some((ty, checked)) = params_type(plan, types) else {
        return (TokenStream::new(), quote!(Box::pin(async move { #body })));
    };
    let Decode {
        name,
        helper,
        error,
        decl,
        args,
        extra,
    } = decode;
    let helper = if checked {
        format_ident!("valid_{helper}")
    } else {
        format_ident!("{helper}")
    };
    let then = if name == "tool" {
        quote!(then_tool)
    } else {
        quote!(then_reply)
    };
    let (items, decoding) = if types.own_crate {
        let function = format_ident!("decode_{name}");
        let items = quote! {
            fn #function(#decl) -> Result<#ty, #error> {
                #helper(#args, #extra)
            }
        };
        (items, quote!(#function(#args)))
    } else {
        (TokenStream::new(), quote!(#helper(#args, #extra)))
    };
    let expr = quote!(#then(#decoding, move |params| async move { #body }));
    (items, expr)
}

/// The encoding half of a dispatch function: `(items, expr)`. In a generated crate of its own
/// and for a result of generated type, `items` is the method's non-generic `encode_NAME(EXTRA
/// result)`, whose body is `encode(result)` (the result's serde code compiled there, once), and
/// `expr` calls it on the handler's awaited result; otherwise `encode` of the awaited result,
/// inline.
fn encoded(
    plan: &MethodPlan<'_>,
    types: &Typed<'_>,
    name: &str,
    extra: (TokenStream, TokenStream),
    output: TokenStream,
    encode: impl Fn(TokenStream) -> TokenStream,
) -> (TokenStream, TokenStream) {
    let call = call_expr(plan);
    if !types.own_crate || !wraps_result(plan, types.types) {
        return (TokenStream::new(), encode(quote!(#call.await)));
    }
    let (decl, args) = extra;
    let function = format_ident!("encode_{name}");
    let result = plan.result_type(types.types);
    let body = encode(quote!(result));
    let items = quote! {
        fn #function(#decl result: Result<#result, Error>) -> #output {
            #body
        }
    };
    (items, quote!(#function(#args #call.await)))
}

/// A method's `call_method`: decode the params in the method's `paramStructure`, call, encode.
fn method_fn(plan: &MethodPlan<'_>, types: &Typed<'_>) -> TokenStream {
    let structure = match plan.method.param_structure {
        ParamStructure::ByName => quote!(ByName),
        ParamStructure::ByPosition => quote!(ByPosition),
        ParamStructure::Either => quote!(Either),
    };
    let params = used(plan.params.is_some(), "params");
    let wrap = match plan.result {
        Some(_) => wrap(plan, types.types),
        None => quote!(no_result),
    };
    let (encode, reply) = encoded(
        plan,
        types,
        "method",
        Default::default(),
        quote!(Answer),
        |result| quote!(reply(#result, #wrap)),
    );
    let decode = Decode {
        name: "method",
        helper: "method_params",
        error: quote!(RpcError),
        decl: quote!(params: Params<'_>),
        args: quote!(params),
        extra: quote!(ParamStructure::#structure),
    };
    let (decode, body) = decoded(plan, types, decode, reply);
    let shim = dispatch_fn(
        quote!(call_method),
        quote!(#params: Params<'_>,),
        quote!(AnswerFuture<'a>),
        body,
    );
    quote!(#decode #encode #shim)
}

/// A tool's `call_tool`: arguments that do not decode are the tool's error, not the protocol's.
fn tool_fn(plan: &MethodPlan<'_>, types: &Typed<'_>) -> TokenStream {
    let (encode, outcome) = if plan.returns_mcp() {
        let call = call_expr(plan);
        (TokenStream::new(), quote!(Answer::from_mcp(#call.await)))
    } else {
        let wrap = wrap(plan, types.types);
        encoded(
            plan,
            types,
            "tool",
            Default::default(),
            quote!(Answer),
            |result| quote!(tool_reply(#result, #wrap)),
        )
    };
    let arguments = used(plan.params.is_some(), "arguments");
    let decode = Decode {
        name: "tool",
        helper: "tool_arguments",
        error: quote!(String),
        decl: quote!(arguments: Params<'_>),
        args: quote!(arguments),
        extra: TokenStream::new(),
    };
    let (decode, body) = decoded(plan, types, decode, outcome);
    let shim = dispatch_fn(
        quote!(call_tool),
        quote!(#arguments: Params<'_>,),
        quote!(AnswerFuture<'a>),
        body,
    );
    quote!(#decode #encode #shim)
}

/// A prompt's `get_prompt`: a typed result becomes one text message under the prompt's
/// description.
fn prompt_fn(plan: &MethodPlan<'_>, prompt: &PromptBinding, types: &Typed<'_>) -> TokenStream {
    let (encode, reply) = if plan.returns_mcp() {
        let call = call_expr(plan);
        (TokenStream::new(), quote!(mcp_reply(#call.await)))
    } else {
        let description = short_option_str(prompt.common.description.as_deref());
        let wrap = wrap(plan, types.types);
        encoded(
            plan,
            types,
            "prompt",
            Default::default(),
            quote!(Answer),
            |result| quote!(prompt_reply(#description, #result, #wrap)),
        )
    };
    let arguments = used(plan.params.is_some(), "arguments");
    let decode = Decode {
        name: "prompt",
        helper: "prompt_arguments",
        error: quote!(RpcError),
        decl: quote!(arguments: Params<'_>),
        args: quote!(arguments),
        extra: TokenStream::new(),
    };
    let (decode, body) = decoded(plan, types, decode, reply);
    let shim = dispatch_fn(
        quote!(get_prompt),
        quote!(#arguments: Params<'_>,),
        quote!(AnswerFuture<'a>),
        body,
    );
    quote!(#decode #encode #shim)
}

/// A static resource's `read_resource`.
fn resource_fn(
    plan: &MethodPlan<'_>,
    resource: &ResourceBinding,
    types: &Typed<'_>,
) -> TokenStream {
    let (encode, reply) = resource_encode(plan, resource.mime_type.as_deref(), types);
    let uri = used(!plan.returns_mcp(), "uri");
    let shim = dispatch_fn(
        quote!(read_resource),
        quote!(#uri: &'a str,),
        quote!(AnswerFuture<'a>),
        quote!(Box::pin(async move { #reply })),
    );
    quote!(#encode #shim)
}

/// A resource template's `read_resource`, given the variables of the URI it matched, decoded
/// as the params (numbers and booleans parsed as JSON, everything else taken as a string).
fn template_fn(
    plan: &MethodPlan<'_>,
    template: &ResourceTemplateBinding,
    types: &Typed<'_>,
) -> TokenStream {
    let (encode, reply) = resource_encode(plan, template.mime_type.as_deref(), types);
    let vars = used(plan.params.is_some(), "vars");
    let uri = used(!plan.returns_mcp(), "uri");
    let decode = Decode {
        name: "resource",
        helper: "template_vars",
        error: quote!(RpcError),
        decl: quote!(vars: UriVars),
        args: quote!(vars),
        extra: json_vars(plan, false),
    };
    let (decode, body) = decoded(plan, types, decode, reply);
    let shim = dispatch_fn(
        quote!(read_resource),
        quote!(#uri: &'a str, #vars: UriVars,),
        quote!(AnswerFuture<'a>),
        body,
    );
    quote!(#decode #encode #shim)
}

/// The dispatch functions of a subscription template ([`super::upstream::feed`]): `open_feed` (the URI's
/// variables decoded as the method's params, then `Upstream::open_feed` with its subscribe and
/// unsubscribe methods), `read_resource` (`Upstream::read_feed`: the latest events) and a
/// `call_method` that refuses the plain JSON-RPC call (one answer cannot carry notifications).
fn feed_fns(
    plan: &MethodPlan<'_>,
    template: &ResourceTemplateBinding,
    types: &Typed<'_>,
) -> TokenStream {
    let subscription = template
        .subscription
        .as_ref()
        .expect("a feed's template names its subscription");
    let wire = str_lit(&plan.method.name);
    let unsubscribe = str_lit(&subscription.unsubscribe);
    let methods = match &subscription.id_param {
        Some(param) => {
            let param = str_lit(param);
            quote!(::mcp_runtime::upstream::SubscriptionMethods::by_name(#wire, #unsubscribe, #param))
        }
        None => {
            quote!(::mcp_runtime::upstream::SubscriptionMethods::positional(#wire, #unsubscribe))
        }
    };
    let (structure, params, order) = super::upstream::upstream_params(plan);
    let decode = Decode {
        name: "resource",
        helper: "template_vars",
        error: quote!(RpcError),
        decl: quote!(vars: UriVars),
        args: quote!(vars),
        extra: json_vars(plan, true),
    };
    // The params' type, which nothing else names here (no handler's function takes them).
    let typed = params_type(plan, types).map(|(ty, _)| quote!(let params: #ty = params;));
    let open = quote! {
        #typed
        const METHODS: ::mcp_runtime::upstream::SubscriptionMethods = #methods;
        let upstream = server.handler.upstream();
        reply(
            upstream.open_feed(&ctx, uri, &METHODS, #structure, #params, #order).await,
            as_is,
        )
    };
    let (decode, open) = decoded(plan, types, decode, open);
    let vars = used(plan.params.is_some(), "vars");
    let open = dispatch_fn(
        quote!(open_feed),
        quote!(uri: &'a str, #vars: UriVars,),
        quote!(AnswerFuture<'a>),
        open,
    );
    let read = dispatch_fn(
        quote!(read_resource),
        quote!(uri: &'a str, _vars: UriVars,),
        quote!(AnswerFuture<'a>),
        quote! {
            drop(ctx);
            Box::pin(async move { reply(server.handler.upstream().read_feed(uri).await, as_is) })
        },
    );
    let uri_template = str_lit(&template.uri_template);
    let method = dispatch_fn(
        quote!(call_method),
        quote!(_params: Params<'_>,),
        quote!(AnswerFuture<'a>),
        quote! {
            let _ = (server, ctx);
            subscription_call(#wire, #uri_template)
        },
    );
    quote!(#decode #open #read #method)
}

/// `&["a", ..]`: the params whose URI variable is read as JSON, not taken as a string: the
/// integer, number and boolean ones, and with `composite` the object and array ones too (a
/// subscription's filter, `?filter={"address":..}` written out).
fn json_vars(plan: &MethodPlan<'_>, composite: bool) -> TokenStream {
    let names = plan
        .method
        .params
        .iter()
        .filter(|p| {
            // `"type": "array"` or `"type": ["array"]` (Lotus writes every type in a list).
            let types: Vec<&str> = match p.schema.get("type") {
                Some(Value::String(ty)) => vec![ty],
                Some(Value::Array(types)) => types.iter().filter_map(Value::as_str).collect(),
                _ => Vec::new(),
            };
            !types.contains(&"string")
                && types.iter().any(|ty| match *ty {
                    "integer" | "number" | "boolean" => true,
                    "object" | "array" => composite,
                    _ => false,
                })
        })
        .map(|p| p.name.as_str());
    quote!(&[#(#names),*])
}

/// The type space, which of its types have checks beyond serde's, and where the dispatch
/// compiles their serde code.
struct Typed<'a> {
    types: &'a TypeSpace,
    checks: &'a Checks,
    /// The generated code is a crate of its own: decode and encode in non-generic `decode_*`
    /// and `encode_*` functions ([`decoded`], [`encoded`]).
    own_crate: bool,
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
        return quote!(None);
    }
    let arms = frame.run(Slot::ImplMethodMatchArms, arms);
    quote! {
        match #key {
            #arms
            _ => None,
        }
    }
}

/// How a resource handler's result becomes a `resources/read` result: `(items, expr)` as
/// [`encoded`] gives them.
fn resource_encode(
    plan: &MethodPlan<'_>,
    mime_type: Option<&str>,
    types: &Typed<'_>,
) -> (TokenStream, TokenStream) {
    if plan.returns_mcp() {
        let call = call_expr(plan);
        return (TokenStream::new(), quote!(mcp_reply(#call.await)));
    }
    let mime = short_option_str(mime_type);
    let wrap = wrap(plan, types.types);
    encoded(
        plan,
        types,
        "resource",
        (quote!(uri: &str,), quote!(uri,)),
        quote!(Answer),
        |result| quote!(resource_reply(uri, #mime, #result, #wrap)),
    )
}

/// `server.handler.<fn>(&ctx, params)` (without params when the method has none).
fn call_expr(plan: &MethodPlan<'_>) -> TokenStream {
    let name = ident(&plan.fn_name);
    match plan.params {
        Some(_) => quote!(server.handler.#name(&ctx, params)),
        None => quote!(server.handler.#name(&ctx)),
    }
}

/// `Some("text")` or `None`, in the glue (which has the runtime's prelude).
fn short_option_str(value: Option<&str>) -> TokenStream {
    match value {
        Some(text) => {
            let lit = str_lit(text);
            quote!(Some(#lit))
        }
        None => quote!(None),
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
                        (CompletionKind::#kind, #reference, #argument) => {
                            Some(Box::pin(async move {
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
            kind: CompletionKind,
            reference: &str,
            argument: &str,
            request: CompletionRequest,
            ctx: RequestContext,
        ) -> Option<BoxFuture<'a, Result<Vec<String>, Error>>> {
            match (kind, reference, argument) {
                #(#arms)*
                _ => None,
            }
        }
    })
}

/// One method's dispatch function in its module: `name(server, INPUTS ctx) -> OUTPUT { body }`.
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
            ctx: RequestContext,
        ) -> #output {
            #body
        }
    }
}
