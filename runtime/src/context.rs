//! The context handed to every handler call.

use crate::protocol::ProtocolVersion;

/// What a handler knows about the request it serves.
///
/// The transports fill it in; handlers read it. It grows with the transports (progress,
/// logging, client requests, cancellation) without changing the handler signatures.
#[derive(Debug, Clone)]
pub struct RequestContext {
    protocol_version: ProtocolVersion,
}

impl RequestContext {
    /// A context for a request negotiated at `protocol_version`.
    pub fn new(protocol_version: ProtocolVersion) -> Self {
        Self { protocol_version }
    }

    /// The protocol revision of the request.
    pub fn protocol_version(&self) -> ProtocolVersion {
        self.protocol_version
    }
}

impl Default for RequestContext {
    /// A context at the newest revision.
    fn default() -> Self {
        Self::new(ProtocolVersion::V2026_07_28)
    }
}
