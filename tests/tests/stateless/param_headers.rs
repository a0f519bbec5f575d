//! `Mcp-Param-*` headers (`x-mcp-header`): the Base64 form, numeric comparison of integers,
//! case-insensitive names; malformed, mismatched, missing, unexpected or non-ASCII headers are
//! HTTP 400 `-32020`.

use http::StatusCode;
use serde_json::json;

use crate::call_tool;
use crate::support::start;
use crate::support::stateless::{raw_text_tool_call, raw_tool_call};
use mcp_runtime::Config;

#[tokio::test]
async fn base64_param_headers_are_decoded() {
    let server = start(Config::default()).await;
    for (id, header, region) in [
        (51, "=?base64?SGVsbG8=?=", "Hello"),
        (52, "Hello", "Hello"),
        (53, "=?base64?SGVsbG8sIOS4lueVjA==?=", "Hello, 世界"),
        (54, "=?base64?IHBhZGRlZCA=?=", " padded "),
    ] {
        let answer = call_tool(
            server.addr,
            id,
            "region_echo",
            json!({"region": region}),
            &[("mcp-param-region", header)],
        )
        .await;
        assert_eq!(answer.tool_text(), region, "{header}");
    }
}

#[tokio::test]
async fn bad_param_headers_are_header_mismatch() {
    let server = start(Config::default()).await;
    for (id, header) in [
        (61, "=?base64?SGVsbG8?="),     // bad padding
        (62, "=?base64?SGVs!!!bG8=?="), // invalid characters
        (63, "=?base64?/w==?="),        // not UTF-8
        (64, "World"),                  // mismatch
        (65, "hello"),                  // values are case-sensitive
        (66, "=?base64?V29ybGQ=?="),    // a mismatch once decoded
    ] {
        let answer = call_tool(
            server.addr,
            id,
            "region_echo",
            json!({"region": "Hello"}),
            &[("mcp-param-region", header)],
        )
        .await;
        answer.error(StatusCode::BAD_REQUEST, -32020);
    }
}

#[tokio::test]
async fn a_missing_param_header_is_header_mismatch() {
    let server = start(Config::default()).await;
    let answer = call_tool(
        server.addr,
        71,
        "region_echo",
        json!({"region": "Hello"}),
        &[],
    )
    .await;
    let error = answer.error(StatusCode::BAD_REQUEST, -32020);
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("mcp-param-region"),
        "{error}"
    );
}

#[tokio::test]
async fn integer_param_headers_compare_numerically() {
    let server = start(Config::default()).await;
    for (id, header) in [
        (81, "10"),
        (82, "10.0"),
        (83, " 10 "),
        (84, "=?base64?MTA=?="),
    ] {
        let answer = call_tool(
            server.addr,
            id,
            "limit_echo",
            json!({"limit": 10}),
            &[("mcp-param-limit", header)],
        )
        .await;
        assert_eq!(answer.tool_text(), "limit=Some(10)", "{header:?}");
    }
    for (id, header) in [(85, "11"), (86, "ten"), (87, "")] {
        let answer = call_tool(
            server.addr,
            id,
            "limit_echo",
            json!({"limit": 10}),
            &[("mcp-param-limit", header)],
        )
        .await;
        answer.error(StatusCode::BAD_REQUEST, -32020);
    }
}

#[tokio::test]
async fn absent_or_null_arguments_need_no_header_and_must_not_have_one() {
    let server = start(Config::default()).await;
    let absent = call_tool(server.addr, 91, "limit_echo", json!({}), &[]).await;
    assert_eq!(absent.tool_text(), "limit=None");
    let null = call_tool(server.addr, 92, "limit_echo", json!({"limit": null}), &[]).await;
    assert_eq!(null.tool_text(), "limit=None");
    let unexpected = call_tool(
        server.addr,
        93,
        "limit_echo",
        json!({}),
        &[("mcp-param-limit", "10")],
    )
    .await;
    unexpected.error(StatusCode::BAD_REQUEST, -32020);
}

#[tokio::test]
async fn param_header_names_are_case_insensitive() {
    let server = start(Config::default()).await;
    for (id, header) in [
        (101, &b"MCP-PARAM-REGION: Hello"[..]),
        (102, &b"Mcp-Param-Region: Hello"[..]),
        (103, &b"mcp-param-region: Hello"[..]),
    ] {
        let (status, response) = raw_tool_call(
            server.addr,
            id,
            "region_echo",
            json!({"region": "Hello"}),
            &[header],
        )
        .await;
        assert_eq!(status, StatusCode::OK, "{response}");
        assert_eq!(response["result"]["content"][0]["text"], json!("Hello"));
    }
    // A wrong value under an upper-case name is still checked.
    let (status, response) = raw_tool_call(
        server.addr,
        104,
        "region_echo",
        json!({"region": "Hello"}),
        &[b"MCP-PARAM-REGION: World"],
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(
        (response["id"].clone(), response["error"]["code"].clone()),
        (json!(104), json!(-32020))
    );
}

#[tokio::test]
async fn non_ascii_param_header_bytes_are_header_mismatch() {
    let server = start(Config::default()).await;
    // "Héllo" as raw UTF-8 bytes: such a value must travel in the Base64 form.
    let (status, response) = raw_tool_call(
        server.addr,
        111,
        "region_echo",
        json!({"region": "Héllo"}),
        &[b"Mcp-Param-Region: H\xc3\xa9llo"],
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(
        (response["id"].clone(), response["error"]["code"].clone()),
        (json!(111), json!(-32020))
    );
}

/// Arguments the header check cannot read as a value are refused, not waved through: the
/// handler's decode skips an unknown member it need not read (`1e400`, deep nesting), and
/// the mirrored argument would then go unchecked.
#[tokio::test]
async fn arguments_the_header_check_cannot_read_are_refused() {
    let server = start(Config::default()).await;
    let deep = format!("{}1{}", "[".repeat(200), "]".repeat(200));
    for (id, arguments) in [
        (121, r#"{"region":"World","junk":1e400}"#.to_string()),
        (122, format!(r#"{{"region":"World","junk":{deep}}}"#)),
    ] {
        for headers in [&[][..], &[&b"Mcp-Param-Region: Hello"[..]][..]] {
            let (status, response) =
                raw_text_tool_call(server.addr, id, "region_echo", &arguments, headers).await;
            assert_eq!(status, StatusCode::BAD_REQUEST, "{arguments}: {response}");
            assert_eq!(response["error"]["code"], json!(-32020), "{response}");
        }
    }
}
