//! The flags and variables of `entry`: every setting reaches the [`Config`], a variable is the
//! fallback, a flag wins, and every refusal names what is at fault. The environment is given
//! to [`parse`], never set on the process.

use std::time::Duration;

use super::*;
use crate::config::{CacheHint, CacheScope};

/// Parses `args` with the variables `env` over the default configuration.
fn parse_with(args: &[&str], env: &[(&str, &str)]) -> Result<Args, ArgsError> {
    let env: Vec<(String, String)> = env
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    parse(
        args.iter().map(|s| s.to_string()),
        &Config::default(),
        move |var| env.iter().find(|(k, _)| k == var).map(|(_, v)| v.clone()),
    )
}

fn ok(args: &[&str], env: &[(&str, &str)]) -> Args {
    parse_with(args, env).unwrap_or_else(|e| panic!("{args:?} {env:?}: {e}"))
}

/// The one-line message of a refusal.
fn refused(args: &[&str], env: &[(&str, &str)]) -> String {
    match parse_with(args, env) {
        Err(ArgsError::Invalid(message)) => {
            assert!(!message.contains('\n'), "not one line: {message}");
            message
        }
        Err(ArgsError::Help(_)) => panic!("{args:?}: help, not an error"),
        Err(ArgsError::Version) => panic!("{args:?}: the version, not an error"),
        Ok(args) => panic!("accepted: {args:?}"),
    }
}

fn key_file(name: &str, text: &str) -> String {
    let path = std::env::temp_dir().join(format!(
        "mcp-runtime-entry-test-{}-{name}",
        std::process::id()
    ));
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_owned()
}

const KEY_HEX: &str = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";
const OTHER_KEY_HEX: &str = "ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100";

#[test]
fn defaults() {
    let args = ok(&[], &[]);
    assert_eq!(
        args.transport,
        Transport::Http("127.0.0.1:8080".parse().unwrap())
    );
    assert_eq!(args.log_filter, "info");
    assert_eq!(args.log_format, LogFormat::Text);
    let (config, default) = (args.config, Config::default());
    assert_eq!(config.limits.body_limit, default.limits.body_limit);
    assert_eq!(
        config.transport.allowed_hosts,
        default.transport.allowed_hosts
    );
    assert_eq!(
        config.sessions.session_idle_timeout,
        default.sessions.session_idle_timeout
    );
    assert!(config.auth.is_none() && config.request_state.request_state_key.is_none());
    assert!(args.given.is_empty());
}

#[test]
fn transport_flags() {
    assert_eq!(
        ok(&["--addr", "127.0.0.1:9"], &[]).transport,
        Transport::Http("127.0.0.1:9".parse().unwrap())
    );
    assert_eq!(
        ok(&["--addr=[::1]:80"], &[]).transport,
        Transport::Http("[::1]:80".parse().unwrap())
    );
    // A repeated flag: the last wins.
    assert_eq!(
        ok(&["--addr", "127.0.0.1:1", "--addr", "127.0.0.1:2"], &[]).transport,
        Transport::Http("127.0.0.1:2".parse().unwrap())
    );
    assert_eq!(ok(&["--stdio"], &[]).transport, Transport::Stdio);
    assert_eq!(
        ok(&[], &[("MCP_ADDR", "0.0.0.0:80")]).transport,
        Transport::Http("0.0.0.0:80".parse().unwrap())
    );
    assert_eq!(ok(&[], &[("MCP_STDIO", "1")]).transport, Transport::Stdio);
    // --addr on the command line wins over MCP_STDIO; --stdio over MCP_ADDR.
    assert_eq!(
        ok(&["--addr", "127.0.0.1:3"], &[("MCP_STDIO", "1")]).transport,
        Transport::Http("127.0.0.1:3".parse().unwrap())
    );
    assert_eq!(
        ok(&["--stdio"], &[("MCP_ADDR", "127.0.0.1:3")]).transport,
        Transport::Stdio
    );
    assert!(refused(&["--addr", "nope"], &[]).starts_with("--addr nope: "));
    assert!(refused(&["--addr", "nope"], &[]).contains("HOST:PORT"));
    assert_eq!(
        refused(&["--addr"], &[]),
        "--addr <HOST:PORT> needs a value"
    );
    assert!(refused(&["--stdio", "--addr", "127.0.0.1:1"], &[]).contains("--stdio"));
    assert!(refused(&[], &[("MCP_STDIO", "maybe")]).starts_with("MCP_STDIO=maybe: expected 1"));
}

#[test]
fn unknown_arguments_are_one_line() {
    let message = refused(&["--bogus"], &[]);
    assert!(
        message.starts_with("unknown argument `--bogus`"),
        "{message}"
    );
    assert!(message.contains("--help"), "{message}");
    let message = refused(&["--adr", "x"], &[]);
    assert!(message.contains("did you mean --addr"), "{message}");
    assert!(refused(&["serve"], &[]).contains("`serve`"));
    let message = refused(&["--stdio=yes"], &[]);
    assert!(message.contains("--stdio"), "{message}");
}

#[test]
fn version_is_asked_for_before_anything_is_checked() {
    for flag in ["--version", "-V"] {
        assert_eq!(parse_with(&[flag], &[]).unwrap_err(), ArgsError::Version);
        // Even beside a bad setting: the operator asked what this is, not to run it.
        assert_eq!(
            parse_with(&[flag, "--max-sessions", "0"], &[("MCP_STDIO", "maybe")]).unwrap_err(),
            ArgsError::Version
        );
    }
    let Err(ArgsError::Help(help)) = parse_with(&["--help"], &[]) else {
        panic!("no help")
    };
    assert!(help.contains("-V, --version"), "{help}");
}

#[test]
fn help_lists_every_setting_in_groups() {
    let Err(ArgsError::Help(help)) = parse_with(&["--help"], &[]) else {
        panic!("no help")
    };
    assert!(matches!(parse_with(&["-h"], &[]), Err(ArgsError::Help(_))));
    for setting in settings::all() {
        assert!(
            help.contains(&format!("--{}", setting.flag)),
            "--{} missing:\n{help}",
            setting.flag
        );
        assert!(
            help.contains(&format!("[env: {}]", setting.env)),
            "{} missing:\n{help}",
            setting.env
        );
    }
    for heading in [
        "Transport:",
        "Endpoints (HTTP):",
        "Limits:",
        "Sessions (HTTP):",
        "Streams:",
        "Request state",
        "Tasks:",
        "Authorization",
        "Shared state",
        "Logging:",
    ] {
        assert!(help.contains(heading), "{heading} missing:\n{help}");
    }
    for default in [
        "[default: 127.0.0.1:8080]",
        "[default: 4MiB]",
        "[default: 64KiB]",
        "[default: 30m]",
        "[default: 1d]",
        "[default: 250ms]",
        "[default: localhost,127.0.0.1,::1]",
        "[default: info]",
        "[default: text]",
    ] {
        assert!(help.contains(default), "{default} missing:\n{help}");
    }
    // No line is longer than 100 characters.
    assert!(
        help.lines().all(|line| line.chars().count() <= 100),
        "{help}"
    );
    assert_eq!(help, super::help(&Config::default()));
}

