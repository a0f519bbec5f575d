//! Types as a user writes them: the generator's fully qualified paths (`::std::vec::Vec`,
//! `::serde_json::Value`) rewritten into plain ones (`Vec`, `serde_json::Value`) for the
//! scaffold's files, with the `use` lines those need.
//!
//! Only paths that start with `::` are rewritten; the generated types are always written
//! `types::X`, so a contract's type named `Vec`, `String` or `BTreeMap` stays `types::Vec`
//! and cannot collide with the prelude or with the `use` lines added here.

use proc_macro2::{Group, Punct, Spacing, TokenStream, TokenTree};
use std::collections::BTreeSet;

/// The paths written by their last segment alone, and the `use` line each needs (`None`: the
/// prelude has it).
const PLAIN: &[(&[&str], Option<&str>)] = &[
    (&["std", "vec", "Vec"], None),
    (&["std", "option", "Option"], None),
    (&["std", "string", "String"], None),
    (&["std", "boxed", "Box"], None),
    (&["std", "result", "Result"], None),
    (
        &["std", "collections", "BTreeMap"],
        Some("use std::collections::BTreeMap;"),
    ),
];

/// Rewrites types into plain paths and remembers the `use` lines they need.
#[derive(Debug, Default)]
pub(super) struct Plain {
    uses: BTreeSet<&'static str>,
}

impl Plain {
    /// `tokens` with every `::`-rooted path plain: one of [`PLAIN`] by its last segment, any
    /// other without its leading `::` (`serde_json::Value`, `mcp_runtime::mcp::ToolResult`).
    pub(super) fn rewrite(&mut self, tokens: TokenStream) -> TokenStream {
        let tokens: Vec<TokenTree> = tokens.into_iter().collect();
        let mut out = Vec::with_capacity(tokens.len());
        let mut i = 0;
        while i < tokens.len() {
            let follows_segment = matches!(out.last(), Some(TokenTree::Ident(_)));
            if !follows_segment && is_path_sep(&tokens, i) {
                // A leading `::`: read the path's segments.
                let mut segments = Vec::new();
                let mut j = i;
                while is_path_sep(&tokens, j) {
                    match tokens.get(j + 2) {
                        Some(TokenTree::Ident(ident)) => segments.push(ident.clone()),
                        _ => break,
                    }
                    j += 3;
                }
                if segments.is_empty() {
                    out.push(tokens[i].clone());
                    i += 1;
                    continue;
                }
                let names: Vec<String> = segments.iter().map(ToString::to_string).collect();
                match PLAIN.iter().find(|(path, _)| *path == names.as_slice()) {
                    Some((_, use_line)) => {
                        self.uses.extend(*use_line);
                        out.push(TokenTree::Ident(segments.pop().expect("not empty")));
                    }
                    None => {
                        for (n, segment) in segments.into_iter().enumerate() {
                            if n > 0 {
                                out.push(Punct::new(':', Spacing::Joint).into());
                                out.push(Punct::new(':', Spacing::Alone).into());
                            }
                            out.push(TokenTree::Ident(segment));
                        }
                    }
                }
                i = j;
                continue;
            }
            out.push(match &tokens[i] {
                TokenTree::Group(group) => {
                    let mut inner = Group::new(group.delimiter(), self.rewrite(group.stream()));
                    inner.set_span(group.span());
                    TokenTree::Group(inner)
                }
                other => other.clone(),
            });
            i += 1;
        }
        out.into_iter().collect()
    }

    /// The `use` lines the rewritten types need, sorted.
    pub(super) fn uses(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.uses.iter().copied()
    }
}

/// Whether `tokens[i..]` starts with `::`.
fn is_path_sep(tokens: &[TokenTree], i: usize) -> bool {
    matches!(
        (tokens.get(i), tokens.get(i + 1)),
        (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b)))
            if a.as_char() == ':' && a.spacing() == Spacing::Joint && b.as_char() == ':'
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    fn plain(tokens: TokenStream) -> (String, Vec<&'static str>) {
        let mut plain = Plain::default();
        let text = plain.rewrite(tokens).to_string();
        (text, plain.uses().collect())
    }

    #[test]
    fn standard_paths_become_plain() {
        let (text, uses) = plain(quote!(::std::collections::BTreeMap<
            ::std::string::String,
            ::std::vec::Vec<::std::option::Option<::serde_json::Value>>,
        >));
        assert_eq!(
            text,
            "BTreeMap < String , Vec < Option < serde_json :: Value >> , >"
        );
        assert_eq!(uses, ["use std::collections::BTreeMap;"]);
        let (text, uses) = plain(quote!((::std::boxed::Box<types::Pet>, f64)));
        assert_eq!(text, "(Box < types :: Pet > , f64)");
        assert!(uses.is_empty());
        assert_eq!(
            plain(quote!(::mcp_runtime::mcp::ToolResult)).0,
            "mcp_runtime :: mcp :: ToolResult"
        );
    }

    #[test]
    fn contract_types_named_like_std_types_stay_in_types() {
        let (text, uses) = plain(quote!(::std::collections::BTreeMap<
            ::std::string::String,
            ::std::vec::Vec<types::BTreeMap>,
        >));
        assert_eq!(text, "BTreeMap < String , Vec < types :: BTreeMap > , >");
        assert_eq!(uses, ["use std::collections::BTreeMap;"]);
        let (text, uses) = plain(quote!(::std::option::Option<types::Vec<types::String>>));
        assert_eq!(text, "Option < types :: Vec < types :: String >>");
        assert!(uses.is_empty());
        let (text, _) = plain(quote!(types::Value));
        assert_eq!(text, "types :: Value");
    }
}
