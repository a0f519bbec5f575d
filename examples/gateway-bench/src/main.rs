//! The gateway benchmark binary: the generated gateway for `openrpc.json` (one `echo` tool,
//! forwarded to the JSON-RPC service at `--upstream URL`, default `http://127.0.0.1:19299`),
//! as `mcp-codegen --tools echo --upstream URL` scaffolds it: no method written by hand.
//! `--addr HOST:PORT` (default 127.0.0.1:8080) serves MCP over Streamable HTTP at `/mcp`;
//! `--help` lists every setting. bench/run.sh's `gateway` table loads it.

use mcp_runtime::upstream::Upstream;

/// The code generated from `openrpc.json`.
mod generated {
    include!(concat!(env!("OUT_DIR"), "/mcp_server.rs"));
}

/// The handler: every method keeps the trait's forwarding body.
#[derive(Debug, Clone)]
struct App {
    upstream: Upstream,
}

impl generated::Handler for App {
    fn upstream(&self) -> &Upstream {
        &self.upstream
    }
}

fn main() -> std::process::ExitCode {
    mcp_runtime::entry::gateway(generated::UPSTREAM_URL, |upstream| {
        generated::Server::new(App { upstream })
    })
}
