//! A `SKILL.md`'s YAML frontmatter, read into the JSON object a skill entry carries.
//!
//! Clients parse the frontmatter with a YAML 1.2 parser (core schema) and compare it field by
//! field with the entry, so the JSON must be exactly what such a parser yields. Rather than
//! depend on a YAML crate, this reads the subset skills use, with the core schema's scalar
//! typing, and refuses everything else with the line and a way out:
//!
//! - block mappings (`key: value`, nested by indentation) and block sequences of scalars
//!   (`- item`);
//! - plain scalars (also continued on more-indented lines), single- and double-quoted scalars
//!   on one line, literal (`|`) and folded (`>`) block scalars with `-`/`+` chomping;
//! - comments (`# ...`) on their own line and after a value.
//!
//! Refused: flow collections (`[a, b]`, `{a: b}`), anchors, aliases, tags, directives, quoted
//! or complex keys, duplicate keys, tabs in indentation, integers a double cannot hold exactly,
//! `.inf` and `.nan` (JSON has neither).

use serde_json::{Map, Number, Value};

/// A frontmatter problem: the line (1-based, within `SKILL.md`) and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YamlError {
    /// The line in `SKILL.md`.
    pub line: usize,
    /// What is wrong, and how to write it instead.
    pub message: String,
}

/// The frontmatter of a `SKILL.md` and where it ends.
#[derive(Debug)]
pub struct Frontmatter {
    /// The frontmatter as JSON (a YAML mapping: always an object).
    pub value: Map<String, Value>,
    /// The line of each top-level key, for diagnostics.
    pub key_lines: Vec<(String, usize)>,
}

/// Deepest nesting of mappings and sequences accepted.
const MAX_DEPTH: usize = 16;

/// Splits `text` (a whole `SKILL.md`) into its frontmatter block and parses it. `SKILL.md`
/// must begin with `---` on its own line (after an optional byte-order mark) and the block
/// ends at the next line that is `---`.
pub fn parse_skill_md(text: &str) -> Result<Frontmatter, YamlError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l));
    if lines.next() != Some("---") {
        return Err(YamlError {
            line: 1,
            message: "SKILL.md must begin with YAML frontmatter: a `---` line, the fields, and a closing `---` line".into(),
        });
    }
    let mut body = Vec::new();
    let mut closed = false;
    for line in lines {
        if line.trim_end_matches([' ', '\t']) == "---" {
            closed = true;
            break;
        }
        body.push(line);
    }
    if !closed {
        return Err(YamlError {
            line: 1,
            message: "the frontmatter has no closing `---` line".into(),
        });
    }
    // Frontmatter lines start at line 2 of the file.
    let mut parser = Parser {
        lines: body,
        at: 0,
        first_line: 2,
    };
    parser.document()
}

struct Parser<'a> {
    lines: Vec<&'a str>,
    at: usize,
    first_line: usize,
}

/// Indentation (spaces) of `line`; a tab in it is refused.
fn indent_of(line: &str) -> Option<usize> {
    let spaces = line.len() - line.trim_start_matches(' ').len();
    match line[spaces..].starts_with('\t') && !line.trim().is_empty() {
        true => None,
        false => Some(spaces),
    }
}

/// Whether `line` holds nothing (blank, or only a comment).
fn is_blank(line: &str) -> bool {
    let t = line.trim_start_matches([' ', '\t']);
    t.is_empty() || t.starts_with('#')
}

impl<'a> Parser<'a> {
    fn error(&self, index: usize, message: impl Into<String>) -> YamlError {
        YamlError {
            line: self.first_line + index,
            message: message.into(),
        }
    }

    /// The next non-blank line from `self.at`: its index and indentation.
    fn peek(&self) -> Result<Option<(usize, usize)>, YamlError> {
        for (i, line) in self.lines.iter().enumerate().skip(self.at) {
            if is_blank(line) {
                continue;
            }
            let indent = indent_of(line).ok_or_else(|| {
                self.error(i, "a tab in indentation: YAML indents with spaces only")
            })?;
            return Ok(Some((i, indent)));
        }
        Ok(None)
    }

