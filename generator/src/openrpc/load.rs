//! Loading: JSON text to [`Document`], with source positions, shape checks and `$ref` resolution.

use std::collections::{HashMap, HashSet};
use std::path::{Component, Path, PathBuf};

use indexmap::IndexMap;
use serde_json::{Map, Value};

use super::json_pos::{escape_token, unescape_token, FilePositions, SourceMap};
use super::mcp::{self, type_name, MethodFacts};
use super::model::*;
use crate::diagnostics::{Diagnostic, Diagnostics, Location};
use crate::schema_walk;

/// Rule id: the text is not JSON.
pub const RULE_JSON_SYNTAX: &str = "json-syntax";
/// Rule id: the `openrpc` version is not supported.
pub const RULE_VERSION: &str = "openrpc-version";
/// Rule id: a value does not have the shape OpenRPC requires.
pub const RULE_SHAPE: &str = "document-shape";
/// Rule id: a `$ref` cannot be resolved (missing target, missing file, cycle).
pub const RULE_REF: &str = "ref-resolvable";

/// True for the `openrpc` versions this generator accepts: `1.0.0-rc0`, `1.0.0-rc1` and any
/// `1.0.x` through `1.4.x`.
pub fn supported_version(version: &str) -> bool {
    if version == "1.0.0-rc0" || version == "1.0.0-rc1" {
        return true;
    }
    let parts: Vec<&str> = version.split('.').collect();
    let numeric = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    parts.len() == 3
        && parts[0] == "1"
        && matches!(parts[1], "0" | "1" | "2" | "3" | "4")
        && numeric(parts[2])
}

pub(super) fn load(path: &Path) -> Result<(Document, Diagnostics), Diagnostics> {
    let mut loader = Loader::new(path);
    let document = loader.run(path);
    let mut diags = loader.diags;
    diags.sort();
    match document {
        Some(document) if !diags.has_errors() => Ok((document, diags)),
        _ => Err(diags),
    }
}

struct SourceFile {
    path: PathBuf,
    value: Value,
}

struct Loader {
    main_dir: PathBuf,
    files: Vec<SourceFile>,
    by_path: HashMap<PathBuf, Result<usize, String>>,
    sources: SourceMap,
    schemas: IndexMap<String, NamedSchema>,
    processed: HashSet<String>,
    diags: Diagnostics,
}

/// Lexically normalizes a path: drops `.`, folds `name/..`.
fn normalize(path: &Path) -> PathBuf {
    let mut out: Vec<Component<'_>> = Vec::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => match out.last() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                Some(Component::RootDir | Component::Prefix(_)) => {}
                _ => out.push(c),
            },
            _ => out.push(c),
        }
    }
    out.iter().collect()
}

