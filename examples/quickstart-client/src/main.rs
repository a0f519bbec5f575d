//! Calls the quickstart notes server with the typed client: `quickstart-client [URL]`
//! (default `http://127.0.0.1:8080/mcp`; start the server with `cargo run -p quickstart`).

use quickstart_client::{types, Client};
use std::process::ExitCode;

#[tokio::main]
async fn main() -> ExitCode {
    let url = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "http://127.0.0.1:8080/mcp".to_owned());
    match run(&url).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("quickstart-client: {error}");
            ExitCode::FAILURE
        }
    }
}

async fn run(url: &str) -> Result<(), Box<dyn std::error::Error>> {
    let client = Client::connect(url).await?;
    println!("connected to {url} ({})", client.inner().protocol_version());
    let sum = client.add(&types::AddParams { a: 2, b: 3 }).await?;
    println!("add(2, 3) = {sum}");
    let note = client
        .create_note(&types::CreateNoteParams {
            title: "groceries".into(),
            body: "eggs, milk".into(),
            tags: Some(vec!["home".into()]),
            priority: Some(types::Priority::High),
        })
        .await?;
    println!("created note {} ({:?})", note.id, note.priority);
    let found = client
        .search_notes(&types::SearchNotesParams {
            query: "eggs".into(),
            limit: 10,
        })
        .await?;
    println!("search \"eggs\": {} of {}", found.notes.len(), found.total);
    let read = client
        .get_note(&types::GetNoteParams { id: note.id })
        .await?;
    println!("notes://notes/{}: {}", read.id, read.title);
    client.close().await?;
    Ok(())
}
