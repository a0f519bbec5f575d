//! Result budgets (`Contract::with_result_budgets`, `mcp_runtime::result_budget`, #47 item 5)
//! on a server on 127.0.0.1, with raw HTTP requests in the 2025-11-25 session era and the
//! 2026-07-28 stateless one: a result over its tool's budget comes back as an outline and a
//! `resource_link`; the link reads back the result byte for byte, whole and in pages; the
//! pages are the caller's only; the catalog mode's `call_tool` is held to the tool's budget;
//! `Config::results.result_budget` replaces it.

use crate::ops;

use mcp_runtime::dispatch::{Call, CallKind};
use mcp_runtime::middleware::Answer;
use mcp_runtime::tool_catalog::{ToolCatalog, ToolMode};
use mcp_runtime::{BoxFuture, Catalog, Config, Contract, Descriptor, Dispatch};
use ops::{call_in_session, call_stateless, post, serve_with, session};
use serde_json::value::RawValue;
use serde_json::{json, Value};

const BIG: &str = r#"{"name":"big","inputSchema":{"type":"object"}}"#;
static CATALOG: Catalog = Catalog {
    tools: &[Descriptor {
        key: "big",
        json: [BIG; 4],
    }],
    resource_templates: &[mcp_runtime::generated_support::RESULT_PAGES],
    ..Catalog::empty("budget-test", "1.0.0")
};

/// As the generator writes it: `big` has a budget of 256 bytes.
fn budget(tool: &str) -> Option<usize> {
    (tool == "big").then_some(256)
}

/// `big {n}` answers an object of `n` entries, with characters of every UTF-8 length and a
/// space written in JSON's escape, as an upstream would send it (raw text, passed through).
struct Big;

fn big_text(n: usize) -> String {
    let items: Vec<String> = (0..n)
        .map(|i| format!(r#"{{"i":{i},"s":"a\u0020é€𝄞 {i}"}}"#))
        .collect();
    format!(r#"{{"block":"0x1b4","items":[{}]}}"#, items.join(","))
}

impl Dispatch for Big {
    fn contract(&self) -> &'static Contract {
        static CONTRACT: Contract = Contract::new(&CATALOG).with_result_budgets(&budget, 256);
        &CONTRACT
    }

    fn call<'a>(&'a self, call: Call<'a>) -> Option<BoxFuture<'a, Answer>> {
        if call.kind() != CallKind::Tool || call.name() != "big" {
            return None;
        }
        let n = call.arguments::<Value>().ok()?["n"].as_u64().unwrap_or(1) as usize;
        let text = big_text(n);
        Some(Box::pin(async move {
            Answer::Success(RawValue::from_string(text).unwrap())
        }))
    }
}

/// `resources/read` of `uri` in the session `id` (or statelessly without one): the body.
async fn read(url: &str, id: Option<&str>, uri: &str, bearer: Option<&str>) -> Value {
    let auth = bearer.map(|b| format!("Bearer {b}"));
    let mut headers: Vec<(&str, &str)> = match id {
        Some(id) => vec![
            ("mcp-session-id", id),
            ("mcp-protocol-version", "2025-11-25"),
        ],
        None => vec![
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "resources/read"),
            ("mcp-name", uri),
        ],
    };
    if let Some(auth) = &auth {
        headers.push(("authorization", auth));
    }
    let mut params = json!({"uri": uri});
    if id.is_none() {
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}});
    }
    let body = json!({"jsonrpc": "2.0", "id": 9, "method": "resources/read", "params": params});
    post(url, &headers, body).await.2
}

