//! The `main` of a generated server binary: flags and `MCP_*` environment variables, logging,
//! runtime, transport.
//!
//! Every setting an operator changes is a flag and an environment variable, listed by
//! `--help` in groups with its default, and checked before the server starts: a bad value, a
//! zero where zero makes no sense, or a combination that cannot work exits with status 2 and
//! one line naming the flag or variable (`error: --body-limit 0: must be at least 1 byte`).
//! A flag wins over its variable; an empty variable counts as unset. The table of settings
//! is `entry/settings.rs` (`SETTINGS`): adding a flag is adding an entry there.
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
use std::sync::Arc;

use clap::parser::ValueSource;

use crate::config::Config;
use crate::dispatch::Dispatch;
use crate::server::McpServer;

mod features;
mod settings;
// The upstream flags of a gateway binary (`gateway`, `parse_gateway`).
#[cfg(feature = "upstream")]
mod upstream;
pub(crate) mod values;

#[cfg(feature = "upstream")]
pub use upstream::{gateway, parse_gateway};

use settings::{Given, Parsed, Scope, Setting, SETTINGS};

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

/// The environment variable giving the Redis URL when `--redis` is not given (empty: off).
pub const REDIS_URL_ENV: &str = "MCP_REDIS_URL";

/// The environment variable giving the Redis key prefix when `--redis-prefix` is not given
/// (default `mcp`).
pub const REDIS_PREFIX_ENV: &str = "MCP_REDIS_PREFIX";

/// How to serve, from the command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Transport {
    /// Streamable HTTP on this address.
    Http(SocketAddr),
    /// stdin/stdout.
    Stdio,
}

/// How logs are written to stderr (`--log-format`, `MCP_LOG_FORMAT`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
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

/// The transport the command line and the process environment ask for (see
/// [`parse_command_line`]).
pub fn parse_args(args: impl IntoIterator<Item = String>) -> Result<Transport, ArgsError> {
    parse_command_line(args).map(|args| args.transport)
}

/// Parses `args` (without the program name) and the process environment over
/// [`Config::default`]; see [`parse`].
pub fn parse_command_line(args: impl IntoIterator<Item = String>) -> Result<Args, ArgsError> {
    parse(args, &Config::default(), |var| std::env::var(var).ok())
}

/// Parses `args` (the command line without the program name) and the environment `env` (a
/// variable's value by name, e.g. `|var| std::env::var(var).ok()`) over `config`: each setting
/// comes from its flag, else from its variable (empty: unset), else stays as in `config`.
/// Every value is checked; the error names the flag or variable.
///
/// A setting for HTTP given as a flag with `--stdio` is refused; given as a variable, it is
/// ignored (one environment can serve both transports). Likewise `--stdio-output-limit`
/// without `--stdio`.
pub fn parse(
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

/// [`parse`] of the command line clap read: the settings of [`SETTINGS`] from `matches`, else
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
        SETTINGS
            .iter()
            .find(|setting| setting.flag == name)
            .expect("a setting of the table")
    };

    let mut parsed = Parsed::new(config.clone());
    let mut given = Vec::new();
    // The transport first: whether the other settings apply depends on it. `--addr` on the
    // command line wins over MCP_STDIO.
    let (stdio, addr) = (setting("stdio"), setting("addr"));
    let stdio_by_flag = flag(stdio).is_some();
    parsed.stdio = stdio_by_flag
        || (flag(addr).is_none()
            && match variable(stdio) {
                Some(text) => values::switch(&text)
                    .map_err(|why| ArgsError::Invalid(format!("{}={text}: {why}", stdio.env)))?,
                None => false,
            });
    if parsed.stdio {
        given.push(stdio.flag);
    }
    // The first flag given whose feature this build lacks, as its error.
    let mut unbuilt: Option<String> = None;
    for setting in SETTINGS.iter().filter(|s| s.flag != "stdio") {
        let value = match (flag(setting), variable(setting)) {
            (Some(text), _) => (text, true),
            (None, Some(text)) => (text, false),
            (None, None) => continue,
        };
        let value = Given {
            source: source(setting, &value.0, value.1),
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
        if let Err(why) = (setting.apply)(&mut parsed, &value) {
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
        metrics: parsed.metrics,
        redis_source,
        given,
    })
}

/// The `--help` text of a server starting from `config` (its values are the defaults shown).
pub fn help(config: &Config) -> String {
    command(&program_name(), config).render_help().to_string()
}

