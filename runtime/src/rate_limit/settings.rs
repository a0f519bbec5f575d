//! The settings of the rate limits ([`Rate`], [`RateLimits`]): what a server is configured
//! with, apart from the buckets that enforce it (the [parent module](super)), so that the
//! configuration needs nothing of the engine.

use std::time::Duration;

/// Shards of the bucket table: calls of different callers seldom wait on one lock.
pub(super) const SHARDS: usize = 16;

/// The JSON-RPC error code of a call over its rate limit.
pub const RATE_LIMITED: i32 = -32023;

/// A rate: `count` calls per `per`, as a bucket of `count` tokens refilled evenly over `per`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rate {
    pub(super) count: u32,
    pub(super) per_ms: u64,
}

impl Rate {
    /// `count` calls per `per_ms` milliseconds (both at least 1: a zero is taken as 1).
    pub const fn new(count: u32, per_ms: u64) -> Self {
        Self {
            count: if count == 0 { 1 } else { count },
            per_ms: if per_ms == 0 { 1 } else { per_ms },
        }
    }

    /// How many calls a full bucket allows at once.
    pub fn count(&self) -> u32 {
        self.count
    }

    /// The period over which the bucket refills.
    pub fn per(&self) -> Duration {
        Duration::from_millis(self.per_ms)
    }

    /// The period in milliseconds.
    #[cfg_attr(not(feature = "redis"), allow(dead_code))]
    pub(crate) fn per_ms(&self) -> u64 {
        self.per_ms
    }

    /// Tokens per millisecond.
    pub(super) fn refill(&self) -> f64 {
        f64::from(self.count) / self.per_ms as f64
    }
}

impl std::fmt::Display for Rate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let unit = match self.per_ms {
            1_000 => "s".to_string(),
            60_000 => "min".to_string(),
            3_600_000 => "h".to_string(),
            ms if ms % 1_000 == 0 => format!("{}s", ms / 1_000),
            ms => format!("{ms}ms"),
        };
        write!(f, "{}/{unit}", self.count)
    }
}

impl std::str::FromStr for Rate {
    type Err = ParseRateError;

    /// `N/s`, `N/min`, `N/h`, or `N/DURATION` (`10/30s`, `5/500ms`, `100/1h30m`).
    fn from_str(text: &str) -> Result<Self, ParseRateError> {
        let (count, per) = text
            .trim()
            .split_once('/')
            .ok_or(ParseRateError::NotARate)?;
        let count: u32 = count.trim().parse().map_err(|_| ParseRateError::NotARate)?;
        if count == 0 {
            return Err(ParseRateError::ZeroCount);
        }
        let per = match per.trim() {
            "s" | "sec" | "second" => Duration::from_secs(1),
            "m" | "min" | "minute" => Duration::from_secs(60),
            "h" | "hour" => Duration::from_secs(3600),
            other => crate::durations::duration(other, Duration::from_millis(1))
                .map_err(|reason| ParseRateError::Period { reason })?,
        };
        let per_ms = u64::try_from(per.as_millis()).unwrap_or(u64::MAX);
        if per_ms == 0 {
            return Err(ParseRateError::ZeroPeriod);
        }
        Ok(Rate::new(count, per_ms))
    }
}

/// What [`Rate`]'s `from_str` says of a text that is not a rate.
const EXPECTED_RATE: &str = "expected N/PERIOD, e.g. 10/s, 60/min, 1000/h or 5/30s";

/// Why a text is not a [`Rate`] (its `FromStr`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ParseRateError {
    /// Not `N/PERIOD` with `N` a whole number.
    NotARate,
    /// `N` is 0.
    ZeroCount,
    /// The period is not a duration: `reason` says why.
    Period {
        /// Why the period is not a duration.
        reason: String,
    },
    /// The period is shorter than 1ms.
    ZeroPeriod,
}

impl std::fmt::Display for ParseRateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::NotARate => f.write_str(EXPECTED_RATE),
            Self::ZeroCount => f.write_str("the count must be at least 1"),
            Self::Period { reason } => write!(f, "{reason} ({EXPECTED_RATE})"),
            Self::ZeroPeriod => f.write_str("the period must be at least 1ms"),
        }
    }
}

impl std::error::Error for ParseRateError {}

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
