//! The `main` of a generated server binary: flags and `MCP_*` environment variables, logging,
//! runtime, transport.
//!
//! Every setting an operator changes is a flag and an environment variable, listed by
//! `--help` in groups with its default, and checked before the server starts: a bad value, a
//! zero where zero makes no sense, or a combination that cannot work exits with status 2 and
//! one line naming the flag or variable (`error: --body-limit 0: must be at least 1 byte`).
//! A flag wins over its variable; an empty variable counts as unset. A setting that is a
//! [`Config`] field is one row of the table in `config.rs` (its flag, variable, default, parser
//! and docs, see `entry/settings/mod.rs`); adding one is adding a row there.
//!
//! The ways in, from the simplest:
//!
//! - [`main`]: a generated `Server` with [`Config::default`] under the flags.
//! - [`run_with`]: the application's [`Config`] under the flags (its values are the defaults
//!   `--help` shows), and a closure that builds the server from the result (with its own
//!   stores, or taking its [`McpServer::notifier`]).
//! - `gateway` (feature `upstream`): like [`main`] for a generated gateway, whose handler
//!   forwards to an upstream JSON-RPC service: the `--upstream*` flags too (`parse_gateway`),
//!   and a closure that builds the server's dispatch from the `upstream::Upstream`.
//! - [`run`]: a server already built; the flags change its configuration in place, which
//!   works for every setting but `--max-sessions`, `--max-tasks`, `--task-ttl` and
//!   `--task-poll-interval` (the stores and the task runner took them when the server was
//!   built) and only while the server has not been cloned.

use std::net::SocketAddr;
use std::process::ExitCode;

use clap::parser::ValueSource;

use crate::config::Config;
use crate::dispatch::Dispatch;
use crate::server::McpServer;

mod command;
mod features;
mod serve;
pub(crate) mod settings;
// The upstream flags of a gateway binary (`gateway`, `parse_gateway`).
#[cfg(feature = "upstream")]
mod upstream;
use crate::config::values;

#[cfg(feature = "upstream")]
pub use upstream::gateway;
#[cfg(feature = "upstream")]
#[doc(hidden)]
pub use upstream::parse_gateway;

use command::{clap_error, command, program_name, source, VERSION_FLAG};
use serve::{serve, shared};
use settings::{Given, Parsed, Scope, Setting};

/// The environment variable giving the Redis URL when `--redis` is not given (empty: off).
pub(crate) const REDIS_URL_ENV: &str = "MCP_REDIS_URL";

/// The environment variable saying the Redis is a Cluster when `--redis-cluster` is not given
/// (`1`, `true`, `0`, `false`).
pub(crate) const REDIS_CLUSTER_ENV: &str = "MCP_REDIS_CLUSTER";

/// The environment variable giving the Redis key prefix when `--redis-prefix` is not given
/// (default `mcp`).
pub(crate) const REDIS_PREFIX_ENV: &str = "MCP_REDIS_PREFIX";

/// How to serve, from the command line.
#[derive(Debug, Clone, PartialEq, Eq)]
#[doc(hidden)]
pub enum Transport {
    /// Streamable HTTP on this address.
    Http(SocketAddr),
    /// stdin/stdout.
    Stdio,
}

/// How logs are written to stderr (`--log-format`, `MCP_LOG_FORMAT`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[doc(hidden)]
pub enum LogFormat {
    /// One line of text per event, for people (`text`, the default).
    #[default]
    Text,
    /// One JSON object per event (`json`), for log collectors.
    Json,
}

/// Why [`parse`] returned no [`Args`]. Its `Display` is the text to print.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
#[doc(hidden)]
pub enum ArgsError {
    /// `-h` / `--help`: print this help (on stdout) and exit successfully.
    Help(String),
    /// A bad or unknown argument, or a bad variable: print `error: ` and the message (one
    /// line, naming the flag or variable) and exit with status 2.
    Invalid(String),
    /// `-V` / `--version`: print [`version_line`] of the server (on stdout) and exit
    /// successfully. Its `Display` is the runtime's part only: the server's name and version
    /// come from its contract, which parsing does not know.
    Version,
}

