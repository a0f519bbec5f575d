//! The results the engine writes itself: `initialize`, `server/discover` (each built once),
//! the pages of the lists, `completion/complete`, and the acknowledgement of a
//! `subscriptions/listen` stream.

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{json, Value};
use std::borrow::Cow;

use super::method::Method;
use super::{params_as, Engine};
use crate::dispatch::Dispatch;
use crate::json::JsonText;
use crate::jsonrpc::RpcError;
use crate::notifier::{Subscription, SubscriptionFilter};
use crate::protocol::ProtocolVersion;
use crate::tasks::TASKS_EXTENSION;
use crate::{CompletionKind, Descriptor};

#[derive(Deserialize, Default)]
struct CursorParams<'a> {
    #[serde(borrow, default, deserialize_with = "crate::params::borrowed_str")]
    cursor: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct CompleteParams<'a> {
    #[serde(rename = "ref", borrow)]
    reference: CompleteRef<'a>,
    #[serde(borrow)]
    argument: CompleteArgument<'a>,
}

#[derive(Deserialize)]
struct CompleteRef<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(borrow, default, deserialize_with = "crate::params::borrowed_str")]
    name: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "crate::params::borrowed_str")]
    uri: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct CompleteArgument<'a> {
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(borrow, default)]
    value: Cow<'a, str>,
}

impl<D: Dispatch> Engine<D> {
    /// The `initialize` result of `version`.
    pub(super) fn build_initialize_result(&self, version: ProtocolVersion) -> String {
        let catalog = self.dispatch.catalog();
        let mut server_info =
            json!({"name": catalog.server.name, "version": catalog.server.version});
        if version >= ProtocolVersion::V2025_06_18 {
            if let Some(title) = catalog.server.title {
                server_info["title"] = json!(title);
            }
        }
        if version >= ProtocolVersion::V2025_11_25 {
            if let Some(url) = catalog.server.website_url {
                server_info["websiteUrl"] = json!(url);
            }
        }
        let mut result = json!({
            "protocolVersion": version.as_str(),
            "capabilities": self.capabilities(false),
            "serverInfo": server_info,
        });
        if let Some(instructions) = catalog.instructions {
            result["instructions"] = json!(instructions);
        }
        result.to_string()
    }

    /// What the catalog lets the server offer: in a session (with `logging`), or on the
    /// stateless revision (change notifications through `subscriptions/listen`, and the tasks
    /// extension).
    fn capabilities(&self, stateless: bool) -> Value {
        let catalog = self.dispatch.catalog();
        let mut capabilities = json!({});
        if !stateless {
            capabilities["logging"] = json!({});
        }
        if !catalog.tools.is_empty() {
            capabilities["tools"] = json!({"listChanged": true});
        }
        if !catalog.prompts.is_empty() {
            capabilities["prompts"] = json!({"listChanged": true});
        }
        if !catalog.resources.is_empty() || !catalog.resource_templates.is_empty() {
            capabilities["resources"] = json!({"subscribe": true, "listChanged": true});
        }
        if !catalog.prompts.is_empty() || !catalog.resource_templates.is_empty() {
            capabilities["completions"] = json!({});
        }
        if stateless && !catalog.tools.is_empty() {
            capabilities["extensions"] = json!({ TASKS_EXTENSION: {} });
        }
        capabilities
    }

    /// The `server/discover` result (before `resultType` and cache hints are added).
    pub(super) fn build_discover_result(&self) -> String {
        let catalog = self.dispatch.catalog();
        let capabilities = self.capabilities(true);
        let mut server_info =
            json!({"name": catalog.server.name, "version": catalog.server.version});
        if let Some(title) = catalog.server.title {
            server_info["title"] = json!(title);
        }
        if let Some(url) = catalog.server.website_url {
            server_info["websiteUrl"] = json!(url);
        }
        let versions: Vec<&str> = ProtocolVersion::ALL.iter().map(|v| v.as_str()).collect();
        let mut result = json!({
            "supportedVersions": versions,
            "capabilities": capabilities,
            "_meta": {"io.modelcontextprotocol/serverInfo": server_info},
        });
        if let Some(instructions) = catalog.instructions {
            result["instructions"] = json!(instructions);
        }
        result.to_string()
    }

