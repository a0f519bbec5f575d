//! Where a `Box` is needed: a type that contains itself by value (directly, or through `Option`
//! and other named types, but not through `Vec` or `BTreeMap`, which already allocate).
//!
//! Every edge between two types of the same strongly connected component of the by-value graph
//! gets a box; that breaks every cycle, and is deterministic.

use super::ir::{Body, TypeKind, VariantFields};
use super::{TypeId, TypeSpace};
use std::collections::BTreeSet;

/// Which named types each named type reaches by value.
pub(crate) struct Boxing {
    reach: Vec<BTreeSet<usize>>,
}

impl Boxing {
    /// Computes reachability over the by-value edges of `space`.
    pub(crate) fn new(space: &TypeSpace) -> Self {
        let edges: Vec<Vec<usize>> = (0..space.types.len()).map(|i| edges_of(space, i)).collect();
        let reach = (0..space.types.len())
            .map(|start| {
                let mut seen = BTreeSet::new();
                let mut stack = edges[start].clone();
                while let Some(next) = stack.pop() {
                    if seen.insert(next) {
                        stack.extend(edges[next].iter().copied());
                    }
                }
                seen
            })
            .collect();
        Self { reach }
    }

    /// Whether a by-value use of `target` inside `container` closes a cycle.
    pub(crate) fn needs_box(&self, container: TypeId, target: TypeId) -> bool {
        target == container || self.reach[target.0].contains(&container.0)
    }
}

/// Named types held by value in a use of `ty`.
fn by_value(space: &TypeSpace, ty: TypeId, out: &mut Vec<usize>) {
    match &space.types[ty.0] {
        TypeKind::Named(_) => out.push(ty.0),
        TypeKind::Option(inner) => by_value(space, *inner, out),
        TypeKind::Builtin(_) | TypeKind::Vec(_) | TypeKind::Map(_) => {}
    }
}

/// Named types a named type holds by value.
fn edges_of(space: &TypeSpace, index: usize) -> Vec<usize> {
    let mut out = Vec::new();
    let TypeKind::Named(named) = &space.types[index] else {
        return out;
    };
    match &named.body {
        Body::Alias(target) => by_value(space, *target, &mut out),
        Body::Struct(def) => def
            .fields
            .iter()
            .for_each(|f| by_value(space, f.ty, &mut out)),
        Body::Tagged(def) => {
            for variant in &def.variants {
                let fields = match &variant.fields {
                    VariantFields::FromStruct(id) => space.struct_def(*id).map(|d| &d.fields),
                    VariantFields::Inline(def) => Some(&def.fields),
                };
                fields
                    .into_iter()
                    .flatten()
                    .for_each(|f| by_value(space, f.ty, &mut out));
            }
        }
        Body::Untagged(variants) => variants
            .iter()
            .for_each(|v| by_value(space, v.ty, &mut out)),
        Body::StringEnum(_) | Body::Pending(_) => {}
    }
    out
}
