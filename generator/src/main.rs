//! The `mcp-codegen` command line: OpenRPC document in, MCP server crate out.

#![forbid(unsafe_code)]

use clap::Parser;
use std::path::PathBuf;
use std::process::ExitCode;

use mcp_codegen::scaffold::{self, CrateOptions, RuntimeDependency};

mod init;

/// Generate a typed Rust MCP server crate from an OpenRPC document.
///
/// Mark the methods to expose with `"x-mcp": "tool"` (or prompt, resource, resource-template),
/// generate, implement the `Handler` trait in src/handler.rs, build.
#[derive(Debug, Parser)]
#[command(
    name = "mcp-codegen",
    version,
    subcommand_negates_reqs = true,
    args_conflicts_with_subcommands = true,
    after_help = "\
Examples:
  No document yet? Start from one with a tool, a prompt and a resource (writes
  my-server/openrpc.json, explained by its `description` fields), then generate beside it:
      mcp-codegen init my-server
      mcp-codegen my-server/openrpc.json -o my-server

  Generate a new server crate (creates server/Cargo.toml, src/main.rs, src/handler.rs, README.md,
  and the generated code: src/generated.rs and the files of src/generated/, one per type and
  per method):
      mcp-codegen openrpc.json -o server/

  Regenerate after editing the contract (rewrites only the generated code, writing only the
  files that changed and removing those no longer generated; your files are kept):
      mcp-codegen openrpc.json -o server/

  Generate a typed client crate instead (src/lib.rs, src/generated.rs with the contract's types
  and a `client::Client` with one async method per tool, prompt, resource and template):
      mcp-codegen openrpc.json --client -o client/

  Test the handler against the contract's examples (then `cargo test` in server/):
      mcp-codegen openrpc.json -o server/ --example-tests

  In CI, fail when the generated code is stale:
      mcp-codegen openrpc.json -o server/ --check

  Depend on a published runtime instead of this checkout's:
      mcp-codegen openrpc.json -o server/ --runtime-version 0.1

  Expose a vendor document's methods without editing it (a document without `x-mcp` exposes
  nothing): every `eth_get*` method and `eth_call` as tools, but not `eth_getProof`:
      mcp-codegen openrpc.json -o server/ --tools 'eth_get*,eth_call' --exclude eth_getProof

  The same with an overlay file that names, hides or annotates methods, and names the server
  (its format: docs/gateway.md):
      mcp-codegen openrpc.json -o server/ --tools '*' --overlay overlay.json

  Expose a running JSON-RPC service (an Ethereum node) as an MCP server, no code to write:
      mcp-codegen eth.json --tools 'eth_*' --upstream http://127.0.0.1:8545 -o eth-mcp/

  Write the server card (from info[\"x-mcp\"].card) for a registry, with the URL it is served at:
      mcp-codegen openrpc.json --server-card card.json --server-card-url https://mcp.example.com/mcp

Exit codes: 0 success; 1 --check found stale files; 2 the document is invalid (every error is
printed, with file:line:column and JSON pointer, and nothing is written); 3 I/O failure."
)]
struct Cli {
    /// Write a starting document instead of generating (see `mcp-codegen init --help`).
    #[command(subcommand)]
    command: Option<Command>,

    /// The OpenRPC document (JSON, openrpc 1.0.0-rc0 through 1.4.N). A document named `init`
    /// is given as `./init` (a bare `init` is the subcommand).
    #[arg(required = true)]
    openrpc: Option<PathBuf>,

