//! The crate around the generated server (CLI only): `Cargo.toml`, `src/main.rs`,
//! `src/handler.rs` and `README.md`, rendered from `templates/` with minijinja; or, around a
//! generated client (`--client`), a library: `Cargo.toml`, `src/lib.rs` and `README.md` from
//! `templates/client/`.
//!
//! Ownership decides what a run may touch: generated files are rewritten on every run; the
//! files the user owns are created once and never overwritten.

mod context;
mod plain;

use minijinja::Environment;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

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

    /// [`RuntimeDependency::toml_line`] with the runtime's `client` feature on.
    fn toml_line_with_client(&self) -> String {
        let source = match self {
            RuntimeDependency::Path(path) => {
                format!("path = {}", toml_string(&path.display().to_string()))
            }
            RuntimeDependency::Version(version) => format!("version = {}", toml_string(version)),
        };
        format!("mcp-runtime = {{ {source}, features = [\"client\"] }}")
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
}

const CARGO_TOML: &str = include_str!("../../../templates/Cargo.toml.j2");
const MAIN_RS: &str = include_str!("../../../templates/main.rs.j2");
const HANDLER_RS: &str = include_str!("../../../templates/handler.rs.j2");
const README_MD: &str = include_str!("../../../templates/README.md.j2");
const CLIENT_CARGO_TOML: &str = include_str!("../../../templates/client/Cargo.toml.j2");
const CLIENT_LIB_RS: &str = include_str!("../../../templates/client/lib.rs.j2");
const CLIENT_README_MD: &str = include_str!("../../../templates/client/README.md.j2");

/// Every file of the crate for `generated`, read from `source_name`: a server crate, or a
/// client library when only the client was generated ([`crate::emit::Output::Client`]).
pub fn crate_files(
    generated: &Generated,
    source_name: &str,
    options: &CrateOptions,
) -> Vec<OutputFile> {
    let ctx = context::context(generated, source_name, options);
    let env = environment();
    let render = |template: &str| {
        env.render_str(template, &ctx)
            .expect("the built-in templates always render")
    };
    if !generated.output.server() {
        return vec![
            OutputFile {
                path: "src/generated.rs".into(),
                contents: generated.server.source.clone(),
                owner: Owner::Generator,
            },
            OutputFile {
                path: "Cargo.toml".into(),
                contents: render(CLIENT_CARGO_TOML),
                owner: Owner::User,
            },
            OutputFile {
                path: "src/lib.rs".into(),
                contents: render(CLIENT_LIB_RS),
                owner: Owner::User,
            },
            OutputFile {
                path: "README.md".into(),
                contents: render(CLIENT_README_MD),
                owner: Owner::User,
            },
        ];
    }
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
