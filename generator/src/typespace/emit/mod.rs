//! IR to tokens. Reads only the IR, never a schema.

mod literal;

use super::gate::Gate;
use super::ir::{
    Body, Builtin, Field, Named, Presence, StringEnumDef, StructDef, TaggedVariant, TypeKind,
    UntaggedVariant, VariantFields,
};
use super::recursion::Boxing;
use super::{Checks, TypeId, TypeSpace};
use crate::tokens::{doc_attrs, ident};
use proc_macro2::{Ident, Literal, TokenStream};
use quote::quote;
use std::collections::BTreeMap;

/// The type expression of `ty`, with named types prefixed by `prefix` (e.g. `types::`).
pub(super) fn type_tokens(space: &TypeSpace, ty: TypeId, prefix: &TokenStream) -> TokenStream {
    match &space.types[ty.0] {
        TypeKind::Builtin(builtin) => builtin_tokens(*builtin),
        TypeKind::Vec(inner) => {
            let inner = type_tokens(space, *inner, prefix);
            quote!(::std::vec::Vec<#inner>)
        }
        TypeKind::Map(inner) => {
            let inner = type_tokens(space, *inner, prefix);
            quote!(::std::collections::BTreeMap<::std::string::String, #inner>)
        }
        TypeKind::Option(inner) => {
            let inner = type_tokens(space, *inner, prefix);
            quote!(::std::option::Option<#inner>)
        }
        TypeKind::Named(named) => {
            let name = ident(&named.name);
            quote!(#prefix #name)
        }
    }
}

fn builtin_tokens(builtin: Builtin) -> TokenStream {
    match builtin {
        Builtin::String => quote!(::std::string::String),
        Builtin::Bool => quote!(bool),
        Builtin::I8 => quote!(i8),
        Builtin::I16 => quote!(i16),
        Builtin::I32 => quote!(i32),
        Builtin::I64 => quote!(i64),
        Builtin::U8 => quote!(u8),
        Builtin::U16 => quote!(u16),
        Builtin::U32 => quote!(u32),
        Builtin::U64 => quote!(u64),
        Builtin::F64 => quote!(f64),
        Builtin::Value => quote!(::serde_json::Value),
    }
}

/// The JSON type a value of `ty` is, as a union's message names a variant: `integer`,
/// `object`, `string or null`; `value` for an open schema, `one of 3` for a nested union.
fn json_kind(space: &TypeSpace, ty: TypeId) -> String {
    json_kind_within(space, ty, MOST_ALIASES)
}

/// How many aliases and options [`json_kind`] follows: a hostile document can make an alias of
/// an alias of itself, which names no JSON type.
const MOST_ALIASES: usize = 16;

fn json_kind_within(space: &TypeSpace, ty: TypeId, depth: usize) -> String {
    let Some(depth) = depth.checked_sub(1) else {
        return "value".into();
    };
    match &space.types[ty.0] {
        TypeKind::Builtin(Builtin::String) => "string".into(),
        TypeKind::Builtin(Builtin::Bool) => "boolean".into(),
        TypeKind::Builtin(Builtin::F64) => "number".into(),
        TypeKind::Builtin(Builtin::Value) => "value".into(),
        TypeKind::Builtin(_) => "integer".into(),
        TypeKind::Vec(_) => "array".into(),
        TypeKind::Map(_) => "object".into(),
        TypeKind::Option(inner) => format!("{} or null", json_kind_within(space, *inner, depth)),
        TypeKind::Named(named) => match &named.body {
            Body::Alias(inner) => json_kind_within(space, *inner, depth),
            Body::Struct(_) | Body::Tagged(_) => "object".into(),
            Body::StringEnum(_) => "string".into(),
            Body::Tuple(_) => "array".into(),
            Body::Untagged(variants) => format!("one of {}", variants.len()),
            Body::Literal(_) | Body::Pending(_) => "value".into(),
        },
    }
}

/// Every named type (registered ones in registration order, each followed by the types created
/// while lowering it), then the `defaults` module: one token stream per item.
///
/// With `gate` (roots and a cargo feature), the types the roots do not need, and the default
/// functions only those use, carry `#[cfg(feature = "...")]`.
pub(super) fn emit(
    space: &TypeSpace,
    gate: Option<(&[TypeId], &str)>,
    checks: Option<&Checks>,
) -> Vec<TokenStream> {
    emit_named(space, gate, checks)
        .into_iter()
        .map(|(_, tokens)| tokens)
        .collect()
}

/// [`emit`], each item with its name (the type's Rust name, `defaults` for the module of
/// default functions) and, with `checks`, each type followed by its `Validate` impl: a type's
/// item holds all that changes when its schema does.
pub(super) fn emit_named(
    space: &TypeSpace,
    gate: Option<(&[TypeId], &str)>,
    checks: Option<&Checks>,
) -> Vec<(String, TokenStream)> {
    let boxing = Boxing::new(space);
    let gate = gate.map(|(roots, feature)| Gate::new(space, &boxing, roots, feature));
    let emitter = Emitter {
        space,
        boxing,
        gate,
        checks,
    };
    let mut owned: BTreeMap<TypeId, Vec<TypeId>> = BTreeMap::new();
    for (child, owner) in &space.owners {
        owned.entry(*owner).or_default().push(*child);
    }
    let mut items = Vec::new();
    let mut defaults = BTreeMap::new();
    let mut push = |id: TypeId, named: &Named, tokens: TokenStream| {
        if tokens.is_empty() {
            return;
        }
        let mut tokens = tokens;
        if let Some(checks) = checks {
            tokens.extend(checks.emit_for(space, id));
        }
        items.push((named.name.clone(), tokens));
    };
    for (index, kind) in space.types.iter().enumerate() {
        let id = TypeId(index);
        if space.owners.contains_key(&id) {
            continue;
        }
        if let TypeKind::Named(named) = kind {
            push(id, named, emitter.named(id, named, &mut defaults));
            for child in owned.get(&id).into_iter().flatten() {
                if let TypeKind::Named(named) = &space.types[child.0] {
                    push(*child, named, emitter.named(*child, named, &mut defaults));
                }
            }
        }
    }
    items.extend(
        emitter
            .default_fns(&defaults)
            .map(|tokens| ("defaults".to_string(), tokens)),
    );
    items
}

struct Emitter<'a> {
    space: &'a TypeSpace,
    boxing: Boxing,
    gate: Option<Gate>,
    /// The checks emitted beside the types, if any (a server's types module has them, a
    /// schema document's does not).
    checks: Option<&'a Checks>,
}

/// The default functions to generate: name -> (type, value, the types whose fields use it).
type DefaultFns<'a> = BTreeMap<&'a str, (TypeId, &'a serde_json::Value, Vec<TypeId>)>;

impl<'a> Emitter<'a> {
    /// Whether the module is a generated crate's types module, which links `mcp_runtime` (its
    /// checks, and the reads of whole values that name the value at fault); a plain emit (a
    /// schema document's, the runtime's own wire model) needs only serde and serde_json.
    fn links_runtime(&self) -> bool {
        self.checks.is_some()
    }

    /// The type of a by-value use of `ty` inside `container`, boxed where it closes a cycle.
    fn slot(&self, ty: TypeId, container: TypeId) -> TokenStream {
        match &self.space.types[ty.0] {
            TypeKind::Option(inner) => {
                let inner = self.slot(*inner, container);
                quote!(::std::option::Option<#inner>)
            }
            TypeKind::Named(_) if self.boxing.needs_box(container, ty) => {
                let inner = type_tokens(self.space, ty, &TokenStream::new());
                quote!(::std::boxed::Box<#inner>)
            }
            _ => type_tokens(self.space, ty, &TokenStream::new()),
        }
    }

    fn named(&self, id: TypeId, named: &'a Named, defaults: &mut DefaultFns<'a>) -> TokenStream {
        let cfg = self.gate.as_ref().and_then(|gate| gate.attr(id));
        let docs = doc_attrs(&named.docs);
        let docs = quote!(#docs #cfg);
        let name = ident(&named.name);
        // Two short attributes rather than one list prettyplease writes a path per line.
        let derive_base = quote!(
            #[derive(::std::fmt::Debug, ::std::clone::Clone, ::std::cmp::PartialEq)]
            #[derive(::serde::Serialize, ::serde::Deserialize)]
        );
        match &named.body {
            Body::Pending(_) => quote!(),
            Body::Alias(_) if self.boxing.alias_in_cycle(id) => {
                let mut lines = named.docs.clone();
                if !lines.is_empty() {
                    lines.push(String::new());
                }
                lines.push(
                    "The schema only refers to itself through `$ref`s, so any JSON value is accepted."
                        .to_string(),
                );
                let docs = doc_attrs(&lines);
                quote! { #docs #cfg pub type #name = ::serde_json::Value; }
            }
            Body::Alias(target) => {
                let target = self.slot(*target, id);
                quote! { #docs pub type #name = #target; }
            }
            Body::Struct(def) => {
                collect_defaults(def, id, defaults);
                let fields = self.fields(def, id, true);
                let deny = def
                    .deny_unknown_fields
                    .then(|| quote!(#[serde(deny_unknown_fields)]));
                let (derive_default, manual_default) = self.default_impl(def, &name, cfg);
                quote! {
                    #docs
                    #derive_base #derive_default
                    #deny
                    pub struct #name { #fields }
                    #manual_default
                }
            }
            Body::StringEnum(def) => string_enum(&docs, &name, def),
            Body::Literal(def) => {
                literal::literal_enum(&docs, cfg, &name, def, self.links_runtime())
            }
            Body::Tuple(items) => {
                let items = items.iter().map(|item| self.slot(*item, id));
                quote! {
                    #docs
                    #derive_base
                    pub struct #name(#(pub #items),*);
                }
            }
            Body::Tagged(def) => {
                let tag = &def.tag;
                let variants: Vec<TokenStream> = def
                    .variants
                    .iter()
                    .map(|variant| self.tagged_variant(id, tag, variant, defaults))
                    .collect();
                if !self.links_runtime() {
                    return quote! {
                        #docs
                        #derive_base
                        #[serde(tag = #tag)]
                        pub enum #name { #(#variants,)* }
                    };
                }
                // serde's derive, as inherent functions (`remote = "Self"`), called by trait
                // impls that read the value whole first: a refusal then names the value's
                // pointer, even as the last member of an object.
                let serialize =
                    serialize_impl(cfg, &name, quote!(#name::serialize(self, serializer)));
                let deserialize = whole_value_deserialize(
                    true,
                    cfg,
                    &name,
                    &[
                        "The derived reading (`remote = \"Self\"` makes it an inherent function), run",
                        "on the value read whole, so that an error names this union's JSON pointer.",
                    ],
                    quote!(#name::deserialize(value)),
                );
                quote! {
                    #docs
                    #derive_base
                    #[serde(tag = #tag, remote = "Self")]
                    pub enum #name { #(#variants,)* }

                    #serialize
                    #deserialize
                }
            }
            Body::Untagged(variants)
                if !self.links_runtime() && !self.space.exactly_one.contains(&id) =>
            {
                let variants = variants.iter().map(|variant| {
                    let vname = ident(&variant.name);
                    let ty = self.slot(variant.ty, id);
                    quote!(#vname(#ty))
                });
                quote! {
                    #docs
                    #derive_base
                    #[serde(untagged)]
                    pub enum #name { #(#variants,)* }
                }
            }
            Body::Untagged(variants) => {
                let items = variants.iter().map(|variant| {
                    let vname = ident(&variant.name);
                    let ty = self.slot(variant.ty, id);
                    quote!(#vname(#ty))
                });
                let deserialize = self.untagged_deserialize(id, &name, variants, cfg);
                quote! {
                    #docs
                    #[derive(::std::fmt::Debug, ::std::clone::Clone, ::std::cmp::PartialEq)]
                    #[derive(::serde::Serialize)]
                    #[serde(untagged)]
                    pub enum #name { #(#items,)* }
                    #deserialize
                }
            }
        }
    }

    /// `Deserialize` for a union of variants tried in turn on the value, read once whole
    /// ([`whole_value_deserialize`]). An `anyOf`, or a `oneOf` whose variants cannot accept the
    /// same value, takes the first variant that decodes (only in a module that links the
    /// runtime: a plain emit derives serde's untagged enum for those). A `oneOf` whose variants
    /// can overlap (`exactly_one`) has every variant try, and exactly one must accept (decode,
    /// and keep its rules when the checks are emitted beside).
    ///
    /// Linked to the runtime, each variant keeps why it refused the value (a
    /// `mcp_runtime::validate::Miss`), and a value none takes gets `no_alternative`'s message,
    /// one clause per variant; a value a variant takes pays for nothing more. Unlinked (a plain
    /// `oneOf` emit), the message is serde's for an untagged enum.
    fn untagged_deserialize(
        &self,
        id: TypeId,
        name: &Ident,
        variants: &[UntaggedVariant],
        cfg: Option<&TokenStream>,
    ) -> TokenStream {
        let exactly_one = self.space.exactly_one.contains(&id);
        if exactly_one && !self.links_runtime() {
            return self.untagged_unlinked(id, name, variants, cfg);
        }
        let miss = quote!(::mcp_runtime::validate::Miss);
        let misses: Vec<Ident> = (0..variants.len())
            .map(|i| ident(&format!("miss_{i}")))
            .collect();
        // What a variant that decodes does with its value: an `anyOf` returns it (once it keeps
        // its rules: `"latest"` decodes as the string of a `pattern` variant before it, and is
        // that variant's only if it matches); a `oneOf` counts it and goes on.
        let tries = variants.iter().zip(&misses).map(|(variant, miss_i)| {
            let vname = ident(&variant.name);
            let ty = self.slot(variant.ty, id);
            let accept = match exactly_one {
                true => quote! {
                    matched += 1;
                    found.get_or_insert(Self::#vname(variant));
                    #miss::Took
                },
                false => quote!(return ::std::result::Result::Ok(Self::#vname(variant))),
            };
            let decoded = match self.broken_rules(variant.ty) {
                // An `anyOf` keeps the first that decodes, so that validation names the rules
                // it breaks when no variant keeps them.
                Some(broken) if !exactly_one => quote!({
                    let broken = #broken;
                    if broken.is_empty() {
                        #accept
                    }
                    first.get_or_insert(Self::#vname(variant));
                    #miss::Rules(broken)
                }),
                Some(broken) => quote!({
                    let broken = #broken;
                    if broken.is_empty() {
                        #accept
                    } else {
                        #miss::Rules(broken)
                    }
                }),
                None => quote!({ #accept }),
            };
            // A value of a scalar alternative fails at itself; one of a composite may fail
            // deep inside, which only a decode from the text can point at (on the failing path).
            let kind = json_kind(self.space, variant.ty);
            let on_error = match ["object", "array", "one of"]
                .iter()
                .any(|k| kind.contains(k))
            {
                true => quote!(#miss::decode::<#ty>(error)),
                false => quote!(#miss::Decode(error)),
            };
            quote! {
                let #miss_i = match <#ty as ::serde::Deserialize>::deserialize(value) {
                    ::std::result::Result::Ok(variant) => #decoded,
                    ::std::result::Result::Err(error) => #on_error,
                };
            }
        });
        let labels = variants.iter().map(|variant| self.variant_label(variant));
        let none =
            quote!(::mcp_runtime::validate::no_alternative_in(value, &[#((#labels, &#misses)),*]));
        let body = if exactly_one {
            let several = format!("data matched more than one variant of oneOf {name}");
            quote!({
                let mut found = ::std::option::Option::None;
                let mut matched = 0usize;
                #(#tries)*
                match found {
                    ::std::option::Option::Some(found) if matched == 1 => ::std::result::Result::Ok(found),
                    ::std::option::Option::Some(_) => ::std::result::Result::Err(::std::string::String::from(#several)),
                    ::std::option::Option::None => ::std::result::Result::Err(#none),
                }
            })
        } else if variants.iter().any(|v| self.broken_rules(v.ty).is_some()) {
            quote!({
                let mut first = ::std::option::Option::None;
                #(#tries)*
                first.ok_or_else(|| #none)
            })
        } else {
            quote!({
                #(#tries)*
                ::std::result::Result::Err(#none)
            })
        };
        whole_value_deserialize(true, cfg, name, &[], body)
    }

    /// A `oneOf` whose variants can overlap, in a module that does not link the runtime: every
    /// variant tries, exactly one must decode, and the messages are serde's.
    fn untagged_unlinked(
        &self,
        id: TypeId,
        name: &Ident,
        variants: &[UntaggedVariant],
        cfg: Option<&TokenStream>,
    ) -> TokenStream {
        let none = format!("data did not match any variant of untagged enum {name}");
        let several = format!("data matched more than one variant of oneOf {name}");
        let tries = variants.iter().map(|variant| {
            let vname = ident(&variant.name);
            let ty = self.slot(variant.ty, id);
            quote! {
                if let ::std::result::Result::Ok(variant) =
                    <#ty as ::serde::Deserialize>::deserialize(value)
                {
                    matched += 1;
                    found.get_or_insert(Self::#vname(variant));
                }
            }
        });
        whole_value_deserialize(
            false,
            cfg,
            name,
            &[],
            quote!({
                let mut found = ::std::option::Option::None;
                let mut matched = 0usize;
                #(#tries)*
                match found {
                    ::std::option::Option::Some(found) if matched == 1 => ::std::result::Result::Ok(found),
                    ::std::option::Option::Some(_) => ::std::result::Result::Err(#several),
                    ::std::option::Option::None => ::std::result::Result::Err(#none),
                }
            }),
        )
    }

    /// How a union's message names one of its variants: the JSON type it takes, and its name
    /// when the contract gave it one (`object Named`; a `Variant3` says nothing more).
    fn variant_label(&self, variant: &UntaggedVariant) -> String {
        let kind = json_kind(self.space, variant.ty);
        let numbered = variant
            .name
            .strip_prefix("Variant")
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
        match numbered {
            true => kind.to_string(),
            false => format!("{kind} {}", variant.name),
        }
    }

    /// An expression: the `Violations` of the rules of `ty` that `variant` (a decoded value of
    /// type `ty`) breaks; `None` when no checks are emitted beside, or `ty` has none.
    fn broken_rules(&self, ty: TypeId) -> Option<TokenStream> {
        let checks = self
            .checks
            .and_then(|checks| checks.value_checks(self.space, ty))?;
        Some(quote! {
                {
                    let mut out = ::mcp_runtime::validate::Violations::new();
                    {
                        let path = &::mcp_runtime::validate::Path::Root;
                        let out = &mut out;
                        let value = &variant;
                        #checks
                    }
                    out
                }
        })
    }

    /// One variant of an internally tagged enum: its tag value and its fields (its own, or
    /// those of the struct it was declared by).
    fn tagged_variant(
        &self,
        id: TypeId,
        tag: &str,
        variant: &'a TaggedVariant,
        defaults: &mut DefaultFns<'a>,
    ) -> TokenStream {
        let vname = ident(&variant.name);
        let wire = &variant.tag_value;
        let (docs, fields) = match &variant.fields {
            VariantFields::Inline(fields) => {
                collect_defaults(fields, id, defaults);
                (
                    doc_attrs(&variant.docs),
                    self.variant_fields(fields, id, tag),
                )
            }
            VariantFields::FromStruct(struct_id) => {
                let docs = self
                    .space
                    .named(*struct_id)
                    .map(|n| doc_attrs(&n.docs))
                    .unwrap_or_default();
                let fields = match self.space.struct_def(*struct_id) {
                    Some(fields) => self.variant_fields(fields, id, tag),
                    None => quote!(),
                };
                (docs, fields)
            }
        };
        quote! { #docs #[serde(rename = #wire)] #vname { #fields } }
    }

    /// The fields of a struct variant: the struct's fields minus the tag, not `pub`.
    fn variant_fields(&self, def: &StructDef, container: TypeId, tag: &str) -> TokenStream {
        let kept = StructDef {
            fields: def
                .fields
                .iter()
                .filter(|f| f.flatten || f.wire != tag)
                .cloned()
                .collect(),
            deny_unknown_fields: false,
        };
        self.fields(&kept, container, false)
    }

    fn fields(&self, def: &StructDef, container: TypeId, public: bool) -> TokenStream {
        let fields = def.fields.iter().map(|field| {
            let docs = doc_attrs(&field.docs);
            let name = ident(&field.name);
            let ty = self.slot(field.ty, container);
            let nullable = matches!(self.space.types[field.ty.0], TypeKind::Option(_));
            let serde = serde_field_attr(field, nullable);
            let vis = public.then(|| quote!(pub));
            quote! { #docs #serde #vis #name: #ty }
        });
        quote!(#(#fields,)*)
    }

    /// `Default`: derived when every field's default is `Default::default()`, implemented with the
    /// `defaults` functions when some field has a schema default, absent when a field is required.
    fn default_impl(
        &self,
        def: &StructDef,
        name: &Ident,
        cfg: Option<&TokenStream>,
    ) -> (TokenStream, TokenStream) {
        if def.fields.iter().any(|f| f.presence == Presence::Required) {
            return (quote!(), quote!());
        }
        if !def
            .fields
            .iter()
            .any(|f| matches!(f.presence, Presence::DefaultFn { .. }))
        {
            return (quote!(#[derive(::std::default::Default)]), quote!());
        }
        let inits = def.fields.iter().map(|field| {
            let fname = ident(&field.name);
            match &field.presence {
                Presence::DefaultFn { fn_name, .. } => {
                    let func = ident(fn_name);
                    quote!(#fname: defaults::#func())
                }
                _ => quote!(#fname: ::std::default::Default::default()),
            }
        });
        let manual = quote! {
            #cfg
            impl ::std::default::Default for #name {
                fn default() -> Self { Self { #(#inits,)* } }
            }
        };
        (quote!(), manual)
    }

    /// The `defaults` module, `None` when no field needs one.
    fn default_fns(&self, defaults: &DefaultFns) -> Option<TokenStream> {
        if defaults.is_empty() {
            return None;
        }
        let fns = defaults.iter().map(|(fn_name, (ty, value, users))| {
            let cfg = self
                .gate
                .as_ref()
                .and_then(|gate| gate.attr_for_any(users.iter().copied()));
            let func = ident(fn_name);
            let ret = type_tokens(self.space, *ty, &quote!(super::));
            let body = self.default_literal(*ty, value);
            let doc = doc_attrs(&[format!("The schema's default, `{value}`.")]);
            quote! {
                #doc
                #cfg
                pub fn #func() -> #ret { #body }
            }
        });
        Some(quote! {
            /// Default values the schema gives to fields absent on the wire.
            pub mod defaults { #(#fns)* }
        })
    }

    /// An expression of type `ty` (as seen from the `defaults` module) equal to `value`.
    fn default_literal(&self, ty: TypeId, value: &serde_json::Value) -> TokenStream {
        use serde_json::Value;
        let fallback = || {
            let json = value.to_string();
            quote!(::serde_json::from_str(#json).expect("the schema's default is a valid value"))
        };
        match (&self.space.types[ty.0], value) {
            (TypeKind::Builtin(Builtin::String), Value::String(s)) => {
                quote!(::std::string::String::from(#s))
            }
            (TypeKind::Builtin(Builtin::Bool), Value::Bool(b)) => quote!(#b),
            (TypeKind::Builtin(Builtin::F64), Value::Number(n)) => match n.as_f64() {
                Some(f) if f.is_finite() => {
                    let lit = Literal::f64_suffixed(f);
                    quote!(#lit)
                }
                _ => fallback(),
            },
            (TypeKind::Builtin(builtin), Value::Number(n)) => {
                int_literal(*builtin, n).unwrap_or_else(fallback)
            }
            (TypeKind::Option(inner), value) => {
                let inner = self.default_literal(*inner, value);
                quote!(::std::option::Option::Some(#inner))
            }
            (
                TypeKind::Named(Named {
                    name,
                    body: Body::StringEnum(def),
                    ..
                }),
                Value::String(s),
            ) => match def.variants.iter().find(|v| &v.wire == s) {
                Some(variant) => {
                    let (name, variant) = (ident(name), ident(&variant.name));
                    quote!(super::#name::#variant)
                }
                None => fallback(),
            },
            (
                TypeKind::Named(Named {
                    body: Body::Alias(target),
                    ..
                }),
                value,
            ) if !self.boxing.alias_in_cycle(ty) => self.default_literal(*target, value),
            _ => fallback(),
        }
    }
}

fn int_literal(builtin: Builtin, n: &serde_json::Number) -> Option<TokenStream> {
    let lit = match builtin {
        Builtin::I8 => Literal::i8_suffixed(i8::try_from(n.as_i64()?).ok()?),
        Builtin::I16 => Literal::i16_suffixed(i16::try_from(n.as_i64()?).ok()?),
        Builtin::I32 => Literal::i32_suffixed(i32::try_from(n.as_i64()?).ok()?),
        Builtin::I64 => Literal::i64_suffixed(n.as_i64()?),
        Builtin::U8 => Literal::u8_suffixed(u8::try_from(n.as_u64()?).ok()?),
        Builtin::U16 => Literal::u16_suffixed(u16::try_from(n.as_u64()?).ok()?),
        Builtin::U32 => Literal::u32_suffixed(u32::try_from(n.as_u64()?).ok()?),
        Builtin::U64 => Literal::u64_suffixed(n.as_u64()?),
        _ => return None,
    };
    Some(quote!(#lit))
}

/// Records the default functions the fields of `def` (in type `user`) call.
fn collect_defaults<'a>(def: &'a StructDef, user: TypeId, defaults: &mut DefaultFns<'a>) {
    for field in &def.fields {
        if let Presence::DefaultFn { fn_name, value } = &field.presence {
            let entry = defaults
                .entry(fn_name)
                .or_insert_with(|| (field.ty, value, Vec::new()));
            (entry.0, entry.1) = (field.ty, value);
            entry.2.push(user);
        }
    }
}

/// The `#[serde(...)]` of a field: rename, absence handling, flatten.
///
/// A required `Option` (nullable but required) is read with `deserialize_with`, which makes serde
/// reject a missing field instead of reading it as `None`.
fn serde_field_attr(field: &Field, nullable: bool) -> TokenStream {
    let mut parts = Vec::new();
    if field.flatten {
        parts.push(quote!(flatten));
    } else if field.name.trim_start_matches("r#") != field.wire {
        let wire = &field.wire;
        parts.push(quote!(rename = #wire));
    }
    if let Some(alias) = &field.alias {
        parts.push(quote!(alias = #alias));
    }
    match &field.presence {
        Presence::Required if nullable => {
            parts.push(quote!(
                deserialize_with = "::serde::Deserialize::deserialize"
            ));
        }
        Presence::Required => {}
        Presence::Optional => {
            parts.push(quote!(
                default,
                skip_serializing_if = "::std::option::Option::is_none"
            ));
        }
        Presence::Default if field.flatten => {}
        Presence::Default => parts.push(quote!(default)),
        Presence::DefaultFn { fn_name, .. } => {
            let path = format!("defaults::{fn_name}");
            parts.push(quote!(default = #path));
        }
    }
    if parts.is_empty() {
        quote!()
    } else {
        quote!(#[serde(#(#parts),*)])
    }
}

fn string_enum(docs: &TokenStream, name: &Ident, def: &StringEnumDef) -> TokenStream {
    let variants = def.variants.iter().enumerate().map(|(index, variant)| {
        let vname = ident(&variant.name);
        let rename = (variant.name != variant.wire).then(|| {
            let wire = &variant.wire;
            quote!(#[serde(rename = #wire)])
        });
        let default = (def.is_const && index == 0).then(|| quote!(#[default]));
        quote!(#rename #default #vname)
    });
    let default = def
        .is_const
        .then(|| quote!(#[derive(::std::default::Default)]));
    quote! {
        #docs
        #[derive(::std::fmt::Debug, ::std::clone::Clone, ::std::marker::Copy)]
        #[derive(::std::cmp::PartialEq, ::std::cmp::Eq, ::std::hash::Hash)]
        #[derive(::serde::Serialize, ::serde::Deserialize)]
        #default
        pub enum #name { #(#variants,)* }
    }
}

/// The hand-written `impl Serialize` of `name`, whose `serialize` is `body` (over `self` and
/// `serializer`).
pub(super) fn serialize_impl(
    cfg: Option<&TokenStream>,
    name: &Ident,
    body: TokenStream,
) -> TokenStream {
    quote! {
        #cfg
        impl ::serde::Serialize for #name {
            fn serialize<S: ::serde::Serializer>(
                &self,
                serializer: S,
            ) -> ::std::result::Result<S::Ok, S::Error> {
                #body
            }
        }
    }
}

/// The `impl Deserialize` of `name` that reads the value whole, then lets `choose` decide:
/// tokens over `value: &serde_json::Value` that evaluate to `Result<Self, &'static str>` (or
/// another error that displays). With `links_runtime`, the choice is made inside serde_json's
/// visit of the value (`mcp_runtime::validate::deserialize_whole_value`), so its error is
/// positioned at the value and names the value's JSON pointer; otherwise the value is read into
/// a `serde_json::Value` first, and the error names the object or array around it.
pub(super) fn whole_value_deserialize(
    links_runtime: bool,
    cfg: Option<&TokenStream>,
    name: &Ident,
    doc: &[&str],
    choose: TokenStream,
) -> TokenStream {
    let body = if links_runtime {
        quote!(::mcp_runtime::validate::deserialize_whole_value(deserializer, |value| #choose))
    } else {
        quote! {
            let value = &<::serde_json::Value as ::serde::Deserialize>::deserialize(deserializer)?;
            let chosen: ::std::result::Result<Self, &'static str> = #choose;
            chosen.map_err(<D::Error as ::serde::de::Error>::custom)
        }
    };
    let doc = doc_attrs(doc);
    quote! {
        #doc
        #cfg
        impl<'de> ::serde::Deserialize<'de> for #name {
            fn deserialize<D: ::serde::Deserializer<'de>>(
                deserializer: D,
            ) -> ::std::result::Result<Self, D::Error> {
                #body
            }
        }
    }
}
