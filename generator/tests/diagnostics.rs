//! Every rule of loading and validation, on small bad documents, with the exact rendering.

use std::path::{Path, PathBuf};

use mcp_codegen::diagnostics::Diagnostics;
use mcp_codegen::openrpc::{load, load_with};
use mcp_codegen::validate::validate;
use mcp_codegen::LoadOptions;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .join("fixtures")
}

/// Loads then validates, returning every diagnostic of both passes.
fn diagnose(path: &Path) -> Diagnostics {
    match load(path) {
        Err(errors) => errors,
        Ok((document, mut warnings)) => {
            warnings.0.extend(validate(&document).0);
            warnings.sort();
            warnings
        }
    }
}

/// The rendering of `fixtures/invalid/<name>`, with the fixtures directory stripped.
fn render(name: &str) -> String {
    let dir = fixtures().join("invalid");
    diagnose(&dir.join(name))
        .to_string()
        .replace(&format!("{}/", dir.display()), "")
}

#[test]
fn json_syntax() {
    let expected = r##"error[json-syntax]: invalid JSON: trailing comma
  --> json-syntax.json:6:3 (document root)
1 error(s), 0 warning(s)"##;
    assert_eq!(render("json-syntax.json"), expected);
}

#[test]
fn openrpc_version() {
    let expected = r##"error[openrpc-version]: unsupported OpenRPC version "2.0.0"; this generator reads 1.0.0-rc0, 1.0.0-rc1 and 1.0.N through 1.4.N (N a number)
  --> openrpc-version.json:2:14 (/openrpc)
1 error(s), 0 warning(s)"##;
    assert_eq!(render("openrpc-version.json"), expected);
}

#[test]
fn document_shape() {
    let expected = r##"error[document-shape]: `info` is missing the required string `version`
  --> document-shape.json:3:11 (/info)
error[document-shape]: `title` must be a string, found a number
  --> document-shape.json:3:22 (/info/title)
error[document-shape]: a method is missing the required string `name`
  --> document-shape.json:6:5 (/methods/1)
error[document-shape]: `params` must be an array, found an object
  --> document-shape.json:6:17 (/methods/1/params)
error[document-shape]: a content descriptor is missing the required `schema`
  --> document-shape.json:10:9 (/methods/2/params/0)
error[document-shape]: a content descriptor is missing the required string `name`
  --> document-shape.json:11:9 (/methods/2/params/1)
error[document-shape]: a param must be a content descriptor object, found a string
  --> document-shape.json:12:9 (/methods/2/params/2)
error[document-shape]: `paramStructure` must be "by-name", "by-position" or "either", found "by-magic"
  --> document-shape.json:14:25 (/methods/2/paramStructure)
error[document-shape]: `code` must be an integer, found "E1"
  --> document-shape.json:15:29 (/methods/2/errors/0/code)
9 error(s), 0 warning(s)"##;
    assert_eq!(render("document-shape.json"), expected);
}

#[test]
fn document_shape_methods_map() {
    let expected = r##"error[document-shape]: `methods` must be an array of method objects, found an object (a map keyed by method name is not OpenRPC)
  --> document-shape-methods-map.json:4:14 (/methods)
1 error(s), 0 warning(s)"##;
    assert_eq!(render("document-shape-methods-map.json"), expected);
}

#[test]
fn ref_resolvable() {
    let expected = r##"error[ref-resolvable]: cannot resolve `$ref` "#/definitions/Absent": this document has no value at `/definitions/Absent`
  --> ref-resolvable-helper.json:3:66 (/definitions/Broken/properties/x/$ref)
error[ref-resolvable]: cannot resolve `$ref` "#/components/schemas/Nope": this document has no value at `/components/schemas/Nope`
  --> ref-resolvable.json:8:44 (/methods/0/params/0/schema/$ref)
error[ref-resolvable]: cannot resolve `$ref` "#/components/contentDescriptors/Missing": this document has no value at `/components/contentDescriptors/Missing`
  --> ref-resolvable.json:9:19 (/methods/0/params/1/$ref)
error[ref-resolvable]: cannot resolve `$ref` "#/components/schemas/Gone": this document has no value at `/components/schemas/Gone`
  --> ref-resolvable.json:13:84 (/methods/0/result/schema/properties/deep/items/$ref)
error[ref-resolvable]: cannot resolve `$ref` "missing-file.json#/definitions/Id": file not found
  --> ref-resolvable.json:19:44 (/methods/1/params/0/schema/$ref)
error[ref-resolvable]: content descriptor `$ref` cycle: #/components/contentDescriptors/Loop1 -> #/components/contentDescriptors/Loop2 -> #/components/contentDescriptors/Loop1
  --> ref-resolvable.json:28:26 (/components/contentDescriptors/Loop2/$ref)
6 error(s), 0 warning(s)"##;
    assert_eq!(render("ref-resolvable.json"), expected);
}

#[test]
fn mcp_extension() {
    let expected = r##"error[mcp-extension]: unknown key `color` in `info.x-mcp`; allowed keys: name, title, instructions, websiteUrl, card, scopes, hideUnauthorized
  --> mcp-extension.json:3:84 (/info/x-mcp/color)
error[mcp-extension]: unknown `x-mcp` kind "widget"; expected "tool", "prompt", "resource" or "resource-template"
  --> mcp-extension.json:5:84 (/methods/0/x-mcp)
error[mcp-extension]: unknown key `tittle` in `x-mcp` (did you mean `title`?); allowed keys: kind, name, title, description, annotations, icons, uri, uriTemplate, mimeType, _meta, output, inputSchema, scopes, rateLimit, resultBudget, subscription
  --> mcp-extension.json:6:112 (/methods/1/x-mcp/tittle)
error[mcp-extension]: `x-mcp` resource needs a `uri`
  --> mcp-extension.json:7:84 (/methods/2/x-mcp)
error[mcp-extension]: `x-mcp` resource-template needs a `uriTemplate`
  --> mcp-extension.json:8:84 (/methods/3/x-mcp)
error[mcp-extension]: `x-mcp.uri` only applies to kind "resource", not "resource-template"
  --> mcp-extension.json:8:122 (/methods/3/x-mcp/uri)
error[mcp-extension]: `x-mcp` must be a kind string or an object with `kind`, found a number
  --> mcp-extension.json:9:84 (/methods/4/x-mcp)
7 error(s), 0 warning(s)"##;
    assert_eq!(render("mcp-extension.json"), expected);
}

