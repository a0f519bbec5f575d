//! `mcp-codegen`: turns an OpenRPC document into a typed Rust MCP server.
//!
//! Mark the methods an MCP client should see with `"x-mcp"` (`"tool"`, `"prompt"`,
//! `"resource"`, `"resource-template"`); the generator writes their types, a `Handler` trait
//! with one `async fn` per method, and the glue that serves them through
//! [`mcp-runtime`](https://docs.rs/mcp-runtime). The user implements `Handler`; the contract
//! stays the source of truth.
//!
//! Three front ends share this library:
//!
//! - the `mcp-codegen` command line (`cargo install mcp-codegen`): a whole crate around the
//!   generated code ([`scaffold`]), and `mcp-codegen init` for a starting document;
//! - `build.rs` ([`Builder`]): a module in `OUT_DIR`, regenerated when the contract changes;
//! - tests and tools ([`generate`], [`generate_with_options`]): the generated source in memory.
//!
//! # Example
//!
//! Generating in memory, as a test would, from a contract with one tool:
//!
//! ```
//! let dir = tempfile::tempdir().unwrap();
//! let contract = dir.path().join("openrpc.json");
//! std::fs::write(
//!     &contract,
//!     r#"{
//!         "openrpc": "1.3.2",
//!         "info": { "title": "Hello", "version": "1.0.0" },
//!         "methods": [{
//!             "name": "greet",
//!             "x-mcp": "tool",
//!             "params": [{ "name": "name", "required": true, "schema": { "type": "string" } }],
//!             "result": { "name": "greeting", "schema": { "type": "string" } }
//!         }]
//!     }"#,
//! )
//! .unwrap();
//!
//! let generated = mcp_codegen::generate(&contract).expect("a valid contract");
//! assert!(generated.warnings.0.is_empty(), "{}", generated.warnings);
//! assert!(generated.server.source.contains("pub trait Handler"));
//! assert_eq!(generated.server.signatures[0].wire_name, "greet");
//! ```
//!
//! And in `build.rs`'s `main`, the same contract as a module of the crate (`mod server {
//! include!(concat!(env!("OUT_DIR"), "/mcp_server.rs")); }`):
//!
//! ```no_run
//! mcp_codegen::Builder::new("openrpc.json")
//!     .generate()
//!     .expect("a valid OpenRPC document");
//! ```
//!
//! An invalid document fails with every problem at once ([`Diagnostics`], each a
//! [`Diagnostic`] with its rule, [`Severity`] and [`Location`]: file, line, column and JSON
//! pointer); nothing is generated.
//!
//! # The pipeline
//!
//! [`openrpc::load()`] (positions, `$ref`s; [`LoadOptions`]) → [`validate::validate`] (every
//! rule, all errors at once) → [`typespace`] (JSON Schema to a type IR) → [`emit`] (tokens,
//! formatted by prettyplease) → [`scaffold`] (the crate around it, from minijinja templates:
//! [`scaffold::crate_files`], [`scaffold::write_crate`], and [`scaffold::RuntimeDependency`],
//! where the generated crate's `mcp-runtime` comes from). Around it: [`Options`] and
//! [`Selection`] (which methods MCP sees), [`server_card`] (SEP-2127 cards), [`skills`] (the
//! skills extension), [`names`] (Rust names from wire names).

// The library is the API of every `build.rs` that generates a server: each public item says
// what it is for.
#![deny(missing_docs)]
// A generator reads documents nobody reviewed: no `unsafe` anywhere.
#![forbid(unsafe_code)]

pub mod diagnostics;
pub mod emit;
pub mod names;
pub mod openrpc;
mod portable;
pub mod scaffold;
/// The server card (`info.x-mcp.card`): its checks and the card a crate serves. It belongs to
/// the document ([`openrpc::card`]), which the loader checks it with; kept at this path too.
pub use openrpc::card as server_card;
pub mod skills;
mod subscriptions;
pub mod typespace;
pub mod validate;

mod builder;
mod escape;
mod schema_walk;
mod tokens;

pub use builder::{BuildError, Builder};
pub use diagnostics::{Diagnostic, Diagnostics, Location, Severity};
pub use openrpc::load::LoadOptions;
pub use openrpc::Selection;

use std::path::Path;

/// Rule id: lowering the document's schemas takes more work than the generator allows (see
/// [`typespace::MAX_LOWER_STEPS`]).
pub const RULE_BUDGET: &str = "schema-budget";

