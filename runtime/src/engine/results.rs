//! The results the engine writes itself: `initialize`, `server/discover` (each built once),
//! the pages of the lists, `completion/complete`, the acknowledgement of a
//! `subscriptions/listen` stream, and the opening of a resource's updates at the dispatch
//! ([`CallKind::Subscribe`]).

use serde::Deserialize;
use serde_json::json;
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::sync::OnceLock;

use super::method::Method;
use super::{params_as, Engine};
use crate::auth::Principal;
use crate::catalog::{CompletionKind, CompletionRequest};
use crate::config::CacheScope;
use crate::context::RequestContext;
use crate::delivery::notifier::{ListenBounds, ListenFull, Subscription, SubscriptionFilter};
use crate::dispatch::{Call, CallKind, Dispatch};
use crate::error::Error;
use crate::json::JsonText;
use crate::jsonrpc::RpcError;
use crate::panic::CatchUnwind;
use crate::protocol::ProtocolVersion;
use crate::skills::{self, SKILLS_EXTENSION};
use crate::tasks::TASKS_EXTENSION;

#[derive(Deserialize, Default)]
struct CursorParams<'a> {
    #[serde(borrow, default, deserialize_with = "crate::json::borrowed_str")]
    cursor: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct CompleteParams<'a> {
    #[serde(rename = "ref", borrow)]
    reference: CompleteRef<'a>,
    #[serde(borrow)]
    argument: CompleteArgument<'a>,
    /// `context` (2025-06-18 on): the arguments already chosen.
    #[serde(default)]
    context: CompleteContext,
}

#[derive(Deserialize, Default)]
struct CompleteContext {
    #[serde(default)]
    arguments: std::collections::BTreeMap<String, String>,
}

#[derive(Deserialize)]
struct CompleteRef<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(borrow, default, deserialize_with = "crate::json::borrowed_str")]
    name: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "crate::json::borrowed_str")]
    uri: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct CompleteArgument<'a> {
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(borrow, default)]
    value: Cow<'a, str>,
}

/// A `CompleteResult`: the first 100 of `values`, their total, and whether more were left out.
fn completion_result<S: serde::Serialize>(values: &[S]) -> JsonText {
    let total = values.len();
    let sent = &values[..total.min(MAX_COMPLETION_VALUES)];
    let has_more = total > sent.len();
    JsonText::trusted(
        json!({"completion": {"values": sent, "total": total, "hasMore": has_more}}).to_string(),
    )
}

/// The most values one `CompleteResult` may carry (the specification's limit).
const MAX_COMPLETION_VALUES: usize = 100;

/// The features a server offers, read from its catalog.
struct Offered {
    tools: bool,
    prompts: bool,
    resources: bool,
    /// Completion of prompt arguments and resource template variables.
    completions: bool,
    /// Bundled skills (the skills extension).
    skills: bool,
}

/// The results that never change once the server runs, each built on first use and then
/// answered as it is: a part of the engine of its own.
#[derive(Default)]
pub(super) struct Fixed {
    /// The `initialize` result of each revision.
    pub initialize: [OnceLock<String>; ProtocolVersion::ALL.len()],
    /// The `server/discover` result.
    pub discover: OnceLock<String>,
    /// The plain endpoint's `rpc.discover` document ([`crate::policy::plain_document`]).
    pub plain_document: OnceLock<Option<String>>,
    /// The tool descriptors of 2024-11-05 (without `annotations`).
    pub legacy_tools: OnceLock<Box<[String]>>,
}

