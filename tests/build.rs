//! Generates the HTTP test server from `fixtures/http-test.openrpc.json`.

fn main() {
    if let Err(error) = mcp_codegen::Builder::new("fixtures/http-test.openrpc.json").generate() {
        panic!("{error}");
    }
}
