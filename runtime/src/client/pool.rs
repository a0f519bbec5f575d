//! The client's one connection pool, `http` and `https` (its connector is [`tls`](super::tls)'s):
//! every MCP request and the OAuth flow's exchanges go through it, and its failures are told
//! the same way.

use super::error::ClientError;
use super::tls::{self, TlsConfig};
use bytes::Bytes;
use http_body_util::Full;
use hyper_util::rt::TokioExecutor;

/// The client's one connection pool (the OAuth flow's requests use it too).
pub(crate) type Pool = hyper_util::client::legacy::Client<tls::Connector, Full<Bytes>>;

/// A pool speaking `http` and `https`, trusting the system's roots and those of `tls`.
pub(crate) fn pool(tls: &TlsConfig) -> Result<Pool, ClientError> {
    let connector = tls::connector(tls)?;
    Ok(hyper_util::client::legacy::Client::builder(TokioExecutor::new()).build(connector))
}

/// A failed exchange of `what` (`"POST https://..."`), with the causes the pool's error
/// carries (a refused certificate, a refused connection, ...).
pub(crate) fn transport_error(
    what: impl std::fmt::Display,
    error: &(dyn std::error::Error + 'static),
) -> ClientError {
    ClientError::Transport(format!("{what}: {}", tls::describe(error)))
}
