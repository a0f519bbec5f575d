//! Documents crafted to attack the generator: each is refused with its own rule (the message
//! naming the `$ref` and the file), or generates code that compiles and does nothing else.
//!
//! The documents are `fixtures/hostile/` (accepted: injection through every name, description
//! and title, an `allOf` bomb), `fixtures/invalid/ref-*.json` (refused), and files this test makes
//! at run time because git cannot hold them or they are large: symbolic links out of the
//! document's directory, a FIFO, a device, a file over the size cap, a document nested 100 000
//! deep, chains of 10 000 `$ref`s, 20 000 types.
//!
//! Every accepted document is built in one workspace by `hostile_documents_build_and_their_tests_run_nothing`:
//! a payload that escaped (`compile_error!("INJECTED")` in names, `std::process::exit(99)` in
//! doctest-shaped descriptions) fails that build or its `cargo test`.

#[allow(dead_code)] // only `workspace` is used here
mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use mcp_codegen::diagnostics::{Diagnostic, Diagnostics};
use mcp_codegen::emit::Layout;
use mcp_codegen::scaffold::{crate_files, write_crate, CrateOptions, RuntimeDependency};

/// Runs `work` on a thread with `stack` bytes of stack, failing the test (instead of hanging
/// or aborting it) when it takes longer than `limit`.
fn bounded<T: Send + 'static>(
    what: &str,
    stack: usize,
    limit: Duration,
    work: impl FnOnce() -> T + Send + 'static,
) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::Builder::new()
        .stack_size(stack)
        .spawn(move || {
            let _ = tx.send(work());
        })
        .expect("spawn");
    rx.recv_timeout(limit)
        .unwrap_or_else(|e| panic!("{what}: no answer within {limit:?} ({e})"))
}

/// The default stack of a test thread: what a `build.rs` or test calling the library may have.
const SMALL_STACK: usize = 2 << 20;

/// Generates from `path` (load, validate, emit) within 60 s on a small stack.
fn generate(path: &Path) -> Result<mcp_codegen::Generated, Diagnostics> {
    generate_as(path, Layout::OneFile)
}

/// [`generate`], laid out in files as `layout` says.
fn generate_as(path: &Path, layout: Layout) -> Result<mcp_codegen::Generated, Diagnostics> {
    let path = path.to_path_buf();
    let options = mcp_codegen::Options {
        layout,
        ..mcp_codegen::Options::default()
    };
    bounded(
        &path.display().to_string(),
        SMALL_STACK,
        Duration::from_secs(60),
        move || mcp_codegen::generate_with_options(&path, &options),
    )
}

/// A document whose type and method names make file names: path traversal, names Windows
/// reserves, names equal once in snake case or in lower case, control and bidirectional
/// characters, names far over any file name's length.
fn file_name_document() -> serde_json::Value {
    let long = "Segment".repeat(60);
    let names = [
        "../../../etc/passwd",
        "..\\..\\evil",
        "CON",
        "nul",
        "Lpt1",
        "fooBar",
        "foo_bar",
        "FOO-BAR",
        "Ünïcode\u{202e}cod.rs",
        "a/b",
        "/abs",
        "C:\\x",
        ".hidden",
        "1st",
        "_",
        "self",
        "type",
        long.as_str(),
        &format!("{long}X"),
    ];
    let schemas: serde_json::Map<String, serde_json::Value> = names
        .iter()
        .map(|name| {
            (
                name.to_string(),
                serde_json::json!({"type": "object", "properties": {"a": {"type": "string"}}}),
            )
        })
        .collect();
    let methods: Vec<serde_json::Value> = names
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let schema = format!("#/components/schemas/{}", name.replace('~', "~0").replace('/', "~1"));
            let mut method = serde_json::json!({
                "name": name,
                "params": [{"name": "p", "schema": {"$ref": schema}}],
                "result": {"name": "r", "schema": {"type": "object", "properties": {"n": {"type": "integer"}}}},
            });
            if i % 2 == 0 {
                method["x-mcp"] = serde_json::json!({"kind": "tool", "name": format!("tool_{i}")});
            }
            method
        })
        .collect();
    serde_json::json!({
        "openrpc": "1.2.6",
        "info": {"title": "file names", "version": "1"},
        "methods": methods,
        "components": {"schemas": schemas},
    })
}

