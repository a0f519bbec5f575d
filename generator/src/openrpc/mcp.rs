//! The MCP vocabulary of an OpenRPC document: `x-mcp` on methods and `info["x-mcp"]`.

use serde_json::{Map, Value};

use super::model::{
    McpBinding, McpCommon, McpKind, McpOutput, PromptBinding, ResourceBinding,
    ResourceTemplateBinding, ServerExtension, SubscriptionBinding, ToolBinding,
};
use crate::diagnostics::{Diagnostic, Location};

/// Rule id of every problem with an `x-mcp` extension.
pub const RULE: &str = "mcp-extension";

/// Keys allowed in a method's `x-mcp` object.
pub const METHOD_KEYS: &[&str] = &[
    "kind",
    "name",
    "title",
    "description",
    "annotations",
    "icons",
    "uri",
    "uriTemplate",
    "mimeType",
    "_meta",
    "output",
    "inputSchema",
    "scopes",
    "rateLimit",
    "resultBudget",
    "subscription",
];

/// Keys allowed in `info["x-mcp"]`.
pub const SERVER_KEYS: &[&str] = &[
    "name",
    "title",
    "instructions",
    "websiteUrl",
    "card",
    "scopes",
    "hideUnauthorized",
];

/// The method facts `x-mcp` defaults come from.
pub struct MethodFacts<'a> {
    /// The method name (default exposed name).
    pub name: &'a str,
    /// The method description (default description).
    pub description: Option<&'a str>,
    /// The method summary (default description when there is no description).
    pub summary: Option<&'a str>,
}

/// The kinds `x-mcp` names.
const KINDS: [&str; 4] = ["tool", "prompt", "resource", "resource-template"];

/// Parses `kind` text.
pub fn parse_kind(text: &str) -> Option<McpKind> {
    match text {
        "tool" => Some(McpKind::Tool),
        "prompt" => Some(McpKind::Prompt),
        "resource" => Some(McpKind::Resource),
        "resource-template" => Some(McpKind::ResourceTemplate),
        _ => None,
    }
}

fn kind_error(found: &str, location: Location) -> Diagnostic {
    Diagnostic::error(
        RULE,
        location,
        format!(
            "unknown `x-mcp` kind {found}{}; expected \"tool\", \"prompt\", \"resource\" or \"resource-template\"",
            serde_json::from_str::<String>(found)
                .ok()
                .and_then(|text| crate::diagnostics::did_you_mean(&text, KINDS))
                .map(|near| format!(" (did you mean {near:?}?)"))
                .unwrap_or_default()
        ),
    )
}

/// Parses a method's `x-mcp` value. `locate` maps a key path relative to the `x-mcp` value
/// (`""` for the value itself, `"/uri"` for a key) to a location. Returns the binding when the
/// value is usable, plus every problem found.
pub fn parse_method(
    value: &Value,
    method: &MethodFacts<'_>,
    locate: &dyn Fn(&str) -> Location,
) -> (Option<McpBinding>, Vec<Diagnostic>) {
    let here = locate("");
    let options = Options::defaults(method, here.clone());
    match value {
        Value::String(s) => parse_kind_only(s, options),
        Value::Object(map) => parse_object(map, options, locate),
        other => {
            let message = format!(
                "`x-mcp` must be a kind string or an object with `kind`, found {}",
                type_name(other)
            );
            (None, vec![Diagnostic::error(RULE, here, message)])
        }
    }
}

/// Every option `x-mcp` may carry, read before the kind decides which of them the binding keeps.
struct Options {
    /// The method's name (or the overlay's key), for messages.
    method: String,
    common: McpCommon,
    annotations: Option<Value>,
    input_schema: Option<Value>,
    uri: Option<String>,
    uri_template: Option<String>,
    mime_type: Option<String>,
    subscription: Option<SubscriptionBinding>,
}

impl Options {
    /// The defaults, taken from the method.
    fn defaults(method: &MethodFacts<'_>, location: Location) -> Self {
        Options {
            method: method.name.to_string(),
            common: McpCommon {
                name: method.name.to_string(),
                title: None,
                description: method.description.or(method.summary).map(str::to_string),
                icons: None,
                meta: None,
                output: McpOutput::Typed,
                scopes: None,
                rate_limit: None,
                result_budget: None,
                location,
            },
            annotations: None,
            input_schema: None,
            uri: None,
            uri_template: None,
            mime_type: None,
            subscription: None,
        }
    }
}

