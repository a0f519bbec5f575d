//! Reading each source file once (JSON syntax errors reported with positions), and the
//! canonical key of a value in a file.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::files::{read_bounded, Unreadable};
use super::paths::{normalize, relative};
use super::{Loader, SourceFile, RULE_JSON_SYNTAX, RULE_REF};
use crate::diagnostics::Location;
use crate::openrpc::json_pos::FilePositions;

impl Loader {
    /// Reads and parses a file once. `key` is its canonical path, `display` the path
    /// diagnostics show.
    pub(super) fn read(&mut self, key: PathBuf, display: PathBuf) -> Result<usize, Unreadable> {
        if let Some(known) = self.by_path.get(&key) {
            return known.clone();
        }
        let result = self.read_uncached(display);
        self.by_path.insert(key, result.clone());
        result
    }

    fn read_uncached(&mut self, path: PathBuf) -> Result<usize, Unreadable> {
        let start = |path: &Path, line, column| Location {
            file: path.to_path_buf(),
            line,
            column,
            pointer: String::new(),
        };
        let bytes = read_bounded(&path)?;
        let not_json = || Unreadable {
            rule: RULE_REF,
            why: "the file is not valid JSON".to_string(),
            missing: false,
        };
        let text = match String::from_utf8(bytes) {
            Ok(text) => text,
            Err(e) => {
                let at = e.utf8_error().valid_up_to();
                let loc = start(&path, 1, 1);
                self.error(
                    RULE_JSON_SYNTAX,
                    loc,
                    format!("the file is not UTF-8 (invalid byte at offset {at})"),
                );
                return Err(not_json());
            }
        };
        let value: Value = match serde_json::from_str(&text) {
            Ok(value) => value,
            Err(e) => {
                let full = e.to_string();
                let message = match full.rfind(" at line ") {
                    Some(i) => full[..i].to_string(),
                    None => full,
                };
                let loc = start(&path, e.line().max(1), e.column().max(1));
                self.error(RULE_JSON_SYNTAX, loc, format!("invalid JSON: {message}"));
                return Err(not_json());
            }
        };
        self.sources
            .insert(path.clone(), FilePositions::index(&text));
        self.files.push(SourceFile { path, value });
        Ok(self.files.len() - 1)
    }

    /// The canonical key of the value at `pointer` in `file`.
    pub(super) fn key_for(&self, file: usize, pointer: &str) -> String {
        if file == 0 {
            return format!("#{pointer}");
        }
        let rel = relative(&normalize(&self.files[file].path), &self.main_dir);
        if pointer.is_empty() {
            rel
        } else {
            format!("{rel}#{pointer}")
        }
    }
}
