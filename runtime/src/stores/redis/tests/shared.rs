//! The Redis stores (feature `redis`) against a real `redis-server` started here on a free
//! 127.0.0.1 port, with no persistence, in a temporary directory, and stopped at the end
//! (CI installs it: `apt-get install redis-server`).
//!
//! Two "instances" connect to the same Redis: a task one stores, the other reads, changes
//! and cancels; a bus event one publishes, the other receives (and the first does not hear
//! its own); concurrent changes from both are all kept; the bound on live tasks holds across
//! both; an instance that stopped loses its lease, which another instance sees (once it held
//! its own for a whole lease); Redis stopped gives `Unavailable` errors, and once it is back
//! the same stores work again without reconnecting by hand.
//!
//! Sessions: one created on an instance is loaded by another (once; then held); changes
//! written through on one reach the other's replica and a later loader; a delete on one is
//! gone on all; the record's time to live is refreshed while used, and it expires when not;
//! with Redis gone, held sessions still serve and the rest is `Unavailable`.

use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::harness::Redis;
use crate::bus::{BusEvent, Deliver};
use crate::delivery::event_log::{Broadcast, LogDeliver, Logged, ReplayError};
use crate::session::{Session, SessionChange, SessionLimits, StoreError};
use crate::stores::redis::connect;
use crate::stores::Stores;
use crate::tasks::{TaskRecord, TaskStatus, TaskStoreError};
use crate::Config;
use crate::ProtocolVersion;

fn record(id: &str, ttl_ms: u64) -> TaskRecord {
    let now = SystemTimeMs::now();
    serde_json::from_value(serde_json::json!({
        "taskId": id, "status": "working", "createdAtMs": now, "lastUpdatedAtMs": now,
        "ttlMs": ttl_ms, "pollIntervalMs": 100}))
    .unwrap()
}

struct SystemTimeMs;

impl SystemTimeMs {
    fn now() -> u64 {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis() as u64
    }
}

async fn instance(redis: &Redis, prefix: &str, max_tasks: usize) -> Stores {
    let config = Config::builder().max_tasks(max_tasks).build();
    connect(&redis.url(), prefix, &config).await.unwrap()
}

#[tokio::test]
async fn two_instances_share_tasks() {
    let redis = Redis::start();
    let (a, b) = (
        instance(&redis, "t1", 100).await,
        instance(&redis, "t1", 100).await,
    );
    a.tasks.insert(record("task-1", 60_000)).await.unwrap();
    let seen = b
        .tasks
        .get("task-1")
        .await
        .unwrap()
        .expect("B sees A's task");
    assert_eq!(seen.status, TaskStatus::Working);
    let changed = b
        .tasks
        .update("task-1", &mut |task| task.status = TaskStatus::Cancelled)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(changed.status, TaskStatus::Cancelled);
    let back = a.tasks.get("task-1").await.unwrap().unwrap();
    assert_eq!(back.status, TaskStatus::Cancelled);
    // Unknown ids, and a prefix of another deployment, see nothing.
    assert!(a.tasks.get("nope").await.unwrap().is_none());
    assert!(a
        .tasks
        .update("nope", &mut |_| panic!("not called"))
        .await
        .unwrap()
        .is_none());
    let other = instance(&redis, "t1-other", 100).await;
    assert!(other.tasks.get("task-1").await.unwrap().is_none());
}

#[tokio::test]
async fn records_expire_with_their_task() {
    let redis = Redis::start();
    let a = instance(&redis, "t2", 100).await;
    a.tasks.insert(record("short", 150)).await.unwrap();
    assert!(a.tasks.get("short").await.unwrap().is_some());
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(a.tasks.get("short").await.unwrap().is_none());
}

#[tokio::test]
async fn concurrent_changes_from_two_instances_are_all_kept() {
    let redis = Redis::start();
    let (a, b) = (
        instance(&redis, "t3", 100).await,
        instance(&redis, "t3", 100).await,
    );
    a.tasks.insert(record("busy", 60_000)).await.unwrap();
    let add = |stores: Stores, key: String| async move {
        stores
            .tasks
            .update("busy", &mut |task| {
                task.input_responses
                    .insert(key.clone(), serde_json::json!(true));
            })
            .await
            .unwrap()
            .unwrap();
    };
    let mut writers = Vec::new();
    for i in 0..20 {
        let stores = if i % 2 == 0 { a.clone() } else { b.clone() };
        writers.push(tokio::spawn(add(stores, format!("k{i}"))));
    }
    for writer in writers {
        writer.await.unwrap();
    }
    let task = a.tasks.get("busy").await.unwrap().unwrap();
    assert_eq!(task.input_responses.len(), 20, "{:?}", task.input_responses);
}

