//! `mcp_runtime::client` against the everything-server binary on 127.0.0.1, in both eras:
//! lists page by page, every kind of call, tool errors and JSON-RPC errors told apart, the
//! server's requests (elicitation, sampling, roots) answered by the handler, `Era::Auto`
//! falling back to a session when `server/discover` is refused; the same over stdio; progress
//! callbacks, `Client::listen` and tasks.
//!
//! The binary is `cargo build -p everything-server`'s (the `.ci/run` step builds it first).

use bytes::Bytes;
use http_body_util::{combinators::BoxBody, BodyExt, Full};
use mcp_runtime::client::{
    CallOptions, CallOutcome, Client, ClientBuilder, ClientError, ClientHandler, Era, Listen,
    Progress,
};
use mcp_runtime::{BoxFuture, RpcError};
use serde_json::{json, Value};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Entries per page the servers are started with: every list has more than one page.
const PAGE: usize = 4;

/// A running everything-server, killed when dropped.
struct Server {
    child: Child,
    url: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The everything-server binary.
fn binary() -> std::path::PathBuf {
    // tests/client-HASH sits in target/debug/deps; the binary in target/debug.
    let exe = std::env::current_exe().unwrap();
    let binary = exe
        .parent()
        .and_then(|deps| deps.parent())
        .unwrap()
        .join("everything-server");
    assert!(
        binary.exists(),
        "{} is missing: run `cargo build -p everything-server` first",
        binary.display()
    );
    binary
}

/// Starts the everything-server with `flags` on a free port and waits until it accepts.
fn start(flags: &[&str]) -> Server {
    let binary = binary();
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = Command::new(&binary)
        .args(["--addr", &format!("127.0.0.1:{port}")])
        .args(["--page-size", &PAGE.to_string()])
        .args(flags)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "the server did not listen");
        std::thread::sleep(Duration::from_millis(20));
    }
    Server {
        child,
        url: format!("http://127.0.0.1:{port}/mcp"),
    }
}

/// The tools of the everything server's contract (the number `tools/list` must reach).
fn contract_tools() -> usize {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/everything-server/openrpc.json"
    ))
    .unwrap();
    let document: Value = serde_json::from_str(&text).unwrap();
    document["methods"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|method| method["x-mcp"]["kind"] == "tool")
        .count()
}

fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_default()
}

/// Answers every server request as a user would, and records the notifications.
#[derive(Default)]
struct User {
    notifications: Mutex<Vec<String>>,
}

impl ClientHandler for User {
    fn capabilities(&self) -> Value {
        json!({"elicitation": {}, "sampling": {}, "roots": {}})
    }

    fn elicit<'a>(&'a self, _: &'a Value) -> BoxFuture<'a, Result<Value, RpcError>> {
        Box::pin(async {
            Ok(json!({"action": "accept",
                      "content": {"name": "Ada", "color": "blue", "response": "yes"}}))
        })
    }

    fn create_message<'a>(&'a self, _: &'a Value) -> BoxFuture<'a, Result<Value, RpcError>> {
        Box::pin(async {
            Ok(json!({"role": "assistant", "model": "test-model",
                      "content": {"type": "text", "text": "Paris"}}))
        })
    }

    fn list_roots(&self) -> BoxFuture<'_, Result<Value, RpcError>> {
        Box::pin(async { Ok(json!({"roots": [{"uri": "file:///work", "name": "work"}]})) })
    }

    fn notification(&self, method: &str, _: &Value) {
        self.notifications.lock().unwrap().push(method.to_owned());
    }
}

async fn connect(server: &Server, era: Era) -> Client {
    connect_as_user(Client::builder(&server.url), era).await
}

/// Connects `builder` in `era`, with the [`User`] handler.
async fn connect_as_user(builder: ClientBuilder, era: Era) -> Client {
    builder
        .era(era)
        .handler(User::default())
        .connect()
        .await
        .unwrap()
}

