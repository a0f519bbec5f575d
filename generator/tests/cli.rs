//! The `mcp-codegen` binary: crates that build, `--check`, user files kept, bad documents
//! rejected with exit code 2 and nothing written.

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn mcp_codegen(args: &[&std::ffi::OsStr]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mcp-codegen"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn generate_into(fixture: &Path, out: &Path, extra: &[&str]) -> Output {
    let mut args: Vec<&std::ffi::OsStr> = vec![fixture.as_os_str(), "-o".as_ref(), out.as_os_str()];
    args.extend(extra.iter().map(|a| std::ffi::OsStr::new(*a)));
    mcp_codegen(&args)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// `mcp-codegen <fixture> -o <dir> && cargo build --manifest-path <dir>/Cargo.toml`, for every
/// valid fixture, as a server crate and as a typed client crate (`--client`), with one shared
/// target directory so dependencies build once.
#[test]
#[ignore = "slow (builds generated crates): .ci/run runs it by name with --ignored"]
fn every_valid_fixture_generates_a_crate_that_builds() {
    let root = common::workspace();
    let target = root.join("target/generated-crates");
    let scratch = tempfile::tempdir().unwrap();
    let crates = common::valid_fixtures()
        .into_iter()
        .flat_map(|(name, fixture)| {
            [
                (name.clone(), fixture.clone(), None),
                (format!("{name}-client"), fixture, Some("--client")),
            ]
        });
    for (name, fixture, client) in crates {
        let out = scratch.path().join(&name);
        let package = format!("generated-{name}");
        let mut flags = vec!["--quiet", "--name", &package];
        flags.extend(client);
        let generated = generate_into(&fixture, &out, &flags);
        assert!(
            generated.status.success(),
            "{name}: {}",
            text(&generated.stderr)
        );
        // Pin dependency versions to the workspace's, so the build needs no resolution.
        fs::copy(root.join("Cargo.lock"), out.join("Cargo.lock")).unwrap();
        let build = Command::new(env!("CARGO"))
            .args(["build", "--quiet", "--manifest-path"])
            .arg(out.join("Cargo.toml"))
            .env("CARGO_TARGET_DIR", &target)
            .env("RUSTFLAGS", "-D warnings")
            .output()
            .unwrap();
        assert!(
            build.status.success(),
            "{name} does not build:\n{}",
            text(&build.stderr)
        );
    }
}

/// A contract with a `pattern` gets the runtime's `pattern` feature in its scaffolded
/// `Cargo.toml`; without it (a `Cargo.toml` written by hand, or the contract gained a pattern
/// after the scaffold), the crate does not compile and the error says which feature to add.
#[test]
#[ignore = "slow (builds generated crates): .ci/run runs it by name with --ignored"]
fn patterns_need_the_runtime_pattern_feature_and_say_so() {
    let root = common::workspace();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("patterned");
    let fixture = root.join("fixtures/openrpc/validation.openrpc.json");
    let generated = generate_into(
        &fixture,
        &out,
        &["--quiet", "--name", "generated-patterned"],
    );
    assert!(generated.status.success(), "{}", text(&generated.stderr));
    let manifest = fs::read_to_string(out.join("Cargo.toml")).unwrap();
    assert!(manifest.contains(r#"features = ["pattern"]"#), "{manifest}");
    fs::write(
        out.join("Cargo.toml"),
        manifest.replace(r#", features = ["pattern"]"#, ""),
    )
    .unwrap();
    fs::copy(root.join("Cargo.lock"), out.join("Cargo.lock")).unwrap();
    let check = Command::new(env!("CARGO"))
        .args(["check", "--quiet", "--manifest-path"])
        .arg(out.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", root.join("target/generated-crates"))
        .output()
        .unwrap();
    assert!(!check.status.success(), "built without the pattern feature");
    let stderr = text(&check.stderr);
    assert!(
        stderr.contains("needs mcp-runtime's `pattern` feature")
            && stderr.contains(r#"features = ["pattern"]"#),
        "{stderr}"
    );
    // The quickstart has no pattern: its runtime line names no feature.
    let plain = dir.path().join("plain");
    let generated = generate_into(
        &root.join("examples/quickstart/openrpc.json"),
        &plain,
        &["--quiet"],
    );
    assert!(generated.status.success(), "{}", text(&generated.stderr));
    let manifest = fs::read_to_string(plain.join("Cargo.toml")).unwrap();
    let runtime_line = manifest
        .lines()
        .find(|l| l.starts_with("mcp-runtime"))
        .unwrap();
    assert!(!runtime_line.contains("features"), "{runtime_line}");
}

/// `--client`: a library crate (no `main.rs`, no handler) with the runtime's `client` feature,
/// whose README lists each method the client has, and `--check` that knows it.
#[test]
fn client_generates_a_library_crate() {
    let root = common::workspace();
    let fixture = root.join("examples/quickstart/openrpc.json");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("client");
    let first = generate_into(&fixture, &out, &["--client"]);
    assert!(first.status.success(), "{}", text(&first.stderr));
    for file in ["Cargo.toml", "README.md", "src/lib.rs", "src/generated.rs"] {
        assert!(out.join(file).is_file(), "{file} was not created");
    }
    for file in ["src/main.rs", "src/handler.rs"] {
        assert!(!out.join(file).exists(), "{file} is a server's");
    }
    let manifest = fs::read_to_string(out.join("Cargo.toml")).unwrap();
    assert!(manifest.contains(r#"features = ["client"]"#), "{manifest}");
    let generated = fs::read_to_string(out.join("src/generated.rs")).unwrap();
    assert!(generated.contains("pub mod client"));
    assert!(
        !generated.contains("pub trait Handler"),
        "the server was generated too"
    );
    let readme = fs::read_to_string(out.join("README.md")).unwrap();
    for line in [
        "- tool `add`: `client.add(..)`",
        "- prompt `summarize`: `client.summarize(..)`",
        "- resource template `notes://notes/{id}`: `client.get_note(..)`",
    ] {
        assert!(readme.contains(line), "{line:?} is not in:\n{readme}");
    }
    let check = generate_into(&fixture, &out, &["--client", "--check"]);
    assert_eq!(check.status.code(), Some(0), "{}", text(&check.stderr));
    // The server's generated file is not the client's.
    let check = generate_into(&fixture, &out, &["--check"]);
    assert_eq!(check.status.code(), Some(1), "{}", text(&check.stderr));

    let refused = generate_into(&fixture, &out, &["--client", "--example-tests"]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        text(&refused.stderr).contains("--example-tests"),
        "{}",
        text(&refused.stderr)
    );
}

#[test]
fn regenerating_keeps_user_files_and_check_detects_drift() {
    let root = common::workspace();
    let fixture = root.join("examples/quickstart/openrpc.json");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("server");

    let first = generate_into(&fixture, &out, &[]);
    assert!(first.status.success(), "{}", text(&first.stderr));
    for file in [
        "Cargo.toml",
        "README.md",
        "src/main.rs",
        "src/handler.rs",
        "src/generated.rs",
        "src/generated/descriptors.rs",
    ] {
        assert!(out.join(file).is_file(), "{file} was not created");
    }

    let check = generate_into(&fixture, &out, &["--check"]);
    assert_eq!(check.status.code(), Some(0), "{}", text(&check.stderr));

    // The user edits their files and someone edits the generated one by hand.
    let handler = out.join("src/handler.rs");
    fs::write(&handler, "// my implementation\n").unwrap();
    fs::write(out.join("Cargo.toml"), "# my manifest\n").unwrap();
    let generated = out.join("src/generated.rs");
    let pristine = fs::read_to_string(&generated).unwrap();
    fs::write(&generated, format!("{pristine}\n// hand edit\n")).unwrap();

    let check = generate_into(&fixture, &out, &["--check"]);
    assert_eq!(check.status.code(), Some(1));
    let listed = text(&check.stdout);
    assert_eq!(
        listed.trim(),
        out.join("src/generated.rs").display().to_string()
    );
    assert_eq!(
        fs::read_to_string(&generated).unwrap(),
        format!("{pristine}\n// hand edit\n"),
        "--check wrote"
    );

    let again = generate_into(&fixture, &out, &[]);
    assert!(again.status.success());
    assert_eq!(
        fs::read_to_string(&handler).unwrap(),
        "// my implementation\n"
    );
    assert_eq!(
        fs::read_to_string(out.join("Cargo.toml")).unwrap(),
        "# my manifest\n"
    );
    assert_eq!(fs::read_to_string(&generated).unwrap(), pristine);
    assert!(
        text(&again.stderr).contains("kept      "),
        "{}",
        text(&again.stderr)
    );
}

/// The generated code is split (a file per type and per method in `src/generated/`); a file
/// an earlier run generated and this one does not is listed by `--check` and removed by a run;
/// `--one-file` writes `src/generated.rs` alone, removing `src/generated/`; files in
/// `src/generated/` that the generator did not write are never touched.
#[test]
fn split_output_leftovers_and_one_file() {
    let root = common::workspace();
    let fixture = root.join("examples/quickstart/openrpc.json");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("server");
    let pieces = out.join("src/generated");

    let first = generate_into(&fixture, &out, &[]);
    assert!(first.status.success(), "{}", text(&first.stderr));
    assert!(pieces.join("descriptors.rs").is_file());
    let types = fs::read_dir(pieces.join("types")).unwrap().count();
    let methods = fs::read_dir(pieces.join("dispatch")).unwrap().count();
    assert!(types > 5 && methods > 3, "{types} types, {methods} methods");
    let root_file = fs::read_to_string(out.join("src/generated.rs")).unwrap();
    assert!(
        root_file.contains("mod types {") && root_file.contains("mod note;\n"),
        "{root_file}"
    );

    // A type that is gone from the contract, and a file of the user's.
    let header = root_file.lines().next().unwrap();
    let stale = pieces.join("types/removed_type.rs");
    fs::write(&stale, format!("{header}\n\npub struct RemovedType;\n")).unwrap();
    let theirs = pieces.join("types/notes.rs");
    fs::write(&theirs, "// my notes\n").unwrap();
    let check = generate_into(&fixture, &out, &["--check"]);
    assert_eq!(check.status.code(), Some(1), "{}", text(&check.stderr));
    assert_eq!(text(&check.stdout).trim(), stale.display().to_string());
    // A piece edited by hand is stale too.
    let piece = pieces.join("descriptors.rs");
    let pristine = fs::read_to_string(&piece).unwrap();
    fs::write(&piece, format!("{pristine}// hand edit\n")).unwrap();
    let check = generate_into(&fixture, &out, &["--check"]);
    let listed: Vec<String> = text(&check.stdout).lines().map(str::to_string).collect();
    assert_eq!(
        listed,
        [piece.display().to_string(), stale.display().to_string()]
    );

    let again = generate_into(&fixture, &out, &[]);
    assert!(again.status.success(), "{}", text(&again.stderr));
    assert!(
        text(&again.stderr).contains("removed   "),
        "{}",
        text(&again.stderr)
    );
    assert!(!stale.exists(), "the stale piece is still there");
    assert!(
        theirs.exists(),
        "a file the generator did not write was removed"
    );
    assert_eq!(fs::read_to_string(&piece).unwrap(), pristine);
    let check = generate_into(&fixture, &out, &["--check"]);
    assert_eq!(check.status.code(), Some(0), "{}", text(&check.stderr));

    // One file: everything in src/generated.rs, the pieces removed (the user's file stays).
    fs::remove_file(&theirs).unwrap();
    let check = generate_into(&fixture, &out, &["--one-file", "--check"]);
    assert_eq!(check.status.code(), Some(1));
    assert_eq!(
        text(&check.stdout).lines().count(),
        1 + types + methods + 1,
        "the root and every piece: {}",
        text(&check.stdout)
    );
    let one = generate_into(&fixture, &out, &["--one-file"]);
    assert!(one.status.success(), "{}", text(&one.stderr));
    assert!(!pieces.exists(), "src/generated/ is still there");
    let single = fs::read_to_string(out.join("src/generated.rs")).unwrap();
    assert!(!single.contains("include!"), "{single}");
    assert!(single.contains("pub struct Note "), "{single}");
    let check = generate_into(&fixture, &out, &["--one-file", "--check"]);
    assert_eq!(check.status.code(), Some(0), "{}", text(&check.stderr));
    let back = generate_into(&fixture, &out, &[]);
    assert!(back.status.success());
    assert_eq!(fs::read_to_string(&piece).unwrap(), pristine);
}

/// `--generated-crate`: the generated code is a crate of its own in `generated/`, which the
/// user's crate depends on and names `generated`; regenerating keeps that layout without the
/// flag, `--check` and the pruning of pieces know it, and a crate of the in-crate layout
/// (`src/generated.rs`) keeps its own even with the flag.
#[test]
fn generated_crate_layout() {
    let root = common::workspace();
    let fixture = root.join("examples/quickstart/openrpc.json");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("own");
    let first = generate_into(&fixture, &out, &["--generated-crate"]);
    assert!(first.status.success(), "{}", text(&first.stderr));
    for file in [
        "generated/Cargo.toml",
        "generated/src/lib.rs",
        "generated/src/descriptors.rs",
        "src/generated.md",
    ] {
        assert!(out.join(file).is_file(), "{file} was not created");
    }
    assert!(!out.join("src/generated.rs").exists());
    let main = fs::read_to_string(out.join("src/main.rs")).unwrap();
    assert!(
        main.contains("\nuse quickstart_notes_generated as generated;\n"),
        "{main}"
    );
    let manifest = fs::read_to_string(out.join("Cargo.toml")).unwrap();
    assert!(
        manifest.contains("quickstart-notes-generated = { path = \"generated\" }")
            && manifest.contains("[profile.dev.package.quickstart-notes-generated]"),
        "{manifest}"
    );
    let generated_manifest = fs::read_to_string(out.join("generated/Cargo.toml")).unwrap();
    assert!(
        generated_manifest.contains("name = \"quickstart-notes-generated\""),
        "{generated_manifest}"
    );
    // The crate of its own decodes and encodes in non-generic functions (their serde code
    // compiled there, not again in the handler's crate); the in-crate layout calls the
    // runtime's helpers directly (checked below).
    let create_note =
        fs::read_to_string(out.join("generated/src/dispatch/create_note.rs")).unwrap();
    assert!(
        create_note.contains("fn decode_method(params: Params<'_>)")
            && create_note.contains("fn encode_method(result: Result<types::Note, Error>)")
            && create_note.contains("then_reply(\n        decode_method(params),")
            && !create_note.contains("inline"),
        "{create_note}"
    );
    let runtime_line = |m: &str| {
        m.lines()
            .find(|l| l.starts_with("mcp-runtime"))
            .map(str::to_string)
    };
    assert_eq!(runtime_line(&manifest), runtime_line(&generated_manifest));

    // Regenerated without the flag: the same layout, nothing stale.
    let check = generate_into(&fixture, &out, &["--check"]);
    assert_eq!(check.status.code(), Some(0), "{}", text(&check.stderr));
    // A stale piece and a hand edit of the root are listed, then fixed by a run.
    let pieces = out.join("generated/src");
    let lib = pieces.join("lib.rs");
    let pristine = fs::read_to_string(&lib).unwrap();
    let header = pristine.lines().next().unwrap();
    let stale = pieces.join("types/removed_type.rs");
    fs::write(&stale, format!("{header}\n\npub struct RemovedType;\n")).unwrap();
    fs::write(&lib, format!("{pristine}// hand edit\n")).unwrap();
    let check = generate_into(&fixture, &out, &["--check"]);
    let listed: Vec<String> = text(&check.stdout).lines().map(str::to_string).collect();
    assert_eq!(
        listed,
        [lib.display().to_string(), stale.display().to_string()]
    );
    let again = generate_into(&fixture, &out, &[]);
    assert!(again.status.success(), "{}", text(&again.stderr));
    assert!(!stale.exists() && !out.join("src/generated.rs").exists());
    assert_eq!(fs::read_to_string(&lib).unwrap(), pristine);
    // One file: the pieces removed, the root kept.
    let one = generate_into(&fixture, &out, &["--one-file"]);
    assert!(one.status.success(), "{}", text(&one.stderr));
    assert!(!pieces.join("types").exists() && !pieces.join("descriptors.rs").exists());
    assert!(fs::read_to_string(&lib)
        .unwrap()
        .contains("pub struct Note "));

    // A crate of the in-crate layout keeps it.
    let old = dir.path().join("old");
    assert!(generate_into(&fixture, &old, &[]).status.success());
    let kept = generate_into(&fixture, &old, &["--generated-crate"]);
    assert!(kept.status.success(), "{}", text(&kept.stderr));
    assert!(old.join("src/generated/descriptors.rs").is_file());
    assert!(!old.join("generated").exists());
    let create_note =
        fs::read_to_string(old.join("src/generated/dispatch/create_note.rs")).unwrap();
    assert!(
        !create_note.contains("decode_")
            && !create_note.contains("encode_")
            && create_note.contains("valid_method_params(params, ParamStructure::ByName),"),
        "{create_note}"
    );

    let refused = generate_into(&fixture, &out, &["--generated-crate", "--example-tests"]);
    assert_eq!(refused.status.code(), Some(2));
}

/// A new crate of a contract of 64 methods or more gets the generated crate of its own without
/// the flag (an edit of the handler then rebuilds only the user's crate), and the summary line
/// says so; 63 methods keep the in-crate layout, as does `--no-generated-crate`; `--example-tests`
/// and a crate already generated in the other layout keep theirs; regenerating keeps the layout.
#[test]
fn a_large_contract_gets_a_generated_crate_by_default() {
    let dir = tempfile::tempdir().unwrap();
    let contract = |methods: usize| {
        let methods: Vec<serde_json::Value> = (0..methods)
            .map(|i| {
                serde_json::json!({
                    "name": format!("method_{i:03}"),
                    "x-mcp": "tool",
                    "params": [{"name": "q", "required": true, "schema": {"type": "string"}}],
                    "result": {"name": "r", "schema": {"type": "integer"}}
                })
            })
            .collect();
        let path = dir.path().join(format!("contract-{}.json", methods.len()));
        let doc = serde_json::json!({
            "openrpc": "1.3.2",
            "info": {"title": "Sized", "version": "0.1.0"},
            "methods": methods
        });
        fs::write(&path, doc.to_string()).unwrap();
        path
    };
    let (large, small) = (contract(64), contract(63));
    let own = |out: &Path| {
        out.join("generated/Cargo.toml").is_file() && !out.join("src/generated.rs").exists()
    };
    let in_crate =
        |out: &Path| out.join("src/generated.rs").is_file() && !out.join("generated").exists();

    let out = dir.path().join("large");
    let run = generate_into(&large, &out, &[]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    assert!(own(&out));
    let summary = text(&run.stderr).lines().last().unwrap().to_string();
    assert_eq!(
        summary,
        "exposes 64 tools, 0 prompts, 0 resources and 0 plain JSON-RPC methods; the generated code is a crate of its own, generated/ (64 methods, 64 or more: an edit of src/handler.rs rebuilds only your crate; --no-generated-crate keeps it in src/)"
    );
    let main = fs::read_to_string(out.join("src/main.rs")).unwrap();
    assert!(
        main.contains("\nuse sized_generated as generated;\n"),
        "{main}"
    );
    // The same as with the flag, byte for byte.
    let flagged = dir.path().join("flagged");
    assert!(generate_into(&large, &flagged, &["--generated-crate"])
        .status
        .success());
    let check = generate_into(&large, &flagged, &["--check"]);
    assert_eq!(check.status.code(), Some(0), "{}", text(&check.stdout));
    for file in ["generated/src/lib.rs", "src/main.rs", "Cargo.toml"] {
        assert_eq!(
            fs::read_to_string(out.join(file)).unwrap(),
            fs::read_to_string(flagged.join(file)).unwrap(),
            "{file}"
        );
    }
    // Regenerated: kept, and the note is not repeated.
    let again = generate_into(&large, &out, &[]);
    assert!(again.status.success() && own(&out));
    assert!(
        !text(&again.stderr).contains("crate of its own"),
        "{}",
        text(&again.stderr)
    );

    let out = dir.path().join("small");
    let run = generate_into(&small, &out, &[]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    assert!(in_crate(&out));
    assert!(!text(&run.stderr).contains("crate of its own"));
    // A small crate regenerated from a contract grown past the bound keeps its layout.
    assert!(generate_into(&large, &out, &[]).status.success());
    assert!(in_crate(&out));

    for (name, flags) in [
        ("asked", &["--no-generated-crate"][..]),
        ("examples", &["--example-tests"][..]),
    ] {
        let out = dir.path().join(name);
        let run = generate_into(&large, &out, flags);
        assert!(run.status.success(), "{name}: {}", text(&run.stderr));
        assert!(in_crate(&out), "{name}");
        assert!(!text(&run.stderr).contains("crate of its own"), "{name}");
    }
    let both = generate_into(
        &large,
        &dir.path().join("both"),
        &["--generated-crate", "--no-generated-crate"],
    );
    assert_eq!(both.status.code(), Some(2));
}

#[test]
fn an_invalid_document_exits_2_lists_every_error_and_writes_nothing() {
    let root = common::workspace();
    let fixture = root.join("fixtures/invalid/several-errors.json");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("never");
    let output = generate_into(&fixture, &out, &[]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = text(&output.stderr);
    assert!(stderr.matches("error[").count() >= 2, "{stderr}");
    assert!(stderr.contains("several-errors.json:"), "{stderr}");
    assert!(stderr.contains("nothing was written"), "{stderr}");
    assert!(!out.exists(), "output written for an invalid document");
}

#[test]
fn the_fusion_partial_openrpc_document_is_rejected() {
    let root = common::workspace();
    let fixture: PathBuf =
        root.join("fixtures/third-party/fusion/fusion-jsonrpc/src/test/resources/META-INF/fusion/jsonrpc/openrpc.json");
    let dir = tempfile::tempdir().unwrap();
    let output = generate_into(&fixture, &dir.path().join("out"), &[]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        text(&output.stderr).contains("error[document-shape]"),
        "{}",
        text(&output.stderr)
    );
}

#[test]
fn help_teaches_by_example() {
    let output = mcp_codegen(&["--help".as_ref()]);
    let help = text(&output.stdout);
    for needle in [
        "Examples:",
        "mcp-codegen openrpc.json -o server/",
        "--check",
        "--runtime-path",
        "Exit codes",
    ] {
        assert!(help.contains(needle), "--help lacks {needle:?}:\n{help}");
    }
}

/// Every bad document of `fixtures/invalid/` through the binary: exit 2 and exactly the
/// library's diagnostics on stderr (whose exact texts `diagnostics.rs` pins), or exit 0 with the
/// warning for a warning-only document.
#[test]
fn every_invalid_fixture_is_reported_by_the_cli() {
    let root = common::workspace();
    let dir = tempfile::tempdir().unwrap();
    let mut checked = 0;
    for entry in fs::read_dir(root.join("fixtures/invalid")).unwrap() {
        let path = entry.unwrap().path();
        if path
            .file_name()
            .unwrap()
            .to_string_lossy()
            .ends_with("-helper.json")
        {
            continue; // only reached through `$ref` from another document
        }
        let out = dir.path().join(path.file_stem().unwrap());
        let output = generate_into(&path, &out, &[]);
        let stderr = text(&output.stderr);
        match mcp_codegen::generate(&path) {
            Err(diagnostics) => {
                assert_eq!(
                    output.status.code(),
                    Some(2),
                    "{}: {stderr}",
                    path.display()
                );
                assert!(
                    stderr.starts_with(&diagnostics.to_string()),
                    "{}:\n{stderr}",
                    path.display()
                );
                assert!(!out.exists(), "{}: output written", path.display());
            }
            Ok(generated) => {
                assert_eq!(
                    output.status.code(),
                    Some(0),
                    "{}: {stderr}",
                    path.display()
                );
                assert!(
                    generated.warnings.warnings().count() > 0,
                    "{} has no diagnostics",
                    path.display()
                );
                for warning in generated.warnings.warnings() {
                    assert!(
                        stderr.contains(&warning.to_string()),
                        "{}:\n{stderr}",
                        path.display()
                    );
                }
            }
        }
        checked += 1;
    }
    assert!(checked >= 19, "only {checked} invalid fixtures");
}

/// `--server-card FILE` without `-o` writes only the card, with `--server-card-url` as its
/// remote; a document without a card is refused with the field to add.
#[test]
fn server_card_file() {
    let scratch = tempfile::tempdir().unwrap();
    let quickstart = common::workspace().join("examples/quickstart/openrpc.json");
    let card_file = scratch.path().join("card.json");
    let output = mcp_codegen(&[
        quickstart.as_os_str(),
        "--server-card".as_ref(),
        card_file.as_os_str(),
        "--server-card-url".as_ref(),
        "https://notes.example.com/mcp".as_ref(),
    ]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let card: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&card_file).unwrap()).unwrap();
    assert_eq!(
        card["$schema"],
        "https://static.modelcontextprotocol.io/schemas/v2/server-card.schema.json"
    );
    assert_eq!(card["name"], "invalid.example/quickstart-notes");
    assert_eq!(card["version"], "0.1.0");
    assert_eq!(card["title"], "Quickstart Notes");
    assert_eq!(card["remotes"][0]["url"], "https://notes.example.com/mcp");
    assert_eq!(
        card["remotes"][0]["supportedProtocolVersions"]
            .as_array()
            .unwrap()
            .len(),
        5
    );
    assert_eq!(
        fs::read_dir(scratch.path()).unwrap().count(),
        1,
        "only the card is written"
    );

    let no_card = common::workspace().join("examples/everything-server/openrpc.json");
    let refused = mcp_codegen(&[
        no_card.as_os_str(),
        "--server-card".as_ref(),
        card_file.as_os_str(),
    ]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        text(&refused.stderr).contains("info[\"x-mcp\"].card"),
        "{}",
        text(&refused.stderr)
    );

    let bad_url = mcp_codegen(&[
        quickstart.as_os_str(),
        "--server-card".as_ref(),
        card_file.as_os_str(),
        "--server-card-url".as_ref(),
        "notes.example.com".as_ref(),
    ]);
    assert_eq!(bad_url.status.code(), Some(2));
    assert!(text(&bad_url.stderr).contains("--server-card-url"));
}

/// A document whose `$ref` paths are written from its repository's root: refused with a hint
/// naming `--ref-base`, generated with it (and a `ref-base` warning per reference).
#[test]
fn ref_base_reads_references_written_from_the_repository_root() {
    let root = common::workspace();
    let base = root.join("fixtures/lenient/ref-base");
    let fixture = base.join("api/service.json");
    let scratch = tempfile::tempdir().unwrap();
    let out = scratch.path().join("split");

    let refused = generate_into(&fixture, &out, &[]);
    assert_eq!(refused.status.code(), Some(2), "{}", text(&refused.stderr));
    assert!(
        text(&refused.stderr).contains(&format!(
            "run with --ref-base {:?}",
            base.display().to_string()
        )),
        "{}",
        text(&refused.stderr)
    );
    assert!(!out.exists());

    let base_arg = base.display().to_string();
    let generated = generate_into(&fixture, &out, &["--ref-base", &base_arg]);
    assert!(generated.status.success(), "{}", text(&generated.stderr));
    assert_eq!(
        text(&generated.stderr).matches("warning[ref-base]").count(),
        2,
        "{}",
        text(&generated.stderr)
    );
    assert!(out.join("src/generated.rs").exists());

    let missing = base.join("absent");
    let missing_arg = missing.display().to_string();
    let refused = generate_into(&fixture, &out, &["--ref-base", &missing_arg]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        text(&refused.stderr).contains("--ref-base")
            && text(&refused.stderr).contains("not a directory"),
        "{}",
        text(&refused.stderr)
    );
}
