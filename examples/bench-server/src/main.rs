//! The benchmark server binary: `--addr HOST:PORT` (default 127.0.0.1:8080) serves MCP over
//! Streamable HTTP at `/mcp`; `--stdio` serves it over stdin/stdout.

fn main() -> std::process::ExitCode {
    mcp_runtime::entry::main(bench_server::server::Server::new(bench_server::Echo))
}
