//! Source positions of JSON values: a small scanner that records, for every value of a JSON text,
//! its RFC 6901 pointer and the 1-based line and column (in characters) of its first character.
//!
//! The scanner runs on text that `serde_json` has already accepted, but it never panics on any
//! input: on malformed text it simply stops recording.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use indexmap::IndexMap;

use crate::diagnostics::Location;

/// A 1-based line and column (in characters).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Position {
    /// 1-based line.
    pub line: usize,
    /// 1-based column, counted in characters.
    pub column: usize,
}

/// The positions of every value of one JSON text, keyed by RFC 6901 pointer (`""` is the root).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FilePositions {
    positions: HashMap<String, Position>,
}

impl FilePositions {
    /// Scans `text` and records the position of every value.
    pub fn index(text: &str) -> Self {
        let mut scanner = Scanner {
            bytes: text.as_bytes(),
            at: 0,
            line: 1,
            column: 1,
        };
        let mut positions = HashMap::new();
        let mut pointer = String::new();
        scanner.skip_ws();
        scanner.value(&mut pointer, &mut positions, 0);
        Self { positions }
    }

    /// The position of the value at `pointer`, if there is one.
    pub fn get(&self, pointer: &str) -> Option<Position> {
        self.positions.get(pointer).copied()
    }

    /// How many values were recorded.
    pub fn len(&self) -> usize {
        self.positions.len()
    }

    /// True when no value was recorded.
    pub fn is_empty(&self) -> bool {
        self.positions.is_empty()
    }
}

/// The positions of every file read while loading a document.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SourceMap {
    files: IndexMap<PathBuf, FilePositions>,
    /// Values of one file that another file wrote (an overlay's `actions`), newest last.
    grafts: Vec<Graft>,
}

/// A value at `pointer` in `file` that `from` wrote, at `from_pointer`: a location at or under
/// `pointer` is `from`'s.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Graft {
    file: PathBuf,
    pointer: String,
    from: PathBuf,
    from_pointer: String,
}

impl SourceMap {
    /// Records the positions of `file`.
    pub fn insert(&mut self, file: PathBuf, positions: FilePositions) {
        self.files.insert(file, positions);
    }

    /// The positions of `file`, if it was read.
    pub fn file(&self, file: &Path) -> Option<&FilePositions> {
        self.files.get(file)
    }

    /// Says that the value at `pointer` in `file` was written by `from` (an overlay's action),
    /// at `from_pointer`: a location at or under `pointer` is then `from`'s.
    pub fn graft(&mut self, file: &Path, pointer: &str, from: &Path, from_pointer: &str) {
        self.grafts.push(Graft {
            file: file.to_path_buf(),
            pointer: pointer.to_string(),
            from: from.to_path_buf(),
            from_pointer: from_pointer.to_string(),
        });
    }

    /// The file and pointer a value at `pointer` in `file` was written at, when a graft wrote it.
    fn grafted(&self, file: &Path, pointer: &str) -> Option<(&Path, String)> {
        self.grafts.iter().rev().find_map(|graft| {
            let rest = pointer.strip_prefix(graft.pointer.as_str())?;
            (graft.file == file && (rest.is_empty() || rest.starts_with('/'))).then(|| {
                (
                    graft.from.as_path(),
                    format!("{}{rest}", graft.from_pointer),
                )
            })
        })
    }

    /// True when `pointer` names a value in `file`.
    pub fn contains(&self, file: &Path, pointer: &str) -> bool {
        match self.grafted(file, pointer) {
            Some((from, pointer)) => self.position(from, &pointer).is_some(),
            None => self.position(file, pointer).is_some(),
        }
    }

    /// The position of the value at `pointer` in `file`, if known.
    pub fn position(&self, file: &Path, pointer: &str) -> Option<Position> {
        self.files.get(file).and_then(|f| f.get(pointer))
    }

    /// The location of the value at `pointer` in `file`. When the pointer names no value (it was
    /// built for a value that does not exist), the position of its nearest existing ancestor is
    /// used, and `1:1` when nothing is known; the pointer is kept as given.
    pub fn locate(&self, file: &Path, pointer: &str) -> Location {
        if let Some((from, pointer)) = self.grafted(file, pointer) {
            return self.locate_in(from, &pointer);
        }
        self.locate_in(file, pointer)
    }

