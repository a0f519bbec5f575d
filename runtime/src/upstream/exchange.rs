//! Each caller's own identity at the upstream: OAuth 2.0 Token Exchange (RFC 8693).
//!
//! With [`UpstreamSettings::token_exchange`](super::UpstreamSettings::token_exchange), a call
//! carries `Authorization: Bearer <token>` where the token is one the authorization server
//! issued for the upstream, in exchange for the caller's own verified access token (which is
//! never forwarded, as MCP's authorization chapter requires):
//!
//! ```text
//! POST /token                                    (the gateway authenticates as its client:
//! Authorization: Basic base64(client_id:secret)   client_secret_basic, RFC 6749 §2.3.1)
//! Content-Type: application/x-www-form-urlencoded
//!
//! grant_type=urn:ietf:params:oauth:grant-type:token-exchange
//! &subject_token=<the caller's access token>
//! &subject_token_type=urn:ietf:params:oauth:token-type:access_token
//! &requested_token_type=urn:ietf:params:oauth:token-type:access_token
//! &audience=<TokenExchange::audience>&resource=<TokenExchange::resource>&scope=<...>
//! ```
//!
//! - **Cached per caller's token**, until shortly before the issued token expires (its
//!   `expires_in` less a tenth of it, at most 30 s less): a hundred calls with one access token
//!   cost one exchange. The key is a digest of the caller's token, so two principals never
//!   share an issued token, and a principal's new token (with other scopes, perhaps) gets its
//!   own. At most [`MAX_CACHED`] tokens are kept; past it, the expired go first, then all.
//! - **One exchange at a time per caller's token**: calls that arrive while it runs wait for
//!   its token (they count it against their own timeout).
//! - **A refusal is an `isError`**, not a 401: the caller's token was good for this server (the
//!   edge checked it), so a challenge would only send the client round to get the same token
//!   again. The result names the authorization server's `error` code (`invalid_grant`,
//!   `invalid_target`, ...); its `error_description` goes to the log. A refusal is remembered
//!   for [`REFUSAL_MEMORY`], so a burst of calls costs one request to the authorization server.
//! - **An issued token the upstream refuses** (HTTP 401) is forgotten: the next call exchanges
//!   again.
//! - Neither token is ever logged: both headers are marked sensitive, and `Debug` shows neither.

use base64::Engine as _;
use bytes::Bytes;
use http::header::{HeaderValue, ACCEPT, AUTHORIZATION, CONTENT_TYPE};
use http::{Method, Request, Uri};
use http_body_util::{BodyExt, Full, Limited};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::error::UpstreamError;
use crate::auth::Principal;
use crate::http_pool::{self, Pool, TlsConfig};

/// The most issued tokens kept at once (one per caller's token).
#[doc(hidden)]
pub const MAX_CACHED: usize = 10_000;
/// How long a refused exchange is answered from memory rather than asked again.
#[doc(hidden)]
pub const REFUSAL_MEMORY: Duration = Duration::from_secs(1);
/// The most of the authorization server's answer read.
const MAX_ANSWER: usize = 64 << 10;
/// The RFC 8693 grant type and token type.
const GRANT_TYPE: &str = "urn:ietf:params:oauth:grant-type:token-exchange";
const ACCESS_TOKEN_TYPE: &str = "urn:ietf:params:oauth:token-type:access_token";

/// How the gateway exchanges each caller's access token for one issued for the upstream
/// (RFC 8693), set in [`UpstreamSettings::token_exchange`](super::UpstreamSettings::token_exchange).
/// The server's [`Auth`](crate::auth::Auth) must keep the callers' tokens
/// ([`Auth::keep_access_token`](crate::auth::Auth::keep_access_token)).
///
/// ```
/// use mcp_runtime::upstream::{TokenExchange, UpstreamSettings};
///
/// let mut exchange = TokenExchange::new(
///     "https://auth.example.com/oauth/token",
///     "mcp-gateway",
///     std::env::var("MCP_UPSTREAM_CLIENT_SECRET").unwrap_or_default(),
/// );
/// exchange.audience = Some("https://node.example.com".into());
/// let mut settings = UpstreamSettings::new("https://node.example.com/rpc");
/// settings.token_exchange = Some(exchange);
/// assert!(!format!("{settings:?}").contains("MCP_UPSTREAM_CLIENT_SECRET"));
/// ```
///
/// Its `Debug` never shows the secret.
#[derive(Clone, PartialEq, Eq)]
pub struct TokenExchange {
    /// The authorization server's token endpoint: `https://`, or `http://` to a loopback host.
    pub token_endpoint: String,
    /// The gateway's own client id at the authorization server.
    pub client_id: String,
    /// Its secret, sent with `client_secret_basic`.
    pub client_secret: String,
    /// The upstream as the authorization server names it (`audience`, RFC 8693 §2.1), the
    /// issued token's `aud`. This or [`resource`](Self::resource) is required.
    pub audience: Option<String>,
    /// The upstream's URI (`resource`, RFC 8707).
    pub resource: Option<String>,
    /// The scopes asked for the issued token (space-separated); default: the server's choice.
    pub scope: Option<String>,
}

