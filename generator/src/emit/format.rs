//! Formatting the generated source with prettyplease, piece by piece.
//!
//! Parsing and printing one huge token stream is slow on large documents: every token, syntax
//! node and output fragment of the file is alive at once, and the allocator does most of the
//! work. But prettyplease lays out each item of a module or trait, and each arm of a `match`, on
//! lines of its own, and how it lays one out depends only on the indentation it starts at. So a
//! long run of such pieces is kept out of the surrounding tokens (the frame; a one-line
//! placeholder marks where the run goes), each piece is formatted alone inside a small wrapper
//! that gives it the same indentation, and the texts are spliced into the formatted frame. The
//! result is byte-identical to formatting everything at once.

use proc_macro2::{Delimiter, Group, Ident, Span, TokenStream, TokenTree};
use quote::quote;

/// Prefix of the placeholder macro that marks where a run goes in the frame.
const PLACEHOLDER: &str = "__mcp_codegen_run_";

/// Where a run of pieces sits, which decides the wrapper a piece is formatted in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Slot {
    /// Items of a module at the top level of the file (`pub mod types { ... }`).
    ModuleItems,
    /// Items of a trait at the top level of the file (`pub trait Handler { ... }`).
    TraitItems,
    /// Arms of a `match` that is the body of a method in a top-level `impl`.
    ImplMethodMatchArms,
}

impl Slot {
    /// `piece` inside tokens that give it this slot's indentation: `mod m { piece }`,
    /// `trait T { piece }` or `impl T { fn f() { match x { piece } } }`.
    fn wrap(self, piece: TokenStream) -> TokenStream {
        // Built by hand rather than with `quote!`, which would copy the piece's tokens.
        match self {
            Slot::ModuleItems => braced(quote!(mod m), piece),
            Slot::TraitItems => braced(quote!(trait T), piece),
            Slot::ImplMethodMatchArms => {
                let body = braced(quote!(match x), piece);
                braced(quote!(impl T), braced(quote!(fn f()), body))
            }
        }
    }

    /// How many lines [`Slot::wrap`] adds above the piece, and below it (one per level).
    fn depth(self) -> usize {
        match self {
            Slot::ModuleItems | Slot::TraitItems => 1,
            Slot::ImplMethodMatchArms => 3,
        }
    }

    /// The placeholder for run `name`: an item or an arm, printed on one line.
    fn placeholder(self, name: &Ident) -> TokenStream {
        match self {
            Slot::ModuleItems | Slot::TraitItems => quote!(#name!();),
            Slot::ImplMethodMatchArms => quote!(#name!() => {}),
        }
    }
}

/// The runs of pieces set aside while building the frame's tokens, and the files of a split
/// layout (see [`super::layout`]).
#[derive(Default)]
pub(crate) struct Frame {
    runs: Vec<Option<(Slot, Vec<TokenStream>)>>,
    /// The pieces' directory of a split layout (`generated`), and whether the root declares
    /// them as modules ([`super::Layout::Modules`]) rather than `include!`s them; `None` for
    /// one file.
    split: Option<(String, bool)>,
    /// The files of a split layout: path from the root file's directory, formatted source.
    files: Vec<(String, String)>,
}

/// One file's worth of a module's items in a split layout: a named type and its impls, or a
/// method's dispatch functions.
pub(crate) struct Piece {
    /// Its file name without `.rs`, from [`super::layout::piece_names`].
    pub(crate) name: String,
    /// Its items.
    pub(crate) tokens: TokenStream,
}

/// How a run of pieces reaches the module that holds them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reach {
    /// As the module's own items: inline in one file, glob re-exported from each piece's
    /// module when split (`types`).
    Items,
    /// As modules of their own, named for the pieces (`dispatch::pet_rs::call_method`).
    Modules,
}

impl Frame {
    /// Formats the tokens `build` returns, with the runs it sets aside in `frame` spliced in;
    /// with the split layout's directory, also returns the files of the pieces it split off.
    pub(crate) fn format_with(
        split: Option<(&str, bool)>,
        build: impl FnOnce(&mut Frame) -> TokenStream,
    ) -> (String, Vec<(String, String)>) {
        let mut frame = Frame {
            split: split.map(|(dir, modules)| (dir.to_string(), modules)),
            ..Frame::default()
        };
        let tokens = build(&mut frame);
        let files = std::mem::take(&mut frame.files);
        (frame.format(tokens), files)
    }

    /// Sets `pieces` aside and returns the placeholder to put where they go; nothing for no
    /// pieces (an empty body formats differently from one with a placeholder in it).
    pub(crate) fn run(&mut self, slot: Slot, pieces: Vec<TokenStream>) -> TokenStream {
        if pieces.is_empty() {
            return TokenStream::new();
        }
        let name = Ident::new(
            &format!("{PLACEHOLDER}{}", self.runs.len()),
            Span::call_site(),
        );
        self.runs.push(Some((slot, pieces)));
        slot.placeholder(&name)
    }

