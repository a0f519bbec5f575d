//! Methods: each method object with its params, result, errors and `x-mcp` binding.

use serde_json::{Map, Value};

use super::paths::fragment_encode;
use super::{
    ptr_child, Loader, RULE_PARAM_DESCRIPTOR, RULE_RESERVED_METHOD_NAMES, RULE_RESULT_DESCRIPTOR,
};
use crate::diagnostics::{Diagnostic, Location};
use crate::openrpc::mcp::{self, type_name, MethodFacts};
use crate::openrpc::model::*;
use crate::openrpc::selection::{self, Choice};

/// The OpenRPC service discovery method, which the runtime answers from the document itself.
const RPC_DISCOVER: &str = "rpc.discover";

/// The name of a result the document gives none.
const UNNAMED_RESULT: &str = "result";

impl Loader {
    /// Every method that loads, in declaration order.
    pub(super) fn methods(&mut self, top: &Map<String, Value>) -> Vec<Method> {
        let mut methods = Vec::new();
        match top.get("methods") {
            Some(Value::Array(items)) => {
                for i in 0..items.len() {
                    let site = format!("/methods/{i}");
                    let location = self.locate(0, &site);
                    let Some((file, ptr, value)) = self.follow(0, &site, "method") else {
                        continue;
                    };
                    if self.declared_discover(&value) {
                        // Served by the runtime itself, from this very document: the
                        // declaration is not read (its result may well name the OpenRPC
                        // meta-schema by URL).
                        let location = self.locate(file, &ptr_child(&ptr, "name"));
                        self.diags.push(Diagnostic::warning(
                            RULE_RESERVED_METHOD_NAMES,
                            location,
                            "the document declares `rpc.discover`, the OpenRPC service discovery method, which the generated server answers itself with this document (on its plain JSON-RPC endpoint); the declaration is not generated as a handler method",
                        ));
                        self.skipped_methods.insert(i);
                        continue;
                    }
                    if let Some(m) = self.method(location, file, &ptr, value) {
                        methods.push(m);
                    }
                }
            }
            Some(Value::Object(_)) => self.shape(
                0,
                "/methods",
                "`methods` must be an array of method objects, found an object (a map keyed by method name is not OpenRPC)",
            ),
            Some(other) => {
                let message = format!(
                    "`methods` must be an array of method objects, found {}",
                    type_name(other)
                );
                self.shape(0, "/methods", message);
            }
            None => self.shape(0, "", "the required array `methods` is missing"),
        }
        methods
    }

    /// True for a declaration of `rpc.discover` that neither its own `x-mcp` nor an overlay
    /// entry of its exact name exposes to MCP (`--tools '*'` and the overlay's globs leave it
    /// to the runtime).
    fn declared_discover(&mut self, method: &Value) -> bool {
        if method.get("name").and_then(Value::as_str) != Some(RPC_DISCOVER)
            || method.get("x-mcp").is_some()
        {
            return false;
        }
        // Marks the patterns that match it, so none is said to match nothing.
        let choice = self.selection.choose(RPC_DISCOVER, false, &self.sources);
        let exposed = matches!(choice, Choice::Overlay { value, .. } if !value.is_null());
        !(exposed && self.selection.names_exactly(RPC_DISCOVER))
    }

    /// The method object `value`, found at `ptr` in `file` from the document's `location`.
    fn method(
        &mut self,
        location: Location,
        file: usize,
        ptr: &str,
        value: Value,
    ) -> Option<Method> {
        let Value::Object(map) = value else {
            let message = format!("a method must be an object, found {}", type_name(&value));
            self.shape(file, ptr, message);
            return None;
        };
        self.misspelt_keys(file, ptr, &map, super::METHOD_OBJECT_KEYS);
        let name = self.req_string(file, ptr, &map, "name", "a method");
        let summary = self.opt_string(file, ptr, &map, "summary");
        let description = self.opt_string(file, ptr, &map, "description");
        let deprecated = self.opt_bool(file, ptr, &map, "deprecated");
        let params = self.params(file, ptr, &map);
        let mut result_ok = true;
        let result = if map.contains_key("result") {
            let r = self.result(file, &ptr_child(ptr, "result"));
            result_ok = r.is_some();
            r
        } else {
            None
        };
        let param_structure = self.param_structure(file, ptr, &map);
        let errors = self.method_errors(file, ptr, &map);
        let examples = self.example_pairings(file, ptr, &map);
        let (mcp, mcp_origin) = match name.as_deref() {
            Some(name) => {
                let facts = MethodFacts {
                    name,
                    description: description.as_deref(),
                    summary: summary.as_deref(),
                };
                let notification = result_ok && result.is_none();
                self.binding(file, ptr, &map, &facts, &location, notification)
            }
            None => (None, None),
        };
        Some(Method {
            name: name?,
            summary,
            description,
            params: params?,
            result: result_ok.then_some(result)?,
            param_structure,
            deprecated,
            errors,
            mcp,
            mcp_origin,
            examples,
            location,
        })
    }