#[tokio::test]
async fn auto_picks_2026_and_lists_follow_the_cursor() {
    let server = start(&[]);
    let client = connect(&server, Era::Auto).await;
    assert_eq!(client.era(), Era::Stateless);
    assert_eq!(client.protocol_version(), "2026-07-28");
    assert!(client.session_id().is_none());
    assert_eq!(client.server_info()["name"], "mcp-conformance-test-server");

    let first = client.list_tools(None).await.unwrap();
    assert_eq!(first.items.len(), PAGE);
    let second = client
        .list_tools(first.next_cursor.as_deref())
        .await
        .unwrap();
    assert_ne!(first.items[0]["name"], second.items[0]["name"]);
    let tools = client.list_tools_all().await.unwrap();
    assert_eq!(tools.len(), contract_tools());
    assert!(client.list_prompts_all().await.unwrap().len() > PAGE);
    assert!(client.list_resources_all().await.unwrap().len() > PAGE);
    assert!(!client
        .list_resource_templates_all()
        .await
        .unwrap()
        .is_empty());
    assert!(matches!(
        client.ping().await,
        Err(ClientError::Unsupported(_))
    ));
}

/// The calls every era has, on `client`.
async fn calls(client: &Client) {
    let greeting = client
        .call_tool("greet", json!({"name": "Ada"}))
        .await
        .unwrap();
    assert!(text(&greeting).contains("Ada"), "{greeting}");

    let prompt = client
        .get_prompt(
            "test_prompt_with_arguments",
            json!({"arg1": "one", "arg2": "two"}),
        )
        .await
        .unwrap();
    let message = prompt["messages"][0]["content"]["text"].as_str().unwrap();
    assert!(
        message.contains("one") && message.contains("two"),
        "{prompt}"
    );

    let resource = client.read_resource("test://static-text").await.unwrap();
    assert_eq!(resource["contents"][0]["uri"], "test://static-text");

    let templated = client
        .read_resource("test://template/42/data")
        .await
        .unwrap();
    assert!(
        templated["contents"][0]["text"]
            .as_str()
            .unwrap()
            .contains("42"),
        "{templated}"
    );

    let completed = client
        .complete(
            json!({"type": "ref/prompt", "name": "test_prompt_with_arguments"}),
            "arg1",
            "o",
        )
        .await
        .unwrap();
    assert!(completed["completion"]["values"].is_array(), "{completed}");

    client.set_logging_level("debug").await.unwrap();
    let logged = client
        .call_tool("test_logging_tool", json!({}))
        .await
        .unwrap();
    assert!(!text(&logged).is_empty());

    // `isError` and a JSON-RPC error are different errors.
    match client.call_tool("test_error_handling", json!({})).await {
        Err(ClientError::Tool(result)) => {
            assert!(text(&result).contains("intentionally"), "{result}")
        }
        other => panic!("expected a tool error, got {other:?}"),
    }
    match client.call_tool("no_such_tool", json!({})).await {
        Err(ClientError::Rpc(error)) => assert_eq!(error.code, -32602, "{error:?}"),
        other => panic!("expected a JSON-RPC error, got {other:?}"),
    }
    match client.get_prompt("no_such_prompt", Value::Null).await {
        Err(error) => assert_eq!(error.rpc_code(), Some(-32602), "{error}"),
        other => panic!("expected a JSON-RPC error, got {other:?}"),
    }
}

#[tokio::test]
async fn stateless_calls_and_errors() {
    let server = start(&[]);
    let client = connect(&server, Era::Stateless).await;
    calls(&client).await;
    // An `x-mcp-header` argument goes into `Mcp-Param-Region` (the server checks it).
    let region = client
        .call_tool("test_custom_header", json!({"region": "eu-west 1 ü"}))
        .await
        .unwrap();
    assert_eq!(text(&region), "Region: eu-west 1 ü");
}

