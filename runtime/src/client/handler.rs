//! The user's side of server-to-client requests: one trait answers elicitation, sampling and
//! roots whichever era brought them (a JSON-RPC request on a legacy session's stream, or an
//! entry of a 2026-07-28 `InputRequiredResult`).

use crate::future::BoxFuture;
use crate::jsonrpc::RpcError;
use serde_json::{json, Value};

/// Answers the requests a server makes of its client, and sees its notifications.
///
/// Every method has a default: requests are refused with `-32601` (so declare in
/// [`capabilities`](ClientHandler::capabilities) only what you implement), notifications are
/// dropped.
///
/// ```
/// use mcp_runtime::client::ClientHandler;
/// use mcp_runtime::{BoxFuture, RpcError};
/// use serde_json::{json, Value};
///
/// struct AlwaysYes;
///
/// impl ClientHandler for AlwaysYes {
///     fn capabilities(&self) -> Value {
///         json!({"elicitation": {}})
///     }
///     fn elicit<'a>(&'a self, _params: &'a Value) -> BoxFuture<'a, Result<Value, RpcError>> {
///         Box::pin(async { Ok(json!({"action": "accept", "content": {"confirm": true}})) })
///     }
/// }
/// ```
pub trait ClientHandler: Send + Sync + 'static {
    /// The client capabilities declared to the server (`initialize`'s `capabilities`, or the
    /// 2026-07-28 `_meta` `clientCapabilities` of every request). Default: `{}`.
    fn capabilities(&self) -> Value {
        json!({})
    }

    /// `elicitation/create`: `params` as the server sent them; the `ElicitResult`.
    fn elicit<'a>(&'a self, params: &'a Value) -> BoxFuture<'a, Result<Value, RpcError>> {
        let _ = params;
        Box::pin(async { Err(RpcError::method_not_found("elicitation/create")) })
    }

    /// `sampling/createMessage`: the `CreateMessageResult`.
    fn create_message<'a>(&'a self, params: &'a Value) -> BoxFuture<'a, Result<Value, RpcError>> {
        let _ = params;
        Box::pin(async { Err(RpcError::method_not_found("sampling/createMessage")) })
    }

    /// `roots/list`: the `ListRootsResult`.
    fn list_roots(&self) -> BoxFuture<'_, Result<Value, RpcError>> {
        Box::pin(async { Err(RpcError::method_not_found("roots/list")) })
    }

    /// A notification that came with a call's answer (`notifications/progress`,
    /// `notifications/message`, ...).
    fn notification(&self, method: &str, params: &Value) {
        let _ = (method, params);
    }
}

/// The handler of a client built without one: declares nothing, answers nothing.
pub(crate) struct NoHandler;

impl ClientHandler for NoHandler {}

/// One server-to-client request answered by `handler` (`ping` by the client itself).
pub(crate) async fn answer(
    handler: &dyn ClientHandler,
    method: &str,
    params: &Value,
) -> Result<Value, RpcError> {
    match method {
        "elicitation/create" => handler.elicit(params).await,
        "sampling/createMessage" => handler.create_message(params).await,
        "roots/list" => handler.list_roots().await,
        "ping" => Ok(json!({})),
        other => Err(RpcError::method_not_found(other)),
    }
}
