//! Result budgets (`--result-budget`, `Options::result_budget`, `x-mcp` `resultBudget`): which
//! tools get one, what the generated server is told (`fn result_budget`,
//! `.with_result_budgets(..)`, the `mcp-result://{id}/{page}` template) and that a tool with one
//! publishes no `outputSchema`. The runtime keeps the results over budget (its own tests).

use std::path::{Path, PathBuf};

use mcp_codegen::{Generated, Options, Selection, Upstream};

/// Three methods that `--tools '*'` makes tools, with typed results (so a hand-written server
/// publishes their `outputSchema`), and a prompt.
const DOCUMENT: &str = r#"{
  "openrpc": "1.2.6",
  "info": {"title": "budgets", "version": "1.0.0"},
  "methods": [
    {"name": "block", "params": [{"name": "number", "schema": {"type": "integer"}}],
     "result": {"name": "block", "schema": {"type": "object", "properties": {"hash": {"type": "string"}}}}},
    {"name": "logs", "params": [],
     "result": {"name": "logs", "schema": {"type": "object", "properties": {"logs": {"type": "array", "items": {"type": "string"}}}}}},
    {"name": "chainId", "params": [],
     "result": {"name": "id", "schema": {"type": "object", "properties": {"id": {"type": "string"}}}}},
    {"name": "greet", "params": [{"name": "who", "schema": {"type": "string"}}],
     "result": {"name": "text", "schema": {"type": "string"}}, "x-mcp": "prompt"}
  ]
}"#;

/// The tools of [`DOCUMENT`].
const TOOLS: [&str; 3] = ["block", "logs", "chainId"];

/// `text` written as `name` in a new temporary directory.
fn write(dir: &tempfile::TempDir, name: &str, text: &str) -> PathBuf {
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// `--tools '*'`, as a gateway (`--gateway`) or hand-written.
fn options(gateway: bool) -> Options {
    Options {
        selection: Selection {
            tools: vec!["*".into()],
            ..Selection::default()
        },
        gateway: gateway.then(Upstream::default),
        ..Options::default()
    }
}

fn generate(document: &Path, options: &Options) -> Generated {
    mcp_codegen::generate_with_options(document, options).unwrap_or_else(|e| panic!("{e}"))
}

/// The generated `fn NAME`, printed on its own; `None` when there is none.
fn function(source: &str, name: &str) -> Option<String> {
    let file = syn::parse_file(source).expect("the generated code parses");
    let item = file
        .items
        .into_iter()
        .find(|item| matches!(item, syn::Item::Fn(function) if function.sig.ident == name))?;
    Some(prettyplease::unparse(&syn::File {
        shebang: None,
        attrs: Vec::new(),
        items: vec![item],
    }))
}

/// The descriptor texts of the tool published as `name` (every revision's).
fn tool_descriptor<'s>(source: &'s str, name: &str) -> &'s str {
    let key = format!("key: \"{name}\",");
    let start = source
        .find(&key)
        .unwrap_or_else(|| panic!("no descriptor of {name}"));
    let rest = &source[start..];
    &rest[..rest.find("]),").expect("a descriptor's revisions end")]
}

/// Whether the catalog lists the pages of kept results among its resource templates.
fn lists_pages(source: &str) -> bool {
    source.contains("resource_templates: &[::mcp_runtime::generated_support::RESULT_PAGES]")
}