/// Split, every file name comes from the contract: each is `[a-z][a-z0-9_]*.rs`, bounded, in
/// the pieces' directory, unique even to a case-insensitive file system, never one Windows
/// reserves; and the root includes each file exactly once.
#[test]
fn piece_file_names_are_plain_and_unique() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("names.json");
    write(&path, &file_name_document().to_string());
    let layout = mcp_codegen::scaffold::layout(false);
    let generated = generate_as(&path, layout).unwrap_or_else(|d| panic!("{d}"));
    let pieces = &generated.server.pieces;
    assert!(pieces.len() > 30, "{} pieces", pieces.len());
    let mut seen = std::collections::BTreeSet::new();
    for piece in pieces {
        let rest = piece.path.strip_prefix("generated/").expect(&piece.path);
        let file = rest
            .strip_prefix("types/")
            .or_else(|| rest.strip_prefix("dispatch/"))
            .unwrap_or(rest);
        let stem = file.strip_suffix(".rs").expect(&piece.path);
        assert!(
            stem.starts_with(|c: char| c.is_ascii_lowercase())
                && stem
                    .bytes()
                    .all(|b| matches!(b, b'a'..=b'z' | b'0'..=b'9' | b'_'))
                && stem.len() <= mcp_codegen::emit::layout::MAX_PIECE_NAME + 4,
            "{}",
            piece.path
        );
        let bare = stem.split('.').next().unwrap();
        assert!(
            !["con", "prn", "aux", "nul", "com1", "lpt1"].contains(&bare) && !stem.contains("__"),
            "{}",
            piece.path
        );
        assert!(
            seen.insert(piece.path.to_lowercase()),
            "{} twice",
            piece.path
        );
        // Declared as a module: `mod stem;`, or with the file's path when the stem is a
        // keyword or a name the generated code uses (`#[path = "type.rs"] mod type_rs;`).
        let source = &generated.server.source;
        let declared = format!("mod {stem};");
        let by_path = format!("#[path = \"{file}\"]");
        assert!(
            source.contains(&declared) || source.contains(&by_path),
            "{}",
            piece.path
        );
    }
    let declarations = generated
        .server
        .source
        .lines()
        .filter(|line| line.trim_start().contains("mod ") && line.ends_with(';'))
        .count();
    assert_eq!(declarations, pieces.len());
    syn::parse_file(&generated.server.source).expect("the root is valid Rust");
    for piece in pieces {
        syn::parse_file(&piece.source).unwrap_or_else(|e| panic!("{}: {e}", piece.path));
    }
}

/// The errors of a refused document.
fn refused(path: &Path) -> Vec<Diagnostic> {
    match generate(path) {
        Ok(_) => panic!("{} was accepted", path.display()),
        Err(diagnostics) => diagnostics.errors().cloned().collect(),
    }
}

