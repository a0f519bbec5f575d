//! The document's top-level fields besides `methods`: `openrpc`, `info` and `components`.

use serde_json::{Map, Value};

use super::{lenient_version, supported_version, Loader, RULE_VERSION, SUPPORTED_VERSIONS};
use crate::diagnostics::Diagnostic;
use crate::openrpc::json_pos::{escape_token, unescape_token};
use crate::openrpc::mcp::{self, type_name};
use crate::openrpc::model::*;
use crate::openrpc::overlay;

impl Loader {
    /// The `openrpc` version string, checked against the versions this generator reads.
    pub(super) fn openrpc_version(&mut self, top: &Map<String, Value>) -> Option<String> {
        match top.get("openrpc") {
            Some(Value::String(v)) => {
                if !supported_version(v) {
                    let location = self.locate(0, "/openrpc");
                    match lenient_version(v) {
                        // `1.4.x` names a minor version, not a release: patch releases of
                        // OpenRPC do not change what a document may hold.
                        Some(assumed) => self.diags.push(Diagnostic::warning(
                            RULE_VERSION,
                            location,
                            format!(
                                "`openrpc` {v:?} is not a version number (MAJOR.MINOR.PATCH); read as OpenRPC {assumed}"
                            ),
                        )),
                        None => self.error(
                            RULE_VERSION,
                            location,
                            format!(
                                "unsupported OpenRPC version {v:?}; this generator reads {SUPPORTED_VERSIONS}"
                            ),
                        ),
                    }
                }
                Some(v.clone())
            }
            Some(other) => {
                let location = self.locate(0, "/openrpc");
                self.error(
                    RULE_VERSION,
                    location,
                    format!(
                        "`openrpc` must be a version string such as \"1.2.6\", found {}",
                        type_name(other)
                    ),
                );
                None
            }
            None => {
                self.shape(
                    0,
                    "",
                    "not an OpenRPC document: the required `openrpc` version string is missing",
                );
                None
            }
        }
    }

    /// Checks `components`, then registers every component schema (in declaration order) and
    /// canonicalizes its `$ref`s.
    pub(super) fn components(&mut self, top: &Map<String, Value>) {
        let mut component_schemas: Vec<String> = Vec::new();
        match top.get("components") {
            None => {}
            Some(Value::Object(components)) => {
                for (key, section) in components {
                    if !section.is_object() {
                        let message = format!(
                            "`components.{key}` must be an object, found {}",
                            type_name(section)
                        );
                        self.shape(0, &format!("/components/{}", escape_token(key)), message);
                    }
                }
                if let Some(Value::Object(schemas)) = components.get("schemas") {
                    component_schemas = schemas.keys().cloned().collect();
                }
            }
            Some(other) => {
                let message = format!("`components` must be an object, found {}", type_name(other));
                self.shape(0, "/components", message);
            }
        }
        let component_keys: Vec<(String, String)> = component_schemas
            .iter()
            .map(|name| {
                let pointer = format!("/components/schemas/{}", escape_token(name));
                (self.register_schema(0, &pointer), pointer)
            })
            .collect();
        for (key, pointer) in &component_keys {
            self.process_schema(key, 0, pointer);
        }
    }

    pub(super) fn info(&mut self, top: &Map<String, Value>) -> (Option<Info>, ServerExtension) {
        let mut server = ServerExtension::default();
        let map = match top.get("info") {
            Some(Value::Object(map)) => map,
            Some(other) => {
                let message = format!("`info` must be an object, found {}", type_name(other));
                self.shape(0, "/info", message);
                return (None, server);
            }
            None => {
                self.shape(0, "", "the required object `info` is missing");
                return (None, server);
            }
        };
        self.misspelt_keys(0, "/info", map, super::INFO_KEYS);
        let title = self.req_string(0, "/info", map, "title", "`info`");
        let version = self.req_string(0, "/info", map, "version", "`info`");
        let description = self.opt_string(0, "/info", map, "description");
        let path = self.files[0].path.clone();
        match (map.get("x-mcp"), self.selection.server_patch()) {
            (None, None) => {}
            (Some(x), None) => {
                let sources = &self.sources;
                let locate = |sub: &str| sources.locate(&path, &format!("/info/x-mcp{sub}"));
                let (parsed, diags) = mcp::parse_server(x, &locate);
                self.diags.0.extend(diags);
                server = parsed;
            }
            (own, Some((overlay_path, patch))) => {
                // The document's keys, the overlay's over them; each located where it was
                // written.
                let own = match own {
                    Some(Value::Object(own)) => Some(own),
                    Some(other) => {
                        let message =
                            format!("`info.x-mcp` must be an object, found {}", type_name(other));
                        let location = self.locate(0, "/info/x-mcp");
                        self.diags
                            .push(Diagnostic::error(mcp::RULE, location, message));
                        None
                    }
                    None => None,
                };
                let (merged, from_overlay) = overlay::patch_server(own, patch);
                let sources = &self.sources;
                let locate = |sub: &str| {
                    let key = sub.split('/').nth(1).map(unescape_token);
                    let file = match key {
                        Some(key) if from_overlay.contains(&key) => overlay_path,
                        _ => path.as_path(),
                    };
                    sources.locate(file, &format!("/info/x-mcp{sub}"))
                };
                let (parsed, diags) = mcp::parse_server(&Value::Object(merged), &locate);
                self.diags.0.extend(diags);
                server = parsed;
            }
        }
        let info = match (title, version) {
            (Some(title), Some(version)) => Some(Info {
                title,
                version,
                description,
            }),
            _ => None,
        };
        if let (Some(card), Some(info)) = (&server.card, &info) {
            let card_from_overlay = self
                .selection
                .server_patch()
                .filter(|(_, patch)| patch.get("card").is_some_and(|c| !c.is_null()))
                .map(|(overlay_path, _)| overlay_path.to_path_buf());
            let path = card_from_overlay.unwrap_or(path);
            let sources = &self.sources;
            let locate = |sub: &str| sources.locate(&path, &format!("/info/x-mcp/card{sub}"));
            let title = server.title.as_deref().or(Some(info.title.as_str()));
            let title = title.filter(|t| !t.is_empty());
            for d in crate::openrpc::card::check(card, info, title, &locate) {
                self.diags.push(d);
            }
        }
        (info, server)
    }
}
