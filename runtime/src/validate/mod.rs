//! Arguments checked against the schema their tool, prompt or method publishes, before the
//! handler runs.
//!
//! serde checks what a Rust type can say (types, required members, string enums, unknown
//! members of a closed object); the rest of a schema (`minimum`, `maxLength`, `pattern`,
//! `format`, `minItems`, `uniqueItems`, `const`, ...) is checked by code the generator writes
//! for each params type: an implementation of [`Validate`] that calls the helpers of this
//! module for exactly the rules the schema has. Nothing reads a schema at run time, and a type
//! whose schema has no such rule has no implementation and costs nothing.
//!
//! Every violation is collected ([`Violations`]) with its JSON pointer, and reported in one
//! message: `/limit: must be ≥ 1; /tags/2: must be at most 8 characters long`. Arguments that
//! do not decode at all are described the same way by [`decode_error`]
//! (`/a: expected an integer, got a string`).

mod alternatives;
mod applicators;
mod decode;
mod error;
mod every_problem;
#[doc(hidden)]
pub mod formats;
#[cfg(feature = "pattern")]
mod pattern;
mod problem;
mod whole_value;

pub use alternatives::{explain, no_alternative, no_alternative_in, Explain, Miss};
pub use applicators::{has_members, has_type, not, otherwise, pattern_property, then};
pub use decode::{decode_error, decode_with_path};
pub use error::{DecodeError, Invalid};
#[cfg(feature = "pattern")]
pub use pattern::{compile_pattern, pattern, Regex};
pub use whole_value::deserialize_whole_value;

/// The `&'static` [`Regex`] of a schema's `pattern`, compiled on first use ([`compile_pattern`]).
/// Generated code calls it for `pattern` and `patternProperties`; it needs the runtime's
/// `pattern` feature, which the generator's scaffold turns on for contracts that have patterns.
#[cfg(feature = "pattern")]
#[macro_export]
#[doc(hidden)]
macro_rules! compiled_pattern {
    ($source:literal) => {{
        static PATTERN: ::std::sync::LazyLock<$crate::validate::Regex> =
            ::std::sync::LazyLock::new(|| $crate::validate::compile_pattern($source));
        &*PATTERN
    }};
}

/// Without the runtime's `pattern` feature, a contract's `pattern` cannot be checked: the
/// generated code that needs it does not compile, and says what to add to `Cargo.toml`.
#[cfg(not(feature = "pattern"))]
#[macro_export]
#[doc(hidden)]
macro_rules! compiled_pattern {
    ($source:literal) => {
        ::std::compile_error!(::std::concat!(
            "the contract has a `pattern` (",
            $source,
            "), which needs mcp-runtime's `pattern` feature: in Cargo.toml, ",
            "mcp-runtime = { ..., features = [\"pattern\"] }"
        ))
    };
}

use serde::Serialize;
use serde_json::Value;
use std::fmt::{self, Write as _};

/// Implemented by generated params types whose schema has rules serde does not check.
pub trait Validate {
    /// Adds to `out` every rule of the schema that `self`, found at `path`, breaks.
    fn validate(&self, path: &Path<'_>, out: &mut Violations);
}

impl<T: Validate + ?Sized> Validate for Box<T> {
    #[inline]
    fn validate(&self, path: &Path<'_>, out: &mut Violations) {
        (**self).validate(path, out);
    }
}

/// Checks `value` from the root: `Err` holds every violation (its `to_string()` is the
/// message naming them all).
#[inline]
#[doc(hidden)]
pub fn check<T: Validate + ?Sized>(value: &T) -> Result<(), Invalid> {
    let mut out = Violations::new();
    value.validate(&Path::Root, &mut out);
    if out.is_empty() {
        Ok(())
    } else {
        Err(Invalid::from(out))
    }
}

/// Where a value sits in the arguments: a linked list on the stack, turned into a JSON pointer
/// only when a rule is broken.
#[derive(Debug, Clone, Copy)]
pub enum Path<'a> {
    /// The arguments object itself.
    Root,
    /// The member `key` of the object at the parent path.
    Key(&'a Path<'a>, &'a str),
    /// The element `index` of the array at the parent path.
    Index(&'a Path<'a>, usize),
}

impl<'a> Path<'a> {
    /// The member `key` of the value at this path.
    #[inline]
    pub fn key(&'a self, key: &'a str) -> Path<'a> {
        Path::Key(self, key)
    }

