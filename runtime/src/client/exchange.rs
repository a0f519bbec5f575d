//! One request's exchange with the server: its era's `_meta` and headers, the 2026-07-28
//! input rounds, the answer read from a JSON body or an SSE stream (resumed when it breaks),
//! and the cancellation of a request given up.

use super::builder::version_refused_but_supported;
use super::*;

impl Client {
    /// One request, with its 2026-07-28 input rounds.
    pub(super) async fn rounds(
        &self,
        method: &str,
        mut params: Value,
        options: &CallOptions,
    ) -> Result<Value, ClientError> {
        // One token for the whole call, its input rounds included.
        let progress = match &options.progress {
            Some(callback) => {
                let token = self.next_id.fetch_add(1, Ordering::Relaxed);
                set_meta(&mut params, "progressToken", json!(token))?;
                Some((token, &**callback))
            }
            None => None,
        };
        if matches!(self.state, State::Legacy { .. }) {
            return self
                .exchange(method, &params, options, progress)
                .await
                .map(|(_, result)| result);
        }
        let mut retried = false;
        for _ in 0..MAX_INPUT_ROUNDS {
            let (_, result) = match self.exchange(method, &params, options, progress).await {
                // The server refused the version it lists as supported (a restart or another
                // instance in between): the same request once more.
                Err(ClientError::Rpc(error))
                    if !retried && version_refused_but_supported(&error) =>
                {
                    retried = true;
                    self.exchange(method, &params, options, progress).await?
                }
                answered => answered?,
            };
            if result["resultType"] != "input_required" {
                return Ok(result);
            }
            // The same request again, a new id, the answers and the state echoed as sent.
            let object = params
                .as_object_mut()
                .ok_or_else(|| ClientError::Protocol("params must be an object".into()))?;
            let mut responses = Map::new();
            for (key, input) in result["inputRequests"].as_object().into_iter().flatten() {
                let method = input["method"].as_str().unwrap_or_default();
                let answer = handler::answer(&*self.handler, method, &input["params"])
                    .await
                    .map_err(ClientError::Rpc)?;
                responses.insert(key.clone(), answer);
            }
            object.remove("inputResponses");
            if !responses.is_empty() {
                object.insert("inputResponses".into(), Value::Object(responses));
            }
            match result.get("requestState") {
                Some(state) => object.insert("requestState".into(), state.clone()),
                None => object.remove("requestState"),
            };
        }
        Err(ClientError::Protocol(format!(
            "{method}: still input_required after {MAX_INPUT_ROUNDS} rounds"
        )))
    }

