//! The third-party corpus (`fixtures/third-party/`, listed in its `SOURCES.md`): every public
//! document generates, with the warnings it is expected to raise (the ways it bends the
//! specification), and every generated crate builds without a warning: the server's, and the
//! typed client's (`--client`) beside it.
//!
//! The crates are members of one cargo workspace (`target/corpus-workspace`) sharing one target
//! directory, `target/generated-crates`, built with `RUSTFLAGS=-D warnings`: as
//! `generator/tests/cli.rs` builds its crates, with the same dependencies and features, so
//! `mcp-runtime` and the dependencies are built once for both tests and every crate here.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use mcp_codegen::scaffold::{crate_files, write_crate, CrateOptions, RuntimeDependency};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// One corpus document: the package name of its crate, its path under `fixtures/third-party/`,
/// the `--ref-base` directory it needs (under `fixtures/third-party/`), and the rules of the
/// warnings it raises, each with how many times.
struct Entry {
    name: &'static str,
    path: String,
    ref_base: Option<&'static str>,
    warnings: &'static [(&'static str, usize)],
}

fn entry(name: &'static str, path: impl Into<String>) -> Entry {
    Entry {
        name,
        path: path.into(),
        ref_base: None,
        warnings: &[],
    }
}

const EXAMPLES: &str = "open-rpc-examples/service-descriptions";

/// Every document of `fixtures/third-party/` but Fusion's, which is not OpenRPC (a negative
/// fixture of `generator/tests/diagnostics.rs`).
fn corpus() -> Vec<Entry> {
    let example = |name: &'static str, file: &str| entry(name, format!("{EXAMPLES}/{file}"));
    vec![
        example("corpus-api-with-examples", "api-with-examples-openrpc.json"),
        Entry {
            // No method: `*` matches nothing, and nothing is exposed.
            warnings: &[("mcp-exposes-nothing", 1), ("selection", 1)],
            ..example("corpus-empty", "empty-openrpc.json")
        },
        example("corpus-link-example", "link-example-openrpc.json"),
        Entry {
            // Its one method is a notification, which cannot be a tool.
            warnings: &[("mcp-exposes-nothing", 1), ("selection", 1)],
            ..example("corpus-metrics", "metrics-openrpc.json")
        },
        example(
            "corpus-params-by-name-petstore",
            "params-by-name-petstore-openrpc.json",
        ),
        example("corpus-petstore-expanded", "petstore-expanded-openrpc.json"),
        example("corpus-petstore", "petstore-openrpc.json"),
        example("corpus-simple-math", "simple-math-openrpc.json"),
        entry(
            "corpus-lotus-gateway",
            "lotus/build/openrpc/v2/gateway.json",
        ),
        entry("corpus-mwixnet", "mwixnet/openrpc.json"),
        entry("corpus-accumulate", "accumulate/openrpc.json"),
        entry("corpus-sagemcom", "sagemcom-docsis-exporter/openrpc.json"),
        Entry {
            // 404 for three different "not found" messages; -32032 for a proxy failure.
            // `MessageDestination` (`ip` or `pk`, neither required) and `PushMessageResult`
            // are `oneOf`s whose variants can accept the same value.
            warnings: &[
                ("ambiguous-union", 2),
                ("contract-error-duplicate-code", 2),
                ("contract-error-reserved-code", 1),
            ],
            ..entry("corpus-mycelium", "mycelium/docs/openrpc.json")
        },
        Entry {
            // Required params after optional ones, by name. `Token` (`"00"` or a 64-digit hex
            // id) and the outputs of `htr_sendTransaction` are `oneOf`s whose variants can
            // accept the same value.
            warnings: &[("ambiguous-union", 2), ("required-params-first", 7)],
            ..entry("corpus-hathor", "hathor-rpc-lib/docs/openrpc.json")
        },
        Entry {
            // Declares `rpc.discover` (answered by the runtime), and a required param after
            // optional ones.
            warnings: &[("required-params-first", 1), ("reserved-method-names", 1)],
            ..entry("corpus-soulseek", "soulseek-rs/docs/openrpc.json")
        },
        Entry {
            // Declares `rpc.discover`; reuses the pre-defined codes -32600..-32603 for its own
            // meanings, and -32001.
            warnings: &[
                ("contract-error-reserved-code", 5),
                ("reserved-method-names", 1),
            ],
            ..entry("corpus-lector", "lector/openrpc.json")
        },
        Entry {
            // `season` (required) after `sport` (optional); -32602 and -32001 of its own.
            warnings: &[
                ("contract-error-reserved-code", 2),
                ("required-params-first", 1),
            ],
            ..entry("corpus-sleeper-mcp", "sleeper-mcp/openrpc.json")
        },
        entry(
            "corpus-miningos-thing",
            "miningos-tpl-wrk-thing/docs/openrpc.json",
        ),
        entry("corpus-absmach-agent", "absmach-agent/api/openrpc.json"),
        Entry {
            // -32601 with a message of its own.
            warnings: &[("contract-error-reserved-code", 1)],
            ..entry("corpus-tapper", "tapper/docs/openrpc.json")
        },
        entry("corpus-ozzie", "ozzie/docs/openrpc.json"),
        Entry {
            // Ten application errors share -32000, in the reserved range.
            warnings: &[
                ("contract-error-duplicate-code", 9),
                ("contract-error-reserved-code", 11),
            ],
            ..entry("corpus-wit", "wit/docs/openrpc.json")
        },
        Entry {
            // Legacy and EIP-1559 fee parameters as open objects under `oneOf`: a value with
            // both kinds of fee matches both (`TransactionParameters`, and `CreatedTransaction`
            // through it).
            warnings: &[("ambiguous-union", 2)],
            ..entry(
                "corpus-ethereum-custodian",
                "ethereum-custodian-api/src/openrpc.json",
            )
        },
    ]
}

