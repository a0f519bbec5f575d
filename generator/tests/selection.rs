//! Selection without editing the document (`docs/gateway.md`): `--tools`/`--exclude` globs
//! and an overlay file over a vendor document without `x-mcp` (the Ethereum execution APIs,
//! `fixtures/gateway/`), through [`mcp_codegen::generate_with_options`].

use std::path::{Path, PathBuf};

use mcp_codegen::openrpc::{McpBinding, McpKind, McpOrigin};
use mcp_codegen::{Diagnostic, Diagnostics, Generated, Options, Selection, Severity};

fn gateway(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/gateway")
        .join(file)
}

fn ethereum() -> PathBuf {
    gateway("ethereum.openrpc.json")
}

fn select(tools: &[&str], exclude: &[&str], overlay: Option<PathBuf>) -> Options {
    Options {
        selection: Selection {
            tools: tools.iter().map(|s| s.to_string()).collect(),
            exclude: exclude.iter().map(|s| s.to_string()).collect(),
            overlay,
        },
        ..Options::default()
    }
}

fn generate(path: &Path, options: &Options) -> Generated {
    mcp_codegen::generate_with_options(path, options).unwrap_or_else(|e| panic!("{e}"))
}

/// The tool names, in the document's order.
fn tools(generated: &Generated) -> Vec<String> {
    generated
        .document
        .methods
        .iter()
        .filter_map(|m| m.mcp.as_ref().and_then(McpBinding::as_tool))
        .map(|tool| tool.common.name.clone())
        .collect()
}

/// The warnings of `rule`.
fn warnings<'a>(generated: &'a Generated, rule: &str) -> Vec<&'a Diagnostic> {
    generated
        .warnings
        .warnings()
        .filter(|d| d.rule == rule)
        .collect()
}

/// The keys of the catalog's tools, read from the generated descriptors.
fn catalog_tools(generated: &Generated) -> Vec<String> {
    let source = &generated.server.source;
    let tools = &source[source.find("tools: &[").expect("a tools list")..];
    let tools = &tools[..tools.find("prompts: &[").expect("a prompts list")];
    tools
        .lines()
        .filter_map(|line| line.trim().strip_prefix("key: \""))
        .map(|rest| rest.trim_end_matches("\",").to_string())
        .collect()
}

#[test]
fn a_vendor_document_alone_exposes_nothing_and_says_how_to_choose() {
    let generated = generate(&ethereum(), &Options::default());
    assert!(tools(&generated).is_empty());
    let nothing = warnings(&generated, "mcp-exposes-nothing");
    assert_eq!(nothing.len(), 1, "{}", generated.warnings);
    assert_eq!(
        nothing[0].message,
        "the document exposes nothing over MCP: no method has `x-mcp`; pass `--tools 'PATTERN'` (e.g. `--tools '*'`) or an `--overlay` to choose methods (from build.rs: `Builder::tools`, `Builder::overlay`)"
    );
    assert_eq!(nothing[0].location.pointer, "");
    assert_eq!(
        (nothing[0].location.line, nothing[0].location.column),
        (1, 1)
    );
}

