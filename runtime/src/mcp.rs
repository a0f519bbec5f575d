//! MCP values handlers build: content blocks, prompt and resource results, and the tool result
//! of tools whose `x-mcp` says `"output": "mcp"`.
//!
//! The types are the generated wire model of 2025-11-25 (a superset of the earlier revisions'
//! content); the helpers spare handlers the optional fields.

use serde::Serialize;
use serde_json::Value;

pub use crate::wire::v2025_11_25::{
    BlobResourceContents, ContentBlock, CreateMessageResult, CreateMessageResultContent,
    ElicitResult, EmbeddedResourceResource, GetPromptResult, ListRootsResult, LoggingLevel,
    PromptMessage, ReadResourceResult, ReadResourceResultContentsItem, Role, TextResourceContents,
};

/// A tool result built by the handler itself: any content blocks, optional structured
/// content, and whether it reports a failure. The runtime shapes it for each revision.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ToolResult {
    /// The content blocks, in order.
    pub content: Vec<ContentBlock>,
    /// `structuredContent` (sent only where the revision allows: an object before
    /// 2026-07-28, any value from then on).
    pub structured_content: Option<Value>,
    /// `isError`.
    pub is_error: bool,
}

impl ToolResult {
    /// A successful result with these blocks.
    pub fn content(content: Vec<ContentBlock>) -> Self {
        Self {
            content,
            structured_content: None,
            is_error: false,
        }
    }

    /// A successful result with one text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self::content(vec![self::text(text)])
    }

    /// A failed result (`isError: true`) with one text block.
    pub fn error(message: impl Into<String>) -> Self {
        Self {
            content: vec![self::text(message)],
            structured_content: None,
            is_error: true,
        }
    }

    /// Adds `structuredContent`.
    pub fn with_structured(mut self, value: impl Serialize) -> Self {
        self.structured_content = serde_json::to_value(value).ok();
        self
    }
}

/// A text content block.
pub fn text(text: impl Into<String>) -> ContentBlock {
    ContentBlock::TextContent {
        meta: None,
        annotations: None,
        text: text.into(),
    }
}

/// An image content block from base64 `data`.
pub fn image(data: impl Into<String>, mime_type: impl Into<String>) -> ContentBlock {
    ContentBlock::ImageContent {
        meta: None,
        annotations: None,
        data: data.into(),
        mime_type: mime_type.into(),
    }
}

/// An audio content block from base64 `data`.
pub fn audio(data: impl Into<String>, mime_type: impl Into<String>) -> ContentBlock {
    ContentBlock::AudioContent {
        meta: None,
        annotations: None,
        data: data.into(),
        mime_type: mime_type.into(),
    }
}

/// An embedded text resource content block.
pub fn embedded_text(
    uri: impl Into<String>,
    mime_type: impl Into<String>,
    text: impl Into<String>,
) -> ContentBlock {
    ContentBlock::EmbeddedResource {
        meta: None,
        annotations: None,
        resource: EmbeddedResourceResource::TextResourceContents(text_contents(
            uri, mime_type, text,
        )),
    }
}

/// Text resource contents.
pub fn text_contents(
    uri: impl Into<String>,
    mime_type: impl Into<String>,
    text: impl Into<String>,
) -> TextResourceContents {
    TextResourceContents {
        meta: None,
        mime_type: Some(mime_type.into()),
        text: text.into(),
        uri: uri.into(),
    }
}

/// Binary resource contents from base64 `blob`.
pub fn blob_contents(
    uri: impl Into<String>,
    mime_type: impl Into<String>,
    blob: impl Into<String>,
) -> BlobResourceContents {
    BlobResourceContents {
        meta: None,
        blob: blob.into(),
        mime_type: Some(mime_type.into()),
        uri: uri.into(),
    }
}

/// A prompt message.
pub fn message(role: Role, content: ContentBlock) -> PromptMessage {
    PromptMessage { content, role }
}

/// The severity rank of a log level (debug = 0 .. emergency = 7), for filtering.
pub fn level_rank(level: LoggingLevel) -> u8 {
    match level {
        LoggingLevel::Debug => 0,
        LoggingLevel::Info => 1,
        LoggingLevel::Notice => 2,
        LoggingLevel::Warning => 3,
        LoggingLevel::Error => 4,
        LoggingLevel::Critical => 5,
        LoggingLevel::Alert => 6,
        LoggingLevel::Emergency => 7,
    }
}
