use super::*;

#[test]
fn urls() {
    for url in [
        "http://127.0.0.1:8545",
        "https://mainnet.infura.io/v3/KEY",
        "HTTP://node/rpc/v1?token=x",
        " http://[::1]:1234/rpc/v0 ",
    ] {
        assert!(check_url(url).is_ok(), "{url}");
    }
    for (url, says) in [
        ("ws://127.0.0.1:8546", "not ws://"),
        ("127.0.0.1:8545", "without a scheme"),
        ("unix:///tmp/geth.ipc", "not unix://"),
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
