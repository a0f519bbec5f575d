//! Follows an Ethereum node's new blocks through [`Upstream::subscribe`]
//! (`eth_subscribe(["newHeads"])`) over its WebSocket or IPC socket, one line per event:
//! `head 0x1f` for each new block, `reopened` after the connection was lost and the
//! subscription opened again. After COUNT heads it closes the subscription and prints `closed`
//! once the node has answered `eth_unsubscribe` with `true`.
//!
//! ```text
//! cargo run -p mcp-runtime --features upstream --example upstream_subscribe -- ws://127.0.0.1:8545 3
//! cargo run -p mcp-runtime --features upstream --example upstream_subscribe -- unix:/tmp/anvil.ipc 3
//! ```
//!
//! `tests/gateway/run.sh` runs it against anvil (both transports), mining with `evm_mine`, and
//! kills and restarts the node under it.

use mcp_runtime::upstream::{SubscriptionEvent, SubscriptionMethods, Upstream, UpstreamSettings};
use serde_json::value::RawValue;
use std::io::Write;
use std::process::ExitCode;

const ETH: SubscriptionMethods =
    SubscriptionMethods::positional("eth_subscribe", "eth_unsubscribe");

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(url), Some(Ok(count))) = (args.first(), args.get(1).map(|n| n.parse::<usize>()))
    else {
        eprintln!("usage: upstream_subscribe URL COUNT   (URL: ws://, wss:// or unix:/path)");
        return ExitCode::from(2);
    };
    let upstream = match Upstream::new(UpstreamSettings::new(url.as_str())) {
        Ok(upstream) => upstream,
        Err(error) => {
            eprintln!("error: {error}");
            return ExitCode::from(2);
        }
    };
    let params = RawValue::from_string(r#"["newHeads"]"#.into()).expect("JSON");
    let mut heads = match upstream.subscribe(&ETH, Some(&params)).await {
        Ok(heads) => heads,
        Err(error) => {
            eprintln!("error: {error}");
            return ExitCode::FAILURE;
        }
    };
    println!("subscribed");
    let mut seen = 0;
    while seen < count {
        let line = match heads.next().await {
            Some(SubscriptionEvent::Notification(head)) => {
                seen += 1;
                let head: serde_json::Value = serde_json::from_str(head.get()).expect("JSON");
                format!("head {}", head["number"].as_str().unwrap_or("?"))
            }
            Some(SubscriptionEvent::Reopened) => "reopened".into(),
            None => {
                eprintln!("error: the subscription ended");
                return ExitCode::FAILURE;
            }
        };
        println!("{line}");
        let _ = std::io::stdout().flush();
    }
    match heads.close().await {
        Ok(()) => println!("closed"),
        Err(error) => {
            eprintln!("error: closing: {error}");
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}
