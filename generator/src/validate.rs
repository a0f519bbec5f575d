//! Validation of a loaded document before anything is generated: OpenRPC rules and MCP rules.
//!
//! Every rule runs on the whole document and all problems are reported at once, sorted with
//! [`Diagnostics::sort`]. Rule ids: `unique-method-names`, `reserved-method-names`, `unique-param-names`,
//! `required-params-first` (warning), `mcp-needs-result`, `mcp-unique-names`, `mcp-tool-name` (warning),
//! `mcp-prompt-arguments`, `mcp-resource-params`, `mcp-uri-template`, `mcp-reserved-uri`, `mcp-header-token`,
//! `mcp-header-unique`, `mcp-header-type`, `mcp-header-reachable`, `mcp-header-placement`,
//! `contract-error-reserved-code` (warning), `contract-error-duplicate-code` (warning).

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use crate::diagnostics::{Diagnostic, Diagnostics, Location};
use crate::openrpc::json_pos::escape_token;
use crate::openrpc::{
    ContentDescriptor, Document, McpBinding, McpCommon, McpKind, McpOrigin, Method, NamedSchema,
    ParamStructure, ResourceTemplateBinding,
};
use crate::schema_walk;

/// Rule id (a warning): a required param comes after an optional one. OpenRPC lists required
/// params first; the generated params still decode (by name in any order, by position with
/// `null` in the optional's place).
pub const RULE_REQUIRED_PARAMS_FIRST: &str = "required-params-first";

/// Rule id: a method name begins with `rpc.`, the prefix OpenRPC reserves for rpc-internal
/// methods (the loader reports a declared `rpc.discover`, this module every other).
pub use crate::openrpc::load::RULE_RESERVED_METHOD_NAMES;

/// Rule id (a warning): a contract error's code is in −32768..=−32000, which JSON-RPC reserves
/// for pre-defined errors (OpenRPC allows it only for those). The constructor is generated
/// all the same.
pub const RULE_CONTRACT_ERROR_RESERVED_CODE: &str = "contract-error-reserved-code";

/// Rule id (a warning): two contract errors share a code with different messages. Both get a
/// constructor, with distinct names; a client can tell them apart only by message.
pub const RULE_CONTRACT_ERROR_DUPLICATE_CODE: &str = "contract-error-duplicate-code";

/// Rule id: a resource's `uri` or a template's `uriTemplate` is in the scheme
/// [`RESERVED_URI_SCHEME`], which the runtime answers itself (the pages of a tool result kept
/// because it was over the tool's result budget).
pub const RULE_MCP_RESERVED_URI: &str = "mcp-reserved-uri";

/// The URI scheme of the results the runtime keeps (`mcp-result://{id}/{page}`), which no
/// resource of a contract may use.
pub const RESERVED_URI_SCHEME: &str = "mcp-result:";

/// The JSON-RPC reserved range of error codes.
const RESERVED_ERROR_CODES: std::ops::RangeInclusive<i32> = -32768..=-32000;

/// The method-name prefix OpenRPC reserves for rpc-internal methods (`rpc.discover`).
const RESERVED_PREFIX: &str = "rpc.";

/// Checks every rule on `document` and returns all diagnostics found (errors and warnings).
pub fn validate(document: &Document) -> Diagnostics {
    let mut v = Validator {
        doc: document,
        diags: Diagnostics::default(),
    };
    v.unique_method_names();
    v.reserved_method_names();
    for method in &document.methods {
        v.params(method);
        v.mcp(method);
        v.headers(method);
    }
    v.mcp_unique_names();
    v.contract_errors();
    let mut diags = v.diags;
    diags.sort();
    diags.0.dedup();
    diags
}

struct Validator<'a> {
    doc: &'a Document,
    diags: Diagnostics,
}