impl<D: Dispatch> Engine<D> {
    /// The `initialize` result of a session-era `version`, from the wire model. The
    /// 2025-11-25 types serve every session revision: what an older one lacks (the
    /// `completions` capability before 2025-03-26, a title before 2025-06-18, a website
    /// before 2025-11-25) is left out.
    pub(super) fn build_initialize_result(&self, version: ProtocolVersion) -> String {
        use crate::wire::v2025_11_25 as wire;
        let catalog = self.dispatch.contract().catalog();
        let server = &catalog.server;
        let capabilities = self.capabilities();
        let result = wire::InitializeResult {
            meta: None,
            capabilities: wire::ServerCapabilities {
                // The capability came with 2025-03-26 (2024-11-05 clients complete without it).
                completions: (capabilities.completions && version >= ProtocolVersion::V2025_03_26)
                    .then(Default::default),
                logging: Some(Default::default()),
                prompts: capabilities
                    .prompts
                    .then_some(wire::ServerCapabilitiesPrompts {
                        list_changed: Some(true),
                    }),
                resources: capabilities
                    .resources
                    .then_some(wire::ServerCapabilitiesResources {
                        list_changed: Some(true),
                        subscribe: Some(true),
                    }),
                tools: capabilities.tools.then_some(wire::ServerCapabilitiesTools {
                    list_changed: Some(true),
                }),
                experimental: None,
                tasks: None,
            },
            instructions: catalog.instructions.map(str::to_string),
            protocol_version: version.as_str().to_string(),
            server_info: wire::Implementation {
                name: server.name.to_string(),
                version: server.version.to_string(),
                title: server
                    .title
                    .filter(|_| version >= ProtocolVersion::V2025_06_18)
                    .map(str::to_string),
                website_url: server
                    .website_url
                    .filter(|_| version >= ProtocolVersion::V2025_11_25)
                    .map(str::to_string),
                description: None,
                icons: None,
            },
        };
        let text = serde_json::to_string(&result).expect("an initialize result serializes");
        let text = self.with_passback_capability(text);
        // The session revisions' capabilities have no `extensions` member; the extension is
        // declared there all the same, for the clients of those revisions that look for it.
        match capabilities.skills {
            true => with_skills_extension(&text),
            false => text,
        }
    }

    /// The whole `server/discover` result, cache hints included, from the wire model.
    /// Change notifications reach clients through `subscriptions/listen`, hence no `logging`;
    /// a server with tools offers the tasks extension.
    pub(super) fn build_discover_result(&self) -> String {
        use crate::wire::v2026_07_28 as wire;
        let catalog = self.dispatch.contract().catalog();
        let server = &catalog.server;
        let capabilities = self.capabilities();
        let hint = self.config.cache_hints.discover;
        let result = wire::DiscoverResult {
            meta: Some(wire::ResultMetaObject {
                io_modelcontextprotocol_server_info: Some(wire::Implementation {
                    name: server.name.to_string(),
                    version: server.version.to_string(),
                    title: server.title.map(str::to_string),
                    website_url: server.website_url.map(str::to_string),
                    description: None,
                    icons: None,
                }),
            }),
            cache_scope: match hint.scope {
                CacheScope::Public => wire::DiscoverResultCacheScope::Public,
                CacheScope::Private => wire::DiscoverResultCacheScope::Private,
            },
            ttl_ms: i64::try_from(hint.ttl.as_millis()).unwrap_or(i64::MAX),
            result_type: "complete".to_string(),
            capabilities: wire::ServerCapabilities {
                completions: capabilities.completions.then(Default::default),
                prompts: capabilities
                    .prompts
                    .then_some(wire::ServerCapabilitiesPrompts {
                        list_changed: Some(true),
                    }),
                resources: capabilities
                    .resources
                    .then_some(wire::ServerCapabilitiesResources {
                        list_changed: Some(true),
                        subscribe: Some(true),
                    }),
                tools: capabilities.tools.then_some(wire::ServerCapabilitiesTools {
                    list_changed: Some(true),
                }),
                extensions: capabilities
                    .tools
                    .then(|| [(TASKS_EXTENSION.to_string(), Default::default())].into()),
                experimental: None,
                logging: None,
            },
            instructions: catalog.instructions.map(str::to_string),
            supported_versions: ProtocolVersion::ALL
                .iter()
                .map(|v| v.as_str().to_string())
                .collect(),
        };
        let text = serde_json::to_string(&result).expect("a discover result serializes");
        let text = self.with_passback_capability(text);
        match capabilities.skills {
            true => with_skills_extension(&text),
            false => text,
        }
    }

    /// `result` with the `serverExecutionTelemetry` capability (draft SEP-2448) when the
    /// server returns traces (feature `otel`, [`crate::config::Telemetry::return_traces`]).
    fn with_passback_capability(&self, result: String) -> String {
        #[cfg(feature = "otel")]
        if self.config.telemetry.return_traces {
            use crate::telemetry::passback;
            let mut value: serde_json::Value =
                serde_json::from_str(&result).expect("a result this crate wrote parses");
            value["capabilities"][passback::CAPABILITY] = passback::capability();
            return value.to_string();
        }
        result
    }