#[test]
fn help_shows_the_defaults_the_server_starts_from() {
    let config = Config::builder()
        .body_limit(1024)
        .session_idle_timeout(None)
        .legacy_sse(true)
        .build();
    let help = super::help(&config);
    assert!(help.contains("[default: 1KiB]"), "{help}");
    assert!(help.contains("[default: none]"), "{help}");
    assert!(help.contains("[default: on]"), "{help}");
    // And the settings not given keep the configuration's values.
    let args = parse(
        ["--page-size".to_string(), "7".to_string()],
        &config,
        |_| None,
    )
    .unwrap();
    assert_eq!(args.config.limits.body_limit, 1024);
    assert_eq!(args.config.sessions.session_idle_timeout, None);
    assert!(args.config.endpoints.legacy_sse);
    assert_eq!(args.config.limits.page_size, 7);
}

/// Every setting that is a `Config` field, by flag and by variable, with the value it must
/// produce.
#[test]
fn every_setting_reaches_the_config() {
    type Check = fn(&Config) -> bool;
    const fn secs(secs: u64) -> Duration {
        Duration::from_secs(secs)
    }
    let cases: &[(&str, &str, &str, Check)] = &[
        (
            "allowed-hosts",
            "MCP_ALLOWED_HOSTS",
            "localhost, mcp.example.com",
            |c| c.transport.allowed_hosts == ["localhost", "mcp.example.com"],
        ),
        ("shutdown-grace", "MCP_SHUTDOWN_GRACE", "0s", |c| {
            c.transport.shutdown_grace == Duration::ZERO
        }),
        ("jsonrpc", "MCP_JSONRPC_PATH", "/rpc", |c| {
            c.endpoints.jsonrpc_path.as_deref() == Some("/rpc")
        }),
        ("health-path", "MCP_HEALTH_PATH", "/live", |c| {
            c.endpoints.health_path.as_deref() == Some("/live")
        }),
        ("ready-path", "MCP_READY_PATH", "off", |c| {
            c.endpoints.ready_path.is_none()
        }),
        (
            "public-url",
            "MCP_PUBLIC_URL",
            "https://mcp.example.com/mcp",
            |c| c.endpoints.public_url.as_deref() == Some("https://mcp.example.com/mcp"),
        ),
        ("ipv6-peer-prefix", "MCP_IPV6_PEER_PREFIX", "48", |c| {
            c.limits.ipv6_peer_prefix == 48
        }),
        ("body-limit", "MCP_BODY_LIMIT", "64KiB", |c| {
            c.limits.body_limit == 65536
        }),
        ("max-header-bytes", "MCP_MAX_HEADER_BYTES", "32768", |c| {
            c.limits.max_header_bytes == 32768
        }),
        ("body-read-timeout", "MCP_BODY_READ_TIMEOUT", "5s", |c| {
            c.limits.body_read_timeout == secs(5)
        }),
        ("max-connections", "MCP_MAX_CONNECTIONS", "100", |c| {
            c.limits.max_connections == 100
        }),
        (
            "max-connections-per-peer",
            "MCP_MAX_CONNECTIONS_PER_PEER",
            "7",
            |c| c.limits.max_connections_per_peer == 7,
        ),
        (
            "idle-connection-timeout",
            "MCP_IDLE_CONNECTION_TIMEOUT",
            "2m",
            |c| c.limits.idle_connection_timeout == secs(120),
        ),
        (
            "max-client-json-bytes",
            "MCP_MAX_CLIENT_JSON_BYTES",
            "1KiB",
            |c| c.limits.max_client_json_bytes == 1024,
        ),
        (
            "max-pending-client-requests",
            "MCP_MAX_PENDING_CLIENT_REQUESTS",
            "3",
            |c| c.limits.max_pending_client_requests == 3,
        ),
        (
            "client-request-timeout",
            "MCP_CLIENT_REQUEST_TIMEOUT",
            "90s",
            |c| c.limits.client_request_timeout == secs(90),
        ),
        ("page-size", "MCP_PAGE_SIZE", "20", |c| {
            c.limits.page_size == 20
        }),
        ("list-cache", "MCP_LIST_CACHE", "1m,private", |c| {
            let hint = CacheHint::new(secs(60), CacheScope::Private);
            let hints = &c.cache_hints;
            [
                hints.tools_list,
                hints.prompts_list,
                hints.resources_list,
                hints.resource_templates_list,
            ] == [hint; 4]
                && hints.resources_read.scope == CacheScope::Private
                && hints.discover.ttl == Duration::ZERO
        }),
        ("read-cache", "MCP_READ_CACHE", "0s", |c| {
            c.cache_hints.resources_read == CacheHint::new(Duration::ZERO, CacheScope::Private)
                && c.cache_hints.tools_list.ttl == secs(300)
        }),
        ("discover-cache", "MCP_DISCOVER_CACHE", "10s,public", |c| {
            c.cache_hints.discover == CacheHint::new(secs(10), CacheScope::Public)
        }),
        ("max-sessions", "MCP_MAX_SESSIONS", "50", |c| {
            c.sessions.max_sessions == 50
        }),
        (
            "session-idle-timeout",
            "MCP_SESSION_IDLE_TIMEOUT",
            "none",
            |c| c.sessions.session_idle_timeout.is_none(),
        ),
        (
            "session-max-lifetime",
            "MCP_SESSION_MAX_LIFETIME",
            "2h",
            |c| c.sessions.session_max_lifetime == Some(secs(7200)),
        ),
        ("max-subscriptions", "MCP_MAX_SUBSCRIPTIONS", "0", |c| {
            c.streams.max_subscriptions == 0
        }),
        (
            "max-subscription-bytes",
            "MCP_MAX_SUBSCRIPTION_BYTES",
            "1KiB",
            |c| c.streams.max_subscription_bytes == 1024,
        ),
        (
            "max-bus-answer-bytes",
            "MCP_MAX_BUS_ANSWER_BYTES",
            "2KiB",
            |c| c.streams.max_bus_answer_bytes == 2048,
        ),
        ("max-batch-len", "MCP_MAX_BATCH_LEN", "8", |c| {
            c.streams.max_batch_len == 8
        }),
        (
            "max-session-requests",
            "MCP_MAX_SESSION_REQUESTS",
            "3",
            |c| c.streams.max_session_requests == 3,
        ),
        ("batch-concurrency", "MCP_BATCH_CONCURRENCY", "1", |c| {
            c.streams.batch_concurrency == 1
        }),
        ("max-listen-streams", "MCP_MAX_LISTEN_STREAMS", "10", |c| {
            c.streams.max_listen_streams == 10
        }),
        (
            "max-listen-streams-per-principal",
            "MCP_MAX_LISTEN_STREAMS_PER_PRINCIPAL",
            "4",
            |c| c.streams.max_listen_streams_per_principal == 4,
        ),
        ("replay-window", "MCP_REPLAY_WINDOW", "16", |c| {
            c.streams.replay_window == 16
        }),
        ("buffered-messages", "MCP_BUFFERED_MESSAGES", "8", |c| {
            c.streams.buffered_messages == 8
        }),
        ("sse-retry", "MCP_SSE_RETRY", "2500ms", |c| {
            c.streams.sse_retry_ms == 2500
        }),
        ("sse-keep-alive", "MCP_SSE_KEEP_ALIVE", "1m", |c| {
            c.streams.sse_keep_alive == secs(60)
        }),
        ("request-state-ttl", "MCP_REQUEST_STATE_TTL", "1h", |c| {
            c.request_state.request_state_ttl == secs(3600)
        }),
        ("task-ttl", "MCP_TASK_TTL", "10m", |c| {
            c.tasks.task_ttl == secs(600)
        }),
        ("task-poll-interval", "MCP_TASK_POLL_INTERVAL", "1s", |c| {
            c.tasks.task_poll_interval == secs(1)
        }),
        ("max-tasks", "MCP_MAX_TASKS", "5", |c| {
            c.tasks.max_tasks == 5
        }),
        ("result-budget", "MCP_RESULT_BUDGET", "16KiB", |c| {
            c.results.result_budget == Some(16 * 1024)
        }),
        ("result-keep", "MCP_RESULT_KEEP", "2m", |c| {
            c.results.result_keep == secs(120)
        }),
        (
            "max-kept-result-bytes",
            "MCP_MAX_KEPT_RESULT_BYTES",
            "1MiB",
            |c| c.results.max_kept_result_bytes == 1 << 20,
        ),
    ];
    let switches: &[(&str, &str, Check)] = &[
        ("legacy-sse", "MCP_LEGACY_SSE", |c| c.endpoints.legacy_sse),
        ("jsonrpc-unexposed", "MCP_JSONRPC_UNEXPOSED", |c| {
            c.endpoints.jsonrpc_unexposed
        }),
        ("server-card", "MCP_SERVER_CARD", |c| {
            c.endpoints.server_card
        }),
        ("allow-sessionless", "MCP_ALLOW_SESSIONLESS", |c| {
            c.sessions.allow_sessionless
        }),
        ("sse-responses", "MCP_SSE_RESPONSES", |c| {
            c.streams.sse_responses
        }),
        ("audit", "MCP_AUDIT", |c| c.audit.is_some()),
        (
            "request-state-single-use",
            "MCP_REQUEST_STATE_SINGLE_USE",
            |c| c.request_state.request_state_single_use,
        ),
    ];
    let mut covered: Vec<&str> = vec!["stdio", "addr", "log-level", "log-format"];
    for (flag, var, value, check) in cases {
        let setting = settings::all().find(|s| s.flag == *flag).unwrap();
        assert_eq!(setting.env, *var, "--{flag}");
        let args = ok(&[&format!("--{flag}"), value], &[]);
        assert!(check(&args.config), "--{flag} {value}");
        assert!(args.given.contains(flag));
        let args = ok(&[&format!("--{flag}={value}")], &[]);
        assert!(check(&args.config), "--{flag}={value}");
        assert!(check(&ok(&[], &[(var, value)]).config), "{var}={value}");
        assert!(
            !check(&Config::default()),
            "{flag}: the default already passes"
        );
        covered.push(flag);
    }
    for (flag, var, check) in switches {
        assert!(check(&ok(&[&format!("--{flag}")], &[]).config), "--{flag}");
        for on in ["1", "true", "on", "yes"] {
            assert!(check(&ok(&[], &[(var, on)]).config), "{var}={on}");
        }
        for off in ["", "0", "false", "off", "no"] {
            assert!(!check(&ok(&[], &[(var, off)]).config), "{var}={off}");
        }
        let message = refused(&[], &[(var, "maybe")]);
        assert!(
            message.starts_with(&format!("{var}=maybe: expected 1")),
            "{message}"
        );
        covered.push(flag);
    }
    for (flag, _) in [
        ("stdio-output-limit", ()),
        ("redis", ()),
        ("redis-prefix", ()),
        ("redis-cluster", ()),
        ("redis-wait-replicas", ()),
        ("metrics", ()),
        ("request-state-key-file", ()),
        ("request-state-previous-key-file", ()),
        ("auth-issuer", ()),
        ("auth-audience", ()),
        ("auth-jwks", ()),
        ("auth-scopes", ()),
        ("auth-token-type", ()),
        ("audit-principal", ()),
        ("audit-arguments", ()),
        ("audit-redact", ()),
        ("audit-file", ()),
        ("rate-limit", ()),
        ("tool-rate-limit", ()),
        ("rate-limit-callers", ()),
        ("return-traces", ()),
        ("rate-limit-shared", ()),
    ] {
        // Checked by their own tests below.
        covered.push(flag);
    }
    for setting in settings::all() {
        assert!(
            covered.contains(&setting.flag),
            "--{} has no test",
            setting.flag
        );
    }
}

