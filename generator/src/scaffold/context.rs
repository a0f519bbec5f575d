//! The values the scaffold's templates see: every one escaped for the file it lands in.
//!
//! Templates get document text only from here, each string made safe for its one place (a Rust
//! string literal, a doc comment line, a Markdown code span, a shell word) and marked safe;
//! the environment in [`super`] refuses to print any string that is not, so a template that
//! printed raw text would fail to render instead of writing it.

use minijinja::{context, Value};
use proc_macro2::TokenStream;
use quote::quote;

use super::first_call::first_call;
use super::plain::Plain;
use super::{derived_package_name, package_name, CrateOptions};
use crate::emit::Signature;
use crate::escape::{markdown, rustdoc, shell};
use crate::openrpc::McpKind;
use crate::Generated;

/// A string the templates may print as is.
fn safe(text: impl Into<String>) -> Value {
    Value::from_safe_string(text.into())
}

/// The template context of the crate for `generated`, read from `source_name`; `own_crate`:
/// the generated code is a crate of its own ([`super::CrateLayout::OwnCrate`]).
pub(super) fn context(
    generated: &Generated,
    source_name: &str,
    options: &CrateOptions,
    own_crate: bool,
) -> Value {
    let document = &generated.document;
    let crate_name = match &options.crate_name {
        Some(name) => package_name(name),
        None => derived_package_name(&document.info.title),
    };
    // What `src/generated.md` lists: each bound method under its MCP name, with its summary.
    let served = |kinds: &[McpKind]| -> Vec<Value> {
        document
            .methods
            .iter()
            .filter_map(|m| Some((m, m.mcp.as_ref().filter(|b| kinds.contains(&b.kind()))?)))
            .map(|(m, b)| served_entry(b.key(), m))
            .collect()
    };
    let plain_methods: Vec<Value> = document
        .methods
        .iter()
        .filter(|m| m.mcp.is_none())
        .map(|m| served_entry(&m.name, m))
        .collect();
    let signatures = &generated.server.signatures;
    let session = first_call(document, generated.server.is_gateway());
    // The contract as the crate's directory sees it (the README's commands run there).
    let contract_path = options
        .contract_path
        .clone()
        .unwrap_or_else(|| crate::escape::file_name(source_name));
    let mut plain = Plain::default();
    let methods: Vec<Value> = signatures
        .iter()
        .map(|s| method(s, Body::NotImplemented, &mut plain))
        .collect();
    let completions: Vec<Value> = generated
        .server
        .completion_signatures
        .iter()
        .map(|s| method(s, Body::NoCompletions, &mut plain))
        .collect();
    let crate_ident = crate_name.replace('-', "_");
    // The typed client's methods, for its README: the MCP name and the Rust method.
    let bound: Vec<(&Signature, &crate::openrpc::McpBinding)> = signatures
        .iter()
        .filter_map(|s| {
            let method = document.methods.iter().find(|m| m.name == s.wire_name)?;
            Some((s, method.mcp.as_ref()?))
        })
        .collect();
    let client_names =
        crate::emit::client_method_names(bound.iter().map(|(s, _)| s.fn_name.as_str()));
    let client_methods: Vec<Value> = bound
        .iter()
        .zip(&client_names)
        .map(|((_, binding), name)| {
            let call = format!("client.{}(..)", name.trim_start_matches("r#"));
            safe(format!(
                "{} {}: {}",
                binding.kind().as_str().replace('-', " "),
                markdown::code_span(binding.key()),
                markdown::code_span(&call)
            ))
        })
        .collect();
    // The runtime features the generated code needs (`pattern`), and the client's own.
    let runtime_features = generated.server.runtime_features();
    let client_runtime_features: Vec<&str> = std::iter::once("client")
        .chain(runtime_features.iter().copied())
        .collect();
    let generated_crate = format!("{crate_name}-generated");
    context! {
        own_crate => own_crate,
        generated_crate_ident => safe(generated_crate.replace('-', "_")),
        generated_crate => safe(generated_crate),
        crate_name => safe(crate_name),
        source_name => safe(crate::escape::file_name(source_name)),
        runtime_dependency => safe(options.runtime.toml_line(&runtime_features)),
        client_runtime_dependency => safe(options.runtime.toml_line(&client_runtime_features)),
        runtime_comment => safe(options.runtime.toml_comment()),
        rust_version => safe(super::toml_string(env!("CARGO_PKG_RUST_VERSION"))),
        crate_ident => safe(crate_ident),
        client_methods => client_methods,
        example_tests => generated.example_tests.is_some(),
        split => !generated.server.pieces.is_empty(),
        gateway => generated.server.is_gateway(),
        selection_flags => safe(generated.selection_flags.iter().map(|flag| format!(" {}", shell::quote(flag))).collect::<String>()),
        example_fn => safe(signatures.first().map_or("method", |s| s.fn_name.as_str())),
        example_params => safe(signatures.first().and_then(|s| s.params_type.as_deref()).map_or_else(String::new, |ty| format!(", params: {}", short_paths(ty)))),
        example_result => safe(signatures.first().map_or_else(|| "()".to_string(), |s| short_paths(&s.result_type))),
        uses => plain.uses().map(safe).collect::<Vec<_>>(),
        methods => methods,
        completions => completions,
        contract_path => safe(shell::quote(&contract_path)),
        first_session => session.messages.iter().map(|m| safe(shell::quote(&ascii_json(m)))).collect::<Vec<_>>(),
        first_answer => safe(session.answer),
        generator_version => safe(env!("CARGO_PKG_VERSION")),
        served_tools => served(&[McpKind::Tool]),
        served_prompts => served(&[McpKind::Prompt]),
        served_resources => served(&[McpKind::Resource, McpKind::ResourceTemplate]),
        served_plain => plain_methods,
    }
}

