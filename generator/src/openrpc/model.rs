//! The loaded OpenRPC document: what the rest of the generator reads.
//!
//! Loading (`load/`) turns JSON text into this model: content-descriptor `$ref`s are resolved in
//! place, and every schema `$ref` (into `#/components/schemas` or another file) is rewritten to a
//! key of [`Document::schemas`], so later passes never open files or follow JSON pointers.

use indexmap::IndexMap;
use serde_json::Value;
use std::path::PathBuf;

use super::json_pos::SourceMap;
use crate::diagnostics::Location;

/// A loaded, reference-resolved OpenRPC document.
#[derive(Debug, Clone)]
pub struct Document {
    /// The `openrpc` version string, e.g. `1.2.6`.
    pub openrpc: String,
    /// The `info` object.
    pub info: Info,
    /// Server identity from `info["x-mcp"]`.
    pub server: ServerExtension,
    /// Methods in declaration order.
    pub methods: Vec<Method>,
    /// Every named schema reachable through `$ref`, keyed by its canonical reference
    /// (`#/components/schemas/Pet`, or `common.json#/definitions/Id` for another file).
    /// Every `$ref` inside any schema of this document is one of these keys.
    pub schemas: IndexMap<String, NamedSchema>,
    /// Every file read while loading, main document first (for `cargo:rerun-if-changed`).
    pub files: Vec<PathBuf>,
    /// Source positions of every value of every file read, to locate any JSON pointer
    /// (including values nested deep inside schemas) for diagnostics.
    pub sources: SourceMap,
    /// The whole document as one JSON value: the root file as read (member order kept, its own
    /// `$ref`s as written), every `$ref` into another file rewritten to a `#/components/...`
    /// reference and its target added there (a method from another file inlined). What the
    /// generated server answers to `rpc.discover`.
    pub bundled_json: Value,
}

/// The OpenRPC `info` object.
#[derive(Debug, Clone, Default)]
pub struct Info {
    /// `info.title`.
    pub title: String,
    /// `info.version`.
    pub version: String,
    /// `info.description`.
    pub description: Option<String>,
}

/// Server identity and instructions: `info["x-mcp"] = {"name", "title", "instructions"}`.
#[derive(Debug, Clone, Default)]
pub struct ServerExtension {
    /// The `serverInfo.name`; defaults to `info.title` in kebab case.
    pub name: Option<String>,
    /// The `serverInfo.title`; defaults to `info.title`.
    pub title: Option<String>,
    /// The `instructions` of the initialize / discover result.
    pub instructions: Option<String>,
    /// `serverInfo.websiteUrl`.
    pub website_url: Option<String>,
    /// `scopes`: the OAuth scopes every MCP method needs unless its `x-mcp` names its own.
    pub scopes: Option<Vec<String>>,
    /// `hideUnauthorized`: whether, under authorization, the lists leave out what the caller
    /// lacks a scope for (default `false`).
    pub hide_unauthorized: bool,
    /// `card`: what the server card adds to the identity (`crate::openrpc::card`).
    pub card: Option<serde_json::Map<String, serde_json::Value>>,
}

/// A schema that has a name: a component schema, or a definition in another file.
#[derive(Debug, Clone)]
pub struct NamedSchema {
    /// Suggested type name: the last segment of the reference (`Pet`).
    pub name: String,
    /// The schema, with its `$ref`s canonicalized.
    pub schema: Value,
    /// Where the schema is defined.
    pub location: Location,
}

/// How a method accepts its params (`paramStructure`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ParamStructure {
    /// Only a JSON object keyed by param name.
    ByName,
    /// Only a JSON array in declaration order.
    ByPosition,
    /// Either form (the OpenRPC default).
    #[default]
    Either,
}

