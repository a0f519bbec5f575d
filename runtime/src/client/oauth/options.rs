//! What a user configures: [`OAuth`], its [`Grant`], a [`PreRegistered`] client and the
//! [`AuthorizationCallback`] that takes a user through the browser.

use std::sync::Arc;

use super::dpop::Dpop;
use super::{token, Assertion, IdentityProvider};
use crate::client::error::ClientError;
use crate::future::BoxFuture;

/// The redirect URI used when none is set: a loopback address a native application would
/// listen on ([`OAuth::redirect_uri`] sets the real one).
pub const DEFAULT_REDIRECT_URI: &str = "http://localhost:33418/callback";

/// How many times one request may start the flow (401, then 403 step-ups) before its
/// 401/403 is returned as [`ClientError::Http`].
pub const DEFAULT_MAX_AUTHORIZATIONS: usize = 2;

/// How the client obtains its tokens.
#[derive(Debug, Clone, Default)]
pub enum Grant {
    /// The authorization code grant with PKCE: a user approves, through the
    /// [`AuthorizationCallback`].
    #[default]
    AuthorizationCode,
    /// The client credentials grant (a machine client, no user): needs [`PreRegistered`]
    /// credentials, a secret or a private key.
    ClientCredentials,
    /// The JWT-bearer grant (RFC 7523 §2.1) with a workload's identity token, for workload
    /// identity federation (SEP-1933): the authorization server trusts the workload's
    /// identity provider, not a secret of the client. The assertion is asked for with the
    /// authorization server's issuer as audience. A refused grant is reported, not retried.
    JwtBearer(Assertion),
    /// Enterprise-managed authorization (SEP-990): the user's ID token is exchanged at
    /// their enterprise [`IdentityProvider`] (RFC 8693) for an ID-JAG naming the
    /// authorization server and the MCP server, which the JWT-bearer grant then trades for
    /// the token; the client authenticates at the authorization server with its
    /// [`PreRegistered`] credentials.
    EnterpriseManaged(IdentityProvider),
}

impl Grant {
    /// Whether a user takes part (the authorization code grant).
    pub(super) fn is_authorization_code(&self) -> bool {
        matches!(self, Self::AuthorizationCode)
    }

    /// The `grant_types` a registration of a client using it names.
    pub(crate) fn registered_types(&self) -> &'static [&'static str] {
        match self {
            Self::AuthorizationCode => &["authorization_code", "refresh_token"],
            Self::ClientCredentials => &["client_credentials"],
            Self::JwtBearer(_) | Self::EnterpriseManaged(_) => &[token::JWT_BEARER],
        }
    }
}

/// Credentials the client was registered with beforehand (out of band).
#[derive(Clone)]
pub struct PreRegistered {
    pub(super) client_id: String,
    pub(super) secret: Option<String>,
    pub(super) private_key: Option<(String, String)>,
    pub(super) issuer: Option<String>,
    pub(super) any_issuer: bool,
}

impl PreRegistered {
    /// A client known as `client_id` (a public client until a secret or key is given).
    pub fn new(client_id: impl Into<String>) -> Self {
        Self {
            client_id: client_id.into(),
            secret: None,
            private_key: None,
            issuer: None,
            any_issuer: false,
        }
    }

    /// Its `client_secret` (`client_secret_basic` or `client_secret_post`, whichever the
    /// authorization server lists).
    pub fn secret(mut self, secret: impl Into<String>) -> Self {
        self.secret = Some(secret.into());
        self
    }

    /// Its private key for `private_key_jwt` (RFC 7523): a PKCS#8 PEM document and the JWS
    /// algorithm (only `ES256` is supported).
    pub fn private_key_pem(mut self, pem: impl Into<String>, algorithm: impl Into<String>) -> Self {
        self.private_key = Some((pem.into(), algorithm.into()));
        self
    }

    /// The authorization server (issuer identifier) these credentials are for; they are
    /// offered to no other. Without it (and without [`for_any_issuer`](Self::for_any_issuer))
    /// a secret or a key is offered to none: the MCP server names the authorization server,
    /// and a hostile one would name its own to collect them. A public client (an ID alone)
    /// is offered to any.
    pub fn issuer(mut self, issuer: impl Into<String>) -> Self {
        self.issuer = Some(issuer.into());
        self
    }

    /// Offers these credentials to whichever authorization server the MCP server names:
    /// only for an MCP server trusted as much as the credentials (tests, the conformance
    /// suite). Prefer [`issuer`](Self::issuer).
    pub fn for_any_issuer(mut self) -> Self {
        self.any_issuer = true;
        self
    }

