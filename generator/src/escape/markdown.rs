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
}
