//! Which of the service's endpoints a request path names.
//!
//! The MCP endpoint is the hot path: one comparison with [`ENDPOINT`](super::ENDPOINT). Every
//! other endpoint is opt-in and looked up only when that comparison fails, so turning them on
//! costs `/mcp` nothing.
//!
//! Where the service is mounted decides how paths are read ([`Mount`]): a server that owns its
//! listener answers exact paths and 404 elsewhere; a service embedded in an application's router
//! is a leaf, reached only through the routes the application gave it, and any path the router
//! hands it is the MCP endpoint (axum's `nest_service("/mcp", ..)` strips the prefix, so the
//! endpoint arrives as `/`).

use crate::config::Config;

/// How the service reads request paths.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mount {
    /// The service owns the listener (`McpServer::serve`): the
    /// MCP endpoint is `/mcp` and an unknown path gets 404.
    Listener,
    /// The service is a `tower::Service` inside another router: every path that is not one of
    /// the opt-in endpoints is the MCP endpoint.
    Embedded,
}

/// An endpoint of the service.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Route {
    /// The MCP endpoint (POST, GET, DELETE).
    Mcp,
    /// The plain JSON-RPC endpoint
    /// ([`config.endpoints.jsonrpc_path`](crate::config::Endpoints::jsonrpc_path)).
    PlainJsonRpc,
    /// The 2024-11-05 HTTP+SSE transport's `/sse` and `/messages`
    /// ([`config.endpoints.legacy_sse`](crate::config::Endpoints::legacy_sse)).
    LegacySse,
    /// The server card, at `<mcp endpoint>/server-card`
    /// ([`config.endpoints.server_card`](crate::config::Endpoints::server_card)).
    ServerCard,
    /// The MCP Catalog listing the card (`/.well-known/mcp/catalog.json`, and the AI Catalog
    /// path `/.well-known/ai-catalog.json`).
    Catalog,
    /// The Protected Resource Metadata (RFC 9728), when authorization is on
    /// ([`Config::auth`]).
    ResourceMetadata,
    /// The liveness probe ([`config.endpoints.health_path`](crate::config::Endpoints::health_path);
    /// under the runtime's listener only).
    Health,
    /// The readiness probe ([`config.endpoints.ready_path`](crate::config::Endpoints::ready_path);
    /// under the runtime's listener only).
    Ready,
    /// Nothing here: 404.
    NotFound,
}

/// The route of `path`, which is not [`ENDPOINT`](super::ENDPOINT).
#[cold]
pub(crate) fn off_endpoint(path: &str, config: &Config, mount: Mount) -> Route {
    // Embedded, the application's router has its own health routes, and every path it hands
    // the service is the MCP endpoint's.
    if mount == Mount::Listener {
        match super::probes::probe_at(path, config) {
            Some(super::probes::Probe::Health) => return Route::Health,
            Some(super::probes::Probe::Ready) => return Route::Ready,
            None => {}
        }
    }
    if config.endpoints.jsonrpc_path.as_deref() == Some(path) {
        return Route::PlainJsonRpc;
    }
    // The 2024-11-05 transport has no authorization (no principal bound to its sessions, no
    // per-call scopes): under `Config::auth` it is not served at all.
    if config.auth.is_none() && super::legacy_sse::serves(config, path) {
        return Route::LegacySse;
    }
    if config.endpoints.server_card {
        if let Some(route) = discovery(path, mount) {
            return route;
        }
    }
    if config
        .auth
        .as_ref()
        .is_some_and(|auth| auth.is_metadata_path(path))
    {
        return Route::ResourceMetadata;
    }
    match mount {
        Mount::Listener => Route::NotFound,
        Mount::Embedded => Route::Mcp,
    }
}

/// The path where a listener serves the server card: `<endpoint>/server-card`.
pub(crate) const SERVER_CARD_PATH: &str = "/mcp/server-card";
/// The catalog paths: the MCP Catalog, and the AI Catalog it is a subset of.
const CATALOG_PATHS: [&str; 2] = [
    "/.well-known/mcp/catalog.json",
    "/.well-known/ai-catalog.json",
];

/// The discovery document at `path`, if any. Embedded, the card is `/server-card` under
/// whatever path the router mounted the service at.
fn discovery(path: &str, mount: Mount) -> Option<Route> {
    let card = match mount {
        Mount::Listener => path == SERVER_CARD_PATH,
        Mount::Embedded => path.ends_with("/server-card"),
    };
    if card {
        Some(Route::ServerCard)
    } else if CATALOG_PATHS.contains(&path) {
        Some(Route::Catalog)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config_with_jsonrpc() -> Config {
        Config::builder()
            .jsonrpc_path(Some("/jsonrpc".into()))
            .build()
    }

    #[test]
    fn a_listener_answers_only_its_paths() {
        let config = config_with_jsonrpc();
        let route = |path| off_endpoint(path, &config, Mount::Listener);
        assert_eq!(route("/jsonrpc"), Route::PlainJsonRpc);
        assert_eq!(route("/"), Route::NotFound);
        assert_eq!(route("/mcp/"), Route::NotFound);
        assert_eq!(route("/other"), Route::NotFound);
    }

    #[test]
    fn probes_are_served_under_a_listener_at_their_configured_paths() {
        let config = Config::default();
        let route = |path| off_endpoint(path, &config, Mount::Listener);
        assert_eq!(route("/healthz"), Route::Health);
        assert_eq!(route("/readyz"), Route::Ready);
        assert_eq!(route("/healthz/"), Route::NotFound);
        assert_eq!(
            off_endpoint("/healthz", &config, Mount::Embedded),
            Route::Mcp,
            "embedded, the application routes its own probes"
        );
        let moved = Config::builder()
            .health_path(Some("/live".into()))
            .ready_path(None)
            .build();
        let route = |path| off_endpoint(path, &moved, Mount::Listener);
        assert_eq!(route("/live"), Route::Health);
        assert_eq!(route("/healthz"), Route::NotFound);
        assert_eq!(route("/readyz"), Route::NotFound);
    }

    #[test]
    fn an_embedded_service_is_the_endpoint_wherever_it_is_mounted() {
        let config = config_with_jsonrpc();
        let route = |path| off_endpoint(path, &config, Mount::Embedded);
        assert_eq!(route("/"), Route::Mcp);
        assert_eq!(route("/api/mcp"), Route::Mcp);
        assert_eq!(route("/jsonrpc"), Route::PlainJsonRpc);
        let plain = Config::default();
        assert_eq!(
            off_endpoint("/jsonrpc", &plain, Mount::Embedded),
            Route::Mcp
        );
    }
}