/// `"x-mcp": "tool"`: a kind alone, usable only by kinds that need no address.
fn parse_kind_only(text: &str, options: Options) -> (Option<McpBinding>, Vec<Diagnostic>) {
    let here = options.common.location.clone();
    let message = match parse_kind(text) {
        Some(McpKind::Resource) => "`x-mcp` kind \"resource\" needs a `uri`; use an object: {\"kind\": \"resource\", \"uri\": ...}".to_string(),
        Some(McpKind::ResourceTemplate) => "`x-mcp` kind \"resource-template\" needs a `uriTemplate`; use an object: {\"kind\": \"resource-template\", \"uriTemplate\": ...}".to_string(),
        Some(kind) => {
            let mut diags = Vec::new();
            return (bind(kind, options, &|_| here.clone(), &mut diags), diags);
        }
        None => return (None, vec![kind_error(&format!("{text:?}"), here)]),
    };
    (None, vec![Diagnostic::error(RULE, here, message)])
}

/// `"x-mcp": {"kind": ..., ...}`: every key checked, every problem reported.
fn parse_object(
    map: &Map<String, Value>,
    mut options: Options,
    locate: &dyn Fn(&str) -> Location,
) -> (Option<McpBinding>, Vec<Diagnostic>) {
    let mut reader = Reader {
        map,
        locate,
        diags: Vec::new(),
        ok: true,
    };
    let known = reader.unknown_keys();
    let kind = reader.kind(&options.common.location);
    if let Some(name) = reader.string("name") {
        options.common.name = name;
    }
    options.common.title = reader.string("title");
    if let Some(d) = reader.string("description") {
        options.common.description = Some(d);
    }
    options.uri = reader.string("uri");
    options.uri_template = reader.string("uriTemplate");
    options.mime_type = reader.string("mimeType");
    if let Some(output) = reader.output() {
        options.common.output = output;
    }
    options.annotations = reader.value("annotations", true);
    options.common.icons = reader.value("icons", false);
    options.common.meta = reader.value("_meta", true);
    options.input_schema = reader.value("inputSchema", true);
    if let Some(value) = map.get("scopes") {
        match parse_scopes(value, "x-mcp.scopes") {
            Ok(scopes) => options.common.scopes = Some(scopes),
            Err(message) => reader.error(locate("/scopes"), message),
        }
    }
    if let Some(value) = map.get("rateLimit") {
        match value.as_str().map(parse_rate) {
            Some(Ok(rate)) => options.common.rate_limit = Some(rate),
            Some(Err(message)) => reader.error(locate("/rateLimit"), message),
            None => reader.error(
                locate("/rateLimit"),
                "`x-mcp.rateLimit` must be a string such as \"10/min\"".into(),
            ),
        }
    }
    if let Some(value) = map.get("resultBudget") {
        match parse_budget(value) {
            Ok(bytes) => options.common.result_budget = Some(bytes),
            Err(message) => reader.error(locate("/resultBudget"), message),
        }
    }
    if let Some(value) = map.get("subscription") {
        match parse_subscription(value) {
            Ok(subscription) => options.subscription = Some(subscription),
            Err(message) => reader.error(locate("/subscription"), message),
        }
    }
    let Reader { mut diags, ok, .. } = reader;
    let binding = match kind {
        Some(kind) if ok => bind(kind, options, locate, &mut diags),
        _ => None,
    };
    (binding.filter(|_| known), diags)
}

/// Reads the keys of an `x-mcp` object, recording each problem and whether any was fatal.
struct Reader<'a> {
    map: &'a Map<String, Value>,
    locate: &'a dyn Fn(&str) -> Location,
    diags: Vec<Diagnostic>,
    ok: bool,
}

