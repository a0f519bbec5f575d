//! Audit records written to a file of their own (`--audit-file`), one JSON object a line,
//! instead of the log: their own retention and permissions, and a few hundred instructions a
//! record where the log's formatter takes thousands.
//!
//! Each record is one `write(2)` to a file opened for appending: nothing waits in the
//! process's memory, so a killed process loses no record of a call it answered, and lines
//! written by concurrent calls never interleave (one append is one write). Rotate the file
//! with a copy-and-truncate rotation (`logrotate`'s `copytruncate`), or by renaming it and
//! restarting the server.

use std::fmt::Write as _;
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
    pub(super) fn append(&self, line: &str) {
        if let Err(error) = (&*self.file).write_all(line.as_bytes()) {
            tracing::error!(path = %self.path.display(), %error, "cannot write an audit record");
        }
    }
}

/// One record as a line of JSON, the fields of the log's record under the same names; absent
/// values are left out.
pub(super) struct Line(String);

impl Line {
    pub fn new(time_unix_ms: u64) -> Self {
        let mut line = String::with_capacity(256);
        let _ = write!(line, "{{\"time_unix_ms\":{time_unix_ms}");
        Line(line)
    }

    /// `"name":"value"`, the value escaped as a JSON string.
    pub fn text(mut self, name: &str, value: Option<&str>) -> Self {
        if let Some(value) = value {
            let _ = write!(self.0, ",\"{name}\":");
            // A `String` takes any JSON serde_json writes.
            let mut bytes = std::mem::take(&mut self.0).into_bytes();
            let _ = serde_json::to_writer(&mut bytes, value);
            self.0 = String::from_utf8(bytes).unwrap_or_default();
        }
        self
    }

    /// `"name":number`.
    pub fn number(mut self, name: &str, value: Option<impl std::fmt::Display>) -> Self {
        if let Some(value) = value {
            let _ = write!(self.0, ",\"{name}\":{value}");
        }
        self
    }

    /// The line, closed.
    pub fn finish(mut self) -> String {
        self.0.push_str("}\n");
        self.0
    }
}
