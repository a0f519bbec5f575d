//! Result budgets: a tool result larger than its tool's budget is not sent whole.
//!
//! A model reads every byte a tool returns: a hydrated Ethereum block or a wide `eth_getLogs`
//! is megabytes, which floods its context. A tool can have a budget in bytes (the generator's
//! `--result-budget`, the method's `x-mcp` `resultBudget`; 64 KiB for a gateway's forwarded
//! tools by default; [`Contract::with_result_budgets`](crate::dispatch::Contract::with_result_budgets)).
//! A success larger than it is kept in a [`ResultStore`] (in memory, or in Redis shared by every
//! instance) for [`Results::result_keep`](crate::config::Results::result_keep), and the call
//! answers with:
//!
//! - a text block: the size, and an outline of the result (every member, how many items each
//!   array has and its first ones, long strings shortened), small enough to read;
//! - a `resource_link` to `mcp-result://<id>`, which `resources/read` answers whole, and whose
//!   pages `mcp-result://<id>/1`, `/2`, … (each at most the budget) put together are the result
//!   byte for byte.
//!
//! Such a tool publishes no `outputSchema`: a preview does not have the result's shape. A kept
//! result is read only by the principal whose call made it (when authorization is on), and
//! only by whoever holds its 256-bit id.

mod outline;
pub(crate) mod projection;
mod store;

#[cfg(test)]
use store::ENTRY_OVERHEAD;
pub(crate) use store::{MemoryResultStore, ResultStore, Slice};

use std::fmt::Write as _;
use std::sync::Arc;
use std::time::Duration;

use serde_json::value::RawValue;

use crate::auth::Principal;
use crate::catalog::Descriptor;
use crate::context::RequestContext;
use crate::dispatch::{Answer, Contract};
use crate::json::JsonText;
use crate::jsonrpc::{self, RpcError};
use crate::protocol::ProtocolVersion;

/// The scheme of a kept result's URI.
#[doc(hidden)]
pub const SCHEME: &str = "mcp-result://";

/// The resource template of a kept result's pages, which a server with budgets publishes
/// (`resources/templates/list`): `mcp-result://{id}/{page}`.
#[doc(hidden)]
pub const PAGES: Descriptor = Descriptor {
    key: "mcp-result://{id}/{page}",
    json: [
        PAGES_JSON,
        PAGES_JSON_TITLED,
        PAGES_JSON_TITLED,
        PAGES_JSON_TITLED,
    ],
};

const PAGES_JSON: &str = concat!(
    r#"{"uriTemplate":"mcp-result://{id}/{page}","name":"result-page","#,
    r#""description":"A page of a tool result too large to send whole: the tool's answer links to it and says how many pages there are; the pages put together are the result.","mimeType":"text/plain"}"#
);
const PAGES_JSON_TITLED: &str = concat!(
    r#"{"uriTemplate":"mcp-result://{id}/{page}","name":"result-page","title":"Page of a kept tool result","#,
    r#""description":"A page of a tool result too large to send whole: the tool's answer links to it and says how many pages there are; the pages put together are the result.","mimeType":"text/plain"}"#
);

/// The engine's side of budgets: which results are looked at, where they are kept.
pub(crate) struct Budgets {
    store: Arc<dyn ResultStore>,
    /// Whether any tool of the contract has a budget (and so takes a `jq` filter and may have
    /// results kept), whatever [`Results::result_budget`](crate::config::Results::result_budget)
    /// makes of the budgets.
    tools_have_budgets: bool,
    /// A success at most this long is never over any budget (the smallest budget; `usize::MAX`
    /// without budgets): the only thing every call pays.
    threshold: usize,
    /// [`Results::result_budget`](crate::config::Results::result_budget).
    replaced: Option<usize>,
    keep: Duration,
}

impl Budgets {
    /// The budgets of `contract` as `config` adjusts them, results kept in `store`.
    pub(crate) fn new(
        contract: &Contract,
        config: &crate::config::Results,
        store: Arc<dyn ResultStore>,
    ) -> Self {
        let threshold = match (contract.smallest_result_budget(), config.result_budget) {
            (None, _) | (_, Some(0)) => usize::MAX,
            (Some(_), Some(replaced)) => replaced,
            (Some(smallest), None) => smallest,
        };
        Self {
            store,
            tools_have_budgets: contract.smallest_result_budget().is_some(),
            threshold,
            replaced: config.result_budget,
            keep: config.result_keep,
        }
    }