    /// Whether the credentials may be offered to the authorization server `issuer`.
    pub(crate) fn meant_for(&self, issuer: Option<&str>) -> bool {
        match &self.issuer {
            Some(own) => Some(own.as_str()) == issuer,
            None => self.any_issuer || (self.secret.is_none() && self.private_key.is_none()),
        }
    }
}

/// The user's part of the authorization code grant: sends them to the authorization URL
/// (a browser) and returns where the authorization server redirected them.
pub trait AuthorizationCallback: Send + Sync + 'static {
    /// Opens `authorization_url` for the user and waits for the redirect to `redirect_uri`;
    /// returns the URL redirected to, with its query (`code`, `state`, `iss`, or `error`),
    /// which the flow checks.
    fn authorize<'a>(
        &'a self,
        authorization_url: &'a str,
        redirect_uri: &'a str,
    ) -> BoxFuture<'a, Result<String, ClientError>>;
}

/// The OAuth configuration of a client ([`ClientBuilder::oauth`](crate::client::ClientBuilder::oauth)).
///
/// Without an [`AuthorizationCallback`] the client follows the authorization URL itself
/// with a GET and reads the `code` from the redirect's `Location`: what an authorization
/// server that approves without a user (tests, the conformance suite) needs.
#[derive(Clone)]
pub struct OAuth {
    pub(super) grant: Grant,
    pub(super) client_name: String,
    pub(super) redirect_uri: String,
    pub(super) client_metadata_url: Option<String>,
    pub(super) pre_registered: Option<PreRegistered>,
    pub(super) callback: Option<Arc<dyn AuthorizationCallback>>,
    pub(super) offline_access: bool,
    pub(super) max_authorizations: usize,
    pub(super) dpop: Dpop,
}

impl Default for OAuth {
    fn default() -> Self {
        Self::new()
    }
}

impl OAuth {
    /// The authorization code grant, dynamic registration as `mcp-runtime-client`,
    /// [`DEFAULT_REDIRECT_URI`], redirects followed by the client itself.
    pub fn new() -> Self {
        Self {
            grant: Grant::AuthorizationCode,
            client_name: "mcp-runtime-client".into(),
            redirect_uri: DEFAULT_REDIRECT_URI.into(),
            client_metadata_url: None,
            pre_registered: None,
            callback: None,
            offline_access: true,
            max_authorizations: DEFAULT_MAX_AUTHORIZATIONS,
            dpop: Dpop::Off,
        }
    }

    /// The grant (default [`Grant::AuthorizationCode`]).
    pub fn grant(mut self, grant: Grant) -> Self {
        self.grant = grant;
        self
    }

    /// The `client_name` sent in dynamic registration.
    pub fn client_name(mut self, name: impl Into<String>) -> Self {
        self.client_name = name.into();
        self
    }

    /// The redirect URI registered and sent in the authorization request.
    pub fn redirect_uri(mut self, uri: impl Into<String>) -> Self {
        self.redirect_uri = uri.into();
        self
    }

    /// The HTTPS URL of the client's metadata document, used as its `client_id` at
    /// authorization servers that advertise `client_id_metadata_document_supported`.
    pub fn client_metadata_url(mut self, url: impl Into<String>) -> Self {
        self.client_metadata_url = Some(url.into());
        self
    }

    /// Pre-registered credentials, used instead of registering.
    pub fn pre_registered(mut self, credentials: PreRegistered) -> Self {
        self.pre_registered = Some(credentials);
        self
    }

    /// Who takes the user to the authorization URL (default: the client follows it itself).
    pub fn callback(mut self, callback: impl AuthorizationCallback) -> Self {
        self.callback = Some(Arc::new(callback));
        self
    }

    /// Whether to ask for `offline_access` (a refresh token) when the authorization server
    /// lists it in `scopes_supported` (default yes).
    pub fn offline_access(mut self, ask: bool) -> Self {
        self.offline_access = ask;
        self
    }

    /// How many times one request may start the flow (default
    /// [`DEFAULT_MAX_AUTHORIZATIONS`]): a bound on step-up loops.
    pub fn max_authorizations(mut self, max: usize) -> Self {
        self.max_authorizations = max;
        self
    }

    /// Whether to ask for DPoP-bound tokens (RFC 9449; default [`Dpop::Off`]). With DPoP the
    /// client generates an ES256 key for the session and proves its possession on every
    /// token request and every request to the MCP server.
    pub fn dpop(mut self, dpop: Dpop) -> Self {
        self.dpop = dpop;
        self
    }
}