    /// The crate directory to write (created when missing).
    #[arg(
        short,
        long,
        value_name = "DIR",
        required_unless_present = "server_card"
    )]
    output: Option<PathBuf>,

    /// Also write the server card (SEP-2127) to FILE: the contract's `info["x-mcp"].card`
    /// with the server's identity. Without --output, only the card is written.
    #[arg(long, value_name = "FILE")]
    server_card: Option<PathBuf>,

    /// The public URL of the MCP endpoint, listed in the card as its streamable-http remote with
    /// the protocol revisions the runtime speaks.
    #[arg(long, value_name = "URL", requires = "server_card")]
    server_card_url: Option<String>,

    /// Write nothing; exit 1 and list the generated files that differ from what is on disk,
    /// are missing, or are left over from an earlier run.
    #[arg(long)]
    check: bool,

    /// Write the generated code as one file (src/generated.rs; generated/src/lib.rs with
    /// --generated-crate) rather than that root and a file per type and per method beside it
    /// (removed if there): the generated code then compiles all again after any change to the
    /// contract.
    #[arg(long)]
    one_file: bool,

    /// Write the generated code as a crate of its own, DIR/generated/ (its Cargo.toml,
    /// src/lib.rs and a file per type and per method), which the crate depends on by path and
    /// src/main.rs names with `use NAME_generated as generated;`: an edit of src/handler.rs
    /// then compiles only the crate's own code again (under a second for a 240-method
    /// contract, rather than several), while a change to the contract compiles the crate's
    /// dispatch again too (slower than without). A new crate gets it without the flag when the
    /// contract has 64 methods or more. A crate generated with it keeps it when regenerated.
    /// Not with --example-tests or --client.
    #[arg(long, conflicts_with_all = ["example_tests", "client", "no_generated_crate"])]
    generated_crate: bool,

    /// Keep the generated code in the crate's src/ (src/generated.rs and src/generated/) even
    /// for a contract of 64 methods or more, which a new crate otherwise gets as a crate of
    /// its own (--generated-crate).
    #[arg(long)]
    no_generated_crate: bool,

    /// Package name of a new crate [default: the document's info.title in kebab case].
    #[arg(long, value_name = "NAME")]
    name: Option<String>,

    /// Depend on mcp-runtime at this path [default: an mcp-codegen built from a checkout uses
    /// that checkout's runtime; an installed one (`cargo install mcp-codegen`) depends on the
    /// released mcp-runtime of its own version].
    #[arg(long, value_name = "PATH", conflicts_with = "runtime_version")]
    runtime_path: Option<PathBuf>,

    /// Depend on this version of mcp-runtime from crates.io (a version requirement: `0.1`,
    /// `=0.1.0`).
    #[arg(long, value_name = "VERSION")]
    runtime_version: Option<String>,

    /// Bundle the skills in DIR (one folder per skill, each with a SKILL.md) [default: the
    /// `skills` directory beside the document, when there is one].
    #[arg(long, value_name = "DIR", conflicts_with = "no_skills")]
    skills: Option<PathBuf>,

    /// Bundle no skills, even with a `skills` directory beside the document.
    #[arg(long)]
    no_skills: bool,

    /// Read a `$ref`'s file relative to DIR when it is not beside the referring file (documents
    /// whose references are written from their repository's root); files may then be read
    /// anywhere inside DIR. Each such read is a `ref-base` warning.
    #[arg(long, value_name = "DIR")]
    ref_base: Option<PathBuf>,

    /// Expose the methods whose names match PATTERNS as MCP tools, as if each had
    /// `"x-mcp": "tool"`: comma-separated globs where `*` is any run of characters (dots
    /// included) and `?` one character (`eth_get*,eth_call,Filecoin.Chain*`; `'*'` for every
    /// method; quote them from the shell). A method's own `x-mcp`, and the overlay's entry for
    /// it, still win; notifications (methods without `result`) are left out. A pattern that
    /// matches no method is a warning. May be repeated.
    #[arg(long, value_name = "PATTERNS", value_delimiter = ',')]
    tools: Vec<String>,

    /// Leave out of --tools the methods whose names match PATTERNS (comma-separated globs, as
    /// --tools): it takes back only what --tools chose, never a method's own `x-mcp` or the
    /// overlay's. May be repeated.
    #[arg(
        long,
        value_name = "PATTERNS",
        value_delimiter = ',',
        requires = "tools"
    )]
    exclude: Vec<String>,

    /// Patch the document's MCP side without editing it: FILE is JSON,
    /// `{"methods": {"NAME or GLOB": X-MCP | null}, "info": {"x-mcp": {...}}}`. Each entry gives
    /// the matching methods that `x-mcp` value (`"tool"`, `{"kind": "tool", "annotations":
    /// ...}`, ...) or, `null`, keeps them off MCP, ahead of the document's own `x-mcp` and of
    /// --tools; an exact name beats a glob, and among globs the last one wins. `info["x-mcp"]`
    /// replaces the document's keys one by one (`null` removes one). Problems are reported at
    /// the overlay's own lines. See docs/gateway.md.
    #[arg(long, value_name = "FILE")]
    overlay: Option<PathBuf>,

    /// Generate a gateway to the JSON-RPC service at URL (http:// or https://, ws:// or wss://,
    /// unix:/path for a Unix socket): every method's
    /// handler forwards to it by default (params encoded as its `paramStructure` says, the
    /// result passed through, the service's errors as `isError` results), so the server works
    /// with no code written; implement any method in src/handler.rs to serve it by hand. URL is
    /// the binary's default: `--upstream` / `MCP_UPSTREAM_URL` override it at run time. Choose
    /// the tools with --tools or --overlay. See docs/gateway.md.
    #[arg(long, value_name = "URL", conflicts_with_all = ["client", "gateway"])]
    upstream: Option<String>,

    /// --upstream without a URL: the binary's default upstream is the document's
    /// `servers[0].url` (or none: the binary then needs `--upstream` at run time).
    #[arg(long, conflicts_with = "client")]
    gateway: bool,

    /// With --upstream or --gateway: check each forwarded result against the method's `result`
    /// schema (one that does not match is an `isError` result naming the JSON pointer of the
    /// value at fault) and publish the tools' `outputSchema`. Without it results are passed
    /// through as the service sent them. See docs/gateway.md.
    #[arg(long)]
    check_results: bool,

    /// Read a `oneOf` as JSON Schema's letter: a value more than one of its variants accepts
    /// is refused. Without it, a `oneOf` whose variants nothing in the schema tells apart
    /// (no discriminator, no distinct types or required members) takes the first variant that
    /// accepts the value, as the document means: vendor documents write `oneOf` for "any of"
    /// (an empty array is both a list of hashes and a list of logs). The `ambiguous-union`
    /// warning names each such union. See docs/validation.md.
    #[arg(long)]
    strict_unions: bool,

    /// Publish tool and argument names as the document writes them. Without it, a tool named
    /// after its method, or a tool argument, whose name the major model APIs refuse (they take
    /// tool names of [A-Za-z0-9_-], at most 64 with the host's prefix, and argument names of
    /// [A-Za-z0-9_.-]) is published under a portable one: `Filecoin.ChainHead` as
    /// `Filecoin_ChainHead` (titled `Filecoin.ChainHead`), `Hydrated transactions` as
    /// `Hydrated_transactions` (still sent to the upstream, and taken on the plain JSON-RPC
    /// endpoint, as written). See docs/gateway.md.
    #[arg(long)]
    keep_names: bool,

    /// Give every tool a result budget of BYTES (`65536`, `64KiB`, `1MiB`): a tool result
    /// larger than this is kept and answered with a preview and a resource_link to read it in
    /// pages (`mcp-result://{id}/{page}`), and the tool publishes no outputSchema (a preview has
    /// not the result's shape). A method's `x-mcp` `resultBudget` (or the overlay's) wins over
    /// it. 0: every result whole [default: 64 KiB for a gateway's forwarded tools that publish
    /// no outputSchema (without --check-results), none otherwise].
    #[arg(long, value_name = "BYTES", value_parser = parse_bytes)]
    result_budget: Option<u32>,

    /// Also generate a test per OpenRPC example pairing (`examples` of each method), appended
    /// to src/generated.rs as `#[cfg(test)] mod contract_examples`: `cargo test` builds
    /// HANDLER with `Default`, calls it with the example's params and fails when its result is
    /// not the example's. HANDLER is a type path from the crate root, given with `=`
    /// (`--example-tests=crate::state::Notes`) [default: crate::handler::App, the scaffold's].
    /// An example that does not fit its method is an `example-mismatch` warning and no test.
    #[arg(
        long,
        value_name = "HANDLER",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = mcp_codegen::emit::examples::DEFAULT_HANDLER
    )]
    example_tests: Option<String>,

    /// Generate a typed client library instead of a server: `types` and `client::Client`, one
    /// async method per tool, prompt, resource and resource template of the contract, typed
    /// params in (checked against the schema before sending), typed result out. The crate
    /// depends on mcp-runtime with its `client` feature. (From `build.rs`: `Builder::client`
    /// generates the client beside the server, sharing its types; `Builder::client_only` this.)
    #[arg(long, conflicts_with_all = ["example_tests", "server_card"])]
    client: bool,

    /// Print nothing but errors.
    #[arg(short, long)]
    quiet: bool,

    /// Print every warning. Without it, a rule with more than two warnings prints its first
    /// and a count of the rest, and a gateway's warnings about methods it does not serve
    /// (left off MCP by --tools/--exclude/--overlay) are one line.
    #[arg(short, long, conflicts_with = "quiet")]
    verbose: bool,
}