/// The link of an outlined result, after checking the outline's shape.
fn link_of(result: &Value, bytes: usize) -> String {
    let content = result["content"]
        .as_array()
        .unwrap_or_else(|| panic!("{result}"));
    assert!(result.get("structuredContent").is_none(), "{result}");
    assert!(result.get("isError").is_none(), "{result}");
    let text = content[0]["text"].as_str().unwrap();
    assert!(
        text.contains("over this tool's budget of 256 bytes"),
        "{text}"
    );
    assert!(
        text.contains("(10 in all)") || text.contains("in all"),
        "{text}"
    );
    let link = &content[1];
    assert_eq!(link["type"], "resource_link", "{result}");
    assert_eq!(link["size"], bytes, "{result}");
    assert_eq!(link["mimeType"], "application/json");
    let uri = link["uri"].as_str().unwrap().to_owned();
    assert!(
        uri.starts_with("mcp-result://") && uri.ends_with("-256"),
        "{uri}"
    );
    uri
}

fn text_of(read: &Value) -> &str {
    read["result"]["contents"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("{read}"))
}

#[tokio::test]
async fn an_outline_and_a_link_whose_pages_are_the_result() {
    let url = serve_with(Big, Config::default()).await;
    let id = session(&url).await;
    // Under the budget: whole, structured.
    let small = call_in_session(&url, &id, "big", json!({"n": 1})).await;
    assert_eq!(
        small["result"]["structuredContent"]["block"], "0x1b4",
        "{small}"
    );
    // Over it: an outline and a link.
    let whole = big_text(10);
    let answer = call_in_session(&url, &id, "big", json!({"n": 10})).await;
    let uri = link_of(&answer["result"], whole.len());
    let read_whole = read(&url, Some(&id), &uri, None).await;
    assert_eq!(
        text_of(&read_whole),
        whole,
        "the link reads the result byte for byte"
    );
    assert_eq!(
        read_whole["result"]["contents"][0]["mimeType"],
        "application/json"
    );
    let pages = whole.len().div_ceil(256);
    let mut joined = String::new();
    for page in 1..=pages {
        let body = read(&url, Some(&id), &format!("{uri}/{page}"), None).await;
        let text = text_of(&body);
        assert!(text.len() <= 256 + 3, "page {page}: {} bytes", text.len());
        joined.push_str(text);
    }
    assert_eq!(joined, whole, "the pages put together are the result");
    // Past the last page, a page 0, a changed page size, another id: errors, not contents.
    let past = read(&url, Some(&id), &format!("{uri}/{}", pages + 1), None).await;
    assert_eq!(past["error"]["code"], -32602, "{past}");
    for wrong in [
        format!("{uri}/0"),
        uri.replace("-256", "-255"),
        format!("mcp-result://{}-256", "0".repeat(64)),
        "mcp-result://".into(),
    ] {
        let body = read(&url, Some(&id), &wrong, None).await;
        assert_eq!(body["error"]["code"], -32002, "{wrong}: {body}");
    }
    // The same in the stateless era, where a link read in another request still works.
    let answer = call_stateless(&url, "big", json!({"n": 10})).await;
    let uri = link_of(&answer["result"], whole.len());
    assert_eq!(
        text_of(&read(&url, None, &format!("{uri}/1"), None).await),
        &whole[..256]
    );
    let gone = read(
        &url,
        None,
        &format!("mcp-result://{}-256", "0".repeat(64)),
        None,
    )
    .await;
    assert_eq!(gone["error"]["code"], -32602, "{gone}");
    // The template is listed, so the capability is there.
    let templates = post(
        &url,
        &[
            ("mcp-session-id", &id),
            ("mcp-protocol-version", "2025-11-25"),
        ],
        json!({"jsonrpc": "2.0", "id": 3, "method": "resources/templates/list"}),
    )
    .await
    .2;
    let listed = &templates["result"]["resourceTemplates"][0]["uriTemplate"];
    assert_eq!(listed, "mcp-result://{id}/{page}", "{templates}");
}

