//! The errors of [`super::decode_with_path`] and [`super::check`]: the violations found, each
//! with its JSON pointer; the message is made only when one is displayed.

use super::{Violation, Violations};
use std::fmt;

/// Why [`super::decode_with_path`] could not decode a text: every problem found, each with the
/// JSON pointer of the value at fault (`/a: expected an integer, got a string; /name: is
/// required`). [`DecodeError::violations`] gives them one by one; `to_string()` gives the
/// message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError(Violations);

impl DecodeError {
    pub(crate) fn new(violations: Violations) -> Self {
        Self(violations)
    }

    /// The problems found, in the order they were found (at most
    /// [`super::MAX_VIOLATIONS`]).
    pub fn violations(&self) -> &[Violation] {
        self.0.list()
    }

    /// The JSON pointer of the first value at fault (`""` for the text as a whole).
    pub fn pointer(&self) -> &str {
        self.0.list().first().map_or("", |v| v.pointer.as_str())
    }

    /// The problems, as [`Violations`].
    pub fn into_violations(self) -> Violations {
        self.0
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl std::error::Error for DecodeError {}

/// Why [`super::check`] refused a value: every rule of the schema it broke, each with its JSON
/// pointer (`/limit: must be ≥ 1; /tags/2: must be at most 8 characters long`).
/// [`Invalid::violations`] gives them one by one; `to_string()` gives the message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invalid(Violations);

impl Invalid {
    /// The rules broken, in the order they were found (at most [`super::MAX_VIOLATIONS`]).
    pub fn violations(&self) -> &[Violation] {
        self.0.list()
    }

    /// The rules broken, as [`Violations`].
    pub fn into_violations(self) -> Violations {
        self.0
    }
}

impl From<Violations> for Invalid {
    fn from(violations: Violations) -> Self {
        Self(violations)
    }
}

impl fmt::Display for Invalid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl std::error::Error for Invalid {}
