//! The contract's errors: the distinct `(code, message)` pairs its methods declare (a method's
//! `errors`, `$ref`s into `components.errors` followed), each with the name of its generated
//! constructor. Read by the validation (reserved and duplicate codes) and by the emitter of
//! `pub mod errors` (`crate::emit`), which is why it lives with the document, below both.

use crate::diagnostics::Location;
use crate::names;
use crate::openrpc::Document;

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
