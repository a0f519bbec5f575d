//! `pub mod errors`: one constructor per distinct error the contract declares (a method's
//! `errors`, `$ref`s into `components.errors` followed), returning the runtime's
//! `mcp_runtime::Error` with the contract's code and message.
//!
//! An error is one `(code, message)` pair: the same pair declared on several methods is one
//! constructor whose doc names them all; one code with two messages is two constructors (and a
//! `contract-error-duplicate-code` warning from [`crate::validate`]). The name is the message in
//! snake case through [`crate::names::snake_ident`], made unique with a [`crate::names::Scope`] in the order the
//! errors are first declared (methods in document order), so output is deterministic.
//!
//! OpenRPC 1.x makes an error's `data` "a primitive or structured value", not a schema: it is
//! read as an example. An error declaring `data` gets a constructor taking
//! `data: impl serde::Serialize` (the example shown in its doc); one without takes nothing
//! (`.with_data(...)` still attaches data).

use proc_macro2::TokenStream;
use quote::quote;

use crate::openrpc::errors::{contract_errors, ContractError};
use crate::openrpc::Document;
use crate::tokens::{doc_attrs, ident};

/// `pub mod errors { ... }`: a constructor per contract error; nothing when the contract
/// declares none.
pub(crate) fn errors_module(document: &Document) -> TokenStream {
    let errors = contract_errors(document);
    if errors.is_empty() {
        return TokenStream::new();
    }
    let constructors = errors.into_iter().map(constructor);
    quote! {
        /// The errors the contract declares, one constructor each: the contract's code and
        /// message as an `mcp_runtime::Error`, which a tool reports as an `isError` result
        /// and a plain JSON-RPC method as a JSON-RPC error with that code, message and data.
        #[allow(clippy::all, clippy::pedantic, dead_code)]
        pub mod errors {
            #(#constructors)*
        }
    }
}

fn constructor(error: ContractError) -> TokenStream {
    let ContractError {
        code,
        message,
        data,
        methods,
        fn_name,
        ..
    } = error;
    let mut lines = vec![
        match message.trim() {
            "" => format!("`{code}` (the contract gives no message)"),
            _ => format!("`{code}`: {message}"),
        },
        String::new(),
        format!(
            "Declared by {}.",
            methods
                .iter()
                .map(|m| format!("`{m}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    ];
    if let Some(example) = &data {
        lines.push(String::new());
        lines.push(format!("The contract's example `data`: `{example}`"));
        lines.push(String::new());
        lines.push(
            "A value `serde_json` cannot represent (a map with non-string keys) leaves `data` out."
                .to_string(),
        );
    }
    let docs = doc_attrs(&lines);
    let name = ident(&fn_name);
    match data {
        Some(_) => quote! {
            #docs
            pub fn #name(data: impl ::serde::Serialize) -> ::mcp_runtime::Error {
                let error = ::mcp_runtime::Error::with_code(#code, #message);
                match ::serde_json::to_value(data) {
                    ::std::result::Result::Ok(data) => error.with_data(data),
                    ::std::result::Result::Err(_) => error,
                }
            }
        },
        None => quote! {
            #docs
            pub fn #name() -> ::mcp_runtime::Error {
                ::mcp_runtime::Error::with_code(#code, #message)
            }
        },
    }
}
