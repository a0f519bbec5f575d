//! SSE frames as the streams write them: `id: <stream>-<sequence>`, `event: message`, the
//! JSON as `data:` lines, and the priming event that opens a stream.

use bytes::Bytes;

/// Room for everything of a frame but its data: `id: `, the two numbers, `event: message`,
/// `data: ` and the newlines (or the `retry:` line of a priming event).
pub(super) const FRAME_OVERHEAD: usize = 64;

/// `id: ...\nevent: message\ndata: <json>\n\n`. JSON from serde_json never contains a raw
/// line break, so a message is nearly always one `data:` line (see `write_data` for the rest).
pub fn encode_frame(id: &str, json: &[u8]) -> Bytes {
    let mut out = Vec::with_capacity(json.len() + id.len() + FRAME_OVERHEAD);
    write_message(&mut out, |out| out.extend_from_slice(id.as_bytes()), json);
    Bytes::from(out)
}

/// Appends the message event `<stream>-<sequence>` carrying `json` to `out`.
pub(super) fn write_frame(out: &mut Vec<u8>, stream: u32, sequence: u64, json: &[u8]) {
    write_message(out, |out| write_event_id(out, stream, sequence), json);
}

/// Appends a message event whose id `write_id` writes: the one place that knows the format.
pub(super) fn write_message(out: &mut Vec<u8>, write_id: impl FnOnce(&mut Vec<u8>), json: &[u8]) {
    out.extend_from_slice(b"id: ");
    write_id(out);
    out.extend_from_slice(b"\nevent: message\ndata: ");
    write_data(out, json);
    out.extend_from_slice(b"\n\n");
}

/// Appends `json` as an event's data. JSON that serde_json wrote has no raw line break; other
/// JSON (a pretty result from a hand-written `Dispatch`) is split at its line breaks (CRLF, LF
/// or CR), one `data:` line each, so that the event stays one event and a client joining its
/// lines with `\n` reads the same JSON.
pub(super) fn write_data(out: &mut Vec<u8>, json: &[u8]) {
    // One SIMD pass for both bytes: two `memchr` calls of core cost 250 instructions per SSE
    // answer, a byte loop more.
    if memchr::memchr2(b'\n', b'\r', json).is_none() {
        out.extend_from_slice(json);
        return;
    }
    let mut rest = json;
    while let Some(end) = memchr::memchr2(b'\n', b'\r', rest) {
        out.extend_from_slice(&rest[..end]);
        out.extend_from_slice(b"\ndata: ");
        let skip = match &rest[end..] {
            [b'\r', b'\n', ..] => 2,
            _ => 1,
        };
        rest = &rest[end + skip..];
    }
    out.extend_from_slice(rest);
}

/// Appends the priming event `<stream>-<sequence>` (empty data, a `retry` hint) to `out`.
pub(super) fn write_priming(out: &mut Vec<u8>, stream: u32, sequence: u64, retry_ms: u64) {
    out.extend_from_slice(b"id: ");
    write_event_id(out, stream, sequence);
    out.extend_from_slice(b"\nretry: ");
    write_decimal(out, retry_ms);
    out.extend_from_slice(b"\ndata: \n\n");
}

pub(super) fn write_event_id(out: &mut Vec<u8>, stream: u32, sequence: u64) {
    write_decimal(out, stream.into());
    out.push(b'-');
    write_decimal(out, sequence);
}

/// Appends `n` in decimal (what `write!` does, without the formatting machinery on the path of
/// every SSE answer). The digits are pushed one by one: ids and retry times are a few digits
/// long, and a call to `memcpy` would cost more than they do.
pub(super) fn write_decimal(out: &mut Vec<u8>, mut n: u64) {
    if n < 10 {
        out.push(b'0' + n as u8);
        return;
    }
    let mut digits = [0u8; 20];
    let mut start = digits.len();
    while n > 0 {
        start -= 1;
        digits[start] = b'0' + (n % 10) as u8;
        n /= 10;
    }
    for &digit in &digits[start..] {
        out.push(digit);
    }
}
