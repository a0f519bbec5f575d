//! The upstream flags of a gateway binary ([`gateway`]): where its tools forward to and how,
//! each a flag and an `MCP_UPSTREAM_*` variable under the `--help` group "Upstream", with the
//! conventions of the other settings (the flag wins, an empty variable is unset, the default
//! shown, every value checked at start: exit 2 and one line naming the flag or variable).
//!
//! They are not rows of `settings::all` (`settings/`): only a gateway has them, so
//! [`parse_gateway`] adds them to the command line and reads them into an
//! [`UpstreamSettings`] after the other settings.
//!
//! A header's value can come from elsewhere, so that a secret is on no command line:
//! `Name: env:VAR` sends the variable `VAR`, `Name: file:PATH` the file's content, trimmed.
//! Errors name the header, never its value.

use std::process::ExitCode;

use clap::parser::ValueSource;
use http::header::{HeaderName, HeaderValue};

use super::command::{clap_error, command, program_name, wrap, HELP_WIDTH};
use super::serve::{serve, shared};
use super::{from_matches, start_logging, version_line, Args, ArgsError};
use crate::config::values::{count, duration, show_duration, show_size, size};
use crate::config::Config;
use crate::dispatch::Dispatch;
use crate::server::McpServer;
use crate::tool_catalog::{ToolCatalog, ToolMode};
use crate::upstream::{self, Upstream, UpstreamSettings};

/// The `--help` group.
const HEADING: &str = "Upstream";

/// One upstream flag.
struct Flag {
    /// The long flag, without its dashes.
    flag: &'static str,
    /// Its environment variable.
    env: &'static str,
    /// The value's name in `--help`.
    value: &'static str,
    /// The `--help` line.
    help: &'static str,
    /// The default `--help` shows, given the generated code's default URL (empty: none).
    default: fn(Option<&str>) -> String,
}

