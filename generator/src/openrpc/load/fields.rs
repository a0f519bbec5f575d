//! Typed readers of an object's fields that report a wrong shape as a diagnostic.

use serde_json::{Map, Value};

use super::{ptr_child, Loader};
use crate::openrpc::mcp::type_name;

impl Loader {
    pub(super) fn opt_string(
        &mut self,
        file: usize,
        ptr: &str,
        map: &Map<String, Value>,
        key: &str,
    ) -> Option<String> {
        match map.get(key) {
            None => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(other) => {
                let message = format!("`{key}` must be a string, found {}", type_name(other));
                self.shape(file, &ptr_child(ptr, key), message);
                None
            }
        }
    }

    pub(super) fn req_string(
        &mut self,
        file: usize,
        ptr: &str,
        map: &Map<String, Value>,
        key: &str,
        what: &str,
    ) -> Option<String> {
        if !map.contains_key(key) {
            self.shape(
                file,
                ptr,
                format!("{what} is missing the required string `{key}`"),
            );
            return None;
        }
        self.opt_string(file, ptr, map, key)
    }

    pub(super) fn opt_bool(
        &mut self,
        file: usize,
        ptr: &str,
        map: &Map<String, Value>,
        key: &str,
    ) -> bool {
        match map.get(key) {
            None => false,
            Some(Value::Bool(b)) => *b,
            Some(other) => {
                let message = format!("`{key}` must be a boolean, found {}", type_name(other));
                self.shape(file, &ptr_child(ptr, key), message);
                false
            }
        }
    }

    /// Checks that `map[key]`, when present, is an array; returns its length.
    pub(super) fn opt_array_len(
        &mut self,
        file: usize,
        ptr: &str,
        map: &Map<String, Value>,
        key: &str,
    ) -> usize {
        match map.get(key) {
            None => 0,
            Some(Value::Array(items)) => items.len(),
            Some(other) => {
                let message = format!("`{key}` must be an array, found {}", type_name(other));
                self.shape(file, &ptr_child(ptr, key), message);
                0
            }
        }
    }
}
