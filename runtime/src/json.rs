//! Results on their way to the wire, as text that is never parsed again.

use serde::Deserialize;
use serde_json::value::RawValue;
use std::borrow::Cow;

/// A JSON text the runtime wrote itself, or took from a [`RawValue`] serde_json already
/// checked.
///
/// A result travels as this from the handler to the response bytes: wrapping it costs no
/// validation pass (as [`RawValue::from_string`] would), and `resultType` or cache hints are
/// added in place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonText(String);

impl JsonText {
    /// Wraps text this crate wrote with escaping it controls. Never use it on foreign input.
    pub(crate) fn trusted(text: String) -> Self {
        Self(text)
    }

    /// Serializes `value` (serde_json writes valid JSON).
    pub fn of<T: serde::Serialize + ?Sized>(value: &T) -> Result<Self, serde_json::Error> {
        serde_json::to_string(value).map(Self)
    }

    /// The JSON text.
    pub fn get(&self) -> &str {
        &self.0
    }

    /// The JSON text, owned.
    pub fn into_string(self) -> String {
        self.0
    }

    /// Inserts `members` (`"a":1,"b":2`, no braces) first in this object; does nothing when
    /// the text is not an object. One move of the text, no new allocation when it has room.
    pub(crate) fn prepend_members(&mut self, members: &str) {
        let start = self.object_start();
        if self.0.as_bytes().get(start) != Some(&b'{') {
            return;
        }
        let empty = self.0[start + 1..].trim_start().starts_with('}');
        let separator = if empty { "" } else { "," };
        self.0.insert_str(start + 1, separator);
        self.0.insert_str(start + 1, members);
    }

    /// Where the value starts: after leading whitespace, which the runtime's own writers
    /// never produce (so the usual answer costs one comparison).
    fn object_start(&self) -> usize {
        match self.0.as_bytes().first() {
            Some(b'{') => 0,
            _ => self.0.len() - self.0.trim_start().len(),
        }
    }

    /// Whether this is an object whose first member is `name` (as written, unescaped).
    pub(crate) fn starts_with_member(&self, name: &str) -> bool {
        let rest = &self.0.as_bytes()[self.object_start()..];
        rest.len() > name.len() + 2
            && rest[0] == b'{'
            && rest[1] == b'"'
            && rest[2..].starts_with(name.as_bytes())
            && rest[2 + name.len()] == b'"'
    }

    /// The JSON-RPC response carrying this result: `{"jsonrpc":"2.0","id":...,"result":...}`,
    /// the same bytes as [`crate::jsonrpc::success_response`]. The result's buffer becomes the
    /// response: the head is moved in front of the text, so a result written with
    /// [`RESPONSE_HEADROOM`] to spare costs no second allocation and copy.
    pub(crate) fn into_success_response(self, id: &RawValue) -> String {
        use crate::jsonrpc::{RESPONSE_HEAD, RESULT_MEMBER};
        let id = id.get();
        let mut out = self.0;
        out.reserve(RESPONSE_HEAD.len() + id.len() + RESULT_MEMBER.len() + 1);
        out.insert_str(0, RESULT_MEMBER);
        out.insert_str(0, id);
        out.insert_str(0, RESPONSE_HEAD);
        out.push('}');
        out
    }
}

/// The room a writer of a result leaves at the end of its buffer for what is added before
/// it goes out: `"resultType":"complete",` and the response head with a short id.
pub(crate) const RESPONSE_HEADROOM: usize = 64;

impl From<Box<RawValue>> for JsonText {
    fn from(raw: Box<RawValue>) -> Self {
        Self(Box::<str>::from(raw).into_string())
    }
}

impl From<&RawValue> for JsonText {
    fn from(raw: &RawValue) -> Self {
        Self(raw.get().to_string())
    }
}

/// A string without escapes, borrowed (feature `trace`); any other value (a number, an object, a string with
/// escapes, which no valid trace header has) is `None` rather than an error.
#[cfg(feature = "trace")]
pub(crate) fn lenient_str<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<&'de str>, D::Error> {
    let raw: &'de RawValue = Deserialize::deserialize(deserializer)?;
    Ok(raw
        .get()
        .strip_prefix('"')
        .and_then(|text| text.strip_suffix('"'))
        .filter(|text| !text.contains('\\')))
}

/// An optional string borrowed from the request when it has no escapes. serde borrows a
/// `Cow<str>` only when it is a field's whole type: around an `Option` it always copies.
pub(crate) fn borrowed_str<'de, D>(deserializer: D) -> Result<Option<Cow<'de, str>>, D::Error>
where
    D: serde::Deserializer<'de>,
{
    #[derive(Deserialize)]
    struct Borrowed<'a>(#[serde(borrow)] Cow<'a, str>);
    Ok(Option::<Borrowed<'de>>::deserialize(deserializer)?.map(|text| text.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_go_first() {
        let mut text = JsonText::trusted(r#"{"content":[]}"#.to_string());
        text.prepend_members(r#""resultType":"complete""#);
        assert_eq!(text.get(), r#"{"resultType":"complete","content":[]}"#);
        let mut empty = JsonText::trusted("{ }".to_string());
        empty.prepend_members(r#""a":1"#);
        assert_eq!(empty.get(), r#"{"a":1 }"#);
        let mut array = JsonText::trusted("[1]".to_string());
        array.prepend_members(r#""a":1"#);
        assert_eq!(array.get(), "[1]");
    }

    #[test]
    fn leading_whitespace_is_skipped() {
        let mut text = JsonText::trusted(" \n{\"content\":[]}".to_string());
        assert!(!text.starts_with_member("resultType"));
        text.prepend_members(r#""resultType":"complete""#);
        assert_eq!(
            text.get(),
            " \n{\"resultType\":\"complete\",\"content\":[]}"
        );
        assert!(text.starts_with_member("resultType"));
        assert!(!text.starts_with_member("result"));
        assert!(!JsonText::trusted("{\"resultType".to_string()).starts_with_member("resultType"));
        assert!(!JsonText::trusted(String::new()).starts_with_member("a"));
    }

    #[test]
    fn the_response_wraps_the_result_in_its_own_buffer() {
        let id = RawValue::from_string(r#""req-1""#.to_string()).unwrap();
        let result = r#"{"content":[{"type":"text","text":"hi"}]}"#;
        let mut buffer = String::with_capacity(result.len() + RESPONSE_HEADROOM);
        buffer.push_str(result);
        let before = buffer.as_ptr();
        let response = JsonText::trusted(buffer).into_success_response(&id);
        assert_eq!(response, crate::jsonrpc::success_response(&id, result));
        assert_eq!(
            response.as_ptr(),
            before,
            "the headroom sufficed: no new buffer"
        );
    }

    #[test]
    fn from_raw_keeps_the_text() {
        let raw = RawValue::from_string(r#"{"a": [1, 2]}"#.to_string()).unwrap();
        assert_eq!(JsonText::from(raw).get(), r#"{"a": [1, 2]}"#);
    }
}
