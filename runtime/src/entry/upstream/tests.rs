use super::*;
use std::time::Duration;

fn parse(
    args: &[&str],
    env: &[(&str, &str)],
    default_url: Option<&str>,
) -> Result<(Args, UpstreamSettings), ArgsError> {
    let env: Vec<(String, String)> = env
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    parse_gateway(
        args.iter().map(|s| s.to_string()),
        &Config::default(),
        move |var| env.iter().find(|(k, _)| k == var).map(|(_, v)| v.clone()),
        default_url,
    )
}

fn ok(args: &[&str], env: &[(&str, &str)]) -> UpstreamSettings {
    parse(args, env, None)
        .unwrap_or_else(|e| panic!("{args:?}: {e}"))
        .1
}

fn refused(args: &[&str], env: &[(&str, &str)], default_url: Option<&str>) -> String {
    match parse(args, env, default_url) {
        Err(ArgsError::Invalid(message)) => {
            assert!(!message.contains('\n'), "not one line: {message}");
            message
        }
        Err(other) => panic!("{args:?}: {other:?}"),
        Ok((_, settings)) => panic!("{args:?}: accepted {settings:?}"),
    }
}

fn header_values(settings: &UpstreamSettings) -> Vec<(String, String)> {
    settings
        .headers
        .iter()
        .map(|(n, v)| (n.to_string(), v.to_str().unwrap().to_owned()))
        .collect()
}

#[test]
fn defaults_and_values() {
    let settings = ok(&["--upstream", "http://127.0.0.1:8545"], &[]);
    assert_eq!(settings.url, "http://127.0.0.1:8545");
    assert_eq!(settings.timeout, Duration::from_secs(30));
    assert_eq!(settings.max_concurrency, 64);
    assert_eq!(settings.max_response_bytes, 16 << 20);
    assert_eq!(settings.subscription_window, 16);
    assert!(settings.headers.is_empty());
    let settings = ok(
        &[
            "--upstream-timeout",
            "1m30s",
            "--upstream-concurrency",
            "8",
            "--upstream-max-body",
            "1MiB",
        ],
        &[
            ("MCP_UPSTREAM_URL", "https://node.example/rpc/v1"),
            ("MCP_UPSTREAM_TIMEOUT", "5s"),
            ("MCP_UPSTREAM_SUBSCRIPTION_WINDOW", "100"),
        ],
    );
    assert_eq!(settings.subscription_window, 100);
    assert_eq!(settings.url, "https://node.example/rpc/v1");
    assert_eq!(settings.timeout, Duration::from_secs(90));
    assert_eq!(settings.max_concurrency, 8);
    assert_eq!(settings.max_response_bytes, 1 << 20);
    // The flag wins over the variable, which wins over the built-in default.
    let (_, settings) = parse(
        &["--upstream", "http://a:1"],
        &[("MCP_UPSTREAM_URL", "http://b:2")],
        Some("http://c:3"),
    )
    .unwrap();
    assert_eq!(settings.url, "http://a:1");
    let (_, settings) = parse(
        &[],
        &[("MCP_UPSTREAM_URL", "http://b:2")],
        Some("http://c:3"),
    )
    .unwrap();
    assert_eq!(settings.url, "http://b:2");
    let (args, settings) = parse(
        &["--stdio"],
        &[("MCP_UPSTREAM_URL", "")],
        Some("http://c:3"),
    )
    .unwrap();
    assert_eq!(settings.url, "http://c:3");
    assert_eq!(args.transport, super::super::Transport::Stdio);
}

#[test]
fn refusals_name_the_flag() {
    let message = refused(&[], &[], None);
    assert!(message.starts_with("--upstream is required"), "{message}");
    for url in ["wss:/x", "127.0.0.1:8545", "file:///tmp/x"] {
        let message = refused(&["--upstream", url], &[], None);
        assert!(
            message.starts_with(
                "--upstream: must be an http://, https://, ws:// or wss:// URL or a unix:/path"
            ),
            "{message}"
        );
    }
    let message = refused(&[], &[("MCP_UPSTREAM_URL", "ftp://x")], None);
    assert!(
        message.starts_with("MCP_UPSTREAM_URL: must be"),
        "{message}"
    );
    let message = refused(&["--upstream", "http://user:secret@h:1"], &[], None);
    assert!(
        message.starts_with("--upstream: ") && !message.contains("secret"),
        "{message}"
    );
    let message = refused(&[], &[], Some("ftp://x"));
    assert!(
        message.contains("--upstream or MCP_UPSTREAM_URL"),
        "{message}"
    );
    let url = ["--upstream", "http://h:1"];
    for (flag, value, says) in [
        ("--upstream-timeout", "0s", "--upstream-timeout 0s: "),
        (
            "--upstream-timeout",
            "30",
            "--upstream-timeout 30: 30 needs a unit",
        ),
        (
            "--upstream-concurrency",
            "0",
            "--upstream-concurrency 0: must be at least 1",
        ),
        (
            "--upstream-max-body",
            "16MB",
            "--upstream-max-body 16MB: unknown unit",
        ),
        (
            "--upstream-subscription-window",
            "0",
            "--upstream-subscription-window 0: must be at least 1",
        ),
        (
            "--upstream-subscription-window",
            "10001",
            "--upstream-subscription-window 10001: must be at most 10000",
        ),
        (
            "--upstream-ca",
            "/nonexistent/ca.pem",
            "--upstream-ca /nonexistent/ca.pem: cannot be read",
        ),
    ] {
        let message = refused(&[url[0], url[1], flag, value], &[], None);
        assert!(message.starts_with(says), "{message}");
    }
    let message = refused(&url, &[("MCP_UPSTREAM_CONCURRENCY", "many")], None);
    assert!(
        message.starts_with("MCP_UPSTREAM_CONCURRENCY many: not a number"),
        "{message}"
    );
}