const URL: Flag = Flag {
    flag: "upstream",
    env: "MCP_UPSTREAM_URL",
    value: "URL",
    help: "the JSON-RPC endpoint the tools forward to: http:// or https://, ws:// or wss:// (a \
           WebSocket), or unix:/path (a Unix socket, a node's IPC endpoint); credentials go in a \
           --upstream-header, not in the URL",
    default: |default| default.map_or_else(|| "none: required".into(), str::to_owned),
};
const TIMEOUT: Flag = Flag {
    flag: "upstream-timeout",
    env: "MCP_UPSTREAM_TIMEOUT",
    value: "DURATION",
    help: "the longest a forwarded call takes, from waiting for a slot to the answer's end (the \
           tool then fails)",
    default: |_| show_duration(upstream::DEFAULT_TIMEOUT),
};
const CONCURRENCY: Flag = Flag {
    flag: "upstream-concurrency",
    env: "MCP_UPSTREAM_CONCURRENCY",
    value: "N",
    help: "most calls at the upstream at once; the next wait for a slot, within their timeout",
    default: |_| upstream::DEFAULT_MAX_CONCURRENCY.to_string(),
};
const MAX_BODY: Flag = Flag {
    flag: "upstream-max-body",
    env: "MCP_UPSTREAM_MAX_BODY",
    value: "SIZE",
    help: "largest answer read from the upstream (the tool fails above; reading stops there)",
    default: |_| show_size(upstream::DEFAULT_MAX_RESPONSE_BYTES),
};
const WINDOW: Flag = Flag {
    flag: "upstream-subscription-window",
    env: "MCP_UPSTREAM_SUBSCRIPTION_WINDOW",
    value: "N",
    help: "most events resources/read of a subscription's resource returns (the latest, within            --upstream-max-body); from 1 to 10000",
    default: |_| upstream::DEFAULT_SUBSCRIPTION_WINDOW.to_string(),
};
const HEADER: Flag = Flag {
    flag: "upstream-header",
    env: "MCP_UPSTREAM_HEADERS",
    value: "HEADER",
    help: "a header `Name: value` sent on every upstream call; repeatable (the variable: one a \
           line). A value `env:VAR` sends the variable VAR, `file:PATH` the file's content, \
           trimmed: --upstream-header 'Authorization: file:/run/secrets/upstream-auth'. The MCP \
           client's own credentials are never forwarded",
    default: |_| String::new(),
};
const IDENTITY: Flag = Flag {
    flag: "upstream-identity-header",
    env: "MCP_UPSTREAM_IDENTITY_HEADERS",
    value: "HEADER",
    help: "a header `Name: template` built for each call from the caller's verified claims, for \
           an upstream that trusts the gateway: --upstream-identity-header 'X-User: {sub}'; \
           repeatable (the variable: one a line). Needs authorization (--auth-issuer); a call \
           without a verified caller, or whose token lacks a claim, is refused. http(s) only",
    default: |_| String::new(),
};
const AUTH: Flag = Flag {
    flag: "upstream-auth",
    env: "MCP_UPSTREAM_AUTH",
    value: "MODE",
    help: "`none`: calls carry the --upstream-headers only; `token-exchange`: each call also \
           carries a token the authorization server issues for the upstream in exchange for the \
           caller's own (RFC 8693), cached per caller until shortly before it expires. Needs \
           authorization (--auth-issuer), --upstream-token-endpoint, --upstream-client-id, \
           --upstream-client-secret and --upstream-audience or --upstream-resource. http(s) only",
    default: |_| "none".into(),
};
const TOKEN_ENDPOINT: Flag = Flag {
    flag: "upstream-token-endpoint",
    env: "MCP_UPSTREAM_TOKEN_ENDPOINT",
    value: "URL",
    help: "token-exchange: the authorization server's token endpoint (https, or http on loopback)",
    default: |_| String::new(),
};
const CLIENT_ID: Flag = Flag {
    flag: "upstream-client-id",
    env: "MCP_UPSTREAM_CLIENT_ID",
    value: "ID",
    help: "token-exchange: the gateway's own client id at the authorization server",
    default: |_| String::new(),
};
const CLIENT_SECRET: Flag = Flag {
    flag: "upstream-client-secret",
    env: "MCP_UPSTREAM_CLIENT_SECRET",
    value: "SOURCE",
    help: "token-exchange: where the gateway's client secret is, `file:PATH` (the file's content, \
           trimmed) or `env:VAR`; never the secret itself on the command line (the variable may \
           hold it). Sent with client_secret_basic",
    default: |_| String::new(),
};
const AUDIENCE: Flag = Flag {
    flag: "upstream-audience",
    env: "MCP_UPSTREAM_AUDIENCE",
    value: "AUDIENCE",
    help: "token-exchange: the upstream as the authorization server names it, the issued \
           token's `aud`",
    default: |_| String::new(),
};
const RESOURCE: Flag = Flag {
    flag: "upstream-resource",
    env: "MCP_UPSTREAM_RESOURCE",
    value: "URI",
    help: "token-exchange: the upstream's resource indicator (RFC 8707)",
    default: |_| String::new(),
};
const SCOPE: Flag = Flag {
    flag: "upstream-scope",
    env: "MCP_UPSTREAM_SCOPE",
    value: "SCOPES",
    help: "token-exchange: the scopes asked for the issued token (space-separated)",
    default: |_| String::new(),
};
/// The token exchange's flags but `--upstream-auth`, each only with `token-exchange`.
const EXCHANGE: [&Flag; 6] = [
    &TOKEN_ENDPOINT,
    &CLIENT_ID,
    &CLIENT_SECRET,
    &AUDIENCE,
    &RESOURCE,
    &SCOPE,
];
const CA: Flag = Flag {
    flag: "upstream-ca",
    env: "MCP_UPSTREAM_CA",
    value: "FILE",
    help: "root certificates (PEM) trusted for an https upstream beside the system's: a private \
           CA, a self-signed certificate",
    default: |_| String::new(),
};

const TOOL_MODE: Flag = Flag {
    flag: "tool-mode",
    env: "MCP_TOOL_MODE",
    value: "MODE",
    help: "`tools`: every method a tool, as generated; `catalog`: three tools instead \
           (search_tools, describe_tool, call_tool) that reach them all, for a contract too \
           large to list to a model",
    default: |_| "tools".into(),
};

/// The flags, in `--help` order.
const FLAGS: [&Flag; 16] = [
    &URL,
    &TIMEOUT,
    &CONCURRENCY,
    &MAX_BODY,
    &WINDOW,
    &HEADER,
    &IDENTITY,
    &AUTH,
    &TOKEN_ENDPOINT,
    &CLIENT_ID,
    &CLIENT_SECRET,
    &AUDIENCE,
    &RESOURCE,
    &SCOPE,
    &CA,
    &TOOL_MODE,
];