impl TokenExchange {
    /// An exchange at `token_endpoint` as the client `client_id`, no audience, resource or
    /// scope yet (give one of the first two).
    pub fn new(
        token_endpoint: impl Into<String>,
        client_id: impl Into<String>,
        client_secret: impl Into<String>,
    ) -> Self {
        Self {
            token_endpoint: token_endpoint.into(),
            client_id: client_id.into(),
            client_secret: client_secret.into(),
            audience: None,
            resource: None,
            scope: None,
        }
    }
}

impl fmt::Debug for TokenExchange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TokenExchange")
            .field("token_endpoint", &self.token_endpoint)
            .field("client_id", &self.client_id)
            .field("client_secret", &"[redacted]")
            .field("audience", &self.audience)
            .field("resource", &self.resource)
            .field("scope", &self.scope)
            .finish()
    }
}

/// The exchanges of one upstream: the token endpoint's pool and the issued tokens.
pub(crate) struct Exchanger {
    pool: Pool,
    endpoint: Uri,
    /// The token endpoint's origin, for messages.
    shown: String,
    /// `Basic base64(client_id:secret)`, sensitive.
    client: HeaderValue,
    /// The form's parameters after the subject token, encoded once.
    tail: String,
    cache: Mutex<HashMap<[u8; 32], Arc<Slot>>>,
}

/// One caller's token's exchange: its lock makes the exchanges for it one at a time.
#[derive(Default)]
struct Slot {
    state: tokio::sync::Mutex<State>,
}

#[derive(Default)]
enum State {
    #[default]
    None,
    /// An issued token, `Bearer ...` (sensitive), reused until `renew_at`.
    Issued {
        header: HeaderValue,
        renew_at: Instant,
    },
    /// A refusal, answered again until `until`.
    Refused {
        error: UpstreamError,
        until: Instant,
    },
}

impl Exchanger {
    /// The exchanger `settings` describe, trusting what `tls` trusts, its token endpoint
    /// named `shown` in messages (its origin); the error says which setting cannot work.
    pub(crate) fn new(
        settings: &TokenExchange,
        tls: &TlsConfig,
        shown: String,
    ) -> Result<Self, String> {
        let endpoint = crate::secure_url::https_or_loopback(settings.token_endpoint.trim())
            .map_err(|why| format!("the token endpoint {why}"))?;
        if settings.client_id.is_empty() {
            return Err("the token exchange needs the gateway's client id".into());
        }
        if settings.client_secret.is_empty() {
            return Err("the token exchange needs the gateway's client secret".into());
        }
        let given = |value: &Option<String>| value.as_deref().is_some_and(|v| !v.is_empty());
        if !given(&settings.audience) && !given(&settings.resource) {
            return Err(
                "the token exchange needs the upstream's audience or resource: the issued token is for it".into(),
            );
        }
        // RFC 6749 §2.3.1: each part form-encoded, then `id:secret` in base64.
        let encode =
            |text: &str| form_urlencoded::byte_serialize(text.as_bytes()).collect::<String>();
        let credentials = format!(
            "{}:{}",
            encode(&settings.client_id),
            encode(&settings.client_secret)
        );
        let mut client = HeaderValue::from_str(&format!(
            "Basic {}",
            base64::engine::general_purpose::STANDARD.encode(credentials)
        ))
        .expect("base64 is a header value");
        client.set_sensitive(true);
        let mut tail = form_urlencoded::Serializer::new(String::new());
        tail.append_pair("subject_token_type", ACCESS_TOKEN_TYPE)
            .append_pair("requested_token_type", ACCESS_TOKEN_TYPE);
        for (name, value) in [
            ("audience", &settings.audience),
            ("resource", &settings.resource),
            ("scope", &settings.scope),
        ] {
            if let Some(value) = value.as_deref().filter(|v| !v.is_empty()) {
                tail.append_pair(name, value);
            }
        }
        Ok(Self {
            pool: http_pool::pool(tls, 4)?,
            shown,
            endpoint,
            client,
            tail: tail.finish(),
            cache: Mutex::new(HashMap::new()),
        })
    }

    /// The `Authorization` header for `principal`'s call: its cached token, or one exchanged
    /// now.
    pub(crate) async fn authorization(
        &self,
        principal: &Principal,
    ) -> Result<HeaderValue, UpstreamError> {
        let token = principal.access_token().ok_or_else(|| UpstreamError::Identity {
            reason: "the caller's access token was not kept for the exchange (Auth::keep_access_token)"
                .into(),
        })?;
        let key: [u8; 32] = Sha256::digest(token.as_bytes()).into();
        let slot = self.slot(key);
        let mut state = slot.state.lock().await;
        let now = Instant::now();
        match &*state {
            State::Issued { header, renew_at } if now < *renew_at => return Ok(header.clone()),
            State::Refused { error, until } if now < *until => return Err(error.clone()),
            _ => {}
        }
        match self.exchange(token).await {
            Ok((header, lifetime)) => {
                *state = match lifetime {
                    Some(lifetime) => State::Issued {
                        header: header.clone(),
                        renew_at: now + lifetime - (lifetime / 10).min(Duration::from_secs(30)),
                    },
                    None => State::None,
                };
                Ok(header)
            }
            Err(error) => {
                if matches!(&error, UpstreamError::TokenExchange { error: Some(_), .. }) {
                    *state = State::Refused {
                        error: error.clone(),
                        until: now + REFUSAL_MEMORY,
                    };
                }
                Err(error)
            }
        }
    }

