//! JSON Schema to Rust types: lowers schemas into an IR of named types, then emits them.
//!
//! The passes, one module each:
//! - `ir`: the type IR (structs, string enums, tagged and untagged unions, aliases).
//! - `lower`: schema to IR (`$ref`, `allOf` merging, unions, nullability, defaults, names).
//! - [`discriminator`]: finds the property that tags a union.
//! - `recursion`: decides where a `Box` breaks a by-value cycle.
//! - `emit`: IR to tokens.
//! - [`schema_doc`]: whole JSON Schema documents to formatted Rust source.

mod budget;
pub mod discriminator;
mod emit;
mod gate;
pub(crate) mod ir;
mod lower;
mod overlap;
mod recursion;
pub mod schema_doc;
mod validate;

pub use budget::{MAX_LOWER_DEPTH, MAX_LOWER_STEPS};
pub use schema_doc::{schema_document_to_rust, schema_document_to_rust_gated, UnknownRoot};
pub use validate::Checks;

use crate::names::Scope;
use indexmap::IndexMap;
use ir::{Body, Builtin, Named, TypeKind};
use proc_macro2::TokenStream;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

/// A key of an object schema the generator writes (never a document's: the params of a method)
/// mapping property names to another name each is read under: `{"Hydrated_transactions":
/// "Hydrated transactions"}` makes the field `#[serde(rename = "Hydrated_transactions", alias =
/// "Hydrated transactions")]`, so a portable argument name and the document's both decode.
pub const ALIASES_KEY: &str = "x-mcp-codegen-aliases";

/// Rule id (a warning): a union without a discriminator has variants that can accept the same
/// value. The first variant that accepts it is the one decoded, from `anyOf` and (the document
/// meaning "any of") from `oneOf`; under `--strict-unions` a `oneOf` refuses it, as it matches
/// more than one.
pub const RULE_AMBIGUOUS_UNION: &str = "ambiguous-union";

/// Rule id (a warning): a `not`, `if`/`then`/`else` or `patternProperties` sub-schema uses
/// keywords beyond what the generated checks evaluate (`type`, `const`, `enum`, `required`,
/// `properties` of those): the schema is published as written but that keyword is not enforced.
pub const RULE_SCHEMA_NOT_ENFORCED: &str = "schema-not-enforced";

/// A warning found while lowering, not yet placed in the document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaWarning {
    /// The key of the registered schema being lowered, `None` for the inline schema being
    /// added ([`TypeSpace::add_inline`]).
    pub registered: Option<String>,
    /// The rule id ([`RULE_AMBIGUOUS_UNION`], [`RULE_SCHEMA_NOT_ENFORCED`]).
    pub rule: &'static str,
    /// What is wrong, naming the type.
    pub message: String,
}

/// A handle to a lowered type (a named type of the space, or a built-in one).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TypeId(pub usize);

/// The set of types lowered from a document's schemas.
///
/// Registered schemas ([`TypeSpace::add_named`]) are lowered lazily, so a `$ref` may point at a
/// schema registered later; [`TypeSpace::add_inline`] and [`TypeSpace::emit`] lower whatever is
/// still pending.
#[derive(Debug, Default, Clone)]
pub struct TypeSpace {
    /// Every type, indexed by [`TypeId`]; named ones are emitted in this order.
    pub(crate) types: Vec<TypeKind>,
    /// Registered schemas by the key `$ref`s use, with their raw schema.
    pub(crate) refs: IndexMap<String, (TypeId, Value)>,
    /// Type names in use.
    pub(crate) type_names: Scope,
    /// Names of the functions in the `defaults` module.
    pub(crate) default_fns: Scope,
    /// For a named type created while lowering a registered schema: that schema's type. Emission
    /// places such types right after their owner, so related items stay together.
    pub(crate) owners: BTreeMap<TypeId, TypeId>,
    /// The registered type being lowered, if any.
    pub(crate) lowering: Option<TypeId>,
    /// How much lowering is left.
    pub(crate) budget: budget::Budget,
    /// Registered schemas with `$ref`s and `allOf` resolved, by key: see
    /// [`TypeSpace::resolve_raw`].
    pub(crate) resolved: HashMap<String, Value>,
    /// Registered schemas being resolved, so a cycle ends.
    pub(crate) resolving: HashSet<String>,
    /// The rules serde does not check, by the type they apply to (see [`ir::Rule`]).
    pub(crate) rules: BTreeMap<TypeId, Vec<ir::Rule>>,
    /// Untagged unions from `oneOf` whose variants can accept the same value, under
    /// [`TypeSpace::strict_unions`]: they decode with every variant tried, and refuse a value
    /// more than one accepts.
    pub(crate) exactly_one: BTreeSet<TypeId>,
    /// JSON Schema's letter for a `oneOf` whose variants nothing tells apart: a value more
    /// than one accepts is refused. Off (the default), such a `oneOf` is read as the document
    /// means it, "any of": the first variant that accepts the value takes it.
    pub(crate) strict_unions: bool,
    /// Untagged unions to look at for overlapping variants once every type they name is
    /// lowered: the union, its keyword, the registered schema it was lowered in.
    pub(crate) overlap_queue: Vec<(TypeId, &'static str, Option<String>)>,
    /// What lowering warns about, until [`TypeSpace::take_warnings`].
    pub(crate) warnings: Vec<SchemaWarning>,
    /// Every type before this index is lowered, so [`TypeSpace::lower_pending`] resumes here:
    /// rescanning from the start on each [`TypeSpace::add_inline`] made planning quadratic in
    /// the number of methods.
    lowered_upto: usize,
}

impl TypeSpace {
    /// An empty type space.
    pub fn new() -> Self {
        Self::default()
    }

