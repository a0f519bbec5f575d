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
/// - else, outside code spans, `<` written `&lt;` (no HTML, no autolink) and the `]` of a link
///   to anything but `http:`, `https:`, `mailto:` or a relative URL escaped (no `javascript:`
///   link). Other Markdown is kept: descriptions use it.
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

/// Escapes HTML and unsafe links outside code spans. A code span is looked for on its own line
/// only (one that crossed into another block would be no span), and its text is kept as
/// written: Markdown shows it literally.
fn escape_markup(line: &str) -> String {
    let chars: Vec<char> = line.chars().collect();
    let mut out = String::with_capacity(line.len() + 8);
    if let Some(dest) = reference_definition(line) {
        if !safe_destination(dest) {
            out.push('\\');
        }
    }
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
        match c {
            '<' => out.push_str("&lt;"),
            ']' if chars.get(i + 1) == Some(&'(') => {
                let rest: String = chars[i + 2..].iter().collect();
                if !safe_destination(&rest) {
                    out.push('\\');
                }
                out.push(c);
            }
            c => out.push(c),
        }
        i += 1;
    }
    out
}

/// The destination of a link reference definition (`[label]: destination`), if `line` is one.
fn reference_definition(line: &str) -> Option<&str> {
    let rest = line.trim_start_matches(' ').strip_prefix('[')?;
    let (_, after) = rest.split_once("]:")?;
    Some(after)
}

/// True when a link destination (the text after `(` or `]:`) is a relative URL or uses
/// `http:`, `https:` or `mailto:`.
fn safe_destination(text: &str) -> bool {
    let dest: String = text
        .trim_start()
        .trim_start_matches('<')
        .chars()
        .take_while(|c| !c.is_whitespace() && !matches!(c, ')' | '>'))
        .collect();
    let Some(colon) = dest.find(':') else {
        return true;
    };
    if dest[..colon].contains(['/', '?', '#']) {
        return true;
    }
    let scheme = dest[..colon].to_ascii_lowercase();
    matches!(scheme.as_str(), "http" | "https" | "mailto")
}

/// The length of the run of backticks starting at `i`.
fn run_at(chars: &[char], i: usize) -> usize {
    chars[i..].iter().take_while(|&&c| c == '`').count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_keeps_its_markdown_but_no_html_or_unsafe_links() {
        assert_eq!(
            doc_lines(&[
                "A *pet*: see [docs](/spec#meta), [w](https://x.org) <script>",
                "[x](javascript:alert(1)) [y]( JaVaScript:z) `Vec<T>` \\<b>",
            ]),
            [
                "A *pet*: see [docs](/spec#meta), [w](https://x.org) &lt;script>",
                "[x\\](javascript:alert(1)) [y\\]( JaVaScript:z) `Vec<T>` \\&lt;b>",
            ]
        );
        assert_eq!(
            doc_lines(&["``a<b`` <i> `open <"]),
            ["``a<b`` &lt;i> `open &lt;"]
        );
        assert_eq!(doc_lines(&["[a]: javascript:x"]), ["\\[a]: javascript:x"]);
        assert_eq!(doc_lines(&["[a]: https://x"]), ["[a]: https://x"]);
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
            ["a", "b", "c\\u{202e}d"]
        );
    }
}
