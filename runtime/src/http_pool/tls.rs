//! TLS for the runtime's outgoing pools (the MCP client's, the gateway's upstream's): the
//! connector, which speaks `http` and `https`.
//!
//! rustls with the `ring` provider, as the server's JWKS fetcher (`auth::jwt`) has it; trusted
//! are the system's root certificates and any the application adds
//! (`ClientBuilder::root_certificate`, `UpstreamSettings::root_certificates`: a private CA, a
//! test server's own certificate).

use hyper_rustls::{HttpsConnector, HttpsConnectorBuilder};
use hyper_util::client::legacy::connect::HttpConnector;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::CertificateDer;
use rustls::{ClientConfig, RootCertStore};
use std::error::Error;
use std::sync::{Arc, OnceLock};

/// The pool's connector: plain TCP for `http`, rustls over it for `https`.
pub(crate) type Connector = HttpsConnector<HttpConnector>;

/// What a pool trusts beside the system's root certificates.
#[derive(Debug, Clone, Default)]
pub(crate) struct TlsConfig {
    /// PEM documents of root certificates, read when the connector is made (so a bad one is
    /// reported then: the client's `connect`, `Upstream::new`).
    roots: Vec<Vec<u8>>,
}

impl TlsConfig {
    /// Trusts the certificates of `pem` (one or more `CERTIFICATE` blocks) as roots too.
    pub(crate) fn add_root_certificate(&mut self, pem: &[u8]) {
        self.roots.push(pem.to_vec());
    }
}

/// The connector trusting the system's roots and `config`'s. A root of `config` that cannot
/// be read is an error (its message starts with `root certificate: ` or `TLS: `).
pub(crate) fn connector(config: &TlsConfig) -> Result<Connector, String> {
    Ok(HttpsConnectorBuilder::new()
        .with_tls_config(client_config(config)?)
        .https_or_http()
        .enable_http1()
        .build())
}

/// The rustls configuration of [`connector`], for a connection made otherwise (the gateway's
/// `wss://` upstreams). Its errors are [`connector`]'s.
pub(crate) fn client_config(config: &TlsConfig) -> Result<ClientConfig, String> {
    let mut roots = system_roots().clone();
    for pem in &config.roots {
        let before = roots.len();
        for certificate in CertificateDer::pem_slice_iter(pem) {
            let certificate =
                certificate.map_err(|e| format!("root certificate: not PEM ({e})"))?;
            roots
                .add(certificate)
                .map_err(|e| format!("root certificate: unusable ({e})"))?;
        }
        if roots.len() == before {
            return Err("root certificate: no CERTIFICATE block in the PEM".into());
        }
    }
    if roots.is_empty() {
        // Not an error: an `http` endpoint needs none. An `https` one is then refused, its
        // certificate being trusted by nothing.
        tracing::warn!("tls: no root certificate, from the system or added: https will fail");
    }
    // *ring*: no C toolchain to build (aws-lc-rs needs one). rustls 0.23.48 deprecates it
    // for lacking post-quantum key exchange; the choice is documented (docs/operations.md).
    #[allow(deprecated)]
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    Ok(ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("TLS: {e}"))?
        .with_root_certificates(roots)
        .with_no_client_auth())
}

/// The system's root certificates, read once per process: reading and parsing them takes
/// tens of milliseconds (in a debug build), which a process making several clients pays once.
/// One that cannot be read is skipped (and logged).
fn system_roots() -> &'static RootCertStore {
    static ROOTS: OnceLock<RootCertStore> = OnceLock::new();
    ROOTS.get_or_init(|| {
        let mut roots = RootCertStore::empty();
        let native = rustls_native_certs::load_native_certs();
        for error in &native.errors {
            tracing::debug!(%error, "tls: a system root certificate store could not be read");
        }
        let (_, unusable) = roots.add_parsable_certificates(native.certs);
        if unusable > 0 {
            tracing::debug!(unusable, "tls: system root certificates skipped");
        }
        roots
    })
}

