//! [`ClientBuilder`]: what a client connects to and how, and the connection itself: the era
//! chosen (`server/discover`, or `initialize` for a session).

use super::*;

/// Builds a [`Client`]: the server (a URL or a command), headers sent on every HTTP request,
/// a per-call timeout, the era and the [`ClientHandler`].
pub struct ClientBuilder {
    server: Server,
    headers: Vec<(String, String)>,
    timeout: Duration,
    era: Era,
    handler: Arc<dyn ClientHandler>,
    client_info: Value,
    oauth: Option<OAuth>,
    tls: tls::TlsConfig,
    cache_results: bool,
}

impl ClientBuilder {
    /// Adds a header sent on every HTTP request (e.g. `Authorization`); a later one of the
    /// same name replaces it.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// The longest a call may take, its input rounds and streamed answer included (default
    /// 60 s).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The era (default [`Era::Auto`]).
    pub fn era(mut self, era: Era) -> Self {
        self.era = era;
        self
    }

    /// The handler of server-to-client requests; its
    /// [`capabilities`](ClientHandler::capabilities) are what the client declares.
    pub fn handler(mut self, handler: impl ClientHandler) -> Self {
        self.handler = Arc::new(handler);
        self
    }

    /// The `clientInfo` sent to the server (default: `mcp-runtime-client` and this crate's
    /// version).
    pub fn client_info(mut self, name: &str, version: &str) -> Self {
        self.client_info = json!({"name": name, "version": version});
        self
    }

    /// OAuth 2.1 (the MCP authorization specification): a 401 runs discovery, registration
    /// and a grant, and every later request carries the bearer token (see [`OAuth`]).
    pub fn oauth(mut self, oauth: OAuth) -> Self {
        self.oauth = Some(oauth);
        self
    }

    /// Whether list pages and `resources/read` results are reused for as long as their
    /// 2026-07-28 `ttlMs` allows (default `true`; a notification saying they changed drops
    /// them at once, whichever way it arrives: a session's stream, stdio, a
    /// [`Subscription`]). Off, every call asks the server.
    pub fn cache(mut self, honour_ttl: bool) -> Self {
        self.cache_results = honour_ttl;
        self
    }

    /// Trusts the root certificates of `pem` (one or more `CERTIFICATE` blocks) for
    /// `https://` URLs, the OAuth flow's included, beside the system's (a private CA, a test
    /// server's own certificate). A PEM without a usable certificate fails
    /// [`connect`](ClientBuilder::connect) with [`ClientError::Config`].
    pub fn root_certificate(mut self, pem: &[u8]) -> Self {
        self.tls.add_root_certificate(pem);
        self
    }

    /// Connects: starts the server's command (stdio), then `server/discover` or
    /// `initialize` (and `notifications/initialized`) as the era asks.
    pub async fn connect(self) -> Result<Client, ClientError> {
        let handler = Arc::new(Inbox::new(self.handler));
        let transport = match self.server {
            Server::Url(url) => Transport::Http(Arc::new(http_transport(
                &url,
                &self.headers,
                self.oauth,
                &self.tls,
            )?)),
            Server::Command(command) => {
                if !self.headers.is_empty() || self.oauth.is_some() {
                    return Err(ClientError::Config(
                        "headers and OAuth are HTTP's: a stdio server takes neither".into(),
                    ));
                }
                Transport::Stdio(Stdio::spawn(command, handler.clone())?)
            }
        };
        let mut client = Client {
            transport: Arc::new(transport),
            capabilities: handler.capabilities(),
            handler,
            timeout: self.timeout,
            client_info: self.client_info,
            state: State::Stateless {
                discover: Value::Null,
            },
            next_id: AtomicI64::new(1),
            log_level: Mutex::new(None),
            tool_headers: Mutex::new(HashMap::new()),
            tools_listed: AtomicBool::new(false),
            standalone: None,
            cache_results: self.cache_results,
        };
        if self.era != Era::Legacy {
            match client.request("server/discover", json!({})).await {
                Ok(discover) if lists_stateless(&discover) => {
                    client.state = State::Stateless { discover };
                    return Ok(client);
                }
                Ok(_) if self.era == Era::Stateless => {
                    return Err(ClientError::Protocol(format!(
                        "server/discover does not list {STATELESS_VERSION}"
                    )))
                }
                Err(error) if self.era == Era::Stateless || !unknown_to_server(&error) => {
                    return Err(error)
                }
                _ => {}
            }
        }
        client.initialize().await?;
        Ok(client)
    }
}

/// What a client connects to.
pub(super) enum Server {
    /// A Streamable HTTP endpoint.
    Url(String),
    /// A command whose process speaks stdio.
    Command(std::process::Command),
}

