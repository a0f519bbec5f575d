use super::frame::write_decimal;
use super::*;

/// The data of the one event in `frame`, its `data:` lines joined with `\n`, as an SSE
/// client reads it.
fn event_data(frame: &[u8]) -> String {
    let text = std::str::from_utf8(frame).unwrap();
    assert!(text.ends_with("\n\n") && !text[..text.len() - 2].contains("\n\n"));
    let data: Vec<&str> = text
        .lines()
        .filter_map(|line| line.strip_prefix("data: "))
        .collect();
    data.join("\n")
}

#[test]
fn any_json_stays_one_event_with_the_same_data() {
    let compact = br#"{"jsonrpc":"2.0","id":1,"result":{}}"#;
    assert_eq!(event_data(&encode_frame("1", compact)).as_bytes(), compact);
    for (pretty, read) in [
        ("{\n  \"a\": 1\n}", "{\n  \"a\": 1\n}"),
        ("{\r\n\"a\":1\r\n}", "{\n\"a\":1\n}"),
        ("{\r\"a\":1\r}\n", "{\n\"a\":1\n}\n"),
    ] {
        let frame = encode_frame("7", pretty.as_bytes());
        assert_eq!(event_data(&frame), read, "{pretty:?}");
        let parsed: serde_json::Value = serde_json::from_str(&event_data(&frame)).unwrap();
        assert_eq!(parsed, serde_json::json!({"a": 1}));
    }
}

fn text(d: Delivery) -> String {
    match d {
        Delivery::Frame(b) => String::from_utf8(b.to_vec()).unwrap(),
        other => format!("{other:?}"),
    }
}

/// The event ids in `bytes`, in order.
fn ids(bytes: &[u8]) -> Vec<String> {
    std::str::from_utf8(bytes)
        .unwrap()
        .lines()
        .filter_map(|line| line.strip_prefix("id: "))
        .map(str::to_string)
        .collect()
}

#[tokio::test]
async fn a_standalone_stream_of_the_shared_log_carries_each_entry_once_under_its_number() {
    let mut streams = Streams::new(128, 16);
    // Waiting for a GET, then sent when it opens, under the log's numbers.
    assert!(!streams.push_logged(10, b"{}"));
    let (tx, mut rx) = mpsc::channel(CONNECTION_QUEUE);
    assert_eq!(ids(&streams.open_get(None, tx).unwrap()), ["0-10"]);
    assert!(!streams.push_logged(10, b"{}"), "once");
    assert!(streams.push_logged(12, b"{}"));
    assert_eq!(ids(text(rx.recv().await.unwrap()).as_bytes()), ["0-12"]);
    assert_eq!(streams.window_len(), 0, "the log is the window");
    // The client lost 12 and comes back after 10 (here, or on another instance): the
    // replay has 12 and what followed; entries already sent are not sent twice after it.
    assert!(
        streams.push_logged(13, b"{}"),
        "sent, and lost with the connection"
    );
    let (tx2, mut rx2) = mpsc::channel(CONNECTION_QUEUE);
    let replay = [(12, "{}".to_string()), (13, "{}".to_string())];
    let head = streams.resume_standalone(tx2, 10, &replay);
    assert_eq!(ids(&head), ["0-12", "0-13"]);
    assert!(
        matches!(rx.recv().await.unwrap(), Delivery::Frame(_)),
        "13, live"
    );
    assert!(
        matches!(rx.recv().await.unwrap(), Delivery::End),
        "the old GET ended"
    );
    assert!(!streams.push_logged(13, b"{}"), "replayed already");
    assert!(streams.push_logged(14, b"{}"));
    assert_eq!(ids(text(rx2.recv().await.unwrap()).as_bytes()), ["0-14"]);
}

#[test]
fn entries_that_waited_for_a_resumption_follow_its_replay_once() {
    let mut streams = Streams::new(128, 16);
    for sequence in [20, 21, 23] {
        streams.push_logged(sequence, b"{}");
    }
    let replay = [(20, "{}".to_string()), (21, "{}".to_string())];
    let head = streams.resume_standalone(mpsc::channel(4).0, 19, &replay);
    assert_eq!(ids(&head), ["0-20", "0-21", "0-23"]);
}

