//! Every setting of a server binary: its flag, its environment variable, its `--help` group and
//! line, where it applies, how `--help` shows its default, and how its text reaches the
//! [`Parsed`] options; `entry` builds the command line, the environment fallback, the help and
//! the error messages from these rows ([`all`]).
//!
//! **To add a setting that is a [`Config`] field, add a row to the table in `config.rs`**: the
//! field, its default, its builder setter and its row here all come from it (see that module's
//! documentation). A flag that sets anything else is a hand-written [`Setting`] in `custom.rs`
//! (and, when it sets something other than [`Config`], a field of [`Parsed`]).
//!
//! Checks that involve several settings (authorization, the `requestState` keys read from the
//! environment, the probe paths) are in [`finish`].

use std::net::SocketAddr;

use super::LogFormat;
use crate::auth::AuthArgs;
use crate::config::Config;
pub(crate) use crate::config::{heading, Scope};
use crate::request_state::{SealingKey, KEY_ENV, PREVIOUS_KEY_ENV};

mod custom;

/// One setting (see the module's documentation): a row of the configuration's table, or one
/// of `custom.rs`.
pub(crate) type Setting = crate::config::Setting<Apply>;

/// How a setting reads the value given; the error says what is wrong, and the caller names
/// the flag or variable.
#[derive(Clone, Copy)]
pub(crate) enum Apply {
    /// Into one field of [`Config`] (a row of the configuration's table).
    Field(fn(&mut Config, &str) -> Result<(), String>),
    /// Into the options (a hand-written row of `custom.rs`).
    Options(fn(&mut Parsed, &Given<'_>) -> Result<(), String>),
}

impl Setting {
    /// Reads `given` into `parsed`.
    pub fn apply_to(&self, parsed: &mut Parsed, given: &Given<'_>) -> Result<(), String> {
        match self.apply {
            Apply::Field(apply) => apply(&mut parsed.config, given.text),
            Apply::Options(apply) => apply(parsed, given),
        }
    }
}

/// A value of a setting, as given.
pub(crate) struct Given<'a> {
    /// The text (a switch given as a flag: `true`).
    pub text: &'a str,
    /// Whether it came from the command line (else from the environment).
    pub from_flag: bool,
    /// How errors cite it: `--flag VALUE` or `VAR=VALUE`.
    pub source: String,
}

/// What the settings produce, before [`finish`].
#[derive(Debug, Clone)]
pub(crate) struct Parsed {
    /// `--stdio` (decided before the other settings are read: see `entry::parse`).
    pub stdio: bool,
    /// `--addr`.
    pub addr: SocketAddr,
    /// Every setting that is a [`Config`] field.
    pub config: Config,
    /// `--log-level` / `RUST_LOG`: directives for [`crate::telemetry::parse_log_filter`].
    pub log_filter: String,
    /// `--log-format`.
    pub log_format: LogFormat,
    /// `--auth-*`: turned into [`Config::auth`] by [`finish`].
    pub auth: AuthArgs,
    /// How the current `requestState` key was given by a file (`--request-state-key-file`),
    /// if it was: whether by the flag (else by its variable).
    pub key_file_by_flag: Option<bool>,
    /// Likewise for the previous key.
    pub previous_key_file_by_flag: Option<bool>,
    /// The keys [`finish`] read from their variables: `request-state-key`,
    /// `request-state-previous-key`.
    pub keys_from_env: Vec<&'static str>,
    /// `--redis`: the URL, and the flag or variable it came from (errors name that, never the
    /// URL, which may hold a password).
    pub redis: Option<(String, &'static str)>,
    /// `--redis-prefix`.
    pub redis_prefix: String,
    /// `--redis-cluster`.
    pub redis_cluster: bool,
    /// `--redis-wait-replicas`.
    pub redis_wait_replicas: usize,
    /// `--metrics`: where to serve Prometheus metrics.
    pub metrics: Option<SocketAddr>,
}

impl Parsed {
    /// The options before any setting: `config`, listening on 127.0.0.1:8080.
    pub fn new(config: Config) -> Self {
        Self {
            stdio: false,
            addr: SocketAddr::from(([127, 0, 0, 1], 8080)),
            config,
            log_filter: DEFAULT_LOG_FILTER.into(),
            log_format: LogFormat::Text,
            auth: AuthArgs::default(),
            key_file_by_flag: None,
            previous_key_file_by_flag: None,
            keys_from_env: Vec::new(),
            redis: None,
            redis_prefix: DEFAULT_REDIS_PREFIX.into(),
            redis_cluster: false,
            redis_wait_replicas: 0,
            metrics: None,
        }
    }
}

/// The Redis key prefix without `--redis-prefix` (`stores::redis::DEFAULT_PREFIX`).
pub(crate) const DEFAULT_REDIS_PREFIX: &str = "mcp";

/// The log filter without `--log-level` or `RUST_LOG`.
pub(crate) const DEFAULT_LOG_FILTER: &str = "info";

/// Every setting, in `--help` order (also the order they are applied in): heading by heading,
/// the hand-written rows of `custom.rs` first, then the table's (`config.rs`), each in the
/// order written.
pub(crate) fn all() -> impl Iterator<Item = Setting> {
    heading::HEADINGS.iter().flat_map(|&heading| {
        let own = custom::CUSTOM.iter().copied();
        let fields = crate::config::FIELD_SETTINGS
            .iter()
            .map(|row| row.read_by(Apply::Field));
        own.chain(fields)
            .filter(move |setting| setting.heading == heading)
    })
}

/// The checks and defaults that involve several settings, once every setting is read: the
/// `requestState` keys of the environment (when no key file is given), then authorization
/// (whose audience defaults to the public URL).
pub(crate) fn finish(p: &mut Parsed, env: &dyn Fn(&str) -> Option<String>) -> Result<(), String> {
    if p.redis_cluster && p.redis.is_none() {
        return Err(format!(
            "--redis-cluster (or {}) needs --redis (or {}): the URL of one or more of the Cluster's nodes",
            crate::entry::REDIS_CLUSTER_ENV,
            crate::entry::REDIS_URL_ENV
        ));
    }
    // The keys themselves are secrets: errors name the variable, never the value.
    let key_env = |var: &str| env(var).filter(|text| !text.trim().is_empty());
    for (file_by_flag, var, file_var, key, name) in [
        (
            p.key_file_by_flag,
            KEY_ENV,
            "MCP_REQUEST_STATE_KEY_FILE",
            &mut p.config.request_state.request_state_key,
            "request-state-key",
        ),
        (
            p.previous_key_file_by_flag,
            PREVIOUS_KEY_ENV,
            "MCP_REQUEST_STATE_PREVIOUS_KEY_FILE",
            &mut p.config.request_state.request_state_previous_key,
            "request-state-previous-key",
        ),
    ] {
        match (file_by_flag, key_env(var)) {
            // The flag wins over both variables.
            (Some(true), _) | (_, None) => {}
            (Some(false), Some(_)) => {
                return Err(format!(
                    "{file_var} and {var} both give the key: set one of them"
                ))
            }
            (None, Some(text)) => {
                *key = Some(SealingKey::from_text(&text).map_err(|why| format!("{var}: {why}"))?);
                p.keys_from_env.push(name);
            }
        }
    }
    let probes = [
        ("--health-path", &p.config.endpoints.health_path),
        ("--ready-path", &p.config.endpoints.ready_path),
    ];
    for (flag, path) in probes {
        let Some(path) = path else { continue };
        if p.config.endpoints.jsonrpc_path.as_ref() == Some(path) {
            return Err(format!("{flag} {path}: the path is --jsonrpc's"));
        }
    }
    if p.config.endpoints.health_path.is_some()
        && p.config.endpoints.health_path == p.config.endpoints.ready_path
    {
        return Err(format!(
            "--health-path and --ready-path are both {}: give them different paths",
            p.config
                .endpoints
                .health_path
                .as_deref()
                .unwrap_or_default()
        ));
    }
    let shared_limits = p.config.rate_limits.as_ref().is_some_and(|l| l.is_shared());
    if shared_limits && !p.stdio {
        if !cfg!(feature = "redis") {
            return Err("--rate-limit-shared (MCP_RATE_LIMIT_SHARED) keeps the buckets in the Redis of --redis, and this server was built without mcp-runtime's `redis` feature: rebuild it with the feature, or drop --rate-limit-shared".into());
        }
        if p.redis.is_none() {
            return Err("--rate-limit-shared (MCP_RATE_LIMIT_SHARED) needs --redis URL (or MCP_REDIS_URL): the buckets are shared through that Redis".into());
        }
    }
    if !p.stdio {
        if let Some(auth) = p.auth.auth(p.config.endpoints.public_url.as_deref())? {
            if p.config.endpoints.legacy_sse {
                return Err("--legacy-sse cannot be combined with --auth-issuer: the 2024-11-05 HTTP+SSE transport has no authorization".into());
            }
            p.config.auth = Some(auth);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_is_listed_once_under_a_known_heading() {
        let rows = custom::CUSTOM.len() + crate::config::FIELD_SETTINGS.len();
        // A row whose heading is not in HEADINGS would be left out of `all` (and of --help).
        assert_eq!(all().count(), rows);
        let mut flags: Vec<_> = all().map(|setting| setting.flag).collect();
        let mut envs: Vec<_> = all().map(|setting| setting.env).collect();
        flags.sort_unstable();
        flags.dedup();
        envs.sort_unstable();
        envs.dedup();
        assert_eq!((flags.len(), envs.len()), (rows, rows));
    }
}