/// The HTTP transport of `url`, with the headers of every request and OAuth.
pub(super) fn http_transport(
    url: &str,
    headers: &[(String, String)],
    oauth: Option<OAuth>,
    tls: &tls::TlsConfig,
) -> Result<Http, ClientError> {
    let uri: ::http::Uri = url
        .parse()
        .map_err(|e| ClientError::Config(format!("URL {url:?}: {e}")))?;
    if !matches!(uri.scheme_str(), Some("http" | "https")) {
        return Err(ClientError::Config(format!(
            "URL {url:?}: the scheme must be http:// or https://"
        )));
    }
    let mut map = HeaderMap::new();
    for (name, value) in headers {
        let name = HeaderName::try_from(name.as_str())
            .map_err(|e| ClientError::Config(format!("header name {name:?}: {e}")))?;
        let value = HeaderValue::try_from(value.as_str())
            .map_err(|e| ClientError::Config(format!("header {name} value: {e}")))?;
        map.insert(name, value);
    }
    Http::new(uri, map, oauth, tls)
}

/// Whether `error` refuses the protocol version while its `data.supported` lists the one this
/// client sent (`-32022`).
pub(super) fn version_refused_but_supported(error: &RpcError) -> bool {
    error.code == crate::jsonrpc::UNSUPPORTED_VERSION
        && error
            .data
            .as_ref()
            .and_then(|data| data["supported"].as_array())
            .is_some_and(|supported| supported.iter().any(|v| v == STATELESS_VERSION))
}

/// Whether a `DiscoverResult` lists the stateless revision.
pub(super) fn lists_stateless(discover: &Value) -> bool {
    discover["supportedVersions"]
        .as_array()
        .is_some_and(|versions| versions.iter().any(|v| v == STATELESS_VERSION))
}

/// Whether a failed `server/discover` says the server is legacy-only (rather than down).
pub(super) fn unknown_to_server(error: &ClientError) -> bool {
    match error {
        ClientError::Rpc(error) => [
            // The TypeScript SDK's legacy servers: "Bad Request: Server not initialized".
            crate::jsonrpc::SERVER_ERROR,
            METHOD_NOT_FOUND,
            INVALID_REQUEST,
            INVALID_PARAMS,
            HEADER_MISMATCH,
            UNSUPPORTED_VERSION,
        ]
        .contains(&error.code),
        ClientError::Http { status, .. } => matches!(status, 400 | 404 | 405),
        _ => false,
    }
}

impl Client {
    pub(super) fn builder_of(server: Server) -> ClientBuilder {
        ClientBuilder {
            server,
            headers: Vec::new(),
            timeout: Duration::from_secs(60),
            era: Era::Auto,
            handler: Arc::new(handler::NoHandler),
            client_info: json!({"name": "mcp-runtime-client", "version": env!("CARGO_PKG_VERSION")}),
            oauth: None,
            tls: tls::TlsConfig::default(),
            cache_results: true,
        }
    }

    /// `initialize` and `notifications/initialized`: the session.
    pub(super) async fn initialize(&mut self) -> Result<(), ClientError> {
        self.state = State::Legacy {
            session: None,
            version: LEGACY_VERSION.to_owned(),
            initialized: Value::Null,
        };
        let params = json!({
            "protocolVersion": LEGACY_VERSION,
            "capabilities": self.capabilities,
            "clientInfo": self.client_info,
        });
        let options = CallOptions::new();
        let initializing = self.exchange("initialize", &params, &options, None);
        let (headers, initialized) = tokio::time::timeout(self.timeout, initializing)
            .await
            .map_err(|_| ClientError::Timeout(self.timeout))??;
        let version = initialized["protocolVersion"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        if !LEGACY_VERSIONS.contains(&version.as_str()) {
            return Err(ClientError::Protocol(format!(
                "initialize: the server chose protocol version {version:?}, which this client does not speak"
            )));
        }
        self.state = State::Legacy {
            session: headers.get("mcp-session-id").cloned(),
            version,
            initialized,
        };
        let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let headers = self.era_headers("", &Value::Null);
        self.transport
            .send(
                "notifications/initialized",
                note.to_string().into_bytes(),
                &headers,
            )
            .await?;
        // What the server sends outside any call arrives on the session's GET stream.
        let Some(http) = self.transport.http().cloned() else {
            return Ok(());
        };
        if headers.iter().any(|(name, _)| name == "mcp-session-id") {
            // Bounded: a proxy that holds the response headers back must not hold `connect`.
            let opened = tokio::time::timeout(self.timeout, standalone::open(&http, &headers))
                .await
                .unwrap_or(Ok(None));
            if let Ok(opened) = opened {
                let listener = tokio::spawn(standalone::listen(
                    http,
                    self.handler.clone(),
                    headers,
                    opened,
                ));
                self.standalone = Some(AbortOnDrop(listener));
            }
        }
        Ok(())
    }
}