#[tokio::test]
async fn the_bound_on_live_tasks_holds_across_instances() {
    let redis = Redis::start();
    let (a, b) = (
        instance(&redis, "t4", 2).await,
        instance(&redis, "t4", 2).await,
    );
    a.tasks.insert(record("one", 60_000)).await.unwrap();
    b.tasks.insert(record("two", 60_000)).await.unwrap();
    let refused = a.tasks.insert(record("three", 60_000)).await.unwrap_err();
    assert_eq!(refused, TaskStoreError::Full { max_tasks: 2 });
    assert_eq!(b.tasks.len(), 2);
}

/// What a server registers with its bus.
type Receiver = Arc<dyn Fn(BusEvent) + Send + Sync>;

/// Collects the events delivered to it.
fn collector() -> (Receiver, Arc<Mutex<Vec<BusEvent>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    let deliver: Receiver = Arc::new(move |event| sink.lock().unwrap().push(event));
    (deliver, seen)
}

async fn wait_for(seen: &Mutex<Vec<BusEvent>>, count: usize) -> Vec<BusEvent> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let events = seen.lock().unwrap().clone();
        if events.len() >= count || Instant::now() > deadline {
            return events;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn bus_events_reach_the_other_instances_only() {
    let redis = Redis::start();
    let (a, b) = (
        instance(&redis, "t5", 100).await,
        instance(&redis, "t5", 100).await,
    );
    let (to_a, seen_by_a) = collector();
    let (to_b, seen_by_b) = collector();
    a.bus.subscribe(Arc::downgrade(&to_a) as Deliver);
    b.bus.subscribe(Arc::downgrade(&to_b) as Deliver);
    // Subscriptions are asynchronous: publish until B hears one.
    let cancel = BusEvent::TaskCancelled {
        task_id: "x".into(),
        runner: None,
    };
    let deadline = Instant::now() + Duration::from_secs(10);
    while seen_by_b.lock().unwrap().is_empty() {
        assert!(Instant::now() < deadline, "B never heard A");
        a.bus.publish(cancel.clone());
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    b.bus.publish(BusEvent::ListChanged {
        method: "notifications/tools/list_changed".into(),
    });
    let heard = wait_for(&seen_by_a, 1).await;
    assert_eq!(
        heard,
        [BusEvent::ListChanged {
            method: "notifications/tools/list_changed".into()
        }]
    );
    // Nobody hears itself.
    assert!(seen_by_b
        .lock()
        .unwrap()
        .iter()
        .all(|event| *event == cancel));
}

#[tokio::test]
async fn a_lost_redis_is_unavailable_then_comes_back() {
    let mut redis = Redis::start();
    let a = instance(&redis, "t6", 100).await;
    let (to_a, seen_by_a) = collector();
    a.bus.subscribe(Arc::downgrade(&to_a) as Deliver);
    a.tasks.insert(record("before", 60_000)).await.unwrap();
    redis.stop();
    let started = Instant::now();
    let error = a.tasks.get("before").await.unwrap_err();
    assert!(matches!(error, TaskStoreError::Unavailable(_)), "{error:?}");
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "gave up too late"
    );
    // A publish while Redis is gone is dropped, not a panic nor a hang.
    a.bus.publish(BusEvent::TaskAnswered {
        task_id: "lost".into(),
        runner: None,
    });
    redis.spawn();
    // The same stores work again (the connection manager reconnects by itself); the data
    // did not survive a Redis without persistence, which is what this Redis was told.
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        match a.tasks.insert(record("after", 60_000)).await {
            Ok(()) => break,
            Err(error) => {
                assert!(Instant::now() < deadline, "never came back: {error:?}");
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    }
    assert!(a.tasks.get("after").await.unwrap().is_some());
    // The bus subscribed again: another instance's event arrives.
    let b = instance(&redis, "t6", 100).await;
    let deadline = Instant::now() + Duration::from_secs(15);
    while seen_by_a.lock().unwrap().is_empty() {
        assert!(Instant::now() < deadline, "the bus never came back");
        b.bus.publish(BusEvent::ResourceUpdated {
            uri: "file:///x".into(),
        });
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn an_unreachable_redis_at_start_is_an_error_naming_it() {
    let port = {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let url = format!("redis://:secret@127.0.0.1:{port}/");
    let error = connect(&url, "t7", &Config::default())
        .await
        .expect_err("nothing listens there");
    let message = error.to_string();
    assert!(
        message.starts_with(&format!(
            "cannot reach Redis at redis://:***@127.0.0.1:{port}/"
        )),
        "{message}"
    );
    assert!(!message.contains("secret"), "{message}");
}

#[tokio::test]
async fn an_instance_that_stopped_loses_its_lease() {
    let redis = Redis::start();
    let b = instance(&redis, "t8", 100).await;
    let a = instance(&redis, "t8", 100).await;
    let a_name = a.tasks.instance().unwrap().to_string();
    let b_name = b.tasks.instance().unwrap().to_string();
    assert_ne!(a_name, b_name);
    // A's records name it as their runner.
    let mut task = record("ran-by-a", 60_000);
    task.runner = Some(a_name.clone());
    a.tasks.insert(task).await.unwrap();
    // A stops renewing (dropped); B has held its own lease less than a whole lease: it does
    // not judge yet.
    drop(a);
    assert!(b.tasks.is_alive(&a_name).await.unwrap());
    tokio::time::sleep(crate::stores::redis::LEASE + Duration::from_millis(500)).await;
    assert!(
        !b.tasks.is_alive(&a_name).await.unwrap(),
        "A's lease outlived it"
    );
    assert!(
        b.tasks.is_alive(&b_name).await.unwrap(),
        "B's own lease is renewed"
    );
    // A fresh instance cannot tell yet either way: it answers alive.
    let c = instance(&redis, "t8", 100).await;
    assert!(c.tasks.is_alive(&a_name).await.unwrap());
}

// ---- session-era sessions (`RedisSessionStore`) -----------------------------------------------

/// An instance whose sessions idle out after `idle`, with its shared side hearing the other
/// instances (as the engine wires it); the returned receiver must be kept.
async fn session_instance(redis: &Redis, prefix: &str, idle: Duration) -> (Stores, Receiver) {
    let config = Config::builder().session_idle_timeout(Some(idle)).build();
    let stores = connect(&redis.url(), prefix, &config).await.unwrap();
    let shared = stores.shared_sessions.clone().expect("sessions are shared");
    let deliver: Receiver = Arc::new(move |event| shared.on_bus_event(&event));
    stores.bus.subscribe(Arc::downgrade(&deliver) as Deliver);
    (stores, deliver)
}

/// Loads session `id` into `stores`' replicas: whether some instance knows it.
async fn load(stores: &Stores, id: &str) -> bool {
    match stores.shared_sessions.as_ref().unwrap().load(id) {
        Some(loading) => loading.await.unwrap(),
        None => true,
    }
}

/// A session created on `stores` as `initialize` creates one.
async fn create(stores: &Stores) -> Arc<Session> {
    let session = Arc::new(Session::new(
        ProtocolVersion::V2025_06_18,
        serde_json::json!({"elicitation": {}}),
        serde_json::json!({"name": "test-client", "version": "1"}),
        SessionLimits::default(),
    ));
    stores.sessions.insert(session.clone()).unwrap();
    let shared = stores.shared_sessions.as_ref().unwrap();
    shared.created(&session).await.unwrap();
    session
}

async fn until(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !done() {
        assert!(Instant::now() < deadline, "never: {what}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Waits until both instances' bus subscriptions carry events (they start asynchronously):
/// a change on `a` reaches `b`'s replica of `session`.
async fn buses_ready(a: &Stores, b: &Stores, session: &Arc<Session>) {
    let shared = a.shared_sessions.as_ref().unwrap();
    let replica = b.sessions.get(session.id()).unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut uri = 0;
    while !replica.is_subscribed(&format!("probe://{uri}")) {
        assert!(Instant::now() < deadline, "the bus never carried a change");
        uri += 1;
        let probe = format!("probe://{uri}");
        let change = SessionChange::Subscribed { uri: probe };
        session.apply(&change);
        shared.changed(session, change).await.unwrap();
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn a_session_created_on_one_instance_is_served_by_the_others() {
    let redis = Redis::start();
    let idle = Duration::from_secs(60);
    let (a, _ra) = session_instance(&redis, "s1", idle).await;
    let (b, _rb) = session_instance(&redis, "s1", idle).await;
    let session = create(&a).await;
    let id = session.id().to_string();
    assert!(
        a.shared_sessions.as_ref().unwrap().load(&id).is_none(),
        "A holds it: no round trip"
    );
    assert!(b.sessions.get(&id).is_none(), "B has not seen it yet");
    assert!(load(&b, &id).await, "B loads it from Redis");
    let replica = b.sessions.get(&id).expect("B holds a replica now");
    assert!(
        b.shared_sessions.as_ref().unwrap().load(&id).is_none(),
        "then no round trip"
    );
    assert!(replica.is_shared());
    assert_eq!(replica.version(), ProtocolVersion::V2025_06_18);
    assert_eq!(
        replica.client_capabilities(),
        &serde_json::json!({"elicitation": {}})
    );
    assert_eq!(replica.client_info()["name"], "test-client");
    assert!(
        !load(&b, "no-such-session").await,
        "unknown ids are not found"
    );
    // The record's time to live is the idle timeout.
    let mut redis_connection = connection_to(&redis).await;
    let ttl: i64 = ::redis::cmd("PTTL")
        .arg(session_key(&mut redis_connection, "s1", &id).await)
        .query_async(&mut redis_connection)
        .await
        .unwrap();
    assert!(ttl > 50_000 && ttl <= 60_000, "PTTL {ttl}");
}

#[tokio::test]
async fn changes_are_written_through_and_reach_every_replica() {
    let redis = Redis::start();
    let idle = Duration::from_secs(60);
    let (a, _ra) = session_instance(&redis, "s2", idle).await;
    let (b, _rb) = session_instance(&redis, "s2", idle).await;
    let session = create(&a).await;
    let id = session.id().to_string();
    assert!(load(&b, &id).await);
    buses_ready(&a, &b, &session).await;
    // A change on B reaches A's replica over the bus...
    let on_b = b.sessions.get(&id).unwrap();
    on_b.apply(&SessionChange::Subscribed {
        uri: "file:///b".into(),
    });
    let b_shared = b.shared_sessions.as_ref().unwrap();
    b_shared
        .changed(
            &on_b,
            SessionChange::Subscribed {
                uri: "file:///b".into(),
            },
        )
        .await
        .unwrap();
    b_shared
        .changed(&on_b, SessionChange::LogLevel { rank: 4 })
        .await
        .unwrap();
    until("A's replica has B's changes", || {
        session.is_subscribed("file:///b") && session.log_level() == Some(4)
    })
    .await;
    // ...and an instance that loads the session later reads it from Redis.
    let (c, _rc) = session_instance(&redis, "s2", idle).await;
    assert!(load(&c, &id).await);
    let on_c = c.sessions.get(&id).unwrap();
    assert!(on_c.is_subscribed("file:///b"));
    assert_eq!(on_c.log_level(), Some(4));
    b_shared
        .changed(
            &on_b,
            SessionChange::Unsubscribed {
                uri: "file:///b".into(),
            },
        )
        .await
        .unwrap();
    let (d, _rd) = session_instance(&redis, "s2", idle).await;
    assert!(load(&d, &id).await);
    assert!(!d.sessions.get(&id).unwrap().is_subscribed("file:///b"));
}

#[tokio::test]
async fn a_session_deleted_on_one_instance_is_gone_on_all() {
    let redis = Redis::start();
    let idle = Duration::from_secs(60);
    let (a, _ra) = session_instance(&redis, "s3", idle).await;
    let (b, _rb) = session_instance(&redis, "s3", idle).await;
    let session = create(&a).await;
    let id = session.id().to_string();
    assert!(load(&b, &id).await);
    buses_ready(&a, &b, &session).await;
    assert!(b
        .shared_sessions
        .as_ref()
        .unwrap()
        .delete(&id)
        .await
        .unwrap());
    assert!(b.sessions.get(&id).is_none(), "B's replica went at once");
    until("A dropped its replica", || a.sessions.get(&id).is_none()).await;
    let (c, _rc) = session_instance(&redis, "s3", idle).await;
    assert!(!load(&c, &id).await, "the record is gone");
    assert!(
        !b.shared_sessions
            .as_ref()
            .unwrap()
            .delete(&id)
            .await
            .unwrap(),
        "deleting again finds nothing"
    );
}

#[tokio::test]
async fn a_used_session_stays_and_an_idle_one_expires_in_redis() {
    let redis = Redis::start();
    let idle = Duration::from_millis(600);
    let (a, _ra) = session_instance(&redis, "s4", idle).await;
    let session = create(&a).await;
    let id = session.id().to_string();
    // Used on A for three idle timeouts: the lazy refresh keeps the record.
    let until_then = Instant::now() + idle * 3;
    while Instant::now() < until_then {
        assert!(a.sessions.get(&id).is_some());
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let (b, _rb) = session_instance(&redis, "s4", idle).await;
    assert!(load(&b, &id).await, "still in Redis while used");
    // Then unused everywhere: Redis forgets it.
    tokio::time::sleep(idle + Duration::from_millis(300)).await;
    let (c, _rc) = session_instance(&redis, "s4", idle).await;
    assert!(!load(&c, &id).await, "expired in Redis");
}

#[tokio::test]
async fn sessions_with_redis_gone_are_unavailable_then_come_back() {
    let mut redis = Redis::start();
    let idle = Duration::from_secs(60);
    let (a, _ra) = session_instance(&redis, "s5", idle).await;
    let held = create(&a).await;
    redis.stop();
    let shared = a.shared_sessions.as_ref().unwrap();
    // What A holds still serves without Redis; loading, creating and deleting need it.
    assert!(a.sessions.get(held.id()).is_some());
    let error = shared.load("elsewhere").unwrap().await.unwrap_err();
    assert!(matches!(error, StoreError::Unavailable(_)), "{error:?}");
    let fresh = Arc::new(Session::new(
        ProtocolVersion::V2025_11_25,
        serde_json::Value::Null,
        serde_json::Value::Null,
        SessionLimits::default(),
    ));
    a.sessions.insert(fresh.clone()).unwrap();
    assert!(shared.created(&fresh).await.is_err());
    assert!(
        a.sessions.get(fresh.id()).is_none(),
        "a session whose record was not written is not kept"
    );
    redis.spawn();
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let again = Arc::new(Session::new(
            ProtocolVersion::V2025_11_25,
            serde_json::Value::Null,
            serde_json::Value::Null,
            SessionLimits::default(),
        ));
        a.sessions.insert(again.clone()).unwrap();
        match shared.created(&again).await {
            Ok(()) => break,
            Err(error) => {
                assert!(Instant::now() < deadline, "never came back: {error:?}");
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    }
}

/// Collects what an event log delivers.
type LogReceiver = Arc<dyn Fn(Logged) + Send + Sync>;

fn log_collector() -> (LogReceiver, Arc<Mutex<Vec<Logged>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    let deliver: LogReceiver = Arc::new(move |logged| sink.lock().unwrap().push(logged));
    (deliver, seen)
}

fn tools_changed() -> Broadcast {
    Broadcast::ListChanged {
        method: "notifications/tools/list_changed".into(),
    }
}

fn updated(n: usize) -> Broadcast {
    Broadcast::ResourceUpdated {
        uri: format!("file:///{n}"),
    }
}

#[tokio::test]
async fn every_instance_reads_the_event_log_in_one_order_and_can_replay_it() {
    let redis = Redis::start();
    let (a, b) = (
        instance(&redis, "t10", 100).await,
        instance(&redis, "t10", 100).await,
    );
    let (log_a, log_b) = (a.events.clone().unwrap(), b.events.clone().unwrap());
    let (to_a, seen_by_a) = log_collector();
    let (to_b, seen_by_b) = log_collector();
    log_a.subscribe(Arc::downgrade(&to_a) as LogDeliver);
    log_b.subscribe(Arc::downgrade(&to_b) as LogDeliver);
    // The tails start asynchronously: append until both read one.
    until("both tails", || {
        log_a.append(tools_changed());
        !seen_by_a.lock().unwrap().is_empty() && !seen_by_b.lock().unwrap().is_empty()
    })
    .await;
    for n in 0..20 {
        let log = if n % 2 == 0 { &log_a } else { &log_b };
        log.append(updated(n));
    }
    let updates = |seen: &Mutex<Vec<Logged>>| -> Vec<Logged> {
        let seen = seen.lock().unwrap();
        let from = seen
            .iter()
            .position(|l| matches!(l.broadcast, Broadcast::ResourceUpdated { .. }));
        from.map_or_else(Vec::new, |from| seen[from..].to_vec())
    };
    until("20 updates on both", || {
        updates(&seen_by_a).len() >= 20 && updates(&seen_by_b).len() >= 20
    })
    .await;
    // The same entries, in the same order, each once, on both instances, its own included.
    let entries = updates(&seen_by_a);
    assert_eq!(entries, updates(&seen_by_b));
    assert_eq!(entries.len(), 20, "each once");
    assert!(entries.windows(2).all(|w| w[0].sequence < w[1].sequence));
    let mut uris: Vec<Broadcast> = entries.iter().map(|l| l.broadcast.clone()).collect();
    uris.sort_by_key(|b| format!("{b:?}"));
    let mut sent: Vec<Broadcast> = (0..20).map(updated).collect();
    sent.sort_by_key(|b| format!("{b:?}"));
    assert_eq!(uris, sent);
    // Replay after any entry: exactly what followed it.
    let replayed = log_b.after(entries[4].sequence).await.unwrap();
    assert_eq!(replayed, entries[5..]);
    assert_eq!(log_a.after(entries[19].sequence).await.unwrap(), []);
    // An id after the newest was never issued; one older than the log was dropped from it.
    assert_eq!(
        log_a.after(entries[19].sequence + 1).await,
        Err(ReplayError::Unknown)
    );
    assert_eq!(log_a.after(1).await, Err(ReplayError::Lost));
}

/// Bytes Redis has sent its clients so far (`INFO stats`).
async fn redis_output_bytes(connection: &mut ::redis::aio::MultiplexedConnection) -> u64 {
    let info: String = ::redis::cmd("INFO")
        .arg("stats")
        .query_async(connection)
        .await
        .unwrap();
    info.lines()
        .find_map(|line| line.strip_prefix("total_net_output_bytes:"))
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

/// A `Last-Event-ID` the log does not hold is answered without reading the log after it:
/// a client's GET with `0-1` costs two entries of Redis traffic, not the whole log.
#[tokio::test]
async fn an_unknown_replay_id_does_not_read_the_log() {
    let redis = Redis::start();
    let stores = instance(&redis, "t12", 100).await;
    let log = stores.events.clone().unwrap();
    let client = ::redis::Client::open(redis.url()).unwrap();
    let mut connection = client.get_multiplexed_async_connection().await.unwrap();
    let body = serde_json::to_string(&Broadcast::ResourceUpdated {
        uri: format!("file:///{}", "x".repeat(200)),
    })
    .unwrap();
    let mut pipe = ::redis::pipe();
    for _ in 0..3_000 {
        pipe.cmd("XADD")
            .arg("t12:events")
            .arg("*")
            .arg("b")
            .arg(&body)
            .ignore();
    }
    let () = pipe.query_async(&mut connection).await.unwrap();
    let before = redis_output_bytes(&mut connection).await;
    assert_eq!(log.after(1).await, Err(ReplayError::Lost));
    let sent = redis_output_bytes(&mut connection).await - before;
    // The INFO reply itself is a few KiB; 3,000 entries would be over 600 KiB.
    assert!(sent < 32 * 1024, "{sent} bytes read for an unknown id");
}

#[tokio::test]
async fn the_event_log_tail_survives_redis_going_away() {
    let mut redis = Redis::start();
    let (a, b) = (
        instance(&redis, "t11", 100).await,
        instance(&redis, "t11", 100).await,
    );
    let (log_a, log_b) = (a.events.clone().unwrap(), b.events.clone().unwrap());
    let (to_a, seen_by_a) = log_collector();
    log_a.subscribe(Arc::downgrade(&to_a) as LogDeliver);
    until("the tail", || {
        log_b.append(tools_changed());
        !seen_by_a.lock().unwrap().is_empty()
    })
    .await;
    let before = seen_by_a.lock().unwrap().last().unwrap().sequence;
    redis.stop();
    // Appending and replaying while Redis is gone: dropped and unavailable, no panic, no hang.
    log_b.append(updated(0));
    assert!(matches!(
        log_a.after(before).await,
        Err(ReplayError::Unavailable(_))
    ));
    redis.spawn();
    // This Redis kept nothing (no persistence): what the client had is lost, and said so.
    until("Redis back", || {
        log_b.append(updated(1));
        seen_by_a
            .lock()
            .unwrap()
            .iter()
            .any(|l| l.broadcast == updated(1))
    })
    .await;
    let after = seen_by_a.lock().unwrap().last().unwrap().sequence;
    assert!(
        after > before,
        "sequences grow across a restart (they are times)"
    );
    assert_eq!(log_a.after(before).await, Err(ReplayError::Lost));
}

#[tokio::test]
async fn the_bound_on_sessions_holds_across_instances() {
    let redis = Redis::start();
    let config = Config::builder()
        .max_sessions(3)
        .session_idle_timeout(Some(Duration::from_secs(60)))
        .build();
    let (a, b) = (
        connect(&redis.url(), "t12", &config).await.unwrap(),
        connect(&redis.url(), "t12", &config).await.unwrap(),
    );
    let first = create(&a).await;
    create(&b).await;
    create(&a).await;
    // The fourth, on either instance, is refused: the bound is the deployment's.
    for stores in [&a, &b] {
        let session = Arc::new(Session::new(
            ProtocolVersion::V2025_06_18,
            serde_json::json!({}),
            serde_json::json!({"name": "one too many", "version": "1"}),
            SessionLimits::default(),
        ));
        stores.sessions.insert(session.clone()).unwrap();
        let refused = stores
            .shared_sessions
            .as_ref()
            .unwrap()
            .created(&session)
            .await;
        assert_eq!(refused, Err(StoreError::Full));
        assert!(
            stores.sessions.get(session.id()).is_none(),
            "no replica of a refused session"
        );
    }
    // A session deleted anywhere makes room.
    assert!(b
        .shared_sessions
        .as_ref()
        .unwrap()
        .delete(first.id())
        .await
        .unwrap());
    create(&b).await;
}

// ---- TLS (`rediss://`) -------------------------------------------------------------------------------

#[tokio::test]
async fn rediss_is_tls_checked_against_the_given_ca() {
    let (redis, ca) = Redis::start_tls();
    let url = format!("rediss://127.0.0.1:{}/", redis.port);
    let config = Config::builder().build();
    // With the CA that signed the server's certificate: two instances share a task over TLS.
    let urls = [url.clone()];
    let options = crate::stores::redis::Options::new("tls").ca_pem(&ca);
    let a = crate::stores::redis::connect_to(&urls, &options, &config)
        .await
        .expect("rediss:// with the private CA");
    let b = crate::stores::redis::connect_to(&urls, &options, &config)
        .await
        .unwrap();
    a.tasks.insert(record("over-tls", 60_000)).await.unwrap();
    let seen = b
        .tasks
        .get("over-tls")
        .await
        .unwrap()
        .expect("B reads A's task");
    assert_eq!(seen.task_id, "over-tls");
    // Against the system's roots the private CA is unknown: refused, naming the URL.
    let error = connect(&url, "tls", &config).await.unwrap_err().to_string();
    assert!(
        error.starts_with(&format!("cannot reach Redis at {url}")),
        "{error}"
    );
    // A plain redis:// client on the TLS port gets nothing it can read.
    let plain = format!("redis://127.0.0.1:{}/", redis.port);
    assert!(connect(&plain, "tls", &config).await.is_err());
    // The system's roots are read as OpenSSL reads them: SSL_CERT_FILE names a private CA for
    // the binary's --redis rediss://... (no other test here speaks TLS).
    std::env::set_var("SSL_CERT_FILE", redis.dir().join("ca.pem"));
    let c = connect(&url, "tls", &config)
        .await
        .expect("rediss:// with SSL_CERT_FILE");
    assert!(c.tasks.get("over-tls").await.unwrap().is_some());
}

// ---- what a session record says of its owner -------------------------------------------------------

/// Every request acts for alice of issuer `https://as.example` (the credential is not looked at).
struct Alice;

impl crate::auth::Authenticator for Alice {
    fn authenticate<'a>(
        &'a self,
        _: &'a http::request::Parts,
    ) -> crate::BoxFuture<'a, Result<crate::auth::Principal, crate::auth::Refusal>> {
        Box::pin(async {
            Ok(crate::auth::Principal::new("alice", vec![])
                .with_claims(serde_json::json!({"iss": "https://as.example", "sub": "alice"})))
        })
    }
}

struct Nothing;

static NOTHING: crate::Catalog = crate::Catalog::empty("nothing", "1");

impl crate::Dispatch for Nothing {
    fn contract(&self) -> &'static crate::Contract {
        static CONTRACT: crate::Contract = crate::Contract::new(&NOTHING);
        &CONTRACT
    }
}

/// A session created with authorization on is stored in Redis under a digest of its owner
/// (SHA-256 of issuer and subject), never the subject: whoever reads Redis learns no identity.
#[tokio::test]
async fn a_session_record_names_its_owner_by_digest_only() {
    use sha2::Digest as _;
    let redis = Redis::start();
    let addr = serve_authorized(&redis, "owner", Alice).await;
    let answer = exchange(
        addr,
        "POST",
        "authorization: Bearer anything\r\n",
        INITIALIZE,
    )
    .await;
    let session = session_of(&answer);
    let mut connection = connection_to(&redis).await;
    let record: String = ::redis::cmd("HGET")
        .arg(session_key(&mut connection, "owner", &session).await)
        .arg("record")
        .query_async(&mut connection)
        .await
        .unwrap();
    let record: serde_json::Value = serde_json::from_str(&record).unwrap();
    let digest = hex(&sha2::Sha256::digest(b"https://as.example\nalice"));
    assert_eq!(record["owner"], serde_json::json!(digest), "{record}");
    assert!(!record.to_string().contains("alice"), "{record}");
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Every request acts for the subject its bearer token names (`Bearer alice`).
struct ByToken;

impl crate::auth::Authenticator for ByToken {
    fn authenticate<'a>(
        &'a self,
        request: &'a http::request::Parts,
    ) -> crate::BoxFuture<'a, Result<crate::auth::Principal, crate::auth::Refusal>> {
        Box::pin(async move {
            let subject = crate::auth::bearer_token(&request.headers)?
                .unwrap_or("nobody")
                .to_owned();
            Ok(crate::auth::Principal::new(subject.clone(), vec![])
                .with_claims(serde_json::json!({"iss": "https://as.example", "sub": subject})))
        })
    }
}

/// One raw HTTP/1.1 exchange: the response's head and body as text.
async fn exchange(addr: std::net::SocketAddr, method: &str, headers: &str, body: &str) -> String {
    let request = format!(
        "{method} /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\n{headers}connection: close\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    );
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    tokio::io::AsyncWriteExt::write_all(&mut stream, request.as_bytes())
        .await
        .unwrap();
    let mut answer = String::new();
    tokio::io::AsyncReadExt::read_to_string(&mut stream, &mut answer)
        .await
        .unwrap();
    answer
}

/// A connection of the test's own to `redis` (to read or change what the servers wrote).
async fn connection_to(redis: &Redis) -> ::redis::aio::MultiplexedConnection {
    ::redis::Client::open(redis.url())
        .unwrap()
        .get_multiplexed_async_connection()
        .await
        .unwrap()
}

/// The key of session `id`'s hash under `prefix`: `{prefix}:session:{{sN}}:{id}`, its bucket's
/// hash tag in the middle (found, not computed: the test checks the layout too).
async fn session_key(
    connection: &mut ::redis::aio::MultiplexedConnection,
    prefix: &str,
    id: &str,
) -> String {
    let keys: Vec<String> = ::redis::cmd("KEYS")
        .arg(format!("{prefix}:session:*:{id}"))
        .query_async(connection)
        .await
        .unwrap();
    assert_eq!(keys.len(), 1, "{keys:?}");
    let tag = &keys[0][format!("{prefix}:session:").len()..keys[0].len() - id.len() - 1];
    assert!(tag.starts_with("{s") && tag.ends_with('}'), "{keys:?}");
    keys[0].clone()
}

/// An `initialize` body.
const INITIALIZE: &str = r#"{"params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}},"jsonrpc":"2.0","id":1,"method":"initialize"}"#;

/// The session id a raw HTTP answer names.
fn session_of(answer: &str) -> String {
    answer
        .lines()
        .find_map(|line| {
            line.to_ascii_lowercase()
                .strip_prefix("mcp-session-id: ")
                .map(|id| id.trim().to_owned())
        })
        .unwrap_or_else(|| panic!("no session: {answer}"))
}

/// A server on 127.0.0.1 sharing `redis` under `prefix`, authenticating with `authenticator`.
async fn serve_authorized(
    redis: &Redis,
    prefix: &str,
    authenticator: impl crate::auth::Authenticator,
) -> std::net::SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let metadata = crate::auth::ResourceMetadata::new(
        &format!("http://{addr}/mcp"),
        vec!["https://as.example".into()],
    )
    .unwrap();
    let config = Config::builder()
        .auth(Some(crate::auth::Auth::new(metadata, authenticator)))
        .build();
    let stores = connect(&redis.url(), prefix, &config).await.unwrap();
    let server = crate::McpServer::builder(Nothing)
        .config(config)
        .stores(stores)
        .build();
    tokio::spawn(server.serve_listener(listener, std::future::pending()));
    addr
}

/// A DELETE is checked against the session's owner on whichever instance it lands, the one
/// that holds the session or not: another principal's DELETE is a 404 and ends nothing.
#[tokio::test]
async fn a_delete_by_another_principal_ends_nothing_on_any_instance() {
    let redis = Redis::start();
    let mut addrs = Vec::new();
    for _ in 0..2 {
        addrs.push(serve_authorized(&redis, "delete", ByToken).await);
    }
    let (a, b) = (addrs[0], addrs[1]);
    let answer = exchange(a, "POST", "authorization: Bearer alice\r\n", INITIALIZE).await;
    let session = session_of(&answer);
    let delete = |token: &str| {
        format!("authorization: Bearer {token}\r\nmcp-session-id: {session}\r\nmcp-protocol-version: 2025-11-25\r\n")
    };
    // On the instance that does not hold it, then on the one that does.
    for addr in [b, a] {
        let answer = exchange(addr, "DELETE", &delete("mallory"), "").await;
        assert!(answer.starts_with("HTTP/1.1 404"), "{answer}");
    }
    // The session lives: its owner ends it, from the other instance.
    let answer = exchange(b, "DELETE", &delete("alice"), "").await;
    assert!(answer.starts_with("HTTP/1.1 204"), "{answer}");

    // A record no instance can load (one a newer runtime wrote, say) has no owner to check:
    // nobody's DELETE ends it.
    let answer = exchange(a, "POST", "authorization: Bearer alice\r\n", INITIALIZE).await;
    let session = session_of(&answer);
    let mut connection = connection_to(&redis).await;
    let key = session_key(&mut connection, "delete", &session).await;
    let () = ::redis::cmd("HSET")
        .arg(&key)
        .arg("record")
        .arg(r#"{"from":"a newer runtime"}"#)
        .query_async(&mut connection)
        .await
        .unwrap();
    let header = format!("authorization: Bearer mallory\r\nmcp-session-id: {session}\r\nmcp-protocol-version: 2025-11-25\r\n");
    let answer = exchange(b, "DELETE", &header, "").await;
    assert!(answer.starts_with("HTTP/1.1 404"), "{answer}");
    let exists: bool = ::redis::cmd("EXISTS")
        .arg(&key)
        .query_async(&mut connection)
        .await
        .unwrap();
    assert!(exists, "the record was deleted by another principal");
}

/// Results over their budget (`crate::result_budget`) kept by one instance are read by
/// another, a page at a time (`GETRANGE`: the bytes asked for, multi-byte characters as
/// bytes), until they expire; another deployment's prefix sees nothing.
#[tokio::test]
async fn a_result_kept_by_one_instance_is_read_by_another_in_pages() {
    let redis = Redis::start();
    let (a, b) = (
        instance(&redis, "r1", 100).await,
        instance(&redis, "r1", 100).await,
    );
    let text: String = r#"{"s":"a é € 𝄞"}"#.repeat(1000);
    a.results
        .keep("id-1:-", &text, Duration::from_secs(60))
        .await
        .unwrap();
    let whole = b
        .results
        .read("id-1:-", 0, usize::MAX)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (whole.len, whole.bytes.as_slice()),
        (text.len(), text.as_bytes())
    );
    let mut joined = Vec::new();
    for start in (0..text.len()).step_by(4096) {
        let page = b
            .results
            .read("id-1:-", start, start + 4096)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(page.len, text.len());
        joined.extend_from_slice(&page.bytes);
    }
    assert_eq!(joined, text.as_bytes());
    let past = b
        .results
        .read("id-1:-", text.len() + 5, text.len() + 9)
        .await
        .unwrap()
        .unwrap();
    assert!(past.bytes.is_empty());
    assert!(b.results.read("id-2:-", 0, 10).await.unwrap().is_none());
    let other = instance(&redis, "r1-other", 100).await;
    assert!(other.results.read("id-1:-", 0, 10).await.unwrap().is_none());
    a.results
        .keep("short:-", "x", Duration::from_millis(100))
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(250)).await;
    assert!(b.results.read("short:-", 0, 1).await.unwrap().is_none());
}
