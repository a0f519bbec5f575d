//! The catalog mode of a large contract: three tools in place of hundreds.
//!
//! A document of hundreds of methods (Lotus full: 240, Forest: 276) is too big to list as
//! tools for a model: its `tools/list` runs to hundreds of kilobytes. [`ToolCatalog`] wraps a
//! server and, in [`ToolMode::Catalog`], publishes three tools instead, whatever the contract's
//! size:
//!
//! - `search_tools` `{query, limit?}`: the contract's tools ranked by how well they match
//!   `query` (BM25 over names, titles, descriptions and parameter names, with stemming,
//!   camelCase splitting and a few synonyms: "latest block" finds `eth_blockNumber`), with
//!   their names and first description lines;
//! - `describe_tool` `{name}`: one tool's whole descriptor (its `inputSchema` above all) at the
//!   client's revision;
//! - `call_tool` `{name, arguments}`: calls that tool, through the wrapped server's own typed
//!   validation and handler (for a gateway, its forwarding): nothing is looser than a direct
//!   call.
//!
//! Prompts, resources and everything else are the wrapped server's. [`ToolMode::Tools`] (the
//! default) publishes the contract's tools as they are: the wrapper then only passes calls on.
//!
//! The policy decides a `call_tool` on the tool it names (`policy::Target`): that
//! tool's scopes and step-up, its rate limit (the same bucket as a direct call's) and its
//! audit record, on every door. `search_tools` and `describe_tool` never show a tool that
//! `tools/list` would hide from the caller (`hideUnauthorized`), and need what any tool call
//! needs at least: the document's default scopes.

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{json, Value};
use std::sync::OnceLock;

use crate::catalog::{Catalog, CompletionKind, CompletionRequest, Descriptor};
use crate::context::RequestContext;
use crate::dispatch::{Answer, BoxFuture, Call, CallKind, Contract, Dispatch};
use crate::error::Error;
use crate::policy::InnerCall;
use search::Index;

mod search;

/// How a server publishes its tools.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ToolMode {
    /// Every tool of the contract, as it is.
    #[default]
    Tools,
    /// Three tools that search, describe and call the contract's ([`ToolCatalog`]).
    Catalog,
}

impl std::str::FromStr for ToolMode {
    type Err = ParseToolModeError;

    fn from_str(text: &str) -> Result<Self, ParseToolModeError> {
        match text.trim() {
            "tools" => Ok(Self::Tools),
            "catalog" => Ok(Self::Catalog),
            other => Err(ParseToolModeError {
                text: other.to_owned(),
            }),
        }
    }
}

/// Why a text is not a [`ToolMode`] (its `FromStr`): neither `tools` nor `catalog`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseToolModeError {
    /// The text refused (trimmed).
    pub text: String,
}

impl std::fmt::Display for ParseToolModeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{:?} is not a tool mode: `tools` (every tool) or `catalog` (search_tools, \
             describe_tool, call_tool)",
            self.text
        )
    }
}

impl std::error::Error for ParseToolModeError {}

/// Most entries one `search_tools` answers, whatever its `limit`.
const MAX_RESULTS: usize = 50;

/// The entries of a search without `limit`.
const DEFAULT_RESULTS: usize = 20;

/// Longest description one search entry shows (its first line, cut here).
const SUMMARY_CHARS: usize = 160;

