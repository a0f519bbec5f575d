//! Middleware (`mcp_runtime::middleware`, #34 item 3) around a hand-written server on
//! 127.0.0.1: the order of layers, a refusal, an answer instead of the handler (a cache),
//! typed arguments and results and a rewrite, unknown `_meta` kept, cleanup on cancellation;
//! in the session era and the stateless 2026-07-28 one.

use crate::ops;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_runtime::middleware::{Answer, Call, CallKind, Middleware, Next, WithMiddleware};
use mcp_runtime::{BoxFuture, Contract, Dispatch, RequestContext};
use ops::{call_in_session, call_stateless, post, serve, session, shop, Log};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{json, Value};

/// Records `{name} before {method} {target}` and `{name} after`, around the rest.
struct Recording {
    name: &'static str,
    log: Log,
}

impl Middleware for Recording {
    fn call<'a>(&'a self, call: Call<'a>, next: Next<'a>) -> BoxFuture<'a, Answer> {
        Box::pin(async move {
            self.log.lock().unwrap().push(format!(
                "{} before {} {}",
                self.name,
                call.method(),
                call.name()
            ));
            let answer = next.run(call).await;
            self.log
                .lock()
                .unwrap()
                .push(format!("{} after", self.name));
            answer
        })
    }
}

#[tokio::test]
async fn the_layer_added_last_runs_first_and_sees_the_answer_last() {
    let (shop, log, _) = shop();
    let server = shop
        .layer(Recording {
            name: "a",
            log: log.clone(),
        })
        .layer(Recording {
            name: "b",
            log: log.clone(),
        });
    let url = serve(server).await;
    let id = session(&url).await;
    let body = call_in_session(&url, &id, "echo", json!({"x": 1})).await;
    assert_eq!(
        body["result"]["structuredContent"],
        json!({"x": 1}),
        "{body}"
    );
    assert_eq!(
        log.lock().unwrap().clone(),
        [
            "b before tools/call echo",
            "a before tools/call echo",
            r#"handler {"x":1}"#,
            "a after",
            "b after"
        ]
    );
    // Prompts pass through the same chain.
    log.lock().unwrap().clear();
    let headers = [
        ("mcp-session-id", id.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    let (_, _, body) = post(
        &url,
        &headers,
        json!({"jsonrpc": "2.0", "id": 2, "method": "prompts/get",
               "params": {"name": "greet", "arguments": {"who": "Ada"}}}),
    )
    .await;
    assert!(body["result"]["messages"][0]["content"]["text"]
        .as_str()
        .unwrap()
        .contains("Ada"));
    assert_eq!(
        log.lock().unwrap().clone(),
        [
            "b before prompts/get greet",
            "a before prompts/get greet",
            "a after",
            "b after"
        ]
    );
    // An unknown tool is the runtime's error; the middleware never sees it.
    log.lock().unwrap().clear();
    let body = call_in_session(&url, &id, "nope", json!({})).await;
    assert_eq!(body["error"]["code"], json!(-32602), "{body}");
    assert!(log.lock().unwrap().is_empty());
}

#[tokio::test]
async fn a_refusal_is_a_json_rpc_error_and_the_handler_never_runs_in_both_eras() {
    let (shop, _, calls) = shop();
    let url = serve(shop.layer(ops::Policy)).await;
    let id = session(&url).await;
    for body in [
        call_in_session(&url, &id, "echo", json!({"secret": true})).await,
        call_stateless(&url, "echo", json!({"secret": true})).await,
    ] {
        assert_eq!(body["error"]["code"], json!(-32001), "{body}");
        assert_eq!(body["error"]["message"], json!("secrets are refused"));
        assert_eq!(body["error"]["data"], json!({"why": "policy"}));
        assert!(body.get("result").is_none(), "{body}");
    }
    assert_eq!(calls.load(Ordering::SeqCst), 0);
    let body = call_stateless(&url, "echo", json!({"secret": false})).await;
    assert_eq!(
        body["result"]["structuredContent"],
        json!({"secret": false})
    );
    assert_eq!(calls.load(Ordering::SeqCst), 1);
}

/// Answers a call it answered before from its store, without the handler.
#[derive(Default)]
struct Cache {
    stored: Mutex<Vec<(String, String, Box<RawValue>)>>,
}

impl Middleware for Cache {
    fn call<'a>(&'a self, call: Call<'a>, next: Next<'a>) -> BoxFuture<'a, Answer> {
        Box::pin(async move {
            let key = (
                call.name().to_owned(),
                call.raw_arguments().map_or("", RawValue::get).to_owned(),
            );
            let hit = self
                .stored
                .lock()
                .unwrap()
                .iter()
                .find(|(n, a, _)| (n, a) == (&key.0, &key.1))
                .map(|(_, _, raw)| raw.clone());
            if let Some(raw) = hit {
                return Answer::Success(raw);
            }
            let answer = next.run(call).await;
            if let Answer::Success(raw) = &answer {
                self.stored
                    .lock()
                    .unwrap()
                    .push((key.0, key.1, raw.clone()));
            }
            answer
        })
    }
}

