//! The tasks extension of 2026-07-28 (`io.modelcontextprotocol/tasks`), over real HTTP.
//!
//! - A `tools/call` from a client declaring the extension continues as a task when its handler
//!   says so (`ctx.start_task()`, `ctx.require_task()`): the answer is a `CreateTaskResult`
//!   (`resultType: "task"`), and `tasks/get` (with `Mcp-Name` = the task id) follows it from
//!   `working` to `completed` with the tool result (an `isError` one included), to `failed` with
//!   a protocol error, or to `cancelled` after `tasks/cancel`, which stops the handler.
//! - Requests to the client park the task in `input_required` with every pending question in
//!   `inputRequests`; `tasks/update` takes answers one by one.
//! - Without the extension: `start_task` answers directly, `require_task` and `tasks/*` are
//!   HTTP 400 `-32021` naming it. Unknown and expired tasks are `-32602`; `tasks/result` and
//!   `tasks/list` do not exist (404 `-32601`); a wrong `Mcp-Name` is 400 `-32020`.
//!
//! Every response is checked against the official 2026-07-28 schema, and the task results,
//! which it does not define, field by field (`support::schema::assert_task_result`).

mod support;

use http::StatusCode;
use serde_json::{json, Value};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::{Duration, Instant};

use mcp_runtime::Config;
use support::schema::{assert_task_result, warm_up};
use support::start;
use support::stateless::{accept, exchange, Answer, V};
use workspace_tests::form;

/// The extension's identifier.
const TASKS: &str = "io.modelcontextprotocol/tasks";

/// How long a task may take to reach a state: generous, the machine may be busy.
const SETTLES: Duration = Duration::from_secs(5);

/// Client capabilities declaring the tasks extension and form elicitation.
fn with_tasks() -> Value {
    json!({"elicitation": {}, "extensions": {TASKS: {}}})
}