#[tokio::test]
async fn frames_replay_after_the_last_event_id_of_their_own_stream() {
    let mut streams = Streams::new(128, 16);
    let (tx, mut rx) = mpsc::channel(CONNECTION_QUEUE);
    let s = streams.open_request_stream(tx);
    assert!(streams.prime(s, 500));
    assert!(text(rx.recv().await.unwrap()).starts_with("id: 1-1\nretry: 500\ndata: \n\n"));
    streams.detach(s);
    assert!(matches!(rx.recv().await.unwrap(), Delivery::Detach));
    // Published while detached: kept for replay only.
    assert!(!streams.push(s, br#"{"a":1}"#));
    let (tx2, mut rx2) = mpsc::channel(CONNECTION_QUEUE);
    let replay = streams.open_get(Some("1-1"), tx2).unwrap();
    assert_eq!(replay, b"id: 1-2\nevent: message\ndata: {\"a\":1}\n\n");
    assert!(streams.push(s, br#"{"b":2}"#));
    assert!(text(rx2.recv().await.unwrap()).contains(r#"{"b":2}"#));
    streams.end(s);
    assert!(matches!(rx2.recv().await.unwrap(), Delivery::End));
    for unknown in ["garbage", "9-1", "1-99", "-1", "1-"] {
        assert_eq!(
            streams.open_get(Some(unknown), mpsc::channel(1).0),
            Err(ResumeError::Unknown),
            "{unknown}"
        );
    }
}

#[tokio::test]
async fn standalone_messages_wait_for_a_get_stream_and_a_second_get_ends_the_first() {
    let mut streams = Streams::new(4, 2);
    assert!(!streams.push(STANDALONE, b"1"));
    assert!(!streams.push(STANDALONE, b"2"));
    assert!(!streams.push(STANDALONE, b"3")); // bounded: "1" is dropped (and logged)
    let (tx, mut rx) = mpsc::channel(CONNECTION_QUEUE);
    let head = String::from_utf8(streams.open_get(None, tx).unwrap()).unwrap();
    assert_eq!(
        head,
        "id: 0-1\nevent: message\ndata: 2\n\nid: 0-2\nevent: message\ndata: 3\n\n"
    );
    let (tx2, _rx2) = mpsc::channel(CONNECTION_QUEUE);
    streams.open_get(None, tx2).unwrap();
    assert!(matches!(rx.recv().await.unwrap(), Delivery::End));
    for i in 0..10 {
        streams.push(STANDALONE, format!("{i}").as_bytes());
    }
    assert_eq!(streams.window_len(), 4, "the replay window is bounded");
}

#[tokio::test]
async fn a_whole_stream_is_one_chunk_whose_events_replay_one_by_one() {
    let mut streams = Streams::new(8, 2);
    let body = streams.whole_stream(Some(3000), br#"{"ok":true}"#);
    assert_eq!(
        &body[..],
        b"id: 1-1\nretry: 3000\ndata: \n\nid: 1-2\nevent: message\ndata: {\"ok\":true}\n\n"
    );
    let (tx, mut rx) = mpsc::channel(CONNECTION_QUEUE);
    let replay = streams.open_get(Some("1-1"), tx).unwrap();
    assert_eq!(replay, b"id: 1-2\nevent: message\ndata: {\"ok\":true}\n\n");
    assert!(matches!(rx.recv().await.unwrap(), Delivery::End));
    let unprimed = streams.whole_stream(None, b"{}");
    assert_eq!(&unprimed[..], b"id: 2-3\nevent: message\ndata: {}\n\n");
}

#[tokio::test]
async fn a_resumption_replays_the_whole_rest_or_says_it_cannot() {
    let mut streams = Streams::new(3, 2);
    let (tx, _rx) = mpsc::channel(CONNECTION_QUEUE);
    let s = streams.open_request_stream(tx);
    streams.detach(s);
    for data in ["\"first\"", "[2]", "{\"third\":3}", "4444", "5"] {
        streams.push(s, data.as_bytes());
    }
    assert_eq!(streams.window_len(), 3);
    // 1-2 rolled out: resuming after 1-1 would skip it.
    assert_eq!(
        streams.open_get(Some("1-1"), mpsc::channel(1).0),
        Err(ResumeError::Lost)
    );
    let (tx2, _rx2) = mpsc::channel(CONNECTION_QUEUE);
    let replay = String::from_utf8(streams.open_get(Some("1-2"), tx2).unwrap()).unwrap();
    assert_eq!(
            replay,
            "id: 1-3\nevent: message\ndata: {\"third\":3}\n\nid: 1-4\nevent: message\ndata: 4444\n\nid: 1-5\nevent: message\ndata: 5\n\n"
        );
    // Another stream's losses do not make this one's resumption fail.
    let (tx3, _rx3) = mpsc::channel(CONNECTION_QUEUE);
    let other = streams.open_request_stream(tx3);
    streams.push(other, b"1");
    streams.end(s);
    for _ in 0..3 {
        streams.push(other, b"2");
    }
    assert_eq!(
        streams.open_get(Some("1-5"), mpsc::channel(1).0),
        Err(ResumeError::Lost),
        "an ended stream whose events all rolled out cannot say what was lost"
    );
    assert!(streams.open_get(Some("2-6"), mpsc::channel(4).0).is_ok());
}

#[tokio::test]
async fn a_replay_longer_than_a_connection_queue_arrives_whole() {
    let mut streams = Streams::new(1000, 2);
    let (tx, _rx) = mpsc::channel(CONNECTION_QUEUE);
    let s = streams.open_request_stream(tx);
    streams.detach(s);
    streams.prime(s, 10);
    for i in 0..500 {
        streams.push(s, format!("{i}").as_bytes());
    }
    let replay = streams
        .open_get(Some("1-1"), mpsc::channel(CONNECTION_QUEUE).0)
        .unwrap();
    let events = String::from_utf8(replay)
        .unwrap()
        .matches("event: message")
        .count();
    assert_eq!(events, 500);
}

#[tokio::test]
async fn a_client_too_slow_for_its_queue_is_cut_and_resumes_from_the_window() {
    let mut streams = Streams::new(1000, 2);
    let (tx, mut rx) = mpsc::channel(CONNECTION_QUEUE);
    let s = streams.open_request_stream(tx);
    let delivered = (0..CONNECTION_QUEUE + 10)
        .map(|i| streams.push(s, format!("{i}").as_bytes()))
        .filter(|&sent| sent)
        .count();
    assert_eq!(
        delivered,
        CONNECTION_QUEUE - 1,
        "one slot stays for the end"
    );
    // The connection's channel closes without an `End`: the response is cut.
    let mut frames = 0;
    while let Some(delivery) = rx.recv().await {
        assert!(matches!(delivery, Delivery::Frame(_)), "{delivery:?}");
        frames += 1;
    }
    assert_eq!(frames, CONNECTION_QUEUE - 1);
    // The final answer is kept, and a resumption gets everything after the last frame.
    streams.push(s, b"\"answer\"");
    streams.end(s);
    let last = format!("1-{}", CONNECTION_QUEUE - 1);
    let replay =
        String::from_utf8(streams.open_get(Some(&last), mpsc::channel(1).0).unwrap()).unwrap();
    assert_eq!(replay.matches("event: message").count(), 12);
    assert!(replay.ends_with("data: \"answer\"\n\n"));
}

#[test]
fn replay_bookkeeping_is_bounded_by_the_window() {
    let mut streams = Streams::new(8, 2);
    for _ in 0..10_000 {
        let (tx, _rx) = mpsc::channel(CONNECTION_QUEUE);
        let s = streams.open_request_stream(tx);
        streams.prime(s, 10);
        streams.push(s, b"{}");
        streams.end(s);
    }
    assert!(
        streams.tracked_streams() <= 8,
        "{}",
        streams.tracked_streams()
    );
    assert!(streams.live.is_empty());
}

#[test]
fn decimals() {
    for n in [0, 7, 9, 10, 99, 100, 12_345, 4_294_967_295, u64::MAX] {
        let mut out = Vec::new();
        write_decimal(&mut out, n);
        assert_eq!(out, n.to_string().into_bytes());
    }
}
