//! The runtime's outgoing HTTP: one kind of keep-alive connection pool, `http` and `https`
//! (its connector is [`tls`]'s), shared by the MCP client (feature `client`) and the gateway's
//! upstream client (feature `upstream`), so both speak TLS the same way and describe a failed
//! exchange the same way.

pub(crate) mod tls;

use bytes::Bytes;
use http_body_util::Full;
use hyper_util::rt::TokioExecutor;

pub(crate) use tls::TlsConfig;

/// A keep-alive connection pool speaking `http` and `https`.
pub(crate) type Pool = hyper_util::client::legacy::Client<tls::Connector, Full<Bytes>>;

/// A pool trusting the system's roots and those of `tls`, keeping at most `max_idle_per_host`
/// idle connections to a host (`usize::MAX`: hyper's default, no bound). The error says which
/// root certificate could not be used (see [`tls::connector`]).
pub(crate) fn pool(tls: &TlsConfig, max_idle_per_host: usize) -> Result<Pool, String> {
    let connector = tls::connector(tls)?;
    Ok(
        hyper_util::client::legacy::Client::builder(TokioExecutor::new())
            .pool_max_idle_per_host(max_idle_per_host)
            .build(connector),
    )
}
