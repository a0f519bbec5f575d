//! The `main` of a generated server binary: flags, logging, runtime, transport.

use std::net::SocketAddr;
use std::process::ExitCode;

use crate::dispatch::Dispatch;
use crate::server::McpServer;

const USAGE: &str = "\
Usage: <server> [--addr HOST:PORT | --stdio] [--jsonrpc PATH] [--legacy-sse] [--server-card]
                [--public-url URL] [--auth-issuer URL ...]

  --addr HOST:PORT   serve MCP over Streamable HTTP at http://HOST:PORT/mcp [default: 127.0.0.1:8080]
  --stdio            serve MCP over stdin/stdout (one JSON-RPC message per line)
  --jsonrpc PATH     also serve every method of the contract as plain JSON-RPC 2.0 over HTTP
                     POST at PATH (e.g. /jsonrpc), with rpc.discover; HTTP only
                     [env: MCP_JSONRPC_PATH; default: off]
  --server-card      serve the contract's server card at /mcp/server-card, listed by the MCP
                     Catalog at /.well-known/mcp/catalog.json; HTTP only
                     [env: MCP_SERVER_CARD=1; default: off]
  --public-url URL   the MCP endpoint's public URL, as clients reach it through proxies, e.g.
                     https://mcp.example.com/mcp; named by the server card
                     [env: MCP_PUBLIC_URL; default: http://{Host header}/mcp]
  --legacy-sse       also serve the 2024-11-05 HTTP+SSE transport: GET /sse opens the stream,
                     POST /messages?sessionId=ID carries client messages; HTTP only
                     [env: MCP_LEGACY_SSE=1; default: off]
{AUTH}
  --redis URL        share 2026-07-28 tasks and notifications with the other instances through
                     the Redis at URL (redis://host:port/db; needs MCP_REQUEST_STATE_KEY, the
                     same on every instance; MCP_REDIS_PREFIX names the keys [default: mcp]);
                     HTTP only{REDIS_BUILD} [env: MCP_REDIS_URL; default: off, everything in memory]
  -h, --help         print this help

Logs go to stderr; set RUST_LOG (e.g. RUST_LOG=debug) to see more.";

/// [`USAGE`] with the authorization flags' lines.
fn usage() -> String {
    // Whether this build can use `--redis`, so that `--help` tells before a start fails.
    let redis_build = if cfg!(feature = "redis") {
        ""
    } else {
        "; NOT IN THIS BUILD: rebuild with the `redis` feature\n                    "
    };
    USAGE
        .replace("{AUTH}", crate::auth::cli::USAGE)
        .replace("{REDIS_BUILD}", redis_build)
}

/// The environment variable naming the plain JSON-RPC path when `--jsonrpc` is not given
/// (empty: off).
pub const JSONRPC_PATH_ENV: &str = "MCP_JSONRPC_PATH";
/// The environment variable turning the server card on when `--server-card` is not given
/// (`1` or `true`).
pub const SERVER_CARD_ENV: &str = "MCP_SERVER_CARD";
/// The environment variable giving the public URL when `--public-url` is not given.
pub const PUBLIC_URL_ENV: &str = "MCP_PUBLIC_URL";

/// The environment variable turning the 2024-11-05 HTTP+SSE transport on when `--legacy-sse`
/// is not given (`1`, `true`, `on`, `yes`; empty, `0`, `false`, `off`, `no`: off).
pub const LEGACY_SSE_ENV: &str = "MCP_LEGACY_SSE";

/// The environment variable giving the Redis URL when `--redis` is not given (empty: off).
pub const REDIS_URL_ENV: &str = "MCP_REDIS_URL";

/// The environment variable giving the Redis key prefix (default `mcp`).
pub const REDIS_PREFIX_ENV: &str = "MCP_REDIS_PREFIX";

/// How to serve, from the command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Transport {
    /// Streamable HTTP on this address.
    Http(SocketAddr),
    /// stdin/stdout.
    Stdio,
}

