//! The server card (SEP-2127, experimental extension `io.modelcontextprotocol` server cards):
//! a static document describing the server for discovery before a client connects.
//!
//! The contract opts in with `info["x-mcp"].card`, whose `name` is the reverse-DNS name
//! registries know the server by (`com.example/notes`). The card is the server's identity
//! (`name`, `version`, `title`, `description`, `websiteUrl`) and what the contract adds
//! (`repository`, `icons`, `remotes`, `_meta`). Following the card schema, it lists no tools,
//! prompts or resources: clients learn those by listing. The runtime adds the `remotes` of a
//! running server (its URL and revisions) when it serves the card.

use serde_json::{json, Map, Value};

use crate::diagnostics::{Diagnostic, Location};
use crate::openrpc::{Document, Info};

/// The rule id of every card diagnostic.
pub const RULE: &str = "server-card";

/// The `$schema` every card carries (the card schema's required value).
pub const SCHEMA_URL: &str =
    "https://static.modelcontextprotocol.io/schemas/v2/server-card.schema.json";

/// The protocol revisions the runtime speaks, for a card's `supportedProtocolVersions`.
pub const REVISIONS: [&str; 5] = [
    "2024-11-05",
    "2025-03-26",
    "2025-06-18",
    "2025-11-25",
    "2026-07-28",
];

/// Keys allowed in `info["x-mcp"].card`.
pub const CARD_KEYS: &[&str] = &[
    "name",
    "description",
    "repository",
    "icons",
    "remotes",
    "_meta",
];

/// The longest `description` and `title` a card may carry.
const MAX_TEXT: usize = 100;

/// Checks `info["x-mcp"].card` against the card schema's rules, with `info` for the fields
/// it defaults from. Every problem is an error naming the field.
pub fn check(
    card: &Map<String, Value>,
    info: &Info,
    title: Option<&str>,
    locate: &dyn Fn(&str) -> Location,
) -> Vec<Diagnostic> {
    let mut diags = Vec::new();
    let mut error = |pointer: &str, message: String| {
        diags.push(Diagnostic::error(RULE, locate(pointer), message));
    };
    for key in card.keys().filter(|k| !CARD_KEYS.contains(&k.as_str())) {
        error(
            &format!("/{}", crate::openrpc::json_pos::escape_token(key)),
            format!(
                "unknown key `{key}` in `info.x-mcp.card`; allowed keys: {}",
                CARD_KEYS.join(", ")
            ),
        );
    }
    match card.get("name") {
        Some(Value::String(name)) if valid_name(name) => {}
        Some(Value::String(name)) => error(
            "/name",
            format!("`info.x-mcp.card.name` {name:?} is not a reverse-DNS server name: 3 to 200 characters, a namespace of letters, digits, `.` and `-`, one `/`, then letters, digits, `.`, `_` and `-` (e.g. `com.example/notes`)"),
        ),
        Some(_) => error("/name", "`info.x-mcp.card.name` must be a string".into()),
        None => error(
            "",
            "`info.x-mcp.card` needs a `name`: the reverse-DNS name registries know the server by (e.g. `com.example/notes`)".into(),
        ),
    }
    match card.get("description") {
        Some(Value::String(text)) => {
            if let Some(problem) = text_problem(text) {
                error("/description", format!("`info.x-mcp.card.description` {problem}"));
            }
        }
        Some(_) => error("/description", "`info.x-mcp.card.description` must be a string".into()),
        None => match info.description.as_deref() {
            Some(text) => {
                if let Some(problem) = text_problem(text) {
                    error(
                        "/description",
                        format!("the card's description defaults to `info.description`, which {problem}: set `info.x-mcp.card.description`"),
                    );
                }
            }
            None => error(
                "/description",
                "a card needs a description: set `info.description` or `info.x-mcp.card.description` (1 to 100 characters)".into(),
            ),
        },
    }
    if let Some(problem) = title.and_then(text_problem) {
        error("", format!("the card's title (the server title) {problem}"));
    }
    if is_version_range(&info.version) {
        error(
            "",
            format!(
                "`info.version` {:?} is a range; a card's version must be one version",
                info.version
            ),
        );
    }
    for (key, kind) in [("repository", "an object"), ("_meta", "an object")] {
        if card.get(key).is_some_and(|v| !v.is_object()) {
            error(
                &format!("/{key}"),
                format!("`info.x-mcp.card.{key}` must be {kind}"),
            );
        }
    }
    if let Some(Value::Object(repository)) = card.get("repository") {
        for member in ["source", "url"] {
            if !repository.get(member).is_some_and(Value::is_string) {
                error(
                    "/repository",
                    format!("`info.x-mcp.card.repository` needs a string `{member}`"),
                );
            }
        }
    }
    for key in ["icons", "remotes"] {
        match card.get(key) {
            Some(Value::Array(items)) => {
                for (index, item) in items.iter().enumerate() {
                    let required: &[&str] = if key == "icons" {
                        &["src"]
                    } else {
                        &["type", "url"]
                    };
                    for member in required {
                        if !item.get(member).is_some_and(Value::is_string) {
                            error(
                                &format!("/{key}/{index}"),
                                format!(
                                    "each of `info.x-mcp.card.{key}` needs a string `{member}`"
                                ),
                            );
                        }
                    }
                }
            }
            Some(_) => error(
                &format!("/{key}"),
                format!("`info.x-mcp.card.{key}` must be an array"),
            ),
            None => {}
        }
    }
    diags
}