/// `command` with the upstream flags, `default_url` the default shown.
fn with_flags(mut command: clap::Command, default_url: Option<&str>) -> clap::Command {
    for flag in FLAGS {
        let default = (flag.default)(default_url);
        let mut spec = format!("[env: {}]", flag.env);
        if !default.is_empty() {
            spec.push_str(&format!(" [default: {default}]"));
        }
        let help = format!(
            "{}\n{}",
            wrap(flag.help, HELP_WIDTH),
            wrap(&spec, HELP_WIDTH)
        );
        let action = if flag.flag == HEADER.flag || flag.flag == IDENTITY.flag {
            clap::ArgAction::Append
        } else {
            clap::ArgAction::Set
        };
        command = command.arg(
            clap::Arg::new(flag.flag)
                .long(flag.flag)
                .value_name(flag.value)
                .help_heading(HEADING)
                .help(help)
                .action(action),
        );
    }
    command
}

/// Like `entry::parse`, for a gateway binary: the upstream flags too (`--upstream`,
/// `--upstream-timeout`, `--upstream-concurrency`, `--upstream-max-body`,
/// `--upstream-subscription-window`, `--upstream-header`, `--upstream-ca` and their `MCP_UPSTREAM_*` variables), read into the
/// [`UpstreamSettings`] of the upstream. `default_url` is the upstream's URL when neither
/// `--upstream` nor `MCP_UPSTREAM_URL` gives one (the generated code's, from the document);
/// without it, one of them is required. Every value is checked (a URL that is not `http://` or
/// `https://`, a header's `env:` variable unset, its `file:` unreadable, ...), the error
/// naming the flag or variable.
pub fn parse_gateway(
    args: impl IntoIterator<Item = String>,
    config: &Config,
    env: impl Fn(&str) -> Option<String>,
    default_url: Option<&str>,
) -> Result<(Args, UpstreamSettings), ArgsError> {
    parse_gateway_and_mode(args, config, env, default_url)
        .map(|(args, settings, _)| (args, settings))
}

/// [`parse_gateway`], and `--tool-mode` / `MCP_TOOL_MODE`.
fn parse_gateway_and_mode(
    args: impl IntoIterator<Item = String>,
    config: &Config,
    env: impl Fn(&str) -> Option<String>,
    default_url: Option<&str>,
) -> Result<(Args, UpstreamSettings, ToolMode), ArgsError> {
    let program = program_name();
    let matches = with_flags(command(&program, config), default_url)
        .try_get_matches_from(std::iter::once(program.clone()).chain(args))
        .map_err(clap_error)?;
    let args = from_matches(&matches, config, &env)?;
    let settings = settings(&matches, &env, default_url).map_err(ArgsError::Invalid)?;
    let mode = match given(&matches, &env, &TOOL_MODE) {
        Some(mode) => mode
            .text
            .parse()
            .map_err(|why| ArgsError::Invalid(format!("{}: {why}", mode.source)))?,
        None => ToolMode::Tools,
    };
    Ok((args, settings, mode))
}

/// A value of a flag as given, and how an error cites it.
struct Given {
    text: String,
    /// `--flag` or `VAR` (never the value: a URL or a header can hold a secret).
    source: String,
}

/// The value of `flag`: the command line's, else its variable's (empty: unset).
fn given(
    matches: &clap::ArgMatches,
    env: &dyn Fn(&str) -> Option<String>,
    flag: &Flag,
) -> Option<Given> {
    if matches.value_source(flag.flag) == Some(ValueSource::CommandLine) {
        let text = matches
            .get_one::<String>(flag.flag)
            .cloned()
            .unwrap_or_default();
        return Some(Given {
            text,
            source: format!("--{}", flag.flag),
        });
    }
    env(flag.env)
        .filter(|text| !text.is_empty())
        .map(|text| Given {
            text,
            source: flag.env.to_owned(),
        })
}

