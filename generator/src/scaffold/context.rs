//! The values the scaffold's templates see: every one escaped for the file it lands in.
//!
//! Templates get document text only from here, each string made safe for its one place (a Rust
//! string literal, a doc comment line, a Markdown code span, a shell word) and marked safe;
//! the environment in [`super`] refuses to print any string that is not, so a template that
//! printed raw text would fail to render instead of writing it.

use minijinja::{context, Value};
use serde_json::json;

use super::{derived_package_name, package_name, CrateOptions};
use crate::emit::Signature;
use crate::escape::{markdown, rustdoc, shell};
use crate::openrpc::McpKind;
use crate::Generated;

/// A string the templates may print as is.
fn safe(text: impl Into<String>) -> Value {
    Value::from_safe_string(text.into())
}

/// The template context of the crate for `generated`, read from `source_name`.
pub(super) fn context(generated: &Generated, source_name: &str, options: &CrateOptions) -> Value {
    let document = &generated.document;
    let crate_name = match &options.crate_name {
        Some(name) => package_name(name),
        None => derived_package_name(&document.info.title),
    };
    let names_of = |kinds: &[McpKind]| -> Vec<Value> {
        document
            .methods
            .iter()
            .filter_map(|m| m.mcp.as_ref().filter(|b| kinds.contains(&b.kind())))
            .map(|b| safe(markdown::code_span(b.key())))
            .collect()
    };
    let signatures = &generated.server.signatures;
    let first_method = signatures.first().map_or("", |s| s.wire_name.as_str());
    context! {
        crate_name => safe(crate_name),
        source_name => safe(crate::escape::file_name(source_name)),
        runtime_dependency => safe(options.runtime.toml_line()),
        methods => signatures.iter().map(method).collect::<Vec<_>>(),
        completions => generated.server.completion_signatures.iter().map(method).collect::<Vec<_>>(),
        request => safe(shell::quote(&ascii_json(&json!({
            "jsonrpc": "2.0",
            "id": 1,
            "method": first_method,
            "params": {},
        })))),
        tools => names_of(&[McpKind::Tool]),
        prompts => names_of(&[McpKind::Prompt]),
        resources => names_of(&[McpKind::Resource, McpKind::ResourceTemplate]),
    }
}

/// One handler method of `src/handler.rs` and the README.
fn method(signature: &Signature) -> Value {
    let doc: Vec<Value> = signature
        .doc
        .as_deref()
        .map(|doc| rustdoc::doc_lines(&[doc]))
        .unwrap_or_default()
        .into_iter()
        .map(|line| {
            safe(if line.is_empty() {
                line
            } else {
                format!(" {line}")
            })
        })
        .collect();
    let message = format!("`{}` is not implemented yet", signature.wire_name);
    context! {
        fn_name => safe(&signature.fn_name),
        doc => doc,
        params_type => signature.params_type.as_deref().map(safe),
        result_type => safe(&signature.result_type),
        not_implemented => safe(proc_macro2::Literal::string(&message).to_string()),
        wire => safe(markdown::code_span(&signature.wire_name)),
    }
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

    #[test]
    fn json_for_the_shell_is_ascii() {
        assert_eq!(
            ascii_json(&json!("é\u{202E}😀")),
            "\"\\u00e9\\u202e\\ud83d\\ude00\""
        );
        assert_eq!(ascii_json(&json!("a\n'")), "\"a\\n'\"");
    }
}
