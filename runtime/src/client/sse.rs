//! Reading a `text/event-stream` body (the WHATWG event-stream format): bytes in as they
//! arrive, the `data` of each complete event out, and what a resumption needs: the last event
//! id and the server's `retry` hint. `event` is read past.

/// An incremental event-stream parser.
#[derive(Default)]
pub(crate) struct SseParser {
    /// Bytes of a line not ended yet.
    pending: Vec<u8>,
    /// The `data` lines of the event being read, joined with `\n`.
    data: Option<String>,
    /// The last event id the stream set (an event without data, such as a priming event,
    /// sets it too).
    last_event_id: Option<String>,
    /// The server's `retry` hint, in milliseconds.
    retry_ms: Option<u64>,
}

impl SseParser {
    /// Feeds `chunk`; the data of every event it completes, in order.
    pub(crate) fn feed(&mut self, chunk: &[u8]) -> Vec<String> {
        let mut events = Vec::new();
        self.pending.extend_from_slice(chunk);
        let mut start = 0;
        while let Some(end) = self.pending[start..]
            .iter()
            .position(|&b| b == b'\n' || b == b'\r')
            .map(|i| start + i)
        {
            // A `\r` at the buffer's end may be the first half of `\r\n`: wait for more.
            if self.pending[end] == b'\r' && end + 1 == self.pending.len() {
                break;
            }
            let line = String::from_utf8_lossy(&self.pending[start..end]).into_owned();
            start = end + 1;
            if self.pending[end] == b'\r' && self.pending.get(start) == Some(&b'\n') {
                start += 1;
            }
            self.line(&line, &mut events);
        }
        self.pending.drain(..start);
        events
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
    use super::SseParser;

    #[test]
    fn events_split_across_chunks_and_line_ends() {
        let mut parser = SseParser::default();
        assert!(parser.feed(b": keep-alive\n\nid: 1\nda").is_empty());
        assert_eq!(parser.feed(b"ta: {\"a\":\r"), Vec::<String>::new());
        assert_eq!(parser.feed(b"\ndata:1}\r\n\r\n"), vec!["{\"a\":\n1}"]);
        assert_eq!(
            parser.feed(b"event: message\ndata: x\n\ndata: y\r\r\n"),
            vec!["x", "y"]
        );
    }

    #[test]
    fn an_event_without_data_yields_nothing_but_sets_what_a_resumption_needs() {
        let mut parser = SseParser::default();
        assert!(parser.feed(b"retry: 1000\n\nid: 7\n\n").is_empty());
        assert_eq!(parser.last_event_id(), Some("7"));
        assert_eq!(parser.retry_ms(), Some(1000));
        parser.feed(b"id: 1-2\ndata: {}\n\nretry: soon\n\n");
        assert_eq!(parser.last_event_id(), Some("1-2"));
        assert_eq!(
            parser.retry_ms(),
            Some(1000),
            "a retry that is not a number is ignored"
        );
    }
}
