//! An overlay's `actions`: patches to the vendor document itself, in the OpenAPI Overlay
//! Specification 1.0's form, applied to the OpenRPC document before anything reads it.
//!
//! ```json
//! {
//!   "overlay": "1.0.0",
//!   "actions": [
//!     {
//!       "target": "$.components.schemas.GenericTransaction.properties",
//!       "description": "Nodes take the call data as `data` too.",
//!       "update": {"data": {"title": "data", "$ref": "#/components/schemas/bytes"}}
//!     },
//!     {"target": "$.methods[?@.name == 'eth_sign']", "remove": true}
//!   ]
//! }
//! ```
//!
//! Each action selects nodes of the root document with an RFC 9535 JSONPath `target`
//! (`serde_json_path`), then, in the order of the file:
//!
//! - `remove: true` takes every selected node out of its parent (the document itself cannot
//!   be removed);
//! - `update` is merged into each selected object (members of the update replace the
//!   node's; where both are objects they merge member by member, and an array of the update
//!   onto an array of the node is appended), or appended to each selected array.
//!
//! An action whose target selects nothing is a warning (it changes nothing). Whatever an
//! action wrote is located in the overlay by every later diagnostic (a [`SourceMap`] graft),
//! so a problem in a patched schema names the overlay's line, not the document's.
//!
//! Actions apply to the document given, not to files its `$ref`s name.

use std::path::Path;

use serde_json::{Map, Value};
use serde_json_path::JsonPath;

use super::super::json_pos::{escape_token, SourceMap};
use super::super::mcp::type_name;
use super::RULE;
use crate::diagnostics::{Diagnostic, Diagnostics};

/// The keys of an action (besides `x-` extensions, which are ignored).
const ACTION_KEYS: &[&str] = &["target", "description", "update", "remove"];

/// One action, read and checked.
#[derive(Debug)]
pub(crate) struct Action {
    /// The JSONPath that selects the nodes, as written and parsed.
    target: (String, JsonPath),
    /// What the action does to each node.
    change: Change,
    /// The action's pointer in the overlay (`/actions/<i>`).
    pointer: String,
}

/// What an action does.
#[derive(Debug)]
enum Change {
    Update(Value),
    Remove,
}

/// The actions of `actions` (the overlay's `actions` value); every problem goes into `diags`,
/// located in the overlay at `path`, and the action is left out.
pub(crate) fn read(
    actions: Value,
    path: &Path,
    sources: &SourceMap,
    diags: &mut Diagnostics,
) -> Vec<Action> {
    let mut error = |pointer: &str, message: String| {
        diags.push(Diagnostic::error(
            RULE,
            sources.locate(path, pointer),
            message,
        ));
    };
    let Value::Array(actions) = actions else {
        error(
            "/actions",
            format!(
                "the overlay's `actions` must be an array of actions such as {{\"target\": \"$.components.schemas.X\", \"update\": {{...}}}}, found {}",
                type_name(&actions)
            ),
        );
        return Vec::new();
    };
    let mut read = Vec::new();
    for (index, action) in actions.into_iter().enumerate() {
        let pointer = format!("/actions/{index}");
        let Value::Object(mut action) = action else {
            error(
                &pointer,
                format!(
                    "an action must be an object with `target` and `update` or `remove`, found {}",
                    type_name(&action)
                ),
            );
            continue;
        };
        let mut usable = true;
        for key in action.keys() {
            if !ACTION_KEYS.contains(&key.as_str()) && !key.starts_with("x-") {
                let hint = crate::diagnostics::did_you_mean(key, ACTION_KEYS.iter().copied())
                    .map(|near| format!(" (did you mean `{near}`?)"))
                    .unwrap_or_default();
                error(
                    &format!("{pointer}/{}", escape_token(key)),
                    format!(
                        "unknown key `{key}` in an action{hint}; allowed keys: {} (and `x-` extensions)",
                        ACTION_KEYS.join(", ")
                    ),
                );
                usable = false;
            }
        }
        let target = match action.remove("target") {
            Some(Value::String(text)) => match JsonPath::parse(&text) {
                Ok(path) => Some((text, path)),
                Err(why) => {
                    error(
                        &format!("{pointer}/target"),
                        format!(
                            "the action's `target` {text:?} is not an RFC 9535 JSONPath: {why}"
                        ),
                    );
                    None
                }
            },
            Some(other) => {
                error(
                    &format!("{pointer}/target"),
                    format!(
                        "the action's `target` must be a JSONPath string such as \"$.components.schemas.X\", found {}",
                        type_name(&other)
                    ),
                );
                None
            }
            None => {
                error(
                    &pointer,
                    "an action needs a `target`, a JSONPath such as \"$.components.schemas.X\""
                        .to_string(),
                );
                None
            }
        };
        let change = match (action.remove("remove"), action.remove("update")) {
            (Some(Value::Bool(true)), _) => Some(Change::Remove),
            (Some(Value::Bool(false)) | None, Some(update)) => Some(Change::Update(update)),
            (Some(Value::Bool(false)) | None, None) => {
                error(
                    &pointer,
                    "an action needs `update` (merged into what `target` selects) or `remove: true`"
                        .to_string(),
                );
                None
            }
            (Some(other), _) => {
                error(
                    &format!("{pointer}/remove"),
                    format!(
                        "the action's `remove` must be true or false, found {}",
                        type_name(&other)
                    ),
                );
                None
            }
        };
        if let (true, Some(target), Some(change)) = (usable, target, change) {
            read.push(Action {
                target,
                change,
                pointer,
            });
        }
    }
    read
}