#[test]
fn tools_select_by_glob_and_exclude_takes_back() {
    let all = generate(&ethereum(), &select(&["*"], &[], None));
    assert_eq!(tools(&all).len(), 86);
    assert!(warnings(&all, "mcp-exposes-nothing").is_empty());
    assert!(warnings(&all, "selection").is_empty(), "{}", all.warnings);

    let eth = generate(&ethereum(), &select(&["eth_*"], &[], None));
    let names = tools(&eth);
    assert_eq!(names.len(), 44);
    assert!(names.iter().all(|n| n.starts_with("eth_")));
    assert_eq!(catalog_tools(&eth).len(), 44);
    let method = |g: &Generated, name: &str| {
        g.document
            .methods
            .iter()
            .find(|m| m.name == name)
            .unwrap()
            .clone()
    };
    let balance = method(&eth, "eth_getBalance");
    assert_eq!(balance.mcp_origin, Some(McpOrigin::Selection));
    let tool = balance.mcp.as_ref().unwrap().as_tool().unwrap();
    // The method's own words describe the tool; a selected tool has no annotations.
    assert_eq!(
        tool.common.description.as_deref(),
        Some("Returns the balance of the account of given address.")
    );
    assert!(tool.annotations.is_none());
    assert!(method(&eth, "debug_getRawBlock").mcp.is_none());

    let some = generate(
        &ethereum(),
        &select(
            &["eth_get*", "eth_call", "Filecoin.Chain*", "eth_getBalanse"],
            &["eth_getTransaction*", "eth_getBlock*", "web3_*"],
            None,
        ),
    );
    let names = tools(&some);
    assert!(names.contains(&"eth_call".to_string()));
    assert!(names.contains(&"eth_getLogs".to_string()));
    assert!(!names.iter().any(|n| n.starts_with("eth_getTransaction")));
    assert!(!names.iter().any(|n| n.starts_with("eth_getBlock")));
    assert_eq!(names.len(), 20 - 5 - 6);
    let unmatched: Vec<&str> = warnings(&some, "selection")
        .iter()
        .map(|d| d.message.as_str())
        .collect();
    assert_eq!(
        unmatched,
        [
            "--exclude pattern \"web3_*\" matches no method of the document",
            "--tools pattern \"Filecoin.Chain*\" matches no method of the document",
            "--tools pattern \"eth_getBalanse\" matches no method of the document (did you mean \"eth_getBalance\"?)",
        ]
    );
}

#[test]
fn patterns_that_choose_nothing_are_two_warnings() {
    let generated = generate(&ethereum(), &select(&["web3_*"], &[], None));
    assert!(tools(&generated).is_empty());
    let rules: Vec<&str> = generated.warnings.warnings().map(|d| d.rule).collect();
    assert!(rules.contains(&"selection"), "{rules:?}");
    let nothing = warnings(&generated, "mcp-exposes-nothing");
    assert_eq!(nothing.len(), 1);
    assert!(
        nothing[0]
            .message
            .contains("--tools/--exclude/--overlay chose none"),
        "{}",
        nothing[0].message
    );
}

#[test]
fn the_overlay_wins_over_the_flags_and_names_the_server() {
    let generated = generate(
        &ethereum(),
        &select(
            &["eth_get*", "eth_call", "eth_sign*", "debug_*"],
            &[],
            Some(gateway("eth-overlay.json")),
        ),
    );
    let names = tools(&generated);
    // `eth_sign` is hidden (null beats --tools), `debug_*` too; `eth_sendTransaction` is
    // enabled by the overlay alone; `eth_getBalance` is renamed.
    assert!(!names.contains(&"eth_sign".to_string()), "{names:?}");
    assert!(!names.iter().any(|n| n.starts_with("debug_")), "{names:?}");
    assert!(names.contains(&"eth_signTransaction".to_string()));
    assert!(names.contains(&"eth_sendTransaction".to_string()));
    assert!(names.contains(&"balance".to_string()));
    assert!(!names.contains(&"eth_getBalance".to_string()));
    assert_eq!(names.len(), 19 + 1 + 2 - 1 + 1);
    let mut listed = catalog_tools(&generated);
    let mut names = names;
    listed.sort();
    names.sort();
    assert_eq!(listed, names);

    let send = generated
        .document
        .methods
        .iter()
        .find(|m| m.name == "eth_sendTransaction")
        .unwrap();
    assert_eq!(send.mcp_origin, Some(McpOrigin::Overlay));
    let tool = send.mcp.as_ref().unwrap().as_tool().unwrap();
    assert_eq!(
        tool.annotations,
        Some(
            serde_json::json!({"destructiveHint": true, "readOnlyHint": false, "openWorldHint": true})
        )
    );
    assert_eq!(tool.common.title.as_deref(), Some("Send a transaction"));
    // Located in the overlay, at its own line.
    assert!(tool.common.location.file.ends_with("eth-overlay.json"));
    assert_eq!(tool.common.location.pointer, "/methods/eth_sendTransaction");
    assert_eq!(tool.common.location.line, 87);

    let server = &generated.document.server;
    assert_eq!(server.name.as_deref(), Some("eth-gateway"));
    assert_eq!(server.title.as_deref(), Some("Ethereum gateway"));
    assert!(server
        .instructions
        .as_deref()
        .is_some_and(|i| i.contains("confirm with the user")));
    assert!(generated.server.source.contains("name: \"eth-gateway\""));
    assert!(generated.warnings.warnings().all(|d| d.rule != "overlay"));

    // `eth_subscribe`, which the document lacks, added by an action as a subscription
    // template (each URI one subscription at the node).
    let subscribe = generated
        .document
        .methods
        .iter()
        .find(|m| m.name == "eth_subscribe")
        .unwrap();
    let Some(McpBinding::ResourceTemplate(template)) = &subscribe.mcp else {
        panic!("eth_subscribe is {:?}", subscribe.mcp);
    };
    assert_eq!(
        template.uri_template,
        "eth://subscription/{subscriptionType}{?filter}"
    );
    assert_eq!(
        template
            .subscription
            .as_ref()
            .map(|s| s.unsubscribe.as_str()),
        Some("eth_unsubscribe")
    );
}