/// The card of `document`, when its contract has one (checked by [`check`]), with
/// `remotes` taken from the contract.
pub fn card(document: &Document) -> Option<Value> {
    let extra = document.server.card.as_ref()?;
    let mut card = Map::new();
    card.insert("$schema".into(), json!(SCHEMA_URL));
    card.insert("name".into(), extra.get("name")?.clone());
    card.insert("version".into(), json!(document.info.version));
    let description = extra
        .get("description")
        .cloned()
        .or_else(|| document.info.description.clone().map(Value::String))?;
    card.insert("description".into(), description);
    if let Some(title) = server_title(document) {
        card.insert("title".into(), json!(title));
    }
    if let Some(website) = &document.server.website_url {
        card.insert("websiteUrl".into(), json!(website));
    }
    for key in ["repository", "icons", "remotes", "_meta"] {
        if let Some(value) = extra.get(key) {
            card.insert(key.into(), value.clone());
        }
    }
    Some(Value::Object(card))
}

/// The card with a `streamable-http` remote at `url` speaking `revisions` added (for a card
/// file handed to a registry).
pub fn with_remote(mut card: Value, url: &str, revisions: &[&str]) -> Value {
    let remote =
        json!({"type": "streamable-http", "url": url, "supportedProtocolVersions": revisions});
    if let Some(map) = card.as_object_mut() {
        match map.get_mut("remotes") {
            Some(Value::Array(remotes)) => remotes.push(remote),
            _ => {
                map.insert("remotes".into(), json!([remote]));
            }
        }
    }
    card
}

/// The server's title as `serverInfo` carries it.
pub fn server_title(document: &Document) -> Option<&str> {
    document
        .server
        .title
        .as_deref()
        .or(Some(document.info.title.as_str()))
        .filter(|t| !t.is_empty())
}

/// The card schema's `name` rule: `^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$`, 3 to 200 characters.
fn valid_name(name: &str) -> bool {
    let Some((namespace, rest)) = name.split_once('/') else {
        return false;
    };
    (3..=200).contains(&name.len())
        && !namespace.is_empty()
        && !rest.is_empty()
        && namespace
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-')
        && rest
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '_' || c == '-')
}

/// Why `text` cannot be a card's `description` or `title` (1 to 100 characters).
fn text_problem(text: &str) -> Option<String> {
    let length = text.chars().count();
    (length == 0 || length > MAX_TEXT)
        .then(|| format!("must be 1 to {MAX_TEXT} characters, found {length}"))
}

/// A version range (`^1.2`, `~1`, `>=1`, `1.x`, `1.*`), which a card refuses.
fn is_version_range(version: &str) -> bool {
    version.starts_with(['^', '~', '>', '<', '='])
        || version.split('.').any(|part| part == "x" || part == "*")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_card_schema() {
        for good in ["com.example/notes", "io.github.user/my_server-2", "a/b"] {
            assert!(valid_name(good), "{good}");
        }
        for bad in [
            "notes",
            "com.example/",
            "/notes",
            "a/b/c",
            "com example/notes",
            "é.x/y",
        ] {
            assert!(!valid_name(bad), "{bad}");
        }
        assert!(!valid_name(&format!("a/{}", "b".repeat(199))));
    }

    #[test]
    fn ranges_are_not_versions() {
        for range in ["^1.2.3", "~1.2", ">=1", "1.x", "1.*"] {
            assert!(is_version_range(range), "{range}");
        }
        for version in ["1.0.2", "2.1.0-alpha", "0.1.0"] {
            assert!(!is_version_range(version), "{version}");
        }
    }
}