    /// POSTs one request and reads its answer: server requests on a legacy stream are
    /// answered on the way, notifications handed to the handler. The response headers and
    /// the `result`.
    pub(super) async fn exchange(
        &self,
        method: &str,
        params: &Value,
        options: &CallOptions,
        progress: Option<(i64, &(dyn Fn(Progress) + Send + Sync))>,
    ) -> Result<(HeaderMap, Value), ClientError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let body = json!({
            "jsonrpc": "2.0", "id": id, "method": method,
            "params": self.with_meta(params, options),
        });
        let headers = self.era_headers(method, params);
        // A session's request whose call is dropped (or times out) before its response is
        // cancelled on the server, as is any over stdio; over HTTP in 2026-07-28, closing the
        // stream is the cancellation.
        let mut cancel = CancelOnDrop {
            armed: (matches!(self.state, State::Legacy { .. }) || self.transport.is_stdio())
                && method != "initialize",
            transport: self.transport.clone(),
            headers: headers.clone(),
            id,
        };
        let answer = self.read_answer(method, id, body, &headers, progress).await;
        cancel.armed = false;
        answer
    }

    /// [`Client::exchange`]'s sending and the reading of its answer.
    pub(super) async fn read_answer(
        &self,
        method: &str,
        id: i64,
        body: Value,
        headers: &[(HeaderName, HeaderValue)],
        progress: Option<(i64, &(dyn Fn(Progress) + Send + Sync))>,
    ) -> Result<(HeaderMap, Value), ClientError> {
        let routes: &[i64] = match &progress {
            Some((token, _)) => &[*token],
            None => &[],
        };
        let (response_headers, mut messages) = self
            .transport
            .request(method, id, routes, body.to_string().into_bytes(), headers)
            .await?;
        let mut resumptions = 0;
        loop {
            let message = match messages.next().await {
                Ok(Some(message)) => message,
                // The stream ended, or broke, before the response: a session's stream that set
                // an event id is resumed where it stopped (the server may have let it go on
                // purpose: 2025-11-25 SSE polling).
                ended => {
                    let resumption = messages
                        .resumption()
                        .filter(|_| matches!(self.state, State::Legacy { .. }))
                        .map(|(id, retry)| (id.to_string(), retry));
                    match (resumption, ended) {
                        (Some((last_event_id, retry_ms)), _) if resumptions < MAX_RESUMPTIONS => {
                            resumptions += 1;
                            let wait = retry_ms.unwrap_or(DEFAULT_RETRY_MS).min(MAX_RETRY_MS);
                            tokio::time::sleep(Duration::from_millis(wait)).await;
                            let headers = self.era_headers(method, &Value::Null);
                            let http = self.transport.http().ok_or_else(|| {
                                ClientError::Protocol("a stdio answer to resume".into())
                            })?;
                            messages = transport::Answer::Http(
                                http.get_stream(Some(&last_event_id), &headers).await?,
                            );
                            continue;
                        }
                        (_, Err(error)) => return Err(error),
                        _ => break,
                    }
                }
            };
            if let Some(server_method) = message.get("method").and_then(Value::as_str) {
                match message.get("id") {
                    Some(request_id) => {
                        self.answer_on_stream(server_method, request_id, &message["params"])
                            .await?
                    }
                    None => match progress {
                        Some((token, callback))
                            if server_method == "notifications/progress"
                                && message["params"]["progressToken"] == token =>
                        {
                            callback(Progress::from_params(&message["params"]))
                        }
                        _ => self.handler.notification(server_method, &message["params"]),
                    },
                }
                continue;
            }
            let for_us =
                message["id"] == id || (message["id"].is_null() && message.get("error").is_some());
            if !for_us {
                continue;
            }
            if let Some(error) = message.get("error") {
                return Err(ClientError::rpc(error));
            }
            return match message.get("result") {
                Some(result) => Ok((response_headers, result.clone())),
                None => Err(ClientError::Protocol(format!(
                    "{method}: a response with neither result nor error"
                ))),
            };
        }
        Err(ClientError::Protocol(format!(
            "{method}: the answer ended without a response to request {id} (resumed {resumptions} time(s))"
        )))
    }

    /// A legacy server's request on a call's stream: the handler's answer POSTed back.
    pub(super) async fn answer_on_stream(
        &self,
        method: &str,
        id: &Value,
        params: &Value,
    ) -> Result<(), ClientError> {
        // 2026-07-28 forbids them: there is nobody to answer. Over stdio the reader answers.
        let Some(http) = self.transport.http() else {
            return Ok(());
        };
        if matches!(self.state, State::Stateless { .. }) {
            return Ok(());
        }
        let headers = self.era_headers("", &Value::Null);
        standalone::answer(http, &*self.handler, &headers, method, id, params).await
    }

    /// `params` with the 2026-07-28 `_meta` (version, capabilities, with the tasks extension
    /// when `options` declare it, client info, log level) merged in; as given in a session.
    pub(super) fn with_meta(&self, params: &Value, options: &CallOptions) -> Value {
        if matches!(self.state, State::Legacy { .. }) {
            return params.clone();
        }
        let mut params = match params {
            Value::Object(object) => object.clone(),
            _ => Map::new(),
        };
        let meta = params
            .entry("_meta")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(meta) = meta {
            meta.insert(
                "io.modelcontextprotocol/protocolVersion".into(),
                json!(STATELESS_VERSION),
            );
            let mut capabilities = self.capabilities.clone();
            if options.tasks {
                if !capabilities["extensions"].is_object() {
                    capabilities["extensions"] = json!({});
                }
                capabilities["extensions"][TASKS_EXTENSION] = json!({});
            }
            meta.insert(
                "io.modelcontextprotocol/clientCapabilities".into(),
                capabilities,
            );
            meta.insert(
                "io.modelcontextprotocol/clientInfo".into(),
                self.client_info.clone(),
            );
            if let Some(level) = &*self.log_level.lock().unwrap() {
                meta.insert("io.modelcontextprotocol/logLevel".into(), json!(level));
            }
        }
        Value::Object(params)
    }

    /// The headers of the era: the session's id and version, or 2026-07-28's version and
    /// routing headers (`method` empty for a message that is not a request).
    pub(super) fn era_headers(
        &self,
        method: &str,
        params: &Value,
    ) -> Vec<(HeaderName, HeaderValue)> {
        let mut headers = Vec::new();
        if self.transport.is_stdio() {
            return headers;
        }
        let mut add = |name: &str, value: &str| {
            if let (Ok(name), Ok(value)) =
                (HeaderName::try_from(name), HeaderValue::try_from(value))
            {
                headers.push((name, value));
            }
        };
        match &self.state {
            State::Legacy {
                session, version, ..
            } => {
                if let Some(session) = session.as_ref().and_then(|s| s.to_str().ok()) {
                    add("mcp-session-id", session);
                }
                // 2025-03-26 has no version header; `initialize` itself goes without one.
                if version != "2025-03-26" && method != "initialize" {
                    add("mcp-protocol-version", version);
                }
            }
            State::Stateless { .. } => {
                add("mcp-protocol-version", STATELESS_VERSION);
                add("mcp-method", method);
                let name = match method {
                    "tools/call" | "prompts/get" => params["name"].as_str(),
                    "resources/read" => params["uri"].as_str(),
                    "tasks/get" | "tasks/update" | "tasks/cancel" => params["taskId"].as_str(),
                    _ => None,
                };
                if let Some(name) = name {
                    add("mcp-name", &header_value(name));
                }
                if method == "tools/call" {
                    if let Some(annotations) = params["name"]
                        .as_str()
                        .and_then(|tool| self.tool_headers.lock().unwrap().get(tool).cloned())
                    {
                        for (name, value) in param_header_values(&annotations, &params["arguments"])
                        {
                            add(&name, &value);
                        }
                    }
                }
            }
        }
        headers
    }
}