    fn document(&mut self) -> Result<Frontmatter, YamlError> {
        match self.peek()? {
            None => Err(self.error(
                0,
                "the frontmatter is empty: it must hold at least `name` and `description`",
            )),
            Some((i, indent)) => {
                if indent != 0 {
                    return Err(self.error(i, "the frontmatter's keys must start at column 1"));
                }
                let mut key_lines = Vec::new();
                let value = self.mapping(0, 1, Some(&mut key_lines))?;
                if let Some((i, _)) = self.peek()? {
                    return Err(self.error(
                        i,
                        "this line does not continue the mapping above it: check its indentation",
                    ));
                }
                Ok(Frontmatter { value, key_lines })
            }
        }
    }

    /// A block mapping whose keys sit at `indent`.
    fn mapping(
        &mut self,
        indent: usize,
        depth: usize,
        mut key_lines: Option<&mut Vec<(String, usize)>>,
    ) -> Result<Map<String, Value>, YamlError> {
        if depth > MAX_DEPTH {
            return Err(self.error(self.at, format!("nesting deeper than {MAX_DEPTH} levels")));
        }
        let mut map = Map::new();
        while let Some((i, line_indent)) = self.peek()? {
            if line_indent < indent {
                break;
            }
            if line_indent > indent {
                return Err(self.error(
                    i,
                    "unexpected indentation: a key must line up with the keys before it",
                ));
            }
            let line = &self.lines[i][indent..];
            if line.starts_with("- ") || line == "-" {
                return Err(self.error(i, "a sequence item where a `key: value` was expected"));
            }
            let (key, rest) = split_key(line).map_err(|m| self.error(i, m))?;
            if map.contains_key(&key) {
                return Err(
                    self.error(i, format!("duplicate key `{key}`: map keys must be unique"))
                );
            }
            if let Some(lines) = key_lines.as_deref_mut() {
                lines.push((key.clone(), self.first_line + i));
            }
            self.at = i + 1;
            let value = self.value(rest, i, indent, depth)?;
            map.insert(key, value);
        }
        Ok(map)
    }

    /// The value after `key:` on line `i` (`rest`, trimmed), of a key at `indent`.
    fn value(
        &mut self,
        rest: &str,
        i: usize,
        indent: usize,
        depth: usize,
    ) -> Result<Value, YamlError> {
        let rest = strip_comment(rest).trim_matches([' ', '\t']);
        if rest.is_empty() {
            // A nested block, or null.
            return match self.peek()? {
                Some((j, child)) if child > indent => {
                    let line = &self.lines[j][child..];
                    if line.starts_with("- ") || line == "-" {
                        self.sequence(child, depth + 1).map(Value::Array)
                    } else {
                        self.mapping(child, depth + 1, None).map(Value::Object)
                    }
                }
                Some((j, child))
                    if child == indent && {
                        let line = &self.lines[j][child..];
                        line.starts_with("- ") || line == "-"
                    } =>
                {
                    self.sequence(child, depth + 1).map(Value::Array)
                }
                _ => Ok(Value::Null),
            };
        }
        match rest.as_bytes()[0] {
            b'|' | b'>' => self.block_scalar(rest, i, indent),
            b'"' => double_quoted(rest).map_err(|m| self.error(i, m)),
            b'\'' => single_quoted(rest).map_err(|m| self.error(i, m)),
            _ => {
                check_plain_start(rest).map_err(|m| self.error(i, m))?;
                let continued = self.plain_continuation(indent)?;
                match continued {
                    None => resolve(rest).map_err(|m| self.error(i, m)),
                    Some(more) => Ok(Value::String(format!("{rest}{more}"))),
                }
            }
        }
    }

