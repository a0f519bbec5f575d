//! `build.rs` front end: generate into `OUT_DIR` and tell cargo what to watch.

use std::path::{Path, PathBuf};

use crate::Diagnostics;

/// Generates a server module from a `build.rs`.
///
/// In `build.rs`'s `main`:
///
/// ```no_run
/// mcp_codegen::Builder::new("openrpc.json").generate().expect("valid OpenRPC document");
/// ```
/// and in the crate: `mod server { include!(concat!(env!("OUT_DIR"), "/mcp_server.rs")); }`.
///
/// `mcp_server.rs` includes the files of `mcp_server/` beside it: a file per named type and per
/// method ([`crate::emit::Layout::Split`]), so that the crate's rebuild after a change to one
/// method compiles that method's code again, not the whole module. [`Builder::one_file`] writes
/// everything into `mcp_server.rs` instead.
#[derive(Debug, Clone)]
pub struct Builder {
    input: PathBuf,
    out_dir: Option<PathBuf>,
    file_name: String,
    skills: crate::SkillsSource,
    ref_base: Option<PathBuf>,
    example_tests: Option<String>,
    output: crate::emit::Output,
    one_file: bool,
    selection: crate::Selection,
    gateway: Option<crate::Upstream>,
    check_results: bool,
    strict_unions: bool,
    keep_names: bool,
    result_budget: Option<u32>,
}

/// Why a `build.rs` generation failed: an invalid document (fix the contract) or an I/O
/// failure (fix the build environment), so a caller can tell the two apart.
#[derive(Debug)]
pub enum BuildError {
    /// The document has errors; each is printed as a cargo warning before this is returned.
    Invalid(Diagnostics),
    /// Writing the output failed, or `OUT_DIR` is not set.
    Io(std::io::Error),
}

// Written out rather than derived with `thiserror`: every crate that generates from `build.rs`
// builds this crate, and the derive would add a second `syn` to all of their builds.
impl std::fmt::Display for BuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BuildError::Invalid(diagnostics) => {
                write!(f, "invalid OpenRPC document:\n{diagnostics}")
            }
            BuildError::Io(error) => write!(f, "{error}"),
        }
    }
}

impl std::error::Error for BuildError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            BuildError::Invalid(_) => None,
            BuildError::Io(error) => error.source(),
        }
    }
}

impl Builder {
    /// Generates from the OpenRPC document at `input` (relative to the crate root).
    pub fn new(input: impl AsRef<Path>) -> Self {
        Self {
            input: input.as_ref().to_path_buf(),
            out_dir: None,
            file_name: "mcp_server.rs".into(),
            skills: crate::SkillsSource::Beside,
            ref_base: None,
            example_tests: None,
            output: crate::emit::Output::Server,
            one_file: false,
            selection: crate::Selection::default(),
            gateway: None,
            check_results: false,
            strict_unions: false,
            keep_names: false,
            result_budget: None,
        }
    }

    /// Writes into `dir` instead of `$OUT_DIR`.
    pub fn out_dir(mut self, dir: impl AsRef<Path>) -> Self {
        self.out_dir = Some(dir.as_ref().to_path_buf());
        self
    }

    /// Names the output file (default `mcp_server.rs`); the directory of its pieces is named
    /// like it without `.rs`.
    pub fn file_name(mut self, name: impl Into<String>) -> Self {
        self.file_name = name.into();
        self
    }

    /// Bundles the skills in `dir` (relative to the crate root) instead of the `skills`
    /// directory beside the document (the skills extension; see docs/skills.md).
    pub fn skills(mut self, dir: impl AsRef<Path>) -> Self {
        self.skills = crate::SkillsSource::Dir(dir.as_ref().to_path_buf());
        self
    }

    /// Reads a `$ref`'s file relative to `dir` (relative to the crate root) when it is not
    /// beside the referring file, as the CLI's `--ref-base` does: for documents whose
    /// references are written from their repository's root.
    pub fn ref_base(mut self, dir: impl AsRef<Path>) -> Self {
        self.ref_base = Some(dir.as_ref().to_path_buf());
        self
    }

    /// Appends a `#[cfg(test)] mod contract_examples` to the generated module: one
    /// `#[tokio::test]` per OpenRPC example pairing, which builds `handler` (a type path from
    /// the crate root, e.g. `"crate::Notes"`, implementing `Default` and `Handler`), calls it
    /// with the example's params and compares its result with the example's, as the CLI's
    /// `--example-tests` does. The crate needs `tokio` (features `macros`, `rt`) as a
    /// dev-dependency. An example that does not fit its method is a `cargo:warning`.
    pub fn example_tests(mut self, handler: impl Into<String>) -> Self {
        self.example_tests = Some(handler.into());
        self
    }