/// The result of generating from one document.
#[derive(Debug)]
pub struct Generated {
    /// The loaded document.
    pub document: openrpc::Document,
    /// Warnings (never errors: those fail [`generate`]).
    pub warnings: Diagnostics,
    /// The generated source (types, `Handler` trait, `Server<H>`, descriptors, and the typed
    /// client when [`Options::output`] asks for it), in the files [`Options::layout`] says, and
    /// the handler signatures the scaffold needs.
    pub server: emit::Emitted,
    /// The skills bundled into the server (empty without a skills directory).
    pub skills: Vec<skills::Skill>,
    /// The skills directory read, if any.
    pub skills_dir: Option<std::path::PathBuf>,
    /// How many example tests the server source holds, when [`Options::example_tests`] asked
    /// for them (the scaffold then adds the `tokio` they run on).
    pub example_tests: Option<usize>,
    /// The parts generated ([`Options::output`]): the scaffold writes a client crate around
    /// [`emit::Output::Client`].
    pub output: emit::Output,
    /// The flags that chose what MCP sees and made a gateway (`--tools`, `--exclude`,
    /// `--overlay`, `--upstream`, `--gateway`) and those that shape what it serves
    /// (`--check-results`, `--strict-unions`, `--keep-names`, `--result-budget`), as the CLI
    /// takes them: the crate's README repeats them in its regenerate line, so that
    /// regenerating keeps the selection.
    pub selection_flags: Vec<String>,
}

impl Generated {
    /// One line saying what the generated server exposes, for the end of a run:
    /// `exposes 3 tools, 1 prompt, 2 resources (1 a template) and 2 plain JSON-RPC methods`
    /// (plain: a method without `x-mcp`, served on the JSON-RPC endpoint only), then the
    /// bundled skills, if any.
    pub fn summary(&self) -> String {
        let (mut tools, mut prompts, mut resources, mut templates, mut plain) = (0, 0, 0, 0, 0);
        for method in &self.document.methods {
            let slot = match method.mcp.as_ref().map(openrpc::McpBinding::kind) {
                Some(openrpc::McpKind::Tool) => &mut tools,
                Some(openrpc::McpKind::Prompt) => &mut prompts,
                Some(openrpc::McpKind::Resource) => &mut resources,
                Some(openrpc::McpKind::ResourceTemplate) => &mut templates,
                None => &mut plain,
            };
            *slot += 1;
        }
        let resources = match templates {
            0 => counted(resources, "resource"),
            _ => format!(
                "{} ({} a template)",
                counted(resources + templates, "resource"),
                templates
            ),
        };
        // A gateway's plain endpoint forwards only what MCP exposes (unless the binary runs
        // with --jsonrpc-unexposed): its other methods are served nowhere by default.
        let plain = match self.is_gateway() {
            true => format!(
                "{} not exposed (forwarded only with --jsonrpc-unexposed)",
                counted(plain, "method")
            ),
            false => counted(plain, "plain JSON-RPC method"),
        };
        let mut line = format!(
            "exposes {}, {}, {} and {}",
            counted(tools, "tool"),
            counted(prompts, "prompt"),
            resources,
            plain
        );
        if !self.skills.is_empty() {
            line.push_str(&format!(", with {}", counted(self.skills.len(), "skill")));
        }
        line
    }
}

