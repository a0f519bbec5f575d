//! Overlays: a JSON file that says which methods of a document MCP sees, and how, without
//! touching the document (`--overlay FILE`, `Builder::overlay`).
//!
//! ```json
//! {
//!   "info": {"x-mcp": {"name": "eth-gateway", "instructions": "Read-only Ethereum."}},
//!   "methods": {
//!     "eth_sendTransaction": {"kind": "tool", "annotations": {"destructiveHint": true}},
//!     "debug_*": null,
//!     "eth_get*": "tool"
//!   }
//! }
//! ```
//!
//! A key of `methods` is a method name, or a glob (`super::glob`) when it has `*` or `?`; its
//! value is what the method's `x-mcp` would be (`"tool"`, an object with `kind`...), or `null`
//! to keep the method off MCP. For one method an exact key beats every glob, and among globs
//! the last in the file wins (so a broad glob first, narrower ones after). `info["x-mcp"]`
//! patches the document's `info["x-mcp"]` key by key (`null` removes a key). `$schema` and
//! `$comment` are allowed and ignored.
//!
//! Every problem is located in the overlay file with its own line and column: the file's
//! positions are kept in the document's [`SourceMap`], so a binding from the overlay is
//! located there by every later pass too.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

pub(crate) mod actions;

use super::glob::Glob;
use super::json_pos::{escape_token, SourceMap};
use super::mcp::{self, type_name, MethodFacts};
use crate::diagnostics::{did_you_mean, Diagnostic, Diagnostics, Location};

/// Rule id of the problems of an overlay file: unreadable, not an object, an unknown key, an
/// entry of a wrong type (errors); an entry that matches no method (a warning). The `x-mcp`
/// values in it are checked under the rules of a document's `x-mcp` (`mcp-extension`).
pub const RULE: &str = "overlay";

/// The keys an overlay may have at its root.
const ROOT_KEYS: &[&str] = &[
    "methods", "info", "overlay", "actions", "extends", "$schema", "$comment",
];

/// An overlay file, read and checked.
#[derive(Debug)]
pub(crate) struct Overlay {
    /// The file, as given.
    pub path: PathBuf,
    /// `methods`, in the order of the file.
    pub methods: Vec<Entry>,
    /// `info["x-mcp"]`: the keys that replace (or, `null`, remove) the document's.
    pub info: Option<Map<String, Value>>,
    /// `actions`: patches of the document itself ([`actions`]).
    pub actions: Vec<actions::Action>,
}

/// One entry of an overlay's `methods`.
#[derive(Debug)]
pub(crate) struct Entry {
    /// The key, a method name or a glob.
    pub key: Glob,
    /// The `x-mcp` value the matching methods get, or `null`.
    pub value: Value,
    /// The entry's JSON pointer in the overlay (`/methods/<key>`).
    pub pointer: String,
    /// True once a method of the document matched the key.
    pub matched: bool,
}

impl Overlay {
    /// The entry that decides for the method `name`: the exact key, else the last glob that
    /// matches. Every entry that matches is marked as matched.
    pub fn entry_for(&mut self, name: &str) -> Option<&Entry> {
        let mut exact = None;
        let mut glob = None;
        for (i, entry) in self.methods.iter_mut().enumerate() {
            if entry.key.as_str() == name {
                entry.matched = true;
                exact = Some(i);
            } else if entry.key.is_wildcard() && entry.key.matches(name) {
                entry.matched = true;
                glob = Some(i);
            }
        }
        exact.or(glob).map(|i| &self.methods[i])
    }

    /// True when the overlay has a key that is exactly `name`.
    pub fn has_exact(&self, name: &str) -> bool {
        self.methods.iter().any(|e| e.key.as_str() == name)
    }

    /// The location of `pointer` in the overlay.
    pub fn locate(&self, sources: &SourceMap, pointer: &str) -> Location {
        sources.locate(&self.path, pointer)
    }