#[test]
fn mcp_scopes() {
    let expected = r##"error[mcp-extension]: `info.x-mcp.scopes` must be an array of scope strings, found a string
  --> mcp-scopes.json:3:73 (/info/x-mcp/scopes)
error[mcp-extension]: `x-mcp.scopes`: "read" is listed twice
  --> mcp-scopes.json:5:130 (/methods/0/x-mcp/scopes)
error[mcp-extension]: `x-mcp.scopes`: "has space" is not an OAuth scope token (printable ASCII without spaces, quotes or backslashes)
  --> mcp-scopes.json:6:130 (/methods/1/x-mcp/scopes)
error[mcp-extension]: `x-mcp.scopes` must hold strings, found a number
  --> mcp-scopes.json:7:130 (/methods/2/x-mcp/scopes)
4 error(s), 0 warning(s)"##;
    assert_eq!(render("mcp-scopes.json"), expected);
}

#[test]
fn mcp_rate_limit() {
    let expected = r##"error[mcp-extension]: `x-mcp.rateLimit` "10" is not a rate: expected N/PERIOD, e.g. "10/s", "60/min", "1000/h" or "5/30s"
  --> mcp-rate-limit.json:5:133 (/methods/0/x-mcp/rateLimit)
error[mcp-extension]: `x-mcp.rateLimit` "0/s": the count and the period must be at least 1
  --> mcp-rate-limit.json:6:133 (/methods/1/x-mcp/rateLimit)
error[mcp-extension]: `x-mcp.rateLimit` must be a string such as "10/min"
  --> mcp-rate-limit.json:7:133 (/methods/2/x-mcp/rateLimit)
error[mcp-extension]: `x-mcp.rateLimit` "99999999999999999999/s" is not a rate: expected N/PERIOD, e.g. "10/s", "60/min", "1000/h" or "5/30s"
  --> mcp-rate-limit.json:8:133 (/methods/3/x-mcp/rateLimit)
4 error(s), 0 warning(s)"##;
    assert_eq!(render("mcp-rate-limit.json"), expected);
}

#[test]
fn mcp_result_budget() {
    let expected = r##"error[mcp-extension]: `x-mcp.resultBudget` must be a number of bytes such as 65536 (0: every result whole), found a string
  --> mcp-result-budget.json:5:136 (/methods/0/x-mcp/resultBudget)
error[mcp-extension]: `x-mcp.resultBudget` -1 is not a number of bytes: expected a whole number, at least 0 (0: every result whole)
  --> mcp-result-budget.json:6:136 (/methods/1/x-mcp/resultBudget)
error[mcp-extension]: `x-mcp.resultBudget` 4294967296 is too large: at most 4294967295 bytes
  --> mcp-result-budget.json:7:136 (/methods/2/x-mcp/resultBudget)
warning[mcp-extension]: `x-mcp.resultBudget` of method "d" is ignored: only a tool's result is kept and read in pages, and this is a prompt
  --> mcp-result-budget.json:8:138 (/methods/3/x-mcp/resultBudget)
3 error(s), 1 warning(s)"##;
    assert_eq!(render("mcp-result-budget.json"), expected);
}