/// The three tools' descriptors, per revision (2025-03-26, 2025-06-18, 2025-11-25,
/// 2026-07-28): the same but for `title` and `annotations`, which 2025-03-26 lacks titles of.
static TOOLS: [Descriptor; 3] = [
    Descriptor {
        key: "search_tools",
        json: [
            r#"{"name":"search_tools","description":"Finds the tools of this server that `query` describes, in your own words, best first; answers their names and first description lines. Then describe_tool gives one's arguments, and call_tool calls it.","inputSchema":{"type":"object","properties":{"query":{"type":"string","description":"What the tool does, e.g. `account balance` or `latest block`; empty: every tool."},"limit":{"type":"integer","minimum":1,"maximum":50,"description":"Most tools to answer (default 20)."}},"required":["query"]},"annotations":{"readOnlyHint":true,"openWorldHint":false}}"#,
            r#"{"name":"search_tools","title":"Search the tools","description":"Finds the tools of this server that `query` describes, in your own words, best first; answers their names and first description lines. Then describe_tool gives one's arguments, and call_tool calls it.","inputSchema":{"type":"object","properties":{"query":{"type":"string","description":"What the tool does, e.g. `account balance` or `latest block`; empty: every tool."},"limit":{"type":"integer","minimum":1,"maximum":50,"description":"Most tools to answer (default 20)."}},"required":["query"]},"annotations":{"readOnlyHint":true,"openWorldHint":false}}"#,
            r#"{"name":"search_tools","title":"Search the tools","description":"Finds the tools of this server that `query` describes, in your own words, best first; answers their names and first description lines. Then describe_tool gives one's arguments, and call_tool calls it.","inputSchema":{"type":"object","properties":{"query":{"type":"string","description":"What the tool does, e.g. `account balance` or `latest block`; empty: every tool."},"limit":{"type":"integer","minimum":1,"maximum":50,"description":"Most tools to answer (default 20)."}},"required":["query"]},"annotations":{"readOnlyHint":true,"openWorldHint":false}}"#,
            r#"{"name":"search_tools","title":"Search the tools","description":"Finds the tools of this server that `query` describes, in your own words, best first; answers their names and first description lines. Then describe_tool gives one's arguments, and call_tool calls it.","inputSchema":{"type":"object","properties":{"query":{"type":"string","description":"What the tool does, e.g. `account balance` or `latest block`; empty: every tool."},"limit":{"type":"integer","minimum":1,"maximum":50,"description":"Most tools to answer (default 20)."}},"required":["query"]},"annotations":{"readOnlyHint":true,"openWorldHint":false}}"#,
        ],
    },
    Descriptor {
        key: "describe_tool",
        json: [
            r#"{"name":"describe_tool","description":"The whole description of one tool of this server, found with search_tools: what it does, its arguments (`inputSchema`) and its annotations.","inputSchema":{"type":"object","properties":{"name":{"type":"string","description":"The tool's name, as search_tools answers it."}},"required":["name"]},"annotations":{"readOnlyHint":true,"openWorldHint":false}}"#,
            r#"{"name":"describe_tool","title":"Describe a tool","description":"The whole description of one tool of this server, found with search_tools: what it does, its arguments (`inputSchema`) and its annotations.","inputSchema":{"type":"object","properties":{"name":{"type":"string","description":"The tool's name, as search_tools answers it."}},"required":["name"]},"annotations":{"readOnlyHint":true,"openWorldHint":false}}"#,
            r#"{"name":"describe_tool","title":"Describe a tool","description":"The whole description of one tool of this server, found with search_tools: what it does, its arguments (`inputSchema`) and its annotations.","inputSchema":{"type":"object","properties":{"name":{"type":"string","description":"The tool's name, as search_tools answers it."}},"required":["name"]},"annotations":{"readOnlyHint":true,"openWorldHint":false}}"#,
            r#"{"name":"describe_tool","title":"Describe a tool","description":"The whole description of one tool of this server, found with search_tools: what it does, its arguments (`inputSchema`) and its annotations.","inputSchema":{"type":"object","properties":{"name":{"type":"string","description":"The tool's name, as search_tools answers it."}},"required":["name"]},"annotations":{"readOnlyHint":true,"openWorldHint":false}}"#,
        ],
    },
    Descriptor {
        key: "call_tool",
        json: [
            r#"{"name":"call_tool","description":"Calls one tool of this server by name with its arguments, as describe_tool describes them; answers what the tool answers. Check what a tool does (describe_tool) before calling one that changes anything.","inputSchema":{"type":"object","properties":{"name":{"type":"string","description":"The tool's name."},"arguments":{"type":"object","description":"The tool's arguments, as its inputSchema says."}},"required":["name"]},"annotations":{"readOnlyHint":false,"destructiveHint":true,"openWorldHint":true}}"#,
            r#"{"name":"call_tool","title":"Call a tool","description":"Calls one tool of this server by name with its arguments, as describe_tool describes them; answers what the tool answers. Check what a tool does (describe_tool) before calling one that changes anything.","inputSchema":{"type":"object","properties":{"name":{"type":"string","description":"The tool's name."},"arguments":{"type":"object","description":"The tool's arguments, as its inputSchema says."}},"required":["name"]},"annotations":{"readOnlyHint":false,"destructiveHint":true,"openWorldHint":true}}"#,
            r#"{"name":"call_tool","title":"Call a tool","description":"Calls one tool of this server by name with its arguments, as describe_tool describes them; answers what the tool answers. Check what a tool does (describe_tool) before calling one that changes anything.","inputSchema":{"type":"object","properties":{"name":{"type":"string","description":"The tool's name."},"arguments":{"type":"object","description":"The tool's arguments, as its inputSchema says."}},"required":["name"]},"annotations":{"readOnlyHint":false,"destructiveHint":true,"openWorldHint":true}}"#,
            r#"{"name":"call_tool","title":"Call a tool","description":"Calls one tool of this server by name with its arguments, as describe_tool describes them; answers what the tool answers. Check what a tool does (describe_tool) before calling one that changes anything.","inputSchema":{"type":"object","properties":{"name":{"type":"string","description":"The tool's name."},"arguments":{"type":"object","description":"The tool's arguments, as its inputSchema says."}},"required":["name"]},"annotations":{"readOnlyHint":false,"destructiveHint":true,"openWorldHint":true}}"#,
        ],
    },
];

