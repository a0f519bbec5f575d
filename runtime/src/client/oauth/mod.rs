//! OAuth 2.1 for the client: what the MCP authorization specification (2025-06-18,
//! 2025-11-25, 2026-07-28; and the 2025-03-26 fallbacks) asks of an MCP client.
//!
//! Given [`ClientBuilder::oauth`](super::ClientBuilder::oauth), every request of the client
//! (POST, the GET stream, DELETE) carries `Authorization: Bearer <token>` once it has one, and
//! a 401 or a 403 `insufficient_scope` starts [the flow](Session::challenged), after which the
//! request is sent again (at most [`OAuth::max_authorizations`] times):
//!
//! 1. the `WWW-Authenticate` challenge is read (`resource_metadata`, `scope`, `error`);
//! 2. the protected-resource metadata (RFC 9728) is fetched from the challenge's URL, else the
//!    well-known URLs (path-suffixed, then root); its `resource` must cover the server;
//!    a server without one (2025-03-26) is its own authorization server;
//! 3. the authorization server's metadata (RFC 8414, then OpenID Discovery, with the
//!    path-insertion orders) is fetched and its `issuer` checked;
//! 4. the client is registered: [pre-registered](PreRegistered) credentials, a client ID
//!    metadata document URL when the server supports them, else dynamic registration
//!    (RFC 7591), once per authorization server;
//! 5. a token is obtained ([`Grant`]): the authorization code grant with PKCE S256, `state`
//!    and the RFC 9207 `iss` checks (the user's part done by an [`AuthorizationCallback`]),
//!    the client credentials grant, the JWT-bearer grant with a workload's [`Assertion`]
//!    (RFC 7523, SEP-1933), or enterprise-managed authorization (SEP-990: the user's ID
//!    token exchanged at the [`IdentityProvider`] for an ID-JAG, RFC 8693, then the
//!    JWT-bearer grant); with the `resource` parameter (RFC 8707) and the scopes of the
//!    challenge, else the metadata's `scopes_supported` (a step-up asks for the union of
//!    those asked before and those challenged);
//! 6. an expired token, or a 401, is first refreshed when there is a refresh token and the
//!    authorization server is still the same.
//!
//! With [`OAuth::dpop`] the tokens are DPoP-bound (RFC 9449, SEP-1932): the session's ES256
//! key signs a proof for every token request and every request to the MCP server, which
//! then carries `Authorization: DPoP <token>`; a `use_dpop_nonce` answer (of the
//! authorization server or of the MCP server) is retried once with the nonce it gave.
//!
//! ```no_run
//! # async fn run() -> Result<(), mcp_runtime::client::ClientError> {
//! use mcp_runtime::client::{Client, OAuth};
//!
//! let client = Client::builder("http://127.0.0.1:8080/mcp")
//!     .oauth(OAuth::new().client_name("my-app"))
//!     .connect()
//!     .await?;
//! # Ok(()) }
//! ```
//!
//! The flow's exchanges go through the client's pool, `http` or `https` (whatever roots the
//! client trusts). Not checked: that the authorization server's endpoints are `https` (the
//! specification's rule, loopback aside); `http` ones are used as given.
//!
//! Not done: token persistence across processes; `private_key_jwt` and DPoP keys other than
//! ES256 (and a DPoP key of the application's own: each session generates one); discovering
//! the identity provider's token endpoint from its issuer.

mod assertion;
mod challenge;
mod discovery;
mod dpop;
mod exchange;
mod fetch;
#[cfg(test)]
mod flow_tests;
mod jwt;
mod options;
mod pkce;
mod registration;
mod response;
mod token;
mod url;

pub use assertion::{Assertion, TokenSource};
pub(crate) use challenge::{parse as parse_challenge, Challenge};
pub use dpop::Dpop;
pub(crate) use dpop::DPOP;
pub use exchange::IdentityProvider;
pub use options::{
    AuthorizationCallback, Grant, OAuth, PreRegistered, DEFAULT_MAX_AUTHORIZATIONS,
    DEFAULT_REDIRECT_URI,
};
use response::authorization_response;

use super::error::ClientError;
use super::pool::Pool;
use discovery::{AuthorizationServer, ProtectedResource};
use dpop::Prover;
use http::header::{HeaderMap, HeaderValue, LOCATION};
use http::{Method, StatusCode};
use jwt::SigningKey;
use registration::RegisteredClient;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use token::Token;

/// A token this close to its expiry is refreshed before it is sent.
const REFRESH_MARGIN: Duration = Duration::from_secs(30);

