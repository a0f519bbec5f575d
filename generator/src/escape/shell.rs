//! Words in the shell commands of the scaffold's README.

use super::visible_line;

/// `text` as one POSIX shell word: as is when it holds only characters no shell treats
/// specially, else single-quoted (a `'` inside written `'\''`). Hidden characters and line
/// breaks are escaped first, so the word stays on its line (and inside its Markdown fence).
pub(crate) fn quote(text: &str) -> String {
    let text = visible_line(text);
    let plain = |c: char| c.is_ascii_alphanumeric() || "_./+-=:,@%".contains(c);
    if !text.is_empty() && text.chars().all(plain) {
        return text;
    }
    format!("'{}'", text.replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words() {
        assert_eq!(quote("openrpc.json"), "openrpc.json");
        assert_eq!(quote("a b"), "'a b'");
        assert_eq!(quote("'; rm -rf ~; '"), r"''\''; rm -rf ~; '\'''");
        assert_eq!(quote("$(x)"), "'$(x)'");
        assert_eq!(quote(""), "''");
        assert_eq!(quote("a\nb"), r"'a\u{a}b'");
    }
}
