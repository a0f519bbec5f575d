//! MCP values handlers build: content blocks, prompt and resource results, and the tool result
//! of tools whose `x-mcp` says `"output": "mcp"`.
//!
//! The types are the generated wire model of 2025-11-25 (a superset of the earlier revisions'
//! content); their constructors (`ContentBlock::text`, `PromptMessage::new`, ...) spare
//! handlers the optional fields.

pub(crate) mod legacy_shapes;

use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;

pub use crate::wire::v2025_11_25::{
    BlobResourceContents, ContentBlock, CreateMessageResult, CreateMessageResultContent,
    ElicitResultAction, EmbeddedResourceResource, GetPromptResult, ListRootsResult, LoggingLevel,
    PromptMessage, ReadResourceResult, ReadResourceResultContentsItem, Role, TextResourceContents,
};

/// A client's answer to `elicitation/create` ([`crate::RequestContext::elicit`]).
///
/// The wire model's `ElicitResult` with one difference: a form value may be any JSON number.
/// The schema of every revision types the values `string | integer | boolean` (or an array of
/// strings), yet a form may ask for `"type": "number"`, and real clients answer it with
/// `3.5`, or send an integer field's default as `5.0` (the Python SDK does both); the wire
/// type would refuse the whole answer for it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ElicitResult {
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<BTreeMap<String, Value>>,
    /// What the user did: `accept`, `decline` or `cancel`.
    pub action: ElicitResultAction,
    /// The submitted form, when the action is `accept` in form mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<BTreeMap<String, ElicitValue>>,
}

impl ElicitResult {
    /// Whether the user accepted (submitted the form, or agreed to visit the URL).
    pub fn accepted(&self) -> bool {
        self.action == ElicitResultAction::Accept
    }

    /// The value of the form field `name`, when the answer has it.
    pub fn field(&self, name: &str) -> Option<&ElicitValue> {
        self.content.as_ref()?.get(name)
    }
}

/// One value of a submitted elicitation form.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(untagged)]
pub enum ElicitValue {
    /// A `string` field (also enums and formats such as `email`, `date`).
    String(String),
    /// An `integer` field, or a `number` field answered with a whole number.
    Integer(i64),
    /// A `number` field with a fraction (or a whole number written `5.0`).
    Number(f64),
    /// A `boolean` field.
    Boolean(bool),
    /// A multi-select enum: the chosen strings (2025-11-25 on).
    Strings(Vec<String>),
}

impl ElicitValue {
    /// The text of a `String` value.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            ElicitValue::String(text) => Some(text),
            _ => None,
        }
    }

    /// The value as a number: an `Integer` or a `Number`.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            ElicitValue::Integer(number) => Some(*number as f64),
            ElicitValue::Number(number) => Some(*number),
            _ => None,
        }
    }

    /// The value as an integer: an `Integer`, or a `Number` without a fraction in `i64`'s
    /// range.
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            ElicitValue::Integer(number) => Some(*number),
            ElicitValue::Number(number)
                if number.fract() == 0.0 && number.abs() < 9_223_372_036_854_775_808.0 =>
            {
                Some(*number as i64)
            }
            _ => None,
        }
    }

    /// The value of a `Boolean`.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            ElicitValue::Boolean(value) => Some(*value),
            _ => None,
        }
    }
}

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
        Self::content(vec![ContentBlock::text(text)])
    }

    /// A failed result (`isError: true`) with one text block.
    pub fn error(message: impl Into<String>) -> Self {
        Self {
            content: vec![ContentBlock::text(message)],
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

impl ContentBlock {
    /// A text content block.
    ///
    /// ```
    /// use mcp_runtime::mcp::{ContentBlock, PromptMessage, Role, ToolResult};
    ///
    /// let answer = ToolResult::content(vec![
    ///     ContentBlock::text("The chart of last week:"),
    ///     ContentBlock::image("iVBORw0KGgo=", "image/png"),
    /// ]);
    /// let prompt = PromptMessage::new(Role::User, ContentBlock::text("Summarize the chart."));
    /// # let _ = (answer, prompt);
    /// ```
    pub fn text(text: impl Into<String>) -> Self {
        Self::TextContent {
            meta: None,
            annotations: None,
            text: text.into(),
        }
    }

    /// An image content block from base64 `data`.
    pub fn image(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        Self::ImageContent {
            meta: None,
            annotations: None,
            data: data.into(),
            mime_type: mime_type.into(),
        }
    }

    /// An audio content block from base64 `data`.
    pub fn audio(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        Self::AudioContent {
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
    ) -> Self {
        Self::EmbeddedResource {
            meta: None,
            annotations: None,
            resource: EmbeddedResourceResource::TextResourceContents(TextResourceContents::new(
                uri, mime_type, text,
            )),
        }
    }
}

impl TextResourceContents {
    /// Text resource contents.
    pub fn new(
        uri: impl Into<String>,
        mime_type: impl Into<String>,
        text: impl Into<String>,
    ) -> Self {
        Self {
            meta: None,
            mime_type: Some(mime_type.into()),
            text: text.into(),
            uri: uri.into(),
        }
    }
}

impl BlobResourceContents {
    /// Binary resource contents from base64 `blob`.
    pub fn new(
        uri: impl Into<String>,
        mime_type: impl Into<String>,
        blob: impl Into<String>,
    ) -> Self {
        Self {
            meta: None,
            blob: blob.into(),
            mime_type: Some(mime_type.into()),
            uri: uri.into(),
        }
    }
}

impl PromptMessage {
    /// A prompt message.
    pub fn new(role: Role, content: ContentBlock) -> Self {
        Self { content, role }
    }
}

/// The severity rank of a log level (debug = 0 .. emergency = 7), for filtering.
pub(crate) fn level_rank(level: LoggingLevel) -> u8 {
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn elicitation_answers_take_any_json_number() {
        // What the Python SDK sends for a form with string, integer, number and boolean
        // fields and a multi-select.
        let answer: ElicitResult = serde_json::from_value(json!({
            "action": "accept",
            "content": {"name": "Ada", "age": 36, "ratio": 0.5, "count": 5.0, "ok": true,
                        "tags": ["a", "b"]},
        }))
        .unwrap();
        assert!(answer.accepted());
        let field = |name| answer.field(name).unwrap();
        assert_eq!(field("name").as_str(), Some("Ada"));
        assert_eq!(field("age"), &ElicitValue::Integer(36));
        assert_eq!(field("ratio").as_f64(), Some(0.5));
        assert_eq!(field("ratio").as_i64(), None);
        assert_eq!(field("count").as_i64(), Some(5));
        assert_eq!(field("ok").as_bool(), Some(true));
        assert_eq!(
            field("tags"),
            &ElicitValue::Strings(vec!["a".into(), "b".into()])
        );
        // Written back as it came.
        assert_eq!(
            serde_json::to_value(&answer).unwrap()["content"]["ratio"],
            json!(0.5)
        );
        // Still refused: values no form asks for.
        for odd in [
            json!({"a": null}),
            json!({"a": {"b": 1}}),
            json!({"a": [1]}),
        ] {
            let answer = json!({"action": "accept", "content": odd});
            assert!(serde_json::from_value::<ElicitResult>(answer).is_err());
        }
        let declined: ElicitResult = serde_json::from_value(json!({"action": "decline"})).unwrap();
        assert!(!declined.accepted() && declined.field("name").is_none());
    }
}
