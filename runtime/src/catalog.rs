//! What a generated server exposes, computed at generation time: server identity and the
//! descriptors of its tools, prompts, resources and resource templates, as JSON bytes per
//! protocol revision.

use crate::protocol::ProtocolVersion;

/// Everything `initialize`, `server/discover` and the `*/list` methods publish.
#[derive(Debug)]
pub struct Catalog {
    /// `serverInfo`.
    pub server: ServerInfo,
    /// `instructions`, if the document gives any.
    pub instructions: Option<&'static str>,
    /// Tools in declaration order.
    pub tools: &'static [Descriptor],
    /// Prompts in declaration order.
    pub prompts: &'static [Descriptor],
    /// Static resources in declaration order.
    pub resources: &'static [Descriptor],
    /// Resource templates in declaration order.
    pub resource_templates: &'static [Descriptor],
    /// Values `completion/complete` offers, from the enums of prompt arguments and template
    /// variables.
    pub completions: &'static [Completion],
}

/// The values one argument of a prompt or resource template can take.
#[derive(Debug)]
pub struct Completion {
    /// `ref/prompt` or `ref/resource`.
    pub kind: CompletionKind,
    /// The prompt name or the URI template.
    pub reference: &'static str,
    /// The argument (or template variable) name.
    pub argument: &'static str,
    /// Its possible values, in schema order.
    pub values: &'static [&'static str],
}

/// A `completion/complete` request for an argument the application completes (the contract
/// marks it `"x-mcp": {"complete": true}`), as the generated handler method receives it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct CompletionRequest {
    /// What the user typed so far (`argument.value`).
    pub value: String,
    /// The arguments already chosen (`context.arguments`, sent by clients from 2025-06-18 on),
    /// by name.
    pub arguments: std::collections::BTreeMap<String, String>,
}

impl CompletionRequest {
    /// A request for `value` with no other arguments chosen (tests and direct calls).
    pub fn new(value: impl Into<String>) -> Self {
        Self {
            value: value.into(),
            arguments: Default::default(),
        }
    }
}

/// What a completion reference names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompletionKind {
    /// `{"type": "ref/prompt", "name": ...}`.
    Prompt,
    /// `{"type": "ref/resource", "uri": ...}` (a URI template).
    Resource,
}

/// `serverInfo` / `Implementation`.
#[derive(Debug, Clone, Copy)]
pub struct ServerInfo {
    /// `name`.
    pub name: &'static str,
    /// `version`.
    pub version: &'static str,
    /// `title` (2025-06-18 and later).
    pub title: Option<&'static str>,
    /// `websiteUrl` (2025-11-25 and later).
    pub website_url: Option<&'static str>,
}

/// One tool, prompt, resource or template: its key and its JSON object in every revision.
#[derive(Debug)]
pub struct Descriptor {
    /// The tool or prompt name, the resource URI, or the URI template.
    pub key: &'static str,
    /// The descriptor object serialized for each revision from 2025-03-26 on, oldest first
    /// (2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28). Each is a complete JSON object.
    pub json: [&'static str; 4],
}

impl Descriptor {
    /// The descriptor object for `version`. 2024-11-05 has no slot of its own: it reads
    /// 2025-03-26's, and the engine leaves out what 2024-11-05 lacks (a tool's `annotations`).
    pub fn json_for(&self, version: ProtocolVersion) -> &'static str {
        self.json[match version {
            ProtocolVersion::V2024_11_05 | ProtocolVersion::V2025_03_26 => 0,
            ProtocolVersion::V2025_06_18 => 1,
            ProtocolVersion::V2025_11_25 => 2,
            ProtocolVersion::V2026_07_28 => 3,
        }]
    }
}

impl Catalog {
    /// A catalog of server `name` at `version` with nothing in it: the start of a hand-written
    /// [`crate::Dispatch`] (a test's, say), whose tools and the rest are then added with struct
    /// update syntax: `Catalog { tools: &[...], ..Catalog::empty("echo", "1") }`.
    pub const fn empty(name: &'static str, version: &'static str) -> Self {
        Catalog {
            server: ServerInfo {
                name,
                version,
                title: None,
                website_url: None,
            },
            instructions: None,
            tools: &[],
            prompts: &[],
            resources: &[],
            resource_templates: &[],
            completions: &[],
        }
    }

    /// The tool named `name`.
    pub fn tool(&self, name: &str) -> Option<&Descriptor> {
        self.tools.iter().find(|d| d.key == name)
    }

    /// The prompt named `name`.
    pub fn prompt(&self, name: &str) -> Option<&Descriptor> {
        self.prompts.iter().find(|d| d.key == name)
    }
}