/// The [`UpstreamSettings`] the upstream flags and variables give.
fn settings(
    matches: &clap::ArgMatches,
    env: &dyn Fn(&str) -> Option<String>,
    default_url: Option<&str>,
) -> Result<UpstreamSettings, String> {
    let url = match (given(matches, env, &URL), default_url) {
        (Some(url), _) => {
            upstream::check_url(&url.text).map_err(|why| format!("{}: {why}", url.source))?;
            url.text.trim().to_owned()
        }
        (None, Some(default)) => {
            upstream::check_url(default).map_err(|why| {
                format!("the built-in upstream URL {default:?} cannot be used ({why}): give one with --upstream or {}", URL.env)
            })?;
            default.to_owned()
        }
        (None, None) => {
            return Err(format!(
                "--upstream is required: the URL of the upstream JSON-RPC endpoint, e.g. --upstream http://127.0.0.1:8545 (or {})",
                URL.env
            ))
        }
    };
    let mut settings = UpstreamSettings::new(url);
    let cite =
        |given: &Given, why: String| format!("{} {}: {why}", given.source, given.text.trim());
    if let Some(given) = given(matches, env, &TIMEOUT) {
        settings.timeout = duration(&given.text, std::time::Duration::from_millis(1))
            .map_err(|why| cite(&given, why))?;
    }
    if let Some(given) = given(matches, env, &CONCURRENCY) {
        settings.max_concurrency = count(&given.text, 1).map_err(|why| cite(&given, why))?;
    }
    if let Some(given) = given(matches, env, &MAX_BODY) {
        settings.max_response_bytes = size(&given.text, 1).map_err(|why| cite(&given, why))?;
    }
    if let Some(given) = given(matches, env, &WINDOW) {
        settings.subscription_window = count(&given.text, 1)
            .and_then(|n| match n {
                ..=upstream::MAX_SUBSCRIPTION_WINDOW => Ok(n),
                _ => Err(format!(
                    "must be at most {}",
                    upstream::MAX_SUBSCRIPTION_WINDOW
                )),
            })
            .map_err(|why| cite(&given, why))?;
    }
    if let Some(given) = given(matches, env, &CA) {
        let path = given.text.trim();
        let pem = std::fs::read(path)
            .map_err(|e| format!("{} {path}: cannot be read ({e})", given.source))?;
        // Checked now, as every other value: a bad one stops the start.
        let mut tls = crate::http_pool::TlsConfig::default();
        tls.add_root_certificate(&pem);
        crate::http_pool::tls::connector(&tls)
            .map_err(|why| format!("{} {path}: {why}", given.source))?;
        settings.root_certificates.push(pem);
    }
    for (source, text) in lines(matches, env, &HEADER) {
        settings
            .headers
            .push(header(&text, env).map_err(|why| format!("{source}: {why}"))?);
    }
    for (source, text) in lines(matches, env, &IDENTITY) {
        let identity =
            upstream::IdentityHeader::parse(&text).map_err(|why| format!("{source}: {why}"))?;
        settings.identity_headers.push(identity);
    }
    settings.token_exchange = token_exchange(matches, env)?;
    Ok(settings)
}

