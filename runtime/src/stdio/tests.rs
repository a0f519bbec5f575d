use super::*;
use std::time::Duration;
use tokio::io::AsyncReadExt;

#[tokio::test]
async fn a_reader_that_stops_reading_fills_the_backlog_and_loses_nothing() {
    let (tx, rx) = mpsc::unbounded_channel::<String>();
    let (output, mut client) = tokio::io::duplex(64);
    let backlog = Arc::new(Backlog::new(4096));
    let writer = tokio::spawn(write_lines(rx, output, backlog.clone()));
    let line = "x".repeat(99);
    for _ in 0..100 {
        tx.send(line.clone()).unwrap();
    }
    // The client reads nothing: the lines wait, counted, and the reader would wait.
    tokio::time::sleep(Duration::from_millis(100)).await;
    let queued = backlog.bytes.load(Ordering::Acquire);
    assert!(queued > 9_000, "{queued} bytes counted");
    let room = tokio::time::timeout(Duration::from_millis(100), backlog.room()).await;
    assert!(room.is_err(), "no room while the client does not read");
    // Once the client reads, everything arrives, in order, and there is room again.
    drop(tx);
    let mut text = String::new();
    client.read_to_string(&mut text).await.unwrap();
    assert_eq!(text, format!("{line}\n").repeat(100));
    writer.await.unwrap().unwrap();
    assert_eq!(backlog.bytes.load(Ordering::Acquire), 0);
    backlog.room().await;
}

#[tokio::test]
async fn a_failed_output_never_leaves_the_reader_waiting() {
    let (tx, rx) = mpsc::unbounded_channel::<String>();
    let (output, client) = tokio::io::duplex(16);
    let backlog = Arc::new(Backlog::new(10));
    let writer = tokio::spawn(write_lines(rx, output, backlog.clone()));
    tx.send("a line longer than the pipe".into()).unwrap();
    drop(client);
    assert!(writer.await.unwrap().is_err());
    tokio::time::timeout(Duration::from_secs(1), backlog.room())
        .await
        .expect("room once the output is gone");
}

#[test]
fn the_in_flight_table_refuses_a_running_id_and_forgets_answered_ones() {
    let (tx, _rx) = mpsc::unbounded_channel::<String>();
    let table = Arc::new(InFlight::default());
    let first = Outbound::lines(tx.clone());
    let registered = table.register("1".into(), &first).unwrap();
    assert!(table.register("1".into(), &first).is_none());
    drop(registered);
    assert!(table.is_empty());
    // Cancelled, then reused: the first one's entry leaving does not take the second.
    let again = table.register("1".into(), &first).unwrap();
    table.cancel("1");
    assert!(table.is_empty());
    let second = table.register("1".into(), &Outbound::lines(tx)).unwrap();
    drop(again);
    assert!(!table.is_empty());
    drop(second);
    assert!(table.is_empty());
}

#[test]
fn cancellations_name_their_request() {
    let params =
        serde_json::value::RawValue::from_string(r#"{"requestId": "a", "reason": "x"}"#.into())
            .unwrap();
    let named = cancelled_id(Some(&params)).map(id_key);
    assert_eq!(named.as_deref(), Some("\"a\""));
    let bad = serde_json::value::RawValue::from_string("{}".into()).unwrap();
    assert!(cancelled_id(Some(&bad)).is_none());
    assert!(cancelled_id(None).is_none());
}
