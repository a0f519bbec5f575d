//! [`Rate`]: `N` calls per `PERIOD`, as the contract declares a tool's limit (its `x-mcp`
//! `rateLimit`, [`Contract::rate_limit`](super::Contract::rate_limit)) and the configuration
//! a caller's ([`crate::rate_limit`], which enforces both).

use std::time::Duration;

/// A rate: `count` calls per `per`, as a bucket of `count` tokens refilled evenly over `per`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rate {
    pub(crate) count: u32,
    pub(crate) per_ms: u64,
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
    pub(crate) fn refill(&self) -> f64 {
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
