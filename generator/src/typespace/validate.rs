//! The generated validation: for every named type whose schema (or a member's) has a rule serde
//! does not check, an `impl ::mcp_runtime::validate::Validate` that calls the runtime's helper
//! for each rule, and nothing else. Reads only the IR ([`super::ir::Rule`]), never a schema.

use super::ir::{self, Body, Field, Presence, Rule, StructDef, Sub, TypeKind, VariantFields};
use super::recursion::Boxing;
use super::{TypeId, TypeSpace};
use crate::tokens::ident;
use proc_macro2::{Literal, TokenStream};
use quote::quote;

/// Which types need checks beyond serde's, decided once for a lowered type space.
pub struct Checks {
    needed: Vec<bool>,
    boxing: Boxing,
}

impl TypeSpace {
    /// Decides which types need checks (a type needs them when it has a rule, or holds a value
    /// of a type that does). Call after every schema is lowered.
    pub fn checks(&self) -> Checks {
        let boxing = Boxing::new(self);
        let n = self.types.len();
        let mut needed: Vec<bool> = (0..n)
            .map(|i| self.rules.contains_key(&TypeId(i)))
            .collect();
        // Least fixed point over the containment graph: cycles without rules stay unchecked.
        loop {
            let mut changed = false;
            for i in 0..n {
                if needed[i] {
                    continue;
                }
                if self
                    .children(TypeId(i), &boxing)
                    .iter()
                    .any(|c| needed[c.0])
                {
                    needed[i] = true;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        Checks { needed, boxing }
    }

    /// The types a value of `ty` holds.
    fn children(&self, ty: TypeId, boxing: &Boxing) -> Vec<TypeId> {
        let fields = |def: &StructDef| def.fields.iter().map(|f| f.ty).collect::<Vec<_>>();
        match &self.types[ty.0] {
            TypeKind::Builtin(_) => Vec::new(),
            TypeKind::Vec(inner) | TypeKind::Map(inner) | TypeKind::Option(inner) => vec![*inner],
            TypeKind::Named(named) => match &named.body {
                Body::Alias(_) if boxing.alias_in_cycle(ty) => Vec::new(),
                Body::Alias(target) => vec![*target],
                Body::Struct(def) => fields(def),
                Body::Tagged(def) => def
                    .variants
                    .iter()
                    .flat_map(|v| match &v.fields {
                        VariantFields::Inline(def) => fields(def),
                        VariantFields::FromStruct(id) => {
                            self.struct_def(*id).map(fields).unwrap_or_default()
                        }
                    })
                    .collect(),
                Body::Untagged(variants) => variants.iter().map(|v| v.ty).collect(),
                Body::Tuple(items) => items.clone(),
                Body::StringEnum(_) | Body::Literal(_) | Body::Pending(_) => Vec::new(),
            },
        }
    }
}

impl Checks {
    /// Whether a value of `ty` has checks: generated code then calls
    /// `::mcp_runtime::validate::check` on it after decoding.
    pub fn needed(&self, ty: TypeId) -> bool {
        self.needed.get(ty.0).copied().unwrap_or(false)
    }

    /// Statements adding to `out` what `value` (a reference to a value of `ty`) breaks at
    /// `path`; `None` when `ty` has no checks.
    pub(crate) fn value_checks(&self, space: &TypeSpace, ty: TypeId) -> Option<TokenStream> {
        if !self.needed(ty) {
            return None;
        }
        let emitter = Emitter {
            space,
            checks: self,
        };
        Some(emitter.value_checks(ty))
    }

    /// The `impl ::mcp_runtime::validate::Validate` of the named type `id`, when it needs one.
    pub fn emit_for(&self, space: &TypeSpace, id: TypeId) -> Option<TokenStream> {
        if !self.needed[id.0] {
            return None;
        }
        let TypeKind::Named(named) = &space.types[id.0] else {
            return None;
        };
        let emitter = Emitter {
            space,
            checks: self,
        };
        emitter.impl_for(id, &named.name, &named.body)
    }

    /// The `impl ::mcp_runtime::validate::Validate` items, for the types module, in type order.
    pub fn emit(&self, space: &TypeSpace) -> Vec<TokenStream> {
        let emitter = Emitter {
            space,
            checks: self,
        };
        space
            .types
            .iter()
            .enumerate()
            .filter(|(i, _)| self.needed[*i])
            .filter_map(|(i, kind)| match kind {
                TypeKind::Named(named) => emitter.impl_for(TypeId(i), &named.name, &named.body),
                _ => None,
            })
            .collect()
    }
}

struct Emitter<'a> {
    space: &'a TypeSpace,
    checks: &'a Checks,
}

impl Emitter<'_> {
    fn impl_for(&self, id: TypeId, name: &str, body: &Body) -> Option<TokenStream> {
        let checks = match body {
            Body::Struct(def) => {
                let fields = self.struct_fields(def, |field| {
                    let name = ident(&field.name);
                    quote!(&self.#name)
                });
                let own = self.own_rules(id, Some(def));
                quote!(#fields #own)
            }
            Body::Tagged(def) => {
                let arms = def.variants.iter().map(|variant| {
                    let vname = ident(&variant.name);
                    let fields = match &variant.fields {
                        VariantFields::Inline(fields) => Some(fields),
                        VariantFields::FromStruct(id) => self.space.struct_def(*id),
                    };
                    let checked: Vec<&Field> = fields
                        .into_iter()
                        .flat_map(|d| d.fields.iter())
                        .filter(|f| f.flatten || f.wire != def.tag)
                        .filter(|f| self.checks.needed(f.ty))
                        .collect();
                    if checked.is_empty() {
                        return quote!(Self::#vname { .. } => {});
                    }
                    let names: Vec<_> = checked.iter().map(|f| ident(&f.name)).collect();
                    let kept = StructDef {
                        fields: checked.iter().map(|f| (*f).clone()).collect(),
                        deny_unknown_fields: false,
                    };
                    let body = self.struct_fields(&kept, |field| {
                        let name = ident(&field.name);
                        quote!(#name)
                    });
                    quote!(Self::#vname { #(#names,)* .. } => { #body })
                });
                quote! {
                    match self {
                        #(#arms)*
                    }
                }
            }
            Body::Untagged(variants) => {
                let arms = variants.iter().map(|variant| {
                    let vname = ident(&variant.name);
                    if self.checks.needed(variant.ty) {
                        let inner = self.value_checks(variant.ty);
                        quote!(Self::#vname(value) => { #inner })
                    } else {
                        quote!(Self::#vname(_) => {})
                    }
                });
                quote! {
                    match self {
                        #(#arms)*
                    }
                }
            }
            Body::Tuple(items) => self.tuple_items(items),
            // Aliases are checked where they are used (a `pub type` cannot have an impl).
            Body::Alias(_) | Body::StringEnum(_) | Body::Literal(_) | Body::Pending(_) => {
                return None
            }
        };
        let name = ident(name);
        Some(quote! {
            impl ::mcp_runtime::validate::Validate for #name {
                fn validate(
                    &self,
                    path: &::mcp_runtime::validate::Path<'_>,
                    out: &mut ::mcp_runtime::validate::Violations,
                ) {
                    #checks
                }
            }
        })
    }

    /// The checks of each field that needs them, its value given by `access` (an expression of
    /// a reference to the field) at the member's path (a flattened map's entries are members of
    /// the object itself).
    fn struct_fields(
        &self,
        def: &StructDef,
        access: impl Fn(&Field) -> TokenStream,
    ) -> TokenStream {
        let fields = def
            .fields
            .iter()
            .filter(|f| self.checks.needed(f.ty))
            .map(|field| {
                let value = access(field);
                let checks = self.value_checks(field.ty);
                let path = if field.flatten {
                    quote!()
                } else {
                    let wire = &field.wire;
                    quote!(let path = &path.key(#wire);)
                };
                quote! {
                    {
                        #path
                        let value = #value;
                        #checks
                    }
                }
            });
        quote!(#(#fields)*)
    }

    /// The checks of each item of a tuple struct that needs them, at the item's index.
    fn tuple_items(&self, items: &[TypeId]) -> TokenStream {
        let checks = items
            .iter()
            .enumerate()
            .filter(|(_, ty)| self.checks.needed(**ty))
            .map(|(index, ty)| {
                let field = proc_macro2::Literal::usize_unsuffixed(index);
                let checks = self.value_checks(*ty);
                quote! {
                    {
                        let path = &path.index(#index);
                        let value = &self.#field;
                        #checks
                    }
                }
            });
        quote!(#(#checks)*)
    }

    /// Statements checking `value` (a reference to a value of `ty`) at `path`.
    fn value_checks(&self, ty: TypeId) -> TokenStream {
        let kind = &self.space.types[ty.0];
        let own = match kind {
            // A named type's own rules are in its impl.
            TypeKind::Named(named) if !matches!(named.body, Body::Alias(_)) => quote!(),
            _ => self.own_rules(ty, None),
        };
        let inner = match kind {
            TypeKind::Builtin(_) => quote!(),
            TypeKind::Option(inner) if self.checks.needed(*inner) => {
                let inner = self.value_checks(*inner);
                quote! {
                    if let ::std::option::Option::Some(value) = value {
                        #inner
                    }
                }
            }
            TypeKind::Vec(inner) if self.checks.needed(*inner) => {
                let inner = self.value_checks(*inner);
                quote! {
                    for (index, value) in value.iter().enumerate() {
                        let path = &path.index(index);
                        #inner
                    }
                }
            }
            TypeKind::Map(inner) if self.checks.needed(*inner) => {
                let inner = self.value_checks(*inner);
                quote! {
                    for (key, value) in value {
                        let path = &path.key(key);
                        #inner
                    }
                }
            }
            TypeKind::Option(_) | TypeKind::Vec(_) | TypeKind::Map(_) => quote!(),
            TypeKind::Named(named) => match &named.body {
                Body::Alias(_) if self.checks.boxing.alias_in_cycle(ty) => quote!(),
                Body::Alias(target) if self.checks.needed(*target) => self.value_checks(*target),
                Body::Alias(_) => quote!(),
                _ if self.checks.needed(ty) => {
                    quote!(::mcp_runtime::validate::Validate::validate(value, path, out);)
                }
                _ => quote!(),
            },
        };
        quote!(#own #inner)
    }

    /// The calls for the rules of `ty` itself; `def` is its struct, for the property count.
    fn own_rules(&self, ty: TypeId, def: Option<&StructDef>) -> TokenStream {
        let Some(rules) = self.space.rules.get(&ty) else {
            return quote!();
        };
        let v = quote!(::mcp_runtime::validate);
        let n = |n: &u64| Literal::u64_unsuffixed(*n);
        let applied = self.applicator_checks(ty, def, rules);
        let calls = rules.iter().filter(|rule| !is_applicator(rule)).map(|rule| match rule {
            Rule::Minimum { bound, exclusive } => {
                let bound = Literal::f64_unsuffixed(*bound);
                quote!(#v::minimum(*value, #bound, #exclusive, path, out);)
            }
            Rule::Maximum { bound, exclusive } => {
                let bound = Literal::f64_unsuffixed(*bound);
                quote!(#v::maximum(*value, #bound, #exclusive, path, out);)
            }
            Rule::MultipleOf(factor) => {
                let factor = Literal::f64_unsuffixed(*factor);
                quote!(#v::multiple_of(*value, #factor, path, out);)
            }
            Rule::MinLength(count) => { let n = n(count); quote!(#v::min_length(value, #n, path, out);) }
            Rule::MaxLength(count) => { let n = n(count); quote!(#v::max_length(value, #n, path, out);) }
            Rule::Pattern(pattern) => {
                let lit = crate::tokens::str_lit(pattern);
                quote!(#v::pattern(value, ::mcp_runtime::compiled_pattern!(#lit), #lit, path, out);)
            }
            Rule::Format(format) => {
                let checker = ident(&format.replace('-', "_"));
                quote!(#v::format(value, #v::formats::#checker, #format, path, out);)
            }
            Rule::MinItems(count) => { let n = n(count); quote!(#v::min_items(value.len(), #n, path, out);) }
            Rule::MaxItems(count) => { let n = n(count); quote!(#v::max_items(value.len(), #n, path, out);) }
            Rule::UniqueItems => quote!(#v::unique_items(value, path, out);),
            Rule::MinProperties(bound) => {
                let (count, n) = (property_count(def), n(bound));
                quote!(#v::min_properties(#count, #n, path, out);)
            }
            Rule::MaxProperties(bound) => {
                let (count, n) = (property_count(def), n(bound));
                quote!(#v::max_properties(#count, #n, path, out);)
            }
            Rule::Const(value) => {
                let json = crate::tokens::str_lit(&value.to_string());
                quote! {
                    {
                        static EXPECTED: ::std::sync::LazyLock<::serde_json::Value> =
                            ::std::sync::LazyLock::new(|| #v::constant_value(#json));
                        #v::constant(value, &EXPECTED, path, out);
                    }
                }
            }
            Rule::Enum(values) => {
                let json = crate::tokens::str_lit(&serde_json::Value::Array(values.clone()).to_string());
                quote! {
                    {
                        static ALLOWED: ::std::sync::LazyLock<::std::vec::Vec<::serde_json::Value>> =
                            ::std::sync::LazyLock::new(|| #v::constant_values(#json));
                        #v::one_of(value, &ALLOWED, path, out);
                    }
                }
            }
            Rule::Not(_) | Rule::Conditional { .. } | Rule::PatternProperties(_) => quote!(),
        });
        quote!(#(#calls)* #applied)
    }

    /// The checks of `not`, `if`/`then`/`else` and `patternProperties`, on the value as JSON:
    /// itself when it is a `serde_json::Value`, else serialized once (only types with such a
    /// rule pay for it).
    fn applicator_checks(
        &self,
        ty: TypeId,
        def: Option<&StructDef>,
        rules: &[Rule],
    ) -> TokenStream {
        let applicators: Vec<&Rule> = rules.iter().filter(|r| is_applicator(r)).collect();
        if applicators.is_empty() {
            return quote!();
        }
        let v = quote!(::mcp_runtime::validate);
        let subject = if def.is_some() {
            quote!(self)
        } else {
            quote!(value)
        };
        let json = if self.is_json(ty) {
            quote!(let json: &::serde_json::Value = #subject;)
        } else {
            quote! {
                let json = &::serde_json::to_value(#subject).unwrap_or(::serde_json::Value::Null);
            }
        };
        let checks = applicators.iter().map(|rule| match rule {
            Rule::Not(sub) => {
                let matches = predicate(&sub.check);
                let text = crate::tokens::str_lit(&sub.text);
                quote!(#v::not(#matches, #text, path, out);)
            }
            Rule::Conditional {
                when,
                then,
                otherwise,
            } => {
                let when = predicate(&when.check);
                let branch = |applied: &Option<ir::Applied>, helper: TokenStream| match applied {
                    Some(applied) => {
                        let matches = predicate(&applied.check);
                        let text = crate::tokens::str_lit(&applied.text);
                        quote!(#v::#helper(#matches, #text, path, out);)
                    }
                    None => quote!(),
                };
                let then = branch(then, quote!(then));
                let otherwise = branch(otherwise, quote!(otherwise));
                quote! {
                    if #when { #then } else { #otherwise }
                }
            }
            Rule::PatternProperties(patterns) => {
                let arms = patterns.iter().map(|(pattern, sub)| {
                    let lit = crate::tokens::str_lit(pattern);
                    let matches = predicate(&sub.check);
                    let text = crate::tokens::str_lit(&sub.text);
                    quote! {
                        if ::mcp_runtime::compiled_pattern!(#lit).is_match(key) {
                            let path = &path.key(key);
                            #v::pattern_property(#matches, #lit, #text, path, out);
                        }
                    }
                });
                quote! {
                    if let ::std::option::Option::Some(members) = json.as_object() {
                        for (key, json) in members {
                            #(#arms)*
                        }
                    }
                }
            }
            _ => quote!(),
        });
        quote! {
            {
                #json
                #(#checks)*
            }
        }
    }

    /// Whether a value of `ty` is a `serde_json::Value` (through aliases).
    fn is_json(&self, mut ty: TypeId) -> bool {
        for _ in 0..32 {
            match &self.space.types[ty.0] {
                TypeKind::Builtin(ir::Builtin::Value) => return true,
                TypeKind::Named(named) => match &named.body {
                    Body::Alias(target) => ty = *target,
                    _ => return false,
                },
                _ => return false,
            }
        }
        false
    }
}

/// Whether `rule` applies a sub-schema (checked on the value as JSON).
fn is_applicator(rule: &Rule) -> bool {
    matches!(
        rule,
        Rule::Not(_) | Rule::Conditional { .. } | Rule::PatternProperties(_)
    )
}

/// A `bool` expression: whether `json` (a `&serde_json::Value` in scope) matches `sub`.
fn predicate(sub: &Sub) -> TokenStream {
    let v = quote!(::mcp_runtime::validate);
    match sub {
        Sub::Any => quote!(true),
        Sub::Nothing => quote!(false),
        Sub::All(subs) => {
            let each = subs.iter().map(predicate);
            quote!((#(#each)&&*))
        }
        Sub::Type(names) => quote!(#v::has_type(json, &[#(#names),*])),
        Sub::Const(value) => {
            let text = crate::tokens::str_lit(&value.to_string());
            quote! {
                {
                    static EXPECTED: ::std::sync::LazyLock<::serde_json::Value> =
                        ::std::sync::LazyLock::new(|| #v::constant_value(#text));
                    #v::json_equal(json, &EXPECTED)
                }
            }
        }
        Sub::Enum(values) => {
            let text =
                crate::tokens::str_lit(&serde_json::Value::Array(values.clone()).to_string());
            quote! {
                {
                    static ALLOWED: ::std::sync::LazyLock<::std::vec::Vec<::serde_json::Value>> =
                        ::std::sync::LazyLock::new(|| #v::constant_values(#text));
                    ALLOWED.iter().any(|allowed| #v::json_equal(json, allowed))
                }
            }
        }
        Sub::Required(names) => quote!(#v::has_members(json, &[#(#names),*])),
        Sub::Property(name, inner) => {
            let inner = predicate(inner);
            quote! {
                match json.get(#name) {
                    ::std::option::Option::Some(json) => #inner,
                    ::std::option::Option::None => true,
                }
            }
        }
    }
}

/// The number of members an object has: a map's length, or a struct's members present (a
/// required or defaulted field always is, an optional one when `Some`, a flattened map's
/// entries each).
fn property_count(def: Option<&StructDef>) -> TokenStream {
    let Some(def) = def else {
        return quote!(value.len());
    };
    let mut fixed = 0usize;
    let mut parts = Vec::new();
    for field in &def.fields {
        let name = ident(&field.name);
        match (&field.presence, field.flatten) {
            (_, true) => parts.push(quote!(self.#name.len())),
            (Presence::Optional, false) => {
                parts.push(quote!(::std::primitive::usize::from(self.#name.is_some())))
            }
            _ => fixed += 1,
        }
    }
    match (fixed, parts.split_first()) {
        (0, Some((first, rest))) => quote!(#first #(+ #rest)*),
        _ => {
            let fixed = Literal::usize_unsuffixed(fixed);
            quote!(#fixed #(+ #parts)*)
        }
    }
}
