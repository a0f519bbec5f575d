//! Which `mcp-runtime` a generated crate depends on, and that its `Cargo.toml` says so: this
//! generator is built from the checkout, so by default the checkout's runtime by path; the
//! flags choose either. (A generator built from its package writes the released version:
//! `tests/package/run.sh` installs one and checks it.)

#[allow(dead_code)] // only `workspace` is used here
mod common;

use std::fs;
use std::process::Command;

/// The `[dependencies]` head of the Cargo.toml generated for the quickstart with `flags`:
/// its comment lines and the `mcp-runtime` line.
fn runtime_lines(flags: &[&str]) -> String {
    let root = common::workspace();
    let scratch = tempfile::tempdir().unwrap();
    let out = scratch.path().join("crate");
    let output = Command::new(env!("CARGO_BIN_EXE_mcp-codegen"))
        .arg(root.join("examples/quickstart/openrpc.json"))
        .arg("-o")
        .arg(&out)
        .arg("--quiet")
        .args(flags)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let manifest = fs::read_to_string(out.join("Cargo.toml")).unwrap();
    let dependencies = manifest.split("[dependencies]\n").nth(1).unwrap();
    dependencies
        .lines()
        .take_while(|l| !l.starts_with("serde"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn a_checkout_built_generator_depends_on_the_checkout_by_default() {
    let runtime = common::workspace().join("runtime").canonicalize().unwrap();
    let lines = runtime_lines(&[]);
    assert!(
        lines.ends_with(&format!(
            "mcp-runtime = {{ path = \"{}\" }}",
            runtime.display()
        )),
        "{lines}"
    );
    assert!(
        lines.starts_with("# mcp-runtime from a checkout, by path"),
        "{lines}"
    );
    assert!(
        lines.contains(&format!("mcp-runtime = \"{}\"", env!("CARGO_PKG_VERSION"))),
        "the comment names the release to use instead: {lines}"
    );
}

#[test]
fn the_flags_choose_a_version_or_a_path() {
    let lines = runtime_lines(&["--runtime-version", "0.1"]);
    assert!(lines.ends_with("\nmcp-runtime = \"0.1\""), "{lines}");
    assert!(
        lines.starts_with("# mcp-runtime \"0.1\" from crates.io"),
        "{lines}"
    );
    let lines = runtime_lines(&["--runtime-path", "/elsewhere/runtime"]);
    assert!(
        lines.ends_with("\nmcp-runtime = { path = \"/elsewhere/runtime\" }"),
        "{lines}"
    );
}

/// The generated crate states the MSRV the runtime has (cargo then refuses an older Rust with
/// a clear message rather than a compile error deep in a dependency).
#[test]
fn the_generated_crate_states_rust_version() {
    let root = common::workspace();
    let scratch = tempfile::tempdir().unwrap();
    let out = scratch.path().join("crate");
    let status = Command::new(env!("CARGO_BIN_EXE_mcp-codegen"))
        .arg(root.join("examples/quickstart/openrpc.json"))
        .args(["--quiet", "-o"])
        .arg(&out)
        .status()
        .unwrap();
    assert!(status.success());
    let manifest = fs::read_to_string(out.join("Cargo.toml")).unwrap();
    let line = format!("\nrust-version = \"{}\"\n", env!("CARGO_PKG_RUST_VERSION"));
    assert!(manifest.contains(&line), "{manifest}");
}
