//! §2.6: the resources and resource templates.

use mcp_runtime::mcp::{
    BlobResourceContents, ReadResourceResult, ReadResourceResultContentsItem, TextResourceContents,
};
use mcp_runtime::{Error, RequestContext};
use serde_json::json;

use crate::server::types;
use crate::TEST_IMAGE_BASE64;

/// A `resources/read` result holding one text resource.
fn read_text(uri: &str, mime_type: &str, text: impl Into<String>) -> ReadResourceResult {
    ReadResourceResult {
        meta: None,
        contents: vec![ReadResourceResultContentsItem::TextResourceContents(
            TextResourceContents::new(uri, mime_type, text),
        )],
    }
}

/// `test://static-text`: a fixed text.
pub(crate) async fn static_text(_ctx: &RequestContext) -> Result<ReadResourceResult, Error> {
    Ok(read_text(
        "test://static-text",
        "text/plain",
        "This is the content of the static text resource.",
    ))
}

/// `test://static-binary`: the PNG image as a blob.
pub(crate) async fn static_binary(_ctx: &RequestContext) -> Result<ReadResourceResult, Error> {
    Ok(ReadResourceResult {
        meta: None,
        contents: vec![ReadResourceResultContentsItem::BlobResourceContents(
            BlobResourceContents::new("test://static-binary", "image/png", TEST_IMAGE_BASE64),
        )],
    })
}

/// `test://watched-resource`: a fixed text; clients subscribe to it.
pub(crate) async fn watched_resource(_ctx: &RequestContext) -> Result<ReadResourceResult, Error> {
    Ok(read_text(
        "test://watched-resource",
        "text/plain",
        "Watched resource content",
    ))
}

/// `test://template/{id}/data`: a JSON document naming the id.
pub(crate) async fn template_data(
    _ctx: &RequestContext,
    params: types::TemplateDataParams,
) -> Result<ReadResourceResult, Error> {
    let data = json!({
        "id": params.id,
        "templateTest": true,
        "data": format!("Data for ID: {}", params.id),
    });
    Ok(read_text(
        &format!("test://template/{}/data", params.id),
        "application/json",
        data.to_string(),
    ))
}

/// `test://stateless-static-text`: a fixed text.
pub(crate) async fn stateless_static_text(
    _ctx: &RequestContext,
) -> Result<ReadResourceResult, Error> {
    Ok(read_text(
        "test://stateless-static-text",
        "text/plain",
        "Static text content from the stateless draft path.",
    ))
}