/// Asserts that every error has `rule`, sits in `file`, and names its `$ref`, one per entry of
/// `refs` in order.
fn assert_refused(errors: &[Diagnostic], rule: &str, file: &Path, refs: &[&str]) {
    let shown: Vec<String> = errors.iter().map(ToString::to_string).collect();
    assert_eq!(errors.len(), refs.len(), "{shown:#?}");
    for (error, reference) in errors.iter().zip(refs) {
        assert_eq!(error.rule, rule, "{error}");
        assert_eq!(error.location.file, file, "{error}");
        assert!(error.location.pointer.ends_with("/$ref"), "{error}");
        assert!(
            error.message.contains(&format!("{reference:?}")),
            "{error} does not name {reference:?}"
        );
    }
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A document with one method whose params are `$ref`s to `refs`, in order.
fn doc_with_refs(refs: &[&str]) -> String {
    let params: Vec<serde_json::Value> = refs
        .iter()
        .enumerate()
        .map(|(i, r)| serde_json::json!({"name": format!("p{i}"), "schema": {"$ref": r}}))
        .collect();
    serde_json::json!({
        "openrpc": "1.2.6",
        "info": {"title": "t", "version": "1"},
        "methods": [{"name": "m", "params": params, "result": {"name": "r", "schema": {"type": "string"}}}],
    })
    .to_string()
}

#[test]
fn urls_and_absolute_paths_are_refused() {
    let path = common::workspace().join("fixtures/invalid/ref-relative.json");
    let refs = [
        "http://example.invalid/schemas.json#/Id",
        "file:///etc/passwd",
        "/etc/passwd",
        "%2Fetc%2Fpasswd",
        "//example.invalid/share/x.json",
    ];
    assert_refused(&refused(&path), "ref-relative", &path, &refs);
}

#[test]
fn parent_directories_out_of_the_root_are_refused() {
    let path = common::workspace().join("fixtures/invalid/ref-confined.json");
    let refs = [
        "../openrpc/refs/common.json#/definitions/Id",
        "sub/../../../../../../../etc/passwd",
        "./../invalid/../hostile/injection.openrpc.json",
    ];
    assert_refused(&refused(&path), "ref-confined", &path, &refs);
}

/// A link inside the document's directory to a file, a directory or a device outside it.
#[cfg(unix)]
#[test]
fn symbolic_links_out_of_the_root_are_refused() {
    use std::os::unix::fs::symlink;
    let dir = tempfile::tempdir().unwrap();
    let (root, outside) = (dir.path().join("root"), dir.path().join("outside"));
    write(&outside.join("secret.json"), r#"{"type": "string"}"#);
    write(&root.join("inside.json"), r#"{"type": "string"}"#);
    symlink(outside.join("secret.json"), root.join("link.json")).unwrap();
    symlink(&outside, root.join("dir-link")).unwrap();
    symlink("/dev/zero", root.join("zero.json")).unwrap();
    // A link that stays inside is followed.
    symlink(root.join("inside.json"), root.join("inner-link.json")).unwrap();
    let refs = ["link.json", "dir-link/secret.json", "zero.json"];
    let path = root.join("doc.json");
    let mut all = refs.to_vec();
    all.push("inner-link.json");
    write(&path, &doc_with_refs(&all));
    assert_refused(&refused(&path), "ref-confined", &path, &refs);
}

/// A FIFO would block the generator forever, a directory cannot be read, a huge file would
/// exhaust memory: as a `$ref`'s target and as the document itself.
#[cfg(unix)]
#[test]
fn fifos_directories_and_huge_files_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let fifo = root.join("fifo.json");
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(made.success());
    std::fs::create_dir(root.join("dir.json")).unwrap();
    let huge = std::fs::File::create(root.join("huge.json")).unwrap();
    huge.set_len(mcp_codegen::openrpc::load::MAX_FILE_BYTES + 1)
        .unwrap();
    let path = root.join("doc.json");
    write(
        &path,
        &doc_with_refs(&["fifo.json", "dir.json", "huge.json"]),
    );
    let errors = refused(&path);
    assert_refused(
        &errors[..2],
        "regular-file",
        &path,
        &["fifo.json", "dir.json"],
    );
    assert!(errors[0].message.contains("FIFO"), "{}", errors[0]);
    assert!(errors[1].message.contains("directory"), "{}", errors[1]);
    assert_refused(&errors[2..], "file-size", &path, &["huge.json"]);

    for (document, rule) in [
        (&fifo, "regular-file"),
        (&root.join("dir.json"), "regular-file"),
        (&root.join("huge.json"), "file-size"),
    ] {
        let errors = refused(document);
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert_eq!(errors[0].rule, rule, "{}", errors[0]);
        assert_eq!(&errors[0].location.file, document);
    }
}

/// serde_json stops at 128 levels: a document nested 100 000 deep is a syntax error, not a
/// stack overflow.
#[test]
fn nesting_100_000_deep_is_a_syntax_error() {
    let dir = tempfile::tempdir().unwrap();
    let depth = 100_000;
    let schema = format!(
        "{}{}",
        r#"{"items":"#.repeat(depth),
        "{}".to_string() + &"}".repeat(depth)
    );
    let text = doc_with_refs(&[]).replace(
        r#""params":[]"#,
        &format!(r#""params":[{{"name":"p","schema":{schema}}}]"#),
    );
    let path = dir.path().join("deep.json");
    write(&path, &text);
    let errors = refused(&path);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].rule, "json-syntax");
    assert!(
        errors[0].message.contains("recursion limit"),
        "{}",
        errors[0]
    );
}

/// The deepest nesting serde_json accepts, as arrays of arrays (one type inside the next) and
/// as objects in objects (one struct per level), generates on a test thread's stack.
#[test]
fn the_deepest_accepted_nesting_generates_on_a_small_stack() {
    let dir = tempfile::tempdir().unwrap();
    // serde_json accepts 127 nested arrays and objects. The document root, `methods`, the
    // method, `params`, the param: 5 levels above `schema`; the innermost schema: 1.
    let levels = 127 - 5 - 1;
    let (items, properties) = (levels, levels / 2);
    let nested_items = format!(
        "{}{}",
        r#"{"type":"array","items":"#.repeat(items),
        r#"{"type":"string"}"#.to_string() + &"}".repeat(items)
    );
    let nested_objects = format!(
        "{}{}",
        r#"{"type":"object","properties":{"a":"#.repeat(properties),
        r#"{"type":"string"}"#.to_string() + &"}}".repeat(properties)
    );
    for (name, schema) in [("items", nested_items), ("objects", nested_objects)] {
        let text = doc_with_refs(&[]).replace(
            r#""params":[]"#,
            &format!(r#""params":[{{"name":"p","schema":{schema}}}]"#),
        );
        let path = dir.path().join(format!("{name}.json"));
        write(&path, &text);
        let source = generate(&path)
            .unwrap_or_else(|d| panic!("{name}: {d}"))
            .server
            .source;
        // syn needs more stack for 121 nested generics than the generator did.
        bounded(name, 64 << 20, Duration::from_secs(60), move || {
            syn::parse_file(&source).map(drop).expect("valid Rust")
        });
    }
}

/// `$ref` to `$ref` to ... 10 000 times, in schemas and in content descriptors, and a chain
/// into a cycle: no recursion per `$ref`, and a cycle message that names the cycle only.
#[test]
fn chains_of_10_000_refs_finish_without_recursing() {
    let dir = tempfile::tempdir().unwrap();
    let n = 10_000;
    let mut schemas = serde_json::Map::new();
    let mut descriptors = serde_json::Map::new();
    for i in 0..n {
        let next = if i + 1 < n {
            serde_json::json!({"$ref": format!("#/components/schemas/S{}", i + 1)})
        } else {
            serde_json::json!({"type": "object", "properties": {"end": {"type": "string"}}})
        };
        schemas.insert(format!("S{i}"), next);
        // Descriptors: D0 -> D1 -> ... -> D9999 -> D9998 (a cycle at the end).
        let target = if i + 1 < n { i + 1 } else { n - 2 };
        descriptors.insert(
            format!("D{i}"),
            serde_json::json!({"$ref": format!("#/components/contentDescriptors/D{target}")}),
        );
    }
    // Struct fields too: each struct holds the next by value, so boxing looks along all of it.
    for i in 0..n {
        let next = if i + 1 < n {
            serde_json::json!({"$ref": format!("#/components/schemas/F{}", i + 1)})
        } else {
            serde_json::json!({"$ref": "#/components/schemas/F0"})
        };
        schemas.insert(
            format!("F{i}"),
            serde_json::json!({"type": "object", "properties": {"next": next}, "required": ["next"]}),
        );
    }
    let chain = serde_json::json!({
        "openrpc": "1.2.6",
        "info": {"title": "t", "version": "1"},
        "methods": [{"name": "m", "params": [
            {"name": "s", "schema": {"$ref": "#/components/schemas/S0"}},
            {"name": "f", "schema": {"$ref": "#/components/schemas/F0"}}],
            "result": {"name": "r", "schema": {"$ref": "#/components/schemas/S0"}},
            "x-mcp": "tool"}],
        "components": {"schemas": schemas},
    });
    let path = dir.path().join("chain.json");
    write(&path, &chain.to_string());
    let started = Instant::now();
    let generated = generate(&path).unwrap_or_else(|d| panic!("{d}"));
    eprintln!("chain of {n} refs: {:?}", started.elapsed());
    let file = syn::parse_file(&generated.server.source).expect("valid Rust");
    assert!(!file.items.is_empty());
    assert!(
        generated
            .server
            .source
            .contains("pub next: ::std::boxed::Box<F0>"),
        "the cycle through 10 000 structs is boxed where it closes"
    );

    let cycle = serde_json::json!({
        "openrpc": "1.2.6",
        "info": {"title": "t", "version": "1"},
        "methods": [{"name": "m", "params": [{"$ref": "#/components/contentDescriptors/D0"}]}],
        "components": {"contentDescriptors": descriptors},
    });
    let path = dir.path().join("cycle.json");
    write(&path, &cycle.to_string());
    let errors = refused(&path);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].rule, "ref-resolvable");
    let expected = format!(
        "`$ref` cycle: #/components/contentDescriptors/D{} -> #/components/contentDescriptors/D{} -> #/components/contentDescriptors/D{}",
        n - 2,
        n - 1,
        n - 2
    );
    assert!(errors[0].message.ends_with(&expected), "{}", errors[0]);
}