impl std::fmt::Display for ArgsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ArgsError::Help(help) => f.write_str(help),
            ArgsError::Invalid(message) => f.write_str(message),
            ArgsError::Version => f.write_str(RUNTIME_VERSION),
        }
    }
}

impl std::error::Error for ArgsError {}

/// What the command line and the environment ask for.
#[derive(Debug, Clone)]
#[non_exhaustive]
#[doc(hidden)]
pub struct Args {
    /// How to serve MCP (`--addr`, `--stdio`).
    pub transport: Transport,
    /// The configuration: the one parsing started from, with every setting given applied
    /// (and [`Config::auth`] built from `--auth-*`).
    pub config: Config,
    /// The log filter (`--log-level`, `RUST_LOG`; default `info`): `tracing_subscriber`'s
    /// `filter::Targets` directives (`info,mcp_runtime=debug`), already checked
    /// ([`crate::telemetry::parse_log_filter`]).
    pub log_filter: String,
    /// `--log-format`.
    pub log_format: LogFormat,
    /// `--redis URL`: share sessions, tasks and notifications through this Redis, if given.
    pub redis: Option<String>,
    /// `--redis-prefix` (default `mcp`).
    pub redis_prefix: String,
    /// `--redis-cluster`: `redis` names nodes of a Redis Cluster (comma-separated).
    pub redis_cluster: bool,
    /// `--redis-wait-replicas`: how many replicas a write waits for before it is acknowledged.
    pub redis_wait_replicas: usize,
    /// `--metrics ADDR`: serve Prometheus metrics there (feature `metrics`), if given.
    pub metrics: Option<SocketAddr>,
    /// Where `redis` came from: `--redis` or [`REDIS_URL_ENV`].
    redis_source: &'static str,
    /// The settings given (by flag or variable, applied), by flag name; `request-state-key`
    /// or `request-state-previous-key` for a key read from its variable.
    given: Vec<&'static str>,
}

impl Args {
    /// Whether a setting that lives in [`Config`] was given (not only the transport or the
    /// logging).
    fn changes_config(&self) -> bool {
        self.given.iter().any(|flag| {
            !matches!(
                *flag,
                "stdio"
                    | "addr"
                    | "log-level"
                    | "log-format"
                    | "redis"
                    | "redis-prefix"
                    | "metrics"
            )
        })
    }

    fn gave(&self, flag: &str) -> bool {
        self.given.contains(&flag)
    }
}

/// Parses `args` (the command line without the program name) and the environment `env` (a
/// variable's value by name, e.g. `|var| std::env::var(var).ok()`) over `config`: each setting
/// comes from its flag, else from its variable (empty: unset), else stays as in `config`.
/// Every value is checked; the error names the flag or variable.
///
/// A setting for HTTP given as a flag with `--stdio` is refused; given as a variable, it is
/// ignored (one environment can serve both transports). Likewise `--stdio-output-limit`
/// without `--stdio`.
pub(crate) fn parse(
    args: impl IntoIterator<Item = String>,
    config: &Config,
    env: impl Fn(&str) -> Option<String>,
) -> Result<Args, ArgsError> {
    let program = program_name();
    let matches = command(&program, config)
        .try_get_matches_from(std::iter::once(program.clone()).chain(args))
        .map_err(clap_error)?;
    from_matches(&matches, config, &env)
}