#[test]
fn return_traces_is_a_switch_that_needs_the_otel_feature() {
    assert!(!ok(&[], &[]).config.telemetry.return_traces);
    assert!(
        !ok(&[], &[("MCP_RETURN_TRACES", "0")])
            .config
            .telemetry
            .return_traces
    );
    if cfg!(feature = "otel") {
        assert!(ok(&["--return-traces"], &[]).config.telemetry.return_traces);
        assert!(
            ok(&[], &[("MCP_RETURN_TRACES", "on")])
                .config
                .telemetry
                .return_traces
        );
    } else {
        let message = refused(&["--return-traces"], &[]);
        assert!(
            message.contains("--return-traces") && message.contains("`otel` feature"),
            "{message}"
        );
    }
}

#[test]
fn a_flag_beats_its_variable_and_an_empty_variable_is_unset() {
    let args = ok(
        &["--body-limit", "1KiB", "--jsonrpc", "/a"],
        &[("MCP_BODY_LIMIT", "2KiB"), ("MCP_JSONRPC_PATH", "/b")],
    );
    assert_eq!(args.config.limits.body_limit, 1024);
    assert_eq!(args.config.endpoints.jsonrpc_path.as_deref(), Some("/a"));
    // A bad variable is not even read when the flag is given.
    assert_eq!(
        ok(&["--max-sessions", "3"], &[("MCP_MAX_SESSIONS", "abc")])
            .config
            .sessions
            .max_sessions,
        3
    );
    let args = ok(&[], &[("MCP_BODY_LIMIT", ""), ("MCP_JSONRPC_PATH", "")]);
    assert_eq!(
        args.config.limits.body_limit,
        Config::default().limits.body_limit
    );
    assert_eq!(args.config.endpoints.jsonrpc_path, None);
    assert!(args.given.is_empty());
}

