//! The crate around the generated server (CLI only): `Cargo.toml`, `src/main.rs`,
//! `src/handler.rs` and `README.md`, rendered from `templates/` with minijinja; or, around a
//! generated client (`--client`), a library: `Cargo.toml`, `src/lib.rs` and `README.md` from
//! `templates/client/`.
//!
//! A server's generated code is modules of the user's crate ([`CrateLayout::InCrate`]:
//! `src/generated.rs` and `src/generated/`) or, with `--generated-crate`, a crate of its own,
//! `generated/` ([`CrateLayout::OwnCrate`]: its `Cargo.toml`, `src/lib.rs` and, split, a file
//! per type and per method beside it), which the user's crate depends on by path: an edit of
//! the user's handler then compiles the user's small crate again, not the whole contract.
//!
//! Ownership decides what a run may touch: generated files (the generated code, its crate's
//! `Cargo.toml`, the list of what it serves `src/generated.md`) are rewritten on every run, and
//! generated files a run no longer writes are removed; the files the user owns are created once
//! and never overwritten.

mod context;
mod first_call;
mod plain;

use minijinja::Environment;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use crate::emit::Layout;
use crate::Generated;

/// The generated root file of a crate, which every other file of the crate reaches the
/// generated code through (`mod generated;`).
pub const GENERATED_ROOT: &str = "src/generated.rs";

/// What the server serves, in Markdown: generated beside [`GENERATED_ROOT`] so that the
/// user's README, written once, never goes stale.
pub const SERVED_LIST: &str = "src/generated.md";

/// The directory of the pieces of [`GENERATED_ROOT`] (see [`crate::emit::layout`]).
const PIECES_DIR: &str = "src/generated";

/// The generated crate of [`CrateLayout::OwnCrate`], in the user's crate directory.
pub const GENERATED_CRATE_DIR: &str = "generated";

/// The root file of the generated crate ([`CrateLayout::OwnCrate`]), its pieces beside it.
pub const GENERATED_CRATE_ROOT: &str = "generated/src/lib.rs";

/// The source directory of the generated crate: where its pieces go.
const GENERATED_CRATE_SRC: &str = "generated/src";

/// Where a server crate's generated code goes (`--generated-crate`). A trade: the handler's
/// edits rebuild faster in a crate of its own, a change to the contract slower (the generated
/// dispatch is generic over the handler, so the user's crate compiles it again then: measured
/// in BENCHMARKS.md, "Build times").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CrateLayout {
    /// Modules of the user's crate: [`GENERATED_ROOT`] (`mod generated;` in `src/main.rs`)
    /// and its pieces in `src/generated/`. Every edit of the user's code compiles the whole
    /// generated code again (its parsing, macro expansion and name resolution are not
    /// incremental), seconds for a large contract. A new crate's default below
    /// [`OWN_CRATE_FROM`] methods; always with `--example-tests` and for the client library.
    #[default]
    InCrate,
    /// A crate of its own in [`GENERATED_CRATE_DIR`] (package `NAME-generated`, a member of
    /// the user's workspace, a path dependency of the user's crate, which names it
    /// `generated` with `use NAME_generated as generated;`): [`GENERATED_CRATE_ROOT`] and its
    /// pieces beside it. An edit of the handler compiles only the user's crate again. A new
    /// crate's default from [`OWN_CRATE_FROM`] methods on, and `--generated-crate`.
    OwnCrate,
}

/// The contracts of this many methods or more get [`CrateLayout::OwnCrate`] when a new crate
/// is generated without `--generated-crate` or `--no-generated-crate`. Measured side by side
/// (BENCHMARKS.md, "The edit loop by default"): in the other layout the rebuild after an edit of
/// `src/handler.rs` grows with the contract, about 3x the quickstart's at 60 methods and 4x
/// near 80; in a generated crate of its own it stays within 1.5x at 240.
pub const OWN_CRATE_FROM: usize = 64;

