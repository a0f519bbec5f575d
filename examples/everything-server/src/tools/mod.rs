//! The tools, grouped as FIXTURE.md groups them: served on every wire (§2.1), needing a session
//! (§2.2), the 2026-07-28 diagnostic tools (§2.3), multi round-trip tools (§2.5) and the
//! tasks-extension tools (FIXTURE.md §3, "Extensions").

use std::time::Duration;

pub(crate) mod every_wire;
pub(crate) mod round_trip;
pub(crate) mod session;
pub(crate) mod stateless;
pub(crate) mod tasks;

/// The logger name on the log messages the server sends.
const LOGGER: &str = "conformance-test-server";

/// The pause between the steps of the progress and logging tools.
const STEP: Duration = Duration::from_millis(50);