#[test]
fn mcp_reserved_uri() {
    let expected = r##"error[mcp-reserved-uri]: resource uri "MCP-Result://kept" of method "kept": the `mcp-result:` scheme is reserved for the tool results the server keeps (over a tool's result budget, read in pages); use another scheme
  --> mcp-reserved-uri.json:5:134 (/methods/0/x-mcp/uri)
error[mcp-reserved-uri]: resource-template uriTemplate "mcp-result://{id}/1" of method "page": the `mcp-result:` scheme is reserved for the tool results the server keeps (over a tool's result budget, read in pages); use another scheme
  --> mcp-reserved-uri.json:6:217 (/methods/1/x-mcp/uriTemplate)
2 error(s), 0 warning(s)"##;
    assert_eq!(render("mcp-reserved-uri.json"), expected);
}

#[test]
fn unique_method_names() {
    let expected = r##"error[unique-method-names]: duplicate method name "ping" (first declared at unique-method-names.json:5:5)
  --> unique-method-names.json:7:15 (/methods/2/name)
1 error(s), 0 warning(s)"##;
    assert_eq!(render("unique-method-names.json"), expected);
}

#[test]
fn reserved_method_names() {
    let expected = r##"warning[reserved-method-names]: the document declares `rpc.discover`, the OpenRPC service discovery method, which the generated server answers itself with this document (on its plain JSON-RPC endpoint); the declaration is not generated as a handler method
  --> reserved-method-names.json:5:15 (/methods/0/name)
error[reserved-method-names]: method name "rpc.ping" begins with "rpc.", which OpenRPC reserves for rpc-internal methods such as rpc.discover; rename the method
  --> reserved-method-names.json:7:15 (/methods/2/name)
1 error(s), 1 warning(s)"##;
    assert_eq!(render("reserved-method-names.json"), expected);
}

#[test]
fn unique_param_names() {
    let expected = r##"error[unique-param-names]: method "add" has two params named "x"
  --> unique-param-names.json:10:19 (/methods/0/params/2/name)
1 error(s), 0 warning(s)"##;
    assert_eq!(render("unique-param-names.json"), expected);
}

/// The rendering of `fixtures/lenient/<name>` (with `options`), the fixtures directory
/// stripped: documents that bend the specification and still generate, with warnings.
fn render_lenient_with(name: &str, options: &LoadOptions) -> String {
    let dir = fixtures().join("lenient");
    let diags = match load_with(&dir.join(name), options) {
        Err(errors) => errors,
        Ok((document, mut warnings)) => {
            warnings.0.extend(validate(&document).0);
            warnings.sort();
            warnings
        }
    };
    diags
        .to_string()
        .replace(&format!("{}/", dir.display()), "")
}

fn render_lenient(name: &str) -> String {
    render_lenient_with(name, &LoadOptions::default())
}

#[test]
fn required_params_first() {
    let expected = r##"warning[required-params-first]: required param "cursor" of method "search" comes after optional param "limit" (OpenRPC lists required params first); accepted: a call by position sends null for "limit" to reach "cursor"
  --> required-params-first.json:10:41 (/methods/0/params/2/required)
warning[required-params-first]: required param "key" of method "lookup" comes after optional param "scope" (OpenRPC lists required params first); accepted: params by name do not depend on their order
  --> required-params-first.json:19:38 (/methods/1/params/1/required)
0 error(s), 2 warning(s)"##;
    assert_eq!(render_lenient("required-params-first.json"), expected);
}

#[test]
fn openrpc_version_range() {
    let expected = r##"warning[openrpc-version]: `openrpc` "1.4.x" is not a version number (MAJOR.MINOR.PATCH); read as OpenRPC 1.4.0
  --> openrpc-version-range.json:2:14 (/openrpc)
0 error(s), 1 warning(s)"##;
    assert_eq!(render_lenient("openrpc-version-range.json"), expected);
}

#[test]
fn ref_embedded_definitions() {
    let why = "has no target at the root of the file; read as";
    let tail = "(a schema embedded with its own definitions, as schemars writes them)";
    let expected = format!(
        r##"warning[ref-embedded-definitions]: `$ref` "#/definitions/Header" {why} `#/components/schemas/Block/definitions/Header`, in the `definitions` of the schema at `/components/schemas/Block` {tail}
  --> embedded-definitions.json:20:31 (/components/schemas/Block/properties/header/$ref)
warning[ref-embedded-definitions]: `$ref` "#/definitions/Transaction" {why} `#/components/schemas/Block/definitions/Transaction`, in the `definitions` of the schema at `/components/schemas/Block` {tail}
  --> embedded-definitions.json:21:65 (/components/schemas/Block/properties/transactions/items/$ref)
warning[ref-embedded-definitions]: `$ref` "#/definitions/Hash" {why} `#/components/schemas/Block/definitions/Hash`, in the `definitions` of the schema at `/components/schemas/Block` {tail}
  --> embedded-definitions.json:27:82 (/components/schemas/Block/definitions/Header/properties/parent/$ref)
warning[ref-embedded-definitions]: `$ref` "#/definitions/Hash" {why} `#/components/schemas/Block/definitions/Hash`, in the `definitions` of the schema at `/components/schemas/Block` {tail}
  --> embedded-definitions.json:30:80 (/components/schemas/Block/definitions/Transaction/properties/hash/$ref)
0 error(s), 4 warning(s)"##
    );
    assert_eq!(render_lenient("embedded-definitions.json"), expected);
    // The references become the embedded definitions, and the types are generated.
    let generated = mcp_codegen::generate(&fixtures().join("lenient/embedded-definitions.json"))
        .expect("generates with warnings");
    let source = &generated.server.source;
    for ty in [
        "pub struct Header",
        "pub type Hash",
        "pub struct Transaction",
    ] {
        assert!(source.contains(ty), "{ty} in:\n{source}");
    }
    // The document `rpc.discover` serves names the definitions where they stand.
    let bundled = &generated.document.bundled_json;
    let block = "/components/schemas/Block";
    for (at, target) in [
        ("/properties/header/$ref", "/definitions/Header"),
        (
            "/definitions/Header/properties/parent/$ref",
            "/definitions/Hash",
        ),
    ] {
        assert_eq!(
            bundled.pointer(&format!("{block}{at}")),
            Some(&serde_json::json!(format!("#{block}{target}"))),
            "{at}"
        );
    }
}

#[test]
fn ref_base_hint_then_option() {
    let hint = "file not found; it is found relative to";
    let expected = format!(
        r##"error[ref-resolvable]: cannot resolve `$ref` "./api/types.json#/components/schemas/ClassId": {hint} "ref-base" (a path written from the repository root?): run with --ref-base "ref-base"
  --> ref-base/api/service.json:7:72 (/methods/0/params/0/schema/$ref)
error[ref-resolvable]: cannot resolve `$ref` "./api/types.json#/components/schemas/Class": {hint} "ref-base" (a path written from the repository root?): run with --ref-base "ref-base"
  --> ref-base/api/service.json:8:56 (/methods/0/result/schema/$ref)
2 error(s), 0 warning(s)"##
    );
    assert_eq!(render_lenient("ref-base/api/service.json"), expected);

    let options = LoadOptions {
        ref_base: Some(fixtures().join("lenient/ref-base")),
        ..LoadOptions::default()
    };
    let read_as = "is not beside the referring file; read as \"ref-base/api/types.json\", relative to the --ref-base directory";
    let expected = format!(
        r##"warning[ref-base]: `$ref` file "./api/types.json" {read_as} "ref-base"
  --> ref-base/api/service.json:7:72 (/methods/0/params/0/schema/$ref)
warning[ref-base]: `$ref` file "./api/types.json" {read_as} "ref-base"
  --> ref-base/api/service.json:8:56 (/methods/0/result/schema/$ref)
0 error(s), 2 warning(s)"##
    );
    assert_eq!(
        render_lenient_with("ref-base/api/service.json", &options),
        expected
    );
}

#[test]
fn ref_base_still_confines() {
    // Outside the --ref-base directory a `$ref` is refused as before.
    let options = LoadOptions {
        ref_base: Some(fixtures().join("lenient/ref-base/api")),
        ..LoadOptions::default()
    };
    let dir = tempfile::tempdir().unwrap();
    let doc = dir.path().join("doc.json");
    std::fs::write(
        &doc,
        r#"{"openrpc": "1.2.6", "info": {"title": "t", "version": "1"}, "methods": [
            {"name": "m", "params": [], "result": {"name": "r", "schema": {"$ref": "../types.json#/x"}}}]}"#,
    )
    .unwrap();
    let diags = load_with(&doc, &options).unwrap_err();
    assert_eq!(diags.0.len(), 1, "{diags}");
    assert_eq!(diags.0[0].rule, "ref-confined", "{diags}");
}