    /// The method's MCP binding and where it comes from: the overlay's entry, the method's
    /// own `x-mcp`, or a `--tools` pattern ([`crate::openrpc::selection`]).
    fn binding(
        &mut self,
        file: usize,
        ptr: &str,
        map: &Map<String, Value>,
        facts: &MethodFacts<'_>,
        location: &Location,
        notification: bool,
    ) -> (Option<McpBinding>, Option<McpOrigin>) {
        let own = map.get("x-mcp");
        let choice = self
            .selection
            .choose(facts.name, own.is_some(), &self.sources);
        let origin = choice.origin();
        let binding = match (choice, own) {
            (Choice::Document, Some(x_mcp)) => self.x_mcp(file, ptr, x_mcp, facts),
            (Choice::Document, None) => None,
            (Choice::Overlay { value, location }, _) if !value.is_null() => {
                // Its problems were told once, where the overlay was read.
                let pointer = location.pointer.clone();
                let sources = &self.sources;
                let locate = |sub: &str| sources.locate(&location.file, &format!("{pointer}{sub}"));
                mcp::parse_method(&value, facts, &locate).0
            }
            (Choice::Overlay { .. }, _) => None,
            (Choice::Selected, _) if notification => {
                let at = self.sources.child_or_self(location, "name");
                self.diags.push(Diagnostic::warning(
                    selection::RULE,
                    at,
                    format!(
                        "method {:?} matches --tools but has no `result` (it is a notification, and a tool call needs an answer): it is not made a tool",
                        facts.name
                    ),
                ));
                None
            }
            (Choice::Selected, _) => {
                let tool = Value::String("tool".to_string());
                mcp::parse_method(&tool, facts, &|_| location.clone()).0
            }
        };
        let origin = binding.as_ref().map(|_| origin);
        (binding, origin)
    }

    /// The params, or `None` when any of them (or the array) is unusable; every problem is
    /// reported either way.
    fn params(
        &mut self,
        file: usize,
        ptr: &str,
        map: &Map<String, Value>,
    ) -> Option<Vec<ContentDescriptor>> {
        let items = match map.get("params") {
            Some(Value::Array(items)) => items,
            None => {
                self.shape(file, ptr, "a method is missing the required array `params`");
                return None;
            }
            Some(other) => {
                let message = format!("`params` must be an array, found {}", type_name(other));
                self.shape(file, &ptr_child(ptr, "params"), message);
                return None;
            }
        };
        let mut params = Vec::new();
        let mut params_ok = true;
        for i in 0..items.len() {
            let p = format!("{ptr}/params/{i}");
            match self.param(file, &p) {
                Some(cd) => params.push(cd),
                None => params_ok = false,
            }
        }
        params_ok.then_some(params)
    }

    fn param_structure(
        &mut self,
        file: usize,
        ptr: &str,
        map: &Map<String, Value>,
    ) -> ParamStructure {
        match map.get("paramStructure") {
            None => ParamStructure::Either,
            Some(Value::String(s)) if s == "by-name" => ParamStructure::ByName,
            Some(Value::String(s)) if s == "by-position" => ParamStructure::ByPosition,
            Some(Value::String(s)) if s == "either" => ParamStructure::Either,
            Some(other) => {
                let message = format!(
                    "`paramStructure` must be \"by-name\", \"by-position\" or \"either\", found {other}"
                );
                self.shape(file, &ptr_child(ptr, "paramStructure"), message);
                ParamStructure::Either
            }
        }
    }

    /// The method's error objects. Its links are only followed, so a broken `$ref` in them is
    /// reported too.
    fn method_errors(
        &mut self,
        file: usize,
        ptr: &str,
        map: &Map<String, Value>,
    ) -> Vec<ErrorObject> {
        let mut errors = Vec::new();
        for i in 0..self.opt_array_len(file, ptr, map, "errors") {
            if let Some(e) = self.error_object(file, &format!("{ptr}/errors/{i}")) {
                errors.push(e);
            }
        }
        for i in 0..self.opt_array_len(file, ptr, map, "links") {
            let _ = self.follow(file, &format!("{ptr}/links/{i}"), "link");
        }
        errors
    }