/// One OpenRPC method.
#[derive(Debug, Clone)]
pub struct Method {
    /// The JSON-RPC method name.
    pub name: String,
    /// `summary`.
    pub summary: Option<String>,
    /// `description`.
    pub description: Option<String>,
    /// Params in declaration order, `$ref`s resolved.
    pub params: Vec<ContentDescriptor>,
    /// The result; `None` makes the method a notification.
    pub result: Option<ContentDescriptor>,
    /// `paramStructure`.
    pub param_structure: ParamStructure,
    /// `deprecated`.
    pub deprecated: bool,
    /// Errors the method declares.
    pub errors: Vec<ErrorObject>,
    /// The MCP binding from `x-mcp` (the method's own, or the one a selection gave it:
    /// [`crate::openrpc::selection`]); `None` keeps the method plain JSON-RPC.
    pub mcp: Option<McpBinding>,
    /// Where [`Method::mcp`] comes from, when the method has a binding.
    pub mcp_origin: Option<McpOrigin>,
    /// The method's example pairings (`examples`), `$ref`s followed, as written: only
    /// `--example-tests` reads them, and it reports what does not fit the method.
    pub examples: Vec<ExamplePairing>,
    /// Where the method object is.
    pub location: Location,
}

/// Where a method's MCP binding comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum McpOrigin {
    /// The method's own `x-mcp`.
    Document,
    /// An entry of the overlay file (`--overlay`), located there.
    Overlay,
    /// A `--tools` pattern: a tool with the method's name and description.
    Selection,
}

/// An OpenRPC Example Pairing object: example params and the result they give.
#[derive(Debug, Clone)]
pub struct ExamplePairing {
    /// `name`.
    pub name: Option<String>,
    /// `summary`.
    pub summary: Option<String>,
    /// `description`.
    pub description: Option<String>,
    /// `params`, each `$ref` followed; `None` when missing, not an array, or an item is no
    /// Example object.
    pub params: Option<Vec<Example>>,
    /// `result`, its `$ref` followed; absent for an example of a notification.
    pub result: Option<Example>,
    /// Where the pairing is (its definition, when it was referenced).
    pub location: Location,
}

/// An OpenRPC Example object: one named value.
#[derive(Debug, Clone)]
pub struct Example {
    /// `name` (for a param, the param it is the value of).
    pub name: Option<String>,
    /// `value`; `None` when missing (an `externalValue` is not read).
    pub value: Option<Value>,
    /// Where the example object is (its definition, when it was referenced).
    pub location: Location,
}

/// An OpenRPC content descriptor (a param or a result).
#[derive(Debug, Clone)]
pub struct ContentDescriptor {
    /// `name` (a tool's argument name: made portable, unless `--keep-names`, when the
    /// document's is one the major model APIs refuse; see docs/gateway.md).
    pub name: String,
    /// The name the document gives, when [`ContentDescriptor::name`] is another (made
    /// portable): what a by-name upstream is sent and the plain JSON-RPC endpoint also takes.
    pub document_name: Option<String>,
    /// `summary`.
    pub summary: Option<String>,
    /// `description`.
    pub description: Option<String>,
    /// `required` (default false).
    pub required: bool,
    /// `deprecated`.
    pub deprecated: bool,
    /// The schema, `$ref`s canonicalized to keys of [`Document::schemas`].
    pub schema: Value,
    /// Where the content descriptor is (the `$ref` site when it was referenced).
    pub location: Location,
    /// Where its `schema` is.
    pub schema_location: Location,
    /// `"x-mcp": {"complete": true}`: the application completes this prompt argument or
    /// template variable (a `complete_*` method of the handler).
    pub complete: bool,
}

/// An OpenRPC error object declared by a method.
#[derive(Debug, Clone)]
pub struct ErrorObject {
    /// `code`.
    pub code: i64,
    /// `message`.
    pub message: String,
    /// `data`, as given: OpenRPC 1.x makes it "a primitive or structured value" (an example
    /// of what the error carries), not a schema.
    pub data: Option<Value>,
    /// Where the error object is (its definition, when it was referenced with `$ref`).
    pub location: Location,
}

