//! `mcp-codegen`: turns an OpenRPC document into a typed Rust MCP server crate.

pub mod diagnostics;
pub mod names;
pub mod openrpc;
pub mod typespace;
pub mod validate;