    /// A block sequence whose `- ` items sit at `indent`: scalars only.
    fn sequence(&mut self, indent: usize, depth: usize) -> Result<Vec<Value>, YamlError> {
        if depth > MAX_DEPTH {
            return Err(self.error(self.at, format!("nesting deeper than {MAX_DEPTH} levels")));
        }
        let mut items = Vec::new();
        while let Some((i, line_indent)) = self.peek()? {
            let line = &self.lines[i][line_indent.min(self.lines[i].len())..];
            if line_indent != indent || !(line.starts_with("- ") || line == "-") {
                if line_indent > indent {
                    return Err(self.error(i, "unexpected indentation inside a sequence"));
                }
                break;
            }
            self.at = i + 1;
            let item = strip_comment(&line[1..]).trim_matches([' ', '\t']);
            let value = match item.as_bytes().first() {
                None => Value::Null,
                Some(b'"') => double_quoted(item).map_err(|m| self.error(i, m))?,
                Some(b'\'') => single_quoted(item).map_err(|m| self.error(i, m))?,
                Some(b'|' | b'>') => {
                    return Err(self.error(
                        i,
                        "block scalars inside sequences are not supported: quote the item",
                    ))
                }
                Some(_) => {
                    check_plain_start(item).map_err(|m| self.error(i, m))?;
                    if split_key(item).is_ok() {
                        return Err(self.error(i, "mappings inside sequences are not supported"));
                    }
                    resolve(item).map_err(|m| self.error(i, m))?
                }
            };
            items.push(value);
        }
        Ok(items)
    }

    /// The lines continuing a plain scalar (indented deeper than its key at `indent`), folded
    /// as YAML folds them: one line break becomes a space, each blank line a newline. `None`
    /// when the scalar ends on its own line.
    fn plain_continuation(&mut self, indent: usize) -> Result<Option<String>, YamlError> {
        let mut out = String::new();
        let mut pending_blank = 0;
        let mut any = false;
        let mut j = self.at;
        while j < self.lines.len() {
            let line = self.lines[j];
            if line.trim().is_empty() {
                pending_blank += 1;
                j += 1;
                continue;
            }
            let line_indent = indent_of(line).ok_or_else(|| {
                self.error(j, "a tab in indentation: YAML indents with spaces only")
            })?;
            let text = line.trim_matches([' ', '\t']);
            if line_indent <= indent || text.starts_with('#') {
                break;
            }
            if text.contains(": ") || text.ends_with(':') || text.contains(" #") {
                return Err(self.error(j, "a continued plain value holds `: ` or ` #`: quote the whole value, or use a `>` block"));
            }
            match pending_blank {
                0 => out.push(' '),
                n => out.push_str(&"\n".repeat(n)),
            }
            pending_blank = 0;
            out.push_str(text);
            any = true;
            j += 1;
            self.at = j;
        }
        Ok(any.then_some(out))
    }

    /// A literal (`|`) or folded (`>`) block scalar whose header is `header`, of a key at
    /// `indent`.
    fn block_scalar(&mut self, header: &str, i: usize, indent: usize) -> Result<Value, YamlError> {
        let folded = header.starts_with('>');
        let chomp = match &header[1..] {
            "" => Chomp::Clip,
            "-" => Chomp::Strip,
            "+" => Chomp::Keep,
            _ => {
                return Err(self.error(
                    i,
                    "only `|`, `|-`, `|+`, `>`, `>-` and `>+` block headers are supported (no explicit indentation)",
                ))
            }
        };
        // The block's lines: up to the first non-blank line indented no deeper than the key.
        let mut content: Vec<(usize, &str)> = Vec::new();
        let mut block_indent = None;
        let mut j = self.at;
        while j < self.lines.len() {
            let line = self.lines[j];
            if line.trim_matches(' ').is_empty() {
                if line.len() > block_indent.unwrap_or(usize::MAX) {
                    return Err(self.error(
                        j,
                        "a whitespace-only line indented deeper than its block is not supported",
                    ));
                }
                content.push((j, ""));
                j += 1;
                continue;
            }
            let line_indent = indent_of(line).ok_or_else(|| {
                self.error(j, "a tab in indentation: YAML indents with spaces only")
            })?;
            if line_indent <= indent {
                break;
            }
            let at = *block_indent.get_or_insert(line_indent);
            if line_indent < at {
                return Err(self.error(
                    j,
                    "a line of a block scalar is indented less than its first line",
                ));
            }
            if folded && line_indent > at {
                return Err(self.error(
                    j,
                    "more-indented lines in a folded (`>`) block are not supported: use `|`",
                ));
            }
            content.push((j, &line[at..]));
            j += 1;
        }
        // Trailing blank lines belong to the chomping, not to the block's lines.
        let trailing = content
            .iter()
            .rev()
            .take_while(|(_, l)| l.is_empty())
            .count();
        let body = &content[..content.len() - trailing];
        self.at = body.last().map_or(self.at, |(j, _)| j + 1);
        let mut text = String::new();
        if folded {
            let mut previous_was_text = false;
            let mut blanks = 0;
            for (_, line) in body {
                if line.is_empty() {
                    blanks += 1;
                    continue;
                }
                if previous_was_text {
                    match blanks {
                        0 => text.push(' '),
                        n => text.push_str(&"\n".repeat(n)),
                    }
                } else {
                    text.push_str(&"\n".repeat(blanks));
                }
                blanks = 0;
                text.push_str(line);
                previous_was_text = true;
            }
        } else {
            for (n, (_, line)) in body.iter().enumerate() {
                if n > 0 {
                    text.push('\n');
                }
                text.push_str(line);
            }
        }
        if !body.is_empty() {
            match chomp {
                Chomp::Strip => {}
                Chomp::Clip => text.push('\n'),
                Chomp::Keep => text.push_str(&"\n".repeat(1 + trailing)),
            }
        } else if chomp == Chomp::Keep {
            text.push_str(&"\n".repeat(trailing));
        }
        // Lines consumed by the chomping are skipped too.
        self.at = self.at.max(content.last().map_or(self.at, |(j, _)| j + 1));
        Ok(Value::String(text))
    }
}