/// Writes `text` as an overlay beside nothing else, for the problems it has.
fn overlay_file(dir: &tempfile::TempDir, text: &str) -> PathBuf {
    let path = dir.path().join("overlay.json");
    std::fs::write(&path, text).unwrap();
    path
}

fn rendered(diagnostics: &Diagnostics, dir: &tempfile::TempDir) -> String {
    diagnostics
        .to_string()
        .replace(&format!("{}/", dir.path().display()), "")
}

#[test]
fn overlay_problems_are_located_in_the_overlay() {
    let dir = tempfile::tempdir().unwrap();
    let overlay = overlay_file(
        &dir,
        r#"{
  "method": {},
  "methods": {
    "eth_call": {"kind": "tool", "anotations": {"readOnlyHint": true}},
    "eth_getBalance": {"kind": "tol"},
    "eth_chainID": "tool",
    "web3_*": null
  },
  "info": {"x-mcp": {"nmae": "x", "title": 3}}
}
"#,
    );
    let errors = mcp_codegen::generate_with_options(&ethereum(), &select(&[], &[], Some(overlay)))
        .expect_err("the overlay has errors");
    let expected = r#"error[overlay]: unknown key `method` in the overlay (did you mean `methods`?); allowed keys: methods, info, overlay, actions, extends, $schema, $comment
  --> overlay.json:2:13 (/method)
error[mcp-extension]: unknown key `anotations` in `x-mcp` (did you mean `annotations`?); allowed keys: kind, name, title, description, annotations, icons, uri, uriTemplate, mimeType, _meta, output, inputSchema, scopes, rateLimit, resultBudget, subscription
  --> overlay.json:4:48 (/methods/eth_call/anotations)
error[mcp-extension]: unknown `x-mcp` kind "tol" (did you mean "tool"?); expected "tool", "prompt", "resource" or "resource-template"
  --> overlay.json:5:32 (/methods/eth_getBalance/kind)
warning[overlay]: overlay entry "eth_chainID" matches no method of the document (did you mean "eth_chainId"?); it changes nothing
  --> overlay.json:6:20 (/methods/eth_chainID)
warning[overlay]: overlay entry "web3_*" matches no method of the document; it changes nothing
  --> overlay.json:7:15 (/methods/web3_*)
error[mcp-extension]: unknown key `nmae` in `info.x-mcp` (did you mean `name`?); allowed keys: name, title, instructions, websiteUrl, card, scopes, hideUnauthorized
  --> overlay.json:9:30 (/info/x-mcp/nmae)
error[mcp-extension]: `info.x-mcp.title` must be a string, found a number
  --> overlay.json:9:44 (/info/x-mcp/title)