#[test]
fn mcp_needs_result() {
    let expected = r##"error[mcp-needs-result]: method "log" is exposed as a tool but has no `result` (it is a notification)
  --> mcp-needs-result.json:5:45 (/methods/0/x-mcp)
1 error(s), 0 warning(s)"##;
    assert_eq!(render("mcp-needs-result.json"), expected);
}

#[test]
fn mcp_unique_names() {
    let expected = r##"error[mcp-unique-names]: duplicate tool name "search" (method "search_v2"; first at mcp-unique-names.json:5:107)
  --> mcp-unique-names.json:6:136 (/methods/1/x-mcp/name)
error[mcp-unique-names]: duplicate prompt name "greet" (method "other_greet"; first at mcp-unique-names.json:7:106)
  --> mcp-unique-names.json:8:140 (/methods/3/x-mcp/name)
error[mcp-unique-names]: duplicate resource uri "file:///README.md" (method "readme2"; first at mcp-unique-names.json:9:107)
  --> mcp-unique-names.json:10:137 (/methods/5/x-mcp/uri)
error[mcp-unique-names]: duplicate resource uriTemplate "file:///logs/{n}" (method "log2"; first at mcp-unique-names.json:11:169)
  --> mcp-unique-names.json:12:216 (/methods/7/x-mcp/uriTemplate)
4 error(s), 0 warning(s)"##;
    assert_eq!(render("mcp-unique-names.json"), expected);
}

#[test]
fn mcp_tool_name() {
    let expected = r##"warning[mcp-tool-name]: tool name "Filecoin/ChainHead" is not 1-128 characters of [A-Za-z0-9_.-]; clients may reject it; set `x-mcp.name`
  --> mcp-tool-name.json:5:119 (/methods/0/x-mcp)
warning[mcp-tool-name]: tool name "bad name!" is not 1-128 characters of [A-Za-z0-9_.-]; clients may reject it; set `x-mcp.name`
  --> mcp-tool-name.json:6:129 (/methods/1/x-mcp/name)
0 error(s), 2 warning(s)"##;
    assert_eq!(render("mcp-tool-name.json"), expected);
}

#[test]
fn mcp_prompt_arguments() {
    let expected = r##"error[mcp-prompt-arguments]: prompt "summarize" argument "length" must have a schema of `type: "string"` (prompt arguments are strings)
  --> mcp-prompt-arguments.json:10:39 (/methods/0/params/2/schema)
error[mcp-prompt-arguments]: prompt "summarize" argument "mode" must have a schema of `type: "string"` (prompt arguments are strings)
  --> mcp-prompt-arguments.json:11:37 (/methods/0/params/3/schema)
2 error(s), 0 warning(s)"##;
    assert_eq!(render("mcp-prompt-arguments.json"), expected);
}

#[test]
fn mcp_resource_params() {
    let expected = r##"error[mcp-resource-params]: resource "config://main" takes param "section"; a static resource takes no params (use a resource-template)
  --> mcp-resource-params.json:7:19 (/methods/0/params/0)
1 error(s), 0 warning(s)"##;
    assert_eq!(render("mcp-resource-params.json"), expected);
}

#[test]
fn mcp_uri_template() {
    let expected = r##"error[mcp-uri-template]: uriTemplate "x://{a,b}": `{a,b}` has several variables; use one variable per expression
  --> mcp-uri-template.json:9:62 (/methods/0/x-mcp/uriTemplate)
error[mcp-uri-template]: required param "year" of method "unbound" does not appear in uriTemplate "file:///logs/{name}/{+month}.log"
  --> mcp-uri-template.json:18:62 (/methods/1/x-mcp/uriTemplate)
error[mcp-uri-template]: uriTemplate "file:///logs/{name}/{+month}.log": variable "month" names no param of method "unbound"
  --> mcp-uri-template.json:18:62 (/methods/1/x-mcp/uriTemplate)
3 error(s), 0 warning(s)"##;
    assert_eq!(render("mcp-uri-template.json"), expected);
}

