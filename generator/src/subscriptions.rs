//! Subscription methods recognised by the names vendor documents give them, for a gateway.
//!
//! A method that opens a subscription at the upstream is no tool (its one answer is an id; the
//! events come later, on the connection), but a resource whose updates are the events: a
//! template whose every URI is one subscription (`x-mcp.subscription`, served by the runtime's
//! `Upstream::open_feed`). An overlay can declare one; [`recognize`] finds the common shapes
//! among the methods a gateway's `--tools` patterns selected, by the pair of names they come in:
//!
//! | subscribe | unsubscribe | who |
//! |---|---|---|
//! | `eth_subscribe` | `eth_unsubscribe` | Ethereum, geth's other namespaces |
//! | `chain_subscribeNewHeads` | `chain_unsubscribeNewHeads` | Substrate |
//! | `starknet_subscribeNewHeads` | `starknet_unsubscribe` (by name: `subscription_id`) | Starknet |
//! | `Filecoin.EthSubscribe` | `Filecoin.EthUnsubscribe` | Lotus |
//!
//! `subscribe` (or `Subscribe`) is a word of the name, and the unsubscribe method is the same
//! name with `unsubscribe` (`Unsubscribe`) in its place, with or without what followed it. No
//! pair, no subscription: `wallet_watchAsset`, `*Submit*` and the polling filters
//! (`eth_newFilter`) stay tools, and so do the notification methods some documents declare
//! (`starknet_subscriptionNewHeads`).
//!
//! The template is `{scheme}://{rest}{/required}{?optional}`: the scheme is the name's prefix
//! (`eth`, `chain`, `starknet`, `filecoin`), the path the rest of the name, then the required
//! params as path variables and the optional ones as a query (`eth://subscribe/{subscriptionType}{?filter}`).
//! The unsubscribe method is taken off MCP when the patterns alone put it there: the
//! subscriptions it could close are the gateway's own.

use std::collections::HashSet;

use serde_json::json;

use crate::openrpc::mcp::{self, MethodFacts};
use crate::openrpc::{Document, McpBinding, McpOrigin, ParamStructure};

/// Makes each subscription method the `--tools` patterns selected a subscription template,
/// and takes the unsubscribe methods that only the patterns exposed off MCP (see the
/// [module](self)).
pub fn recognize(document: &mut Document) {
    let names: HashSet<String> = document.methods.iter().map(|m| m.name.clone()).collect();
    let mut recognized = Vec::new();
    for index in 0..document.methods.len() {
        let method = &document.methods[index];
        if method.mcp_origin != Some(McpOrigin::Selection) {
            continue;
        }
        let Some(unsubscribe) = unsubscribe_of(&method.name, &names) else {
            continue;
        };
        let Some(uri_template) = uri_template(method) else {
            continue;
        };
        let id_param = document
            .methods
            .iter()
            .find(|m| m.name == unsubscribe)
            .filter(|m| m.param_structure == ParamStructure::ByName && m.params.len() == 1)
            .map(|m| m.params[0].name.clone());
        let method = &mut document.methods[index];
        let location = match &method.mcp {
            Some(binding) => binding.common().location.clone(),
            None => method.location.clone(),
        };
        // As if the method's `x-mcp` said so: the same reading as a declared one.
        let subscription = match id_param {
            Some(param) => json!({"unsubscribe": unsubscribe, "idParam": param}),
            None => json!(unsubscribe),
        };
        let x_mcp = json!({
            "kind": "resource-template",
            "uriTemplate": uri_template,
            "mimeType": "application/json",
            "subscription": subscription,
        });
        let facts = MethodFacts {
            name: &method.name,
            description: method.description.as_deref(),
            summary: method.summary.as_deref(),
        };
        let (binding, _) = mcp::parse_method(&x_mcp, &facts, &|_| location.clone());
        if binding.is_none() {
            continue;
        }
        method.mcp = binding;
        recognized.push(unsubscribe);
    }
    // Every unsubscribe method a subscription names, declared or recognised.
    let closers: HashSet<String> = document
        .methods
        .iter()
        .filter_map(|m| match &m.mcp {
            Some(McpBinding::ResourceTemplate(t)) => {
                t.subscription.as_ref().map(|s| s.unsubscribe.clone())
            }
            _ => None,
        })
        .chain(recognized)
        .collect();
    for method in &mut document.methods {
        if closers.contains(&method.name) && method.mcp_origin == Some(McpOrigin::Selection) {
            method.mcp = None;
            method.mcp_origin = None;
        }
    }
}

