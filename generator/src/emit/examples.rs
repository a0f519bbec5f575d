//! `--example-tests`: each OpenRPC example pairing of the contract as a test of the user's
//! handler. The example's params decode into the method's params type, go through the handler,
//! and the result must equal the example's result as JSON.
//!
//! An example that cannot become a test (a param the method does not declare, a required one
//! missing, a value of the wrong JSON type...) is a warning and is left out, never broken code.

use proc_macro2::TokenStream;
use quote::quote;
use serde_json::Value;

use super::Signature;
use crate::diagnostics::{Diagnostic, Location};
use crate::names::{sanitize, snake_ident, Scope};
use crate::openrpc::{ContentDescriptor, Document, ExamplePairing, Method, ParamStructure};
use crate::tokens::str_lit;
use crate::tokens::{doc_attrs, ident};

/// Rule id: an example pairing that does not fit its method (and is not made a test).
pub const RULE_EXAMPLES: &str = "example-mismatch";

/// The handler type the tests build when none is named: the scaffold's `App`.
pub const DEFAULT_HANDLER: &str = "crate::handler::App";

/// The emitted test module and the examples left out.
#[derive(Debug, Clone)]
pub struct ExampleTests {
    /// `#[cfg(test)] mod contract_examples { ... }`, formatted, to append to the server source.
    pub source: String,
    /// How many tests it holds.
    pub tests: usize,
    /// A warning per example left out.
    pub warnings: Vec<Diagnostic>,
}

/// The test module for every example of `document`. `signatures` are the emitted handler
/// methods; `handler` is the type under test, a path from the crate root that implements
/// `Default` and the generated `Handler`.
pub fn example_tests(
    document: &Document,
    signatures: &[Signature],
    handler: &syn::Type,
) -> ExampleTests {
    let mut scope = Scope::new();
    for helper in ["handler", "decode", "check", "same"] {
        scope.reserve(helper);
    }
    let mut tests = Vec::new();
    let mut warnings = Vec::new();
    for method in &document.methods {
        let Some(signature) = signatures.iter().find(|s| s.wire_name == method.name) else {
            continue;
        };
        for (i, pairing) in method.examples.iter().enumerate() {
            let name = pairing
                .name
                .clone()
                .unwrap_or_else(|| format!("example {}", i + 1));
            match case(document, method, pairing) {
                Ok(case) => {
                    let test_name = scope.unique_ident(&test_ident(&signature.fn_name, &name));
                    tests.push(test(signature, pairing, &name, &test_name, &case));
                }
                Err((location, why)) => warnings.push(Diagnostic::warning(
                    RULE_EXAMPLES,
                    location,
                    format!(
                        "example {name:?} of method `{}` is not made a test: {why}",
                        method.name
                    ),
                )),
            }
        }
    }
    let count = tests.len();
    let tokens = quote! {
        /// The contract's example pairings, each a test of the handler (`--example-tests`):
        /// the example's params go through the handler, and its result must equal the
        /// example's as JSON.
        #[cfg(test)]
        #[allow(clippy::all, clippy::pedantic, dead_code, unused_imports)]
        mod contract_examples {
            use ::mcp_runtime::RequestContext;
            use super::types;
            use super::Handler;

            /// The handler under test, as `Default` builds it.
            fn handler() -> #handler {
                <#handler as ::std::default::Default>::default()
            }

            /// The example's params (a JSON object by param name) as the params type.
            #[track_caller]
            fn decode<T: ::serde::de::DeserializeOwned>(method: &str, example: &str, params: &str) -> T {
                let value: ::serde_json::Value = ::serde_json::from_str(params).expect("example params are JSON");
                match ::serde_json::from_value(value) {
                    Ok(params) => params,
                    Err(error) => panic!("method `{method}`, example {example:?}: the params do not decode into the method's params type: {error}"),
                }
            }

            /// Fails unless the handler succeeded with the example's result (`None`: any result).
            /// A failure points at the test's line (`track_caller`; so no panic in a closure).
            #[track_caller]
            fn check<T: ::serde::Serialize>(
                method: &str,
                example: &str,
                result: Result<T, ::mcp_runtime::Error>,
                expected: Option<&str>,
            ) {
                let result = match result {
                    Ok(result) => result,
                    Err(error) => panic!("method `{method}`, example {example:?}: the handler returned an error: {error}"),
                };
                let Some(expected) = expected else { return };
                let expected: ::serde_json::Value = ::serde_json::from_str(expected).expect("example results are JSON");
                let actual = match ::serde_json::to_value(&result) {
                    Ok(actual) => actual,
                    Err(error) => panic!("method `{method}`, example {example:?}: the result does not serialize: {error}"),
                };
                if !same(&actual, &expected) {
                    panic!("method `{method}`, example {example:?}: the handler's result differs from the example's\n  expected: {expected}\n  actual:   {actual}");
                }
            }

            /// JSON equality where numbers compare by value (`2` equals `2.0`).
            fn same(a: &::serde_json::Value, b: &::serde_json::Value) -> bool {
                use ::serde_json::Value;
                match (a, b) {
                    (Value::Number(x), Value::Number(y)) => x == y || x.as_f64() == y.as_f64(),
                    (Value::Array(x), Value::Array(y)) => {
                        x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y))
                    }
                    (Value::Object(x), Value::Object(y)) => {
                        x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
                    }
                    _ => a == b,
                }
            }

            #(#tests)*
        }
    };
    ExampleTests {
        source: super::format::format_items(tokens),
        tests: count,
        warnings,
    }
}