/// What the command line asks of the layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LayoutWanted {
    /// Neither flag: a new crate gets [`CrateLayout::OwnCrate`] from [`OWN_CRATE_FROM`]
    /// methods on, an existing crate keeps its layout.
    #[default]
    BySize,
    /// `--generated-crate`.
    OwnCrate,
    /// `--no-generated-crate`.
    InCrate,
}

/// Why a crate has the layout [`CrateLayout::for_server`] chose.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LayoutReason {
    /// The directory already holds a crate of that layout.
    Kept,
    /// A flag asked for it (or `--example-tests` or `--client`, which need the generated code
    /// beside the user's).
    Asked,
    /// A new crate of a contract of that many methods, without a flag.
    Size(usize),
}

impl CrateLayout {
    /// The layout for a server crate written to `dir`, and why:
    ///
    /// - `dir` already holds a generated crate: [`CrateLayout::OwnCrate`]; it holds a
    ///   [`GENERATED_ROOT`] of the other layout (whose `src/main.rs` says `mod generated;`):
    ///   [`CrateLayout::InCrate`], whatever the flags, so that regenerating keeps it building;
    /// - `in_crate_only` (`--example-tests`, whose tests name the handler, or `--client`):
    ///   [`CrateLayout::InCrate`];
    /// - else what `wanted` asks, or by size: [`CrateLayout::OwnCrate`] for `methods` of
    ///   [`OWN_CRATE_FROM`] or more.
    pub fn for_server(
        dir: &Path,
        wanted: LayoutWanted,
        in_crate_only: bool,
        methods: usize,
    ) -> (Self, LayoutReason) {
        if in_crate_only {
            return (CrateLayout::InCrate, LayoutReason::Asked);
        }
        if dir.join(GENERATED_CRATE_DIR).join("Cargo.toml").is_file() {
            return (CrateLayout::OwnCrate, LayoutReason::Kept);
        }
        if dir.join(GENERATED_ROOT).is_file() {
            return (CrateLayout::InCrate, LayoutReason::Kept);
        }
        match wanted {
            LayoutWanted::OwnCrate => (CrateLayout::OwnCrate, LayoutReason::Asked),
            LayoutWanted::InCrate => (CrateLayout::InCrate, LayoutReason::Asked),
            LayoutWanted::BySize if methods >= OWN_CRATE_FROM => {
                (CrateLayout::OwnCrate, LayoutReason::Size(methods))
            }
            LayoutWanted::BySize => (CrateLayout::InCrate, LayoutReason::Size(methods)),
        }
    }
}

/// The layout of the crate's generated code: [`GENERATED_ROOT`] and the files of
/// `src/generated/`, declared as its modules ([`Layout::Modules`], the CLI's default: the
/// rebuild after a change to one method compiles that method's files again), or
/// `src/generated.rs` alone.
pub fn layout(one_file: bool) -> Layout {
    if one_file {
        Layout::OneFile
    } else {
        Layout::modules_beside(Path::new(GENERATED_ROOT))
    }
}

/// Who owns a file of the generated crate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Owner {
    /// Rewritten on every run; checked by `--check`.
    Generator,
    /// Created once, never overwritten.
    User,
}

/// One file of the generated crate.
#[derive(Debug, Clone)]
pub struct OutputFile {
    /// Path relative to the crate root.
    pub path: PathBuf,
    /// Full contents.
    pub contents: String,
    /// Whether later runs may rewrite it.
    pub owner: Owner,
}

/// How the generated crate depends on `mcp-runtime`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RuntimeDependency {
    /// `mcp-runtime = { path = "..." }`.
    Path(PathBuf),
    /// `mcp-runtime = "..."` from a registry.
    Version(String),
}

impl RuntimeDependency {
    /// The runtime of the checkout this generator was built from, when it was built from one
    /// (`build.rs` decides) and that runtime is still there; `None` for a generator built from
    /// its package (`cargo install mcp-codegen`).
    pub fn workspace_default() -> Option<Self> {
        let path = Path::new(option_env!("MCP_CODEGEN_CHECKOUT_RUNTIME")?);
        path.join("Cargo.toml")
            .is_file()
            .then(|| Self::Path(path.to_path_buf()))
    }

