//! The everything server as a real process stopped by SIGTERM: it shuts down gracefully (an
//! open SSE stream ends cleanly) and exits 0, over HTTP and over stdio.

#![cfg(unix)]

mod common;

use common::{exit_code_within, terminate};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::Duration;

/// Sends one HTTP/1.1 request and returns the stream, its response head read.
fn request(port: u16, head: &str, body: &str) -> (BufReader<TcpStream>, String) {
    let stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut writer = stream.try_clone().unwrap();
    write!(
        writer,
        "{head}host: 127.0.0.1:{port}\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut reader = BufReader::new(stream);
    let mut response = String::new();
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        response.push_str(&line);
        if line == "\r\n" || line.is_empty() {
            return (reader, response);
        }
    }
}

#[test]
fn sigterm_ends_an_http_server_gracefully_with_exit_0() {
    // Port 0, and the port read from the server's log: a port picked free beforehand can be
    // taken by another process before the server binds it.
    let mut child = Command::new(env!("CARGO_BIN_EXE_everything-server"))
        .args(["--addr", "127.0.0.1:0"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the server starts");
    let mut log = BufReader::new(child.stderr.take().unwrap());
    let mut stderr = String::new();
    let port = loop {
        let mut line = String::new();
        assert!(
            log.read_line(&mut line).unwrap() > 0,
            "the server never listened: {stderr}"
        );
        stderr.push_str(&line);
        if let Some((_, rest)) = line.split_once("listening on http://127.0.0.1:") {
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            break digits.parse::<u16>().expect("a port in the log line");
        }
    };
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"signals","version":"1"}}}"#;
    let (_, head) = request(
        port,
        "POST /mcp HTTP/1.1\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\n",
        init,
    );
    let session = head
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .strip_prefix("mcp-session-id: ")
                .map(str::to_string)
        })
        .expect("a session id");
    let (mut stream, head) = request(
        port,
        &format!("GET /mcp HTTP/1.1\r\naccept: text/event-stream\r\nmcp-session-id: {session}\r\nmcp-protocol-version: 2025-11-25\r\n"),
        "",
    );
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");

    terminate(&child);
    // The stream ends as a complete chunked body: its last chunk is the zero-length one.
    let mut rest = String::new();
    stream
        .read_to_string(&mut rest)
        .expect("the stream ends, not times out");
    assert!(rest.ends_with("0\r\n\r\n"), "a clean end: {rest:?}");
    assert_eq!(
        exit_code_within(&mut child, Duration::from_secs(10)),
        Some(0)
    );
    log.read_to_string(&mut stderr).unwrap();
    assert!(stderr.contains("SIGTERM"), "{stderr}");
}

#[test]
fn sigterm_ends_a_stdio_server_with_exit_0() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_everything-server"))
        .arg("--stdio")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the server starts");
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    writeln!(stdin, r#"{{"jsonrpc":"2.0","id":1,"method":"ping"}}"#).unwrap();
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    assert!(line.contains("\"id\":1"), "{line}");
    terminate(&child);
    assert_eq!(
        exit_code_within(&mut child, Duration::from_secs(10)),
        Some(0)
    );
}
