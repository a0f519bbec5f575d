//! Results on their way to the wire, as text that is never parsed again.

use serde_json::value::RawValue;

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
        let start = self.0.len() - self.0.trim_start().len();
        if self.0.as_bytes().get(start) != Some(&b'{') {
            return;
        }
        let empty = self.0[start + 1..].trim_start().starts_with('}');
        let separator = if empty { "" } else { "," };
        self.0.insert_str(start + 1, separator);
        self.0.insert_str(start + 1, members);
    }
}

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
    fn from_raw_keeps_the_text() {
        let raw = RawValue::from_string(r#"{"a": [1, 2]}"#.to_string()).unwrap();
        assert_eq!(JsonText::from(raw).get(), r#"{"a": [1, 2]}"#);
    }
}
