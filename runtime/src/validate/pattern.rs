//! `pattern` and `patternProperties` (the runtime's `pattern` feature, which brings the `regex`
//! crate): each pattern is compiled once, on first use, by [`crate::compiled_pattern!`].

use super::{Path, Violations};

#[doc(hidden)]
pub use regex::Regex;

/// `pattern`: `regex` (compiled once by the generated code) matches somewhere in `value`.
#[inline]
#[doc(hidden)]
pub fn pattern(value: &str, regex: &Regex, source: &str, path: &Path<'_>, out: &mut Violations) {
    if !regex.is_match(value) {
        out.push(
            path,
            "pattern",
            format!("must match the pattern {source:?}"),
        );
    }
}

/// Compiles a `pattern` the generator already compiled with the same crate. Should it fail all
/// the same, the result matches everything: the rule is then not enforced, and nothing panics.
#[doc(hidden)]
pub fn compile_pattern(source: &str) -> Regex {
    Regex::new(source).unwrap_or_else(|_| Regex::new("").expect("the empty pattern compiles"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_match_anywhere_and_bad_ones_match_everything() {
        let root = Path::Root;
        let mut out = Violations::new();
        let digits = compile_pattern("[0-9]+");
        pattern("ab12", &digits, "[0-9]+", &root, &mut out);
        assert!(out.is_empty());
        pattern("abc", &digits, "[0-9]+", &root.key("p"), &mut out);
        assert_eq!(out.message(), r#"/p: must match the pattern "[0-9]+""#);
        assert!(compile_pattern("(").is_match("anything"));
    }

    #[test]
    fn the_macro_compiles_each_pattern_once() {
        fn digits() -> &'static Regex {
            crate::compiled_pattern!("^[0-9]+$")
        }
        assert!(digits().is_match("42") && !digits().is_match("4a"));
        assert!(std::ptr::eq(digits(), digits()));
    }
}
