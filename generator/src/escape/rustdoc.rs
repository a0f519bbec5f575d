//! Doc comments from document text: shown as written, never compiled or run by rustdoc.
//!
//! rustdoc reads doc comments as Markdown and compiles and runs the Rust code blocks in them
//! as doctests, so a description holding a fenced or indented block would put the document's
//! code into every `cargo test` of a crate that includes the generated module. Markdown also
//! carries raw HTML and links into the rendered docs.

use super::{longest_run, visible};

/// The lines of `#[doc]` attributes showing `lines` (already split at line feeds) as written:
/// hidden characters escaped, every line break (`\r` included) a line of its own, and either
///
/// - the whole text inside a ```` ```text ```` fence longer than any backtick run in it, when
///   any line could open a code block (a fence, or indentation of four columns or a tab), so
///   nothing in it is a doctest; or
/// - else `\`, `<`, `[` and `]` backslash-escaped outside code spans, so the text makes no
///   HTML, autolink or link.
pub(crate) fn doc_lines<S: AsRef<str>>(lines: &[S]) -> Vec<String> {
    let lines: Vec<String> = lines
        .iter()
        .flat_map(|line| {
            let line = line.as_ref().replace("\r\n", "\n");
            line.split(['\n', '\r']).map(visible).collect::<Vec<_>>()
        })
        .collect();
    if lines.iter().any(|line| could_open_code_block(line)) {
        fenced(lines)
    } else {
        lines.iter().map(|line| escape_markup(line)).collect()
    }
}

/// Conservatively: a fence anywhere (block quotes and list items can hold one), or four spaces
/// or a tab anywhere (after block quote and list markers, that indents code).
fn could_open_code_block(line: &str) -> bool {
    line.contains("```") || line.contains("~~~") || line.contains("    ") || line.contains('\t')
}

/// `lines` inside a `text` fence no line can close.
fn fenced(lines: Vec<String>) -> Vec<String> {
    let ticks = lines
        .iter()
        .map(|line| longest_run(line, '`'))
        .max()
        .unwrap_or(0);
    let fence = "`".repeat((ticks + 1).max(3));
    let mut out = Vec::with_capacity(lines.len() + 2);
    out.push(format!("{fence}text"));
    out.extend(lines);
    out.push(fence);
    out
}

/// Backslash-escapes `\`, `<`, `[` and `]` outside code spans. A code span is looked for on
/// its own line only (one that crossed into another block would be no span), and its text is
/// kept as written: Markdown shows it literally.
fn escape_markup(line: &str) -> String {
    let chars: Vec<char> = line.chars().collect();
    let mut out = String::with_capacity(line.len() + 8);
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '`' {
            let run = run_at(&chars, i);
            let close = (i + run..chars.len()).find(|&j| {
                chars[j] == '`' && (j == 0 || chars[j - 1] != '`') && run_at(&chars, j) == run
            });
            let end = close.map_or(i + run, |j| j + run);
            out.extend(&chars[i..end]);
            i = end;
            continue;
        }
        if matches!(c, '\\' | '<' | '[' | ']') {
            out.push('\\');
        }
        out.push(c);
        i += 1;
    }
    out
}

/// The length of the run of backticks starting at `i`.
fn run_at(chars: &[char], i: usize) -> usize {
    chars[i..].iter().take_while(|&&c| c == '`').count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_keeps_its_markdown_but_no_html_or_links() {
        assert_eq!(
            doc_lines(&[
                "A *pet*: see [docs](javascript:x) <script>",
                "`Vec<T>` and C:\\x"
            ]),
            [
                "A *pet*: see \\[docs\\](javascript:x) \\<script>",
                "`Vec<T>` and C:\\\\x"
            ]
        );
        assert_eq!(doc_lines(&["``a`b`` [x] `open"]), ["``a`b`` \\[x\\] `open"]);
    }

    #[test]
    fn code_blocks_are_fenced_as_text() {
        let out = doc_lines(&["Run:", "```", "panic!(\"INJECTED\")", "````", "ok"]);
        assert_eq!(out.first().unwrap(), "`````text");
        assert_eq!(out.last().unwrap(), "`````");
        assert_eq!(
            out[1..out.len() - 1],
            ["Run:", "```", "panic!(\"INJECTED\")", "````", "ok"]
        );
        let out = doc_lines(&["x", "", "    std::process::exit(99);"]);
        assert_eq!(
            out,
            ["```text", "x", "", "    std::process::exit(99);", "```"]
        );
        assert_eq!(doc_lines(&["> ~~~"])[0], "```text");
        assert_eq!(doc_lines(&["-\tcode"])[0], "```text");
    }

    #[test]
    fn line_breaks_and_hidden_characters() {
        assert_eq!(
            doc_lines(&["a\rb\r\nc\u{202E}d"]),
            ["a", "b", "c\\\\u{202e}d"]
        );
    }
}