#[test]
fn mcp_header_token() {
    let expected = r##"error[mcp-header-token]: `x-mcp-header` "Zone Name" is not a non-empty RFC 9110 token (letters, digits and !#$%&'*+-.^_`|~)
  --> mcp-header-token.json:9:73 (/methods/0/params/1/schema/x-mcp-header)
error[mcp-header-token]: `x-mcp-header` "" is not a non-empty RFC 9110 token (letters, digits and !#$%&'*+-.^_`|~)
  --> mcp-header-token.json:10:74 (/methods/0/params/2/schema/x-mcp-header)
error[mcp-header-token]: `x-mcp-header` "A\r\nB" is not a non-empty RFC 9110 token (letters, digits and !#$%&'*+-.^_`|~)
  --> mcp-header-token.json:11:73 (/methods/0/params/3/schema/x-mcp-header)
error[mcp-header-token]: `x-mcp-header` must be a string, found 5
  --> mcp-header-token.json:12:72 (/methods/0/params/4/schema/x-mcp-header)
4 error(s), 0 warning(s)"##;
    assert_eq!(render("mcp-header-token.json"), expected);
}

#[test]
fn mcp_header_unique() {
    let expected = r##"error[mcp-header-unique]: `x-mcp-header` "REGION" repeats (case-insensitively) the one at mcp-header-unique.json:8:75 in tool "route"
  --> mcp-header-unique.json:13:75 (/methods/0/params/1/schema/properties/region/x-mcp-header)
1 error(s), 0 warning(s)"##;
    assert_eq!(render("mcp-header-unique.json"), expected);
}

#[test]
fn mcp_header_type() {
    let expected = r##"error[mcp-header-type]: `x-mcp-header` "Ratio" is on a schema of type "number"; only "string", "integer" and "boolean" can become headers
  --> mcp-header-type.json:10:74 (/methods/0/params/2/schema/x-mcp-header)
error[mcp-header-type]: `x-mcp-header` "Tags" is on a schema of type "array"; only "string", "integer" and "boolean" can become headers
  --> mcp-header-type.json:11:103 (/methods/0/params/3/schema/x-mcp-header)
error[mcp-header-type]: `x-mcp-header` "Opaque" is on a schema of type (none); only "string", "integer" and "boolean" can become headers
  --> mcp-header-type.json:12:57 (/methods/0/params/4/schema/x-mcp-header)
3 error(s), 0 warning(s)"##;
    assert_eq!(render("mcp-header-type.json"), expected);
}

#[test]
fn mcp_header_reachable() {
    let expected = r##"error[mcp-header-reachable]: `x-mcp-header` "Item" is not reachable from the tool's input root through `properties` alone (it is under items)
  --> mcp-header-reachable.json:14:87 (/methods/0/params/0/schema/properties/list/items/x-mcp-header)
error[mcp-header-reachable]: `x-mcp-header` "Choice" is not reachable from the tool's input root through `properties` alone (it is under oneOf)
  --> mcp-header-reachable.json:15:74 (/methods/0/params/0/schema/properties/choice/oneOf/0/x-mcp-header)
error[mcp-header-reachable]: `x-mcp-header` "Then" is not reachable from the tool's input root through `properties` alone (it is under then)
  --> mcp-header-reachable.json:19:111 (/methods/0/params/1/schema/then/x-mcp-header)
error[mcp-header-reachable]: `x-mcp-header` "Not" is not reachable from the tool's input root through `properties` alone (it is under not)
  --> mcp-header-reachable.json:20:85 (/methods/0/params/2/schema/not/x-mcp-header)
error[mcp-header-reachable]: `x-mcp-header` "Region" is not reachable from the tool's input root through `properties` alone (it is under $ref)
  --> mcp-header-reachable.json:29:53 (/components/schemas/Region/x-mcp-header)
5 error(s), 0 warning(s)"##;
    assert_eq!(render("mcp-header-reachable.json"), expected);
}

#[test]
fn mcp_header_placement() {
    let expected = r##"error[mcp-header-placement]: `x-mcp-header` on a param of method "plain", which is not an MCP tool; only tool params become headers
  --> mcp-header-placement.json:7:85 (/methods/0/params/0/schema/x-mcp-header)
error[mcp-header-placement]: `x-mcp-header` on a param of method "ask", which is not an MCP tool; only tool params become headers
  --> mcp-header-placement.json:12:84 (/methods/1/params/0/schema/x-mcp-header)
2 error(s), 0 warning(s)"##;
    assert_eq!(render("mcp-header-placement.json"), expected);
}

#[test]
fn several_errors() {
    let expected = r##"error[unique-param-names]: method "search" has two params named "q"
  --> several-errors.json:9:19 (/methods/0/params/1/name)
warning[required-params-first]: required param "q" of method "search" comes after optional param "q" (OpenRPC lists required params first); accepted: a call by position sends null for "q" to reach "q"
  --> several-errors.json:9:36 (/methods/0/params/1/required)
error[mcp-header-token]: `x-mcp-header` "Bad Header" is not a non-empty RFC 9110 token (letters, digits and !#$%&'*+-.^_`|~)
  --> several-errors.json:9:88 (/methods/0/params/1/schema/x-mcp-header)
error[unique-method-names]: duplicate method name "search" (first declared at several-errors.json:5:5)
  --> several-errors.json:14:15 (/methods/1/name)
error[mcp-needs-result]: method "search" is exposed as a prompt but has no `result` (it is a notification)
  --> several-errors.json:14:48 (/methods/1/x-mcp)
error[mcp-resource-params]: resource "file:///a" takes param "p"; a static resource takes no params (use a resource-template)
  --> several-errors.json:17:19 (/methods/2/params/0)
5 error(s), 1 warning(s)"##;
    assert_eq!(render("several-errors.json"), expected);
}

#[test]
fn several_errors_are_all_reported_in_one_run() {
    let diags = diagnose(&fixtures().join("invalid/several-errors.json"));
    let mut rules: Vec<&str> = diags.errors().map(|d| d.rule).collect();
    rules.sort();
    rules.dedup();
    assert_eq!(
        rules,
        [
            "mcp-header-token",
            "mcp-needs-result",
            "mcp-resource-params",
            "unique-method-names",
            "unique-param-names"
        ]
    );
}

#[test]
fn fusion_document_is_rejected() {
    let path = fixtures().join(
        "third-party/fusion/fusion-jsonrpc/src/test/resources/META-INF/fusion/jsonrpc/openrpc.json",
    );
    let diags = load(&path).expect_err("the Fusion document is not OpenRPC");
    let methods = diags
        .errors()
        .find(|d| d.rule == "document-shape" && d.location.pointer == "/methods")
        .expect("methods as an object is a document-shape error");
    assert!(
        methods.message.contains("must be an array"),
        "{}",
        methods.message
    );
    assert!(diags.errors().any(|d| d.location.pointer == "/schemas"));
    assert!(diags.errors().any(|d| d.message.contains("`openrpc`")));
}

#[test]
fn no_panic_on_odd_documents() {
    let dir = tempfile::tempdir().unwrap();
    let texts = [
        "",
        "null",
        "[]",
        "\"x\"",
        "{}",
        "{\"openrpc\": 1, \"info\": [], \"methods\": 3}",
        "{\"openrpc\": \"1.2.6\", \"info\": {\"title\": \"t\", \"version\": \"1\"}, \"methods\": [null, 1, {\"$ref\": 2}, {\"$ref\": \"#/methods/3\"}]}",
        "{\"openrpc\": \"1.2.6\", \"info\": {\"title\": \"t\", \"version\": \"1\"}, \"methods\": [{\"name\": \"m\", \"params\": [{\"$ref\": \"#\"}, {\"name\": \"p\", \"schema\": {\"$ref\": \"#/methods/0/params/1/schema\"}}], \"x-mcp\": {\"kind\": \"tool\", \"annotations\": 1, \"icons\": {}}}], \"components\": []}",
        "{\"openrpc\": \"1.2.6\", \"info\": {\"title\": \"t\", \"version\": \"1\"}, \"methods\": [{\"name\": \"m\", \"params\": [{\"name\": \"p\", \"schema\": {\"$ref\": \"%zz#/x\"}}, {\"name\": \"q\", \"schema\": {\"$ref\": \"#anchor\"}}, {\"name\": \"r\", \"schema\": {\"$ref\": \"http://x/y.json\"}}]}]}",
    ];
    for (i, text) in texts.iter().enumerate() {
        let path = dir.path().join(format!("doc{i}.json"));
        std::fs::write(&path, text).unwrap();
        match load(&path) {
            Err(diags) => assert!(diags.has_errors(), "{text}"),
            Ok((doc, _)) => {
                let _ = validate(&doc);
            }
        }
    }
    std::fs::write(dir.path().join("bad.json"), [0xff, 0xfe, b'{']).unwrap();
    let diags = load(&dir.path().join("bad.json")).unwrap_err();
    assert_eq!(diags.0[0].rule, "json-syntax");
    let diags = load(&dir.path().join("absent.json")).unwrap_err();
    assert_eq!(diags.0.len(), 1);
}

#[test]
fn versions_accepted() {
    let dir = tempfile::tempdir().unwrap();
    for (version, ok) in [
        ("1.0.0-rc1", true),
        ("1.0.0", true),
        ("1.4.3", true),
        ("1.4.x", true),
        ("1.5.0", false),
        ("1.5.x", false),
    ] {
        let path = dir.path().join("v.json");
        let text = format!(
            "{{\"openrpc\": \"{version}\", \"info\": {{\"title\": \"t\", \"version\": \"1\"}}, \"methods\": []}}"
        );
        std::fs::write(&path, text).unwrap();
        let result = load(&path);
        assert_eq!(result.is_ok(), ok, "{version}");
        if let Err(diags) = result {
            assert_eq!(diags.0[0].rule, "openrpc-version");
        }
    }
}

/// Loads and validates, failing on any error.
fn load_clean(path: &Path) -> mcp_codegen::openrpc::Document {
    let (document, warnings) = load(path).unwrap_or_else(|e| panic!("{}:\n{e}", path.display()));
    assert!(!warnings.has_errors());
    let diags = validate(&document);
    assert!(!diags.has_errors(), "{}:\n{diags}", path.display());
    document
}

#[test]
fn open_rpc_examples_load_and_validate() {
    let dir = fixtures().join("third-party/open-rpc-examples/service-descriptions");
    let mut count = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "json") {
            load_clean(&path);
            count += 1;
        }
    }
    assert!(count >= 8, "found {count} examples");
}

#[test]
fn lotus_gateway_loads() {
    let doc = load_clean(&fixtures().join("third-party/lotus/build/openrpc/v2/gateway.json"));
    assert_eq!(doc.methods.len(), 50);
    assert!(doc
        .methods
        .iter()
        .all(|m| m.param_structure == mcp_codegen::openrpc::ParamStructure::ByPosition));
    assert_eq!(doc.openrpc, "1.2.6");
}

#[test]
fn petstore_refs_resolve_into_components() {
    let path =
        fixtures().join("third-party/open-rpc-examples/service-descriptions/petstore-openrpc.json");
    let doc = load_clean(&path);
    let keys: Vec<&str> = doc.schemas.keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "#/components/schemas/PetId",
            "#/components/schemas/Pet",
            "#/components/schemas/Pets"
        ]
    );
    assert_eq!(doc.schemas["#/components/schemas/Pets"].name, "Pets");
    assert_eq!(
        doc.schemas["#/components/schemas/Pets"].schema["items"]["$ref"],
        "#/components/schemas/Pet"
    );
    let get_pet = doc.methods.iter().find(|m| m.name == "get_pet").unwrap();
    // the param was `{"$ref": "#/components/contentDescriptors/PetId"}`
    assert_eq!(get_pet.params[0].name, "petId");
    assert!(get_pet.params[0].required);
    assert_eq!(
        get_pet.params[0].schema["$ref"],
        "#/components/schemas/PetId"
    );
    assert_eq!(get_pet.params[0].location.pointer, "/methods/2/params/0");
    assert_eq!(
        get_pet.params[0].schema_location.pointer,
        "/components/contentDescriptors/PetId/schema"
    );
    assert_eq!(doc.files, vec![path]);
}

