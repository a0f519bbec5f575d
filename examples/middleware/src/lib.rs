//! Middleware around a generated server: a policy and a cache.
//!
//! `server` is generated from `openrpc.json` by `build.rs`; [`Shop`] implements its handler.
//! Two middleware wrap it ([`mcp_runtime::middleware`]):
//!
//! - [`OrderPolicy`] reads an `order`'s arguments typed and refuses large orders to callers
//!   without the `bulk` scope, with a JSON-RPC error, before the handler runs;
//! - [`PriceCache`] answers a `price` it answered before from memory, without the handler,
//!   reading the handler's result typed to keep it.
//!
//! [`shop_server`] stacks them: `Server::new(Shop).layer(PriceCache).layer(OrderPolicy)`, so
//! the policy (added last) runs first. The contract limits `order` to 5 calls a minute per
//! caller (`x-mcp.rateLimit`), which the runtime enforces before either middleware runs.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use mcp_runtime::middleware::{Answer, Call, CallKind, Layered, Middleware, Next, WithMiddleware};
use mcp_runtime::{BoxFuture, Error, RequestContext, RpcError};
use serde::Deserialize;

/// The code generated from `openrpc.json`.
pub mod server {
    include!(concat!(env!("OUT_DIR"), "/mcp_server.rs"));
}

use server::types;

/// The handler: a fixed price list; counts the calls that reach it.
#[derive(Debug, Default)]
pub struct Shop {
    /// How many calls reached the handler.
    pub handled: AtomicUsize,
}

/// The price of `item`, in cents.
fn price_of(item: &str) -> Option<i64> {
    match item {
        "tea" => Some(350),
        "cake" => Some(420),
        _ => None,
    }
}

impl server::Handler for Shop {
    async fn price(
        &self,
        _ctx: &RequestContext,
        params: types::PriceParams,
    ) -> Result<types::Price, Error> {
        self.handled.fetch_add(1, Ordering::SeqCst);
        let cents = price_of(&params.item)
            .ok_or_else(|| Error::new(format!("no such item: {}", params.item)))?;
        Ok(types::Price {
            item: params.item,
            cents,
        })
    }

    async fn order(
        &self,
        _ctx: &RequestContext,
        params: types::OrderParams,
    ) -> Result<types::Order, Error> {
        self.handled.fetch_add(1, Ordering::SeqCst);
        let cents = price_of(&params.item)
            .ok_or_else(|| Error::new(format!("no such item: {}", params.item)))?;
        Ok(types::Order {
            total_cents: cents * params.count,
            item: params.item,
            count: params.count,
        })
    }
}

/// The JSON-RPC error code of a refused order (an application code, outside JSON-RPC's and
/// MCP's reserved ranges).
pub const ORDER_REFUSED: i32 = -31001;

/// Refuses orders of more than `max` items to callers without the `bulk` scope.
#[derive(Debug)]
pub struct OrderPolicy {
    /// The largest order anyone may make.
    pub max: i64,
}

/// The part of `order`'s arguments the policy reads.
#[derive(Deserialize)]
struct OrderSize {
    count: i64,
}

impl Middleware for OrderPolicy {
    fn call<'a>(&'a self, call: Call<'a>, next: Next<'a>) -> BoxFuture<'a, Answer> {
        Box::pin(async move {
            if call.kind() == CallKind::Tool && call.name() == "order" {
                // Arguments that do not fit are left to the handler's own decoding and error.
                let size = call.arguments::<OrderSize>().map_or(0, |order| order.count);
                let bulk = call.principal().is_some_and(|p| p.has_scope("bulk"));
                if size > self.max && !bulk {
                    return Answer::Refused(
                        RpcError::new(
                            ORDER_REFUSED,
                            format!("orders of more than {} need the bulk scope", self.max),
                        )
                        .with_data(serde_json::json!({ "max": self.max })),
                    );
                }
            }
            next.run(call).await
        })
    }
}

/// Answers `price` from memory once the handler answered it for that item.
#[derive(Debug, Default)]
pub struct PriceCache {
    prices: Mutex<HashMap<String, types::Price>>,
    /// How many calls the cache answered.
    pub hits: AtomicUsize,
}

impl Middleware for PriceCache {
    fn call<'a>(&'a self, call: Call<'a>, next: Next<'a>) -> BoxFuture<'a, Answer> {
        Box::pin(async move {
            let item = match (call.kind(), call.name()) {
                (CallKind::Tool, "price") => call.arguments::<types::PriceParams>().ok(),
                _ => None,
            };
            let Some(types::PriceParams { item }) = item else {
                return next.run(call).await;
            };
            let cached = self.lock().get(&item).cloned();
            if let Some(price) = cached {
                self.hits.fetch_add(1, Ordering::SeqCst);
                return Answer::json(&price);
            }
            let answer = next.run(call).await;
            if let Some(Ok(price)) = answer.result::<types::Price>() {
                self.lock().insert(item, price);
            }
            answer
        })
    }
}

impl PriceCache {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, types::Price>> {
        self.prices
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// The shop with its middleware: the policy runs first, then the cache, then the handler.
pub type ShopServer = Layered<Layered<server::Server<Shop>, PriceCache>, OrderPolicy>;

/// [`ShopServer`], orders of more than 10 items needing the `bulk` scope.
pub fn shop_server() -> ShopServer {
    server::Server::new(Shop::default())
        .layer(PriceCache::default())
        .layer(OrderPolicy { max: 10 })
}
