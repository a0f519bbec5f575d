//! `--example-tests` end to end: a crate generated from `fixtures/openrpc/examples.openrpc.json`
//! with a handler, `cargo test` in it runs one test per example pairing and passes; the same
//! crate with a handler that answers `add` wrongly fails, naming the method, the example and
//! both results.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use mcp_codegen::emit::examples::DEFAULT_HANDLER;
use mcp_codegen::scaffold::{crate_files, write_crate, CrateOptions, RuntimeDependency};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// The handler a user would write; `add` returns `a + b + add_offset`.
fn handler_rs(add_offset: i64) -> String {
    format!(
        r#"use mcp_runtime::{{Error, RequestContext}};

use crate::generated::{{types, Handler}};

#[derive(Debug, Default)]
pub struct App {{}}

impl Handler for App {{
    async fn add(&self, _ctx: &RequestContext, params: types::AddParams) -> Result<i64, Error> {{
        Ok(params.a + params.b + {add_offset})
    }}

    async fn subtract(
        &self,
        _ctx: &RequestContext,
        params: types::SubtractParams,
    ) -> Result<i64, Error> {{
        Ok(params.a - params.b)
    }}

    async fn log(&self, _ctx: &RequestContext, _params: types::LogParams) -> Result<(), Error> {{
        Ok(())
    }}

    async fn ping(&self, _ctx: &RequestContext) -> Result<types::Pong, Error> {{
        Ok(types::Pong {{ reply: "pong".into() }})
    }}
}}
"#
    )
}

/// Generates the crate with example tests into `out`, with `handler.rs`, and runs
/// `cargo test` in it.
fn cargo_test(out: &Path, handler: &str) -> Output {
    let root = workspace();
    let fixture = root.join("fixtures/openrpc/examples.openrpc.json");
    let options = mcp_codegen::Options {
        example_tests: Some(DEFAULT_HANDLER.to_string()),
        ..mcp_codegen::Options::default()
    };
    let generated = mcp_codegen::generate_with_options(&fixture, &options).unwrap();
    let crate_options = CrateOptions {
        crate_name: Some("examples-server".into()),
        runtime: RuntimeDependency::Path(root.join("runtime")),
        contract_path: None,
    };
    write_crate(
        out,
        &crate_files(&generated, "examples.openrpc.json", &crate_options),
    )
    .unwrap();
    fs::write(out.join("src/handler.rs"), handler).unwrap();
    fs::copy(root.join("Cargo.lock"), out.join("Cargo.lock")).unwrap();
    Command::new(env!("CARGO"))
        .args(["test", "--quiet", "--manifest-path"])
        .arg(out.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", root.join("target/generated-crates"))
        .output()
        .unwrap()
}

#[test]
#[ignore = "slow (builds generated crates): .ci/run runs it by name with --ignored"]
fn the_examples_pass_against_a_handler_that_satisfies_them_and_fail_against_one_that_does_not() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("examples-server");

    let passing = cargo_test(&out, &handler_rs(0));
    let stdout = String::from_utf8_lossy(&passing.stdout);
    assert!(
        passing.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&passing.stderr)
    );
    assert!(stdout.contains("test result: ok. 7 passed"), "{stdout}");

    let failing = cargo_test(&out, &handler_rs(1));
    let stdout = String::from_utf8_lossy(&failing.stdout);
    assert!(!failing.status.success(), "{stdout}");
    assert!(
        stdout.contains(
            "method `add`, example \"two plus three\": the handler's result differs from the example's\n  expected: 5\n  actual:   6"
        ),
        "{stdout}"
    );
    // Every `add` example fails; `subtract`, `log` and `ping` still pass.
    assert!(
        stdout.contains("test result: FAILED. 3 passed; 4 failed"),
        "{stdout}"
    );
}
