//! The everything-server binary: `--addr HOST:PORT` (default 127.0.0.1:8080) serves MCP over
//! Streamable HTTP at `/mcp`; `--stdio` serves it over stdin/stdout; `--help` lists every
//! setting (each also an `MCP_*` environment variable).

fn main() -> std::process::ExitCode {
    mcp_runtime::entry::main(everything_server::server::Server::new(
        everything_server::Everything,
    ))
}