    /// The method's example pairings, `$ref`s followed (a broken one is reported). Their shape
    /// is not checked here: only `--example-tests` reads them (`crate::emit::examples`), and
    /// documents in the wild carry examples of every shape.
    fn example_pairings(
        &mut self,
        file: usize,
        ptr: &str,
        map: &Map<String, Value>,
    ) -> Vec<ExamplePairing> {
        let mut pairings = Vec::new();
        for i in 0..self.opt_array_len(file, ptr, map, "examples") {
            let site = format!("{ptr}/examples/{i}");
            let Some((file, ptr, Value::Object(pairing))) =
                self.follow(file, &site, "example pairing")
            else {
                continue;
            };
            let text = |key: &str| pairing.get(key).and_then(Value::as_str).map(String::from);
            let params = match pairing.get("params") {
                // Every item or none: with one missing, the others would read as a different call.
                Some(Value::Array(items)) => (0..items.len())
                    .map(|j| self.example(file, &format!("{ptr}/params/{j}")))
                    .collect::<Vec<_>>()
                    .into_iter()
                    .collect(),
                _ => None,
            };
            let result = pairing
                .contains_key("result")
                .then(|| self.example(file, &ptr_child(&ptr, "result")))
                .flatten();
            pairings.push(ExamplePairing {
                name: text("name"),
                summary: text("summary"),
                description: text("description"),
                params,
                result,
                location: self.locate(file, &ptr),
            });
        }
        pairings
    }

    /// The Example object at `ptr`, its `$ref` followed; `None` when it is no object.
    fn example(&mut self, file: usize, ptr: &str) -> Option<Example> {
        let (file, ptr, value) = self.follow(file, ptr, "example")?;
        let Value::Object(example) = value else {
            return None;
        };
        Some(Example {
            name: example
                .get("name")
                .and_then(Value::as_str)
                .map(String::from),
            value: example.get("value").cloned(),
            location: self.locate(file, &ptr),
        })
    }

    /// The method's `x-mcp` binding, its problems reported.
    fn x_mcp(
        &mut self,
        file: usize,
        ptr: &str,
        value: &Value,
        facts: &MethodFacts<'_>,
    ) -> Option<McpBinding> {
        let x_ptr = ptr_child(ptr, "x-mcp");
        let path = self.files[file].path.clone();
        let sources = &self.sources;
        let locate = |sub: &str| sources.locate(&path, &format!("{x_ptr}{sub}"));
        let (binding, diags) = mcp::parse_method(value, facts, &locate);
        self.diags.0.extend(diags);
        binding
    }

    /// The `$ref` written at `ptr` in `file`, if the value there is one.
    fn written_ref(&self, file: usize, ptr: &str) -> Option<String> {
        let site = self.files[file].value.pointer(ptr)?;
        site.get("$ref").and_then(Value::as_str).map(str::to_string)
    }

    /// A param (following `$ref`s): a content descriptor or, with a [`RULE_PARAM_DESCRIPTOR`]
    /// warning, a `$ref` to a schema (a param named after the schema's key, `required` as a
    /// content descriptor's default says: false).
    fn param(&mut self, file: usize, ptr: &str) -> Option<ContentDescriptor> {
        let location = self.locate(file, ptr);
        let written = self.written_ref(file, ptr);
        let (target, target_ptr, value) = self.follow(file, ptr, "content descriptor")?;
        let is_schema = written.is_some()
            && target_ptr.starts_with("/components/schemas/")
            && value
                .as_object()
                .is_some_and(|m| !m.contains_key("name") && !m.contains_key("schema"));
        if !is_schema {
            return self.descriptor(location, target, &target_ptr, value, "a param");
        }
        let name = target_ptr
            .rsplit('/')
            .next()
            .unwrap_or_default()
            .replace("~1", "/")
            .replace("~0", "~");
        self.diags.push(Diagnostic::warning(
            RULE_PARAM_DESCRIPTOR,
            location.clone(),
            format!(
                "the param is a `$ref` to {:?}, a schema, not a content descriptor: read as a param named {name:?} of that schema",
                written.unwrap_or_default()
            ),
        ));
        let schema = Value::Object(Map::from_iter([(
            "$ref".to_string(),
            Value::String(format!("#{}", fragment_encode(&target_ptr))),
        )]));
        Some(self.of_schema(name, schema, (target, &target_ptr), location))
    }