/// `allOf` of 8 copies of a schema that is `allOf` of 8 copies of ..., 12 levels, and a schema
/// that is `allOf` of itself twice: memoised, it takes milliseconds (it did not finish in a
/// minute before).
#[test]
fn an_all_of_bomb_is_merged_once_per_schema() {
    let path = common::workspace().join("fixtures/hostile/all-of-bomb.openrpc.json");
    let started = Instant::now();
    let generated = generate(&path).unwrap_or_else(|d| panic!("{d}"));
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );
    let source = &generated.server.source;
    for i in 0..11 {
        assert!(source.contains(&format!("pub p{i}: ")), "Bomb0 has p{i}");
    }
    assert!(source.contains("pub leaf: "));
}

/// A schema whose union members each merge the schema again (`allOf`): lowering would inline it
/// forever, overflowing the stack (found by `arbitrary_documents.rs`). Refused with the budget
/// rule, on a test thread's stack.
#[test]
fn an_all_of_that_expands_into_itself_is_refused() {
    let path = common::workspace().join("fixtures/invalid/schema-budget.json");
    let errors = refused(&path);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].rule, mcp_codegen::RULE_BUDGET);
    assert_eq!(errors[0].location.file, path);
    assert!(errors[0].message.contains("allOf"), "{}", errors[0]);
}

