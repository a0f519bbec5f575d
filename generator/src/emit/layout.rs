//! Where the generated code goes: one file, or a root file and a file per piece beside it.
//!
//! Incremental compilation keys what it may reuse on spans (file, line, column): a line added
//! near the top of one big file moves every item below it, and rustc type-checks and compiles
//! them all again. Split, each named type of `types` and each method's dispatch (its decoding,
//! handler call and encoding, the future the runtime polls) is a file of its own, included in a
//! module of its own (`mod pet_rs { use super::*; include!("generated/types/pet.rs"); }`), so a
//! change to one method's schemas moves nothing else, and rustc's codegen units, which follow
//! modules, follow the files: only the changed ones are compiled again.
//!
//! The root file holds the rest: the `Handler` trait, `Server<H>` and its `Dispatch` impl (each
//! arm a call into its method's module), `errors` and the typed client.
//!
//! File names come from the contract, through Rust names the generator already made safe;
//! [`piece_names`] narrows them further to lowercase ASCII letters, digits and `_`, bounded, unique
//! even on a case-insensitive file system, never a name Windows reserves.

use proc_macro2::{Ident, Span};
use std::collections::BTreeSet;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// How the generated source is laid out in files.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Layout {
    /// One file holding everything (the library's default: what [`crate::generate`] returns
    /// and what tests parse).
    #[default]
    OneFile,
    /// A root file and, in the directory `dir` beside it, a file per named type
    /// (`dir/types/NAME.rs`), one per method's dispatch (`dir/dispatch/NAME.rs`) and the
    /// descriptors (`dir/descriptors.rs`): the rebuild after a change to one method compiles
    /// that method's files again, not the whole module. The CLI's and [`crate::Builder`]'s
    /// default.
    Split {
        /// The directory of the pieces, relative to the root file's directory: the root file's
        /// name without `.rs` (`generated` for `src/generated.rs`), which is where its
        /// `include!`s look.
        dir: String,
    },
    /// As [`Layout::Split`], but the root declares each piece as a plain module (`mod note;`
    /// `pub use note::*;`, `pub mod descriptors;`), which rustc finds at the same paths, in
    /// `dir` beside the root: for a root that is a source file of the crate (the CLI's
    /// `src/generated.rs`, pieces in `src/generated/`). A root that is `include!`d from
    /// `OUT_DIR` needs [`Layout::Split`], whose pieces are `include!`d too.
    Modules {
        /// The directory of the pieces: the root file's name without `.rs`.
        dir: String,
    },
}

impl Layout {
    /// [`Layout::Split`] into [`pieces_dir_name`] of `root`.
    pub fn split_beside(root: &Path) -> Self {
        Layout::Split {
            dir: pieces_dir_name(root),
        }
    }

    /// [`Layout::Modules`] into [`pieces_dir_name`] of `root` (a root named `NAME.rs`, so that
    /// rustc looks for its modules in `NAME/`).
    pub fn modules_beside(root: &Path) -> Self {
        Layout::Modules {
            dir: pieces_dir_name(root),
        }
    }

    /// The pieces' directory, and whether the root declares them as modules; `None` for one
    /// file.
    pub(crate) fn pieces(&self) -> Option<(&str, bool)> {
        match self {
            Layout::OneFile => None,
            Layout::Split { dir } => Some((dir, false)),
            Layout::Modules { dir } => Some((dir, true)),
        }
    }
}

/// The directory of the pieces of the root file `root`, beside it: its name without the
/// extension (`mcp_server.rs` → `mcp_server`), or with `_pieces` added when it has none.
pub fn pieces_dir_name(root: &Path) -> String {
    let name = |s: &std::ffi::OsStr| s.to_string_lossy().into_owned();
    match (root.file_stem(), root.extension()) {
        (Some(stem), Some(_)) => name(stem),
        (Some(stem), None) => format!("{}_pieces", name(stem)),
        (None, _) => "generated".into(),
    }
}

/// A file of a [`Layout::Split`] output other than the root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PieceFile {
    /// Where it goes, relative to the root file's directory, `/`-separated
    /// (`generated/types/pet.rs`).
    pub path: String,
    /// Its contents, under the `@generated` header.
    pub source: String,
}

