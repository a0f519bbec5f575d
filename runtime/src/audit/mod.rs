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

use std::time::{Instant, SystemTime, UNIX_EPOCH};

use crate::dispatch::BoxFuture;
use crate::middleware::{Answer, Call, Middleware, Next};

mod file;
pub(crate) mod settings;

/// The `tracing` target of the records.
#[doc(hidden)]
pub const TARGET: &str = "mcp::audit";

pub use file::AuditFile;
pub use settings::{Audit, ParsePrincipalShownError, PrincipalShown};

/// `audit` when its records are on and the log filter lets them through: the engine wraps a
/// call in the audit middleware only then, so records filtered out cost one check, not the
/// middleware's boxes.
#[inline]
pub(crate) fn recording(audit: Option<&Audit>) -> Option<&Audit> {
    audit.filter(|audit| audit.file.is_some() || log_enabled())
}

/// Whether the log filter lets records through.
fn log_enabled() -> bool {
    tracing::enabled!(target: "mcp::audit", tracing::Level::INFO)
}

/// What a record says of one call, gathered before it runs.
struct Record<'a> {
    /// Where the record goes when not the log.
    file: Option<&'a AuditFile>,
    principal: Option<String>,
    /// The session (its client's name and its fingerprint are read when the record is
    /// written).
    session: Option<std::sync::Arc<crate::session::Session>>,
    method: &'static str,
    name: String,
    arguments: Option<String>,
    started: Instant,
}

impl<'a> Record<'a> {
    fn of(audit: &'a Audit, call: &Call<'_>) -> Self {
        let ctx = call.context();
        let principal = call.principal().map(|principal| match audit.principal {
            PrincipalShown::Subject => principal.subject.clone(),
            PrincipalShown::Digest => principal.owner_digest(),
        });
        Record {
            file: audit.file.as_ref(),
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
        let client = session.and_then(|s| s.client_info()["name"].as_str());
        let fingerprint = session.map(crate::session::Session::fingerprint);
        if let Some(file) = self.file {
            let line = file::Line::new(time_unix_ms)
                .text("principal", self.principal.as_deref())
                .text("client", client)
                .text("session", fingerprint)
                .text("method", Some(self.method))
                .text("name", Some(&self.name))
                .text("outcome", Some(outcome))
                .signed("error_code", error_code)
                .number("duration_us", Some(duration_us))
                .text("arguments", self.arguments.as_deref())
                .finish();
            return file.append(&line);
        }
        tracing::info!(
            target: "mcp::audit",
            time_unix_ms,
            principal = self.principal.as_deref(),
            client,
            session = fingerprint,
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
struct Pending<'a>(Option<Record<'a>>);

impl Drop for Pending<'_> {
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
        if recording(Some(self)).is_none() {
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
    if recording(Some(audit)).is_none() {
        return;
    }
    Record {
        file: audit.file.as_ref(),
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
