//! `subscriptions/listen` (2026-07-28), over real HTTP.
//!
//! - The stream opens with `notifications/subscriptions/acknowledged`: its
//!   `io.modelcontextprotocol/subscriptionId` is the listen request's id (number or string, as
//!   sent) and its `notifications` the honoured part of the filter, nothing the client did not
//!   ask for and nothing the server cannot send.
//! - Change notifications, from a tool (`ctx.notifier()`) or from the application
//!   (`McpServer::notifier()`), reach every stream that asked for their kind, tagged with that
//!   stream's subscription id, and no other stream; `notifications/resources/updated` reaches
//!   only the streams subscribed to that URI.
//! - The same notifier reaches session-era clients on their GET stream.
//! - A quiet stream sends `: keep-alive` comments every `config.streams.sse_keep_alive`; closing
//!   the connection unregisters the stream; a listen request without `notifications` is HTTP 400
//!   `-32602`.
//!
//! Every message on a listen stream is checked against the official 2026-07-28 schema, and must
//! be a message the schema defines.

mod support;

use http::StatusCode;
use serde_json::{json, Value};
use std::net::SocketAddr;
use std::time::{Duration, Instant};
use tokio::net::TcpListener;

use mcp_runtime::catalog::{Catalog, Descriptor, ServerInfo};
use mcp_runtime::{Config, Contract, Dispatch, McpServer};
use support::schema::{
    assert_defined_server_message, assert_server_message, assert_stateless_response,
};
use support::sse::{Event, SseStream};
use support::stateless::{exchange, meta, V};
use support::{start, Client, POST_HEADERS};

/// How long a notification may take to arrive: generous, the machine may be busy.
const ARRIVES: Duration = Duration::from_secs(5);

/// The headers of a stateless `subscriptions/listen` POST.
fn listen_headers() -> Vec<(&'static str, &'static str)> {
    let mut headers = POST_HEADERS.to_vec();
    headers.push(("mcp-protocol-version", V));
    headers.push(("mcp-method", "subscriptions/listen"));
    headers
}

/// A `subscriptions/listen` request with this id and `params` (to which `_meta` is added).
fn listen_body(id: &Value, mut params: Value) -> String {
    params["_meta"] = meta(json!({}));
    json!({"jsonrpc": "2.0", "id": id, "method": "subscriptions/listen", "params": params})
        .to_string()
}

/// An open listen stream whose acknowledgement was read.
struct Listen {
    stream: SseStream,
    /// The listen request's id: the subscription id every notification must carry.
    id: Value,
    /// `notifications` of the acknowledgement: the honoured filter.
    honoured: Value,
}

impl Listen {
    /// Opens a listen stream with `notifications` as the filter; asserts a 200 SSE response
    /// whose first message is the acknowledgement tagged with `id`.
    async fn open(addr: SocketAddr, id: Value, notifications: Value) -> Listen {
        let body = listen_body(&id, json!({ "notifications": notifications }));
        let mut stream = SseStream::open(addr, "POST", &listen_headers(), &body).await;
        assert_eq!(stream.status, StatusCode::OK);
        assert_eq!(stream.header("content-type"), Some("text/event-stream"));
        let first = stream.next(ARRIVES).await.expect("an acknowledgement");
        let Event::Message { data: ack, .. } = first else {
            panic!("the acknowledgement comes first, before any comment: {first:?}");
        };
        assert_defined_server_message(V, &ack);
        assert_eq!(
            ack["method"],
            json!("notifications/subscriptions/acknowledged"),
            "{ack}"
        );
        assert_eq!(
            ack["params"]["_meta"],
            json!({"io.modelcontextprotocol/subscriptionId": id}),
            "{ack}"
        );
        let honoured = ack["params"]["notifications"].clone();
        Listen {
            stream,
            id,
            honoured,
        }
    }

