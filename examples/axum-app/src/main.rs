//! Serves the application on `--addr HOST:PORT` (default 127.0.0.1:8080) until SIGTERM or
//! Ctrl-C: `GET /health`, and MCP at `/mcp`.

use std::process::ExitCode;

#[tokio::main]
async fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let addr = match (args.next().as_deref(), args.next()) {
        (None, _) => "127.0.0.1:8080".to_owned(),
        (Some("--addr"), Some(addr)) => addr,
        _ => {
            eprintln!("usage: axum-app [--addr HOST:PORT]");
            return ExitCode::from(2);
        }
    };
    let listener = match tokio::net::TcpListener::bind(&addr).await {
        Ok(listener) => listener,
        Err(error) => {
            eprintln!("axum-app: cannot listen on {addr}: {error}");
            return ExitCode::FAILURE;
        }
    };
    eprintln!("axum-app on http://{addr}: /health, and MCP at /mcp");
    let app = axum_app::app(axum_app::notes_server(mcp_runtime::Config::default()));
    match axum::serve(listener, app)
        .with_graceful_shutdown(mcp_runtime::shutdown::signal())
        .await
    {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("axum-app: {error}");
            ExitCode::FAILURE
        }
    }
}