    /// A content descriptor named `name` of `schema` (found at `target`, its `$ref`s made
    /// canonical there), optional and undescribed: what a bare schema given for a param or a
    /// result is read as.
    fn of_schema(
        &mut self,
        name: String,
        mut schema: Value,
        (target, target_ptr): (usize, &str),
        location: Location,
    ) -> ContentDescriptor {
        self.canon_schema(target, target_ptr, &mut schema);
        ContentDescriptor {
            name,
            document_name: None,
            summary: None,
            description: None,
            required: false,
            deprecated: false,
            schema,
            schema_location: self.locate(target, target_ptr),
            location,
            complete: false,
        }
    }

    /// A method's `result` (following `$ref`s): a content descriptor, or what documents in the
    /// wild write instead, read as the result it means with a [`RULE_RESULT_DESCRIPTOR`]
    /// warning: a schema or a `$ref` to one (an unnamed result of that schema), `{}` (of any
    /// value), a descriptor without `name` (named `result`) or without `schema` (any value).
    fn result(&mut self, file: usize, ptr: &str) -> Option<ContentDescriptor> {
        let location = self.locate(file, ptr);
        let (target, target_ptr, value) = self.follow(file, ptr, "content descriptor")?;
        let Some(map) = value
            .as_object()
            .filter(|m| !(m.contains_key("name") && m.contains_key("schema")))
        else {
            return self.descriptor(location, target, &target_ptr, value, "`result`");
        };
        let (has_name, has_schema) = (map.contains_key("name"), map.contains_key("schema"));
        // Keys only a content descriptor has (`required` as a boolean: a schema's is an array).
        let descriptor_like = has_name
            || has_schema
            || map.contains_key("summary")
            || map.get("required").is_some_and(Value::is_boolean);
        let message = if has_schema {
            "`result` has no `name`: read as a result named \"result\"".to_string()
        } else if descriptor_like {
            "`result` is a content descriptor without `schema`: read as a result of any value"
                .to_string()
        } else {
            return Some(self.schema_result(location, file, ptr, (target, target_ptr), value));
        };
        let mut map = map.clone();
        map.entry("name")
            .or_insert_with(|| Value::String(UNNAMED_RESULT.to_string()));
        map.entry("schema")
            .or_insert_with(|| Value::Object(Map::new()));
        self.diags.push(Diagnostic::warning(
            RULE_RESULT_DESCRIPTOR,
            location.clone(),
            message,
        ));
        self.descriptor(
            location,
            target,
            &target_ptr,
            Value::Object(map),
            "`result`",
        )
    }

    /// A `result` that is a schema (`value`, at `target` after following the `$ref`s at `ptr`
    /// in `file`), read as an unnamed result of that schema, with a warning.
    fn schema_result(
        &mut self,
        location: Location,
        file: usize,
        ptr: &str,
        (target, target_ptr): (usize, String),
        value: Value,
    ) -> ContentDescriptor {
        let written = self.written_ref(file, ptr);
        // A schema elsewhere is referred to, so it keeps its name (`#/components/schemas/X`
        // is the type `X`); a "content descriptor" component that is a schema is inlined.
        let referred =
            written.is_some() && !target_ptr.starts_with("/components/contentDescriptors/");
        let message = match &written {
            Some(reference) => format!(
                "`result` is a `$ref` to {reference:?}, a schema, not a content descriptor: read as an unnamed result of that schema"
            ),
            None if value.as_object().is_some_and(Map::is_empty) => {
                "`result` is `{}`, a content descriptor with neither `name` nor `schema`: read as an unnamed result of any value".to_string()
            }
            None => "`result` is a schema, not a content descriptor (it has neither `name` nor `schema`): read as an unnamed result of that schema".to_string(),
        };
        self.diags.push(Diagnostic::warning(
            RULE_RESULT_DESCRIPTOR,
            location.clone(),
            message,
        ));
        let schema = if referred {
            let mut reference = Map::new();
            reference.insert(
                "$ref".to_string(),
                Value::String(format!("#{}", fragment_encode(&target_ptr))),
            );
            Value::Object(reference)
        } else {
            value
        };
        self.of_schema(
            UNNAMED_RESULT.to_string(),
            schema,
            (target, &target_ptr),
            location,
        )
    }

