//! Workspace-level tests live in `tests/`: they generate a server crate with the library,
//! build it with cargo, run the binary and talk to it.
