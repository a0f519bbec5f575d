//! Property: for any document, the generator returns diagnostics (with an error among them) or
//! code that parses as Rust, with a scaffold that renders; it never panics.
//!
//! Two sources of documents: arbitrary JSON shaped like OpenRPC (so most get past the first
//! shape checks and reach lowering and emission), with hostile text in every string; and the
//! real fixtures with random parts replaced, removed or swapped. `PROPTEST_CASES` sets the
//! number of cases (default 256, about 15 s in a debug build). A crash found is kept as a
//! regression fixture under `fixtures/hostile/` or a case in `tests/hostile.rs`.

#[allow(dead_code)] // only the fixture list is used here
mod common;

use std::path::Path;
use std::sync::OnceLock;

use proptest::prelude::*;
use proptest::test_runner::{Config, FileFailurePersistence};
use serde_json::{json, Map, Value};

use mcp_codegen::scaffold::{crate_files, CrateOptions, RuntimeDependency};

/// Strings with the characters that break generated files: quotes, backslashes, line breaks,
/// bidi controls, `*/`, fences, keywords, non-ASCII letters and digits.
fn hostile_string() -> impl Strategy<Value = String> {
    let pieces = prop::sample::select(vec![
        "a",
        "B",
        "_",
        "0",
        "9",
        "-",
        ".",
        "/",
        "~",
        "#",
        "$",
        "@",
        "+",
        " ",
        "\"",
        "\\",
        "'",
        "`",
        "```",
        "    ",
        "\t",
        "\n",
        "\r",
        "\u{0}",
        "\u{1b}",
        "\u{202e}",
        "\u{2066}",
        "\u{2028}",
        "\u{200b}",
        "\u{feff}",
        "*/",
        "/*",
        "//",
        "r#",
        "type",
        "self",
        "Self",
        "crate",
        "super",
        "fn",
        "match",
        "é",
        "²",
        "名",
        "٣",
        "ǅ",
        "😀",
        "{",
        "}",
        "<",
        "[",
        "compile_error!(\"INJECTED\");",
        "#/components/schemas/A",
        "null",
    ]);
    prop::collection::vec(pieces, 0..6).prop_map(|p| p.concat())
}

/// Any JSON value, strings hostile.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        hostile_string().prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((hostile_string(), inner), 0..4)
                .prop_map(|members| Value::Object(members.into_iter().collect())),
        ]
    })
}

/// The names component schemas get, so `$ref`s can hit them.
const SCHEMA_NAMES: [&str; 4] = ["A", "b", "a\"b", "\u{202e}"];

/// A JSON Schema built from the keywords lowering reads, with arbitrary values mixed in.
fn schema() -> impl Strategy<Value = Value> {
    let reference = prop::sample::select(SCHEMA_NAMES.to_vec()).prop_map(|name| {
        json!({"$ref": format!("#/components/schemas/{}", name.replace('~', "~0").replace('/', "~1"))})
    });
    let typed = prop::sample::select(vec![
        "object", "array", "string", "integer", "number", "boolean", "null", "bogus",
    ])
    .prop_map(|t| json!({"type": t}));
    let leaf = prop_oneof![
        typed,
        reference,
        any::<bool>().prop_map(Value::from),
        json_value(),
        (json_value(), hostile_string()).prop_map(|(v, d)| json!({"const": v, "description": d})),
        prop::collection::vec(json_value(), 0..4).prop_map(|e| json!({"enum": e})),
    ];
    leaf.prop_recursive(4, 32, 4, |inner| {
        let members = prop::collection::vec(inner.clone(), 0..4);
        prop_oneof![
            (
                prop::collection::vec((hostile_string(), inner.clone()), 0..4),
                prop::collection::vec(hostile_string(), 0..3),
                hostile_string(),
                json_value(),
            )
                .prop_map(|(properties, required, description, default)| {
                    json!({
                        "type": "object",
                        "properties": properties.into_iter().collect::<Map<_, _>>(),
                        "required": required,
                        "description": description,
                        "default": default,
                    })
                }),
            inner
                .clone()
                .prop_map(|items| json!({"type": "array", "items": items})),
            members.clone().prop_map(|m| json!({"allOf": m})),
            members.clone().prop_map(|m| json!({"oneOf": m})),
            members.prop_map(|m| json!({"anyOf": m, "type": ["string", "null"]})),
            inner.prop_map(|extra| json!({"type": "object", "additionalProperties": extra})),
        ]
    })
}

/// An `x-mcp` binding: a kind with arbitrary fields, or anything at all.
fn x_mcp() -> impl Strategy<Value = Value> {
    prop_oneof![
        prop::sample::select(vec!["tool", "prompt", "resource", "bogus"]).prop_map(Value::from),
        (
            prop::sample::select(vec!["tool", "prompt", "resource", "resource-template"]),
            hostile_string(),
            hostile_string(),
        )
            .prop_map(|(kind, name, text)| json!({
                "kind": kind, "name": name, "description": text, "title": text,
                "uri": format!("file:///{text}"), "uriTemplate": format!("file:///{{p0}}/{text}"),
            })),
        json_value(),
    ]
}

