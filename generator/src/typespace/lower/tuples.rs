//! Tuples: 2020-12 `prefixItems` and draft-07 array-form `items`, lowered to tuple structs.
//!
//! A tuple struct reads and writes an array of exactly its arity. That is the schema's meaning
//! when no further items are allowed (`items: false` after `prefixItems`, `additionalItems:
//! false` after array `items`) and every position is required (`minItems` = the length). Most
//! documents leave `minItems` and the closing keyword out and still mean a fixed pair or
//! triple, so their absence reads as the fixed length too. A tuple that admits a shorter array
//! (`minItems` below its length) or more items (an `items`/`additionalItems` schema after the
//! prefix, or `maxItems` above the length) stays a JSON value with a note saying why: no Rust
//! type holds it exactly.

use super::{doc_lines, Target};
use crate::typespace::ir::{Body, Builtin};
use crate::typespace::{TypeId, TypeSpace};
use serde_json::Value;

/// serde implements `Serialize`/`Deserialize` for tuples and derives them for tuple structs of
/// any arity, but a longer tuple is no longer readable as a Rust type.
const MAX_ARITY: usize = 16;

impl TypeSpace {
    /// An array schema with positional items (`prefix`), `rest` being what may follow them
    /// (`items` after `prefixItems`, `additionalItems` after array `items`).
    pub(super) fn lower_tuple(
        &mut self,
        schema: &Value,
        prefix: &[Value],
        rest: Option<&Value>,
        target: Target,
        notes: &mut Vec<String>,
    ) -> TypeId {
        if let Some(why) = not_fixed(schema, prefix.len(), rest) {
            notes.push(format!("A tuple {why}, kept as a JSON value."));
            return self.unnamed(target, Builtin::Value, schema, notes);
        }
        let (id, name) = self.reserve(target);
        let items = prefix
            .iter()
            .enumerate()
            .map(|(index, item)| {
                let mut ignored = Vec::new();
                let hint = format!("{name}{index}");
                self.lower(item, Target::Inline(&hint), &mut ignored)
            })
            .collect();
        notes.push(format!(
            "An array of exactly {} items, in this order.",
            prefix.len()
        ));
        self.set_body(id, doc_lines(schema, notes), Body::Tuple(items));
        notes.clear();
        id
    }
}

/// Why the array is not one of exactly `len` items of serde's tuple form, if it is not.
fn not_fixed(schema: &Value, len: usize, rest: Option<&Value>) -> Option<String> {
    let count = |key: &str| schema.get(key).and_then(Value::as_u64);
    let len64 = len as u64;
    let (min, max) = (count("minItems"), count("maxItems"));
    let open = match rest {
        Some(Value::Bool(false)) => false,
        // No closing keyword: fixed, unless the counts say more items may follow.
        None => max.is_some_and(|m| m > len64) || min.is_some_and(|m| m > len64),
        Some(_) => max.is_none_or(|m| m > len64),
    };
    if open {
        return Some("that allows items after its positional ones".to_string());
    }
    if min.is_some_and(|m| m < len64) {
        return Some("whose last items may be missing (`minItems` below its length)".to_string());
    }
    if max.is_some_and(|m| m < len64) {
        return Some(
            "that cannot hold all its positions (`maxItems` below its length)".to_string(),
        );
    }
    match len {
        0 => Some("of no items".to_string()),
        // A one-field tuple struct is a newtype to serde: read as its item, not as an array.
        1 => Some("of one item".to_string()),
        n if n > MAX_ARITY => Some(format!("of {n} items (more than {MAX_ARITY})")),
        _ => None,
    }
}