/// How an error cites a value: `--flag VALUE` (a switch: `--flag`) or `VAR=VALUE`, the value
/// quoted when it is empty or holds spaces or control characters (the error stays one line).
fn source(setting: &Setting, text: &str, from_flag: bool) -> String {
    let shown = if text.is_empty() || text.contains(|c: char| c.is_whitespace() || c.is_control()) {
        format!("{text:?}")
    } else {
        text.to_owned()
    };
    match (from_flag, setting.value) {
        (true, None) => format!("--{}", setting.flag),
        (true, Some(_)) => format!("--{} {shown}", setting.flag),
        (false, _) => format!("{}={shown}", setting.env),
    }
}

/// The name of this program, for `--help`.
fn program_name() -> String {
    std::env::args_os()
        .next()
        .and_then(|path| {
            std::path::Path::new(&path)
                .file_name()
                .map(|name| name.to_string_lossy().into_owned())
        })
        .unwrap_or_else(|| "server".into())
}

const ABOUT: &str = "An MCP server (mcp-runtime): Streamable HTTP at http://HOST:PORT/mcp, or \
stdin/stdout with --stdio.";

const AFTER_HELP: &str = "\
Every flag can be given by its environment variable instead ([env: ...]); the flag wins, and an \
empty variable counts as unset. A flag for HTTP is refused with --stdio, its variable ignored.
Durations: 250ms, 30s, 10m, 1h, 1d, or a sum such as 1h30m. Sizes: bytes, or 64KiB, 4MiB, 1GiB. \
Switches set by a variable: 1, true, on, yes or 0, false, off, no.";

/// The command line of [`SETTINGS`], with `config`'s values as the defaults shown.
fn command(program: &str, config: &Config) -> clap::Command {
    let mut command = clap::Command::new(program.to_owned())
        .about(ABOUT)
        .after_help(wrap(AFTER_HELP, HELP_WIDTH + HELP_INDENT))
        // A repeated flag: the last one wins.
        .args_override_self(true)
        // Each flag on its line, its help under it (wrapped here: clap wraps only with its
        // `wrap_help` feature, which would bring a terminal-size crate to every server).
        .next_line_help(true)
        .arg(
            clap::Arg::new(VERSION_FLAG)
                .short('V')
                .long(VERSION_FLAG)
                .help("Print the server's name and version, and the runtime's, then exit")
                .action(clap::ArgAction::SetTrue),
        );
    for setting in SETTINGS {
        let default = (setting.default)(config);
        let mut spec = format!("[env: {}]", setting.env);
        if !default.is_empty() {
            spec.push_str(&format!(" [default: {default}]"));
        }
        let help = format!(
            "{}\n{}",
            wrap(setting.help, HELP_WIDTH),
            wrap(&spec, HELP_WIDTH)
        );
        let arg = clap::Arg::new(setting.flag)
            .long(setting.flag)
            .help_heading(setting.heading)
            .help(help);
        let arg = match setting.value {
            Some(name) => arg.value_name(name).action(clap::ArgAction::Set),
            None => arg.action(clap::ArgAction::SetTrue),
        };
        command = command.arg(arg);
    }
    command
}

/// The flag that prints [`version_line`] (not a setting: it changes nothing).
const VERSION_FLAG: &str = "version";

/// The runtime's part of `--version`: its crate version and the MCP revisions it serves.
const RUNTIME_VERSION: &str = concat!(
    "mcp-runtime ",
    env!("CARGO_PKG_VERSION"),
    "; MCP 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28"
);

/// What `--version` prints for a server: `NAME VERSION (mcp-runtime X.Y.Z; MCP revisions)`,
/// the name and version from its contract's `info`.
pub fn version_line(catalog: &crate::Catalog) -> String {
    let server = &catalog.server;
    format!("{} {} ({RUNTIME_VERSION})", server.name, server.version)
}

/// The width of a flag's help lines, under the flag (clap indents them by [`HELP_INDENT`]).
const HELP_WIDTH: usize = 88;
const HELP_INDENT: usize = 10;

/// `text` broken into lines of at most `width` characters, between words (a longer word gets
/// its own line); its own line breaks are kept.
fn wrap(text: &str, width: usize) -> String {
    let mut wrapped = String::with_capacity(text.len() + 8);
    for (i, paragraph) in text.split('\n').enumerate() {
        if i > 0 {
            wrapped.push('\n');
        }
        let mut line_len = 0;
        for word in paragraph.split(' ').filter(|word| !word.is_empty()) {
            let len = word.chars().count();
            if line_len > 0 && line_len + 1 + len > width {
                wrapped.push('\n');
                line_len = 0;
            } else if line_len > 0 {
                wrapped.push(' ');
                line_len += 1;
            }
            wrapped.push_str(word);
            line_len += len;
        }
    }
    wrapped
}