#[test]
fn split_document_resolves_across_files() {
    let dir = fixtures().join("openrpc/refs");
    let doc = load_clean(&dir.join("main.json"));
    assert_eq!(
        doc.files,
        vec![dir.join("main.json"), dir.join("common.json")]
    );
    let keys: Vec<&str> = doc.schemas.keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "#/components/schemas/Item",
            "#/components/schemas/Unused",
            "common.json#/definitions/Item",
            "common.json#/definitions/Id",
            "common.json#/definitions/Tag Name",
        ]
    );
    let item = &doc.schemas["common.json#/definitions/Item"];
    assert_eq!(item.name, "Item");
    assert_eq!(item.location.file, dir.join("common.json"));
    assert_eq!(item.location.pointer, "/definitions/Item");
    assert_eq!(item.location.line, 11);
    assert_eq!(
        item.schema["properties"]["id"]["$ref"],
        "common.json#/definitions/Id"
    );
    assert_eq!(
        item.schema["properties"]["children"]["items"]["$ref"],
        "common.json#/definitions/Item"
    );
    assert_eq!(
        item.schema["properties"]["tag name"]["$ref"],
        "common.json#/definitions/Tag Name"
    );
    assert_eq!(
        doc.schemas["common.json#/definitions/Tag Name"].name,
        "Tag Name"
    );
    assert_eq!(
        doc.schemas["#/components/schemas/Item"].schema["$ref"],
        "common.json#/definitions/Item"
    );

    let get = &doc.methods[0];
    assert_eq!(get.params[0].name, "id");
    assert!(get.params[0].required);
    assert_eq!(get.params[0].schema["$ref"], "common.json#/definitions/Id");
    assert_eq!(get.params[0].location.file, dir.join("main.json"));
    assert_eq!(get.params[0].schema_location.file, dir.join("common.json"));
    assert_eq!(get.errors[0].code, 404);
    let Some(mcp_codegen::openrpc::McpBinding::Tool(mcp)) = &get.mcp else {
        panic!("`get_item` is bound as a tool: {:?}", get.mcp);
    };
    assert_eq!(mcp.common.name, "get_item");
    assert_eq!(mcp.common.title.as_deref(), Some("Get item"));
    assert_eq!(
        mcp.common.description.as_deref(),
        Some("Fetch an item by id")
    );
    assert_eq!(mcp.annotations.as_ref().unwrap()["readOnlyHint"], true);
    assert!(doc.methods[1].mcp.is_none());
    assert_eq!(doc.server.name.as_deref(), Some("split-doc"));
    assert_eq!(
        doc.server.instructions.as_deref(),
        Some("Look things up by id.")
    );

    // every $ref in every stored schema is a key of `schemas`
    fn refs(v: &serde_json::Value, out: &mut Vec<String>) {
        match v {
            serde_json::Value::Object(m) => {
                if let Some(serde_json::Value::String(r)) = m.get("$ref") {
                    out.push(r.clone());
                }
                m.values().for_each(|c| refs(c, out));
            }
            serde_json::Value::Array(a) => a.iter().for_each(|c| refs(c, out)),
            _ => {}
        }
    }
    let mut all = Vec::new();
    doc.schemas.values().for_each(|s| refs(&s.schema, &mut all));
    doc.methods
        .iter()
        .flat_map(|m| m.params.iter().chain(&m.result))
        .for_each(|c| refs(&c.schema, &mut all));
    assert!(!all.is_empty());
    for r in all {
        assert!(doc.schemas.contains_key(&r), "{r}");
    }
}