    /// Whether any tool has a budget: its calls may carry a `jq` filter, and kept results may
    /// be read (even with the budgets turned off at run time, which keeps nothing new).
    #[inline]
    pub(crate) fn active(&self) -> bool {
        self.tools_have_budgets
    }

    /// Whether `answer` may be over its tool's budget (a success longer than the smallest).
    #[inline]
    pub(crate) fn may_exceed(&self, answer: &Answer) -> bool {
        matches!(answer, Answer::Success(raw) if raw.get().len() > self.threshold)
    }

    /// The budget of `tool` (the tool that runs: a catalog's `call_tool` is asked as the tool
    /// it names, [`crate::policy::Target::of_call`]).
    fn budget_of(
        &self,
        contract: &Contract,
        tool: &str,
        arguments: Option<&RawValue>,
    ) -> Option<usize> {
        let target = crate::policy::Target::of_call(contract, "tools/call", tool.into(), arguments);
        let budget = contract.result_budget(&target.key)?;
        match self.replaced {
            Some(0) => None,
            Some(replaced) => Some(replaced),
            None => Some(budget),
        }
    }

    /// The `jq` filter `arguments` pass to `tool` ([`projection`]), when that tool (the tool
    /// that runs: a catalog's `call_tool` is its inner tool) has a budget; `Err` for a `jq`
    /// that is not a string. Only arguments that may hold one are read again.
    pub(crate) fn filter_of(
        &self,
        contract: &Contract,
        tool: &str,
        arguments: Option<&RawValue>,
    ) -> Option<Result<String, String>> {
        let text = arguments?.get();
        // `jq` as written, or a member name written with escapes.
        if !text.contains(projection::ARGUMENT) && !text.contains("\\u") {
            return None;
        }
        let target = crate::policy::Target::of_call(contract, "tools/call", tool.into(), arguments);
        contract.result_budget(&target.key)?;
        #[derive(serde::Deserialize)]
        struct Filter {
            #[serde(default)]
            jq: Option<serde_json::Value>,
        }
        let filter: Filter = serde_json::from_str(target.arguments?.get()).ok()?;
        match filter.jq? {
            serde_json::Value::String(filter) => Some(Ok(filter)),
            serde_json::Value::Null => None,
            _ => Some(Err(format!(
                "`{}` must be a string: a jq filter, such as `{{number, hash}}`",
                projection::ARGUMENT
            ))),
        }
    }

    /// `answer` with `filter` applied to it when it is a success ([`projection`]): the filter's
    /// output as the success, or why there is none.
    pub(crate) async fn project(&self, filter: String, answer: Answer) -> Answer {
        let Answer::Success(raw) = &answer else {
            return answer;
        };
        match projection::project(&filter, raw.get()).await {
            Ok(output) => match RawValue::from_string(output) {
                Ok(raw) => Answer::Success(raw),
                Err(e) => Answer::Failed(crate::error::Error::new(format!(
                    "the jq filter's output is not JSON: {e}"
                ))),
            },
            Err(projection::Failure::Invalid(why)) => Answer::InvalidArguments(why),
            Err(projection::Failure::Failed(why)) => Answer::Failed(crate::error::Error::new(
                format!("the jq filter failed: {why}"),
            )),
        }
    }

    /// The tool result of `answer` (a success of `tool` with `arguments`, longer than the
    /// smallest budget) for `version`: an outline and a link when it is over the tool's budget
    /// (kept for `principal`), itself otherwise.
    #[cold]
    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    pub(crate) async fn apply(
        &self,
        contract: &Contract,
        tool: &str,
        arguments: Option<&RawValue>,
        version: ProtocolVersion,
        principal: Option<&Principal>,
        answer: Answer,
    ) -> Result<JsonText, RpcError> {
        let Answer::Success(raw) = &answer else {
            return answer.into_call_tool_result(version);
        };
        let text = raw.get();
        let Some(budget) = self
            .budget_of(contract, tool, arguments)
            .filter(|budget| text.len() > *budget)
        else {
            return answer.into_call_tool_result(version);
        };
        let id = format!("{}-{budget}", crate::ids::random_id());
        let key = store_key(&id, principal);
        let kept = self.store.keep(&key, text, self.keep).await;
        if let Err(reason) = &kept {
            tracing::warn!(%tool, bytes = text.len(), %reason, "a result over its budget could not be kept: only its outline is sent");
        }
        let outline = outline::outline(text, budget);
        Ok(preview(
            version,
            tool,
            &id,
            text.len(),
            budget,
            self.keep,
            kept.err(),
            &outline,
        ))
    }

