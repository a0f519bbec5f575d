//! Emission: from a loaded, validated document to the Rust source of the generated server.
//!
//! The output has five parts: `types` (every schema and each method's params), the `Handler`
//! trait the user implements, `Server<H>` which implements the runtime's `Dispatch` (each
//! method's dispatch in a module of its own, `dispatch`), `descriptors` (the MCP catalog as
//! precomputed JSON per revision) and `errors` (a constructor per error the contract declares);
//! and, when [`Output`] asks for it, a sixth: `client`, the typed client (`client`), which
//! alone needs only `types`. [`Layout`] decides the files: one, or a root file and a file per
//! type, per method and for the descriptors ([`layout`]).

mod catalog;
mod client;
mod contract;
mod descriptors;
pub(crate) mod errors;
pub mod examples;
mod format;
mod handler;
mod inline_defs;
pub mod layout;
mod plan;
mod schema_bundle;
mod server;
mod upstream;

pub(crate) use client::method_names as client_method_names;
pub use descriptors::{descriptor_json, Revision};

use proc_macro2::TokenStream;
use quote::quote;

use crate::openrpc::Document;
use crate::typespace::TypeSpace;
use format::{format_items, Frame, Piece, Reach};
pub use layout::{Layout, PieceFile};

/// The emitted server and what the scaffold needs to know about its handler methods.
#[derive(Debug, Clone)]
pub struct Emitted {
    /// The server source file: all of it with [`Layout::OneFile`], the root file that
    /// includes [`Emitted::pieces`] with [`Layout::Split`].
    pub source: String,
    /// The other files of a [`Layout::Split`] output, in the order the root includes them
    /// (none with [`Layout::OneFile`]).
    pub pieces: Vec<PieceFile>,
    /// Each handler method's signature, in declaration order.
    pub signatures: Vec<Signature>,
    /// The handler's completion methods (`x-mcp.complete` params), in method order.
    pub completion_signatures: Vec<Signature>,
    /// Why lowering the schemas stopped short of the document, if it did (see
    /// [`crate::typespace::MAX_LOWER_STEPS`]): [`crate::generate`] then refuses the document.
    pub budget_exceeded: Option<String>,
    /// What lowering the schemas warns about ([`crate::typespace::RULE_AMBIGUOUS_UNION`],
    /// [`crate::typespace::RULE_SCHEMA_NOT_ENFORCED`]), each at the schema it was found in.
    pub warnings: crate::Diagnostics,
    /// Whether the handler forwards to an upstream ([`Gateway`]).
    gateway: bool,
}

impl Emitted {
    /// The runtime features the code needs beyond the default ones, for the dependency line
    /// of the crate's `Cargo.toml`: `pattern` when a schema has a `pattern` or
    /// `patternProperties` (the code then calls `mcp_runtime::compiled_pattern!`), `upstream`
    /// for a gateway (its handler forwards through `mcp_runtime::upstream`), `jq` for tools with
    /// a result budget (their `jq` argument).
    pub fn runtime_features(&self) -> Vec<&'static str> {
        let uses = |needle: &str| {
            self.source.contains(needle) || self.pieces.iter().any(|p| p.source.contains(needle))
        };
        let mut features = Vec::new();
        if uses("compiled_pattern!") {
            features.push("pattern");
        }
        if self.gateway {
            features.push("upstream");
        }
        // Tools with a result budget take a `jq` filter, which the runtime runs with jaq.
        if uses(".with_result_budgets(") {
            features.push("jq");
        }
        features
    }

    /// Whether the handler forwards to an upstream ([`Gateway`]).
    pub fn is_gateway(&self) -> bool {
        self.gateway
    }
}

/// A handler method's signature, as Rust source text seen from next to the generated module
/// (`types::Pet`).
#[derive(Debug, Clone, serde::Serialize)]
pub struct Signature {
    /// The JSON-RPC method name.
    pub wire_name: String,
    /// The handler method's name.
    pub fn_name: String,
    /// The method's summary and description as doc paragraphs (document text, not yet
    /// escaped: `crate::escape::rustdoc` does that where it is written).
    pub doc: Vec<String>,
    /// The params type, `None` when the method takes no params.
    pub params_type: Option<String>,
    /// The result type (`()` for a notification).
    pub result_type: String,
}

/// Which parts the generated source holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Output {
    /// The server: `types`, the `Handler` trait, `Server<H>`, `descriptors` and `errors`.
    #[default]
    Server,
    /// The server and the typed client (`pub mod client`), sharing one `types` module.
    ServerAndClient,
    /// `types` and the typed client only: a crate that calls the server.
    Client,
}

