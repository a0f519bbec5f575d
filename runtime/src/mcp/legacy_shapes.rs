//! 2024-11-05 shapes: the 2025-03-26 wire forms with what 2024-11-05 lacks left out.
//!
//! 2024-11-05 has no generated wire model of its own: its sessions are served with
//! 2025-03-26's shapes, and these functions take away what 2025-03-26 added to them (a tool's
//! `annotations`, audio content). Batches are refused by `engine::batch::allowed`, the
//! `completions` capability is not offered by the `initialize` result. Only 2024-11-05
//! sessions reach this module.

use serde_json::{Map, Value};

use crate::mcp::{self, ContentBlock, ToolResult};

/// A 2025-03-26 tool descriptor without `annotations` (2024-11-05 tools have none).
pub(crate) fn tool_descriptor(json: &str) -> String {
    let Ok(mut tool) = serde_json::from_str::<Map<String, Value>>(json) else {
        // Not an object, which the catalog never holds: as it is.
        return json.to_string();
    };
    // `shift_remove`: the other members keep their order.
    match tool.shift_remove("annotations") {
        Some(_) => Value::Object(tool).to_string(),
        None => json.to_string(),
    }
}

/// A handler's tool result in the content 2024-11-05 knows: text, image and embedded
/// resources. An audio block or a resource link (2025-03-26 and 2025-06-18) becomes a text
/// block saying what was left out, so the client still sees that something was there.
pub(crate) fn tool_result(mut result: ToolResult) -> ToolResult {
    for block in &mut result.content {
        let replacement = match block {
            ContentBlock::AudioContent { mime_type, .. } => {
                format!("[{mime_type} audio left out: protocol version 2024-11-05 has no audio content]")
            }
            ContentBlock::ResourceLink { uri, .. } => {
                format!("[resource link {uri}: protocol version 2024-11-05 has no resource links]")
            }
            _ => continue,
        };
        *block = mcp::ContentBlock::text(replacement);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn annotations_leave_tool_descriptors() {
        let stripped: Value = serde_json::from_str(&tool_descriptor(
            r#"{"name":"a","inputSchema":{},"annotations":{"readOnlyHint":true}}"#,
        ))
        .unwrap();
        assert_eq!(
            stripped,
            serde_json::json!({"name": "a", "inputSchema": {}})
        );
        let plain = r#"{"name":"b","inputSchema":{"type":"object"}}"#;
        assert_eq!(tool_descriptor(plain), plain);
    }

    #[test]
    fn audio_and_links_become_text() {
        let result = tool_result(ToolResult::content(vec![
            mcp::ContentBlock::text("t"),
            mcp::ContentBlock::audio("AAAA", "audio/wav"),
            mcp::ContentBlock::image("AAAA", "image/png"),
        ]));
        assert_eq!(result.content[0], mcp::ContentBlock::text("t"));
        assert!(matches!(
            &result.content[1],
            ContentBlock::TextContent { text, .. } if text.contains("audio/wav") && text.contains("2024-11-05")
        ));
        assert!(matches!(
            result.content[2],
            ContentBlock::ImageContent { .. }
        ));
    }
}