/// A union one of whose variants is an alias of itself (`C = C`): its message names the
/// variant's JSON type, which is looked for a bounded number of aliases deep (found by
/// `arbitrary_documents.rs` overflowing a section thread's stack).
#[test]
fn a_union_of_an_alias_cycle_generates() {
    let path = common::workspace().join("fixtures/hostile/alias-cycles.openrpc.json");
    let generated = generate(&path).unwrap_or_else(|d| panic!("{d}"));
    assert!(
        generated
            .server
            .source
            .contains(r#"("value C", &miss_0), ("integer", &miss_1)"#),
        "{}",
        generated.server.source
    );
}

/// 20 000 types in a chain and in a web (each type holds three others by value): the
/// recursion analysis is linear. Reachability from every type, as it was, takes minutes here.
#[test]
fn twenty_thousand_types_are_analysed_in_linear_time() {
    use mcp_codegen::typespace::TypeSpace;
    let n = 20_000;
    for web in [false, true] {
        let mut space = TypeSpace::new();
        for i in 0..n {
            let mut properties = serde_json::Map::new();
            let targets = if web {
                vec![(i + 1) % n, (i * 7 + 3) % n, (i * 13 + 5) % n]
            } else {
                vec![(i + 1) % n]
            };
            for t in targets {
                properties.insert(
                    format!("to{t}"),
                    serde_json::json!({"$ref": format!("#/T{t}")}),
                );
            }
            let schema = serde_json::json!({"type": "object", "properties": properties});
            space.add_named(&format!("#/T{i}"), &format!("T{i}"), &schema);
        }
        let started = Instant::now();
        let items = bounded("emit", SMALL_STACK, Duration::from_secs(120), move || {
            space.emit_items().len()
        });
        let elapsed = started.elapsed();
        eprintln!("{n} types (web: {web}): lowered and emitted in {elapsed:?}");
        assert_eq!(items, n);
        assert!(elapsed < Duration::from_secs(30), "{elapsed:?}");
    }
}

/// The generated crate of every accepted hostile document, and of one read from a file whose
/// name is hostile, built in one workspace with the generated modules also included in a
/// library (rustdoc runs a library's doctests, not a binary's): `cargo test` must build and
/// pass, and the user files must hold no line the templates did not write.
#[test]
#[ignore = "slow (builds generated crates): .ci/run runs it by name with --ignored"]
fn hostile_documents_build_and_their_tests_run_nothing() {
    let root = common::workspace();
    let ws = tempfile::tempdir().unwrap();
    let hostile = root.join("fixtures/hostile");
    let mut documents: Vec<(String, PathBuf)> = std::fs::read_dir(&hostile)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .map(|p| {
            let name = p
                .file_name()
                .unwrap()
                .to_string_lossy()
                .replace(".openrpc.json", "");
            (name, p)
        })
        .collect();
    documents.sort();
    assert!(documents.len() >= 2, "{documents:?}");
    // The file name reaches comments, Markdown and shell commands of the crate.
    let named = ws
        .path()
        .join("docs/x\n[evil]\"`$(touch INJECTED)`\u{202e}.json");
    let injection = &documents.iter().find(|(n, _)| n == "injection").unwrap().1;
    write(&named, &std::fs::read_to_string(injection).unwrap());
    documents.push(("file-name".into(), named));
    // Names that make file names (see `piece_file_names_are_plain_and_unique`).
    let names = ws.path().join("docs/piece-names.json");
    write(&names, &file_name_document().to_string());
    documents.push(("piece-names".into(), names));

    let runtime = RuntimeDependency::Path(root.join("runtime"));
    let mut lib = String::from("#![allow(dead_code)]\n");
    let mut members = Vec::new();
    for (name, path) in &documents {
        // As the CLI writes them: split into a file per type and per method.
        let generated = generate_as(path, mcp_codegen::scaffold::layout(false))
            .unwrap_or_else(|d| panic!("{name}: {d}"));
        let source_name = path.file_name().unwrap().to_string_lossy().into_owned();
        let options = CrateOptions {
            crate_name: Some(format!("hostile-{name}")),
            runtime: runtime.clone(),
            contract_path: None,
        };
        assert_docs_hold_no_html_or_unsafe_links(&generated.server.source);
        for piece in &generated.server.pieces {
            assert_docs_hold_no_html_or_unsafe_links(&piece.source);
        }
        let files = crate_files(&generated, &source_name, &options);
        let dir = ws.path().join("crates").join(name);
        write_crate(&dir, &files).unwrap();
        assert_user_files_are_the_templates(&dir);
        assert_served_list_holds_no_markup(&dir);
        // A member of the test workspace: the template says to remove this table, and the
        // profiles before it (only a workspace root sets them), for that.
        let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
        let (package, _) = manifest.split_once("\n[profile.dev]").unwrap();
        std::fs::write(dir.join("Cargo.toml"), package).unwrap();
        members.push(format!("\"crates/{name}\""));
        let module = name.replace('-', "_");
        // The crate's `src/` as a module's directory, so that `generated.rs` declares its
        // pieces' modules from `src/generated/` as in the crate.
        lib.push_str(&format!(
            "#[path = \"../../crates/{name}/src\"]\npub mod {module} {{ pub mod generated; }}\n"
        ));
    }
    write(&ws.path().join("lib/src/lib.rs"), &lib);
    write(
        &ws.path().join("lib/Cargo.toml"),
        &format!(
            "[package]\nname = \"hostile-docs\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n[dependencies]\nmcp-runtime = {{ path = {:?} }}\nserde = {{ version = \"1\", features = [\"derive\"] }}\nserde_json = {{ version = \"1\", features = [\"raw_value\"] }}\n",
            root.join("runtime").display().to_string()
        ),
    );
    members.push("\"lib\"".into());
    write(
        &ws.path().join("Cargo.toml"),
        &format!(
            "[workspace]\nresolver = \"2\"\nmembers = [{}]\n",
            members.join(", ")
        ),
    );
    std::fs::copy(root.join("Cargo.lock"), ws.path().join("Cargo.lock")).unwrap();
    let output = Command::new(env!("CARGO"))
        .args(["test", "--offline", "--workspace"])
        .current_dir(ws.path())
        .env("CARGO_TARGET_DIR", root.join("target/hostile-crates"))
        .env("RUSTFLAGS", "-D warnings")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the hostile crates failed to build or test:\n{stdout}\n{stderr}"
    );
    assert!(!stdout.contains("INJECTED"), "{stdout}");
    assert!(
        stdout.contains("Doc-tests hostile_docs") || stderr.contains("Doc-tests hostile_docs"),
        "the library's doctests ran:\n{stdout}\n{stderr}"
    );
    assert!(
        !ws.path().join("INJECTED").exists() && !root.join("INJECTED").exists(),
        "a command from a document ran"
    );
}