    /// The released runtime this generator was made with: `mcp-runtime` of the generator's
    /// own version (the two are released together).
    pub fn released() -> Self {
        Self::Version(env!("CARGO_PKG_VERSION").to_string())
    }

    /// What a generated crate depends on when no flag says: the checkout's runtime by path
    /// ([`RuntimeDependency::workspace_default`]), else [`RuntimeDependency::released`].
    pub fn default_for_this_build() -> Self {
        Self::workspace_default().unwrap_or_else(Self::released)
    }

    /// The `Cargo.toml` comment above the dependency: which runtime it is and how to choose
    /// the other.
    fn toml_comment(&self) -> String {
        let version = env!("CARGO_PKG_VERSION");
        match self {
            RuntimeDependency::Path(_) => format!(
                "# mcp-runtime from a checkout, by path (the default of an mcp-codegen built from\n\
                 # that checkout, or --runtime-path). The released runtime instead:\n\
                 # mcp-runtime = \"{version}\" (with the same features)."
            ),
            // Escaped: a requirement with a line break must not end the comment.
            RuntimeDependency::Version(requirement) => format!(
                "# mcp-runtime {} from crates.io (the default of an installed mcp-codegen,\n\
                 # or --runtime-version). A checkout's runtime instead:\n\
                 # mcp-runtime = {{ path = \"/path/to/mcp-codegen/runtime\" }} (with the same features).",
                toml_string(requirement)
            ),
        }
    }

    /// The `mcp-runtime = ...` line of `Cargo.toml`, with `features` on.
    fn toml_line(&self, features: &[&str]) -> String {
        match (self, features) {
            (RuntimeDependency::Path(path), _) if features.is_empty() => format!(
                "mcp-runtime = {{ path = {} }}",
                toml_string(&path.display().to_string())
            ),
            (RuntimeDependency::Version(version), _) if features.is_empty() => {
                format!("mcp-runtime = {}", toml_string(version))
            }
            _ => {
                let source = match self {
                    RuntimeDependency::Path(path) => {
                        format!("path = {}", toml_string(&path.display().to_string()))
                    }
                    RuntimeDependency::Version(version) => {
                        format!("version = {}", toml_string(version))
                    }
                };
                let features: Vec<String> = features.iter().map(|f| toml_string(f)).collect();
                format!(
                    "mcp-runtime = {{ {source}, features = [{}] }}",
                    features.join(", ")
                )
            }
        }
    }
}

/// Options of the generated crate.
#[derive(Debug, Clone)]
pub struct CrateOptions {
    /// The package name; default (and when this is no valid package name): the document title
    /// in kebab case.
    pub crate_name: Option<String>,
    /// Where `mcp-runtime` comes from.
    pub runtime: RuntimeDependency,
    /// The contract's path as seen from the crate's directory, for the README's regenerate
    /// line (the CLI passes the path it was given, made relative to `-o`); `None`: the
    /// document's file name.
    pub contract_path: Option<String>,
}

const CARGO_TOML: &str = include_str!("../../templates/Cargo.toml.j2");
const MAIN_RS: &str = include_str!("../../templates/main.rs.j2");
const HANDLER_RS: &str = include_str!("../../templates/handler.rs.j2");
const README_MD: &str = include_str!("../../templates/README.md.j2");
const GENERATED_CARGO_TOML: &str = include_str!("../../templates/generated/Cargo.toml.j2");
const GENERATED_MD: &str = include_str!("../../templates/generated.md.j2");
const CLIENT_CARGO_TOML: &str = include_str!("../../templates/client/Cargo.toml.j2");
const CLIENT_LIB_RS: &str = include_str!("../../templates/client/lib.rs.j2");
const CLIENT_README_MD: &str = include_str!("../../templates/client/README.md.j2");