    /// Reads a `oneOf` whose variants nothing tells apart to JSON Schema's letter (a value
    /// more than one accepts is refused) when `strict`; by default the first variant that
    /// accepts a value takes it, as for `anyOf` (the CLI's `--strict-unions`).
    pub fn set_strict_unions(&mut self, strict: bool) {
        self.strict_unions = strict;
    }

    /// Registers a named schema; `key` is what `$ref`s to it contain, `name` the suggested type
    /// name. Every registered schema is emitted, in registration order.
    ///
    /// Registering the same key twice keeps the first schema.
    pub fn add_named(&mut self, key: &str, name: &str, schema: &Value) {
        if self.refs.contains_key(key) {
            return;
        }
        let name = self
            .type_names
            .unique_ident(&crate::names::camel_ident(name));
        let id = self.push(TypeKind::Named(Named {
            name,
            docs: Vec::new(),
            body: Body::Pending(schema.clone()),
        }));
        self.refs.insert(key.to_string(), (id, schema.clone()));
    }

    /// Lowers an inline schema. Named types it needs are called after `name_hint`
    /// (UpperCamelCase). Returns the type to use for a value of this schema.
    pub fn add_inline(&mut self, schema: &Value, name_hint: &str) -> TypeId {
        self.lower_pending();
        let mut notes = Vec::new();
        let hint = crate::names::camel_ident(name_hint);
        let id = self.lower(schema, lower::Target::Inline(&hint), &mut notes);
        // Notes on an inline schema that became a named type are already on that type; notes on
        // a built-in (e.g. `Value`) have nowhere to go and are dropped.
        self.lower_pending();
        id
    }

    /// Lowers every registered schema still pending, so [`TypeSpace::budget_exceeded`] covers
    /// them all (emission would otherwise lower them on a copy).
    pub fn lower_all(&mut self) {
        self.lower_pending();
    }