    /// `resources/read` of `uri` when it is a kept result's (`None` otherwise): the whole
    /// result or one page of it, for the principal whose call kept it.
    pub(crate) async fn read(
        &self,
        uri: &str,
        ctx: &RequestContext,
    ) -> Option<Result<JsonText, RpcError>> {
        let rest = uri.strip_prefix(SCHEME)?;
        let not_found = |why: &str| {
            let message = format!("Resource not found: {uri} ({why})");
            Err(match ctx.protocol_version().is_stateless() {
                true => RpcError::invalid_params(message),
                false => RpcError::new(jsonrpc::RESOURCE_NOT_FOUND, message),
            }
            .with_data(serde_json::json!({ "uri": uri })))
        };
        let Some(kept) = KeptUri::parse(rest) else {
            return Some(not_found("no result was kept under this name"));
        };
        let key = store_key(kept.id, ctx.principal());
        let read = match kept.page {
            None => self.store.read(&key, 0, usize::MAX).await,
            // A page is `page_size` bytes from its start, both ends moved forward to the next
            // character boundary (at most 3 bytes on), so the pages tile the text exactly.
            Some(page) => {
                let start = (page - 1).saturating_mul(kept.page_size);
                let end = start.saturating_add(kept.page_size);
                let read = self.store.read(&key, start, end.saturating_add(3)).await;
                read.map(|slice| slice.map(|slice| page_of(slice, start, end)))
            }
        };
        Some(match read {
            Err(reason) => Err(unavailable(&reason)),
            Ok(None) => not_found("kept results expire: call the tool again"),
            Ok(Some(slice))
                if kept
                    .page
                    .is_some_and(|page| page > 1 && slice.bytes.is_empty()) =>
            {
                let pages = slice.len.div_ceil(kept.page_size);
                Err(RpcError::invalid_params(format!(
                    "Invalid params: {uri}: the result has {pages} pages"
                )))
            }
            Ok(Some(slice)) => {
                let mime = match kept.page {
                    Some(_) => "text/plain",
                    None => "application/json",
                };
                match String::from_utf8(slice.bytes) {
                    Ok(text) => Ok(JsonText::trusted(
                        serde_json::json!({
                            "contents": [{ "uri": uri, "mimeType": mime, "text": text }]
                        })
                        .to_string(),
                    )),
                    Err(_) => Err(RpcError::internal(
                        "Internal error: a kept result is not text",
                    )),
                }
            }
        })
    }
}

/// A kept result's URI past its scheme: `<64 hex>-<page size>`, then `/<page>` for a page.
/// The page size is part of the name the result is kept under, so a changed one names nothing.
#[derive(Debug, PartialEq)]
struct KeptUri<'a> {
    /// `<64 hex>-<page size>`: what the result is kept under (with its owner).
    id: &'a str,
    page_size: usize,
    page: Option<usize>,
}

impl<'a> KeptUri<'a> {
    fn parse(rest: &'a str) -> Option<Self> {
        let (id, page) = match rest.split_once('/') {
            Some((id, page)) => (id, Some(number(page).filter(|page| *page > 0)?)),
            None => (rest, None),
        };
        let (random, page_size) = id.split_once('-')?;
        let page_size = number(page_size).filter(|size| *size > 0)?;
        crate::ids::is_random_id(random).then_some(Self {
            id,
            page_size,
            page,
        })
    }
}

/// A number written in decimal digits without a leading zero (one spelling per number, so one
/// URI per page).
fn number(text: &str) -> Option<usize> {
    let canonical = !text.is_empty()
        && text.len() <= 12
        && text.bytes().all(|b| b.is_ascii_digit())
        && (text == "0" || !text.starts_with('0'));
    canonical.then(|| text.parse().ok()).flatten()
}

