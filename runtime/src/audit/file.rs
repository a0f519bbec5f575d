//! Audit records written to a file of their own (`--audit-file`), one JSON object a line,
//! instead of the log: their own retention and permissions, and a few hundred instructions a
//! record where the log's formatter takes thousands.
//!
//! Each record is one `write(2)` to a file opened for appending: nothing waits in the
//! process's memory, so a killed process loses no record of a call it answered, and lines
//! written by concurrent calls never interleave (one append is one write). Rotate the file
//! with a copy-and-truncate rotation (`logrotate`'s `copytruncate`), or by renaming it and
//! restarting the server.

use std::fs::{File, OpenOptions};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// An audit file, open for appending; clones share it.
#[derive(Clone)]
pub struct AuditFile {
    path: Arc<Path>,
    file: Arc<File>,
}

impl std::fmt::Debug for AuditFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("AuditFile").field(&self.path).finish()
    }
}

impl PartialEq for AuditFile {
    fn eq(&self, other: &Self) -> bool {
        self.path == other.path
    }
}

impl Eq for AuditFile {}

impl AuditFile {
    /// Opens `path` for appending, creating it (mode `0600` on Unix: records name callers)
    /// when it does not exist. The error keeps the system's kind and names the path.
    pub fn open(path: impl Into<PathBuf>) -> std::io::Result<Self> {
        let path: PathBuf = path.into();
        let mut options = OpenOptions::new();
        options.append(true).create(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let file = options.open(&path).map_err(|error| {
            let message = format!("cannot open the audit file {}: {error}", path.display());
            std::io::Error::new(error.kind(), message)
        })?;
        Ok(Self {
            path: path.into(),
            file: Arc::new(file),
        })
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends `line` (a whole line, newline included) in one write. A failure (a full disk)
    /// goes to the log: the call it records has already been answered.
    pub(super) fn append(&self, line: &[u8]) {
        if let Err(error) = (&*self.file).write_all(line) {
            tracing::error!(path = %self.path.display(), %error, "cannot write an audit record");
        }
    }
}

/// One record as a line of JSON, the fields of the log's record under the same names; absent
/// values are left out. Bytes pushed as they are (no formatting machinery): a record is
/// written on every call.
pub(super) struct Line(Vec<u8>);

impl Line {
    pub fn new(time_unix_ms: u64) -> Self {
        let mut line = Vec::with_capacity(256);
        line.extend_from_slice(b"{\"time_unix_ms\":");
        push_decimal(&mut line, time_unix_ms);
        Line(line)
    }

    /// `,"name":` (names are the record's own, plain ASCII).
    fn name(&mut self, name: &str) {
        self.0.extend_from_slice(b",\"");
        self.0.extend_from_slice(name.as_bytes());
        self.0.extend_from_slice(b"\":");
    }

    /// `"name":"value"`, the value escaped as a JSON string.
    pub fn text(mut self, name: &str, value: Option<&str>) -> Self {
        if let Some(value) = value {
            self.name(name);
            // Writing to a `Vec` cannot fail.
            let _ = serde_json::to_writer(&mut self.0, value);
        }
        self
    }

    /// `"name":number`.
    pub fn number(mut self, name: &str, value: Option<u64>) -> Self {
        if let Some(value) = value {
            self.name(name);
            push_decimal(&mut self.0, value);
        }
        self
    }

    /// `"name":number`, for a signed one (an error code).
    pub fn signed(mut self, name: &str, value: Option<i32>) -> Self {
        if let Some(value) = value {
            self.name(name);
            if value < 0 {
                self.0.push(b'-');
            }
            push_decimal(&mut self.0, u64::from(value.unsigned_abs()));
        }
        self
    }

    /// The line, closed.
    pub fn finish(mut self) -> Vec<u8> {
        self.0.extend_from_slice(b"}\n");
        self.0
    }
}

/// `value` in decimal.
fn push_decimal(out: &mut Vec<u8>, mut value: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (value % 10) as u8;
        value /= 10;
        if value == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[at..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_is_one_json_object_with_escaped_text() {
        let line = Line::new(1_764_936_000_123)
            .text("principal", Some("a \"b\"\n\u{2028}"))
            .text("client", None)
            .signed("error_code", Some(-32023))
            .number("duration_us", Some(0))
            .finish();
        assert_eq!(line.last(), Some(&b'\n'));
        assert_eq!(line.iter().filter(|b| **b == b'\n').count(), 1);
        let value: serde_json::Value = serde_json::from_slice(&line).unwrap();
        assert_eq!(
            value,
            serde_json::json!({"time_unix_ms": 1_764_936_000_123_u64,
                "principal": "a \"b\"\n\u{2028}", "error_code": -32023, "duration_us": 0})
        );
    }
}