#[test]
fn headers_and_their_value_forms() {
    let dir = tempfile::tempdir().unwrap();
    let token = dir.path().join("token");
    std::fs::write(&token, "  Bearer from-a-file\n").unwrap();
    let file_header = format!("Authorization: file:{}", token.display());
    let settings = ok(
        &[
            "--upstream",
            "http://h:1",
            "--upstream-header",
            "X-Api-Key: env:NODE_KEY",
            "--upstream-header",
            &file_header,
            "--upstream-header",
            "X-Plain:  literal value ",
        ],
        &[
            ("NODE_KEY", "k-123"),
            ("MCP_UPSTREAM_HEADERS", "X-Ignored: 1"),
        ],
    );
    assert_eq!(
        header_values(&settings),
        [
            ("x-api-key".to_owned(), "k-123".to_owned()),
            ("authorization".to_owned(), "Bearer from-a-file".to_owned()),
            ("x-plain".to_owned(), "literal value".to_owned()),
        ]
    );
    assert!(settings.headers.iter().all(|(_, v)| v.is_sensitive()));
    // The variable: one a line, blank lines skipped.
    let settings = ok(
        &["--upstream", "http://h:1"],
        &[
            ("MCP_UPSTREAM_HEADERS", "A: 1\n\nB: env:B_VALUE\n"),
            ("B_VALUE", "2"),
        ],
    );
    assert_eq!(
        header_values(&settings),
        [
            ("a".to_owned(), "1".to_owned()),
            ("b".to_owned(), "2".to_owned())
        ]
    );
    let url = ["--upstream", "http://h:1", "--upstream-header"];
    for (header, says) in [
        ("no colon", "--upstream-header #1: expected `Name: value`"),
        (
            "Bad Name: x",
            "--upstream-header #1: \"Bad Name\" is not a header name",
        ),
        (
            "X-Key: env:UNSET_VAR",
            "--upstream-header #1: x-key: the variable UNSET_VAR is not set",
        ),
        (
            "X-Key: file:/nonexistent/secret",
            "--upstream-header #1: x-key: /nonexistent/secret cannot be read",
        ),
        (
            "Content-Type: text/plain",
            "--upstream-header #1: the header content-type is the gateway's own",
        ),
    ] {
        let message = refused(&[url[0], url[1], url[2], header], &[], None);
        assert!(message.starts_with(says), "{message}");
    }
    let message = refused(
        &url[..2],
        &[
            ("MCP_UPSTREAM_HEADERS", "A: 1\nX-Secret: env:S"),
            ("S", "bad\u{7f}secret"),
        ],
        None,
    );
    assert!(
        message.starts_with("MCP_UPSTREAM_HEADERS line 2: x-secret: the value is no header value"),
        "{message}"
    );
    assert!(
        !message.contains("secret\u{7f}") && !message.contains("badsecret"),
        "{message}"
    );
}

#[test]
fn help_has_the_upstream_group_with_defaults() {
    let help = match parse(&["--help"], &[], Some("http://127.0.0.1:8545")) {
        Err(ArgsError::Help(help)) => help,
        other => panic!("{other:?}"),
    };
    assert!(help.contains("\nUpstream:\n"), "{help}");
    for text in [
        "--upstream <URL>",
        "[env: MCP_UPSTREAM_URL] [default: http://127.0.0.1:8545]",
        "[env: MCP_UPSTREAM_TIMEOUT] [default: 30s]",
        "[env: MCP_UPSTREAM_CONCURRENCY] [default: 64]",
        "[env: MCP_UPSTREAM_MAX_BODY] [default: 16MiB]",
        "[env: MCP_UPSTREAM_SUBSCRIPTION_WINDOW] [default: 16]",
        "[env: MCP_UPSTREAM_HEADERS]",
        "--upstream-ca <FILE>",
    ] {
        assert!(help.contains(text), "{text}: {help}");
    }
    let help = match parse(&["--help"], &[], None) {
        Err(ArgsError::Help(help)) => help,
        other => panic!("{other:?}"),
    };
    assert!(help.contains("[default: none: required]"), "{help}");
    // A server that is no gateway has none of them.
    assert!(!super::super::help(&Config::default()).contains("--upstream"));
}

#[test]
fn version_comes_before_the_upstream_checks() {
    assert!(matches!(
        parse(&["--version"], &[], None),
        Err(ArgsError::Version)
    ));
}