    /// [`SourceMap::locate`] in `file` itself.
    fn locate_in(&self, file: &Path, pointer: &str) -> Location {
        let mut probe = pointer;
        let pos = loop {
            if let Some(p) = self.position(file, probe) {
                break p;
            }
            match probe.rfind('/') {
                Some(i) => probe = &probe[..i],
                None => break Position { line: 1, column: 1 },
            }
        };
        Location {
            file: file.to_path_buf(),
            line: pos.line,
            column: pos.column,
            pointer: pointer.to_string(),
        }
    }

    /// The location of `child` (an unescaped key or index) under `parent` when that value exists,
    /// else `parent` itself.
    pub fn child_or_self(&self, parent: &Location, child: &str) -> Location {
        let pointer = format!("{}/{}", parent.pointer, escape_token(child));
        if self.contains(&parent.file, &pointer) {
            self.locate(&parent.file, &pointer)
        } else {
            parent.clone()
        }
    }
}

/// Escapes one reference token for a JSON pointer (`~` becomes `~0`, `/` becomes `~1`).
pub fn escape_token(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// Unescapes one JSON pointer reference token (`~1` becomes `/`, `~0` becomes `~`).
pub fn unescape_token(token: &str) -> String {
    token.replace("~1", "/").replace("~0", "~")
}

/// Deepest nesting recorded; `serde_json` rejects deeper texts anyway.
const MAX_DEPTH: usize = 256;

struct Scanner<'a> {
    bytes: &'a [u8],
    at: usize,
    line: usize,
    column: usize,
}