impl Generated {
    /// The warnings as the CLI prints them. `verbose`: every one, in full. Otherwise, so that
    /// the one that matters is not lost among dozens:
    ///
    /// - warnings about a method that no face of a gateway serves (not on MCP, and a
    ///   gateway's plain endpoint forwards only what MCP exposes) are one line, their count;
    /// - the others are grouped by rule, in the order of the first of each: a rule with up to
    ///   [`REPORTED_PER_RULE`] warnings shows them all, one with more shows its first and a
    ///   count of the rest.
    ///
    /// Ends with a newline unless empty.
    pub fn warning_report(&self, verbose: bool) -> String {
        let mut out = String::new();
        let warnings: Vec<&Diagnostic> = self.warnings.warnings().collect();
        if verbose {
            for warning in warnings {
                out.push_str(&format!("{warning}\n"));
            }
            return out;
        }
        let (unserved, served): (Vec<&Diagnostic>, Vec<&Diagnostic>) = warnings
            .into_iter()
            .partition(|w| self.about_unserved_method(w));
        let mut rules: Vec<(&str, Vec<&Diagnostic>)> = Vec::new();
        for warning in served {
            match rules.iter_mut().find(|(rule, _)| *rule == warning.rule) {
                Some((_, group)) => group.push(warning),
                None => rules.push((warning.rule, vec![warning])),
            }
        }
        for (rule, group) in rules {
            let shown = match group.len() > REPORTED_PER_RULE {
                true => 1,
                false => group.len(),
            };
            for warning in &group[..shown] {
                out.push_str(&format!("{warning}\n"));
            }
            if group.len() > shown {
                let more = group.len() - shown;
                out.push_str(&format!(
                    "  ... and {more} more `{rule}` warning{} (-v prints every warning)\n",
                    if more == 1 { "" } else { "s" }
                ));
            }
        }
        if !unserved.is_empty() {
            out.push_str(&format!(
                "note: {} about methods this gateway does not serve (not exposed to MCP, so not forwarded on any door) left out (-v prints them)\n",
                counted(unserved.len(), "warning")
            ));
        }
        out
    }

    /// True for a gateway (`--upstream` or `--gateway`).
    fn is_gateway(&self) -> bool {
        self.selection_flags
            .iter()
            .any(|flag| flag == "--gateway" || flag == "--upstream")
    }

    /// True when `warning` is located in a method of the document that a gateway serves on no
    /// door: one without an MCP binding (a hand-written server still serves it on its plain
    /// JSON-RPC endpoint, so there it counts).
    fn about_unserved_method(&self, warning: &Diagnostic) -> bool {
        let root = &self.document.files[0];
        if !self.is_gateway() || warning.location.file != *root {
            return false;
        }
        let Some(index) = warning
            .location
            .pointer
            .strip_prefix("/methods/")
            .and_then(|rest| rest.split('/').next())
            .and_then(|index| index.parse::<usize>().ok())
        else {
            return false;
        };
        let Some(name) = self.document.bundled_json["methods"][index]["name"].as_str() else {
            return false;
        };
        self.document
            .methods
            .iter()
            .find(|method| method.name == name)
            .is_none_or(|method| method.mcp.is_none())
    }
}

/// Warnings of one rule [`Generated::warning_report`] shows in full; a rule with more shows
/// its first and a count.
pub const REPORTED_PER_RULE: usize = 2;

/// `1 tool`, `2 tools`, `0 tools`.
fn counted(n: usize, what: &str) -> String {
    match n {
        1 => format!("1 {what}"),
        _ => format!("{n} {what}s"),
    }
}

/// Where a contract's skills (the skills extension, [`skills`]) come from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum SkillsSource {
    /// The `skills` directory beside the contract, when there is one.
    #[default]
    Beside,
    /// This directory (it must exist).
    Dir(std::path::PathBuf),
    /// None: the server bundles no skills.
    Off,
}