/// The subcommands beside generation.
#[derive(Debug, clap::Subcommand)]
enum Command {
    /// Write a starting document, DIR/openrpc.json: one tool, one prompt, one resource.
    ///
    /// A small, valid OpenRPC document to start from, each method explained by its
    /// `description` (OpenRPC has no comments). Never overwrites: an existing DIR/openrpc.json
    /// is an error (exit 2).
    #[command(after_help = "\
Example:
      mcp-codegen init my-server
      mcp-codegen my-server/openrpc.json -o my-server
      cd my-server && cargo run -- --stdio")]
    Init {
        /// The directory to write openrpc.json in (created when missing).
        #[arg(default_value = ".")]
        dir: PathBuf,

        /// Print nothing but errors.
        #[arg(short, long)]
        quiet: bool,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Some(Command::Init { dir, quiet }) = &cli.command {
        return init::run(dir, *quiet);
    }
    match generate(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(code) => code,
    }
}

/// Generation: the flags checked, the document read into code, the server card and the crate
/// written (or checked, `--check`). `Err` is the exit code, its message printed.
fn generate(cli: Cli) -> Result<(), ExitCode> {
    let openrpc = cli
        .openrpc
        .clone()
        .expect("clap requires <OPENRPC> without a subcommand");
    check_flags(&cli)?;
    // A generated crate of its own gets its dispatch written for it, so the layout is decided
    // before emitting; a new crate's default depends on the contract's size, known once it is
    // read: a contract that turns out large is generated again, for its own crate.
    let layout_of = |methods| {
        cli.output.as_deref().map(|dir| {
            let in_crate_only = cli.example_tests.is_some() || cli.client;
            scaffold::CrateLayout::for_server(dir, wanted_layout(&cli), in_crate_only, methods)
        })
    };
    let failed = |diagnostics: mcp_codegen::Diagnostics| {
        eprintln!("{diagnostics}");
        eprintln!("nothing was written: fix the errors above and run again");
        ExitCode::from(2)
    };
    let mut layout = layout_of(0);
    let mut generated =
        mcp_codegen::generate_with_options(&openrpc, &options(&cli, layout)).map_err(failed)?;
    let sized = layout_of(generated.document.methods.len());
    if sized.map(|(layout, _)| layout) != layout.map(|(layout, _)| layout) {
        layout = sized;
        generated =
            mcp_codegen::generate_with_options(&openrpc, &options(&cli, layout)).map_err(failed)?;
    }
    let layout = layout.map(|(layout, reason)| {
        let note = (reason != scaffold::LayoutReason::Kept).then(|| layout_note(layout, reason));
        (layout, note.flatten())
    });
    if !cli.quiet {
        eprint!("{}", generated.warning_report(cli.verbose));
    }
    if let Some(file) = &cli.server_card {
        write_server_card(
            &generated.document,
            file,
            cli.server_card_url.as_deref(),
            cli.quiet,
        )?;
    }
    let (Some(output), Some((layout, note))) = (cli.output.clone(), layout) else {
        return Ok(());
    };
    let files = crate_files(&cli, &generated, &openrpc, &output, layout);
    if cli.check {
        return check(&files, &openrpc, &output, cli.quiet);
    }
    write(&files, &generated, &output, note.as_deref(), cli.quiet)
}

/// The flags clap cannot check alone: the package name, the upstream URL, `--ref-base`.
fn check_flags(cli: &Cli) -> Result<(), ExitCode> {
    if let Some(name) = cli
        .name
        .as_deref()
        .filter(|n| !scaffold::valid_package_name(n))
    {
        eprintln!(
            "error: --name {name:?} is not a package name: use ASCII letters, digits, `-` and `_`, start with a letter, at most {} characters, not a Rust keyword",
            scaffold::MAX_PACKAGE_NAME
        );
        return Err(ExitCode::from(2));
    }
    if let Some(url) = cli.upstream.as_deref().filter(|url| !is_upstream_url(url)) {
        eprintln!("error: --upstream {url:?} must be an http://, https://, ws:// or wss:// URL or a unix:/path, without spaces");
        return Err(ExitCode::from(2));
    }
    if let Some(dir) = cli.ref_base.as_deref().filter(|d| !d.is_dir()) {
        eprintln!(
            "error: --ref-base {:?} is not a directory",
            dir.display().to_string()
        );
        return Err(ExitCode::from(2));
    }
    Ok(())
}

/// What the flags ask of the crate's layout.
fn wanted_layout(cli: &Cli) -> scaffold::LayoutWanted {
    match (cli.generated_crate, cli.no_generated_crate) {
        (true, _) => scaffold::LayoutWanted::OwnCrate,
        (false, true) => scaffold::LayoutWanted::InCrate,
        (false, false) => scaffold::LayoutWanted::BySize,
    }
}

/// What the summary line adds when a new crate's layout was chosen by the contract's size and
/// differs from the small contracts' (`None` otherwise).
fn layout_note(layout: scaffold::CrateLayout, reason: scaffold::LayoutReason) -> Option<String> {
    match (layout, reason) {
        (scaffold::CrateLayout::OwnCrate, scaffold::LayoutReason::Size(methods)) => Some(format!(
            "; the generated code is a crate of its own, generated/ ({methods} methods, {} or more: an edit of src/handler.rs rebuilds only your crate; --no-generated-crate keeps it in src/)",
            scaffold::OWN_CRATE_FROM
        )),
        _ => None,
    }
}

/// The generation's [`mcp_codegen::Options`] the flags give, for a crate of `layout`.
fn options(
    cli: &Cli,
    layout: Option<(scaffold::CrateLayout, scaffold::LayoutReason)>,
) -> mcp_codegen::Options {
    let skills = match (&cli.skills, cli.no_skills) {
        (Some(dir), _) => mcp_codegen::SkillsSource::Dir(dir.clone()),
        (None, true) => mcp_codegen::SkillsSource::Off,
        (None, false) => mcp_codegen::SkillsSource::Beside,
    };
    mcp_codegen::Options {
        skills,
        ref_base: cli.ref_base.clone(),
        example_tests: cli.example_tests.clone(),
        output: if cli.client {
            mcp_codegen::emit::Output::Client
        } else {
            mcp_codegen::emit::Output::Server
        },
        layout: scaffold::layout(cli.one_file),
        selection: mcp_codegen::Selection {
            tools: patterns(&cli.tools),
            exclude: patterns(&cli.exclude),
            overlay: cli.overlay.clone(),
        },
        gateway: (cli.gateway || cli.upstream.is_some()).then(|| mcp_codegen::Upstream {
            url: cli.upstream.clone(),
        }),
        check_results: cli.check_results,
        strict_unions: cli.strict_unions,
        keep_names: cli.keep_names,
        result_budget: cli.result_budget,
        own_crate: layout.is_some_and(|(layout, _)| layout == scaffold::CrateLayout::OwnCrate),
    }
}

/// The files of the crate at `output`: the generated code and the scaffold.
fn crate_files(
    cli: &Cli,
    generated: &mcp_codegen::Generated,
    openrpc: &std::path::Path,
    output: &std::path::Path,
    layout: scaffold::CrateLayout,
) -> Vec<scaffold::OutputFile> {
    let runtime = match (&cli.runtime_path, &cli.runtime_version) {
        (Some(path), _) => RuntimeDependency::Path(path.clone()),
        (None, Some(version)) => RuntimeDependency::Version(version.clone()),
        // A generator built from a checkout: that checkout's runtime; installed from its
        // package: the released runtime of its own version (the comment in Cargo.toml says which).
        (None, None) => RuntimeDependency::default_for_this_build(),
    };
    let source_name = openrpc.file_name().map_or_else(
        || openrpc.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    scaffold::crate_files_in(
        generated,
        &source_name,
        &CrateOptions {
            crate_name: cli.name.clone(),
            runtime,
            contract_path: Some(
                scaffold::contract_path_from(output, openrpc)
                    .display()
                    .to_string(),
            ),
        },
        layout,
    )
}

/// `--check`: the stale files listed (exit 1), or "up to date".
fn check(
    files: &[scaffold::OutputFile],
    openrpc: &std::path::Path,
    output: &std::path::Path,
    quiet: bool,
) -> Result<(), ExitCode> {
    let stale = scaffold::stale_files(output, files);
    if stale.is_empty() {
        if !quiet {
            eprintln!("up to date: {}", output.display());
        }
        return Ok(());
    }
    for path in &stale {
        println!("{}", output.join(path).display());
    }
    eprintln!(
        "{} generated file(s) are stale: run `mcp-codegen {} -o {}`",
        stale.len(),
        openrpc.display(),
        output.display()
    );
    Err(ExitCode::from(1))
}

/// Writes the crate and says what changed (exit 3 when it cannot).
fn write(
    files: &[scaffold::OutputFile],
    generated: &mcp_codegen::Generated,
    output: &std::path::Path,
    layout_note: Option<&str>,
    quiet: bool,
) -> Result<(), ExitCode> {
    let report = scaffold::write_crate(output, files).map_err(|error| {
        eprintln!("error: writing {}: {error}", output.display());
        ExitCode::from(3)
    })?;
    if quiet {
        return Ok(());
    }
    for path in &report.written {
        eprintln!("wrote     {}", output.join(path).display());
    }
    match report.unchanged.as_slice() {
        [] => {}
        [path] => eprintln!("unchanged {}", output.join(path).display()),
        paths => eprintln!("unchanged {} generated files", paths.len()),
    }
    for path in &report.kept {
        eprintln!("kept      {} (yours)", output.join(path).display());
    }
    for path in &report.removed {
        eprintln!(
            "removed   {} (no longer generated)",
            output.join(path).display()
        );
    }
    eprintln!("{}{}", generated.summary(), layout_note.unwrap_or(""));
    Ok(())
}

/// The patterns of a repeated, comma-separated flag, each trimmed (`'eth_get*, eth_call'`),
/// the empty ones (a trailing comma) dropped.
fn patterns(values: &[String]) -> Vec<String> {
    values
        .iter()
        .map(|p| p.trim())
        .filter(|p| !p.is_empty())
        .map(str::to_string)
        .collect()
}

/// A size in bytes: a whole number, optionally followed by `B`, `KiB` or `MiB` (`65536`,
/// `64KiB`, `1MiB`), at most `u32::MAX` bytes. The error says what is wrong; clap names the flag.
fn parse_bytes(text: &str) -> Result<u32, String> {
    let text = text.trim();
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    let (number, unit) = (&text[..digits], text[digits..].trim_start());
    if number.is_empty() {
        return Err("not a size: expected bytes, e.g. 65536, 64KiB or 1MiB".into());
    }
    let per: u64 = match unit {
        "" | "B" => 1,
        "KiB" => 1 << 10,
        "MiB" => 1 << 20,
        "K" | "k" | "KB" | "kB" | "M" | "MB" => {
            return Err(format!(
                "unknown unit `{unit}`: use KiB or MiB (powers of 1024), e.g. 64KiB"
            ))
        }
        other => {
            return Err(format!(
                "unknown unit `{other}`: use B, KiB or MiB, e.g. 64KiB"
            ))
        }
    };
    number
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(per))
        .and_then(|bytes| u32::try_from(bytes).ok())
        .ok_or_else(|| format!("too large: at most {} bytes (4 GiB less one)", u32::MAX))
}

/// Whether `url` is an `http://`, `https://`, `ws://` or `wss://` URL with a host, or a
/// `unix:` path, with no spaces (the runtime's `--upstream` checks it further).
fn is_upstream_url(url: &str) -> bool {
    if url.contains(char::is_whitespace) {
        return false;
    }
    if let Some(path) = url.strip_prefix("unix:") {
        return !path.trim_start_matches("//").is_empty();
    }
    let rest = ["http://", "https://", "ws://", "wss://"]
        .iter()
        .find_map(|scheme| url.strip_prefix(scheme));
    rest.is_some_and(|rest| !rest.is_empty() && !rest.starts_with('/'))
}

/// Writes the server card of `document` to `file`, with a streamable-http remote at `url`.
fn write_server_card(
    document: &mcp_codegen::openrpc::Document,
    file: &std::path::Path,
    url: Option<&str>,
    quiet: bool,
) -> Result<(), ExitCode> {
    use mcp_codegen::server_card;
    let Some(mut card) = server_card::card(document) else {
        eprintln!("error: --server-card: the document has no server card: add `info[\"x-mcp\"].card` with at least a reverse-DNS `name` (e.g. {{\"name\": \"com.example/notes\"}})");
        return Err(ExitCode::from(2));
    };
    if let Some(url) = url {
        if !(url.starts_with("https://") || url.starts_with("http://"))
            || url.contains(char::is_whitespace)
        {
            eprintln!("error: --server-card-url {url:?} must be an http:// or https:// URL without spaces");
            return Err(ExitCode::from(2));
        }
        card = server_card::with_remote(card, url, &server_card::REVISIONS);
    }
    let mut text = serde_json::to_string_pretty(&card).expect("a JSON value always serializes");
    text.push('\n');
    if let Err(error) = std::fs::write(file, text) {
        eprintln!("error: --server-card: writing {}: {error}", file.display());
        return Err(ExitCode::from(3));
    }
    if !quiet {
        eprintln!("wrote     {} (server card)", file.display());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::parse_bytes;

    #[test]
    fn sizes_in_bytes_and_binary_units() {
        assert_eq!(parse_bytes("65536"), Ok(65536));
        assert_eq!(parse_bytes("0"), Ok(0));
        assert_eq!(parse_bytes("64KiB"), Ok(65536));
        assert_eq!(parse_bytes("64 KiB"), Ok(65536));
        assert_eq!(parse_bytes("1MiB"), Ok(1 << 20));
        assert_eq!(parse_bytes("100B"), Ok(100));
        assert!(parse_bytes("64KB").unwrap_err().contains("powers of 1024"));
        assert!(parse_bytes("64GiB")
            .unwrap_err()
            .contains("unknown unit `GiB`"));
        assert!(parse_bytes("KiB").unwrap_err().contains("not a size"));
        assert!(parse_bytes("-1").unwrap_err().contains("not a size"));
        assert!(parse_bytes("4096MiB").unwrap_err().contains("too large"));
    }
}