    /// Also generates the typed client, `pub mod client` beside the server, sharing its
    /// `types` (the crate then needs `mcp-runtime` with the `client` feature): one async method
    /// per tool, prompt, resource and template, typed params in, typed result out.
    pub fn client(mut self) -> Self {
        self.output = crate::emit::Output::ServerAndClient;
        self
    }

    /// Generates only `types` and the typed client, for a crate that calls the server (as the
    /// CLI's `--client` does); write it to a file of its own with [`Builder::file_name`] (e.g.
    /// `mcp_client.rs`).
    pub fn client_only(mut self) -> Self {
        self.output = crate::emit::Output::Client;
        self
    }

    /// Writes the whole module into the one output file ([`crate::emit::Layout::OneFile`]),
    /// and removes the pieces an earlier split run left beside it. The crate then compiles
    /// the whole module again after any change to the document.
    pub fn one_file(mut self) -> Self {
        self.one_file = true;
        self
    }

    /// Exposes the methods whose names match one of `patterns` as MCP tools, as the CLI's
    /// `--tools` does: globs where `*` is any run of characters and `?` one character
    /// (`"eth_get*"`, `"Filecoin.Chain*"`, `"*"` for every method). A method's own `x-mcp`, or
    /// the overlay's entry for it, still wins. Adds to the patterns of earlier calls.
    ///
    /// ```no_run
    /// mcp_codegen::Builder::new("openrpc.json")
    ///     .tools(["eth_get*", "eth_call"])
    ///     .exclude(["eth_getProof"])
    ///     .generate()
    ///     .expect("valid OpenRPC document");
    /// ```
    pub fn tools<S: Into<String>>(mut self, patterns: impl IntoIterator<Item = S>) -> Self {
        self.selection
            .tools
            .extend(patterns.into_iter().map(Into::into));
        self
    }

    /// Takes the methods whose names match one of `patterns` back from [`Builder::tools`], as
    /// the CLI's `--exclude` does (a method's own `x-mcp`, or the overlay's, is kept).
    pub fn exclude<S: Into<String>>(mut self, patterns: impl IntoIterator<Item = S>) -> Self {
        self.selection
            .exclude
            .extend(patterns.into_iter().map(Into::into));
        self
    }

    /// Reads the overlay at `file` (relative to the crate root), as the CLI's `--overlay`
    /// does: its `methods` give methods their `x-mcp` (or `null`: none) ahead of the
    /// document's, and its `info["x-mcp"]` patches the document's. See `docs/gateway.md`.
    pub fn overlay(mut self, file: impl AsRef<Path>) -> Self {
        self.selection.overlay = Some(file.as_ref().to_path_buf());
        self
    }

    /// Generates a gateway to the JSON-RPC service at `url`: every method forwards to it unless
    /// the handler implements it (the CLI's `--upstream`). `url` is the binary's default;
    /// `--upstream` / `MCP_UPSTREAM_URL` override it at run time.
    pub fn upstream(mut self, url: impl Into<String>) -> Self {
        self.gateway = Some(crate::Upstream {
            url: Some(url.into()),
        });
        self
    }

    /// With [`Builder::upstream`]: checks each forwarded result against the method's `result`
    /// schema (one that does not match is an `isError` result naming the JSON pointer) and
    /// publishes the tools' `outputSchema` (the CLI's `--check-results`).
    pub fn check_results(mut self, check: bool) -> Self {
        self.check_results = check;
        self
    }

    /// Refuses a value more than one variant of a `oneOf` accepts, as JSON Schema says (the
    /// CLI's `--strict-unions`); by default a `oneOf` whose variants nothing tells apart takes
    /// the first that accepts it.
    pub fn strict_unions(mut self, strict: bool) -> Self {
        self.strict_unions = strict;
        self
    }

    /// Publishes tool and argument names as the document writes them (the CLI's
    /// `--keep-names`); by default names the major model APIs refuse are made portable.
    pub fn keep_names(mut self, keep: bool) -> Self {
        self.keep_names = keep;
        self
    }

    /// Gives every tool a result budget of `bytes` (the CLI's `--result-budget`): a tool
    /// result larger than it is kept and answered with a preview and a `resource_link` to read
    /// it in pages, and the tool publishes no `outputSchema`. A method's `x-mcp`
    /// `resultBudget` wins over it; `Some(0)`: every result whole. `None` (the default): 64 KiB
    /// for a gateway's forwarded tools that publish no `outputSchema` (without
    /// [`Builder::check_results`]), none otherwise.
    pub fn result_budget(mut self, bytes: Option<u32>) -> Self {
        self.result_budget = bytes;
        self
    }

