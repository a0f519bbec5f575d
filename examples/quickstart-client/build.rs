//! Generates the typed client of the quickstart's contract into `OUT_DIR`: the same
//! `openrpc.json` the server is generated from, so a change to the contract that breaks a
//! caller breaks this crate's build.

fn main() {
    let builder = mcp_codegen::Builder::new("../quickstart/openrpc.json")
        .client_only()
        .no_skills()
        .file_name("mcp_client.rs");
    if let Err(error) = builder.generate() {
        panic!("{error}");
    }
}