    /// The element `index` of the array at this path.
    #[inline]
    pub fn index(&'a self, index: usize) -> Path<'a> {
        Path::Index(self, index)
    }

    /// The JSON pointer (RFC 6901) of this path: `""` for the root, `/a/0/b~1c` below it.
    pub fn pointer(&self) -> String {
        let mut segments = Vec::new();
        let mut at = self;
        loop {
            match at {
                Path::Root => break,
                Path::Key(parent, key) => {
                    segments.push(Segment::Key(key));
                    at = parent;
                }
                Path::Index(parent, index) => {
                    segments.push(Segment::Index(*index));
                    at = parent;
                }
            }
        }
        let mut out = String::new();
        for segment in segments.iter().rev() {
            match segment {
                Segment::Key(key) => push_pointer_key(&mut out, key),
                Segment::Index(index) => {
                    let _ = write!(out, "/{index}");
                }
            }
        }
        out
    }
}

enum Segment<'a> {
    Key(&'a str),
    Index(usize),
}

/// Appends `/key` to a JSON pointer, `~` written `~0` and `/` written `~1`.
pub(crate) fn push_pointer_key(out: &mut String, key: &str) {
    out.push('/');
    for c in key.chars() {
        match c {
            '~' => out.push_str("~0"),
            '/' => out.push_str("~1"),
            c => out.push(c),
        }
    }
}

/// The rules a value broke, each with its JSON pointer. At most [`MAX_VIOLATIONS`] are kept
/// (the count of the rest is still reported), so hostile arguments cannot make the message
/// grow without bound.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Violations {
    list: Vec<Violation>,
    dropped: usize,
}

/// How many violations one message lists.
pub const MAX_VIOLATIONS: usize = 32;

/// One broken rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// The JSON pointer of the value (`""` for the arguments object itself).
    pub pointer: String,
    /// The schema keyword (`minimum`, `maxLength`, `type`, ...).
    pub keyword: &'static str,
    /// What the value must be (`must be ≥ 1`).
    pub message: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pointer = if self.pointer.is_empty() {
            "(root)"
        } else {
            &self.pointer
        };
        write!(f, "{pointer}: {}", self.message)
    }
}

impl Violations {
    /// None yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether no rule was broken.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// The violations kept, in the order they were found.
    pub fn list(&self) -> &[Violation] {
        &self.list
    }

    /// Records that the value at `path` broke `keyword`: `message` says what it must be.
    #[cold]
    pub fn push(&mut self, path: &Path<'_>, keyword: &'static str, message: impl Into<String>) {
        self.push_pointer(path.pointer(), keyword, message.into());
    }

    /// [`Violations::push`] with the pointer already made.
    #[cold]
    pub fn push_pointer(&mut self, pointer: String, keyword: &'static str, message: String) {
        if self.list.len() >= MAX_VIOLATIONS {
            self.dropped += 1;
            return;
        }
        self.list.push(Violation {
            pointer,
            keyword,
            message,
        });
    }

    /// Every violation, `; `-separated: `/limit: must be ≥ 1; /name: must be at least 1
    /// character long` (the [`Display`](fmt::Display) text).
    pub fn message(&self) -> String {
        self.to_string()
    }
}

impl fmt::Display for Violations {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, violation) in self.list.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{violation}")?;
        }
        if self.dropped > 0 {
            write!(f, "; and {} more", self.dropped)?;
        }
        Ok(())
    }
}

/// A number a numeric rule compares: every integer type and `f64`, compared as `f64` (exact
/// for integers up to 2^53).
#[doc(hidden)]
pub trait Number: Copy {
    /// The value as `f64`.
    fn as_f64(self) -> f64;
}

