//! Schema registration: every schema a `$ref` reaches becomes an entry of `schemas`, and the
//! `$ref`s inside schemas are rewritten to those entries' keys.

use serde_json::Value;

use super::{ptr_child, Loader};
use crate::diagnostics::Location;
use crate::openrpc::json_pos::unescape_token;
use crate::openrpc::mcp::type_name;
use crate::openrpc::model::NamedSchema;
use crate::schema_walk;

/// How many `$ref` targets are processed inside one another before the next waits its turn.
const MAX_NESTED_REFS: usize = 8;

impl Loader {
    /// Resolves a schema `$ref`, registers the target in `schemas`, returns its key.
    ///
    /// The target is processed right away (so schemas are registered in the order a reader
    /// meets them) while fewer than [`MAX_NESTED_REFS`] targets are being processed; deeper
    /// ones wait in `deferred`, so a chain of ten thousand `$ref`s does not recurse ten
    /// thousand times.
    fn schema_ref(&mut self, from: usize, reference: &str, site: &Location) -> Option<String> {
        let (file, pointer) = self.resolve(from, reference, site)?;
        let key = self.register_schema(file, &pointer);
        if self.ref_depth < MAX_NESTED_REFS {
            self.ref_depth += 1;
            self.process_schema(&key, file, &pointer);
            self.ref_depth -= 1;
        } else if !self.processed.contains(&key) {
            self.deferred.push((key.clone(), file, pointer));
        }
        Some(key)
    }

    /// Processes the schemas [`Loader::schema_ref`] deferred, and those they defer in turn.
    pub(super) fn process_deferred(&mut self) {
        while let Some((key, file, pointer)) = self.deferred.pop() {
            self.process_schema(&key, file, &pointer);
        }
    }

    pub(super) fn register_schema(&mut self, file: usize, pointer: &str) -> String {
        let key = self.key_for(file, pointer);
        if !self.schemas.contains_key(&key) {
            let name = self.suggested_name(file, pointer);
            let location = self.locate(file, pointer);
            self.schemas.insert(
                key.clone(),
                NamedSchema {
                    name,
                    schema: Value::Null,
                    location,
                },
            );
        }
        key
    }

    /// The name of the value at `pointer` in `file`: its pointer's last segment, or the file's
    /// stem for a whole file.
    pub(super) fn suggested_name(&self, file: usize, pointer: &str) -> String {
        match pointer.rsplit_once('/') {
            Some((_, last)) => unescape_token(last),
            None => self.files[file]
                .path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default(),
        }
    }

    pub(super) fn process_schema(&mut self, key: &str, file: usize, pointer: &str) {
        if !self.processed.insert(key.to_string()) {
            return;
        }
        let mut value = self.files[file]
            .value
            .pointer(pointer)
            .cloned()
            .unwrap_or(Value::Null);
        self.canon_schema(file, pointer, &mut value);
        if let Some(named) = self.schemas.get_mut(key) {
            named.schema = value;
        }
    }

    /// Walks a schema, resolving and rewriting every `$ref` to a key of `schemas`.
    pub(super) fn canon_schema(&mut self, file: usize, pointer: &str, value: &mut Value) {
        let map = match value {
            Value::Bool(_) => return,
            Value::Object(map) => map,
            other => {
                let message = format!(
                    "a schema must be an object or a boolean, found {}",
                    type_name(other)
                );
                self.shape(file, pointer, message);
                return;
            }
        };
        match map.get("$ref") {
            Some(Value::String(reference)) => {
                let reference = reference.clone();
                let site = self.locate(file, &ptr_child(pointer, "$ref"));
                if let Some(key) = self.schema_ref(file, &reference, &site) {
                    map.insert("$ref".to_string(), Value::String(key));
                }
            }
            Some(other) => {
                let message = format!("`$ref` must be a string, found {}", type_name(other));
                self.shape(file, &ptr_child(pointer, "$ref"), message);
            }
            None => {}
        }
        for (keyword, child) in map.iter_mut() {
            let child_ptr = ptr_child(pointer, keyword);
            for (member, schema) in schema_walk::subschemas_mut(keyword, child) {
                self.canon_schema(file, &member.pointer(&child_ptr), schema);
            }
        }
    }
}
