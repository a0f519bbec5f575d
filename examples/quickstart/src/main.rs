//! The quickstart server binary: serves the notes over plain JSON-RPC on stdio until the MCP
//! transports land (see README.md, "What works today").

fn main() -> std::io::Result<()> {
    let server = quickstart::server::Server::new(quickstart::Notes::default());
    mcp_runtime::stdio::serve_jsonrpc(&server)
}