macro_rules! number {
    ($($t:ty),*) => {$(
        impl Number for $t {
            #[inline]
            fn as_f64(self) -> f64 {
                self as f64
            }
        }
    )*};
}
number!(i8, i16, i32, i64, u8, u16, u32, u64, f64);

/// A bound as the message writes it: `1`, not `1.0`.
fn show(bound: f64) -> String {
    if bound.fract() == 0.0 && bound.abs() < 1e15 {
        format!("{}", bound as i64)
    } else {
        format!("{bound}")
    }
}

/// `minimum` (`exclusive`: `exclusiveMinimum`).
#[inline]
#[doc(hidden)]
pub fn minimum<N: Number>(
    value: N,
    bound: f64,
    exclusive: bool,
    path: &Path<'_>,
    out: &mut Violations,
) {
    let v = value.as_f64();
    if exclusive && v <= bound {
        out.push(
            path,
            "exclusiveMinimum",
            format!("must be > {}", show(bound)),
        );
    } else if !exclusive && v < bound {
        out.push(path, "minimum", format!("must be ≥ {}", show(bound)));
    }
}

/// `maximum` (`exclusive`: `exclusiveMaximum`).
#[inline]
#[doc(hidden)]
pub fn maximum<N: Number>(
    value: N,
    bound: f64,
    exclusive: bool,
    path: &Path<'_>,
    out: &mut Violations,
) {
    let v = value.as_f64();
    if exclusive && v >= bound {
        out.push(
            path,
            "exclusiveMaximum",
            format!("must be < {}", show(bound)),
        );
    } else if !exclusive && v > bound {
        out.push(path, "maximum", format!("must be ≤ {}", show(bound)));
    }
}

/// `multipleOf` (`factor` > 0): the quotient is an integer, within floating-point rounding.
#[inline]
#[doc(hidden)]
pub fn multiple_of<N: Number>(value: N, factor: f64, path: &Path<'_>, out: &mut Violations) {
    let quotient = value.as_f64() / factor;
    let off = (quotient - quotient.round()).abs();
    if !quotient.is_finite() || off > 1e-9 * quotient.abs().max(1.0) {
        out.push(
            path,
            "multipleOf",
            format!("must be a multiple of {}", show(factor)),
        );
    }
}

/// The length JSON Schema gives a string: its number of characters (code points).
#[inline]
fn length(value: &str) -> usize {
    // Bytes bound the count from above and below: ASCII-only strings need no count.
    if value.is_ascii() {
        value.len()
    } else {
        value.chars().count()
    }
}

fn characters(n: u64) -> &'static str {
    if n == 1 {
        "character"
    } else {
        "characters"
    }
}

/// `minLength`, in characters.
#[inline]
#[doc(hidden)]
pub fn min_length(value: &str, bound: u64, path: &Path<'_>, out: &mut Violations) {
    // Fewer bytes than the bound is short without counting (a character is at least a byte).
    if (value.len() as u64) < bound || (length(value) as u64) < bound {
        out.push(
            path,
            "minLength",
            format!("must be at least {bound} {} long", characters(bound)),
        );
    }
}

/// `maxLength`, in characters.
#[inline]
#[doc(hidden)]
pub fn max_length(value: &str, bound: u64, path: &Path<'_>, out: &mut Violations) {
    // A string of at most `bound` bytes has at most `bound` characters: no count needed.
    if value.len() as u64 > bound && length(value) as u64 > bound {
        out.push(
            path,
            "maxLength",
            format!("must be at most {bound} {} long", characters(bound)),
        );
    }
}

/// `format`: `check` is one of [`formats`]' checkers, `name` the format's name.
#[inline]
#[doc(hidden)]
pub fn format(
    value: &str,
    check: fn(&str) -> bool,
    name: &str,
    path: &Path<'_>,
    out: &mut Violations,
) {
    if !check(value) {
        out.push(path, "format", format!("must be a valid {name}"));
    }
}

fn items(n: u64) -> &'static str {
    if n == 1 {
        "item"
    } else {
        "items"
    }
}

/// `minItems`.
#[inline]
#[doc(hidden)]
pub fn min_items(len: usize, bound: u64, path: &Path<'_>, out: &mut Violations) {
    if (len as u64) < bound {
        out.push(
            path,
            "minItems",
            format!("must have at least {bound} {}", items(bound)),
        );
    }
}