impl Scanner<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    /// Advances one byte, keeping line and column (columns count characters, so UTF-8
    /// continuation bytes do not advance the column).
    fn bump(&mut self) {
        if let Some(b) = self.peek() {
            self.at += 1;
            if b == b'\n' {
                self.line += 1;
                self.column = 1;
            } else if b & 0xC0 != 0x80 {
                self.column += 1;
            }
        }
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.bump();
        }
    }

    /// Records the value starting here at `pointer`, then skips over it. Returns false when the
    /// text is malformed (scanning stops).
    fn value(
        &mut self,
        pointer: &mut String,
        out: &mut HashMap<String, Position>,
        depth: usize,
    ) -> bool {
        if depth > MAX_DEPTH {
            return false;
        }
        out.insert(
            pointer.clone(),
            Position {
                line: self.line,
                column: self.column,
            },
        );
        match self.peek() {
            Some(b'{') => self.object(pointer, out, depth),
            Some(b'[') => self.array(pointer, out, depth),
            Some(b'"') => self.string().is_some(),
            Some(_) => {
                // number, true, false, null: up to the next delimiter
                let start = self.at;
                while let Some(b) = self.peek() {
                    if matches!(b, b',' | b']' | b'}' | b' ' | b'\t' | b'\n' | b'\r') {
                        break;
                    }
                    self.bump();
                }
                self.at > start
            }
            None => false,
        }
    }

    fn object(
        &mut self,
        pointer: &mut String,
        out: &mut HashMap<String, Position>,
        depth: usize,
    ) -> bool {
        self.bump(); // {
        self.skip_ws();
        if self.peek() == Some(b'}') {
            self.bump();
            return true;
        }
        loop {
            self.skip_ws();
            let Some(key) = self.string() else {
                return false;
            };
            self.skip_ws();
            if self.peek() != Some(b':') {
                return false;
            }
            self.bump();
            self.skip_ws();
            let len = pointer.len();
            pointer.push('/');
            pointer.push_str(&escape_token(&key));
            let ok = self.value(pointer, out, depth + 1);
            pointer.truncate(len);
            if !ok {
                return false;
            }
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.bump(),
                Some(b'}') => {
                    self.bump();
                    return true;
                }
                _ => return false,
            }
        }
    }

    fn array(
        &mut self,
        pointer: &mut String,
        out: &mut HashMap<String, Position>,
        depth: usize,
    ) -> bool {
        self.bump(); // [
        self.skip_ws();
        if self.peek() == Some(b']') {
            self.bump();
            return true;
        }
        let mut index = 0usize;
        loop {
            self.skip_ws();
            let len = pointer.len();
            pointer.push('/');
            pointer.push_str(&index.to_string());
            let ok = self.value(pointer, out, depth + 1);
            pointer.truncate(len);
            if !ok {
                return false;
            }
            index += 1;
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.bump(),
                Some(b']') => {
                    self.bump();
                    return true;
                }
                _ => return false,
            }
        }
    }

    /// Skips a string and returns its decoded contents.
    fn string(&mut self) -> Option<String> {
        if self.peek() != Some(b'"') {
            return None;
        }
        let start = self.at;
        self.bump();
        loop {
            match self.peek()? {
                b'"' => {
                    self.bump();
                    break;
                }
                b'\\' => {
                    self.bump();
                    self.peek()?;
                    self.bump();
                }
                _ => self.bump(),
            }
        }
        let raw = std::str::from_utf8(&self.bytes[start..self.at]).ok()?;
        serde_json::from_str::<String>(raw).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(p: &FilePositions, pointer: &str) -> (usize, usize) {
        let p = p
            .get(pointer)
            .unwrap_or_else(|| panic!("no position for {pointer:?}"));
        (p.line, p.column)
    }

    #[test]
    fn nested_objects_and_arrays() {
        let text =
            "{\n  \"a\": {\"b\": [1, {\"c\": true}]},\n  \"d\": [\n    null,\n    \"x\"\n  ]\n}";
        let p = FilePositions::index(text);
        assert_eq!(pos(&p, ""), (1, 1));
        assert_eq!(pos(&p, "/a"), (2, 8));
        assert_eq!(pos(&p, "/a/b"), (2, 14));
        assert_eq!(pos(&p, "/a/b/0"), (2, 15));
        assert_eq!(pos(&p, "/a/b/1"), (2, 18));
        assert_eq!(pos(&p, "/a/b/1/c"), (2, 24));
        assert_eq!(pos(&p, "/d"), (3, 8));
        assert_eq!(pos(&p, "/d/0"), (4, 5));
        assert_eq!(pos(&p, "/d/1"), (5, 5));
        assert_eq!(p.len(), 9);
        assert!(p.get("/d/2").is_none());
    }

    #[test]
    fn keys_with_escapes_and_pointer_special_chars() {
        let text = r#"{"a/b": 1, "m~n": 2, "q\"u\\o": 3, "\u0041\n": [4]}"#;
        let p = FilePositions::index(text);
        assert_eq!(pos(&p, "/a~1b"), (1, 9));
        assert_eq!(pos(&p, "/m~0n"), (1, 19));
        assert_eq!(pos(&p, "/q\"u\\o"), (1, 33));
        assert_eq!(pos(&p, "/A\n"), (1, 48));
        assert_eq!(pos(&p, "/A\n/0"), (1, 49));
    }

    #[test]
    fn unicode_counts_characters_not_bytes() {
        let text = "{\"é世\": \"😀\", \"k\": 1}";
        let p = FilePositions::index(text);
        assert_eq!(pos(&p, "/é世"), (1, 8));
        assert_eq!(pos(&p, "/k"), (1, 18));
    }

    #[test]
    fn crlf_and_tabs() {
        let text = "{\r\n\t\"a\":\t[\r\n\t\t2]\r\n}";
        let p = FilePositions::index(text);
        assert_eq!(pos(&p, "/a"), (2, 7));
        assert_eq!(pos(&p, "/a/0"), (3, 3));
    }

    #[test]
    fn scalar_root_and_empty_containers() {
        let p = FilePositions::index("  \n 42 ");
        assert_eq!(pos(&p, ""), (2, 2));
        let p = FilePositions::index("{\"a\": {}, \"b\": []}");
        assert_eq!(pos(&p, "/b"), (1, 16));
        assert_eq!(p.len(), 3);
    }

    #[test]
    fn malformed_text_never_panics() {
        for text in [
            "",
            "{",
            "{\"a\"",
            "{\"a\":",
            "[1,",
            "\"abc",
            "{\"a\":1,}",
            "}",
            "[\"\\",
        ] {
            let _ = FilePositions::index(text);
        }
    }

    #[test]
    fn locate_falls_back_to_ancestor() {
        let mut map = SourceMap::default();
        map.insert(
            PathBuf::from("f.json"),
            FilePositions::index("{\n \"a\": {\"b\": 1}}"),
        );
        let loc = map.locate(Path::new("f.json"), "/a/zz");
        assert_eq!(
            (loc.line, loc.column, loc.pointer.as_str()),
            (2, 7, "/a/zz")
        );
        let loc = map.child_or_self(&map.locate(Path::new("f.json"), "/a"), "b");
        assert_eq!(
            (loc.line, loc.column, loc.pointer.as_str()),
            (2, 13, "/a/b")
        );
        let loc = map.child_or_self(&map.locate(Path::new("f.json"), "/a"), "c");
        assert_eq!(loc.pointer, "/a");
    }
}