/// What kind of MCP primitive a method is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum McpKind {
    /// Listed by `tools/list`, called by `tools/call`.
    Tool,
    /// Listed by `prompts/list`, rendered by `prompts/get`.
    Prompt,
    /// A fixed URI, listed by `resources/list`, read by `resources/read`.
    Resource,
    /// An RFC 6570 URI template whose variables bind to params.
    ResourceTemplate,
}

impl McpKind {
    /// The name used in `x-mcp` (`tool`, `prompt`, `resource`, `resource-template`).
    pub fn as_str(self) -> &'static str {
        match self {
            McpKind::Tool => "tool",
            McpKind::Prompt => "prompt",
            McpKind::Resource => "resource",
            McpKind::ResourceTemplate => "resource-template",
        }
    }
}

/// The `x-mcp` extension of a method (`"tool"` or an object with `kind` and options): one
/// variant per kind, each carrying only the options that kind has, so a resource always has its
/// `uri` and nothing reads a tool's `inputSchema` off a prompt.
#[derive(Debug, Clone)]
pub enum McpBinding {
    /// Listed by `tools/list`, called by `tools/call`.
    Tool(ToolBinding),
    /// Listed by `prompts/list`, rendered by `prompts/get`.
    Prompt(PromptBinding),
    /// A fixed URI, listed by `resources/list`, read by `resources/read`.
    Resource(ResourceBinding),
    /// An RFC 6570 URI template whose variables bind to params.
    ResourceTemplate(ResourceTemplateBinding),
}

impl McpBinding {
    /// What the method is exposed as.
    pub fn kind(&self) -> McpKind {
        match self {
            McpBinding::Tool(_) => McpKind::Tool,
            McpBinding::Prompt(_) => McpKind::Prompt,
            McpBinding::Resource(_) => McpKind::Resource,
            McpBinding::ResourceTemplate(_) => McpKind::ResourceTemplate,
        }
    }

    /// The options every kind has.
    pub fn common(&self) -> &McpCommon {
        match self {
            McpBinding::Tool(b) => &b.common,
            McpBinding::Prompt(b) => &b.common,
            McpBinding::Resource(b) => &b.common,
            McpBinding::ResourceTemplate(b) => &b.common,
        }
    }

    /// What identifies the primitive among those of its kind, and keys it in the catalog: the
    /// name of a tool or prompt, the `uri` of a resource, the `uriTemplate` of a template.
    pub fn key(&self) -> &str {
        match self {
            McpBinding::Tool(b) => &b.common.name,
            McpBinding::Prompt(b) => &b.common.name,
            McpBinding::Resource(b) => &b.uri,
            McpBinding::ResourceTemplate(b) => &b.uri_template,
        }
    }

    /// The tool binding, if this is one.
    pub fn as_tool(&self) -> Option<&ToolBinding> {
        match self {
            McpBinding::Tool(b) => Some(b),
            _ => None,
        }
    }

    /// The prompt binding, if this is one.
    pub fn as_prompt(&self) -> Option<&PromptBinding> {
        match self {
            McpBinding::Prompt(b) => Some(b),
            _ => None,
        }
    }

    /// The static resource binding, if this is one.
    pub fn as_resource(&self) -> Option<&ResourceBinding> {
        match self {
            McpBinding::Resource(b) => Some(b),
            _ => None,
        }
    }

    /// The resource-template binding, if this is one.
    pub fn as_resource_template(&self) -> Option<&ResourceTemplateBinding> {
        match self {
            McpBinding::ResourceTemplate(b) => Some(b),
            _ => None,
        }
    }
}