/// Sets `_meta[key]` in `params` (an object, or nothing).
pub(super) fn set_meta(params: &mut Value, key: &str, value: Value) -> Result<(), ClientError> {
    if params.is_null() {
        *params = json!({});
    }
    let object = params
        .as_object_mut()
        .ok_or_else(|| ClientError::Protocol("params must be an object".into()))?;
    let meta = object
        .entry("_meta")
        .or_insert_with(|| Value::Object(Map::new()));
    match meta.as_object_mut() {
        Some(meta) => {
            meta.insert(key.to_owned(), value);
            Ok(())
        }
        None => Err(ClientError::Protocol(
            "params._meta must be an object".into(),
        )),
    }
}

/// Tells a session's server that a request was given up: armed while its call waits for the
/// response, it POSTs `notifications/cancelled` when the call is dropped before (a timeout
/// drops it too). Best effort, in the background: nothing waits for it.
pub(super) struct CancelOnDrop {
    armed: bool,
    transport: Arc<Transport>,
    headers: Vec<(HeaderName, HeaderValue)>,
    id: i64,
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let body = json!({
            "jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": self.id, "reason": "the client gave up the request"},
        });
        let (transport, headers) = (self.transport.clone(), std::mem::take(&mut self.headers));
        runtime.spawn(async move {
            let body = body.to_string().into_bytes();
            if let Err(error) = transport
                .send("notifications/cancelled", body, &headers)
                .await
            {
                tracing::debug!(%error, "the cancellation of a dropped request was not delivered");
            }
        });
    }
}