#[tokio::test]
async fn legacy_session_with_json_answers() {
    let server = start(&[]);
    let client = connect(&server, Era::Legacy).await;
    assert_eq!(client.era(), Era::Legacy);
    assert_eq!(client.protocol_version(), "2025-11-25");
    assert!(client.session_id().is_some());
    client.ping().await.unwrap();
    assert_eq!(
        client.list_tools_all().await.unwrap().len(),
        contract_tools()
    );
    calls(&client).await;
    client.close().await.unwrap();
}

#[tokio::test]
async fn legacy_session_with_sse_answers() {
    let server = start(&["--sse-responses"]);
    let client = connect(&server, Era::Legacy).await;
    client.ping().await.unwrap();
    assert_eq!(
        client.list_tools_all().await.unwrap().len(),
        contract_tools()
    );
    calls(&client).await;
    client.close().await.unwrap();
}

/// A server that lets a call's stream go after its priming event (2025-11-25 SSE polling):
/// the client resumes it with `Last-Event-ID` and gets the result from the GET.
#[tokio::test]
async fn a_stream_the_server_lets_go_is_resumed_with_last_event_id() {
    let server = start(&[]);
    let client = connect(&server, Era::Legacy).await;
    assert_eq!(client.protocol_version(), "2025-11-25");
    let result = client
        .call_tool("test_reconnection", json!({}))
        .await
        .unwrap();
    assert!(
        result["content"][0]["text"]
            .as_str()
            .is_some_and(|text| text.starts_with("Reconnection test completed")),
        "{result}"
    );
    // The session goes on as before.
    client.ping().await.unwrap();
    client.close().await.unwrap();
}

/// The same handler answers on a session's stream and in the 2026-07-28 retry loop.
#[tokio::test]
async fn server_requests_are_answered_in_both_eras() {
    let server = start(&[]);
    for era in [Era::Legacy, Era::Stateless] {
        let client = connect(&server, era).await;
        let elicited = client
            .call_tool("test_input_required_result_elicitation", json!({}))
            .await
            .unwrap();
        assert_eq!(text(&elicited), "Hello, Ada!", "{era:?}");
        let sampled = client
            .call_tool("test_input_required_result_sampling", json!({}))
            .await
            .unwrap();
        assert!(text(&sampled).contains("Paris"), "{era:?}: {sampled}");
        let roots = client
            .call_tool("test_input_required_result_list_roots", json!({}))
            .await
            .unwrap();
        assert_eq!(text(&roots), "Found 1 root(s)", "{era:?}");
        let rounds = client
            .call_tool("test_input_required_result_multi_round", json!({}))
            .await
            .unwrap();
        assert_eq!(
            text(&rounds),
            "Multi-round complete for Ada who likes blue",
            "{era:?}"
        );
        client.close().await.unwrap();
    }
    let client = connect(&server, Era::Legacy).await;
    let answered = client
        .call_tool("test_elicitation", json!({"message": "Proceed?"}))
        .await
        .unwrap();
    assert!(text(&answered).contains("accept"), "{answered}");
}

#[tokio::test]
async fn a_refusing_handler_is_a_json_rpc_error_not_a_hang() {
    struct Nobody;
    impl ClientHandler for Nobody {
        fn capabilities(&self) -> Value {
            json!({"elicitation": {}})
        }
    }
    let server = start(&[]);
    let client = Client::builder(&server.url)
        .era(Era::Stateless)
        .handler(Nobody)
        .timeout(Duration::from_secs(5))
        .connect()
        .await
        .unwrap();
    let refused = client
        .call_tool("test_input_required_result_elicitation", json!({}))
        .await;
    assert_eq!(refused.unwrap_err().rpc_code(), Some(-32601));
}

