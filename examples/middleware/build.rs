//! Generates the server module from `openrpc.json` into `OUT_DIR`.

fn main() {
    if let Err(error) = mcp_codegen::Builder::new("openrpc.json").generate() {
        panic!("{error}");
    }
}