#[derive(PartialEq, Eq)]
enum Chomp {
    Clip,
    Strip,
    Keep,
}

/// `key: rest` split at the first `:` followed by a space or the end; the key is plain text
/// that the core schema reads as a string.
fn split_key(line: &str) -> Result<(String, &str), String> {
    let colon = line
        .char_indices()
        .find(|&(i, c)| c == ':' && matches!(line[i + 1..].chars().next(), None | Some(' ' | '\t')))
        .map(|(i, _)| i)
        .ok_or_else(|| "expected `key: value`".to_string())?;
    let key = line[..colon].trim_end_matches([' ', '\t']);
    let first = key.chars().next().ok_or("a key is empty")?;
    if !(first.is_ascii_alphabetic() || first == '_')
        || !key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-./".contains(c))
    {
        return Err(format!(
            "key `{key}` is not supported: keys start with a letter or `_` and hold letters, digits, `_`, `-`, `.` and `/`"
        ));
    }
    if matches!(resolve(key), Ok(Value::Bool(_) | Value::Null)) {
        return Err(format!("key `{key}` reads as a boolean or null in YAML"));
    }
    Ok((key.to_string(), &line[colon + 1..]))
}

/// `text` up to a comment (` #...`): only for plain values, where `#` after a space starts one.
fn strip_comment(text: &str) -> &str {
    let trimmed = text.trim_start_matches([' ', '\t']);
    if trimmed.starts_with('"') || trimmed.starts_with('\'') {
        return text;
    }
    if trimmed.starts_with('#') {
        return "";
    }
    match text.find(" #").or_else(|| text.find("\t#")) {
        Some(at) => &text[..at],
        None => text,
    }
}

/// Refuses a plain value that YAML reads as something else than a plain scalar.
fn check_plain_start(text: &str) -> Result<(), String> {
    let first = text.chars().next().unwrap_or(' ');
    let second = text.chars().nth(1);
    let indicator = match first {
        '[' | '{' => Some("flow collections (`[...]`, `{...}`) are not supported: use block style"),
        '&' | '*' => Some("anchors and aliases are not supported"),
        '!' => Some("tags are not supported"),
        '%' | '@' | '`' | ',' | ']' | '}' => {
            Some("a plain value cannot start with this character: quote it")
        }
        '-' | '?' | ':' if matches!(second, None | Some(' ' | '\t')) => {
            Some("a plain value cannot start with this indicator: quote it")
        }
        _ => None,
    };
    if let Some(message) = indicator {
        return Err(message.into());
    }
    if text.contains(": ") || text.ends_with(':') {
        return Err(
            "a plain value holds `: `, which YAML reads as a nested mapping: quote the value"
                .into(),
        );
    }
    Ok(())
}

