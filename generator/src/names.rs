//! Rust names from wire names: case conversion, keyword escaping, collision resolution.
//!
//! One place decides every identifier the generator emits, so the same input always yields the
//! same names and no two items collide.

use heck::{ToSnakeCase, ToUpperCamelCase};
use std::collections::BTreeSet;
use std::fmt::Write;

/// Rust keywords that cannot be used as plain identifiers (strict and reserved, 2021 edition).
const KEYWORDS: &[&str] = &[
    "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "crate",
    "do", "dyn", "else", "enum", "extern", "false", "final", "fn", "for", "gen", "if", "impl",
    "in", "let", "loop", "macro", "match", "mod", "move", "mut", "override", "priv", "pub", "ref",
    "return", "self", "Self", "static", "struct", "super", "trait", "true", "try", "type",
    "typeof", "union", "unsafe", "unsized", "use", "virtual", "where", "while", "yield",
];

/// The longest identifier made from a wire name. Nested type names are built from their
/// parents', so without a bound a deep document with long names would make names of megabytes.
pub const MAX_IDENT_LEN: usize = 128;

/// True for a Rust keyword (strict or reserved), which a plain identifier cannot be.
pub fn is_keyword(word: &str) -> bool {
    KEYWORDS.contains(&word)
}

/// Keywords that cannot even be raw identifiers; they get a trailing underscore instead.
const NOT_RAW: &[&str] = &["crate", "self", "Self", "super"];

/// Maps any wire name to a valid identifier in `snake_case` (fields, methods, modules).
pub fn snake_ident(wire: &str) -> String {
    sanitize(&clean(wire).to_snake_case(), "field")
}

/// Maps any wire name to a valid identifier in `UpperCamelCase` (types, variants).
pub fn camel_ident(wire: &str) -> String {
    sanitize(&clean(wire).to_upper_camel_case(), "Type")
}

/// Replaces characters heck would drop silently with word breaks, and spells every other
/// non-ASCII letter or digit as `u<hex>`: identifiers are ASCII, so none is invalid (`²` is
/// alphanumeric but no identifier character), none looks like another, and none hides a
/// bidirectional control. A leading `$` or `@` is spelled
/// out (`$ref` becomes `dollar_ref`); leading underscores are dropped (`_meta` becomes `meta`, and a
/// clash with a real `meta` is resolved by [`Scope`]).
fn clean(wire: &str) -> String {
    let mut out = String::with_capacity(wire.len() + 8);
    let rest = wire.trim_start_matches('_');
    let rest = if let Some(r) = rest.strip_prefix('$') {
        out.push_str("dollar ");
        r
    } else if let Some(r) = rest.strip_prefix('@') {
        out.push_str("at ");
        r
    } else {
        rest
    };
    for c in rest.chars() {
        match c {
            '+' => out.push_str(" plus "),
            c if c.is_ascii_alphanumeric() => out.push(c),
            // Spelled out as a word of its own, so distinct names stay distinct.
            c if c.is_alphanumeric() => {
                let _ = write!(out, " u{:04x} ", u32::from(c));
            }
            _ => out.push(' '),
        }
    }
    out.trim().to_string()
}

/// Makes `candidate` a valid identifier: ASCII letters, digits and `_` only, at most
/// [`MAX_IDENT_LEN`] of them, not only underscores (`_` is no identifier), not starting with a
/// digit, keywords escaped (`type` becomes `r#type`; `self` becomes `self_`).
pub fn sanitize(candidate: &str, fallback: &str) -> String {
    let mut name: String = candidate
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
        .take(MAX_IDENT_LEN)
        .collect();
    if name.chars().all(|c| c == '_') {
        name = fallback.to_string();
    }
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        name.insert(0, '_');
    }
    if NOT_RAW.contains(&name.as_str()) {
        name.push('_');
    } else if KEYWORDS.contains(&name.as_str()) {
        name.insert_str(0, "r#");
    }
    name
}

/// Hands out identifiers unique within one scope, resolving collisions the same way every time:
/// the first taker keeps the name, later ones get `_2`, `_3`, ... (or `2`, `3` for camel case).
#[derive(Debug, Default, Clone)]
pub struct Scope {
    taken: BTreeSet<String>,
}

impl Scope {
    /// An empty scope.
    pub fn new() -> Self {
        Self::default()
    }

    /// Reserves `name` so that no later call gets it (e.g. names the runtime already uses).
    pub fn reserve(&mut self, name: &str) {
        self.taken.insert(name.trim_start_matches("r#").to_string());
    }

    /// Returns `name`, or the first free `name_N` / `NameN` when it is taken, and reserves it.
    pub fn unique_ident(&mut self, name: &str) -> String {
        let bare = name.trim_start_matches("r#");
        if self.taken.insert(bare.to_string()) {
            return name.to_string();
        }
        let camel = bare.starts_with(|c: char| c.is_ascii_uppercase());
        let base = bare.trim_end_matches('_');
        (2..)
            .map(|n| {
                if camel {
                    format!("{base}{n}")
                } else {
                    format!("{base}_{n}")
                }
            })
            .find(|candidate| self.taken.insert(candidate.clone()))
            .expect("an unbounded range always yields a free name")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn converts_and_escapes() {
        assert_eq!(snake_ident("petId"), "pet_id");
        assert_eq!(snake_ident("type"), "r#type");
        assert_eq!(snake_ident("self"), "self_");
        assert_eq!(snake_ident("_meta"), "meta");
        assert_eq!(snake_ident("$ref"), "dollar_ref");
        assert_eq!(snake_ident("2fa"), "_2fa");
        assert_eq!(snake_ident(""), "field");
        assert_eq!(camel_ident("Filecoin.ChainHead"), "FilecoinChainHead");
        assert_eq!(camel_ident("text/plain"), "TextPlain");
        assert_eq!(camel_ident("+1"), "Plus1");
        assert_eq!(camel_ident("-1"), "_1");
    }

    #[test]
    fn hostile_names_become_plain_ascii_identifiers() {
        assert_eq!(snake_ident("a²"), "a_u00b2");
        assert_eq!(snake_ident("名前"), "u540d_u524d");
        assert_eq!(camel_ident("x\u{202E}y\"z\\"), "XYZ");
        assert_eq!(
            snake_ident("\"); panic!(\"INJECTED\"); //"),
            "panic_injected"
        );
        assert_eq!(sanitize("__", "field"), "field");
        assert_eq!(snake_ident(&"ab".repeat(200)).len(), MAX_IDENT_LEN);
        for name in [
            "a²",
            "x\u{202E}",
            "ǅ",
            "٣",
            "\u{0}",
            "__",
            "self",
            "Self",
            "crate",
            "gen",
        ] {
            for ident in [snake_ident(name), camel_ident(name)] {
                let bare = ident.trim_start_matches("r#");
                assert!(bare.is_ascii() && !bare.is_empty(), "{name:?} -> {ident:?}");
                let _ = crate::tokens::ident(&ident);
            }
        }
    }

    #[test]
    fn collisions_resolve_deterministically() {
        let mut scope = Scope::new();
        assert_eq!(scope.unique_ident("pet"), "pet");
        assert_eq!(scope.unique_ident("pet"), "pet_2");
        assert_eq!(scope.unique_ident("pet"), "pet_3");
        assert_eq!(scope.unique_ident("Pet"), "Pet");
        assert_eq!(scope.unique_ident("Pet"), "Pet2");
        assert_eq!(scope.unique_ident("r#type"), "r#type");
        assert_eq!(scope.unique_ident("type"), "type_2");
    }
}