    /// Bundles no skills, even when a `skills` directory sits beside the document.
    pub fn no_skills(mut self) -> Self {
        self.skills = crate::SkillsSource::Off;
        self
    }

    /// Generates, prints `cargo:rerun-if-changed` for every file read and a `cargo:warning` per
    /// diagnostic, and returns the path of the output file (the root of the pieces beside it).
    /// Each file is rewritten only when it changed; pieces an earlier run wrote and this one
    /// did not are removed.
    pub fn generate(self) -> Result<PathBuf, BuildError> {
        println!("cargo:rerun-if-changed={}", self.input.display());
        // Watched even while missing, as the document is: generation fails until it exists.
        if let Some(overlay) = self
            .selection
            .overlay
            .as_ref()
            .filter(|o| !o.display().to_string().contains('\n'))
        {
            println!("cargo:rerun-if-changed={}", overlay.display());
        }
        // An explicit skills directory is watched even while it is missing (generation fails
        // until it exists); one beside the document only when it exists, since cargo reruns a
        // build script on every build while a watched path is missing. (A `skills` directory
        // created later is picked up once the document or `build.rs` changes.)
        let skills_dir = match &self.skills {
            crate::SkillsSource::Beside => crate::skills::beside(&self.input),
            crate::SkillsSource::Dir(dir) => Some(dir.clone()),
            crate::SkillsSource::Off => None,
        };
        if let Some(dir) = skills_dir.filter(|d| !d.display().to_string().contains('\n')) {
            println!("cargo:rerun-if-changed={}", dir.display());
        }
        let layout = if self.one_file {
            crate::emit::Layout::OneFile
        } else {
            crate::emit::Layout::split_beside(Path::new(&self.file_name))
        };
        let options = crate::Options {
            skills: self.skills.clone(),
            ref_base: self.ref_base.clone(),
            example_tests: self.example_tests.clone(),
            output: self.output,
            layout,
            selection: self.selection.clone(),
            gateway: self.gateway.clone(),
            check_results: self.check_results,
            strict_unions: self.strict_unions,
            keep_names: self.keep_names,
            result_budget: self.result_budget,
            // `OUT_DIR` code is always modules of the crate that implements the handler.
            own_crate: false,
        };
        let generated = match crate::generate_with_options(&self.input, &options) {
            Ok(generated) => generated,
            Err(diagnostics) => {
                for d in &diagnostics.0 {
                    println!("cargo:warning={}", one_line(d));
                }
                return Err(BuildError::Invalid(diagnostics));
            }
        };
        for file in generated.document.files.iter().skip(1) {
            println!("cargo:rerun-if-changed={}", file.display());
        }
        if let Some(dir) = &generated.skills_dir {
            for skill in &generated.skills {
                for file in &skill.files {
                    // Names were checked: no line breaks in them.
                    let path = dir.join(&skill.name).join(&file.path);
                    println!("cargo:rerun-if-changed={}", path.display());
                }
            }
        }
        for warning in &generated.warnings.0 {
            println!("cargo:warning={}", one_line(warning));
        }
        let dir = match self.out_dir {
            Some(dir) => dir,
            None => std::env::var_os("OUT_DIR")
                .map(PathBuf::from)
                .ok_or_else(|| {
                    BuildError::Io(std::io::Error::other(
                        "OUT_DIR is not set: call Builder from build.rs or set out_dir",
                    ))
                })?,
        };
        let path = dir.join(&self.file_name);
        let root_dir = path.parent().unwrap_or(&dir);
        let mut written = std::collections::BTreeSet::new();
        for piece in &generated.server.pieces {
            let piece_path = root_dir.join(&piece.path);
            crate::scaffold::write_if_changed(&piece_path, &piece.source)
                .map_err(BuildError::Io)?;
            written.insert(piece_path);
        }
        crate::scaffold::write_if_changed(&path, &generated.server.source)
            .map_err(BuildError::Io)?;
        let pieces_dir = root_dir.join(crate::emit::layout::pieces_dir_name(Path::new(
            &self.file_name,
        )));
        let leftovers = crate::emit::layout::leftover_files(&pieces_dir, &written);
        crate::emit::layout::remove_leftovers(&pieces_dir, &leftovers).map_err(BuildError::Io)?;
        Ok(path)
    }
}

/// A diagnostic on one line: cargo reads every line a build script prints as a directive, so a
/// line break from the document must not start one. [`crate::Diagnostic`]'s rendering already
/// escapes those in the text; its own line break is replaced.
fn one_line(diagnostic: &crate::Diagnostic) -> String {
    diagnostic.to_string().replace('\n', " ")
}