/// A method with hostile names and texts.
fn method() -> impl Strategy<Value = Value> {
    (
        hostile_string(),
        hostile_string(),
        prop::collection::vec((hostile_string(), schema(), any::<bool>()), 0..3),
        prop::option::of(schema()),
        prop::option::of(x_mcp()),
    )
        .prop_map(|(name, description, params, result, mcp)| {
            let params: Vec<Value> = params
                .into_iter()
                .enumerate()
                .map(|(i, (name, schema, required))| {
                    json!({"name": format!("p{i}{name}"), "schema": schema, "required": required && i == 0})
                })
                .collect();
            let mut method = json!({
                "name": name, "summary": description, "description": description, "params": params,
            });
            if let Some(result) = result {
                method["result"] = json!({"name": "r", "schema": result});
            }
            if let Some(mcp) = mcp {
                method["x-mcp"] = mcp;
            }
            method
        })
}

/// A document shaped like OpenRPC: most of it valid, every string hostile.
fn document() -> impl Strategy<Value = Value> {
    (
        hostile_string(),
        hostile_string(),
        prop::collection::vec(method(), 0..4),
        prop::collection::vec(schema(), SCHEMA_NAMES.len()),
    )
        .prop_map(|(title, version, methods, schemas)| {
            let schemas: Map<String, Value> = SCHEMA_NAMES
                .iter()
                .map(|n| n.to_string())
                .zip(schemas)
                .collect();
            json!({
                "openrpc": "1.2.6",
                "info": {"title": title, "version": version, "description": title},
                "methods": methods,
                "components": {"schemas": schemas},
            })
        })
}

/// The small fixtures (the large ones take seconds to generate in a debug build), read once.
fn fixtures() -> &'static [Value] {
    static FIXTURES: OnceLock<Vec<Value>> = OnceLock::new();
    FIXTURES.get_or_init(|| {
        common::valid_fixtures()
            .into_iter()
            .filter(|(_, path)| std::fs::metadata(path).unwrap().len() < 20_000)
            .map(|(_, path)| serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap())
            .collect()
    })
}

/// What to do to one node of a fixture.
#[derive(Debug, Clone)]
enum Mutation {
    Replace(Value),
    Remove,
    /// Put a copy of another node here (picked by index, like the target).
    CopyFrom(usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        json_value().prop_map(Mutation::Replace),
        schema().prop_map(Mutation::Replace),
        Just(Mutation::Remove),
        any::<usize>().prop_map(Mutation::CopyFrom),
    ]
}

/// Every node's JSON pointer, in document order.
fn pointers(value: &Value, at: String, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                pointers(
                    child,
                    format!("{at}/{}", key.replace('~', "~0").replace('/', "~1")),
                    out,
                );
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                pointers(child, format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
    out.push(at);
}

fn mutate(mut doc: Value, mutations: &[(usize, Mutation)]) -> Value {
    for (target, mutation) in mutations {
        let mut all = Vec::new();
        pointers(&doc, String::new(), &mut all);
        let pointer = &all[target % all.len()];
        let replacement = match mutation {
            Mutation::Replace(value) => Some(value.clone()),
            Mutation::CopyFrom(source) => doc.pointer(&all[source % all.len()]).cloned(),
            Mutation::Remove => None,
        };
        let Some((parent, key)) = pointer.rsplit_once('/') else {
            continue; // the root: keep it an object
        };
        let key = key.replace("~1", "/").replace("~0", "~");
        match (doc.pointer_mut(parent), replacement) {
            (Some(Value::Object(map)), Some(value)) => {
                map.insert(key, value);
            }
            (Some(Value::Object(map)), None) => {
                map.shift_remove(&key);
            }
            (Some(Value::Array(items)), value) => {
                let index: usize = key.parse().unwrap();
                match value {
                    Some(value) => items[index] = value,
                    None => {
                        items.remove(index);
                    }
                }
            }
            _ => {}
        }
    }
    doc
}

/// The property: diagnostics with an error, or Rust that parses and a scaffold that renders.
fn check(dir: &Path, document: &Value) -> Result<(), TestCaseError> {
    let path = dir.join("doc.json");
    std::fs::write(&path, serde_json::to_string_pretty(document).unwrap()).unwrap();
    match mcp_codegen::generate(&path) {
        Err(diagnostics) => prop_assert!(diagnostics.has_errors(), "{diagnostics}"),
        Ok(generated) => {
            if let Err(e) = syn::parse_file(&generated.server.source) {
                return Err(TestCaseError::fail(format!(
                    "generated.rs does not parse: {e}\n{}",
                    generated.server.source
                )));
            }
            let options = CrateOptions {
                crate_name: None,
                runtime: RuntimeDependency::Version("0.1".into()),
                contract_path: None,
            };
            for file in crate_files(&generated, "doc.json", &options) {
                if file.path.extension().is_some_and(|e| e == "rs") {
                    let parsed = syn::parse_file(&file.contents);
                    prop_assert!(
                        parsed.is_ok(),
                        "{}:\n{}",
                        file.path.display(),
                        file.contents
                    );
                }
            }
        }
    }
    Ok(())
}

/// proptest's defaults (256 cases, or `PROPTEST_CASES`), failures kept next to this file.
fn config() -> Config {
    Config {
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource(
            "proptest-regressions",
        ))),
        ..Config::default()
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn arbitrary_documents_generate_or_are_refused(document in document()) {
        let dir = tempfile::tempdir().unwrap();
        check(dir.path(), &document)?;
    }

    #[test]
    fn mutated_fixtures_generate_or_are_refused(
        which in any::<usize>(),
        mutations in prop::collection::vec((any::<usize>(), mutation()), 1..4),
    ) {
        let fixtures = fixtures();
        let document = mutate(fixtures[which % fixtures.len()].clone(), &mutations);
        let dir = tempfile::tempdir().unwrap();
        check(dir.path(), &document)?;
    }
}