/// Why [`parse_args`] returned no [`Transport`]. Its `Display` is the text to print.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ArgsError {
    /// `-h` / `--help`: print the usage and exit successfully.
    Help,
    /// A bad or unknown argument: print the message and exit with status 2.
    Invalid(String),
}

impl std::fmt::Display for ArgsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ArgsError::Help => f.write_str(&usage()),
            ArgsError::Invalid(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for ArgsError {}

/// What the command line asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Args {
    /// How to serve MCP.
    pub transport: Transport,
    /// `--jsonrpc PATH`: the plain JSON-RPC endpoint's path (see
    /// [`Config::jsonrpc_path`](crate::Config::jsonrpc_path)), if given.
    pub jsonrpc_path: Option<String>,
    /// `--server-card`: serve the server card ([`Config::server_card`](crate::Config::server_card)).
    pub server_card: bool,
    /// `--public-url URL` ([`Config::public_url`](crate::Config::public_url)), if given.
    pub public_url: Option<String>,
    /// `--legacy-sse`: also serve the 2024-11-05 HTTP+SSE transport (see
    /// [`Config::legacy_sse`](crate::Config::legacy_sse)).
    pub legacy_sse: bool,
    /// `--auth-issuer`, `--auth-audience`, `--auth-jwks`, `--auth-scopes` (HTTP only: refused
    /// with `--stdio`).
    pub auth: crate::auth::AuthArgs,
    /// `--redis URL`: share tasks and notifications through this Redis, if given.
    pub redis: Option<String>,
}

/// Parses `--addr HOST:PORT` / `--addr=HOST:PORT` / `--stdio`; the transport only (see
/// [`parse_command_line`] for every flag).
pub fn parse_args(args: impl IntoIterator<Item = String>) -> Result<Transport, ArgsError> {
    parse_command_line(args).map(|args| args.transport)
}