/// The `x-mcp` options every kind has.
#[derive(Debug, Clone)]
pub struct McpCommon {
    /// The exposed name (`x-mcp.name`, default the method name).
    pub name: String,
    /// `title`.
    pub title: Option<String>,
    /// `description`, default the method's description, else its summary.
    pub description: Option<String>,
    /// `icons`, as given (an array).
    pub icons: Option<Value>,
    /// `_meta` to publish on the descriptor, as given (an object).
    pub meta: Option<Value>,
    /// What the handler returns (`output`).
    pub output: McpOutput,
    /// `scopes`: the OAuth scopes a principal needs to call it (over HTTP with authorization
    /// on); `None`: the document's default (`info["x-mcp"].scopes`).
    pub scopes: Option<Vec<String>>,
    /// `rateLimit` (`"10/min"`): calls per caller, as a count and a period in milliseconds
    /// (the runtime's `mcp_runtime::rate_limit::Rate`).
    pub rate_limit: Option<(u32, u64)>,
    /// `resultBudget`, in bytes, as given: a tool result larger than it is kept and answered
    /// with a preview and a `resource_link` to read it in pages (`mcp-result://{id}/{page}`).
    /// `Some(0)`: every result of the tool whole, whatever `--result-budget` says; `None`: the
    /// generation's default (`--result-budget`, else 64 KiB for a gateway's tool that passes
    /// its results through). A tool's only: on another kind it is warned about and ignored.
    pub result_budget: Option<u32>,
    /// Where the `x-mcp` value is.
    pub location: Location,
}

/// `x-mcp` of kind `tool`.
#[derive(Debug, Clone)]
pub struct ToolBinding {
    /// Name, title, description, icons, `_meta`, output and location.
    pub common: McpCommon,
    /// Tool `annotations`, as given (an object).
    pub annotations: Option<Value>,
    /// An `inputSchema` published verbatim instead of the one built from the params (for JSON
    /// Schema the params cannot express: `if`/`then`, `$anchor`, root `allOf`...). The params
    /// still type the arguments.
    pub input_schema: Option<Value>,
}

/// `x-mcp` of kind `prompt`: only the common options.
#[derive(Debug, Clone)]
pub struct PromptBinding {
    /// Name, title, description, icons, `_meta`, output and location.
    pub common: McpCommon,
}

/// `x-mcp` of kind `resource`.
#[derive(Debug, Clone)]
pub struct ResourceBinding {
    /// Name, title, description, icons, `_meta`, output and location.
    pub common: McpCommon,
    /// `uri`, the one address the resource is read at.
    pub uri: String,
    /// `mimeType`.
    pub mime_type: Option<String>,
    /// Resource `annotations`, as given (an object).
    pub annotations: Option<Value>,
}

/// `x-mcp` of kind `resource-template`.
#[derive(Debug, Clone)]
pub struct ResourceTemplateBinding {
    /// Name, title, description, icons, `_meta`, output and location.
    pub common: McpCommon,
    /// `uriTemplate`, whose variables name the method's params.
    pub uri_template: String,
    /// `mimeType`.
    pub mime_type: Option<String>,
    /// Resource `annotations`, as given (an object).
    pub annotations: Option<Value>,
    /// `subscription`: the method opens a subscription at the upstream, and each URI of the
    /// template is one (a gateway's resource whose updates are the upstream's notifications).
    pub subscription: Option<SubscriptionBinding>,
}

/// How a subscription method of the upstream is closed (`x-mcp.subscription`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubscriptionBinding {
    /// The method that closes it (`eth_unsubscribe`).
    pub unsubscribe: String,
    /// The unsubscription's param naming the subscription, when it takes params by name
    /// (Starknet's `subscription_id`); `None`: the id alone, by position.
    pub id_param: Option<String>,
}

/// What the handler of an MCP method returns (`x-mcp.output`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum McpOutput {
    /// The type of the OpenRPC result schema; the runtime turns it into MCP content
    /// (`structuredContent` and a text block, one text message, or the resource text).
    #[default]
    Typed,
    /// The MCP result itself, for content the result schema cannot express (images, audio,
    /// embedded resources, several messages): `mcp_runtime::mcp::ToolResult`,
    /// `mcp_runtime::mcp::GetPromptResult` or `mcp_runtime::mcp::ReadResourceResult`.
    Mcp,
}
