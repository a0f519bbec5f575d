//! The rows of the command line that are not one [`Config`](crate::Config) field each: the
//! transport, settings that set several fields or part of one (the cache hints, the
//! `requestState` key files, `--auth-*`, audit records, rate limits), Redis, metrics and
//! logging. Each heading lists these rows before the table's (`config.rs`).

use super::heading::*;
use super::{Apply, Parsed, Scope, Setting, DEFAULT_LOG_FILTER, DEFAULT_REDIS_PREFIX};
use crate::config::values::{cache_hint, count, show_cache_hint, show_switch, switch};
use crate::config::CacheScope;
use crate::entry::LogFormat;
use crate::request_state::{SealingKey, KEY_ENV, PREVIOUS_KEY_ENV};

/// `--redis`'s help, which says when this build cannot use it (on a line of its own, so that
/// scripts can look for it).
const REDIS_HELP: &str = if cfg!(feature = "redis") {
    "share sessions, tasks and notifications with the other instances through the Redis at URL \
     (redis://[user:password@]host:port[/db]); needs the same requestState key on every instance"
} else {
    "share sessions, tasks and notifications with the other instances through the Redis at URL \
     (redis://[user:password@]host:port[/db]); needs the same requestState key on every instance\n\
     NOT IN THIS BUILD: rebuild with the `redis` feature"
};

/// `--metrics`'s help, which says when this build cannot serve it (on a line of its own, as
/// `--redis`'s does).
const METRICS_HELP: &str = if cfg!(feature = "metrics") {
    "serve Prometheus metrics at http://ADDR/metrics, on a listener of its own (requests by \
     method and outcome, latencies, sessions, streams, tasks; no authentication: put it where \
     only the scraper reaches it)"
} else {
    "serve Prometheus metrics at http://ADDR/metrics, on a listener of its own (requests by \
     method and outcome, latencies, sessions, streams, tasks; no authentication: put it where \
     only the scraper reaches it)\n\
     NOT IN THIS BUILD: rebuild with the `metrics` feature"
};