    /// What the catalog lets the server offer, in either era. Skill files are resources, so
    /// a server with skills offers `resources` (the extension requires it).
    fn capabilities(&self) -> Offered {
        let catalog = self.dispatch.contract().catalog();
        let skills = !self.dispatch.contract().skills().is_empty();
        let resources =
            !catalog.resources.is_empty() || !catalog.resource_templates.is_empty() || skills;
        Offered {
            tools: !catalog.tools.is_empty(),
            prompts: !catalog.prompts.is_empty(),
            resources,
            completions: !catalog.prompts.is_empty() || !catalog.resource_templates.is_empty(),
            skills,
        }
    }

    /// `completion/complete`: what the handler offers for an argument the contract marks
    /// `x-mcp.complete`, else the declared `enum` values that start with what the user typed
    /// (case-insensitively); at most 100, with the total.
    pub(super) async fn complete(
        &self,
        params: Option<&RawValue>,
        ctx: RequestContext,
    ) -> Result<JsonText, RpcError> {
        let request: CompleteParams<'_> = params_as(params)?;
        let catalog = self.dispatch.contract().catalog();
        let reference = &request.reference;
        let (kind, target) =
            match (reference.kind.as_ref(), &reference.name, &reference.uri) {
                ("ref/prompt", Some(name), _) => {
                    if catalog.prompt(name).is_none() {
                        return Err(RpcError::invalid_params(format!("Unknown prompt: {name}")));
                    }
                    (CompletionKind::Prompt, name.as_ref())
                }
                ("ref/resource", _, Some(uri)) => (CompletionKind::Resource, uri.as_ref()),
                _ => return Err(RpcError::invalid_params(
                    "Invalid params: ref must be ref/prompt with a name or ref/resource with a uri",
                )),
            };
        let argument = request.argument.name.as_ref();
        let asked = CompletionRequest {
            value: request.argument.value.to_string(),
            arguments: request.context.arguments,
        };
        if let Some(future) = self.dispatch.complete(kind, target, argument, asked, ctx) {
            let offered = match CatchUnwind::new(future).await {
                Ok(offered) => offered.map_err(Error::into_mcp_error)?,
                Err(panic) => {
                    tracing::error!(target, argument, %panic, "completion handler panicked");
                    return Err(RpcError::internal(
                        "Internal error: the completion handler failed unexpectedly",
                    ));
                }
            };
            return Ok(completion_result(&offered));
        }
        let typed = request.argument.value.to_lowercase();
        let matching: Vec<&str> = catalog
            .completions
            .iter()
            .filter(|c| c.kind == kind && c.reference == target && c.argument == argument)
            .flat_map(|c| c.values.iter().copied())
            .filter(|v| v.to_lowercase().starts_with(&typed))
            .collect();
        Ok(completion_result(&matching))
    }

    /// `tools/list`, `prompts/list`, `resources/list` or `resources/templates/list`. When the
    /// contract hides what a caller may not use ([`crate::Contract::hides_unauthorized`]), a
    /// `principal`'s lists leave out every entry whose contract scopes it lacks.
    pub(super) fn list(
        &self,
        method: Method,
        params: Option<&RawValue>,
        version: ProtocolVersion,
        principal: Option<&Principal>,
    ) -> Result<JsonText, RpcError> {
        let catalog = self.dispatch.contract().catalog();
        // The method whose contract scopes decide whether an entry is shown.
        let (key, descriptors, used_by) = match method {
            Method::ToolsList => ("tools", catalog.tools, "tools/call"),
            Method::PromptsList => ("prompts", catalog.prompts, "prompts/get"),
            Method::ResourcesList => ("resources", catalog.resources, "resources/read"),
            _ => (
                "resourceTemplates",
                catalog.resource_templates,
                "resources/read",
            ),
        };
        let legacy = method == Method::ToolsList && version == ProtocolVersion::V2024_11_05;
        let legacy_tools = if legacy { self.legacy_tools() } else { &[] };
        let nth = |i: usize| match legacy {
            true => legacy_tools[i].as_str(),
            false => descriptors[i].json_for(version),
        };
        let Some(principal) = principal.filter(|_| self.dispatch.contract().hides_unauthorized())
        else {
            return self.page_of(key, descriptors.len(), nth, params);
        };
        let visible: Vec<usize> = (0..descriptors.len())
            .filter(|&i| {
                let required = self
                    .dispatch
                    .contract()
                    .required_scopes(used_by, descriptors[i].key);
                required.iter().all(|scope| principal.has_scope(scope))
            })
            .collect();
        self.page_of(key, visible.len(), |i| nth(visible[i]), params)
    }