/// A gateway's tools pass their results through (no `--check-results`): each gets 64 KiB,
/// the server is told so and lists the pages' template, and no tool has an `outputSchema`.
#[test]
fn a_gateway_gives_its_passed_through_tools_64_kib() {
    let dir = tempfile::tempdir().unwrap();
    let document = write(&dir, "openrpc.json", DOCUMENT);
    let generated = generate(&document, &options(true));
    let source = &generated.server.source;
    let expected = r#"/// Each tool's result budget in bytes (`--result-budget`, `x-mcp` `resultBudget`): a larger
/// result is kept and answered with a preview and a link to read it in pages.
fn result_budget(tool: &str) -> ::std::option::Option<usize> {
    match tool {
        "block" | "chainId" | "logs" => ::std::option::Option::Some(65536usize),
        _ => ::std::option::Option::None,
    }
}
"#;
    assert_eq!(function(source, "result_budget").as_deref(), Some(expected));
    assert!(
        source.contains(".with_result_budgets(&result_budget, 65536usize)"),
        "{source}"
    );
    assert!(lists_pages(source), "the pages' template is listed");
    assert!(!source.contains(r#""outputSchema":"#));
    assert!(
        !generated
            .selection_flags
            .contains(&"--result-budget".to_string()),
        "the default is not a flag to repeat"
    );
}

/// With `--check-results` a gateway's results are checked and sent whole: no budget, and the
/// tools keep their `outputSchema`.
#[test]
fn a_gateway_that_checks_results_has_no_budget() {
    let dir = tempfile::tempdir().unwrap();
    let document = write(&dir, "openrpc.json", DOCUMENT);
    let options = Options {
        check_results: true,
        ..options(true)
    };
    let generated = generate(&document, &options);
    let source = &generated.server.source;
    assert_eq!(function(source, "result_budget"), None);
    assert!(!source.contains("with_result_budgets"));
    assert!(!source.contains("RESULT_PAGES"));
    for tool in TOOLS {
        assert!(
            tool_descriptor(source, tool).contains(r#""outputSchema":"#),
            "{tool} keeps its outputSchema"
        );
    }
}

/// A hand-written server has no budget by default: every tool publishes its `outputSchema`.
#[test]
fn a_hand_written_server_has_no_budget_by_default() {
    let dir = tempfile::tempdir().unwrap();
    let document = write(&dir, "openrpc.json", DOCUMENT);
    let source = generate(&document, &options(false)).server.source;
    assert_eq!(function(&source, "result_budget"), None);
    assert!(!lists_pages(&source));
    for tool in TOOLS {
        assert!(tool_descriptor(&source, tool).contains(r#""outputSchema":"#));
    }
}

/// `--result-budget` gives every tool its value, on a hand-written server and over
/// `--check-results` alike; those tools publish no `outputSchema`, and the crate's regenerate
/// line repeats the flag.
#[test]
fn the_flag_gives_every_tool_its_budget() {
    let dir = tempfile::tempdir().unwrap();
    let document = write(&dir, "openrpc.json", DOCUMENT);
    for base in [
        options(false),
        Options {
            check_results: true,
            ..options(true)
        },
    ] {
        let options = Options {
            result_budget: Some(1024),
            ..base
        };
        let generated = generate(&document, &options);
        let source = &generated.server.source;
        let lookup = function(source, "result_budget").expect("a budget lookup");
        assert!(
            lookup.contains(
                r#""block" | "chainId" | "logs" => ::std::option::Option::Some(1024usize),"#
            ),
            "{lookup}"
        );
        assert!(source.contains(".with_result_budgets(&result_budget, 1024usize)"));
        assert!(lists_pages(source));
        for tool in TOOLS {
            assert!(
                !tool_descriptor(source, tool).contains(r#""outputSchema":"#),
                "{tool} has a budget: no outputSchema"
            );
        }
        assert!(generated
            .selection_flags
            .ends_with(&["--result-budget".to_string(), "1024".to_string()]));
    }
}

/// `--result-budget 0`: every result whole, even a gateway's passed through.
#[test]
fn a_zero_flag_turns_the_default_off() {
    let dir = tempfile::tempdir().unwrap();
    let document = write(&dir, "openrpc.json", DOCUMENT);
    let options = Options {
        result_budget: Some(0),
        ..options(true)
    };
    let source = generate(&document, &options).server.source;
    assert_eq!(function(&source, "result_budget"), None);
    assert!(!source.contains("with_result_budgets"));
    assert!(!lists_pages(&source));
}

/// A method's `resultBudget` (in the overlay, or its own `x-mcp`) wins over the flag and the
/// default: `0` turns it off for that tool alone, which then keeps its `outputSchema` (its
/// results checked); the arms go by budget, then name, and the builder is told the smallest.
#[test]
fn a_methods_result_budget_wins() {
    let dir = tempfile::tempdir().unwrap();
    let with_own = DOCUMENT.replace(
        r#""x-mcp": "prompt""#,
        r#""x-mcp": "prompt"}, {"name": "receipt", "params": [], "result": {"name": "r", "schema": {"type": "object"}}, "x-mcp": {"kind": "tool", "resultBudget": 0}"#,
    );
    let document = write(&dir, "openrpc.json", &with_own);
    let overlay = write(
        &dir,
        "overlay.json",
        r#"{"methods": {
            "block": {"kind": "tool", "resultBudget": 0},
            "logs": {"kind": "tool", "resultBudget": 1048576}
        }}"#,
    );
    let mut options = Options {
        check_results: true,
        result_budget: Some(4096),
        ..options(true)
    };
    options.selection.overlay = Some(overlay);
    let source = generate(&document, &options).server.source;
    let expected = r#"/// Each tool's result budget in bytes (`--result-budget`, `x-mcp` `resultBudget`): a larger
/// result is kept and answered with a preview and a link to read it in pages.
fn result_budget(tool: &str) -> ::std::option::Option<usize> {
    match tool {
        "chainId" => ::std::option::Option::Some(4096usize),
        "logs" => ::std::option::Option::Some(1048576usize),
        _ => ::std::option::Option::None,
    }
}
"#;
    assert_eq!(
        function(&source, "result_budget").as_deref(),
        Some(expected)
    );
    assert!(source.contains(".with_result_budgets(&result_budget, 4096usize)"));
    for (tool, whole) in [
        ("block", true),
        ("receipt", true),
        ("logs", false),
        ("chainId", false),
    ] {
        assert_eq!(
            tool_descriptor(&source, tool).contains(r#""outputSchema":"#),
            whole,
            "{tool}"
        );
    }
}

/// A budget is a tool's: on a prompt (its own `x-mcp` or an overlay entry's) it is a warning
/// naming the method and the key, and changes nothing.
#[test]
fn result_budget_on_a_prompt_is_warned() {
    let dir = tempfile::tempdir().unwrap();
    let own = DOCUMENT.replace(
        r#""x-mcp": "prompt""#,
        r#""x-mcp": {"kind": "prompt", "resultBudget": 100}"#,
    );
    let document = write(&dir, "openrpc.json", &own);
    let generated = generate(&document, &options(false));
    let warning = generated
        .warnings
        .warnings()
        .find(|w| w.location.pointer.ends_with("/resultBudget"))
        .expect("a warning at the key");
    assert_eq!(warning.rule, "mcp-extension");
    assert_eq!(warning.location.pointer, "/methods/3/x-mcp/resultBudget");
    assert_eq!(
        warning.message,
        "`x-mcp.resultBudget` of method \"greet\" is ignored: only a tool's result is kept and read in pages, and this is a prompt"
    );
    assert_eq!(function(&generated.server.source, "result_budget"), None);

    let document = write(&dir, "openrpc.json", DOCUMENT);
    let overlay = write(
        &dir,
        "overlay.json",
        r#"{"methods": {"greet": {"kind": "prompt", "resultBudget": 100}}}"#,
    );
    let mut options = options(false);
    options.selection.overlay = Some(overlay);
    let generated = generate(&document, &options);
    let warnings: Vec<_> = generated
        .warnings
        .warnings()
        .filter(|w| w.message.contains("resultBudget"))
        .collect();
    assert_eq!(warnings.len(), 1, "told once, where the overlay says it");
    assert!(warnings[0].location.file.ends_with("overlay.json"));
    assert_eq!(warnings[0].location.pointer, "/methods/greet/resultBudget");
}

/// The CLI takes `--result-budget` in bytes or binary units, and the crate's README repeats it
/// in bytes in its regenerate line; a size it cannot read is refused naming the flag.
#[test]
fn the_cli_takes_sizes_with_units() {
    let dir = tempfile::tempdir().unwrap();
    let document = write(&dir, "openrpc.json", DOCUMENT);
    let out = dir.path().join("server");
    let run = |budget: &str| {
        std::process::Command::new(env!("CARGO_BIN_EXE_mcp-codegen"))
            .arg(&document)
            .args(["--tools", "*", "--quiet", "--result-budget", budget, "-o"])
            .arg(&out)
            .output()
            .unwrap()
    };
    let output = run("2KiB");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let source = std::fs::read_to_string(out.join("src/generated.rs")).unwrap();
    assert!(source.contains(".with_result_budgets(&result_budget, 2048usize)"));
    let readme = std::fs::read_to_string(out.join("README.md")).unwrap();
    assert!(readme.contains("--result-budget 2048"), "{readme}");

    let output = run("2KB");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("'--result-budget <BYTES>'") && stderr.contains("use KiB or MiB"),
        "{stderr}"
    );
}