    /// The Rust type expression of `ty` as seen from outside the types module, whose path is
    /// `types_path` (e.g. `types`): `types::Pet`, `::std::vec::Vec<types::Pet>`, `i64`.
    pub fn type_expr(&self, ty: TypeId, types_path: &TokenStream) -> TokenStream {
        emit::type_tokens(self, ty, &quote::quote!(#types_path ::))
    }

    /// Every type definition, to be placed inside the types module (names inside refer to each
    /// other unqualified), followed by a `defaults` module when some field has a default value.
    pub fn emit(&self) -> TokenStream {
        let items = self.emit_items();
        quote::quote!(#(#items)*)
    }

    /// [`TypeSpace::emit`] one item at a time, so a large types module can be formatted piece
    /// by piece.
    pub fn emit_items(&self) -> Vec<TokenStream> {
        self.emit_items_gated(None)
    }

    /// [`TypeSpace::emit_items`] where every named type that `roots` do not need (through
    /// fields, variants, aliases), and every default function only such types use, carries
    /// `#[cfg(feature = "<feature>")]`; `None` gates nothing.
    pub fn emit_items_gated(&self, gate: Option<(&[TypeId], &str)>) -> Vec<TokenStream> {
        if self.has_pending() {
            let mut lowered = self.clone();
            lowered.lower_pending();
            return emit::emit(&lowered, gate, None);
        }
        emit::emit(self, gate, None)
    }

    /// [`TypeSpace::emit_items`] for a module that also holds `checks`' `Validate` impls, each
    /// item with its name (the type's Rust name; `defaults` for the module of default values)
    /// and each type followed by its impl: a `oneOf` decoded by trying every variant (one whose
    /// variants overlap) then counts only the variants whose value also keeps its schema's
    /// rules (a `pattern` can tell two strings apart). Call after every schema is lowered.
    pub fn emit_named_items_checked(&self, checks: &Checks) -> Vec<(String, TokenStream)> {
        emit::emit_named(self, None, Some(checks))
    }

    /// The named type called `name` (its Rust name), if any.
    pub fn type_named(&self, name: &str) -> Option<TypeId> {
        self.types
            .iter()
            .position(|t| matches!(t, TypeKind::Named(n) if n.name == name))
            .map(TypeId)
    }

    /// Whether `ty` is, or holds, a named type of the types module (`Pet`, `Vec<Pet>`); not a
    /// built-in (`i64`, `String`, `Vec<String>`), whose code never changes with the contract.
    pub fn mentions_named(&self, ty: TypeId) -> bool {
        match &self.types[ty.0] {
            TypeKind::Builtin(_) => false,
            TypeKind::Vec(inner) | TypeKind::Map(inner) | TypeKind::Option(inner) => {
                self.mentions_named(*inner)
            }
            TypeKind::Named(_) => true,
        }
    }

    /// The Rust name of a named type, `None` for built-ins and containers.
    pub fn type_name(&self, ty: TypeId) -> Option<&str> {
        match &self.types[ty.0] {
            TypeKind::Named(named) => Some(&named.name),
            _ => None,
        }
    }

    /// Why lowering stopped short, if it did: then some types are `Value` that the schemas
    /// describe more precisely, and the document should be refused.
    pub fn budget_exceeded(&self) -> Option<&str> {
        self.budget.exceeded()
    }

    /// How many lowering steps were taken (see [`MAX_LOWER_STEPS`]).
    pub fn lowering_steps(&self) -> usize {
        self.budget.steps()
    }

    /// The warnings found while lowering since the last call, oldest first.
    pub fn take_warnings(&mut self) -> Vec<SchemaWarning> {
        std::mem::take(&mut self.warnings)
    }

    /// The key of the registered schema being lowered, if any.
    pub(crate) fn registered_key(&self) -> Option<String> {
        let id = self.lowering?;
        self.refs
            .iter()
            .find(|(_, (rid, _))| *rid == id)
            .map(|(key, _)| key.clone())
    }

    /// Records a warning about the schema being lowered.
    pub(crate) fn warn(&mut self, rule: &'static str, message: String) {
        let registered = self.registered_key();
        self.warn_in(registered, rule, message);
    }

    /// Records a warning about the registered schema `registered` (`None`: the inline one).
    pub(crate) fn warn_in(
        &mut self,
        registered: Option<String>,
        rule: &'static str,
        message: String,
    ) {
        let warning = SchemaWarning {
            registered,
            rule,
            message,
        };
        if !self.warnings.contains(&warning) {
            self.warnings.push(warning);
        }
    }

    /// The type registered under `key`, if any.
    pub fn lookup(&self, key: &str) -> Option<TypeId> {
        self.refs.get(key).map(|(id, _)| *id)
    }

    pub(crate) fn push(&mut self, kind: TypeKind) -> TypeId {
        self.types.push(kind);
        TypeId(self.types.len() - 1)
    }

    pub(crate) fn builtin(&mut self, builtin: Builtin) -> TypeId {
        self.push(TypeKind::Builtin(builtin))
    }

    pub(crate) fn named(&self, ty: TypeId) -> Option<&Named> {
        match &self.types[ty.0] {
            TypeKind::Named(named) => Some(named),
            _ => None,
        }
    }

    fn has_pending(&self) -> bool {
        self.types.iter().any(|t| {
            matches!(
                t,
                TypeKind::Named(Named {
                    body: Body::Pending(_),
                    ..
                })
            )
        })
    }

    /// Lowers every registered schema that is still pending, in registration order.
    ///
    /// Only [`TypeSpace::add_named`] creates pending types, always at the end of `types`, so none
    /// is left before `lowered_upto`.
    fn lower_pending(&mut self) {
        let mut index = self.lowered_upto;
        while index < self.types.len() {
            if let TypeKind::Named(Named {
                body: Body::Pending(schema),
                ..
            }) = &self.types[index]
            {
                let schema = schema.clone();
                self.lower_registered(TypeId(index), &schema);
            }
            index += 1;
        }
        self.lowered_upto = index;
        self.check_overlaps();
    }

    /// Looks at the queued untagged unions, now that every type they name is lowered: under
    /// [`TypeSpace::strict_unions`], a `oneOf` one whose variants can accept the same value
    /// decodes by trying them all (and refuses a value more than one accepts); either kind is
    /// reported.
    fn check_overlaps(&mut self) {
        for (id, keyword, registered) in std::mem::take(&mut self.overlap_queue) {
            let Some(Named {
                name,
                body: Body::Untagged(variants),
                ..
            }) = self.named(id)
            else {
                continue;
            };
            let Some((a, b)) = overlap::first_overlap(self, variants) else {
                continue;
            };
            let (name, a, b) = (
                name.clone(),
                variants[a].name.clone(),
                variants[b].name.clone(),
            );
            let outcome = match keyword {
                "oneOf" if self.strict_unions => {
                    self.exactly_one.insert(id);
                    "a value both accept is refused, as it matches more than one (--strict-unions)"
                }
                "oneOf" => "a value both accept decodes as the first, as `anyOf` would (nothing in the schema tells them apart, so the document means any of them; --strict-unions refuses it, as JSON Schema's `oneOf` does)",
                _ => "a value both accept decodes as the first (anyOf asks for at least one)",
            };
            self.warn_in(
                registered,
                RULE_AMBIGUOUS_UNION,
                format!(
                    "`{keyword}` of type `{name}` has no discriminator, and its variants `{a}` and `{b}` can accept the same value (neither their types, nor their required members, nor a closed property list keeps them apart); {outcome}. A required property with a distinct `const` in every variant makes it a tagged union"
                ),
            );
        }
    }
}
