//! Shared bits of the benchmark binaries: flag parsing and the fixed request bodies.

use std::net::SocketAddr;

/// The text every load request echoes.
pub const ECHO_TEXT: &str = "hello";

/// `--addr HOST:PORT` (default 127.0.0.1:8080) from the command line, plus the other args.
pub fn addr_and_rest() -> (SocketAddr, Vec<String>) {
    let mut addr: SocketAddr = "127.0.0.1:8080".parse().unwrap();
    let mut rest = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--addr" {
            addr = args
                .next()
                .expect("--addr needs HOST:PORT")
                .parse()
                .expect("--addr HOST:PORT");
        } else if let Some(value) = arg.strip_prefix("--addr=") {
            addr = value.parse().expect("--addr=HOST:PORT");
        } else {
            rest.push(arg);
        }
    }
    (addr, rest)
}