/// A clap error as one line (or the help).
fn clap_error(error: clap::Error) -> ArgsError {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    let context = |kind| match error.get(kind) {
        Some(ContextValue::String(value)) => Some(value.clone()),
        Some(ContextValue::Strings(values)) => values.first().cloned(),
        _ => None,
    };
    match error.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            ArgsError::Help(error.render().to_string())
        }
        ErrorKind::UnknownArgument => {
            let argument = context(ContextKind::InvalidArg).unwrap_or_default();
            let tip = context(ContextKind::SuggestedArg)
                .map(|similar| format!(" (did you mean {similar}?)"))
                .unwrap_or_default();
            ArgsError::Invalid(format!(
                "unknown argument `{argument}`{tip}; --help lists every flag"
            ))
        }
        ErrorKind::InvalidValue
            if context(ContextKind::InvalidValue).is_none_or(|value| value.is_empty()) =>
        {
            let argument = context(ContextKind::InvalidArg).unwrap_or_default();
            ArgsError::Invalid(format!("{argument} needs a value"))
        }
        _ => {
            let rendered = error.render().to_string();
            let line = rendered.lines().next().unwrap_or_default();
            ArgsError::Invalid(line.strip_prefix("error: ").unwrap_or(line).to_owned())
        }
    }
}

/// Whether `url` can be the endpoint's public URL: `http://` or `https://`, no spaces or
/// control characters. The error says why not.
pub fn check_public_url(url: &str) -> Result<(), String> {
    let Some((_, rest)) = url
        .split_once("://")
        .filter(|(scheme, _)| matches!(*scheme, "http" | "https"))
    else {
        return Err("the URL must start with https:// (or http://)".into());
    };
    if rest.is_empty() || url.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err("the URL needs a host and no spaces or control characters".into());
    }
    Ok(())
}

/// Whether `path` can be the plain JSON-RPC endpoint's: an absolute path other than `/mcp`,
/// without query, fragment, spaces or control characters. The error says why not.
pub fn check_jsonrpc_path(path: &str) -> Result<(), String> {
    if !path.starts_with('/') {
        return Err("the path must start with `/`, e.g. /jsonrpc".into());
    }
    if path == crate::http::ENDPOINT {
        return Err("the path must differ from the MCP endpoint /mcp".into());
    }
    if path
        .chars()
        .any(|c| c.is_whitespace() || c.is_control() || c == '?' || c == '#')
    {
        return Err(
            "the path must be a plain path: no query, fragment, spaces or control characters"
                .into(),
        );
    }
    Ok(())
}

/// Runs `dispatch` as a program: reads the flags and environment over [`Config::default`],
/// sends logs to stderr, and serves HTTP or stdio until SIGTERM or Ctrl-C (HTTP shuts down
/// gracefully, see [`McpServer::serve_listener`]) or stdin closes; exits 0 then, 2 on a bad
/// flag or variable.
pub fn main<D: Dispatch>(dispatch: D) -> ExitCode {
    run_with(Config::default(), |config| {
        McpServer::with_config(dispatch, config)
    })
}

