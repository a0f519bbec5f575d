//! The command line of a server binary as clap sees it: its flags from the settings' rows
//! ([`settings::all`]), the help's layout (groups, wrapped lines, the defaults shown), and
//! clap's errors as one line.

use super::settings::{self, Setting};
use super::{ArgsError, Config};

/// How an error cites a value: `--flag VALUE` (a switch: `--flag`) or `VAR=VALUE`, the value
/// quoted when it is empty or holds spaces or control characters (the error stays one line).
pub(super) fn source(setting: &Setting, text: &str, from_flag: bool) -> String {
    let shown = if text.is_empty() || text.contains(|c: char| c.is_whitespace() || c.is_control()) {
        format!("{text:?}")
    } else {
        text.to_owned()
    };
    match (from_flag, setting.value) {
        (true, None) => format!("--{}", setting.flag),
        (true, Some(_)) => format!("--{} {shown}", setting.flag),
        (false, _) => format!("{}={shown}", setting.env),
    }
}

/// The name of this program, for `--help`.
pub(super) fn program_name() -> String {
    std::env::args_os()
        .next()
        .and_then(|path| {
            std::path::Path::new(&path)
                .file_name()
                .map(|name| name.to_string_lossy().into_owned())
        })
        .unwrap_or_else(|| "server".into())
}

const ABOUT: &str = "An MCP server (mcp-runtime): Streamable HTTP at http://HOST:PORT/mcp, or \
stdin/stdout with --stdio.";

const AFTER_HELP: &str = "\
Every flag can be given by its environment variable instead ([env: ...]); the flag wins, and an \
empty variable counts as unset. A flag for HTTP is refused with --stdio, its variable ignored.
Durations: 250ms, 30s, 10m, 1h, 1d, or a sum such as 1h30m. Sizes: bytes, or 64KiB, 4MiB, 1GiB. \
Switches set by a variable: 1, true, on, yes or 0, false, off, no.";

/// The command line of [`settings::all`], with `config`'s values as the defaults shown.
pub(super) fn command(program: &str, config: &Config) -> clap::Command {
    let mut command = clap::Command::new(program.to_owned())
        .about(ABOUT)
        .after_help(wrap(AFTER_HELP, HELP_WIDTH + HELP_INDENT))
        // A repeated flag: the last one wins.
        .args_override_self(true)
        // Each flag on its line, its help under it (wrapped here: clap wraps only with its
        // `wrap_help` feature, which would bring a terminal-size crate to every server).
        .next_line_help(true)
        .arg(
            clap::Arg::new(VERSION_FLAG)
                .short('V')
                .long(VERSION_FLAG)
                .help("Print the server's name and version, and the runtime's, then exit")
                .action(clap::ArgAction::SetTrue),
        );
    for setting in settings::all() {
        let default = (setting.default)(config);
        let mut spec = format!("[env: {}]", setting.env);
        if !default.is_empty() {
            spec.push_str(&format!(" [default: {default}]"));
        }
        let help = format!(
            "{}\n{}",
            wrap(setting.help, HELP_WIDTH),
            wrap(&spec, HELP_WIDTH)
        );
        let arg = clap::Arg::new(setting.flag)
            .long(setting.flag)
            .help_heading(setting.heading)
            .help(help);
        let arg = match setting.value {
            Some(name) => arg.value_name(name).action(clap::ArgAction::Set),
            None => arg.action(clap::ArgAction::SetTrue),
        };
        command = command.arg(arg);
    }
    command
}

/// The flag that prints [`version_line`] (not a setting: it changes nothing).
pub(super) const VERSION_FLAG: &str = "version";

/// The width of a flag's help lines, under the flag (clap indents them by [`HELP_INDENT`]).
pub(super) const HELP_WIDTH: usize = 88;
const HELP_INDENT: usize = 10;

/// `text` broken into lines of at most `width` characters, between words (a longer word gets
/// its own line); its own line breaks are kept.
pub(super) fn wrap(text: &str, width: usize) -> String {
    let mut wrapped = String::with_capacity(text.len() + 8);
    for (i, paragraph) in text.split('\n').enumerate() {
        if i > 0 {
            wrapped.push('\n');
        }
        let mut line_len = 0;
        for word in paragraph.split(' ').filter(|word| !word.is_empty()) {
            let len = word.chars().count();
            if line_len > 0 && line_len + 1 + len > width {
                wrapped.push('\n');
                line_len = 0;
            } else if line_len > 0 {
                wrapped.push(' ');
                line_len += 1;
            }
            wrapped.push_str(word);
            line_len += len;
        }
    }
    wrapped
}

/// A clap error as one line (or the help).
pub(super) fn clap_error(error: clap::Error) -> ArgsError {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    let context = |kind| match error.get(kind) {
        Some(ContextValue::String(value)) => Some(value.clone()),
        Some(ContextValue::Strings(values)) => values.first().cloned(),
        _ => None,
    };
    match error.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            ArgsError::Help(error.render().to_string())
        }
        ErrorKind::UnknownArgument => {
            let argument = context(ContextKind::InvalidArg).unwrap_or_default();
            let tip = context(ContextKind::SuggestedArg)
                .map(|similar| format!(" (did you mean {similar}?)"))
                .unwrap_or_default();
            ArgsError::Invalid(format!(
                "unknown argument `{argument}`{tip}; --help lists every flag"
            ))
        }
        ErrorKind::InvalidValue
            if context(ContextKind::InvalidValue).is_none_or(|value| value.is_empty()) =>
        {
            let argument = context(ContextKind::InvalidArg).unwrap_or_default();
            ArgsError::Invalid(format!("{argument} needs a value"))
        }
        _ => {
            let rendered = error.render().to_string();
            let line = rendered.lines().next().unwrap_or_default();
            ArgsError::Invalid(line.strip_prefix("error: ").unwrap_or(line).to_owned())
        }
    }
}