/// One line of `src/generated.md`: the name, the JSON-RPC method when it differs, and the
/// summary (else the description's first line).
fn served_entry(name: &str, method: &crate::openrpc::Method) -> Value {
    let mut line = markdown::code_span(name);
    if method.name != name {
        line.push_str(&format!(" (method {})", markdown::code_span(&method.name)));
    }
    let summary = method
        .summary
        .as_deref()
        .or(method.description.as_deref())
        .and_then(|text| text.lines().map(str::trim).find(|l| !l.is_empty()));
    if let Some(summary) = summary {
        line.push_str(": ");
        line.push_str(&markdown::text(summary));
    }
    safe(line)
}

/// A type as a reader writes it: the runtime's, the standard library's and `Forwarded`'s
/// paths dropped (the handler file imports what it names).
fn short_paths(ty: &str) -> String {
    // On one line: the type stands in a `//!` comment, and a long one was wrapped.
    let ty = ty.split_whitespace().collect::<Vec<_>>().join(" ");
    let ty = ty.replace("< ", "<").replace(" >", ">").replace(",>", ">");
    ty.replace("::mcp_runtime::upstream::", "")
        .replace("::std::vec::", "")
        .replace("::std::option::", "")
        .replace("::std::string::", "")
}

/// What a scaffolded handler method does.
#[derive(Debug, Clone, Copy)]
enum Body {
    /// Fails with "`method` is not implemented yet".
    NotImplemented,
    /// Offers no completion.
    NoCompletions,
}