impl Output {
    /// Whether the server's parts are emitted.
    pub fn server(self) -> bool {
        self != Output::Client
    }

    /// Whether the typed client is emitted.
    pub fn client(self) -> bool {
        self != Output::Server
    }
}

/// Generates the server source for `document`. `source_name` is how the header names the
/// input (a file name, not an absolute path, so output does not depend on where it was run).
pub fn emit(document: &Document, source_name: &str) -> Emitted {
    emit_with_skills(document, &[], source_name)
}

/// [`emit`], with `skills` bundled into the server (the skills extension: `descriptors::SKILLS`,
/// a `resources/list` entry per `SKILL.md`, and `Contract::skills`). Without skills the output
/// is exactly [`emit`]'s.
pub fn emit_with_skills(
    document: &Document,
    skills: &[crate::skills::Skill],
    source_name: &str,
) -> Emitted {
    emit_output(document, skills, source_name, Output::Server)
}

/// [`emit_with_skills`], with the parts `output` names (the typed client, the server, or both).
pub fn emit_output(
    document: &Document,
    skills: &[crate::skills::Skill],
    source_name: &str,
    output: Output,
) -> Emitted {
    emit_layout(document, skills, source_name, output, &Layout::OneFile)
}

/// A gateway: every method's handler forwards to an upstream JSON-RPC service by default
/// (`mcp_runtime::upstream`), so the generated server works with no code written.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Gateway {
    /// The upstream URL the binary calls when none is given at run time (`--upstream`,
    /// `MCP_UPSTREAM_URL`): the one given at generation, else the document's `servers[0].url`.
    pub default_url: Option<String>,
    /// Check each forwarded result against the method's `result` schema and publish the
    /// tools' `outputSchema` (`--check-results`).
    pub check_results: bool,
}

/// What to emit beyond the document: the parts, their files, and whether the handler forwards.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EmitOptions {
    /// The parts to emit.
    pub output: Output,
    /// One file, or a root file and its pieces.
    pub layout: Layout,
    /// Forward every method to an upstream (a gateway), or `None` for a handler written by hand.
    pub gateway: Option<Gateway>,
    /// The generated code is a crate of its own (the CLI's `--generated-crate`): each method's
    /// params are decoded, and a result of generated type encoded, by non-generic `decode_*`
    /// and `encode_*` functions of the generated code, so that the crate implementing the
    /// handler does not compile their serde code again after a change to the contract. `false`:
    /// the generated code is modules of the handler's crate, which compiles it all anyway, and
    /// each dispatch is one call of the runtime's helper of its kind.
    pub own_crate: bool,
    /// A `oneOf` whose variants nothing tells apart refuses a value more than one accepts, as
    /// JSON Schema says (the CLI's `--strict-unions`). `false`: the first that accepts it
    /// takes it, as the document means (see docs/validation.md).
    pub strict_unions: bool,
    /// Every tool's result budget in bytes unless its `x-mcp` `resultBudget` says otherwise
    /// (the CLI's `--result-budget`); `Some(0)`: none, every result whole. `None`: a gateway's
    /// tools that pass their results through (no `check_results`) get
    /// [`DEFAULT_RESULT_BUDGET`], others none. A tool with a budget publishes no
    /// `outputSchema`.
    pub result_budget: Option<u32>,
}

/// The result budget of a gateway's tool that passes its results through (forwarded without
/// `--check-results`) when neither `--result-budget` nor its `x-mcp` `resultBudget` gives one:
/// 64 KiB, a few pages of a model's context rather than a hydrated block's megabytes.
pub const DEFAULT_RESULT_BUDGET: u32 = 64 * 1024;

/// The result budget of `plan`'s method in bytes, `None` for none: its `x-mcp` `resultBudget`
/// if given, else `flag` (`--result-budget`) if given, else [`DEFAULT_RESULT_BUDGET`] for a tool
/// that passes its results through ([`plan::MethodPlan::passes_through`]); `0` anywhere is
/// none. Only a tool has one.
pub(crate) fn result_budget(plan: &plan::MethodPlan<'_>, flag: Option<u32>) -> Option<u32> {
    let tool = plan.binding()?.as_tool()?;
    let default = if plan.passes_through() {
        DEFAULT_RESULT_BUDGET
    } else {
        0
    };
    let bytes = tool.common.result_budget.or(flag).unwrap_or(default);
    (bytes != 0).then_some(bytes)
}

