//! `--example-tests` at generation time: the test module emitted for
//! `fixtures/openrpc/examples.openrpc.json` (snapshot), a warning with a location for each
//! example that does not fit its method, and no module without the option.

use std::path::{Path, PathBuf};

use mcp_codegen::emit::examples::{DEFAULT_HANDLER, RULE_EXAMPLES};
use mcp_codegen::{Options, Severity};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/openrpc/examples.openrpc.json")
}

fn with_tests(handler: &str) -> Options {
    Options {
        example_tests: Some(handler.to_string()),
        ..Options::default()
    }
}

/// The module the option appends: everything from its doc comment on.
fn module(source: &str) -> &str {
    let start = source
        .find("/// The contract's example pairings")
        .expect("the example tests module");
    &source[start..]
}

#[test]
fn the_examples_module_reads_as_written_by_hand() {
    let generated = mcp_codegen::generate_with_options(&fixture(), &with_tests(DEFAULT_HANDLER))
        .unwrap_or_else(|d| panic!("{d}"));
    assert_eq!(generated.example_tests, Some(6));
    insta::with_settings!({ snapshot_path => "snapshots/generated", prepend_module_to_snapshot => false, omit_expression => true }, {
        insta::assert_snapshot!("examples__contract_examples", module(&generated.server.source));
    });
}

#[test]
fn each_example_that_does_not_fit_is_a_warning_naming_it_and_why() {
    let generated =
        mcp_codegen::generate_with_options(&fixture(), &with_tests(DEFAULT_HANDLER)).unwrap();
    let warnings: Vec<(String, String)> = generated
        .warnings
        .0
        .iter()
        .filter(|d| d.rule == RULE_EXAMPLES)
        .inspect(|d| assert_eq!(d.severity, Severity::Warning))
        .map(|d| (d.location.pointer.clone(), d.message.clone()))
        .collect();
    let expected = [
        (
            "/methods/0/examples/4/params/1",
            "example \"b is a string\" of method `add` is not made a test: param \"b\": the value \"three\" is string, but its schema's type is integer",
        ),
        (
            "/methods/0/examples/5/params/1",
            "example \"unknown param\" of method `add` is not made a test: it gives param \"c\", which the method does not declare (its params: a, b, note)",
        ),
        (
            "/methods/0/examples/6",
            "example \"b missing\" of method `add` is not made a test: it does not give the required param \"b\"",
        ),
        (
            "/methods/1/examples/1/result",
            "example \"with a result\" of method `log` is not made a test: it has a `result`, but the method has none (a notification)",
        ),
    ];
    let expected: Vec<(String, String)> = expected
        .iter()
        .map(|(p, m)| (p.to_string(), m.to_string()))
        .collect();
    assert_eq!(warnings, expected);
}

#[test]
fn without_the_option_there_is_no_module_and_no_example_warning() {
    let generated = mcp_codegen::generate(&fixture()).unwrap();
    assert_eq!(generated.example_tests, None);
    assert!(!generated.server.source.contains("contract_examples"));
    assert!(generated.warnings.0.iter().all(|d| d.rule != RULE_EXAMPLES));
}

#[test]
fn a_handler_that_is_no_type_path_is_an_error_naming_the_flag() {
    let errors = mcp_codegen::generate_with_options(&fixture(), &with_tests("not a type!"))
        .expect_err("refused");
    let message = errors.to_string();
    assert!(message.contains("--example-tests \"not a type!\""), "{message}");
}
