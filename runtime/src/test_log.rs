//! What the runtime logs, as a unit test sees it: [`with_log`] runs code under a subscriber
//! that writes into a buffer.

use std::sync::{Arc, Mutex};

/// The log written so far.
#[derive(Clone, Default)]
pub(crate) struct Log(Arc<Mutex<Vec<u8>>>);

impl Log {
    /// The log's text so far.
    pub(crate) fn text(&self) -> String {
        String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
    }
}

impl std::io::Write for Log {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Runs `f` with every event of this thread written into a [`Log`] (no colours), which `f`
/// can read as it goes; returns what `f` returns and the whole log.
pub(crate) fn with_log<R>(f: impl FnOnce(&Log) -> R) -> (R, String) {
    let log = Log::default();
    let writer = log.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .finish();
    let out = tracing::subscriber::with_default(subscriber, || f(&log));
    (out, log.text())
}
