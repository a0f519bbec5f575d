//! The `jq` argument of a tool with a result budget: a jq filter the caller passes to keep only
//! what it needs of the result (`{number, hash}`, `.transactions | length`), applied to the
//! success before the budget is.
//!
//! A filter is the model's input, and jq can run forever (`until(false; .)`), allocate without
//! bound (`[range(1e12)]`) or recurse past any stack (`def f: [f]; f`); jaq, the Rust jq used
//! here, has no evaluation budget. So a filter never runs in the server's process: the server
//! starts its own executable again as a worker (`MCP_JQ_WORKER=1`, recognised first thing by
//! every [`crate::entry`] function), which limits itself to [`MEMORY`] bytes of address space
//! and [`CPU_SECONDS`] of CPU before it reads the filter; the server kills it after [`WALL`]
//! and reads at most [`MOST_OUTPUT`] bytes of its answer. Whatever happens there, the call
//! gets a result saying what, and the server goes on.
//!
//! The answer is the filter's output: one value as it is, several as an array of them (none:
//! `[]`). A tool with a budget publishes no `outputSchema`, so a projected result breaks no
//! schema. Only servers started by [`crate::entry`] can start workers: elsewhere (a server
//! embedded in an application's own `main`) a filter is refused with a result saying so.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// The argument a tool with a budget takes its filter in.
pub(crate) const ARGUMENT: &str = "jq";
/// Set in a worker's environment.
#[cfg_attr(not(feature = "jq"), allow(dead_code))]
const WORKER_ENV: &str = "MCP_JQ_WORKER";
/// A worker's address space: the filter's values and the result's, with room.
#[cfg_attr(not(feature = "jq"), allow(dead_code))]
pub(crate) const MEMORY: u64 = 1 << 30;
/// A worker's CPU time.
#[cfg_attr(not(feature = "jq"), allow(dead_code))]
pub(crate) const CPU_SECONDS: u64 = 2;
/// How long the server waits for a worker, whatever it is doing.
#[cfg_attr(not(feature = "jq"), allow(dead_code))]
pub(crate) const WALL: Duration = Duration::from_secs(5);
/// Most bytes of a filter's output (the upstream's own body limit).
#[cfg_attr(not(feature = "jq"), allow(dead_code))]
pub(crate) const MOST_OUTPUT: usize = 16 << 20;
/// Longest filter, in bytes.
pub(crate) const MOST_FILTER: usize = 4096;

/// Whether this process was started by an [`crate::entry`] function, which serves workers: only
/// then can its executable be started again as one.
static SERVES_WORKERS: AtomicBool = AtomicBool::new(false);

/// Called first by every [`crate::entry`] function: in a worker (`MCP_JQ_WORKER` set), applies
/// the filter on standard input and says how to exit; otherwise `None`, and this process may
/// start workers from now on.
pub(crate) fn as_worker() -> Option<std::process::ExitCode> {
    if std::env::var_os(WORKER_ENV).is_none() {
        SERVES_WORKERS.store(true, Ordering::Relaxed);
        return None;
    }
    Some(imp::work())
}

/// Why a filter gave no result.
#[derive(Debug, PartialEq)]
pub(crate) enum Failure {
    /// The filter is not one (its text, its syntax, an unknown name): the caller's arguments.
    Invalid(String),
    /// It ran and failed, or past a limit.
    Failed(String),
}

/// `filter` applied to the JSON `result`, in a worker (see the module documentation).
pub(crate) async fn project(filter: &str, result: &str) -> Result<String, Failure> {
    if filter.len() > MOST_FILTER || filter.contains('\0') {
        return Err(Failure::Invalid(format!(
            "`{ARGUMENT}`: a filter is at most {MOST_FILTER} bytes, without NUL"
        )));
    }
    if !SERVES_WORKERS.load(Ordering::Relaxed) {
        return Err(Failure::Failed(format!(
            "`{ARGUMENT}` filters are not available: this server was not started by \
             mcp_runtime::entry, which runs them in a worker process"
        )));
    }
    imp::run(filter, result).await
}

#[cfg(feature = "jq")]
mod imp {
    use std::io::{Read, Write};
    use std::process::{ExitCode, Stdio};

    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    use super::*;

