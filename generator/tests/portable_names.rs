//! Portable names (docs/gateway.md): tool and argument names the major model APIs refuse are
//! published under portable ones, and the document's names still reach the upstream and the
//! plain JSON-RPC endpoint; `keep_names` keeps them as written.

use std::path::{Path, PathBuf};

use mcp_codegen::openrpc::McpBinding;
use mcp_codegen::{Generated, Options, Selection, Upstream};
use serde_json::Value;

fn fixture(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures")
        .join(path)
}

fn gateway(path: &str, tools: &str, keep_names: bool) -> Generated {
    let options = Options {
        selection: Selection {
            tools: vec![tools.into()],
            ..Selection::default()
        },
        gateway: Some(Upstream::default()),
        keep_names,
        ..Options::default()
    };
    mcp_codegen::generate_with_options(&fixture(path), &options).unwrap_or_else(|e| panic!("{e}"))
}

/// Each tool's published name and input property names (2025-11-25's descriptor).
fn published(generated: &Generated) -> Vec<(String, Option<String>, Vec<String>)> {
    let document = &generated.document;
    document
        .methods
        .iter()
        .filter_map(|method| {
            let binding @ McpBinding::Tool(_) = method.mcp.as_ref()? else {
                return None;
            };
            let json = &mcp_codegen::emit::descriptor_json(document, method, binding)[2];
            let descriptor: Value = serde_json::from_str(json).unwrap();
            let properties = descriptor["inputSchema"]["properties"]
                .as_object()
                .map(|p| p.keys().cloned().collect())
                .unwrap_or_default();
            let title = descriptor["title"].as_str().map(str::to_string);
            Some((descriptor["name"].as_str()?.to_string(), title, properties))
        })
        .collect()
}

#[test]
fn argument_names_with_spaces_are_published_portable_and_sent_as_written() {
    let generated = gateway("gateway/ethereum.openrpc.json", "eth_*", false);
    let tools = published(&generated);
    let by_number = tools
        .iter()
        .find(|t| t.0 == "eth_getBlockByNumber")
        .unwrap();
    assert_eq!(by_number.2, ["Block", "Hydrated_transactions"]);
    for (name, _, properties) in &tools {
        for property in properties {
            assert!(
                property
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"_.-".contains(&b)),
                "{name}: {property:?}"
            );
        }
    }
    let source = &generated.server.source;
    // Read under both names (the plain endpoint's callers use the document's) ...
    assert!(
        source.contains(r#"rename = "Hydrated_transactions", alias = "Hydrated transactions""#),
        "no alias in the generated params"
    );
    // ... and sent to the upstream under the document's.
    let compact: String = source.split_whitespace().collect();
    assert!(
        compact.contains(r#"("Hydratedtransactions").keyed("Hydrated_transactions")"#),
        "no keyed param in the forwarding"
    );
    let kept = published(&gateway("gateway/ethereum.openrpc.json", "eth_*", true));
    let by_number = kept.iter().find(|t| t.0 == "eth_getBlockByNumber").unwrap();
    assert_eq!(by_number.2, ["Block", "Hydrated transactions"]);
}

#[test]
fn dotted_tool_names_are_published_portable_titled_as_written() {
    let generated = gateway(
        "third-party/lotus/build/openrpc/v2/gateway.json",
        "*",
        false,
    );
    let tools = published(&generated);
    // Every method but the subscription pair, which a gateway serves as a resource template
    // (Filecoin.EthSubscribe) and calls itself (Filecoin.EthUnsubscribe).
    assert_eq!(tools.len(), 48);
    let head = tools
        .iter()
        .find(|t| t.0 == "Filecoin_ChainGetTipSet")
        .unwrap();
    assert_eq!(head.1.as_deref(), Some("Filecoin.ChainGetTipSet"));
    for (name, _, _) in &tools {
        assert!(name.len() <= 48, "{name}");
        assert!(
            name.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"_-".contains(&b)),
            "{name}"
        );
    }
    // The upstream is still called by the method's name.
    assert!(generated
        .server
        .source
        .contains(r#""Filecoin.ChainGetTipSet""#));
    let kept = published(&gateway(
        "third-party/lotus/build/openrpc/v2/gateway.json",
        "*",
        true,
    ));
    assert!(kept.iter().any(|t| t.0 == "Filecoin.ChainGetTipSet"));
}

/// A `type` of several types (`["integer", "null"]`) is published as the equal `anyOf` of one
/// type each, the type's own keywords in its branch.
#[test]
fn type_arrays_are_published_as_any_of() {
    let path = fixture("openrpc/schema-shapes.openrpc.json");
    let generated = mcp_codegen::generate(&path).unwrap_or_else(|e| panic!("{e}"));
    let document = &generated.document;
    let mut seen = 0;
    for method in &document.methods {
        let Some(binding @ McpBinding::Tool(_)) = method.mcp.as_ref() else {
            continue;
        };
        for json in mcp_codegen::emit::descriptor_json(document, method, binding) {
            assert!(!json.contains(r#""type":["#), "{json}");
            seen += json
                .matches(r#""anyOf":[{"type":"integer"},{"type":"null"}]"#)
                .count();
        }
    }
    assert!(
        seen > 0,
        "the fixture's [\"integer\", \"null\"] was published"
    );
}