/// A fresh JSON-RPC id.
fn next_id() -> i64 {
    static NEXT: AtomicI64 = AtomicI64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// A `tools/call` of `name` declaring `capabilities`.
async fn call_tool(addr: SocketAddr, name: &str, arguments: Value, capabilities: Value) -> Answer {
    let params = json!({"name": name, "arguments": arguments});
    exchange(addr, next_id(), "tools/call", params, capabilities, &[]).await
}

/// Calls `name` declaring the extension; asserts the answer is a `CreateTaskResult` and
/// returns it.
async fn start_task(addr: SocketAddr, name: &str, arguments: Value) -> Value {
    let answer = call_tool(addr, name, arguments, with_tasks()).await;
    let created = answer.result().clone();
    assert_eq!(created["resultType"], json!("task"), "{}", answer.text);
    assert_eq!(created["status"], json!("working"), "{}", answer.text);
    created
}

/// The task id of a `CreateTaskResult`.
fn task_id(created: &Value) -> &str {
    created["taskId"].as_str().unwrap()
}

/// `method` (`tasks/get`, `tasks/update`, `tasks/cancel`, ...) about `task`, with `Mcp-Name`
/// naming it and `fields` added to the params.
async fn task_request(
    addr: SocketAddr,
    method: &str,
    task: &str,
    fields: Value,
    capabilities: Value,
) -> Answer {
    let mut params = json!({"taskId": task});
    for (key, value) in fields.as_object().into_iter().flatten() {
        params[key] = value.clone();
    }
    exchange(
        addr,
        next_id(),
        method,
        params,
        capabilities,
        &[("mcp-name", task)],
    )
    .await
}

/// The `tasks/get` result of `task`.
async fn get(addr: SocketAddr, task: &str) -> Value {
    let answer = task_request(addr, "tasks/get", task, json!({}), with_tasks()).await;
    let result = answer.result().clone();
    assert_eq!(result["taskId"], json!(task), "{}", answer.text);
    result
}

/// Polls `tasks/get` until `done` holds (at most [`SETTLES`]); returns that result.
async fn wait_until(addr: SocketAddr, task: &str, done: impl Fn(&Value) -> bool) -> Value {
    let started = Instant::now();
    loop {
        let result = get(addr, task).await;
        if done(&result) {
            return result;
        }
        assert!(
            started.elapsed() < SETTLES,
            "the task did not get there: {result}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Polls `tasks/get` until the task's status is `status`.
async fn wait_for_status(addr: SocketAddr, task: &str, status: &str) -> Value {
    wait_until(addr, task, |result| result["status"] == json!(status)).await
}

/// Compiles the schema checks of task answers before a timed test, so that they do not take
/// its time.
fn warm_up_checks() {
    warm_up(
        V,
        &[
            "JSONRPCResultResponse",
            "JSONRPCErrorResponse",
            "Result",
            "CallToolResult",
            "InputRequest",
            "InvalidParamsError",
            "Error",
        ],
    );
}

/// The acknowledgement of `tasks/update` and `tasks/cancel`, exactly.
fn assert_acknowledged(answer: &Answer) {
    assert_eq!(
        answer.result(),
        &json!({"resultType": "complete"}),
        "{}",
        answer.text
    );
}

/// `-32021` naming the tasks extension, as HTTP 400.
fn assert_extension_required(answer: &Answer) {
    let error = answer.error(StatusCode::BAD_REQUEST, -32021);
    assert_eq!(
        error["data"],
        json!({"requiredCapabilities": {"extensions": {TASKS: {}}}}),
        "{}",
        answer.text
    );
}

// ---- Discovery ------------------------------------------------------------------------------

#[tokio::test]
async fn discover_declares_the_tasks_extension() {
    let server = start(Config::default()).await;
    let answer = exchange(server.addr, 1, "server/discover", json!({}), json!({}), &[]).await;
    assert_eq!(
        answer.result()["capabilities"]["extensions"],
        json!({TASKS: {}}),
        "{}",
        answer.text
    );
}

#[test]
fn the_task_check_rejects_malformed_task_results() {
    let task = json!({
        "resultType": "task", "taskId": "abc", "status": "working",
        "createdAt": "2026-11-30T06:33:00.123Z", "lastUpdatedAt": "2026-11-30T06:33:00.123Z",
        "ttlMs": 1000, "pollIntervalMs": 250,
    });
    assert_task_result(&task, "task");
    let rejects = |change: &dyn Fn(&mut Value), result_type: &'static str| {
        let mut bad = task.clone();
        change(&mut bad);
        std::panic::catch_unwind(move || assert_task_result(&bad, result_type)).is_err()
    };
    assert!(rejects(&|t| t["status"] = json!("done"), "task"));
    assert!(rejects(&|t| t["createdAt"] = json!("yesterday"), "task"));
    assert!(rejects(&|t| t["ttlMs"] = json!("1000"), "task"));
    assert!(rejects(
        &|t| {
            t.as_object_mut().unwrap().remove("taskId");
        },
        "task"
    ));
    // A CreateTaskResult carries no outcome; a tasks/get result only the one of its status.
    assert!(rejects(&|t| t["result"] = json!({"content": []}), "task"));
    assert!(rejects(
        &|t| {
            t["resultType"] = json!("complete");
            t["status"] = json!("completed");
        },
        "complete"
    ));
    assert!(rejects(
        &|t| {
            t["resultType"] = json!("complete");
            t["status"] = json!("working");
            t["error"] = json!({"code": -32603, "message": "m"});
        },
        "complete"
    ));
}

// ---- Lifecycle ------------------------------------------------------------------------------

#[tokio::test]
async fn a_tool_call_becomes_a_task_that_completes_with_its_result() {
    let server = start(
        Config::builder()
            .task_ttl(Duration::from_secs(90))
            .task_poll_interval(Duration::from_millis(40))
            .build(),
    )
    .await;
    let created = start_task(server.addr, "background_job", json!({"millis": 300})).await;
    let mut keys: Vec<&str> = created
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        [
            "createdAt",
            "lastUpdatedAt",
            "pollIntervalMs",
            "resultType",
            "status",
            "taskId",
            "ttlMs"
        ]
    );
    assert_eq!(
        (created["ttlMs"].clone(), created["pollIntervalMs"].clone()),
        (json!(90_000), json!(40))
    );
    let id = task_id(&created);
    assert!(
        id.len() >= 32 && id.bytes().all(|b| b.is_ascii_hexdigit()),
        "an unguessable id: {id}"
    );
    assert_eq!(created["createdAt"], created["lastUpdatedAt"]);

    let working = get(server.addr, id).await;
    assert_eq!(working["status"], json!("working"), "{working}");
    assert_eq!(working["createdAt"], created["createdAt"]);

    let done = wait_for_status(server.addr, id, "completed").await;
    assert_eq!(
        done["result"]["content"][0]["text"],
        json!("done in 300 ms")
    );
    assert_eq!(done["result"].get("isError"), None, "{done}");
    assert_eq!(done["createdAt"], created["createdAt"]);
    assert_eq!(
        (done["ttlMs"].clone(), done["pollIntervalMs"].clone()),
        (json!(90_000), json!(40))
    );
    // Same format, so the text order is the time order.
    assert!(
        done["lastUpdatedAt"].as_str() > created["createdAt"].as_str(),
        "{done}"
    );
}

#[tokio::test]
async fn without_the_extension_start_task_answers_directly() {
    let server = start(Config::default()).await;
    let answer = call_tool(
        server.addr,
        "background_job",
        json!({"millis": 10}),
        json!({}),
    )
    .await;
    assert_eq!(answer.tool_text(), "done in 10 ms");
}

#[tokio::test]
async fn a_tool_error_completes_the_task_with_is_error() {
    let server = start(Config::default()).await;
    let created = start_task(server.addr, "failing_job", json!({})).await;
    let done = wait_for_status(server.addr, task_id(&created), "completed").await;
    assert_eq!(done["result"]["isError"], json!(true), "{done}");
    assert_eq!(
        done["result"]["content"][0],
        json!({"type": "text", "text": "the job failed"})
    );
}

#[tokio::test]
async fn a_protocol_error_fails_the_task_with_the_error() {
    let server = start(Config::default()).await;
    let created = start_task(server.addr, "broken_job", json!({})).await;
    let failed = wait_for_status(server.addr, task_id(&created), "failed").await;
    assert_eq!(
        failed["error"],
        json!({"code": -32603, "message": "the job broke"}),
        "{failed}"
    );
}

#[tokio::test]
async fn cancelling_a_task_marks_it_cancelled() {
    let server = start(Config::default()).await;
    let created = start_task(server.addr, "endless_job", json!({})).await;
    let id = task_id(&created);
    assert_eq!(get(server.addr, id).await["status"], json!("working"));
    let cancel = task_request(server.addr, "tasks/cancel", id, json!({}), with_tasks()).await;
    assert_acknowledged(&cancel);
    let cancelled = get(server.addr, id).await;
    assert_eq!(cancelled["status"], json!("cancelled"), "{cancelled}");
    assert!(
        cancelled["lastUpdatedAt"].as_str() >= created["lastUpdatedAt"].as_str(),
        "{cancelled}"
    );
    // A cancelled task stays cancelled: a second cancel changes nothing.
    let again = task_request(server.addr, "tasks/cancel", id, json!({}), with_tasks()).await;
    assert_acknowledged(&again);
    assert_eq!(get(server.addr, id).await, cancelled);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_a_task_stops_its_handler_within_200_ms() {
    warm_up_checks();
    let server = start(Config::default()).await;
    let created = start_task(server.addr, "endless_job", json!({})).await;
    let id = task_id(&created);
    assert!(server.handler.endless_dropped.dropped_at().is_none());
    let sent = Instant::now();
    let cancel = task_request(server.addr, "tasks/cancel", id, json!({}), with_tasks()).await;
    assert_acknowledged(&cancel);
    let dropped = server
        .handler
        .endless_dropped
        .wait(Duration::from_secs(2))
        .await
        .expect("tasks/cancel stops the handler");
    let delay = dropped.saturating_duration_since(sent);
    assert!(
        delay <= Duration::from_millis(200),
        "the handler stopped {delay:?} after the cancel was sent"
    );
}

#[tokio::test]
async fn cancelling_a_finished_task_leaves_it_finished() {
    let server = start(Config::default()).await;
    let created = start_task(server.addr, "background_job", json!({"millis": 0})).await;
    let id = task_id(&created);
    let done = wait_for_status(server.addr, id, "completed").await;
    let cancel = task_request(server.addr, "tasks/cancel", id, json!({}), with_tasks()).await;
    assert_acknowledged(&cancel);
    assert_eq!(get(server.addr, id).await, done);
}

// ---- input_required -------------------------------------------------------------------------

#[tokio::test]
async fn parallel_questions_park_the_task_until_each_is_answered() {
    let server = start(Config::default()).await;
    let created = start_task(server.addr, "two_questions", json!({})).await;
    let id = task_id(&created);
    let asking = wait_until(server.addr, id, |task| {
        task["status"] == json!("input_required")
            && task["inputRequests"].as_object().map(|r| r.len()) == Some(2)
    })
    .await;
    let question =
        |message: &str| json!({"method": "elicitation/create", "params": form(message, "name")});
    assert_eq!(
        asking["inputRequests"],
        json!({"first": question("First name?"), "second": question("Second name?")})
    );

    // Answering one question (and one never asked) leaves only the other one pending.
    let update = task_request(
        server.addr,
        "tasks/update",
        id,
        json!({"inputResponses": {"first": accept("name", "Ada"), "unasked": accept("name", "X")}}),
        with_tasks(),
    )
    .await;
    assert_acknowledged(&update);
    let still = get(server.addr, id).await;
    assert_eq!(still["status"], json!("input_required"), "{still}");
    assert_eq!(
        still["inputRequests"],
        json!({"second": question("Second name?")})
    );

    let update = task_request(
        server.addr,
        "tasks/update",
        id,
        json!({"inputResponses": {"second": accept("name", "Grace")}}),
        with_tasks(),
    )
    .await;
    assert_acknowledged(&update);
    let done = wait_for_status(server.addr, id, "completed").await;
    assert_eq!(done["result"]["content"][0]["text"], json!("Ada and Grace"));
}

// ---- Capability gates -----------------------------------------------------------------------

#[tokio::test]
async fn a_task_only_tool_without_the_extension_is_missing_capability() {
    let server = start(Config::default()).await;
    let answer = call_tool(
        server.addr,
        "failing_job",
        json!({}),
        json!({"elicitation": {}}),
    )
    .await;
    assert_extension_required(&answer);
}

#[tokio::test]
async fn tasks_methods_without_the_extension_are_missing_capability() {
    let server = start(Config::default()).await;
    let created = start_task(server.addr, "endless_job", json!({})).await;
    // The gate comes first, for a real task as for an unknown one.
    for task in [task_id(&created), "no-such-task"] {
        for (method, fields) in [
            ("tasks/get", json!({})),
            ("tasks/update", json!({"inputResponses": {}})),
            ("tasks/cancel", json!({})),
        ] {
            let answer = task_request(
                server.addr,
                method,
                task,
                fields,
                json!({"elicitation": {}}),
            )
            .await;
            assert_extension_required(&answer);
        }
    }
    // Nothing was cancelled.
    assert_eq!(
        get(server.addr, task_id(&created)).await["status"],
        json!("working")
    );
}

// ---- Errors ---------------------------------------------------------------------------------

#[tokio::test]
async fn an_unknown_task_is_invalid_params() {
    let server = start(Config::default()).await;
    for (method, fields) in [
        ("tasks/get", json!({})),
        ("tasks/update", json!({"inputResponses": {}})),
        ("tasks/cancel", json!({})),
    ] {
        let answer = task_request(server.addr, method, "no-such-task", fields, with_tasks()).await;
        let error = answer.error(StatusCode::OK, -32602);
        assert_eq!(error["data"], json!({"taskId": "no-such-task"}), "{method}");
    }
}

#[tokio::test]
async fn tasks_result_and_tasks_list_are_not_methods() {
    let server = start(Config::default()).await;
    let created = start_task(server.addr, "background_job", json!({"millis": 0})).await;
    let id = task_id(&created);
    let result = task_request(server.addr, "tasks/result", id, json!({}), with_tasks()).await;
    result.error(StatusCode::NOT_FOUND, -32601);
    let list = exchange(
        server.addr,
        next_id(),
        "tasks/list",
        json!({}),
        with_tasks(),
        &[],
    )
    .await;
    list.error(StatusCode::NOT_FOUND, -32601);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_expired_task_is_unknown() {
    warm_up_checks();
    let ttl = Duration::from_millis(1000);
    let server = start(Config::builder().task_ttl(ttl).build()).await;
    let started = Instant::now();
    let created = start_task(server.addr, "background_job", json!({"millis": 0})).await;
    let id = task_id(&created);
    assert_eq!(created["ttlMs"], json!(1000));
    wait_for_status(server.addr, id, "completed").await;
    tokio::time::sleep((ttl + Duration::from_millis(300)).saturating_sub(started.elapsed())).await;
    let answer = task_request(server.addr, "tasks/get", id, json!({}), with_tasks()).await;
    let error = answer.error(StatusCode::OK, -32602);
    assert_eq!(error["data"], json!({"taskId": id}));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_expired_task_cannot_be_updated_or_cancelled() {
    warm_up_checks();
    let ttl = Duration::from_millis(1000);
    let server = start(Config::builder().task_ttl(ttl).build()).await;
    let started = Instant::now();
    let created = start_task(server.addr, "two_questions", json!({})).await;
    let id = task_id(&created);
    wait_for_status(server.addr, id, "input_required").await;
    tokio::time::sleep((ttl + Duration::from_millis(300)).saturating_sub(started.elapsed())).await;
    for (method, fields) in [
        (
            "tasks/update",
            json!({"inputResponses": {"first": accept("name", "Ada")}}),
        ),
        ("tasks/cancel", json!({})),
    ] {
        let answer = task_request(server.addr, method, id, fields, with_tasks()).await;
        let error = answer.error(StatusCode::OK, -32602);
        assert_eq!(error["data"], json!({"taskId": id}), "{method}");
    }
}

#[tokio::test]
async fn tasks_get_with_another_mcp_name_is_header_mismatch() {
    let server = start(Config::default()).await;
    let created = start_task(server.addr, "endless_job", json!({})).await;
    let id = task_id(&created);
    let params = json!({"taskId": id});
    let other = exchange(
        server.addr,
        next_id(),
        "tasks/get",
        params.clone(),
        with_tasks(),
        &[("mcp-name", "another-task")],
    )
    .await;
    other.error(StatusCode::BAD_REQUEST, -32020);
    let missing = exchange(
        server.addr,
        next_id(),
        "tasks/get",
        params,
        with_tasks(),
        &[],
    )
    .await;
    missing.error(StatusCode::BAD_REQUEST, -32020);
}

/// Tasks are bounded (`config.tasks.max_tasks`): past the maximum a call that would become a task
/// answers directly, and an expired task frees its place (the expiry sweep).
#[tokio::test]
async fn tasks_are_bounded_and_expired_ones_free_their_place() {
    let config = Config::builder()
        .max_tasks(2)
        .task_ttl(Duration::from_millis(1500))
        .build();
    let server = start(config).await;
    start_task(server.addr, "background_job", json!({"millis": 0})).await;
    start_task(server.addr, "background_job", json!({"millis": 0})).await;
    assert_eq!(server.server.load().tasks_held, 2);
    // Past the maximum, `ctx.start_task()` cannot start one: the call answers directly.
    let direct = call_tool(
        server.addr,
        "background_job",
        json!({"millis": 0}),
        with_tasks(),
    )
    .await;
    assert_eq!(direct.status, StatusCode::OK, "{}", direct.text);
    assert_ne!(
        direct.body["result"]["resultType"],
        json!("task"),
        "a third task past max_tasks: {}",
        direct.text
    );
    assert_eq!(server.server.load().tasks_held, 2);
    // Once their TTL passes, the server's sweep forgets them without a new task coming.
    let deadline = Instant::now() + SETTLES;
    while server.server.load().tasks_held > 0 {
        assert!(Instant::now() < deadline, "expired tasks are still held");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    start_task(server.addr, "background_job", json!({"millis": 0})).await;
}
