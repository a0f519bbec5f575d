//! Generates the gateway module from `openrpc.json` into `OUT_DIR`: `echo` made a tool by
//! `tools`, forwarded to the upstream (the default URL; `--upstream` overrides it).

fn main() {
    if let Err(error) = mcp_codegen::Builder::new("openrpc.json")
        .tools(["echo"])
        .upstream("http://127.0.0.1:19299")
        .generate()
    {
        panic!("{error}");
    }
}
