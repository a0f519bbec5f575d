//! Whether two variants of an untagged union can accept the same JSON value, read from the IR.
//!
//! The answer is conservative: "no" only when the JSON types they accept are disjoint, when
//! their string enums share no value, or when they are structs that one member keeps apart (a
//! member one requires and the other, closed, does not declare; or a member both require with
//! types that do not overlap). Anything else, including `Value`, may overlap.

use super::ir::{Body, Builtin, Presence, StructDef, TypeKind, UntaggedVariant};
use super::{TypeId, TypeSpace};

/// How deep overlapping members are compared before "may overlap" is assumed.
const MAX_DEPTH: usize = 8;

/// The JSON types a value of some type may have, as bits.
const NULL: u8 = 1;
const BOOL: u8 = 2;
const INTEGER: u8 = 4;
/// A number that is not an integer.
const FRACTION: u8 = 8;
const STRING: u8 = 16;
const ARRAY: u8 = 32;
const OBJECT: u8 = 64;
const ANY: u8 = 127;

/// The first pair of variants (by index) that can accept the same value.
pub(crate) fn first_overlap(
    space: &TypeSpace,
    variants: &[UntaggedVariant],
) -> Option<(usize, usize)> {
    (0..variants.len()).find_map(|a| {
        (a + 1..variants.len())
            .find(|&b| overlaps(space, variants[a].ty, variants[b].ty, 0))
            .map(|b| (a, b))
    })
}

/// Whether some value is accepted by both `a` and `b`.
fn overlaps(space: &TypeSpace, a: TypeId, b: TypeId, depth: usize) -> bool {
    if depth > MAX_DEPTH {
        return true;
    }
    let (a, b) = (resolve(space, a), resolve(space, b));
    if kinds(space, a, 0) & kinds(space, b, 0) == 0 {
        return false;
    }
    match (body(space, a), body(space, b)) {
        (Some(Body::StringEnum(x)), Some(Body::StringEnum(y))) => x
            .variants
            .iter()
            .any(|v| y.variants.iter().any(|w| v.wire == w.wire)),
        (Some(Body::Struct(x)), Some(Body::Struct(y))) => !structs_apart(space, x, y, depth),
        _ => true,
    }
}

/// Whether no object is accepted by both structs.
fn structs_apart(space: &TypeSpace, x: &StructDef, y: &StructDef, depth: usize) -> bool {
    let excludes = |closed: &StructDef, other: &StructDef| {
        closed.deny_unknown_fields
            && !closed.fields.iter().any(|f| f.flatten)
            && other
                .fields
                .iter()
                .filter(|f| f.presence == Presence::Required && !f.flatten)
                .any(|f| !closed.fields.iter().any(|g| g.wire == f.wire))
    };
    if excludes(x, y) || excludes(y, x) {
        return true;
    }
    x.fields
        .iter()
        .filter(|f| f.presence == Presence::Required && !f.flatten)
        .any(|f| {
            y.fields.iter().any(|g| {
                g.wire == f.wire
                    && g.presence == Presence::Required
                    && !overlaps(space, f.ty, g.ty, depth + 1)
            })
        })
}

/// `ty` through aliases.
fn resolve(space: &TypeSpace, mut ty: TypeId) -> TypeId {
    for _ in 0..MAX_DEPTH {
        match body(space, ty) {
            Some(Body::Alias(target)) => ty = *target,
            _ => break,
        }
    }
    ty
}

fn body(space: &TypeSpace, ty: TypeId) -> Option<&Body> {
    space.named(ty).map(|named| &named.body)
}

/// The JSON types a value of `ty` may have (JSON Schema's view: a struct is an object).
fn kinds(space: &TypeSpace, ty: TypeId, depth: usize) -> u8 {
    if depth > MAX_DEPTH {
        return ANY;
    }
    match &space.types[ty.0] {
        TypeKind::Builtin(builtin) => match builtin {
            Builtin::String => STRING,
            Builtin::Bool => BOOL,
            Builtin::F64 => INTEGER | FRACTION,
            Builtin::Value => ANY,
            _ => INTEGER,
        },
        TypeKind::Vec(_) => ARRAY,
        TypeKind::Map(_) => OBJECT,
        TypeKind::Option(inner) => NULL | kinds(space, *inner, depth + 1),
        TypeKind::Named(named) => match &named.body {
            Body::Alias(target) => kinds(space, *target, depth + 1),
            Body::Struct(_) | Body::Tagged(_) => OBJECT,
            Body::StringEnum(_) => STRING,
            Body::Tuple(_) => ARRAY,
            Body::Literal(def) => def.variants.iter().fold(0, |all, v| {
                all | match &v.value {
                    serde_json::Value::Null => NULL,
                    serde_json::Value::Bool(_) => BOOL,
                    serde_json::Value::Number(n) if n.is_f64() => FRACTION,
                    serde_json::Value::Number(_) => INTEGER,
                    serde_json::Value::String(_) => STRING,
                    serde_json::Value::Array(_) => ARRAY,
                    serde_json::Value::Object(_) => OBJECT,
                }
            }),
            Body::Untagged(variants) => variants
                .iter()
                .fold(0, |all, v| all | kinds(space, v.ty, depth + 1)),
            // Still pending (cannot be once every schema is lowered), or a shape not known here.
            _ => ANY,
        },
    }
}