/// What a kept result is stored under: its id and who may read it (the principal's
/// [`owner_digest`](Principal::owner_digest), as tasks name theirs; `-` without authorization,
/// where the id alone is the key).
fn store_key(id: &str, principal: Option<&Principal>) -> String {
    match principal {
        Some(principal) => format!("{id}:{}", principal.owner_digest()),
        None => format!("{id}:-"),
    }
}

/// The page `[start, end)` of a result from `slice` (read from `start` to 3 bytes past `end`):
/// each end moved forward past UTF-8 continuation bytes, so no character is cut.
fn page_of(mut slice: Slice, start: usize, end: usize) -> Slice {
    let continuation = |b: &u8| b & 0b1100_0000 == 0b1000_0000;
    let skip = |at: usize, bytes: &[u8]| {
        bytes[at.min(bytes.len())..]
            .iter()
            .take(3)
            .take_while(|b| continuation(b))
            .count()
    };
    let first = if start == 0 { 0 } else { skip(0, &slice.bytes) };
    let last = (end - start).min(slice.bytes.len());
    let last = last + skip(last, &slice.bytes);
    slice.bytes.truncate(last);
    slice.bytes.drain(..first.min(last));
    slice
}

/// The error of a store that did not answer (Redis away): retryable.
fn unavailable(reason: &str) -> RpcError {
    tracing::warn!(%reason, "the kept results' store did not answer");
    RpcError::internal("Internal error: kept results are unavailable right now; retry shortly")
}

/// The answer to a call whose result (`bytes` long, over `budget`) was kept under `id`: its
/// outline and a link to it (`failed`: why it could not be kept, and then no link).
#[allow(clippy::too_many_arguments)]
fn preview(
    version: ProtocolVersion,
    tool: &str,
    id: &str,
    bytes: usize,
    budget: usize,
    keep: Duration,
    failed: Option<String>,
    outline: &str,
) -> JsonText {
    let uri = format!("{SCHEME}{id}");
    let pages = bytes.div_ceil(budget);
    let mut text = format!(
        "The result is {} bytes, over this tool's budget of {} bytes. ",
        grouped(bytes),
        grouped(budget)
    );
    match &failed {
        None => {
            let _ = write!(
                text,
                "It is kept for {}: read it with resources/read, whole at {uri}, or in {pages} \
                 pages of at most {} bytes, {uri}/1 to {uri}/{pages}, which put together are \
                 the result.",
                human(keep),
                grouped(budget),
            );
        }
        Some(_) => text.push_str(
            "It could not be kept to be read later: ask for less (a narrower range or filter).",
        ),
    }
    text.push_str("\nIts outline (arrays cut to their first items, long strings shortened):\n");
    text.push_str(outline);
    let block = serde_json::json!({ "type": "text", "text": text });
    let link = serde_json::json!({
        "type": "resource_link",
        "uri": uri,
        "name": format!("{tool}-result"),
        "description": format!("The whole result of {tool}, {} bytes, kept for {}; its pages are {uri}/1 to {uri}/{pages}.", grouped(bytes), human(keep)),
        "mimeType": "application/json",
        "size": bytes,
    });
    // Resource links exist from 2025-06-18; before, the text names the URIs.
    let content = match (failed, version >= ProtocolVersion::V2025_06_18) {
        (None, true) => serde_json::json!([block, link]),
        _ => serde_json::json!([block]),
    };
    JsonText::trusted(serde_json::json!({ "content": content }).to_string())
}

/// `keep` in words: `10 minutes`, `1 hour`, `90 seconds`.
fn human(keep: Duration) -> String {
    let secs = keep.as_secs();
    let (n, unit) = match secs {
        s if s >= 3600 && s % 3600 == 0 => (s / 3600, "hour"),
        s if s >= 60 && s % 60 == 0 => (s / 60, "minute"),
        s => (s, "second"),
    };
    match n {
        1 => format!("1 {unit}"),
        n => format!("{n} {unit}s"),
    }
}

/// `n` with its thousands grouped by commas: `1,234,567`.
fn grouped(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

#[cfg(test)]
mod tests;
