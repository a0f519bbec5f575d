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
    assert_eq!(generated.example_tests, Some(7));
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
            "/methods/2/examples/1/result",
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
    assert!(
        message.contains("--example-tests \"not a type!\""),
        "{message}"
    );
}

/// Runs the `mcp-codegen` binary with `args`.
fn cli(args: &[&std::ffi::OsStr]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_mcp-codegen"))
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn the_cli_flag_writes_the_module_and_tokio_and_warns_per_misfit() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("server");
    let fixture = fixture();
    let output = cli(&[
        fixture.as_os_str(),
        "-o".as_ref(),
        out.as_os_str(),
        "--runtime-version".as_ref(),
        "0.1".as_ref(),
        "--example-tests".as_ref(),
        // Every warning: by default a rule's third and later are a count.
        "-v".as_ref(),
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert_eq!(
        stderr.matches("warning[example-mismatch]").count(),
        4,
        "{stderr}"
    );
    let generated = std::fs::read_to_string(out.join("src/generated.rs")).unwrap();
    assert!(generated.contains("mod contract_examples"));
    assert!(generated.contains("fn handler() -> crate::handler::App"));
    let cargo_toml = std::fs::read_to_string(out.join("Cargo.toml")).unwrap();
    assert!(
        cargo_toml.contains("[dev-dependencies]")
            && cargo_toml.contains(r#"tokio = { version = "1", features = ["macros", "rt"] }"#),
        "{cargo_toml}"
    );

    // The handler type can be named (with `=`, so the flag never takes the document's path).
    let named = dir.path().join("named");
    let output = cli(&[
        "--example-tests=crate::state::Notes".as_ref(),
        fixture.as_os_str(),
        "-o".as_ref(),
        named.as_os_str(),
        "--runtime-version".as_ref(),
        "0.1".as_ref(),
    ]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let generated = std::fs::read_to_string(named.join("src/generated.rs")).unwrap();
    assert!(generated.contains("fn handler() -> crate::state::Notes"));
}

#[test]
fn help_teaches_the_flag() {
    let output = cli(&["--help".as_ref()]);
    let help = String::from_utf8_lossy(&output.stdout);
    for needle in [
        "--example-tests[=<HANDLER>]",
        "example-mismatch",
        "--example-tests\n",
    ] {
        assert!(help.contains(needle), "--help lacks {needle:?}:\n{help}");
    }
}
