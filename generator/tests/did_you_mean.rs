//! Mistakes an author (or a model) makes in a document get a "did you mean" naming the real
//! key, kind or `$ref`, and a run that writes a crate ends with a line saying what it exposes.

use std::path::Path;
use std::process::Command;

use serde_json::{json, Value};

/// The quickstart document, changed by `edit`, written into `dir`.
fn quickstart_with(dir: &Path, edit: impl FnOnce(&mut Value)) -> std::path::PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let text = std::fs::read_to_string(root.join("examples/quickstart/openrpc.json")).unwrap();
    let mut document: Value = serde_json::from_str(&text).unwrap();
    edit(&mut document);
    let path = dir.join("openrpc.json");
    std::fs::write(&path, serde_json::to_string_pretty(&document).unwrap()).unwrap();
    path
}

fn messages(diagnostics: &mcp_codegen::Diagnostics) -> Vec<String> {
    diagnostics.0.iter().map(|d| d.message.clone()).collect()
}

#[test]
fn misspelt_extensions_keys_kinds_and_refs_name_the_real_one() {
    let dir = tempfile::tempdir().unwrap();
    let path = quickstart_with(dir.path(), |d| {
        let info = d["info"].as_object_mut().unwrap();
        let x = info.remove("x-mcp").unwrap();
        info.insert("x-mpc".into(), x);
        let methods = d["methods"].as_array_mut().unwrap();
        let first = methods[0].as_object_mut().unwrap();
        let x = first.remove("x-mcp").unwrap();
        first.insert("x_mcp".into(), x);
        first.insert("paramStrucutre".into(), json!("by-name"));
        methods[1]["x-mcp"] = json!({"kidn": "tool"});
        methods[1]["params"][3]["schema"] = json!({"$ref": "#/components/schemas/Priorty"});
        methods[2]["x-mcp"]["kind"] = json!("tol");
        d["methds"] = json!([]);
        // Someone's own extension is theirs: no warning.
        d["x-mcpx"] = json!(true);
    });
    let errors = mcp_codegen::generate(&path).unwrap_err();
    let all = messages(&errors);
    for expected in [
        "unknown key `x-mpc` (did you mean `x-mcp`?); it is ignored",
        "unknown key `x_mcp` (did you mean `x-mcp`?); it is ignored",
        "unknown key `paramStrucutre` (did you mean `paramStructure`?); it is ignored",
        "unknown key `methds` (did you mean `methods`?); it is ignored",
    ] {
        assert!(all.iter().any(|m| m == expected), "{expected}\n{errors}");
    }
    assert!(
        all.iter()
            .any(|m| m.starts_with("unknown key `kidn` in `x-mcp` (did you mean `kind`?)")),
        "{errors}"
    );
    assert!(
        all.iter().any(|m| m.ends_with(
            "has no value at `/components/schemas/Priorty` (did you mean `#/components/schemas/Priority`?)"
        )),
        "{errors}"
    );
    assert!(
        all.iter()
            .any(|m| m.starts_with("unknown `x-mcp` kind \"tol\" (did you mean \"tool\"?)")),
        "{errors}"
    );
    assert!(!all.iter().any(|m| m.contains("x-mcpx")), "{errors}");
    let misspelt = errors
        .0
        .iter()
        .filter(|d| d.rule == "misspelt-key")
        .inspect(|d| assert_eq!(d.severity, mcp_codegen::Severity::Warning))
        .count();
    assert_eq!(misspelt, 4, "{errors}");
}

#[test]
fn a_document_without_mistakes_gets_no_such_warning_and_a_summary() {
    let dir = tempfile::tempdir().unwrap();
    let path = quickstart_with(dir.path(), |_| {});
    let generated = mcp_codegen::generate(&path).unwrap();
    assert!(
        generated
            .warnings
            .0
            .iter()
            .all(|d| d.rule != "misspelt-key"),
        "{}",
        generated.warnings
    );
    assert_eq!(
        generated.summary(),
        "exposes 3 tools, 1 prompt, 2 resources (1 a template) and 2 plain JSON-RPC methods"
    );
}

#[test]
fn the_cli_ends_a_run_with_the_summary_on_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let path = quickstart_with(dir.path(), |_| {});
    let out = dir.path().join("server");
    let run = Command::new(env!("CARGO_BIN_EXE_mcp-codegen"))
        .arg(&path)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    assert!(run.status.success(), "{run:?}");
    let stderr = String::from_utf8(run.stderr).unwrap();
    assert_eq!(
        stderr.lines().last(),
        Some("exposes 3 tools, 1 prompt, 2 resources (1 a template) and 2 plain JSON-RPC methods"),
        "{stderr}"
    );
    assert!(!String::from_utf8(run.stdout).unwrap().contains("exposes"));
    let quiet = Command::new(env!("CARGO_BIN_EXE_mcp-codegen"))
        .arg(&path)
        .args(["--quiet", "-o"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(quiet.stderr.is_empty(), "{quiet:?}");
}