    /// The 2024-11-05 tool descriptors: 2025-03-26's without `annotations`, computed on first
    /// use.
    #[cold]
    fn legacy_tools(&self) -> &[String] {
        self.fixed.legacy_tools.get_or_init(|| {
            self.dispatch
                .contract()
                .catalog()
                .tools
                .iter()
                .map(|d| {
                    crate::mcp::legacy_shapes::tool_descriptor(
                        d.json_for(ProtocolVersion::V2024_11_05),
                    )
                })
                .collect()
        })
    }

    /// One page of a list of `len` serialized descriptors, the `i`th being `nth(i)`.
    fn page_of<'d>(
        &self,
        key: &str,
        len: usize,
        nth: impl Fn(usize) -> &'d str,
        params: Option<&RawValue>,
    ) -> Result<JsonText, RpcError> {
        let cursor: CursorParams<'_> = params_as(params)?;
        let start = match cursor.cursor.as_deref() {
            None | Some("") => 0,
            Some(text) => text
                .parse::<usize>()
                .ok()
                .filter(|&n| n <= len)
                .ok_or_else(|| RpcError::invalid_params(format!("Invalid cursor: {text}")))?,
        };
        let end = (start + self.config.limits.page_size.max(1)).min(len);
        let mut out =
            String::with_capacity(64 + (start..end).map(|i| nth(i).len() + 1).sum::<usize>());
        out.push_str("{\"");
        out.push_str(key);
        out.push_str("\":[");
        for i in start..end {
            if i > start {
                out.push(',');
            }
            out.push_str(nth(i));
        }
        out.push(']');
        if end < len {
            out.push_str(&format!(",\"nextCursor\":\"{end}\""));
        }
        out.push('}');
        Ok(JsonText::trusted(out))
    }

    /// Registers a `subscriptions/listen` stream (any transport): the acknowledgement message
    /// and the subscription its notifications arrive on. Only what this server can ever send
    /// is honoured, and echoed in the acknowledgement.
    /// With authorization on, one principal holds at most
    /// [`config.streams.max_listen_streams_per_principal`] of them, from whatever addresses.
    ///
    /// [`config.streams.max_listen_streams_per_principal`]:
    ///     crate::config::Streams::max_listen_streams_per_principal
    pub(crate) fn subscribe(
        &self,
        id: &RawValue,
        params: Option<&RawValue>,
        principal: Option<&Principal>,
    ) -> Result<(String, Subscription), RpcError> {
        #[derive(Deserialize)]
        struct ListenParams {
            notifications: SubscriptionFilter,
        }
        let requested = serde_json::from_str::<ListenParams>(params.map_or("{}", |p| p.get()))
            .map_err(|e| RpcError::invalid_params(format!("Invalid params: {e}")))?
            .notifications;
        if requested.resource_subscriptions.len() > self.config.streams.max_subscriptions {
            return Err(RpcError::invalid_params(format!(
                "Invalid params: {} resource subscriptions, more than one stream may name (config.streams.max_subscriptions = {})",
                requested.resource_subscriptions.len(),
                self.config.streams.max_subscriptions
            )));
        }
        let uris = &requested.resource_subscriptions;
        let bytes: usize = uris.iter().map(String::len).sum();
        let longest = uris.iter().map(String::len).max().unwrap_or(0);
        if bytes > self.config.streams.max_subscription_bytes
            || longest > crate::uri_template::MAX_URI_LEN
        {
            return Err(RpcError::invalid_params(format!(
                "Invalid params: resource subscriptions of {bytes} bytes, more than one stream may name (config.streams.max_subscription_bytes = {}, at most {} a URI)",
                self.config.streams.max_subscription_bytes,
                crate::uri_template::MAX_URI_LEN
            )));
        }
        let catalog = self.dispatch.contract().catalog();
        let has_resources = !catalog.resources.is_empty() || !catalog.resource_templates.is_empty();
        let honoured = SubscriptionFilter {
            tools_list_changed: requested.tools_list_changed && !catalog.tools.is_empty(),
            prompts_list_changed: requested.prompts_list_changed && !catalog.prompts.is_empty(),
            resources_list_changed: requested.resources_list_changed && has_resources,
            resource_subscriptions: if has_resources {
                requested.resource_subscriptions
            } else {
                Vec::new()
            },
        };
        let ack = format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{{"_meta":{{"io.modelcontextprotocol/subscriptionId":{}}},"notifications":{}}}}}"#,
            id.get(),
            serde_json::to_string(&honoured).expect("a filter serializes")
        );
        let owner = principal.map(Principal::owner_digest);
        let bounds = ListenBounds {
            total: self.config.streams.max_listen_streams,
            per_owner: self.config.streams.max_listen_streams_per_principal,
        };
        let subscription = self
            .notifier
            .listen(id.to_owned(), honoured, owner, bounds)
            .map_err(|full| {
                let (max, setting) = match full {
                    ListenFull::Server => (bounds.total, "config.streams.max_listen_streams"),
                    ListenFull::Owner => (bounds.per_owner, "config.streams.max_listen_streams_per_principal"),
                };
                tracing::warn!(max, setting, "a listen stream was refused: its maximum is held");
                let holder = match full {
                    ListenFull::Server => "the server holds",
                    ListenFull::Owner => "this principal holds",
                };
                RpcError::internal(format!(
                    "Internal error: {holder} {max} listen streams, its maximum ({setting}); try again later"
                ))
            })?;
        Ok((ack, subscription))
    }

    /// Opens the updates of the resource at `uri` at the dispatch (a [`CallKind::Subscribe`]
    /// call through the call seam), once a session has recorded its subscription (so that
    /// what opens sees a subscriber; the caller undoes it on a refusal): the dispatch's
    /// refusal is the client's error. A dispatch with nothing to open answers nothing, and
    /// the subscription is kept as before.
    pub(crate) async fn open_updates(
        &self,
        uri: &str,
        ctx: RequestContext,
    ) -> Result<(), RpcError> {
        let Some(future) = self.run(Call::new(CallKind::Subscribe, uri, None, ctx)) else {
            return Ok(());
        };
        match CatchUnwind::new(future).await {
            Ok(answer) if answer.is_success() => Ok(()),
            Ok(answer) => answer.into_result().map(drop),
            Err(panic) => {
                tracing::error!(%uri, %panic, "a subscription's handler panicked");
                Err(RpcError::internal(
                    "Internal error: the subscription failed unexpectedly",
                ))
            }
        }
    }

    /// Opens the updates of each resource a `subscriptions/listen` stream named
    /// ([`Subscription::resources`]) at the dispatch, before its acknowledgement is sent. The
    /// stream has no answer to carry a refusal: it is logged, and that resource's updates
    /// do not come.
    pub(crate) async fn open_listen_updates(&self, subscription: &Subscription) {
        for uri in &subscription.resources {
            let ctx =
                RequestContext::new(ProtocolVersion::V2026_07_28).with_notifier(&self.notifier);
            if let Err(error) = self.open_updates(uri, ctx).await {
                tracing::warn!(
                    %uri,
                    error = %error.message,
                    "a listen stream's resource subscription could not be opened: its updates will not come"
                );
            }
        }
    }
}

/// `result` (a result with `capabilities`) declaring the skills extension under
/// `capabilities.extensions`, beside any other extension. Built once per server.
fn with_skills_extension(result: &str) -> String {
    let mut value: serde_json::Value =
        serde_json::from_str(result).expect("a result this crate wrote parses");
    let capabilities = &mut value["capabilities"];
    if !capabilities["extensions"].is_object() {
        capabilities["extensions"] = json!({});
    }
    capabilities["extensions"][SKILLS_EXTENSION] = serde_json::Value::Object(skills::capability());
    value.to_string()
}
