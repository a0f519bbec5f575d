//! Audit records (`Config::audit`, #34 item 4) from a server on 127.0.0.1: one event per call
//! on the target `mcp::audit`, with the principal (subject or digest), the client's name, the
//! session's fingerprint, method, name, outcome, error code and duration; arguments only when
//! asked, redacted; none at all when off.

use crate::ops;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use mcp_runtime::audit::{Audit, PrincipalShown};
use mcp_runtime::middleware::WithMiddleware;
use mcp_runtime::Config;
use ops::{post, serve_with, shop};
use serde_json::json;
use tracing::field::{Field, Visit};
use tracing::Subscriber;
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::Layer;

/// One event's fields as text.
type Fields = BTreeMap<String, String>;

#[derive(Default)]
struct FieldText(Fields);

impl Visit for FieldText {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0
            .insert(field.name().into(), format!("{value:?}").replace('"', ""));
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().into(), value.into());
    }
}

/// Keeps the fields of every event on `mcp::audit`.
#[derive(Clone, Default)]
struct Capture(Arc<Mutex<Vec<Fields>>>);

impl<S: Subscriber> Layer<S> for Capture {
    fn on_event(&self, event: &tracing::Event<'_>, _ctx: Context<'_, S>) {
        if event.metadata().target() != mcp_runtime::audit::TARGET {
            return;
        }
        assert_eq!(*event.metadata().level(), tracing::Level::INFO);
        let mut fields = FieldText::default();
        event.record(&mut fields);
        self.0.lock().unwrap().push(fields.0);
    }
}

impl Capture {
    fn take(&self) -> Vec<Fields> {
        std::mem::take(&mut self.0.lock().unwrap())
    }
}

/// A session of `who` (`Authorization: Bearer who`) with the client name `client`.
async fn session_of(url: &str, who: &str, client: &str) -> String {
    let bearer = format!("Bearer {who}");
    let (status, headers, body) = post(
        url,
        &[("authorization", &bearer)],
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": client, "version": "1"}}}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    headers["mcp-session-id"].to_str().unwrap().to_owned()
}

async fn call(url: &str, who: &str, session: &str, tool: &str, arguments: serde_json::Value) {
    let bearer = format!("Bearer {who}");
    let headers = [
        ("authorization", bearer.as_str()),
        ("mcp-session-id", session),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    post(
        url,
        &headers,
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
               "params": {"name": tool, "arguments": arguments}}),
    )
    .await;
}

/// Records captured on this thread until the guard drops (the tests' servers run on the
/// test's current-thread runtime).
fn capturing() -> (Capture, tracing::subscriber::DefaultGuard) {
    let capture = Capture::default();
    let guard =
        tracing::subscriber::set_default(tracing_subscriber::registry().with(capture.clone()));
    (capture, guard)
}

#[tokio::test]
async fn every_call_leaves_one_record_with_who_what_and_how_it_ended() {
    let (capture, _guard) = capturing();
    let (shop, _, _) = shop();
    let mut config = Config::default();
    config.auth = Some(ops::names());
    config.audit = Some(Audit::new());
    let url = serve_with(shop, config).await;
    let session = session_of(&url, "alice", "inspector").await;
    call(&url, "alice", &session, "echo", json!({"secret": "s3"})).await;
    // Refused by the runtime (unknown tool): not a call of the contract, no record.
    call(&url, "alice", &session, "nope", json!({})).await;
    let records = capture.take();
    assert_eq!(records.len(), 1, "{records:#?}");
    let record = &records[0];
    for (field, value) in [
        ("principal", "alice"),
        ("client", "inspector"),
        ("method", "tools/call"),
        ("name", "echo"),
        ("outcome", "ok"),
    ] {
        assert_eq!(
            record.get(field).map(String::as_str),
            Some(value),
            "{record:#?}"
        );
    }
    // The session's fingerprint: 8 hex digits, not the id.
    let print = &record["session"];
    assert_eq!(print.len(), 8);
    assert!(print.bytes().all(|b| b.is_ascii_hexdigit()));
    assert!(!session.contains(print.as_str()) || session.len() == 8);
    assert!(record["duration_us"].parse::<u64>().is_ok());
    let time: u64 = record["time_unix_ms"].parse().unwrap();
    assert!(time > 1_700_000_000_000);
    // Arguments only when asked.
    assert!(!record.contains_key("arguments"), "{record:#?}");
    assert!(!record.contains_key("error_code"), "{record:#?}");
}

#[tokio::test]
async fn a_digest_instead_of_the_subject_and_redacted_arguments() {
    let (capture, _guard) = capturing();
    let (shop, _, _) = shop();
    let mut config = Config::default();
    config.auth = Some(ops::names());
    config.audit = Some(
        Audit::new()
            .principal(PrincipalShown::Digest)
            .with_arguments(true)
            .redact(["password", "/card/number"]),
    );
    let url = serve_with(shop, config).await;
    let session = session_of(&url, "bob", "cli").await;
    let arguments = json!({"user": "bob", "password": "hunter2",
                           "card": {"number": "4111", "exp": "12/30"}});
    call(&url, "bob", &session, "echo", arguments).await;
    let records = capture.take();
    assert_eq!(records.len(), 1, "{records:#?}");
    let record = &records[0];
    let digest = &record["principal"];
    assert_eq!(digest.len(), 64, "{record:#?}");
    assert_ne!(digest, "bob");
    let recorded: serde_json::Value = serde_json::from_str(&record["arguments"]).unwrap();
    assert_eq!(
        recorded,
        json!({"user": "bob", "password": "[redacted]",
               "card": {"number": "[redacted]", "exp": "12/30"}})
    );
    assert!(!record["arguments"].contains("hunter2"));
}