#[tokio::test]
async fn a_cache_answers_instead_of_the_handler() {
    let (shop, _, calls) = shop();
    let url = serve(shop.layer(Cache::default())).await;
    let first = call_stateless(&url, "echo", json!({"q": "a"})).await;
    let again = call_stateless(&url, "echo", json!({"q": "a"})).await;
    let other = call_stateless(&url, "echo", json!({"q": "b"})).await;
    assert_eq!(first["result"], again["result"]);
    assert_eq!(again["result"]["structuredContent"], json!({"q": "a"}));
    assert_eq!(other["result"]["structuredContent"], json!({"q": "b"}));
    // Two calls reached the handler: `a` once, `b` once.
    assert_eq!(calls.load(Ordering::SeqCst), 2);
}

#[derive(Debug, Deserialize, Serialize, PartialEq)]
struct Order {
    item: String,
    count: u32,
}

/// Reads the arguments and the result typed, and doubles every order's count on the way in.
struct Doubling {
    seen: Mutex<Vec<(Order, Order)>>,
}

impl Middleware for Doubling {
    fn call<'a>(&'a self, mut call: Call<'a>, next: Next<'a>) -> BoxFuture<'a, Answer> {
        Box::pin(async move {
            assert_eq!(call.kind(), CallKind::Tool);
            let Ok(mut order) = call.arguments::<Order>() else {
                return next.run(call).await;
            };
            order.count *= 2;
            call.set_arguments(&order).unwrap();
            // The rewrite is what the call now carries.
            assert_eq!(call.arguments::<Order>().unwrap(), order);
            let answer = next.run(call).await;
            let result: Order = answer.result().unwrap().unwrap();
            self.seen.lock().unwrap().push((order, result));
            answer
        })
    }
}

#[tokio::test]
async fn typed_arguments_and_results_and_a_rewrite_reach_the_handler() {
    let (shop, log, _) = shop();
    let server = shop.layer(Doubling {
        seen: Mutex::default(),
    });
    let layered = Arc::new(server);
    let url = serve(ArcDispatch(layered.clone())).await;
    let body = call_stateless(&url, "echo", json!({"item": "tea", "count": 2})).await;
    assert_eq!(
        body["result"]["structuredContent"],
        json!({"item": "tea", "count": 4}),
        "{body}"
    );
    assert_eq!(
        log.lock().unwrap().clone(),
        [r#"handler {"item":"tea","count":4}"#]
    );
    let expected = Order {
        item: "tea".into(),
        count: 4,
    };
    let seen = layered.middleware().seen.lock().unwrap();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].0, expected);
    assert_eq!(seen[0].1, expected);
}

/// A shared dispatch, so a test can read its middleware while it serves.
struct ArcDispatch<D>(Arc<D>);

impl<D: Dispatch> Dispatch for ArcDispatch<D> {
    fn contract(&self) -> &'static Contract {
        self.0.contract()
    }

    fn call<'a>(&'a self, call: Call<'a>) -> Option<BoxFuture<'a, Answer>> {
        self.0.call(call)
    }
}

/// Reads every success typed as JSON and passes the answer on.
struct Reader;