/// The doc comments hold no HTML tag and no `javascript:` link that rustdoc would render
/// (`&lt;` and `\](` are the escaped forms; a ```` ```text ```` block shows its text as is).
fn assert_docs_hold_no_html_or_unsafe_links(source: &str) {
    let mut fence: Option<String> = None;
    for line in source.lines().map(str::trim_start) {
        let Some(doc) = line.strip_prefix("///") else {
            continue;
        };
        let ticks: String = doc.trim().chars().take_while(|&c| c == '`').collect();
        match &fence {
            Some(open) if doc.trim() == open => fence = None,
            Some(_) => continue,
            None if ticks.len() >= 3 => {
                assert_eq!(doc.trim(), format!("{ticks}text"), "{line}");
                fence = Some(ticks);
                continue;
            }
            None => {}
        }
        assert!(!doc.contains("<script") && !doc.contains("<img"), "{line}");
        for (i, _) in doc.match_indices("](javascript") {
            assert!(doc[..i].ends_with('\\'), "{line}");
        }
    }
}

/// `src/generated.md` (the document's names and summaries) opens no tag, link, image or table
/// cell: outside code spans, every `<`, `[`, `!` and `|` is escaped.
fn assert_served_list_holds_no_markup(dir: &Path) {
    let list = std::fs::read_to_string(dir.join("src/generated.md")).unwrap();
    let (header, rest) = list.split_once('\n').unwrap();
    assert!(
        header.starts_with("<!-- @generated") && header.ends_with("-->"),
        "{header}"
    );
    for line in rest.lines() {
        // Code spans: a run of backticks opens one and the same run closes it.
        let mut outside = String::new();
        let mut rest = line;
        while let Some(open) = rest.find('`') {
            outside.push_str(&rest[..open]);
            let ticks = rest[open..].chars().take_while(|&c| c == '`').count();
            let after = &rest[open + ticks..];
            let delimiter = "`".repeat(ticks);
            let close = after.find(&delimiter).unwrap_or_else(|| panic!("{line}"));
            rest = &after[close + ticks..];
        }
        outside.push_str(rest);
        let chars: Vec<char> = outside.chars().collect();
        for (i, c) in chars.iter().enumerate() {
            if "<[!|".contains(*c) {
                assert!(i > 0 && chars[i - 1] == '\\', "unescaped {c:?} in {line}");
            }
        }
    }
}