/// A server in a [`ToolMode`]: in [`ToolMode::Catalog`], its tools behind `search_tools`,
/// `describe_tool` and `call_tool` (see the [module](self)); in [`ToolMode::Tools`], the
/// server as it is.
#[derive(Debug)]
pub struct ToolCatalog<D> {
    inner: D,
    mode: ToolMode,
    /// The contract published in [`ToolMode::Catalog`], made on first use and kept for the
    /// process (a [`Dispatch`] hands out `&'static` contracts).
    contract: OnceLock<&'static Contract>,
    /// The inner contract's tools made searchable, on the first `search_tools`.
    index: OnceLock<Index>,
}

impl<D: Dispatch> ToolCatalog<D> {
    /// `inner` in `mode`.
    pub fn new(inner: D, mode: ToolMode) -> Self {
        Self {
            inner,
            mode,
            contract: OnceLock::new(),
            index: OnceLock::new(),
        }
    }

    /// The wrapped server.
    pub fn inner(&self) -> &D {
        &self.inner
    }

    /// The tool mode.
    pub fn mode(&self) -> ToolMode {
        self.mode
    }

    /// The contract in [`ToolMode::Catalog`]: the inner one with the three tools in place of
    /// the contract's, `call_tool` marked as the call that names its tool
    /// ([`Contract::catalog_call`]: the policy decides it on that tool, by the inner
    /// contract's scopes and limits). Searching and describing (and a `call_tool` whose
    /// arguments do not read, which the catalog refuses) need what any tool call needs at
    /// least: the document's default (what an unknown tool name is given).
    fn catalog_mode(&self) -> &'static Contract {
        self.contract.get_or_init(|| {
            let inner: &'static Contract = self.inner.contract();
            let catalog = inner.catalog();
            let count = catalog.tools.len();
            let note = format!(
                "This server's {count} tools are reached through search_tools, describe_tool and call_tool."
            );
            let instructions = match catalog.instructions {
                Some(text) => format!("{text}\n\n{note}"),
                None => note,
            };
            let catalog: &'static Catalog = Box::leak(Box::new(Catalog {
                server: catalog.server,
                instructions: Some(Box::leak(instructions.into_boxed_str())),
                tools: &TOOLS,
                prompts: catalog.prompts,
                resources: catalog.resources,
                resource_templates: catalog.resource_templates,
                completions: catalog.completions,
            }));
            let required_scopes = Box::leak(Box::new(move |method: &str, key: &str| {
                match (method, key) {
                    ("tools/call", "search_tools" | "describe_tool" | "call_tool") => {
                        inner.required_scopes("tools/call", "")
                    }
                    _ => inner.required_scopes(method, key),
                }
            }));
            Box::leak(Box::new(
                inner
                    .with_catalog(catalog)
                    .with_required_scopes(required_scopes)
                    .with_catalog_call("call_tool"),
            ))
        })
    }

    /// `search_tools`: the tools the query finds, best first (`search::Index`),
    /// `{"tools": [{"name", "description"}], "total"}`.
    fn search(&self, arguments: Option<&RawValue>, ctx: &RequestContext) -> Answer {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Search {
            query: String,
            limit: Option<usize>,
        }
        let search: Search = match parse(arguments) {
            Ok(search) => search,
            Err(why) => return Answer::InvalidArguments(why),
        };
        let limit = search
            .limit
            .unwrap_or(DEFAULT_RESULTS)
            .clamp(1, MAX_RESULTS);
        let tools = self.inner.contract().catalog().tools;
        let index = self
            .index
            .get_or_init(|| Index::new(tools.iter().map(|tool| tool.json[3])));
        let version = ctx.protocol_version();
        let mut total = 0;
        let mut found = Vec::new();
        for tool in index.search(&search.query).into_iter().map(|at| &tools[at]) {
            if !self.shown(tool, ctx) {
                continue;
            }
            total += 1;
            if found.len() < limit {
                let description = serde_json::from_str::<Value>(tool.json_for(version))
                    .ok()
                    .and_then(|json| json["description"].as_str().map(summary))
                    .unwrap_or_default();
                found.push(json!({"name": tool.key, "description": description}));
            }
        }
        json_outcome(&json!({"tools": found, "total": total}))
    }

    /// `describe_tool`: the named tool's descriptor at the client's revision.
    fn describe(&self, arguments: Option<&RawValue>, ctx: &RequestContext) -> Answer {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Describe {
            name: String,
        }
        let describe: Describe = match parse(arguments) {
            Ok(describe) => describe,
            Err(why) => return Answer::InvalidArguments(why),
        };
        match self
            .tool(&describe.name)
            .filter(|tool| self.shown(tool, ctx))
        {
            Some(tool) => {
                match RawValue::from_string(tool.json_for(ctx.protocol_version()).to_string()) {
                    Ok(json) => Answer::Success(json),
                    Err(error) => Answer::Failed(Error::new(error.to_string())),
                }
            }
            None => unknown_tool(&describe.name),
        }
    }

    /// Whether the caller of `ctx` may see `tool`: as `tools/list` shows it, every tool but
    /// one whose scopes the caller lacks when the contract hides those.
    fn shown(&self, tool: &Descriptor, ctx: &RequestContext) -> bool {
        let contract = self.inner.contract();
        match ctx.principal() {
            Some(principal) if contract.hides_unauthorized() => contract
                .required_scopes("tools/call", tool.key)
                .iter()
                .all(|scope| principal.has_scope(scope)),
            _ => true,
        }
    }

    fn tool(&self, name: &str) -> Option<&'static Descriptor> {
        self.inner
            .contract()
            .catalog()
            .tools
            .iter()
            .find(|tool| tool.key == name)
    }
}

