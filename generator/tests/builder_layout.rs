//! `Builder` (a `build.rs`): the module is split beside its file (`mcp_server.rs` and
//! `mcp_server/`), files are rewritten only when they change, pieces an earlier run left are
//! removed, and `one_file` writes one file and removes the pieces. The examples and the
//! workspace tests build such modules from `OUT_DIR`.

#[allow(dead_code)] // only `workspace` is used here
mod common;

use std::fs;
use std::path::Path;

fn quickstart() -> std::path::PathBuf {
    common::workspace().join("examples/quickstart/openrpc.json")
}

/// Every file under `dir`, relative to it, sorted.
fn files(dir: &Path) -> Vec<String> {
    fn walk(dir: &Path, base: &Path, out: &mut Vec<String>) {
        for entry in fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, base, out);
            } else {
                let relative = path.strip_prefix(base).unwrap();
                out.push(relative.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

#[test]
fn builder_splits_beside_its_file_and_removes_what_it_no_longer_writes() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path();
    let written = mcp_codegen::Builder::new(quickstart())
        .out_dir(out)
        .generate()
        .unwrap();
    assert_eq!(written, out.join("mcp_server.rs"));
    let root = fs::read_to_string(&written).unwrap();
    let all = files(out);
    assert!(
        all.contains(&"mcp_server/descriptors.rs".to_string()),
        "{all:?}"
    );
    for file in all.iter().filter(|f| *f != "mcp_server.rs") {
        assert!(root.contains(&format!("\"{file}\"")), "{file}");
    }

    // A second run with the same document touches nothing.
    let piece = out.join("mcp_server/descriptors.rs");
    let modified = fs::metadata(&piece).unwrap().modified().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    mcp_codegen::Builder::new(quickstart())
        .out_dir(out)
        .generate()
        .unwrap();
    assert_eq!(fs::metadata(&piece).unwrap().modified().unwrap(), modified);

    // A piece an earlier run wrote (a type since removed) is removed; a file without the
    // generator's header is not; another module's pieces beside it are not.
    let header = root.lines().next().unwrap();
    let stale = out.join("mcp_server/types/gone.rs");
    fs::write(&stale, format!("{header}\n")).unwrap();
    let foreign = out.join("mcp_server/types/foreign.rs");
    fs::write(&foreign, "// not generated\n").unwrap();
    let client = mcp_codegen::Builder::new(quickstart())
        .client_only()
        .no_skills()
        .file_name("mcp_client.rs")
        .out_dir(out)
        .generate()
        .unwrap();
    assert!(client.is_file() && out.join("mcp_client/types").is_dir());
    mcp_codegen::Builder::new(quickstart())
        .out_dir(out)
        .generate()
        .unwrap();
    assert!(!stale.exists(), "the stale piece is still there");
    assert!(foreign.exists());
    assert!(
        out.join("mcp_client/types").is_dir(),
        "the client's pieces were removed"
    );
    fs::remove_file(&foreign).unwrap();

    // One file: the pieces go.
    mcp_codegen::Builder::new(quickstart())
        .out_dir(out)
        .one_file()
        .generate()
        .unwrap();
    assert!(!out.join("mcp_server").exists(), "{:?}", files(out));
    let single = fs::read_to_string(out.join("mcp_server.rs")).unwrap();
    assert!(!single.contains("include!"));
    assert_eq!(
        single,
        mcp_codegen::generate(&quickstart()).unwrap().server.source
    );
}

/// One file and split (as `Builder` writes it, for `OUT_DIR`) hold the same items: the split
/// root with each `include!` replaced by its file parses to the one file's items, modules
/// around the pieces aside.
#[test]
fn split_and_one_file_hold_the_same_code() {
    let split = mcp_codegen::generate_with_options(
        &quickstart(),
        &mcp_codegen::Options {
            layout: mcp_codegen::emit::Layout::split_beside(std::path::Path::new("mcp_server.rs")),
            ..mcp_codegen::Options::default()
        },
    )
    .unwrap();
    let one = mcp_codegen::generate(&quickstart()).unwrap();
    let mut inlined = split.server.source.clone();
    for piece in &split.server.pieces {
        let body = piece.source.split_once("\n\n").unwrap().1;
        // `include!("PATH");`, on one line or (a long path) on three.
        let quoted = inlined
            .find(&format!("\"{}\"", piece.path))
            .expect(&piece.path);
        let start = inlined[..quoted].rfind("include!(").unwrap();
        let end = quoted + inlined[quoted..].find(");").unwrap() + 2;
        inlined.replace_range(start..end, body);
    }
    let items = |text: &str| -> usize {
        let file = syn::parse_file(text).unwrap();
        count_items(&file.items)
    };
    // The split root adds a module and a glob re-export around each type.
    let types = split
        .server
        .pieces
        .iter()
        .filter(|p| p.path.starts_with("mcp_server/types/"))
        .count();
    assert_eq!(items(&inlined), items(&one.server.source) + 2 * types);
}

/// Items, counting those inside inline modules (not the modules' own).
fn count_items(items: &[syn::Item]) -> usize {
    items
        .iter()
        .map(|item| match item {
            syn::Item::Mod(m) => m
                .content
                .as_ref()
                .map_or(1, |(_, inner)| count_items(inner)),
            _ => 1,
        })
        .sum()
}

/// The CLI's layout declares its pieces as plain modules, which rustc finds where they are
/// written (`src/generated/types/note.rs` for `mod note;` inside `mod types` of
/// `src/generated.rs`): no `include!` anywhere, each piece declared once.
#[test]
fn cli_layout_declares_modules() {
    let split = mcp_codegen::generate_with_options(
        &quickstart(),
        &mcp_codegen::Options {
            layout: mcp_codegen::scaffold::layout(false),
            ..mcp_codegen::Options::default()
        },
    )
    .unwrap();
    let root = &split.server.source;
    assert!(!root.contains("include!"), "{root}");
    for piece in &split.server.pieces {
        assert!(!piece.source.contains("include!"), "{}", piece.path);
        let (dir, file) = piece.path.rsplit_once('/').unwrap();
        let stem = file.strip_suffix(".rs").unwrap();
        let declared = format!("mod {stem};");
        assert_eq!(root.matches(&declared).count(), 1, "{}", piece.path);
        assert!(dir.starts_with("generated"), "{}", piece.path);
        let module = match dir.split_once('/') {
            Some((_, sub)) => format!("mod {sub} {{"),
            None => String::new(),
        };
        assert!(root.contains(&module), "{module}");
    }
}
