//! The one method table: every method the runtime knows, and which era serves it.
//!
//! The era rules are data here (one `match`), not two copies of the dispatch: 2026-07-28
//! removed `initialize`, `ping`, `logging/setLevel` and the resource subscriptions, and added
//! `server/discover`, `subscriptions/listen` and the tasks methods; the lists, the calls and
//! completion exist in both eras, and so do the skills extension's methods; plain JSON-RPC methods of the contract are served in
//! sessions.

use std::borrow::Cow;

use crate::config::{CacheHint, CacheHints};

/// A method, recognised once from its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Method {
    Initialize,
    Ping,
    SetLogLevel,
    Subscribe,
    Unsubscribe,
    Discover,
    Listen,
    ToolsList,
    PromptsList,
    ResourcesList,
    TemplatesList,
    ToolsCall,
    PromptsGet,
    ResourcesRead,
    Complete,
    TasksGet,
    TasksUpdate,
    TasksCancel,
    /// `skills/list` (skills extension).
    SkillsList,
    /// `skills/get` (skills extension).
    SkillsGet,
    /// `resources/directory/read` (skills extension).
    DirectoryRead,
    /// A JSON-RPC method of the contract (or one nobody serves).
    Plain,
}

/// Which era serves a method.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Served {
    Both,
    SessionsOnly,
    StatelessOnly,
}

impl Method {
    /// The method `name` stands for.
    pub fn of(name: &str) -> Self {
        match name {
            "tools/call" => Method::ToolsCall,
            "tools/list" => Method::ToolsList,
            "prompts/get" => Method::PromptsGet,
            "prompts/list" => Method::PromptsList,
            "resources/read" => Method::ResourcesRead,
            "resources/list" => Method::ResourcesList,
            "resources/templates/list" => Method::TemplatesList,
            "resources/subscribe" => Method::Subscribe,
            "resources/unsubscribe" => Method::Unsubscribe,
            "completion/complete" => Method::Complete,
            "logging/setLevel" => Method::SetLogLevel,
            "ping" => Method::Ping,
            "initialize" => Method::Initialize,
            "server/discover" => Method::Discover,
            "subscriptions/listen" => Method::Listen,
            "tasks/get" => Method::TasksGet,
            "tasks/update" => Method::TasksUpdate,
            "tasks/cancel" => Method::TasksCancel,
            "skills/list" => Method::SkillsList,
            "skills/get" => Method::SkillsGet,
            "resources/directory/read" => Method::DirectoryRead,
            _ => Method::Plain,
        }
    }

