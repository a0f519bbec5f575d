//! A notification's path from a node to an MCP client through the gateway: each round mines one
//! block (`evm_mine` over the node's HTTP) and times, from the moment the request is sent,
//!
//! - the node's own `newHeads` notification reaching a subscriber of the node itself
//!   (`Upstream::subscribe` over the node's WebSocket: the reference);
//! - the gateway's `notifications/resources/updated` for `eth://subscription/newHeads`
//!   reaching an MCP client (ours, `mcp_runtime::client`, listening in the given era).
//!
//! The difference of the two is what the gateway adds: its own socket read, the feed's window,
//! the notifier, the client's stream. Rounds run one after another (each waits for both).
//!
//! usage: notify-latency --node http://127.0.0.1:8545 --ws ws://127.0.0.1:8545
//!        --mcp http://127.0.0.1:8080/mcp [--era session|stateless] [--rounds N]

use anyhow::{anyhow, bail, Context, Result};
use mcp_runtime::client::{Client, Era, Listen};
use mcp_runtime::upstream::{SubscriptionEvent, SubscriptionMethods, Upstream, UpstreamSettings};
use serde_json::value::RawValue;
use std::time::{Duration, Instant};

const ETH: SubscriptionMethods =
    SubscriptionMethods::positional("eth_subscribe", "eth_unsubscribe");
const URI: &str = "eth://subscription/newHeads";
/// Rounds before measuring: connections open, the feed open, caches warm.
const WARMUP: usize = 20;

#[tokio::main]
async fn main() -> Result<()> {
    let (mut node, mut ws, mut mcp, mut era, mut rounds) =
        (None, None, None, "stateless".to_string(), 500usize);
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().with_context(|| format!("{arg} needs a value"));
        match arg.as_str() {
            "--node" => node = Some(value()?),
            "--ws" => ws = Some(value()?),
            "--mcp" => mcp = Some(value()?),
            "--era" => era = value()?,
            "--rounds" => rounds = value()?.parse()?,
            other => bail!("unknown argument {other}"),
        }
    }
    let (node, ws, mcp) = (
        node.context("--node URL")?,
        ws.context("--ws URL")?,
        mcp.context("--mcp URL")?,
    );
    let era_of = match era.as_str() {
        "session" => Era::Legacy,
        "stateless" => Era::Stateless,
        _ => bail!("--era session|stateless"),
    };
    // `UpstreamError` is no `std::error::Error` (the runtime's `Error` converts from it).
    let upstream = Upstream::new(UpstreamSettings::new(ws)).map_err(|e| anyhow!("{e}"))?;
    let params = RawValue::from_string(r#"["newHeads"]"#.into())?;
    let mut direct = upstream
        .subscribe(&ETH, Some(&params))
        .await
        .map_err(|e| anyhow!("{e}"))?;
    let client = Client::builder(mcp).era(era_of).connect().await?;
    let mut updates = client.listen(Listen::new().resource(URI)).await?;
    let miner = Upstream::new(UpstreamSettings::new(node)).map_err(|e| anyhow!("{e}"))?;
    let (mut at_node, mut at_client, mut added) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..WARMUP + rounds {
        let sent = Instant::now();
        let (mined, head, update) = tokio::join!(
            miner.call("evm_mine", None),
            async {
                let event = direct.next().await;
                (event, sent.elapsed())
            },
            async {
                let update = updates.next().await;
                (update, sent.elapsed())
            },
        );
        mined.map_err(|e| anyhow!("evm_mine: {e}"))?;
        let (Some(SubscriptionEvent::Notification(_)), head) = head else {
            bail!("the node's subscription ended or was opened again in round {round}");
        };
        let (Some(Ok(update)), update_at) = update else {
            bail!("the MCP client's stream ended in round {round}");
        };
        if update.method != "notifications/resources/updated" {
            bail!("round {round}: {} instead of an update", update.method);
        }
        if round >= WARMUP {
            at_node.push(head);
            at_client.push(update_at);
            added.push(update_at.saturating_sub(head));
        }
    }
    let show = |name: &str, mut times: Vec<Duration>| {
        times.sort();
        let at = |q: f64| times[((times.len() as f64 * q) as usize).min(times.len() - 1)];
        println!(
            "era={era} {name}: p50_us={} p90_us={} p99_us={} max_us={}",
            at(0.50).as_micros(),
            at(0.90).as_micros(),
            at(0.99).as_micros(),
            times[times.len() - 1].as_micros()
        );
    };
    println!("rounds={rounds} (after {WARMUP} warm-up rounds)");
    show("mined -> the node's notification at a direct subscriber", at_node);
    show("mined -> the gateway's update at the MCP client", at_client);
    show("added by the gateway (update at the client - notification at the direct subscriber)", added);
    Ok(())
}
