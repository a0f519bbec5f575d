//! Which methods MCP sees when the document does not say (a vendor document has no `x-mcp`):
//! `--tools`/`--exclude` globs and an `--overlay` file ([`super::overlay`]), applied where
//! `x-mcp` is read, so every later pass sees bindings as if the document had them.
//!
//! The `x-mcp` value a method is read with, first that applies:
//!
//! 1. the overlay's entry for it (an exact key, else the last glob that matches; `null`: the
//!    method stays off MCP);
//! 2. the method's own `x-mcp`;
//! 3. `"tool"`, when a `--tools` pattern matches its name and no `--exclude` pattern does
//!    (`--exclude` takes back only what `--tools` chose). A method without `result` (a
//!    notification) is not made a tool: a warning says so.
//!
//! A pattern or an overlay entry that matches no method is a warning; so is a document that,
//! all this applied, exposes nothing over MCP ([`exposes_nothing`]).

use std::path::PathBuf;

use serde_json::Value;

use super::glob::Glob;
use super::json_pos::SourceMap;
use super::model::{Document, McpOrigin};
use super::overlay::{self, Overlay};
use crate::diagnostics::{did_you_mean, Diagnostic, Diagnostics, Location};

/// Rule id (a warning): a `--tools` or `--exclude` pattern matches no method, or a method a
/// `--tools` pattern matches cannot be a tool (a notification).
pub const RULE: &str = "selection";

/// Rule id (a warning): the document, with its overlay and selection, exposes no tool, prompt,
/// resource or resource template: the server would list nothing.
pub const RULE_EXPOSES_NOTHING: &str = "mcp-exposes-nothing";

/// Which methods become MCP tools without editing the document: the CLI's `--tools`,
/// `--exclude` and `--overlay`, [`crate::Builder::tools`], [`crate::Builder::exclude`] and
/// [`crate::Builder::overlay`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Selection {
    /// Globs over method names (`*` any run of characters, `?` one character): the methods
    /// that match one become tools, as if they had `"x-mcp": "tool"` (a method's own `x-mcp`
    /// still wins).
    pub tools: Vec<String>,
    /// Globs over method names: the methods that match one are not made tools by
    /// [`Selection::tools`] (an `x-mcp` of the document or the overlay is kept).
    pub exclude: Vec<String>,
    /// A JSON file whose `methods` give methods their `x-mcp` (or `null`: none), ahead of the
    /// document's, and whose `info["x-mcp"]` patches the document's (see `docs/gateway.md`).
    pub overlay: Option<PathBuf>,
}

impl Selection {
    /// True when nothing is selected: the document alone decides.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty() && self.exclude.is_empty() && self.overlay.is_none()
    }
}

/// A pattern of `--tools` or `--exclude`, and whether it matched a method yet.
#[derive(Debug)]
struct Pattern {
    glob: Glob,
    matched: bool,
}

impl Pattern {
    fn all(patterns: &[String]) -> Vec<Pattern> {
        patterns
            .iter()
            .map(|p| Pattern {
                glob: Glob::new(p),
                matched: false,
            })
            .collect()
    }
}

/// Any pattern of `patterns` matches `name`; every one that does is marked.
fn any_matches(patterns: &mut [Pattern], name: &str) -> bool {
    let mut any = false;
    for pattern in patterns.iter_mut() {
        if pattern.glob.matches(name) {
            pattern.matched = true;
            any = true;
        }
    }
    any
}

/// What decides a method's `x-mcp`, as [`Chooser::choose`] found it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Choice {
    /// The method's own `x-mcp` (or none: the method is plain JSON-RPC).
    Document,
    /// The overlay's value for it, at `pointer` in the overlay file; `null` keeps it off MCP.
    Overlay {
        /// The `x-mcp` value, or `null`.
        value: Value,
        /// Where the value is.
        location: Location,
    },
    /// A `--tools` pattern: `"tool"`.
    Selected,
}

impl Choice {
    /// Where the binding comes from, when the method gets one.
    pub fn origin(&self) -> McpOrigin {
        match self {
            Choice::Document => McpOrigin::Document,
            Choice::Overlay { .. } => McpOrigin::Overlay,
            Choice::Selected => McpOrigin::Selection,
        }
    }
}

/// A [`Selection`] ready to apply to the methods as they load.
#[derive(Debug, Default)]
pub(crate) struct Chooser {
    tools: Vec<Pattern>,
    exclude: Vec<Pattern>,
    overlay: Option<Overlay>,
    /// Every method name met, for suggestions.
    names: Vec<String>,
}