/// The token exchange `--upstream-auth token-exchange` and its flags describe, checked as
/// [`Upstream::new`] will; `None` with `--upstream-auth none` (whose exchange flags are
/// refused: they would do nothing).
fn token_exchange(
    matches: &clap::ArgMatches,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Option<upstream::TokenExchange>, String> {
    let mode = given(matches, env, &AUTH);
    match mode.as_ref().map(|mode| mode.text.trim()) {
        None | Some("none") => {
            if let Some(flag) = EXCHANGE
                .iter()
                .find(|flag| given(matches, env, flag).is_some())
            {
                let source = given(matches, env, flag)
                    .map(|g| g.source)
                    .unwrap_or_default();
                return Err(format!(
                    "{source} is a setting of the token exchange: give --upstream-auth token-exchange too, or leave it out"
                ));
            }
            return Ok(None);
        }
        Some("token-exchange") => {}
        Some(other) => {
            let source = mode.as_ref().map(|m| m.source.as_str()).unwrap_or_default();
            return Err(format!(
                "{source}: {other:?} is not a mode: `none` or `token-exchange`"
            ));
        }
    }
    let required = |flag: &Flag| {
        given(matches, env, flag)
            .map(|given| given.text.trim().to_owned())
            .filter(|text| !text.is_empty())
            .ok_or_else(|| {
                format!(
                    "--upstream-auth token-exchange needs --{} (or {}): {}",
                    flag.flag,
                    flag.env,
                    flag.help.trim_start_matches("token-exchange: ")
                )
            })
    };
    let endpoint = required(&TOKEN_ENDPOINT)?;
    let client_id = required(&CLIENT_ID)?;
    let secret = given(matches, env, &CLIENT_SECRET).ok_or_else(|| {
        format!(
            "--upstream-auth token-exchange needs --{} file:PATH (or {}): the gateway's client secret",
            CLIENT_SECRET.flag, CLIENT_SECRET.env
        )
    })?;
    let from_command_line = secret.source.starts_with("--");
    let client_secret = secret_of(secret.text.trim(), from_command_line, env)
        .map_err(|why| format!("{}: {why}", secret.source))?;
    let mut exchange = upstream::TokenExchange::new(endpoint, client_id, client_secret);
    let optional = |flag: &Flag| {
        given(matches, env, flag)
            .map(|given| given.text.trim().to_owned())
            .filter(|text| !text.is_empty())
    };
    exchange.audience = optional(&AUDIENCE);
    exchange.resource = optional(&RESOURCE);
    exchange.scope = optional(&SCOPE);
    if exchange.audience.is_none() && exchange.resource.is_none() {
        return Err(format!(
            "--upstream-auth token-exchange needs --{} or --{} (or {} or {}): the upstream the issued token is for",
            AUDIENCE.flag, RESOURCE.flag, AUDIENCE.env, RESOURCE.env
        ));
    }
    crate::secure_url::https_or_loopback(&exchange.token_endpoint)
        .map_err(|why| format!("--{}: the token endpoint {why}", TOKEN_ENDPOINT.flag))?;
    Ok(Some(exchange))
}

/// The value `text` gives: `file:PATH`'s content (trimmed), `env:VAR`'s value, or (only when
/// `from_command_line` is false) the text itself. The error never quotes a secret. A header's
/// value and the token exchange's client secret are read so.
fn secret_of(
    text: &str,
    from_command_line: bool,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<String, String> {
    if let Some(path) = text.strip_prefix("file:") {
        let path = path.trim();
        let content =
            std::fs::read_to_string(path).map_err(|e| format!("{path} cannot be read ({e})"))?;
        let content = content.trim();
        if content.is_empty() {
            return Err(format!("{path} is empty"));
        }
        return Ok(content.to_owned());
    }
    if let Some(var) = text.strip_prefix("env:") {
        let var = var.trim();
        return env(var)
            .filter(|value| !value.is_empty())
            .ok_or_else(|| format!("the variable {var} is not set (or empty)"));
    }
    if from_command_line {
        return Err(
            "give `file:PATH` or `env:VAR`: a secret on the command line is visible to every user of the machine"
                .into(),
        );
    }
    Ok(text.to_owned())
}

/// A repeatable flag's values with where each comes from: every `--FLAG`, else the
/// variable's lines.
fn lines(
    matches: &clap::ArgMatches,
    env: &dyn Fn(&str) -> Option<String>,
    flag: &Flag,
) -> Vec<(String, String)> {
    if matches.value_source(flag.flag) == Some(ValueSource::CommandLine) {
        return matches
            .get_many::<String>(flag.flag)
            .into_iter()
            .flatten()
            .enumerate()
            .map(|(i, text)| (format!("--{} #{}", flag.flag, i + 1), text.clone()))
            .collect();
    }
    env(flag.env)
        .unwrap_or_default()
        .lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(i, line)| (format!("{} line {}", flag.env, i + 1), line.to_owned()))
        .collect()
}

/// `Name: value`, `Name: env:VAR` or `Name: file:PATH` as the header to send. The error
/// names the header, never its value.
fn header(
    text: &str,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<(HeaderName, HeaderValue), String> {
    let Some((name, value)) = text.split_once(':') else {
        return Err(
            "expected `Name: value` (e.g. 'Authorization: Bearer env:UPSTREAM_TOKEN')".into(),
        );
    };
    let name = name.trim();
    let name = HeaderName::from_bytes(name.as_bytes())
        .map_err(|_| format!("{name:?} is not a header name"))?;
    upstream::check_header_name(&name)?;
    let value = value.trim();
    // A header's value may be written on the command line (it is not always a secret).
    let value = secret_of(value, false, env).map_err(|why| format!("{name}: {why}"))?;
    let mut value = HeaderValue::from_str(&value).map_err(|_| {
        format!("{name}: the value is no header value (a line break or another control character?)")
    })?;
    value.set_sensitive(true);
    Ok((name, value))
}

/// The `main` of a generated gateway binary: like [`main`](super::main) (the flags and
/// `MCP_*` variables over [`Config::default`], logging, HTTP or stdio until the end), with
/// the upstream flags too ([`parse_gateway`]). Once they are checked, the [`Upstream`] is
/// made (one pool, no connection yet) and `build` makes the dispatch from it, typically the
/// generated `Server` over the generated forwarding handler.
///
/// `default_url` is the upstream's URL when the command line and the environment give none
/// (the generated code's, from the document); without one, `--upstream` (or
/// `MCP_UPSTREAM_URL`) is required, and its absence exits with status 2.
///
/// ```no_run
/// # fn app<D: mcp_runtime::Dispatch>(server: impl FnOnce(mcp_runtime::upstream::Upstream) -> D) -> std::process::ExitCode {
/// // In the generated main.rs, `server` builds the generated Server from the upstream.
/// mcp_runtime::entry::gateway(Some("http://127.0.0.1:8545"), server)
/// # }
/// ```
///
/// Credentials for the upstream are headers. A bearer token from a file:
/// `--upstream-header 'Authorization: file:/run/secrets/upstream-token'` (the file holding
/// `Bearer ...`). bitcoind's cookie is `user:password`, which Basic authentication sends in
/// base64, made by the caller:
///
/// ```text
/// MCP_UPSTREAM_HEADERS="Authorization: Basic $(base64 -w0 < ~/.bitcoin/.cookie)" \
///   ./bitcoin-gateway --upstream http://127.0.0.1:8332/
/// ```
///
/// With `--version`, `build` gets an upstream at `default_url` (or a loopback placeholder)
/// that is never called.
pub fn gateway<D: Dispatch>(
    default_url: Option<&str>,
    build: impl FnOnce(Upstream) -> D,
) -> ExitCode {
    // A worker applying a tool's `jq` filter (`result_budget::projection`) serves nothing.
    if let Some(code) = crate::result_budget::projection::as_worker() {
        return code;
    }
    let config = Config::default();
    let parsed = parse_gateway_and_mode(
        std::env::args().skip(1),
        &config,
        |var| std::env::var(var).ok(),
        default_url,
    );
    let (args, settings, mode) = match parsed {
        Ok(parsed) => parsed,
        Err(ArgsError::Help(help)) => {
            print!("{help}");
            return ExitCode::SUCCESS;
        }
        Err(ArgsError::Version) => {
            let url = default_url
                .filter(|url| upstream::check_url(url).is_ok())
                .unwrap_or("http://127.0.0.1/");
            return match Upstream::new(UpstreamSettings::new(url)) {
                Ok(upstream) => {
                    println!("{}", version_line(build(upstream).contract().catalog()));
                    ExitCode::SUCCESS
                }
                Err(error) => {
                    eprintln!("error: {error}");
                    ExitCode::FAILURE
                }
            };
        }
        Err(ArgsError::Invalid(message)) => {
            eprintln!("error: {message}");
            return ExitCode::from(2);
        }
    };
    let _telemetry = match start_logging(&args, &program_name()) {
        Ok(telemetry) => telemetry,
        Err(code) => return code,
    };
    if !settings.identity_headers.is_empty() && args.config.auth.is_none() {
        eprintln!(
            "error: --upstream-identity-header needs verified callers: turn authorization on (--auth-issuer), or leave the identity headers out"
        );
        return ExitCode::from(2);
    }
    let mut args = args;
    if settings.token_exchange.is_some() {
        // Each principal keeps its caller's token, for the exchange alone.
        match args.config.auth.take() {
            Some(auth) => args.config.auth = Some(auth.keep_access_token()),
            None => {
                eprintln!(
                    "error: --upstream-auth token-exchange exchanges each caller's verified token: turn authorization on (--auth-issuer), or use --upstream-auth none"
                );
                return ExitCode::from(2);
            }
        }
    }
    let upstream = match Upstream::new(settings) {
        Ok(upstream) => upstream,
        Err(error) => {
            eprintln!("error: {error}");
            return ExitCode::from(2);
        }
    };
    tracing::info!(
        upstream = upstream.origin(),
        "forwarding the tools to the upstream"
    );
    if let Err(reason) = upstream.probe(std::time::Duration::from_secs(1)) {
        tracing::warn!(
            upstream = upstream.origin(),
            %reason,
            "the upstream is not reachable now: calls fail (each an isError result) until it is"
        );
    }
    upstream.report_readiness(&args.config.readiness);
    let mut shared = shared(&args);
    if let Some(shared) = &mut shared {
        // One subscription at the upstream per resource URI for all the instances.
        shared.upstream = Some(upstream.clone());
    }
    let server = McpServer::builder(ToolCatalog::new(build(upstream), mode))
        .config(args.config)
        .build();
    serve(server, args.transport, shared, args.metrics)
}

#[cfg(test)]
mod tests;
