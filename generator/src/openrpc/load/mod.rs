//! Loading: JSON text to [`Document`], with source positions, shape checks and `$ref` resolution.

mod bundle;
mod fields;
mod files;
mod methods;
mod paths;
mod read;
mod refs;
mod schemas;
mod top_level;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use indexmap::IndexMap;
use serde_json::{Map, Value};

use super::json_pos::{escape_token, FilePositions, SourceMap};
use super::mcp::type_name;
use super::model::*;
use super::selection::{Chooser, Selection};
use crate::diagnostics::{Diagnostic, Diagnostics, Location};
use paths::normalize;

/// Rule id: the text is not JSON.
pub const RULE_JSON_SYNTAX: &str = "json-syntax";
/// Rule id: the `openrpc` version is not supported.
pub const RULE_VERSION: &str = "openrpc-version";
/// Rule id: a value does not have the shape OpenRPC requires.
pub const RULE_SHAPE: &str = "document-shape";
/// Rule id: a `$ref` cannot be resolved (missing target, missing file, cycle).
pub const RULE_REF: &str = "ref-resolvable";
/// Rule id: a `$ref` names a file by something else than a relative reference (a URL, an
/// absolute path).
pub const RULE_REF_RELATIVE: &str = "ref-relative";
/// Rule id: a `$ref` names a file outside the root document's directory (after `..` and
/// symbolic links).
pub const RULE_REF_CONFINED: &str = "ref-confined";
/// Rule id (a warning): a same-file `$ref` to `#/definitions/X` (or `#/$defs/X`) that the file
/// has not at its root was read in the `definitions` of the schema enclosing it (a schema
/// embedded with its own definitions, as schemars writes them).
pub const RULE_REF_EMBEDDED: &str = "ref-embedded-definitions";
/// Rule id (a warning): a `$ref`'s file, missing beside the referring file, was read relative
/// to the `--ref-base` directory ([`LoadOptions::ref_base`]).
pub const RULE_REF_BASE: &str = "ref-base";
/// Rule id: a file to read is not a regular file (a directory, FIFO, socket or device).
pub const RULE_REGULAR_FILE: &str = "regular-file";
/// Rule id: a file to read is larger than [`MAX_FILE_BYTES`].
pub const RULE_FILE_SIZE: &str = "file-size";
/// Rule id (a warning): a key no OpenRPC object of its place defines, one edit or so from one
/// it does (`paramStrucutre`, `x-mpc`); it is ignored.
pub const RULE_MISSPELT_KEY: &str = "misspelt-key";

/// The keys of each OpenRPC object the loader reads, for [`Loader::misspelt_keys`].
pub(crate) const DOCUMENT_KEYS: &[&str] = &[
    "openrpc",
    "info",
    "servers",
    "methods",
    "components",
    "externalDocs",
    "$schema",
];
pub(crate) const INFO_KEYS: &[&str] = &[
    "title",
    "description",
    "termsOfService",
    "contact",
    "license",
    "version",
];
pub(crate) const METHOD_OBJECT_KEYS: &[&str] = &[
    "name",
    "tags",
    "summary",
    "description",
    "externalDocs",
    "params",
    "result",
    "deprecated",
    "servers",
    "errors",
    "links",
    "paramStructure",
    "examples",
];
pub(crate) const DESCRIPTOR_KEYS: &[&str] = &[
    "name",
    "summary",
    "description",
    "required",
    "schema",
    "deprecated",
];

pub use files::MAX_FILE_BYTES;

/// The `openrpc` versions this generator reads, in words (never a pattern such as `1.4.x`, so
/// a message quoting it cannot seem to list a version it refuses).
pub const SUPPORTED_VERSIONS: &str = "1.0.0-rc0, 1.0.0-rc1 and 1.0.N through 1.4.N (N a number)";

/// True for the `openrpc` versions this generator accepts: `1.0.0-rc0`, `1.0.0-rc1` and
/// `1.0.N` through `1.4.N` for a numeric patch `N`.
pub fn supported_version(version: &str) -> bool {
    if version == "1.0.0-rc0" || version == "1.0.0-rc1" {
        return true;
    }
    let parts: Vec<&str> = version.split('.').collect();
    let numeric = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    parts.len() == 3
        && parts[0] == "1"
        && matches!(parts[1], "0" | "1" | "2" | "3" | "4")
        && numeric(parts[2])
}