/// [`emit_output`], laid out in files as `layout` says.
pub fn emit_layout(
    document: &Document,
    skills: &[crate::skills::Skill],
    source_name: &str,
    output: Output,
    layout: &Layout,
) -> Emitted {
    let options = EmitOptions {
        output,
        layout: layout.clone(),
        gateway: None,
        own_crate: false,
        strict_unions: false,
        result_budget: None,
    };
    emit_with(document, skills, source_name, &options)
}

/// Emits `document` as `options` say.
pub fn emit_with(
    document: &Document,
    skills: &[crate::skills::Skill],
    source_name: &str,
    options: &EmitOptions,
) -> Emitted {
    let (output, layout) = (options.output, &options.layout);
    let mut types = TypeSpace::new();
    types.set_strict_unions(options.strict_unions);
    let mut warnings = crate::Diagnostics::default();
    let mut methods = plan::plan(document, &mut types, &mut warnings);
    if let Some(gateway) = &options.gateway {
        for plan in &mut methods {
            plan.forwarded = !plan::returns_mcp(plan.method);
            plan.checks_result = gateway.check_results && plan.forwarded && plan.result.is_some();
        }
    }
    for plan in &mut methods {
        plan.result_budget = result_budget(plan, options.result_budget);
    }
    types.lower_all();
    let root = document.sources.locate(&document.files[0], "");
    plan::place_warnings(document, &mut types, &root, &mut warnings);
    let checks = types.checks();
    let types_path = quote!(types);
    let signatures = methods
        .iter()
        .map(|plan| Signature {
            wire_name: plan.method.name.clone(),
            fn_name: plan.fn_name.clone(),
            doc: crate::tokens::paragraphs(&[
                plan.method.summary.as_deref(),
                plan.method.description.as_deref(),
            ]),
            params_type: plan
                .params
                .map(|ty| type_text(types.type_expr(ty, &types_path))),
            result_type: type_text(plan.result_type(&types)),
        })
        .collect();
    let completion_signatures = methods
        .iter()
        .flat_map(|plan| {
            plan.completions.iter().map(|completion| Signature {
                wire_name: plan.method.name.clone(),
                fn_name: completion.fn_name.clone(),
                doc: vec![format!(
                    "Completes `{}` of `{}`: the values to offer for `request.value`.",
                    completion.argument, plan.method.name
                )],
                params_type: Some("mcp_runtime::CompletionRequest".to_string()),
                result_type: "Vec<String>".to_string(),
            })
        })
        .collect();
    // The top-level parts of the file format independently (prettyplease ends every top-level
    // item at column 0), so each is built and formatted on its own thread: on large documents
    // formatting is most of the generation time. Tokens are not `Send`, so every part builds
    // its tokens on the thread that formats them.
    let types_section = |frame: &mut Frame| {
        let items = types.emit_named_items_checked(&checks);
        let names = layout::piece_names(items.iter().map(|(name, _)| name.as_str()));
        let pieces = names
            .into_iter()
            .zip(items)
            .map(|(name, (_, tokens))| Piece { name, tokens })
            .collect();
        types_module(frame.pieces(layout::TYPES_DIR, pieces, Reach::Items))
    };
    let handler_section = |frame: &mut Frame| {
        let handler = handler::handler_trait(&methods, &types, &checks, frame);
        let upstream = options.gateway.as_ref().map(|gateway| {
            let url = match &gateway.default_url {
                Some(url) => quote!(::std::option::Option::Some(#url)),
                None => quote!(::std::option::Option::None),
            };
            quote! {
                /// The upstream the binary forwards to when neither `--upstream` nor
                /// `MCP_UPSTREAM_URL` names one: given at generation, or the document's
                /// `servers[0].url`.
                pub const UPSTREAM_URL: ::std::option::Option<&str> = #url;
            }
        });
        quote!(#handler #upstream)
    };
    let server_section = |frame: &mut Frame| {
        server::server(
            &methods,
            &types,
            &checks,
            &document.server,
            !skills.is_empty(),
            options.own_crate,
            frame,
        )
    };
    let descriptors_section = |frame: &mut Frame| {
        let catalog = catalog::catalog(document, &methods, skills, options.strict_unions);
        let bundled = crate::skills::skills_static(skills);
        let card = catalog::server_card(document);
        let document = catalog::openrpc_document(document);
        descriptors_module(frame, quote!(#catalog #bundled #document #card))
    };
    let errors_section = |_: &mut Frame| errors::errors_module(document);
    let client_section = |_: &mut Frame| client::client_module(&methods, &types, &checks);
    // The names the server's glue uses (`RequestContext`, `Params`, the dispatch helpers),
    // short: the glue names the contract's types `types::Pet`, so no name of the contract's
    // can clash with them.
    let prelude_section = |_: &mut Frame| {
        quote! {
            #[allow(unused_imports)]
            use ::mcp_runtime::generated_support::*;
        }
    };
    let mut sections: Vec<&Section<'_>> = Vec::new();
    if output.server() {
        sections.push(&prelude_section);
    }
    sections.push(&types_section);
    if output.server() {
        sections.extend([
            &handler_section as &Section<'_>,
            &server_section,
            &descriptors_section,
            &errors_section,
        ]);
    }
    if output.client() {
        sections.push(&client_section);
    }
    let (source, files) = format_sections(&sections, layout.pieces());
    Emitted {
        source: with_header(&source, source_name),
        pieces: files
            .into_iter()
            .map(|(path, source)| PieceFile {
                path,
                source: with_header(&source, source_name),
            })
            .collect(),
        signatures,
        completion_signatures,
        budget_exceeded: types.budget_exceeded().map(str::to_string),
        warnings,
        gateway: options.gateway.is_some(),
    }
}

/// Builds the tokens of one top-level part of the generated file, setting long runs of items
/// or arms aside in the frame (see [`format`]).
type Section<'a> = dyn Fn(&mut Frame) -> TokenStream + Sync + 'a;

/// Stack of a section's thread: the main thread's usual 8 MiB rather than the 2 MiB default,
/// so deeply nested schemas recurse as far as they did before sections had threads.
const SECTION_STACK: usize = 8 << 20;

/// Formats every section, in parallel, and concatenates them in order; with a split layout's
/// directory, also returns the files the sections split off, in order.
fn format_sections(
    sections: &[&Section<'_>],
    split: Option<(&str, bool)>,
) -> (String, Vec<(String, String)>) {
    std::thread::scope(|scope| {
        let workers: Vec<_> = sections
            .iter()
            .map(|build| {
                std::thread::Builder::new()
                    .stack_size(SECTION_STACK)
                    .spawn_scoped(scope, move || Frame::format_with(split, build))
                    .expect("spawning a formatting thread")
            })
            .collect();
        let mut source = String::new();
        let mut files = Vec::new();
        for worker in workers {
            let (text, pieces) = worker
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            source.push_str(&text);
            files.extend(pieces);
        }
        (source, files)
    })
}

/// `pub mod types { ... }` around the type definitions (or their run's placeholder).
fn types_module(type_defs: TokenStream) -> TokenStream {
    quote! {
        /// Rust types of the document's schemas and of each method's params.
        #[allow(clippy::all, clippy::pedantic, dead_code, unused_imports)]
        pub mod types {
            #type_defs
        }
    }
}

/// `pub mod descriptors { ... }` around the catalog and the embedded document (or its
/// declaration, its items in a file of their own).
fn descriptors_module(frame: &mut Frame, items: TokenStream) -> TokenStream {
    let attrs = quote! {
        /// What the server publishes through `initialize`, `server/discover` and the `*/list`
        /// methods, and through `rpc.discover` on the plain JSON-RPC endpoint, computed at
        /// generation time.
        #[allow(clippy::all, clippy::pedantic)]
    };
    frame.file(layout::DESCRIPTORS, attrs, items)
}

/// A type's tokens as formatted source text (`::std::vec::Vec<types::Pet>`).
fn type_text(ty: TokenStream) -> String {
    let file: syn::File = syn::parse2(quote!(type T = #ty;)).expect("a type always parses");
    let text = prettyplease::unparse(&file);
    text.trim()
        .trim_start_matches("type T = ")
        .trim_end_matches(';')
        .to_string()
}

/// Formats `tokens` with prettyplease under the `@generated` header.
pub fn format_file(tokens: TokenStream, source_name: &str) -> String {
    with_header(&format_items(tokens), source_name)
}

/// `source` under the `@generated` header, which names the input by a file name that needs no
/// escaping in a comment (see [`crate::escape::file_name`]).
fn with_header(source: &str, source_name: &str) -> String {
    format!(
        "// @generated by mcp-codegen {} from `{}`. Do not edit: regenerate instead.\n\n{}",
        env!("CARGO_PKG_VERSION"),
        crate::escape::file_name(source_name),
        source
    )
}