#[test]
fn each_bad_value_is_refused_naming_its_flag_or_variable() {
    for (args, env, expected) in [
        (&["--body-limit", "0"][..], &[][..], "--body-limit 0: must be at least 1 byte"),
        (&[], &[("MCP_MAX_SESSIONS", "abc")], "MCP_MAX_SESSIONS=abc: not a number"),
        (&[], &[("MCP_MAX_SESSIONS", "1\n2")], "MCP_MAX_SESSIONS=\"1\\n2\": not a number"),
        (&["--max-sessions", "0"], &[], "--max-sessions 0: must be at least 1"),
        (&["--max-connections", "0"], &[], "--max-connections 0: must be at least 1"),
        (&["--page-size", "0"], &[], "--page-size 0: must be at least 1"),
        (&["--list-cache", "5m,everyone"], &[], "--list-cache 5m,everyone: expected a duration, then ,public or ,private; not `everyone`"),
        (&[], &[("MCP_READ_CACHE", "5")], "MCP_READ_CACHE=5: 5 needs a unit"),
        (&["--replay-window", "0"], &[], "--replay-window 0: must be at least 1"),
        (&[], &[("MCP_BUFFERED_MESSAGES", "0")], "MCP_BUFFERED_MESSAGES=0: must be at least 1"),
        (&["--body-limit", "4MB"], &[], "--body-limit 4MB: unknown unit `MB`"),
        (&["--body-limit="], &[], "--body-limit \"\": not a size"),
        (&["--body-read-timeout", "30"], &[], "--body-read-timeout 30: 30 needs a unit"),
        (&["--body-read-timeout", "0s"], &[], "--body-read-timeout 0s: must be more than zero"),
        (&[], &[("MCP_TASK_TTL", "1.5h")], "MCP_TASK_TTL=1.5h: "),
        (&["--sse-keep-alive", "0ms"], &[], "--sse-keep-alive 0ms: must be more than zero"),
        (&["--task-poll-interval", "0s"], &[], "--task-poll-interval 0s: must be more than zero"),
        (&["--request-state-ttl", "2y"], &[], "--request-state-ttl 2y: unknown unit `y`"),
        (&["--session-idle-timeout", "0s"], &[], "--session-idle-timeout 0s: must be more than zero, or none"),
        (&["--session-max-lifetime", "forever"], &[], "--session-max-lifetime forever: "),
        (&["--stdio", "--stdio-output-limit", "0"], &[], "--stdio-output-limit 0: must be at least 1 byte"),
        (&["--max-client-json-bytes", "0"], &[], "--max-client-json-bytes 0: must be at least 1 byte"),
        (&["--idle-connection-timeout", "0s"], &[], "--idle-connection-timeout 0s: must be more than zero"),
        (&["--client-request-timeout=-1s"], &[], "--client-request-timeout -1s: not a duration: expected a whole number and a unit (ms, s, m, h, d), e.g. 30s (durations cannot be negative)"),
        (&["--jsonrpc", "rpc"], &[], "--jsonrpc rpc: the path must start with `/`"),
        (&["--jsonrpc", "/mcp"], &[], "--jsonrpc /mcp: the path must differ"),
        (&["--jsonrpc", "/a?b"], &[], "--jsonrpc /a?b: the path must be a plain path"),
        (&[], &[("MCP_JSONRPC_PATH", "rpc")], "MCP_JSONRPC_PATH=rpc: the path must start"),
        (&["--public-url=ftp://x"], &[], "--public-url ftp://x: the URL must start with https://"),
        (&[], &[("MCP_PUBLIC_URL", "mcp.example.com")], "MCP_PUBLIC_URL=mcp.example.com: "),
        (&["--allowed-hosts", ","], &[], "--allowed-hosts ,: needs at least one host"),
        (&["--allowed-hosts", "https://a.example"], &[], "--allowed-hosts https://a.example: `https://a.example`: a host name, not a URL"),
        (&["--allowed-hosts", "a.example:443"], &[], "--allowed-hosts a.example:443: `a.example:443`: a host name without port"),
        (&["--allowed-hosts", "[::1]"], &[], "--allowed-hosts [::1]: `[::1]`: write an IPv6 address without brackets"),
        (&["--log-format", "xml"], &[], "--log-format xml: expected text or json"),
        (&[], &[("MCP_LOG_FORMAT", "XML")], "MCP_LOG_FORMAT=XML: expected text or json"),
        (&["--log-level", "info,a=nope"], &[], "--log-level info,a=nope: not a log filter"),
        (&[], &[("RUST_LOG", "a=b=c")], "RUST_LOG=a=b=c: not a log filter"),
        (&["--log-level", "info,h2[conn]=debug"], &[], "--log-level info,h2[conn]=debug: not a log filter: `info,h2[conn]=debug`: span and field directives"),
        (&["--legacy-sse"], &[("MCP_AUTH_ISSUER", "https://as"), ("MCP_PUBLIC_URL", "https://h/mcp")], "--legacy-sse cannot be combined with --auth-issuer"),
    ] {
        let message = refused(args, env);
        // Without the `jwt` feature an issuer is refused for that first.
        if expected.starts_with("--legacy-sse") && !cfg!(feature = "jwt") {
            assert!(message.contains("`jwt` feature"), "{message}");
            continue;
        }
        assert!(
            message.starts_with(expected),
            "{args:?} {env:?}:\n  got      {message}\n  expected {expected}…"
        );
    }
    // Zero is fine where it means something.
    let args = ok(
        &[
            "--max-subscriptions",
            "0",
            "--max-listen-streams",
            "0",
            "--max-pending-client-requests",
            "0",
            "--shutdown-grace",
            "0s",
            "--sse-retry",
            "0ms",
            "--max-tasks",
            "0",
        ],
        &[],
    );
    assert_eq!(args.config.streams.max_subscriptions, 0);
    assert_eq!(args.config.transport.shutdown_grace, Duration::ZERO);
    // IPv6 without brackets is a host name.
    assert_eq!(
        ok(&["--allowed-hosts", "::1,localhost"], &[])
            .config
            .transport
            .allowed_hosts,
        ["::1", "localhost"]
    );
}