/// The release a version that names a minor version rather than a release stands for:
/// `1.4.x` (or `1.4.X`, `1.4.*`, `1.4`) is read as `1.4.0`, for minors 0 through 4. `None` for
/// anything else.
pub fn lenient_version(version: &str) -> Option<String> {
    let (major_minor, patch) = match version.matches('.').count() {
        1 => (version, None),
        2 => version.rsplit_once('.').map(|(mm, p)| (mm, Some(p)))?,
        _ => return None,
    };
    if !matches!(patch, None | Some("x" | "X" | "*")) {
        return None;
    }
    match major_minor {
        "1.0" | "1.1" | "1.2" | "1.3" | "1.4" => Some(format!("{major_minor}.0")),
        _ => None,
    }
}

/// How a document is read, beyond its path.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LoadOptions {
    /// A directory `$ref` file paths may be relative to when the file is not beside the
    /// referring file (documents whose references are written from their repository's root):
    /// such a file is read from here, with a [`RULE_REF_BASE`] warning, and the files read may
    /// lie anywhere inside it.
    pub ref_base: Option<PathBuf>,
    /// Which methods MCP sees beyond the document's own `x-mcp`: `--tools`, `--exclude` and
    /// the `--overlay` file, applied where `x-mcp` is read ([`crate::openrpc::selection`]).
    pub selection: Selection,
}

/// Rule id (a warning): a method's `result` is not a content descriptor as OpenRPC writes
/// one (a schema, a `$ref` to a schema, `{}`, or one without its `name` or `schema`); it is read
/// as the result it most plausibly means, and the warning says how.
pub const RULE_RESULT_DESCRIPTOR: &str = "result-descriptor";

/// Rule id: a method name begins with `rpc.`, the prefix OpenRPC reserves for rpc-internal
/// methods (a declared `rpc.discover` is skipped here with a warning; any other is an error of
/// `crate::validate`).
pub const RULE_RESERVED_METHOD_NAMES: &str = "reserved-method-names";

/// Rule id (a warning): a param is a `$ref` to a schema rather than to a content descriptor;
/// it is read as a param of that schema named after it (`#/components/schemas/Filter`: a param
/// `Filter`), as a `result` of the same shape is.
pub const RULE_PARAM_DESCRIPTOR: &str = "param-descriptor";

/// The JSON of the overlay at `path` (`--overlay`: a regular file of at most
/// [`MAX_FILE_BYTES`], UTF-8), its positions recorded in `sources`; `None` when it cannot be
/// read, with the problem in `diags` (rule `overlay` when it is missing, else the rule broken).
pub(crate) fn read_overlay_json(
    path: &Path,
    sources: &mut SourceMap,
    diags: &mut Diagnostics,
) -> Option<Value> {
    let at = |line, column| Location {
        file: path.to_path_buf(),
        line,
        column,
        pointer: String::new(),
    };
    let bytes = match files::read_bounded(path) {
        Ok(bytes) => bytes,
        Err(unreadable) => {
            let rule = if unreadable.rule == RULE_REF {
                super::overlay::RULE
            } else {
                unreadable.rule
            };
            let message = format!("cannot read the overlay: {}", unreadable.why);
            diags.push(Diagnostic::error(rule, at(1, 1), message));
            return None;
        }
    };
    let Ok(text) = String::from_utf8(bytes) else {
        diags.push(Diagnostic::error(
            RULE_JSON_SYNTAX,
            at(1, 1),
            "the overlay is not UTF-8",
        ));
        return None;
    };
    let root: Value = match serde_json::from_str(&text) {
        Ok(value) => value,
        Err(e) => {
            let full = e.to_string();
            let message = full
                .rfind(" at line ")
                .map_or(full.as_str(), |i| &full[..i]);
            diags.push(Diagnostic::error(
                RULE_JSON_SYNTAX,
                at(e.line().max(1), e.column().max(1)),
                format!("invalid JSON in the overlay: {message}"),
            ));
            return None;
        }
    };
    sources.insert(path.to_path_buf(), FilePositions::index(&text));
    Some(root)
}