/// `error` and its sources, for a transport error (the pool's own message is only "client
/// error (Connect)"); a refused server certificate says so, and `trust` (how to trust
/// another: `"a private CA ... is trusted with ClientBuilder::root_certificate"`).
pub(crate) fn describe(error: &(dyn Error + 'static), trust: &str) -> String {
    let mut text = error.to_string();
    let mut certificate = is_certificate_error(error);
    let mut next = error.source();
    while let Some(source) = next {
        text.push_str(": ");
        text.push_str(&source.to_string());
        certificate |= is_certificate_error(source);
        next = source.source();
    }
    if certificate {
        text.push_str(" (the server's TLS certificate was refused; ");
        text.push_str(trust);
        text.push(')');
    }
    text
}

/// Whether `error` is rustls refusing the server's certificate, itself or inside
/// `io::Error`s (tokio-rustls wraps it in one, hyper-rustls that in another).
fn is_certificate_error(mut error: &(dyn Error + 'static)) -> bool {
    loop {
        if let Some(rustls::Error::InvalidCertificate(_)) = error.downcast_ref() {
            return true;
        }
        match error
            .downcast_ref::<std::io::Error>()
            .and_then(|io| io.get_ref())
        {
            Some(inner) => error = inner,
            None => return false,
        }
    }
}

/// A TLS server on 127.0.0.1 for the clients' tests, and its certificate.
///
/// The certificate (runtime/tests/fixtures/tls-test-localhost.crt, ECDSA P-256, self-signed,
/// not a CA) is for `localhost` and `127.0.0.1`, valid from 2000 to 2125: checked in rather
/// than made at test time, as nothing in the lock makes certificates and a unit test should not
/// need the `openssl` command. It was made with `openssl req -new` then `openssl ca -selfsign
/// -startdate 20000101000000Z -enddate 21250101000000Z` with the extensions
/// `subjectAltName=DNS:localhost,IP:127.0.0.1`, `basicConstraints=critical,CA:FALSE`,
/// `keyUsage=critical,digitalSignature`, `extendedKeyUsage=serverAuth`.
#[cfg(test)]
pub(crate) mod test_server {
    use bytes::Bytes;
    use http_body_util::Full;
    use hyper::body::Incoming;
    use hyper::{Request, Response};
    use hyper_util::rt::TokioIo;
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};
    use std::future::Future;
    use std::sync::Arc;

    /// The server's certificate, PEM: what a client adds as a root to trust it.
    pub(crate) const CERTIFICATE: &[u8] =
        include_bytes!("../../tests/fixtures/tls-test-localhost.crt");
    /// Its private key, PEM (PKCS #8). A test key: it protects nothing.
    const KEY: &[u8] = include_bytes!("../../tests/fixtures/tls-test-localhost.key");

    /// The TLS side of a test server presenting [`CERTIFICATE`] (for `localhost`).
    pub(crate) fn acceptor() -> tokio_rustls::TlsAcceptor {
        let certificate = CertificateDer::from_pem_slice(CERTIFICATE).unwrap();
        let key = PrivateKeyDer::from_pem_slice(KEY).unwrap();
        // *ring*: no C toolchain to build (aws-lc-rs needs one). rustls 0.23.48 deprecates it
        // for lacking post-quantum key exchange; the choice is documented (docs/operations.md).
        #[allow(deprecated)]
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(vec![certificate], key)
            .unwrap();
        tokio_rustls::TlsAcceptor::from(Arc::new(config))
    }

    /// `handler` served over https on a free port of 127.0.0.1: the port.
    pub(crate) async fn serve<F, Fut>(handler: F) -> u16
    where
        F: Fn(Request<Incoming>) -> Fut + Clone + Send + Sync + 'static,
        Fut: Future<Output = Response<Full<Bytes>>> + Send + 'static,
    {
        let acceptor = acceptor();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        tokio::spawn(async move {
            loop {
                let (tcp, _) = listener.accept().await.unwrap();
                let (acceptor, handler) = (acceptor.clone(), handler.clone());
                tokio::spawn(async move {
                    // A client that refuses the certificate ends the handshake: nothing to serve.
                    let Ok(tls) = acceptor.accept(tcp).await else {
                        return;
                    };
                    let service = hyper::service::service_fn(move |request| {
                        let response = handler(request);
                        async move { Ok::<_, std::convert::Infallible>(response.await) }
                    });
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(tls), service)
                        .await;
                });
            }
        });
        port
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(pems: &[&[u8]]) -> TlsConfig {
        let mut config = TlsConfig::default();
        for pem in pems {
            config.add_root_certificate(pem);
        }
        config
    }

    #[test]
    fn takes_a_root_certificate_and_refuses_what_is_none() {
        assert!(connector(&config(&[])).is_ok());
        assert!(connector(&config(&[test_server::CERTIFICATE])).is_ok());
        for (pem, says) in [
            (&b"not a PEM at all"[..], "no CERTIFICATE block"),
            (
                &include_bytes!("../../tests/fixtures/tls-test-localhost.key")[..],
                "no CERTIFICATE block",
            ),
            (
                &b"-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"[..],
                "unusable",
            ),
        ] {
            match connector(&config(&[test_server::CERTIFICATE, pem])) {
                Err(message) => assert!(message.contains(says), "{message}"),
                Ok(_) => panic!("{pem:?} taken as a root"),
            }
        }
    }

    #[test]
    fn describes_the_whole_chain() {
        let inner = std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            rustls::Error::InvalidCertificate(rustls::CertificateError::UnknownIssuer),
        );
        let text = describe(&std::io::Error::other(inner), "trust it so");
        assert!(
            text.starts_with("invalid peer certificate: UnknownIssuer"),
            "{text}"
        );
        assert!(
            text.ends_with("(the server's TLS certificate was refused; trust it so)"),
            "{text}"
        );
        let refused = std::io::Error::from(std::io::ErrorKind::ConnectionRefused);
        assert!(!describe(&refused, "trust it so").contains("certificate"));
    }
}