/// The unsubscribe method of `name` among `names`, when `name` is a subscribe method.
fn unsubscribe_of(name: &str, names: &HashSet<String>) -> Option<String> {
    for (word, un) in [("subscribe", "unsubscribe"), ("Subscribe", "Unsubscribe")] {
        for (at, _) in name.match_indices(word) {
            let (head, tail) = (&name[..at], &name[at + word.len()..]);
            // A word of the name: at its start, after a separator, or (`Subscribe`) after a
            // lowercase letter; and not `unsubscribe` itself.
            let starts_word = match head.chars().last() {
                None | Some('_' | '.' | '-') => true,
                Some(c) => word == "Subscribe" && c.is_ascii_lowercase() && !head.ends_with("Un"),
            };
            if !starts_word || head.ends_with("un") || head.ends_with("Un") {
                continue;
            }
            for candidate in [format!("{head}{un}{tail}"), format!("{head}{un}")] {
                if names.contains(&candidate) {
                    return Some(candidate);
                }
            }
        }
    }
    None
}

/// `{scheme}://{rest}{/required}{?optional}` for `method` (see the [module](self)); `None`
/// when a param's name cannot be a template variable.
fn uri_template(method: &crate::openrpc::Method) -> Option<String> {
    let name = &method.name;
    let split = name.find(['_', '.']).filter(|&at| at > 0);
    let (scheme, rest) = match split {
        Some(at) => (&name[..at], &name[at + 1..]),
        None => ("rpc", name.as_str()),
    };
    let scheme: String = scheme
        .chars()
        .map(|c| match c.to_ascii_lowercase() {
            c @ ('a'..='z' | '0'..='9' | '+' | '.' | '-') => c,
            _ => '-',
        })
        .collect();
    let scheme = match scheme.starts_with(|c: char| c.is_ascii_lowercase()) {
        true => scheme,
        false => format!("rpc{scheme}"),
    };
    let valid = |param: &str| {
        !param.is_empty() && param.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    if !method.params.iter().all(|p| valid(&p.name)) {
        return None;
    }
    let mut template = format!("{scheme}://{rest}");
    for param in method.params.iter().filter(|p| p.required) {
        template.push_str(&format!("/{{{}}}", param.name));
    }
    let optional: Vec<&str> = method
        .params
        .iter()
        .filter(|p| !p.required)
        .map(|p| p.name.as_str())
        .collect();
    if !optional.is_empty() {
        template.push_str(&format!("{{?{}}}", optional.join(",")));
    }
    Some(template)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(name: &str, among: &[&str]) -> Option<String> {
        let names = among.iter().map(|n| n.to_string()).collect();
        unsubscribe_of(name, &names)
    }

    #[test]
    fn the_common_shapes_are_recognised() {
        let names = [
            "eth_subscribe",
            "eth_unsubscribe",
            "chain_subscribeNewHeads",
            "chain_unsubscribeNewHeads",
            "starknet_subscribeNewHeads",
            "starknet_subscribeEvents",
            "starknet_unsubscribe",
            "starknet_subscriptionNewHeads",
            "Filecoin.EthSubscribe",
            "Filecoin.EthUnsubscribe",
        ];
        let of = |name| pair(name, &names);
        assert_eq!(of("eth_subscribe").as_deref(), Some("eth_unsubscribe"));
        assert_eq!(
            of("chain_subscribeNewHeads").as_deref(),
            Some("chain_unsubscribeNewHeads")
        );
        assert_eq!(
            of("starknet_subscribeEvents").as_deref(),
            Some("starknet_unsubscribe")
        );
        assert_eq!(
            of("Filecoin.EthSubscribe").as_deref(),
            Some("Filecoin.EthUnsubscribe")
        );
        // Not subscriptions: the unsubscribe methods, the notifications, look-alikes.
        for name in [
            "eth_unsubscribe",
            "chain_unsubscribeNewHeads",
            "starknet_subscriptionNewHeads",
            "Filecoin.EthUnsubscribe",
        ] {
            assert_eq!(of(name), None, "{name}");
        }
        assert_eq!(pair("eth_subscribe", &["eth_subscribe"]), None);
        assert_eq!(
            pair(
                "wallet_watchAsset",
                &["wallet_watchAsset", "wallet_unwatchAsset"]
            ),
            None
        );
        assert_eq!(
            pair("eth_newFilter", &["eth_newFilter", "eth_uninstallFilter"]),
            None
        );
        assert_eq!(
            pair("resubscribeAll", &["resubscribeAll", "reunsubscribeAll"]),
            None
        );
    }
}
