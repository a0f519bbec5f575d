//! The skills extension end to end: the everything server's binary on 127.0.0.1, its
//! `skills/` directory bundled by `build.rs`, asked over HTTP as a skills client would ask it
//! (both eras): the capability, `skills/list`, `skills/get`, every listed file read back
//! through `resources/read` and checked against its digest and size, and
//! `resources/directory/read` down the skill's folders.

use base64::Engine as _;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The server process, killed when dropped.
struct Running {
    child: Child,
    port: u16,
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts the binary on a free loopback port and waits until it accepts connections.
fn start() -> Running {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = Command::new(env!("CARGO_BIN_EXE_everything-server"))
        .args(["--addr", &format!("127.0.0.1:{port}")])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the server starts");
    let running = Running { child, port };
    let deadline = Instant::now() + Duration::from_secs(30);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "the server did not listen");
        std::thread::sleep(Duration::from_millis(50));
    }
    running
}

/// One HTTP/1.1 POST to `/mcp`: the status and the JSON body.
fn post(port: u16, headers: &[(&str, &str)], body: &Value) -> (u16, Value) {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let body = body.to_string();
    let mut request = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(&body);
    stream.write_all(request.as_bytes()).unwrap();
    let mut reader = BufReader::new(stream);
    let mut status_line = String::new();
    reader.read_line(&mut status_line).unwrap();
    let status: u16 = status_line.split(' ').nth(1).unwrap().parse().unwrap();
    let mut chunked = false;
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        if line == "\r\n" {
            break;
        }
        let lower = line.to_ascii_lowercase();
        chunked |= lower.starts_with("transfer-encoding:") && lower.contains("chunked");
    }
    let mut raw = Vec::new();
    reader.read_to_end(&mut raw).unwrap();
    let text = if chunked { dechunk(&raw) } else { raw };
    let text = String::from_utf8(text).unwrap();
    // An SSE answer carries the response on its last `data:` line.
    let json = match text.trim_start().starts_with('{') {
        true => text,
        false => text
            .lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .map(str::trim)
            .rfind(|l| l.starts_with('{'))
            .unwrap_or_default()
            .to_string(),
    };
    (status, serde_json::from_str(&json).unwrap_or(Value::Null))
}

fn dechunk(mut raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let end = raw.windows(2).position(|w| w == b"\r\n").unwrap();
        let size =
            usize::from_str_radix(std::str::from_utf8(&raw[..end]).unwrap().trim(), 16).unwrap();
        if size == 0 {
            return out;
        }
        out.extend_from_slice(&raw[end + 2..end + 2 + size]);
        raw = &raw[end + 2 + size + 2..];
    }
}

/// A stateless (2026-07-28) request: `_meta` in the params, the routing headers.
fn stateless(port: u16, id: u64, method: &str, mut params: Value) -> (u16, Value) {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "skills-test", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let mut headers = vec![
        ("MCP-Protocol-Version", "2026-07-28".to_string()),
        ("Mcp-Method", method.to_string()),
    ];
    if method == "resources/read" {
        headers.push(("Mcp-Name", params["uri"].as_str().unwrap().to_string()));
    }
    let headers: Vec<(&str, &str)> = headers.iter().map(|(n, v)| (*n, v.as_str())).collect();
    post(
        port,
        &headers,
        &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
    )
}

fn result(answer: (u16, Value)) -> Value {
    assert_eq!(answer.0, 200, "{}", answer.1);
    answer.1["result"].clone()
}