impl Reader<'_> {
    fn error(&mut self, at: Location, message: String) {
        self.diags.push(Diagnostic::error(RULE, at, message));
        self.ok = false;
    }

    /// Reports each key `x-mcp` does not define; true when there is none.
    fn unknown_keys(&mut self) -> bool {
        let mut known = true;
        for key in self.map.keys() {
            if !METHOD_KEYS.contains(&key.as_str()) {
                self.diags.push(Diagnostic::error(
                    RULE,
                    (self.locate)(&format!("/{}", super::json_pos::escape_token(key))),
                    format!(
                        "unknown key `{key}` in `x-mcp`{}; allowed keys: {}",
                        suggestion(key, METHOD_KEYS),
                        METHOD_KEYS.join(", ")
                    ),
                ));
                known = false;
            }
        }
        known
    }

    fn kind(&mut self, here: &Location) -> Option<McpKind> {
        let found = match self.map.get("kind") {
            None => {
                let message = "`x-mcp` object needs a `kind`: \"tool\", \"prompt\", \"resource\" or \"resource-template\"";
                self.error(here.clone(), message.to_string());
                return None;
            }
            Some(Value::String(s)) => match parse_kind(s) {
                Some(kind) => return Some(kind),
                None => format!("{s:?}"),
            },
            Some(other) => type_name(other).to_string(),
        };
        let error = kind_error(&found, (self.locate)("/kind"));
        self.diags.push(error);
        self.ok = false;
        None
    }

    fn string(&mut self, key: &str) -> Option<String> {
        match self.map.get(key)? {
            Value::String(s) => Some(s.clone()),
            other => {
                let message = format!("`x-mcp.{key}` must be a string, found {}", type_name(other));
                self.error((self.locate)(&format!("/{key}")), message);
                None
            }
        }
    }

    fn output(&mut self) -> Option<McpOutput> {
        match self.string("output").as_deref()? {
            "typed" => Some(McpOutput::Typed),
            "mcp" => Some(McpOutput::Mcp),
            other => {
                let message =
                    format!("`x-mcp.output` must be \"typed\" or \"mcp\", found \"{other}\"");
                self.error((self.locate)("/output"), message);
                None
            }
        }
    }

    /// A value kept as given: an object, or an array when `!want_object`.
    fn value(&mut self, key: &str, want_object: bool) -> Option<Value> {
        let v = self.map.get(key)?;
        if (want_object && v.is_object()) || (!want_object && v.is_array()) {
            return Some(v.clone());
        }
        let message = format!(
            "`x-mcp.{key}` must be {}, found {}",
            if want_object { "an object" } else { "an array" },
            type_name(v)
        );
        self.error((self.locate)(&format!("/{key}")), message);
        None
    }
}

/// The binding of `kind` from `options`, or `None` (with the reasons) when the kind's address
/// is missing or an address is given to a kind it does not apply to.
fn bind(
    kind: McpKind,
    options: Options,
    locate: &dyn Fn(&str) -> Location,
    diags: &mut Vec<Diagnostic>,
) -> Option<McpBinding> {
    if address_problems(kind, &options, locate, diags) {
        return None;
    }
    if kind != McpKind::Tool && options.common.result_budget.is_some() {
        diags.push(Diagnostic::warning(
            RULE,
            locate("/resultBudget"),
            format!(
                "`x-mcp.resultBudget` of method {:?} is ignored: only a tool's result is kept and read in pages, and this is a {}",
                options.method,
                kind.as_str()
            ),
        ));
    }
    if kind != McpKind::ResourceTemplate && options.subscription.is_some() {
        diags.push(Diagnostic::error(
            RULE,
            locate("/subscription"),
            format!(
                "`x-mcp.subscription` only applies to kind \"resource-template\" (each URI one subscription), not \"{}\"",
                kind.as_str()
            ),
        ));
        return None;
    }
    let Options {
        method: _,
        common,
        annotations,
        input_schema,
        uri,
        uri_template,
        mime_type,
        subscription,
    } = options;
    Some(match kind {
        McpKind::Tool => McpBinding::Tool(ToolBinding {
            common,
            annotations,
            input_schema,
        }),
        McpKind::Prompt => McpBinding::Prompt(PromptBinding { common }),
        McpKind::Resource => McpBinding::Resource(ResourceBinding {
            common,
            uri: uri?,
            mime_type,
            annotations,
        }),
        McpKind::ResourceTemplate => McpBinding::ResourceTemplate(ResourceTemplateBinding {
            common,
            uri_template: uri_template?,
            mime_type,
            annotations,
            subscription,
        }),
    })
}

