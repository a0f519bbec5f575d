//! [`Principal`]: who a request acts for, as the authenticator decided at the edge.

use serde_json::Value;

/// The authenticated party behind a request: what an [`Authenticator`](super::Authenticator)
/// returns and what a handler reads with [`RequestContext::principal`](crate::RequestContext::principal).
///
/// It holds the credential itself only when the server asks for it
/// ([`Auth::keep_access_token`](super::Auth::keep_access_token), for a gateway that exchanges
/// the caller's token for one of the upstream's, RFC 8693); even then nothing outside this
/// crate can read it, and `Debug` never shows it.
#[derive(Clone, PartialEq)]
pub struct Principal {
    /// Who it is: the token's `sub` (or, without one, its `client_id`), or whatever
    /// identifies the party for a custom authenticator.
    pub subject: String,
    /// The scopes granted (a JWT's `scope`, space-separated, or `scp`).
    pub scopes: Vec<String>,
    /// Every claim of the token as JSON (an object), `Value::Null` when the authenticator has
    /// none to give.
    pub claims: Value,
    /// The caller's access token, kept only with [`Auth::keep_access_token`](super::Auth::keep_access_token).
    access_token: Option<AccessToken>,
}

/// An access token kept for a token exchange: never printed.
#[derive(Clone, PartialEq)]
struct AccessToken(std::sync::Arc<str>);

impl std::fmt::Debug for Principal {
    /// Every field but the access token (shown as kept or not, never its value).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Principal")
            .field("subject", &self.subject)
            .field("scopes", &self.scopes)
            .field("claims", &self.claims)
            .field(
                "access_token",
                &self.access_token.as_ref().map(|_| "[redacted]"),
            )
            .finish()
    }
}

impl Principal {
    /// A principal for `subject` with `scopes` and no claims.
    pub fn new(subject: impl Into<String>, scopes: Vec<String>) -> Self {
        Self {
            subject: subject.into(),
            scopes,
            claims: Value::Null,
            access_token: None,
        }
    }

    /// The same principal with `claims`.
    pub fn with_claims(mut self, claims: Value) -> Self {
        self.claims = claims;
        self
    }

    /// The same principal holding the caller's access token `token` (the edge sets it with
    /// [`Auth::keep_access_token`](super::Auth::keep_access_token)).
    pub(crate) fn keeping_access_token(mut self, token: &str) -> Self {
        self.access_token = Some(AccessToken(token.into()));
        self
    }

    /// The caller's access token, when the edge kept it (read by the gateway's token
    /// exchange, feature `upstream`).
    #[cfg_attr(not(feature = "upstream"), allow(dead_code))]
    pub(crate) fn access_token(&self) -> Option<&str> {
        self.access_token.as_ref().map(|token| &*token.0)
    }

    /// Whether `scope` was granted.
    pub fn has_scope(&self, scope: &str) -> bool {
        self.scopes.iter().any(|granted| granted == scope)
    }

    /// What identifies this principal across requests (a session's owner): its issuer
    /// (`iss` claim, if any) and subject.
    pub(crate) fn owner_key(&self) -> String {
        format!(
            "{}\n{}",
            self.claims["iss"].as_str().unwrap_or_default(),
            self.subject
        )
    }

    /// A digest of [`owner_key`](Self::owner_key) (SHA-256, hex): what state that may leave
    /// the process (a task record, a sealed `requestState`) carries to name its owner, so
    /// that no store holds the subject itself.
    pub(crate) fn owner_digest(&self) -> String {
        use sha2::{Digest, Sha256};
        crate::ids::hex(&Sha256::digest(self.owner_key().as_bytes()))
    }

    /// The scopes of `required` that were not granted, in their order.
    pub fn missing_scopes<'a>(&self, required: &'a [String]) -> Vec<&'a str> {
        required
            .iter()
            .filter(|scope| !self.has_scope(scope))
            .map(String::as_str)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_token_is_never_printed() {
        let principal = Principal::new("alice", Vec::new()).keeping_access_token("eyJsecret");
        assert_eq!(principal.access_token(), Some("eyJsecret"));
        let shown = format!("{principal:?}");
        assert!(!shown.contains("eyJsecret"), "{shown}");
        assert!(shown.contains("[redacted]"), "{shown}");
    }

    #[test]
    fn scopes() {
        let principal = Principal::new("alice", vec!["read".into(), "write".into()]);
        assert!(principal.has_scope("read"));
        assert!(!principal.has_scope("admin"));
        let required = vec!["read".to_string(), "admin".to_string(), "ops".to_string()];
        assert_eq!(principal.missing_scopes(&required), ["admin", "ops"]);
        assert_eq!(principal.claims, Value::Null);
    }
}