/// A plain scalar typed by the YAML 1.2 core schema: null, booleans, integers, floats, else a
/// string.
fn resolve(text: &str) -> Result<Value, String> {
    match text {
        "" | "~" | "null" | "Null" | "NULL" => return Ok(Value::Null),
        "true" | "True" | "TRUE" => return Ok(Value::Bool(true)),
        "false" | "False" | "FALSE" => return Ok(Value::Bool(false)),
        _ => {}
    }
    let unsigned = text.strip_prefix(['-', '+']).unwrap_or(text);
    if matches!(unsigned, ".inf" | ".Inf" | ".INF") || matches!(text, ".nan" | ".NaN" | ".NAN") {
        return Err(format!("`{text}` is not a JSON number: quote it"));
    }
    // An integer in one of the core schema's forms (`None` when it is none of them; `Some(None)`
    // when it is one but overflows).
    let radix_digits = |prefix: &str, radix: u32| {
        text.strip_prefix(prefix)
            .filter(|d| !d.is_empty() && d.chars().all(|c| c.is_digit(radix)))
            .map(|d| i128::from_str_radix(d, radix).ok())
    };
    let integer = match !unsigned.is_empty() && unsigned.bytes().all(|b| b.is_ascii_digit()) {
        true => Some(text.parse::<i128>().ok()),
        false => radix_digits("0o", 8).or_else(|| radix_digits("0x", 16)),
    };
    if let Some(integer) = integer {
        const EXACT: i128 = 1 << 53;
        return match integer.filter(|n| (-EXACT..=EXACT).contains(n)) {
            Some(n) => Ok(Value::Number(Number::from(n as i64))),
            None => Err(format!(
                "the integer `{text}` is beyond what a JSON client keeps exactly: quote it"
            )),
        };
    }
    if is_float(unsigned) {
        let value: f64 = text
            .parse()
            .map_err(|_| format!("`{text}` is not a number: quote it"))?;
        return Number::from_f64(value)
            .map(Value::Number)
            .ok_or_else(|| format!("`{text}` is not a JSON number: quote it"));
    }
    Ok(Value::String(text.to_string()))
}

