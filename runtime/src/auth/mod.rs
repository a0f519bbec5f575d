//! Authorization: an HTTP server as an OAuth 2.1 resource server (MCP's authorization
//! chapter; RFC 6750, 8707, 9728).
//!
//! Off by default ([`Config::auth`](crate::Config::auth) is `None`; stdio never uses it).
//! When set, the HTTP edge authenticates every request to `/mcp` (and to the plain JSON-RPC
//! path) before the engine runs:
//!
//! - the [`Authenticator`] turns the request's head into a [`Principal`] or a [`Refusal`]
//!   (401 with `WWW-Authenticate: Bearer resource_metadata="…"`, 403 `insufficient_scope`,
//!   400 `invalid_request`);
//! - a principal lacking one of [`Auth::required_scopes`] is refused with 403 and the
//!   `scope` to ask for;
//! - the principal reaches the handler on its context
//!   ([`RequestContext::principal`](crate::RequestContext::principal));
//! - [`ResourceMetadata`] is served at `/.well-known/oauth-protected-resource` and at its
//!   path-inserted form (`…/oauth-protected-resource/mcp`).
//!
//! With the `jwt` feature, [`JwtAuthenticator`](jwt/struct.JwtAuthenticator.html) validates JWT access tokens against
//! the issuer's JWKS. Tokens are never logged nor passed on.

mod authenticator;
mod bearer;
pub(crate) mod cli;
#[cfg(feature = "jwt")]
pub mod jwt;
mod metadata;
mod principal;
mod shared_proofs;
mod step_up;

pub use authenticator::{Authenticator, Refusal};
pub use bearer::bearer_token;
pub use cli::AuthArgs;
pub use metadata::{
    canonical_resource, ResourceMetadata, ResourceUrlError, UrlProblem, WELL_KNOWN,
};
pub use principal::Principal;
pub(crate) use shared_proofs::SharedProofs;
pub(crate) use shared_proofs::SHARED_PROOFS;
pub use step_up::{StepUp, StepUpRequest};

use std::sync::Arc;

/// The authorization settings of a server: who authenticates, what it publishes, which
/// scopes every request needs. Set it in [`Config::auth`](crate::Config::auth).
///
/// Cheap to clone.
#[derive(Clone)]
pub struct Auth {
    authenticator: Arc<dyn Authenticator>,
    published: Arc<Published>,
    step_up: Option<Arc<dyn StepUp>>,
    /// Whether each principal keeps the caller's access token ([`Auth::keep_access_token`]).
    keep_access_token: bool,
}

/// What the edge sends back, computed once.
struct Published {
    metadata: ResourceMetadata,
    required_scopes: Vec<String>,
    /// The metadata document.
    document: String,
    /// The metadata URL, for `resource_metadata` in challenges.
    url: String,
}

impl Auth {
    /// `authenticator` for the resource `metadata` describes.
    pub fn new(metadata: ResourceMetadata, authenticator: impl Authenticator) -> Self {
        Self::with_authenticator(metadata, Arc::new(authenticator))
    }

    /// Like [`Auth::new`] with a shared authenticator.
    pub fn with_authenticator(
        metadata: ResourceMetadata,
        authenticator: Arc<dyn Authenticator>,
    ) -> Self {
        Self {
            authenticator,
            published: Arc::new(Published::new(metadata, Vec::new())),
            step_up: None,
            keep_access_token: false,
        }
    }

    /// Every call also needs the scopes `policy` names for it (per request, from the
    /// principal, the call and its arguments: [`StepUp`]); a principal lacking one is refused
    /// with 403 naming every scope the request needs.
    #[must_use]
    pub fn step_up(mut self, policy: impl StepUp) -> Self {
        self.step_up = Some(Arc::new(policy));
        self
    }

    /// Each principal keeps the caller's access token (the token of its `Authorization:
    /// Bearer` or `DPoP` header), for a gateway that exchanges it for a token of the
    /// upstream's (RFC 8693: `upstream::TokenExchange`, feature `upstream`). Off by default: a principal then holds no credential. Even on, no API
    /// outside this crate reads the token, and nothing logs it.
    ///
    /// The gateway binary turns it on with `--upstream-auth token-exchange`.
    #[must_use]
    pub fn keep_access_token(mut self) -> Self {
        self.keep_access_token = true;
        self
    }

    /// Whether principals keep the caller's access token.
    pub(crate) fn keeps_access_token(&self) -> bool {
        self.keep_access_token
    }

    /// The step-up policy, if any.
    pub(crate) fn step_up_policy(&self) -> Option<&dyn StepUp> {
        self.step_up.as_deref()
    }

