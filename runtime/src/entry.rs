//! The `main` of a generated server binary: flags, logging, runtime, transport.

use std::net::SocketAddr;
use std::process::ExitCode;

use crate::dispatch::Dispatch;
use crate::server::McpServer;

const USAGE: &str = "\
Usage: <server> [--addr HOST:PORT | --stdio]

  --addr HOST:PORT   serve MCP over Streamable HTTP at http://HOST:PORT/mcp [default: 127.0.0.1:8080]
  --stdio            serve MCP over stdin/stdout (one JSON-RPC message per line)
  -h, --help         print this help

Logs go to stderr; set RUST_LOG (e.g. RUST_LOG=debug) to see more.";

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
            ArgsError::Help => f.write_str(USAGE),
            ArgsError::Invalid(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for ArgsError {}

/// Parses `--addr HOST:PORT` / `--addr=HOST:PORT` / `--stdio`.
pub fn parse_args(args: impl IntoIterator<Item = String>) -> Result<Transport, ArgsError> {
    let mut transport = Transport::Http(SocketAddr::from(([127, 0, 0, 1], 8080)));
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let addr = match arg.as_str() {
            "--stdio" => {
                transport = Transport::Stdio;
                continue;
            }
            "-h" | "--help" => return Err(ArgsError::Help),
            "--addr" => args.next().ok_or_else(|| {
                ArgsError::Invalid("--addr needs a value, e.g. --addr 127.0.0.1:8080".into())
            })?,
            other => match other.strip_prefix("--addr=") {
                Some(value) => value.to_string(),
                None => {
                    return Err(ArgsError::Invalid(format!(
                        "unknown argument `{other}`\n\n{USAGE}"
                    )))
                }
            },
        };
        let addr = addr.parse().map_err(|e| {
            ArgsError::Invalid(format!(
                "--addr {addr}: {e} (expected HOST:PORT, e.g. 127.0.0.1:8080)"
            ))
        })?;
        transport = Transport::Http(addr);
    }
    Ok(transport)
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
pub fn run<D: Dispatch>(server: McpServer<D>) -> ExitCode {
    let transport = match parse_args(std::env::args().skip(1)) {
        Ok(transport) => transport,
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
        assert_eq!(parse(&["-h"]).unwrap_err(), USAGE);
        assert!(parse(&["--addr"]).is_err());
        assert!(parse(&["--addr", "nope"])
            .unwrap_err()
            .contains("HOST:PORT"));
        assert!(parse(&["--bogus"])
            .unwrap_err()
            .contains("unknown argument"));
    }
}
