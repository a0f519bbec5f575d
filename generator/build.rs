//! Tells the generator whether it is built from a checkout of its workspace: then (and only
//! then) `MCP_CODEGEN_CHECKOUT_RUNTIME` holds the checkout's `runtime/` directory, which a
//! generated crate depends on by path by default. A build from the package (`cargo install
//! mcp-codegen`) has no `../runtime` and has the `Cargo.toml.orig` cargo writes when it
//! packages: its generated crates depend on the released `mcp-runtime` of its own version.

use std::path::Path;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let manifest_dir = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let manifest_dir = Path::new(&manifest_dir);
    let packaged = manifest_dir.join("Cargo.toml.orig").exists();
    let runtime = manifest_dir.join("../runtime");
    if !packaged && runtime.join("Cargo.toml").is_file() {
        let runtime = runtime.canonicalize().unwrap_or(runtime);
        println!(
            "cargo:rustc-env=MCP_CODEGEN_CHECKOUT_RUNTIME={}",
            runtime.display()
        );
    }
}
