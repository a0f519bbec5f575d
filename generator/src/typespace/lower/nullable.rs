//! OpenAPI's `nullable: true` (OpenAPI 3.0 schemas, seen in OpenRPC documents): the schema
//! without it, or `null`, which is `Option<T>`, like JSON Schema's `type: [T, "null"]`.

use super::Target;
use crate::typespace::ir::TypeKind;
use crate::typespace::{TypeId, TypeSpace};
use serde_json::Value;

impl TypeSpace {
    /// `schema` has `nullable: true`: `Option` of the schema without it.
    pub(super) fn lower_nullable(
        &mut self,
        schema: &Value,
        target: Target,
        notes: &mut Vec<String>,
    ) -> TypeId {
        let mut inner = schema.as_object().cloned().unwrap_or_default();
        inner.remove("nullable");
        let inner = Value::Object(inner);
        let hint = format!("{}Value", self.hint_of(target));
        let id = self.lower(&inner, Target::Inline(&hint), notes);
        if matches!(self.types[id.0], TypeKind::Option(_)) {
            return self.alias_or(target, id, schema, notes);
        }
        let option = self.push(TypeKind::Option(id));
        self.alias_or(target, option, schema, notes)
    }
}