#[test]
fn locations_point_into_nested_schemas() {
    let dir = fixtures().join("openrpc/refs");
    let doc = load_clean(&dir.join("main.json"));
    let loc = doc.sources.locate(
        &dir.join("common.json"),
        "/definitions/Item/properties/children/items/$ref",
    );
    assert_eq!((loc.line, loc.column), (17, 59));
}

/// `..` is fine while it stays inside the root document's directory (a file outside it is
/// refused: see `tests/hostile.rs`).
#[test]
fn whole_file_refs_parent_dirs_and_refs_back_into_main() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("api/sub")).unwrap();
    std::fs::create_dir_all(root.join("shared")).unwrap();
    std::fs::write(root.join("shared/id.json"), r#"{"type": "string"}"#).unwrap();
    std::fs::write(
        root.join("api/sub/x.json"),
        r#"{"X": {"type": "object", "properties": {"l": {"$ref": "../../main.json#/components/schemas/Local"}, "id": {"$ref": "../../shared/id.json"}}}}"#,
    )
    .unwrap();
    std::fs::write(
        root.join("main.json"),
        r#"{"openrpc": "1.2.6", "info": {"title": "t", "version": "1"},
            "methods": [{"name": "m", "params": [
                {"name": "a", "schema": {"$ref": "api/../shared/id.json"}},
                {"name": "b", "schema": {"$ref": "api/sub/x.json#/X"}}],
              "result": {"name": "r", "schema": {"$ref": "./api/sub/../sub/x.json#/X"}}}],
            "components": {"schemas": {"Local": {"type": "integer"}}}}"#,
    )
    .unwrap();
    let doc = load_clean(&root.join("main.json"));
    let keys: Vec<&str> = doc.schemas.keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "#/components/schemas/Local",
            "shared/id.json",
            "api/sub/x.json#/X"
        ]
    );
    assert_eq!(doc.schemas["shared/id.json"].name, "id");
    let x = &doc.schemas["api/sub/x.json#/X"].schema;
    assert_eq!(x["properties"]["l"]["$ref"], "#/components/schemas/Local");
    assert_eq!(x["properties"]["id"]["$ref"], "shared/id.json");
    assert_eq!(
        doc.methods[0].result.as_ref().unwrap().schema["$ref"],
        "api/sub/x.json#/X"
    );
    assert_eq!(doc.files.len(), 3);
}