#[tokio::test]
async fn progress_notifications_reach_the_handler() {
    let server = start(&[]);
    let user = Arc::new(User::default());
    struct Shared(Arc<User>);
    impl ClientHandler for Shared {
        fn notification(&self, method: &str, params: &Value) {
            self.0.notification(method, params)
        }
    }
    let client = Client::builder(&server.url)
        .era(Era::Stateless)
        .handler(Shared(user.clone()))
        .connect()
        .await
        .unwrap();
    client
        .request(
            "tools/call",
            json!({"name": "test_tool_with_progress", "arguments": {},
                   "_meta": {"progressToken": "p1"}}),
        )
        .await
        .unwrap();
    let seen = user.notifications.lock().unwrap().clone();
    assert_eq!(
        seen.iter()
            .filter(|m| *m == "notifications/progress")
            .count(),
        3,
        "{seen:?}"
    );
}

#[tokio::test]
async fn a_call_past_the_timeout_is_a_timeout() {
    let server = start(&[]);
    let client = Client::builder(&server.url)
        .era(Era::Legacy)
        .timeout(Duration::from_millis(300))
        .connect()
        .await
        .unwrap();
    let slow = client
        .call_tool("slow_compute", json!({"seconds": 3}))
        .await;
    assert!(matches!(slow, Err(ClientError::Timeout(_))), "{slow:?}");
}

/// What a proxy saw: each request's headers and body.
type Seen = Arc<Mutex<Vec<(http::HeaderMap, String)>>>;

/// A proxy in front of `upstream` that refuses `server/discover` as a legacy-only server
/// does (`-32601`), forwards everything else, and keeps every request's headers and body.
async fn legacy_only_proxy(upstream: &str) -> (SocketAddr, Seen) {
    recording_proxy(upstream, true).await
}

/// A proxy to `upstream` that records every request; with `refuse_discover`, it answers
/// `server/discover` with -32601 itself, as a legacy-only server does.
async fn recording_proxy(upstream: &str, refuse_discover: bool) -> (SocketAddr, Seen) {
    use hyper::service::service_fn;
    use hyper_util::client::legacy::Client as Pool;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let pool: Pool<_, Full<Bytes>> =
        Pool::builder(hyper_util::rt::TokioExecutor::new()).build_http();
    let upstream: http::Uri = upstream.parse().unwrap();
    let recorded = seen.clone();
    tokio::spawn(async move {
        loop {
            let (stream, _) = listener.accept().await.unwrap();
            let (pool, upstream, recorded) = (pool.clone(), upstream.clone(), recorded.clone());
            let service = service_fn(move |request: http::Request<hyper::body::Incoming>| {
                let (pool, upstream, recorded) = (pool.clone(), upstream.clone(), recorded.clone());
                async move {
                    let (mut parts, body) = request.into_parts();
                    let body = body.collect().await.unwrap().to_bytes();
                    let text = String::from_utf8_lossy(&body).into_owned();
                    recorded
                        .lock()
                        .unwrap()
                        .push((parts.headers.clone(), text.clone()));
                    let reply: http::Response<BoxBody<Bytes, hyper::Error>> =
                        if refuse_discover && text.contains("\"server/discover\"") {
                            let refusal = json!({"jsonrpc": "2.0", "id": null, "error":
                                {"code": -32601, "message": "Method not found"}});
                            http::Response::builder()
                                .status(404)
                                .header("content-type", "application/json")
                                .body(
                                    Full::new(Bytes::from(refusal.to_string()))
                                        .map_err(|never| match never {})
                                        .boxed(),
                                )
                                .unwrap()
                        } else {
                            parts.uri = upstream;
                            parts.headers.remove("host");
                            let forwarded = http::Request::from_parts(parts, Full::new(body));
                            pool.request(forwarded).await.unwrap().map(BodyExt::boxed)
                        };
                    Ok::<_, std::convert::Infallible>(reply)
                }
            });
            tokio::spawn(
                hyper::server::conn::http1::Builder::new()
                    .serve_connection(hyper_util::rt::TokioIo::new(stream), service),
            );
        }
    });
    (addr, seen)
}

