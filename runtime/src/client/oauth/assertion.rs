//! The JWTs a client presents rather than obtains through the flow: a workload identity
//! token for the JWT-bearer grant (RFC 7523 §2.1, MCP SEP-1933), or the ID token that
//! enterprise-managed authorization exchanges (SEP-990). Either is a fixed string or comes
//! from a [`TokenSource`] asked each time one is needed (such tokens are short-lived).

use super::super::error::ClientError;
use crate::future::BoxFuture;
use std::sync::Arc;

/// The longest assertion accepted from a source (it goes into a form body).
const MAX_ASSERTION_LEN: usize = 16 * 1024;

/// Where the client gets a JWT when it needs one: a workload identity provider (a projected
/// service-account token file, a cloud metadata server), a single sign-on session.
pub trait TokenSource: Send + Sync + 'static {
    /// A JWT for `audience`: the authorization server's issuer identifier for a JWT-bearer
    /// assertion, the client's ID at the identity provider for an ID token.
    fn token<'a>(&'a self, audience: &'a str) -> BoxFuture<'a, Result<String, ClientError>>;
}

/// A JWT the client presents: fixed, or from a [`TokenSource`].
#[derive(Clone)]
pub struct Assertion(Source);

#[derive(Clone)]
enum Source {
    Fixed(String),
    Dynamic(Arc<dyn TokenSource>),
}

impl Assertion {
    /// The same JWT every time (it is not refreshed: once it has expired, the grant fails).
    pub fn fixed(jwt: impl Into<String>) -> Self {
        Self(Source::Fixed(jwt.into()))
    }

    /// A JWT from `source`, asked for each time a token is requested.
    pub fn source(source: impl TokenSource) -> Self {
        Self(Source::Dynamic(Arc::new(source)))
    }

    /// The JWT for `audience`, checked to be a non-empty single-line string of a sane length
    /// (`what` names it in errors).
    pub(crate) async fn get(&self, audience: &str, what: &str) -> Result<String, ClientError> {
        let jwt = match &self.0 {
            Source::Fixed(jwt) => jwt.clone(),
            Source::Dynamic(source) => source.token(audience).await?,
        };
        let jwt = jwt.trim();
        if jwt.is_empty()
            || jwt.len() > MAX_ASSERTION_LEN
            || jwt.chars().any(|c| c.is_control() || c == ' ')
        {
            return Err(ClientError::OAuth(format!(
                "the {what} is not a usable JWT (empty, over {MAX_ASSERTION_LEN} bytes, or with spaces or control characters)"
            )));
        }
        tracing::debug!(%audience, what, len = jwt.len(), "oauth: assertion obtained");
        Ok(jwt.to_owned())
    }
}

impl std::fmt::Debug for Assertion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self.0 {
            Source::Fixed(_) => "Assertion::fixed(<redacted>)",
            Source::Dynamic(_) => "Assertion::source(..)",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Echo;

    impl TokenSource for Echo {
        fn token<'a>(&'a self, audience: &'a str) -> BoxFuture<'a, Result<String, ClientError>> {
            Box::pin(async move { Ok(format!("jwt-for-{audience}")) })
        }
    }

    #[tokio::test]
    async fn fixed_and_sourced_assertions() {
        assert_eq!(
            Assertion::fixed(" a.b.c\n").get("x", "t").await.unwrap(),
            "a.b.c"
        );
        assert_eq!(
            Assertion::source(Echo).get("as", "t").await.unwrap(),
            "jwt-for-as"
        );
        for bad in ["", "a b", "a\u{0}b", &"a".repeat(MAX_ASSERTION_LEN + 1)] {
            assert!(Assertion::fixed(bad).get("x", "t").await.is_err());
        }
        assert!(!format!("{:?}", Assertion::fixed("secret")).contains("secret"));
    }
}
