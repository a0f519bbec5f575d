//! The type IR: what lowering produces and emission reads. Emission never looks at raw schemas.

use super::TypeId;
use serde_json::Value;

/// A type known to the space: a built-in Rust type, a container of another type, or a named type
/// that is emitted as an item of the types module.
#[derive(Debug, Clone)]
pub(crate) enum TypeKind {
    /// A scalar or `serde_json::Value`.
    Builtin(Builtin),
    /// `::std::vec::Vec<T>`.
    Vec(TypeId),
    /// `::std::collections::BTreeMap<::std::string::String, T>`.
    Map(TypeId),
    /// `::std::option::Option<T>`.
    Option(TypeId),
    /// A named item of the types module.
    Named(Named),
}

/// Built-in Rust types a schema can lower to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Builtin {
    String,
    Bool,
    I8,
    I16,
    I32,
    I64,
    U8,
    U16,
    U32,
    U64,
    F64,
    /// Any JSON value: the schema is open or cannot be represented more precisely.
    Value,
}

/// A named type: its Rust name, docs and shape.
#[derive(Debug, Clone)]
pub(crate) struct Named {
    /// The Rust identifier, unique in the space.
    pub name: String,
    /// Doc lines (already split; empty strings are paragraph breaks).
    pub docs: Vec<String>,
    /// The shape; `Pending` until the registered schema is lowered.
    pub body: Body,
}

/// The shape of a named type.
#[derive(Debug, Clone)]
pub(crate) enum Body {
    /// A registered schema not lowered yet.
    Pending(Value),
    /// `pub type Name = T;`
    Alias(TypeId),
    /// A struct with named fields.
    Struct(StructDef),
    /// A fieldless enum of string values (`const` gives a single variant that is also `Default`).
    StringEnum(StringEnumDef),
    /// An internally tagged enum (`#[serde(tag = "...")]`) with struct variants.
    Tagged(TaggedDef),
    /// An untagged enum with newtype variants, tried in order.
    Untagged(Vec<UntaggedVariant>),
    /// A tuple struct of fixed arity (`prefixItems`, or draft-07 array `items`): an array of
    /// exactly these items, in order.
    Tuple(Vec<TypeId>),
    /// A fieldless enum of scalar JSON values that are not all strings (`enum: [1, 2, 5]`,
    /// `const: true`), with hand-written serde impls writing each value back exactly.
    Literal(LiteralEnumDef),
}

/// A struct's fields and unknown-field policy.
#[derive(Debug, Clone, Default)]
pub(crate) struct StructDef {
    pub fields: Vec<Field>,
    /// `additionalProperties: false`: reject unknown fields.
    pub deny_unknown_fields: bool,
}

/// One field of a struct or of a struct variant.
#[derive(Debug, Clone)]
pub(crate) struct Field {
    /// Rust identifier (may be raw, `r#type`).
    pub name: String,
    /// The JSON property name.
    pub wire: String,
    /// Another name the property is read under (the document's, when `wire` was made
    /// portable: [`crate::typespace::ALIASES_KEY`]).
    pub alias: Option<String>,
    pub ty: TypeId,
    pub docs: Vec<String>,
    pub presence: Presence,
    /// `#[serde(flatten)]` map of the properties not named in the schema.
    pub flatten: bool,
}

/// How a field behaves when absent on the wire.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Presence {
    /// Must be present (a nullable required field is an `Option` without skipping).
    Required,
    /// `Option<T>`: absent means `None`, and `None` is not written.
    Optional,
    /// Absent means `Default::default()`, which equals the schema's `default`.
    Default,
    /// Absent means the schema's `default`, produced by `defaults::<fn_name>()`.
    DefaultFn { fn_name: String, value: Value },
}

/// Variants of a string enum.
#[derive(Debug, Clone)]
pub(crate) struct StringEnumDef {
    pub variants: Vec<EnumVariant>,
    /// Came from `const`: the single variant is the `Default`.
    pub is_const: bool,
}

/// One variant of a string enum.
#[derive(Debug, Clone)]
pub(crate) struct EnumVariant {
    pub name: String,
    pub wire: String,
}

