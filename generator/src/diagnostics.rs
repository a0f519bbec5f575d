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

/// The candidate `word` is most likely a misspelling of, for a "did you mean" in a message:
/// the nearest by edit distance (a case difference counting as half an edit), when it is
/// close enough (at most a third of the word's characters, and at least one, differ); ties go
/// to the first candidate.
pub fn did_you_mean<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    // Names longer than this are not compared: a message needs no suggestion that costly.
    const LONGEST: usize = 256;
    let word: Vec<char> = word.chars().take(LONGEST + 1).collect();
    if word.is_empty() || word.len() > LONGEST {
        return None;
    }
    let most = (word.len() / 3).max(1) * 2;
    let mut best: Option<(usize, &str)> = None;
    for candidate in candidates {
        let other: Vec<char> = candidate.chars().take(LONGEST + 1).collect();
        if other.len() > LONGEST || other.len().abs_diff(word.len()) * 2 > most {
            continue;
        }
        let distance = doubled_edit_distance(&word, &other);
        if distance > 0 && distance <= most && best.is_none_or(|(d, _)| distance < d) {
            best = Some((distance, candidate));
        }
    }
    best.map(|(_, candidate)| candidate)
}

/// The edit distance of `a` and `b` (insertions, deletions, substitutions and transpositions
/// of neighbours, each one edit: the optimal string alignment distance), doubled, a
/// substitution by the same letter in another case costing half an edit.
fn doubled_edit_distance(a: &[char], b: &[char]) -> usize {
    let mut before: Vec<usize> = Vec::new();
    let mut row: Vec<usize> = (0..=b.len()).map(|j| j * 2).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut next = Vec::with_capacity(b.len() + 1);
        next.push((i + 1) * 2);
        for (j, cb) in b.iter().enumerate() {
            let substitution = if ca == cb {
                0
            } else if ca.to_lowercase().eq(cb.to_lowercase()) {
                1
            } else {
                2
            };
            let mut cost = (row[j] + substitution).min(row[j + 1] + 2).min(next[j] + 2);
            if i > 0 && j > 0 && *ca == b[j - 1] && a[i - 1] == *cb {
                cost = cost.min(before[j - 1] + 2);
            }
            next.push(cost);
        }
        before = std::mem::replace(&mut row, next);
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::did_you_mean;

    #[test]
    fn suggestions_are_near_misses_only() {
        let keys = ["methods", "info", "$schema"];
        assert_eq!(did_you_mean("method", keys), Some("methods"));
        assert_eq!(did_you_mean("Methods", keys), Some("methods"));
        assert_eq!(did_you_mean("inf", keys), Some("info"));
        assert_eq!(did_you_mean("tools", keys), None);
        assert_eq!(did_you_mean("methods", keys), None);
        assert_eq!(did_you_mean("", keys), None);
        let names = ["eth_getBalance", "eth_getCode", "eth_call"];
        assert_eq!(
            did_you_mean("eth_getbalance", names),
            Some("eth_getBalance")
        );
        assert_eq!(
            did_you_mean("eth_getBalanse", names),
            Some("eth_getBalance")
        );
        assert_eq!(did_you_mean("eth_sign", names), None);
        let x_mcp = ["kind", "name", "title", "annotations"];
        assert_eq!(did_you_mean("tittle", x_mcp), Some("title"));
        assert_eq!(did_you_mean("titel", x_mcp), Some("title"));
        assert_eq!(did_you_mean("nmae", x_mcp), Some("name"));
        assert_eq!(did_you_mean("anotations", x_mcp), Some("annotations"));
        assert_eq!(did_you_mean("color", x_mcp), None);
    }
}
