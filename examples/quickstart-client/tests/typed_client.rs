//! The generated typed client against the quickstart server, served in this process on
//! 127.0.0.1: every method of the contract in both eras, typed results equal to what the
//! handler returned, arguments the schema refuses stopped before they are sent, and a tool's
//! error, a JSON-RPC error and a client-side violation told apart.

use mcp_runtime::client::{CallError, Era};
use mcp_runtime::McpServer;
use quickstart_client::{types, Client};

/// Serves a fresh quickstart (its own notes) on a free port; the server stops with the runtime.
async fn serve() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let server = McpServer::new(quickstart::server::Server::new(quickstart::Notes::default()));
    tokio::spawn(server.serve_listener(listener, std::future::pending()));
    url
}

async fn connect(url: &str, era: Era) -> Client {
    let inner = mcp_runtime::client::Client::builder(url)
        .era(era)
        .connect()
        .await
        .unwrap();
    Client::from_client(inner)
}

fn note(title: &str, body: &str) -> types::CreateNoteParams {
    types::CreateNoteParams {
        title: title.into(),
        body: body.into(),
        tags: Some(vec!["home".into()]),
        priority: Some(types::Priority::High),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_method_of_the_contract_in_both_eras() {
    for era in [Era::Legacy, Era::Stateless] {
        let url = serve().await;
        let client = connect(&url, era).await;
        let expected_version = match era {
            Era::Stateless => "2026-07-28",
            _ => "2025-11-25",
        };
        assert_eq!(client.inner().protocol_version(), expected_version);

        // An integer result: structuredContent in 2026-07-28, only text before it.
        assert_eq!(
            client.add(&types::AddParams { a: 2, b: 3 }).await.unwrap(),
            5
        );

        let created = client
            .create_note(&note("groceries", "eggs, milk"))
            .await
            .unwrap();
        assert_eq!(created.title, "groceries");
        assert_eq!(created.tags, vec!["home".to_string()]);
        assert_eq!(created.priority, types::Priority::High);

        let found = client
            .search_notes(&types::SearchNotesParams {
                query: "eggs".into(),
                limit: 10,
            })
            .await
            .unwrap();
        assert_eq!(found.total, 1, "{era:?}");
        assert_eq!(found.notes[0].id, created.id);

        let index = client.note_index().await.unwrap();
        assert_eq!(
            index.get(&created.id.to_string()).map(String::as_str),
            Some("groceries")
        );

        let read = client
            .get_note(&types::GetNoteParams { id: created.id })
            .await
            .unwrap();
        assert_eq!(read.body, "eggs, milk");

        let prompt = client
            .summarize(&types::SummarizeParams {
                topic: "groceries".into(),
                style: None,
            })
            .await
            .unwrap();
        assert!(prompt.contains("groceries"), "{prompt}");

        client.close().await.unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn arguments_the_schema_refuses_are_not_sent() {
    let url = serve().await;
    let client = connect(&url, Era::Auto).await;
    let error = client.create_note(&note("", "no title")).await.unwrap_err();
    let CallError::InvalidArguments(violations) = &error else {
        panic!("expected a client-side violation, got {error:?}");
    };
    assert_eq!(violations.list()[0].pointer, "/title");
    assert_eq!(violations.list()[0].keyword, "minLength");
    assert!(error.to_string().contains("not sent"), "{error}");
    // The server never saw it: the index is still empty.
    assert!(client.note_index().await.unwrap().is_empty());

    let error = client
        .search_notes(&types::SearchNotesParams {
            query: "x".into(),
            limit: 0,
        })
        .await
        .unwrap_err();
    assert!(
        matches!(&error, CallError::InvalidArguments(v) if v.list()[0].pointer == "/limit"),
        "{error:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_error_and_a_protocol_error_are_told_apart() {
    let url = serve().await;
    let client = connect(&url, Era::Auto).await;
    let error = client
        .add(&types::AddParams { a: i64::MAX, b: 1 })
        .await
        .unwrap_err();
    assert!(matches!(error, CallError::Tool(_)), "{error:?}");
    assert!(
        error.tool_message().unwrap().contains("overflows"),
        "{error}"
    );

    let error = client
        .get_note(&types::GetNoteParams { id: 404 })
        .await
        .unwrap_err();
    assert!(error.rpc_code().is_some(), "{error:?}");
}
