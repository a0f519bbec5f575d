//! Path and URI helpers for `$ref`s: lexical normalization, relative keys, percent-decoding.

use std::path::{Component, Path, PathBuf};

/// Lexically normalizes a path: drops `.`, folds `name/..`.
pub(super) fn normalize(path: &Path) -> PathBuf {
    let mut out: Vec<Component<'_>> = Vec::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => match out.last() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                Some(Component::RootDir | Component::Prefix(_)) => {}
                _ => out.push(c),
            },
            _ => out.push(c),
        }
    }
    out.iter().collect()
}

/// `target` relative to `base` (both normalized), with `/` separators.
pub(super) fn relative(target: &Path, base: &Path) -> String {
    let t: Vec<_> = target.components().collect();
    let b: Vec<_> = base.components().collect();
    let common = t.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut parts: Vec<String> = vec!["..".to_string(); b.len() - common];
    parts.extend(
        t[common..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    parts.join("/")
}

/// Decodes `%XX` escapes of a URI fragment; `None` when malformed or not UTF-8.
pub(super) fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// A JSON pointer as a URI fragment: every byte but the unreserved characters, the
/// sub-delimiters, `:`, `@`, `/` and `?` percent-encoded (so [`percent_decode`] gives it back).
pub(super) fn fragment_encode(pointer: &str) -> String {
    let mut out = String::with_capacity(pointer.len());
    for byte in pointer.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:@/?".contains(&byte) {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths() {
        assert_eq!(
            normalize(Path::new("a/./b/../c.json")),
            PathBuf::from("a/c.json")
        );
        assert_eq!(normalize(Path::new("../x/../y")), PathBuf::from("../y"));
        assert_eq!(
            relative(Path::new("a/b/c.json"), Path::new("a")),
            "b/c.json"
        );
        assert_eq!(
            relative(Path::new("a/c.json"), Path::new("a/b")),
            "../c.json"
        );
        assert_eq!(relative(Path::new("c.json"), Path::new("")), "c.json");
    }

    #[test]
    fn percent() {
        assert_eq!(percent_decode("/a%20b/%7E0").as_deref(), Some("/a b/~0"));
        assert_eq!(percent_decode("%zz"), None);
        assert_eq!(percent_decode("%4"), None);
        assert_eq!(percent_decode("%C3%A9").as_deref(), Some("é"));
        for pointer in ["/definitions/Tag Name", "/a~1b/é/%/#/\"/x"] {
            let encoded = fragment_encode(pointer);
            assert!(!encoded.contains([' ', '#', '"', '\\']), "{encoded}");
            assert_eq!(percent_decode(&encoded).as_deref(), Some(pointer));
        }
        assert_eq!(fragment_encode("/Tag Name"), "/Tag%20Name");
    }
}
