//! The value forms of the server flags: durations (`250ms`, `30s`, `10m`, `1h`, `1h30m`),
//! sizes (`65536`, `64KiB`, `4MiB`), counts, switches; each parser's error says what is
//! wrong without naming the flag (the caller adds the flag or variable), and each formatter
//! writes a value back in the form the parser reads (what `--help` shows as the default).

use std::time::Duration;

use crate::config::cache::{CacheHint, CacheScope};
pub(crate) use crate::durations::{duration, show_duration};

/// [`duration`], or `none` for no limit.
pub(crate) fn optional_duration(text: &str, min: Duration) -> Result<Option<Duration>, String> {
    if text.trim().eq_ignore_ascii_case("none") {
        return Ok(None);
    }
    duration(text, min)
        .map(Some)
        .map_err(|why| format!("{why}, or none"))
}

/// [`show_duration`], or `none`.
pub(crate) fn show_optional_duration(duration: Option<Duration>) -> String {
    duration.map_or_else(|| "none".into(), show_duration)
}

/// A cache hint of 2026-07-28 results: `TTL` or `TTL,SCOPE` (`5m`, `10m,public`, `0s`), the
/// TTL a [`duration`] (`0s`: clients must not reuse the result), the scope `public` or
/// `private`, `default_scope` when not written.
pub(crate) fn cache_hint(text: &str, default_scope: CacheScope) -> Result<CacheHint, String> {
    let (ttl, scope) = match text.split_once(',') {
        Some((ttl, scope)) => (ttl, Some(scope.trim())),
        None => (text, None),
    };
    let ttl = duration(ttl.trim(), Duration::ZERO)
        .map_err(|why| format!("{why} (then ,public or ,private if wanted)"))?;
    let scope = match scope {
        None => default_scope,
        Some("public") => CacheScope::Public,
        Some("private") => CacheScope::Private,
        Some(other) => {
            return Err(format!(
                "expected a duration, then ,public or ,private; not `{other}`"
            ))
        }
    };
    Ok(CacheHint::new(ttl, scope))
}

/// `hint` as [`cache_hint`] reads it: `5m,public`.
pub(crate) fn show_cache_hint(hint: CacheHint) -> String {
    let scope = match hint.scope {
        CacheScope::Public => "public",
        CacheScope::Private => "private",
    };
    format!("{},{scope}", show_duration(hint.ttl))
}

/// A size in bytes: a whole number, optionally followed by `B`, `KiB`, `MiB` or `GiB`
/// (`65536`, `64KiB`, `4MiB`); at least `min`.
pub(crate) fn size(text: &str, min: usize) -> Result<usize, String> {
    let text = text.trim();
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    let (number, unit) = (&text[..digits], text[digits..].trim_start());
    if number.is_empty() {
        return Err("not a size: expected bytes, e.g. 65536, 64KiB or 4MiB".into());
    }
    let per: usize = match unit {
        "" | "B" => 1,
        "KiB" => 1 << 10,
        "MiB" => 1 << 20,
        "GiB" => 1 << 30,
        "K" | "k" | "KB" | "kB" | "M" | "MB" | "G" | "GB" => {
            return Err(format!(
                "unknown unit `{unit}`: use KiB, MiB or GiB (powers of 1024), e.g. 64KiB"
            ))
        }
        other => {
            return Err(format!(
                "unknown unit `{other}`: use B, KiB, MiB or GiB, e.g. 4MiB"
            ))
        }
    };
    let value = number
        .parse::<usize>()
        .ok()
        .and_then(|n| n.checked_mul(per))
        .ok_or_else(|| "too large".to_string())?;
    if value < min {
        return Err(if min == 1 {
            "must be at least 1 byte".into()
        } else {
            format!("must be at least {}", show_size(min))
        });
    }
    Ok(value)
}

/// `bytes` in the largest binary unit that writes it exactly (`4MiB`, `64KiB`, `1000`).
pub(crate) fn show_size(bytes: usize) -> String {
    for (unit, per) in [("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)] {
        if bytes >= per && bytes % per == 0 {
            return format!("{}{unit}", bytes / per);
        }
    }
    bytes.to_string()
}

/// A whole number of things (`_` may group digits: `10_000`); at least `min`.
/// A prefix length of an IPv6 address: a number of bits from 1 to 128.
pub(crate) fn ipv6_prefix(text: &str) -> Result<u8, String> {
    let bits = count(text, 1)?;
    u8::try_from(bits)
        .ok()
        .filter(|bits| *bits <= 128)
        .ok_or_else(|| "must be at most 128 (bits of an IPv6 address)".to_string())
}

pub(crate) fn count(text: &str, min: usize) -> Result<usize, String> {
    let text = text.trim();
    let digits: String = text.chars().filter(|&c| c != '_').collect();
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) || text.starts_with('_') {
        return Err("not a number".into());
    }
    let value = digits
        .parse::<usize>()
        .map_err(|_| "too large".to_string())?;
    if value < min {
        return Err(format!("must be at least {min}"));
    }
    Ok(value)
}

