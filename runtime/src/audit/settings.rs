//! The settings of the audit records ([`Audit`]) and the redaction of the arguments they
//! record: what a server is configured with, apart from the middleware that writes the records
//! (the [parent module](super)), so that the configuration needs nothing of the engine.

use serde_json::value::RawValue;
use serde_json::Value;

/// What a record shows of the caller.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum PrincipalShown {
    /// The subject, as the authenticator gave it.
    #[default]
    Subject,
    /// A SHA-256 digest (hex) of the issuer and subject: one caller's records are linked
    /// without naming them.
    Digest,
}

impl std::str::FromStr for PrincipalShown {
    type Err = ParsePrincipalShownError;

    fn from_str(text: &str) -> Result<Self, ParsePrincipalShownError> {
        match text.trim() {
            "subject" => Ok(Self::Subject),
            "digest" => Ok(Self::Digest),
            _ => Err(ParsePrincipalShownError),
        }
    }
}

/// Why a text is not a [`PrincipalShown`] (its `FromStr`): neither `subject` nor `digest`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParsePrincipalShownError;

impl std::fmt::Display for ParsePrincipalShownError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("expected subject or digest")
    }
}

impl std::error::Error for ParsePrincipalShownError {}

/// The audit settings ([`Config::audit`](crate::Config::audit)); see the [module](super).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Audit {
    pub(super) principal: PrincipalShown,
    pub(super) arguments: bool,
    redact: Vec<String>,
    pub(super) file: Option<super::file::AuditFile>,
}

/// What stands in for a redacted value.
const REDACTED: &str = "[redacted]";

impl Audit {
    /// Records with the subject, without arguments.
    pub fn new() -> Self {
        Self::default()
    }

    /// Shows the caller as `shown`.
    pub fn principal(mut self, shown: PrincipalShown) -> Self {
        self.principal = shown;
        self
    }

    /// Writes the records to `file` ([`AuditFile::open`](super::AuditFile::open)), one JSON
    /// object a line, instead of the log (target `mcp::audit`); `None`: the log.
    pub fn to_file(mut self, file: Option<super::file::AuditFile>) -> Self {
        self.file = file;
        self
    }

    /// The file the records go to, when not the log.
    pub fn file(&self) -> Option<&super::file::AuditFile> {
        self.file.as_ref()
    }

    /// Records the arguments too (after [redaction](Self::redact)).
    pub fn with_arguments(mut self, arguments: bool) -> Self {
        self.arguments = arguments;
        self
    }

    /// Members of the arguments never recorded: each entry a JSON pointer (`/card/number`:
    /// that member only) or a key (`password`: every member of that name, at any depth).
    pub fn redact(mut self, redact: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.redact = redact.into_iter().map(Into::into).collect();
        self
    }

    /// The settings: how the caller shows, whether arguments are recorded, what is redacted.
    pub fn settings(&self) -> (PrincipalShown, bool, &[String]) {
        (self.principal, self.arguments, &self.redact)
    }

    /// The arguments as recorded: redacted, and `null` when they are not JSON (never, past the
    /// reader) or absent.
    pub(super) fn recorded_arguments(&self, raw: Option<&RawValue>) -> String {
        let Some(raw) = raw else {
            return "null".into();
        };
        if self.redact.is_empty() {
            return raw.get().to_owned();
        }
        let Ok(mut value) = serde_json::from_str::<Value>(raw.get()) else {
            return "null".into();
        };
        for entry in &self.redact {
            if entry.starts_with('/') {
                if let Some(target) = value.pointer_mut(entry) {
                    *target = Value::String(REDACTED.into());
                }
            } else {
                redact_key(&mut value, entry, 0);
            }
        }
        value.to_string()
    }
}

/// Deepest level [`redact_key`] looks at: past the reader's depth limit, there is nothing.
const MAX_DEPTH: usize = 256;

/// Replaces the value of every member named `key`, at any depth.
fn redact_key(value: &mut Value, key: &str, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    match value {
        Value::Object(members) => {
            for (name, member) in members.iter_mut() {
                if name == key {
                    *member = Value::String(REDACTED.into());
                } else {
                    redact_key(member, key, depth + 1);
                }
            }
        }
        Value::Array(items) => {
            for item in items {
                redact_key(item, key, depth + 1);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(text: &str) -> Box<RawValue> {
        RawValue::from_string(text.into()).unwrap()
    }

    #[test]
    fn principal_shown_errors_are_typed_and_display_the_old_message() {
        assert_eq!(
            "digest".parse::<PrincipalShown>(),
            Ok(PrincipalShown::Digest)
        );
        let error = "name".parse::<PrincipalShown>().unwrap_err();
        assert_eq!(error, ParsePrincipalShownError);
        assert_eq!(error.to_string(), "expected subject or digest");
    }

    #[test]
    fn redaction_by_pointer_and_by_key() {
        let audit = Audit::new()
            .with_arguments(true)
            .redact(["/card/number", "password"]);
        let recorded = audit.recorded_arguments(Some(&raw(
            r#"{"card":{"number":"4111","exp":"12/30"},"users":[{"password":"p","name":"a"}],"password":"q","number":1}"#,
        )));
        let value: Value = serde_json::from_str(&recorded).unwrap();
        assert_eq!(
            value,
            serde_json::json!({"card":{"number":"[redacted]","exp":"12/30"},
                "users":[{"password":"[redacted]","name":"a"}],"password":"[redacted]","number":1})
        );
        // A pointer to nothing, absent arguments: nothing breaks.
        let audit = Audit::new().redact(["/no/such", "~weird"]);
        assert_eq!(audit.recorded_arguments(Some(&raw("[1,2]"))), "[1,2]");
        assert_eq!(audit.recorded_arguments(None), "null");
    }

    #[test]
    fn deep_arguments_are_redacted_without_overflowing() {
        let audit = Audit::new().redact(["k"]);
        let depth = 100;
        let text = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        assert_eq!(audit.recorded_arguments(Some(&raw(&text))), text);
    }
}