/// [`parse`] of the command line clap read: the settings of [`settings::all`] from `matches`, else
/// from `env`, over `config`.
fn from_matches(
    matches: &clap::ArgMatches,
    config: &Config,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Args, ArgsError> {
    if matches.get_flag(VERSION_FLAG) {
        return Err(ArgsError::Version);
    }
    let flag = |setting: &Setting| -> Option<String> {
        if matches.value_source(setting.flag) != Some(ValueSource::CommandLine) {
            return None;
        }
        Some(match setting.value {
            Some(_) => matches
                .get_one::<String>(setting.flag)
                .cloned()
                .unwrap_or_default(),
            None => "true".into(),
        })
    };
    let variable = |setting: &Setting| env(setting.env).filter(|text| !text.is_empty());
    let setting = |name: &str| {
        settings::all()
            .find(|setting| setting.flag == name)
            .expect("a setting of the table")
    };

    let mut parsed = Parsed::new(config.clone());
    let mut given = Vec::new();
    // The transport first: whether the other settings apply depends on it. `--addr` on the
    // command line wins over MCP_STDIO.
    let (stdio, addr) = (setting("stdio"), setting("addr"));
    let stdio_by_flag = flag(&stdio).is_some();
    parsed.stdio = stdio_by_flag
        || (flag(&addr).is_none()
            && match variable(&stdio) {
                Some(text) => values::switch(&text)
                    .map_err(|why| ArgsError::Invalid(format!("{}={text}: {why}", stdio.env)))?,
                None => false,
            });
    if parsed.stdio {
        given.push(stdio.flag);
    }
    // The first flag given whose feature this build lacks, as its error.
    let mut unbuilt: Option<String> = None;
    for setting in settings::all().filter(|s| s.flag != "stdio") {
        let value = match (flag(&setting), variable(&setting)) {
            (Some(text), _) => (text, true),
            (None, Some(text)) => (text, false),
            (None, None) => continue,
        };
        let value = Given {
            source: source(&setting, &value.0, value.1),
            text: &value.0,
            from_flag: value.1,
        };
        let applies = match setting.scope {
            Scope::Any => true,
            Scope::Http => !parsed.stdio,
            Scope::Stdio => parsed.stdio,
        };
        if !applies {
            if !value.from_flag {
                continue;
            }
            return Err(ArgsError::Invalid(match setting.scope {
                Scope::Stdio => format!(
                    "--{} is for --stdio: it does not apply to HTTP",
                    setting.flag
                ),
                _ => format!(
                    "--{} is for HTTP: it cannot be combined with --stdio{}",
                    setting.flag,
                    if stdio_by_flag {
                        ""
                    } else {
                        " (MCP_STDIO is set)"
                    }
                ),
            }));
        }
        // A flag this build cannot serve: that is its first error, before any about its value
        // or about what it needs beside it (the serve step refuses it if nothing else does).
        let unserved = features::missing(setting.flag).map(|feature| {
            let cited = match value.from_flag {
                true => format!("--{}", setting.flag),
                false => setting.env.to_string(),
            };
            features::error(&cited, feature)
        });
        if let Err(why) = setting.apply_to(&mut parsed, &value) {
            let message = unserved.unwrap_or_else(|| format!("{}: {why}", value.source));
            return Err(ArgsError::Invalid(message));
        }
        unbuilt = unbuilt.or(unserved);
        given.push(setting.flag);
    }
    settings::finish(&mut parsed, &env)
        .map_err(|why| ArgsError::Invalid(unbuilt.unwrap_or(why)))?;
    given.extend(parsed.keys_from_env.iter().copied());
    let (redis, redis_source) = match parsed.redis {
        Some((url, source)) => (Some(url), source),
        None => (None, REDIS_URL_ENV),
    };
    Ok(Args {
        transport: if parsed.stdio {
            Transport::Stdio
        } else {
            Transport::Http(parsed.addr)
        },
        config: parsed.config,
        log_filter: parsed.log_filter,
        log_format: parsed.log_format,
        redis,
        redis_prefix: parsed.redis_prefix,
        redis_cluster: parsed.redis_cluster,
        redis_wait_replicas: parsed.redis_wait_replicas,
        metrics: parsed.metrics,
        redis_source,
        given,
    })
}

/// The `--help` text of a server starting from `config` (its values are the defaults shown).
#[cfg(test)]
pub(crate) fn help(config: &Config) -> String {
    command(&program_name(), config).render_help().to_string()
}

/// The runtime's part of `--version`: its crate version and the MCP revisions it serves.
const RUNTIME_VERSION: &str = concat!(
    "mcp-runtime ",
    env!("CARGO_PKG_VERSION"),
    "; MCP 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28"
);

/// What `--version` prints for a server: `NAME VERSION (mcp-runtime X.Y.Z; MCP revisions)`,
/// the name and version from its contract's `info`.
pub(crate) fn version_line(catalog: &crate::Catalog) -> String {
    let server = &catalog.server;
    format!("{} {} ({RUNTIME_VERSION})", server.name, server.version)
}

/// Runs `dispatch` as a program: reads the flags and environment over [`Config::default`],
/// sends logs to stderr, and serves HTTP or stdio until SIGTERM or Ctrl-C (HTTP shuts down
/// gracefully, see [`McpServer::serve_listener`]) or stdin closes; exits 0 then, 2 on a bad
/// flag or variable.
pub fn main<D: Dispatch>(dispatch: D) -> ExitCode {
    run_with(Config::default(), |config| {
        McpServer::builder(dispatch).config(config).build()
    })
}

/// Like [`main`], for an application's own [`Config`] (the defaults `--help` shows: flags and
/// variables override them) and its own way to build the server from the result, e.g.
/// [`McpServerBuilder::stores`](crate::McpServerBuilder::stores), or taking its [`McpServer::notifier`] for the application's own
/// threads. `build` runs once the flags are checked and logging is set up.
///
/// ```no_run
/// # fn app<D: mcp_runtime::Dispatch>(dispatch: D) -> std::process::ExitCode {
/// use mcp_runtime::{entry, Config, McpServer};
/// let config = Config::builder().page_size(20).build();
/// entry::run_with(config, |config| McpServer::builder(dispatch).config(config).build())
/// # }
/// ```
pub fn run_with<D: Dispatch>(
    config: Config,
    build: impl FnOnce(Config) -> McpServer<D>,
) -> ExitCode {
    if let Some(code) = crate::result_budget::projection::as_worker() {
        return code;
    }
    let mut args = match parse_process(&config) {
        Ok(args) => args,
        Err(Exit::Version) => {
            // Building is cheap and starts nothing (no runtime, no listener yet).
            let server = build(config);
            println!(
                "{}",
                version_line(server.engine().dispatch().contract().catalog())
            );
            return ExitCode::SUCCESS;
        }
        Err(Exit::Code(code)) => return code,
    };
    // The exporters stay until the end: dropping the handle flushes them.
    let _telemetry = match start_logging(&args, &program_name()) {
        Ok(telemetry) => telemetry,
        Err(code) => return code,
    };
    let shared = shared(&args);
    stdio_sealing_key(&mut args);
    serve(build(args.config), args.transport, shared, args.metrics)
}

/// Like [`main`], for a server the application already built (e.g. with its own
/// [`crate::Config`], or after taking its [`McpServer::notifier`]): the flags and variables
/// change its configuration in place. That needs `server` not to have been cloned yet (else
/// the program stops with an error: build it in [`run_with`]'s closure instead), and it cannot
/// change what the server took when it was built: `--max-sessions`, `--max-tasks`,
/// `--task-ttl` and `--task-poll-interval` are refused here ([`run_with`] takes them).
pub fn run<D: Dispatch>(mut server: McpServer<D>) -> ExitCode {
    if let Some(code) = crate::result_budget::projection::as_worker() {
        return code;
    }
    let mut args = match parse_process(server.config()) {
        Ok(args) => args,
        Err(Exit::Version) => {
            println!(
                "{}",
                version_line(server.engine().dispatch().contract().catalog())
            );
            return ExitCode::SUCCESS;
        }
        Err(Exit::Code(code)) => return code,
    };
    let _telemetry = match start_logging(
        &args,
        server.engine().dispatch().contract().catalog().server.name,
    ) {
        Ok(telemetry) => telemetry,
        Err(code) => return code,
    };
    stdio_sealing_key(&mut args);
    if let Err(message) = reconfigure(&mut server, &args) {
        eprintln!("error: {message}");
        return ExitCode::from(2);
    }
    let shared = shared(&args);
    serve(server, args.transport, shared, args.metrics)
}

/// On stdio without a configured requestState key, a random one, given here so that nothing
/// warns about it: the process lives as long as its one client's connection, so a key shared
/// with other instances or kept across restarts would change nothing. Not with `--redis`,
/// which checks that every instance was given the same key.
fn stdio_sealing_key(args: &mut Args) {
    use crate::request_state::SealingKey;
    if args.transport == Transport::Stdio
        && args.redis.is_none()
        && args.config.request_state.request_state_key.is_none()
        && matches!(SealingKey::from_env(), Ok(None))
    {
        args.config.request_state.request_state_key = Some(SealingKey::random());
    }
}

/// Why [`parse_process`] gave no [`Args`].
enum Exit {
    /// Help or an error, already printed: exit with this.
    Code(ExitCode),
    /// `--version`: print the server's [`version_line`] (the caller has its catalog).
    Version,
}

/// [`parse`] of this process's arguments and environment over `config`; on help or error,
/// what to exit with (the help or the error printed).
fn parse_process(config: &Config) -> Result<Args, Exit> {
    match parse(std::env::args().skip(1), config, |var| {
        std::env::var(var).ok()
    }) {
        Ok(args) => Ok(args),
        Err(ArgsError::Help(help)) => {
            print!("{help}");
            Err(Exit::Code(ExitCode::SUCCESS))
        }
        Err(ArgsError::Version) => Err(Exit::Version),
        Err(ArgsError::Invalid(message)) => {
            eprintln!("error: {message}");
            Err(Exit::Code(ExitCode::from(2)))
        }
    }
}

/// Puts `args.config` into `server`, built before the flags were read ([`run`]).
fn reconfigure<D: Dispatch>(server: &mut McpServer<D>, args: &Args) -> Result<(), String> {
    if !args.changes_config() {
        return Ok(());
    }
    // What the stores and the task runner took when the server was built.
    for (flag, field) in [
        ("max-sessions", "max_sessions"),
        ("max-tasks", "max_tasks"),
        ("task-ttl", "task_ttl"),
        ("task-poll-interval", "task_poll_interval"),
    ] {
        if args.gave(flag) {
            return Err(format!(
                "--{flag} is fixed when the server is built, before entry::run: build it in entry::run_with's closure, or set Config::{field}"
            ));
        }
    }
    let Some(engine) = server.engine_mut() else {
        return Err("flags and MCP_* variables cannot change a server that was cloned before entry::run: build it in entry::run_with's closure, or set its Config".into());
    };
    engine.reconfigure(args.config.clone());
    Ok(())
}

/// Sends logs to stderr, filtered and formatted as `args` asks, and starts the telemetry
/// exporters the environment asks for ([`crate::telemetry::init_logging`]: OTLP with the
/// `otel` feature, spans named for `service_name` unless `OTEL_SERVICE_NAME` is set). Keep
/// what it returns to the end; on error, what to exit with (the error printed).
fn start_logging(args: &Args, service_name: &str) -> Result<crate::telemetry::Telemetry, ExitCode> {
    let json = args.log_format == LogFormat::Json;
    crate::telemetry::init_subscriber(
        service_name,
        &args.log_filter,
        json,
        args.config.telemetry.return_traces,
    )
    .map_err(|message| {
        eprintln!("error: {message}");
        ExitCode::from(2)
    })
}

#[cfg(test)]
mod tests;