/// Parses the whole command line: [`parse_args`]'s flags and `--jsonrpc PATH` /
/// `--jsonrpc=PATH` (HTTP only: refused with `--stdio`).
pub fn parse_command_line(args: impl IntoIterator<Item = String>) -> Result<Args, ArgsError> {
    let mut transport = Transport::Http(SocketAddr::from(([127, 0, 0, 1], 8080)));
    let mut jsonrpc_path = None;
    let mut server_card = false;
    let mut public_url = None;
    let mut legacy_sse = false;
    let mut auth = crate::auth::AuthArgs::default();
    let mut redis = None;
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let (flag, value) = match arg.split_once('=') {
            Some((flag @ ("--addr" | "--jsonrpc" | "--public-url" | "--redis"), value)) => {
                (flag.to_string(), value.to_string())
            }
            Some((flag, value)) if crate::auth::AuthArgs::is_flag(flag) => {
                (flag.to_string(), value.to_string())
            }
            _ => match arg.as_str() {
                "--stdio" => {
                    transport = Transport::Stdio;
                    continue;
                }
                "--server-card" => {
                    server_card = true;
                    continue;
                }
                "--legacy-sse" => {
                    legacy_sse = true;
                    continue;
                }
                "-h" | "--help" => return Err(ArgsError::Help),
                "--addr" | "--jsonrpc" | "--public-url" | "--redis" => {
                    let value = args.next().ok_or_else(|| {
                        ArgsError::Invalid(match arg.as_str() {
                            "--addr" => "--addr needs a value, e.g. --addr 127.0.0.1:8080".into(),
                            "--public-url" => "--public-url needs a value, e.g. --public-url https://mcp.example.com/mcp".into(),
                            "--redis" => "--redis needs a value, e.g. --redis redis://127.0.0.1:6379/".into(),
                            _ => "--jsonrpc needs a value, e.g. --jsonrpc /jsonrpc".into(),
                        })
                    })?;
                    (arg, value)
                }
                flag if crate::auth::AuthArgs::is_flag(flag) => {
                    let value = args.next().ok_or_else(|| {
                        ArgsError::Invalid(format!("{flag} needs a value, e.g. {flag} https://…"))
                    })?;
                    (arg, value)
                }
                other => {
                    return Err(ArgsError::Invalid(format!(
                        "unknown argument `{other}`\n\n{}",
                        usage()
                    )))
                }
            },
        };
        if crate::auth::AuthArgs::is_flag(&flag) {
            auth.set(&flag, value);
            continue;
        }
        if flag == "--jsonrpc" {
            check_jsonrpc_path(&value)
                .map_err(|why| ArgsError::Invalid(format!("--jsonrpc {value}: {why}")))?;
            jsonrpc_path = Some(value);
            continue;
        }
        if flag == "--redis" {
            redis = Some(value);
            continue;
        }
        if flag == "--public-url" {
            check_public_url(&value)
                .map_err(|why| ArgsError::Invalid(format!("--public-url {value}: {why}")))?;
            public_url = Some(value);
            continue;
        }
        let addr = value.parse().map_err(|e| {
            ArgsError::Invalid(format!(
                "--addr {value}: {e} (expected HOST:PORT, e.g. 127.0.0.1:8080)"
            ))
        })?;
        transport = Transport::Http(addr);
    }
    if jsonrpc_path.is_some() && transport == Transport::Stdio {
        return Err(ArgsError::Invalid(
            "--jsonrpc serves over HTTP: it cannot be combined with --stdio".into(),
        ));
    }
    if (server_card || public_url.is_some()) && transport == Transport::Stdio {
        return Err(ArgsError::Invalid(
            "--server-card and --public-url are for HTTP: they cannot be combined with --stdio"
                .into(),
        ));
    }
    if legacy_sse && transport == Transport::Stdio {
        return Err(ArgsError::Invalid(
            "--legacy-sse serves over HTTP: it cannot be combined with --stdio".into(),
        ));
    }
    if auth.any() && transport == Transport::Stdio {
        return Err(ArgsError::Invalid(
            "--auth-* apply to HTTP: they cannot be combined with --stdio".into(),
        ));
    }
    if redis.is_some() && transport == Transport::Stdio {
        return Err(ArgsError::Invalid(
            "--redis shares state between HTTP instances: it cannot be combined with --stdio"
                .into(),
        ));
    }
    Ok(Args {
        transport,
        jsonrpc_path,
        server_card,
        public_url,
        legacy_sse,
        auth,
        redis,
    })
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

/// The plain JSON-RPC path to serve: the flag's, else the environment's ([`JSONRPC_PATH_ENV`],
/// empty meaning off), checked.
fn jsonrpc_path(flag: Option<String>, env: Option<String>) -> Result<Option<String>, ArgsError> {
    if flag.is_some() {
        return Ok(flag);
    }
    match env.filter(|path| !path.is_empty()) {
        None => Ok(None),
        Some(path) => match check_jsonrpc_path(&path) {
            Ok(()) => Ok(Some(path)),
            Err(why) => Err(ArgsError::Invalid(format!(
                "{JSONRPC_PATH_ENV}={path}: {why}"
            ))),
        },
    }
}

/// Whether to serve the 2024-11-05 HTTP+SSE transport: the flag, else the environment's
/// [`LEGACY_SSE_ENV`].
fn legacy_sse(flag: bool, env: Option<String>) -> Result<bool, ArgsError> {
    if flag {
        return Ok(true);
    }
    match env.as_deref().map(str::trim) {
        None | Some("" | "0" | "false" | "off" | "no") => Ok(false),
        Some("1" | "true" | "on" | "yes") => Ok(true),
        Some(other) => Err(ArgsError::Invalid(format!(
            "{LEGACY_SSE_ENV}={other}: expected 1, true, on or yes (or 0, false, off, no)"
        ))),
    }
}

/// Runs `dispatch` as a program: parses the command line, sends logs to stderr, and serves
/// HTTP or stdio until SIGTERM or Ctrl-C (HTTP shuts down gracefully, see
/// [`McpServer::serve_listener`]) or stdin closes; exits 0 then.
pub fn main<D: Dispatch>(dispatch: D) -> ExitCode {
    run(McpServer::new(dispatch))
}