#[tokio::test]
async fn a_kept_result_is_its_callers_only() {
    let mut config = Config::default();
    config.auth = Some(ops::names());
    let url = serve_with(Big, config).await;
    let call = |who: &'static str| {
        let url = url.clone();
        async move {
            let auth = format!("Bearer {who}");
            let headers = [
                ("mcp-protocol-version", "2026-07-28"),
                ("mcp-method", "tools/call"),
                ("mcp-name", "big"),
                ("authorization", auth.as_str()),
            ];
            let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
                "name": "big", "arguments": {"n": 10}, "_meta": {
                    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                    "io.modelcontextprotocol/clientCapabilities": {}}}});
            post(&url, &headers, body).await.2
        }
    };
    let answer = call("ada").await;
    let uri = link_of(&answer["result"], big_text(10).len());
    assert_eq!(
        text_of(&read(&url, None, &uri, Some("ada")).await),
        big_text(10)
    );
    let other = read(&url, None, &uri, Some("bob")).await;
    assert_eq!(
        other["error"]["code"], -32602,
        "another principal reads nothing: {other}"
    );
}

#[tokio::test]
async fn the_catalogs_call_tool_is_held_to_the_tools_budget_and_config_replaces_it() {
    let url = serve_with(ToolCatalog::new(Big, ToolMode::Catalog), Config::default()).await;
    let id = session(&url).await;
    let inner = json!({"name": "big", "arguments": {"n": 10}});
    let answer = call_in_session(&url, &id, "call_tool", inner.clone()).await;
    let uri = link_of(&answer["result"], big_text(10).len());
    assert_eq!(
        text_of(&read(&url, Some(&id), &uri, None).await),
        big_text(10)
    );

    let mut config = Config::default();
    config.results.result_budget = Some(0);
    let url = serve_with(Big, config).await;
    let id = session(&url).await;
    let whole = call_in_session(&url, &id, "big", json!({"n": 10})).await;
    assert_eq!(
        whole["result"]["structuredContent"]["items"][9]["i"], 9,
        "{whole}"
    );
    // The tool still takes its `jq` argument, whatever the budget's size.
    let wrong = call_in_session(&url, &id, "big", json!({"n": 1, "jq": 5})).await;
    let text = wrong["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(text.contains("`jq` must be a string"), "{wrong}");
}

/// The typed client (`client::typed::call_tool`, what a generated `--client` crate calls) reads
/// a result over its budget back through its link: the caller gets the whole value.
#[cfg(feature = "client")]
#[tokio::test]
async fn the_typed_client_reads_a_kept_result_back_whole() {
    use mcp_runtime::client::{typed, Client, Era};
    let url = serve_with(Big, Config::default()).await;
    for era in [Era::Legacy, Era::Stateless] {
        let client = Client::builder(&url).era(era).connect().await.unwrap();
        let value: Value = typed::call_tool(&client, "big", &json!({"n": 10}))
            .await
            .unwrap();
        let whole: Value = serde_json::from_str(&big_text(10)).unwrap();
        assert_eq!(value, whole, "{era:?}");
    }
}

/// A tool with a budget takes a `jq` filter: one that is not a string is refused before the
/// tool runs; where workers cannot be started (a server not started by `mcp_runtime::entry`,
/// as here) a filter is an `isError` saying so, never a crash. The filters themselves run in
/// `tests/gateway/run.sh`, through a generated gateway binary.
#[tokio::test]
async fn a_jq_filter_is_checked_and_runs_only_where_workers_can() {
    let url = serve_with(Big, Config::default()).await;
    let id = session(&url).await;
    let wrong = call_in_session(&url, &id, "big", json!({"n": 1, "jq": 5})).await;
    let text = wrong["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("`jq` must be a string"), "{wrong}");
    assert_eq!(wrong["result"]["isError"], true);
    // Escaped, the name is the same member.
    let raw = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"arguments":{"j\u0071":".","n":1},"name":"big"}}"#;
    let headers = [
        ("mcp-session-id", id.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    let (_, _, body) = ops::post_raw(&url, &headers, raw).await;
    let text = body["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(text.contains("filters are not available"), "{body}");
    let unfiltered = call_in_session(&url, &id, "big", json!({"n": 1})).await;
    assert_eq!(
        unfiltered["result"]["structuredContent"]["block"], "0x1b4",
        "{unfiltered}"
    );
}