/// Like [`main`], for an application's own [`Config`] (the defaults `--help` shows: flags and
/// variables override them) and its own way to build the server from the result, e.g.
/// [`McpServer::with_stores`], or taking its [`McpServer::notifier`] for the application's own
/// threads. `build` runs once the flags are checked and logging is set up.
///
/// ```no_run
/// # fn app<D: mcp_runtime::Dispatch>(dispatch: D) -> std::process::ExitCode {
/// use mcp_runtime::{entry, Config, McpServer};
/// let config = Config::builder().page_size(20).build();
/// entry::run_with(config, |config| McpServer::with_config(dispatch, config))
/// # }
/// ```
pub fn run_with<D: Dispatch>(
    config: Config,
    build: impl FnOnce(Config) -> McpServer<D>,
) -> ExitCode {
    let mut args = match parse_process(&config) {
        Ok(args) => args,
        Err(Exit::Version) => {
            // Building is cheap and starts nothing (no runtime, no listener yet).
            let server = build(config);
            println!("{}", version_line(server.engine.dispatch.catalog()));
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
    let mut args = match parse_process(server.config()) {
        Ok(args) => args,
        Err(Exit::Version) => {
            println!("{}", version_line(server.engine.dispatch.catalog()));
            return ExitCode::SUCCESS;
        }
        Err(Exit::Code(code)) => return code,
    };
    let _telemetry = match start_logging(&args, server.engine.dispatch.catalog().server.name) {
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
        && args.config.request_state_key.is_none()
        && matches!(SealingKey::from_env(), Ok(None))
    {
        args.config.request_state_key = Some(SealingKey::random());
    }
}

/// `--redis`, if given: the URL, the flag or variable it came from, the key prefix.
struct Shared {
    url: String,
    source: &'static str,
    prefix: String,
}

fn shared(args: &Args) -> Option<Shared> {
    args.redis.as_ref().map(|url| Shared {
        url: url.clone(),
        source: args.redis_source,
        prefix: args.redis_prefix.clone(),
    })
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
    let Some(engine) = Arc::get_mut(&mut server.engine) else {
        return Err("flags and MCP_* variables cannot change a server that was cloned before entry::run: build it in entry::run_with's closure, or set its Config".into());
    };
    let mut config = args.config.clone();
    // The contract's scopes are published with the metadata, as McpServer::with_config does.
    if let Some(auth) = config.auth.take() {
        config.auth = Some(auth.support_scopes(engine.dispatch.scopes_supported()));
    }
    engine.config = config;
    engine.sealer = crate::server::sealer(&engine.config);
    // Shared buckets, if the server's stores have them, stay (the stores are not rebuilt).
    let buckets = engine.limiter.as_ref().and_then(|l| l.shared_buckets());
    engine.limiter = crate::rate_limit::Limiter::of(
        engine.config.rate_limits.as_ref(),
        &engine.dispatch,
        buckets,
    );
    Ok(())
}

/// Sends logs to stderr, filtered and formatted as `args` asks, and starts the telemetry
/// exporters the environment asks for ([`crate::telemetry::init_logging`]: OTLP with the
/// `otel` feature, spans named for `service_name` unless `OTEL_SERVICE_NAME` is set). Keep
/// what it returns to the end; on error, what to exit with (the error printed).
fn start_logging(args: &Args, service_name: &str) -> Result<crate::telemetry::Telemetry, ExitCode> {
    let json = args.log_format == LogFormat::Json;
    crate::telemetry::init_logging(service_name, &args.log_filter, json).map_err(|message| {
        eprintln!("error: {message}");
        ExitCode::from(2)
    })
}

/// Serves `server` on `transport` until the end (see [`main`]), its tasks and notifications
/// shared through Redis first when `shared` says so, its Prometheus metrics at `metrics` when
/// given (`--metrics`, a listener of its own).
fn serve<D: Dispatch>(
    mut server: McpServer<D>,
    transport: Transport,
    shared: Option<Shared>,
    metrics: Option<SocketAddr>,
) -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("error: cannot start the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    if let Some(shared) = shared {
        server = match runtime.block_on(shared_through_redis(server, shared)) {
            Ok(server) => server,
            Err((code, message)) => {
                eprintln!("error: {message}");
                return ExitCode::from(code);
            }
        };
    }
    if let Some(addr) = metrics {
        if let Err((code, message)) =
            crate::telemetry::start_metrics(&runtime, server.load_source(), addr)
        {
            eprintln!("error: {message}");
            return ExitCode::from(code);
        }
    }
    let result = runtime.block_on(async move {
        match transport {
            Transport::Http(addr) => server.serve(addr).await,
            // stdin closing is the usual end; a signal ends it too, with success.
            Transport::Stdio => tokio::select! {
                served = crate::stdio::serve_stdio(server) => served,
                () = crate::shutdown::signal() => Ok(()),
            },
        }
    });
    // What is still running is dropped: handlers past the shutdown grace, and the thread
    // blocked reading stdin (which would otherwise keep the process alive until a line comes).
    runtime.shutdown_timeout(std::time::Duration::from_millis(100));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

/// `server` rebuilt with its tasks and notifications shared through the Redis `shared` names
/// (`--redis URL`; errors name the flag or variable it came from, never the URL). On failure,
/// the exit code and the message: 2 for a setup that cannot work, 1 when Redis cannot be
/// reached.
async fn shared_through_redis<D: Dispatch>(
    server: McpServer<D>,
    shared: Shared,
) -> Result<McpServer<D>, (u8, String)> {
    let source = shared.source;
    #[cfg(not(feature = "redis"))]
    {
        let _ = (server, shared.url, shared.prefix);
        Err((
            2,
            format!("{source}: this server was built without the `redis` feature (build it with `--features redis`)"),
        ))
    }
    #[cfg(feature = "redis")]
    {
        use crate::request_state::{SealingKey, KEY_ENV};
        let shared_key = server.config().request_state_key.is_some()
            || matches!(SealingKey::from_env(), Ok(Some(_)));
        if !shared_key {
            return Err((
                2,
                format!("{source} needs {KEY_ENV} (or --request-state-key-file): every instance must seal requestState with the same key (e.g. `openssl rand -hex 32`)"),
            ));
        }
        let stores = crate::stores::redis::connect(&shared.url, &shared.prefix, server.config())
            .await
            .map_err(|error| (1, format!("{source}: {error}")))?;
        server.rebuilt_with(stores).map_err(|_| {
            (
                2,
                format!("{source} cannot change a server that was cloned before entry::run; build it in entry::run_with's closure, or with McpServer::with_stores"),
            )
        })
    }
}

#[cfg(test)]
mod tests;