/// `x-mcp.subscription`: the unsubscribe method's name (the id by position), or
/// `{"unsubscribe": ..., "idParam": ...}` (the id by name).
fn parse_subscription(value: &Value) -> Result<SubscriptionBinding, String> {
    const SHAPE: &str = "`x-mcp.subscription` must be the unsubscribe method's name (\"eth_unsubscribe\") or {\"unsubscribe\": \"starknet_unsubscribe\", \"idParam\": \"subscription_id\"}";
    match value {
        Value::String(unsubscribe) if !unsubscribe.is_empty() => Ok(SubscriptionBinding {
            unsubscribe: unsubscribe.clone(),
            id_param: None,
        }),
        Value::Object(map) => {
            if let Some(key) = map
                .keys()
                .find(|k| !["unsubscribe", "idParam"].contains(&k.as_str()))
            {
                return Err(format!(
                    "unknown key `{key}` in `x-mcp.subscription`: {SHAPE}"
                ));
            }
            let unsubscribe = match map.get("unsubscribe") {
                Some(Value::String(name)) if !name.is_empty() => name.clone(),
                _ => return Err(SHAPE.to_string()),
            };
            let id_param = match map.get("idParam") {
                None => None,
                Some(Value::String(name)) if !name.is_empty() => Some(name.clone()),
                Some(_) => return Err(SHAPE.to_string()),
            };
            Ok(SubscriptionBinding {
                unsubscribe,
                id_param,
            })
        }
        _ => Err(SHAPE.to_string()),
    }
}

/// Reports a resource without its `uri`, a template without its `uriTemplate`, and either
/// address on a kind it does not apply to; true when there was any.
fn address_problems(
    kind: McpKind,
    options: &Options,
    locate: &dyn Fn(&str) -> Location,
    diags: &mut Vec<Diagnostic>,
) -> bool {
    let here = &options.common.location;
    let missing = match kind {
        McpKind::Resource if options.uri.is_none() => Some("`x-mcp` resource needs a `uri`"),
        McpKind::ResourceTemplate if options.uri_template.is_none() => {
            Some("`x-mcp` resource-template needs a `uriTemplate`")
        }
        _ => None,
    };
    if let Some(message) = missing {
        diags.push(Diagnostic::error(RULE, here.clone(), message));
    }
    let mut misplaced = false;
    for (key, given, owner) in [
        ("uri", options.uri.is_some(), McpKind::Resource),
        (
            "uriTemplate",
            options.uri_template.is_some(),
            McpKind::ResourceTemplate,
        ),
    ] {
        if given && kind != owner {
            diags.push(Diagnostic::error(
                RULE,
                locate(&format!("/{key}")),
                format!(
                    "`x-mcp.{key}` only applies to kind \"{}\", not \"{}\"",
                    owner.as_str(),
                    kind.as_str()
                ),
            ));
            misplaced = true;
        }
    }
    missing.is_some() || misplaced
}

/// Parses `info["x-mcp"]`.
pub fn parse_server(
    value: &Value,
    locate: &dyn Fn(&str) -> Location,
) -> (ServerExtension, Vec<Diagnostic>) {
    let mut diags = Vec::new();
    let mut server = ServerExtension::default();
    let Value::Object(map) = value else {
        diags.push(Diagnostic::error(
            RULE,
            locate(""),
            format!("`info.x-mcp` must be an object, found {}", type_name(value)),
        ));
        return (server, diags);
    };
    for (key, v) in map {
        if key == "scopes" {
            match parse_scopes(v, "info.x-mcp.scopes") {
                Ok(scopes) => server.scopes = Some(scopes),
                Err(message) => diags.push(Diagnostic::error(RULE, locate("/scopes"), message)),
            }
            continue;
        }
        if key == "hideUnauthorized" {
            match v {
                Value::Bool(hide) => server.hide_unauthorized = *hide,
                other => diags.push(Diagnostic::error(
                    RULE,
                    locate("/hideUnauthorized"),
                    format!(
                        "`info.x-mcp.hideUnauthorized` must be a boolean, found {}",
                        type_name(other)
                    ),
                )),
            }
            continue;
        }
        if key == "card" {
            match v {
                Value::Object(card) => server.card = Some(card.clone()),
                other => diags.push(Diagnostic::error(
                    RULE,
                    locate("/card"),
                    format!(
                        "`info.x-mcp.card` must be an object, found {}",
                        type_name(other)
                    ),
                )),
            }
            continue;
        }
        let slot = match key.as_str() {
            "name" => &mut server.name,
            "title" => &mut server.title,
            "instructions" => &mut server.instructions,
            "websiteUrl" => &mut server.website_url,
            _ => {
                diags.push(Diagnostic::error(
                    RULE,
                    locate(&format!("/{}", super::json_pos::escape_token(key))),
                    format!(
                        "unknown key `{key}` in `info.x-mcp`{}; allowed keys: {}",
                        suggestion(key, SERVER_KEYS),
                        SERVER_KEYS.join(", ")
                    ),
                ));
                continue;
            }
        };
        match v {
            Value::String(s) => *slot = Some(s.clone()),
            other => diags.push(Diagnostic::error(
                RULE,
                locate(&format!("/{key}")),
                format!(
                    "`info.x-mcp.{key}` must be a string, found {}",
                    type_name(other)
                ),
            )),
        }
    }
    (server, diags)
}

