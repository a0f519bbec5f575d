//! Snapshot of every file the CLI writes, for every valid fixture. `cli.rs` compiles the same
//! output, so a snapshot that is accepted here is also known to build.
//!
//! The generated code is one snapshot per fixture, as the CLI writes it (split: the root
//! `src/generated.rs`, then each file of `src/generated/` in the order the root includes it,
//! each under a line naming it), so that a change to the generator shows as one diff.

mod common;

use mcp_codegen::scaffold::{self, crate_files, CrateOptions, Owner, RuntimeDependency};

#[test]
fn every_generated_file_of_every_fixture() {
    let options = CrateOptions {
        crate_name: None,
        runtime: RuntimeDependency::Version("0.1.0".into()),
        contract_path: None,
    };
    let generate = mcp_codegen::Options {
        layout: scaffold::layout(false),
        ..mcp_codegen::Options::default()
    };
    for (name, path) in common::valid_fixtures() {
        let generated = mcp_codegen::generate_with_options(&path, &generate)
            .unwrap_or_else(|d| panic!("{name} is valid:\n{d}"));
        let source_name = path.file_name().unwrap().to_string_lossy().into_owned();
        let files = crate_files(&generated, &source_name, &options);
        let (code, others): (Vec<_>, Vec<_>) =
            files.iter().partition(|f| f.owner == Owner::Generator);
        let mut generated_code = String::new();
        for file in &code {
            if file.path != std::path::Path::new(scaffold::GENERATED_ROOT) {
                generated_code.push_str(&format!("\n//// {}\n", file.path.display()));
            }
            generated_code.push_str(&file.contents);
        }
        let snapshots = std::iter::once(("src/generated.rs".to_string(), generated_code)).chain(
            others
                .iter()
                .map(|f| (f.path.to_string_lossy().into_owned(), f.contents.clone())),
        );
        for (path, contents) in snapshots {
            let file_name = path.replace('/', "__");
            insta::with_settings!({ snapshot_path => "snapshots/generated", prepend_module_to_snapshot => false, omit_expression => true }, {
                insta::assert_snapshot!(format!("{name}__{file_name}"), contents);
            });
        }
    }
}

/// A gateway's crate (`--tools '*' --upstream URL`): the Handler trait's forwarding bodies,
/// `UPSTREAM_URL`, the descriptors without `outputSchema`, and the scaffold's `main.rs`,
/// `handler.rs` and `Cargo.toml` (feature `upstream`). `tests/gateway/run.sh` builds and runs
/// the same output against real upstreams.
#[test]
fn a_gateway_crate() {
    let options = CrateOptions {
        crate_name: None,
        runtime: RuntimeDependency::Version("0.1.0".into()),
        contract_path: None,
    };
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(
        "../fixtures/third-party/open-rpc-examples/service-descriptions/petstore-openrpc.json",
    );
    let generate = mcp_codegen::Options {
        layout: scaffold::layout(true),
        selection: mcp_codegen::Selection {
            tools: vec!["*".into()],
            ..Default::default()
        },
        gateway: Some(mcp_codegen::Upstream {
            url: Some("http://127.0.0.1:8545".into()),
        }),
        ..mcp_codegen::Options::default()
    };
    let generated = mcp_codegen::generate_with_options(&path, &generate).unwrap();
    for file in crate_files(&generated, "petstore-openrpc.json", &options) {
        let name = file.path.to_string_lossy().replace('/', "__");
        insta::with_settings!({ snapshot_path => "snapshots/generated", prepend_module_to_snapshot => false, omit_expression => true }, {
            insta::assert_snapshot!(format!("gateway-petstore__{name}"), file.contents);
        });
    }
}

#[test]
fn generation_is_deterministic() {
    for layout in [scaffold::layout(true), scaffold::layout(false)] {
        let options = mcp_codegen::Options {
            layout,
            ..mcp_codegen::Options::default()
        };
        for (name, path) in common::valid_fixtures() {
            let first = mcp_codegen::generate_with_options(&path, &options).unwrap();
            let second = mcp_codegen::generate_with_options(&path, &options).unwrap();
            assert!(
                first.server.source == second.server.source
                    && first.server.pieces == second.server.pieces,
                "{name}: two runs differ"
            );
        }
    }
}
