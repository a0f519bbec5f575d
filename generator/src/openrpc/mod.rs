//! OpenRPC documents: loading with source positions, `$ref` resolution, and the model.

pub mod card;
pub(crate) mod errors;
mod glob;
pub mod json_pos;
pub mod load;
pub mod mcp;
pub mod model;
pub mod overlay;
pub mod selection;

pub use json_pos::{FilePositions, Position, SourceMap};
pub use model::*;
pub use selection::Selection;

use crate::diagnostics::Diagnostics;
use std::path::Path;

/// Loads the OpenRPC document at `path`, resolves every `$ref` (into `#/components/...` and into
/// relative files), and returns the model with the warnings found so far.
///
/// A document that cannot be loaded (bad JSON, unresolvable `$ref`, wrong shapes) returns every
/// error found, never only the first.
pub fn load(path: &Path) -> Result<(Document, Diagnostics), Diagnostics> {
    load::load(path, &load::LoadOptions::default())
}

/// [`load()`], with `options` (a `--ref-base` directory, a [`Selection`]).
pub fn load_with(
    path: &Path,
    options: &load::LoadOptions,
) -> Result<(Document, Diagnostics), Diagnostics> {
    load::load(path, options)
}
