//! Reading a `text/event-stream` body (the WHATWG event-stream format): bytes in as they
//! arrive, the `data` of each complete event out. `id`, `event` and `retry` are not needed by
//! a client that does not resume, so they are read past.

/// An incremental event-stream parser.
#[derive(Default)]
pub(crate) struct SseParser {
    /// Bytes of a line not ended yet.
    pending: Vec<u8>,
    /// The `data` lines of the event being read, joined with `\n`.
    data: Option<String>,
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

    fn line(&mut self, line: &str, events: &mut Vec<String>) {
        if line.is_empty() {
            events.extend(self.data.take());
            return;
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line, ""),
        };
        if field == "data" {
            match &mut self.data {
                Some(data) => {
                    data.push('\n');
                    data.push_str(value);
                }
                None => self.data = Some(value.to_owned()),
            }
        }
        // An empty field name is a comment (keep-alive); other fields are not needed.
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
    fn an_event_without_data_yields_nothing() {
        let mut parser = SseParser::default();
        assert!(parser.feed(b"retry: 1000\n\nid: 7\n\n").is_empty());
    }
}
