//! An axum application that mounts a generated MCP server beside its own routes.
//!
//! The MCP server is the quickstart's notes server, a `tower::Service`; the application nests
//! it at `/mcp` with [`Router::nest_service`], next to its own `/health` route, and wraps
//! everything in one middleware that stamps each response with `x-served-by: axum-app`.
//! Nesting strips the `/mcp` prefix, which the service accepts: embedded in a router, it is
//! the MCP endpoint wherever it is mounted.

use axum::extract::Request;
use axum::http::HeaderValue;
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::routing::get;
use axum::Router;
use mcp_runtime::{Config, McpServer};
use quickstart::server::Server;
use quickstart::Notes;

/// The header [`stamp`] adds to every response.
pub const SERVED_BY: &str = "x-served-by";

/// The generated notes server with `config`.
pub fn notes_server(config: Config) -> McpServer<Server<Notes>> {
    McpServer::builder(Server::new(Notes::default()))
        .config(config)
        .build()
}

/// The application: its own routes, `mcp` at `/mcp`, and the middleware over both.
pub fn app(mcp: McpServer<Server<Notes>>) -> Router {
    Router::new()
        .route("/health", get(|| async { "ok" }))
        .nest_service("/mcp", mcp)
        .layer(middleware::from_fn(stamp))
}

/// The application's middleware: runs around its routes and the MCP server alike.
async fn stamp(request: Request, next: Next) -> Response {
    let mut response = next.run(request).await;
    response
        .headers_mut()
        .insert(SERVED_BY, HeaderValue::from_static("axum-app"));
    response
}