/// `{fn}_{example}`, a valid identifier whatever the example's name.
fn test_ident(fn_name: &str, example: &str) -> String {
    let example = snake_ident(example);
    let joined = format!(
        "{}_{}",
        fn_name.trim_start_matches("r#"),
        example.trim_start_matches("r#")
    );
    sanitize(&joined, "example")
}

/// An example that fits its method: the params object and the expected result, as JSON text.
struct Case {
    params: String,
    result: Option<String>,
}

/// Why an example does not fit: where, and what is wrong.
type Misfit = (Location, String);

/// Checks `pairing` against `method`: every param it gives is declared (by name, or by
/// position), every required param is given, every value has a JSON type its schema allows, and a result only for a method
/// that has one.
fn case(document: &Document, method: &Method, pairing: &ExamplePairing) -> Result<Case, Misfit> {
    let misfit = |location: &Location, why: String| Err((location.clone(), why));
    let Some(examples) = &pairing.params else {
        return misfit(
            &pairing.location,
            "its `params` must be an array of Example objects ({\"name\": PARAM, \"value\": ...})"
                .into(),
        );
    };
    // Param examples are matched by name when every name is a param's. Otherwise, as in the
    // specification's own examples (`{"name": "two", "value": 2}`), the name is the example's
    // and the position says which param it is: allowed unless the method takes params by name.
    let by_name = examples.iter().all(|e| {
        e.name
            .as_ref()
            .is_some_and(|n| method.params.iter().any(|p| &p.name == n))
    });
    let positional = !by_name
        && method.param_structure != ParamStructure::ByName
        && examples.len() <= method.params.len();
    let mut params = serde_json::Map::new();
    for (j, example) in examples.iter().enumerate() {
        if positional {
            let param = &method.params[j];
            let Some(value) = &example.value else {
                return misfit(
                    &example.location,
                    format!("param {:?} has no `value`", param.name),
                );
            };
            if let Err(why) = fits(document, param, value) {
                return misfit(&example.location, format!("param {:?}: {why}", param.name));
            }
            params.insert(param.name.clone(), value.clone());
            continue;
        }
        let Some(name) = &example.name else {
            return misfit(
                &example.location,
                "a param example has no `name`: it must name the param it is the value of".into(),
            );
        };
        let Some(param) = method.params.iter().find(|p| &p.name == name) else {
            let declared: Vec<&str> = method.params.iter().map(|p| p.name.as_str()).collect();
            return misfit(
                &example.location,
                format!(
                    "it gives param {name:?}, which the method does not declare (its params: {})",
                    if declared.is_empty() {
                        "none".into()
                    } else {
                        declared.join(", ")
                    }
                ),
            );
        };
        let Some(value) = &example.value else {
            return misfit(&example.location, format!("param {name:?} has no `value`"));
        };
        if let Err(why) = fits(document, param, value) {
            return misfit(&example.location, format!("param {name:?}: {why}"));
        }
        if params.insert(name.clone(), value.clone()).is_some() {
            return misfit(&example.location, format!("it gives param {name:?} twice"));
        }
    }
    if let Some(missing) = method
        .params
        .iter()
        .find(|p| p.required && !params.contains_key(&p.name))
    {
        return misfit(
            &pairing.location,
            format!("it does not give the required param {:?}", missing.name),
        );
    }
    let result = match (&pairing.result, &method.result) {
        (None, _) => None,
        (Some(example), None) => {
            return misfit(
                &example.location,
                "it has a `result`, but the method has none (a notification)".into(),
            )
        }
        (Some(example), Some(declared)) => {
            let Some(value) = &example.value else {
                return misfit(&example.location, "its `result` has no `value`".into());
            };
            if let Err(why) = fits(document, declared, value) {
                return misfit(&example.location, format!("its result: {why}"));
            }
            Some(value.to_string())
        }
    };
    Ok(Case {
        params: Value::Object(params).to_string(),
        result,
    })
}

