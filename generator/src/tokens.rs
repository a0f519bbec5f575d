//! Token builders every emitter shares (the type space's and the server's), so an identifier or
//! a doc comment is spelled the same way wherever the generator writes one.

use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;

use crate::escape::rustdoc;

/// An identifier token from a name [`crate::names`] produced (raw identifiers, `r#type`,
/// included).
pub(crate) fn ident(name: &str) -> Ident {
    match name.strip_prefix("r#") {
        Some(raw) => Ident::new_raw(raw, Span::call_site()),
        None => Ident::new(name, Span::call_site()),
    }
}

/// `#[doc = "..."]` attributes, one per line; an empty line stays empty (a paragraph break)
/// rather than becoming a lone space. Every doc comment the generator writes goes through here,
/// and the lines go through [`rustdoc::doc_lines`] first: they hold document text.
pub(crate) fn doc_attrs<S: AsRef<str>>(lines: &[S]) -> TokenStream {
    let lines = rustdoc::doc_lines(lines)
        .into_iter()
        .map(|line| match line.as_str() {
            "" => String::new(),
            line => format!(" {line}"),
        });
    quote! { #( #[doc = #lines] )* }
}

/// The lines of the given texts (a summary, a description...) as doc paragraphs: missing and
/// blank texts skipped, one empty line between texts, trailing whitespace trimmed.
pub(crate) fn paragraphs(texts: &[Option<&str>]) -> Vec<String> {
    let mut lines = Vec::new();
    let texts = texts
        .iter()
        .flatten()
        .map(|s| s.trim())
        .filter(|s| !s.is_empty());
    for (i, text) in texts.enumerate() {
        if i > 0 {
            lines.push(String::new());
        }
        lines.extend(text.lines().map(|l| l.trim_end().to_string()));
    }
    lines
}

/// The longest run of `#` right after a `"` in `text`, found in one pass: a raw literal needs
/// one `#` more to hold it (searching for ever longer runs was quadratic in hostile text).
fn hashes_after_quote(text: &str) -> usize {
    let mut longest = 0;
    for (i, _) in text.match_indices('"') {
        let run = text[i + 1..].bytes().take_while(|&b| b == b'#').count();
        longest = longest.max(run);
    }
    longest
}

/// A string literal token, raw (`r#"..."#`) when that reads better, for JSON and prose. A raw
/// literal cannot escape anything, so text with hidden characters (a bare `\r`, bidi controls:
/// rustc rejects both there) is always an ordinary, escaped literal.
pub(crate) fn str_lit(text: &str) -> TokenStream {
    let raw_reads_better = text.contains('"') || text.contains('\\');
    if raw_reads_better && !text.chars().any(crate::escape::is_hidden) {
        let hashes = "#".repeat(hashes_after_quote(text) + 1);
        format!("r{hashes}\"{text}\"{hashes}")
            .parse()
            .expect("a raw string literal always lexes")
    } else {
        let lit = proc_macro2::Literal::string(text);
        quote!(#lit)
    }
}
