//! JSON Schema to Rust types: lowers schemas into an IR of named types, then emits them.

use proc_macro2::TokenStream;
use serde_json::Value;

/// A handle to a lowered type (a named type of the space, or a built-in one).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TypeId(pub usize);

/// The set of types lowered from a document's schemas.
#[derive(Debug, Default)]
pub struct TypeSpace {}

impl TypeSpace {
    /// An empty type space.
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers a named schema; `key` is what `$ref`s to it contain, `name` the suggested type
    /// name. Every registered schema is emitted, in registration order.
    pub fn add_named(&mut self, key: &str, name: &str, schema: &Value) {
        let _ = (key, name, schema);
        todo!()
    }

    /// Lowers an inline schema. Named types it needs are called after `name_hint`
    /// (UpperCamelCase). Returns the type to use for a value of this schema.
    pub fn add_inline(&mut self, schema: &Value, name_hint: &str) -> TypeId {
        let _ = (schema, name_hint);
        todo!()
    }

    /// The Rust type expression of `ty` as seen from outside the types module, whose path is
    /// `types_path` (e.g. `types`): `types::Pet`, `::std::vec::Vec<types::Pet>`, `i64`.
    pub fn type_expr(&self, ty: TypeId, types_path: &TokenStream) -> TokenStream {
        let _ = (ty, types_path);
        todo!()
    }

    /// Every type definition, to be placed inside the types module.
    pub fn emit(&self) -> TokenStream {
        todo!()
    }
}