/// How [`generate_with_options`] reads a document: where its skills and its `$ref`s' files
/// come from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Options {
    /// Where the skills come from.
    pub skills: SkillsSource,
    /// The directory a `$ref`'s file path is read relative to when the file is not beside the
    /// referring file (the CLI's `--ref-base`; see [`openrpc::load::LoadOptions::ref_base`]).
    pub ref_base: Option<std::path::PathBuf>,
    /// Append a test per OpenRPC example pairing to the server source, testing this handler
    /// type (a path from the crate root implementing `Default` and `Handler`, such as
    /// [`emit::examples::DEFAULT_HANDLER`]); the CLI's `--example-tests`.
    pub example_tests: Option<String>,
    /// The parts to generate: the server (default), the typed client, or both sharing one
    /// `types` module (the CLI's `--client`, [`Builder::client`]).
    pub output: emit::Output,
    /// One file (default) or a root file and its pieces ([`emit::Layout::Split`], what the
    /// CLI and [`Builder`] write).
    pub layout: emit::Layout,
    /// Which methods MCP sees beyond the document's own `x-mcp` (the CLI's `--tools`,
    /// `--exclude` and `--overlay`; [`Builder::tools`], [`Builder::exclude`],
    /// [`Builder::overlay`]).
    pub selection: Selection,
    /// Generate a gateway: every method forwards to an upstream JSON-RPC service by default
    /// (the CLI's `--upstream URL` or `--gateway`; [`Builder::upstream`]). `None`: the handler
    /// is written by hand.
    pub gateway: Option<Upstream>,
    /// With a gateway: check each forwarded result against the method's `result` schema (a
    /// result that does not match is an `isError` result naming the JSON pointer) and publish
    /// the tools' `outputSchema` (the CLI's `--check-results`; [`Builder::check_results`]).
    /// Without a gateway it is refused.
    pub check_results: bool,
    /// The generated code will be a crate of its own (the CLI's `--generated-crate`): see
    /// [`emit::EmitOptions::own_crate`].
    pub own_crate: bool,
    /// A `oneOf` whose variants nothing tells apart refuses a value more than one of them
    /// accepts, as JSON Schema's `oneOf` says (the CLI's `--strict-unions`;
    /// [`Builder::strict_unions`]). `false` (the default): the first variant that accepts the
    /// value takes it, as the document means; the `ambiguous-union` warning says which.
    pub strict_unions: bool,
    /// Publish tool and argument names as the document writes them (the CLI's
    /// `--keep-names`; [`Builder::keep_names`]). `false` (the default): a tool named after
    /// its method, or an argument, whose name the major model APIs would refuse
    /// (`Filecoin.ChainHead`, `Hydrated transactions`) is published under a portable one
    /// (`Filecoin_ChainHead`, `Hydrated_transactions`; see docs/gateway.md).
    pub keep_names: bool,
    /// Every tool's result budget in bytes (the CLI's `--result-budget`;
    /// [`Builder::result_budget`]): a tool result larger than it is kept and answered with a
    /// preview and a `resource_link` to read it in pages, and the tool publishes no
    /// `outputSchema`. A method's `x-mcp` `resultBudget` wins over it; `Some(0)`: every result
    /// whole. `None` (the default): [`emit::DEFAULT_RESULT_BUDGET`] for a gateway's forwarded
    /// tools that publish no `outputSchema` (without `--check-results`), none otherwise.
    pub result_budget: Option<u32>,
}

/// Where a gateway forwards to by default (the binary's `--upstream` overrides it at run time).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Upstream {
    /// The URL given at generation; `None` takes the document's `servers[0].url`, if any.
    pub url: Option<String>,
}

/// The document's `servers[0].url`, its `{variables}` replaced by their defaults; `None` when
/// there is none, or a variable has no default.
fn servers_url(document: &openrpc::Document) -> Option<String> {
    let server = document.bundled_json.get("servers")?.get(0)?;
    let mut url = server.get("url")?.as_str()?.to_string();
    if let Some(variables) = server.get("variables").and_then(|v| v.as_object()) {
        for (name, variable) in variables {
            let default = variable.get("default")?.as_str()?;
            url = url.replace(&format!("{{{name}}}"), default);
        }
    }
    (!url.contains('{')).then_some(url)
}

/// Rule id: the `--example-tests` handler is not a Rust type path.
pub const RULE_EXAMPLE_HANDLER: &str = "example-tests-handler";

/// Rule id: `--check-results` without a gateway (`--upstream URL` or `--gateway`).
pub const RULE_CHECK_RESULTS: &str = "check-results";

/// Loads, validates and emits the document at `path`, with the skills beside it. Fails with
/// every error found, before anything is emitted.
pub fn generate(path: &Path) -> Result<Generated, Diagnostics> {
    generate_with(path, &SkillsSource::Beside)
}

/// [`generate`], with the skills from `skills`.
pub fn generate_with(path: &Path, skills: &SkillsSource) -> Result<Generated, Diagnostics> {
    generate_with_options(
        path,
        &Options {
            skills: skills.clone(),
            ..Options::default()
        },
    )
}

