use super::*;
use std::path::PathBuf;

#[test]
fn urls() {
    for url in [
        "http://127.0.0.1:8545",
        "https://mainnet.infura.io/v3/KEY",
        "HTTP://node/rpc/v1?token=x",
        " http://[::1]:1234/rpc/v0 ",
    ] {
        assert!(matches!(check_url(url), Ok(Endpoint::Http(_))), "{url}");
    }
    for (url, scheme) in [
        ("ws://127.0.0.1:8546", "ws"),
        ("WSS://mainnet.infura.io/ws/v3/KEY", "wss"),
        ("Wss://node:8546", "wss"),
    ] {
        match check_url(url) {
            // The scheme in lower case: a `WSS://` upstream gets TLS.
            Ok(Endpoint::WebSocket(uri)) => assert_eq!(uri.scheme_str(), Some(scheme), "{url}"),
            _ => panic!("{url}"),
        }
    }
    for (url, path) in [
        ("unix:/run/geth.ipc", "/run/geth.ipc"),
        ("unix:///run/geth.ipc", "/run/geth.ipc"),
        ("UNIX:geth.ipc", "geth.ipc"),
    ] {
        match check_url(url) {
            Ok(Endpoint::Unix(got)) => assert_eq!(got, PathBuf::from(path), "{url}"),
            _ => panic!("{url}"),
        }
    }
    for (url, says) in [
        ("ftp://127.0.0.1:8546", "not ftp://"),
        ("127.0.0.1:8545", "without a scheme"),
        ("unix:", "the socket's path"),
        ("http://user:secret@node:8332", "user information"),
        ("http://", "not a URL"),
        ("http://node/#x", "fragment"),
        ("http://no de/", "spaces"),
    ] {
        let why = check_url(url).unwrap_err();
        assert!(why.contains(says), "{url}: {why}");
        assert!(!why.contains("secret"), "{why}");
    }
}

#[test]
fn messages_show_only_the_origin() {
    assert_eq!(
        shown_url("https://user:pw@mainnet.infura.io/v3/KEY?x=1"),
        "https://mainnet.infura.io"
    );
    assert_eq!(shown_url("HTTP://127.0.0.1:8545"), "http://127.0.0.1:8545");
    let mut settings = UpstreamSettings::new("http://node:1/path?key=secret");
    settings.headers.push((
        HeaderName::from_static("authorization"),
        HeaderValue::from_static("Bearer secret"),
    ));
    let debug = format!("{settings:?}");
    assert!(
        !debug.contains("secret") && debug.contains("authorization"),
        "{debug}"
    );
}

#[test]
fn settings_that_cannot_work() {
    let refused = |settings: UpstreamSettings| match Upstream::new(settings) {
        Err(UpstreamError::Config { reason }) => reason,
        Err(other) => panic!("{other}"),
        Ok(_) => panic!("accepted"),
    };
    let mut settings = UpstreamSettings::new("http://127.0.0.1:1");
    settings.max_concurrency = 0;
    assert!(refused(settings).contains("max_concurrency"));
    let mut settings = UpstreamSettings::new("http://127.0.0.1:1");
    settings
        .headers
        .push((CONTENT_LENGTH, HeaderValue::from_static("1")));
    assert!(refused(settings).contains("content-length"));
    let mut settings = UpstreamSettings::new("http://127.0.0.1:1");
    settings.root_certificates.push(b"not a PEM".to_vec());
    assert!(refused(settings).contains("root certificate"));
    assert!(refused(UpstreamSettings::new("ftp://x")).contains("http://"));
    // Made without an async runtime (a binary makes it before starting one).
    assert!(Upstream::new(UpstreamSettings::new("http://127.0.0.1:1")).is_ok());
}

#[test]
fn the_request_body() {
    assert_eq!(
        request_body(3, "Filecoin.ChainHead", Some("[]")),
        r#"{"jsonrpc":"2.0","id":3,"method":"Filecoin.ChainHead","params":[]}"#
    );
    assert_eq!(
        request_body(4, "a\"b", None),
        r#"{"jsonrpc":"2.0","id":4,"method":"a\"b"}"#
    );
}

