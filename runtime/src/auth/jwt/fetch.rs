//! Fetching the issuer's metadata and JWKS: GET of a JSON document over HTTPS (plain HTTP
//! only to a loopback host, for development and tests), bounded in time and size.
//!
//! hyper-util's client with hyper-rustls: hyper is already the server's HTTP stack, so this
//! adds only the TLS layer (rustls with the `ring` provider and the system's root
//! certificates), not a second HTTP client with its own connection pool and dependencies.

use bytes::Bytes;
use http_body_util::{BodyExt, Empty, Limited};
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use serde_json::Value;
use std::time::Duration;

/// Largest metadata or JWKS document accepted, in bytes.
pub(super) const MAX_DOCUMENT_BYTES: usize = 1024 * 1024;

/// A GET-JSON client for the issuer's documents.
pub(super) struct Fetcher {
    client: Client<HttpsConnector<HttpConnector>, Empty<Bytes>>,
    timeout: Duration,
}

impl Fetcher {
    /// A client whose requests give up after `timeout`. Fails when the system's root
    /// certificates cannot be loaded.
    pub(super) fn new(timeout: Duration) -> Result<Self, super::JwtConfigError> {
        // *ring*: no C toolchain to build (aws-lc-rs needs one). rustls 0.23.48 deprecates it
        // for lacking post-quantum key exchange; the choice is documented (docs/operations.md).
        #[allow(deprecated)]
        let provider = std::sync::Arc::new(rustls::crypto::ring::default_provider());
        let connector = hyper_rustls::HttpsConnectorBuilder::new()
            .with_provider_and_native_roots(provider)
            .map_err(|e| super::JwtConfigError::RootCertificates {
                reason: e.to_string(),
            })?
            .https_or_http()
            .enable_http1()
            .build();
        Ok(Self {
            client: Client::builder(TokioExecutor::new()).build(connector),
            timeout,
        })
    }

    /// The JSON document at `url` (`200` only).
    pub(super) async fn get_json(&self, url: &str) -> Result<Value, String> {
        let uri = checked_url(url)?;
        let request = http::Request::get(uri)
            .header(http::header::ACCEPT, "application/json")
            .body(Empty::new())
            .map_err(|e| format!("{url}: {e}"))?;
        let fetch = async {
            let response = self
                .client
                .request(request)
                .await
                .map_err(|e| format!("GET {url}: {e}"))?;
            if response.status() != http::StatusCode::OK {
                return Err(format!("GET {url}: status {}", response.status()));
            }
            let body = Limited::new(response.into_body(), MAX_DOCUMENT_BYTES)
                .collect()
                .await
                .map_err(|e| format!("GET {url}: reading the body: {e}"))?
                .to_bytes();
            serde_json::from_slice(&body).map_err(|e| format!("GET {url}: not JSON: {e}"))
        };
        match tokio::time::timeout(self.timeout, fetch).await {
            Ok(result) => result,
            Err(_) => Err(format!("GET {url}: no answer within {:?}", self.timeout)),
        }
    }
}

/// `url` as a URI to fetch: `https`, or `http` to a loopback host.
pub(super) fn checked_url(url: &str) -> Result<http::Uri, String> {
    crate::secure_url::https_or_loopback(url)
}