    /// Forgets the token issued for `principal` (the upstream refused it).
    pub(crate) fn forget(&self, principal: &Principal) {
        if let Some(token) = principal.access_token() {
            let key: [u8; 32] = Sha256::digest(token.as_bytes()).into();
            self.cache.lock().expect("never poisoned").remove(&key);
        }
    }

    /// The slot of `key`, made if new; a full cache is trimmed first.
    fn slot(&self, key: [u8; 32]) -> Arc<Slot> {
        let mut cache = self.cache.lock().expect("never poisoned");
        if let Some(slot) = cache.get(&key) {
            return slot.clone();
        }
        if cache.len() >= MAX_CACHED {
            let now = Instant::now();
            // Kept: a slot in use (its lock taken) or holding a token still good.
            cache.retain(|_, slot| match slot.state.try_lock() {
                Err(_) => true,
                Ok(state) => matches!(&*state, State::Issued { renew_at, .. } if now < *renew_at),
            });
            if cache.len() >= MAX_CACHED {
                cache.retain(|_, slot| slot.state.try_lock().is_err());
            }
        }
        cache.entry(key).or_default().clone()
    }

    /// One exchange of `subject_token`: the `Bearer` header and how long it is good for.
    async fn exchange(
        &self,
        subject_token: &str,
    ) -> Result<(HeaderValue, Option<Duration>), UpstreamError> {
        let failed = |reason: String| UpstreamError::TokenExchange {
            url: self.shown.clone(),
            error: None,
            reason,
        };
        // In its own statement: the serializer is not `Sync`, and the future must be `Send`.
        let body = form_urlencoded::Serializer::new(String::with_capacity(
            subject_token.len() + self.tail.len() + 96,
        ))
        .append_pair("grant_type", GRANT_TYPE)
        .append_pair("subject_token", subject_token)
        .finish()
            + "&"
            + &self.tail;
        let mut request = Request::builder()
            .method(Method::POST)
            .uri(self.endpoint.clone())
            .header(CONTENT_TYPE, "application/x-www-form-urlencoded")
            .header(ACCEPT, "application/json")
            .body(Full::new(Bytes::from(body)))
            .map_err(|e| failed(format!("building the request: {e}")))?;
        request
            .headers_mut()
            .insert(AUTHORIZATION, self.client.clone());
        let started = Instant::now();
        let response = self.pool.request(request).await.map_err(|e| {
            failed(format!(
                "the authorization server could not be reached: {}",
                http_pool::tls::describe(&e, "trust a private CA with --upstream-ca")
            ))
        })?;
        let status = response.status();
        let bytes = Limited::new(response.into_body(), MAX_ANSWER)
            .collect()
            .await
            .map_err(|e| failed(format!("reading the answer: {e}")))?
            .to_bytes();
        let answer: serde_json::Value = serde_json::from_slice(&bytes).unwrap_or_default();
        let text = |name: &str| answer.get(name).and_then(serde_json::Value::as_str);
        let elapsed_ms = started.elapsed().as_millis() as u64;
        if !status.is_success() {
            tracing::debug!(
                status = status.as_u16(),
                elapsed_ms,
                "token exchange refused"
            );
            return Err(match text("error") {
                Some(error) => UpstreamError::TokenExchange {
                    url: self.shown.clone(),
                    error: Some(super::response::excerpt(error.as_bytes(), false)),
                    reason: format!(
                        "HTTP {status}: {}",
                        super::response::excerpt(
                            text("error_description").unwrap_or_default().as_bytes(),
                            false
                        )
                    ),
                },
                None => failed(format!(
                    "HTTP {status} without an OAuth error: {}",
                    super::response::excerpt(&bytes, false)
                )),
            });
        }
        let token = text("access_token")
            .filter(|token| !token.is_empty())
            .ok_or_else(|| failed("the answer has no access_token".into()))?;
        let token_type = text("token_type").unwrap_or_default();
        if !token_type.eq_ignore_ascii_case("bearer") {
            return Err(failed(format!(
                "the issued token's type is {token_type:?}, not Bearer: the gateway sends only bearer tokens"
            )));
        }
        let mut header = HeaderValue::from_str(&format!("Bearer {token}"))
            .map_err(|_| failed("the issued token cannot be in a header".into()))?;
        header.set_sensitive(true);
        let lifetime = answer
            .get("expires_in")
            .and_then(serde_json::Value::as_u64)
            .filter(|seconds| *seconds > 0)
            .map(Duration::from_secs);
        tracing::debug!(
            elapsed_ms,
            expires_in = lifetime.map(|l| l.as_secs()),
            "token exchanged for the upstream"
        );
        Ok((header, lifetime))
    }
}