/// A switch's value: `1`, `true`, `on`, `yes` or `0`, `false`, `off`, `no` (any case).
pub(crate) fn switch(text: &str) -> Result<bool, String> {
    match text.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "on" | "yes" => Ok(true),
        "0" | "false" | "off" | "no" => Ok(false),
        _ => Err("expected 1, true, on or yes (or 0, false, off, no)".into()),
    }
}

/// A switch as `--help` shows its default.
pub(crate) fn show_switch(on: bool) -> String {
    if on { "on" } else { "off" }.into()
}

/// The least duration most settings take: more than zero.
pub(crate) const MS: Duration = Duration::from_millis(1);

/// tokio's `Semaphore::MAX_PERMITS` (`--max-connections` is at most this).
pub(crate) const MAX_PERMITS: usize = usize::MAX >> 3;

/// A probe path (`--health-path`, `--ready-path`): `off` for none, else a path as
/// `--jsonrpc` takes.
pub(crate) fn probe_path(text: &str) -> Result<Option<String>, String> {
    let text = text.trim();
    if text.eq_ignore_ascii_case("off") {
        return Ok(None);
    }
    super::check_jsonrpc_path(text)
        .map_err(|why| why.to_string().replace("/jsonrpc", "/healthz"))?;
    Ok(Some(text.to_owned()))
}

/// How `--help` shows a probe path.
pub(crate) fn show_path(path: Option<String>) -> String {
    path.unwrap_or_else(|| "off".into())
}

/// `--allowed-hosts`: comma-separated host names or IP addresses, without port or scheme.
pub(crate) fn host_list(text: &str) -> Result<Vec<String>, String> {
    let hosts: Vec<String> = text
        .split(',')
        .map(str::trim)
        .filter(|host| !host.is_empty())
        .map(str::to_owned)
        .collect();
    if hosts.is_empty() {
        return Err("needs at least one host name, e.g. localhost,mcp.example.com".into());
    }
    for host in &hosts {
        if host.contains("://") || host.contains('/') {
            return Err(format!(
                "`{host}`: a host name, not a URL (e.g. mcp.example.com)"
            ));
        }
        if host.starts_with('[') {
            return Err(format!(
                "`{host}`: write an IPv6 address without brackets (e.g. ::1)"
            ));
        }
        if host.contains(':') && host.parse::<std::net::Ipv6Addr>().is_err() {
            return Err(format!(
                "`{host}`: a host name without port (any port is accepted)"
            ));
        }
        if host.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(format!("`{host}`: no spaces or control characters"));
        }
    }
    Ok(hosts)
}

/// The environment variable naming the plain JSON-RPC path when `--jsonrpc` is not given
/// (empty: off).
pub const JSONRPC_PATH_ENV: &str = "MCP_JSONRPC_PATH";

/// The environment variable turning the server card on when `--server-card` is not given
/// (`1`, `true`, `on`, `yes`; empty, `0`, `false`, `off`, `no`: off).
pub const SERVER_CARD_ENV: &str = "MCP_SERVER_CARD";

/// The environment variable giving the public URL when `--public-url` is not given.
pub const PUBLIC_URL_ENV: &str = "MCP_PUBLIC_URL";

/// The environment variable turning the 2024-11-05 HTTP+SSE transport on when `--legacy-sse`
/// is not given (`1`, `true`, `on`, `yes`; empty, `0`, `false`, `off`, `no`: off).
pub const LEGACY_SSE_ENV: &str = "MCP_LEGACY_SSE";

/// Whether `url` can be the endpoint's public URL: `http://` or `https://`, no spaces or
/// control characters. The error says why not.
pub fn check_public_url(url: &str) -> Result<(), PublicUrlError> {
    let Some((_, rest)) = url
        .split_once("://")
        .filter(|(scheme, _)| matches!(*scheme, "http" | "https"))
    else {
        return Err(PublicUrlError::Scheme);
    };
    if rest.is_empty() || url.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(PublicUrlError::HostOrCharacters);
    }
    Ok(())
}

/// Why [`check_public_url`] refused a URL (its `to_string()` does not name the URL: the caller
/// names the flag or variable).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum PublicUrlError {
    /// The URL does not start with `https://` or `http://`.
    Scheme,
    /// The URL has no host, or has spaces or control characters.
    HostOrCharacters,
}

