//! Audit records: one structured `tracing` event per call, on the target `mcp::audit`.
//!
//! With [`Config::audit`](crate::Config::audit) set (`--audit`), every `tools/call`,
//! `prompts/get`, `resources/read` and plain JSON-RPC contract call the server knows leaves
//! one `INFO` event when it ends (a call refused by a rate limit at the edge too), with the
//! fields:
//!
//! | field | what |
//! |---|---|
//! | `time_unix_ms` | when the call ended, milliseconds since the Unix epoch |
//! | `principal` | the caller's subject, or its digest ([`PrincipalShown::Digest`]: SHA-256 hex of issuer and subject); absent without authorization |
//! | `client` | the session's `clientInfo.name` (session era; absent on a stateless request) |
//! | `session` | the session's fingerprint (the first 8 hex digits of its id's SHA-256, as the telemetry's `mcp.session.id`) |
//! | `method` | `tools/call`, `prompts/get`, `resources/read`, `jsonrpc` |
//! | `name` | the tool or prompt name, the resource URI, the contract method |
//! | `outcome` | `ok`, `tool_error` (an `isError` result), `error` (a JSON-RPC error), `cancelled` |
//! | `error_code` | the JSON-RPC code, when there is one |
//! | `duration_us` | from the middleware's start to the answer, in microseconds |
//! | `arguments` | only with [`Audit::with_arguments`]: the arguments as JSON, the [redacted](Audit::redact) members replaced by `"[redacted]"` |
//!
//! It is a [`Middleware`] the engine runs around the dispatch when configured: a server without
//! it pays one branch per call. Route the target where records belong with the log filter
//! (`--log-level info,mcp::audit=info`), and the JSON log format (`--log-format json`) makes
//! each record one object a line.

use serde_json::value::RawValue;
use serde_json::Value;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use crate::dispatch::BoxFuture;
use crate::middleware::{Answer, Call, Middleware, Next};

/// The `tracing` target of the records.
pub const TARGET: &str = "mcp::audit";

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
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        match text.trim() {
            "subject" => Ok(Self::Subject),
            "digest" => Ok(Self::Digest),
            _ => Err("expected subject or digest".into()),
        }
    }
}

/// The audit settings ([`Config::audit`](crate::Config::audit)); see the [module](self).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Audit {
    principal: PrincipalShown,
    arguments: bool,
    redact: Vec<String>,
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
    fn recorded_arguments(&self, raw: Option<&RawValue>) -> String {
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

/// What a record says of one call, gathered before it runs.
struct Record {
    principal: Option<String>,
    /// The session (its client's name and its fingerprint are read when the record is
    /// written).
    session: Option<std::sync::Arc<crate::session::Session>>,
    method: &'static str,
    name: String,
    arguments: Option<String>,
    started: Instant,
}

impl Record {
    fn of(audit: &Audit, call: &Call<'_>) -> Self {
        let ctx = call.context();
        let principal = call.principal().map(|principal| match audit.principal {
            PrincipalShown::Subject => principal.subject.clone(),
            PrincipalShown::Digest => principal.owner_digest(),
        });
        Record {
            principal,
            session: ctx.session().cloned(),
            method: call.method(),
            name: call.name().to_owned(),
            arguments: audit
                .arguments
                .then(|| audit.recorded_arguments(call.raw_arguments())),
            started: Instant::now(),
        }
    }

    /// Emits the record for `outcome` and `error_code`.
    fn emit(&self, outcome: &str, error_code: Option<i32>) {
        let time_unix_ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64);
        let duration_us = self.started.elapsed().as_micros() as u64;
        let session = self.session.as_deref();
        tracing::info!(
            target: "mcp::audit",
            time_unix_ms,
            principal = self.principal.as_deref(),
            client = session.and_then(|s| s.client_info()["name"].as_str()),
            session = session.map(crate::session::Session::fingerprint),
            method = self.method,
            name = %self.name,
            outcome,
            error_code,
            duration_us,
            arguments = self.arguments.as_deref(),
            "call"
        );
    }
}

/// Emits the `cancelled` record when the call is dropped before it answered.
struct Pending(Option<Record>);

impl Drop for Pending {
    fn drop(&mut self) {
        if let Some(record) = self.0.take() {
            record.emit("cancelled", None);
        }
    }
}

/// The outcome word of `answer`.
fn outcome(answer: &Answer) -> &'static str {
    match answer {
        Answer::Success(_) => "ok",
        Answer::Content(result) if !result.is_error => "ok",
        Answer::Content(_) => "tool_error",
        // A tool's failure is an `isError` result unless it is a protocol error.
        Answer::Failed(error) if !error.is_protocol() => "tool_error",
        Answer::InvalidArguments(_) => "tool_error",
        Answer::Failed(_) | Answer::Refused(_) => "error",
    }
}

impl Middleware for Audit {
    fn call<'a>(&'a self, call: Call<'a>, next: Next<'a>) -> BoxFuture<'a, Answer> {
        // Records the log filter drops are not gathered.
        if !tracing::enabled!(target: "mcp::audit", tracing::Level::INFO) {
            return next.run(call);
        }
        let mut pending = Pending(Some(Record::of(self, &call)));
        let tool = call.kind() == crate::middleware::CallKind::Tool;
        Box::pin(async move {
            let answer = next.run(call).await;
            if let Some(record) = pending.0.take() {
                // Prompts and resources have no `isError`: their failures are errors.
                let outcome = match outcome(&answer) {
                    "tool_error" if !tool => "error",
                    outcome => outcome,
                };
                record.emit(outcome, answer.error_code());
            }
            answer
        })
    }
}

/// The record of a call refused before it reached the engine (a rate limit at the HTTP edge).
pub(crate) fn refused(
    audit: &Audit,
    principal: Option<&crate::auth::Principal>,
    method: &'static str,
    name: &str,
    code: i32,
) {
    Record {
        principal: principal.map(|principal| match audit.principal {
            PrincipalShown::Subject => principal.subject.clone(),
            PrincipalShown::Digest => principal.owner_digest(),
        }),
        session: None,
        method,
        name: name.to_owned(),
        arguments: None,
        started: Instant::now(),
    }
    .emit("error", Some(code));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(text: &str) -> Box<RawValue> {
        RawValue::from_string(text.into()).unwrap()
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
