//! Vendor documents as they are (`fixtures/lenient/`): shapes third-party documents write
//! where OpenRPC wants a content descriptor, and a declared `rpc.discover` whose result names
//! the OpenRPC meta-schema by URL. Each generates, with a warning that says what was assumed.

use std::path::{Path, PathBuf};

use mcp_codegen::openrpc::load;
use mcp_codegen::validate::validate;
use serde_json::json;

fn lenient(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/lenient")
        .join(name)
}

/// The load and validation diagnostics, the fixtures directory stripped.
fn render(name: &str) -> String {
    let path = lenient(name);
    let diags = match load(&path) {
        Err(errors) => errors,
        Ok((document, mut warnings)) => {
            warnings.0.extend(validate(&document).0);
            warnings.sort();
            warnings
        }
    };
    let dir = path.parent().unwrap().display().to_string();
    diags.to_string().replace(&format!("{dir}/"), "")
}

fn generated(name: &str) -> mcp_codegen::Generated {
    mcp_codegen::generate(&lenient(name)).unwrap_or_else(|e| panic!("{name}:\n{e}"))
}

#[test]
fn a_result_by_ref_to_a_content_descriptor_or_to_a_schema() {
    let expected = r##"warning[result-descriptor]: `result` is a `$ref` to "#/components/schemas/Thing", a schema, not a content descriptor: read as an unnamed result of that schema
  --> result-ref.json:16:17 (/methods/1/result)
0 error(s), 1 warning(s)"##;
    assert_eq!(render("result-ref.json"), expected);
    let generated = generated("result-ref.json");
    let [thing, other] = &generated.document.methods[..] else {
        panic!("two methods");
    };
    let thing = thing.result.as_ref().unwrap();
    assert_eq!(thing.name, "thing");
    assert_eq!(thing.schema, json!({"$ref": "#/components/schemas/Thing"}));
    // The schema is referred to, not copied: both results are the one type `Thing`.
    let other = other.result.as_ref().unwrap();
    assert_eq!(other.name, "result");
    assert_eq!(other.schema, thing.schema);
    assert!(generated.server.source.contains("pub struct Thing"));
}

#[test]
fn empty_results_schemas_and_descriptors_without_a_name() {
    let expected = r##"warning[result-descriptor]: `result` is `{}`, a content descriptor with neither `name` nor `schema`: read as an unnamed result of any value
  --> result-empty.json:9:17 (/methods/0/result)
warning[result-descriptor]: `result` is a schema, not a content descriptor (it has neither `name` nor `schema`): read as an unnamed result of that schema
  --> result-empty.json:16:17 (/methods/1/result)
warning[result-descriptor]: `result` has no `name`: read as a result named "result"
  --> result-empty.json:23:17 (/methods/2/result)
0 error(s), 3 warning(s)"##;
    assert_eq!(render("result-empty.json"), expected);
    let generated = generated("result-empty.json");
    let schemas: Vec<(&str, &serde_json::Value)> = generated
        .document
        .methods
        .iter()
        .map(|m| {
            let r = m.result.as_ref().unwrap();
            (r.name.as_str(), &r.schema)
        })
        .collect();
    assert_eq!(
        schemas,
        [
            ("result", &json!({})),
            ("result", &json!({"type": "integer", "minimum": 0})),
            ("result", &json!({"type": "string"})),
        ]
    );
}

#[test]
fn a_declared_rpc_discover_naming_the_meta_schema_by_url_is_skipped() {
    let expected = r##"warning[reserved-method-names]: the document declares `rpc.discover`, the OpenRPC service discovery method, which the generated server answers itself with this document (on its plain JSON-RPC endpoint); the declaration is not generated as a handler method
  --> rpc-discover-meta-schema.json:6:15 (/methods/0/name)
0 error(s), 1 warning(s)"##;
    assert_eq!(render("rpc-discover-meta-schema.json"), expected);
    let generated = generated("rpc-discover-meta-schema.json");
    let names: Vec<&str> = generated
        .document
        .methods
        .iter()
        .map(|m| m.name.as_str())
        .collect();
    assert_eq!(names, ["hello"]);
    // The document `rpc.discover` serves keeps the declaration as written.
    assert_eq!(
        generated.document.bundled_json["methods"][0]["result"]["schema"]["$ref"],
        "https://raw.githubusercontent.com/open-rpc/meta-schema/master/schema.json"
    );
}

#[test]
fn a_param_by_ref_to_a_schema_is_a_param_named_after_it() {
    let expected = r##"warning[param-descriptor]: the param is a `$ref` to "#/components/schemas/BatchFilter", a schema, not a content descriptor: read as a param named "BatchFilter" of that schema
  --> param-ref.json:8:18 (/methods/0/params/0)
0 error(s), 1 warning(s)"##;
    assert_eq!(render("param-ref.json"), expected);
    let generated = generated("param-ref.json");
    let param = &generated.document.methods[0].params[0];
    assert_eq!(param.name, "BatchFilter");
    assert!(!param.required);
    assert_eq!(
        param.schema,
        json!({"$ref": "#/components/schemas/BatchFilter"})
    );
    assert!(generated.server.source.contains("pub struct BatchFilter"));
}
