//! What a message between instances costs Redis when many instances share it (issue 49,
//! "a 100-instance estimate"): `FANOUT_INSTANCES` instances (default 100) as stores of one
//! process, each connected to one real `redis-server` as a server connects (`stores::redis::
//! connect`: its connection, its bus subscriber, its event-log reader), then from one of them:
//!
//! - **broadcasts** (`EventLog::append`, a list change or a resource update: every instance's
//!   clients may want it), counted once every instance has read each;
//! - **messages for every instance** (`Bus::publish` of a session deleted: each instance drops
//!   its replica), counted once every instance has received each;
//! - **point-to-point messages** (`Bus::publish` of a client's answer for a request another
//!   instance sent: one instance needs it, and its address is in the request id), counted once
//!   that instance has received each.
//!
//! Per message: Redis commands by name and bytes in and out, from `INFO commandstats` and
//! `INFO stats` around the run, less what the same instances cost Redis idle for as long (their
//! task leases). Printed as a table (`--nocapture`); BENCHMARKS.md ("Past one Redis") keeps it.
//! The asserts hold what the table shows: each broadcast is read by every instance, and a
//! point-to-point message reaches the instance it is for and no other.
//!
//! `cargo test -p mcp-runtime --features redis --lib stores::redis::tests::fanout -- --ignored --nocapture`

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::harness::Redis;
use crate::bus::{BusEvent, Deliver};
use crate::delivery::event_log::{Broadcast, LogDeliver, Logged};
use crate::stores::redis::connect;
use crate::stores::Stores;
use crate::Config;

/// Messages per kind.
const MESSAGES: usize = 20;

/// One instance: its stores and what it received.
struct Instance {
    stores: Stores,
    heard: Arc<AtomicUsize>,
    read: Arc<AtomicUsize>,
    _deliver: Arc<dyn Fn(BusEvent) + Send + Sync>,
    _log: Arc<dyn Fn(Logged) + Send + Sync>,
}

async fn instance(redis: &Redis) -> Instance {
    let stores = connect(&redis.url(), "fan", &Config::default())
        .await
        .unwrap();
    let (heard, read) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let counter = heard.clone();
    let deliver: Arc<dyn Fn(BusEvent) + Send + Sync> = Arc::new(move |_| {
        counter.fetch_add(1, Ordering::Relaxed);
    });
    let counter = read.clone();
    let log: Arc<dyn Fn(Logged) + Send + Sync> = Arc::new(move |_| {
        counter.fetch_add(1, Ordering::Relaxed);
    });
    stores.bus.subscribe(Arc::downgrade(&deliver) as Deliver);
    stores
        .events
        .as_ref()
        .expect("Redis stores have an event log")
        .subscribe(Arc::downgrade(&log) as LogDeliver);
    Instance {
        stores,
        heard,
        read,
        _deliver: deliver,
        _log: log,
    }
}

/// Redis's counters: calls per command, bytes in, bytes out.
#[derive(Debug, Default, Clone)]
struct Counters {
    calls: BTreeMap<String, u64>,
    bytes_in: u64,
    bytes_out: u64,
}

async fn counters(connection: &mut ::redis::aio::MultiplexedConnection) -> Counters {
    let text: String = ::redis::cmd("INFO")
        .arg("all")
        .query_async(connection)
        .await
        .unwrap();
    let mut counters = Counters::default();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("cmdstat_") {
            let (name, stats) = rest.split_once(':').unwrap();
            let calls = stats
                .split(',')
                .find_map(|kv| kv.strip_prefix("calls="))
                .unwrap();
            counters
                .calls
                .insert(name.to_owned(), calls.parse().unwrap());
        } else if let Some(n) = line.strip_prefix("total_net_input_bytes:") {
            counters.bytes_in = n.trim().parse().unwrap();
        } else if let Some(n) = line.strip_prefix("total_net_output_bytes:") {
            counters.bytes_out = n.trim().parse().unwrap();
        }
    }
    counters
}

/// `after - before`, per second of `took`.
fn rate(before: &Counters, after: &Counters, took: Duration) -> (BTreeMap<String, f64>, f64, f64) {
    let secs = took.as_secs_f64();
    let calls = after
        .calls
        .iter()
        .map(|(name, n)| {
            let was = before.calls.get(name).copied().unwrap_or(0);
            (name.clone(), (n - was) as f64 / secs)
        })
        .collect();
    (
        calls,
        (after.bytes_in - before.bytes_in) as f64 / secs,
        (after.bytes_out - before.bytes_out) as f64 / secs,
    )
}