    /// The items of a module made of `pieces` (a run of [`Slot::ModuleItems`] at the top of the
    /// file's first level). In one file, the pieces themselves (or, for [`Reach::Modules`], a
    /// module around each). Split, each piece is the file `DIR/<subdir>/<name>.rs`: declared
    /// as a plain module (`mod pet;`, and `pub use pet::*;` for [`Reach::Items`]) with
    /// [`super::Layout::Modules`], `include!`d in a module of its own with
    /// [`super::Layout::Split`].
    pub(crate) fn pieces(&mut self, subdir: &str, pieces: Vec<Piece>, reach: Reach) -> TokenStream {
        let items = pieces
            .into_iter()
            .map(|piece| match &self.split {
                None if reach == Reach::Items => piece.tokens,
                Some((dir, false)) => {
                    let path = format!("{dir}/{subdir}/{}.rs", piece.name);
                    self.files.push((path.clone(), format_items(piece.tokens)));
                    included_piece(&piece.name, quote!(include!(#path);), reach)
                }
                None => {
                    let (module, _) = super::layout::plain_module(subdir, &piece.name);
                    let body = piece.tokens;
                    quote! {
                        pub(crate) mod #module {
                            use super::*;
                            #body
                        }
                    }
                }
                Some((dir, true)) => {
                    let path = format!("{dir}/{subdir}/{}.rs", piece.name);
                    let (declaration, body) =
                        module_piece(subdir, &piece.name, piece.tokens, reach);
                    let mut text = format_items(body);
                    if text.starts_with(USE_SUPER) {
                        text.insert(USE_SUPER.len(), '\n');
                    }
                    self.files.push((path, text));
                    declaration
                }
            })
            .collect();
        self.run(Slot::ModuleItems, items)
    }

    /// The module of the piece `name` in `subdir` ([`Frame::pieces`]), as paths name it.
    pub(crate) fn piece_module(&self, subdir: &str, name: &str) -> Ident {
        match &self.split {
            Some((_, false)) => super::layout::piece_module(name),
            _ => super::layout::plain_module(subdir, name).0,
        }
    }

    /// The module `#attrs pub mod NAME { tokens }`, its items in the file `DIR/<NAME>.rs` when
    /// split: `pub mod NAME;` with [`super::Layout::Modules`], `include!`d with
    /// [`super::Layout::Split`].
    pub(crate) fn file(
        &mut self,
        name: &str,
        attrs: TokenStream,
        tokens: TokenStream,
    ) -> TokenStream {
        let module = Ident::new(name, Span::call_site());
        match &self.split {
            None => quote!(#attrs pub mod #module { #tokens }),
            Some((dir, modules)) => {
                let path = format!("{dir}/{name}.rs");
                let modules = *modules;
                self.files.push((path.clone(), format_items(tokens)));
                if modules {
                    quote!(#attrs pub mod #module;)
                } else {
                    quote!(#attrs pub mod #module { include!(#path); })
                }
            }
        }
    }

    fn format(mut self, tokens: TokenStream) -> String {
        let frame = format_items(tokens);
        let mut out = String::with_capacity(frame.len());
        for line in frame.split_inclusive('\n') {
            match self.take_run(line) {
                Some((slot, pieces)) => {
                    let indent = line.len() - line.trim_start().len();
                    assert_eq!(
                        indent,
                        4 * slot.depth(),
                        "a run of {slot:?} is not where that slot's wrapper puts it"
                    );
                    for piece in pieces {
                        let text = format_items(slot.wrap(piece));
                        out.push_str(strip_lines(&text, slot.depth()));
                    }
                }
                None => out.push_str(line),
            }
        }
        assert!(
            self.runs.iter().all(Option::is_none),
            "every run's placeholder is in the frame"
        );
        out
    }

    /// The run whose placeholder is `line`, if it is one.
    fn take_run(&mut self, line: &str) -> Option<(Slot, Vec<TokenStream>)> {
        let rest = line.trim_start().strip_prefix(PLACEHOLDER)?;
        let index: usize = rest[..rest.find('!')?].parse().ok()?;
        self.runs.get_mut(index)?.take()
    }
}

/// The first line of a piece declared as a module, which a blank line separates from the rest.
const USE_SUPER: &str = "use super::*;\n";

/// A piece `include!`d in a module of its own ([`super::Layout::Split`]): `mod pet_rs { use
/// super::*; include!("..."); }`, glob re-exported for [`Reach::Items`].
fn included_piece(name: &str, body: TokenStream, reach: Reach) -> TokenStream {
    let module = super::layout::piece_module(name);
    // A binary warns about a re-export it never uses (a schema no method uses).
    let (vis, export) = match reach {
        Reach::Items => (
            TokenStream::new(),
            quote! {
                #[allow(unused_imports)]
                pub use #module::*;
            },
        ),
        Reach::Modules => (quote!(pub(crate)), TokenStream::new()),
    };
    quote! {
        #vis mod #module {
            #[allow(unused_imports)]
            use super::*;
            #body
        }
        #export
    }
}

/// A piece declared as a plain module ([`super::Layout::Modules`]): the declaration in the root
/// (`mod pet;` and `pub use pet::*;` for [`Reach::Items`], `pub(crate) mod add;` for
/// [`Reach::Modules`]) and the file's items (`use super::*;` and the piece). A piece that is
/// one inline module of the file's name (`pub mod defaults { ... }`) is that module: declared
/// as `pub mod defaults;` with its items in the file.
fn module_piece(
    subdir: &str,
    name: &str,
    tokens: TokenStream,
    reach: Reach,
) -> (TokenStream, TokenStream) {
    let (module, path) = super::layout::plain_module(subdir, name);
    if let Ok(syn::Item::Mod(item)) = syn::parse2::<syn::Item>(tokens.clone()) {
        if item.ident == module && path.is_none() {
            if let Some((_, items)) = item.content {
                let (attrs, vis) = (item.attrs, item.vis);
                return (quote!(#(#attrs)* #vis mod #module;), quote!(#(#items)*));
            }
        }
    }
    let path = path.map(|path| quote!(#[path = #path]));
    let declaration = match reach {
        Reach::Items => quote! {
            #path
            mod #module;
            pub use #module::*;
        },
        Reach::Modules => quote! {
            #path
            pub(crate) mod #module;
        },
    };
    (declaration, quote!(use super::*; #tokens))
}

/// `head { body }`, taking `body` without copying it.
fn braced(mut head: TokenStream, body: TokenStream) -> TokenStream {
    head.extend([TokenTree::Group(Group::new(Delimiter::Brace, body))]);
    head
}

/// Formats top-level items with prettyplease.
pub(crate) fn format_items(tokens: TokenStream) -> String {
    let file: syn::File = syn::parse2(tokens).expect("generated tokens always parse as a file");
    prettyplease::unparse(&file)
}

/// `text` without its first `n` and last `n` lines.
fn strip_lines(text: &str, n: usize) -> &str {
    let start = text
        .match_indices('\n')
        .nth(n - 1)
        .map_or(text.len(), |(i, _)| i + 1);
    let body = text[start..].strip_suffix('\n').unwrap_or(&text[start..]);
    let end = body
        .rmatch_indices('\n')
        .nth(n - 1)
        .map_or(0, |(i, _)| i + 1);
    &body[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Formatting piece by piece gives exactly what formatting everything at once gives.
    #[test]
    fn runs_format_like_the_whole() {
        let items = vec![
            quote!(
                #[derive(Debug)]
                pub struct A {
                    pub a: ::std::option::Option<::std::string::String>,
                }
            ),
            quote!(
                pub type B = ::std::vec::Vec<A>;
            ),
        ];
        let fns = vec![
            quote!(
                fn a(
                    &self,
                    ctx: &Context,
                    params: types::A,
                ) -> impl ::std::future::Future<Output = ::std::result::Result<(), Error>> + Send;
            ),
            quote!(
                #[deprecated]
                fn b(&self);
            ),
        ];
        let arms = vec![
            quote!("a" => ::std::option::Option::Some(::std::boxed::Box::pin(async move { let params: types::A = decode(params)?; self.handler.a(&ctx, params).await })),),
            quote!("b" => ::std::option::Option::None,),
        ];
        let whole = format_items(quote! {
            /// Types.
            pub mod types { #(#items)* }
            pub trait Handler: Send { #(#fns)* }
            impl<H: Handler> Dispatch for Server<H> {
                fn call(&self, name: &str) -> Option<Call> {
                    match name { #(#arms)* _ => ::std::option::Option::None, }
                }
            }
        });
        let (pieces, files) = Frame::format_with(None, |frame| {
            let items = frame.run(Slot::ModuleItems, items);
            let fns = frame.run(Slot::TraitItems, fns);
            let arms = frame.run(Slot::ImplMethodMatchArms, arms);
            let empty = frame.run(Slot::ModuleItems, Vec::new());
            quote! {
                /// Types.
                pub mod types { #items #empty }
                pub trait Handler: Send { #fns }
                impl<H: Handler> Dispatch for Server<H> {
                    fn call(&self, name: &str) -> Option<Call> {
                        match name { #arms _ => ::std::option::Option::None, }
                    }
                }
            }
        });
        assert_eq!(pieces, whole);
        assert!(files.is_empty());
    }

    #[test]
    fn strips_wrapper_lines() {
        assert_eq!(strip_lines("a {\n    b\n    c\n}\n", 1), "    b\n    c\n");
        assert_eq!(strip_lines("a {\n b {\n  c\n }\n}\n", 2), "  c\n");
    }
}
