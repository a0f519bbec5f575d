//! The shop with its middleware as a program: `--addr HOST:PORT` (default 127.0.0.1:8080)
//! serves MCP over Streamable HTTP at `/mcp`; `--stdio` over stdin/stdout; `--help` lists
//! every setting (`--audit` adds an audit record per call, `--rate-limit` a limit per caller).

fn main() -> std::process::ExitCode {
    mcp_runtime::entry::main(middleware_example::shop_server())
}
