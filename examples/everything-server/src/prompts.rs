//! §2.7: the prompts, and the helpers that build their messages.

use mcp_runtime::mcp::{ContentBlock, GetPromptResult, PromptMessage, Role};
use mcp_runtime::{Error, RequestContext};

use crate::client_requests::{field, form};
use crate::server::types;
use crate::TEST_IMAGE_BASE64;

/// One user message in a prompt.
fn user(content: ContentBlock) -> PromptMessage {
    PromptMessage::new(Role::User, content)
}

/// A prompt result made of these messages.
fn prompt(messages: Vec<PromptMessage>) -> GetPromptResult {
    GetPromptResult {
        meta: None,
        description: None,
        messages,
    }
}

/// One fixed user message.
pub(crate) async fn test_simple_prompt(_ctx: &RequestContext) -> Result<GetPromptResult, Error> {
    Ok(prompt(vec![user(ContentBlock::text(
        "This is a simple prompt for testing.",
    ))]))
}

/// One user message quoting both arguments.
pub(crate) async fn test_prompt_with_arguments(
    _ctx: &RequestContext,
    params: types::TestPromptWithArgumentsParams,
) -> Result<GetPromptResult, Error> {
    Ok(prompt(vec![user(ContentBlock::text(format!(
        "Prompt with arguments: arg1='{}', arg2='{}'",
        params.arg1, params.arg2
    )))]))
}

/// An embedded text resource at `resourceUri`, then an instruction about it.
pub(crate) async fn test_prompt_with_embedded_resource(
    _ctx: &RequestContext,
    params: types::TestPromptWithEmbeddedResourceParams,
) -> Result<GetPromptResult, Error> {
    Ok(prompt(vec![
        user(ContentBlock::embedded_text(
            params.resource_uri,
            "text/plain",
            "Embedded resource content for testing.",
        )),
        user(ContentBlock::text(
            "Please process the embedded resource above.",
        )),
    ]))
}

/// A PNG image, then an instruction about it.
pub(crate) async fn test_prompt_with_image(
    _ctx: &RequestContext,
) -> Result<GetPromptResult, Error> {
    Ok(prompt(vec![
        user(ContentBlock::image(TEST_IMAGE_BASE64, "image/png")),
        user(ContentBlock::text("Please analyze the image above.")),
    ]))
}

/// Asks for the context to use, then renders a prompt with it (MRTR on `prompts/get`).
pub(crate) async fn test_input_required_result_prompt(
    ctx: &RequestContext,
) -> Result<GetPromptResult, Error> {
    let answer = ctx
        .elicit(
            "user_context",
            form("What context should the prompt use?", "context", "string"),
        )
        .await?;
    Ok(prompt(vec![user(ContentBlock::text(format!(
        "Prompt with context: {}",
        field(&answer, "context")?
    )))]))
}