    /// Exit codes of a worker: the filter is not one, or it failed.
    const INVALID: u8 = 2;
    const FAILED: u8 = 1;

    pub(super) async fn run(filter: &str, result: &str) -> Result<String, Failure> {
        let failed = |why: String| Failure::Failed(why);
        let exe = std::env::current_exe()
            .map_err(|e| failed(format!("no worker can be started: {e}")))?;
        let mut child = tokio::process::Command::new(exe)
            .env(WORKER_ENV, "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| failed(format!("no worker could be started: {e}")))?;
        let (mut stdin, stdout, stderr) = (
            child.stdin.take().expect("piped"),
            child.stdout.take().expect("piped"),
            child.stderr.take().expect("piped"),
        );
        let work = async {
            let write = async {
                // A worker that stops reading (it failed early) is not an error here.
                let _ = stdin.write_all(filter.as_bytes()).await;
                let _ = stdin.write_all(b"\0").await;
                let _ = stdin.write_all(result.as_bytes()).await;
                drop(stdin);
            };
            let mut out = Vec::new();
            let mut err = Vec::new();
            let (mut stdout, mut stderr) = (stdout.take(MOST_OUTPUT as u64 + 1), stderr.take(4096));
            let read_out = stdout.read_to_end(&mut out);
            let read_err = stderr.read_to_end(&mut err);
            let ((), read_out, _) = tokio::join!(write, read_out, read_err);
            read_out.map_err(|e| failed(format!("reading the worker: {e}")))?;
            let status = child
                .wait()
                .await
                .map_err(|e| failed(format!("waiting for the worker: {e}")))?;
            Ok::<_, Failure>((status, out, err))
        };
        let (status, out, err) = match tokio::time::timeout(WALL, work).await {
            Ok(done) => done?,
            Err(_) => {
                return Err(failed(format!(
                    "the filter ran longer than {} s",
                    WALL.as_secs()
                )))
            }
        };
        let said = String::from_utf8_lossy(&err).trim().to_string();
        match status.code() {
            Some(0) if out.len() > MOST_OUTPUT => Err(failed(format!(
                "the filter's output is larger than {} MiB",
                MOST_OUTPUT >> 20
            ))),
            Some(0) => String::from_utf8(out).map_err(|_| failed("the output is not text".into())),
            Some(code) if code == i32::from(INVALID) => Err(Failure::Invalid(said)),
            Some(code) if code == i32::from(FAILED) => Err(failed(said)),
            _ => Err(failed(format!(
                "the filter stopped the worker running it ({}): past {} s of CPU or {} MiB of memory, or a recursion too deep",
                describe(status),
                CPU_SECONDS,
                MEMORY >> 20
            ))),
        }
    }

    /// What ended a worker, for the message.
    fn describe(status: std::process::ExitStatus) -> String {
        #[cfg(unix)]
        {
            use std::os::unix::process::ExitStatusExt;
            if let Some(signal) = status.signal() {
                return format!("signal {signal}");
            }
        }
        status.to_string()
    }

    /// A worker's work: limits first, then the filter and the result from standard input (the
    /// filter, a NUL, the JSON), the output on standard output.
    pub(super) fn work() -> ExitCode {
        use rlimit::Resource;
        let limited = Resource::AS
            .set(MEMORY, MEMORY)
            .and_then(|()| Resource::CPU.set(CPU_SECONDS, CPU_SECONDS + 1));
        if let Err(e) = limited {
            eprintln!("the worker could not limit itself: {e}");
            return ExitCode::from(FAILED);
        }
        let mut input = Vec::new();
        let most = (MOST_FILTER + 1 + MOST_OUTPUT) as u64;
        if let Err(e) = std::io::stdin().take(most).read_to_end(&mut input) {
            eprintln!("reading the filter: {e}");
            return ExitCode::from(FAILED);
        }
        let Some(nul) = input.iter().position(|&b| b == 0) else {
            eprintln!("no filter was given");
            return ExitCode::from(FAILED);
        };
        let filter = String::from_utf8_lossy(&input[..nul]).into_owned();
        match evaluate(&filter, &input[nul + 1..]) {
            Ok(output) => {
                let mut stdout = std::io::stdout().lock();
                match stdout
                    .write_all(output.as_bytes())
                    .and_then(|()| stdout.flush())
                {
                    Ok(()) => ExitCode::SUCCESS,
                    Err(_) => ExitCode::from(FAILED),
                }
            }
            Err(Failure::Invalid(why)) => {
                eprintln!("{why}");
                ExitCode::from(INVALID)
            }
            Err(Failure::Failed(why)) => {
                eprintln!("{why}");
                ExitCode::from(FAILED)
            }
        }
    }

    /// `filter` applied to `json` with jaq and its standard library: the output as JSON text
    /// (one value as it is, several as an array), at most [`MOST_OUTPUT`] bytes.
    pub(crate) fn evaluate(filter: &str, json: &[u8]) -> Result<String, Failure> {
        use jaq_core::load::{Arena, File, Loader};
        use jaq_core::{data, unwrap_valr, Compiler, Ctx, Vars};
        use jaq_json::Val;

        let input = jaq_json::read::parse_single(json)
            .map_err(|e| Failure::Failed(format!("the result is not JSON: {e}")))?;
        let defs = jaq_core::defs()
            .chain(jaq_std::defs())
            .chain(jaq_json::defs());
        let funs = jaq_core::funs()
            .chain(jaq_std::funs())
            .chain(jaq_json::funs());
        let invalid = |what: &str, detail: String| {
            let mut detail = detail;
            detail.truncate(400);
            Failure::Invalid(format!("`{ARGUMENT}`: the filter {what}: {detail}"))
        };
        let arena = Arena::default();
        let modules = Loader::new(defs)
            .load(
                &arena,
                File {
                    code: filter,
                    path: (),
                },
            )
            .map_err(|errors| invalid("does not parse", format!("{errors:?}")))?;
        let compiled = Compiler::default()
            .with_funs(funs)
            .compile(modules)
            .map_err(|errors| invalid("does not compile", format!("{errors:?}")))?;
        let ctx = Ctx::<data::JustLut<Val>>::new(&compiled.lut, Vars::new([]));
        let mut outputs = Vec::new();
        let mut bytes = 0;
        for output in compiled.id.run((ctx, input)).map(unwrap_valr) {
            let value = output.map_err(|e| Failure::Failed(format!("the filter failed: {e}")))?;
            let text = value.to_string();
            bytes += text.len() + 1;
            if bytes > MOST_OUTPUT {
                return Err(Failure::Failed(format!(
                    "the filter's output is larger than {} MiB",
                    MOST_OUTPUT >> 20
                )));
            }
            outputs.push(text);
        }
        Ok(match outputs.len() {
            1 => outputs.pop().expect("one output"),
            _ => format!("[{}]", outputs.join(",")),
        })
    }
}

#[cfg(not(feature = "jq"))]
mod imp {
    use super::*;

