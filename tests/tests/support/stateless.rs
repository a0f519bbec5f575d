//! A 2026-07-28 (stateless) client: one request per POST with `_meta` and the routing headers
//! derived from the body, every server message checked against the 2026-07-28 schema, and the
//! retries of multi round-trip requests (MRTR).

use http::StatusCode;
use serde_json::{json, Value};
use std::net::SocketAddr;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::schema::{assert_server_message, assert_stateless_response};
use super::{post, sse_messages};

/// The stateless protocol revision.
pub const V: &str = "2026-07-28";

/// `params._meta` of a request declaring `capabilities`.
pub fn meta(capabilities: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": V,
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    })
}

/// An accepted elicitation answer with one form field.
pub fn accept(field: &str, value: &str) -> Value {
    json!({"action": "accept", "content": {field: value}})
}

/// What the server answered to one stateless request.
#[derive(Debug)]
pub struct Answer {
    pub status: StatusCode,
    /// The JSON-RPC response with the request's id (`Null` if there was none).
    pub body: Value,
    /// The raw response body.
    pub text: String,
    id: i64,
}

impl Answer {
    /// The result, asserting a 200 success.
    pub fn result(&self) -> &Value {
        assert_eq!(self.status, StatusCode::OK, "{}", self.text);
        assert!(
            self.body.get("result").is_some(),
            "not a result: {}",
            self.text
        );
        &self.body["result"]
    }

    /// The `InputRequiredResult`'s `inputRequests` and `requestState`, asserting its shape:
    /// one `resultType`, no cache hints, a non-empty state.
    pub fn input_required(&self) -> (Value, String) {
        let result = self.result();
        assert_eq!(
            result["resultType"],
            json!("input_required"),
            "{}",
            self.text
        );
        assert_eq!(
            self.text.matches("\"resultType\"").count(),
            1,
            "exactly one resultType: {}",
            self.text
        );
        assert!(
            result.get("ttlMs").is_none() && result.get("cacheScope").is_none(),
            "an InputRequiredResult is never cacheable: {}",
            self.text
        );
        let state = result["requestState"]
            .as_str()
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| panic!("a requestState: {}", self.text));
        (result["inputRequests"].clone(), state.to_string())
    }

    /// The keys of the pending input requests, sorted.
    pub fn pending_keys(&self) -> Vec<String> {
        let (requests, _) = self.input_required();
        let mut keys: Vec<String> = requests
            .as_object()
            .unwrap_or_else(|| panic!("inputRequests is an object: {}", self.text))
            .keys()
            .cloned()
            .collect();
        keys.sort();
        keys
    }

    /// The first text block of a completed `CallToolResult` that is not an error.
    pub fn tool_text(&self) -> String {
        let result = self.result();
        assert_eq!(result["resultType"], json!("complete"), "{}", self.text);
        assert_eq!(result.get("isError"), None, "{}", self.text);
        result["content"][0]["text"]
            .as_str()
            .unwrap_or_else(|| panic!("a text block: {}", self.text))
            .to_string()
    }

    /// The JSON-RPC error, asserting the HTTP `status`, the `code` and the echoed id.
    pub fn error(&self, status: StatusCode, code: i64) -> &Value {
        assert_eq!(self.status, status, "{}", self.text);
        assert_eq!(
            self.body["id"],
            json!(self.id),
            "the id is echoed: {}",
            self.text
        );
        assert_eq!(self.body["error"]["code"], json!(code), "{}", self.text);
        &self.body["error"]
    }

    /// The error's message, asserting a 200 `-32602` (the MRTR refusals).
    pub fn invalid_params(&self) -> String {
        let error = self.error(StatusCode::OK, -32602);
        error["message"].as_str().unwrap_or_default().to_string()
    }
}

/// Sends one stateless request declaring `capabilities`, with `MCP-Protocol-Version`,
/// `Mcp-Method` and (for `tools/call`, `prompts/get`, `resources/read`) `Mcp-Name` taken from the
/// body, plus `extra` headers; checks every message of the answer against the schema. Fields
/// of a `_meta` already in `params` (`progressToken`, the log level) are kept.
pub async fn exchange(
    addr: SocketAddr,
    id: i64,
    method: &str,
    mut params: Value,
    capabilities: Value,
    extra: &[(&str, &str)],
) -> Answer {
    let mut full_meta = meta(capabilities);
    if let Some(given) = params.get("_meta").and_then(Value::as_object) {
        for (key, value) in given {
            full_meta[key] = value.clone();
        }
    }
    params["_meta"] = full_meta;
    let name = params
        .get("name")
        .or_else(|| params.get("uri"))
        .and_then(Value::as_str)
        .map(str::to_string);
    let mut headers = vec![("mcp-protocol-version", V), ("mcp-method", method)];
    if let (Some(name), "tools/call" | "prompts/get" | "resources/read") = (&name, method) {
        headers.push(("mcp-name", name.as_str()));
    }
    headers.extend_from_slice(extra);
    let reply = post(
        addr,
        &headers,
        &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
    )
    .await;
    let status = reply.status;
    let is_sse = reply.header("content-type") == Some("text/event-stream");
    let text = reply.text().await;
    let messages = if is_sse {
        sse_messages(&text)
    } else {
        serde_json::from_str(&text).map_or_else(|_| Vec::new(), |m| vec![m])
    };
    let mut body = Value::Null;
    for message in messages {
        if message.get("method").is_some() {
            assert_server_message(V, &message);
        } else if message["id"] == json!(id) {
            assert_stateless_response(method, &message);
            body = message;
        }
    }
    Answer {
        status,
        body,
        text,
        id,
    }
}

