//! The quickstart server binary: `--addr HOST:PORT` (default 127.0.0.1:8080) serves MCP over
//! Streamable HTTP at `/mcp`; `--stdio` serves it over stdin/stdout; `--help` lists every
//! setting (each also an `MCP_*` environment variable).

fn main() -> std::process::ExitCode {
    mcp_runtime::entry::main(quickstart::server::Server::new(quickstart::Notes::default()))
}
