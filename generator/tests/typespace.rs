//! The type generator on `fixtures/openrpc/schema-features.openrpc.json`: snapshot of the output,
//! a compile-and-round-trip check of that output in a detached crate, and focused unit tests.

use mcp_codegen::typespace::discriminator::{find_discriminator, Discriminator};
use mcp_codegen::typespace::{TypeId, TypeSpace};
use proc_macro2::TokenStream;
use quote::{quote, ToTokens};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Command;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .to_path_buf()
}

fn fixture() -> Value {
    let path = workspace().join("fixtures/openrpc/schema-features.openrpc.json");
    serde_json::from_str(&std::fs::read_to_string(path).expect("fixture")).expect("fixture is JSON")
}

/// The fixture's schemas, registered as a caller would, plus each method's params struct and
/// result type (inline). Returns the space and `(method, params type, result type)`.
fn fixture_space() -> (TypeSpace, Vec<(String, TypeId, TypeId)>) {
    let doc = fixture();
    let mut space = TypeSpace::new();
    for (name, schema) in doc["components"]["schemas"].as_object().expect("schemas") {
        space.add_named(&format!("#/components/schemas/{name}"), name, schema);
    }
    let mut methods = Vec::new();
    for method in doc["methods"].as_array().expect("methods") {
        let name = method["name"].as_str().expect("method name");
        let mut properties = serde_json::Map::new();
        let mut required = Vec::new();
        for param in method["params"].as_array().expect("params") {
            let param_name = param["name"].as_str().expect("param name");
            properties.insert(param_name.to_string(), param["schema"].clone());
            if param["required"] == true {
                required.push(Value::from(param_name));
            }
        }
        let params = json!({
            "type": "object",
            "properties": properties,
            "required": required,
            "description": format!("Params of `{name}`."),
        });
        let params = space.add_inline(&params, &format!("{name}Params"));
        let result = space.add_inline(&method["result"]["schema"], &format!("{name}Result"));
        methods.push((name.to_string(), params, result));
    }
    (space, methods)
}

fn pretty(tokens: TokenStream) -> String {
    prettyplease::unparse(&syn::parse2(tokens).expect("valid Rust"))
}