fn error_code(answer: &(u16, Value)) -> i64 {
    answer.1["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("no error: {}", answer.1))
}

#[test]
fn a_skills_client_lists_gets_reads_verifies_and_walks_the_bundled_skills() {
    let server = start();
    let port = server.port;

    let discover = result(stateless(port, 1, "server/discover", json!({})));
    let capabilities = &discover["capabilities"];
    assert_eq!(
        capabilities["extensions"]["io.modelcontextprotocol/skills"],
        json!({"directoryRead": true})
    );
    assert!(capabilities["resources"].is_object());
    assert!(capabilities["extensions"]["io.modelcontextprotocol/tasks"].is_object());

    let list = result(stateless(port, 2, "skills/list", json!({})));
    assert_eq!(list["resultType"], "complete");
    assert!(list["ttlMs"].is_number() && list["cacheScope"].is_string());
    let skills = list["skills"].as_array().unwrap();
    let uris: Vec<&str> = skills.iter().map(|s| s["uri"].as_str().unwrap()).collect();
    assert_eq!(
        uris,
        [
            "skill://conformance-guide/SKILL.md",
            "skill://greeting/SKILL.md"
        ]
    );

    // Every listed file reads back with the listed digest and size.
    let mut id = 10;
    for skill in skills {
        let got = result(stateless(
            port,
            id,
            "skills/get",
            json!({"uri": skill["uri"]}),
        ));
        assert_eq!(&got["skill"], skill);
        for resource in skill["resources"].as_array().unwrap() {
            id += 1;
            let read = result(stateless(
                port,
                id,
                "resources/read",
                json!({"uri": resource["uri"]}),
            ));
            let content = &read["contents"][0];
            assert_eq!(content["uri"], resource["uri"]);
            let bytes = match content["text"].as_str() {
                Some(text) => text.as_bytes().to_vec(),
                None => base64::engine::general_purpose::STANDARD
                    .decode(content["blob"].as_str().unwrap())
                    .unwrap(),
            };
            let digest: String = Sha256::digest(&bytes)
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect();
            assert_eq!(resource["digest"], format!("sha256:{digest}"));
            assert_eq!(resource["size"], bytes.len());
        }
    }
    let guide = &skills[0];
    assert_eq!(guide["frontmatter"]["name"], "conformance-guide");
    assert_eq!(guide["frontmatter"]["metadata"]["author"], "mcp-codegen");
    let skill_md = result(stateless(
        port,
        50,
        "resources/read",
        json!({"uri": guide["uri"]}),
    ));
    assert_eq!(skill_md["contents"][0]["mimeType"], "text/markdown");
    let logo = result(stateless(
        port,
        51,
        "resources/read",
        json!({"uri": "skill://conformance-guide/assets/logo.png"}),
    ));
    assert_eq!(logo["contents"][0]["mimeType"], "image/png");
    assert!(logo["contents"][0]["blob"].is_string());

    // resources/list names each SKILL.md from its frontmatter.
    let resources = result(stateless(port, 52, "resources/list", json!({})));
    let listed = resources["resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["uri"] == "skill://greeting/SKILL.md")
        .expect("SKILL.md in resources/list");
    assert_eq!(listed["name"], "greeting");
    assert_eq!(listed["mimeType"], "text/markdown");

    // Down the folders: the root, a subfolder, and what is no directory.
    let root = result(stateless(
        port,
        60,
        "resources/directory/read",
        json!({"uri": "skill://conformance-guide"}),
    ));
    let children: Vec<(&str, &str)> = root["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["name"].as_str().unwrap(), r["mimeType"].as_str().unwrap()))
        .collect();
    assert_eq!(
        children,
        [
            ("SKILL.md", "text/markdown"),
            ("assets", "inode/directory"),
            ("references", "inode/directory"),
            ("scripts", "inode/directory"),
        ]
    );
    let references = result(stateless(
        port,
        61,
        "resources/directory/read",
        json!({"uri": "skill://conformance-guide/references"}),
    ));
    assert_eq!(
        references["resources"][0]["uri"],
        "skill://conformance-guide/references/TOOLS.md"
    );
    for (n, uri) in [
        "skill://conformance-guide/SKILL.md",
        "skill://conformance-guide/",
        "skill://conformance-guide/nope",
        "skill://conformance-guide/../greeting",
        "skill://unknown",
    ]
    .into_iter()
    .enumerate()
    {
        let answer = stateless(
            port,
            70 + n as u64,
            "resources/directory/read",
            json!({"uri": uri}),
        );
        assert_eq!(error_code(&answer), -32602, "{uri}");
    }
    let unknown = stateless(
        port,
        80,
        "skills/get",
        json!({"uri": "skill://nope/SKILL.md"}),
    );
    assert_eq!(error_code(&unknown), -32602);
    let escape = stateless(
        port,
        81,
        "resources/read",
        json!({"uri": "skill://greeting/../conformance-guide/SKILL.md"}),
    );
    assert_eq!(error_code(&escape), -32602);

    // A session (2025-11-25) sees the same extension and methods.
    let (status, init) = post(
        port,
        &[],
        &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "skills-test", "version": "1"}}}),
    );
    assert_eq!(status, 200);
    assert_eq!(
        init["result"]["capabilities"]["extensions"]["io.modelcontextprotocol/skills"],
        json!({"directoryRead": true})
    );
    let session = {
        // The session id comes back in a header: ask again, reading headers this time.
        let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "skills-test", "version": "1"}}})
        .to_string();
        write!(stream, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}", body.len()).unwrap();
        let mut text = String::new();
        stream.read_to_string(&mut text).unwrap();
        text.lines()
            .find_map(|l| {
                let (name, value) = l.split_once(':')?;
                name.eq_ignore_ascii_case("mcp-session-id")
                    .then(|| value.trim().to_string())
            })
            .expect("a session id")
    };
    let headers = [
        ("Mcp-Session-Id", session.as_str()),
        ("MCP-Protocol-Version", "2025-11-25"),
    ];
    let (status, list) = post(
        port,
        &headers,
        &json!({"jsonrpc": "2.0", "id": 2, "method": "skills/list"}),
    );
    assert_eq!(status, 200, "{list}");
    assert_eq!(list["result"]["skills"].as_array().unwrap().len(), 2);
    assert!(list["result"].get("ttlMs").is_none());
}
