//! The benchmark server: one `echo` tool whose result is one text block with the same text.
//!
//! `server` is the generated module; [`Echo`] implements its `Handler`. The crate is a library
//! too, so the micro-benchmarks in `bench/` drive the generated dispatch directly.

use mcp_runtime::mcp::ToolResult;
use mcp_runtime::{Error, RequestContext};

/// The code generated from `openrpc.json`.
pub mod server {
    include!(concat!(env!("OUT_DIR"), "/mcp_server.rs"));
}

/// The handler: echoes `text` back.
#[derive(Debug, Default, Clone, Copy)]
pub struct Echo;

impl server::Handler for Echo {
    async fn echo(
        &self,
        _ctx: &RequestContext,
        params: server::types::EchoParams,
    ) -> Result<ToolResult, Error> {
        Ok(ToolResult::text(params.text))
    }
}