#[test]
fn settings_for_http_are_refused_with_stdio_and_their_variables_ignored() {
    for flag in [
        &["--jsonrpc", "/rpc"][..],
        &["--server-card"],
        &["--public-url", "https://h/mcp"],
        &["--legacy-sse"],
        &["--auth-issuer", "https://as"],
        &["--allowed-hosts", "a"],
        &["--max-sessions", "3"],
        &["--sse-retry", "1s"],
    ] {
        let args: Vec<&str> = std::iter::once("--stdio")
            .chain(flag.iter().copied())
            .collect();
        let message = refused(&args, &[]);
        assert_eq!(
            message,
            format!(
                "{} is for HTTP: it cannot be combined with --stdio",
                flag[0]
            )
        );
        let message = refused(flag, &[("MCP_STDIO", "1")]);
        assert!(message.ends_with("(MCP_STDIO is set)"), "{message}");
    }
    let args = ok(
        &["--stdio"],
        &[
            ("MCP_JSONRPC_PATH", "/rpc"),
            ("MCP_LEGACY_SSE", "1"),
            ("MCP_SERVER_CARD", "1"),
            ("MCP_PUBLIC_URL", "https://h/mcp"),
            ("MCP_AUTH_ISSUER", "https://as"),
            ("MCP_MAX_SESSIONS", "abc"),
        ],
    );
    assert_eq!(args.transport, Transport::Stdio);
    assert!(args.config.endpoints.jsonrpc_path.is_none() && !args.config.endpoints.legacy_sse);
    assert!(!args.config.endpoints.server_card && args.config.endpoints.public_url.is_none());
    assert!(args.config.auth.is_none());
    // And the other way round.
    assert_eq!(
        refused(&["--stdio-output-limit", "1MiB"], &[]),
        "--stdio-output-limit is for --stdio: it does not apply to HTTP"
    );
    assert_eq!(
        ok(&[], &[("MCP_STDIO_OUTPUT_LIMIT", "abc")])
            .config
            .limits
            .stdio_output_limit,
        Config::default().limits.stdio_output_limit
    );
    assert_eq!(
        ok(
            &[
                "--stdio",
                "--stdio-output-limit",
                "64KiB",
                "--body-limit",
                "1KiB"
            ],
            &[]
        )
        .config
        .limits
        .stdio_output_limit,
        65536
    );
}

#[test]
fn auth_flags() {
    // Without the feature, that is each flag's first error, before any about its value.
    if !cfg!(feature = "jwt") {
        for (flags, env, cited) in [
            (
                &["--auth-jwks", "https://as/jwks"][..],
                &[][..],
                "--auth-jwks",
            ),
            (&[], &[("MCP_AUTH_SCOPES", "a")], "MCP_AUTH_SCOPES"),
            (&["--auth-token-type", "at+jwt"], &[], "--auth-token-type"),
            (&["--auth-issuer", "https://as"], &[], "--auth-issuer"),
        ] {
            assert_eq!(refused(flags, env), unbuilt(cited, "jwt"));
        }
    } else {
        let message = refused(&["--auth-jwks", "https://as/jwks"], &[]);
        assert!(
            message.starts_with("--auth-jwks https://as/jwks: authorization needs an issuer"),
            "{message}"
        );
        let message = refused(&[], &[("MCP_AUTH_SCOPES", "a")]);
        assert!(message.starts_with("MCP_AUTH_SCOPES=a: "), "{message}");
        let message = refused(&["--auth-token-type", "at+jwt"], &[]);
        assert!(
            message.starts_with("--auth-token-type at+jwt: "),
            "{message}"
        );
        let message = refused(&["--auth-issuer", "https://as"], &[]);
        assert!(message.contains("--public-url"), "{message}");
    }
    assert!(refused(&["--auth-jwks"], &[]).contains("--auth-jwks <URL> needs a value"));
    let result = parse_with(
        &[
            "--auth-issuer",
            "https://as.example.com",
            "--auth-scopes",
            "a,b",
        ],
        &[("MCP_PUBLIC_URL", "https://mcp.example.com/mcp")],
    );
    #[cfg(feature = "jwt")]
    {
        let config = result.unwrap().config;
        let auth = config.auth.expect("authorization on");
        assert_eq!(auth.metadata().resource, "https://mcp.example.com/mcp");
        assert_eq!(auth.required_scopes(), ["a", "b"]);
        // The flag wins over the variable.
        let auth = ok(
            &[
                "--auth-issuer",
                "https://as.example.com",
                "--auth-audience",
                "https://a.example/mcp",
            ],
            &[("MCP_AUTH_AUDIENCE", "https://b.example/mcp")],
        )
        .config
        .auth
        .unwrap();
        assert_eq!(auth.metadata().resource, "https://a.example/mcp");
    }
    #[cfg(not(feature = "jwt"))]
    assert!(matches!(result, Err(ArgsError::Invalid(m)) if m.contains("`jwt` feature")));
}