/// The fixture's types module plus, for each method, aliases spelled with `type_expr` from
/// outside the module (so `type_expr` is compiled too).
fn fixture_output() -> String {
    let (space, methods) = fixture_space();
    let types = space.emit();
    let path = quote!(types);
    let aliases = methods.iter().map(|(name, params, result)| {
        let params_alias = quote::format_ident!("{}Params", mcp_codegen::names::camel_ident(name));
        let result_alias = quote::format_ident!("{}Result", mcp_codegen::names::camel_ident(name));
        let (params, result) = (
            space.type_expr(*params, &path),
            space.type_expr(*result, &path),
        );
        quote! {
            pub type #params_alias = #params;
            pub type #result_alias = #result;
        }
    });
    pretty(quote! {
        pub mod types { #types }
        /// Method types as a caller outside the types module names them.
        pub mod methods { use super::types; #(#aliases)* }
    })
}

#[test]
fn schema_features_snapshot() {
    insta::assert_snapshot!("schema_features", fixture_output());
}

#[test]
fn output_is_deterministic() {
    assert_eq!(fixture_output(), fixture_output());
}

/// Round-trip tests compiled into the detached crate next to the generated types.
const ROUND_TRIPS: &str = r#"
#[cfg(test)]
mod round_trips {
    use super::types::*;
    use serde_json::{json, Value};

    fn round_trip<T: serde::de::DeserializeOwned + serde::Serialize>(value: Value) -> T {
        let typed: T = serde_json::from_value(value.clone()).expect("decodes");
        assert_eq!(serde_json::to_value(&typed).expect("encodes"), value);
        typed
    }

    #[test]
    fn pet_keywords_renames_options() {
        let pet: Pet = round_trip(json!({
            "petId": 7, "type": "cat", "self": "https://x/7", "match": true, "_meta": {"a": 1},
            "chipId": null, "status": "in-progress", "owner": {"name": "Ann"}, "tags": ["a"]
        }));
        assert_eq!(pet.pet_id, 7);
        assert_eq!(pet.r#type, "cat");
        assert_eq!(pet.self_.as_deref(), Some("https://x/7"));
        assert_eq!(pet.chip_id, None);
        assert_eq!(pet.status, PetStatus::InProgress);
        assert!(pet.nickname.is_none());
        // A required nullable field must be present.
        assert!(serde_json::from_value::<Pet>(json!({"petId": 1, "type": "x", "status": "sold"})).is_err());
        let _: Pet = round_trip(json!({"petId": 1, "type": "x", "chipId": "c", "vet": "v", "status": "2fa"}));
        let _: Pet = round_trip(json!({"petId": 1, "type": "x", "chipId": "c", "status": "+1"}));
    }

    #[test]
    fn defaults_apply_when_absent() {
        let settings: Settings = serde_json::from_value(json!({})).unwrap();
        assert_eq!(settings.retries, 3);
        assert_eq!(settings.ratio, 0.5);
        assert!(!settings.verbose);
        assert_eq!(settings.label, "main");
        assert_eq!(settings.mode, Mode::Fast);
        assert!(settings.servers.is_empty());
        assert_eq!(settings.limits, vec![1, 2]);
        assert_eq!(settings, Settings::default());
    }

    #[test]
    fn unknown_fields_rejected_or_kept() {
        assert!(serde_json::from_value::<Strict>(json!({"id": "a", "x": 1})).is_err());
        let labels: Labels = round_trip(json!({"primary": "p", "team": "core"}));
        assert_eq!(labels.extra["team"], "core");
        let counters: Counters = round_trip(json!({"a": 1, "b": 18446744073709551615u64}));
        assert_eq!(counters["b"], u64::MAX);
        let _: Headers = round_trip(json!({"x-a": "1"}));
        let _: PetStatus2 = round_trip(json!({"since": "2024-01-01T00:00:00Z"}));
        assert!(serde_json::from_value::<PetStatus2>(json!({"other": 1})).is_err());
    }

    #[test]
    fn consts_and_tagged_unions() {
        let _: ApiVersion = round_trip(json!("v1"));
        assert!(serde_json::from_value::<ApiVersion>(json!("v2")).is_err());
        let shape: Shape = round_trip(json!({"kind": "circle", "radius": 2.0}));
        assert!(matches!(shape, Shape::Circle { radius } if radius == 2.0));
        let _: Shape = round_trip(json!({"kind": "rect", "width": 1.0, "height": 2.0}));
        let circle: Circle = round_trip(json!({"kind": "circle", "radius": 1.0}));
        assert_eq!(circle.kind, CircleKind::Circle);
        let event: Event = round_trip(json!({"type": "key-press", "key": "a", "modifiers": {"shift": true}}));
        assert!(matches!(event, Event::KeyPress { .. }));
        let _: Event = round_trip(json!({"type": "click", "x": 1, "y": 2}));
    }

    #[test]
    fn untagged_multi_type_all_of() {
        assert!(matches!(round_trip::<IdOrName>(json!(5)), IdOrName::Variant0(5)));
        assert!(matches!(round_trip::<IdOrName>(json!("x")), IdOrName::Variant1(_)));
        let _: IdOrName = round_trip(json!({"first": "A"}));
        let _: Scalar = round_trip(json!(true));
        let _: Scalar = round_trip(json!(1.5));
        let dog: Dog = round_trip(json!({"name": "Rex", "barks": true}));
        assert!(dog.barks);
        let maybe: MaybePet = round_trip(json!(null));
        assert!(maybe.is_none());
        let _: Sizes = round_trip(json!({
            "small": -1, "unsigned": 4000000000u32, "big": 18446744073709551615u64,
            "plain": -5, "nonNegative": 3, "real": 0.25
        }));
    }

    #[test]
    fn recursion_and_fallbacks() {
        let tree: TreeNode = round_trip(json!({
            "value": "root",
            "children": [{"value": "leaf"}],
            "parent": {"value": "up"},
            "next": {"target": {"value": "n"}}
        }));
        assert_eq!(tree.parent.as_ref().map(|p| p.value.as_str()), Some("up"));
        let _: Opaque = round_trip(json!({"notString": 1, "pair": ["a", 1], "mixed": 1, "blob": "b"}));
        let _: Anything = round_trip(json!({"any": ["thing"]}));
    }

    #[test]
    fn params_accept_object_and_array() {
        let from_array: crate::methods::PetsCreateParams =
            serde_json::from_value(json!([{"petId": 1, "type": "x", "chipId": null, "status": "sold"}])).unwrap();
        assert_eq!(from_array.notify, true);
        let from_object: crate::methods::PetsCreateParams = serde_json::from_value(
            json!({"pet": {"petId": 1, "type": "x", "chipId": null, "status": "sold"}, "notify": true}),
        )
        .unwrap();
        assert_eq!(from_array, from_object);
        let area: crate::methods::ShapesAreaResult = 1.0;
        let _ = area;
    }
}
"#;

/// Writes the generated module into a detached crate and runs its tests there.
#[test]
fn schema_features_compile_and_round_trip() {
    let root = workspace();
    let dir = tempfile::tempdir().expect("temp dir");
    let manifest = r#"[package]
name = "typespace-check"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
serde = { version = "1", features = ["derive"] }
serde_json = "1"

[workspace]
"#;
    std::fs::write(dir.path().join("Cargo.toml"), manifest).expect("manifest");
    std::fs::copy(root.join("Cargo.lock"), dir.path().join("Cargo.lock")).expect("lock file");
    std::fs::create_dir(dir.path().join("src")).expect("src");
    let lib = format!("#![allow(dead_code)]\n{}\n{ROUND_TRIPS}", fixture_output());
    std::fs::write(dir.path().join("src/lib.rs"), lib).expect("lib.rs");
    let output = Command::new(env!("CARGO"))
        .args(["test", "--offline", "--quiet"])
        .current_dir(dir.path())
        .env("CARGO_TARGET_DIR", root.join("target/typespace-check"))
        .output()
        .expect("run cargo");
    assert!(
        output.status.success(),
        "generated code failed to compile or its round trips failed:\n{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn discriminator_is_the_pairwise_distinct_constant() {
    let variants = [
        json!({"properties": {"version": {"const": "1"}, "kind": {"const": "a"}}, "required": ["version", "kind"]}),
        json!({"properties": {"version": {"const": "1"}, "kind": {"enum": ["b"]}}, "required": ["kind", "version"]}),
    ];
    assert_eq!(
        find_discriminator(&variants),
        Some(Discriminator {
            property: "kind".into(),
            values: vec!["a".into(), "b".into()]
        })
    );
    // Equal values, a missing property, a multi-value enum, or a single variant: none.
    let same = [
        json!({"properties": {"k": {"const": "a"}}}),
        json!({"properties": {"k": {"const": "a"}}}),
    ];
    assert_eq!(find_discriminator(&same), None);
    let missing = [
        json!({"properties": {"k": {"const": "a"}}}),
        json!({"properties": {"j": {"const": "b"}}}),
    ];
    assert_eq!(find_discriminator(&missing), None);
    let open = [
        json!({"properties": {"k": {"const": "a"}}}),
        json!({"properties": {"k": {"enum": ["b", "c"]}}}),
    ];
    assert_eq!(find_discriminator(&open), None);
    assert_eq!(find_discriminator(&variants[..1]), None);
}

#[test]
fn discriminator_found_through_refs() {
    let mut space = TypeSpace::new();
    let union = json!({"oneOf": [{"$ref": "#/$defs/A"}, {"$ref": "#/$defs/B"}]});
    space.add_named("#/$defs/U", "U", &union);
    space.add_named(
        "#/$defs/A",
        "A",
        &json!({"properties": {"t": {"$ref": "#/$defs/TagA"}}, "required": ["t"]}),
    );
    space.add_named(
        "#/$defs/B",
        "B",
        &json!({"properties": {"t": {"const": "b"}, "n": {"type": "integer"}}, "required": ["t"]}),
    );
    space.add_named("#/$defs/TagA", "TagA", &json!({"const": "a"}));
    let file: syn::File = syn::parse2(space.emit()).expect("valid Rust");
    let expected: syn::Item = syn::parse_quote! {
        #[derive(::std::fmt::Debug, ::std::clone::Clone, ::std::cmp::PartialEq)]
        #[derive(::serde::Serialize, ::serde::Deserialize)]
        #[serde(tag = "t")]
        pub enum U {
            #[serde(rename = "a")]
            A {},
            #[serde(rename = "b")]
            B {
                #[serde(default, skip_serializing_if = "::std::option::Option::is_none")]
                n: ::std::option::Option<i64>,
            },
        }
    };
    assert_eq!(
        file.items[0].to_token_stream().to_string(),
        expected.to_token_stream().to_string()
    );
}

/// The type of field `field` of struct `name` in `file`.
fn field_type(file: &syn::File, name: &str, field: &str) -> String {
    file.items
        .iter()
        .find_map(|item| match item {
            syn::Item::Struct(s) if s.ident == name => s.fields.iter().find_map(|f| {
                (f.ident.as_ref().is_some_and(|i| i == field))
                    .then(|| f.ty.to_token_stream().to_string())
            }),
            _ => None,
        })
        .unwrap_or_else(|| panic!("{name}.{field} not found"))
}

#[test]
fn recursion_is_boxed_only_on_by_value_cycles() {
    let mut space = TypeSpace::new();
    let node = json!({
        "type": "object",
        "properties": {
            "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
            "parent": {"$ref": "#/$defs/Node"},
            "edge": {"$ref": "#/$defs/Edge"},
            "leaf": {"$ref": "#/$defs/Leaf"}
        },
        "required": ["edge", "leaf"]
    });
    space.add_named("#/$defs/Node", "Node", &node);
    let edge = json!({"type": "object", "properties": {"to": {"$ref": "#/$defs/Node"}}});
    space.add_named("#/$defs/Edge", "Edge", &edge);
    space.add_named(
        "#/$defs/Leaf",
        "Leaf",
        &json!({"type": "object", "properties": {"v": {"type": "string"}}}),
    );
    let file: syn::File = syn::parse2(space.emit()).expect("valid Rust");
    let ty = |s: TokenStream| {
        syn::parse2::<syn::Type>(s)
            .expect("type")
            .to_token_stream()
            .to_string()
    };
    assert_eq!(
        field_type(&file, "Node", "children"),
        ty(quote!(::std::option::Option<::std::vec::Vec<Node>>))
    );
    assert_eq!(
        field_type(&file, "Node", "parent"),
        ty(quote!(::std::option::Option<::std::boxed::Box<Node>>))
    );
    assert_eq!(
        field_type(&file, "Node", "edge"),
        ty(quote!(::std::boxed::Box<Edge>))
    );
    assert_eq!(field_type(&file, "Node", "leaf"), ty(quote!(Leaf)));
    assert_eq!(
        field_type(&file, "Edge", "to"),
        ty(quote!(::std::option::Option<::std::boxed::Box<Node>>))
    );
}

#[test]
fn names_collide_deterministically() {
    let mut space = TypeSpace::new();
    space.add_named("#/$defs/pet_status", "pet_status", &json!({"enum": ["a"]}));
    space.add_named("#/$defs/PetStatus", "PetStatus", &json!({"type": "string"}));
    let object = json!({
        "type": "object",
        "properties": {"_meta": {"type": "string"}, "meta": {"type": "string"}, "type": {"type": "string"}},
        "required": ["_meta", "meta", "type"]
    });
    let owner = space.add_inline(&object, "pet_status");
    assert_eq!(
        space.type_name(space.lookup("#/$defs/pet_status").unwrap()),
        Some("PetStatus")
    );
    assert_eq!(
        space.type_name(space.lookup("#/$defs/PetStatus").unwrap()),
        Some("PetStatus2")
    );
    assert_eq!(space.type_name(owner), Some("PetStatus3"));
    assert_eq!(
        space.type_expr(owner, &quote!(types)).to_string(),
        quote!(types::PetStatus3).to_string()
    );
    let file: syn::File = syn::parse2(space.emit()).expect("valid Rust");
    let ty = |s: TokenStream| {
        syn::parse2::<syn::Type>(s)
            .expect("type")
            .to_token_stream()
            .to_string()
    };
    assert_eq!(
        field_type(&file, "PetStatus3", "meta"),
        ty(quote!(::std::string::String))
    );
    let names: Vec<String> = match file
        .items
        .iter()
        .find(|i| matches!(i, syn::Item::Struct(_)))
    {
        Some(syn::Item::Struct(s)) => s
            .fields
            .iter()
            .map(|f| f.ident.as_ref().unwrap().to_string())
            .collect(),
        _ => panic!("struct expected"),
    };
    assert_eq!(names, ["meta", "meta_2", "r#type"]);
}

#[test]
fn inline_builtins_and_containers() {
    let mut space = TypeSpace::new();
    space.add_named(
        "#/components/schemas/Pet",
        "Pet",
        &json!({"type": "object", "properties": {}}),
    );
    let path = quote!(types);
    let expr = |space: &mut TypeSpace, schema: Value| {
        let id = space.add_inline(&schema, "Hint");
        space.type_expr(id, &path).to_string()
    };
    assert_eq!(expr(&mut space, json!({"type": "integer"})), "i64");
    assert_eq!(
        expr(&mut space, json!({"type": "integer", "format": "uint32"})),
        "u32"
    );
    assert_eq!(
        expr(
            &mut space,
            json!({"type": "array", "items": {"$ref": "#/components/schemas/Pet"}})
        ),
        quote!(::std::vec::Vec<types::Pet>).to_string()
    );
    assert_eq!(
        expr(
            &mut space,
            json!({"oneOf": [{"$ref": "#/components/schemas/Pet"}, {"type": "null"}]})
        ),
        quote!(::std::option::Option<types::Pet>).to_string()
    );
    assert_eq!(
        expr(&mut space, json!({})),
        quote!(::serde_json::Value).to_string()
    );
    assert_eq!(
        expr(&mut space, json!({"$ref": "#/nowhere"})),
        quote!(::serde_json::Value).to_string()
    );
}

#[test]
fn an_unknown_ref_falls_back_to_value_and_says_why() {
    let mut space = TypeSpace::new();
    space.add_named(
        "#/$defs/Holder",
        "Holder",
        &json!({"properties": {"dangling": {"$ref": "#/$defs/Missing"}}, "required": ["dangling"]}),
    );
    let file: syn::File = syn::parse2(space.emit()).expect("valid Rust");
    assert_eq!(
        field_type(&file, "Holder", "dangling"),
        ":: serde_json :: Value"
    );
    let text = prettyplease::unparse(&file);
    assert!(
        text.contains("#/$defs/Missing"),
        "the fallback names the reference:\n{text}"
    );
}

/// `schema_document_to_rust_gated`: the types the roots need (through fields, tagged and
/// untagged variants, aliases and containers) and the default functions they call are always
/// compiled; every other type, its `Default` impl and its default functions carry the cfg.
#[test]
fn gated_document_compiles_only_what_the_roots_need_by_default() {
    use mcp_codegen::typespace::{schema_document_to_rust_gated, UnknownRoot};
    let doc = json!({
        "definitions": {
            "Kept": {
                "type": "object",
                "properties": {
                    "items": {"type": "array", "items": {"$ref": "#/definitions/Item"}},
                    "shape": {"$ref": "#/definitions/Shape"},
                    "level": {"type": "integer", "default": 3}
                }
            },
            "Item": {"$ref": "#/definitions/Name"},
            "Name": {"type": "string", "enum": ["a", "b"]},
            "Shape": {"oneOf": [{"$ref": "#/definitions/Circle"}, {"type": "string"}]},
            "Circle": {"type": "object", "properties": {"r": {"type": "number"}}, "required": ["r"]},
            "Other": {
                "type": "object",
                "properties": {"mode": {"type": "string", "default": "x"}, "name": {"$ref": "#/definitions/Name"}}
            }
        }
    });
    let rust = schema_document_to_rust_gated(&doc, "test.json", &["Kept"], "full").unwrap();
    let file = syn::parse_file(&rust).expect("valid Rust");
    let gated = |attrs: &[syn::Attribute]| {
        attrs
            .iter()
            .any(|a| a.to_token_stream().to_string() == "# [cfg (feature = \"full\")]")
    };
    let mut seen = std::collections::BTreeMap::new();
    for item in &file.items {
        match item {
            syn::Item::Struct(s) => {
                seen.insert(s.ident.to_string(), gated(&s.attrs));
            }
            syn::Item::Enum(e) => {
                seen.insert(e.ident.to_string(), gated(&e.attrs));
            }
            syn::Item::Type(t) => {
                seen.insert(t.ident.to_string(), gated(&t.attrs));
            }
            syn::Item::Impl(i) => {
                let ty = i.self_ty.to_token_stream().to_string();
                seen.insert(format!("impl {ty}"), gated(&i.attrs));
            }
            syn::Item::Mod(m) => {
                for inner in &m.content.as_ref().expect("inline module").1 {
                    if let syn::Item::Fn(f) = inner {
                        seen.insert(format!("fn {}", f.sig.ident), gated(&f.attrs));
                    }
                }
            }
            _ => {}
        }
    }
    let expected: std::collections::BTreeMap<String, bool> = [
        ("Kept", false),
        ("impl Kept", false),
        ("Item", false),
        ("Name", false),
        ("Shape", false),
        ("Circle", false),
        ("Other", true),
        ("impl Other", true),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    for (name, is_gated) in &expected {
        assert_eq!(seen.get(name), Some(is_gated), "{name} in\n{rust}");
    }
    let fns: Vec<_> = seen.iter().filter(|(k, _)| k.starts_with("fn ")).collect();
    assert_eq!(fns.len(), 2, "{rust}");
    assert!(
        fns.iter().any(|(_, g)| !**g) && fns.iter().any(|(_, g)| **g),
        "{rust}"
    );
    // Without a gate, the same text minus the attributes.
    let plain = mcp_codegen::typespace::schema_document_to_rust(&doc, "test.json");
    let without_cfg: String = rust
        .lines()
        .filter(|line| line.trim() != "#[cfg(feature = \"full\")]")
        .map(|line| format!("{line}\n"))
        .collect();
    assert_eq!(without_cfg, plain);
    assert_eq!(
        schema_document_to_rust_gated(&doc, "test.json", &["Missing"], "full"),
        Err(UnknownRoot("Missing".into()))
    );
}

/// Which untagged unions overlap: only those get the `ambiguous-union` warning, and only an
/// overlapping `oneOf` gets the `Deserialize` that tries every variant.
#[test]
fn overlapping_untagged_unions_are_found_on_the_lowered_types() {
    let schemas = json!({
        // Disjoint JSON types.
        "Scalar": {"oneOf": [{"type": "integer"}, {"type": "string"}, {"type": "boolean"}]},
        // String enums without a common value.
        "Word": {"oneOf": [{"enum": ["a", "b"]}, {"enum": ["c"]}]},
        // Closed structs kept apart by a required member.
        "Closed": {"oneOf": [
            {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"], "additionalProperties": false},
            {"type": "object", "properties": {"b": {"type": "string"}}, "required": ["b"], "additionalProperties": false}
        ]},
        // Open structs, one required member each, of types that do not overlap.
        "Typed": {"oneOf": [
            {"type": "object", "properties": {"v": {"type": "string"}}, "required": ["v"]},
            {"type": "object", "properties": {"v": {"type": "integer"}}, "required": ["v"]}
        ]},
        // A variant registered after the union: looked at once it is lowered.
        "Later": {"oneOf": [{"$ref": "#/components/schemas/Num"}, {"type": "string"}]},
        "Num": {"type": "number"},
        // A type or null, as Ethereum-style documents write `nullable` (`type: null` is a
        // literal that accepts only `null`, so it overlaps nothing else).
        "Nullable": {"oneOf": [{"$ref": "#/components/schemas/Num"}, {"$ref": "#/components/schemas/Null"}]},
        "Null": {"type": "null"},
        "Literals": {"oneOf": [{"const": 1}, {"const": "one"}, {"prefixItems": [{"type": "integer"}, {"type": "string"}]}]},
        // Overlapping: integer and number, open objects, `Value`.
        "Numbers": {"oneOf": [{"type": "integer"}, {"type": "number"}]},
        "Open": {"anyOf": [
            {"type": "object", "properties": {"a": {"type": "string"}}},
            {"type": "object", "properties": {"b": {"type": "string"}}}
        ]},
        "Anything": {"oneOf": [{"type": "string"}, {"description": "any value"}]}
    });
    let lowered = |strict: bool| {
        let mut space = TypeSpace::new();
        space.set_strict_unions(strict);
        for (name, schema) in schemas.as_object().unwrap() {
            space.add_named(&format!("#/components/schemas/{name}"), name, schema);
        }
        space.lower_all();
        space
    };
    let mut space = lowered(true);
    let warned: Vec<(String, &str)> = space
        .take_warnings()
        .into_iter()
        .map(|w| (w.registered.unwrap(), w.rule))
        .collect();
    assert_eq!(
        warned,
        [
            (
                "#/components/schemas/Numbers".to_string(),
                "ambiguous-union"
            ),
            ("#/components/schemas/Open".to_string(), "ambiguous-union"),
            (
                "#/components/schemas/Anything".to_string(),
                "ambiguous-union"
            ),
        ]
    );
    let text = pretty(space.emit());
    let counted: Vec<&str> = [
        "Scalar", "Word", "Closed", "Typed", "Later", "Numbers", "Open", "Anything",
    ]
    .into_iter()
    .filter(|name| text.contains(&format!("impl<'de> ::serde::Deserialize<'de> for {name} ")))
    .collect();
    // `Open` is an `anyOf`: the first variant that accepts a value is the one.
    assert_eq!(counted, ["Numbers", "Anything"]);
    // Not strict (the default), the `oneOf`s are read as `anyOf` too: no union counts.
    let text = pretty(lowered(false).emit());
    assert!(!text.contains("matched more than one variant"), "{text}");
}

/// Members beside `oneOf` are members of every variant, tagged or not.
#[test]
fn members_beside_a_union_are_merged_into_each_variant() {
    let schema = json!({
        "properties": {"id": {"type": "integer"}, "kind": {"type": "string"}},
        "required": ["id"],
        "oneOf": [
            {"properties": {"kind": {"const": "a"}, "x": {"type": "string"}}, "required": ["kind"]},
            {"properties": {"kind": {"const": "b"}}, "required": ["kind"]}
        ]
    });
    let mut space = TypeSpace::new();
    space.add_named("#/components/schemas/Thing", "Thing", &schema);
    let text = pretty(space.emit());
    assert!(text.contains("#[serde(tag = \"kind\")]"), "{text}");
    assert!(text.contains("A {\n        id: i64,"), "{text}");
    assert!(text.contains("B { id: i64 }"), "{text}");
}