    pub(super) async fn run(_: &str, _: &str) -> Result<String, Failure> {
        Err(Failure::Failed(format!(
            "`{ARGUMENT}` filters are not available: this server was built without the \
             mcp-runtime feature `jq`"
        )))
    }

    pub(super) fn work() -> std::process::ExitCode {
        eprintln!("this build has no jq: rebuild with the mcp-runtime feature `jq`");
        std::process::ExitCode::from(1)
    }
}

#[cfg(all(test, feature = "jq"))]
mod tests {
    use super::imp::evaluate;
    use super::Failure;

    #[test]
    fn a_filter_keeps_what_it_names() {
        let block =
            br#"{"number":"0x1","hash":"0xab","transactions":[{"hash":"0x1"},{"hash":"0x2"}]}"#;
        assert_eq!(
            evaluate("{number, hash}", block).unwrap(),
            r#"{"number":"0x1","hash":"0xab"}"#
        );
        assert_eq!(evaluate(".transactions | length", block).unwrap(), "2");
        assert_eq!(
            evaluate(".transactions[].hash", block).unwrap(),
            r#"["0x1","0x2"]"#
        );
        assert_eq!(evaluate("empty", block).unwrap(), "[]");
        assert!(matches!(evaluate(".[", block), Err(Failure::Invalid(_))));
        assert!(matches!(
            evaluate("nosuchfunction", block),
            Err(Failure::Invalid(_))
        ));
        assert!(matches!(
            evaluate(".number | tonumber", block),
            Err(Failure::Failed(_))
        ));
    }
}
