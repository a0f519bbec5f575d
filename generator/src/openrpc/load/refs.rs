//! `$ref` resolution: a reference to a file and a JSON pointer that exists, and following
//! chains of references with cycle detection.

use std::collections::HashSet;
use std::path::Path;

use serde_json::Value;

use super::files::{check_relative, confined, outside, Unreadable};
use super::paths::{normalize, percent_decode, relative};
use super::{ptr_child, Loader, RULE_REF};
use crate::diagnostics::Location;
use crate::openrpc::mcp::type_name;

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
            match self.ref_file(from, file_part, &decoded) {
                Ok(id) => id,
                Err(Unreadable { rule, why }) => return fail_with(self, rule, why),
            }
        };
        if self.files[file].value.pointer(&fragment).is_none() {
            let whole = if file_part.is_empty() {
                "this document"
            } else {
                file_part
            };
            return fail(self, format!("{whole} has no value at `{fragment}`"));
        }
        Some((file, fragment))
    }

    /// The file a `$ref` in `from` names by `file_part` (`decoded`: percent-decoded), read once:
    /// a relative reference, inside the root directory, a regular file of bounded size.
    fn ref_file(
        &mut self,
        from: usize,
        file_part: &str,
        decoded: &str,
    ) -> Result<usize, Unreadable> {
        check_relative(file_part, decoded)?;
        let dir = self.files[from]
            .path
            .parent()
            .unwrap_or(Path::new(""))
            .to_path_buf();
        let display = normalize(&dir.join(decoded));
        // Lexically first, so whether a file outside exists is never told.
        if relative(&display, &self.main_dir).starts_with("..") {
            return Err(outside(&display, &self.main_dir));
        }
        let key = confined(&display, &self.root_dir)?;
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