    /// Every request needs all of `scopes` (403 `insufficient_scope` otherwise); they are
    /// added to the metadata's `scopes_supported`.
    #[must_use]
    pub fn require_scopes(self, scopes: Vec<String>) -> Self {
        let metadata = self.published.metadata.clone();
        Self {
            authenticator: self.authenticator,
            published: Arc::new(Published::new(metadata, scopes)),
            step_up: self.step_up,
            keep_access_token: self.keep_access_token,
        }
    }

    /// The same settings with `scopes` added to the metadata's `scopes_supported` (the
    /// contract's scopes: [`crate::Contract::scopes_supported`]).
    #[must_use]
    pub fn support_scopes(self, scopes: &[&str]) -> Self {
        let mut metadata = self.published.metadata.clone();
        for scope in scopes {
            if !metadata.scopes_supported.iter().any(|s| s == scope) {
                metadata.scopes_supported.push((*scope).to_owned());
            }
        }
        let required = self.published.required_scopes.clone();
        Self {
            authenticator: self.authenticator,
            published: Arc::new(Published::new(metadata, required)),
            step_up: self.step_up,
            keep_access_token: self.keep_access_token,
        }
    }

    /// The published metadata.
    pub fn metadata(&self) -> &ResourceMetadata {
        &self.published.metadata
    }

    /// The scopes every request needs.
    pub fn required_scopes(&self) -> &[String] {
        &self.published.required_scopes
    }

    /// The authenticator.
    pub fn authenticator(&self) -> &Arc<dyn Authenticator> {
        &self.authenticator
    }

    /// The metadata document (JSON).
    pub(crate) fn document(&self) -> &str {
        &self.published.document
    }

    /// The metadata URL (path-inserted form).
    pub(crate) fn metadata_url(&self) -> &str {
        &self.published.url
    }

    /// Whether `path` is where this server serves its metadata: the root form, `…/mcp`, or
    /// the resource URL's own path inserted.
    pub(crate) fn is_metadata_path(&self, path: &str) -> bool {
        match path.strip_prefix(WELL_KNOWN) {
            Some("") => true,
            Some(rest) => {
                rest == crate::protocol::ENDPOINT || rest == self.metadata().resource_path()
            }
            None => false,
        }
    }

    /// The scopes a client should ask for, for the `scope` parameter of a 401: the required
    /// ones, else every supported one.
    pub(crate) fn challenge_scope(&self) -> Option<String> {
        let scopes = match self.required_scopes() {
            [] => &self.metadata().scopes_supported[..],
            required => required,
        };
        (!scopes.is_empty()).then(|| scopes.join(" "))
    }
}

impl Published {
    fn new(mut metadata: ResourceMetadata, required_scopes: Vec<String>) -> Self {
        for scope in &required_scopes {
            if !metadata.scopes_supported.contains(scope) {
                metadata.scopes_supported.push(scope.clone());
            }
        }
        Self {
            document: metadata.document(),
            url: metadata.url(),
            metadata,
            required_scopes,
        }
    }
}

impl std::fmt::Debug for Auth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Auth")
            .field("metadata", self.metadata())
            .field("required_scopes", &self.required_scopes())
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::future::BoxFuture;

    struct Nobody;

    impl Authenticator for Nobody {
        fn authenticate<'a>(
            &'a self,
            _: &'a http::request::Parts,
        ) -> BoxFuture<'a, Result<Principal, Refusal>> {
            Box::pin(async { Err(Refusal::Missing) })
        }
    }

    #[test]
    fn metadata_paths_and_scopes() {
        let metadata =
            ResourceMetadata::new("https://h/api/mcp", vec!["https://as".into()]).unwrap();
        let auth = Auth::new(metadata, Nobody);
        assert_eq!(auth.challenge_scope(), None);
        for path in [
            "/.well-known/oauth-protected-resource",
            "/.well-known/oauth-protected-resource/mcp",
            "/.well-known/oauth-protected-resource/api/mcp",
        ] {
            assert!(auth.is_metadata_path(path), "{path}");
        }
        for path in [
            "/.well-known/oauth-protected-resource/x",
            "/.well-known/oauth-protected-resourcex",
            "/mcp",
        ] {
            assert!(!auth.is_metadata_path(path), "{path}");
        }
        let auth = auth.require_scopes(vec!["mcp:call".into()]);
        assert_eq!(auth.challenge_scope().as_deref(), Some("mcp:call"));
        assert_eq!(auth.metadata().scopes_supported, ["mcp:call"]);
        assert!(auth
            .document()
            .contains("\"scopes_supported\":[\"mcp:call\"]"));
        assert_eq!(
            auth.metadata_url(),
            "https://h/.well-known/oauth-protected-resource/api/mcp"
        );
    }
}