/// The flow's state for one client: the token in use, and what authorizing again needs.
pub(crate) struct Session {
    config: OAuth,
    key: Option<Arc<SigningKey>>,
    /// The DPoP key and nonces, unless DPoP is off.
    prover: Option<Prover>,
    pool: Pool,
    server_url: String,
    server: url::Parts,
    current: Mutex<Option<Current>>,
    /// Held while a flow runs, so that concurrent 401s start one flow, not several.
    flow: tokio::sync::Mutex<Flow>,
}

/// The token in use and where it came from.
#[derive(Clone)]
struct Current {
    token: Token,
    authority: Arc<Authority>,
}

/// What a token was obtained with: refreshing it needs the same.
struct Authority {
    server: AuthorizationServer,
    client: RegisteredClient,
    resource: String,
    /// Whether the token requests carry DPoP proofs.
    dpop: bool,
}

/// What a request to the MCP server carries: the `Authorization` header, and the DPoP
/// proof that goes with a DPoP-bound token.
pub(crate) struct Credentials {
    /// The access token (the flow compares it with the current one after a 401).
    pub(crate) token: String,
    /// `Bearer <token>` or `DPoP <token>`.
    pub(crate) authorization: HeaderValue,
    /// The `DPoP` header: a fresh proof for this request.
    pub(crate) proof: Option<HeaderValue>,
}

/// What outlives one flow.
#[derive(Default)]
struct Flow {
    /// The client's registration at each authorization server (by issuer).
    clients: HashMap<String, RegisteredClient>,
    /// Every scope asked for so far, in order (a step-up asks for them all again).
    scopes: Vec<String>,
}

impl Session {
    /// The session of a client of `server_url`; its private key (if any) is read now.
    pub(crate) fn new(config: OAuth, pool: Pool, server_url: &str) -> Result<Self, ClientError> {
        let server = url::parts(server_url).map_err(ClientError::Config)?;
        let key = match config
            .pre_registered
            .as_ref()
            .and_then(|p| p.private_key.as_ref())
        {
            Some((pem, algorithm)) => Some(Arc::new(
                SigningKey::from_pem(pem, algorithm).map_err(ClientError::Config)?,
            )),
            None => None,
        };
        if matches!(config.grant, Grant::ClientCredentials) && config.pre_registered.is_none() {
            return Err(ClientError::Config(
                "OAuth client credentials grant: no pre-registered credentials".into(),
            ));
        }
        let prover = match config.dpop {
            Dpop::Off => None,
            Dpop::WhenSupported | Dpop::Required => {
                Some(Prover::generate().map_err(ClientError::Config)?)
            }
        };
        Ok(Self {
            config,
            key,
            prover,
            pool,
            server_url: server_url.to_owned(),
            server,
            current: Mutex::new(None),
            flow: tokio::sync::Mutex::new(Flow::default()),
        })
    }

    /// How many times one request may start the flow.
    pub(crate) fn max_authorizations(&self) -> usize {
        self.config.max_authorizations
    }

    /// The access token to send (`None` before the first flow), refreshed first when it
    /// is about to expire and can be.
    #[cfg(test)]
    pub(crate) async fn access_token(&self) -> Option<String> {
        self.token().await.map(|token| token.access)
    }

    /// What a `method` request to the MCP server carries (`None` before the first flow):
    /// the token as `Bearer`, or as `DPoP` with a proof (`ath`, and the server's nonce).
    pub(crate) async fn credentials(
        &self,
        method: &Method,
    ) -> Result<Option<Credentials>, ClientError> {
        let Some(token) = self.token().await else {
            return Ok(None);
        };
        let header = |scheme: &str| {
            HeaderValue::try_from(format!("{scheme} {}", token.access))
                .map_err(|e| ClientError::OAuth(format!("the access token: {e}")))
        };
        let (authorization, proof) = match (&self.prover, token.dpop) {
            (Some(prover), true) => {
                let nonce = prover.resource_nonce();
                let proof = prover
                    .proof(
                        method,
                        &self.server_url,
                        Some(&token.access),
                        nonce.as_deref(),
                    )
                    .map_err(ClientError::OAuth)?;
                (header("DPoP")?, Some(proof))
            }
            _ => (header("Bearer")?, None),
        };
        Ok(Some(Credentials {
            token: token.access,
            authorization,
            proof,
        }))
    }