pub(super) fn load(
    path: &Path,
    options: &LoadOptions,
) -> Result<(Document, Diagnostics), Diagnostics> {
    let mut loader = Loader::new(path);
    loader.ref_base = options.ref_base.as_deref().map(normalize);
    let overlay = options
        .selection
        .overlay
        .as_deref()
        .and_then(|path| read_overlay_json(path, &mut loader.sources, &mut loader.diags));
    loader.selection = Chooser::new(
        &options.selection,
        overlay,
        &loader.sources,
        &mut loader.diags,
    );
    let document = loader.run(path);
    let mut diags = loader.diags;
    diags.sort();
    // The bundle resolves some references loading resolved: a warning is told once.
    diags.0.dedup();
    match document {
        Some(document) if !diags.has_errors() => Ok((document, diags)),
        _ => Err(diags),
    }
}

struct SourceFile {
    path: PathBuf,
    value: Value,
}

struct Loader {
    main_dir: PathBuf,
    /// The canonical directory of the root document: every file read lies inside it.
    root_dir: PathBuf,
    files: Vec<SourceFile>,
    /// Files read (or refused) so far, by canonical path.
    by_path: HashMap<PathBuf, Result<usize, files::Unreadable>>,
    sources: SourceMap,
    schemas: IndexMap<String, NamedSchema>,
    processed: HashSet<String>,
    /// How many schema `$ref` targets are being processed inside one another.
    ref_depth: usize,
    /// Schemas whose processing waits (key, file, pointer): see [`Loader::schema_ref`].
    deferred: Vec<(String, usize, String)>,
    /// [`LoadOptions::ref_base`], normalized.
    ref_base: Option<PathBuf>,
    /// [`LoadOptions::selection`], ready to apply as methods load.
    selection: Chooser,
    /// The indices in `methods` of the declared `rpc.discover` methods, not read (the runtime
    /// answers it): the bundle leaves them as written.
    skipped_methods: HashSet<usize>,
    diags: Diagnostics,
}

fn ptr_child(ptr: &str, key: &str) -> String {
    format!("{ptr}/{}", escape_token(key))
}

impl Loader {
    fn new(path: &Path) -> Self {
        let main_dir = normalize(path.parent().unwrap_or(Path::new("")));
        // Unresolvable when the document is missing, which reading it reports.
        let root_dir = files::canonical(path)
            .ok()
            .and_then(|p| p.parent().map(Path::to_path_buf))
            .unwrap_or_else(|| main_dir.clone());
        Self {
            main_dir,
            root_dir,
            files: Vec::new(),
            by_path: HashMap::new(),
            sources: SourceMap::default(),
            schemas: IndexMap::new(),
            processed: HashSet::new(),
            ref_depth: 0,
            deferred: Vec::new(),
            ref_base: None,
            selection: Chooser::default(),
            skipped_methods: HashSet::new(),
            diags: Diagnostics::default(),
        }
    }

    fn locate(&self, file: usize, pointer: &str) -> Location {
        self.sources.locate(&self.files[file].path, pointer)
    }

    fn error(&mut self, rule: &'static str, location: Location, message: impl Into<String>) {
        self.diags.push(Diagnostic::error(rule, location, message));
    }

