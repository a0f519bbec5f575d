//! MCP protocol revisions and the era each belongs to.

use std::fmt;

/// A revision of the MCP specification this runtime speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ProtocolVersion {
    /// 2024-11-05: sessions, served with 2025-03-26's shapes minus what 2024-11-05 lacks
    /// (batches, tool annotations, audio content, the `completions` capability). Its
    /// HTTP+SSE transport is opt-in (`config.endpoints.legacy_sse`); it negotiates on every
    /// transport.
    V2024_11_05,
    /// 2025-03-26: sessions, batches, no structured tool output.
    V2025_03_26,
    /// 2025-06-18: titles, `outputSchema`, object `structuredContent`, elicitation.
    V2025_06_18,
    /// 2025-11-25: icons, JSON Schema 2020-12 by default, SSE polling.
    V2025_11_25,
    /// 2026-07-28: stateless, `_meta` on every request, `server/discover`.
    V2026_07_28,
}

impl ProtocolVersion {
    /// Every supported revision, oldest first.
    pub const ALL: [ProtocolVersion; 5] = [
        ProtocolVersion::V2024_11_05,
        ProtocolVersion::V2025_03_26,
        ProtocolVersion::V2025_06_18,
        ProtocolVersion::V2025_11_25,
        ProtocolVersion::V2026_07_28,
    ];

    /// The newest revision that uses `initialize` and sessions.
    pub const LATEST_SESSION_ERA: ProtocolVersion = ProtocolVersion::V2025_11_25;

    /// The wire spelling, e.g. `"2025-06-18"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            ProtocolVersion::V2024_11_05 => "2024-11-05",
            ProtocolVersion::V2025_03_26 => "2025-03-26",
            ProtocolVersion::V2025_06_18 => "2025-06-18",
            ProtocolVersion::V2025_11_25 => "2025-11-25",
            ProtocolVersion::V2026_07_28 => "2026-07-28",
        }
    }

    /// Parses the wire spelling; `None` for a revision this runtime does not speak.
    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|v| v.as_str() == text)
    }

    /// Position in [`ProtocolVersion::ALL`], for tables indexed by revision.
    pub const fn index(self) -> usize {
        self as usize
    }

    /// True for the stateless revision (2026-07-28 and later).
    pub const fn is_stateless(self) -> bool {
        matches!(self, ProtocolVersion::V2026_07_28)
    }
}

/// Whether `version` (as a header spells it) names a revision whose requests belong to a
/// session.
pub(crate) fn names_session_era(version: &str) -> bool {
    matches!(
        version,
        "2024-11-05" | "2025-03-26" | "2025-06-18" | "2025-11-25"
    )
}

impl fmt::Display for ProtocolVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The path of the MCP endpoint under the runtime's own listener (a server embedded in another
/// router answers wherever it is mounted; see `http::routes`).
pub const ENDPOINT: &str = "/mcp";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_revision_and_rejects_others() {
        for v in ProtocolVersion::ALL {
            assert_eq!(ProtocolVersion::parse(v.as_str()), Some(v));
            assert_eq!(ProtocolVersion::ALL[v.index()], v);
        }
        assert_eq!(
            ProtocolVersion::parse("2024-11-05"),
            Some(ProtocolVersion::V2024_11_05)
        );
        assert_eq!(ProtocolVersion::parse("2024-10-07"), None);
        for v in ProtocolVersion::ALL {
            assert_eq!(names_session_era(v.as_str()), !v.is_stateless());
        }
        assert!(ProtocolVersion::V2026_07_28.is_stateless());
        assert!(!ProtocolVersion::LATEST_SESSION_ERA.is_stateless());
    }
}