/// Until `done()`, within 30 s.
async fn until(what: &str, done: impl Fn() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !done() {
        assert!(Instant::now() < deadline, "{what} within 30 s");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// One row per command: calls per message, the idle rate taken off.
fn per_message(
    label: &str,
    run: (BTreeMap<String, f64>, f64, f64),
    idle: &(BTreeMap<String, f64>, f64, f64),
    took: Duration,
    messages: usize,
) -> BTreeMap<String, f64> {
    let secs = took.as_secs_f64();
    let each = |busy: f64, quiet: f64| ((busy - quiet) * secs / messages as f64).max(0.0);
    let mut commands = BTreeMap::new();
    for (name, busy) in &run.0 {
        let quiet = idle.0.get(name).copied().unwrap_or(0.0);
        let n = each(*busy, quiet);
        // `set`: the instances' task leases, every 2 s each, which the idle rate takes off
        // only on average.
        if n >= 0.5 && name != "info" && name != "set" {
            commands.insert(name.clone(), n);
        }
    }
    let shown: Vec<String> = commands
        .iter()
        .map(|(name, n)| format!("{} {name}", n.round()))
        .collect();
    println!(
        "| {label} | {} | {:.0} | {:.0} |",
        shown.join(", "),
        each(run.1, idle.1),
        each(run.2, idle.2)
    );
    commands
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "starts 100 instances against one redis-server: run with --ignored --nocapture"]
async fn what_a_broadcast_and_a_point_to_point_message_cost_redis() {
    let count: usize = std::env::var("FANOUT_INSTANCES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(100);
    let redis = Redis::start();
    let mut instances = Vec::with_capacity(count);
    for _ in 0..count {
        instances.push(instance(&redis).await);
    }
    let mut admin = ::redis::Client::open(redis.url())
        .unwrap()
        .get_multiplexed_async_connection()
        .await
        .unwrap();
    // Subscriptions start in the background: send until every other instance hears one.
    let (first, others) = instances.split_first().unwrap();
    let log = first.stores.events.as_ref().unwrap();
    until("every instance subscribed", || {
        first.stores.bus.publish(BusEvent::TaskCancelled {
            task_id: "warm-up".into(),
            runner: None,
        });
        log.append(Broadcast::ListChanged {
            method: "notifications/tools/list_changed".into(),
        });
        others
            .iter()
            .all(|i| i.heard.load(Ordering::Relaxed) > 0 && i.read.load(Ordering::Relaxed) > 0)
    })
    .await;
    tokio::time::sleep(Duration::from_millis(500)).await;

    // Idle: the instances' own upkeep (task leases, blocked reads timing out).
    let before = counters(&mut admin).await;
    let started = Instant::now();
    tokio::time::sleep(Duration::from_secs(3)).await;
    let idle = rate(&before, &counters(&mut admin).await, started.elapsed());

    println!("\n{count} instances on one Redis, {MESSAGES} messages of each kind, per message:\n");
    println!("| message | Redis commands | bytes in | bytes out |\n|---|---|---|---|");

    // Broadcasts through the event log.
    let read: Vec<usize> = instances
        .iter()
        .map(|i| i.read.load(Ordering::Relaxed))
        .collect();
    // One at a time, as broadcasts come (a burst would be read several to an `XREAD`).
    let before = counters(&mut admin).await;
    let started = Instant::now();
    for n in 0..MESSAGES {
        log.append(Broadcast::ResourceUpdated {
            uri: format!("file:///notes/{n}"),
        });
        until("every instance read the broadcast", || {
            instances
                .iter()
                .zip(&read)
                .all(|(i, was)| i.read.load(Ordering::Relaxed) > was + n)
        })
        .await;
    }
    let took = started.elapsed();
    let run = rate(&before, &counters(&mut admin).await, took);
    let broadcast = per_message(
        "a broadcast (`EventLog::append`: a resource update)",
        run,
        &idle,
        took,
        MESSAGES,
    );

    // A bus message every instance needs (a session deleted: each drops its replica).
    let heard = |set: &[Instance]| -> Vec<usize> {
        set.iter()
            .map(|i| i.heard.load(Ordering::Relaxed))
            .collect()
    };
    let before_heard = heard(others);
    let before = counters(&mut admin).await;
    let started = Instant::now();
    for n in 0..MESSAGES {
        first.stores.bus.publish(BusEvent::SessionClosed {
            session_id: format!("{n:032x}"),
        });
        until("every other instance heard the message", || {
            others
                .iter()
                .zip(&before_heard)
                .all(|(i, was)| i.heard.load(Ordering::Relaxed) > was + n)
        })
        .await;
    }
    let took = started.elapsed();
    let run = rate(&before, &counters(&mut admin).await, took);
    let everyone = per_message(
        "a message for every instance (`Bus::publish`: a session deleted)",
        run,
        &idle,
        took,
        MESSAGES,
    );

    // Point-to-point: a client's answer for the instance that sent the request, whose address
    // is in the id it minted (`s{n}.{address}.{tag}`).
    let (target, bystanders) = others.split_last().unwrap();
    let address = target.stores.bus.address().unwrap().to_string();
    let target_was = target.heard.load(Ordering::Relaxed);
    let bystanders_were = heard(bystanders);
    let before = counters(&mut admin).await;
    let started = Instant::now();
    for n in 0..MESSAGES {
        first.stores.bus.publish(BusEvent::ClientAnswered {
            session_id: "0123456789abcdef0123456789abcdef".into(),
            request_id: format!("s{n}.{address}.0123456789abcdef"),
            answer: r#"{"result":{"action":"accept","content":{"name":"Ada"}}}"#.into(),
        });
        until("the instance it is for heard the message", || {
            target.heard.load(Ordering::Relaxed) > target_was + n
        })
        .await;
    }
    let took = started.elapsed();
    let run = rate(&before, &counters(&mut admin).await, took);
    let point = per_message(
        "a point-to-point message (`Bus::publish`: a client's answer)",
        run,
        &idle,
        took,
        MESSAGES,
    );
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(
        heard(bystanders),
        bystanders_were,
        "a message for one instance reached others"
    );
    println!();

    // One append, and a read by every instance; one publish each, the point-to-point one
    // delivered to its instance alone (its bytes out do not grow with the instances).
    assert!(
        (broadcast.get("xadd").copied().unwrap_or(0.0) - 1.0).abs() < 0.5,
        "{broadcast:?}"
    );
    assert!(
        broadcast.get("xread").copied().unwrap_or(0.0) >= 0.9 * count as f64,
        "every instance reads every broadcast: {broadcast:?}"
    );
    assert!(
        (point.get("publish").copied().unwrap_or(0.0) - 1.0).abs() < 0.5,
        "{point:?}"
    );
    assert!(
        (everyone.get("publish").copied().unwrap_or(0.0) - 1.0).abs() < 0.5,
        "{everyone:?}"
    );
}
