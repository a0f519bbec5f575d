//! The settings of the rate limits ([`RateLimits`], of [`Rate`]s): what a server is configured
//! with, apart from the buckets that enforce it (the [parent module](super)), so that the
//! configuration needs nothing of the engine.

/// Shards of the bucket table: calls of different callers seldom wait on one lock.
pub(super) const SHARDS: usize = 16;

/// The JSON-RPC error code of a call over its rate limit ([`RpcError::RATE_LIMITED`]).
///
/// [`RpcError::RATE_LIMITED`]: crate::jsonrpc::RpcError::RATE_LIMITED
pub(crate) const RATE_LIMITED: i32 = crate::jsonrpc::RpcError::RATE_LIMITED;

pub use crate::dispatch::rate::{ParseRateError, Rate};

/// The rate limits of a server ([`Config::rate_limits`](crate::Config::rate_limits)); see the
/// [module](super). Clones share their buckets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RateLimits {
    pub(super) per_caller: Option<Rate>,
    pub(super) per_tool: Vec<(String, Rate)>,
    pub(super) max_callers: usize,
    pub(super) shared: bool,
}

/// [`RateLimits::max_callers`] by default.
pub const DEFAULT_MAX_CALLERS: usize = 65_536;

impl Default for RateLimits {
    fn default() -> Self {
        Self {
            per_caller: None,
            per_tool: Vec::new(),
            max_callers: DEFAULT_MAX_CALLERS,
            shared: false,
        }
    }
}

impl RateLimits {
    /// No limit of its own (the contract's still apply), [`DEFAULT_MAX_CALLERS`] buckets.
    pub fn new() -> Self {
        Self::default()
    }

    /// Every call of one caller takes a token of its bucket at `rate`.
    pub fn per_caller(mut self, rate: Option<Rate>) -> Self {
        self.per_caller = rate;
        self
    }

    /// Each caller's calls of the tool or prompt `name` (or the resource URI) take a token of
    /// a bucket at `rate` (over the contract's `x-mcp.rateLimit`).
    pub fn per_tool(mut self, name: impl Into<String>, rate: Rate) -> Self {
        let name = name.into();
        self.per_tool.retain(|(known, _)| *known != name);
        self.per_tool.push((name, rate));
        self
    }

    /// Most buckets kept at once (at least 16).
    pub fn max_callers(mut self, max: usize) -> Self {
        self.max_callers = max.max(SHARDS);
        self
    }

    /// Whether the buckets live in the Redis the server's stores use (`--rate-limit-shared`),
    /// so that every instance counts against one limit per caller and per caller and tool.
    /// Only a server whose stores come from `stores::redis::connect` (feature `redis`) can
    /// share them; elsewhere the buckets stay local.
    pub fn shared(mut self, shared: bool) -> Self {
        self.shared = shared;
        self
    }

    /// Whether [`RateLimits::shared`] asks for buckets in Redis.
    pub fn is_shared(&self) -> bool {
        self.shared
    }

    /// The per-caller rate, the per-tool rates and the bucket bound.
    pub fn settings(&self) -> (Option<Rate>, &[(String, Rate)], usize) {
        (self.per_caller, &self.per_tool, self.max_callers)
    }
}