/// Variants of a literal enum.
#[derive(Debug, Clone)]
pub(crate) struct LiteralEnumDef {
    pub variants: Vec<LiteralVariant>,
    /// Came from `const`: the single variant is the `Default`.
    pub is_const: bool,
}

/// One variant of a literal enum: its Rust name and its JSON value (a scalar).
#[derive(Debug, Clone)]
pub(crate) struct LiteralVariant {
    pub name: String,
    pub value: Value,
}

/// An internally tagged union.
#[derive(Debug, Clone)]
pub(crate) struct TaggedDef {
    /// The discriminating property.
    pub tag: String,
    pub variants: Vec<TaggedVariant>,
}

/// A struct variant of a tagged union.
#[derive(Debug, Clone)]
pub(crate) struct TaggedVariant {
    pub name: String,
    /// The tag's value for this variant.
    pub tag_value: String,
    pub docs: Vec<String>,
    pub fields: VariantFields,
}

/// Where a tagged variant's fields come from.
#[derive(Debug, Clone)]
pub(crate) enum VariantFields {
    /// The fields of a named struct (a `$ref` variant), minus the tag.
    FromStruct(TypeId),
    /// Fields lowered for this variant only, tag already left out.
    Inline(StructDef),
}

/// A newtype variant of an untagged union.
#[derive(Debug, Clone)]
pub(crate) struct UntaggedVariant {
    pub name: String,
    pub ty: TypeId,
}

/// A rule of a schema that serde does not check, kept for the generated validation
/// (`typespace/validate.rs`). Lowering keeps only the rules that apply to the type the schema
/// became (string rules on strings, and so on).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Rule {
    /// `minimum`, or `exclusiveMinimum` when `exclusive`.
    Minimum { bound: f64, exclusive: bool },
    /// `maximum`, or `exclusiveMaximum` when `exclusive`.
    Maximum { bound: f64, exclusive: bool },
    /// `multipleOf` (> 0).
    MultipleOf(f64),
    /// `minLength`, in characters.
    MinLength(u64),
    /// `maxLength`, in characters.
    MaxLength(u64),
    /// `pattern`, one the `regex` crate compiles.
    Pattern(String),
    /// `format`, one the runtime checks (`mcp_runtime::validate::formats`).
    Format(String),
    /// `minItems`.
    MinItems(u64),
    /// `maxItems`.
    MaxItems(u64),
    /// `uniqueItems: true`.
    UniqueItems,
    /// `minProperties`.
    MinProperties(u64),
    /// `maxProperties`.
    MaxProperties(u64),
    /// `const` of a type serde cannot check (an array or object: scalars are literal enums).
    Const(Value),
    /// `enum` of values serde cannot check (some arrays or objects: scalars are literal enums).
    Enum(Vec<Value>),
    /// `not`: the value must not match the sub-schema.
    Not(Applied),
    /// `if`/`then`/`else`: a value matching `if` must match `then`, one that does not must
    /// match `else` (either may be absent).
    Conditional {
        when: Applied,
        then: Option<Applied>,
        otherwise: Option<Applied>,
    },
    /// Several `patternProperties`: each member whose name matches a pattern (one the `regex`
    /// crate compiles) must match that pattern's sub-schema.
    PatternProperties(Vec<(String, Applied)>),
}

/// A sub-schema of `not`, `if`, `then`, `else` or `patternProperties`, with the JSON text the
/// violation message quotes.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Applied {
    pub check: Sub,
    /// The sub-schema as compact JSON.
    pub text: String,
}

/// The part of JSON Schema a generated sub-schema check evaluates on a `serde_json::Value`.
/// Anything outside it leaves the keyword published but not enforced, with a warning.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Sub {
    /// `true`, `{}` or annotations only.
    Any,
    /// `false`.
    Nothing,
    /// Every one holds (the keywords of one schema).
    All(Vec<Sub>),
    /// `type` (one name or several).
    Type(Vec<String>),
    /// `const`.
    Const(Value),
    /// `enum`.
    Enum(Vec<Value>),
    /// `required` (holds for values that are not objects).
    Required(Vec<String>),
    /// One member of `properties`: holds when absent or not an object.
    Property(String, Box<Sub>),
}
