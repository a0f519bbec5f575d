//! A generic MCP client on the command line: connects to a Streamable HTTP endpoint (or starts
//! a stdio server), lists its tools, and calls one when named, printing its progress.
//!
//! ```text
//! cargo run -p mcp-runtime --features client --example client -- \
//!     http://127.0.0.1:8080/mcp [--era auto|legacy|stateless] [TOOL [ARGUMENTS-JSON]]
//! cargo run -p mcp-runtime --features client --example client -- \
//!     --stdio 'target/debug/quickstart --stdio' [TOOL [ARGUMENTS-JSON]]
//! ```

use mcp_runtime::client::{CallOptions, Client, ClientBuilder, ClientError, Era};
use serde_json::Value;
use std::process::ExitCode;

const USAGE: &str = "usage: client (URL | --stdio 'PROGRAM [ARG...]') [--era auto|legacy|stateless] [TOOL [ARGUMENTS-JSON]]";

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let mut era = Era::Auto;
    let mut stdio = None;
    let mut positional = Vec::new();
    while let Some(arg) = args.next() {
        if arg == "--stdio" {
            let Some(line) = args.next() else {
                eprintln!("--stdio: expected the server's command line\n{USAGE}");
                return ExitCode::from(2);
            };
            stdio = Some(line);
        } else if arg == "--era" {
            era = match args.next().as_deref() {
                Some("auto") => Era::Auto,
                Some("legacy") => Era::Legacy,
                Some("stateless") => Era::Stateless,
                other => {
                    eprintln!("--era: expected auto, legacy or stateless, got {other:?}\n{USAGE}");
                    return ExitCode::from(2);
                }
            };
        } else {
            positional.push(arg);
        }
    }
    let builder = match stdio {
        Some(line) => {
            let mut words = line.split_whitespace();
            let Some(program) = words.next() else {
                eprintln!("--stdio: the command line is empty\n{USAGE}");
                return ExitCode::from(2);
            };
            let mut command = std::process::Command::new(program);
            command.args(words);
            Client::stdio(command)
        }
        None if positional.is_empty() => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
        None => Client::builder(positional.remove(0)),
    };
    let arguments = match positional.get(1).map(|text| serde_json::from_str(text)) {
        None => Value::Object(Default::default()),
        Some(Ok(arguments)) => arguments,
        Some(Err(e)) => {
            eprintln!("ARGUMENTS-JSON: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(
        builder.era(era),
        positional.first().map(String::as_str),
        arguments,
    )
    .await
    {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn run(
    builder: ClientBuilder,
    tool: Option<&str>,
    arguments: Value,
) -> Result<(), ClientError> {
    let client = builder.connect().await?;
    println!(
        "connected: {} {} ({:?}, {})",
        client.server_info()["name"].as_str().unwrap_or("?"),
        client.server_info()["version"].as_str().unwrap_or("?"),
        client.era(),
        client.protocol_version()
    );
    for listed in client.list_tools_all().await? {
        let description = listed["description"].as_str().unwrap_or("");
        println!(
            "  {:<40} {description}",
            listed["name"].as_str().unwrap_or("?")
        );
    }
    if let Some(tool) = tool {
        let options = CallOptions::new().on_progress(|p| match p.total {
            Some(total) => eprintln!("progress: {}/{total}", p.progress),
            None => eprintln!("progress: {}", p.progress),
        });
        let outcome = client.call_tool_with(tool, arguments, &options).await;
        match &outcome {
            Ok(result) | Err(ClientError::Tool(result)) => {
                println!(
                    "{}",
                    serde_json::to_string_pretty(result).unwrap_or_default()
                )
            }
            Err(_) => {}
        }
        outcome?;
    }
    client.close().await
}
