//! [`FixedName`]: a string member whose value is one of the protocol's fixed names (`jsonrpc`,
//! `method`, a protocol version), borrowed from the message's bytes.
//!
//! serde_json can only borrow a string written without escapes. The same name written with one
//! (`"tools\/list"`: PHP's `json_encode` escapes `/` by default) is still that name: it is
//! looked up among the names the runtime knows and replaced by its static spelling. An unknown
//! name with escapes cannot be served anyway, and reads as [`UNKNOWN_ESCAPED`].

use serde::de::{Deserialize, Deserializer, Error, Visitor};
use std::fmt;

use super::method::Method;
use crate::protocol::ProtocolVersion;

/// What an unknown name written with escapes reads as.
pub(crate) const UNKNOWN_ESCAPED: &str = "(a name written with escapes)";

/// The notifications the runtime knows by name.
const NOTIFICATIONS: [&str; 5] = [
    "notifications/initialized",
    "notifications/cancelled",
    "notifications/progress",
    "notifications/roots/list_changed",
    "notifications/message",
];

/// A fixed name of the protocol, borrowed from the message when written plainly.
#[derive(Debug, Clone, Copy)]
pub(crate) struct FixedName<'a>(pub &'a str);

impl<'de> Deserialize<'de> for FixedName<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_str(FixedNameVisitor)
    }
}

struct FixedNameVisitor;

impl<'de> Visitor<'de> for FixedNameVisitor {
    type Value = FixedName<'de>;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a string")
    }

    fn visit_borrowed_str<E: Error>(self, name: &'de str) -> Result<Self::Value, E> {
        Ok(FixedName(name))
    }

    /// A string with escapes (serde_json unescaped it into a buffer).
    #[cold]
    fn visit_str<E: Error>(self, name: &str) -> Result<Self::Value, E> {
        Ok(FixedName(static_spelling(name)))
    }
}

/// Reads an optional [`FixedName`] as an `Option<&str>` (for `deserialize_with`).
pub(crate) fn optional<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<&'de str>, D::Error> {
    Option::<FixedName<'de>>::deserialize(deserializer).map(|name| name.map(|name| name.0))
}

/// The static spelling of a name the runtime knows.
fn static_spelling(name: &str) -> &'static str {
    if name == "2.0" {
        return "2.0";
    }
    if let Some(method) = Method::of(name).name() {
        return method;
    }
    if let Some(version) = ProtocolVersion::ALL
        .into_iter()
        .find(|v| v.as_str() == name)
    {
        return version.as_str();
    }
    NOTIFICATIONS
        .into_iter()
        .find(|known| *known == name)
        .unwrap_or(UNKNOWN_ESCAPED)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(json: &str) -> Result<&str, serde_json::Error> {
        serde_json::from_str::<FixedName<'_>>(json).map(|name| name.0)
    }

    #[test]
    fn a_name_with_escapes_is_the_same_name() {
        assert_eq!(read(r#""tools/list""#).unwrap(), "tools/list");
        assert_eq!(read(r#""tools\/list""#).unwrap(), "tools/list");
        assert_eq!(read(r#""2\u002e0""#).unwrap(), "2.0");
        assert_eq!(read(r#""2026\u002d07-28""#).unwrap(), "2026-07-28");
        assert_eq!(
            read(r#""notifications\/cancelled""#).unwrap(),
            "notifications/cancelled"
        );
        assert_eq!(read(r#""notes\/add""#).unwrap(), UNKNOWN_ESCAPED);
        assert!(read("5").is_err());
    }
}
