//! Generates the HTTP test server from `fixtures/http-test.openrpc.json`, the server of
//! `fixtures/openrpc/validation.openrpc.json` whose params use every validation rule, the server
//! of `fixtures/openrpc/schema-shapes.openrpc.json` (tuples, literal enums, `nullable`), the
//! server of `fixtures/openrpc/unions.openrpc.json` (union shapes, `not`, `if`), the server of
//! `fixtures/doors.openrpc.json` (the door table), and the server of
//! `fixtures/openrpc/errors.openrpc.json` whose handlers return contract errors.

fn main() {
    if let Err(error) = mcp_codegen::Builder::new("fixtures/http-test.openrpc.json").generate() {
        panic!("{error}");
    }
    // Every rule the generated validation enforces, run by `tests/validation_rules.rs`.
    if let Err(error) = mcp_codegen::Builder::new("../fixtures/openrpc/validation.openrpc.json")
        .file_name("validation_server.rs")
        .generate()
    {
        panic!("{error}");
    }
    // Tuples, literal enums and `nullable`, run by `tests/schema_shapes.rs`.
    if let Err(error) = mcp_codegen::Builder::new("../fixtures/openrpc/schema-shapes.openrpc.json")
        .file_name("schema_shapes_server.rs")
        .generate()
    {
        panic!("{error}");
    }
    // Union shapes and sub-schema keywords, decoded and checked by `tests/union_shapes.rs`:
    // to JSON Schema's letter (`--strict-unions`, so every verdict is the `jsonschema`
    // crate's), and as a document means its unions (the default: an ambiguous `oneOf` takes
    // the first variant that accepts a value).
    if let Err(error) = mcp_codegen::Builder::new("../fixtures/openrpc/unions.openrpc.json")
        .file_name("unions_server.rs")
        .strict_unions(true)
        .generate()
    {
        panic!("{error}");
    }
    if let Err(error) = mcp_codegen::Builder::new("../fixtures/openrpc/unions.openrpc.json")
        .file_name("unions_any_of_server.rs")
        .generate()
    {
        panic!("{error}");
    }
    // Scoped, hidden, rate-limited, step-up and excluded methods: `tests/doors.rs` sends the
    // same call through every door.
    if let Err(error) = mcp_codegen::Builder::new("fixtures/doors.openrpc.json")
        .file_name("doors_server.rs")
        .generate()
    {
        panic!("{error}");
    }
    // Contract errors as typed constructors, run by `tests/contract_errors.rs`.
    if let Err(error) = mcp_codegen::Builder::new("../fixtures/openrpc/errors.openrpc.json")
        .file_name("errors_server.rs")
        .generate()
    {
        panic!("{error}");
    }
}