/// True for an RFC 9110 `tchar`.
fn is_tchar(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

/// True for a tool name MCP accepts: 1 to 128 characters of `[A-Za-z0-9_.-]`.
pub fn valid_tool_name(name: &str) -> bool {
    (1..=128).contains(&name.chars().count())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'))
}

/// A valid tool name for `name`: each character outside `[A-Za-z0-9_.-]` as `_`, at most 128
/// characters, `tool` for an empty name.
pub fn suggested_tool_name(name: &str) -> String {
    let mut suggested: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-') {
                c
            } else {
                '_'
            }
        })
        .take(128)
        .collect();
    if suggested.is_empty() {
        suggested.push_str("tool");
    }
    suggested
}

/// One variable of a URI template expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateVar {
    /// The variable name.
    pub name: String,
    /// True for `{+var}` (reserved expansion).
    pub reserved: bool,
    /// True for a variable of the final `{?a,b}` expression (form-style query: optional).
    pub query: bool,
}

/// Parses the RFC 6570 subset supported for resource templates: literals with `{var}` and
/// `{+var}` expressions, and a final `{?a,b}` (form-style query, each variable optional).
/// Returns the variables in order, or why the template is not supported.
pub fn parse_uri_template(template: &str) -> Result<Vec<TemplateVar>, String> {
    let mut vars = Vec::new();
    let mut rest = template;
    if let Some(open) = template.rfind("{?") {
        let names = &template[open + 2..];
        let Some(names) = names.strip_suffix('}').filter(|n| !n.contains(['{', '}'])) else {
            return Err("a query expression `{?...}` must end the template".to_string());
        };
        rest = &template[..open];
        for name in names.split(',') {
            let valid =
                !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            if !valid {
                return Err(format!("invalid variable name {name:?} in `{{?{names}}}`"));
            }
            vars.push(TemplateVar {
                name: name.to_string(),
                reserved: false,
                query: true,
            });
        }
    }
    let query = std::mem::take(&mut vars);
    while let Some(open) = rest.find(['{', '}']) {
        if rest[open..].starts_with('}') {
            return Err("unmatched `}`".to_string());
        }
        let after = &rest[open + 1..];
        let Some(close) = after.find('}') else {
            return Err("unclosed `{`".to_string());
        };
        let expr = &after[..close];
        let (reserved, name) = match expr.strip_prefix('+') {
            Some(name) => (true, name),
            None => (false, expr),
        };
        if name.is_empty() {
            return Err(format!("empty expression `{{{expr}}}`"));
        }
        if let Some(op) = name.chars().next().filter(|c| "#./;?&=,!@|".contains(*c)) {
            return Err(format!(
                "operator `{op}` in `{{{expr}}}` is not supported; use `{{var}}` or `{{+var}}`"
            ));
        }
        if name.contains(',') {
            return Err(format!(
                "`{{{expr}}}` has several variables; use one variable per expression"
            ));
        }
        if name.contains([':', '*']) {
            return Err(format!("modifiers in `{{{expr}}}` are not supported"));
        }
        let valid = name.split('.').all(|part| {
            !part.is_empty() && part.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        });
        if !valid {
            return Err(format!("invalid variable name in `{{{expr}}}`"));
        }
        vars.push(TemplateVar {
            name: name.to_string(),
            reserved,
            query: false,
        });
        rest = &after[close + 1..];
    }
    vars.extend(query);
    Ok(vars)
}