#[test]
fn request_state_keys_from_files_and_variables() {
    let key = SealingKeyText(KEY_HEX);
    let other = SealingKeyText(OTHER_KEY_HEX);
    let current = key_file("current", &format!("{KEY_HEX}\n"));
    let previous = key_file("previous", OTHER_KEY_HEX);

    let config = ok(
        &[
            "--request-state-key-file",
            &current,
            "--request-state-previous-key-file",
            &previous,
        ],
        &[],
    )
    .config;
    assert_eq!(config.request_state.request_state_key, Some(key.key()));
    assert_eq!(
        config.request_state.request_state_previous_key,
        Some(other.key())
    );

    // The variables holding the keys themselves still work.
    let args = ok(
        &[],
        &[
            ("MCP_REQUEST_STATE_KEY", KEY_HEX),
            ("MCP_REQUEST_STATE_PREVIOUS_KEY", OTHER_KEY_HEX),
        ],
    );
    assert_eq!(args.config.request_state.request_state_key, Some(key.key()));
    assert_eq!(
        args.config.request_state.request_state_previous_key,
        Some(other.key())
    );
    assert!(args.given.contains(&"request-state-key"));
    // The file's variable too; the flag wins over both variables.
    assert_eq!(
        ok(&[], &[("MCP_REQUEST_STATE_KEY_FILE", current.as_str())])
            .config
            .request_state
            .request_state_key,
        Some(key.key())
    );
    assert_eq!(
        ok(
            &["--request-state-key-file", &current],
            &[("MCP_REQUEST_STATE_KEY", OTHER_KEY_HEX)]
        )
        .config
        .request_state
        .request_state_key,
        Some(key.key())
    );
    // Two variables giving one key: which one is meant?
    assert_eq!(
        refused(
            &[],
            &[
                ("MCP_REQUEST_STATE_KEY_FILE", current.as_str()),
                ("MCP_REQUEST_STATE_KEY", KEY_HEX)
            ]
        ),
        "MCP_REQUEST_STATE_KEY_FILE and MCP_REQUEST_STATE_KEY both give the key: set one of them"
    );
    // Errors name the variable but never print a key.
    let message = refused(&[], &[("MCP_REQUEST_STATE_KEY", "a passphrase, not a key")]);
    assert!(message.starts_with("MCP_REQUEST_STATE_KEY: "), "{message}");
    assert!(!message.contains("passphrase, not"), "{message}");
    let short = key_file("short", "0011");
    let message = refused(&["--request-state-key-file", &short], &[]);
    assert!(
        message.starts_with(&format!(
            "--request-state-key-file {short}: the requestState key must be at least 32"
        )),
        "{message}"
    );
    let message = refused(
        &["--request-state-previous-key-file", "/nonexistent/key"],
        &[],
    );
    assert!(
        message
            .starts_with("--request-state-previous-key-file /nonexistent/key: cannot read the key"),
        "{message}"
    );
    for path in [current, previous, short] {
        let _ = std::fs::remove_file(path);
    }
}