#[tokio::test]
async fn failures_and_refusals_carry_their_outcome_and_code_in_both_eras() {
    let (capture, _guard) = capturing();
    let (shop, _, _) = shop();
    let mut config = Config::default();
    config.audit = Some(Audit::new());
    let url = serve_with(shop.layer(ops::Policy), config).await;
    let id = ops::session(&url).await;
    ops::call_in_session(&url, &id, "echo", json!({"secret": true})).await;
    ops::call_stateless(&url, "echo", json!({"x": 1})).await;
    let records = capture.take();
    assert_eq!(records.len(), 2, "{records:#?}");
    assert_eq!(records[0]["outcome"], "error");
    assert_eq!(records[0]["error_code"], "-32001");
    assert_eq!(records[0]["client"], "test");
    // Stateless: no session, no principal without authorization.
    assert_eq!(records[1]["outcome"], "ok");
    assert!(!records[1].contains_key("session"), "{records:#?}");
    assert!(!records[1].contains_key("principal"), "{records:#?}");
}

#[tokio::test]
async fn a_cancelled_call_is_recorded_as_cancelled() {
    let (capture, _guard) = capturing();
    let (shop, _, calls) = shop();
    let mut config = Config::default();
    config.audit = Some(Audit::new());
    let url = serve_with(shop, config).await;
    let url2 = url.clone();
    let slow = tokio::spawn(async move { ops::call_stateless(&url2, "slow", json!({})).await });
    for _ in 0..500 {
        if calls.load(std::sync::atomic::Ordering::SeqCst) == 1 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    slow.abort();
    for _ in 0..500 {
        if !capture.0.lock().unwrap().is_empty() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    let records = capture.take();
    assert_eq!(records.len(), 1, "{records:#?}");
    assert_eq!(records[0]["outcome"], "cancelled");
}

#[tokio::test]
async fn no_record_when_audit_is_off() {
    let (capture, _guard) = capturing();
    let (shop, _, calls) = shop();
    let url = serve_with(shop, Config::default()).await;
    ops::call_stateless(&url, "echo", json!({"x": 1})).await;
    assert_eq!(calls.load(std::sync::atomic::Ordering::SeqCst), 1);
    assert!(capture.take().is_empty());
}

/// `--audit-file`: the records go to the file, one JSON object a line with the log record's
/// fields (a rate limit's refusal too, arguments redacted, escapes intact), and none to the
/// log; the file is created `0600`.
#[tokio::test]
async fn records_to_a_file_are_one_json_object_a_line_and_not_in_the_log() {
    use mcp_runtime::audit::AuditFile;
    use mcp_runtime::rate_limit::{Rate, RateLimits};
    let (capture, _guard) = capturing();
    let dir = std::env::temp_dir().join(format!("mcp-audit-file-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("audit.jsonl");
    let _ = std::fs::remove_file(&path);
    let (shop, _, _) = shop();
    let mut config = Config::default();
    config.auth = Some(ops::names());
    config.audit = Some(
        Audit::new()
            .with_arguments(true)
            .redact(["secret"])
            .to_file(Some(AuditFile::open(&path).unwrap())),
    );
    config.rate_limits = Some(RateLimits::new().per_caller(Some(Rate::new(2, 60_000))));
    let url = serve_with(shop, config).await;
    // A client name with quotes and a line break: the line stays one JSON object.
    let session = session_of(&url, "bob", "cli \"x\"\n").await;
    call(
        &url,
        "bob",
        &session,
        "echo",
        json!({"secret": "s3", "n": 1}),
    )
    .await;
    call(&url, "bob", &session, "echo", json!({"n": 2})).await;
    call(&url, "bob", &session, "echo", json!({"n": 3})).await;
    assert!(capture.take().is_empty(), "nothing went to the log");
    let text = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
        .collect();
    assert_eq!(lines.len(), 3, "{text}");
    let first = &lines[0];
    assert_eq!(first["principal"], "bob", "{first}");
    assert_eq!(first["client"], "cli \"x\"\n", "{first}");
    assert_eq!(first["method"], "tools/call");
    assert_eq!(first["name"], "echo");
    assert_eq!(first["outcome"], "ok");
    assert_eq!(first["session"].as_str().unwrap().len(), 8);
    assert!(first["time_unix_ms"].as_u64().unwrap() > 1_700_000_000_000);
    assert!(first["duration_us"].is_u64());
    assert!(first.get("error_code").is_none(), "{first}");
    let arguments: serde_json::Value =
        serde_json::from_str(first["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(arguments, json!({"secret": "[redacted]", "n": 1}));
    // The third call is over the limit: refused before it ran, recorded all the same.
    assert_eq!(lines[2]["outcome"], "error", "{text}");
    assert_eq!(lines[2]["error_code"], -32023, "{text}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
