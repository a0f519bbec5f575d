//! Names in the scaffold's README: Markdown code spans nothing can break out of.

use super::{longest_run, visible_line};

/// `text` as an inline code span on one line: hidden characters and line breaks escaped,
/// delimited by more backticks than any run inside, padded when it starts or ends with a
/// backtick or a space (which Markdown would otherwise eat or merge).
pub(crate) fn code_span(text: &str) -> String {
    let text = visible_line(text);
    if text.is_empty() {
        return "` `".to_string();
    }
    let ticks = "`".repeat(longest_run(&text, '`') + 1);
    let pad = if text.starts_with(['`', ' ']) || text.ends_with(['`', ' ']) {
        " "
    } else {
        ""
    };
    format!("{ticks}{pad}{text}{pad}{ticks}")
}

/// `text` as plain Markdown text on one line: hidden characters escaped, and every ASCII
/// punctuation mark that Markdown or HTML could read as markup backslash-escaped (a
/// parenthesis only opens a link after a `]`, which is escaped), so a
/// document's summary cannot add a link, an image, a tag or a table cell.
pub(crate) fn text(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        if "\\`*_{}[]<>#+!|~&".contains(c) {
            escaped.push('\\');
        }
        escaped.push(c);
    }
    visible_line(&escaped)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans() {
        assert_eq!(code_span("get_pet"), "`get_pet`");
        assert_eq!(code_span("a`b"), "``a`b``");
        assert_eq!(code_span("`x"), "`` `x ``");
        assert_eq!(code_span("a\n```\nrm"), "````a\\u{a}```\\u{a}rm````");
        assert_eq!(code_span(""), "` `");
    }

    #[test]
    fn plain_text() {
        assert_eq!(text("Adds two numbers."), "Adds two numbers.");
        assert_eq!(
            text("[x](http://e) <b>|![i](j)"),
            r"\[x\](http://e) \<b\>\|\!\[i\](j)"
        );
        assert_eq!(text("a\nb"), r"a\u{a}b");
    }
}
