//! Generates the HTTP test server from `fixtures/http-test.openrpc.json`, and the server of
//! `fixtures/openrpc/validation.openrpc.json` whose params use every validation rule.

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
}