impl Middleware for Reader {
    fn call<'a>(&'a self, call: Call<'a>, next: Next<'a>) -> BoxFuture<'a, Answer> {
        Box::pin(async move {
            let _: Option<Value> = call.arguments().ok();
            let answer = next.run(call).await;
            if let Some(result) = answer.result::<Value>() {
                result.unwrap();
            }
            answer
        })
    }
}

#[tokio::test]
async fn unknown_meta_keys_pass_through_the_middleware() {
    let (shop, log, _) = shop();
    let url = serve(shop.layer(Reader).layer(Reader)).await;
    // In the arguments: the handler gets them byte for byte.
    let arguments = json!({"_meta": {"com.example/trace": "t-1"}, "x": 1});
    let body = call_stateless(&url, "echo", arguments.clone()).await;
    assert_eq!(body["result"]["structuredContent"], arguments, "{body}");
    assert_eq!(
        log.lock().unwrap().clone(),
        [r#"handler {"_meta":{"com.example/trace":"t-1"},"x":1}"#]
    );
    // In a result and its content blocks.
    let id = session(&url).await;
    let body = call_in_session(&url, &id, "blocks", json!({})).await;
    let result = &body["result"];
    assert_eq!(
        result["content"][0]["_meta"],
        json!({"com.example/unknown": {"n": 1}}),
        "{body}"
    );
    assert_eq!(
        result["structuredContent"]["_meta"],
        json!({"com.example/kept": true})
    );
}

/// Sets its flag when dropped.
struct Guard(Arc<AtomicUsize>);

impl Drop for Guard {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

/// Holds a guard across the rest of the chain; counts the calls it started.
struct Cleanup {
    started: Arc<AtomicUsize>,
    cleaned: Arc<AtomicUsize>,
}

impl Middleware for Cleanup {
    fn call<'a>(&'a self, call: Call<'a>, next: Next<'a>) -> BoxFuture<'a, Answer> {
        Box::pin(async move {
            let _guard = Guard(self.cleaned.clone());
            self.started.fetch_add(1, Ordering::SeqCst);
            next.run(call).await
        })
    }
}

async fn until(what: &str, check: impl Fn() -> bool) {
    for _ in 0..500 {
        if check() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("timed out waiting for {what}");
}

#[tokio::test]
async fn a_cancelled_call_runs_the_middlewares_cleanup() {
    let (shop, _, _) = shop();
    let started = Arc::new(AtomicUsize::new(0));
    let cleaned = Arc::new(AtomicUsize::new(0));
    let url = serve(shop.layer(Cleanup {
        started: started.clone(),
        cleaned: cleaned.clone(),
    }))
    .await;
    let id = session(&url).await;
    let call = {
        let (url, id) = (url.clone(), id.clone());
        tokio::spawn(async move {
            let headers = [
                ("mcp-session-id", id.as_str()),
                ("mcp-protocol-version", "2025-11-25"),
            ];
            post(
                &url,
                &headers,
                json!({"jsonrpc": "2.0", "id": 41, "method": "tools/call",
                       "params": {"name": "slow", "arguments": {}}}),
            )
            .await
        })
    };
    until("the call to start", || started.load(Ordering::SeqCst) == 1).await;
    assert_eq!(cleaned.load(Ordering::SeqCst), 0);
    let headers = [
        ("mcp-session-id", id.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    let (status, _, _) = post(
        &url,
        &headers,
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
               "params": {"requestId": 41, "reason": "test"}}),
    )
    .await;
    assert_eq!(status, 202);
    until("the cleanup", || cleaned.load(Ordering::SeqCst) == 1).await;
    call.abort();

    // A stateless call whose connection is closed: dropped, cleaned up too.
    let url2 = url.clone();
    let stateless = tokio::spawn(async move { call_stateless(&url2, "slow", json!({})).await });
    until("the stateless call to start", || {
        started.load(Ordering::SeqCst) == 2
    })
    .await;
    stateless.abort();
    until("the stateless cleanup", || {
        cleaned.load(Ordering::SeqCst) == 2
    })
    .await;
}

#[tokio::test]
async fn a_dropped_future_runs_the_cleanup_without_a_transport() {
    let (shop, _, _) = shop();
    let cleaned = Arc::new(AtomicUsize::new(0));
    let server = shop.layer(Cleanup {
        started: Arc::default(),
        cleaned: cleaned.clone(),
    });
    let ctx = RequestContext::new(mcp_runtime::ProtocolVersion::V2025_11_25);
    let call = Call::new(CallKind::Tool, "slow", None, ctx);
    let mut future = server.call(call).expect("a known tool");
    // Polled once: the middleware holds its guard and waits on the handler.
    let poll = futures_util::poll!(future.as_mut());
    assert!(poll.is_pending());
    assert_eq!(cleaned.load(Ordering::SeqCst), 0);
    drop(future);
    assert_eq!(cleaned.load(Ordering::SeqCst), 1);
    // An unknown name: no future, no middleware.
    let ctx = RequestContext::new(mcp_runtime::ProtocolVersion::V2025_11_25);
    assert!(server
        .call(Call::new(CallKind::Tool, "nope", None, ctx))
        .is_none());
}

/// Records the server's requests to the client it sees, as `{name} {method} {key}`; answers
/// `roots/list` itself when `answers` is set.
struct Outbound {
    name: &'static str,
    log: Log,
    answers: bool,
}

impl Middleware for Outbound {
    fn call<'a>(&'a self, call: Call<'a>, next: Next<'a>) -> BoxFuture<'a, Answer> {
        next.run(call)
    }

    fn client_request<'a>(
        &'a self,
        mut request: mcp_runtime::middleware::ClientRequest<'a>,
        next: mcp_runtime::middleware::ClientNext<'a>,
    ) -> BoxFuture<'a, Result<Value, mcp_runtime::Error>> {
        Box::pin(async move {
            self.log.lock().unwrap().push(format!(
                "{} {} {}",
                self.name,
                request.method(),
                request.key()
            ));
            if self.answers && request.method() == "roots/list" {
                return Ok(json!({"roots": [{"uri": "file:///from-middleware"}]}));
            }
            request.params_mut()["_meta"] = json!({"com.example/seen-by": self.name});
            next.run(request).await
        })
    }
}