/// The generated `Cargo.toml` is a workspace of its own; here it is a member of the corpus's.
fn as_member(cargo_toml: &str) -> String {
    let own = cargo_toml
        .find("\n[profile.dev]")
        .expect("the generated Cargo.toml sets its debug profiles, then its own [workspace]");
    cargo_toml[..own].to_string()
}

/// The profiles a generated Cargo.toml ends with before its `[workspace]`: only a workspace
/// root may set them, so the corpus workspace sets them instead (the same as every generated
/// crate, so that the dependencies built by `generator/tests/cli.rs` are reused).
const PROFILES: &str =
    "[profile.dev]\ndebug = \"line-tables-only\"\n\n[profile.dev.package.\"*\"]\ndebug = false\n";

#[test]
#[ignore = "slow (builds generated crates): .ci/run runs it by name with --ignored"]
fn every_corpus_document_generates_a_crate_that_builds_without_warnings() {
    let root = workspace();
    let third_party = root.join("fixtures/third-party");
    let dir = root.join("target/corpus-workspace");
    if dir.exists() {
        fs::remove_dir_all(&dir).unwrap();
    }
    fs::create_dir_all(&dir).unwrap();

    let corpus = corpus();
    let mut members = Vec::new();
    for entry in &corpus {
        let path = third_party.join(&entry.path);
        // Every method a tool, as a user exposing the service would (`--tools '*'`).
        let options = mcp_codegen::Options {
            ref_base: entry.ref_base.map(|base| third_party.join(base)),
            selection: mcp_codegen::openrpc::Selection {
                tools: vec!["*".into()],
                ..Default::default()
            },
            ..mcp_codegen::Options::default()
        };
        let generated = mcp_codegen::generate_with_options(&path, &options)
            .unwrap_or_else(|errors| panic!("{}:\n{errors}", entry.path));
        let mut warnings: BTreeMap<&str, usize> = BTreeMap::new();
        for warning in &generated.warnings.0 {
            *warnings.entry(warning.rule).or_default() += 1;
        }
        let expected: BTreeMap<&str, usize> = entry.warnings.iter().copied().collect();
        assert_eq!(
            warnings, expected,
            "{}: the warnings changed:\n{}",
            entry.path, generated.warnings
        );

        let client = mcp_codegen::generate_with_options(
            &path,
            &mcp_codegen::Options {
                output: mcp_codegen::emit::Output::Client,
                ..options
            },
        )
        .unwrap_or_else(|errors| panic!("{} (--client):\n{errors}", entry.path));
        let file_name = path.file_name().unwrap().to_string_lossy().into_owned();
        for (name, generated) in [
            (entry.name.to_string(), &generated),
            (format!("{}-client", entry.name), &client),
        ] {
            let out = dir.join(&name);
            let options = CrateOptions {
                crate_name: Some(name.clone()),
                runtime: RuntimeDependency::Path(root.join("runtime")),
                contract_path: None,
            };
            write_crate(&out, &crate_files(generated, &file_name, &options)).unwrap();
            let manifest = out.join("Cargo.toml");
            let text = fs::read_to_string(&manifest).unwrap();
            fs::write(&manifest, as_member(&text)).unwrap();
            members.push(format!("{name:?}"));
        }
    }
    fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[workspace]\nresolver = \"2\"\nmembers = [{}]\n\n{PROFILES}",
            members.join(", ")
        ),
    )
    .unwrap();
    fs::copy(root.join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();

    let build = Command::new(env!("CARGO"))
        .args([
            "build",
            "--workspace",
            "--message-format=short",
            "--manifest-path",
        ])
        .arg(dir.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", root.join("target/generated-crates"))
        .env("RUSTFLAGS", "-D warnings")
        .env("CARGO_TERM_COLOR", "never")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&build.stderr);
    assert!(build.status.success(), "{stderr}");
    let warnings: Vec<&str> = stderr
        .lines()
        .filter(|line| line.contains("warning"))
        .collect();
    assert!(
        warnings.is_empty(),
        "the generated crates build with warnings:\n{stderr}"
    );
}