impl Validator<'_> {
    fn error(&mut self, rule: &'static str, location: Location, message: String) {
        self.diags.push(Diagnostic::error(rule, location, message));
    }

    fn child(&self, parent: &Location, key: &str) -> Location {
        self.doc.sources.child_or_self(parent, key)
    }

    fn unique_method_names(&mut self) {
        let mut seen: HashMap<&str, &Location> = HashMap::new();
        for m in &self.doc.methods {
            if let Some(first) = seen.get(m.name.as_str()) {
                let message = format!(
                    "duplicate method name {:?} (first declared at {}:{}:{})",
                    m.name,
                    first.file.display(),
                    first.line,
                    first.column
                );
                self.error(
                    "unique-method-names",
                    self.child(&m.location, "name"),
                    message,
                );
            } else {
                seen.insert(&m.name, &m.location);
            }
        }
    }

    /// The contract errors (`errors` of every method): codes in the reserved range, one code
    /// with several messages.
    fn contract_errors(&mut self) {
        let errors = crate::openrpc::errors::contract_errors(self.doc);
        let mut first_by_code: HashMap<i32, usize> = HashMap::new();
        for (i, error) in errors.iter().enumerate() {
            if RESERVED_ERROR_CODES.contains(&error.code) {
                self.diags.push(Diagnostic::warning(
                    RULE_CONTRACT_ERROR_RESERVED_CODE,
                    self.child(&error.location, "code"),
                    format!(
                        "error code {} ({:?}) is in -32768..-32000, which JSON-RPC reserves for pre-defined errors; OpenRPC allows it only for those; choose a code outside the range",
                        error.code, error.message
                    ),
                ));
            }
            match first_by_code.get(&error.code) {
                Some(&first) => {
                    let first = &errors[first];
                    self.diags.push(Diagnostic::warning(
                        RULE_CONTRACT_ERROR_DUPLICATE_CODE,
                        self.child(&error.location, "code"),
                        format!(
                            "error code {} is declared with message {:?} (at {}:{}:{}) and with {:?}; both constructors are generated (`errors::{}`, `errors::{}`), and clients can tell them apart only by message",
                            error.code,
                            first.message,
                            first.location.file.display(),
                            first.location.line,
                            first.location.column,
                            error.message,
                            first.fn_name,
                            error.fn_name,
                        ),
                    ));
                }
                None => {
                    first_by_code.insert(error.code, i);
                }
            }
        }
    }

    /// OpenRPC reserves method names that begin with `rpc.` for rpc-internal methods (the
    /// plain JSON-RPC endpoint answers `rpc.discover` itself).
    fn reserved_method_names(&mut self) {
        for m in &self.doc.methods {
            if m.name.starts_with(RESERVED_PREFIX) {
                let message = format!(
                    "method name {:?} begins with \"rpc.\", which OpenRPC reserves for rpc-internal methods such as rpc.discover; rename the method",
                    m.name
                );
                self.error(
                    RULE_RESERVED_METHOD_NAMES,
                    self.child(&m.location, "name"),
                    message,
                );
            }
        }
    }

    fn params(&mut self, m: &Method) {
        let mut seen = HashSet::new();
        let mut first_optional: Option<&ContentDescriptor> = None;
        for p in &m.params {
            if !seen.insert(p.name.as_str()) {
                let message = format!("method {:?} has two params named {:?}", m.name, p.name);
                self.error(
                    "unique-param-names",
                    self.child(&p.location, "name"),
                    message,
                );
            }
            if p.required {
                if let Some(opt) = first_optional {
                    // The generated params decode by name whatever the order, and by position
                    // with `null` in the optional's place: a correct crate still comes out.
                    let assumed = match m.param_structure {
                        ParamStructure::ByName => {
                            "accepted: params by name do not depend on their order".to_string()
                        }
                        ParamStructure::ByPosition | ParamStructure::Either => format!(
                            "accepted: a call by position sends null for {:?} to reach {:?}",
                            opt.name, p.name
                        ),
                    };
                    let message = format!(
                        "required param {:?} of method {:?} comes after optional param {:?} (OpenRPC lists required params first); {assumed}",
                        p.name, m.name, opt.name
                    );
                    self.diags.push(Diagnostic::warning(
                        RULE_REQUIRED_PARAMS_FIRST,
                        self.child(&p.location, "required"),
                        message,
                    ));
                }
            } else if first_optional.is_none() {
                first_optional = Some(p);
            }
        }
    }

    /// Follows `$ref`s through [`Document::schemas`] (bounded, so cycles end).
    fn deref<'s>(&'s self, mut schema: &'s Value) -> &'s Value {
        for _ in 0..32 {
            match schema
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|k| self.doc.schemas.get(k))
            {
                Some(named) => schema = &named.schema,
                None => break,
            }
        }
        schema
    }

    /// `x-mcp.complete` marks prompt arguments and template variables only.
    fn completions(&mut self, m: &Method) {
        let completable = matches!(
            m.mcp,
            Some(McpBinding::Prompt(_) | McpBinding::ResourceTemplate(_))
        );
        let marked = m
            .params
            .iter()
            .filter(|p| p.complete && !completable)
            .chain(m.result.iter().filter(|r| r.complete));
        let mut found = Vec::new();
        for descriptor in marked {
            found.push(descriptor.location.clone());
        }
        for location in found {
            self.error(
                "mcp-complete",
                location,
                format!(
                    "`x-mcp.complete` applies to the params of a prompt or resource-template; method {:?} is {}",
                    m.name,
                    match &m.mcp {
                        Some(binding) => format!("a {}", binding.kind().as_str()),
                        None => "not exposed to MCP".to_string(),
                    }
                ),
            );
        }
    }

    fn mcp(&mut self, m: &Method) {
        self.completions(m);
        let Some(binding) = &m.mcp else { return };
        if m.result.is_none() {
            self.error(
                "mcp-needs-result",
                binding.common().location.clone(),
                format!(
                    "method {:?} is exposed as a {} but has no `result` (it is a notification)",
                    m.name,
                    binding.kind().as_str()
                ),
            );
        }
        let address = match binding {
            McpBinding::Resource(resource) => Some(("uri", resource.uri.as_str())),
            McpBinding::ResourceTemplate(template) => {
                Some(("uriTemplate", template.uri_template.as_str()))
            }
            McpBinding::Tool(_) | McpBinding::Prompt(_) => None,
        };
        if let Some((key, uri)) = address.filter(|(_, uri)| {
            uri.get(..RESERVED_URI_SCHEME.len())
                .is_some_and(|scheme| scheme.eq_ignore_ascii_case(RESERVED_URI_SCHEME))
        }) {
            self.error(
                RULE_MCP_RESERVED_URI,
                self.child(&binding.common().location, key),
                format!(
                    "{} {key} {uri:?} of method {:?}: the `{RESERVED_URI_SCHEME}` scheme is reserved for the tool results the server keeps (over a tool's result budget, read in pages); use another scheme",
                    binding.kind().as_str(),
                    m.name
                ),
            );
        }
        match binding {
            McpBinding::Tool(tool) => self.tool_name(m, &tool.common),
            McpBinding::Prompt(prompt) => self.prompt_arguments(m, &prompt.common.name),
            McpBinding::Resource(resource) => self.resource_params(m, &resource.uri),
            McpBinding::ResourceTemplate(template) => self.uri_template(m, template),
        }
    }

    fn tool_name(&mut self, m: &Method, tool: &McpCommon) {
        if valid_tool_name(&tool.name) {
            return;
        }
        let message = match m.mcp_origin {
            // Named after the method, which the document cannot be asked to rename.
            Some(McpOrigin::Selection) => format!(
                "method {:?} is selected by --tools, but its name is not a valid tool name (1-128 characters of [A-Za-z0-9_.-]); clients may reject it; give the tool a name in an --overlay: {{\"methods\": {{{:?}: {{\"kind\": \"tool\", \"name\": {:?}}}}}}}",
                m.name,
                m.name,
                suggested_tool_name(&m.name)
            ),
            Some(McpOrigin::Overlay) => format!(
                "tool name {:?} (method {:?}, from the overlay) is not 1-128 characters of [A-Za-z0-9_.-]; clients may reject it; set `name` in the overlay's entry",
                tool.name, m.name
            ),
            _ => format!(
                "tool name {:?} is not 1-128 characters of [A-Za-z0-9_.-]; clients may reject it; set `x-mcp.name`",
                tool.name
            ),
        };
        self.diags.push(Diagnostic::warning(
            "mcp-tool-name",
            self.child(&tool.location, "name"),
            message,
        ));
    }

    fn prompt_arguments(&mut self, m: &Method, prompt: &str) {
        for p in &m.params {
            let schema = self.deref(&p.schema);
            if schema.get("type").and_then(Value::as_str) != Some("string") {
                self.error(
                    "mcp-prompt-arguments",
                    p.schema_location.clone(),
                    format!(
                        "prompt {prompt:?} argument {:?} must have a schema of `type: \"string\"` (prompt arguments are strings)",
                        p.name
                    ),
                );
            }
        }
    }

    fn resource_params(&mut self, m: &Method, uri: &str) {
        for p in &m.params {
            self.error(
                "mcp-resource-params",
                p.location.clone(),
                format!(
                    "resource {uri:?} takes param {:?}; a static resource takes no params (use a resource-template)",
                    p.name
                ),
            );
        }
    }

    fn uri_template(&mut self, m: &Method, binding: &ResourceTemplateBinding) {
        let template = &binding.uri_template;
        let at = self.child(&binding.common.location, "uriTemplate");
        let vars = match parse_uri_template(template) {
            Ok(vars) => vars,
            Err(why) => {
                self.error(
                    "mcp-uri-template",
                    at,
                    format!("uriTemplate {template:?}: {why}"),
                );
                return;
            }
        };
        for var in &vars {
            if !m.params.iter().any(|p| p.name == var.name) {
                let message = format!(
                    "uriTemplate {template:?}: variable {:?} names no param of method {:?}",
                    var.name, m.name
                );
                self.error("mcp-uri-template", at.clone(), message);
            }
        }
        for var in vars.iter().filter(|var| var.query) {
            if m.params.iter().any(|p| p.name == var.name && p.required) {
                let message = format!(
                    "uriTemplate {template:?}: required param {:?} of method {:?} is in the query, where it may be left out; put it in the path",
                    var.name, m.name
                );
                self.error("mcp-uri-template", at.clone(), message);
            }
        }
        for p in m.params.iter().filter(|p| p.required) {
            if !vars.iter().any(|v| v.name == p.name) {
                let message = format!(
                    "required param {:?} of method {:?} does not appear in uriTemplate {template:?}",
                    p.name, m.name
                );
                self.error("mcp-uri-template", at.clone(), message);
            }
        }
    }

    fn mcp_unique_names(&mut self) {
        let mut seen: HashMap<(McpKind, &str), &Location> = HashMap::new();
        for m in &self.doc.methods {
            let Some(b) = &m.mcp else { continue };
            let (what, key) = match b.kind() {
                McpKind::Tool => ("tool name", "name"),
                McpKind::Prompt => ("prompt name", "name"),
                McpKind::Resource => ("resource uri", "uri"),
                McpKind::ResourceTemplate => ("resource uriTemplate", "uriTemplate"),
            };
            let (id, location) = (b.key(), &b.common().location);
            if let Some(first) = seen.get(&(b.kind(), id)) {
                let message = format!(
                    "duplicate {what} {id:?} (method {:?}; first at {}:{}:{})",
                    m.name,
                    first.file.display(),
                    first.line,
                    first.column
                );
                self.error("mcp-unique-names", self.child(location, key), message);
            } else {
                seen.insert((b.kind(), id), location);
            }
        }
    }

    fn headers(&mut self, m: &Method) {
        let is_tool = m.mcp.as_ref().is_some_and(|b| b.kind() == McpKind::Tool);
        let mut found = Vec::new();
        for p in &m.params {
            let mut visited = HashSet::new();
            let mut walk = HeaderWalk {
                doc: self.doc,
                follow_refs: is_tool,
                visited: &mut visited,
                pending: Vec::new(),
                found: &mut found,
            };
            walk.run(&p.schema, &p.schema_location);
        }
        if !is_tool {
            for h in found {
                let message = format!(
                    "`x-mcp-header` on a param of method {:?}, which is not an MCP tool; only tool params become headers",
                    m.name
                );
                self.error("mcp-header-placement", h.location, message);
            }
            return;
        }
        let mut names: HashMap<String, Location> = HashMap::new();
        for h in found {
            self.tool_header(m, h, &mut names);
        }
    }

    /// Checks one header of a tool param: reachable, a token, unique, on a scalar schema.
    /// `names` holds the headers already seen in the tool, lowercased.
    fn tool_header(&mut self, m: &Method, h: FoundHeader, names: &mut HashMap<String, Location>) {
        if !h.reachable {
            self.error(
                "mcp-header-reachable",
                h.location,
                format!(
                    "`x-mcp-header` {} is not reachable from the tool's input root through `properties` alone (it is under {})",
                    h.value, h.via
                ),
            );
            return;
        }
        let Some(name) = h.value.as_str() else {
            self.error(
                "mcp-header-token",
                h.location,
                format!("`x-mcp-header` must be a string, found {}", h.value),
            );
            return;
        };
        if name.is_empty() || !name.chars().all(is_tchar) {
            self.error(
                "mcp-header-token",
                h.location.clone(),
                format!("`x-mcp-header` {name:?} is not a non-empty RFC 9110 token (letters, digits and !#$%&'*+-.^_`|~)"),
            );
        } else if let Some(first) = names.get(&name.to_ascii_lowercase()) {
            self.error(
                "mcp-header-unique",
                h.location.clone(),
                format!(
                    "`x-mcp-header` {name:?} repeats (case-insensitively) the one at {}:{}:{} in tool {:?}",
                    first.file.display(),
                    first.line,
                    first.column,
                    m.name
                ),
            );
        } else {
            names.insert(name.to_ascii_lowercase(), h.location.clone());
        }
        match h.schema_type.as_deref() {
            Some("string" | "integer" | "boolean") => {}
            other => self.error(
                "mcp-header-type",
                h.location,
                format!(
                    "`x-mcp-header` {name:?} is on a schema of type {}; only \"string\", \"integer\" and \"boolean\" can become headers",
                    other.map_or("(none)".to_string(), |t| format!("{t:?}"))
                ),
            ),
        }
    }
}