#[tokio::test]
async fn the_servers_requests_to_the_client_pass_through_the_layers_innermost_first() {
    let (shop, log, _) = shop();
    let server = shop
        .layer(Outbound {
            name: "inner",
            log: log.clone(),
            answers: false,
        })
        .layer(Outbound {
            name: "outer",
            log: log.clone(),
            answers: false,
        });
    let url = serve(server).await;
    // Stateless: the request goes out in the round's InputRequiredResult, through both
    // layers, the inner one first; its params as the layers left them.
    let body = ops::call_stateless_with(&url, "roots", json!({}), json!({"roots": {}})).await;
    let result = &body["result"];
    assert_eq!(result["resultType"], json!("input_required"), "{body}");
    let asked = &result["inputRequests"]["roots"];
    assert_eq!(asked["method"], json!("roots/list"), "{body}");
    assert_eq!(
        asked["params"]["_meta"],
        json!({"com.example/seen-by": "outer"}),
        "{body}"
    );
    let seen: Vec<String> = log
        .lock()
        .unwrap()
        .iter()
        .filter(|line| !line.starts_with("handler"))
        .cloned()
        .collect();
    assert_eq!(seen, ["inner roots/list roots", "outer roots/list roots"]);
}

#[tokio::test]
async fn a_middleware_answers_the_servers_request_instead_of_the_client() {
    let (answered, log, _) = shop();
    let server = answered.layer(Outbound {
        name: "answering",
        log: log.clone(),
        answers: true,
    });
    let url = serve(server).await;
    // The client declared nothing, and is never asked: the middleware answered.
    let body = call_stateless(&url, "roots", json!({})).await;
    assert_eq!(
        body["result"]["structuredContent"],
        json!(["file:///from-middleware"]),
        "{body}"
    );
    // Without middleware the same call fails: the client cannot take `roots/list`.
    let (plain, _, _) = shop();
    let url = serve(plain).await;
    let body = call_stateless(&url, "roots", json!({})).await;
    assert!(
        body.get("error").is_some() || body["result"]["isError"] == json!(true),
        "{body}"
    );
}
