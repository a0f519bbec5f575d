//! Fixture lists shared by the integration tests.

use std::path::{Path, PathBuf};

/// The workspace root.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("generator/ has a parent")
        .to_path_buf()
}

/// Every valid OpenRPC fixture, as (stable short name, path): ours, the quickstart contract,
/// and the third-party documents.
pub fn valid_fixtures() -> Vec<(String, PathBuf)> {
    let root = workspace();
    let mut fixtures = vec![
        (
            "quickstart".to_string(),
            root.join("examples/quickstart/openrpc.json"),
        ),
        (
            "mcp-features".to_string(),
            root.join("fixtures/openrpc/mcp-features.openrpc.json"),
        ),
        (
            "schema-features".to_string(),
            root.join("fixtures/openrpc/schema-features.openrpc.json"),
        ),
        (
            "validation".to_string(),
            root.join("fixtures/openrpc/validation.openrpc.json"),
        ),
        (
            "schema-shapes".to_string(),
            root.join("fixtures/openrpc/schema-shapes.openrpc.json"),
        ),
        (
            "errors".to_string(),
            root.join("fixtures/openrpc/errors.openrpc.json"),
        ),
        (
            "unions".to_string(),
            root.join("fixtures/openrpc/unions.openrpc.json"),
        ),
        (
            "refs".to_string(),
            root.join("fixtures/openrpc/refs/main.json"),
        ),
        (
            "lotus-gateway".to_string(),
            root.join("fixtures/third-party/lotus/build/openrpc/v2/gateway.json"),
        ),
    ];
    let examples = root.join("fixtures/third-party/open-rpc-examples/service-descriptions");
    let mut entries: Vec<PathBuf> = std::fs::read_dir(&examples)
        .expect("the open-rpc examples are vendored")
        .map(|e| e.expect("readable directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        let stem = path
            .file_name()
            .unwrap()
            .to_string_lossy()
            .trim_end_matches("-openrpc.json")
            .to_string();
        fixtures.push((format!("open-rpc-{stem}"), path));
    }
    fixtures
}
