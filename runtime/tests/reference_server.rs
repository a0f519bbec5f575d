//! `mcp_runtime::client` against another implementation's server: the TypeScript reference
//! everything server (`@modelcontextprotocol/server-everything`, a legacy-era server), over
//! Streamable HTTP and over stdio.
//!
//! `tests/reference-server/run.sh` installs the pinned package and runs this with
//! `MCP_REFERENCE_SERVER` (its `dist/index.js`) and `MCP_REFERENCE_NODE` (Node >= 22) set, as
//! `.ci/run` does; the test is `#[ignore]`d otherwise, and fails if run without them.

use mcp_runtime::client::{CallOptions, Client, ClientError, ClientHandler, Era, Listen};
use mcp_runtime::{BoxFuture, RpcError};
use serde_json::{json, Value};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The reference server, killed when dropped.
struct Reference {
    child: Child,
    url: String,
}

impl Drop for Reference {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Node and the server's `dist/index.js`.
fn node_and_server() -> (String, String) {
    let (Ok(node), Ok(server)) = (
        std::env::var("MCP_REFERENCE_NODE"),
        std::env::var("MCP_REFERENCE_SERVER"),
    ) else {
        panic!(
            "set MCP_REFERENCE_NODE and MCP_REFERENCE_SERVER (tests/reference-server/run.sh does)"
        );
    };
    (node, server)
}

fn start() -> Reference {
    let (node, server) = node_and_server();
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = Command::new(node)
        .args([server.as_str(), "streamableHttp"])
        .env("PORT", port.to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            Instant::now() < deadline,
            "the reference server did not listen"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    Reference {
        child,
        url: format!("http://127.0.0.1:{port}/mcp"),
    }
}

/// A user and a model: what the server asked, and fixed answers.
#[derive(Default)]
struct User {
    asked: Arc<Mutex<Vec<String>>>,
}

impl ClientHandler for User {
    fn capabilities(&self) -> Value {
        json!({"elicitation": {"form": {}}, "sampling": {}, "roots": {"listChanged": true}})
    }

    fn elicit<'a>(&'a self, params: &'a Value) -> BoxFuture<'a, Result<Value, RpcError>> {
        self.asked.lock().unwrap().push("elicitation/create".into());
        let mut content = serde_json::Map::new();
        for (name, property) in params["requestedSchema"]["properties"]
            .as_object()
            .into_iter()
            .flatten()
        {
            let value = match property["type"].as_str() {
                Some("boolean") => json!(true),
                Some("integer") | Some("number") => json!(3),
                _ => match property["enum"].as_array().and_then(|v| v.first()) {
                    Some(first) => first.clone(),
                    None => json!("Ada"),
                },
            };
            content.insert(
                name.clone(),
                property.get("default").cloned().unwrap_or(value),
            );
        }
        Box::pin(async move { Ok(json!({"action": "accept", "content": content})) })
    }

    fn create_message<'a>(&'a self, _: &'a Value) -> BoxFuture<'a, Result<Value, RpcError>> {
        self.asked
            .lock()
            .unwrap()
            .push("sampling/createMessage".into());
        Box::pin(async {
            Ok(
                json!({"role": "assistant", "model": "test-model", "stopReason": "endTurn",
                      "content": {"type": "text", "text": "Paris"}}),
            )
        })
    }

    fn list_roots(&self) -> BoxFuture<'_, Result<Value, RpcError>> {
        self.asked.lock().unwrap().push("roots/list".into());
        Box::pin(async { Ok(json!({"roots": [{"uri": "file:///work", "name": "work"}]})) })
    }
}

fn text(result: &Value) -> String {
    result["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|block| block["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

#[tokio::test]
#[ignore = "needs the reference server: tests/reference-server/run.sh"]
async fn our_client_drives_the_typescript_reference_server() {
    let server = start();
    let user = User::default();
    let asked = user.asked.clone();
    // Auto: the server/discover probe is refused, so the client falls back to a session.
    let client = Client::builder(&server.url)
        .handler(user)
        .connect()
        .await
        .unwrap();
    assert_eq!(client.era(), Era::Legacy);
    assert_eq!(client.protocol_version(), "2025-11-25");
    assert!(client.session_id().is_some());
    client.ping().await.unwrap();
    client.set_logging_level("debug").await.unwrap();

    let tools = client.list_tools_all().await.unwrap();
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    for wanted in [
        "echo",
        "get-sum",
        "get-tiny-image",
        "trigger-sampling-request",
        "trigger-elicitation-request",
    ] {
        assert!(names.contains(&wanted), "no {wanted} in {names:?}");
    }
    let echoed = client
        .call_tool("echo", json!({"message": "hi"}))
        .await
        .unwrap();
    assert_eq!(text(&echoed), "Echo: hi");
    let sum = client
        .call_tool("get-sum", json!({"a": 2, "b": 3}))
        .await
        .unwrap();
    assert!(text(&sum).contains('5'), "{sum}");
    let image = client.call_tool("get-tiny-image", json!({})).await.unwrap();
    assert!(
        image["content"]
            .as_array()
            .unwrap()
            .iter()
            .any(|b| b["type"] == "image"),
        "{image}"
    );
    // The server's requests during a call, answered by the handler.
    sampling_is_answered(&client).await;
    let elicited = client
        .call_tool("trigger-elicitation-request", json!({}))
        .await
        .unwrap();
    assert!(
        text(&elicited).contains("User provided the requested information"),
        "{elicited}"
    );
    let asked = asked.lock().unwrap().clone();
    assert!(
        asked.contains(&"sampling/createMessage".to_string()),
        "{asked:?}"
    );
    assert!(
        asked.contains(&"elicitation/create".to_string()),
        "{asked:?}"
    );
    // A JSON-RPC error, not a hang or a panic.
    match client.call_tool("no-such-tool", json!({})).await {
        Err(ClientError::Rpc(_) | ClientError::Tool(_)) => {}
        other => panic!("expected an error for an unknown tool, got {other:?}"),
    }

    let prompts = client.list_prompts_all().await.unwrap();
    let simple = prompts
        .iter()
        .find(|p| p["name"] == "simple-prompt")
        .unwrap_or_else(|| panic!("no simple-prompt in {prompts:?}"));
    let prompt = client
        .get_prompt(simple["name"].as_str().unwrap(), Value::Null)
        .await
        .unwrap();
    assert!(
        !prompt["messages"].as_array().unwrap().is_empty(),
        "{prompt}"
    );

    let resources = client.list_resources_all().await.unwrap();
    let first = resources.first().expect("some resources");
    let read = client
        .read_resource(first["uri"].as_str().unwrap())
        .await
        .unwrap();
    assert!(!read["contents"].as_array().unwrap().is_empty(), "{read}");
    assert!(!client
        .list_resource_templates_all()
        .await
        .unwrap()
        .is_empty());
    client.close().await.unwrap();
}

/// A tool that asks the client's model, answered by the handler.
async fn sampling_is_answered(client: &Client) {
    let sampled = client
        .call_tool(
            "trigger-sampling-request",
            json!({"prompt": "Capital of France?"}),
        )
        .await
        .unwrap();
    assert!(text(&sampled).contains("Paris"), "{sampled}");
}

/// A call's progress to its callback, and `Client::listen` in a session: the resource updates
/// the server simulates once `toggle-subscriber-updates` is called (at once, then every 5 s).
async fn progress_and_resource_updates(client: &Client) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    let options = CallOptions::new().on_progress(move |p| sink.lock().unwrap().push(p.progress));
    let done = client
        .call_tool_with(
            "trigger-long-running-operation",
            json!({"duration": 0.3, "steps": 3}),
            &options,
        )
        .await
        .unwrap();
    assert!(text(&done).contains("Steps: 3"), "{done}");
    assert_eq!(*seen.lock().unwrap(), [1.0, 2.0, 3.0]);

    let resources = client.list_resources_all().await.unwrap();
    let uri = resources[0]["uri"].as_str().unwrap();
    let mut updates = client.listen(Listen::new().resource(uri)).await.unwrap();
    assert_eq!(updates.acknowledged()["resourceSubscriptions"][0], uri);
    client
        .call_tool("toggle-subscriber-updates", json!({}))
        .await
        .unwrap();
    let update = tokio::time::timeout(Duration::from_secs(10), updates.next())
        .await
        .expect("a resource update within 10 s")
        .unwrap()
        .unwrap();
    assert_eq!(update.method, "notifications/resources/updated");
    assert_eq!(update.params["uri"], uri);
    client
        .call_tool("toggle-subscriber-updates", json!({}))
        .await
        .unwrap();
}

#[tokio::test]
#[ignore = "needs the reference server: tests/reference-server/run.sh"]
async fn progress_and_listen_over_http() {
    let server = start();
    let client = Client::builder(&server.url).connect().await.unwrap();
    progress_and_resource_updates(&client).await;
    client.close().await.unwrap();
}

#[tokio::test]
#[ignore = "needs the reference server: tests/reference-server/run.sh"]
async fn our_client_drives_the_reference_server_over_stdio() {
    let (node, server) = node_and_server();
    let mut command = Command::new(node);
    command.args([server.as_str(), "stdio"]);
    let user = User::default();
    let asked = user.asked.clone();
    let client = Client::stdio(command)
        .handler(user)
        .connect()
        .await
        .unwrap();
    // Auto's server/discover is refused on stdio too: a legacy session, without an id.
    assert_eq!(client.era(), Era::Legacy);
    assert!(client.session_id().is_none());
    client.ping().await.unwrap();
    let echoed = client
        .call_tool("echo", json!({"message": "over stdio"}))
        .await
        .unwrap();
    assert_eq!(text(&echoed), "Echo: over stdio");
    sampling_is_answered(&client).await;
    assert!(asked
        .lock()
        .unwrap()
        .contains(&"sampling/createMessage".to_string()));
    progress_and_resource_updates(&client).await;
    client.close().await.unwrap();
}