    /// Warns of each key of `map` (the object at `pointer`) that is not one of `known` nor an
    /// extension but a near miss of one of them or of `x-mcp`: a misspelling that would
    /// otherwise be ignored without a word.
    fn misspelt_keys(
        &mut self,
        file: usize,
        pointer: &str,
        map: &Map<String, Value>,
        known: &[&str],
    ) {
        for key in map.keys() {
            if known.contains(&key.as_str()) || key == "x-mcp" {
                continue;
            }
            let candidates = known.iter().copied().chain(std::iter::once("x-mcp"));
            let Some(near) = crate::diagnostics::did_you_mean(key, candidates) else {
                continue;
            };
            // Another extension that merely looks like one (`x-mcpx`, `x-mc`) is the author's
            // own; `x-mpc` and `x-mcq` are misspellings.
            if key.starts_with("x-") && (near != "x-mcp" || key.chars().count() != near.len()) {
                continue;
            }
            let location = self.locate(file, &format!("{pointer}/{}", escape_token(key)));
            self.diags.push(Diagnostic::warning(
                RULE_MISSPELT_KEY,
                location,
                format!("unknown key `{key}` (did you mean `{near}`?); it is ignored"),
            ));
        }
    }

    fn shape(&mut self, file: usize, pointer: &str, message: impl Into<String>) {
        let location = self.locate(file, pointer);
        self.error(RULE_SHAPE, location, message);
    }

    fn run(&mut self, path: &Path) -> Option<Document> {
        let main = files::canonical(path).and_then(|key| self.read(key, path.to_path_buf()));
        if let Err(unreadable) = main {
            if self.diags.0.is_empty() {
                let location = Location {
                    file: path.to_path_buf(),
                    line: 1,
                    column: 1,
                    pointer: String::new(),
                };
                let rule = match unreadable.rule {
                    RULE_REF => RULE_JSON_SYNTAX,
                    rule => rule,
                };
                self.error(
                    rule,
                    location,
                    format!("cannot load the document: {}", unreadable.why),
                );
            }
            return None;
        }
        // The overlay's `actions` patch the document before anything reads it.
        let file = self.files[0].path.clone();
        let document = &mut self.files[0].value;
        (self.selection).patch_document(document, &file, &mut self.sources, &mut self.diags);
        let root = self.files[0].value.clone();
        let Value::Object(top) = root else {
            let message = format!(
                "an OpenRPC document must be an object, found {}",
                type_name(&root)
            );
            self.shape(0, "", message);
            return None;
        };

        let openrpc = self.openrpc_version(&top);
        self.misspelt_keys(0, "", &top, DOCUMENT_KEYS);
        let (info, server) = self.info(&top);

        if top.contains_key("schemas") {
            self.shape(
                0,
                "/schemas",
                "`schemas` is not an OpenRPC top-level field; schemas belong in `components.schemas`",
            );
        }
        self.components(&top);
        let methods = self.methods(&top);
        let root = self.locate(0, "");
        let unmatched = self.selection.finish(&root, &self.sources);
        self.diags.0.extend(unmatched);
        self.process_deferred();
        // A document with errors is never emitted: its bundle would only repeat them.
        let bundled_json = if self.diags.has_errors() {
            Value::Null
        } else {
            self.bundle(&top)
        };

        Some(Document {
            openrpc: openrpc?,
            info: info?,
            server,
            methods,
            schemas: std::mem::take(&mut self.schemas),
            files: self.files.iter().map(|f| f.path.clone()).collect(),
            sources: std::mem::take(&mut self.sources),
            bundled_json,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions() {
        for ok in [
            "1.0.0-rc0",
            "1.0.0-rc1",
            "1.0.0",
            "1.2.6",
            "1.3.2",
            "1.4.0",
            "1.4.17",
        ] {
            assert!(supported_version(ok), "{ok}");
        }
        for bad in [
            "",
            "1",
            "1.5.0",
            "2.0.0",
            "0.9.0",
            "1.2",
            "1.2.x",
            "1.0.0-rc2",
            "v1.2.0",
        ] {
            assert!(!supported_version(bad), "{bad}");
        }
        for (lenient, read_as) in [
            ("1.4.x", "1.4.0"),
            ("1.2.X", "1.2.0"),
            ("1.0.*", "1.0.0"),
            ("1.3", "1.3.0"),
        ] {
            assert_eq!(
                lenient_version(lenient).as_deref(),
                Some(read_as),
                "{lenient}"
            );
        }
        for refused in ["1.5.x", "2.0.x", "1.4.y", "1.4.x.1", "x", "", "1", "1.4.0"] {
            assert_eq!(lenient_version(refused), None, "{refused}");
        }
    }
}