    /// The wire name of an MCP method (`None` for a plain one).
    pub fn name(self) -> Option<&'static str> {
        Some(match self {
            Method::Initialize => "initialize",
            Method::Ping => "ping",
            Method::SetLogLevel => "logging/setLevel",
            Method::Subscribe => "resources/subscribe",
            Method::Unsubscribe => "resources/unsubscribe",
            Method::Discover => "server/discover",
            Method::Listen => "subscriptions/listen",
            Method::ToolsList => "tools/list",
            Method::PromptsList => "prompts/list",
            Method::ResourcesList => "resources/list",
            Method::TemplatesList => "resources/templates/list",
            Method::ToolsCall => "tools/call",
            Method::PromptsGet => "prompts/get",
            Method::ResourcesRead => "resources/read",
            Method::Complete => "completion/complete",
            Method::TasksGet => "tasks/get",
            Method::TasksUpdate => "tasks/update",
            Method::TasksCancel => "tasks/cancel",
            Method::SkillsList => "skills/list",
            Method::SkillsGet => "skills/get",
            Method::DirectoryRead => "resources/directory/read",
            Method::Plain => return None,
        })
    }

    fn served(self) -> Served {
        match self {
            Method::Initialize
            | Method::Ping
            | Method::SetLogLevel
            | Method::Subscribe
            | Method::Unsubscribe
            | Method::Plain => Served::SessionsOnly,
            Method::Discover
            | Method::Listen
            | Method::TasksGet
            | Method::TasksUpdate
            | Method::TasksCancel => Served::StatelessOnly,
            Method::ToolsList
            | Method::PromptsList
            | Method::ResourcesList
            | Method::TemplatesList
            | Method::ToolsCall
            | Method::PromptsGet
            | Method::ResourcesRead
            | Method::Complete
            | Method::SkillsList
            | Method::SkillsGet
            | Method::DirectoryRead => Served::Both,
        }
    }

    /// Whether a session serves this method (plain methods: if the contract has them).
    pub fn in_sessions(self) -> bool {
        self.served() != Served::StatelessOnly
    }

    /// Whether the stateless revision serves this method.
    pub fn in_stateless(self) -> bool {
        self.served() != Served::SessionsOnly
    }

    /// Whether the method belongs to the skills extension (served only by a server with
    /// skills).
    pub fn is_skills(self) -> bool {
        matches!(
            self,
            Method::SkillsList | Method::SkillsGet | Method::DirectoryRead
        )
    }

    /// Whether the method is a call that runs a handler with client input (`tools/call`,
    /// `prompts/get`, `resources/read`): its params are read as [`CallMembers`].
    ///
    /// [`CallMembers`]: super::params::CallMembers
    pub fn is_call(self) -> bool {
        matches!(
            self,
            Method::ToolsCall | Method::PromptsGet | Method::ResourcesRead
        )
    }

    /// [`is_call`](Self::is_call) of the method named `name`, without recognising the rest
    /// (the reader asks this of every message).
    pub fn is_call_name(name: &str) -> bool {
        matches!(name, "tools/call" | "prompts/get" | "resources/read")
    }

    /// Whether the method lists tools, prompts, resources or templates (what
    /// [`crate::Contract::hides_unauthorized`] filters per caller).
    pub fn is_list(self) -> bool {
        matches!(
            self,
            Method::ToolsList | Method::PromptsList | Method::ResourcesList | Method::TemplatesList
        )
    }

    /// The cache hint of this method's 2026-07-28 result, when it is cacheable.
    pub fn cache_hint(self, hints: &CacheHints) -> Option<CacheHint> {
        match self {
            Method::Discover => Some(hints.discover),
            Method::ToolsList => Some(hints.tools_list),
            Method::PromptsList => Some(hints.prompts_list),
            Method::ResourcesList => Some(hints.resources_list),
            Method::TemplatesList => Some(hints.resource_templates_list),
            Method::ResourcesRead => Some(hints.resources_read),
            // The skills extension's results are a list of resources and reads of them.
            Method::SkillsList | Method::DirectoryRead => Some(hints.resources_list),
            Method::SkillsGet => Some(hints.resources_read),
            _ => None,
        }
    }

    /// The method's name kept past the request's bytes: static for the MCP methods (nearly
    /// every request), a copy only for the contract's own methods.
    pub fn owned_name(self, name: &str) -> Cow<'static, str> {
        match self.name() {
            Some(known) => Cow::Borrowed(known),
            None => Cow::Owned(name.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_eras_split_as_the_revisions_say() {
        let all = [
            Method::Initialize,
            Method::Ping,
            Method::SetLogLevel,
            Method::Subscribe,
            Method::Unsubscribe,
            Method::Discover,
            Method::Listen,
            Method::ToolsList,
            Method::PromptsList,
            Method::ResourcesList,
            Method::TemplatesList,
            Method::ToolsCall,
            Method::PromptsGet,
            Method::ResourcesRead,
            Method::Complete,
            Method::TasksGet,
            Method::TasksUpdate,
            Method::TasksCancel,
            Method::SkillsList,
            Method::SkillsGet,
            Method::DirectoryRead,
        ];
        for method in all {
            assert_eq!(Method::of(method.name().unwrap()), method);
            assert_eq!(
                Method::is_call_name(method.name().unwrap()),
                method.is_call()
            );
            assert!(method.in_sessions() || method.in_stateless());
        }
        assert_eq!(Method::of("notes/add"), Method::Plain);
        assert!(!Method::Ping.in_stateless() && !Method::Discover.in_sessions());
        assert!(Method::ToolsCall.in_sessions() && Method::ToolsCall.in_stateless());
    }
}