struct SealingKeyText(&'static str);

impl SealingKeyText {
    fn key(&self) -> crate::request_state::SealingKey {
        crate::request_state::SealingKey::from_text(self.0).unwrap()
    }
}

#[test]
fn the_metrics_address() {
    assert_eq!(ok(&[], &[]).metrics, None);
    let args = ok(
        &["--metrics", "127.0.0.1:9464"],
        &[("MCP_METRICS_ADDR", "127.0.0.1:2")],
    );
    assert_eq!(
        args.metrics,
        Some("127.0.0.1:9464".parse().unwrap()),
        "the flag wins"
    );
    // Not Config: entry::run needs no unshared server for it.
    assert!(!args.changes_config());
    let args = ok(&["--metrics=[::1]:9"], &[]);
    assert_eq!(args.metrics, Some("[::1]:9".parse().unwrap()));
    let args = ok(&[], &[("MCP_METRICS_ADDR", "127.0.0.1:2")]);
    assert_eq!(args.metrics, Some("127.0.0.1:2".parse().unwrap()));
    assert_eq!(ok(&[], &[("MCP_METRICS_ADDR", "")]).metrics, None);
    // Its own listener, beside either transport.
    let args = ok(&["--stdio", "--metrics", "127.0.0.1:9464"], &[]);
    assert_eq!(args.metrics, Some("127.0.0.1:9464".parse().unwrap()));
    let message = refused(&["--metrics"], &[]);
    assert!(message.contains("--metrics"), "{message}");
    let message = refused(&[], &[("MCP_METRICS_ADDR", "nope")]);
    if cfg!(feature = "metrics") {
        assert!(
            message.starts_with("MCP_METRICS_ADDR=nope: ") && message.contains("HOST:PORT"),
            "{message}"
        );
    } else {
        assert_eq!(message, unbuilt("MCP_METRICS_ADDR", "metrics"));
    }
    let help = super::help(&Config::default());
    assert!(help.contains("--metrics <ADDR>"), "{help}");
    assert_eq!(
        help.contains("NOT IN THIS BUILD: rebuild with the `metrics` feature"),
        !cfg!(feature = "metrics"),
        "{help}"
    );
}

#[test]
fn redis_settings() {
    let args = ok(&[], &[]);
    assert_eq!((args.redis, args.redis_prefix.as_str()), (None, "mcp"));
    let args = ok(
        &[
            "--redis",
            "redis://:secret@127.0.0.1:6379/",
            "--redis-prefix",
            "blue",
        ],
        &[("MCP_REDIS_URL", "redis://other/")],
    );
    assert_eq!(
        args.redis.as_deref(),
        Some("redis://:secret@127.0.0.1:6379/")
    );
    assert_eq!(
        (args.redis_source, args.redis_prefix.as_str()),
        ("--redis", "blue")
    );
    // The shared stores are not Config: entry::run needs no unshared server for them.
    assert!(!args.changes_config());
    let args = ok(
        &[],
        &[
            ("MCP_REDIS_URL", "redis://r/"),
            ("MCP_REDIS_PREFIX", "green"),
        ],
    );
    assert_eq!(args.redis.as_deref(), Some("redis://r/"));
    assert_eq!(
        (args.redis_source, args.redis_prefix.as_str()),
        ("MCP_REDIS_URL", "green")
    );
    assert_eq!(
        refused(&["--redis-prefix", "a b"], &[]),
        if cfg!(feature = "redis") {
            "--redis-prefix \"a b\": the key prefix must have no spaces or control characters"
                .to_string()
        } else {
            unbuilt("--redis-prefix", "redis")
        }
    );
    assert_eq!(
        refused(&["--redis-prefix", "a{b}"], &[]),
        if cfg!(feature = "redis") {
            "--redis-prefix a{b}: the key prefix must have no braces ({ or })".to_string()
        } else {
            unbuilt("--redis-prefix", "redis")
        }
    );
    assert_eq!(
        refused(&["--stdio", "--redis", "redis://r/"], &[]),
        "--redis is for HTTP: it cannot be combined with --stdio"
    );
    // A Cluster: its nodes' URLs in --redis, named by the flag or its variable.
    if cfg!(feature = "redis") {
        let seeds = "redis://127.0.0.1:7000/,redis://127.0.0.1:7001/";
        let args = ok(&["--redis", seeds, "--redis-cluster"], &[]);
        assert_eq!(
            (args.redis.as_deref(), args.redis_cluster),
            (Some(seeds), true)
        );
        let args = ok(&[], &[("MCP_REDIS_URL", seeds), ("MCP_REDIS_CLUSTER", "1")]);
        assert!(args.redis_cluster);
        assert!(!ok(&["--redis", "redis://r/"], &[]).redis_cluster);
        let args = ok(
            &["--redis", "redis://r/", "--redis-wait-replicas", "1"],
            &[],
        );
        assert_eq!(args.redis_wait_replicas, 1);
        let args = ok(
            &["--redis", "redis://r/"],
            &[("MCP_REDIS_WAIT_REPLICAS", "2")],
        );
        assert_eq!(args.redis_wait_replicas, 2);
        assert_eq!(ok(&["--redis", "redis://r/"], &[]).redis_wait_replicas, 0);
        assert_eq!(
            refused(&["--redis-wait-replicas", "17"], &[]),
            "--redis-wait-replicas 17: expected a number of replicas from 0 to 16"
        );
        assert_eq!(
            refused(&["--redis-cluster"], &[]),
            "--redis-cluster (or MCP_REDIS_CLUSTER) needs --redis (or MCP_REDIS_URL): the URL of one or more of the Cluster's nodes"
        );
    } else {
        assert_eq!(
            refused(&["--redis-cluster"], &[]),
            unbuilt("--redis-cluster", "redis")
        );
    }
    assert_eq!(
        ok(&["--stdio"], &[("MCP_REDIS_URL", "redis://r/")]).redis,
        None
    );
    #[cfg(feature = "redis")]
    assert_eq!(
        settings::DEFAULT_REDIS_PREFIX,
        crate::stores::redis::DEFAULT_PREFIX
    );
    let help = super::help(&Config::default());
    assert!(help.contains("--redis <URL>"), "{help}");
    assert!(help.contains("--redis-cluster"), "{help}");
    assert_eq!(
        help.contains("NOT IN THIS BUILD: rebuild with the `redis` feature"),
        !cfg!(feature = "redis"),
        "{help}"
    );
}

#[test]
fn logging_settings() {
    let args = ok(&["--log-level", "debug", "--log-format", "json"], &[]);
    assert_eq!(args.log_filter, "debug");
    assert_eq!(args.log_format, LogFormat::Json);
    let args = ok(
        &[],
        &[
            ("RUST_LOG", "warn,mcp_runtime=debug"),
            ("MCP_LOG_FORMAT", "json"),
        ],
    );
    assert_eq!(args.log_filter, "warn,mcp_runtime=debug");
    assert_eq!(args.log_format, LogFormat::Json);
    assert_eq!(
        ok(&["--log-level", "error"], &[("RUST_LOG", "trace")]).log_filter,
        "error"
    );
    // Targets, levels and `off`, the longest target first.
    let filter =
        crate::telemetry::parse_log_filter("warn,mcp_runtime=debug,mcp::request=off").unwrap();
    use tracing::Level;
    assert!(filter.would_enable("mcp_runtime::engine", &Level::DEBUG));
    assert!(!filter.would_enable("hyper", &Level::INFO));
    assert!(filter.would_enable("hyper", &Level::WARN));
    assert!(!filter.would_enable("mcp::request", &Level::ERROR));
    // Logging and the transport leave the configuration as it was.
    assert!(!ok(&["--log-level", "debug", "--addr", "127.0.0.1:1"], &[]).changes_config());
    assert!(ok(&["--page-size", "1"], &[]).changes_config());
}

/// A contract with nothing in it: enough to build a server.
struct Nothing;

static NOTHING: crate::Catalog = crate::Catalog {
    server: crate::ServerInfo {
        name: "nothing",
        version: "1",
        title: None,
        website_url: None,
    },
    instructions: None,
    tools: &[],
    prompts: &[],
    resources: &[],
    resource_templates: &[],
    completions: &[],
};

impl Dispatch for Nothing {
    fn contract(&self) -> &'static crate::Contract {
        static CONTRACT: crate::Contract = crate::Contract::new(&NOTHING);
        &CONTRACT
    }
}

/// `entry::run`'s path: the flags change a server built before them.
#[test]
fn flags_reconfigure_a_server_built_before_them() {
    let built = || {
        McpServer::builder(Nothing)
            .config(Config::builder().page_size(7).build())
            .build()
    };
    let args_over = |server: &McpServer<Nothing>, args: &[&str], env: &[(&str, &str)]| {
        let env: Vec<(String, String)> = env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        parse(
            args.iter().map(|s| s.to_string()),
            server.config(),
            move |var| env.iter().find(|(k, _)| k == var).map(|(_, v)| v.clone()),
        )
        .unwrap()
    };

    let mut server = built();
    let args = args_over(
        &server,
        &["--body-limit", "1KiB", "--request-state-ttl", "5m"],
        &[("MCP_REQUEST_STATE_KEY", KEY_HEX)],
    );
    reconfigure(&mut server, &args).unwrap();
    assert_eq!(server.config().limits.body_limit, 1024);
    // What no flag changed stays as the application set it.
    assert_eq!(server.config().limits.page_size, 7);
    assert_eq!(
        server.config().request_state.request_state_ttl,
        Duration::from_secs(300)
    );
    assert_eq!(
        server.config().request_state.request_state_key,
        Some(SealingKeyText(KEY_HEX).key())
    );

    // A variable wins over the key the application set, as every variable does.
    let mut server = McpServer::builder(Nothing)
        .config(
            Config::builder()
                .request_state_key(Some(SealingKeyText(OTHER_KEY_HEX).key()))
                .build(),
        )
        .build();
    let args = args_over(&server, &[], &[("MCP_REQUEST_STATE_KEY", KEY_HEX)]);
    reconfigure(&mut server, &args).unwrap();
    assert_eq!(
        server.config().request_state.request_state_key,
        Some(SealingKeyText(KEY_HEX).key())
    );

    // The stores and the task runner took theirs when the server was built.
    for flag in [
        "--max-sessions",
        "--max-tasks",
        "--task-ttl",
        "--task-poll-interval",
    ] {
        let mut server = built();
        let value = if flag.starts_with("--task") {
            "1s"
        } else {
            "3"
        };
        let args = args_over(&server, &[flag, value], &[]);
        let error = reconfigure(&mut server, &args).unwrap_err();
        assert!(
            error.starts_with(&format!("{flag} is fixed when the server is built")),
            "{error}"
        );
        assert!(error.contains("entry::run_with"), "{error}");
    }

    // A clone holds the engine: only the transport and logging can change then.
    let mut server = built();
    let _clone = server.clone();
    let args = args_over(
        &server,
        &["--addr", "127.0.0.1:1", "--log-level", "debug"],
        &[],
    );
    reconfigure(&mut server, &args).unwrap();
    let args = args_over(&server, &["--page-size", "3"], &[]);
    assert!(reconfigure(&mut server, &args)
        .unwrap_err()
        .contains("cloned before entry::run"));
}

