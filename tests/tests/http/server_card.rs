//! The server card and the MCP Catalog (opt-in, `config.endpoints.server_card`): served from the
//! contract's `info["x-mcp"].card` with this server's remote, valid against the card schema
//! (`fixtures/server-card/`), public (CORS `*`, any Origin, cacheable, ETag and 304), and 404
//! when off.

use http::StatusCode;
use serde_json::{json, Value};
use std::path::Path;

use crate::support::{send_to, start};
use mcp_runtime::Config;

/// Asserts that `card` is a server card by the extension's schema, formats included.
fn assert_valid_card(card: &Value) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/server-card/server-card.schema.json");
    let mut root: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    root.as_object_mut()
        .unwrap()
        .insert("$ref".into(), json!("#/$defs/ServerCard"));
    let validator = jsonschema::options()
        .should_validate_formats(true)
        .build(&root)
        .unwrap();
    let errors: Vec<String> = validator
        .iter_errors(card)
        .map(|e| format!("{e} at {}", e.instance_path))
        .collect();
    assert!(
        errors.is_empty(),
        "not a server card: {card}\n{}",
        errors.join("\n")
    );
}

fn card_config() -> Config {
    Config::builder().server_card(true).build()
}

#[tokio::test]
async fn the_card_is_the_contracts_with_this_servers_remote() {
    let server = start(card_config()).await;
    let reply = send_to(
        server.addr,
        "/mcp/server-card",
        "GET",
        &[("accept", "application/mcp-server-card+json")],
        "",
    )
    .await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(
        reply.header("content-type"),
        Some("application/mcp-server-card+json")
    );
    assert_eq!(reply.header("access-control-allow-origin"), Some("*"));
    assert_eq!(reply.header("cache-control"), Some("public, max-age=3600"));
    assert!(reply.header("etag").is_some_and(|tag| tag.starts_with('"')));
    let card = reply.json().await;
    assert_valid_card(&card);
    let url = format!("http://{}/mcp", server.addr);
    assert_eq!(
        card,
        json!({
            "$schema": "https://static.modelcontextprotocol.io/schemas/v2/server-card.schema.json",
            "name": "invalid.example/http-test-server",
            "version": "1.0.0",
            "description": "The server the workspace's HTTP tests talk to.",
            "title": "HTTP test server",
            "websiteUrl": "https://example.invalid/http-test",
            "repository": {"source": "github", "url": "https://example.invalid/mcp-codegen"},
            "remotes": [{
                "type": "streamable-http",
                "url": url,
                "supportedProtocolVersions": ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"],
            }],
        })
    );
}

#[tokio::test]
async fn the_catalog_lists_the_card_and_both_agree_with_the_public_url() {
    let config = Config::builder()
        .server_card(true)
        .public_url(Some("https://mcp.example.com/mcp".into()))
        .build();
    let server = start(config).await;
    for path in [
        "/.well-known/mcp/catalog.json",
        "/.well-known/ai-catalog.json",
    ] {
        let reply = send_to(server.addr, path, "GET", &[], "").await;
        assert_eq!(reply.status, StatusCode::OK, "{path}");
        assert_eq!(reply.header("content-type"), Some("application/json"));
        assert_eq!(reply.header("access-control-allow-origin"), Some("*"));
        assert_eq!(
            reply.json().await,
            json!({"specVersion": "draft", "entries": [{
                "identifier": "urn:air:mcp.example.com:http-test-server",
                "displayName": "HTTP test server",
                "type": "application/mcp-server-card+json",
                "url": "https://mcp.example.com/mcp/server-card",
            }]})
        );
    }
    let card = send_to(server.addr, "/mcp/server-card", "GET", &[], "")
        .await
        .json()
        .await;
    assert_eq!(card["remotes"][0]["url"], "https://mcp.example.com/mcp");
    assert_valid_card(&card);
}

#[tokio::test]
async fn the_documents_are_public_cacheable_and_read_only() {
    let server = start(card_config()).await;
    let first = send_to(server.addr, "/mcp/server-card", "GET", &[], "").await;
    let etag = first.header("etag").unwrap().to_string();
    // The same version: 304, with the validators again and no body.
    let again = send_to(
        server.addr,
        "/mcp/server-card",
        "GET",
        &[("if-none-match", &etag)],
        "",
    )
    .await;
    assert_eq!(again.status, StatusCode::NOT_MODIFIED);
    assert_eq!(again.header("etag"), Some(etag.as_str()));
    assert_eq!(again.text().await, "");
    let other = send_to(
        server.addr,
        "/mcp/server-card",
        "GET",
        &[("if-none-match", "\"other\"")],
        "",
    )
    .await;
    assert_eq!(other.status, StatusCode::OK);
    // Any web page may read it; the Host must still be one this server answers to.
    let foreign = [("origin", "https://elsewhere.example")];
    assert_eq!(
        send_to(server.addr, "/mcp/server-card", "GET", &foreign, "")
            .await
            .status,
        StatusCode::OK
    );
    let rebinding = [("host", "attacker.example")];
    assert_eq!(
        send_to(server.addr, "/mcp/server-card", "GET", &rebinding, "")
            .await
            .status,
        StatusCode::FORBIDDEN
    );
    let preflight = send_to(server.addr, "/mcp/server-card", "OPTIONS", &foreign, "").await;
    assert_eq!(preflight.status, StatusCode::NO_CONTENT);
    assert_eq!(
        preflight.header("access-control-allow-methods"),
        Some("GET")
    );
    let post = send_to(
        server.addr,
        "/.well-known/mcp/catalog.json",
        "POST",
        &[],
        "{}",
    )
    .await;
    assert_eq!(post.status, StatusCode::METHOD_NOT_ALLOWED);
    // The card is not a `.well-known` document.
    assert_eq!(
        send_to(server.addr, "/.well-known/mcp/server-card", "GET", &[], "")
            .await
            .status,
        StatusCode::NOT_FOUND
    );
}

#[tokio::test]
async fn off_by_default() {
    let server = start(Config::default()).await;
    for path in [
        "/mcp/server-card",
        "/.well-known/mcp/catalog.json",
        "/.well-known/ai-catalog.json",
    ] {
        assert_eq!(
            send_to(server.addr, path, "GET", &[], "").await.status,
            StatusCode::NOT_FOUND,
            "{path}"
        );
    }
}
