//! The pieces generated code calls: params decoding, result shaping per revision, and the
//! stdio JSON-RPC loop over a hand-written `Dispatch`.

use mcp_runtime::dispatch::{
    decode_arguments, decode_params, prompt_result, resource_result, template_params,
};
use mcp_runtime::dispatch::{Call, CallKind};
use mcp_runtime::{
    Answer, BoxFuture, Catalog, Contract, Dispatch, Error, ParamStructure, ProtocolVersion,
    RpcError,
};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{json, Value};

#[derive(Debug, Deserialize, PartialEq)]
struct Pair {
    a: i64,
    #[serde(default)]
    b: Option<String>,
}

fn raw(text: &str) -> Box<RawValue> {
    RawValue::from_string(text.to_string()).unwrap()
}

fn parse(raw: &RawValue) -> Value {
    serde_json::from_str(raw.get()).unwrap()
}

fn parse_text(text: &mcp_runtime::JsonText) -> Value {
    serde_json::from_str(text.get()).unwrap()
}

#[test]
fn params_decode_by_name_and_by_position() {
    let by_name: Pair =
        decode_params(Some(&raw(r#"{"a":1,"b":"x"}"#)), ParamStructure::Either).unwrap();
    assert_eq!(
        by_name,
        Pair {
            a: 1,
            b: Some("x".into())
        }
    );
    let by_position: Pair =
        decode_params(Some(&raw(r#"[2, "y"]"#)), ParamStructure::Either).unwrap();
    assert_eq!(
        by_position,
        Pair {
            a: 2,
            b: Some("y".into())
        }
    );
    let trailing_omitted: Pair =
        decode_params(Some(&raw("[3]")), ParamStructure::ByPosition).unwrap();
    assert_eq!(trailing_omitted, Pair { a: 3, b: None });
}

#[test]
fn params_structure_is_enforced() {
    let err =
        decode_params::<Pair>(Some(&raw(r#"{"a":1}"#)), ParamStructure::ByPosition).unwrap_err();
    assert_eq!(err.code, RpcError::INVALID_PARAMS);
    assert!(err.message.contains("by position"), "{}", err.message);
    let err = decode_params::<Pair>(Some(&raw("[1]")), ParamStructure::ByName).unwrap_err();
    assert!(err.message.contains("by name"), "{}", err.message);
    let err = decode_params::<Pair>(Some(&raw("7")), ParamStructure::Either).unwrap_err();
    assert_eq!(err.code, RpcError::INVALID_PARAMS);
    let err = decode_params::<Pair>(None, ParamStructure::Either).unwrap_err();
    assert_eq!(err.message, "Invalid params: /a: is required");
    let err =
        decode_params::<Pair>(Some(&raw(r#"{"a":"one"}"#)), ParamStructure::Either).unwrap_err();
    assert_eq!(
        err.message,
        "Invalid params: /a: expected an integer, got a string"
    );
    // By position, the pointer is the index.
    let err = decode_params::<Pair>(Some(&raw(r#"[1,2]"#)), ParamStructure::Either).unwrap_err();
    assert_eq!(
        err.message,
        "Invalid params: /1: expected a string, got an integer"
    );
}

#[test]
fn arguments_must_be_an_object() {
    assert!(decode_arguments::<Pair>(Some(&raw("[1]"))).is_err());
    assert_eq!(
        decode_arguments::<Pair>(Some(&raw(r#"{"a":5}"#))).unwrap(),
        Pair { a: 5, b: None }
    );
}

#[test]
fn tool_results_follow_each_revision() {
    let object = || Answer::from_result(Ok(json!({"sum": 3})));
    let v = |outcome: Answer, version| parse_text(&outcome.into_call_tool_result(version).unwrap());

    assert_eq!(
        v(object(), ProtocolVersion::V2025_03_26),
        json!({"content": [{"type": "text", "text": "{\"sum\":3}"}]})
    );
    for version in [
        ProtocolVersion::V2025_06_18,
        ProtocolVersion::V2025_11_25,
        ProtocolVersion::V2026_07_28,
    ] {
        assert_eq!(
            v(object(), version),
            json!({"content": [{"type": "text", "text": "{\"sum\":3}"}], "structuredContent": {"sum": 3}})
        );
    }
    // A non-object result is structured only from 2026-07-28, and a string shows as itself.
    let text = || Answer::from_result(Ok("hi \"there\""));
    assert_eq!(
        v(text(), ProtocolVersion::V2025_11_25),
        json!({"content": [{"type": "text", "text": "hi \"there\""}]})
    );
    assert_eq!(
        v(text(), ProtocolVersion::V2026_07_28),
        json!({"content": [{"type": "text", "text": "hi \"there\""}], "structuredContent": "hi \"there\""})
    );
    let failed = Answer::from_result::<()>(Err(Error::new("disk full")));
    assert_eq!(
        v(failed, ProtocolVersion::V2025_03_26),
        json!({"content": [{"type": "text", "text": "disk full"}], "isError": true})
    );
}

#[test]
fn invalid_arguments_are_errors_before_2025_11_25_and_results_after() {
    let outcome = || Answer::InvalidArguments("missing field `a`".into());
    let err = outcome()
        .into_call_tool_result(ProtocolVersion::V2025_06_18)
        .unwrap_err();
    assert_eq!(err.code, RpcError::INVALID_PARAMS);
    let result = parse_text(
        &outcome()
            .into_call_tool_result(ProtocolVersion::V2025_11_25)
            .unwrap(),
    );
    assert_eq!(result["isError"], json!(true));
    assert_eq!(
        result["content"][0]["text"],
        json!("Invalid arguments: missing field `a`")
    );
}

#[test]
fn prompt_and_resource_results() {
    let prompt = parse(&prompt_result(Some("Greets"), &"Hello").unwrap());
    assert_eq!(
        prompt,
        json!({"description": "Greets", "messages": [{"role": "user", "content": {"type": "text", "text": "Hello"}}]})
    );
    let text = parse(&resource_result("notes://a", None, &"body").unwrap());
    assert_eq!(
        text,
        json!({"contents": [{"uri": "notes://a", "mimeType": "text/plain", "text": "body"}]})
    );
    let json_resource = parse(&resource_result("notes://b", None, &json!({"k": 1})).unwrap());
    assert_eq!(
        json_resource,
        json!({"contents": [{"uri": "notes://b", "mimeType": "application/json", "text": "{\"k\":1}"}]})
    );
}

#[test]
fn template_variables_become_typed_params() {
    #[derive(Debug, Deserialize, PartialEq)]
    struct P {
        id: i64,
        name: String,
    }
    let p: P = template_params(vec![("id", "42".into()), ("name", "7".into())], &["id"]).unwrap();
    assert_eq!(
        p,
        P {
            id: 42,
            name: "7".into()
        }
    );
    let err =
        template_params::<P>(vec![("id", "x".into()), ("name", "n".into())], &["id"]).unwrap_err();
    assert_eq!(err.code, RpcError::INVALID_PARAMS);
}

/// A hand-written dispatch with one method `double`, as generated code would route it.
struct Doubler;

static CATALOG: Catalog = Catalog::empty("doubler", "1");

impl Dispatch for Doubler {
    fn contract(&self) -> &'static Contract {
        static CONTRACT: Contract = Contract::new(&CATALOG);
        &CONTRACT
    }

    fn call<'a>(&'a self, call: Call<'a>) -> Option<BoxFuture<'a, Answer>> {
        if (call.kind(), call.name()) != (CallKind::Method, "double") {
            return None;
        }
        #[derive(Deserialize)]
        struct P {
            n: i64,
        }
        let answer = decode_params::<P>(call.raw_arguments(), ParamStructure::Either)
            .and_then(|p| mcp_runtime::dispatch::encode_result(&(p.n * 2)));
        Some(Box::pin(std::future::ready(Answer::from_reply(answer))))
    }
}

#[tokio::test]
async fn stdio_serves_a_session_and_keeps_plain_methods_out() {
    let input = concat!(
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
        "\n",
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        "\n",
        r#"{"jsonrpc":"2.0","id":1,"method":"double","params":{"n":21}}"#,
        "\n",
        r#"{"jsonrpc":"2.0","id":"two","method":"double","params":[5]}"#,
        "\n",
        "\n",
        r#"{"jsonrpc":"2.0","id":3,"method":"triple"}"#,
        "\n",
        r#"{"jsonrpc":"2.0","id":4,"method":"ping"}"#,
        "\n",
        "not json\n",
    );
    let (writer, mut reader) = tokio::io::duplex(64 * 1024);
    let server = mcp_runtime::McpServer::new(Doubler);
    mcp_runtime::stdio::serve_io(server, input.as_bytes(), writer)
        .await
        .unwrap();
    let mut output = String::new();
    tokio::io::AsyncReadExt::read_to_string(&mut reader, &mut output)
        .await
        .unwrap();
    let mut lines: Vec<Value> = output
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // Requests run concurrently: order the answers by id for the assertions.
    lines.sort_by_key(|l| l["id"].to_string());
    assert_eq!(lines.len(), 6, "{lines:?}");
    let by_id = |id: Value| lines.iter().find(|l| l["id"] == id).unwrap().clone();
    assert_eq!(
        by_id(json!(0))["result"]["protocolVersion"],
        json!("2025-06-18")
    );
    // `double` is a plain JSON-RPC method, not an MCP one: stdio is MCP.
    assert_eq!(
        by_id(json!(1)),
        json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "Method not found: double"}})
    );
    assert_eq!(by_id(json!("two"))["error"]["code"], json!(-32601));
    assert_eq!(by_id(json!(3))["error"]["code"], json!(-32601));
    assert_eq!(by_id(json!(4))["result"], json!({}));
    assert_eq!(by_id(Value::Null)["error"]["code"], json!(-32700));
}

/// A request's future is boxed for every request (see `serve_listener`); under 1 KiB it
/// stays in glibc's per-thread cache, which hands back the block the last request freed.
#[test]
fn a_request_future_fits_the_allocator_cache() {
    let server = mcp_runtime::McpServer::new(Doubler);
    let request = http::Request::post("/mcp")
        .body(http_body_util::Full::new(bytes::Bytes::from_static(b"{}")))
        .unwrap();
    let future = server.handle(request);
    let size = std::mem::size_of_val(&future);
    assert!(size <= 1024, "a request's future takes {size} bytes");
}

/// A dispatch that opens something for the resources `ok://` names (as the gateway opens a
/// subscription at its upstream) and refuses the others.
struct Opener(std::sync::Arc<std::sync::Mutex<Vec<String>>>);

impl Dispatch for Opener {
    fn contract(&self) -> &'static Contract {
        static CONTRACT: Contract = Contract::new(&CATALOG);
        &CONTRACT
    }

    fn call<'a>(&'a self, call: Call<'a>) -> Option<BoxFuture<'a, Answer>> {
        if call.kind() != CallKind::Subscribe {
            return None;
        }
        self.0.lock().unwrap().push(call.name().to_string());
        let answer = match call.name().starts_with("ok://") {
            true => Answer::Success(raw("null")),
            false => Answer::Refused(RpcError::invalid_params(
                "Invalid params: the upstream refused the subscription",
            )),
        };
        Some(Box::pin(std::future::ready(answer)))
    }
}

/// `resources/subscribe` reaches the dispatch as a `CallKind::Subscribe` call before the
/// session keeps it: its refusal is the client's error, and the session does not hold it (the
/// unsubscription after it changes nothing and is answered as any).
#[tokio::test]
async fn a_subscription_is_opened_at_the_dispatch_and_its_refusal_is_the_error() {
    let input = concat!(
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
        "\n",
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        "\n",
        r#"{"params":{"uri":"ok://feed"},"id":1,"method":"resources/subscribe","jsonrpc":"2.0"}"#,
        "\n",
        r#"{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"no://feed"}}"#,
        "\n",
    );
    let opened = std::sync::Arc::default();
    let (writer, mut reader) = tokio::io::duplex(64 * 1024);
    let server = mcp_runtime::McpServer::new(Opener(std::sync::Arc::clone(&opened)));
    mcp_runtime::stdio::serve_io(server, input.as_bytes(), writer)
        .await
        .unwrap();
    let mut output = String::new();
    tokio::io::AsyncReadExt::read_to_string(&mut reader, &mut output)
        .await
        .unwrap();
    let lines: Vec<Value> = output
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let by_id = |id: Value| lines.iter().find(|l| l["id"] == id).unwrap().clone();
    assert_eq!(by_id(json!(1))["result"], json!({}));
    assert_eq!(
        by_id(json!(2))["error"],
        json!({"code": -32602, "message": "Invalid params: the upstream refused the subscription"})
    );
    let mut seen = opened.lock().unwrap().clone();
    seen.sort();
    assert_eq!(seen, ["no://feed", "ok://feed"]);
}