    /// The content descriptor `value`, found at `ptr` in `file` from `location`.
    fn descriptor(
        &mut self,
        location: Location,
        file: usize,
        ptr: &str,
        value: Value,
        what: &str,
    ) -> Option<ContentDescriptor> {
        let ptr = ptr.to_string();
        let Value::Object(map) = value else {
            let message = format!(
                "{what} must be a content descriptor object, found {}",
                type_name(&value)
            );
            self.shape(file, &ptr, message);
            return None;
        };
        self.misspelt_keys(file, &ptr, &map, super::DESCRIPTOR_KEYS);
        let name = self.req_string(file, &ptr, &map, "name", "a content descriptor");
        let summary = self.opt_string(file, &ptr, &map, "summary");
        let description = self.opt_string(file, &ptr, &map, "description");
        let required = self.opt_bool(file, &ptr, &map, "required");
        let deprecated = self.opt_bool(file, &ptr, &map, "deprecated");
        let schema_ptr = ptr_child(&ptr, "schema");
        let schema = match map.get("schema") {
            None => {
                self.shape(
                    file,
                    &ptr,
                    "a content descriptor is missing the required `schema`".to_string(),
                );
                None
            }
            Some(schema) => {
                let mut schema = schema.clone();
                self.canon_schema(file, &schema_ptr, &mut schema);
                Some(schema)
            }
        };
        let schema_location = self.locate(file, &schema_ptr);
        let complete = self.param_x_mcp(file, &ptr, &map);
        Some(ContentDescriptor {
            name: name?,
            document_name: None,
            summary,
            description,
            required,
            deprecated,
            schema: schema?,
            location,
            schema_location,
            complete,
        })
    }

    /// A content descriptor's `x-mcp`: `{"complete": true}` is its only key; whether it is set.
    fn param_x_mcp(&mut self, file: usize, ptr: &str, map: &Map<String, Value>) -> bool {
        let Some(value) = map.get("x-mcp") else {
            return false;
        };
        let x_ptr = ptr_child(ptr, "x-mcp");
        let Value::Object(x) = value else {
            let location = self.locate(file, &x_ptr);
            self.diags.push(Diagnostic::error(
                mcp::RULE,
                location,
                format!(
                    "a param's `x-mcp` must be an object such as {{\"complete\": true}}, found {}",
                    type_name(value)
                ),
            ));
            return false;
        };
        let mut complete = false;
        for (key, v) in x {
            let location = self.locate(file, &ptr_child(&x_ptr, key));
            match (key.as_str(), v) {
                ("complete", Value::Bool(b)) => complete = *b,
                ("complete", other) => self.diags.push(Diagnostic::error(
                    mcp::RULE,
                    location,
                    format!(
                        "`x-mcp.complete` must be a boolean, found {}",
                        type_name(other)
                    ),
                )),
                _ => self.diags.push(Diagnostic::error(
                    mcp::RULE,
                    location,
                    format!("unknown key `{key}` in a param's `x-mcp`; allowed keys: complete"),
                )),
            }
        }
        complete
    }

    fn error_object(&mut self, file: usize, ptr: &str) -> Option<ErrorObject> {
        let (file, ptr, value) = self.follow(file, ptr, "error")?;
        let Value::Object(map) = value else {
            let message = format!("an error must be an object, found {}", type_name(&value));
            self.shape(file, &ptr, message);
            return None;
        };
        let location = self.locate(file, &ptr);
        let code = match map.get("code") {
            Some(Value::Number(n)) if n.as_i64().is_some_and(|c| i32::try_from(c).is_ok()) => {
                n.as_i64()
            }
            Some(Value::Number(n)) if n.as_i64().is_some() => {
                let message =
                    format!("`code` must fit a JSON-RPC error code (a 32-bit integer), found {n}");
                self.shape(file, &ptr_child(&ptr, "code"), message);
                None
            }
            Some(other) => {
                let message = format!("`code` must be an integer, found {other}");
                self.shape(file, &ptr_child(&ptr, "code"), message);
                None
            }
            None => {
                self.shape(
                    file,
                    &ptr,
                    "an error is missing the required integer `code`",
                );
                None
            }
        };
        let message = self.req_string(file, &ptr, &map, "message", "an error");
        Some(ErrorObject {
            code: code?,
            message: message?,
            data: map.get("data").cloned(),
            location,
        })
    }
}
