//! The SSE writer (`events.rs`: `encode_frame`, the session streams' frames and priming
//! events) against an independent SSE parser, the `sse-stream` crate: for any JSON text, the
//! written event reads back as one event whose data is the same JSON, however the bytes are
//! split into chunks on the way.

use bytes::Bytes;
use futures_util::{stream, FutureExt, StreamExt};
use mcp_runtime::session::events::{encode_frame, Delivery, Streams, CONNECTION_QUEUE};
use serde_json::Value;
use sse_stream::{Sse, SseByteStream};
use tokio::sync::mpsc;

/// The events an SSE client reads from `bytes` delivered in chunks cut at `cuts` (offsets,
/// any order, out-of-range ones ignored).
fn parse(bytes: &[u8], cuts: &[usize]) -> Vec<Sse> {
    let mut cuts: Vec<usize> = cuts.iter().copied().filter(|&c| c < bytes.len()).collect();
    cuts.sort_unstable();
    cuts.dedup();
    let mut chunks = Vec::new();
    let mut start = 0;
    for cut in cuts.into_iter().chain([bytes.len()]) {
        chunks.push(Ok::<_, std::io::Error>(Bytes::copy_from_slice(
            &bytes[start..cut],
        )));
        start = cut;
    }
    let mut events = SseByteStream::new(stream::iter(chunks));
    let mut read = Vec::new();
    // The chunks are all there: every poll is ready.
    while let Some(event) = events.next().now_or_never().expect("ready") {
        read.push(event.unwrap_or_else(|e| panic!("{bytes:?}: {e}")));
    }
    read
}

/// `json` is any JSON text (compact, pretty, with CR, LF or CRLF line breaks): the frame
/// `encode_frame` writes for it, and the frame a session stream writes for it, read back as
/// one `message` event with its id and the same JSON.
pub fn check_frame(json: &[u8], cuts: &[usize]) {
    let Ok(value) = serde_json::from_slice::<Value>(json) else {
        return;
    };
    let frame = encode_frame("7", json);
    let context = || {
        format!(
            "{:?} as {:?}",
            String::from_utf8_lossy(json),
            String::from_utf8_lossy(&frame)
        )
    };
    let events = parse(&frame, cuts);
    assert_eq!(events.len(), 1, "one event: {}", context());
    let event = &events[0];
    assert_eq!(event.id.as_deref(), Some("7"), "{}", context());
    assert_eq!(event.event.as_deref(), Some("message"), "{}", context());
    let data = event
        .data
        .as_deref()
        .unwrap_or_else(|| panic!("no data: {}", context()));
    let read: Value = serde_json::from_str(data)
        .unwrap_or_else(|e| panic!("data {data:?} is not JSON ({e}): {}", context()));
    assert_eq!(read, value, "{}", context());

    // A session's request stream: a priming event, then the message, in one chunk.
    let mut streams = Streams::new(8, 8);
    let body = streams.whole_stream(Some(1500), json);
    let events = parse(&body, cuts);
    assert_eq!(events.len(), 2, "priming and message: {}", context());
    assert_eq!(events[0].id.as_deref(), Some("1-1"));
    assert_eq!(events[0].retry, Some(1500));
    assert_eq!(events[1].id.as_deref(), Some("1-2"));
    let data = events[1].data.as_deref().expect("data");
    assert_eq!(
        serde_json::from_str::<Value>(data).ok().as_ref(),
        Some(&value),
        "{}",
        context()
    );

    // A frame pushed to a live stream.
    let (connection, mut rx) = mpsc::channel(CONNECTION_QUEUE);
    let stream = streams.open_request_stream(connection);
    assert!(streams.push(stream, json));
    let Ok(Delivery::Frame(frame)) = rx.try_recv() else {
        panic!("a frame")
    };
    let events = parse(&frame, cuts);
    assert_eq!(events.len(), 1, "{}", context());
    assert_eq!(events[0].id.as_deref(), Some("2-3"));
    let data = events[0].data.as_deref().expect("data");
    assert_eq!(
        serde_json::from_str::<Value>(data).ok().as_ref(),
        Some(&value),
        "{}",
        context()
    );
}
