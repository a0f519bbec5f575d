//! `mcp-codegen init [DIR]`: a starting contract for a user without one.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The file `init` writes, in DIR.
pub const FILE_NAME: &str = "openrpc.json";

/// The starting contract: one tool, one prompt and one resource, each explained by its
/// `description` (OpenRPC has no comments). A test generates a crate from it and builds it.
const STARTER: &str = include_str!("../templates/init/openrpc.json");

/// Writes [`STARTER`] to `dir/openrpc.json` (creating `dir`), never over an existing file;
/// prints what to do next unless `quiet`. Exit code 2 when the file exists, 3 on an I/O error.
pub fn run(dir: &Path, quiet: bool) -> ExitCode {
    let path = dir.join(FILE_NAME);
    match write_new(dir, &path) {
        Ok(()) => {}
        Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {
            eprintln!(
                "error: init: {} already exists; init never overwrites a file: remove it, or give another directory (`mcp-codegen init DIR`)",
                path.display()
            );
            return ExitCode::from(2);
        }
        Err(error) => {
            eprintln!("error: init: writing {}: {error}", path.display());
            return ExitCode::from(3);
        }
    }
    if !quiet {
        let crate_dir = dir.display().to_string();
        eprintln!(
            "wrote     {} (one tool, one prompt, one resource)",
            path.display()
        );
        eprintln!("next: generate the server crate beside it, implement src/handler.rs, run it:");
        eprintln!("    mcp-codegen {} -o {crate_dir}", path.display());
        eprintln!("    cd {crate_dir} && cargo run -- --stdio");
    }
    ExitCode::SUCCESS
}

/// Creates `dir` and then `path` inside it, failing with `AlreadyExists` rather than
/// truncating a file that is there (checked and created in one step: no race).
fn write_new(dir: &Path, path: &PathBuf) -> io::Result<()> {
    fs::create_dir_all(dir)?;
    let mut file = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)?;
    file.write_all(STARTER.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The starter is JSON with one method of each kind it promises.
    #[test]
    fn the_starter_has_a_tool_a_prompt_and_a_resource() {
        let document: serde_json::Value = serde_json::from_str(STARTER).unwrap();
        let kinds: Vec<&str> = document["methods"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["x-mcp"]["kind"].as_str().unwrap())
            .collect();
        assert_eq!(kinds, ["tool", "prompt", "resource"]);
    }
}