/// Whether `value` has a JSON type the descriptor's schema allows (its top-level `type`, after
/// following `$ref`s): the check the generator can make without the generated types. A value
/// that passes and still does not decode fails its test, with serde's reason.
fn fits(document: &Document, descriptor: &ContentDescriptor, value: &Value) -> Result<(), String> {
    let mut schema = &descriptor.schema;
    // A `$ref` chain is bounded by the schemas there are (loading rejected cycles).
    for _ in 0..=document.schemas.len() {
        match schema
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|key| document.schemas.get(key))
        {
            Some(named) => schema = &named.schema,
            None => break,
        }
    }
    let allowed: Vec<&str> = match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => return Ok(()),
    };
    let found = match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    };
    let ok = allowed
        .iter()
        .any(|t| *t == found || (*t == "number" && found == "integer"));
    // An optional param may be null: its Rust type is an `Option`.
    if ok || (found == "null" && !descriptor.required) {
        Ok(())
    } else {
        Err(format!(
            "the value {} is {found}, but its schema's type is {}",
            shorten(&value.to_string()),
            allowed.join(" or ")
        ))
    }
}

/// At most 60 characters of `text`, for a message.
fn shorten(text: &str) -> String {
    match text.char_indices().nth(60) {
        Some((i, _)) => format!("{}...", &text[..i]),
        None => text.to_string(),
    }
}

/// One `#[tokio::test]`: decode the params, call the handler, check the result.
fn test(
    signature: &Signature,
    pairing: &ExamplePairing,
    example: &str,
    test_name: &str,
    case: &Case,
) -> TokenStream {
    let method = &signature.wire_name;
    let mut doc = vec![format!("Method `{method}`, example {example:?}.")];
    for text in [&pairing.summary, &pairing.description]
        .into_iter()
        .flatten()
    {
        doc.push(String::new());
        doc.extend(text.lines().map(|l| l.trim_end().to_string()));
    }
    let docs = doc_attrs(&doc);
    let name = ident(test_name);
    let fn_name = ident(&signature.fn_name);
    let method_lit = str_lit(method);
    let example_lit = str_lit(example);
    let expected = match &case.result {
        Some(json) => {
            let json = str_lit(json);
            quote!(Some(#json))
        }
        None => quote!(None),
    };
    // The module names no type of the contract but `types::*`, so the prelude's `Some` and
    // `None` are the prelude's.
    let ctx = quote!(&RequestContext::default());
    let call = match &signature.params_type {
        Some(params_type) => {
            let ty: syn::Type = syn::parse_str(params_type).expect("a params type always parses");
            let params = str_lit(&case.params);
            quote! {
                let params: #ty = decode(#method_lit, #example_lit, #params);
                let result = handler().#fn_name(#ctx, params).await;
            }
        }
        None => quote! {
            let result = handler().#fn_name(#ctx).await;
        },
    };
    quote! {
        #docs
        #[tokio::test]
        async fn #name() {
            #call
            check(#method_lit, #example_lit, result, #expected);
        }
    }
}