/// Every file of the crate for `generated`, read from `source_name`: a server crate, or a
/// client library when only the client was generated ([`crate::emit::Output::Client`]). The
/// generated files come first: [`GENERATED_ROOT`], then its pieces in the order it includes
/// them.
pub fn crate_files(
    generated: &Generated,
    source_name: &str,
    options: &CrateOptions,
) -> Vec<OutputFile> {
    crate_files_in(generated, source_name, options, CrateLayout::InCrate)
}

/// [`crate_files`] with the generated code where `layout` says; a client library is always
/// [`CrateLayout::InCrate`].
pub fn crate_files_in(
    generated: &Generated,
    source_name: &str,
    options: &CrateOptions,
    layout: CrateLayout,
) -> Vec<OutputFile> {
    let layout = if generated.output.server() {
        layout
    } else {
        CrateLayout::InCrate
    };
    let own_crate = layout == CrateLayout::OwnCrate;
    let ctx = context::context(generated, source_name, options, own_crate);
    let env = environment();
    let render = |template: &str| {
        env.render_str(template, &ctx)
            .expect("the built-in templates always render")
    };
    let mut files = vec![OutputFile {
        path: if own_crate {
            GENERATED_CRATE_ROOT
        } else {
            GENERATED_ROOT
        }
        .into(),
        contents: generated.server.source.clone(),
        owner: Owner::Generator,
    }];
    // A piece's path is relative to the directory of `src/generated.rs` (`generated/types/
    // pet.rs`), which is where `mod` looks from that root; from the generated crate's
    // `src/lib.rs`, the same modules are in `src/` itself (`src/types/pet.rs`).
    files.extend(generated.server.pieces.iter().map(|piece| OutputFile {
        path: if own_crate {
            Path::new(GENERATED_CRATE_SRC).join(
                Path::new(&piece.path)
                    .components()
                    .skip(1)
                    .collect::<PathBuf>(),
            )
        } else {
            Path::new("src").join(&piece.path)
        },
        contents: piece.source.clone(),
        owner: Owner::Generator,
    }));
    if own_crate {
        files.push(OutputFile {
            path: Path::new(GENERATED_CRATE_DIR).join("Cargo.toml"),
            contents: render(GENERATED_CARGO_TOML),
            owner: Owner::Generator,
        });
    }
    let user = |path: &str, template: &str| OutputFile {
        path: path.into(),
        contents: render(template),
        owner: Owner::User,
    };
    if !generated.output.server() {
        files.extend([
            user("Cargo.toml", CLIENT_CARGO_TOML),
            user("src/lib.rs", CLIENT_LIB_RS),
            user("README.md", CLIENT_README_MD),
        ]);
    } else {
        files.push(OutputFile {
            path: SERVED_LIST.into(),
            contents: render(GENERATED_MD),
            owner: Owner::Generator,
        });
        files.extend([
            user("Cargo.toml", CARGO_TOML),
            user("src/main.rs", MAIN_RS),
            user("src/handler.rs", HANDLER_RS),
            user("README.md", README_MD),
        ]);
    }
    files
}

/// The templates' environment: it prints only strings [`context`] marked safe (escaped for
/// their place), and fails on any other string rather than writing it unescaped.
fn environment() -> Environment<'static> {
    let mut env = Environment::new();
    env.set_keep_trailing_newline(true);
    env.set_formatter(|out, _state, value| {
        if value.is_safe() || value.as_str().is_none() {
            write!(out, "{value}").map_err(minijinja::Error::from)
        } else {
            Err(minijinja::Error::new(
                minijinja::ErrorKind::InvalidOperation,
                format!("a template printed unescaped text {value:?}"),
            ))
        }
    });
    env
}

/// What [`write_crate`] did to each file.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct WriteReport {
    /// Files created or rewritten.
    pub written: Vec<PathBuf>,
    /// Generated files already up to date.
    pub unchanged: Vec<PathBuf>,
    /// User files that exist and were left alone.
    pub kept: Vec<PathBuf>,
    /// Generated files an earlier run wrote that this one does not (a type renamed or gone,
    /// the layout changed): removed.
    pub removed: Vec<PathBuf>,
}