/// The directory of the named types' files, inside the pieces' directory.
pub(crate) const TYPES_DIR: &str = "types";
/// The directory of the methods' dispatch files, inside the pieces' directory.
pub(crate) const DISPATCH_DIR: &str = "dispatch";
/// The descriptors' file (`descriptors.rs`), inside the pieces' directory.
pub(crate) const DESCRIPTORS: &str = "descriptors";

/// The longest file name a piece gets, before the `_N` that makes it unique and `.rs`.
pub const MAX_PIECE_NAME: usize = 100;

/// Names Windows reserves for devices, with any extension (`con.rs` cannot be created there).
const RESERVED: &[&str] = &[
    "con", "prn", "aux", "nul", "com1", "com2", "com3", "com4", "com5", "com6", "com7", "com8",
    "com9", "lpt1", "lpt2", "lpt3", "lpt4", "lpt5", "lpt6", "lpt7", "lpt8", "lpt9",
];

/// A piece's file name (without `.rs`) from a Rust name: snake case, only `[a-z0-9_]` with no
/// `_` doubled or trailing (so that its module, `<name>_rs`, is snake case too), at most
/// [`MAX_PIECE_NAME`] long, starting with a letter, never a name Windows reserves.
pub fn piece_name(name: &str) -> String {
    let snake = heck::ToSnakeCase::to_snake_case(name.trim_start_matches("r#"));
    let mut out = String::with_capacity(snake.len().min(MAX_PIECE_NAME));
    for c in snake.chars() {
        let c = match c {
            'a'..='z' | '0'..='9' => c,
            'A'..='Z' => c.to_ascii_lowercase(),
            _ => '_',
        };
        if c == '_' && (out.is_empty() || out.ends_with('_')) {
            continue;
        }
        out.push(c);
    }
    if !out.starts_with(|c: char| c.is_ascii_lowercase()) {
        out.insert_str(0, "x_");
    }
    out.truncate(MAX_PIECE_NAME);
    let mut out = out.trim_end_matches('_').to_string();
    if RESERVED.contains(&out.as_str()) {
        out.push_str("_file");
    }
    out
}

/// The file names of pieces named `names`, in order: [`piece_name`] of each, the later of two
/// equal ones with `_2`, `_3`, ... (names are lowercase, so two names a case-insensitive file
/// system would take for one are equal here too).
pub fn piece_names<'a>(names: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut taken = BTreeSet::new();
    names
        .into_iter()
        .map(|name| {
            let base = piece_name(name);
            let mut candidate = base.clone();
            let mut n = 2;
            while !taken.insert(candidate.clone()) {
                candidate = format!("{base}_{n}");
                n += 1;
            }
            candidate
        })
        .collect()
}

/// The module a piece is included in with [`Layout::Split`]: `pet_rs` for `pet` (never a
/// keyword, never a type's name, which is camel case).
pub(crate) fn piece_module(piece: &str) -> Ident {
    Ident::new(&format!("{piece}_rs"), Span::call_site())
}

/// The module of a piece in `subdir` with [`Layout::Modules`] (and inline, in one file): the
/// piece's own name (`mod pet;`, found at `pet.rs`), unless that is a keyword or a name the
/// generated code refers to from inside the piece (`types`, beside the methods' modules),
/// which get `pet_rs` and the file's path (`#[path = "type.rs"] mod type_rs;`).
pub(crate) fn plain_module(subdir: &str, piece: &str) -> (Ident, Option<String>) {
    let taken = subdir == DISPATCH_DIR && TAKEN_IN_DISPATCH.contains(&piece);
    match syn::parse_str::<Ident>(piece) {
        Ok(ident) if !taken => (ident, None),
        _ => (piece_module(piece), Some(format!("{piece}.rs"))),
    }
}

/// Names the dispatch functions use that a method's module must not hide.
const TAKEN_IN_DISPATCH: &[&str] = &["types", "dispatch"];

/// The first line of every generated file: what [`leftover_files`] looks for before it calls
/// a file the generator's.
pub(crate) const HEADER_START: &str = "// @generated by mcp-codegen ";