/// Like [`main`], for a server built by the application, e.g. with its own [`crate::Config`],
/// or after taking its [`McpServer::notifier`] to announce changes from the application's own
/// threads.
///
/// `--jsonrpc PATH` (or [`JSONRPC_PATH_ENV`]) sets [`Config::jsonrpc_path`](crate::Config::jsonrpc_path)
/// of `server`, and `--legacy-sse` (or [`LEGACY_SSE_ENV`]) sets
/// [`Config::legacy_sse`](crate::Config::legacy_sse); `server` must not have been cloned yet
/// (else the program stops with an error: set the field in the [`crate::Config`] instead).
pub fn run<D: Dispatch>(mut server: McpServer<D>) -> ExitCode {
    let parsed = parse_command_line(std::env::args().skip(1)).and_then(|args| {
        let env = std::env::var(JSONRPC_PATH_ENV).ok();
        let (path, legacy) = match args.transport {
            // The environment's options are for HTTP; stdio simply ignores them.
            Transport::Stdio => (None, false),
            Transport::Http(_) => (
                jsonrpc_path(args.jsonrpc_path, env)?,
                legacy_sse(args.legacy_sse, std::env::var(LEGACY_SSE_ENV).ok())?,
            ),
        };
        let http = matches!(args.transport, Transport::Http(_));
        let server_card = http
            && (args.server_card
                || std::env::var(SERVER_CARD_ENV).is_ok_and(|v| v == "1" || v == "true"));
        let public_url = match (args.public_url, std::env::var(PUBLIC_URL_ENV).ok()) {
            (Some(url), _) => Some(url),
            (None, Some(url)) if http && !url.is_empty() => {
                check_public_url(&url)
                    .map_err(|why| ArgsError::Invalid(format!("{PUBLIC_URL_ENV}={url}: {why}")))?;
                Some(url)
            }
            _ => None,
        };
        let auth = if http {
            args.auth
                .auth(public_url.as_deref(), |var| std::env::var(var).ok())
                .map_err(ArgsError::Invalid)?
        } else {
            None
        };
        let redis = match (args.redis, std::env::var(REDIS_URL_ENV).ok()) {
            (Some(url), _) => Some((url, "--redis")),
            (None, Some(url)) if http && !url.is_empty() => Some((url, REDIS_URL_ENV)),
            _ => None,
        };
        Ok((
            args.transport,
            path,
            legacy,
            server_card,
            public_url,
            auth,
            redis,
        ))
    });
    let (transport, redis) = match parsed {
        Ok((transport, path, legacy, server_card, public_url, auth, redis)) => {
            if auth.is_some() && (legacy || server.engine.config.legacy_sse) {
                eprintln!("error: --legacy-sse cannot be combined with --auth-issuer: the 2024-11-05 HTTP+SSE transport has no authorization");
                return ExitCode::from(2);
            }
            if let Some(auth) = auth {
                let Some(engine) = std::sync::Arc::get_mut(&mut server.engine) else {
                    eprintln!("error: --auth-issuer cannot change a server that was cloned before entry::run; set Config::auth instead");
                    return ExitCode::from(2);
                };
                engine.config.auth = Some(auth.support_scopes(engine.dispatch.scopes_supported()));
            }
            if path.is_some() || legacy || server_card || public_url.is_some() {
                let Some(engine) = std::sync::Arc::get_mut(&mut server.engine) else {
                    eprintln!("error: --jsonrpc, --legacy-sse, --server-card and --public-url cannot change a server that was cloned before entry::run; set them in its Config instead");
                    return ExitCode::from(2);
                };
                engine.config.jsonrpc_path = path.or(engine.config.jsonrpc_path.take());
                engine.config.server_card |= server_card;
                engine.config.public_url = public_url.or(engine.config.public_url.take());
                engine.config.legacy_sse |= legacy;
            }
            (transport, redis)
        }
        Err(error) => {
            eprintln!("{error}");
            return if error == ArgsError::Help {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(2)
            };
        }
    };
    let _ = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .try_init();
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
    if let Some((url, source)) = redis {
        server = match runtime.block_on(shared_through_redis(server, &url, source)) {
            Ok(server) => server,
            Err((code, message)) => {
                eprintln!("error: {message}");
                return ExitCode::from(code);
            }
        };
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

/// `server` rebuilt with its tasks and notifications shared through the Redis at `url`
/// (`--redis URL`; `source` names the flag or variable it came from). On failure, the exit
/// code and the message: 2 for a setup that cannot work, 1 when Redis cannot be reached.
async fn shared_through_redis<D: Dispatch>(
    server: McpServer<D>,
    url: &str,
    source: &str,
) -> Result<McpServer<D>, (u8, String)> {
    #[cfg(not(feature = "redis"))]
    {
        let _ = (server, url);
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
                format!("{source} needs {KEY_ENV}: every instance must seal requestState with the same key (e.g. `openssl rand -hex 32`)"),
            ));
        }
        let prefix = std::env::var(REDIS_PREFIX_ENV)
            .ok()
            .filter(|prefix| !prefix.is_empty())
            .unwrap_or_else(|| crate::stores::redis::DEFAULT_PREFIX.to_string());
        if prefix.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err((
                2,
                format!(
                    "{}={prefix}: the key prefix must have no spaces or control characters",
                    REDIS_PREFIX_ENV
                ),
            ));
        }
        let stores = crate::stores::redis::connect(url, &prefix, server.config())
            .await
            .map_err(|error| (1, format!("{source}: {error}")))?;
        server.rebuilt_with(stores).map_err(|_| {
            (
                2,
                format!("{source} cannot change a server that was cloned before entry::run; build it with McpServer::with_stores"),
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Transport, String> {
        parse_args(args.iter().map(|s| s.to_string())).map_err(|e| e.to_string())
    }

    #[test]
    fn flags() {
        assert_eq!(
            parse(&[]).unwrap(),
            Transport::Http("127.0.0.1:8080".parse().unwrap())
        );
        assert_eq!(
            parse(&["--addr", "127.0.0.1:9"]).unwrap(),
            Transport::Http("127.0.0.1:9".parse().unwrap())
        );
        assert_eq!(
            parse(&["--addr=[::1]:80"]).unwrap(),
            Transport::Http("[::1]:80".parse().unwrap())
        );
        assert_eq!(parse(&["--stdio"]).unwrap(), Transport::Stdio);
        assert_eq!(parse_args(["--help".to_string()]), Err(ArgsError::Help));
        assert_eq!(parse(&["-h"]).unwrap_err(), usage());
        assert!(parse(&["--addr"]).is_err());
        assert!(parse(&["--addr", "nope"])
            .unwrap_err()
            .contains("HOST:PORT"));
        assert!(parse(&["--bogus"])
            .unwrap_err()
            .contains("unknown argument"));
    }

    fn command_line(args: &[&str]) -> Result<Args, String> {
        parse_command_line(args.iter().map(|s| s.to_string())).map_err(|e| e.to_string())
    }

    #[test]
    fn jsonrpc_flag() {
        assert_eq!(command_line(&[]).unwrap().jsonrpc_path, None);
        let args = command_line(&["--jsonrpc", "/jsonrpc", "--addr", "127.0.0.1:9"]).unwrap();
        assert_eq!(args.jsonrpc_path.as_deref(), Some("/jsonrpc"));
        assert_eq!(
            args.transport,
            Transport::Http("127.0.0.1:9".parse().unwrap())
        );
        assert_eq!(
            command_line(&["--jsonrpc=/rpc"])
                .unwrap()
                .jsonrpc_path
                .as_deref(),
            Some("/rpc")
        );
        assert!(command_line(&["--jsonrpc"])
            .unwrap_err()
            .contains("needs a value"));
        assert!(command_line(&["--jsonrpc", "rpc"])
            .unwrap_err()
            .contains("start with `/`"));
        assert!(command_line(&["--jsonrpc", "/mcp"])
            .unwrap_err()
            .contains("/mcp"));
        assert!(command_line(&["--jsonrpc", "/a?b"])
            .unwrap_err()
            .contains("plain path"));
        assert!(command_line(&["--stdio", "--jsonrpc", "/rpc"])
            .unwrap_err()
            .contains("--stdio"));
        assert!(USAGE.contains("--jsonrpc PATH") && USAGE.contains(JSONRPC_PATH_ENV));
    }

    #[test]
    fn server_card_flags() {
        let args = command_line(&[
            "--server-card",
            "--public-url",
            "https://mcp.example.com/mcp",
        ])
        .unwrap();
        assert!(args.server_card);
        assert_eq!(
            args.public_url.as_deref(),
            Some("https://mcp.example.com/mcp")
        );
        assert!(!command_line(&[]).unwrap().server_card);
        assert!(command_line(&["--public-url=ftp://x"])
            .unwrap_err()
            .contains("https://"));
        assert!(command_line(&["--public-url"])
            .unwrap_err()
            .contains("needs a value"));
        assert!(command_line(&["--stdio", "--server-card"])
            .unwrap_err()
            .contains("--stdio"));
        assert!(USAGE.contains("--server-card") && USAGE.contains(PUBLIC_URL_ENV));
    }

    #[test]
    fn legacy_sse_flag_and_environment() {
        assert!(!command_line(&[]).unwrap().legacy_sse);
        assert!(
            command_line(&["--legacy-sse", "--addr", "127.0.0.1:9"])
                .unwrap()
                .legacy_sse
        );
        assert!(command_line(&["--stdio", "--legacy-sse"])
            .unwrap_err()
            .contains("--stdio"));
        let some = |s: &str| Some(s.to_string());
        assert_eq!(legacy_sse(false, None), Ok(false));
        assert_eq!(legacy_sse(false, some("")), Ok(false));
        assert_eq!(legacy_sse(false, some("0")), Ok(false));
        assert_eq!(legacy_sse(false, some("1")), Ok(true));
        assert_eq!(legacy_sse(true, some("0")), Ok(true));
        assert!(matches!(
            legacy_sse(false, some("maybe")),
            Err(ArgsError::Invalid(message)) if message.contains(LEGACY_SSE_ENV)
        ));
        assert!(USAGE.contains("--legacy-sse") && USAGE.contains(LEGACY_SSE_ENV));
    }

    #[test]
    fn jsonrpc_path_from_the_environment() {
        let some = |s: &str| Some(s.to_string());
        assert_eq!(jsonrpc_path(None, None), Ok(None));
        assert_eq!(jsonrpc_path(None, some("")), Ok(None));
        assert_eq!(jsonrpc_path(None, some("/rpc")), Ok(some("/rpc")));
        // The flag wins.
        assert_eq!(jsonrpc_path(some("/a"), some("/b")), Ok(some("/a")));
        assert!(matches!(
            jsonrpc_path(None, some("rpc")),
            Err(ArgsError::Invalid(message)) if message.contains(JSONRPC_PATH_ENV)
        ));
    }

    #[test]
    fn auth_flags() {
        let args = command_line(&[
            "--auth-issuer",
            "https://as",
            "--public-url=https://h/mcp",
            "--auth-scopes",
            "a,b",
        ])
        .unwrap();
        assert!(args.auth.any());
        assert!(!command_line(&[]).unwrap().auth.any());
        assert!(command_line(&["--auth-jwks"])
            .unwrap_err()
            .contains("--auth-jwks needs a value"));
        assert!(command_line(&["--stdio", "--auth-issuer", "https://as"])
            .unwrap_err()
            .contains("--stdio"));
        assert!(usage().contains("--auth-issuer URL") && usage().contains("MCP_AUTH_ISSUER"));
    }
}
