//! Reading a `text/event-stream` body (the WHATWG event-stream format): bytes in as they
//! arrive, the `data` of each complete event out, and what a resumption needs: the last event
//! id and the server's `retry` hint. `event` is read past.

/// The most bytes one event (its lines not ended yet and its data) may hold: a server that
/// sends more without ending the event is cut off instead of filling the client's memory.
pub(crate) const MAX_EVENT_BYTES: usize = 64 * 1024 * 1024;

/// An event longer than [`MAX_EVENT_BYTES`].
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct EventTooLong;

/// An incremental event-stream parser.
#[derive(Default)]
pub(crate) struct SseParser {
    /// Bytes of a line not ended yet.
    pending: Vec<u8>,
    /// How many bytes of `pending` are known to hold no line end: a long line arriving in
    /// many chunks is scanned once, not once per chunk.
    scanned: usize,
    /// The `data` lines of the event being read, joined with `\n`.
    data: Option<String>,
    /// The last event id the stream set (an event without data, such as a priming event,
    /// sets it too).
    last_event_id: Option<String>,
    /// The server's `retry` hint, in milliseconds.
    retry_ms: Option<u64>,
}

impl SseParser {
    /// Feeds `chunk`; the data of every event it completes, in order. An event growing past
    /// [`MAX_EVENT_BYTES`] is an error (and the parser is left empty).
    pub(crate) fn feed(&mut self, chunk: &[u8]) -> Result<Vec<String>, EventTooLong> {
        let mut events = Vec::new();
        self.pending.extend_from_slice(chunk);
        let mut start = 0;
        let mut from = self.scanned;
        while let Some(end) = self.pending[from..]
            .iter()
            .position(|&b| b == b'\n' || b == b'\r')
            .map(|i| from + i)
        {
            // A `\r` at the buffer's end may be the first half of `\r\n`: wait for more.
            if self.pending[end] == b'\r' && end + 1 == self.pending.len() {
                from = end;
                break;
            }
            let line = String::from_utf8_lossy(&self.pending[start..end]).into_owned();
            start = end + 1;
            if self.pending[end] == b'\r' && self.pending.get(start) == Some(&b'\n') {
                start += 1;
            }
            self.line(&line, &mut events);
            from = start;
        }
        // Everything from `from` on was scanned but a trailing `\r`, which is looked at again.
        let scanned_to = if self.pending.last() == Some(&b'\r') {
            self.pending.len() - 1
        } else {
            self.pending.len()
        };
        self.pending.drain(..start);
        self.scanned = scanned_to.max(from) - start;
        let held = self.pending.len() + self.data.as_ref().map_or(0, String::len);
        if held > MAX_EVENT_BYTES {
            *self = Self::default();
            return Err(EventTooLong);
        }
        Ok(events)
    }

    /// The id to send as `Last-Event-ID` to resume after what was read.
    pub(crate) fn last_event_id(&self) -> Option<&str> {
        self.last_event_id.as_deref()
    }

    /// How long the server asked a client to wait before it reconnects.
    pub(crate) fn retry_ms(&self) -> Option<u64> {
        self.retry_ms
    }

    fn line(&mut self, line: &str, events: &mut Vec<String>) {
        if line.is_empty() {
            events.extend(self.data.take());
            return;
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line, ""),
        };
        match field {
            "data" => match &mut self.data {
                Some(data) => {
                    data.push('\n');
                    data.push_str(value);
                }
                None => self.data = Some(value.to_owned()),
            },
            // The standard ignores an id holding NULL; the id is kept as the stream sets it.
            "id" if !value.contains('\0') => self.last_event_id = Some(value.to_owned()),
            "retry" => {
                if let Ok(ms) = value.parse() {
                    self.retry_ms = Some(ms);
                }
            }
            // An empty field name is a comment (keep-alive); `event` is not needed.
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{EventTooLong, SseParser, MAX_EVENT_BYTES};

    #[test]
    fn events_split_across_chunks_and_line_ends() {
        let mut parser = SseParser::default();
        assert!(parser
            .feed(b": keep-alive\n\nid: 1\nda")
            .unwrap()
            .is_empty());
        assert_eq!(parser.feed(b"ta: {\"a\":\r").unwrap(), Vec::<String>::new());
        assert_eq!(
            parser.feed(b"\ndata:1}\r\n\r\n").unwrap(),
            vec!["{\"a\":\n1}"]
        );
        assert_eq!(
            parser
                .feed(b"event: message\ndata: x\n\ndata: y\r\r\n")
                .unwrap(),
            vec!["x", "y"]
        );
    }

    #[test]
    fn an_event_without_data_yields_nothing_but_sets_what_a_resumption_needs() {
        let mut parser = SseParser::default();
        assert!(parser.feed(b"retry: 1000\n\nid: 7\n\n").unwrap().is_empty());
        assert_eq!(parser.last_event_id(), Some("7"));
        assert_eq!(parser.retry_ms(), Some(1000));
        parser
            .feed(b"id: 1-2\ndata: {}\n\nretry: soon\n\n")
            .unwrap();
        assert_eq!(parser.last_event_id(), Some("1-2"));
        assert_eq!(
            parser.retry_ms(),
            Some(1000),
            "a retry that is not a number is ignored"
        );
    }

    #[test]
    fn a_long_line_is_scanned_once_and_bounded() {
        let mut parser = SseParser::default();
        // 1 MiB of one data line in 1 KiB chunks: each chunk is scanned once.
        parser.feed(b"data: ").unwrap();
        let chunk = [b'x'; 1024];
        for _ in 0..1024 {
            assert!(parser.feed(&chunk).unwrap().is_empty());
            assert_eq!(parser.scanned, parser.pending.len());
        }
        let events = parser.feed(b"\n\n").unwrap();
        assert_eq!(events.len(), 1);
        assert_eq!(events[0].len(), 1024 * 1024);
        // A `\r` split from its `\n` across chunks is one line end.
        assert!(parser.feed(b"data: a\r").unwrap().is_empty());
        assert_eq!(parser.feed(b"\n\n").unwrap(), vec!["a"]);
        // An event past the bound is an error, and leaves nothing held.
        let big = vec![b'y'; 8 * 1024 * 1024];
        parser.feed(b"data: ").unwrap();
        let mut result = Ok(Vec::new());
        for _ in 0..=MAX_EVENT_BYTES / big.len() {
            result = parser.feed(&big);
            if result.is_err() {
                break;
            }
        }
        assert_eq!(result, Err(EventTooLong));
        assert!(parser.pending.is_empty() && parser.data.is_none());
    }
}