/// `rateLimit`: `N/PERIOD`, a count of calls per caller and a period: `s`, `min`, `h`, or a
/// number with `ms`, `s`, `m`, `min` or `h` (`10/30s`). The count and the period in
/// milliseconds, both at least 1.
pub(crate) fn parse_rate(text: &str) -> Result<(u32, u64), String> {
    let wrong = || {
        format!("`x-mcp.rateLimit` {text:?} is not a rate: expected N/PERIOD, e.g. \"10/s\", \"60/min\", \"1000/h\" or \"5/30s\"")
    };
    let (count, period) = text.trim().split_once('/').ok_or_else(wrong)?;
    let count: u32 = count.trim().parse().map_err(|_| wrong())?;
    let period = period.trim();
    let digits = period.bytes().take_while(u8::is_ascii_digit).count();
    let (amount, unit) = period.split_at(digits);
    let amount: u64 = match amount {
        "" => 1,
        amount => amount.parse().map_err(|_| wrong())?,
    };
    let unit_ms: u64 = match unit {
        "ms" => 1,
        "s" | "sec" | "second" => 1_000,
        "m" | "min" | "minute" => 60_000,
        "h" | "hour" => 3_600_000,
        _ => return Err(wrong()),
    };
    let per_ms = amount.checked_mul(unit_ms).ok_or_else(wrong)?;
    if count == 0 || per_ms == 0 {
        return Err(format!(
            "`x-mcp.rateLimit` {text:?}: the count and the period must be at least 1"
        ));
    }
    Ok((count, per_ms))
}

/// `resultBudget`: a whole number of bytes, at most `u32::MAX` (`0`: every result whole).
fn parse_budget(value: &Value) -> Result<u32, String> {
    let bytes = match value {
        Value::Number(n) => n.as_u64().ok_or_else(|| {
            format!("`x-mcp.resultBudget` {n} is not a number of bytes: expected a whole number, at least 0 (0: every result whole)")
        })?,
        other => {
            return Err(format!(
                "`x-mcp.resultBudget` must be a number of bytes such as 65536 (0: every result whole), found {}",
                type_name(other)
            ))
        }
    };
    u32::try_from(bytes).map_err(|_| {
        format!(
            "`x-mcp.resultBudget` {bytes} is too large: at most {} bytes",
            u32::MAX
        )
    })
}

/// `scopes`: an array of distinct OAuth scope tokens (RFC 6749 §3.3: printable ASCII without
/// space, `"` or `\`). The error names `what`.
fn parse_scopes(value: &Value, what: &str) -> Result<Vec<String>, String> {
    let Value::Array(items) = value else {
        return Err(format!(
            "`{what}` must be an array of scope strings, found {}",
            type_name(value)
        ));
    };
    let mut scopes: Vec<String> = Vec::with_capacity(items.len());
    for item in items {
        let Value::String(scope) = item else {
            return Err(format!(
                "`{what}` must hold strings, found {}",
                type_name(item)
            ));
        };
        let valid = !scope.is_empty()
            && scope
                .bytes()
                .all(|b| b == 0x21 || (0x23..=0x5b).contains(&b) || (0x5d..=0x7e).contains(&b));
        if !valid {
            return Err(format!(
                "`{what}`: {scope:?} is not an OAuth scope token (printable ASCII without spaces, quotes or backslashes)"
            ));
        }
        if scopes.contains(scope) {
            return Err(format!("`{what}`: {scope:?} is listed twice"));
        }
        scopes.push(scope.clone());
    }
    Ok(scopes)
}

/// ` (did you mean `KEY`?)` when `key` is a near miss of one of `allowed`, else nothing.
fn suggestion(key: &str, allowed: &[&str]) -> String {
    crate::diagnostics::did_you_mean(key, allowed.iter().copied())
        .map(|near| format!(" (did you mean `{near}`?)"))
        .unwrap_or_default()
}

/// A short name of a JSON value's type, for messages.
pub fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
