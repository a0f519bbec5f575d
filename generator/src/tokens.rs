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
