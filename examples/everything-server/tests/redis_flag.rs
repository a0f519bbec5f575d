//! `--redis URL` / `MCP_REDIS_URL` on the real binary: what it refuses at start, with the
//! exit code and the message naming the flag or variable. Built without the `redis`
//! feature (the default) the flag is refused saying how to get it; built with it, a missing
//! shared key is 2 and an unreachable Redis is 1 (the harness in tests/scale-out runs the
//! binary against a real Redis). `--rate-limit-shared` without `--redis` is refused (2).

use std::net::TcpListener;
use std::process::Command;

fn run(args: &[&str], env: &[(&str, &str)]) -> (Option<i32>, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_everything-server"));
    command
        .args(args)
        .env_remove("MCP_REQUEST_STATE_KEY")
        .env_remove("MCP_REDIS_URL");
    for (name, value) in env {
        command.env(name, value);
    }
    let output = command.output().expect("the binary runs");
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

fn unused_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

#[test]
fn redis_cannot_be_combined_with_stdio() {
    let (code, stderr) = run(&["--stdio", "--redis", "redis://127.0.0.1:1/"], &[]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("--redis"), "{stderr}");
}

#[cfg(not(feature = "redis"))]
#[test]
fn without_the_feature_the_flag_says_how_to_get_it() {
    let addr = format!("127.0.0.1:{}", unused_port());
    let (code, stderr) = run(&["--addr", &addr, "--redis", "redis://127.0.0.1:1/"], &[]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("--redis: this server was built without the `redis` feature"),
        "{stderr}"
    );
    let (code, stderr) = run(
        &["--addr", &addr],
        &[("MCP_REDIS_URL", "redis://127.0.0.1:1/")],
    );
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("MCP_REDIS_URL: this server"), "{stderr}");
}

#[cfg(feature = "redis")]
#[test]
fn a_missing_shared_key_is_refused() {
    let addr = format!("127.0.0.1:{}", unused_port());
    let (code, stderr) = run(&["--addr", &addr, "--redis", "redis://127.0.0.1:1/"], &[]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("--redis needs MCP_REQUEST_STATE_KEY"),
        "{stderr}"
    );
}

#[cfg(feature = "redis")]
#[test]
fn an_unreachable_redis_is_exit_1() {
    let addr = format!("127.0.0.1:{}", unused_port());
    let url = format!("redis://127.0.0.1:{}/", unused_port());
    let key = "ab".repeat(32);
    let (code, stderr) = run(
        &["--addr", &addr, "--redis", &url],
        &[("MCP_REQUEST_STATE_KEY", &key)],
    );
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!("--redis: cannot reach Redis at {url}")),
        "{stderr}"
    );
}

/// `--rate-limit-shared` keeps its buckets in the Redis of `--redis`: without it (or without
/// the feature) the server does not start, and the message names both flags.
#[test]
fn shared_rate_limits_without_redis_are_refused() {
    let addr = format!("127.0.0.1:{}", unused_port());
    let (code, stderr) = run(
        &[
            "--addr",
            &addr,
            "--rate-limit",
            "5/s",
            "--rate-limit-shared",
        ],
        &[],
    );
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("--rate-limit-shared") && stderr.contains("--redis"),
        "{stderr}"
    );
}