/// One `x-mcp-header` found in a param schema.
struct FoundHeader {
    value: Value,
    location: Location,
    reachable: bool,
    via: String,
    schema_type: Option<String>,
}

/// One search for `x-mcp-header`s through a param schema and what it references.
struct HeaderWalk<'w> {
    doc: &'w Document,
    /// Whether `$ref`s are followed (as unreachable): only for tools, whose params can carry
    /// headers; elsewhere a header is misplaced where it is written, not where it is used.
    follow_refs: bool,
    /// Named schemas already entered, so reference cycles end.
    visited: &'w mut HashSet<String>,
    /// Named schemas still to walk, with the `via` they were reached by: walked one after the
    /// other rather than inside one another, so a long `$ref` chain does not recurse.
    pending: Vec<(&'w NamedSchema, String)>,
    found: &'w mut Vec<FoundHeader>,
}

impl<'w> HeaderWalk<'w> {
    /// Walks a param's schema, then every named schema it reaches.
    fn run(&mut self, schema: &Value, at: &Location) {
        self.schema(schema, at, true, "");
        while let Some((named, via)) = self.pending.pop() {
            self.schema(&named.schema, &named.location, false, &via);
        }
    }

    /// Walks `schema` at `at`. `via` names the first hop that was not a `properties` key (empty
    /// while `reachable`), for the message when a header is found under it.
    fn schema(&mut self, schema: &Value, at: &Location, reachable: bool, via: &str) {
        let Value::Object(map) = schema else { return };
        if let Some(value) = map.get("x-mcp-header") {
            self.found.push(FoundHeader {
                value: value.clone(),
                location: self.locate(at, "x-mcp-header"),
                reachable,
                via: via.to_string(),
                schema_type: header_type(map),
            });
        }
        for (keyword, child) in map {
            if keyword == "$ref" {
                self.reference(child, via);
                continue;
            }
            // Only `properties` keeps a header reachable; the first other hop names the path.
            let (reachable, via) = match keyword.as_str() {
                "properties" => (reachable, via),
                _ if via.is_empty() => (false, keyword.as_str()),
                _ => (false, via),
            };
            let subschemas = schema_walk::subschemas(keyword, child);
            if subschemas.is_empty() {
                continue;
            }
            let child_at = self.locate(at, keyword);
            for (member, subschema) in subschemas {
                let member_at = self
                    .doc
                    .sources
                    .locate(&child_at.file, &member.pointer(&child_at.pointer));
                self.schema(subschema, &member_at, reachable, via);
            }
        }
    }