#[tokio::test]
async fn auto_falls_back_to_a_session_and_sends_custom_headers() {
    let server = start(&[]);
    let (proxy, seen) = legacy_only_proxy(&server.url).await;
    let client = Client::builder(format!("http://{proxy}/mcp"))
        .header("x-team", "blue")
        .handler(User::default())
        .connect()
        .await
        .unwrap();
    assert_eq!(client.era(), Era::Legacy);
    assert!(client.session_id().is_some());
    let greeting = client
        .call_tool("greet", json!({"name": "Bo"}))
        .await
        .unwrap();
    assert!(text(&greeting).contains("Bo"));
    client.close().await.unwrap();
    let seen = seen.lock().unwrap();
    // discover, initialize, initialized, the call, DELETE: each with the custom header.
    assert!(seen.len() >= 5, "{}", seen.len());
    assert!(seen.iter().all(|(headers, _)| headers["x-team"] == "blue"));
}

/// A session's call given up (here by a timeout around it) is cancelled on the server:
/// `notifications/cancelled` names its request, in the session, and the session goes on.
#[tokio::test]
async fn a_dropped_session_call_is_cancelled_on_the_server() {
    let server = start(&[]);
    let (proxy, seen) = legacy_only_proxy(&server.url).await;
    let client = Client::builder(format!("http://{proxy}/mcp"))
        .era(Era::Legacy)
        .handler(User::default())
        .connect()
        .await
        .unwrap();
    let call = client.call_tool("slow_compute", json!({"seconds": 5}));
    assert!(tokio::time::timeout(Duration::from_millis(300), call)
        .await
        .is_err());
    let sent = |seen: &Seen| -> Vec<(http::HeaderMap, Value)> {
        seen.lock()
            .unwrap()
            .iter()
            .filter_map(|(headers, body)| Some((headers.clone(), serde_json::from_str(body).ok()?)))
            .collect()
    };
    let deadline = Instant::now() + Duration::from_secs(5);
    let cancelled = loop {
        let found = sent(&seen)
            .into_iter()
            .find(|(_, message)| message["method"] == "notifications/cancelled");
        if let Some(found) = found {
            break found;
        }
        assert!(
            Instant::now() < deadline,
            "no notifications/cancelled was sent"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let call_id = sent(&seen)
        .into_iter()
        .find(|(_, message)| message["params"]["name"] == "slow_compute")
        .map(|(_, message)| message["id"].clone())
        .unwrap();
    assert_eq!(cancelled.1["params"]["requestId"], call_id);
    assert_eq!(
        cancelled.0["mcp-session-id"].to_str().unwrap(),
        client.session_id().unwrap()
    );
    client.ping().await.unwrap();
    client.close().await.unwrap();
}

/// A client of the everything-server started as a child process (stdio), in `era`.
async fn connect_stdio(era: Era) -> Client {
    let mut command = std::process::Command::new(binary());
    command.args(["--stdio", "--page-size", &PAGE.to_string()]);
    connect_as_user(Client::stdio(command), era).await
}

#[tokio::test]
async fn stdio_in_both_eras() {
    for (asked, chosen) in [(Era::Auto, Era::Stateless), (Era::Legacy, Era::Legacy)] {
        let client = connect_stdio(asked).await;
        assert_eq!(client.era(), chosen);
        assert_eq!(client.server_info()["name"], "mcp-conformance-test-server");
        assert_eq!(
            client.list_tools_all().await.unwrap().len(),
            contract_tools()
        );
        calls(&client).await;
        // The server's requests are answered over stdio too: on the line in a session, in
        // input rounds in 2026-07-28.
        let rounds = client
            .call_tool("test_input_required_result_multi_round", json!({}))
            .await
            .unwrap();
        assert_eq!(text(&rounds), "Multi-round complete for Ada who likes blue");
        if chosen == Era::Legacy {
            client.ping().await.unwrap();
        }
        client.close().await.unwrap();
    }
}

#[tokio::test]
async fn a_stdio_server_that_exits_is_a_transport_error_not_a_hang() {
    let mut command = std::process::Command::new("sh");
    command.args(["-c", "read line; exit 0"]);
    let refused = Client::stdio(command)
        .timeout(Duration::from_secs(10))
        .connect()
        .await;
    match refused {
        Err(ClientError::Transport(message)) => assert!(message.contains("stdout"), "{message}"),
        other => panic!("expected a transport error, got {:?}", other.err()),
    }
    let missing = Client::stdio(std::process::Command::new("/nonexistent/server"))
        .connect()
        .await;
    assert!(
        matches!(&missing, Err(ClientError::Config(m)) if m.contains("/nonexistent/server")),
        "{:?}",
        missing.err()
    );
}

/// A call's progress reaches its own callback, in order, over HTTP in both eras and stdio;
/// the handler does not see it.
#[tokio::test]
async fn progress_reaches_the_calls_callback() {
    let server = start(&[]);
    for (name, client) in [
        ("stateless", connect(&server, Era::Stateless).await),
        ("legacy", connect(&server, Era::Legacy).await),
        ("stdio", connect_stdio(Era::Auto).await),
    ] {
        let seen = Arc::new(Mutex::new(Vec::<Progress>::new()));
        let sink = seen.clone();
        let options = CallOptions::new().on_progress(move |p| sink.lock().unwrap().push(p));
        client
            .call_tool_with("test_tool_with_progress", json!({}), &options)
            .await
            .unwrap();
        let seen = seen.lock().unwrap().clone();
        let values: Vec<f64> = seen.iter().map(|p| p.progress).collect();
        assert_eq!(values, [0.0, 50.0, 100.0], "{name}: {seen:?}");
        assert_eq!(seen[2].total, Some(100.0), "{name}");
        client.close().await.unwrap();
    }
}

/// `Client::listen`: a list change announced during a call reaches the subscription, in
/// 2026-07-28 (`subscriptions/listen`, HTTP and stdio) and in a session.
#[tokio::test]
async fn listen_streams_list_changes_in_every_era_and_transport() {
    let server = start(&[]);
    for (name, client) in [
        ("stateless", connect(&server, Era::Stateless).await),
        ("legacy", connect(&server, Era::Legacy).await),
        ("stdio", connect_stdio(Era::Auto).await),
        ("stdio legacy", connect_stdio(Era::Legacy).await),
    ] {
        let mut subscription = client
            .listen(Listen::new().tools_list_changed())
            .await
            .unwrap();
        assert_eq!(
            subscription.acknowledged()["toolsListChanged"],
            true,
            "{name}: {}",
            subscription.acknowledged()
        );
        client
            .call_tool("test_trigger_tool_change", json!({}))
            .await
            .unwrap();
        let got = tokio::time::timeout(Duration::from_secs(10), subscription.next())
            .await
            .unwrap_or_else(|_| panic!("{name}: no notification"))
            .unwrap()
            .unwrap();
        assert_eq!(got.method, "notifications/tools/list_changed", "{name}");
        drop(subscription);
        client.close().await.unwrap();
    }
}

/// Tasks (2026-07-28 extension): a call that becomes a task, polled to its end; a tool error,
/// a JSON-RPC error and an input request on the way; a cancelled task; task notifications on
/// a listen stream.
#[tokio::test]
async fn tasks_are_created_polled_answered_and_cancelled() {
    let server = start(&[]);
    let client = connect(&server, Era::Stateless).await;
    let task_id = |outcome: CallOutcome| match outcome {
        CallOutcome::Task(task) => task["taskId"].as_str().unwrap().to_owned(),
        CallOutcome::Complete(result) => panic!("expected a task, got {result}"),
    };

    // Without the extension declared, the same tool answers at once.
    let plain = client
        .call_tool("slow_compute", json!({"seconds": 0}))
        .await
        .unwrap();
    assert_eq!(text(&plain), "Computed job in 0s");

    let id = task_id(
        client
            .call_tool_as_task("slow_compute", json!({"seconds": 1, "label": "sum"}))
            .await
            .unwrap(),
    );
    // The everything-server does not send `notifications/tasks`: its acknowledgement says so
    // (the filter's subset it honours), and the listen stream stays open all the same.
    let updates = client
        .listen(Listen::new().task(&id).tools_list_changed())
        .await
        .unwrap();
    assert_eq!(
        updates.acknowledged(),
        &json!({"toolsListChanged": true}),
        "{}",
        updates.acknowledged()
    );
    let done = client.wait_task(&id).await.unwrap();
    assert_eq!(text(&done), "Computed sum in 1s");
    drop(updates);

    let failing = task_id(
        client
            .call_tool_as_task("failing_job", json!({}))
            .await
            .unwrap(),
    );
    assert!(matches!(
        client.wait_task(&failing).await,
        Err(ClientError::Tool(_))
    ));
    let broken = task_id(
        client
            .call_tool_as_task("protocol_error_job", json!({}))
            .await
            .unwrap(),
    );
    assert_eq!(
        client.wait_task(&broken).await.unwrap_err().rpc_code(),
        Some(-32603)
    );

    // The task's elicitations are answered by the handler through tasks/update.
    let asking = task_id(
        client
            .call_tool_as_task("multi_input", json!({}))
            .await
            .unwrap(),
    );
    assert_eq!(
        text(&client.wait_task(&asking).await.unwrap()),
        "Received: Ada and Ada"
    );

    let long = task_id(
        client
            .call_tool_as_task("slow_compute", json!({"seconds": 30}))
            .await
            .unwrap(),
    );
    client.cancel_task(&long).await.unwrap();
    let cancelled = tokio::time::timeout(Duration::from_secs(10), client.wait_task(&long))
        .await
        .unwrap();
    assert!(
        matches!(&cancelled, Err(ClientError::Cancelled(task)) if *task == long),
        "{cancelled:?}"
    );
    assert_eq!(
        client
            .get_task("no-such-task")
            .await
            .unwrap_err()
            .rpc_code(),
        Some(-32602)
    );

    let legacy = connect(&server, Era::Legacy).await;
    assert!(matches!(
        legacy.get_task(&id).await,
        Err(ClientError::Unsupported(_))
    ));
}

/// 2026-07-28 cache hints honoured: a list read twice is asked once while its `ttlMs` lasts; a
/// list change seen on a listen stream drops it; `cache(false)` asks every time.
#[tokio::test]
async fn lists_are_reused_for_their_ttl_until_a_change_is_announced() {
    let server = start(&["--list-cache", "5m,public"]);
    let (proxy, seen) = recording_proxy(&server.url, false).await;
    let url = format!("http://{proxy}/mcp");
    let lists = |seen: &Seen| {
        seen.lock()
            .unwrap()
            .iter()
            .filter(|(_, body)| body.contains("\"tools/list\""))
            .count()
    };
    let pages = contract_tools().div_ceil(PAGE);

    let client = Client::builder(&url).connect().await.unwrap();
    assert_eq!(client.era(), Era::Stateless);
    let first = client.list_tools_all().await.unwrap();
    assert_eq!(lists(&seen), pages);
    assert_eq!(client.list_tools_all().await.unwrap(), first);
    assert_eq!(lists(&seen), pages, "the second listing was asked again");

    let mut changes = client
        .listen(Listen::new().tools_list_changed())
        .await
        .unwrap();
    client
        .call_tool("test_trigger_tool_change", json!({}))
        .await
        .unwrap();
    tokio::time::timeout(Duration::from_secs(10), changes.next())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    client.list_tools_all().await.unwrap();
    assert_eq!(
        lists(&seen),
        2 * pages,
        "a changed list was served from the cache"
    );

    let uncached = Client::builder(&url).cache(false).connect().await.unwrap();
    uncached.list_tools_all().await.unwrap();
    uncached.list_tools_all().await.unwrap();
    assert_eq!(lists(&seen), 4 * pages);
}