/// Applies `actions` of the overlay at `overlay` to `document` (read from `file`), in order;
/// what they write is grafted in `sources`, their problems go into `diags`.
pub(crate) fn apply(
    actions: &[Action],
    document: &mut Value,
    file: &Path,
    overlay: &Path,
    sources: &mut SourceMap,
    diags: &mut Diagnostics,
) {
    for action in actions {
        let (text, path) = &action.target;
        let selected: Vec<String> = path
            .query_located(document)
            .locations()
            .map(|location| location.to_json_pointer())
            .collect();
        let at_target = sources.locate(overlay, &format!("{}/target", action.pointer));
        if selected.is_empty() {
            diags.push(Diagnostic::warning(
                RULE,
                at_target,
                format!("the action's target {text} selects nothing in the document; it changes nothing"),
            ));
            continue;
        }
        match &action.change {
            Change::Remove => {
                // Last first, so that removing an item leaves the others' indices as selected.
                for pointer in selected.iter().rev() {
                    if !remove(document, pointer) {
                        diags.push(Diagnostic::error(
                            RULE,
                            at_target.clone(),
                            format!("the action's target {text} selects the whole document, which cannot be removed"),
                        ));
                    }
                }
            }
            Change::Update(update) => {
                let from = format!("{}/update", action.pointer);
                for pointer in &selected {
                    let Some(node) = document.pointer_mut(pointer) else {
                        continue;
                    };
                    let mut graft =
                        |at: &str, from_at: &str| sources.graft(file, at, overlay, from_at);
                    match (node, update) {
                        (Value::Object(node), Value::Object(update)) => {
                            merge(node, update, pointer, &from, &mut graft);
                        }
                        (Value::Array(items), update) => {
                            graft(&format!("{pointer}/{}", items.len()), &from);
                            items.push(update.clone());
                        }
                        (node, update) => diags.push(Diagnostic::error(
                            RULE,
                            sources.locate(overlay, &from),
                            format!(
                                "the action's target {text} selects {} at {pointer}, which {} cannot update: an update merges an object into an object, or appends to an array",
                                type_name(node),
                                type_name(update),
                            ),
                        )),
                    }
                }
            }
        }
    }
}

/// Takes the value at `pointer` out of its parent; false for the root.
fn remove(document: &mut Value, pointer: &str) -> bool {
    let Some((parent, token)) = pointer.rsplit_once('/') else {
        return false;
    };
    let token = token.replace("~1", "/").replace("~0", "~");
    match document.pointer_mut(parent) {
        Some(Value::Object(members)) => {
            members.shift_remove(&token);
        }
        Some(Value::Array(items)) => {
            if let Some(index) = token.parse::<usize>().ok().filter(|i| *i < items.len()) {
                items.remove(index);
            }
        }
        _ => {}
    }
    true
}

/// Merges `update` (at `from` in the overlay) into `node` (at `pointer` in the document):
/// objects member by member, an array onto an array appended, anything else replaced; each
/// value written is grafted where the overlay wrote it.
fn merge(
    node: &mut Map<String, Value>,
    update: &Map<String, Value>,
    pointer: &str,
    from: &str,
    graft: &mut impl FnMut(&str, &str),
) {
    for (key, value) in update {
        let at = format!("{pointer}/{}", escape_token(key));
        let from_at = format!("{from}/{}", escape_token(key));
        match (node.get_mut(key), value) {
            (Some(Value::Object(inner)), Value::Object(value)) => {
                merge(inner, value, &at, &from_at, graft);
            }
            (Some(Value::Array(items)), Value::Array(more)) => {
                for (i, item) in more.iter().enumerate() {
                    graft(&format!("{at}/{}", items.len()), &format!("{from_at}/{i}"));
                    items.push(item.clone());
                }
            }
            _ => {
                graft(&at, &from_at);
                node.insert(key.clone(), value.clone());
            }
        }
    }
}