/// `target` relative to `base` (both normalized), with `/` separators.
fn relative(target: &Path, base: &Path) -> String {
    let t: Vec<_> = target.components().collect();
    let b: Vec<_> = base.components().collect();
    let common = t.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut parts: Vec<String> = vec!["..".to_string(); b.len() - common];
    parts.extend(
        t[common..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    parts.join("/")
}

/// Decodes `%XX` escapes of a URI fragment; `None` when malformed or not UTF-8.
fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

fn ptr_child(ptr: &str, key: &str) -> String {
    format!("{ptr}/{}", escape_token(key))
}

impl Loader {
    fn new(path: &Path) -> Self {
        let main_dir = normalize(path.parent().unwrap_or(Path::new("")));
        Self {
            main_dir,
            files: Vec::new(),
            by_path: HashMap::new(),
            sources: SourceMap::default(),
            schemas: IndexMap::new(),
            processed: HashSet::new(),
            diags: Diagnostics::default(),
        }
    }

    fn locate(&self, file: usize, pointer: &str) -> Location {
        self.sources.locate(&self.files[file].path, pointer)
    }

    fn error(&mut self, rule: &'static str, location: Location, message: impl Into<String>) {
        self.diags.push(Diagnostic::error(rule, location, message));
    }

    fn shape(&mut self, file: usize, pointer: &str, message: impl Into<String>) {
        let location = self.locate(file, pointer);
        self.error(RULE_SHAPE, location, message);
    }

    /// Reads and parses a file once. `display` is the path diagnostics show.
    fn read(&mut self, key: PathBuf, display: PathBuf) -> Result<usize, String> {
        if let Some(known) = self.by_path.get(&key) {
            return known.clone();
        }
        let result = self.read_uncached(display);
        self.by_path.insert(key, result.clone());
        result
    }

    fn read_uncached(&mut self, path: PathBuf) -> Result<usize, String> {
        let start = |path: &Path, line, column| Location {
            file: path.to_path_buf(),
            line,
            column,
            pointer: String::new(),
        };
        let bytes = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err("file not found".to_string())
            }
            Err(e) => return Err(format!("cannot read file: {e}")),
        };
        let text = match String::from_utf8(bytes) {
            Ok(text) => text,
            Err(e) => {
                let at = e.utf8_error().valid_up_to();
                let loc = start(&path, 1, 1);
                self.error(
                    RULE_JSON_SYNTAX,
                    loc,
                    format!("the file is not UTF-8 (invalid byte at offset {at})"),
                );
                return Err("the file is not valid JSON".to_string());
            }
        };
        let value: Value = match serde_json::from_str(&text) {
            Ok(value) => value,
            Err(e) => {
                let full = e.to_string();
                let message = match full.rfind(" at line ") {
                    Some(i) => full[..i].to_string(),
                    None => full,
                };
                let loc = start(&path, e.line().max(1), e.column().max(1));
                self.error(RULE_JSON_SYNTAX, loc, format!("invalid JSON: {message}"));
                return Err("the file is not valid JSON".to_string());
            }
        };
        self.sources
            .insert(path.clone(), FilePositions::index(&text));
        self.files.push(SourceFile { path, value });
        Ok(self.files.len() - 1)
    }

    /// The canonical key of the value at `pointer` in `file`.
    fn key_for(&self, file: usize, pointer: &str) -> String {
        if file == 0 {
            return format!("#{pointer}");
        }
        let rel = relative(&normalize(&self.files[file].path), &self.main_dir);
        if pointer.is_empty() {
            rel
        } else {
            format!("{rel}#{pointer}")
        }
    }

    /// Resolves `reference` found in `from` at `site` to a file and a JSON pointer that exists.
    fn resolve(
        &mut self,
        from: usize,
        reference: &str,
        site: &Location,
    ) -> Option<(usize, String)> {
        let fail = |this: &mut Self, why: String| {
            this.error(
                RULE_REF,
                site.clone(),
                format!("cannot resolve `$ref` {reference:?}: {why}"),
            );
            None
        };
        let (file_part, fragment) = reference.split_once('#').unwrap_or((reference, ""));
        let Some(fragment) = percent_decode(fragment) else {
            return fail(
                self,
                "the fragment has invalid percent-encoding".to_string(),
            );
        };
        if !fragment.is_empty() && !fragment.starts_with('/') {
            return fail(
                self,
                "only JSON pointer fragments (`#/...`) are supported, not anchors".to_string(),
            );
        }
        let file = if file_part.is_empty() {
            from
        } else if file_part.contains("://") || file_part.starts_with("urn:") {
            return fail(self, "remote references are not supported".to_string());
        } else {
            let Some(decoded) = percent_decode(file_part) else {
                return fail(self, "the path has invalid percent-encoding".to_string());
            };
            let dir = self.files[from]
                .path
                .parent()
                .unwrap_or(Path::new(""))
                .to_path_buf();
            let display = normalize(&dir.join(&decoded));
            match self.read(display.clone(), display) {
                Ok(id) => id,
                Err(why) => return fail(self, why),
            }
        };
        if self.files[file].value.pointer(&fragment).is_none() {
            let whole = if file_part.is_empty() {
                "this document"
            } else {
                file_part
            };
            return fail(self, format!("{whole} has no value at `{fragment}`"));
        }
        Some((file, fragment))
    }

    /// Follows `$ref` objects from the value at `pointer` in `file` to a value that is not a
    /// reference, detecting cycles. Returns where that value is and a copy of it.
    fn follow(&mut self, file: usize, pointer: &str, what: &str) -> Option<(usize, String, Value)> {
        let mut chain: Vec<String> = Vec::new();
        let (mut file, mut pointer) = (file, pointer.to_string());
        loop {
            let value = self.files[file].value.pointer(&pointer)?.clone();
            let reference = match value.as_object().and_then(|m| m.get("$ref")) {
                None => return Some((file, pointer, value)),
                Some(Value::String(r)) => r.clone(),
                Some(other) => {
                    let message = format!("`$ref` must be a string, found {}", type_name(other));
                    self.shape(file, &ptr_child(&pointer, "$ref"), message);
                    return None;
                }
            };
            let site = self.locate(file, &ptr_child(&pointer, "$ref"));
            let (target, target_ptr) = self.resolve(file, &reference, &site)?;
            let key = self.key_for(target, &target_ptr);
            if chain.contains(&key) {
                chain.push(key);
                self.error(
                    RULE_REF,
                    site,
                    format!("{what} `$ref` cycle: {}", chain.join(" -> ")),
                );
                return None;
            }
            chain.push(key);
            file = target;
            pointer = target_ptr;
        }
    }

    /// Resolves a schema `$ref`, registers the target in `schemas`, returns its key.
    fn schema_ref(&mut self, from: usize, reference: &str, site: &Location) -> Option<String> {
        let (file, pointer) = self.resolve(from, reference, site)?;
        let key = self.register_schema(file, &pointer);
        self.process_schema(&key, file, &pointer);
        Some(key)
    }

    fn register_schema(&mut self, file: usize, pointer: &str) -> String {
        let key = self.key_for(file, pointer);
        if !self.schemas.contains_key(&key) {
            let name = match pointer.rsplit_once('/') {
                Some((_, last)) => unescape_token(last),
                None => self.files[file]
                    .path
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default(),
            };
            let location = self.locate(file, pointer);
            self.schemas.insert(
                key.clone(),
                NamedSchema {
                    name,
                    schema: Value::Null,
                    location,
                },
            );
        }
        key
    }

    fn process_schema(&mut self, key: &str, file: usize, pointer: &str) {
        if !self.processed.insert(key.to_string()) {
            return;
        }
        let mut value = self.files[file]
            .value
            .pointer(pointer)
            .cloned()
            .unwrap_or(Value::Null);
        self.canon_schema(file, pointer, &mut value);
        if let Some(named) = self.schemas.get_mut(key) {
            named.schema = value;
        }
    }

    /// Walks a schema, resolving and rewriting every `$ref` to a key of `schemas`.
    fn canon_schema(&mut self, file: usize, pointer: &str, value: &mut Value) {
        let map = match value {
            Value::Bool(_) => return,
            Value::Object(map) => map,
            other => {
                let message = format!(
                    "a schema must be an object or a boolean, found {}",
                    type_name(other)
                );
                self.shape(file, pointer, message);
                return;
            }
        };
        match map.get("$ref") {
            Some(Value::String(reference)) => {
                let reference = reference.clone();
                let site = self.locate(file, &ptr_child(pointer, "$ref"));
                if let Some(key) = self.schema_ref(file, &reference, &site) {
                    map.insert("$ref".to_string(), Value::String(key));
                }
            }
            Some(other) => {
                let message = format!("`$ref` must be a string, found {}", type_name(other));
                self.shape(file, &ptr_child(pointer, "$ref"), message);
            }
            None => {}
        }
        for (keyword, child) in map.iter_mut() {
            let child_ptr = ptr_child(pointer, keyword);
            for (member, schema) in schema_walk::subschemas_mut(keyword, child) {
                self.canon_schema(file, &member.pointer(&child_ptr), schema);
            }
        }
    }

    fn opt_string(
        &mut self,
        file: usize,
        ptr: &str,
        map: &Map<String, Value>,
        key: &str,
    ) -> Option<String> {
        match map.get(key) {
            None => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(other) => {
                let message = format!("`{key}` must be a string, found {}", type_name(other));
                self.shape(file, &ptr_child(ptr, key), message);
                None
            }
        }
    }

    fn req_string(
        &mut self,
        file: usize,
        ptr: &str,
        map: &Map<String, Value>,
        key: &str,
        what: &str,
    ) -> Option<String> {
        if !map.contains_key(key) {
            self.shape(
                file,
                ptr,
                format!("{what} is missing the required string `{key}`"),
            );
            return None;
        }
        self.opt_string(file, ptr, map, key)
    }

    fn opt_bool(&mut self, file: usize, ptr: &str, map: &Map<String, Value>, key: &str) -> bool {
        match map.get(key) {
            None => false,
            Some(Value::Bool(b)) => *b,
            Some(other) => {
                let message = format!("`{key}` must be a boolean, found {}", type_name(other));
                self.shape(file, &ptr_child(ptr, key), message);
                false
            }
        }
    }

    /// Checks that `map[key]`, when present, is an array; returns its length.
    fn opt_array_len(
        &mut self,
        file: usize,
        ptr: &str,
        map: &Map<String, Value>,
        key: &str,
    ) -> usize {
        match map.get(key) {
            None => 0,
            Some(Value::Array(items)) => items.len(),
            Some(other) => {
                let message = format!("`{key}` must be an array, found {}", type_name(other));
                self.shape(file, &ptr_child(ptr, key), message);
                0
            }
        }
    }

    /// Loads the content descriptor at `ptr` in `file` (following `$ref`s).
    fn content_descriptor(
        &mut self,
        file: usize,
        ptr: &str,
        what: &str,
    ) -> Option<ContentDescriptor> {
        let location = self.locate(file, ptr);
        let (file, ptr, value) = self.follow(file, ptr, "content descriptor")?;
        let Value::Object(map) = value else {
            let message = format!(
                "{what} must be a content descriptor object, found {}",
                type_name(&value)
            );
            self.shape(file, &ptr, message);
            return None;
        };
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
        Some(ContentDescriptor {
            name: name?,
            summary,
            description,
            required,
            deprecated,
            schema: schema?,
            location,
            schema_location,
        })
    }

    fn error_object(&mut self, file: usize, ptr: &str) -> Option<ErrorObject> {
        let (file, ptr, value) = self.follow(file, ptr, "error")?;
        let Value::Object(map) = value else {
            let message = format!("an error must be an object, found {}", type_name(&value));
            self.shape(file, &ptr, message);
            return None;
        };
        let code = match map.get("code") {
            Some(Value::Number(n)) if n.as_i64().is_some() => n.as_i64(),
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
        })
    }

    fn method(&mut self, index: usize) -> Option<Method> {
        let site = format!("/methods/{index}");
        let location = self.locate(0, &site);
        let (file, ptr, value) = self.follow(0, &site, "method")?;
        let Value::Object(map) = value else {
            let message = format!("a method must be an object, found {}", type_name(&value));
            self.shape(file, &ptr, message);
            return None;
        };
        let name = self.req_string(file, &ptr, &map, "name", "a method");
        let summary = self.opt_string(file, &ptr, &map, "summary");
        let description = self.opt_string(file, &ptr, &map, "description");
        let deprecated = self.opt_bool(file, &ptr, &map, "deprecated");
        let params = self.params(file, &ptr, &map);
        let mut result_ok = true;
        let result = if map.contains_key("result") {
            let r = self.content_descriptor(file, &ptr_child(&ptr, "result"), "`result`");
            result_ok = r.is_some();
            r
        } else {
            None
        };
        let param_structure = self.param_structure(file, &ptr, &map);
        let errors = self.method_errors(file, &ptr, &map);
        let mcp = match (map.get("x-mcp"), name.as_deref()) {
            (Some(x_mcp), Some(name)) => {
                let facts = MethodFacts {
                    name,
                    description: description.as_deref(),
                    summary: summary.as_deref(),
                };
                self.x_mcp(file, &ptr, x_mcp, &facts)
            }
            _ => None,
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
            location,
        })
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
            match self.content_descriptor(file, &p, "a param") {
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

    /// The method's error objects. Its examples and links are only followed, so a broken
    /// `$ref` in them is reported too.
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
        for key in ["examples", "links"] {
            for i in 0..self.opt_array_len(file, ptr, map, key) {
                let _ = self.follow(file, &format!("{ptr}/{key}/{i}"), &key[..key.len() - 1]);
            }
        }
        errors
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

    fn run(&mut self, path: &Path) -> Option<Document> {
        let main = self.read(normalize(path), path.to_path_buf());
        if let Err(why) = main {
            if self.diags.0.is_empty() {
                let location = Location {
                    file: path.to_path_buf(),
                    line: 1,
                    column: 1,
                    pointer: String::new(),
                };
                self.error(
                    RULE_JSON_SYNTAX,
                    location,
                    format!("cannot load the document: {why}"),
                );
            }
            return None;
        }
        let root = self.files[0].value.clone();
        let Value::Object(top) = root else {
            let message = format!(
                "an OpenRPC document must be an object, found {}",
                type_name(&root)
            );
            self.shape(0, "", message);
            return None;
        };

        let openrpc = self.openrpc_version(&top);
        let (info, server) = self.info(&top);

        if top.contains_key("schemas") {
            self.shape(
                0,
                "/schemas",
                "`schemas` is not an OpenRPC top-level field; schemas belong in `components.schemas`",
            );
        }
        self.components(&top);
        let methods = self.methods(&top);

        Some(Document {
            openrpc: openrpc?,
            info: info?,
            server,
            methods,
            schemas: std::mem::take(&mut self.schemas),
            files: self.files.iter().map(|f| f.path.clone()).collect(),
            sources: std::mem::take(&mut self.sources),
        })
    }

    /// The `openrpc` version string, checked against the versions this generator reads.
    fn openrpc_version(&mut self, top: &Map<String, Value>) -> Option<String> {
        match top.get("openrpc") {
            Some(Value::String(v)) => {
                if !supported_version(v) {
                    let location = self.locate(0, "/openrpc");
                    self.error(
                        RULE_VERSION,
                        location,
                        format!(
                            "unsupported OpenRPC version {v:?}; supported: 1.0.0-rc1 through 1.4.x"
                        ),
                    );
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
    fn components(&mut self, top: &Map<String, Value>) {
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

    /// Every method that loads, in declaration order.
    fn methods(&mut self, top: &Map<String, Value>) -> Vec<Method> {
        let mut methods = Vec::new();
        match top.get("methods") {
            Some(Value::Array(items)) => {
                for i in 0..items.len() {
                    if let Some(m) = self.method(i) {
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

    fn info(&mut self, top: &Map<String, Value>) -> (Option<Info>, ServerExtension) {
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
        let title = self.req_string(0, "/info", map, "title", "`info`");
        let version = self.req_string(0, "/info", map, "version", "`info`");
        let description = self.opt_string(0, "/info", map, "description");
        if let Some(x) = map.get("x-mcp") {
            let path = self.files[0].path.clone();
            let sources = &self.sources;
            let locate = |sub: &str| sources.locate(&path, &format!("/info/x-mcp{sub}"));
            let (parsed, diags) = mcp::parse_server(x, &locate);
            for d in diags {
                self.diags.push(d);
            }
            server = parsed;
        }
        let info = match (title, version) {
            (Some(title), Some(version)) => Some(Info {
                title,
                version,
                description,
            }),
            _ => None,
        };
        (info, server)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions() {
        for ok in [
            "1.0.0-rc0",
            "1.0.0-rc1",
            "1.0.0",
            "1.2.6",
            "1.3.2",
            "1.4.0",
            "1.4.17",
        ] {
            assert!(supported_version(ok), "{ok}");
        }
        for bad in [
            "",
            "1",
            "1.5.0",
            "2.0.0",
            "0.9.0",
            "1.2",
            "1.2.x",
            "1.0.0-rc2",
            "v1.2.0",
        ] {
            assert!(!supported_version(bad), "{bad}");
        }
    }

    #[test]
    fn paths() {
        assert_eq!(
            normalize(Path::new("a/./b/../c.json")),
            PathBuf::from("a/c.json")
        );
        assert_eq!(normalize(Path::new("../x/../y")), PathBuf::from("../y"));
        assert_eq!(
            relative(Path::new("a/b/c.json"), Path::new("a")),
            "b/c.json"
        );
        assert_eq!(
            relative(Path::new("a/c.json"), Path::new("a/b")),
            "../c.json"
        );
        assert_eq!(relative(Path::new("c.json"), Path::new("")), "c.json");
    }

    #[test]
    fn percent() {
        assert_eq!(percent_decode("/a%20b/%7E0").as_deref(), Some("/a b/~0"));
        assert_eq!(percent_decode("%zz"), None);
        assert_eq!(percent_decode("%4"), None);
        assert_eq!(percent_decode("%C3%A9").as_deref(), Some("é"));
    }
}