/// The rows, each under its heading in `--help` order. See the module's documentation.
pub(super) const CUSTOM: &[Setting] = &[
    // Transport.
    Setting {
        flag: "stdio",
        env: "MCP_STDIO",
        value: None,
        heading: TRANSPORT,
        help: "serve MCP over stdin/stdout (one JSON-RPC message per line) instead of HTTP",
        scope: Scope::Any,
        default: |_| String::new(),
        // Read before the others (entry::parse): whether a setting applies depends on it.
        apply: Apply::Options(|_, _| Ok(())),
    },
    Setting {
        flag: "addr",
        env: "MCP_ADDR",
        value: Some("HOST:PORT"),
        heading: TRANSPORT,
        help: "serve MCP over Streamable HTTP at http://HOST:PORT/mcp",
        scope: Scope::Http,
        default: |_| "127.0.0.1:8080".into(),
        apply: Apply::Options(|p, v| {
            p.addr = v.text.trim().parse().map_err(|e| {
                format!("{e} (expected HOST:PORT with an IP address, e.g. 127.0.0.1:8080 or [::]:8080)")
            })?;
            Ok(())
        }),
    },
    // Caching.
    Setting {
        flag: "list-cache",
        env: "MCP_LIST_CACHE",
        value: Some("TTL[,SCOPE]"),
        heading: CACHING,
        help: "how long clients may reuse tools/list, prompts/list, resources/list and resources/templates/list results, and who (public or private; 0s: not at all); the lists come from the contract and change only with a new build",
        scope: Scope::Any,
        default: |c| show_cache_hint(c.cache_hints.tools_list),
        apply: Apply::Options(|p, v| {
            let hint = cache_hint(v.text, CacheScope::Public)?;
            let hints = &mut p.config.cache_hints;
            hints.tools_list = hint;
            hints.prompts_list = hint;
            hints.resources_list = hint;
            hints.resource_templates_list = hint;
            Ok(())
        }),
    },
    Setting {
        flag: "read-cache",
        env: "MCP_READ_CACHE",
        value: Some("TTL[,SCOPE]"),
        heading: CACHING,
        help: "how long clients may reuse a resources/read result, and who (a read that took client input is never cached)",
        scope: Scope::Any,
        default: |c| show_cache_hint(c.cache_hints.resources_read),
        apply: Apply::Options(|p, v| {
            p.config.cache_hints.resources_read = cache_hint(v.text, CacheScope::Private)?;
            Ok(())
        }),
    },
    Setting {
        flag: "discover-cache",
        env: "MCP_DISCOVER_CACHE",
        value: Some("TTL[,SCOPE]"),
        heading: CACHING,
        help: "how long clients may reuse the server/discover result, and who",
        scope: Scope::Any,
        default: |c| show_cache_hint(c.cache_hints.discover),
        apply: Apply::Options(|p, v| {
            p.config.cache_hints.discover = cache_hint(v.text, CacheScope::Private)?;
            Ok(())
        }),
    },
    // Request state.
    Setting {
        flag: "request-state-key-file",
        env: "MCP_REQUEST_STATE_KEY_FILE",
        value: Some("PATH"),
        heading: STATE,
        help: "read the key sealing requestState (32+ random bytes as hex or base64, e.g. `openssl rand -hex 32`) from PATH; every instance needs the same; else the key itself from MCP_REQUEST_STATE_KEY",
        scope: Scope::Any,
        default: |c| key_default(c.request_state.request_state_key.is_some(), KEY_ENV, "a random key"),
        apply: Apply::Options(|p, v| {
            p.config.request_state.request_state_key = Some(key_file(v.text)?);
            p.key_file_by_flag = Some(v.from_flag);
            Ok(())
        }),
    },
    Setting {
        flag: "request-state-previous-key-file",
        env: "MCP_REQUEST_STATE_PREVIOUS_KEY_FILE",
        value: Some("PATH"),
        heading: STATE,
        help: "read the key before the last rotation from PATH: states it sealed still open until they expire; else from MCP_REQUEST_STATE_PREVIOUS_KEY",
        scope: Scope::Any,
        default: |c| key_default(c.request_state.request_state_previous_key.is_some(), PREVIOUS_KEY_ENV, "none"),
        apply: Apply::Options(|p, v| {
            p.config.request_state.request_state_previous_key = Some(key_file(v.text)?);
            p.previous_key_file_by_flag = Some(v.from_flag);
            Ok(())
        }),
    },
    // Authorization.
    Setting {
        flag: "auth-issuer",
        env: "MCP_AUTH_ISSUER",
        value: Some("URL"),
        heading: AUTH,
        help: "require OAuth access tokens (JWT) of this issuer (its `iss`, exactly): turns authorization on",
        scope: Scope::Http,
        default: |_| "off".into(),
        apply: Apply::Options(|p, v| {
            p.auth.issuer = Some((v.text.to_owned(), v.source.clone()));
            Ok(())
        }),
    },
    Setting {
        flag: "auth-audience",
        env: "MCP_AUTH_AUDIENCE",
        value: Some("URL"),
        heading: AUTH,
        help: "the audience (aud) tokens must name: this server's resource URL",
        scope: Scope::Http,
        default: |_| "--public-url".into(),
        apply: Apply::Options(|p, v| {
            p.auth.audience = Some((v.text.to_owned(), v.source.clone()));
            Ok(())
        }),
    },
    Setting {
        flag: "auth-jwks",
        env: "MCP_AUTH_JWKS",
        value: Some("URL"),
        heading: AUTH,
        help: "the issuer's JWKS",
        scope: Scope::Http,
        default: |_| "jwks_uri of the issuer's metadata".into(),
        apply: Apply::Options(|p, v| {
            p.auth.jwks = Some((v.text.to_owned(), v.source.clone()));
            Ok(())
        }),
    },
    Setting {
        flag: "auth-token-type",
        env: "MCP_AUTH_TOKEN_TYPE",
        value: Some("TYP"),
        heading: AUTH,
        help: "the JOSE header typ access tokens must carry (at+jwt for RFC 9068 tokens), so that another JWT of the issuer is not taken for one",
        scope: Scope::Http,
        default: |_| "not checked".into(),
        apply: Apply::Options(|p, v| {
            p.auth.token_type = Some((v.text.to_owned(), v.source.clone()));
            Ok(())
        }),
    },
    Setting {
        flag: "auth-scopes",
        env: "MCP_AUTH_SCOPES",
        value: Some("LIST"),
        heading: AUTH,
        help: "scopes every request needs, comma- or space-separated",
        scope: Scope::Http,
        default: |_| "none".into(),
        apply: Apply::Options(|p, v| {
            p.auth.scopes = Some((v.text.to_owned(), v.source.clone()));
            Ok(())
        }),
    },
    // Shared state.
    Setting {
        flag: "redis",
        env: crate::entry::REDIS_URL_ENV,
        value: Some("URL"),
        heading: SHARED,
        help: REDIS_HELP,
        scope: Scope::Http,
        default: |_| "off, everything in memory".into(),
        // Checked when the server connects (entry::serve), naming the flag or variable only.
        apply: Apply::Options(|p, v| {
            let source = if v.from_flag {
                "--redis"
            } else {
                crate::entry::REDIS_URL_ENV
            };
            p.redis = Some((v.text.to_owned(), source));
            Ok(())
        }),
    },
    Setting {
        flag: "redis-cluster",
        env: crate::entry::REDIS_CLUSTER_ENV,
        value: None,
        heading: SHARED,
        help: "the Redis is a Redis Cluster: --redis names any of its nodes (several, comma-separated, \
               help when one is down); commands go to each key's master and follow a failover",
        scope: Scope::Http,
        default: |_| "off".into(),
        apply: Apply::Options(|p, v| {
            p.redis_cluster = switch(v.text)?;
            Ok(())
        }),
    },
    Setting {
        flag: "redis-wait-replicas",
        env: "MCP_REDIS_WAIT_REPLICAS",
        value: Some("N"),
        heading: SHARED,
        help: "acknowledge a session's creation and a task's acceptance or change only once N Redis \
               replicas have it (WAIT, up to 1 s; else 503, retryable): a master killed right after \
               loses none of them (0: no wait, the default)",
        scope: Scope::Http,
        default: |_| "0".into(),
        apply: Apply::Options(|p, v| {
            p.redis_wait_replicas = v
                .text
                .trim()
                .parse::<usize>()
                .ok()
                .filter(|n| *n <= 16)
                .ok_or("expected a number of replicas from 0 to 16")?;
            Ok(())
        }),
    },
    Setting {
        flag: "redis-prefix",
        env: crate::entry::REDIS_PREFIX_ENV,
        value: Some("PREFIX"),
        heading: SHARED,
        help: "the prefix of every Redis key and of the channel: several deployments can share one Redis",
        scope: Scope::Http,
        default: |_| DEFAULT_REDIS_PREFIX.into(),
        apply: Apply::Options(|p, v| {
            if v.text.chars().any(|c| c.is_whitespace() || c.is_control()) {
                return Err("the key prefix must have no spaces or control characters".into());
            }
            if v.text.contains(['{', '}']) {
                // Braces would become the keys' hash tag on a Cluster, in place of the runtime's.
                return Err("the key prefix must have no braces ({ or })".into());
            }
            p.redis_prefix = v.text.to_owned();
            Ok(())
        }),
    },
    // Audit records.
    Setting {
        flag: "audit",
        env: "MCP_AUDIT",
        value: None,
        heading: OPERATIONS,
        help: "one record per tools/call, prompts/get, resources/read (and plain JSON-RPC call) on the log target mcp::audit, at info",
        scope: Scope::Any,
        default: |c| show_switch(c.audit.is_some()),
        apply: Apply::Options(|p, v| {
            p.config.audit = switch(v.text)?.then(crate::audit::Audit::new);
            Ok(())
        }),
    },
    Setting {
        flag: "audit-principal",
        env: "MCP_AUDIT_PRINCIPAL",
        value: Some("SHOWN"),
        heading: OPERATIONS,
        help: "how an audit record shows the caller: subject, or digest (SHA-256 of issuer and subject); needs --audit",
        scope: Scope::Any,
        default: |c| match c.audit.as_ref().map(|a| a.settings().0) {
            Some(crate::audit::PrincipalShown::Digest) => "digest".into(),
            _ => "subject".into(),
        },
        apply: Apply::Options(|p, v| {
            let shown = v
                .text
                .parse::<crate::audit::PrincipalShown>()
                .map_err(|e| e.to_string())?;
            let audit = audited(p)?;
            *audit = std::mem::take(audit).principal(shown);
            Ok(())
        }),
    },
    Setting {
        flag: "audit-arguments",
        env: "MCP_AUDIT_ARGUMENTS",
        value: None,
        heading: OPERATIONS,
        help: "put each call's arguments in its audit record, less --audit-redact; needs --audit",
        scope: Scope::Any,
        default: |c| show_switch(c.audit.as_ref().is_some_and(|a| a.settings().1)),
        apply: Apply::Options(|p, v| {
            let on = switch(v.text)?;
            let audit = audited(p)?;
            *audit = std::mem::take(audit).with_arguments(on);
            Ok(())
        }),
    },
    Setting {
        flag: "audit-redact",
        env: "MCP_AUDIT_REDACT",
        value: Some("LIST"),
        heading: OPERATIONS,
        help: "argument members audit records never show, comma-separated: a JSON pointer (/card/number) or a key at any depth (password); needs --audit",
        scope: Scope::Any,
        default: |c| {
            c.audit
                .as_ref()
                .map(|a| a.settings().2.join(","))
                .unwrap_or_default()
        },
        apply: Apply::Options(|p, v| {
            let redact: Vec<String> = v
                .text
                .split(',')
                .map(str::trim)
                .filter(|entry| !entry.is_empty())
                .map(str::to_owned)
                .collect();
            let audit = audited(p)?;
            *audit = std::mem::take(audit).redact(redact);
            Ok(())
        }),
    },
    Setting {
        flag: "audit-file",
        env: "MCP_AUDIT_FILE",
        value: Some("PATH"),
        heading: OPERATIONS,
        help: "write the audit records to PATH (appended, created 0600), one JSON object a line, one write each, instead of the log; needs --audit",
        scope: Scope::Any,
        default: |c| {
            c.audit
                .as_ref()
                .and_then(|a| a.file())
                .map(|f| f.path().display().to_string())
                .unwrap_or_default()
        },
        apply: Apply::Options(|p, v| {
            let file = match v.text.trim() {
                "" => None,
                path => Some(crate::audit::AuditFile::open(path).map_err(|e| e.to_string())?),
            };
            let audit = audited(p)?;
            *audit = std::mem::take(audit).to_file(file);
            Ok(())
        }),
    },
    // Rate limits.
    Setting {
        flag: "rate-limit",
        env: "MCP_RATE_LIMIT",
        value: Some("RATE"),
        heading: OPERATIONS,
        help: "each caller's calls (tools/call, prompts/get, resources/read) at most RATE: N/s, N/min, N/h or N/DURATION, a token bucket of N; the caller is the principal with authorization, else the peer address; over it: -32023, HTTP 429",
        scope: Scope::Any,
        default: |c| {
            c.rate_limits
                .as_ref()
                .and_then(|l| l.settings().0)
                .map_or_else(|| "off".into(), |rate| rate.to_string())
        },
        apply: Apply::Options(|p, v| {
            let rate = v
                .text
                .parse::<crate::rate_limit::Rate>()
                .map_err(|e| e.to_string())?;
            let limits = p.config.rate_limits.take().unwrap_or_default();
            p.config.rate_limits = Some(limits.per_caller(Some(rate)));
            Ok(())
        }),
    },
    Setting {
        flag: "tool-rate-limit",
        env: "MCP_TOOL_RATE_LIMIT",
        value: Some("LIST"),
        heading: OPERATIONS,
        help: "each caller's calls of a tool, prompt or resource URI at most a rate, NAME=RATE comma-separated (search=10/s,export=2/min), over the contract's x-mcp rateLimit",
        scope: Scope::Any,
        default: |c| {
            let limits = c.rate_limits.as_ref().map(|l| l.settings().1).unwrap_or_default();
            match limits {
                [] => "contract's".into(),
                limits => limits
                    .iter()
                    .map(|(name, rate)| format!("{name}={rate}"))
                    .collect::<Vec<_>>()
                    .join(","),
            }
        },
        apply: Apply::Options(|p, v| {
            let mut limits = p.config.rate_limits.take().unwrap_or_default();
            for entry in v.text.split(',').map(str::trim).filter(|e| !e.is_empty()) {
                let (name, rate) = entry
                    .rsplit_once('=')
                    .ok_or_else(|| format!("{entry:?}: expected NAME=RATE, e.g. search=10/s"))?;
                let rate = rate.parse().map_err(|e| format!("{entry:?}: {e}"))?;
                limits = limits.per_tool(name.trim(), rate);
            }
            p.config.rate_limits = Some(limits);
            Ok(())
        }),
    },
    Setting {
        flag: "rate-limit-callers",
        env: "MCP_RATE_LIMIT_CALLERS",
        value: Some("N"),
        heading: OPERATIONS,
        help: "most rate-limit buckets kept at once (callers, and callers by tool); past it, full buckets and then an eighth of the table are dropped",
        scope: Scope::Any,
        default: |c| {
            c.rate_limits
                .as_ref()
                .map_or(crate::rate_limit::DEFAULT_MAX_CALLERS, |l| l.settings().2)
                .to_string()
        },
        apply: Apply::Options(|p, v| {
            let max = count(v.text, 16)?;
            let limits = p.config.rate_limits.take().unwrap_or_default();
            p.config.rate_limits = Some(limits.max_callers(max));
            Ok(())
        }),
    },
    Setting {
        flag: "rate-limit-shared",
        env: "MCP_RATE_LIMIT_SHARED",
        value: None,
        heading: OPERATIONS,
        help: "with --redis: keep the rate-limit buckets in Redis, one limit per caller (and per caller and tool) across every instance; one Redis round trip per limited call; Redis unreachable: each instance counts alone",
        scope: Scope::Http,
        default: |c| show_switch(c.rate_limits.as_ref().is_some_and(|l| l.is_shared())),
        // Checked against --redis in `finish`.
        apply: Apply::Options(|p, v| {
            let shared = switch(v.text)?;
            let limits = p.config.rate_limits.take().unwrap_or_default();
            p.config.rate_limits = Some(limits.shared(shared));
            Ok(())
        }),
    },
    // Telemetry.
    Setting {
        flag: "metrics",
        env: crate::telemetry::METRICS_ADDR_ENV,
        value: Some("ADDR"),
        heading: TELEMETRY,
        help: METRICS_HELP,
        scope: Scope::Any,
        default: |_| "off".into(),
        // A build without the feature refuses it when the server starts (exit 2, saying so).
        apply: Apply::Options(|p, v| {
            let addr = v
                .text
                .trim()
                .parse()
                .map_err(|e| format!("{e} (expected HOST:PORT, e.g. 127.0.0.1:9464)"))?;
            p.metrics = Some(addr);
            Ok(())
        }),
    },
    // Logging.
    Setting {
        flag: "log-level",
        env: "RUST_LOG",
        value: Some("FILTER"),
        heading: LOGGING,
        help: "what to log: error, warn, info, debug, trace, or directives such as info,mcp_runtime=debug",
        scope: Scope::Any,
        default: |_| DEFAULT_LOG_FILTER.into(),
        apply: Apply::Options(|p, v| {
            let filter = v.text.trim();
            crate::telemetry::parse_log_filter(filter)
                .map_err(|e| format!("not a log filter: {e}"))?;
            p.log_filter = filter.to_owned();
            Ok(())
        }),
    },
    Setting {
        flag: "log-format",
        env: "MCP_LOG_FORMAT",
        value: Some("FORMAT"),
        heading: LOGGING,
        help: "text (for people) or json (one object a line, for collectors); logs go to stderr",
        scope: Scope::Any,
        default: |_| "text".into(),
        apply: Apply::Options(|p, v| {
            p.log_format = match v.text.trim() {
                "text" => LogFormat::Text,
                "json" => LogFormat::Json,
                _ => return Err("expected text or json".into()),
            };
            Ok(())
        }),
    },
];

/// The audit settings a sub-setting of `--audit` changes; an error without `--audit`.
fn audited(p: &mut Parsed) -> Result<&mut crate::audit::Audit, String> {
    p.config
        .audit
        .as_mut()
        .ok_or_else(|| "needs --audit (MCP_AUDIT=1): audit records are off".to_string())
}

/// A `requestState` key read from the file at `path` (its text: hex or base64).
fn key_file(path: &str) -> Result<SealingKey, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read the key: {e}"))?;
    SealingKey::from_text(&text).map_err(|e| e.to_string())
}

/// How `--help` shows the default of a key file: the key the binary was built with, if any,
/// else the variable `var`, else `otherwise`.
fn key_default(configured: bool, var: &str, otherwise: &str) -> String {
    if configured {
        "the key the server was built with".into()
    } else {
        format!("{var}, else {otherwise}")
    }
}