    /// Queues a `$ref`'s named schema (when following them), once.
    fn reference(&mut self, reference: &Value, via: &str) {
        if !self.follow_refs {
            return;
        }
        let Some(key) = reference.as_str() else {
            return;
        };
        let Some(named) = self.doc.schemas.get(key) else {
            return;
        };
        if self.visited.insert(key.to_string()) {
            let via = if via.is_empty() { "$ref" } else { via };
            self.pending.push((named, via.to_string()));
        }
    }

    /// The location of `key` in the object at `at`.
    fn locate(&self, at: &Location, key: &str) -> Location {
        let pointer = format!("{}/{}", at.pointer, escape_token(key));
        self.doc.sources.locate(&at.file, &pointer)
    }
}

/// The type a header's schema declares: its `type`, or the one non-null type of a list.
fn header_type(schema: &serde_json::Map<String, Value>) -> Option<String> {
    match schema.get("type") {
        Some(Value::String(t)) => Some(t.clone()),
        Some(Value::Array(ts)) => {
            let non_null: Vec<&str> = ts
                .iter()
                .filter_map(Value::as_str)
                .filter(|t| *t != "null")
                .collect();
            match non_null.as_slice() {
                [one] => Some(one.to_string()),
                _ => Some(Value::Array(ts.clone()).to_string()),
            }
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates() {
        let vars = parse_uri_template("file:///logs/{name}.log?{+rest}").unwrap();
        assert_eq!(
            vars,
            vec![
                TemplateVar {
                    name: "name".into(),
                    reserved: false,
                    query: false,
                },
                TemplateVar {
                    name: "rest".into(),
                    reserved: true,
                    query: false,
                }
            ]
        );
        let vars = parse_uri_template("eth://subscription/{kind}{?filter,limit}").unwrap();
        let named: Vec<(&str, bool)> = vars.iter().map(|v| (v.name.as_str(), v.query)).collect();
        assert_eq!(named, [("kind", false), ("filter", true), ("limit", true)]);
        assert!(parse_uri_template("plain://x").unwrap().is_empty());
        for bad in [
            "a{", "a}", "{}", "{+}", "{a,b}", "{#a}", "{a:3}", "{a*}", "{a-b}", "{{a}}", "{?}",
            "{?a,}", "x{?a}y", "{?a}{b}", "{?a-b}",
        ] {
            assert!(parse_uri_template(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn tool_names() {
        assert!(valid_tool_name("get_weather.v2-beta"));
        assert!(!valid_tool_name(""));
        assert!(!valid_tool_name("has space"));
        assert!(!valid_tool_name(&"a".repeat(129)));
        assert!(valid_tool_name(&"a".repeat(128)));
        for (name, suggested) in [
            ("get balance", "get_balance"),
            ("Filecoin.ChainHead", "Filecoin.ChainHead"),
            ("ns/list:all", "ns_list_all"),
            ("", "tool"),
        ] {
            assert_eq!(suggested_tool_name(name), suggested);
            assert!(valid_tool_name(&suggested_tool_name(name)));
        }
        assert!(valid_tool_name(&suggested_tool_name(&"é".repeat(300))));
    }
}