impl std::fmt::Display for PublicUrlError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Scheme => "the URL must start with https:// (or http://)",
            Self::HostOrCharacters => "the URL needs a host and no spaces or control characters",
        })
    }
}

impl std::error::Error for PublicUrlError {}

/// Whether `path` can be the plain JSON-RPC endpoint's: an absolute path other than `/mcp`,
/// without query, fragment, spaces or control characters. The error says why not.
pub fn check_jsonrpc_path(path: &str) -> Result<(), JsonRpcPathError> {
    if !path.starts_with('/') {
        return Err(JsonRpcPathError::NotAbsolute);
    }
    if path == crate::protocol::ENDPOINT {
        return Err(JsonRpcPathError::McpEndpoint);
    }
    if path
        .chars()
        .any(|c| c.is_whitespace() || c.is_control() || c == '?' || c == '#')
    {
        return Err(JsonRpcPathError::NotPlain);
    }
    Ok(())
}

/// Why [`check_jsonrpc_path`] refused a path (its `to_string()` does not name the path: the
/// caller names the flag or variable).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum JsonRpcPathError {
    /// The path does not start with `/`.
    NotAbsolute,
    /// The path is the MCP endpoint's, `/mcp`.
    McpEndpoint,
    /// The path has a query, a fragment, spaces or control characters.
    NotPlain,
}

impl std::fmt::Display for JsonRpcPathError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::NotAbsolute => "the path must start with `/`, e.g. /jsonrpc",
            Self::McpEndpoint => "the path must differ from the MCP endpoint /mcp",
            Self::NotPlain => {
                "the path must be a plain path: no query, fragment, spaces or control characters"
            }
        })
    }
}

