//! `$ref` resolution: a reference to a file and a JSON pointer that exists, and following
//! chains of references with cycle detection.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::files::{ancestor_with, canonical, check_relative, confined, outside, Unreadable};
use super::paths::{normalize, percent_decode, relative};
use super::{ptr_child, Loader, RULE_REF, RULE_REF_BASE, RULE_REF_EMBEDDED};
use crate::diagnostics::{Diagnostic, Location};
use crate::openrpc::mcp::type_name;

/// The keywords whose value maps names to schemas.
const SCHEMA_MAPS: &[&str] = &[
    "properties",
    "patternProperties",
    "definitions",
    "$defs",
    "dependentSchemas",
];

impl Loader {
    /// Resolves `reference` found in `from` at `site` to a file and a JSON pointer that exists.
    pub(super) fn resolve(
        &mut self,
        from: usize,
        reference: &str,
        site: &Location,
    ) -> Option<(usize, String)> {
        let fail_with = |this: &mut Self, rule: &'static str, why: String| {
            this.error(
                rule,
                site.clone(),
                format!("cannot resolve `$ref` {reference:?}: {why}"),
            );
            None
        };
        let fail = |this: &mut Self, why: String| fail_with(this, RULE_REF, why);
        let (file_part, fragment) = reference.split_once('#').unwrap_or((reference, ""));
        let Some(fragment) = percent_decode(fragment) else {
            return fail(
                self,
                "the fragment has invalid percent-encoding".to_string(),
            );
        };
        if !fragment.is_empty() && !fragment.starts_with('/') {
            return fail(
                self,
                "only JSON pointer fragments (`#/...`) are supported, not anchors".to_string(),
            );
        }
        let file = if file_part.is_empty() {
            from
        } else {
            let Some(decoded) = percent_decode(file_part) else {
                return fail(self, "the path has invalid percent-encoding".to_string());
            };
            match self.ref_file(from, file_part, &decoded, site) {
                Ok(id) => id,
                Err(Unreadable { rule, why, .. }) => return fail_with(self, rule, why),
            }
        };
        if self.files[file].value.pointer(&fragment).is_none() {
            if let Some(embedded) = self.embedded_definition(file, &site.pointer, &fragment) {
                let schema = embedded
                    .strip_suffix(fragment.as_str())
                    .unwrap_or_default()
                    .to_string();
                self.diags.push(Diagnostic::warning(
                    RULE_REF_EMBEDDED,
                    site.clone(),
                    format!(
                        "`$ref` {reference:?} has no target at the root of the file; read as `#{embedded}`, in the `{}` of the schema at `{schema}` (a schema embedded with its own definitions, as schemars writes them)",
                        fragment.split('/').nth(1).unwrap_or_default(),
                    ),
                ));
                return Some((file, embedded));
            }
            let whole = if file_part.is_empty() {
                "this document"
            } else {
                file_part
            };
            let hint = self.nearest_target(file, file_part, &fragment);
            return fail(self, format!("{whole} has no value at `{fragment}`{hint}"));
        }
        Some((file, fragment))
    }

    /// ` (did you mean `#/components/schemas/Priority`?)` when the last step of `fragment`
    /// is a near miss of a name beside it in `file` (written `file_part` in the reference),
    /// else nothing.
    fn nearest_target(&self, file: usize, file_part: &str, fragment: &str) -> String {
        let Some((parent, last)) = fragment.rsplit_once('/') else {
            return String::new();
        };
        let Some(Value::Object(siblings)) = self.files[file].value.pointer(parent) else {
            return String::new();
        };
        let last = last.replace("~1", "/").replace("~0", "~");
        crate::diagnostics::did_you_mean(&last, siblings.keys().map(String::as_str))
            .map(|near| {
                let mut pointer = parent.to_string();
                pointer.push('/');
                pointer.push_str(&near.replace('~', "~0").replace('/', "~1"));
                format!(" (did you mean `{file_part}#{pointer}`?)")
            })
            .unwrap_or_default()
    }

    /// Where the value a same-file `#/definitions/X` (or `#/$defs/X`) names stands when the file
    /// has none at its root: under the nearest schema enclosing `site` (the pointer of the
    /// `$ref`) that has it. A schema generated on its own (schemars) and pasted into
    /// `components` keeps its `definitions` and refers to them from its own root.
    pub(super) fn embedded_definition(
        &self,
        file: usize,
        site: &str,
        fragment: &str,
    ) -> Option<String> {
        if !(fragment.starts_with("/definitions/") || fragment.starts_with("/$defs/")) {
            return None;
        }
        let root = &self.files[file].value;
        let mut ancestor = site;
        while let Some((parent, _)) = ancestor.rsplit_once('/') {
            ancestor = parent;
            if ancestor.is_empty() {
                break;
            }
            // A map of schemas (`properties`, `definitions`...) is not a schema: its keys name
            // properties, and one named `definitions` holds no definitions.
            let last = ancestor.rsplit('/').next().unwrap_or_default();
            if SCHEMA_MAPS.contains(&last) {
                continue;
            }
            let candidate = format!("{ancestor}{fragment}");
            if root.pointer(&candidate).is_some() {
                return Some(candidate);
            }
        }
        None
    }

    /// The file a `$ref` in `from` names by `file_part` (`decoded`: percent-decoded), read once:
    /// a relative reference, inside the root directory (or the `--ref-base` directory), a
    /// regular file of bounded size.
    ///
    /// A file missing beside the referring file is looked for under the `--ref-base`
    /// directory (a warning says so); without one, the error names the ancestor directory it
    /// would be found under, if any.
    fn ref_file(
        &mut self,
        from: usize,
        file_part: &str,
        decoded: &str,
        site: &Location,
    ) -> Result<usize, Unreadable> {
        check_relative(file_part, decoded)?;
        let dir = self.files[from]
            .path
            .parent()
            .unwrap_or(Path::new(""))
            .to_path_buf();
        let display = normalize(&dir.join(decoded));
        // The root document's directory confines, or the `--ref-base` directory when it
        // holds the file (a split document whose files refer to one another from there).
        let root = match &self.ref_base {
            Some(base) if !relative(&display, base).starts_with("..") => base.clone(),
            _ => self.main_dir.clone(),
        };
        let missing = match self.read_confined(display, &root) {
            Err(unreadable) if unreadable.missing => unreadable,
            other => return other,
        };
        if let Some(base) = self.ref_base.clone() {
            let display = normalize(&base.join(decoded));
            // Checked before reading: only a file that is there is worth a warning.
            if display.is_file() {
                let read = self.read_confined(display.clone(), &base);
                if read.is_ok() {
                    self.diags.push(Diagnostic::warning(
                        RULE_REF_BASE,
                        site.clone(),
                        format!(
                            "`$ref` file {file_part:?} is not beside the referring file; read as {:?}, relative to the --ref-base directory {:?}",
                            display.display().to_string(),
                            base.display().to_string()
                        ),
                    ));
                }
                return read;
            }
            return Err(missing);
        }
        Err(match ancestor_with(&dir, decoded) {
            Some(ancestor) => missing.hinted(format!(
                "; it is found relative to {:?} (a path written from the repository root?): run with --ref-base {:?}",
                ancestor.display().to_string(),
                ancestor.display().to_string()
            )),
            None => missing,
        })
    }

    /// Reads `display` when it lies inside `root` (lexically, then with symbolic links
    /// resolved): `root` is the root document's directory or the `--ref-base` directory.
    fn read_confined(&mut self, display: PathBuf, root: &Path) -> Result<usize, Unreadable> {
        // Lexically first, so whether a file outside exists is never told.
        if relative(&display, root).starts_with("..") {
            return Err(outside(&display, root));
        }
        let canonical_root = if root == self.main_dir.as_path() {
            self.root_dir.clone()
        } else {
            canonical(root)?
        };
        let key = confined(&display, &canonical_root)?;
        self.read(key, display)
    }

    /// Follows `$ref` objects from the value at `pointer` in `file` to a value that is not a
    /// reference, detecting cycles. Returns where that value is and a copy of it.
    pub(super) fn follow(
        &mut self,
        file: usize,
        pointer: &str,
        what: &str,
    ) -> Option<(usize, String, Value)> {
        let mut chain: Vec<String> = Vec::new();
        let mut seen: HashSet<String> = HashSet::new();
        let (mut file, mut pointer) = (file, pointer.to_string());
        loop {
            let value = self.files[file].value.pointer(&pointer)?;
            let reference = match value.as_object().and_then(|m| m.get("$ref")) {
                None => return Some((file, pointer, value.clone())),
                Some(Value::String(r)) => r.clone(),
                Some(other) => {
                    let message = format!("`$ref` must be a string, found {}", type_name(other));
                    self.shape(file, &ptr_child(&pointer, "$ref"), message);
                    return None;
                }
            };
            let site = self.locate(file, &ptr_child(&pointer, "$ref"));
            let (target, target_ptr) = self.resolve(file, &reference, &site)?;
            let key = self.key_for(target, &target_ptr);
            if !seen.insert(key.clone()) {
                // Only the cycle: the chain leading into it may be thousands of `$ref`s long.
                let start = chain.iter().position(|k| *k == key).unwrap_or(0);
                chain.drain(..start);
                chain.push(key);
                self.error(
                    RULE_REF,
                    site,
                    format!("{what} `$ref` cycle: {}", chain.join(" -> ")),
                );
                return None;
            }
            chain.push(key);
            file = target;
            pointer = target_ptr;
        }
    }
}
