//! `$ref` resolution: a reference to a file and a JSON pointer that exists, and following
//! chains of references with cycle detection.

use std::path::Path;

use serde_json::Value;

use super::paths::{normalize, percent_decode};
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
        let fail = |this: &mut Self, why: String| {
            this.error(
                RULE_REF,
                site.clone(),
                format!("cannot resolve `$ref` {reference:?}: {why}"),
            );
            None
        };
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
        } else if file_part.contains("://") || file_part.starts_with("urn:") {
            return fail(self, "remote references are not supported".to_string());
        } else {
            let Some(decoded) = percent_decode(file_part) else {
                return fail(self, "the path has invalid percent-encoding".to_string());
            };
            let dir = self.files[from]
                .path
                .parent()
                .unwrap_or(Path::new(""))
                .to_path_buf();
            let display = normalize(&dir.join(&decoded));
            match self.read(display.clone(), display) {
                Ok(id) => id,
                Err(why) => return fail(self, why),
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

    /// Follows `$ref` objects from the value at `pointer` in `file` to a value that is not a
    /// reference, detecting cycles. Returns where that value is and a copy of it.
    pub(super) fn follow(
        &mut self,
        file: usize,
        pointer: &str,
        what: &str,
    ) -> Option<(usize, String, Value)> {
        let mut chain: Vec<String> = Vec::new();
        let (mut file, mut pointer) = (file, pointer.to_string());
        loop {
            let value = self.files[file].value.pointer(&pointer)?.clone();
            let reference = match value.as_object().and_then(|m| m.get("$ref")) {
                None => return Some((file, pointer, value)),
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
            if chain.contains(&key) {
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