    /// Remembers the MCP server's DPoP nonce in an answer's `headers` (RFC 9449 §9: any
    /// answer may carry a new one); whether there was one.
    pub(crate) fn resource_nonce(&self, headers: &HeaderMap) -> bool {
        self.prover
            .as_ref()
            .is_some_and(|prover| prover.remember_resource_nonce(headers))
    }

    /// The token in use, refreshed first when it is about to expire and can be.
    async fn token(&self) -> Option<Token> {
        let current = self.current()?;
        if current.token.expired(REFRESH_MARGIN) && current.token.refresh.is_some() {
            let _flow = self.flow.lock().await;
            let now = self.current()?;
            if now.token.access == current.token.access {
                if let Err(error) = self.refresh(&now).await {
                    tracing::debug!(%error, "oauth: the expiring token was not refreshed");
                }
            }
        }
        self.current().map(|c| c.token)
    }

    /// After a 401, or a 403 `insufficient_scope`, of a request sent with `sent`: a new
    /// token, or the error that says why there is none. When the token changed since the
    /// request was sent (another request's flow), nothing is done: the request is resent
    /// with it.
    pub(crate) async fn challenged(
        &self,
        status: StatusCode,
        challenge: &Challenge,
        sent: Option<&str>,
    ) -> Result<(), ClientError> {
        let mut flow = self.flow.lock().await;
        let current = self.current();
        if current.as_ref().map(|c| c.token.access.as_str()) != sent {
            return Ok(());
        }
        let step_up = status == StatusCode::FORBIDDEN;
        tracing::debug!(status = status.as_u16(), ?challenge, url = %self.server_url, "oauth: challenged");
        let prm =
            discovery::protected_resource(&self.pool, &self.server_url, &self.server, challenge)
                .await?;
        let (server, resource) = self.authorization_server(prm.as_ref()).await?;
        let dpop = self.dpop_for(&server, prm.as_ref(), challenge)?;
        if !step_up {
            if let Some(current) = current
                .filter(|c| c.token.refresh.is_some() && c.authority.server.key() == server.key())
            {
                match self.refresh(&current).await {
                    Ok(()) => return Ok(()),
                    Err(error) => {
                        tracing::debug!(%error, "oauth: refresh failed; authorizing again")
                    }
                }
            }
        }
        let scope = self.scopes(&mut flow, challenge, prm.as_ref(), &server);
        let client = match flow.clients.get(server.key()) {
            Some(client) => client.clone(),
            None => {
                let client =
                    registration::register(&self.pool, &self.config, self.key.as_ref(), &server)
                        .await?;
                flow.clients.insert(server.key().to_owned(), client.clone());
                client
            }
        };
        let scope = scope.as_deref();
        // The audience of an assertion: the authorization server's issuer.
        let audience = server.issuer.as_deref().unwrap_or(&server.token_endpoint);
        let token = match &self.config.grant {
            Grant::AuthorizationCode => {
                self.authorization_code(&server, &client, scope, &resource, dpop)
                    .await?
            }
            Grant::ClientCredentials => {
                let grant = token::Grant::ClientCredentials(scope);
                token::request(&self.pool, &server, &client, grant, &resource, dpop).await?
            }
            Grant::JwtBearer(assertion) => {
                let assertion = assertion
                    .get(audience, "workload identity assertion")
                    .await?;
                tracing::debug!(%audience, "oauth: JWT-bearer grant with the workload's assertion");
                let grant = token::Grant::JwtBearer {
                    assertion: &assertion,
                    scope,
                };
                token::request(&self.pool, &server, &client, grant, &resource, dpop).await?
            }
            Grant::EnterpriseManaged(idp) => {
                let id_jag = exchange::id_jag(&self.pool, idp, audience, &resource, scope).await?;
                tracing::debug!(%audience, "oauth: JWT-bearer grant with the ID-JAG");
                let grant = token::Grant::JwtBearer {
                    assertion: &id_jag,
                    scope,
                };
                token::request(&self.pool, &server, &client, grant, &resource, dpop).await?
            }
        };
        if self.config.dpop == Dpop::Required && !token.dpop {
            return Err(ClientError::OAuth(format!(
                "the authorization server {} issued a bearer token, not a DPoP-bound one (DPoP is required)",
                server.key()
            )));
        }
        *self.current.lock().unwrap() = Some(Current {
            token,
            authority: Arc::new(Authority {
                server,
                client,
                resource,
                dpop: dpop.is_some(),
            }),
        });
        Ok(())
    }

