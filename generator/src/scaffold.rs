//! The crate around the generated server (CLI only): `Cargo.toml`, `src/main.rs`,
//! `src/handler.rs` and `README.md`, rendered from `templates/` with minijinja.
//!
//! Ownership decides what a run may touch: generated files are rewritten on every run; the
//! files the user owns are created once and never overwritten.

use minijinja::{context, Environment};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use crate::openrpc::McpKind;
use crate::Generated;

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
    /// The runtime of the workspace this generator was built from, when it is still there.
    pub fn workspace_default() -> Option<Self> {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../runtime");
        path.join("Cargo.toml")
            .is_file()
            .then(|| Self::Path(path.canonicalize().unwrap_or(path)))
    }

    fn toml_line(&self) -> String {
        match self {
            RuntimeDependency::Path(path) => {
                format!(
                    "mcp-runtime = {{ path = {} }}",
                    toml_string(&path.display().to_string())
                )
            }
            RuntimeDependency::Version(version) => {
                format!("mcp-runtime = {}", toml_string(version))
            }
        }
    }
}

/// Options of the generated crate.
#[derive(Debug, Clone)]
pub struct CrateOptions {
    /// The package name; default: the document title in kebab case.
    pub crate_name: Option<String>,
    /// Where `mcp-runtime` comes from.
    pub runtime: RuntimeDependency,
}

const CARGO_TOML: &str = include_str!("../../templates/Cargo.toml.j2");
const MAIN_RS: &str = include_str!("../../templates/main.rs.j2");
const HANDLER_RS: &str = include_str!("../../templates/handler.rs.j2");
const README_MD: &str = include_str!("../../templates/README.md.j2");

/// Every file of the crate for `generated`, read from `source_name`.
pub fn crate_files(
    generated: &Generated,
    source_name: &str,
    options: &CrateOptions,
) -> Vec<OutputFile> {
    let document = &generated.document;
    let crate_name = options
        .crate_name
        .clone()
        .unwrap_or_else(|| default_crate_name(&document.info.title));
    let names_of = |kinds: &[McpKind]| -> Vec<String> {
        document
            .methods
            .iter()
            .filter_map(|m| m.mcp.as_ref().filter(|b| kinds.contains(&b.kind())))
            .map(|b| b.key().to_string())
            .collect()
    };
    let ctx = context! {
        crate_name,
        source_name,
        runtime_dependency => options.runtime.toml_line(),
        methods => generated.server.signatures,
        first_method => generated.server.signatures.first().map(|s| s.wire_name.clone()).unwrap_or_default(),
        tools => names_of(&[McpKind::Tool]),
        prompts => names_of(&[McpKind::Prompt]),
        resources => names_of(&[McpKind::Resource, McpKind::ResourceTemplate]),
    };
    let mut env = Environment::new();
    env.set_keep_trailing_newline(true);
    let render = |template: &str| {
        env.render_str(template, &ctx)
            .expect("the built-in templates always render")
    };
    vec![
        OutputFile {
            path: "src/generated.rs".into(),
            contents: generated.server.source.clone(),
            owner: Owner::Generator,
        },
        OutputFile {
            path: "Cargo.toml".into(),
            contents: render(CARGO_TOML),
            owner: Owner::User,
        },
        OutputFile {
            path: "src/main.rs".into(),
            contents: render(MAIN_RS),
            owner: Owner::User,
        },
        OutputFile {
            path: "src/handler.rs".into(),
            contents: render(HANDLER_RS),
            owner: Owner::User,
        },
        OutputFile {
            path: "README.md".into(),
            contents: render(README_MD),
            owner: Owner::User,
        },
    ]
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
}

/// Writes `files` under `dir`: generated files when they changed, user files only when absent.
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
    Ok(report)
}

/// The generated files under `dir` that are missing or differ from `files`.
pub fn stale_files(dir: &Path, files: &[OutputFile]) -> Vec<PathBuf> {
    files
        .iter()
        .filter(|f| f.owner == Owner::Generator)
        .filter(|f| {
            fs::read_to_string(dir.join(&f.path)).ok().as_deref() != Some(f.contents.as_str())
        })
        .map(|f| f.path.clone())
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

/// A package name from a title: kebab case, ASCII alphanumerics and `-` only.
fn default_crate_name(title: &str) -> String {
    let name: String = heck::ToKebabCase::to_kebab_case(title)
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-')
        .collect();
    match name.chars().next() {
        Some(c) if c.is_ascii_alphabetic() => name,
        Some(_) => format!("mcp-{name}"),
        None => "mcp-server".into(),
    }
}

fn toml_string(text: &str) -> String {
    format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""))
}
