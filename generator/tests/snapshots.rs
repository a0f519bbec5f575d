//! Snapshot of every file the CLI writes, for every valid fixture. `cli.rs` compiles the same
//! output, so a snapshot that is accepted here is also known to build.

mod common;

use mcp_codegen::scaffold::{crate_files, CrateOptions, RuntimeDependency};

#[test]
fn every_generated_file_of_every_fixture() {
    let options = CrateOptions {
        crate_name: None,
        runtime: RuntimeDependency::Version("0.1.0".into()),
    };
    for (name, path) in common::valid_fixtures() {
        let generated =
            mcp_codegen::generate(&path).unwrap_or_else(|d| panic!("{name} is valid:\n{d}"));
        let source_name = path.file_name().unwrap().to_string_lossy().into_owned();
        for file in crate_files(&generated, &source_name, &options) {
            let file_name = file.path.to_string_lossy().replace('/', "__");
            insta::with_settings!({ snapshot_path => "snapshots/generated", prepend_module_to_snapshot => false, omit_expression => true }, {
                insta::assert_snapshot!(format!("{name}__{file_name}"), file.contents);
            });
        }
    }
}

#[test]
fn generation_is_deterministic() {
    for (name, path) in common::valid_fixtures() {
        let first = mcp_codegen::generate(&path).unwrap().server.source;
        let second = mcp_codegen::generate(&path).unwrap().server.source;
        assert!(first == second, "{name}: two runs differ");
    }
}