/// The core schema's float form (sign removed): `.5`, `1.`, `1.5`, `1e3`, `1.5E-3`.
fn is_float(text: &str) -> bool {
    let (mantissa, exponent) = match text.find(['e', 'E']) {
        Some(at) => (&text[..at], Some(&text[at + 1..])),
        None => (text, None),
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let mantissa_ok = match mantissa.split_once('.') {
        Some(("", frac)) => digits(frac),
        Some((int, frac)) => digits(int) && (frac.is_empty() || digits(frac)),
        None => digits(mantissa),
    };
    let exponent_ok = exponent.is_none_or(|e| digits(e.strip_prefix(['-', '+']).unwrap_or(e)));
    mantissa_ok && exponent_ok
}

/// The rest of a line after a closing quote: nothing, or a comment.
fn after_quote(rest: &str) -> Result<(), String> {
    let rest = rest.trim_start_matches([' ', '\t']);
    match rest.is_empty() || (rest.starts_with('#') && rest.len() < 1 << 20) {
        true => Ok(()),
        false => Err("text after the closing quote".into()),
    }
}

/// A single-quoted scalar on one line (`''` is a quote).
fn single_quoted(text: &str) -> Result<Value, String> {
    let mut out = String::new();
    let mut chars = text[1..].char_indices();
    while let Some((i, c)) = chars.next() {
        if c == '\'' {
            if text[1 + i + 1..].starts_with('\'') {
                out.push('\'');
                chars.next();
                continue;
            }
            after_quote(&text[1 + i + 1..])?;
            return Ok(Value::String(out));
        }
        out.push(c);
    }
    Err("a single-quoted value must close on the same line".into())
}

/// A double-quoted scalar on one line, with YAML's escapes.
fn double_quoted(text: &str) -> Result<Value, String> {
    let mut out = String::new();
    let mut chars = text[1..].char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => {
                after_quote(&text[1 + i + 1..])?;
                return Ok(Value::String(out));
            }
            '\\' => {
                let (_, e) = chars.next().ok_or("a `\\` ends the line")?;
                let hex =
                    |n: usize, chars: &mut std::str::CharIndices<'_>| -> Result<char, String> {
                        let digits: String = chars.by_ref().take(n).map(|(_, c)| c).collect();
                        u32::from_str_radix(&digits, 16)
                            .ok()
                            .filter(|_| digits.len() == n)
                            .and_then(char::from_u32)
                            .ok_or_else(|| format!("`\\{e}{digits}` is not a character"))
                    };
                out.push(match e {
                    '0' => '\0',
                    'a' => '\u{7}',
                    'b' => '\u{8}',
                    't' | '\t' => '\t',
                    'n' => '\n',
                    'v' => '\u{b}',
                    'f' => '\u{c}',
                    'r' => '\r',
                    'e' => '\u{1b}',
                    ' ' => ' ',
                    '"' => '"',
                    '/' => '/',
                    '\\' => '\\',
                    'N' => '\u{85}',
                    '_' => '\u{a0}',
                    'L' => '\u{2028}',
                    'P' => '\u{2029}',
                    'x' => hex(2, &mut chars)?,
                    'u' => hex(4, &mut chars)?,
                    'U' => hex(8, &mut chars)?,
                    other => return Err(format!("`\\{other}` is not a YAML escape")),
                });
            }
            c => out.push(c),
        }
    }
    Err("a double-quoted value must close on the same line".into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(front: &str) -> Result<Value, YamlError> {
        parse_skill_md(&format!("---\n{front}---\nBody\n")).map(|f| Value::Object(f.value))
    }

    #[test]
    fn reads_the_subset_skills_use_with_core_schema_types() {
        let value = parse(concat!(
            "# a comment\n",
            "name: pdf-processing\n",
            "description: Extract text # trailing comment\n",
            "license: 'Apache-2.0'\n",
            "quoted: \"tab\\there \\u00e9\"\n",
            "count: 12\n",
            "hex: 0x1F\n",
            "ratio: 1.5\n",
            "flag: true\n",
            "nothing: ~\n",
            "empty:\n",
            "version: '1.0'\n",
            "metadata:\n",
            "  author: someone\n",
            "  nested:\n",
            "    deep: yes\n",
            "tools:\n",
            "- Read\n",
            "- 'Write'\n",
            "long: one\n",
            "  two\n",
            "\n",
            "  three\n",
            "literal: |\n",
            "  line 1\n",
            "    indented\n",
            "\n",
            "folded: >-\n",
            "  a\n",
            "  b\n",
            "\n",
            "  c\n",
        ))
        .unwrap();
        assert_eq!(
            value,
            json!({
                "name": "pdf-processing",
                "description": "Extract text",
                "license": "Apache-2.0",
                "quoted": "tab\there é",
                "count": 12,
                "hex": 31,
                "ratio": 1.5,
                "flag": true,
                "nothing": null,
                "empty": null,
                "version": "1.0",
                "metadata": {"author": "someone", "nested": {"deep": "yes"}},
                "tools": ["Read", "Write"],
                "long": "one two\nthree",
                "literal": "line 1\n  indented\n",
                "folded": "a b\nc",
            })
        );
    }

    #[test]
    fn refuses_what_it_does_not_read_with_the_line() {
        for (front, line) in [
            ("name: [a, b]\n", 2),
            ("name: a\nname: b\n", 3),
            ("name: &x a\n", 2),
            ("name: a: b\n", 2),
            ("\tname: a\n", 2),
            ("name: \"open\n", 2),
            ("n: 99999999999999999999\n", 2),
            ("n: .inf\n", 2),
            ("name: |2\n  x\n", 2),
            ("\"quoted\": a\n", 2),
            ("true: a\n", 2),
            ("a: x\n  b: y\n", 3),
            ("- a\n", 2),
        ] {
            let error = parse(front).unwrap_err();
            assert_eq!(error.line, line, "{front:?}: {error:?}");
        }
        assert!(parse_skill_md("no frontmatter").is_err());
        assert!(parse_skill_md("---\nname: a\n").is_err());
        assert!(parse("").is_err());
    }

    #[test]
    fn deep_nesting_is_refused_not_overflowed() {
        let mut front = String::new();
        for depth in 0..200 {
            front.push_str(&" ".repeat(depth));
            front.push_str("k:\n");
        }
        assert!(parse(&front).is_err());
    }
}
