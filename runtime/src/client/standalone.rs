//! A session's standalone stream, from the client's side: the GET that carries what the server
//! sends outside any call (its requests, such as an elicitation a handler asks without naming
//! a call, and notifications such as `notifications/tools/list_changed`), read in the
//! background while the session lives. The requests are answered by the [`ClientHandler`];
//! notifications go to it.

use http::{HeaderName, HeaderValue};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;

use super::error::ClientError;
use super::handler::{self, ClientHandler};
use super::http::{Http, Messages, Reply};

/// How many times in a row the stream may fail to open (or end at once) before the client
/// stops asking for it.
const MAX_ATTEMPTS: usize = 5;

/// The wait before reopening a stream whose server gave no `retry` hint.
const DEFAULT_RETRY: Duration = Duration::from_millis(500);

/// Opens the session's standalone stream: `None` when the server has none (405) or it
/// cannot be opened now (it is tried again in the background).
///
/// Opened before `connect` returns, so that what the server sends on it right after (an
/// elicitation during the first call) is not sent to nobody.
pub(crate) async fn open(
    http: &Http,
    headers: &[(HeaderName, HeaderValue)],
) -> Result<Option<Messages>, ()> {
    match http.get_stream(None, headers).await {
        Ok(messages) => Ok(Some(messages)),
        Err(ClientError::Http {
            status: 404 | 405, ..
        }) => Err(()),
        Err(error) => {
            tracing::debug!(%error, "the session's standalone stream did not open");
            Ok(None)
        }
    }
}

/// Reads the session's standalone stream (`opened`, else opened here) until the session
/// ends: reopened (with `Last-Event-ID` once it had one) when it ends; given up when the server
/// has none (405), the session is gone, or it fails [`MAX_ATTEMPTS`] times in a row.
pub(crate) async fn listen(
    http: Arc<Http>,
    handler: Arc<dyn ClientHandler>,
    headers: Vec<(HeaderName, HeaderValue)>,
    mut opened: Option<Messages>,
) {
    let mut last_event_id: Option<String> = None;
    let mut failures = 0;
    while failures < MAX_ATTEMPTS {
        let next = match opened.take() {
            Some(messages) => Ok(messages),
            None => http.get_stream(last_event_id.as_deref(), &headers).await,
        };
        let mut messages = match next {
            Ok(messages) => messages,
            Err(ClientError::Http {
                status: 404 | 405, ..
            }) => return,
            Err(error) => {
                tracing::debug!(%error, "the session's standalone stream did not open");
                failures += 1;
                tokio::time::sleep(DEFAULT_RETRY).await;
                continue;
            }
        };
        let mut received = false;
        while let Ok(Some(message)) = messages.next().await {
            received = true;
            let Some(method) = message.get("method").and_then(Value::as_str) else {
                continue;
            };
            match message.get("id") {
                Some(id) => {
                    if let Err(error) =
                        answer(&http, &*handler, &headers, method, id, &message["params"]).await
                    {
                        tracing::warn!(%error, method, "the answer to a server request was not delivered");
                    }
                }
                None => handler.notification(method, &message["params"]),
            }
        }
        failures = if received { 0 } else { failures + 1 };
        let retry = match messages.resumption() {
            Some((id, retry_ms)) => {
                last_event_id = Some(id.to_owned());
                retry_ms.map_or(DEFAULT_RETRY, Duration::from_millis)
            }
            None => DEFAULT_RETRY,
        };
        tokio::time::sleep(retry.min(Duration::from_secs(5))).await;
    }
}

/// Answers the server's request `id` (`method`, `params`) with the handler's result or error,
/// POSTed in the session (`headers`).
pub(crate) async fn answer(
    http: &Http,
    handler: &dyn ClientHandler,
    headers: &[(HeaderName, HeaderValue)],
    method: &str,
    id: &Value,
    params: &Value,
) -> Result<(), ClientError> {
    let reply = match handler::answer(handler, method, params).await {
        Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
        Err(error) => json!({"jsonrpc": "2.0", "id": id, "error": error}),
    };
    match http.post(reply.to_string().into_bytes(), headers).await? {
        (_, Reply::Accepted) => Ok(()),
        (_, Reply::Messages(messages)) => {
            let what = format!("the answer to the server's {method}");
            Err(super::transport::refused(&what, messages).await)
        }
    }
}
