//! A client's own cost per `tools/call`: one client (ours, `mcp_runtime::client`, or rmcp's)
//! connects to a server in a session, calls its `echo` tool `--calls` times one after another,
//! and prints the CPU time this process spent per call (user + system, from
//! `/proc/self/stat`) and the calls per second. The server runs in another process, on another
//! core (`bench/run.sh` pins it), so none of its work is counted here.
//!
//! usage: client-load --addr HOST:PORT --client ours|rmcp [--calls N]

use anyhow::{bail, Context, Result};
use serde_json::json;
use std::time::Instant;

/// Calls made before measuring: connections open, allocator and caches warm.
const WARMUP: usize = 500;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<()> {
    let (addr, rest) = mcp_bench::addr_and_rest();
    let mut client = None;
    let mut calls = 20_000usize;
    let mut args = rest.into_iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--client" => client = args.next(),
            "--calls" => calls = args.next().context("--calls N")?.parse()?,
            other => bail!("unknown argument {other}"),
        }
    }
    let url = format!("http://{addr}/mcp");
    let (name, (cpu_us, wall)) = match client.as_deref() {
        Some("ours") => ("ours", ours(&url, calls).await?),
        Some("rmcp") => ("rmcp", rmcp(&url, calls).await?),
        _ => bail!("--client ours|rmcp"),
    };
    println!(
        "client={name} calls={calls} cpu_us_per_call={:.2} calls_per_sec={:.0}",
        cpu_us / calls as f64,
        calls as f64 / wall
    );
    Ok(())
}

/// Our client: (CPU µs, wall seconds) over `calls` measured calls.
async fn ours(url: &str, calls: usize) -> Result<(f64, f64)> {
    use mcp_runtime::client::{Client, Era};
    let client = Client::builder(url).era(Era::Legacy).connect().await?;
    let measured = measure(calls, || async {
        client.call_tool("echo", json!({"text": "hello"})).await?;
        Ok(())
    })
    .await?;
    client.close().await?;
    Ok(measured)
}

/// rmcp's client: (CPU µs, wall seconds) over `calls` measured calls.
async fn rmcp(url: &str, calls: usize) -> Result<(f64, f64)> {
    use rmcp::model::{CallToolRequestParams, ClientCapabilities, ClientConfig, Implementation};
    use rmcp::transport::StreamableHttpClientTransport;
    use rmcp::ServiceExt;
    let transport = StreamableHttpClientTransport::from_uri(url);
    let info = ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new("client-load", "1"),
    );
    let client = info.serve(transport).await?;
    let arguments = json!({"text": "hello"})
        .as_object()
        .cloned()
        .unwrap_or_default();
    let measured = measure(calls, || async {
        let params = CallToolRequestParams::new("echo").with_arguments(arguments.clone());
        client.call_tool(params).await?;
        Ok(())
    })
    .await?;
    client.cancel().await?;
    Ok(measured)
}

/// Runs `call` [`WARMUP`] times, then `calls` times in a row measured: (CPU µs of this
/// process, wall seconds).
async fn measure<F, Fut>(calls: usize, call: F) -> Result<(f64, f64)>
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = Result<()>>,
{
    for _ in 0..WARMUP {
        call().await?;
    }
    let cpu_before = cpu_ticks()?;
    let started = Instant::now();
    for _ in 0..calls {
        call().await?;
    }
    let wall = started.elapsed().as_secs_f64();
    let ticks = cpu_ticks()? - cpu_before;
    // SC_CLK_TCK is 100 on every Linux this runs on: a tick is 10,000 µs.
    Ok((ticks as f64 * 10_000.0, wall))
}

/// User + system clock ticks of this process.
fn cpu_ticks() -> Result<u64> {
    let stat = std::fs::read_to_string("/proc/self/stat")?;
    let after = &stat[stat.rfind(')').context("/proc/self/stat")? + 2..];
    let fields: Vec<&str> = after.split_whitespace().collect();
    // fields[0] is field 3 (state); utime is field 14, stime 15.
    Ok(fields[11].parse::<u64>()? + fields[12].parse::<u64>()?)
}