5 error(s), 2 warning(s)"#;
    // The document's own warnings (contract errors, unions) come first, in the document.
    let overlay_only = Diagnostics(
        errors
            .0
            .iter()
            .filter(|d| d.location.file.ends_with("overlay.json"))
            .cloned()
            .collect(),
    );
    assert_eq!(rendered(&overlay_only, &dir), expected);
    assert!(errors
        .0
        .iter()
        .all(|d| d.severity == Severity::Warning || d.location.file.ends_with("overlay.json")));
}

#[test]
fn an_overlay_that_is_not_json_is_an_error_at_its_position() {
    let dir = tempfile::tempdir().unwrap();
    let overlay = overlay_file(
        &dir,
        "{\n  \"methods\": {\n    \"eth_call\": tool\n  }\n}\n",
    );
    let errors = mcp_codegen::generate_with_options(&ethereum(), &select(&[], &[], Some(overlay)))
        .expect_err("not JSON");
    let error = errors.errors().next().unwrap();
    assert_eq!(error.rule, "json-syntax");
    assert!(error.location.file.ends_with("overlay.json"));
    // Where serde_json stopped: the `o` of `tool`.
    assert_eq!((error.location.line, error.location.column), (3, 18));
    assert!(
        error.message.starts_with("invalid JSON in the overlay: "),
        "{}",
        error.message
    );

    let missing = mcp_codegen::generate_with_options(
        &ethereum(),
        &select(&[], &[], Some(dir.path().join("missing.json"))),
    )
    .expect_err("no such file");
    let error = missing.errors().next().unwrap();
    assert_eq!(error.rule, "overlay");
    assert_eq!(error.message, "cannot read the overlay: file not found");
}

/// A small document: what `--tools` does with names that are no tool names, notifications, a
/// method's own `x-mcp`, and a declared `rpc.discover`.
fn small_document(dir: &tempfile::TempDir) -> PathBuf {
    let path = dir.path().join("vendor.json");
    std::fs::write(
        &path,
        r#"{
  "openrpc": "1.2.6",
  "info": {"title": "Vendor", "version": "1.0.0"},
  "methods": [
    {"name": "get balance", "params": [], "result": {"name": "b", "schema": {"type": "integer"}}},
    {"name": "notify", "params": [], "summary": "A notification."},
    {"name": "summarize", "params": [{"name": "text", "required": true, "schema": {"type": "string"}}],
     "result": {"name": "s", "schema": {"type": "string"}}, "x-mcp": "prompt"},
    {"name": "rpc.discover", "params": [], "result": {"name": "doc", "schema": {"$ref": "https://example.com/openrpc-meta-schema.json"}}}
  ]
}
"#,
    )
    .unwrap();
    path
}