impl Chooser {
    /// The chooser of `selection`, with the JSON of its overlay file as the loader read it
    /// (its positions in `sources`); the overlay's problems go into `diags`.
    pub fn new(
        selection: &Selection,
        overlay_json: Option<Value>,
        sources: &SourceMap,
        diags: &mut Diagnostics,
    ) -> Self {
        let overlay = match (selection.overlay.as_deref(), overlay_json) {
            (Some(path), Some(root)) => Some(overlay::read(path, root, sources, diags)),
            _ => None,
        };
        Chooser {
            tools: Pattern::all(&selection.tools),
            exclude: Pattern::all(&selection.exclude),
            overlay,
            names: Vec::new(),
        }
    }

    /// What decides the `x-mcp` of the method `name`, which has an `x-mcp` of its own when
    /// `has_own`. Marks the patterns and entries that match it.
    pub fn choose(&mut self, name: &str, has_own: bool, sources: &SourceMap) -> Choice {
        self.names.push(name.to_string());
        let selected = any_matches(&mut self.tools, name);
        let excluded = any_matches(&mut self.exclude, name);
        if let Some(overlay) = &mut self.overlay {
            let path = overlay.path.clone();
            if let Some(entry) = overlay.entry_for(name) {
                return Choice::Overlay {
                    value: entry.value.clone(),
                    location: sources.locate(&path, &entry.pointer),
                };
            }
        }
        if has_own || !selected || excluded {
            Choice::Document
        } else {
            Choice::Selected
        }
    }

    /// True when the overlay names `name` exactly (a declared `rpc.discover` it names is read
    /// like any method).
    pub fn names_exactly(&self, name: &str) -> bool {
        self.overlay.as_ref().is_some_and(|o| o.has_exact(name))
    }

    /// Applies the overlay's `actions` to `document`, the root document read from `file`,
    /// before anything reads it ([`overlay::actions`]): what they write is located in the
    /// overlay (`sources`), their problems go into `diags`.
    pub fn patch_document(
        &self,
        document: &mut Value,
        file: &std::path::Path,
        sources: &mut SourceMap,
        diags: &mut Diagnostics,
    ) {
        if let Some(overlay) = &self.overlay {
            let path = overlay.path.as_path();
            overlay::actions::apply(&overlay.actions, document, file, path, sources, diags);
        }
    }

    /// The overlay's `info["x-mcp"]` patch, with the overlay's path.
    pub fn server_patch(&self) -> Option<(&std::path::Path, &serde_json::Map<String, Value>)> {
        let overlay = self.overlay.as_ref()?;
        Some((overlay.path.as_path(), overlay.info.as_ref()?))
    }

    /// The warnings for patterns and overlay entries that matched no method; `root` locates
    /// the flags' (the document's root).
    pub fn finish(&self, root: &Location, sources: &SourceMap) -> Vec<Diagnostic> {
        let mut warnings = Vec::new();
        for (flag, patterns) in [("--tools", &self.tools), ("--exclude", &self.exclude)] {
            for pattern in patterns.iter().filter(|p| !p.matched) {
                let text = pattern.glob.as_str();
                let hint = match did_you_mean(text, self.names.iter().map(String::as_str)) {
                    Some(near) if !pattern.glob.is_wildcard() => {
                        format!(" (did you mean {near:?}?)")
                    }
                    _ => String::new(),
                };
                warnings.push(Diagnostic::warning(
                    RULE,
                    root.clone(),
                    format!("{flag} pattern {text:?} matches no method of the document{hint}"),
                ));
            }
        }
        if let Some(overlay) = &self.overlay {
            warnings.extend(overlay.unmatched(sources, &self.names));
        }
        warnings
    }
}

