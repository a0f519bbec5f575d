//! Which named types a few roots need, so the others can be compiled only behind a cargo
//! feature: the runtime's wire model compiles by default the types the runtime itself uses and
//! puts the rest of each revision behind `wire-full` (see `generator/tests/wire_model.rs`).

use super::ir::{Body, TypeKind, VariantFields};
use super::recursion::Boxing;
use super::{TypeId, TypeSpace};
use proc_macro2::TokenStream;
use quote::quote;

/// Named types outside `always` (and what they need) carry `#[cfg(feature = "<feature>")]`.
pub(crate) struct Gate {
    /// Per type index: whether it is compiled without the feature.
    always: Vec<bool>,
    /// `#[cfg(feature = "...")]`.
    cfg: TokenStream,
}

impl Gate {
    /// The types `roots` need (through fields, variants, aliases and containers), always
    /// compiled; every other named type behind `feature`.
    pub(crate) fn new(space: &TypeSpace, boxing: &Boxing, roots: &[TypeId], feature: &str) -> Self {
        let mut always = vec![false; space.types.len()];
        let mut stack: Vec<TypeId> = roots.to_vec();
        while let Some(ty) = stack.pop() {
            if std::mem::replace(&mut always[ty.0], true) {
                continue;
            }
            match &space.types[ty.0] {
                TypeKind::Builtin(_) => {}
                TypeKind::Vec(inner) | TypeKind::Map(inner) | TypeKind::Option(inner) => {
                    stack.push(*inner)
                }
                TypeKind::Named(named) => match &named.body {
                    // An alias on a cycle of aliases is emitted as `serde_json::Value`.
                    Body::Alias(_) if boxing.alias_in_cycle(ty) => {}
                    Body::Alias(target) => stack.push(*target),
                    Body::Struct(def) => stack.extend(def.fields.iter().map(|f| f.ty)),
                    Body::Tagged(def) => {
                        for variant in &def.variants {
                            // A variant declared by a struct copies its fields, so it needs
                            // their types, not the struct.
                            let fields = match &variant.fields {
                                VariantFields::Inline(def) => Some(def),
                                VariantFields::FromStruct(id) => space.struct_def(*id),
                            };
                            stack.extend(
                                fields
                                    .into_iter()
                                    .flat_map(|d| d.fields.iter().map(|f| f.ty)),
                            );
                        }
                    }
                    Body::Untagged(variants) => stack.extend(variants.iter().map(|v| v.ty)),
                    Body::Tuple(items) => stack.extend(items.iter().copied()),
                    Body::StringEnum(_) | Body::Literal(_) | Body::Pending(_) => {}
                },
            }
        }
        Self {
            always,
            cfg: quote!(#[cfg(feature = #feature)]),
        }
    }

    /// The attribute to put on the items of `ty`: none when it is always compiled.
    pub(crate) fn attr(&self, ty: TypeId) -> Option<&TokenStream> {
        (!self.always[ty.0]).then_some(&self.cfg)
    }

    /// Whether `ty` is always compiled.
    pub(crate) fn is_always(&self, ty: TypeId) -> bool {
        self.always[ty.0]
    }

    /// The attribute for an item every type of `users` may need: none when one of them is
    /// always compiled.
    pub(crate) fn attr_for_any(
        &self,
        mut users: impl Iterator<Item = TypeId>,
    ) -> Option<&TokenStream> {
        (!users.any(|ty| self.is_always(ty))).then_some(&self.cfg)
    }
}