/// Reads `arguments` (absent: `{}`) as `T`; the error is the reason.
fn parse<'a, T: Deserialize<'a>>(arguments: Option<&'a RawValue>) -> Result<T, String> {
    serde_json::from_str(arguments.map_or("{}", RawValue::get)).map_err(|e| e.to_string())
}

/// A result of `value`'s JSON.
fn json_outcome(value: &Value) -> Answer {
    match serde_json::value::to_raw_value(value) {
        Ok(json) => Answer::Success(json),
        Err(error) => Answer::Failed(Error::new(error.to_string())),
    }
}

/// The first line of `description`, at most [`SUMMARY_CHARS`] characters.
fn summary(description: &str) -> String {
    let line = description
        .lines()
        .map(str::trim)
        .find(|line| !line.is_empty() && !line.starts_with("```"))
        .unwrap_or("");
    match line.char_indices().nth(SUMMARY_CHARS) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None => line.to_string(),
    }
}

fn unknown_tool(name: &str) -> Answer {
    Answer::Failed(Error::new(format!(
        "no tool {name:?} here: search_tools finds the tools' names"
    )))
}

impl<D: Dispatch> Dispatch for ToolCatalog<D> {
    fn contract(&self) -> &'static Contract {
        match self.mode {
            ToolMode::Tools => self.inner.contract(),
            ToolMode::Catalog => self.catalog_mode(),
        }
    }

    fn call<'a>(&'a self, call: Call<'a>) -> Option<BoxFuture<'a, Answer>> {
        if self.mode == ToolMode::Tools || call.kind() != CallKind::Tool {
            return self.inner.call(call);
        }
        let answer = match call.name() {
            "search_tools" => self.search(call.raw_arguments(), call.context()),
            "describe_tool" => self.describe(call.raw_arguments(), call.context()),
            "call_tool" => {
                let (_, _, arguments, ctx) = call.into_parts();
                return Some(Box::pin(async move {
                    // Read as the policy read it, so both name the same tool.
                    let call = match InnerCall::read(arguments.as_deref()) {
                        Ok(call) => call,
                        Err(why) => return Answer::InvalidArguments(why),
                    };
                    let inner = Call::new(CallKind::Tool, &call.name, call.arguments, ctx);
                    let running = self.inner.call(inner);
                    match running {
                        Some(running) => running.await,
                        None => unknown_tool(&call.name),
                    }
                }));
            }
            _ => return None,
        };
        Some(Box::pin(std::future::ready(answer)))
    }

    fn complete<'a>(
        &'a self,
        kind: CompletionKind,
        reference: &str,
        argument: &str,
        request: CompletionRequest,
        ctx: RequestContext,
    ) -> Option<BoxFuture<'a, Result<Vec<String>, Error>>> {
        self.inner.complete(kind, reference, argument, request, ctx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_mode_errors_are_typed_and_display_the_old_message() {
        assert_eq!(" catalog ".parse::<ToolMode>(), Ok(ToolMode::Catalog));
        let error = " all ".parse::<ToolMode>().unwrap_err();
        assert_eq!(error, ParseToolModeError { text: "all".into() });
        assert_eq!(
            error.to_string(),
            "\"all\" is not a tool mode: `tools` (every tool) or `catalog` (search_tools, \
             describe_tool, call_tool)"
        );
    }

    #[test]
    fn the_three_descriptors_are_json_and_under_five_kilobytes_together() {
        for revision in 0..4 {
            let mut bytes = 0;
            for tool in &TOOLS {
                let value: Value = serde_json::from_str(tool.json[revision]).unwrap();
                assert_eq!(value["name"], tool.key);
                bytes += tool.json[revision].len();
            }
            assert!(bytes < 5 * 1024, "{bytes} bytes");
        }
    }

    #[test]
    fn summaries_are_a_first_line_cut_short() {
        assert_eq!(summary("```go\nfunc x()\n```"), "func x()");
        assert_eq!(
            summary("\n  Returns the balance.\nMore."),
            "Returns the balance."
        );
        let long = "é".repeat(300);
        assert_eq!(summary(&long).chars().count(), SUMMARY_CHARS + 1);
        assert_eq!("tools".parse::<ToolMode>(), Ok(ToolMode::Tools));
        assert!("all"
            .parse::<ToolMode>()
            .unwrap_err()
            .to_string()
            .contains("catalog"));
    }
}