    /// The next notification: schema-checked and tagged with this stream's subscription id.
    async fn next(&mut self) -> Value {
        let message = self.stream.next_message(ARRIVES).await;
        assert_defined_server_message(V, &message);
        assert_eq!(
            message["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], self.id,
            "tagged with the subscription id: {message}"
        );
        assert!(message.get("id").is_none(), "a notification: {message}");
        message
    }

    /// The method of the next notification.
    async fn next_method(&mut self) -> String {
        self.next().await["method"].as_str().unwrap().to_string()
    }
}

/// A session-era (2025-11-25) client and its open GET stream, past its opening `: ping`.
async fn session_with_get_stream(addr: SocketAddr) -> (Client, SseStream) {
    let client = Client::connect(addr, "2025-11-25").await;
    let mut headers = client.headers();
    headers.push(("accept", "text/event-stream"));
    let mut stream = SseStream::open(addr, "GET", &headers, "").await;
    assert_eq!(stream.status, StatusCode::OK);
    assert_eq!(
        stream.next(ARRIVES).await,
        Some(Event::Comment("ping".into()))
    );
    (client, stream)
}

/// Waits up to `within` for `count()` to become `expected`.
async fn eventually(within: Duration, expected: usize, count: impl Fn() -> usize) {
    let started = Instant::now();
    while count() != expected {
        assert!(
            started.elapsed() < within,
            "still {} instead of {expected} after {within:?}",
            count()
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

// ---- The acknowledgement --------------------------------------------------------------------

#[tokio::test]
async fn the_acknowledgement_comes_first_with_the_subscription_id_and_the_filter() {
    let server = start(Config::default()).await;
    let filter = json!({
        "toolsListChanged": true,
        "promptsListChanged": true,
        "resourcesListChanged": true,
        "resourceSubscriptions": ["test://hello", "test://items/7"],
    });
    let listen = Listen::open(server.addr, json!("watch-1"), filter.clone()).await;
    // This server has tools, prompts and resources: everything asked for is honoured.
    assert_eq!(listen.honoured, filter);
    assert_eq!(server.server.notifier().listen_streams(), 1);
}

#[tokio::test]
async fn a_numeric_listen_id_is_the_subscription_id_as_a_number() {
    let server = start(Config::default()).await;
    let mut listen = Listen::open(server.addr, json!(42), json!({"toolsListChanged": true})).await;
    assert_eq!(listen.honoured, json!({"toolsListChanged": true}));
    server.server.notifier().tools_changed();
    let message = listen.next().await;
    assert_eq!(
        message["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        json!(42),
        "the number 42, not the string \"42\""
    );
}

#[tokio::test]
async fn the_acknowledgement_names_only_what_was_asked_for() {
    let server = start(Config::default()).await;
    let listen = Listen::open(
        server.addr,
        json!(1),
        json!({
            "toolsListChanged": true,
            "promptsListChanged": false,
            "resourceSubscriptions": [],
            "somethingElse": true,
        }),
    )
    .await;
    assert_eq!(listen.honoured, json!({"toolsListChanged": true}));
}

/// A server with one tool and no prompts or resources, for what a server cannot send.
struct ToolsOnly;

static TOOLS_ONLY: Catalog = Catalog {
    server: ServerInfo {
        name: "tools-only",
        version: "1.0.0",
        title: None,
        website_url: None,
    },
    instructions: None,
    tools: &[Descriptor {
        key: "noop",
        json: [r#"{"name":"noop","inputSchema":{"type":"object"}}"#; 4],
    }],
    prompts: &[],
    resources: &[],
    resource_templates: &[],
    completions: &[],
};

impl Dispatch for ToolsOnly {
    fn contract(&self) -> &'static Contract {
        static CONTRACT: Contract = Contract::new(&TOOLS_ONLY);
        &CONTRACT
    }
}

#[tokio::test]
async fn the_acknowledgement_leaves_out_what_the_server_cannot_send() {
    let server = McpServer::new(ToolsOnly);
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let serving = server.clone();
    let served = tokio::spawn(serving.serve_listener(listener, std::future::pending()));
    let listen = Listen::open(
        addr,
        json!(1),
        json!({
            "toolsListChanged": true,
            "promptsListChanged": true,
            "resourcesListChanged": true,
            "resourceSubscriptions": ["test://hello"],
        }),
    )
    .await;
    assert_eq!(listen.honoured, json!({"toolsListChanged": true}));
    served.abort();
}

// ---- Delivery -------------------------------------------------------------------------------

#[tokio::test]
async fn a_tool_announcing_a_change_reaches_the_stream_tagged_with_its_id() {
    let server = start(Config::default()).await;
    let mut listen = Listen::open(
        server.addr,
        json!("tools-watch"),
        json!({"toolsListChanged": true}),
    )
    .await;
    let params = json!({"name": "touch_tools", "arguments": {}});
    let called = exchange(server.addr, 2, "tools/call", params, json!({}), &[]).await;
    assert_eq!(called.tool_text(), "announced");
    let message = listen.next().await;
    assert_eq!(
        message,
        json!({
            "jsonrpc": "2.0",
            "method": "notifications/tools/list_changed",
            "params": {"_meta": {"io.modelcontextprotocol/subscriptionId": "tools-watch"}},
        })
    );
}

#[tokio::test]
async fn the_application_notifier_reaches_the_stream_for_every_list() {
    let server = start(Config::default()).await;
    let mut listen = Listen::open(
        server.addr,
        json!(7),
        json!({"toolsListChanged": true, "promptsListChanged": true, "resourcesListChanged": true}),
    )
    .await;
    let notifier = server.server.notifier();
    notifier.resources_changed();
    notifier.tools_changed();
    notifier.prompts_changed();
    assert_eq!(
        [
            listen.next_method().await,
            listen.next_method().await,
            listen.next_method().await,
        ],
        [
            "notifications/resources/list_changed",
            "notifications/tools/list_changed",
            "notifications/prompts/list_changed",
        ]
    );
}

#[tokio::test]
async fn a_prompts_only_stream_does_not_receive_tool_changes() {
    let server = start(Config::default()).await;
    let mut tools = Listen::open(server.addr, json!(1), json!({"toolsListChanged": true})).await;
    let mut prompts =
        Listen::open(server.addr, json!(2), json!({"promptsListChanged": true})).await;
    let notifier = server.server.notifier();
    notifier.tools_changed();
    notifier.prompts_changed();
    notifier.tools_changed();
    // Each stream is in order: had the other kind reached it, it would come out here.
    assert_eq!(
        prompts.next_method().await,
        "notifications/prompts/list_changed"
    );
    assert_eq!(
        tools.next_method().await,
        "notifications/tools/list_changed"
    );
    assert_eq!(
        tools.next_method().await,
        "notifications/tools/list_changed"
    );
    // And nothing else is waiting on the prompts stream.
    notifier.prompts_changed();
    assert_eq!(
        prompts.next_method().await,
        "notifications/prompts/list_changed"
    );
}

#[tokio::test]
async fn a_resource_update_reaches_only_the_streams_subscribed_to_its_uri() {
    let server = start(Config::default()).await;
    let filter = |uris: Value| json!({"toolsListChanged": true, "resourceSubscriptions": uris});
    let mut hello = Listen::open(server.addr, json!("a"), filter(json!(["test://hello"]))).await;
    let mut item = Listen::open(server.addr, json!("b"), filter(json!(["test://items/1"]))).await;
    let mut neither = Listen::open(server.addr, json!("c"), filter(json!([]))).await;
    let notifier = server.server.notifier();
    notifier.resource_updated("test://hello");
    notifier.resource_updated("test://items/1");
    notifier.resource_updated("test://items/2");
    // A change every stream asked for marks the end of what each one received.
    notifier.tools_changed();
    let updated = |id: &str, uri: &str| {
        json!({
            "jsonrpc": "2.0",
            "method": "notifications/resources/updated",
            "params": {"_meta": {"io.modelcontextprotocol/subscriptionId": id}, "uri": uri},
        })
    };
    assert_eq!(hello.next().await, updated("a", "test://hello"));
    assert_eq!(
        hello.next_method().await,
        "notifications/tools/list_changed"
    );
    assert_eq!(item.next().await, updated("b", "test://items/1"));
    assert_eq!(item.next_method().await, "notifications/tools/list_changed");
    assert_eq!(
        neither.next_method().await,
        "notifications/tools/list_changed"
    );
}

#[tokio::test]
async fn session_clients_receive_the_same_notifier_broadcast() {
    let server = start(Config::default()).await;
    let (_client, mut get) = session_with_get_stream(server.addr).await;
    let mut listen = Listen::open(server.addr, json!(3), json!({"toolsListChanged": true})).await;
    server.server.notifier().tools_changed();
    let on_session = get.next_message(ARRIVES).await;
    assert_server_message("2025-11-25", &on_session);
    // Not tagged: the session's stream is no subscription.
    assert_eq!(
        on_session,
        json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
    );
    assert_eq!(
        listen.next_method().await,
        "notifications/tools/list_changed"
    );
}

#[tokio::test]
async fn a_subscribed_session_receives_resource_updates() {
    let server = start(Config::default()).await;
    let (mut client, mut get) = session_with_get_stream(server.addr).await;
    let subscribed = client
        .call("resources/subscribe", json!({"uri": "test://hello"}))
        .await;
    assert_eq!(subscribed["result"], json!({}), "{subscribed}");
    let notifier = server.server.notifier();
    notifier.resource_updated("test://items/1");
    notifier.resource_updated("test://hello");
    let message = get.next_message(ARRIVES).await;
    assert_server_message("2025-11-25", &message);
    assert_eq!(
        message,
        json!({"jsonrpc": "2.0", "method": "notifications/resources/updated",
            "params": {"uri": "test://hello"}})
    );
}

// ---- Keep-alive, closing, errors ------------------------------------------------------------

#[tokio::test]
async fn a_quiet_stream_sends_keep_alive_comments() {
    let server = start(
        Config::builder()
            .sse_keep_alive(Duration::from_millis(100))
            .build(),
    )
    .await;
    let mut listen = Listen::open(server.addr, json!(1), json!({"toolsListChanged": true})).await;
    for _ in 0..2 {
        assert_eq!(
            listen.stream.next(ARRIVES).await,
            Some(Event::Comment("keep-alive".into()))
        );
    }
    // One per quiet period, not more: about 5 in half a second (stalls only make fewer).
    let events = listen
        .stream
        .events_during(Duration::from_millis(500))
        .await;
    assert!(
        events.len() <= 7
            && events
                .iter()
                .all(|e| *e == Event::Comment("keep-alive".into())),
        "{events:?}"
    );
    // The stream still carries notifications afterwards.
    server.server.notifier().tools_changed();
    assert_eq!(
        listen.next_method().await,
        "notifications/tools/list_changed"
    );
}

#[tokio::test]
async fn closing_the_connection_unregisters_the_stream() {
    let server = start(Config::default()).await;
    let notifier = server.server.notifier();
    let first = Listen::open(server.addr, json!(1), json!({"toolsListChanged": true})).await;
    let mut second = Listen::open(server.addr, json!(2), json!({"toolsListChanged": true})).await;
    assert_eq!(notifier.listen_streams(), 2);
    first.stream.close();
    eventually(Duration::from_secs(2), 1, || notifier.listen_streams()).await;
    // The other stream is unaffected.
    notifier.tools_changed();
    assert_eq!(
        second.next_method().await,
        "notifications/tools/list_changed"
    );
    second.stream.close();
    eventually(Duration::from_secs(2), 0, || notifier.listen_streams()).await;
}

#[tokio::test]
async fn listen_without_notifications_is_invalid_params() {
    let server = start(Config::default()).await;
    for (id, params) in [
        (11, json!({})),
        (12, json!({"notifications": "everything"})),
        (13, json!({"notifications": {"toolsListChanged": "yes"}})),
    ] {
        let body = listen_body(&json!(id), params.clone());
        let reply = support::send(server.addr, "POST", &listen_headers(), &body).await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{params}");
        assert_eq!(reply.header("content-type"), Some("application/json"));
        let response = reply.json().await;
        assert_stateless_response("subscriptions/listen", &response);
        assert_eq!(
            (response["id"].clone(), response["error"]["code"].clone()),
            (json!(id), json!(-32602)),
            "{params}: {response}"
        );
    }
    assert_eq!(server.server.notifier().listen_streams(), 0);
}