    /// The prover of the token requests to `server`, when DPoP is used there: always when
    /// it is required; when supported, if the server lists ES256, the resource requires
    /// bound tokens, or the MCP server challenged with the DPoP scheme only.
    fn dpop_for(
        &self,
        server: &AuthorizationServer,
        prm: Option<&ProtectedResource>,
        challenge: &Challenge,
    ) -> Result<Option<&Prover>, ClientError> {
        let Some(prover) = &self.prover else {
            return Ok(None);
        };
        let listed = server.dpop_algorithms.as_deref();
        let lists_es256 = listed.is_some_and(|algs| algs.iter().any(|a| a == dpop::ALGORITHM));
        let required_by_resource = prm.is_some_and(|p| p.dpop_bound_tokens_required);
        let wanted = match self.config.dpop {
            Dpop::Off => false,
            Dpop::WhenSupported => {
                lists_es256 || required_by_resource || (challenge.dpop && !challenge.bearer)
            }
            Dpop::Required => true,
        };
        if !wanted {
            tracing::debug!(server = %server.key(), ?listed, "oauth: DPoP not used with this authorization server");
            return Ok(None);
        }
        if let Some(algs) = listed.filter(|_| !lists_es256) {
            return Err(ClientError::OAuth(format!(
                "the authorization server {} signs DPoP proofs with {algs:?} only; this client signs them with ES256",
                server.key()
            )));
        }
        tracing::debug!(server = %server.key(), jkt = %prover.thumbprint(), "oauth: DPoP-bound tokens");
        Ok(Some(prover))
    }

    fn current(&self) -> Option<Current> {
        self.current.lock().unwrap().clone()
    }

    /// The authorization server the resource names (its first), and the `resource`
    /// parameter; for a server without protected-resource metadata (2025-03-26), the
    /// server's origin, with its metadata or its default endpoints.
    async fn authorization_server(
        &self,
        prm: Option<&ProtectedResource>,
    ) -> Result<(AuthorizationServer, String), ClientError> {
        let Some(prm) = prm else {
            let origin = &self.server.origin;
            tracing::debug!(%origin, "oauth: no protected-resource metadata; the server's origin is taken as the authorization server (2025-03-26)");
            let server = discovery::authorization_server(&self.pool, origin)
                .await?
                .unwrap_or_else(|| {
                    tracing::debug!(%origin, "oauth: no authorization server metadata; default endpoints");
                    AuthorizationServer::defaults(origin)
                });
            return Ok((server, self.server_url.clone()));
        };
        let issuer = prm.authorization_servers.first().ok_or_else(|| {
            ClientError::OAuth(format!(
                "the protected-resource metadata at {} lists no authorization_servers",
                prm.url
            ))
        })?;
        let server = discovery::authorization_server(&self.pool, issuer)
            .await?
            .ok_or_else(|| {
                ClientError::OAuth(format!(
                    "no authorization server metadata for {issuer} (RFC 8414 and OpenID well-known URLs tried)"
                ))
            })?;
        Ok((server, prm.resource.clone()))
    }

    /// The `scope` to ask for: the challenge's, else the resource's `scopes_supported`,
    /// added to those asked before; with `offline_access` when the authorization server
    /// offers it. `None` when there is none to ask for (the parameter is left out).
    fn scopes(
        &self,
        flow: &mut Flow,
        challenge: &Challenge,
        prm: Option<&ProtectedResource>,
        server: &AuthorizationServer,
    ) -> Option<String> {
        let asked: Vec<String> = match (
            &challenge.scope,
            prm.and_then(|p| p.scopes_supported.as_ref()),
        ) {
            (Some(scope), _) => scope.split_whitespace().map(str::to_owned).collect(),
            (None, Some(supported)) => supported.clone(),
            (None, None) => Vec::new(),
        };
        for scope in asked {
            if !flow.scopes.contains(&scope) {
                flow.scopes.push(scope);
            }
        }
        let mut scopes = flow.scopes.clone();
        let offered = server
            .scopes_supported
            .as_ref()
            .is_some_and(|s| s.iter().any(|s| s == "offline_access"));
        if self.config.offline_access
            && self.config.grant.is_authorization_code()
            && offered
            && !scopes.is_empty()
            && !scopes.iter().any(|s| s == "offline_access")
        {
            scopes.push("offline_access".into());
        }
        (!scopes.is_empty()).then(|| scopes.join(" "))
    }

