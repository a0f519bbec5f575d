//! Document text made safe for each kind of file the generator writes.
//!
//! Text from a document nobody reviewed reaches generated files only through this module (or as
//! a string literal token, or an identifier from [`crate::names`]): doc comments
//! ([`rustdoc`]), the scaffold's Markdown ([`markdown`]) and the shell commands in it
//! ([`shell`]). This file holds what they share: which characters must never be written as they
//! are.

mod file_name;
pub(crate) use file_name::file_name;
pub(crate) mod markdown;
pub(crate) mod rustdoc;
pub(crate) mod shell;

use std::fmt::Write;

/// True for a character that must not appear literally in generated text: control characters
/// other than line feed and tab, the bidirectional controls rustc rejects in comments and
/// literals (`text_direction_codepoint_in_*`, "Trojan Source") plus the marks that act like
/// them, line and paragraph separators, and invisible characters that make two names look
/// alike.
pub(crate) fn is_hidden(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(
            c,
            '\u{061C}'              // Arabic letter mark
            | '\u{00AD}'            // soft hyphen
            | '\u{200B}'..='\u{200F}' // zero-width space/joiners, LRM, RLM
            | '\u{2028}'..='\u{202E}' // line/paragraph separators, bidi embeddings/overrides
            | '\u{2060}'..='\u{2069}' // word joiner, invisible operators, bidi isolates
            | '\u{FEFF}'            // zero-width no-break space (BOM)
        )
}

/// `text` with every [`is_hidden`] character written as a visible `\u{…}` escape.
pub(crate) fn visible(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        push_visible(&mut out, c);
    }
    out
}

/// `text` on one line: [`visible`], with line feeds and tabs escaped too.
pub(crate) fn visible_line(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\n' | '\t' => push_escape(&mut out, c),
            c => push_visible(&mut out, c),
        }
    }
    out
}

fn push_visible(out: &mut String, c: char) {
    if is_hidden(c) {
        push_escape(out, c);
    } else {
        out.push(c);
    }
}

fn push_escape(out: &mut String, c: char) {
    let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
}

/// The longest run of `c` in `text`.
pub(crate) fn longest_run(text: &str, c: char) -> usize {
    let (mut longest, mut current) = (0, 0);
    for d in text.chars() {
        current = if d == c { current + 1 } else { 0 };
        longest = longest.max(current);
    }
    longest
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hidden_characters_are_escaped() {
        assert_eq!(
            visible("a\u{202E}b\rc\u{1b}d\ne\tf"),
            "a\\u{202e}b\\u{d}c\\u{1b}d\ne\tf"
        );
        assert_eq!(visible_line("a\nb\tc"), "a\\u{a}b\\u{9}c");
        assert_eq!(visible("é世😀"), "é世😀");
        for c in [
            '\u{2066}', '\u{2069}', '\u{202A}', '\u{200F}', '\u{2028}', '\0', '\u{7f}',
        ] {
            assert!(is_hidden(c), "{c:?}");
        }
    }

    #[test]
    fn runs() {
        assert_eq!(longest_run("a``b```c`", '`'), 3);
        assert_eq!(longest_run("abc", '`'), 0);
    }
}
