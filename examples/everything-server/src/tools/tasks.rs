//! The tasks-extension tools (io.modelcontextprotocol/tasks, SEP-2663).
//!
//! A handler turns its call into a task with `ctx.start_task()` (when the client allows it) or
//! `ctx.require_task()?` (-32021 when it does not); on a session both go on synchronously.

use std::time::Duration;

use mcp_runtime::mcp::ToolResult;
use mcp_runtime::{Error, RequestContext};

use crate::client_requests::{field, form};
use crate::server::types;

/// How long the task tools work before they finish.
const TASK_STEP: Duration = Duration::from_millis(300);

/// Greets synchronously: never a task.
pub(crate) async fn greet(
    _ctx: &RequestContext,
    params: types::GreetParams,
) -> Result<ToolResult, Error> {
    Ok(ToolResult::text(format!("Hello, {}!", params.name)))
}

/// Works `seconds` seconds, as a task when the client supports tasks (an instant job
/// answers directly).
pub(crate) async fn slow_compute(
    ctx: &RequestContext,
    params: types::SlowComputeParams,
) -> Result<ToolResult, Error> {
    let seconds = params.seconds.max(0) as u64;
    if seconds > 0 {
        ctx.start_task();
    }
    tokio::time::sleep(Duration::from_secs(seconds)).await;
    let label = params.label.as_deref().unwrap_or("job");
    Ok(ToolResult::text(format!("Computed {label} in {seconds}s")))
}

/// A task that ends with a tool error: status `completed`, result `isError: true`.
pub(crate) async fn failing_job(ctx: &RequestContext) -> Result<ToolResult, Error> {
    ctx.require_task()?;
    tokio::time::sleep(TASK_STEP).await;
    Ok(ToolResult::error("The job failed, as it always does"))
}

/// A task that fails with a JSON-RPC error: status `failed`.
pub(crate) async fn protocol_error_job(ctx: &RequestContext) -> Result<ToolResult, Error> {
    ctx.require_task()?;
    tokio::time::sleep(TASK_STEP).await;
    Err(Error::protocol(
        mcp_runtime::RpcError::INTERNAL_ERROR,
        "protocol_error_job failed with a protocol error",
    ))
}

/// A task that waits (`input_required`) for the user to confirm.
pub(crate) async fn confirm_delete(
    ctx: &RequestContext,
    params: types::ConfirmDeleteParams,
) -> Result<ToolResult, Error> {
    ctx.require_task()?;
    let question = format!("Delete {}?", params.filename);
    let answer = ctx
        .elicit("confirm", form(&question, "confirm", "boolean"))
        .await?;
    let confirmed = matches!(field(&answer, "confirm").as_deref(), Ok("true"));
    let verb = if confirmed { "Deleted" } else { "Kept" };
    Ok(ToolResult::text(format!("{verb} {}", params.filename)))
}

/// A task that asks two questions at once and waits for both answers.
pub(crate) async fn multi_input(ctx: &RequestContext) -> Result<ToolResult, Error> {
    ctx.require_task()?;
    let (first, second) = tokio::join!(
        ctx.elicit("first", form("First name?", "name", "string")),
        ctx.elicit("second", form("Second name?", "name", "string")),
    );
    Ok(ToolResult::text(format!(
        "Received: {} and {}",
        field(&first?, "name")?,
        field(&second?, "name")?
    )))
}

/// Asks for a name in a multi round-trip exchange, then continues as a task.
pub(crate) async fn test_tool_with_task(ctx: &RequestContext) -> Result<ToolResult, Error> {
    let answer = ctx
        .elicit("user_name", form("What is your name?", "name", "string"))
        .await?;
    ctx.require_task()?;
    tokio::time::sleep(TASK_STEP).await;
    Ok(ToolResult::text(format!(
        "Hello, {}! The task is complete.",
        field(&answer, "name")?
    )))
}