/// Writes `files` under `dir`: generated files when they changed, user files only when absent;
/// then removes the generated files of `src/generated/` and `generated/src/` that `files` does
/// not hold.
pub fn write_crate(dir: &Path, files: &[OutputFile]) -> io::Result<WriteReport> {
    let mut report = WriteReport::default();
    for file in files {
        let path = dir.join(&file.path);
        match file.owner {
            Owner::User if path.exists() => report.kept.push(file.path.clone()),
            _ => {
                if write_if_changed(&path, &file.contents)? {
                    report.written.push(file.path.clone());
                } else {
                    report.unchanged.push(file.path.clone());
                }
            }
        }
    }
    let mut removed = Vec::new();
    for pieces in [PIECES_DIR, GENERATED_CRATE_SRC] {
        let leftovers = leftover_files(&dir.join(pieces), files, dir);
        crate::emit::layout::remove_leftovers(&dir.join(pieces), &leftovers)?;
        removed.extend(leftovers);
    }
    report.removed = relative(dir, removed);
    Ok(report)
}

/// The generated files under `dir` that are missing or differ from `files`, then those left
/// over from an earlier run, which [`write_crate`] would remove.
pub fn stale_files(dir: &Path, files: &[OutputFile]) -> Vec<PathBuf> {
    let mut stale: Vec<PathBuf> = files
        .iter()
        .filter(|f| f.owner == Owner::Generator)
        .filter(|f| {
            fs::read_to_string(dir.join(&f.path)).ok().as_deref() != Some(f.contents.as_str())
        })
        .map(|f| f.path.clone())
        .collect();
    for pieces in [PIECES_DIR, GENERATED_CRATE_SRC] {
        stale.extend(relative(dir, leftover_files(&dir.join(pieces), files, dir)));
    }
    stale
}

/// The generated files in `pieces` (a pieces' directory under the crate directory `dir`) that
/// `files` does not hold.
fn leftover_files(pieces: &Path, files: &[OutputFile], dir: &Path) -> Vec<PathBuf> {
    let keep = files
        .iter()
        .filter(|f| f.owner == Owner::Generator)
        .map(|f| dir.join(&f.path))
        .collect();
    crate::emit::layout::leftover_files(pieces, &keep)
}

/// The path of `contract`, given relative to the working directory (or absolute), as seen from
/// the crate directory `dir` (also relative to the working directory): what the README's
/// regenerate line names, so that it runs from the crate. An absolute `contract` stays as given;
/// so does any path when the working directory cannot be read.
pub fn contract_path_from(dir: &Path, contract: &Path) -> PathBuf {
    if contract.is_absolute() {
        return contract.to_path_buf();
    }
    let Ok(cwd) = std::env::current_dir() else {
        return contract.to_path_buf();
    };
    let (dir, contract) = (lexical(&cwd.join(dir)), lexical(&cwd.join(contract)));
    let common = dir
        .components()
        .zip(contract.components())
        .take_while(|(a, b)| a == b)
        .count();
    let ups = dir.components().count() - common;
    let mut path: PathBuf = std::iter::repeat_n("..", ups).collect();
    path.extend(contract.components().skip(common));
    path
}

/// `path` with `.` dropped and each `..` taking the component before it, without reading the
/// file system (the crate directory may not exist yet).
fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// `paths` relative to `dir`.
fn relative(dir: &Path, paths: Vec<PathBuf>) -> Vec<PathBuf> {
    paths
        .into_iter()
        .map(|p| p.strip_prefix(dir).map(Path::to_path_buf).unwrap_or(p))
        .collect()
}

