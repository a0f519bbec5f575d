//! [`Principal`]: who a request acts for, as the authenticator decided at the edge.

use serde_json::Value;

/// The authenticated party behind a request: what an [`Authenticator`](super::Authenticator)
/// returns and what a handler reads with [`RequestContext::principal`](crate::RequestContext::principal).
///
/// It never holds the credential itself: the token stays at the edge.
#[derive(Debug, Clone, PartialEq)]
pub struct Principal {
    /// Who it is: the token's `sub` (or, without one, its `client_id`), or whatever
    /// identifies the party for a custom authenticator.
    pub subject: String,
    /// The scopes granted (a JWT's `scope`, space-separated, or `scp`).
    pub scopes: Vec<String>,
    /// Every claim of the token as JSON (an object), `Value::Null` when the authenticator has
    /// none to give.
    pub claims: Value,
}

impl Principal {
    /// A principal for `subject` with `scopes` and no claims.
    pub fn new(subject: impl Into<String>, scopes: Vec<String>) -> Self {
        Self {
            subject: subject.into(),
            scopes,
            claims: Value::Null,
        }
    }

    /// The same principal with `claims`.
    pub fn with_claims(mut self, claims: Value) -> Self {
        self.claims = claims;
        self
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
    fn scopes() {
        let principal = Principal::new("alice", vec!["read".into(), "write".into()]);
        assert!(principal.has_scope("read"));
        assert!(!principal.has_scope("admin"));
        let required = vec!["read".to_string(), "admin".to_string(), "ops".to_string()];
        assert_eq!(principal.missing_scopes(&required), ["admin", "ops"]);
        assert_eq!(principal.claims, Value::Null);
    }
}