/// The error of a flag (or variable) `cited` whose `feature` this build lacks.
fn unbuilt(cited: &str, feature: &str) -> String {
    format!(
        "{cited}: this server was built without mcp-runtime's `{feature}` feature; rebuild it \
         with the feature on (a generated crate: `cargo build --features {feature}`)"
    )
}

#[test]
fn the_audit_settings_reach_its_config_and_need_audit() {
    use crate::audit::{Audit, PrincipalShown};
    let args = ok(
        &[
            "--audit",
            "--audit-principal",
            "digest",
            "--audit-arguments",
            "--audit-redact",
            "password, /card/number,",
        ],
        &[],
    );
    let expected = Audit::new()
        .principal(PrincipalShown::Digest)
        .with_arguments(true)
        .redact(["password", "/card/number"]);
    assert_eq!(args.config.audit, Some(expected));
    let args = ok(
        &[],
        &[("MCP_AUDIT", "1"), ("MCP_AUDIT_PRINCIPAL", "subject")],
    );
    assert_eq!(args.config.audit, Some(Audit::new()));
    for sub in [
        "--audit-arguments",
        "--audit-redact=x",
        "--audit-principal=digest",
    ] {
        let message = refused(&[sub], &[]);
        assert!(message.contains("needs --audit"), "{message}");
    }
    let message = refused(&["--audit", "--audit-principal", "name"], &[]);
    assert!(message.contains("expected subject or digest"), "{message}");
}

#[test]
fn the_audit_file_is_opened_when_read_and_its_error_names_the_flag_and_path() {
    let dir = std::env::temp_dir().join(format!("mcp-audit-flag-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("audit.jsonl");
    let path_text = path.display().to_string();
    let args = ok(&["--audit", "--audit-file", &path_text], &[]);
    let file = args.config.audit.as_ref().and_then(|a| a.file()).unwrap();
    assert_eq!(file.path(), path);
    assert!(path.exists(), "created when the flag is read");
    let args = ok(&[], &[("MCP_AUDIT", "1"), ("MCP_AUDIT_FILE", &path_text)]);
    assert!(args.config.audit.unwrap().file().is_some());
    let message = refused(&["--audit-file", &path_text], &[]);
    assert!(message.contains("needs --audit"), "{message}");
    let missing = dir.join("no/such/dir/audit.jsonl").display().to_string();
    let message = refused(&["--audit", "--audit-file", &missing], &[]);
    assert!(
        message.contains("--audit-file") && message.contains(&missing),
        "{message}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_rate_limit_settings_reach_their_config() {
    use crate::rate_limit::{Rate, RateLimits};
    let args = ok(
        &[
            "--rate-limit",
            "10/s",
            "--tool-rate-limit",
            "search=2/min, export=1/30s",
            "--rate-limit-callers",
            "1000",
        ],
        &[],
    );
    let expected = RateLimits::new()
        .per_caller(Some(Rate::new(10, 1_000)))
        .per_tool("search", Rate::new(2, 60_000))
        .per_tool("export", Rate::new(1, 30_000))
        .max_callers(1000);
    assert_eq!(args.config.rate_limits, Some(expected));
    let args = ok(&[], &[("MCP_TOOL_RATE_LIMIT", "a=1/h")]);
    let expected = RateLimits::new().per_tool("a", Rate::new(1, 3_600_000));
    assert_eq!(args.config.rate_limits, Some(expected));
    assert_eq!(ok(&[], &[]).config.rate_limits, None);
    for (flag, value, says) in [
        ("--rate-limit", "10", "expected N/PERIOD"),
        ("--rate-limit", "0/s", "at least 1"),
        ("--tool-rate-limit", "search", "expected NAME=RATE"),
        ("--tool-rate-limit", "search=fast", "expected N/PERIOD"),
        ("--rate-limit-callers", "3", "at least 16"),
    ] {
        let message = refused(&[flag, value], &[]);
        assert!(message.contains(says), "{flag} {value}: {message}");
    }
}

#[test]
fn shared_rate_limits_need_redis_and_its_feature() {
    // Without --redis, or without the feature: refused, naming both flags.
    for (args, env) in [
        (&["--rate-limit", "5/s", "--rate-limit-shared"][..], &[][..]),
        (&[][..], &[("MCP_RATE_LIMIT_SHARED", "1")][..]),
    ] {
        let message = refused(args, env);
        assert!(
            message.contains("--rate-limit-shared") && message.contains("--redis"),
            "{message}"
        );
        if !cfg!(feature = "redis") {
            assert!(message.contains("`redis` feature"), "{message}");
        }
    }
    // On stdio the variable is ignored (the flag is refused, as every HTTP flag is).
    let args = ok(&["--stdio"], &[("MCP_RATE_LIMIT_SHARED", "1")]);
    assert_eq!(args.config.rate_limits, None);
    if cfg!(feature = "redis") {
        let args = ok(
            &["--rate-limit", "5/s", "--rate-limit-shared"],
            &[("MCP_REDIS_URL", "redis://127.0.0.1/")],
        );
        let limits = args.config.rate_limits.unwrap();
        assert!(limits.is_shared());
        assert_eq!(
            limits.settings().0,
            Some(crate::rate_limit::Rate::new(5, 1_000))
        );
        let args = ok(
            &["--redis", "redis://127.0.0.1/"],
            &[("MCP_RATE_LIMIT_SHARED", "off")],
        );
        assert!(!args.config.rate_limits.is_some_and(|l| l.is_shared()));
    }
}
