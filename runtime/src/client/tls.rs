//! TLS for the client: the connector of its one pool (every MCP request and the OAuth flow's
//! exchanges), which speaks `http` and `https`. It lives in the runtime's shared
//! [`http_pool::tls`](crate::http_pool::tls) (the gateway's upstream client uses it too):
//! rustls with the `ring` provider, trusting the system's root certificates and any the
//! application adds (`ClientBuilder::root_certificate`).

pub(crate) use crate::http_pool::tls::TlsConfig;

#[cfg(test)]
pub(crate) use crate::http_pool::tls::test_server;