/// The generated files under `dir` (a [`Layout::Split`] directory, up to two levels deep) that
/// `keep` does not list: pieces an earlier run wrote that this one did not (a type renamed or
/// gone, a layout changed). Only `.rs` files whose first line is the generator's header count;
/// symbolic links are not followed. No `dir`: none.
pub fn leftover_files(dir: &Path, keep: &BTreeSet<PathBuf>) -> Vec<PathBuf> {
    let mut found = Vec::new();
    collect_generated(dir, 2, &mut found);
    found.retain(|path| !keep.contains(path));
    found.sort();
    found
}

fn collect_generated(dir: &Path, depth: usize, found: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() && depth > 0 {
            collect_generated(&path, depth - 1, found);
        } else if kind.is_file()
            && path.extension().is_some_and(|e| e == "rs")
            && starts_with_header(&path)
        {
            found.push(path);
        }
    }
}

/// Whether the file at `path` begins with [`HEADER_START`].
fn starts_with_header(path: &Path) -> bool {
    use std::io::Read;
    let mut start = [0u8; HEADER_START.len()];
    fs::File::open(path)
        .and_then(|mut file| file.read_exact(&mut start))
        .is_ok_and(|()| start == HEADER_START.as_bytes())
}

/// Removes `files` ([`leftover_files`]), then the directories under `dir` (and `dir` itself)
/// that this left empty.
pub fn remove_leftovers(dir: &Path, files: &[PathBuf]) -> io::Result<()> {
    for file in files {
        match fs::remove_file(file) {
            Err(error) if error.kind() != io::ErrorKind::NotFound => return Err(error),
            _ => {}
        }
    }
    if !files.is_empty() {
        for sub in [TYPES_DIR, DISPATCH_DIR] {
            remove_if_empty(&dir.join(sub));
        }
        remove_if_empty(dir);
    }
    Ok(())
}

fn remove_if_empty(dir: &Path) {
    if fs::read_dir(dir).is_ok_and(|mut entries| entries.next().is_none()) {
        let _ = fs::remove_dir(dir);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn piece_names_are_plain_bounded_and_unique() {
        assert_eq!(
            piece_name("FilecoinChainHeadResult"),
            "filecoin_chain_head_result"
        );
        assert_eq!(piece_name("r#type"), "type");
        assert_eq!(piece_name("_2fa"), "x_2fa");
        assert_eq!(piece_name(""), "x");
        assert_eq!(piece_name("Con"), "con_file");
        assert_eq!(piece_name("a__b_"), "a_b");
        assert_eq!(piece_name("Ü"), "x");
        assert_eq!(piece_name("../../etc/passwd"), "etc_passwd");
        assert_eq!(piece_name("C:\\Windows\\x"), "c_windows_x");
        assert_eq!(piece_name(&"A".repeat(300)).len(), MAX_PIECE_NAME);
        assert!(piece_name("Ünïcode\u{202e}.rs/x")
            .bytes()
            .all(|b| matches!(b, b'a'..=b'z' | b'0'..=b'9' | b'_')));
        // Equal after sanitizing, or only by case: each keeps a file of its own.
        assert_eq!(
            piece_names(["PetA", "Pet_A", "petA", "pet_a_2", "defaults"]),
            ["pet_a", "pet_a_2", "pet_a_3", "pet_a_2_2", "defaults"]
        );
        let long = "B".repeat(300);
        assert_eq!(
            piece_names([long.as_str(), long.as_str()])[1],
            format!("{}_2", "b".repeat(MAX_PIECE_NAME))
        );
    }

    #[test]
    fn only_generated_files_are_leftovers() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("generated");
        fs::create_dir_all(root.join("types")).unwrap();
        let ours = root.join("types/old.rs");
        let kept = root.join("types/new.rs");
        let theirs = root.join("types/mine.rs");
        fs::write(&ours, format!("{HEADER_START}0.1.0 from `a.json`.\n")).unwrap();
        fs::write(&kept, format!("{HEADER_START}0.1.0 from `a.json`.\n")).unwrap();
        fs::write(&theirs, "// my notes\n").unwrap();
        fs::write(root.join("short.rs"), "//").unwrap();
        let keep = BTreeSet::from([kept.clone()]);
        let leftovers = leftover_files(&root, &keep);
        assert_eq!(leftovers, std::slice::from_ref(&ours));
        remove_leftovers(&root, &leftovers).unwrap();
        assert!(!ours.exists() && kept.exists() && theirs.exists());
        assert!(leftover_files(&dir.path().join("absent"), &keep).is_empty());
    }
}
