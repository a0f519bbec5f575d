//! Which files a document may read, and reading one: a `$ref` names a file by a relative
//! reference that resolves (symbolic links followed) inside the root document's directory, and
//! every file read is a regular file of at most [`MAX_FILE_BYTES`].
//!
//! A document nobody reviewed must not make the generator read `/etc/shadow`, a device that
//! never ends, a FIFO that blocks forever, or fetch anything from the network.

use std::io::Read;
use std::path::{Path, PathBuf};

use super::{RULE_FILE_SIZE, RULE_REF, RULE_REF_CONFINED, RULE_REF_RELATIVE, RULE_REGULAR_FILE};

/// The largest file (the root document or one a `$ref` names) the generator reads.
pub const MAX_FILE_BYTES: u64 = 16 << 20;

/// Why a file cannot be read: the rule broken and what happened, in words.
#[derive(Debug, Clone)]
pub(super) struct Unreadable {
    pub rule: &'static str,
    pub why: String,
    /// The file does not exist (so another directory may be tried).
    pub missing: bool,
}

impl Unreadable {
    fn new(rule: &'static str, why: impl Into<String>) -> Self {
        Self {
            rule,
            why: why.into(),
            missing: false,
        }
    }

    fn not_found() -> Self {
        Self {
            missing: true,
            ..Self::new(RULE_REF, "file not found")
        }
    }

    /// The same, with `hint` appended to the reason.
    pub fn hinted(mut self, hint: impl AsRef<str>) -> Self {
        self.why.push_str(hint.as_ref());
        self
    }
}

/// How many directories above the referring file's are looked in for a hint.
const MAX_HINT_ANCESTORS: usize = 32;

/// The nearest directory above `dir` (not `dir` itself) under which `decoded` names a regular
/// file, for the hint of a `$ref` whose path was written from another directory (a
/// repository's root). `.` stands for the current directory of a relative `dir`.
pub(super) fn ancestor_with(dir: &Path, decoded: &str) -> Option<PathBuf> {
    dir.ancestors()
        .skip(1)
        .take(MAX_HINT_ANCESTORS)
        .find(|ancestor| ancestor.join(decoded).is_file())
        .map(|ancestor| {
            if ancestor.as_os_str().is_empty() {
                PathBuf::from(".")
            } else {
                ancestor.to_path_buf()
            }
        })
}

/// Refuses a `$ref`'s file part (already percent-decoded: `decoded`) that is not a relative
/// reference: a URI with a scheme (`http:`, `file:`, `urn:`, a drive letter), a network path
/// (`//host`), an absolute path.
pub(super) fn check_relative(file_part: &str, decoded: &str) -> Result<(), Unreadable> {
    let scheme_len = file_part
        .find(':')
        .filter(|&i| {
            let scheme = &file_part[..i];
            scheme.starts_with(|c: char| c.is_ascii_alphabetic())
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
        })
        .map(|i| i + 1);
    if let Some(len) = scheme_len {
        let scheme = &file_part[..len];
        return Err(Unreadable::new(
            RULE_REF_RELATIVE,
            format!(
                "`{scheme}` references are not read: only paths relative to the referring file are"
            ),
        ));
    }
    let path = Path::new(decoded);
    if decoded.starts_with(['/', '\\']) || path.is_absolute() || path.has_root() {
        return Err(Unreadable::new(
            RULE_REF_RELATIVE,
            "absolute paths are not read: only paths relative to the referring file are",
        ));
    }
    // A `build.rs` prints every file read as a `cargo:rerun-if-changed=` line: a line break in
    // a path would start a directive of the document's choosing.
    if decoded.chars().any(char::is_control) {
        return Err(Unreadable::new(
            RULE_REF,
            "the path holds a control character (a line break, NUL...)",
        ));
    }
    Ok(())
}

/// The canonical path of `path` (symbolic links resolved), which must lie inside `root`.
pub(super) fn confined(path: &Path, root: &Path) -> Result<PathBuf, Unreadable> {
    let canonical = canonical(path)?;
    if !canonical.starts_with(root) {
        return Err(Unreadable::new(
            RULE_REF_CONFINED,
            format!(
                "it resolves to {:?} (symbolic links followed), outside {:?}, the directory of the root document",
                canonical.display().to_string(),
                root.display().to_string()
            ),
        ));
    }
    Ok(canonical)
}

/// [`RULE_REF_CONFINED`] for `path`, which lies outside `root`, the root document's directory.
pub(super) fn outside(path: &Path, root: &Path) -> Unreadable {
    Unreadable::new(
        RULE_REF_CONFINED,
        format!(
            "{:?} is outside {:?}, the directory of the root document",
            path.display().to_string(),
            root.display().to_string()
        ),
    )
}

/// `path` with symbolic links resolved; a missing file is [`RULE_REF`]'s "file not found".
pub(super) fn canonical(path: &Path) -> Result<PathBuf, Unreadable> {
    path.canonicalize().map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => Unreadable::not_found(),
        _ => Unreadable::new(RULE_REF, format!("cannot read file: {e}")),
    })
}

/// The bytes of the regular file at `path`, refused when it is something else (checked before
/// opening: opening a FIFO blocks) or larger than [`MAX_FILE_BYTES`] (checked while reading too:
/// a file can grow).
pub(super) fn read_bounded(path: &Path) -> Result<Vec<u8>, Unreadable> {
    let io = |e: std::io::Error| match e.kind() {
        std::io::ErrorKind::NotFound => Unreadable::not_found(),
        _ => Unreadable::new(RULE_REF, format!("cannot read file: {e}")),
    };
    let metadata = std::fs::metadata(path).map_err(io)?;
    check_metadata(&metadata)?;
    let file = std::fs::File::open(path).map_err(io)?;
    check_metadata(&file.metadata().map_err(io)?)?;
    let mut bytes = Vec::new();
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(too_large());
    }
    Ok(bytes)
}

fn check_metadata(metadata: &std::fs::Metadata) -> Result<(), Unreadable> {
    if !metadata.is_file() {
        let kind = if metadata.is_dir() {
            "a directory"
        } else {
            "not a regular file (a FIFO, socket or device)"
        };
        return Err(Unreadable::new(
            RULE_REGULAR_FILE,
            format!("it is {kind}; only regular files are read"),
        ));
    }
    if metadata.len() > MAX_FILE_BYTES {
        return Err(too_large());
    }
    Ok(())
}

fn too_large() -> Unreadable {
    Unreadable::new(
        RULE_FILE_SIZE,
        format!("the file is larger than {MAX_FILE_BYTES} bytes, the most that is read"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_relative_references() {
        for (part, decoded) in [
            ("http://example.com/x.json", "http://example.com/x.json"),
            ("file:///etc/passwd", "file:///etc/passwd"),
            ("urn:x", "urn:x"),
            ("C:x.json", "C:x.json"),
            ("/etc/passwd", "/etc/passwd"),
            ("%2Fetc%2Fpasswd", "/etc/passwd"),
            ("//host/share", "//host/share"),
        ] {
            let refused = check_relative(part, decoded).unwrap_err();
            assert_eq!(refused.rule, RULE_REF_RELATIVE, "{part}");
        }
        for ok in [
            "a.json",
            "sub/a.json",
            "../a.json",
            "./a:b.json",
            "1:x.json",
        ] {
            assert!(check_relative(ok, ok).is_ok(), "{ok}");
        }
    }
}