/// The warning for a document that exposes nothing over MCP (no tool, prompt, resource or
/// resource template) and bundles no skills, saying how to choose methods; `None` otherwise.
pub fn exposes_nothing(
    document: &Document,
    selection: &Selection,
    skills: usize,
) -> Option<Diagnostic> {
    if skills > 0 || document.methods.iter().any(|m| m.mcp.is_some()) {
        return None;
    }
    let root = document.sources.locate(&document.files[0], "");
    let message = if document.methods.is_empty() {
        "the document exposes nothing over MCP: it declares no methods".to_string()
    } else if selection.is_empty() {
        "the document exposes nothing over MCP: no method has `x-mcp`; pass `--tools 'PATTERN'` (e.g. `--tools '*'`) or an `--overlay` to choose methods (from build.rs: `Builder::tools`, `Builder::overlay`)".to_string()
    } else {
        "the document exposes nothing over MCP: no method has `x-mcp`, and --tools/--exclude/--overlay chose none (`--tools '*'` selects every method; see the `selection` and `overlay` warnings)".to_string()
    };
    Some(Diagnostic::warning(RULE_EXPOSES_NOTHING, root, message))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chooser(tools: &[&str], exclude: &[&str]) -> Chooser {
        let selection = Selection {
            tools: tools.iter().map(|s| s.to_string()).collect(),
            exclude: exclude.iter().map(|s| s.to_string()).collect(),
            overlay: None,
        };
        Chooser::new(
            &selection,
            None,
            &SourceMap::default(),
            &mut Diagnostics::default(),
        )
    }

    fn root() -> Location {
        Location {
            file: "doc.json".into(),
            line: 1,
            column: 1,
            pointer: String::new(),
        }
    }

    #[test]
    fn tools_minus_exclude_and_the_document_wins() {
        let sources = SourceMap::default();
        let mut c = chooser(&["eth_*", "net_version"], &["eth_sign*"]);
        assert_eq!(c.choose("net_version", false, &sources), Choice::Selected);
        assert_eq!(c.choose("eth_call", false, &sources), Choice::Selected);
        assert_eq!(c.choose("eth_sign", false, &sources), Choice::Document);
        assert_eq!(
            c.choose("eth_signTransaction", false, &sources),
            Choice::Document
        );
        // The method's own `x-mcp` (say a prompt) is kept, selected or excluded.
        assert_eq!(c.choose("eth_getLogs", true, &sources), Choice::Document);
        assert_eq!(c.choose("eth_signTyped", true, &sources), Choice::Document);
        assert_eq!(c.choose("debug_x", false, &sources), Choice::Document);
        assert!(c.finish(&root(), &sources).is_empty());
    }

    #[test]
    fn patterns_that_match_nothing_are_warnings() {
        let sources = SourceMap::default();
        let mut c = chooser(&["eth_getBalanse", "eth_*", "web3_*"], &["debug_*"]);
        for name in ["eth_getBalance", "eth_call"] {
            c.choose(name, false, &sources);
        }
        let messages: Vec<String> = c
            .finish(&root(), &sources)
            .into_iter()
            .map(|d| format!("{}: {}", d.rule, d.message))
            .collect();
        assert_eq!(
            messages,
            [
                "selection: --tools pattern \"eth_getBalanse\" matches no method of the document (did you mean \"eth_getBalance\"?)",
                "selection: --tools pattern \"web3_*\" matches no method of the document",
                "selection: --exclude pattern \"debug_*\" matches no method of the document",
            ]
        );
    }

    #[test]
    fn the_overlay_beats_the_document_and_the_flags() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("overlay.json");
        std::fs::write(
            &path,
            r#"{"methods": {"eth_call": null, "eth_get*": "prompt", "own": "tool"}}"#,
        )
        .unwrap();
        let selection = Selection {
            tools: vec!["*".into()],
            exclude: vec!["eth_getLogs".into()],
            overlay: Some(path),
        };
        let mut sources = SourceMap::default();
        let mut diags = Diagnostics::default();
        let overlay = crate::openrpc::load::read_overlay_json(
            selection.overlay.as_deref().unwrap(),
            &mut sources,
            &mut diags,
        );
        let mut c = Chooser::new(&selection, overlay, &sources, &mut diags);
        assert!(diags.0.is_empty(), "{diags}");
        let value = |choice: Choice| match choice {
            Choice::Overlay { value, location } => {
                assert_eq!(location.line, 1);
                Some(value)
            }
            _ => None,
        };
        assert_eq!(
            value(c.choose("eth_call", false, &sources)),
            Some(Value::Null)
        );
        assert_eq!(
            value(c.choose("eth_getLogs", false, &sources)),
            Some(Value::from("prompt"))
        );
        assert_eq!(
            value(c.choose("own", true, &sources)),
            Some(Value::from("tool"))
        );
        assert_eq!(c.choose("net_version", false, &sources), Choice::Selected);
        assert!(c.names_exactly("eth_call"));
        assert!(!c.names_exactly("eth_getLogs"));
    }
}