    /// Swaps the current token for a refreshed one.
    async fn refresh(&self, current: &Current) -> Result<(), ClientError> {
        let refresh = current
            .token
            .refresh
            .as_deref()
            .ok_or_else(|| ClientError::OAuth("no refresh token".into()))?;
        let authority = &current.authority;
        tracing::debug!(endpoint = %authority.server.token_endpoint, "oauth: refreshing the token");
        let mut token = token::request(
            &self.pool,
            &authority.server,
            &authority.client,
            token::Grant::Refresh(refresh),
            &authority.resource,
            self.prover.as_ref().filter(|_| authority.dpop),
        )
        .await?;
        // RFC 6749 §6: without a new refresh token, the old one stays valid.
        if token.refresh.is_none() {
            token.refresh = current.token.refresh.clone();
        }
        *self.current.lock().unwrap() = Some(Current {
            token,
            authority: authority.clone(),
        });
        Ok(())
    }

    /// The authorization code grant: the authorization request (PKCE S256, `state`,
    /// `scope`, `resource`; with DPoP, `dpop_jkt`, RFC 9449 §10), the redirect checked, the
    /// code traded for a token.
    async fn authorization_code(
        &self,
        server: &AuthorizationServer,
        client: &RegisteredClient,
        scope: Option<&str>,
        resource: &str,
        dpop: Option<&Prover>,
    ) -> Result<Token, ClientError> {
        let endpoint = server.authorization_endpoint.as_deref().ok_or_else(|| {
            ClientError::OAuth(format!(
                "the authorization server {} has no authorization_endpoint",
                server.key()
            ))
        })?;
        // Metadata that does not list S256 means no PKCE (MCP 2025-11-25): refuse.
        if server.issuer.is_some()
            && !server
                .code_challenge_methods
                .as_ref()
                .is_some_and(|m| m.iter().any(|m| m == "S256"))
        {
            return Err(ClientError::OAuth(format!(
                "the authorization server {} does not list S256 in code_challenge_methods_supported: PKCE is required, not authorizing",
                server.key()
            )));
        }
        let pkce = pkce::Pkce::new().map_err(ClientError::OAuth)?;
        let state = pkce::random_token().map_err(ClientError::OAuth)?;
        let redirect_uri = &self.config.redirect_uri;
        let mut params = vec![
            ("response_type", "code"),
            ("client_id", client.id.as_str()),
            ("redirect_uri", redirect_uri.as_str()),
            ("code_challenge", pkce.challenge.as_str()),
            ("code_challenge_method", "S256"),
            ("state", state.as_str()),
        ];
        if let Some(scope) = scope {
            params.push(("scope", scope));
        }
        params.push(("resource", resource));
        if let Some(prover) = dpop {
            params.push(("dpop_jkt", prover.thumbprint()));
        }
        let authorization_url = url::with_query(endpoint, &params);
        tracing::debug!(%endpoint, client_id = %client.id, ?scope, %resource, "oauth: authorization request");
        let redirected = match &self.config.callback {
            Some(callback) => callback.authorize(&authorization_url, redirect_uri).await?,
            None => self.follow(endpoint, &authorization_url).await?,
        };
        let code = authorization_response(server, &state, &redirected)?;
        tracing::debug!("oauth: authorization code received");
        token::request(
            &self.pool,
            server,
            client,
            token::Grant::Code {
                code: &code,
                verifier: &pkce.verifier,
                redirect_uri,
            },
            resource,
            dpop,
        )
        .await
    }

    /// The default [`AuthorizationCallback`]: GET the authorization URL and take the
    /// redirect's `Location`, which must be the redirect URI.
    async fn follow(&self, endpoint: &str, authorization_url: &str) -> Result<String, ClientError> {
        let request = fetch::request(Method::GET, authorization_url, Default::default(), None)?;
        let answer = fetch::send(&self.pool, request).await?;
        if !answer.status.is_redirection() {
            return Err(ClientError::OAuth(format!(
                "the authorization endpoint {endpoint} answered HTTP {} instead of redirecting (a server that asks a user needs an OAuth::callback)",
                answer.status.as_u16()
            )));
        }
        let location = answer
            .headers
            .get(LOCATION)
            .and_then(|l| l.to_str().ok())
            .ok_or_else(|| {
                ClientError::OAuth(format!(
                    "the authorization endpoint {endpoint} redirected without a Location"
                ))
            })?;
        if !location.starts_with(self.config.redirect_uri.as_str()) {
            return Err(ClientError::OAuth(format!(
                "the authorization endpoint {endpoint} redirected to {location}, not to the redirect URI (a server that asks a user needs an OAuth::callback)"
            )));
        }
        Ok(location.to_owned())
    }
}
