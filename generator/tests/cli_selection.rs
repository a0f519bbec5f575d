//! The `mcp-codegen` binary's `--tools`, `--exclude` and `--overlay` (`docs/gateway.md`): the
//! selection reaches the catalog, its warnings are printed, an overlay's errors are printed at
//! the overlay's lines with exit code 2 and nothing written.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn mcp_codegen(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mcp-codegen"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn gateway(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/gateway")
        .join(file)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn path(p: &Path) -> &str {
    p.to_str().expect("UTF-8 paths in tests")
}

#[test]
fn tools_exclude_and_overlay_reach_the_generated_crate() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("eth");
    let document = gateway("ethereum.openrpc.json");
    let overlay = gateway("eth-overlay.json");
    let output = mcp_codegen(&[
        path(&document),
        "-o",
        path(&out),
        "--one-file",
        "--no-generated-crate",
        "--tools",
        "eth_get*, eth_call",
        "--tools=eth_sign*,web3_*,",
        "--exclude",
        "eth_getProof",
        "--overlay",
        path(&overlay),
    ]);
    let stderr = text(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains(
            "warning[selection]: --tools pattern \"web3_*\" matches no method of the document"
        ),
        "{stderr}"
    );
    assert!(!stderr.contains("mcp-exposes-nothing"), "{stderr}");
    let source = std::fs::read_to_string(out.join("src/generated.rs")).unwrap();
    for listed in [
        "balance",
        "eth_call",
        "eth_getLogs",
        "eth_signTransaction",
        "eth_sendTransaction",
    ] {
        assert!(source.contains(&format!("key: \"{listed}\"")), "{listed}");
    }
    for unlisted in [
        "eth_getProof",
        "eth_sign",
        "eth_getBalance",
        "debug_getRawBlock",
    ] {
        assert!(
            !source.contains(&format!("key: \"{unlisted}\"")),
            "{unlisted}"
        );
    }
    assert!(source.contains("name: \"eth-gateway\""));
}

#[test]
fn a_vendor_document_without_selection_warns_that_it_exposes_nothing() {
    let output = mcp_codegen(&[
        path(&gateway("ethereum.openrpc.json")),
        "--server-card",
        "/dev/null",
    ]);
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("warning[mcp-exposes-nothing]: the document exposes nothing over MCP: no method has `x-mcp`; pass `--tools 'PATTERN'`"),
        "{stderr}"
    );
}

#[test]
fn overlay_errors_name_the_overlay_lines_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let overlay = dir.path().join("overlay.json");
    std::fs::write(
        &overlay,
        "{\n  \"methods\": {\n    \"eth_call\": {\"kind\": \"tool\", \"titel\": \"Call\"}\n  }\n}\n",
    )
    .unwrap();
    let out = dir.path().join("out");
    let output = mcp_codegen(&[
        path(&gateway("ethereum.openrpc.json")),
        "-o",
        path(&out),
        "--overlay",
        path(&overlay),
    ]);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    let at = format!("{}:3:43 (/methods/eth_call/titel)", overlay.display());
    assert!(
        stderr.contains(
            "error[mcp-extension]: unknown key `titel` in `x-mcp` (did you mean `title`?)"
        ),
        "{stderr}"
    );
    assert!(stderr.contains(&at), "{at} in:\n{stderr}");
    assert!(!out.exists());
}

#[test]
fn exclude_needs_tools_and_help_documents_the_flags() {
    let output = mcp_codegen(&[
        path(&gateway("ethereum.openrpc.json")),
        "--exclude",
        "eth_sign",
        "--server-card",
        "/dev/null",
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        text(&output.stderr).contains("--tools"),
        "{}",
        text(&output.stderr)
    );

    let help = mcp_codegen(&["--help"]);
    let help = text(&help.stdout);
    for flag in [
        "--tools <PATTERNS>",
        "--exclude <PATTERNS>",
        "--overlay <FILE>",
        "--tools 'eth_get*,eth_call'",
    ] {
        assert!(help.contains(flag), "{flag} in:\n{help}");
    }
}

/// The execution-apis document as a gateway of `eth_*`: 45 warnings, most about methods the
/// gateway does not serve or repeats of one rule. By default they fit in 12 lines; `-v` prints
/// every one.
#[test]
fn warnings_are_summarised_unless_verbose() {
    let dir = tempfile::tempdir().unwrap();
    let document = gateway("ethereum.openrpc.json");
    let run = |out: &str, verbose: bool| {
        let out = dir.path().join(out);
        let mut args = vec![
            path(&document),
            "-o",
            path(&out),
            "--tools",
            "eth_*",
            "--gateway",
        ];
        if verbose {
            args.push("-v");
        }
        let output = mcp_codegen(&args);
        assert!(output.status.success(), "{}", text(&output.stderr));
        text(&output.stderr)
    };
    let brief = run("brief", false);
    let lines: Vec<&str> = brief
        .lines()
        .filter(|line| !line.starts_with("wrote") && !line.starts_with("exposes"))
        .collect();
    assert!(lines.len() <= 12, "{} lines:\n{brief}", lines.len());
    assert!(
        brief.contains("... and 14 more `ambiguous-union` warnings (-v prints every warning)"),
        "{brief}"
    );
    assert!(
        brief.contains("note: 9 warnings about methods this gateway does not serve"),
        "{brief}"
    );
    assert!(
        brief.contains("exposes 44 tools, 0 prompts, 0 resources and 42 methods not exposed"),
        "{brief}"
    );
    let every = run("every", true);
    assert_eq!(every.matches("\nwarning[").count() + 1, 45, "{every}");

    // The manifest's regenerate line works from the crate's directory, flags and all: run as
    // written, with --check, it finds nothing stale.
    let crate_dir = dir.path().join("brief");
    let manifest = std::fs::read_to_string(crate_dir.join("Cargo.toml")).unwrap();
    let line = manifest
        .lines()
        .find_map(|line| line.strip_prefix("#     mcp-codegen "))
        .expect("a regenerate line");
    assert!(line.contains("--tools 'eth_*' --gateway -o ."), "{line}");
    let status = Command::new("sh")
        .arg("-c")
        .arg(format!("\"$0\" {line} --check"))
        .arg(env!("CARGO_BIN_EXE_mcp-codegen"))
        .current_dir(&crate_dir)
        .output()
        .unwrap();
    assert!(status.status.success(), "{line}: {}", text(&status.stderr));
}