    /// A warning for each entry no method matched, with the nearest method name when there
    /// is one close enough.
    pub fn unmatched(&self, sources: &SourceMap, names: &[String]) -> Vec<Diagnostic> {
        self.methods
            .iter()
            .filter(|entry| !entry.matched)
            .map(|entry| {
                let key = entry.key.as_str();
                let hint = match did_you_mean(key, names.iter().map(String::as_str)) {
                    Some(near) if !entry.key.is_wildcard() => {
                        format!(" (did you mean {near:?}?)")
                    }
                    _ => String::new(),
                };
                Diagnostic::warning(
                    RULE,
                    self.locate(sources, &entry.pointer),
                    format!(
                        "overlay entry {key:?} matches no method of the document{hint}; it changes nothing"
                    ),
                )
            })
            .collect()
    }
}

/// The overlay of the JSON `root` read from `path` (by the loader, which recorded its
/// positions in `sources`), its problems reported into `diags`, each at its line and column.
pub(crate) fn read(
    path: &Path,
    root: Value,
    sources: &SourceMap,
    diags: &mut Diagnostics,
) -> Overlay {
    let mut reader = Reader {
        path,
        sources,
        diags,
    };
    reader.root(root)
}

/// Checks the parts of an overlay, each problem located in the file.
struct Reader<'a> {
    path: &'a Path,
    sources: &'a SourceMap,
    diags: &'a mut Diagnostics,
}

impl Reader<'_> {
    fn error(&mut self, pointer: &str, message: String) {
        let location = self.sources.locate(self.path, pointer);
        self.diags.push(Diagnostic::error(RULE, location, message));
    }

    /// An error for each key of `map` (at `pointer`) outside `allowed`.
    fn unknown_keys(
        &mut self,
        map: &Map<String, Value>,
        pointer: &str,
        allowed: &[&str],
        what: &str,
    ) {
        for key in map.keys().filter(|k| !allowed.contains(&k.as_str())) {
            let hint = did_you_mean(key, allowed.iter().copied())
                .map(|near| format!(" (did you mean `{near}`?)"))
                .unwrap_or_default();
            self.error(
                &format!("{pointer}/{}", escape_token(key)),
                format!(
                    "unknown key `{key}` in {what}{hint}; allowed keys: {}",
                    allowed.join(", ")
                ),
            );
        }
    }

    fn root(&mut self, root: Value) -> Overlay {
        let mut overlay = Overlay {
            path: self.path.to_path_buf(),
            methods: Vec::new(),
            info: None,
            actions: Vec::new(),
        };
        let Value::Object(mut root) = root else {
            self.error(
                "",
                format!(
                    "an overlay must be an object such as {{\"methods\": {{\"eth_call\": \"tool\"}}}}, found {}",
                    type_name(&root)
                ),
            );
            return overlay;
        };
        self.unknown_keys(&root, "", ROOT_KEYS, "the overlay");
        match root.remove("methods") {
            None => {}
            Some(Value::Object(methods)) => overlay.methods = self.methods(methods),
            Some(other) => self.error(
                "/methods",
                format!(
                    "the overlay's `methods` must be an object mapping method names or globs to `x-mcp` values or null, found {}",
                    type_name(&other)
                ),
            ),
        }
        match root.remove("overlay") {
            None | Some(Value::String(_)) => {}
            Some(other) => self.error(
                "/overlay",
                format!(
                    "the overlay's `overlay` is the Overlay Specification's version, a string such as \"1.0.0\", found {}",
                    type_name(&other)
                ),
            ),
        }
        if let Some(list) = root.remove("actions") {
            overlay.actions = actions::read(list, self.path, self.sources, self.diags);
        }
        match root.remove("info") {
            None => {}
            Some(Value::Object(info)) => overlay.info = self.info(info),
            Some(other) => self.error(
                "/info",
                format!(
                    "the overlay's `info` must be an object such as {{\"x-mcp\": {{\"name\": ...}}}}, found {}",
                    type_name(&other)
                ),
            ),
        }
        overlay
    }

    fn methods(&mut self, methods: Map<String, Value>) -> Vec<Entry> {
        let mut entries = Vec::new();
        for (key, value) in methods {
            let pointer = format!("/methods/{}", escape_token(&key));
            if key.is_empty() {
                self.error(
                    &pointer,
                    "an overlay `methods` key must be a method name or a glob, found an empty key"
                        .to_string(),
                );
                continue;
            }
            if !value.is_null() {
                // The problems of the value do not depend on the method it applies to: told
                // once here, not once per method a glob matches.
                let facts = MethodFacts {
                    name: &key,
                    description: None,
                    summary: None,
                };
                let locate = |sub: &str| self.sources.locate(self.path, &format!("{pointer}{sub}"));
                let (binding, problems) = mcp::parse_method(&value, &facts, &locate);
                let usable = binding.is_some();
                self.diags.0.extend(problems);
                if !usable {
                    continue;
                }
            }
            entries.push(Entry {
                key: Glob::new(&key),
                value,
                pointer,
                matched: false,
            });
        }
        entries
    }

    fn info(&mut self, mut info: Map<String, Value>) -> Option<Map<String, Value>> {
        // `title`, `version` and `description`: the Overlay Specification's own, ignored.
        let keys = ["x-mcp", "title", "version", "description"];
        self.unknown_keys(&info, "/info", &keys, "the overlay's `info`");
        match info.remove("x-mcp")? {
            Value::Object(x_mcp) => Some(x_mcp),
            other => {
                self.error(
                    "/info/x-mcp",
                    format!(
                        "the overlay's `info.x-mcp` must be an object (its keys replace the document's; null removes one), found {}",
                        type_name(&other)
                    ),
                );
                None
            }
        }
    }
}

