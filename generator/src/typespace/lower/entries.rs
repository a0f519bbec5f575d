//! Where a lowering's result goes: an alias for a registered target, or a reserved named entry
//! whose docs and body are set once known.

use super::{doc_lines, Target};
use crate::names::camel_ident;
use crate::typespace::ir::{Body, Builtin, Named, TypeKind};
use crate::typespace::{TypeId, TypeSpace};
use serde_json::Value;

impl TypeSpace {
    /// A built-in result: into a registered target it becomes an alias.
    pub(super) fn unnamed(
        &mut self,
        target: Target,
        builtin: Builtin,
        schema: &Value,
        notes: &mut Vec<String>,
    ) -> TypeId {
        let id = self.builtin(builtin);
        self.alias_or(target, id, schema, notes)
    }

    /// `id` itself inline; `pub type Name = id;` for a registered target.
    pub(super) fn alias_or(
        &mut self,
        target: Target,
        id: TypeId,
        schema: &Value,
        notes: &mut Vec<String>,
    ) -> TypeId {
        match target {
            Target::Inline(_) => id,
            Target::Registered(own) => {
                let docs = doc_lines(schema, notes);
                notes.clear();
                self.set_body(own, docs, Body::Alias(id));
                own
            }
        }
    }

    /// The entry a named result goes into: the registered one, or a new one named after the hint.
    pub(super) fn reserve(&mut self, target: Target) -> (TypeId, String) {
        match target {
            Target::Registered(id) => (id, self.type_name(id).unwrap_or_default().to_string()),
            Target::Inline(hint) => {
                let name = self.type_names.unique_ident(&camel_ident(hint));
                let body = Body::Untagged(Vec::new());
                let id = self.push(TypeKind::Named(Named {
                    name: name.clone(),
                    docs: Vec::new(),
                    body,
                }));
                if let Some(owner) = self.lowering {
                    self.owners.insert(id, owner);
                }
                (id, name)
            }
        }
    }

    pub(super) fn set_body(&mut self, id: TypeId, docs: Vec<String>, body: Body) {
        if let TypeKind::Named(named) = &mut self.types[id.0] {
            named.docs = docs;
            named.body = body;
        }
    }

    /// The name sub-types of `target` are called after.
    pub(super) fn hint_of(&self, target: Target) -> String {
        match target {
            Target::Registered(id) => self.type_name(id).unwrap_or_default().to_string(),
            Target::Inline(hint) => hint.to_string(),
        }
    }
}
