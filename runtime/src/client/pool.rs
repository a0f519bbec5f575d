//! The client's one connection pool, `http` and `https` (the runtime's shared
//! [`http_pool`](crate::http_pool), with [`tls`](super::tls)'s connector): every MCP request
//! and the OAuth flow's exchanges go through it, and its failures are told the same way.

use super::error::ClientError;
use super::tls::TlsConfig;

/// The client's one connection pool (the OAuth flow's requests use it too).
pub(crate) type Pool = crate::http_pool::Pool;

/// A pool speaking `http` and `https`, trusting the system's roots and those of `tls`.
pub(crate) fn pool(tls: &TlsConfig) -> Result<Pool, ClientError> {
    crate::http_pool::pool(tls, usize::MAX).map_err(ClientError::Config)
}

/// A failed exchange of `what` (`"POST https://..."`), with the causes the pool's error
/// carries (a refused certificate, a refused connection, ...).
pub(crate) fn transport_error(
    what: impl std::fmt::Display,
    error: &(dyn std::error::Error + 'static),
) -> ClientError {
    ClientError::Transport(format!(
        "{what}: {}",
        crate::http_pool::tls::describe(
            error,
            "a private CA or a self-signed certificate is trusted with ClientBuilder::root_certificate"
        )
    ))
}
