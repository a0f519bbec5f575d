//! `mcp-codegen`: turns an OpenRPC document into a typed Rust MCP server.
//!
//! Three front ends share this library: the `mcp-codegen` CLI (a whole crate), `build.rs`
//! ([`Builder`], one file in `OUT_DIR`), and tests ([`generate`]).
//!
//! The pipeline: [`openrpc::load()`] (positions, `$ref`s) → [`validate::validate`] (every rule,
//! all errors at once) → [`typespace`] (JSON Schema to a type IR) → [`emit`] (tokens, formatted
//! by prettyplease) → [`scaffold`] (the crate around it, from minijinja templates).

// The library is the API of every `build.rs` that generates a server: each public item says
// what it is for.
#![deny(missing_docs)]
// A generator reads documents nobody reviewed: no `unsafe` anywhere.
#![forbid(unsafe_code)]

pub mod diagnostics;
pub mod emit;
pub mod names;
pub mod openrpc;
pub mod scaffold;
pub mod server_card;
pub mod typespace;
pub mod validate;

mod builder;
mod escape;
mod schema_walk;
mod tokens;

pub use builder::{BuildError, Builder};
pub use diagnostics::{Diagnostic, Diagnostics, Location, Severity};

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
    /// The server source (types, `Handler` trait, `Server<H>`, descriptors) and the handler
    /// signatures the scaffold needs.
    pub server: emit::Emitted,
}

/// Loads, validates and emits the document at `path`. Fails with every error found, before
/// anything is emitted.
pub fn generate(path: &Path) -> Result<Generated, Diagnostics> {
    let (document, mut diagnostics) = openrpc::load(path)?;
    diagnostics.0.extend(validate::validate(&document).0);
    diagnostics.sort();
    if diagnostics.has_errors() {
        return Err(diagnostics);
    }
    let source_name = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let server = emit::emit(&document, &source_name);
    if let Some(why) = &server.budget_exceeded {
        let root = document.sources.locate(&document.files[0], "");
        let message = format!("{why}: the document is refused rather than generated with those schemas as JSON values");
        return Err(Diagnostics(vec![Diagnostic::error(
            RULE_BUDGET,
            root,
            message,
        )]));
    }
    Ok(Generated {
        document,
        warnings: diagnostics,
        server,
    })
}
