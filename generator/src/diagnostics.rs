//! Diagnostics: every problem found in a document, with where it is and which rule it breaks.
//!
//! Loading and validation collect diagnostics instead of stopping at the first one, so a bad
//! document gets all of its errors in one run.

use std::fmt;
use std::path::PathBuf;

use crate::escape::visible_line;

/// How serious a diagnostic is. Errors block generation; warnings never do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// The document is accepted; the author should still look.
    Warning,
    /// The document cannot be generated from.
    Error,
}

/// A place in a source file: the file, a 1-based line and column, and the JSON pointer of the
/// value there (`""` is the document root).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Location {
    /// The file, as given by the user or resolved relative to the including document.
    pub file: PathBuf,
    /// 1-based line of the value's first character.
    pub line: usize,
    /// 1-based column (in characters) of the value's first character.
    pub column: usize,
    /// RFC 6901 JSON pointer of the value inside `file`.
    pub pointer: String,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file.display(), self.line, self.column)?;
        if self.pointer.is_empty() {
            f.write_str(" (document root)")
        } else {
            write!(f, " ({})", self.pointer)
        }
    }
}

/// One problem found in a document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// Whether it blocks generation.
    pub severity: Severity,
    /// The rule broken, a stable kebab-case id such as `unique-method-names`.
    pub rule: &'static str,
    /// What is wrong, in one sentence, naming the offending value.
    pub message: String,
    /// Where it is.
    pub location: Location,
}

impl Diagnostic {
    /// An error that blocks generation.
    pub fn error(rule: &'static str, location: Location, message: impl Into<String>) -> Self {
        Self {
            severity: Severity::Error,
            rule,
            message: message.into(),
            location,
        }
    }

    /// A warning that is reported but does not block generation.
    pub fn warning(rule: &'static str, location: Location, message: impl Into<String>) -> Self {
        Self {
            severity: Severity::Warning,
            rule,
            message: message.into(),
            location,
        }
    }
}

impl fmt::Display for Diagnostic {
    /// Renders as `error[rule]: message` then `  --> file:line:column (pointer)`, with control
    /// and bidi characters escaped.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let level = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        // The message and the path quote the document: never let them move the cursor, start
        // a line of their own or reorder the terminal's text.
        write!(
            f,
            "{level}[{}]: {}\n  --> {}",
            self.rule,
            visible_line(&self.message),
            visible_line(&self.location.to_string())
        )
    }
}

/// All the diagnostics of one run, in a deterministic order (by file, position, rule).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl Diagnostics {
    /// Adds one diagnostic.
    pub fn push(&mut self, diagnostic: Diagnostic) {
        self.0.push(diagnostic);
    }

    /// True when at least one diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.0.iter().any(|d| d.severity == Severity::Error)
    }

    /// The errors only.
    pub fn errors(&self) -> impl Iterator<Item = &Diagnostic> {
        self.0.iter().filter(|d| d.severity == Severity::Error)
    }

    /// The warnings only.
    pub fn warnings(&self) -> impl Iterator<Item = &Diagnostic> {
        self.0.iter().filter(|d| d.severity == Severity::Warning)
    }

    /// Sorts by location then rule, so output does not depend on the order checks ran in.
    pub fn sort(&mut self) {
        self.0.sort_by(|a, b| {
            (&a.location, a.rule, &a.message).cmp(&(&b.location, b.rule, &b.message))
        });
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for d in &self.0 {
            writeln!(f, "{d}")?;
        }
        let errors = self.errors().count();
        let warnings = self.warnings().count();
        write!(f, "{errors} error(s), {warnings} warning(s)")
    }
}

impl std::error::Error for Diagnostics {}
