//! The benchmark server binary: `--addr HOST:PORT` (default 127.0.0.1:8080) serves MCP over
//! Streamable HTTP at `/mcp`; `--stdio` serves it over stdin/stdout; `--help` lists every
//! setting.
//!
//! `BENCH_SSE_RESPONSES=1` answers every session-era request as an SSE stream
//! (`config.streams.sse_responses`, also `--sse-responses`), to measure that mode.

use mcp_runtime::{Config, McpServer};

fn main() -> std::process::ExitCode {
    let config = Config::builder()
        .sse_responses(std::env::var("BENCH_SSE_RESPONSES").is_ok_and(|v| v == "1"))
        .build();
    mcp_runtime::entry::run_with(config, |config| {
        McpServer::builder(bench_server::server::Server::new(bench_server::Echo))
            .config(config)
            .build()
    })
}
