//! `pub mod errors`: one constructor per distinct error the contract declares (a method's
//! `errors`, `$ref`s into `components.errors` followed), returning the runtime's
//! `mcp_runtime::Error` with the contract's code and message.
//!
//! An error is one `(code, message)` pair: the same pair declared on several methods is one
//! constructor whose doc names them all; one code with two messages is two constructors (and a
//! `contract-error-duplicate-code` warning from [`crate::validate`]). The name is the message in
//! snake case through [`names::snake_ident`], made unique with a [`names::Scope`] in the order the
//! errors are first declared (methods in document order), so output is deterministic.
//!
//! OpenRPC 1.x makes an error's `data` "a primitive or structured value", not a schema: it is
//! read as an example. An error declaring `data` gets a constructor taking
//! `data: impl serde::Serialize` (the example shown in its doc); one without takes nothing
//! (`.with_data(...)` still attaches data).

use proc_macro2::TokenStream;
use quote::quote;

use crate::diagnostics::Location;
use crate::names;
use crate::openrpc::Document;
use crate::tokens::{doc_attrs, ident};

/// One distinct `(code, message)` of the contract.
#[derive(Debug, Clone)]
pub(crate) struct ContractError {
    /// The JSON-RPC error code.
    pub code: i32,
    /// The message.
    pub message: String,
    /// The first `data` declared with it, if any (an example value).
    pub data: Option<serde_json::Value>,
    /// The methods declaring it, in document order, without repeats.
    pub methods: Vec<String>,
    /// Where it was first declared.
    pub location: Location,
    /// The constructor's name.
    pub fn_name: String,
}

/// The distinct errors of `document`, in the order they are first declared.
pub(crate) fn contract_errors(document: &Document) -> Vec<ContractError> {
    let mut errors: Vec<ContractError> = Vec::new();
    for method in &document.methods {
        for error in &method.errors {
            // Codes out of `i32` are refused by the loader.
            let Ok(code) = i32::try_from(error.code) else {
                continue;
            };
            match errors
                .iter_mut()
                .find(|e| e.code == code && e.message == error.message)
            {
                Some(known) => {
                    if !known.methods.contains(&method.name) {
                        known.methods.push(method.name.clone());
                    }
                    if known.data.is_none() {
                        known.data.clone_from(&error.data);
                    }
                }
                None => errors.push(ContractError {
                    code,
                    message: error.message.clone(),
                    data: error.data.clone(),
                    methods: vec![method.name.clone()],
                    location: error.location.clone(),
                    fn_name: String::new(),
                }),
            }
        }
    }
    let mut scope = names::Scope::new();
    for error in &mut errors {
        let mut name = names::snake_ident(&error.message);
        if error.message.trim().is_empty() || name == "field" && error.message != "field" {
            name = format!("error_{}", error.code.unsigned_abs());
        }
        error.fn_name = scope.unique_ident(&name);
    }
    errors
}

/// `pub mod errors { ... }`: a constructor per contract error (an empty module when there are
/// none, so handlers can name the module in any case).
pub(crate) fn errors_module(document: &Document) -> TokenStream {
    let constructors = contract_errors(document).into_iter().map(constructor);
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