#[test]
fn server_card() {
    let rendered = render("server-card.json");
    for expected in [
        "error[server-card]: `info.x-mcp.card.name` \"no-slash\" is not a reverse-DNS server name",
        "error[server-card]: the card's description defaults to `info.description`, which must be 1 to 100 characters, found 113: set `info.x-mcp.card.description`",
        "error[server-card]: `info.version` \"^1.2\" is a range; a card's version must be one version",
        "error[server-card]: `info.x-mcp.card.repository` needs a string `source`",
        "error[server-card]: each of `info.x-mcp.card.remotes` needs a string `url`",
        "error[server-card]: unknown key `packages` in `info.x-mcp.card`; allowed keys: name, description, repository, icons, remotes, _meta",
        "--> server-card.json:9:17 (/info/x-mcp/card/name)",
        "6 error(s), 0 warning(s)",
    ] {
        assert!(rendered.contains(expected), "missing {expected:?} in:\n{rendered}");
    }
}

#[test]
fn mcp_complete() {
    let expected = r##"error[mcp-complete]: `x-mcp.complete` applies to the params of a prompt or resource-template; method "search" is a tool
  --> mcp-complete.json:5:54 (/methods/0/params/0)
error[mcp-complete]: `x-mcp.complete` applies to the params of a prompt or resource-template; method "plain" is not exposed to MCP
  --> mcp-complete.json:6:36 (/methods/1/params/0)
error[mcp-complete]: `x-mcp.complete` applies to the params of a prompt or resource-template; method "plain" is not exposed to MCP
  --> mcp-complete.json:6:128 (/methods/1/result)
3 error(s), 0 warning(s)"##;
    assert_eq!(render("mcp-complete.json"), expected);
    let shapes = r##"error[mcp-extension]: `x-mcp.complete` must be a boolean, found a string
  --> mcp-complete-shape.json:5:91 (/methods/0/params/0/x-mcp/complete)
error[mcp-extension]: unknown key `hint` in a param's `x-mcp`; allowed keys: complete
  --> mcp-complete-shape.json:5:106 (/methods/0/params/0/x-mcp/hint)
error[mcp-extension]: a param's `x-mcp` must be an object such as {"complete": true}, found a boolean
  --> mcp-complete-shape.json:6:78 (/methods/1/params/0/x-mcp)
3 error(s), 0 warning(s)"##;
    assert_eq!(render("mcp-complete-shape.json"), shapes);
}

#[test]
fn builder_takes_a_ref_base() {
    let dir = tempfile::tempdir().unwrap();
    let written = mcp_codegen::Builder::new(fixtures().join("lenient/ref-base/api/service.json"))
        .ref_base(fixtures().join("lenient/ref-base"))
        .out_dir(dir.path())
        .generate()
        .expect("generates with a ref base");
    // The type is a file of its own beside the module (`mcp_server/types/`).
    let class = written.with_extension("").join("types/class.rs");
    let source = std::fs::read_to_string(&class).unwrap();
    assert!(source.contains("pub struct Class"), "{source}");
    // Without it, the document is refused (the hint is in the error).
    let refused = mcp_codegen::Builder::new(fixtures().join("lenient/ref-base/api/service.json"))
        .out_dir(dir.path())
        .generate();
    assert!(matches!(refused, Err(mcp_codegen::BuildError::Invalid(_))));
}

/// Contract errors: a code in the JSON-RPC reserved range and one code with two messages are
/// warnings (the constructors are generated); a code that is no 32-bit integer is an error.
#[test]
fn contract_error_codes() {
    let expected = r##"warning[contract-error-reserved-code]: error code -32050 ("Server busy") is in -32768..-32000, which JSON-RPC reserves for pre-defined errors; OpenRPC allows it only for those; choose a code outside the range
  --> contract-errors.json:10:19 (/methods/0/errors/0/code)
warning[contract-error-duplicate-code]: error code 4001 is declared with message "Insufficient funds" (at contract-errors.json:26:28) and with "Insufficient funds!"; both constructors are generated (`errors::insufficient_funds`, `errors::insufficient_funds_2`), and clients can tell them apart only by message
  --> contract-errors.json:12:19 (/methods/0/errors/2/code)
0 error(s), 2 warning(s)"##;
    assert_eq!(render_lenient("contract-errors.json"), expected);
    let expected = r##"error[document-shape]: `code` must fit a JSON-RPC error code (a 32-bit integer), found 4294967296
  --> error-code.json:10:19 (/methods/0/errors/0/code)
error[document-shape]: `code` must be an integer, found 1.5
  --> error-code.json:11:19 (/methods/0/errors/1/code)
2 error(s), 0 warning(s)"##;
    assert_eq!(render("error-code.json"), expected);
}
