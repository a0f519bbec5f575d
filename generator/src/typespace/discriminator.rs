//! Finds the property that tells the variants of a union apart.

use serde_json::Value;
use std::collections::BTreeSet;

/// A union's discriminator: the property, and each variant's value of it (in variant order).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Discriminator {
    /// The property name, used as `#[serde(tag = "...")]`.
    pub property: String,
    /// The constant value of the property in each variant.
    pub values: Vec<String>,
}

/// Looks for a property present and required in every variant whose constant string value
/// (`const`, or an `enum` of exactly one string) differs pairwise between variants.
///
/// The property must be required: serde's internally tagged enums cannot read a message without
/// the tag, so an optional one (e.g. MCP's `ElicitRequestParams.mode`, which defaults to `form`)
/// would reject valid messages; such unions stay untagged.
///
/// `variants` must already be resolved: no `$ref` or `allOf` at the top, nor in property schemas.
/// Candidates are tried in the first variant's property order, so the result is deterministic.
/// Unions of fewer than two variants, or with a variant that is not an object with properties,
/// have none.
pub fn find_discriminator(variants: &[Value]) -> Option<Discriminator> {
    if variants.len() < 2 {
        return None;
    }
    let first = variants[0].get("properties")?.as_object()?;
    first.keys().find_map(|property| {
        let values = variants
            .iter()
            .map(|variant| {
                let required = variant.get("required")?.as_array()?;
                if !required.iter().any(|r| r == property.as_str()) {
                    return None;
                }
                constant_of(variant.get("properties")?.get(property)?)
            })
            .collect::<Option<Vec<String>>>()?;
        let distinct: BTreeSet<&String> = values.iter().collect();
        (distinct.len() == values.len()).then(|| Discriminator {
            property: property.clone(),
            values,
        })
    })
}

/// The single string value a property schema allows, if it allows exactly one.
pub(crate) fn constant_of(schema: &Value) -> Option<String> {
    if let Some(Value::String(value)) = schema.get("const") {
        return Some(value.clone());
    }
    match schema.get("enum")?.as_array()?.as_slice() {
        [Value::String(value)] => Some(value.clone()),
        _ => None,
    }
}