/// `Cargo.toml` holds no table or key the template does not write, and the README's shell
/// blocks hold only the template's commands, each on its line.
fn assert_user_files_are_the_templates(dir: &Path) {
    let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
    let keys: Vec<&str> = manifest
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| l.split([' ', '=']).next().unwrap())
        // This crate's own profile (its codegen units) is named for the package.
        .map(|key| {
            if key.starts_with("[profile.dev.package.hostile-") {
                "[profile.dev.package.<name>]"
            } else {
                key
            }
        })
        .collect();
    assert_eq!(
        keys,
        [
            "[package]",
            "name",
            "version",
            "edition",
            "rust-version",
            "publish",
            "[dependencies]",
            "mcp-runtime",
            "serde",
            "serde_json",
            "[features]",
            "jwt",
            "redis",
            "trace",
            "otel",
            "metrics",
            "[profile.dev]",
            "debug",
            "[profile.dev.package.\"*\"]",
            "debug",
            "[profile.dev.package.<name>]",
            "codegen-units",
            "[workspace]",
            "resolver"
        ],
        "{manifest}"
    );
    // The handler reads as written by hand: plain paths outside its doc comments.
    let handler = std::fs::read_to_string(dir.join("src/handler.rs")).unwrap();
    for line in handler
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
    {
        assert!(
            !line.contains("::std::") && !line.contains("::serde_json::"),
            "{line}"
        );
    }
    let readme = std::fs::read_to_string(dir.join("README.md")).unwrap();
    let mut in_shell = false;
    let mut shell_lines = Vec::new();
    for line in readme.lines() {
        match (in_shell, line) {
            (false, "```sh") => in_shell = true,
            (true, "```") => in_shell = false,
            (true, line) => shell_lines.push(line),
            (false, line) => assert!(!line.starts_with("```"), "{line}"),
        }
    }
    assert!(!in_shell);
    // `cargo build -q`, `printf '%s\n' \`, the session's three messages, the pipe into the
    // server, and the two regenerate lines.
    assert_eq!(shell_lines.len(), 8, "{readme}");
    assert_eq!(shell_lines[0], "cargo build -q");
    assert_eq!(shell_lines[1], r"printf '%s\n' \");
    for line in &shell_lines[2..5] {
        let message = line
            .strip_prefix("  '")
            .and_then(|l| l.strip_suffix("' \\"))
            .unwrap_or_else(|| panic!("{line}"));
        assert!(!message.contains('\''), "{message}");
        assert!(message.is_ascii(), "{message}");
        serde_json::from_str::<serde_json::Value>(message).expect("each message is JSON");
    }
    assert_eq!(shell_lines[5], "  | cargo run -q -- --stdio");
    for line in &shell_lines[6..] {
        let word = line
            .strip_prefix("mcp-codegen ")
            .and_then(|l| l.split_once(" -o .").map(|(w, _)| w))
            .unwrap_or_else(|| panic!("{line}"));
        assert!(
            word.chars()
                .all(|c| c.is_ascii_alphanumeric() || "._+-".contains(c)),
            "{word}"
        );
    }
}
