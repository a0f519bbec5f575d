use super::*;
use crate::mcp::{ContentBlock, ToolResult};

fn text(text: &str) -> ContentBlock {
    ContentBlock::TextContent {
        meta: None,
        annotations: None,
        text: text.to_string(),
    }
}

/// What serde writes for the same result: the hand-written path must match it byte for
/// byte.
fn by_serde(content: &[ContentBlock], is_error: bool) -> String {
    serde_json::to_string(&CallToolResultOut {
        content,
        structured_content: None,
        is_error: is_error.then_some(true),
    })
    .unwrap()
}

#[test]
fn text_blocks_are_written_as_serde_writes_them() {
    for (content, is_error) in [
        (vec![text("hello")], false),
        (
            vec![text("quote \" backslash \\ newline \n tab \t \u{1} é 世界")],
            true,
        ),
        (vec![text("a"), text(""), text("c")], false),
        (vec![], false),
    ] {
        let written = text_only_result(&content, is_error).expect("text only");
        assert_eq!(written, by_serde(&content, is_error));
    }
}

#[test]
fn other_blocks_take_serdes_path() {
    let mut annotated = text("x");
    if let ContentBlock::TextContent { annotations, .. } = &mut annotated {
        *annotations = Some(Default::default());
    }
    assert!(text_only_result(&[text("a"), annotated], false).is_none());
    // The public path still answers them, through serde.
    let result = ToolResult {
        content: vec![text("a")],
        structured_content: Some(serde_json::json!({"n": 1})),
        is_error: false,
    };
    let json = Answer::Content(result)
        .into_call_tool_result(ProtocolVersion::V2025_11_25)
        .unwrap();
    assert_eq!(
        json.get(),
        r#"{"content":[{"type":"text","text":"a"}],"structuredContent":{"n":1}}"#
    );
}

#[test]
fn a_failure_carries_its_structured_content_where_the_revision_has_it() {
    let failed = |error: Error, version| {
        Answer::Failed(error)
            .into_call_tool_result(version)
            .unwrap()
            .get()
            .to_owned()
    };
    let plain = r#"{"content":[{"type":"text","text":"no"}],"isError":true}"#;
    for version in [
        ProtocolVersion::V2024_11_05,
        ProtocolVersion::V2025_03_26,
        ProtocolVersion::V2025_06_18,
        ProtocolVersion::V2025_11_25,
        ProtocolVersion::V2026_07_28,
    ] {
        assert_eq!(failed(Error::new("no"), version), plain);
        let structured = Error::with_code(-32602, "bad")
            .with_tool_text("no")
            .with_structured_content(serde_json::json!({"code": -32602, "message": "bad"}));
        let expected = if version >= ProtocolVersion::V2025_06_18 {
            r#"{"content":[{"type":"text","text":"no"}],"structuredContent":{"code":-32602,"message":"bad"},"isError":true}"#
        } else {
            plain
        };
        assert_eq!(failed(structured, version), expected, "{version:?}");
        // Not an object: only 2026-07-28 takes any value.
        let array = Error::new("no").with_structured_content(serde_json::json!([1]));
        let expected = if version == ProtocolVersion::V2026_07_28 {
            r#"{"content":[{"type":"text","text":"no"}],"structuredContent":[1],"isError":true}"#
        } else {
            plain
        };
        assert_eq!(failed(array, version), expected, "{version:?}");
    }
}

#[test]
fn arguments_errors_are_typed_and_display_the_old_messages() {
    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct Params {
        a: i64,
    }
    let raw = |text: &str| RawValue::from_string(text.to_string()).unwrap();
    let error = decode_arguments::<Params>(Some(&raw("[1]"))).unwrap_err();
    assert_eq!(error, ArgumentsError::NotAnObject);
    assert_eq!(error.to_string(), "arguments must be a JSON object");
    match decode_arguments::<Params>(Some(&raw(r#"{"a":"1"}"#))).unwrap_err() {
        ArgumentsError::Decode(error) => {
            assert_eq!(error.pointer(), "/a");
            assert_eq!(error.to_string(), "/a: expected an integer, got a string");
        }
        other => panic!("a decode error expected, got {other:?}"),
    }

    struct Positive(i64);
    impl<'de> serde::Deserialize<'de> for Positive {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            #[derive(serde::Deserialize)]
            struct Raw {
                n: i64,
            }
            Raw::deserialize(d).map(|raw| Positive(raw.n))
        }
    }
    impl crate::validate::Validate for Positive {
        fn validate(
            &self,
            path: &crate::validate::Path<'_>,
            out: &mut crate::validate::Violations,
        ) {
            crate::validate::minimum(self.0, 1.0, false, &path.key("n"), out);
        }
    }
    match decode_valid_arguments::<Positive>(Some(&raw(r#"{"n":0}"#))).map(|p| p.0) {
        Err(ArgumentsError::Invalid(invalid)) => {
            assert_eq!(invalid.violations()[0].keyword, "minimum");
            assert_eq!(invalid.to_string(), "/n: must be ≥ 1");
        }
        other => panic!("a violation expected, got {other:?}"),
    }
    assert_eq!(
        decode_valid_arguments::<Positive>(Some(&raw(r#"{"n":3}"#))).map(|p| p.0),
        Ok(3)
    );
}

/// A door added to [`Door`] is listed in [`Door::ALL`] (and so must be in the door table of
/// `tests/tests/doors.rs`, which covers every listed door), unless it is no client's.
#[test]
fn every_clients_door_is_listed() {
    use super::Door;
    let listed = |door: Door| match door {
        Door::Mcp | Door::Jsonrpc | Door::LegacySse | Door::Stdio => true,
        Door::Direct => false,
    };
    for door in [
        Door::Mcp,
        Door::Jsonrpc,
        Door::LegacySse,
        Door::Stdio,
        Door::Direct,
    ] {
        assert_eq!(Door::ALL.contains(&door), listed(door), "{door:?}");
    }
    assert_eq!(crate::RequestContext::default().door(), Door::Direct);
}