/// Writes `contents` to `path` (creating parent directories) unless it already holds exactly
/// that; returns whether it wrote. Leaving unchanged files alone keeps cargo from rebuilding.
pub fn write_if_changed(path: &Path, contents: &str) -> io::Result<bool> {
    if fs::read_to_string(path).ok().as_deref() == Some(contents) {
        return Ok(false);
    }
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent)?;
    }
    fs::write(path, contents)?;
    Ok(true)
}

/// True for a package name cargo accepts: ASCII letters, digits, `-` and `_`, starting with
/// a letter, at most [`MAX_PACKAGE_NAME`] long, and not a Rust keyword or a name cargo reserves.
pub fn valid_package_name(name: &str) -> bool {
    name.len() <= MAX_PACKAGE_NAME
        && name.starts_with(|c: char| c.is_ascii_alphabetic())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        && !crate::names::is_keyword(&name.replace('-', "_"))
        && !RESERVED_PACKAGE_NAMES.contains(&name)
}

/// The longest package name crates.io accepts.
pub const MAX_PACKAGE_NAME: usize = 64;

/// Names cargo refuses or warns about: the built-in crates.
const RESERVED_PACKAGE_NAMES: &[&str] =
    &["test", "std", "core", "alloc", "proc_macro", "proc-macro"];

/// The package name: `requested` when it is valid, else [`derived_package_name`] of it.
fn package_name(requested: &str) -> String {
    if valid_package_name(requested) {
        requested.to_string()
    } else {
        derived_package_name(requested)
    }
}

/// A package name made from any text (a title): kebab case, ASCII letters, digits and `-`
/// only, `mcp-` in front when it would not start with a letter or would be reserved.
fn derived_package_name(text: &str) -> String {
    let name: String = heck::ToKebabCase::to_kebab_case(text)
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-')
        .take(MAX_PACKAGE_NAME - "mcp-".len())
        .collect();
    if name.is_empty() {
        return "mcp-server".into();
    }
    if valid_package_name(&name) {
        name
    } else {
        format!("mcp-{name}")
    }
}

/// A TOML basic string: `\`, `"` and every control character escaped.
fn toml_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            c if c.is_control() || crate::escape::is_hidden(c) => {
                out.push_str(&format!("\\u{:04X}", u32::from(c)));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_contract_is_named_from_the_crate_directory() {
        let from = |dir: &str, contract: &str| {
            contract_path_from(Path::new(dir), Path::new(contract))
                .display()
                .to_string()
        };
        assert_eq!(from("server", "openrpc.json"), "../openrpc.json");
        assert_eq!(from("server/", "./api/openrpc.json"), "../api/openrpc.json");
        assert_eq!(from(".", "openrpc.json"), "openrpc.json");
        assert_eq!(from("a/b", "a/c/x.json"), "../c/x.json");
        assert_eq!(
            from("../out", "x.json"),
            format!("../{}/x.json", cwd_name())
        );
        assert_eq!(from("out", "/abs/x.json"), "/abs/x.json");
    }

    /// The last component of the working directory.
    fn cwd_name() -> String {
        let cwd = std::env::current_dir().unwrap();
        cwd.file_name().unwrap().to_string_lossy().into_owned()
    }

    #[test]
    fn package_names() {
        assert_eq!(package_name("Petstore"), "Petstore");
        assert_eq!(package_name("Pet Store API"), "pet-store-api");
        assert_eq!(derived_package_name("Petstore"), "petstore");
        assert_eq!(package_name("self"), "mcp-self");
        assert_eq!(package_name("test"), "mcp-test");
        assert_eq!(package_name("2fa"), "mcp-2fa");
        assert_eq!(package_name("\"]\n[dependencies]"), "dependencies");
        assert_eq!(package_name("名前"), "mcp-server");
        assert!(!valid_package_name("a\nb"));
        assert!(!valid_package_name("mod"));
        assert!(valid_package_name("generated-lotus_gateway"));
    }

    #[test]
    fn toml_strings_escape_controls() {
        assert_eq!(toml_string("a\"b\\c\nd"), r#""a\"b\\c\u000Ad""#);
    }
}