impl std::error::Error for JsonRpcPathError {}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    #[test]
    fn url_and_path_errors_are_typed_and_display_the_old_messages() {
        assert_eq!(check_public_url("https://mcp.example.com/mcp"), Ok(()));
        let error = check_public_url("mcp.example.com").unwrap_err();
        assert_eq!(error, PublicUrlError::Scheme);
        assert_eq!(
            error.to_string(),
            "the URL must start with https:// (or http://)"
        );
        let error = check_public_url("https://a b").unwrap_err();
        assert_eq!(error, PublicUrlError::HostOrCharacters);
        assert_eq!(
            error.to_string(),
            "the URL needs a host and no spaces or control characters"
        );
        assert_eq!(check_jsonrpc_path("/jsonrpc"), Ok(()));
        let cases = [
            (
                "jsonrpc",
                JsonRpcPathError::NotAbsolute,
                "the path must start with `/`, e.g. /jsonrpc",
            ),
            (
                "/mcp",
                JsonRpcPathError::McpEndpoint,
                "the path must differ from the MCP endpoint /mcp",
            ),
            (
                "/rpc?x",
                JsonRpcPathError::NotPlain,
                "the path must be a plain path: no query, fragment, spaces or control characters",
            ),
        ];
        for (path, expected, message) in cases {
            let error = check_jsonrpc_path(path).unwrap_err();
            assert_eq!(error, expected);
            assert_eq!(error.to_string(), message);
        }
        assert_eq!(
            probe_path("healthz"),
            Err("the path must start with `/`, e.g. /healthz".to_string())
        );
    }

    #[test]
    fn cache_hints() {
        let five = Duration::from_secs(300);
        assert_eq!(
            cache_hint("5m", CacheScope::Public),
            Ok(CacheHint::new(five, CacheScope::Public))
        );
        assert_eq!(
            cache_hint("5m, private", CacheScope::Public),
            Ok(CacheHint::new(five, CacheScope::Private))
        );
        assert_eq!(
            cache_hint("0s,public", CacheScope::Private),
            Ok(CacheHint::new(Duration::ZERO, CacheScope::Public))
        );
        for hint in [
            CacheHint::new(five, CacheScope::Public),
            CacheHint::new(Duration::ZERO, CacheScope::Private),
        ] {
            assert_eq!(
                cache_hint(&show_cache_hint(hint), CacheScope::Public),
                Ok(hint)
            );
        }
        assert!(cache_hint("5m,shared", CacheScope::Public)
            .unwrap_err()
            .contains("not `shared`"));
        assert!(cache_hint("soon", CacheScope::Public).is_err());
        assert!(cache_hint("", CacheScope::Public).is_err());
    }

    #[test]
    fn durations() {
        for (text, millis) in [
            ("250ms", 250),
            ("30s", 30_000),
            ("10m", 600_000),
            ("1h", 3_600_000),
            ("2d", 172_800_000),
            ("1h30m", 5_400_000),
            (" 1m30s ", 90_000),
            ("0s", 0),
        ] {
            assert_eq!(
                duration(text, Duration::ZERO),
                Ok(Duration::from_millis(millis)),
                "{text}"
            );
        }
        for (text, why) in [
            ("", "empty"),
            ("30", "needs a unit"),
            ("1.5s", "no fractions"),
            ("-1s", "negative"),
            ("5 s", "needs a unit"),
            ("3w", "unknown unit `w`"),
            ("s", "not a duration"),
            ("366d", "too long"),
            ("99999999999999999999s", "too long"),
            ("abc", "not a duration"),
        ] {
            let error = duration(text, Duration::ZERO).unwrap_err();
            assert!(error.contains(why), "{text}: {error}");
        }
        assert_eq!(duration("0s", MS).unwrap_err(), "must be more than zero");
        assert_eq!(
            duration("1s", Duration::from_secs(2)).unwrap_err(),
            "must be at least 2s"
        );
        assert_eq!(optional_duration("none", MS), Ok(None));
        assert_eq!(optional_duration("NONE", MS), Ok(None));
        assert_eq!(
            optional_duration("5m", MS),
            Ok(Some(Duration::from_secs(300)))
        );
        assert!(optional_duration("never", MS)
            .unwrap_err()
            .ends_with("or none"));
    }

    #[test]
    fn durations_are_shown_as_they_are_read() {
        for (millis, shown) in [
            (250, "250ms"),
            (30_000, "30s"),
            (60_000, "1m"),
            (1_800_000, "30m"),
            (86_400_000, "1d"),
            (5_400_000, "1h30m"),
            (1_500, "1500ms"),
            (0, "0s"),
        ] {
            let value = Duration::from_millis(millis);
            assert_eq!(show_duration(value), shown);
            assert_eq!(duration(shown, Duration::ZERO), Ok(value));
        }
        assert_eq!(show_optional_duration(None), "none");
    }

    #[test]
    fn sizes() {
        assert_eq!(size("65536", 1), Ok(65536));
        assert_eq!(size("64KiB", 1), Ok(65536));
        assert_eq!(size("4MiB", 1), Ok(4 << 20));
        assert_eq!(size("1GiB", 1), Ok(1 << 30));
        assert_eq!(size("4 MiB", 1), Ok(4 << 20));
        assert_eq!(size("10B", 1), Ok(10));
        assert_eq!(size("0", 1).unwrap_err(), "must be at least 1 byte");
        assert_eq!(size("1KiB", 8192).unwrap_err(), "must be at least 8KiB");
        assert!(size("4MB", 1).unwrap_err().contains("powers of 1024"));
        assert!(size("4mb", 1).unwrap_err().contains("unknown unit `mb`"));
        assert!(size("MiB", 1).unwrap_err().contains("not a size"));
        assert!(size("-1", 1).unwrap_err().contains("not a size"));
        assert!(size("99999999999GiB", 1).unwrap_err().contains("too large"));
        for bytes in [1, 1000, 1024, 65536, 4 << 20, 3 << 30] {
            assert_eq!(size(&show_size(bytes), 1), Ok(bytes));
        }
        assert_eq!(show_size(4 << 20), "4MiB");
        assert_eq!(show_size(16 << 10), "16KiB");
    }

    #[test]
    fn counts_and_switches() {
        assert_eq!(ipv6_prefix("64"), Ok(64));
        assert_eq!(ipv6_prefix("128"), Ok(128));
        assert!(ipv6_prefix("129").unwrap_err().contains("at most 128"));
        assert_eq!(ipv6_prefix("0").unwrap_err(), "must be at least 1");
        assert_eq!(count("100", 1), Ok(100));
        assert_eq!(count("10_000", 1), Ok(10_000));
        assert_eq!(count("0", 0), Ok(0));
        assert_eq!(count("0", 1).unwrap_err(), "must be at least 1");
        assert_eq!(count("abc", 1).unwrap_err(), "not a number");
        assert_eq!(count("-3", 0).unwrap_err(), "not a number");
        assert_eq!(count("", 0).unwrap_err(), "not a number");
        assert_eq!(count("1e3", 0).unwrap_err(), "not a number");
        assert_eq!(
            count("99999999999999999999999", 0).unwrap_err(),
            "too large"
        );
        for on in ["1", "true", "ON", "yes"] {
            assert_eq!(switch(on), Ok(true));
        }
        for off in ["0", "false", "off", "No"] {
            assert_eq!(switch(off), Ok(false));
        }
        assert!(switch("maybe").unwrap_err().contains("expected 1, true"));
    }
}