/// The document's `info["x-mcp"]` with the overlay's keys applied: each replaces the
/// document's, `null` removes it. Also says which keys came from the overlay.
pub(crate) fn patch_server(
    document: Option<&Map<String, Value>>,
    patch: &Map<String, Value>,
) -> (Map<String, Value>, Vec<String>) {
    let mut merged = document.cloned().unwrap_or_default();
    let mut from_overlay = Vec::new();
    for (key, value) in patch {
        if value.is_null() {
            merged.remove(key);
        } else {
            merged.insert(key.clone(), value.clone());
            from_overlay.push(key.clone());
        }
    }
    (merged, from_overlay)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read_text(text: &str) -> (Option<Overlay>, Diagnostics, SourceMap, tempfile::TempDir) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("overlay.json");
        std::fs::write(&path, text).unwrap();
        let mut sources = SourceMap::default();
        let mut diags = Diagnostics::default();
        let overlay = read_file(&path, &mut sources, &mut diags);
        (overlay, diags, sources, dir)
    }

    /// The overlay at `path` as the loader reads it.
    fn read_file(path: &Path, sources: &mut SourceMap, diags: &mut Diagnostics) -> Option<Overlay> {
        let root = crate::openrpc::load::read_overlay_json(path, sources, diags)?;
        Some(read(path, root, sources, diags))
    }

    fn summary(diags: &Diagnostics) -> Vec<(String, usize, usize, String)> {
        diags
            .0
            .iter()
            .map(|d| {
                (
                    d.location.pointer.clone(),
                    d.location.line,
                    d.location.column,
                    d.message.clone(),
                )
            })
            .collect()
    }

    #[test]
    fn exact_keys_beat_globs_and_the_last_glob_wins() {
        let (overlay, diags, _, _dir) = read_text(
            r#"{"methods": {
                "eth_*": null,
                "eth_get*": "tool",
                "eth_getBalance": {"kind": "tool", "name": "balance"},
                "eth_getCode*": "prompt"
            }}"#,
        );
        assert!(diags.0.is_empty(), "{diags}");
        let mut overlay = overlay.unwrap();
        let value = |o: &mut Overlay, name: &str| o.entry_for(name).map(|e| e.value.clone());
        assert_eq!(
            value(&mut overlay, "eth_getBalance"),
            Some(json!({"kind": "tool", "name": "balance"}))
        );
        assert_eq!(value(&mut overlay, "eth_getCode"), Some(json!("prompt")));
        assert_eq!(value(&mut overlay, "eth_getLogs"), Some(json!("tool")));
        assert_eq!(value(&mut overlay, "eth_call"), Some(Value::Null));
        assert_eq!(value(&mut overlay, "debug_x"), None);
        assert!(overlay.methods.iter().all(|e| e.matched));
        assert!(overlay.has_exact("eth_getBalance"));
        assert!(!overlay.has_exact("eth_get*x"));
    }

    #[test]
    fn problems_point_into_the_overlay() {
        let (overlay, diags, _, _dir) = read_text(
            "{\n  \"method\": {},\n  \"methods\": {\n    \"a\": {\"kind\": \"tool\", \"tittle\": \"A\"},\n    \"b\": 3,\n    \"c\": \"tool\"\n  },\n  \"info\": {\"x_mcp\": {}}\n}",
        );
        let overlay = overlay.unwrap();
        assert_eq!(overlay.methods.len(), 1, "only the usable entry is kept");
        let found = summary(&diags);
        let expected = [
            ("/method", 2, 13, "unknown key `method` in the overlay (did you mean `methods`?); allowed keys: methods, info, overlay, actions, extends, $schema, $comment"),
            ("/methods/a/tittle", 4, 37, "unknown key `tittle` in `x-mcp` (did you mean `title`?); allowed keys: kind, name, title, description, annotations, icons, uri, uriTemplate, mimeType, _meta, output, inputSchema, scopes, rateLimit, resultBudget, subscription"),
            ("/methods/b", 5, 10, "`x-mcp` must be a kind string or an object with `kind`, found a number"),
            ("/info/x_mcp", 8, 21, "unknown key `x_mcp` in the overlay's `info` (did you mean `x-mcp`?); allowed keys: x-mcp, title, version, description"),
        ];
        let expected: Vec<(String, usize, usize, String)> = expected
            .iter()
            .map(|(p, l, c, m)| (p.to_string(), *l, *c, m.to_string()))
            .collect();
        assert_eq!(found, expected);
    }

    #[test]
    fn unreadable_and_malformed_overlays() {
        let (overlay, diags, _, _dir) = read_text("{\n  \"methods\": {,}\n}");
        assert!(overlay.is_none());
        assert_eq!(diags.0[0].rule, crate::openrpc::load::RULE_JSON_SYNTAX);
        assert_eq!(
            (diags.0[0].location.line, diags.0[0].location.column),
            (2, 15)
        );
        let (_, diags, _, _dir) = read_text("[1]");
        assert_eq!(
            diags.0[0].message,
            "an overlay must be an object such as {\"methods\": {\"eth_call\": \"tool\"}}, found an array"
        );
        let mut sources = SourceMap::default();
        let mut diags = Diagnostics::default();
        assert!(read_file(
            Path::new("/nonexistent/overlay.json"),
            &mut sources,
            &mut diags
        )
        .is_none());
        assert_eq!(diags.0[0].rule, RULE);
        assert!(
            diags.0[0].message.starts_with("cannot read the overlay"),
            "{diags}"
        );
    }

    #[test]
    fn unmatched_entries_are_warnings_with_the_nearest_name() {
        let (overlay, _, sources, _dir) =
            read_text("{\"methods\": {\"eth_getBalanse\": \"tool\", \"net_*\": null}}");
        let mut overlay = overlay.unwrap();
        let names = vec!["eth_getBalance".to_string(), "eth_call".to_string()];
        for name in &names {
            overlay.entry_for(name);
        }
        let warnings = overlay.unmatched(&sources, &names);
        let messages: Vec<&str> = warnings.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(
            messages,
            [
                "overlay entry \"eth_getBalanse\" matches no method of the document (did you mean \"eth_getBalance\"?); it changes nothing",
                "overlay entry \"net_*\" matches no method of the document; it changes nothing",
            ]
        );
        assert_eq!(warnings[0].location.pointer, "/methods/eth_getBalanse");
    }

    #[test]
    fn server_patch_replaces_and_removes_keys() {
        let document = json!({"name": "a", "title": "A", "instructions": "old"});
        let patch = json!({"name": "b", "instructions": null, "websiteUrl": "https://x"});
        let (merged, from) = patch_server(document.as_object(), patch.as_object().unwrap());
        assert_eq!(
            Value::Object(merged),
            json!({"name": "b", "title": "A", "websiteUrl": "https://x"})
        );
        assert_eq!(from, ["name", "websiteUrl"]);
    }
}
