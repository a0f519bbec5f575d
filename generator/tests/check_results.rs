//! `--check-results` (`Options::check_results`): a gateway whose forwarded results are checked
//! against the document before they reach the client. `tests/gateway/run.sh` builds the same
//! gateway (`tests/gateway/hostile.openrpc.json`, `--tools '*' --gateway --check-results`) and
//! runs it in front of an upstream that answers results that fit and results that do not.

use std::path::{Path, PathBuf};

fn hostile() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/gateway/hostile.openrpc.json")
}

fn options(check_results: bool) -> mcp_codegen::Options {
    mcp_codegen::Options {
        selection: mcp_codegen::Selection {
            tools: vec!["*".into()],
            ..Default::default()
        },
        gateway: Some(mcp_codegen::Upstream { url: None }),
        check_results,
        ..mcp_codegen::Options::default()
    }
}

/// The forwarding bodies decode each result into its type and run the rules serde does not
/// check (`pattern`, `minimum`); the descriptors carry `outputSchema`.
#[test]
fn a_gateway_that_checks_results() {
    let generated = mcp_codegen::generate_with_options(&hostile(), &options(true)).unwrap();
    let source = &generated.server.source;
    insta::with_settings!({ snapshot_path => "snapshots/generated", prepend_module_to_snapshot => false, omit_expression => true }, {
        insta::assert_snapshot!("gateway-check-results__src__generated.rs", source);
    });
    assert_eq!(
        source.matches(".check_result(").count(),
        2,
        "one per method"
    );
    assert!(
        source.contains(r#""outputSchema":"#),
        "the checked tools publish their outputSchema"
    );
    assert_eq!(
        generated.selection_flags,
        ["--tools", "*", "--gateway", "--check-results"],
        "the regenerate line repeats the flag"
    );
}

/// Without the flag nothing is checked and no forwarded tool publishes an `outputSchema`.
#[test]
fn without_the_flag_results_pass_through() {
    let generated = mcp_codegen::generate_with_options(&hostile(), &options(false)).unwrap();
    let source = &generated.server.source;
    assert!(
        !source.contains("check_result"),
        "no check without the flag"
    );
    assert!(
        !source.contains(r#""outputSchema":"#),
        "no outputSchema without the flag"
    );
    assert!(!generated
        .selection_flags
        .contains(&"--check-results".to_string()));
}

/// Without a gateway there is nothing forwarded to check: refused, naming the flags it needs.
#[test]
fn without_a_gateway_it_is_refused() {
    let options = mcp_codegen::Options {
        gateway: None,
        ..options(true)
    };
    let errors = mcp_codegen::generate_with_options(&hostile(), &options).unwrap_err();
    let text = errors.to_string();
    assert!(
        text.contains("check-results") && text.contains("--upstream URL or --gateway"),
        "{text}"
    );
}