    /// `completion/complete`: the declared values of the argument that start with what the
    /// user typed (case-insensitively), at most 100.
    pub(super) fn complete(&self, params: Option<&RawValue>) -> Result<JsonText, RpcError> {
        let request: CompleteParams<'_> = params_as(params)?;
        let catalog = self.dispatch.catalog();
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
        let typed = request.argument.value.to_lowercase();
        let matching: Vec<&str> = catalog
            .completions
            .iter()
            .filter(|c| {
                c.kind == kind && c.reference == target && c.argument == request.argument.name
            })
            .flat_map(|c| c.values.iter().copied())
            .filter(|v| v.to_lowercase().starts_with(&typed))
            .collect();
        let total = matching.len();
        let values = &matching[..total.min(100)];
        let has_more = total > values.len();
        Ok(JsonText::trusted(
            json!({"completion": {"values": values, "total": total, "hasMore": has_more}})
                .to_string(),
        ))
    }

    /// `tools/list`, `prompts/list`, `resources/list` or `resources/templates/list`.
    pub(super) fn list(
        &self,
        method: Method,
        params: Option<&RawValue>,
        version: ProtocolVersion,
    ) -> Result<JsonText, RpcError> {
        let catalog = self.dispatch.catalog();
        let (key, descriptors) = match method {
            Method::ToolsList => ("tools", catalog.tools),
            Method::PromptsList => ("prompts", catalog.prompts),
            Method::ResourcesList => ("resources", catalog.resources),
            _ => ("resourceTemplates", catalog.resource_templates),
        };
        self.page(key, descriptors, params, version)
    }

    /// One page of a list, from the precomputed descriptors of `version`.
    fn page(
        &self,
        key: &str,
        descriptors: &[Descriptor],
        params: Option<&RawValue>,
        version: ProtocolVersion,
    ) -> Result<JsonText, RpcError> {
        let cursor: CursorParams<'_> = params_as(params)?;
        let start = match cursor.cursor.as_deref() {
            None | Some("") => 0,
            Some(text) => text
                .parse::<usize>()
                .ok()
                .filter(|&n| n <= descriptors.len())
                .ok_or_else(|| RpcError::invalid_params(format!("Invalid cursor: {text}")))?,
        };
        let end = (start + self.config.page_size.max(1)).min(descriptors.len());
        let mut out = String::with_capacity(
            64 + descriptors[start..end]
                .iter()
                .map(|d| d.json_for(version).len() + 1)
                .sum::<usize>(),
        );
        out.push_str("{\"");
        out.push_str(key);
        out.push_str("\":[");
        for (i, descriptor) in descriptors[start..end].iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str(descriptor.json_for(version));
        }
        out.push(']');
        if end < descriptors.len() {
            out.push_str(&format!(",\"nextCursor\":\"{end}\""));
        }
        out.push('}');
        Ok(JsonText::trusted(out))
    }

    /// Registers a `subscriptions/listen` stream (any transport): the acknowledgement message
    /// and the subscription its notifications arrive on. Only what this server can ever send
    /// is honoured, and echoed in the acknowledgement.
    pub(crate) fn subscribe(
        &self,
        id: &RawValue,
        params: Option<&RawValue>,
    ) -> Result<(String, Subscription), RpcError> {
        #[derive(Deserialize)]
        struct ListenParams {
            notifications: SubscriptionFilter,
        }
        let requested = serde_json::from_str::<ListenParams>(params.map_or("{}", |p| p.get()))
            .map_err(|e| RpcError::invalid_params(format!("Invalid params: {e}")))?
            .notifications;
        let catalog = self.dispatch.catalog();
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
        Ok((ack, self.notifier.listen(id.to_owned(), honoured)))
    }
}