/// One handler method of `src/handler.rs` and the README: its doc lines, and its signature and
/// body as rustfmt would write them (built as tokens, printed by prettyplease, types in plain
/// paths through `plain`).
fn method(signature: &Signature, body: Body, plain: &mut Plain) -> Value {
    let doc: Vec<Value> = rustdoc::doc_lines(&signature.doc)
        .into_iter()
        .map(|line| {
            safe(if line.is_empty() {
                line
            } else {
                format!(" {line}")
            })
        })
        .collect();
    let name = crate::tokens::ident(&signature.fn_name);
    let mut plain_type = |text: &str| {
        let tokens: TokenStream = text.parse().expect("a signature's type is Rust");
        plain.rewrite(tokens)
    };
    let (argument, body) = match body {
        Body::NotImplemented => {
            let message = format!("`{}` is not implemented yet", signature.wire_name);
            let call = format!("Error::new({})", proc_macro2::Literal::string(&message));
            // rustfmt keeps a call on one line when its arguments are at most
            // `fn_call_width` wide, else it breaks the last one out.
            let body = if call.len() <= RUSTFMT_FN_CALL_WIDTH {
                format!("        Err({call})")
            } else {
                format!(
                    "        Err(Error::new(\n            {},\n        ))",
                    proc_macro2::Literal::string(&message)
                )
            };
            (quote!(_params), body)
        }
        Body::NoCompletions => (quote!(_request), "        Ok(Vec::new())".to_string()),
    };
    let params = signature.params_type.as_deref().map(|ty| {
        let ty = plain_type(ty);
        quote!(, #argument: #ty)
    });
    let result = plain_type(&signature.result_type);
    let item = quote! {
        impl Handler for App {
            async fn #name(&self, _ctx: &RequestContext #params) -> Result<#result, Error> {}
        }
    };
    let file: syn::File = syn::parse2(item).expect("a handler method always parses");
    let text = prettyplease::unparse(&file);
    // `impl Handler for App {`, the method at four columns, `}`: the method's lines.
    let lines: Vec<&str> = text.lines().collect();
    let head = &lines[1..lines.len() - 1];
    // The signature, with its empty body `{}` at the end of its last line.
    let (last, _) = head.split_last().expect("the method has a signature");
    let last = last.strip_suffix(" {}").expect("an empty body");
    let head: Vec<&str> = head[..head.len() - 1]
        .iter()
        .copied()
        .chain([last])
        .collect();
    // prettyplease breaks lines past 89 columns, rustfmt past 100: what fits in 100 on one
    // line is joined back, as rustfmt would leave it.
    let signature_text = one_line_signature(&head)
        .filter(|line| line.len() + " {".len() <= RUSTFMT_MAX_WIDTH)
        .unwrap_or_else(|| head.join("\n"));
    context! {
        fn_name => safe(&signature.fn_name),
        doc => doc,
        signature => safe(format!("{signature_text} {{")),
        body => safe(body),
        wire => safe(markdown::code_span(&signature.wire_name)),
    }
}

/// rustfmt's default `max_width`.
const RUSTFMT_MAX_WIDTH: usize = 100;

/// rustfmt's default `fn_call_width` (60% of `max_width`).
const RUSTFMT_FN_CALL_WIDTH: usize = 60;

/// The signature prettyplease wrote one parameter a line (`    async fn name(`, `        p: T,`
/// lines, `    ) -> R {`) on one line; `None` when a parameter or the result took more lines.
fn one_line_signature(head: &[&str]) -> Option<String> {
    let (first, rest) = head.split_first()?;
    if rest.is_empty() {
        return Some((*first).to_string());
    }
    let (last, params) = rest.split_last()?;
    let first = first.strip_suffix('(')?;
    let last = last.strip_prefix("    )")?;
    let params = params
        .iter()
        .map(|line| {
            line.strip_prefix("        ")
                .filter(|p| !p.starts_with(' '))
                .and_then(|p| p.strip_suffix(','))
        })
        .collect::<Option<Vec<_>>>()?;
    Some(format!("{first}({}){last}", params.join(", ")))
}

/// Compact JSON in ASCII only (`\uXXXX` for the rest), so no bidi control or look-alike
/// character reaches a shell command.
fn ascii_json(value: &serde_json::Value) -> String {
    let text = value.to_string();
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{unit:04x}"));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn json_for_the_shell_is_ascii() {
        assert_eq!(
            ascii_json(&json!("é\u{202E}😀")),
            "\"\\u00e9\\u202e\\ud83d\\ude00\""
        );
        assert_eq!(ascii_json(&json!("a\n'")), "\"a\\n'\"");
    }
}
