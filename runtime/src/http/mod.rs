//! The Streamable HTTP transport: one `/mcp` endpoint (POST, GET, DELETE) for every revision,
//! served by `McpServer::serve` or embedded as a `tower::Service` (`McpServer::handle`).
//!
//! Open `endpoint` first: `Endpoint` is the one type, with the routing and the three
//! methods. This module only frames: it checks headers, reads bodies, decides each request's
//! era and hands it to the engine (`crate::engine`), then writes what comes back as JSON or
//! SSE. `post` routes a message, `session_answer` and `stateless` frame the two eras' answers.
//! `jsonrpc` is the opt-in plain JSON-RPC endpoint ([`crate::config::Endpoints::jsonrpc_path`]),
//! `legacy_sse` the opt-in 2024-11-05 HTTP+SSE transport
//! ([`crate::config::Endpoints::legacy_sse`]); `listener` accepts connections and drains them.

mod auth;
mod body;
mod endpoint;
mod get;
pub(crate) mod guard;
mod headers;
mod jsonrpc;
pub mod legacy_sse;
mod listener;
mod peers;
mod post;
pub mod probes;
mod request_body;
mod response;
mod routes;
mod server_card;
mod session_answer;
pub mod stateless;
mod supervisor;

pub use body::{Body, StreamCut};
pub use probes::{NotReady, Readiness};

use std::sync::Arc;

use crate::engine::Engine;

/// The header carrying the session id.
#[doc(hidden)]
pub const SESSION_HEADER: &str = "mcp-session-id";
/// [`SESSION_HEADER`] as a header name, built at compile time.
const SESSION_HEADER_NAME: http::HeaderName = http::HeaderName::from_static(SESSION_HEADER);
/// The header carrying the negotiated protocol version.
#[doc(hidden)]
pub const VERSION_HEADER: &str = "mcp-protocol-version";
#[doc(hidden)]
pub use crate::protocol::ENDPOINT;

/// The MCP endpoint over HTTP: the engine, and what each request to it gets. Its routing
/// and its POST, GET and DELETE are in `endpoint.rs`; the other files add its parts.
///
/// `McpServer` holds one and lends it to each request; cloning one is cloning an `Arc`.
pub(crate) struct Endpoint<D> {
    pub(crate) engine: Arc<Engine<D>>,
}

impl<D> Clone for Endpoint<D> {
    fn clone(&self) -> Self {
        Self {
            engine: self.engine.clone(),
        }
    }
}
