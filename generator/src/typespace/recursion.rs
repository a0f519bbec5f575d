//! Where a `Box` is needed: a type that contains itself by value (directly, or through `Option`
//! and other named types, but not through `Vec` or `BTreeMap`, which already allocate).
//!
//! Every edge between two types of the same strongly connected component of the by-value graph
//! gets a box; that breaks every cycle, and is deterministic.

use super::ir::{Body, TypeKind, VariantFields};
use super::{TypeId, TypeSpace};

/// Which strongly connected component of the by-value graph each type is in, and which
/// aliases name themselves.
pub(crate) struct Boxing {
    component: Vec<usize>,
    alias_in_cycle: Vec<bool>,
}

impl Boxing {
    /// Computes the components of the by-value graph of `space`, in time linear in its types
    /// and edges (reachability from every type was quadratic: 20 000 types in a chain took
    /// minutes), and the aliases on a cycle of aliases.
    pub(crate) fn new(space: &TypeSpace) -> Self {
        let edges: Vec<Vec<usize>> = (0..space.types.len()).map(|i| edges_of(space, i)).collect();
        Self {
            component: components(&edges),
            alias_in_cycle: aliases_in_cycles(space),
        }
    }

    /// Whether `alias` (a `pub type`) names itself, through other aliases and any container:
    /// Rust rejects such an alias (`type A = Vec<A>;` included), so it is emitted as a JSON value.
    pub(crate) fn alias_in_cycle(&self, alias: TypeId) -> bool {
        self.alias_in_cycle[alias.0]
    }

    /// Whether a by-value use of `target` inside `container` closes a cycle: `target` is
    /// `container`, or reaches it back (which, for a use, means they share a component).
    pub(crate) fn needs_box(&self, container: TypeId, target: TypeId) -> bool {
        target == container || self.component[target.0] == self.component[container.0]
    }
}

/// The strongly connected component of every node (Tarjan's algorithm, with an explicit stack
/// so a chain of any length does not recurse).
fn components(edges: &[Vec<usize>]) -> Vec<usize> {
    const UNSEEN: usize = usize::MAX;
    let n = edges.len();
    let mut index = vec![UNSEEN; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut component = vec![UNSEEN; n];
    let mut stack = Vec::new();
    let (mut next_index, mut next_component) = (0, 0);
    // (node, how many of its edges were followed)
    let mut work: Vec<(usize, usize)> = Vec::new();
    for root in 0..n {
        if index[root] != UNSEEN {
            continue;
        }
        work.push((root, 0));
        while let Some(&mut (node, ref mut followed)) = work.last_mut() {
            if *followed == 0 && index[node] == UNSEEN {
                index[node] = next_index;
                low[node] = next_index;
                next_index += 1;
                stack.push(node);
                on_stack[node] = true;
            }
            if let Some(&next) = edges[node].get(*followed) {
                *followed += 1;
                if index[next] == UNSEEN {
                    work.push((next, 0));
                } else if on_stack[next] {
                    low[node] = low[node].min(index[next]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[node]);
            }
            if low[node] == index[node] {
                while let Some(member) = stack.pop() {
                    on_stack[member] = false;
                    component[member] = next_component;
                    if member == node {
                        break;
                    }
                }
                next_component += 1;
            }
        }
    }
    component
}

/// The aliases on a cycle of the graph from each alias to the aliases its target names.
fn aliases_in_cycles(space: &TypeSpace) -> Vec<bool> {
    let is_alias = |i: usize| {
        matches!(
            &space.types[i],
            TypeKind::Named(named) if matches!(named.body, Body::Alias(_))
        )
    };
    let edges: Vec<Vec<usize>> = (0..space.types.len())
        .map(|i| match &space.types[i] {
            TypeKind::Named(named) => match named.body {
                Body::Alias(target) => {
                    let mut out = Vec::new();
                    named_in(space, target, &mut out);
                    out.retain(|&j| is_alias(j));
                    out
                }
                _ => Vec::new(),
            },
            _ => Vec::new(),
        })
        .collect();
    let component = components(&edges);
    let mut size = vec![0usize; space.types.len()];
    for &c in &component {
        size[c] += 1;
    }
    (0..space.types.len())
        .map(|i| size[component[i]] > 1 || edges[i].contains(&i))
        .collect()
}

/// Named types a use of `ty` names, through any container.
fn named_in(space: &TypeSpace, ty: TypeId, out: &mut Vec<usize>) {
    match &space.types[ty.0] {
        TypeKind::Named(_) => out.push(ty.0),
        TypeKind::Option(inner) | TypeKind::Vec(inner) | TypeKind::Map(inner) => {
            named_in(space, *inner, out)
        }
        TypeKind::Builtin(_) => {}
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
        Body::Tuple(items) => items.iter().for_each(|t| by_value(space, *t, &mut out)),
        Body::StringEnum(_) | Body::Literal(_) | Body::Pending(_) => {}
    }
    out
}

#[cfg(test)]
mod tests {
    use super::components;

    #[test]
    fn components_of_cycles_chains_and_self_loops() {
        // 0 -> 1 -> 2 -> 0 is a cycle; 3 -> 0 and 3 -> 4 hang off it; 4 loops on itself.
        let edges = vec![vec![1], vec![2], vec![0], vec![0, 4], vec![4]];
        let c = components(&edges);
        assert!(c[0] == c[1] && c[1] == c[2]);
        assert!(c[3] != c[0] && c[4] != c[0] && c[3] != c[4]);
    }

    #[test]
    fn a_long_chain_does_not_recurse() {
        let n = 200_000;
        let mut edges: Vec<Vec<usize>> = (0..n).map(|i| vec![i + 1]).collect();
        edges[n - 1] = vec![0];
        let c = components(&edges);
        assert!(c.iter().all(|&x| x == c[0]));
    }
}
