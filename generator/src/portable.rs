//! Portable names: tool and argument names that the major model APIs accept.
//!
//! MCP allows a tool name of 1-128 characters of `[A-Za-z0-9_.-]` and any property name, but
//! the function-calling APIs a host hands tools to are narrower: tool names of
//! `[A-Za-z0-9_-]{1,64}` and property names of `[A-Za-z0-9_.-]{1,64}`. Hosts also prefix a
//! tool's name with the server's (`mcp__server__`), so a tool name has less than 64 to spend.
//! Vendor documents break both: Lotus names its methods `Filecoin.ChainHead`, the Ethereum
//! execution APIs name params `Hydrated transactions`.
//!
//! [`make_portable`] renames, in a document about to be generated, every tool whose name is
//! the method's (not one the document or overlay chose with `x-mcp.name`) and every argument
//! of a tool whose name a model API would refuse:
//!
//! - a character outside the allowed set becomes `_` (`Filecoin.ChainHead`:
//!   `Filecoin_ChainHead`; `Hydrated transactions`: `Hydrated_transactions`);
//! - a tool name longer than [`TOOL_NAME_BUDGET`] keeps its start and ends with 8 hex digits
//!   of its SHA-256, so that two long names stay apart;
//! - a name another tool (or argument of the same tool) already has gets `_2`, `_3`, ... in
//!   document order, so the result is the same on every run.
//!
//! The document's name stays where people read it: a renamed tool without a `title` gets the
//! method's name as its title, and a renamed argument is read under both names (the plain
//! JSON-RPC endpoint's callers use the document's) and sent to a by-name upstream under the
//! document's ([`crate::openrpc::ContentDescriptor::document_name`]). `--keep-names`
//! ([`crate::Options::keep_names`]) leaves every name as written.

use std::collections::HashSet;

use sha2::{Digest, Sha256};

use crate::openrpc::{Document, McpBinding};

/// The longest tool name made: 64, the model APIs' limit, less 16 for a host's prefix
/// (`mcp__` and a server name of up to 9 characters and `__`).
pub const TOOL_NAME_BUDGET: usize = 48;

/// The longest argument name made: the model APIs' limit.
pub const PROPERTY_NAME_BUDGET: usize = 64;

/// Renames the tools and tool arguments of `document` that model APIs would refuse (see the
/// [module](self)).
pub fn make_portable(document: &mut Document) {
    let mut taken: HashSet<String> = document
        .methods
        .iter()
        .filter_map(|method| match &method.mcp {
            Some(McpBinding::Tool(tool)) => Some(tool.common.name.clone()),
            _ => None,
        })
        .filter(|name| is_portable_tool_name(name))
        .collect();
    for method in &mut document.methods {
        let Some(McpBinding::Tool(tool)) = &mut method.mcp else {
            continue;
        };
        let common = &mut tool.common;
        if common.name == method.name && !is_portable_tool_name(&common.name) {
            let portable = unique(portable_tool_name(&common.name), &mut taken);
            common.title.get_or_insert_with(|| method.name.clone());
            common.name = portable;
        }
        let mut arguments: HashSet<String> = method
            .params
            .iter()
            .filter(|param| is_portable_property_name(&param.name))
            .map(|param| param.name.clone())
            .collect();
        for param in &mut method.params {
            if is_portable_property_name(&param.name) {
                continue;
            }
            let portable = unique(portable_property_name(&param.name), &mut arguments);
            param.document_name = Some(std::mem::replace(&mut param.name, portable));
        }
    }
}

/// True for `[A-Za-z0-9_-]{1,TOOL_NAME_BUDGET}`.
pub fn is_portable_tool_name(name: &str) -> bool {
    (1..=TOOL_NAME_BUDGET).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-'))
}

/// True for `[A-Za-z0-9_.-]{1,64}`.
pub fn is_portable_property_name(name: &str) -> bool {
    (1..=PROPERTY_NAME_BUDGET).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
}

/// `name` with every character outside `[A-Za-z0-9_-]` as `_`, within [`TOOL_NAME_BUDGET`].
fn portable_tool_name(name: &str) -> String {
    let replaced = replaced(name, &['_', '-'], "tool");
    within(replaced, name, TOOL_NAME_BUDGET)
}

/// `name` with every character outside `[A-Za-z0-9_.-]` as `_`, within
/// [`PROPERTY_NAME_BUDGET`].
fn portable_property_name(name: &str) -> String {
    let replaced = replaced(name, &['_', '.', '-'], "argument");
    within(replaced, name, PROPERTY_NAME_BUDGET)
}

/// `name`'s ASCII letters, digits and `allowed` as they are, anything else `_` (`empty` for
/// an empty name).
fn replaced(name: &str, allowed: &[char], empty: &str) -> String {
    let text: String = name
        .chars()
        .map(
            |c| match c.is_ascii_alphanumeric() || allowed.contains(&c) {
                true => c,
                false => '_',
            },
        )
        .collect();
    match text.is_empty() {
        true => empty.to_string(),
        false => text,
    }
}

/// `text` when it fits in `budget`, else its start and `_` and 8 hex digits of the SHA-256 of
/// `original`.
fn within(text: String, original: &str, budget: usize) -> String {
    if text.len() <= budget {
        return text;
    }
    let digest = Sha256::digest(original.as_bytes());
    let hash: String = digest[..4].iter().map(|b| format!("{b:02x}")).collect();
    // ASCII only by now: any byte is a character boundary.
    format!("{}_{hash}", &text[..budget - 9])
}

/// `name`, or `name_2`, `name_3`, ... (kept within the budget its length is) when `taken` has
/// it; then taken.
fn unique(name: String, taken: &mut HashSet<String>) -> String {
    let mut candidate = name.clone();
    let mut n = 2;
    while taken.contains(&candidate) {
        let suffix = format!("_{n}");
        let keep = name
            .len()
            .min(TOOL_NAME_BUDGET.saturating_sub(suffix.len()));
        candidate = format!("{}{suffix}", &name[..keep]);
        n += 1;
    }
    taken.insert(candidate.clone());
    candidate
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_made_portable_deterministically() {
        assert_eq!(
            portable_tool_name("Filecoin.ChainHead"),
            "Filecoin_ChainHead"
        );
        assert_eq!(portable_tool_name("eth_getBalance"), "eth_getBalance");
        assert_eq!(portable_tool_name("é"), "_");
        assert_eq!(portable_tool_name(""), "tool");
        assert_eq!(
            portable_property_name("Hydrated transactions"),
            "Hydrated_transactions"
        );
        assert_eq!(portable_property_name("a.b-c"), "a.b-c");
        let long = "Filecoin.EthGetTransactionByBlockNumberAndIndexWithSomethingMore";
        let short = portable_tool_name(long);
        assert_eq!(short.len(), TOOL_NAME_BUDGET);
        assert!(
            short.starts_with("Filecoin_EthGetTransactionByBlockNumber_"),
            "{short}"
        );
        assert_ne!(short, portable_tool_name(&format!("{long}2")));
        assert!(is_portable_tool_name(&short));
        let mut taken = HashSet::from(["a_b".to_string()]);
        assert_eq!(unique("a_b".into(), &mut taken), "a_b_2");
        assert_eq!(unique("a_b".into(), &mut taken), "a_b_3");
        assert!(!is_portable_tool_name("a.b") && is_portable_property_name("a.b"));
        assert!(!is_portable_property_name(&"x".repeat(65)));
    }
}