#[test]
fn what_tools_cannot_make_a_tool_is_said_and_left_out() {
    let dir = tempfile::tempdir().unwrap();
    let path = small_document(&dir);
    // A name the model APIs refuse is published portable, the method's name its title.
    let generated = generate(&path, &select(&["*"], &[], None));
    assert_eq!(tools(&generated), ["get_balance"]);
    let tool = generated.document.methods[0]
        .mcp
        .as_ref()
        .and_then(McpBinding::as_tool);
    assert_eq!(tool.unwrap().common.title.as_deref(), Some("get balance"));
    assert!(warnings(&generated, "mcp-tool-name").is_empty());
    // `--keep-names`: as written, and the warning says what clients may do.
    let kept = generate(
        &path,
        &Options {
            keep_names: true,
            ..select(&["*"], &[], None)
        },
    );
    assert_eq!(tools(&kept), ["get balance"]);
    // The method's own `x-mcp` wins over --tools.
    let summarize = &generated.document.methods[2];
    assert_eq!(
        summarize.mcp.as_ref().map(McpBinding::kind),
        Some(McpKind::Prompt)
    );
    assert_eq!(summarize.mcp_origin, Some(McpOrigin::Document));
    let expected = r#"warning[mcp-tool-name]: method "get balance" is selected by --tools, but its name is not a valid tool name (1-128 characters of [A-Za-z0-9_.-]); clients may reject it; give the tool a name in an --overlay: {"methods": {"get balance": {"kind": "tool", "name": "get_balance"}}}
  --> vendor.json:5:14 (/methods/0/name)
warning[selection]: method "notify" matches --tools but has no `result` (it is a notification, and a tool call needs an answer): it is not made a tool
  --> vendor.json:6:14 (/methods/1/name)
warning[reserved-method-names]: the document declares `rpc.discover`, the OpenRPC service discovery method, which the generated server answers itself with this document (on its plain JSON-RPC endpoint); the declaration is not generated as a handler method
  --> vendor.json:9:14 (/methods/3/name)
0 error(s), 3 warning(s)"#;
    assert_eq!(rendered(&kept.warnings, &dir), expected);

    // The overlay names the tool; only an exact overlay key reads `rpc.discover`.
    let overlay = overlay_file(
        &dir,
        r#"{"methods": {"get balance": {"kind": "tool", "name": "get_balance"}, "rpc.*": "tool"}}"#,
    );
    let generated = generate(&path, &select(&[], &[], Some(overlay)));
    assert_eq!(tools(&generated), ["get_balance"]);
    assert!(warnings(&generated, "mcp-tool-name").is_empty());
    assert!(
        warnings(&generated, "overlay").is_empty(),
        "{}",
        generated.warnings
    );
    let overlay = overlay_file(&dir, r#"{"methods": {"rpc.discover": "tool"}}"#);
    let errors = mcp_codegen::generate_with_options(&path, &select(&[], &[], Some(overlay)))
        .expect_err("rpc.discover exposed");
    assert!(
        errors.errors().any(|d| d.rule == "ref-relative"),
        "read like any method: {errors}"
    );
}

#[test]
fn the_builder_takes_the_selection() {
    let dir = tempfile::tempdir().unwrap();
    let written = mcp_codegen::Builder::new(ethereum())
        .tools(["eth_get*", "eth_call", "eth_sign*"])
        .exclude(["eth_getProof"])
        .overlay(gateway("eth-overlay.json"))
        .one_file()
        .out_dir(dir.path())
        .generate()
        .unwrap();
    let source = std::fs::read_to_string(written).unwrap();
    assert!(source.contains("key: \"balance\""));
    assert!(source.contains("key: \"eth_sendTransaction\""));
    assert!(!source.contains("key: \"eth_getProof\""));
    assert!(!source.contains("key: \"eth_sign\""));
}

/// A gateway makes the subscription methods its patterns select subscription templates, by
/// their names (`Filecoin.EthSubscribe` with `Filecoin.EthUnsubscribe` in Lotus' gateway
/// document), and takes the unsubscribe method off MCP; without a gateway both stay tools.
#[test]
fn a_gateway_recognises_subscription_methods_by_their_pair_of_names() {
    let lotus = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/third-party/lotus/build/openrpc/v2/gateway.json");
    let mut options = select(&["*"], &[], None);
    let plain = generate(&lotus, &options);
    let names = tools(&plain);
    assert!(
        names.contains(&"Filecoin_EthSubscribe".to_string()),
        "{names:?}"
    );
    assert!(
        names.contains(&"Filecoin_EthUnsubscribe".to_string()),
        "{names:?}"
    );

    options.gateway = Some(mcp_codegen::Upstream { url: None });
    let gateway = generate(&lotus, &options);
    let names = tools(&gateway);
    assert!(!names.iter().any(|n| n.contains("Subscribe")), "{names:?}");
    let method = |name: &str| {
        gateway
            .document
            .methods
            .iter()
            .find(|m| m.name == name)
            .unwrap()
    };
    let Some(McpBinding::ResourceTemplate(template)) = &method("Filecoin.EthSubscribe").mcp else {
        panic!("{:?}", method("Filecoin.EthSubscribe").mcp);
    };
    assert_eq!(template.uri_template, "filecoin://EthSubscribe/{p1}");
    assert_eq!(template.mime_type.as_deref(), Some("application/json"));
    let subscription = template.subscription.as_ref().unwrap();
    assert_eq!(subscription.unsubscribe, "Filecoin.EthUnsubscribe");
    assert_eq!(subscription.id_param, None);
    assert!(method("Filecoin.EthUnsubscribe").mcp.is_none());
}
