//! The error of [`super::JwtAuthenticator::new`] and [`super::JwtAuthenticator::auth`].

use crate::auth::ResourceUrlError;
use std::fmt;

/// Why [`super::JwtSettings`] cannot make an authenticator ([`super::JwtAuthenticator::new`],
/// [`super::JwtAuthenticator::auth`]). Its `to_string()` names the setting at fault: `issuer
/// http://as.example.com: only fetched over https (http only from a loopback host)`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum JwtConfigError {
    /// The issuer URL is not `https` (nor `http` to a loopback host), or not a URL.
    Issuer {
        /// Why, naming the URL.
        reason: String,
    },
    /// The JWKS URL is not `https` (nor `http` to a loopback host), or not a URL.
    JwksUrl {
        /// Why, naming the URL.
        reason: String,
    },
    /// The system's root certificates could not be loaded.
    RootCertificates {
        /// What loading them said.
        reason: String,
    },
    /// The audience is not a resource URL ([`crate::auth::canonical_resource`];
    /// [`super::JwtAuthenticator::auth`] only).
    Audience(ResourceUrlError),
}

impl fmt::Display for JwtConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Issuer { reason } => write!(f, "issuer {reason}"),
            Self::JwksUrl { reason } => write!(f, "JWKS {reason}"),
            Self::RootCertificates { reason } => {
                write!(f, "cannot load the system's root certificates: {reason}")
            }
            Self::Audience(error) => write!(f, "audience {error}"),
        }
    }
}

impl std::error::Error for JwtConfigError {}