/// One `tools/call`, `prompts/get` or `resources/read` and its retries: the same params each
/// time, a new JSON-RPC id each time, and whatever retry fields the test adds.
pub struct Mrtr {
    addr: SocketAddr,
    method: &'static str,
    params: Value,
    capabilities: Value,
    next_id: i64,
}

impl Mrtr {
    fn new(addr: SocketAddr, method: &'static str, params: Value) -> Self {
        Self {
            addr,
            method,
            params,
            capabilities: json!({"elicitation": {}, "sampling": {}}),
            next_id: 1,
        }
    }

    /// `tools/call` of `name` with `arguments`.
    pub fn tool(addr: SocketAddr, name: &str, arguments: Value) -> Self {
        Self::new(
            addr,
            "tools/call",
            json!({"name": name, "arguments": arguments}),
        )
    }

    /// `prompts/get` of `name` with `arguments`.
    pub fn prompt(addr: SocketAddr, name: &str, arguments: Value) -> Self {
        Self::new(
            addr,
            "prompts/get",
            json!({"name": name, "arguments": arguments}),
        )
    }

    /// `resources/read` of `uri`.
    pub fn resource(addr: SocketAddr, uri: &str) -> Self {
        Self::new(addr, "resources/read", json!({"uri": uri}))
    }

    /// Declares these client capabilities instead of elicitation and sampling.
    pub fn capabilities(mut self, capabilities: Value) -> Self {
        self.capabilities = capabilities;
        self
    }

    /// Sends the next rounds to another server (another instance behind one load balancer).
    pub fn switch_to(&mut self, addr: SocketAddr) {
        self.addr = addr;
    }

    /// The first round: the params alone.
    pub async fn first(&mut self) -> Answer {
        self.send(json!({})).await
    }

    /// A retry with these `inputResponses` and the echoed `requestState`.
    pub async fn retry(&mut self, responses: Value, state: &str) -> Answer {
        self.send(json!({"inputResponses": responses, "requestState": state}))
            .await
    }

    /// The params plus the `fields` given (`inputResponses`, `requestState`, ...).
    pub async fn send(&mut self, fields: Value) -> Answer {
        let mut params = self.params.clone();
        for (key, value) in fields.as_object().into_iter().flatten() {
            params[key] = value.clone();
        }
        let id = self.next_id;
        self.next_id += 1;
        exchange(
            self.addr,
            id,
            self.method,
            params,
            self.capabilities.clone(),
            &[],
        )
        .await
    }
}

/// Sends a stateless `tools/call` of `name` over a raw TCP connection, with `headers` written
/// byte for byte (their case and any non-ASCII bytes kept, which an HTTP client would
/// normalize or refuse) after the routing headers; returns the status and the JSON-RPC
/// response, checked against the schema.
pub async fn raw_tool_call(
    addr: SocketAddr,
    id: i64,
    name: &str,
    arguments: Value,
    headers: &[&[u8]],
) -> (StatusCode, Value) {
    raw_text_tool_call(addr, id, name, &arguments.to_string(), headers).await
}

/// [`raw_tool_call`] with the arguments' JSON text as written (text a `Value` cannot hold:
/// `1e400`, nesting past serde_json's limit).
pub async fn raw_text_tool_call(
    addr: SocketAddr,
    id: i64,
    name: &str,
    arguments: &str,
    headers: &[&[u8]],
) -> (StatusCode, Value) {
    let meta = meta(json!({}));
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":{},"arguments":{arguments},"_meta":{meta}}}}}"#,
        json!(name)
    );
    let mut request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: {V}\r\n\
         Mcp-Method: tools/call\r\nMcp-Name: {name}\r\nContent-Length: {}\r\n\
         Connection: close\r\n",
        body.len()
    )
    .into_bytes();
    for header in headers {
        request.extend_from_slice(header);
        request.extend_from_slice(b"\r\n");
    }
    request.extend_from_slice(b"\r\n");
    request.extend_from_slice(body.as_bytes());
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream.write_all(&request).await.unwrap();
    let mut response = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut response))
        .await
        .expect("a response within 10 s")
        .unwrap();
    let response = String::from_utf8(response).unwrap();
    let (head, body) = response.split_once("\r\n\r\n").expect("an HTTP response");
    let status: u16 = head.split(' ').nth(1).unwrap().parse().unwrap();
    let body = if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        dechunk(body)
    } else {
        body.to_string()
    };
    let message: Value =
        serde_json::from_str(&body).unwrap_or_else(|e| panic!("not JSON ({e}): {body}"));
    assert_stateless_response("tools/call", &message);
    (StatusCode::from_u16(status).unwrap(), message)
}

/// The payload of a chunked HTTP/1.1 body.
fn dechunk(mut body: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let size = usize::from_str_radix(size.trim(), 16).unwrap();
        if size == 0 {
            break;
        }
        out.push_str(&rest[..size]);
        body = &rest[size + 2..];
    }
    out
}