/// `maxItems`.
#[inline]
#[doc(hidden)]
pub fn max_items(len: usize, bound: u64, path: &Path<'_>, out: &mut Violations) {
    if len as u64 > bound {
        out.push(
            path,
            "maxItems",
            format!("must have at most {bound} {}", items(bound)),
        );
    }
}

/// Past this many items, `uniqueItems` compares the items' JSON text (sorted) rather than
/// every pair, so a long array costs `n log n`, not `n²`.
const PAIRWISE_UNIQUE: usize = 32;

/// `uniqueItems`: no two items are equal.
#[doc(hidden)]
pub fn unique_items<T: PartialEq + Serialize>(items: &[T], path: &Path<'_>, out: &mut Violations) {
    let duplicate = if items.len() <= PAIRWISE_UNIQUE {
        items
            .iter()
            .enumerate()
            .any(|(i, a)| items[i + 1..].iter().any(|b| a == b))
    } else {
        let mut texts: Vec<String> = items
            .iter()
            .map(|item| serde_json::to_string(item).unwrap_or_default())
            .collect();
        texts.sort_unstable();
        texts.windows(2).any(|pair| pair[0] == pair[1])
    };
    if duplicate {
        out.push(path, "uniqueItems", "must not have duplicate items");
    }
}

fn properties(n: u64) -> &'static str {
    if n == 1 {
        "property"
    } else {
        "properties"
    }
}

/// `minProperties`.
#[inline]
#[doc(hidden)]
pub fn min_properties(len: usize, bound: u64, path: &Path<'_>, out: &mut Violations) {
    if (len as u64) < bound {
        out.push(
            path,
            "minProperties",
            format!("must have at least {bound} {}", properties(bound)),
        );
    }
}

/// `maxProperties`.
#[inline]
#[doc(hidden)]
pub fn max_properties(len: usize, bound: u64, path: &Path<'_>, out: &mut Violations) {
    if len as u64 > bound {
        out.push(
            path,
            "maxProperties",
            format!("must have at most {bound} {}", properties(bound)),
        );
    }
}

/// `const`: `value` equals `expected` (numbers by value: `1` equals `1.0`).
#[doc(hidden)]
pub fn constant(value: &Value, expected: &Value, path: &Path<'_>, out: &mut Violations) {
    if !json_equal(value, expected) {
        out.push(path, "const", format!("must be {expected}"));
    }
}

/// `enum`: `value` equals one of `allowed`.
#[doc(hidden)]
pub fn one_of(value: &Value, allowed: &[Value], path: &Path<'_>, out: &mut Violations) {
    if !allowed.iter().any(|a| json_equal(value, a)) {
        let listed: Vec<String> = allowed.iter().map(Value::to_string).collect();
        out.push(
            path,
            "enum",
            format!("must be one of {}", listed.join(", ")),
        );
    }
}

/// JSON Schema's equality: numbers by mathematical value, objects whatever their members'
/// order, everything else structurally.
#[doc(hidden)]
pub fn json_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_i64(), y.as_i64()) {
            (Some(x), Some(y)) => x == y,
            _ => match (x.as_u64(), y.as_u64()) {
                (Some(x), Some(y)) => x == y,
                _ => x.as_f64() == y.as_f64(),
            },
        },
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| json_equal(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_equal(v, w)))
        }
        _ => a == b,
    }
}

/// Parses the JSON text of a `const` or `enum` the generator wrote (valid by construction);
/// `null` if it somehow is not, so a server never panics over it.
#[doc(hidden)]
pub fn constant_value(json: &str) -> Value {
    serde_json::from_str(json).unwrap_or(Value::Null)
}

/// Parses the JSON array text of an `enum` the generator wrote; empty if it somehow is not an
/// array, so a server never panics over it.
#[doc(hidden)]
pub fn constant_values(json: &str) -> Vec<Value> {
    match serde_json::from_str(json) {
        Ok(Value::Array(values)) => values,
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests;