/// [`generate`], with every option.
pub fn generate_with_options(path: &Path, options: &Options) -> Result<Generated, Diagnostics> {
    let skills = &options.skills;
    let load_options = openrpc::load::LoadOptions {
        ref_base: options.ref_base.clone(),
        selection: options.selection.clone(),
    };
    let (mut document, mut diagnostics) = openrpc::load_with(path, &load_options)?;
    if options.gateway.is_some() {
        subscriptions::recognize(&mut document);
    }
    if !options.keep_names {
        portable::make_portable(&mut document);
    }
    let skills_dir = match skills {
        SkillsSource::Beside => skills::beside(path),
        SkillsSource::Dir(dir) => Some(dir.clone()),
        SkillsSource::Off => None,
    };
    let bundled = match &skills_dir {
        Some(dir) => {
            let (bundled, skill_diagnostics) = skills::load(dir);
            diagnostics.0.extend(skill_diagnostics.0);
            bundled
        }
        None => Vec::new(),
    };
    diagnostics.0.extend(validate::validate(&document).0);
    diagnostics.0.extend(openrpc::selection::exposes_nothing(
        &document,
        &options.selection,
        bundled.len(),
    ));
    diagnostics.sort();
    if diagnostics.has_errors() {
        return Err(diagnostics);
    }
    let source_name = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    if options.check_results && options.gateway.is_none() {
        let root = document.sources.locate(&document.files[0], "");
        let message = "--check-results checks what a gateway forwards: it needs --upstream URL or --gateway (Builder::upstream)".to_string();
        return Err(Diagnostics(vec![Diagnostic::error(
            RULE_CHECK_RESULTS,
            root,
            message,
        )]));
    }
    let emit_options = emit::EmitOptions {
        output: options.output,
        layout: options.layout.clone(),
        gateway: options.gateway.as_ref().map(|upstream| emit::Gateway {
            default_url: upstream.url.clone().or_else(|| servers_url(&document)),
            check_results: options.check_results,
        }),
        own_crate: options.own_crate,
        strict_unions: options.strict_unions,
        result_budget: options.result_budget,
    };
    let mut server = emit::emit_with(&document, &bundled, &source_name, &emit_options);
    if let Some(why) = &server.budget_exceeded {
        let root = document.sources.locate(&document.files[0], "");
        let message = format!("{why}: the document is refused rather than generated with those schemas as JSON values");
        return Err(Diagnostics(vec![Diagnostic::error(
            RULE_BUDGET,
            root,
            message,
        )]));
    }
    diagnostics.0.extend(server.warnings.0.iter().cloned());
    diagnostics.sort();
    let mut example_tests = None;
    if let Some(handler) = &options.example_tests {
        let root = document.sources.locate(&document.files[0], "");
        if !options.output.server() {
            let message = "example tests run the server's handler: they need the server, and only the client is generated".to_string();
            return Err(Diagnostics(vec![Diagnostic::error(
                RULE_EXAMPLE_HANDLER,
                root,
                message,
            )]));
        }
        let Ok(handler) = syn::parse_str::<syn::TypePath>(handler) else {
            let message = format!("--example-tests {handler:?} is not a Rust type path such as `crate::handler::App` (the handler type the example tests build with `Default`)");
            return Err(Diagnostics(vec![Diagnostic::error(
                RULE_EXAMPLE_HANDLER,
                root,
                message,
            )]));
        };
        let tests =
            emit::examples::example_tests(&document, &server.signatures, &syn::Type::Path(handler));
        server.source.push('\n');
        server.source.push_str(&tests.source);
        diagnostics.0.extend(tests.warnings);
        diagnostics.sort();
        example_tests = Some(tests.tests);
    }
    Ok(Generated {
        document,
        warnings: diagnostics,
        server,
        skills: bundled,
        skills_dir,
        example_tests,
        output: options.output,
        selection_flags: selection_flags(options),
    })
}

/// [`Generated::selection_flags`] of `options`.
fn selection_flags(options: &Options) -> Vec<String> {
    let selection = &options.selection;
    let mut flags = Vec::new();
    if !selection.tools.is_empty() {
        flags.extend(["--tools".to_string(), selection.tools.join(",")]);
    }
    if !selection.exclude.is_empty() {
        flags.extend(["--exclude".to_string(), selection.exclude.join(",")]);
    }
    if let Some(overlay) = &selection.overlay {
        flags.extend(["--overlay".to_string(), overlay.display().to_string()]);
    }
    match &options.gateway {
        Some(Upstream { url: Some(url) }) => flags.extend(["--upstream".to_string(), url.clone()]),
        Some(Upstream { url: None }) => flags.push("--gateway".to_string()),
        None => {}
    }
    if options.check_results {
        flags.push("--check-results".to_string());
    }
    if options.strict_unions {
        flags.push("--strict-unions".to_string());
    }
    if options.keep_names {
        flags.push("--keep-names".to_string());
    }
    if let Some(bytes) = options.result_budget {
        flags.extend(["--result-budget".to_string(), bytes.to_string()]);
    }
    flags
}
