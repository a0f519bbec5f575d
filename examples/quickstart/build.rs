//! Generates the server module from `openrpc.json` into `OUT_DIR`, with a test per example
//! pairing of the contract (`cargo test -p quickstart` runs them against [`Notes`]).

fn main() {
    let builder = mcp_codegen::Builder::new("openrpc.json").example_tests("crate::Notes");
    if let Err(error) = builder.generate() {
        panic!("{error}");
    }
}
