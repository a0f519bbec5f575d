//! Literal enums to tokens: a fieldless enum with hand-written serde impls, since serde's
//! derives only name variants by strings. Each variant writes its JSON value back exactly and
//! reads it from any equal JSON value (`1.0` for `1`), the value read whole ([`whole_value_deserialize`]).

use super::{serialize_impl, whole_value_deserialize};
use crate::tokens::ident;
use crate::typespace::ir::LiteralEnumDef;
use proc_macro2::{Ident, Literal, TokenStream};
use quote::quote;
use serde_json::Value;

/// The enum, its `Serialize` and its `Deserialize`.
pub(super) fn literal_enum(
    docs: &TokenStream,
    cfg: Option<&TokenStream>,
    name: &Ident,
    def: &LiteralEnumDef,
    links_runtime: bool,
) -> TokenStream {
    let variants = def.variants.iter().enumerate().map(|(index, variant)| {
        let vname = ident(&variant.name);
        let default = (def.is_const && index == 0).then(|| quote!(#[default]));
        quote!(#default #vname)
    });
    let default = def
        .is_const
        .then(|| quote!(#[derive(::std::default::Default)]));
    let writes = def.variants.iter().map(|variant| {
        let vname = ident(&variant.name);
        let write = write_value(&variant.value);
        quote!(Self::#vname => #write)
    });
    let reads = def.variants.iter().map(|variant| {
        let vname = ident(&variant.name);
        let pattern = read_pattern(&variant.value);
        quote!(#pattern => ::std::result::Result::Ok(Self::#vname))
    });
    let listed: Vec<String> = def.variants.iter().map(|v| v.value.to_string()).collect();
    let expected = match listed.as_slice() {
        [single] => format!("must be {single}"),
        several => format!("must be one of {}", several.join(", ")),
    };
    let expected = crate::tokens::str_lit(&expected);
    let serialize = serialize_impl(cfg, name, quote!(match self { #(#writes,)* }));
    let deserialize = whole_value_deserialize(
        links_runtime,
        cfg,
        name,
        &[],
        quote!(match value {
            #(#reads,)*
            _ => ::std::result::Result::Err(#expected),
        }),
    );
    quote! {
        #docs
        #[derive(::std::fmt::Debug, ::std::clone::Clone, ::std::marker::Copy)]
        #[derive(::std::cmp::PartialEq, ::std::cmp::Eq, ::std::hash::Hash)]
        #default
        pub enum #name { #(#variants,)* }

        #serialize

        #deserialize
    }
}

/// The serializer call that writes `value`.
fn write_value(value: &Value) -> TokenStream {
    match value {
        Value::Null => quote!(serializer.serialize_unit()),
        Value::Bool(b) => quote!(serializer.serialize_bool(#b)),
        Value::String(s) => {
            let s = crate::tokens::str_lit(s);
            quote!(serializer.serialize_str(#s))
        }
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                let lit = Literal::i64_suffixed(i);
                quote!(serializer.serialize_i64(#lit))
            } else if let Some(u) = n.as_u64() {
                let lit = Literal::u64_suffixed(u);
                quote!(serializer.serialize_u64(#lit))
            } else {
                let lit = Literal::f64_suffixed(n.as_f64().unwrap_or_default());
                quote!(serializer.serialize_f64(#lit))
            }
        }
        // Lowering keeps arrays and objects out of literal enums.
        Value::Array(_) | Value::Object(_) => quote!(serializer.serialize_unit()),
    }
}

/// A pattern (with guard) on `&serde_json::Value` matching the JSON values equal to `value`:
/// an integer also as a float of the same value (`2.0` for `2`), a float by value.
fn read_pattern(value: &Value) -> TokenStream {
    match value {
        Value::Null => quote!(::serde_json::Value::Null),
        Value::Bool(b) => quote!(::serde_json::Value::Bool(#b)),
        Value::String(s) => {
            let s = crate::tokens::str_lit(s);
            quote!(::serde_json::Value::String(s) if s == #s)
        }
        Value::Number(n) => {
            let float = Literal::f64_suffixed(n.as_f64().unwrap_or_default());
            let as_float = quote!(n.as_f64() == ::std::option::Option::Some(#float));
            let test = if let Some(i) = n.as_i64() {
                let lit = Literal::i64_suffixed(i);
                quote!(n.as_i64() == ::std::option::Option::Some(#lit) || (n.is_f64() && #as_float))
            } else if let Some(u) = n.as_u64() {
                let lit = Literal::u64_suffixed(u);
                quote!(n.as_u64() == ::std::option::Option::Some(#lit) || (n.is_f64() && #as_float))
            } else {
                as_float
            };
            quote!(::serde_json::Value::Number(n) if #test)
        }
        Value::Array(_) | Value::Object(_) => quote!(_ if false),
    }
}