/// An https upstream is reached through the shared pool's rustls, trusting the roots it
/// is given; one it does not trust fails with a message that says so.
#[tokio::test]
async fn https_through_the_shared_pool() {
    use crate::http_pool::tls::test_server;
    let port = test_server::serve(|_request| async {
        hyper::Response::new(Full::new(Bytes::from_static(
            br#"{"jsonrpc":"2.0","id":1,"result":"0x10"}"#,
        )))
    })
    .await;
    let url = format!("https://localhost:{port}/");
    let mut settings = UpstreamSettings::new(&url);
    settings
        .root_certificates
        .push(test_server::CERTIFICATE.to_vec());
    let upstream = Upstream::new(settings).unwrap();
    assert_eq!(
        upstream.call("eth_blockNumber", None).await.unwrap().get(),
        r#""0x10""#
    );
    let untrusted = Upstream::new(UpstreamSettings::new(&url)).unwrap();
    match untrusted.call("eth_blockNumber", None).await {
        Err(UpstreamError::Connect { reason, .. }) => {
            assert!(reason.contains("certificate was refused"), "{reason}")
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_failure_tells_the_client_its_kind_and_the_log_its_details() {
    let error = UpstreamError::Connect {
        url: "http://10.1.2.3:8545".into(),
        reason: "tcp connect error: Connection refused (os error 111)".into(),
    };
    let (text, log) =
        crate::test_log::with_log(|_| crate::Error::from(error).tool_text().to_owned());
    let id = text
        .split("correlation id ")
        .nth(1)
        .and_then(|rest| rest.split(';').next())
        .unwrap();
    assert!(
        text.starts_with("upstream call failed: could not be reached (correlation id "),
        "{text}"
    );
    assert!(
        !text.contains("10.1.2.3") && !text.contains("os error"),
        "{text}"
    );
    assert_eq!(id.len(), 16, "{text}");
    assert!(log.contains(id) && log.contains("WARN"), "{log}");
    assert!(
        log.contains("10.1.2.3:8545") && log.contains("os error 111"),
        "{log}"
    );
    // A status keeps what a caller acts on, not the body's excerpt.
    let status = UpstreamError::Status {
        url: "http://10.1.2.3:8545".into(),
        status: 429,
        retry_after: Some("7".into()),
        excerpt: "internal note".into(),
    };
    let text = crate::Error::from(status).tool_text().to_owned();
    assert!(
        text.contains("HTTP 429 Too Many Requests (Retry-After: 7)"),
        "{text}"
    );
    assert!(!text.contains("internal note"), "{text}");
}

#[test]
fn the_start_probe_says_whether_the_upstream_is_reachable() {
    let listening = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listening.local_addr().unwrap().port();
    let at = |port: u16| {
        Upstream::new(UpstreamSettings::new(format!("http://127.0.0.1:{port}/"))).unwrap()
    };
    assert_eq!(at(port).probe(Duration::from_secs(1)), Ok(()));
    drop(listening);
    let reason = at(port).probe(Duration::from_secs(1)).unwrap_err();
    assert!(
        reason.starts_with(&format!("connecting to 127.0.0.1:{port}: ")),
        "{reason}"
    );
}

// ---- WebSocket and Unix-socket upstreams (socket.rs) -----------------------------------------

use futures_util::{SinkExt, StreamExt};
use tokio_tungstenite::tungstenite::Message;

/// The `id` of a JSON-RPC request's text.
fn id_of(request: &str) -> u64 {
    let request: serde_json::Value = serde_json::from_str(request).unwrap();
    request["id"].as_u64().unwrap()
}

/// A WebSocket server on 127.0.0.1 whose connections are each served by `serve` (given the
/// socket and the connection's number, from 0): its port, and the `authorization` header of
/// every handshake.
async fn ws_server<F, Fut>(serve: F) -> (u16, Arc<std::sync::Mutex<Vec<String>>>)
where
    F: Fn(tokio_tungstenite::WebSocketStream<tokio::net::TcpStream>, usize) -> Fut
        + Send
        + Sync
        + 'static,
    Fut: std::future::Future<Output = ()> + Send + 'static,
{
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let headers = seen.clone();
    tokio::spawn(async move {
        for n in 0.. {
            let (tcp, _) = listener.accept().await.unwrap();
            let headers = headers.clone();
            // tungstenite's callback type: its error is a whole response.
            #[allow(clippy::result_large_err)]
            let seen = move |request: &http::Request<()>, response| {
                let value = request.headers().get("authorization");
                let value = value.map(|v| v.to_str().unwrap().to_owned());
                headers.lock().unwrap().push(value.unwrap_or_default());
                Ok(response)
            };
            let socket = tokio_tungstenite::accept_hdr_async(tcp, seen)
                .await
                .unwrap();
            tokio::spawn(serve(socket, n));
        }
    });
    (port, seen)
}

fn ws_upstream(port: u16, configure: impl FnOnce(&mut UpstreamSettings)) -> Upstream {
    let mut settings = UpstreamSettings::new(format!("ws://127.0.0.1:{port}"));
    configure(&mut settings);
    Upstream::new(settings).unwrap()
}

/// The pool of `connections` to the WebSocket server at `port`.
fn ws_sockets(port: u16, connections: usize) -> socket::Sockets {
    let uri: Uri = format!("ws://127.0.0.1:{port}").parse().unwrap();
    let address = socket::Address::WebSocket {
        uri,
        host: "127.0.0.1".into(),
        port,
        tls: None,
    };
    socket::Sockets::new(address, HeaderMap::new(), 1 << 20, connections, "ws".into())
}

#[tokio::test]
async fn a_web_socket_multiplexes_calls_and_answers_each_by_its_id() {
    // Reads two requests, then answers the second first.
    let (port, _) = ws_server(|mut socket, _| async move {
        let Some(Ok(Message::Text(first))) = socket.next().await else {
            return;
        };
        let Some(Ok(Message::Text(second))) = socket.next().await else {
            return;
        };
        for request in [second, first] {
            let id = id_of(&request);
            let answer = format!(r#"{{"jsonrpc":"2.0","id":{id},"result":"answer {id}"}}"#);
            socket.send(Message::text(answer)).await.unwrap();
        }
    })
    .await;
    let sockets = ws_sockets(port, 1);
    let body = |id: u64| request_body(id, "m", None);
    let (one, two) = tokio::join!(sockets.exchange(1, body(1)), sockets.exchange(2, body(2)));
    assert!(String::from_utf8_lossy(&one.unwrap()).contains(r#""result":"answer 1""#));
    assert!(String::from_utf8_lossy(&two.unwrap()).contains(r#""result":"answer 2""#));
}

/// Answers every request of a connection with `result`.
async fn answer_all(
    mut socket: tokio_tungstenite::WebSocketStream<tokio::net::TcpStream>,
    result: String,
) {
    while let Some(Ok(Message::Text(request))) = socket.next().await {
        let id = id_of(&request);
        let answer = format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{result}}}"#);
        if socket.send(Message::text(answer)).await.is_err() {
            return;
        }
    }
}

#[tokio::test]
async fn a_web_socket_upstream_sends_the_headers_with_its_handshake() {
    let (port, headers) = ws_server(|socket, _| answer_all(socket, r#""0x10""#.into())).await;
    let upstream = ws_upstream(port, |settings| {
        settings.headers.push((
            http::header::AUTHORIZATION,
            HeaderValue::from_static("Bearer for-the-upstream"),
        ))
    });
    let number: Forwarded<String> = upstream
        .forward_none(
            &RequestContext::new(crate::ProtocolVersion::V2025_11_25),
            "eth_blockNumber",
        )
        .await
        .unwrap();
    assert!(matches!(number, Forwarded::Raw(raw) if raw.get() == r#""0x10""#));
    assert_eq!(*headers.lock().unwrap(), ["Bearer for-the-upstream"]);
}

#[tokio::test]
async fn a_dropped_connection_fails_its_calls_at_once_and_the_next_call_reconnects() {
    // The first connection reads a request and closes without answering; the next answer.
    let (port, _) = ws_server(|mut socket, n| async move {
        if n == 0 {
            let _ = socket.next().await;
            return;
        }
        answer_all(socket, "true".into()).await
    })
    .await;
    let upstream = ws_upstream(port, |settings| {
        settings.max_concurrency = 1;
        settings.timeout = Duration::from_secs(20);
    });
    let started = Instant::now();
    let error = upstream.call("m", None).await.unwrap_err();
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "it waited for the timeout"
    );
    assert_eq!(error.kind(), "connect", "{error}");
    assert!(
        error.to_string().contains("closed before the answer"),
        "{error}"
    );
    assert_eq!(upstream.call("m", None).await.unwrap().get(), "true");
}

#[tokio::test]
async fn a_message_over_the_limit_fails_its_call_and_the_connection_only() {
    let (port, _) = ws_server(|socket, n| {
        let result = match n {
            0 => format!("\"{}\"", "x".repeat(4000)),
            _ => "1".into(),
        };
        answer_all(socket, result)
    })
    .await;
    let upstream = ws_upstream(port, |settings| {
        settings.max_concurrency = 1;
        settings.max_response_bytes = 1000;
    });
    match upstream.call("big", None).await {
        Err(UpstreamError::TooLarge { limit: 1000, .. }) => {}
        other => panic!("{other:?}"),
    }
    assert_eq!(upstream.call("small", None).await.unwrap().get(), "1");
}

#[tokio::test]
async fn a_call_that_times_out_leaves_the_connection_usable() {
    // Answers a request named "slow" after 500 ms, the others at once.
    let (port, _) = ws_server(|socket, _| async move {
        let (sink, mut requests) = socket.split();
        let sink = Arc::new(tokio::sync::Mutex::new(sink));
        while let Some(Ok(Message::Text(request))) = requests.next().await {
            let (id, sink) = (id_of(&request), sink.clone());
            let slow = request.contains(r#""slow""#);
            tokio::spawn(async move {
                if slow {
                    tokio::time::sleep(Duration::from_millis(500)).await;
                }
                let answer = format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{id}}}"#);
                let _ = sink.lock().await.send(Message::text(answer)).await;
            });
        }
    })
    .await;
    let upstream = ws_upstream(port, |settings| {
        settings.max_concurrency = 1;
        settings.timeout = Duration::from_millis(200);
    });
    assert_eq!(
        upstream.call("slow", None).await.unwrap_err().kind(),
        "timeout"
    );
    // Its late answer (id 1) is dropped; the next call gets its own.
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert_eq!(upstream.call("fast", None).await.unwrap().get(), "2");
}

#[tokio::test]
async fn a_wss_upstream_is_trusted_as_an_https_one() {
    let acceptor = crate::http_pool::tls::test_server::acceptor();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        loop {
            let (tcp, _) = listener.accept().await.unwrap();
            let acceptor = acceptor.clone();
            tokio::spawn(async move {
                let Ok(tls) = acceptor.accept(tcp).await else {
                    return;
                };
                let mut socket = tokio_tungstenite::accept_async(tls).await.unwrap();
                while let Some(Ok(Message::Text(request))) = socket.next().await {
                    let id = id_of(&request);
                    let answer = format!(r#"{{"jsonrpc":"2.0","id":{id},"result":"tls"}}"#);
                    socket.send(Message::text(answer)).await.unwrap();
                }
            });
        }
    });
    let mut settings = UpstreamSettings::new(format!("wss://localhost:{port}/"));
    settings.root_certificates = vec![crate::http_pool::tls::test_server::CERTIFICATE.to_vec()];
    let trusted = Upstream::new(settings).unwrap();
    assert_eq!(trusted.call("m", None).await.unwrap().get(), r#""tls""#);
    let untrusted =
        Upstream::new(UpstreamSettings::new(format!("wss://localhost:{port}/"))).unwrap();
    let error = untrusted.call("m", None).await.unwrap_err();
    assert!(error.to_string().contains("--upstream-ca"), "{error}");
}

#[tokio::test]
async fn a_unix_socket_upstream_reads_values_however_they_are_cut() {
    let directory = tempfile::tempdir().unwrap();
    let path = directory.path().join("node.ipc");
    let listener = tokio::net::UnixListener::bind(&path).unwrap();
    tokio::spawn(async move {
        use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
        let _probe = listener.accept().await.unwrap();
        let (stream, _) = listener.accept().await.unwrap();
        let (reading, mut writing) = stream.into_split();
        let mut lines = tokio::io::BufReader::new(reading).lines();
        // Two requests, each on its line.
        let first = lines.next_line().await.unwrap().unwrap();
        let second = lines.next_line().await.unwrap().unwrap();
        let (a, b) = (id_of(&first), id_of(&second));
        // Their answers back to back, with braces and quotes in strings, cut anywhere.
        let answers = format!(
            r#"{{"jsonrpc":"2.0","id":{b},"result":"}}\"{{"}}  {{"jsonrpc":"2.0","id":{a},"result":[{{"x":"]"}}]}}"#
        );
        for part in answers.as_bytes().chunks(7) {
            writing.write_all(part).await.unwrap();
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        let _ = lines.next_line().await;
    });
    let upstream =
        Upstream::new(UpstreamSettings::new(format!("unix:{}", path.display()))).unwrap();
    assert_eq!(upstream.origin(), format!("unix:{}", path.display()));
    // (The probe's connection, accepted and closed, is the server's first.)
    assert_eq!(upstream.probe(Duration::from_secs(1)), Ok(()));
    let sockets = socket::Sockets::new(
        socket::Address::Unix(path),
        HeaderMap::new(),
        1 << 20,
        1,
        "unix".into(),
    );
    let body = |id: u64, method| request_body(id, method, None);
    let (one, two) = tokio::join!(
        sockets.exchange(1, body(1, "a")),
        sockets.exchange(2, body(2, "b"))
    );
    let (one, two) = (one.unwrap(), two.unwrap());
    let result = |message: &[u8], id| match response::read(message, id) {
        Answer::Result(result) => result.get().to_owned(),
        _ => panic!("{}", String::from_utf8_lossy(message)),
    };
    assert_eq!(result(&one, 1), r#"[{"x":"]"}]"#);
    assert_eq!(result(&two, 2), r#""}\"{""#);
}

#[tokio::test]
async fn a_connection_that_cannot_be_opened_is_tried_again_after_a_backoff() {
    let directory = tempfile::tempdir().unwrap();
    let path = directory.path().join("absent.ipc");
    let upstream =
        Upstream::new(UpstreamSettings::new(format!("unix:{}", path.display()))).unwrap();
    assert!(upstream.probe(Duration::from_secs(1)).is_err());
    let first = upstream.call("m", None).await.unwrap_err().to_string();
    assert!(
        first.contains("connecting to") && !first.contains("next attempt"),
        "{first}"
    );
    let second = upstream.call("m", None).await.unwrap_err().to_string();
    assert!(second.contains("next attempt in"), "{second}");
}

#[test]
fn socket_settings_that_cannot_work() {
    let header =
        |name: &'static str| (HeaderName::from_static(name), HeaderValue::from_static("x"));
    let mut settings = UpstreamSettings::new("unix:/run/geth.ipc");
    settings.headers.push(header("authorization"));
    assert!(
        matches!(Upstream::new(settings), Err(UpstreamError::Config { reason }) if reason.contains("no headers"))
    );
    let mut settings = UpstreamSettings::new("ws://127.0.0.1:8546");
    settings.headers.push(header("sec-websocket-key"));
    assert!(
        matches!(Upstream::new(settings), Err(UpstreamError::Config { reason }) if reason.contains("handshake"))
    );
}

#[test]
fn the_splitter_finds_each_value_of_a_stream() {
    let cut = |stream: &str| {
        let (mut splitter, mut rest, mut values) =
            (socket::Splitter::default(), stream.as_bytes(), Vec::new());
        while let Some(end) = splitter.next(rest) {
            values.push(std::str::from_utf8(&rest[..end]).unwrap().trim().to_owned());
            rest = &rest[end..];
        }
        (values, std::str::from_utf8(rest).unwrap().to_owned())
    };
    assert_eq!(cut(r#"{"a":1}{"b":[2]}"#).0, [r#"{"a":1}"#, r#"{"b":[2]}"#]);
    assert_eq!(
        cut("{\"a\":\"}\\\"\"}\n[1]\n").0,
        ["{\"a\":\"}\\\"\"}", "[1]"]
    );
    // A value not whole yet waits; a bare word is passed on for its reader to refuse.
    assert_eq!(cut(r#"{"a":{"#), (vec![], r#"{"a":{"#.to_owned()));
    assert_eq!(cut("oops {}").0, ["oops", "{}"]);
    // A stray closing bracket at the top does not underflow.
    assert_eq!(cut("]{}").0.last().unwrap(), "{}");
}

// ---- The token exchange (RFC 8693) -----------------------------------------------------------

/// A plain-HTTP server on 127.0.0.1 answering each request with `handler`; its port.
async fn http_server<F, Fut>(handler: F) -> u16
where
    F: Fn(hyper::Request<hyper::body::Incoming>) -> Fut + Clone + Send + Sync + 'static,
    Fut: std::future::Future<Output = hyper::Response<Full<Bytes>>> + Send + 'static,
{
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        loop {
            let (tcp, _) = listener.accept().await.unwrap();
            let handler = handler.clone();
            tokio::spawn(async move {
                let service = hyper::service::service_fn(move |request| {
                    let response = handler(request);
                    async move { Ok::<_, std::convert::Infallible>(response.await) }
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(hyper_util::rt::TokioIo::new(tcp), service)
                    .await;
            });
        }
    });
    port
}

fn json_response(status: u16, body: String) -> hyper::Response<Full<Bytes>> {
    hyper::Response::builder()
        .status(status)
        .header("content-type", "application/json")
        .body(Full::new(Bytes::from(body)))
        .unwrap()
}

/// An authorization server whose token endpoint exchanges `tok-X` for `up-X-N` (N counts the
/// exchanges), valid `expires_in` seconds (from the subject token `tok-X-ttlS`, else 600),
/// refuses `tok-refused` with `invalid_grant`; every form it got, decoded.
async fn token_endpoint() -> (String, Arc<std::sync::Mutex<Vec<Vec<(String, String)>>>>) {
    let forms = Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = forms.clone();
    let port = http_server(move |request: hyper::Request<hyper::body::Incoming>| {
        let seen = seen.clone();
        async move {
            let basic = request
                .headers()
                .get("authorization")
                .map(|v| v.to_str().unwrap().to_owned());
            let body = request.into_body().collect().await.unwrap().to_bytes();
            let form: Vec<(String, String)> = form_urlencoded::parse(&body).into_owned().collect();
            let count = {
                let mut forms = seen.lock().unwrap();
                forms.push(form.clone());
                forms.len()
            };
            // client_secret_basic, each part form-encoded: "gw:s3cret&:"
            if basic.as_deref() != Some("Basic Z3c6czNjcmV0JTI2JTNB") {
                return json_response(401, r#"{"error":"invalid_client"}"#.into());
            }
            let subject = form
                .iter()
                .find(|(name, _)| name == "subject_token")
                .map(|(_, value)| value.clone())
                .unwrap_or_default();
            if subject == "tok-refused" {
                return json_response(
                    400,
                    r#"{"error":"invalid_grant","error_description":"this token may not be exchanged"}"#.into(),
                );
            }
            let ttl = subject
                .rsplit_once("-ttl")
                .map_or(600, |(_, ttl)| ttl.parse::<u64>().unwrap());
            let issued = format!("up-{}-{count}", subject.trim_start_matches("tok-"));
            json_response(
                200,
                serde_json::json!({
                    "access_token": issued,
                    "issued_token_type": "urn:ietf:params:oauth:token-type:access_token",
                    "token_type": "Bearer",
                    "expires_in": ttl,
                })
                .to_string(),
            )
        }
    })
    .await;
    (format!("http://127.0.0.1:{port}/token"), forms)
}

/// A JSON-RPC upstream that answers each call with the `Authorization` it got, and 401 to
/// `up-revoked-*` tokens.
async fn echo_authorization() -> String {
    let port = http_server(
        |request: hyper::Request<hyper::body::Incoming>| async move {
            let authorization = request
                .headers()
                .get("authorization")
                .map(|v| v.to_str().unwrap().to_owned());
            let body = request.into_body().collect().await.unwrap().to_bytes();
            let id = id_of(std::str::from_utf8(&body).unwrap());
            if authorization
                .as_deref()
                .is_some_and(|a| a.starts_with("Bearer up-revoked"))
            {
                return json_response(401, r#"{"error":"invalid_token"}"#.into());
            }
            json_response(
                200,
                serde_json::json!({"jsonrpc": "2.0", "id": id, "result": authorization})
                    .to_string(),
            )
        },
    )
    .await;
    format!("http://127.0.0.1:{port}/")
}

fn exchanging(upstream: &str, token_endpoint: &str) -> Upstream {
    let mut settings = UpstreamSettings::new(upstream);
    let mut exchange = TokenExchange::new(token_endpoint, "gw", "s3cret&:");
    exchange.audience = Some("https://node.example".into());
    exchange.scope = Some("eth read".into());
    settings.token_exchange = Some(exchange);
    Upstream::new(settings).unwrap()
}

fn caller(subject: &str, token: Option<&str>) -> RequestContext {
    let mut principal = crate::auth::Principal::new(subject, Vec::new());
    if let Some(token) = token {
        principal = principal.keeping_access_token(token);
    }
    RequestContext::new(crate::ProtocolVersion::V2025_11_25)
        .with_principal(Some(Arc::new(principal)))
}

async fn authorization_sent(
    upstream: &Upstream,
    caller: &RequestContext,
) -> Result<String, UpstreamError> {
    let raw = upstream.call_text(Some(caller), "who", Some("[]")).await?;
    Ok(serde_json::from_str::<String>(raw.get()).unwrap())
}

#[tokio::test]
async fn each_callers_token_is_exchanged_once_and_its_issued_token_sent() {
    let (endpoint, forms) = token_endpoint().await;
    let upstream = exchanging(&echo_authorization().await, &endpoint);
    let (alice, bob) = (
        caller("alice", Some("tok-alice")),
        caller("bob", Some("tok-bob")),
    );
    // A hundred calls each, at once: one exchange per caller (the others wait for it).
    let calls = (0..100)
        .flat_map(|_| [&alice, &bob])
        .map(|c| authorization_sent(&upstream, c));
    let sent = futures_util::future::join_all(calls).await;
    assert_eq!(
        forms.lock().unwrap().len(),
        2,
        "{:?}",
        forms.lock().unwrap()
    );
    for (i, sent) in sent.into_iter().enumerate() {
        let sent = sent.unwrap();
        let who = if i % 2 == 0 { "alice" } else { "bob" };
        assert!(sent.starts_with(&format!("Bearer up-{who}-")), "{sent}");
    }
    // The form RFC 8693 §2.1 describes, the caller's token as the subject.
    let form = forms.lock().unwrap()[0].clone();
    let value = |name: &str| {
        form.iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    };
    assert_eq!(
        value("grant_type"),
        Some("urn:ietf:params:oauth:grant-type:token-exchange")
    );
    assert!(matches!(
        value("subject_token"),
        Some("tok-alice" | "tok-bob")
    ));
    assert_eq!(
        value("subject_token_type"),
        Some("urn:ietf:params:oauth:token-type:access_token")
    );
    assert_eq!(value("audience"), Some("https://node.example"));
    assert_eq!(value("scope"), Some("eth read"));
    assert_eq!(value("resource"), None);
}

#[tokio::test]
async fn an_issued_token_is_renewed_before_it_expires_and_after_the_upstream_refuses_it() {
    let (endpoint, forms) = token_endpoint().await;
    let upstream = exchanging(&echo_authorization().await, &endpoint);
    let exchanges = || forms.lock().unwrap().len();
    // Good for 1 s: reused for 0.9 s, then exchanged again.
    let carol = caller("carol", Some("tok-carol-ttl1"));
    assert_eq!(
        authorization_sent(&upstream, &carol).await.unwrap(),
        "Bearer up-carol-ttl1-1"
    );
    assert_eq!(
        authorization_sent(&upstream, &carol).await.unwrap(),
        "Bearer up-carol-ttl1-1"
    );
    tokio::time::sleep(Duration::from_millis(950)).await;
    assert_eq!(
        authorization_sent(&upstream, &carol).await.unwrap(),
        "Bearer up-carol-ttl1-2"
    );
    assert_eq!(exchanges(), 2);
    // The upstream refuses the issued token (401): the call fails, the next exchanges again.
    let dave = caller("dave", Some("tok-revoked"));
    match authorization_sent(&upstream, &dave).await {
        Err(UpstreamError::Status { status: 401, .. }) => {}
        other => panic!("{other:?}"),
    }
    let _ = authorization_sent(&upstream, &dave).await;
    assert_eq!(exchanges(), 4);
}

#[tokio::test]
async fn a_refused_exchange_is_a_clear_error_and_nothing_reaches_the_upstream() {
    let (endpoint, forms) = token_endpoint().await;
    let upstream = exchanging(&echo_authorization().await, &endpoint);
    let erin = caller("erin", Some("tok-refused"));
    let error = authorization_sent(&upstream, &erin).await.unwrap_err();
    match &error {
        UpstreamError::TokenExchange {
            error: Some(code),
            reason,
            ..
        } => {
            assert_eq!(code, "invalid_grant");
            assert!(reason.contains("may not be exchanged"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
    // What the client sees: the OAuth code; the description stays in the log.
    let text = Error::from(error).tool_text().to_owned();
    assert!(
        text.contains("refused to exchange the caller's token for the upstream's (invalid_grant)")
            && !text.contains("may not be exchanged"),
        "{text}"
    );
    // Remembered for a moment: a burst costs one request to the authorization server.
    let _ = authorization_sent(&upstream, &erin).await.unwrap_err();
    assert_eq!(forms.lock().unwrap().len(), 1);
    // No token kept, no caller: refused before anything is asked or sent.
    for (who, says) in [
        (caller("frank", None), "was not kept"),
        (
            RequestContext::new(crate::ProtocolVersion::V2025_11_25),
            "no verified caller",
        ),
    ] {
        match authorization_sent(&upstream, &who).await {
            Err(UpstreamError::Identity { reason }) => assert!(reason.contains(says), "{reason}"),
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(forms.lock().unwrap().len(), 1);
    // An authorization server that cannot be reached: a clear error, no OAuth code.
    let upstream = exchanging(&echo_authorization().await, "http://127.0.0.1:1/token");
    match authorization_sent(&upstream, &caller("gina", Some("tok-gina"))).await {
        Err(UpstreamError::TokenExchange {
            error: None,
            reason,
            ..
        }) => {
            assert!(reason.contains("could not be reached"), "{reason}")
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn token_exchange_settings_that_cannot_work() {
    let refused = |url: &str, change: &dyn Fn(&mut UpstreamSettings, &mut TokenExchange)| {
        let mut settings = UpstreamSettings::new(url);
        let mut exchange = TokenExchange::new("https://as.example/token", "gw", "secret");
        exchange.resource = Some("https://node.example".into());
        change(&mut settings, &mut exchange);
        settings.token_exchange = Some(exchange);
        match Upstream::new(settings) {
            Err(UpstreamError::Config { reason }) => reason,
            other => panic!("{other:?}"),
        }
    };
    let none = |_: &mut UpstreamSettings, _: &mut TokenExchange| {};
    assert!(refused("ws://127.0.0.1:1", &none).contains("http:// or https://"));
    assert!(refused("unix:/tmp/x.ipc", &none).contains("http:// or https://"));
    let fixed = |s: &mut UpstreamSettings, _: &mut TokenExchange| {
        s.headers
            .push((AUTHORIZATION, HeaderValue::from_static("Bearer x")))
    };
    assert!(refused("http://127.0.0.1:1", &fixed).contains("Authorization"));
    let plain = |_: &mut UpstreamSettings, e: &mut TokenExchange| {
        e.token_endpoint = "http://as.example/token".into()
    };
    assert!(refused("http://127.0.0.1:1", &plain).contains("https"));
    let aimless = |_: &mut UpstreamSettings, e: &mut TokenExchange| e.resource = None;
    assert!(refused("http://127.0.0.1:1", &aimless).contains("audience or resource"));
    let nameless = |_: &mut UpstreamSettings, e: &mut TokenExchange| e.client_id.clear();
    assert!(refused("http://127.0.0.1:1", &nameless).contains("client id"));
    // The secret is in no message and no Debug.
    let mut settings = UpstreamSettings::new("http://127.0.0.1:1");
    settings.token_exchange = Some(TokenExchange::new("https://as/token", "gw", "hunter2"));
    assert!(!format!("{settings:?}").contains("hunter2"));
}

// ---- Subscriptions ---------------------------------------------------------------------------

/// What the fake node of [`subscribing_node`] is told to do to every connection.
#[derive(Clone, Debug)]
enum NodeCommand {
    /// A block: a notification to every subscription.
    Mine(u64),
    /// Close every connection.
    Kill,
}

/// What the fake node saw: each subscription request's method and params, each
/// unsubscription's params.
#[derive(Default)]
struct NodeLog {
    subscribed: Vec<String>,
    unsubscribed: Vec<String>,
}

/// A node on a WebSocket: `eth_subscribe(["newHeads"])` answers `"0xN"`, and its
/// notifications are `eth_subscription` with `params.subscription`;
/// `starknet_subscribeNewHeads` answers the number N, sends the current head at once, and its
/// notifications are `starknet_subscriptionNewHeads` with `params.subscription_id`;
/// `eth_subscribe(["bogus"])` is refused; the unsubscriptions, and any other call, answer
/// `true`. Every
/// notification's result is `{"number": BLOCK}`.
async fn subscribing_node() -> (
    u16,
    tokio::sync::broadcast::Sender<NodeCommand>,
    Arc<std::sync::Mutex<NodeLog>>,
) {
    let (commands, _) = tokio::sync::broadcast::channel(64);
    let log = Arc::new(std::sync::Mutex::new(NodeLog::default()));
    let next = Arc::new(std::sync::atomic::AtomicU64::new(1));
    let (sender, node_log) = (commands.clone(), log.clone());
    let (port, _) = ws_server(move |mut socket, _| {
        let mut commands = sender.subscribe();
        let (log, next) = (node_log.clone(), next.clone());
        async move {
            // This connection's subscriptions: (id as JSON, notification method, id member).
            let mut held: Vec<(String, &str, &str)> = Vec::new();
            loop {
                tokio::select! {
                    command = commands.recv() => match command {
                        Ok(NodeCommand::Mine(block)) => {
                            for (id, method, member) in &held {
                                let note = format!(r#"{{"jsonrpc":"2.0","method":"{method}","params":{{"{member}":{id},"result":{{"number":{block}}}}}}}"#);
                                if socket.send(Message::text(note)).await.is_err() {
                                    return;
                                }
                            }
                        }
                        Ok(NodeCommand::Kill) | Err(_) => return,
                    },
                    request = socket.next() => {
                        let Some(Ok(Message::Text(request))) = request else { return };
                        let request: serde_json::Value = serde_json::from_str(&request).unwrap();
                        let (id, method) = (request["id"].clone(), request["method"].as_str().unwrap().to_owned());
                        let params = request["params"].to_string();
                        let n = next.fetch_add(1, Ordering::SeqCst);
                        let (answer, first) = match method.as_str() {
                            "eth_subscribe" if params == r#"["bogus"]"# => (
                                format!(r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":-32602,"message":"unknown subscription"}}}}"#),
                                None,
                            ),
                            "eth_subscribe" => {
                                log.lock().unwrap().subscribed.push(format!("{method} {params}"));
                                held.push((format!(r#""0x{n:x}""#), "eth_subscription", "subscription"));
                                (format!(r#"{{"jsonrpc":"2.0","id":{id},"result":"0x{n:x}"}}"#), None)
                            }
                            "starknet_subscribeNewHeads" => {
                                log.lock().unwrap().subscribed.push(format!("{method} {params}"));
                                held.push((n.to_string(), "starknet_subscriptionNewHeads", "subscription_id"));
                                let head = format!(r#"{{"jsonrpc":"2.0","method":"starknet_subscriptionNewHeads","params":{{"subscription_id":{n},"result":{{"number":0}}}}}}"#);
                                (format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{n}}}"#), Some(head))
                            }
                            "eth_unsubscribe" | "starknet_unsubscribe" => {
                                log.lock().unwrap().unsubscribed.push(format!("{method} {params}"));
                                let gone = request["params"][0].to_string();
                                let gone_by_name = request["params"]["subscription_id"].to_string();
                                held.retain(|(held, _, _)| *held != gone && *held != gone_by_name);
                                (format!(r#"{{"jsonrpc":"2.0","id":{id},"result":true}}"#), None)
                            }
                            _ => (format!(r#"{{"jsonrpc":"2.0","id":{id},"result":true}}"#), None),
                        };
                        // The answer and the first notification in one go: it must not be lost.
                        for message in std::iter::once(answer).chain(first) {
                            if socket.send(Message::text(message)).await.is_err() {
                                return;
                            }
                        }
                    }
                }
            }
        }
    })
    .await;
    (port, commands, log)
}

const ETH: SubscriptionMethods =
    SubscriptionMethods::positional("eth_subscribe", "eth_unsubscribe");

fn raw(text: &str) -> Box<RawValue> {
    RawValue::from_string(text.to_owned()).unwrap()
}

/// The next event of `subscription`, within 5 s.
async fn next_event(subscription: &mut UpstreamSubscription) -> Option<SubscriptionEvent> {
    tokio::time::timeout(Duration::from_secs(5), subscription.next())
        .await
        .expect("no event within 5 s")
}

async fn next_block(subscription: &mut UpstreamSubscription) -> u64 {
    match next_event(subscription).await {
        Some(SubscriptionEvent::Notification(result)) => {
            serde_json::from_str::<serde_json::Value>(result.get()).unwrap()["number"]
                .as_u64()
                .unwrap()
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn each_subscription_gets_its_notifications_and_dropping_it_unsubscribes() {
    let (port, node, log) = subscribing_node().await;
    let upstream = ws_upstream(port, |settings| settings.max_concurrency = 2);
    let new_heads = raw(r#"["newHeads"]"#);
    let mut one = upstream.subscribe(&ETH, Some(&new_heads)).await.unwrap();
    let mut two = upstream.subscribe(&ETH, Some(&new_heads)).await.unwrap();
    // Calls share the connections with them.
    assert_eq!(
        upstream.call("eth_chainId", None).await.unwrap().get(),
        "true"
    );
    for block in 1..=3 {
        node.send(NodeCommand::Mine(block)).unwrap();
        assert_eq!(next_block(&mut one).await, block);
        assert_eq!(next_block(&mut two).await, block);
    }
    drop(one);
    let deadline = Instant::now() + Duration::from_secs(5);
    while log.lock().unwrap().unsubscribed.is_empty() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(
        log.lock().unwrap().unsubscribed,
        [r#"eth_unsubscribe ["0x1"]"#]
    );
    node.send(NodeCommand::Mine(4)).unwrap();
    assert_eq!(next_block(&mut two).await, 4);
    // A subscription the node refuses is the error of `subscribe`; HTTP cannot carry one.
    match upstream.subscribe(&ETH, Some(&raw(r#"["bogus"]"#))).await {
        Err(UpstreamError::Rpc { code: -32602, .. }) => {}
        other => panic!("{other:?}"),
    }
    let http = Upstream::new(UpstreamSettings::new("http://127.0.0.1:1")).unwrap();
    match http.subscribe(&ETH, Some(&new_heads)).await {
        Err(UpstreamError::Config { reason }) => assert!(reason.contains("ws://"), "{reason}"),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn a_subscription_is_opened_again_after_its_connection_is_lost() {
    let (port, node, log) = subscribing_node().await;
    let upstream = ws_upstream(port, |_| {});
    let mut heads = upstream
        .subscribe(&ETH, Some(&raw(r#"["newHeads"]"#)))
        .await
        .unwrap();
    node.send(NodeCommand::Mine(1)).unwrap();
    assert_eq!(next_block(&mut heads).await, 1);
    node.send(NodeCommand::Kill).unwrap();
    assert!(matches!(
        next_event(&mut heads).await,
        Some(SubscriptionEvent::Reopened)
    ));
    // Under the node's new id.
    node.send(NodeCommand::Mine(2)).unwrap();
    assert_eq!(next_block(&mut heads).await, 2);
    assert_eq!(
        log.lock().unwrap().subscribed,
        [
            r#"eth_subscribe ["newHeads"]"#,
            r#"eth_subscribe ["newHeads"]"#
        ]
    );
}

#[tokio::test]
async fn starknet_subscriptions_name_their_id_in_another_member_and_close_by_name() {
    let (port, node, log) = subscribing_node().await;
    let upstream = ws_upstream(port, |_| {});
    let starknet = SubscriptionMethods::by_name(
        "starknet_subscribeNewHeads",
        "starknet_unsubscribe",
        "subscription_id",
    );
    let mut heads = upstream.subscribe(&starknet, None).await.unwrap();
    // The head sent right behind the answer is not lost.
    assert_eq!(next_block(&mut heads).await, 0);
    node.send(NodeCommand::Mine(5)).unwrap();
    assert_eq!(next_block(&mut heads).await, 5);
    // Closed and answered before `close` returns.
    heads.close().await.unwrap();
    assert_eq!(
        log.lock().unwrap().unsubscribed,
        [r#"starknet_unsubscribe {"subscription_id":1}"#]
    );
}

#[tokio::test]
async fn an_answer_with_a_string_id_or_a_null_id_error_ends_its_calls_at_once() {
    // Echoes ids as strings.
    let (strings, _) = ws_server(|mut socket, _| async move {
        while let Some(Ok(Message::Text(request))) = socket.next().await {
            let id = id_of(&request);
            let answer = format!(r#"{{"jsonrpc":"2.0","id":"{id}","result":1}}"#);
            let _ = socket.send(Message::text(answer)).await;
        }
    })
    .await;
    let upstream = ws_upstream(strings, |settings| {
        settings.timeout = Duration::from_secs(20)
    });
    let started = Instant::now();
    match upstream.call("m", None).await {
        Err(UpstreamError::WrongId { expected, got, .. }) => {
            assert_eq!(got, format!("\"{expected}\""))
        }
        other => panic!("{other:?}"),
    }
    // Answers two requests with one error whose id is null: both calls get it.
    let (nulls, _) = ws_server(|mut socket, _| async move {
        let _ = socket.next().await;
        let _ = socket.next().await;
        let error =
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#;
        let _ = socket.send(Message::text(error)).await;
        let _ = socket.next().await;
    })
    .await;
    let sockets = ws_sockets(nulls, 1);
    let body = |id: u64| request_body(id, "m", None);
    let (one, two) = tokio::join!(sockets.exchange(1, body(1)), sockets.exchange(2, body(2)));
    for answer in [one, two] {
        assert!(String::from_utf8_lossy(&answer.unwrap()).contains("Parse error"));
    }
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "a call waited for its timeout"
    );
}
