//! Enterprise-managed authorization (MCP SEP-990, the Identity Assertion JWT Authorization
//! Grant): the user's ID token from the enterprise identity provider is exchanged there
//! (RFC 8693 token exchange) for an ID-JAG addressed to the MCP server's authorization
//! server, which the client then presents in the JWT-bearer grant (RFC 7523 §2.1).

use super::super::error::ClientError;
use super::super::pool::Pool;
use super::assertion::Assertion;
use super::fetch::{form_post, send};
use super::registration::{AuthMethod, RegisteredClient};
use super::token::{authenticate, refusal};
use serde_json::Value;

/// RFC 8693's grant type.
const TOKEN_EXCHANGE: &str = "urn:ietf:params:oauth:grant-type:token-exchange";
/// The subject token's type: an OpenID Connect ID token.
const ID_TOKEN_TYPE: &str = "urn:ietf:params:oauth:token-type:id_token";
/// The requested token's type: an Identity Assertion JWT Authorization Grant.
const ID_JAG_TYPE: &str = "urn:ietf:params:oauth:token-type:id-jag";

/// The longest ID-JAG accepted.
const MAX_ID_JAG_LEN: usize = 16 * 1024;

/// The enterprise identity provider of [`Grant::EnterpriseManaged`](super::Grant): where the
/// user's ID token is exchanged for an ID-JAG, and who the client is there.
#[derive(Clone)]
pub struct IdentityProvider {
    pub(crate) token_endpoint: String,
    pub(crate) client_id: String,
    pub(crate) client_secret: Option<String>,
    pub(crate) id_token: Assertion,
}

impl IdentityProvider {
    /// The identity provider whose token endpoint is `token_endpoint`, where the client is
    /// `client_id` (a public client until [`client_secret`](Self::client_secret)), and the
    /// user's ID token it issued (asked of a source with the `client_id` as audience).
    pub fn new(
        token_endpoint: impl Into<String>,
        client_id: impl Into<String>,
        id_token: Assertion,
    ) -> Self {
        Self {
            token_endpoint: token_endpoint.into(),
            client_id: client_id.into(),
            client_secret: None,
            id_token,
        }
    }

    /// The client's secret at the identity provider (sent with HTTP Basic).
    pub fn client_secret(mut self, secret: impl Into<String>) -> Self {
        self.client_secret = Some(secret.into());
        self
    }
}

impl std::fmt::Debug for IdentityProvider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IdentityProvider")
            .field("token_endpoint", &self.token_endpoint)
            .field("client_id", &self.client_id)
            .field(
                "client_secret",
                &self.client_secret.as_ref().map(|_| "<redacted>"),
            )
            .field("id_token", &self.id_token)
            .finish()
    }
}

/// Exchanges the user's ID token at `idp` for an ID-JAG for the authorization server
/// `audience` (its issuer) and the MCP server `resource`, with `scope`.
pub(crate) async fn id_jag(
    pool: &Pool,
    idp: &IdentityProvider,
    audience: &str,
    resource: &str,
    scope: Option<&str>,
) -> Result<String, ClientError> {
    let endpoint = &idp.token_endpoint;
    let id_token = idp.id_token.get(&idp.client_id, "ID token").await?;
    let mut fields: Vec<(&str, String)> = vec![
        ("grant_type", TOKEN_EXCHANGE.to_owned()),
        ("requested_token_type", ID_JAG_TYPE.to_owned()),
        ("audience", audience.to_owned()),
        ("resource", resource.to_owned()),
        ("subject_token", id_token),
        ("subject_token_type", ID_TOKEN_TYPE.to_owned()),
    ];
    if let Some(scope) = scope {
        fields.push(("scope", scope.to_owned()));
    }
    let client = RegisteredClient {
        id: idp.client_id.clone(),
        secret: idp.client_secret.clone(),
        key: None,
        method: if idp.client_secret.is_some() {
            AuthMethod::Basic
        } else {
            AuthMethod::None
        },
    };
    let authorization = authenticate(endpoint, &client, &mut fields)?;
    let pairs: Vec<(&str, &str)> = fields.iter().map(|(k, v)| (*k, v.as_str())).collect();
    tracing::debug!(%endpoint, %audience, %resource, ?scope, client_id = %idp.client_id, "oauth: token exchange of the ID token for an ID-JAG");
    let answer = send(pool, form_post(endpoint, &pairs, authorization)?).await?;
    let document = answer.json_object();
    if !answer.status.is_success() {
        return Err(ClientError::OAuth(format!(
            "the identity provider's token endpoint {endpoint} refused the token exchange: {}",
            refusal(&answer, &document)
        )));
    }
    let document = document.map_err(|reason| {
        ClientError::OAuth(format!(
            "the identity provider's token endpoint {endpoint}: {reason}"
        ))
    })?;
    let issued = document.get("issued_token_type").and_then(Value::as_str);
    if issued != Some(ID_JAG_TYPE) {
        return Err(ClientError::OAuth(format!(
            "the identity provider's token endpoint {endpoint} issued a token of type {issued:?}, not an ID-JAG ({ID_JAG_TYPE})"
        )));
    }
    let id_jag = document
        .get("access_token")
        .and_then(Value::as_str)
        .filter(|jwt| {
            !jwt.is_empty()
                && jwt.len() <= MAX_ID_JAG_LEN
                && jwt.bytes().all(|b| b.is_ascii_graphic())
        })
        .ok_or_else(|| {
            ClientError::OAuth(format!(
                "the identity provider's token endpoint {endpoint} answered without a usable ID-JAG in access_token"
            ))
        })?;
    tracing::debug!(%endpoint, len = id_jag.len(), "oauth: ID-JAG issued");
    Ok(id_jag.to_owned())
}
