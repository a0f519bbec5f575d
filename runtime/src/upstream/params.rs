//! A forwarded method's params as the upstream takes them (by name or by position, as the
//! document's `paramStructure` says), and what a forwarded handler method returns.

use serde::de::DeserializeOwned;
use serde::{Serialize, Serializer};
use serde_json::value::RawValue;
use std::collections::HashMap;

use crate::dispatch::ParamStructure;
use crate::error::Error;
use crate::validate::{decode_with_path, Path, Violations};

/// One param of a forwarded method, in the document's order: its name as the document writes
/// it (what a by-name upstream is sent), its key in the generated params struct's JSON (the
/// tool's argument name: the same, unless the generator made it portable) and whether it is
/// required.
///
/// Generated code lists them in a `const`:
///
/// ```
/// use mcp_runtime::upstream::Param;
/// const ORDER: &[Param] = &[
///     Param::required("address"),
///     Param::optional("Hydrated transactions").keyed("Hydrated_transactions"),
/// ];
/// assert!(ORDER[0].required && !ORDER[1].required);
/// assert_eq!(ORDER[1].key, "Hydrated_transactions");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Param {
    /// The name, as in the document: what a by-name upstream is sent.
    pub name: &'static str,
    /// The member of the params struct's JSON that holds it (the tool's argument name).
    pub key: &'static str,
    /// Whether the document marks it `required`.
    pub required: bool,
}

impl Param {
    /// A required param, keyed by its name.
    pub const fn required(name: &'static str) -> Self {
        Self {
            name,
            key: name,
            required: true,
        }
    }

    /// An optional param, keyed by its name.
    pub const fn optional(name: &'static str) -> Self {
        Self {
            name,
            key: name,
            required: false,
        }
    }

    /// The param held under `key` in the params struct's JSON (a portable argument name).
    pub const fn keyed(mut self, key: &'static str) -> Self {
        self.key = key;
        self
    }
}

/// What a forwarded handler method returns: the upstream's result as it sent it
/// ([`Forwarded::Raw`], what the generated forwarding body returns), or a value of the
/// contract's result type ([`Forwarded::Typed`], what a hand-written override returns with
/// `.into()`). Both serialize as the result: `Raw` is written as it is, byte for byte.
///
/// ```
/// use mcp_runtime::upstream::Forwarded;
/// let typed: Forwarded<u64> = 7.into();
/// assert_eq!(serde_json::to_string(&typed).unwrap(), "7");
/// let raw = serde_json::value::RawValue::from_string("\"0x1b4\"".into()).unwrap();
/// let forwarded: Forwarded<String> = Forwarded::Raw(raw);
/// assert_eq!(serde_json::to_string(&forwarded).unwrap(), "\"0x1b4\"");
/// assert_eq!(forwarded.into_typed().unwrap(), "0x1b4");
/// ```
#[derive(Debug, Clone)]
pub enum Forwarded<T> {
    /// A value of the contract's result type.
    Typed(T),
    /// The upstream's `result`, as it sent it.
    Raw(Box<RawValue>),
}

impl<T> From<T> for Forwarded<T> {
    fn from(value: T) -> Self {
        Self::Typed(value)
    }
}

impl<T: Serialize> Serialize for Forwarded<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Typed(value) => value.serialize(serializer),
            Self::Raw(raw) => raw.serialize(serializer),
        }
    }
}

impl<T: DeserializeOwned> Forwarded<T> {
    /// The value as the contract's result type: a `Raw` result decoded (an override that
    /// forwards, then looks at the result). A result that does not decode is an [`Error`]
    /// saying so.
    pub fn into_typed(self) -> Result<T, Error> {
        match self {
            Self::Typed(value) => Ok(value),
            Self::Raw(raw) => serde_json::from_str(raw.get()).map_err(|e| {
                Error::new(format!(
                    "the upstream's result does not have the contract's result type: {e}"
                ))
            }),
        }
    }
}

impl<T: DeserializeOwned> Forwarded<T> {
    /// The upstream's result checked against the contract (a gateway generated with
    /// `--check-results`): decoded into the result type, then `rules` (the schema's rules that
    /// serde does not check, written by the generator) run on it from the root. A result that
    /// fits is passed on as the upstream sent it; one that does not is an [`Error`] (an
    /// `isError` tool result) naming `method` and the JSON pointer, inside the result, of every
    /// value at fault. A [`Forwarded::Typed`] value is the handler's own: passed on unchecked.
    ///
    /// ```
    /// use mcp_runtime::upstream::Forwarded;
    /// use mcp_runtime::validate::{minimum, Path, Violations};
    /// use serde_json::value::RawValue;
    ///
    /// #[derive(Debug, serde::Deserialize)]
    /// struct Head { height: u64 }
    /// let raw = |text: &str| Forwarded::<Head>::Raw(RawValue::from_string(text.into()).unwrap());
    /// let rules = |head: &Head, path: &Path<'_>, out: &mut Violations| {
    ///     minimum(head.height, 1.0, false, &path.key("height"), out)
    /// };
    /// assert!(raw(r#"{"height":7}"#).check_result("ChainHead", rules).is_ok());
    /// let error = raw(r#"{"height":"7"}"#).check_result("ChainHead", rules).unwrap_err();
    /// assert!(error.to_string().contains("/height: expected a non-negative integer"), "{error}");
    /// let error = raw(r#"{"height":0}"#).check_result("ChainHead", rules).unwrap_err();
    /// assert!(error.to_string().contains("/height: must be ≥ 1"), "{error}");
    /// ```
    pub fn check_result(
        self,
        method: &str,
        rules: impl FnOnce(&T, &Path<'_>, &mut Violations),
    ) -> Result<Self, Error> {
        let Self::Raw(raw) = self else {
            return Ok(self);
        };
        let value: T =
            decode_with_path(raw.get()).map_err(|why| result_mismatch(method, &why.to_string()))?;
        let mut out = Violations::new();
        rules(&value, &Path::Root, &mut out);
        if !out.is_empty() {
            return Err(result_mismatch(method, &out.message()));
        }
        Ok(Self::Raw(raw))
    }
}

/// The error of a result that does not match the contract: `why` lists the pointers.
#[cold]
fn result_mismatch(method: &str, why: &str) -> Error {
    Error::new(format!(
        "the upstream's result of {method} does not match the document's result schema \
         (the gateway checks results: --check-results): {why}"
    ))
}

/// `params` (a generated params struct: an object, where an absent optional param is left
/// out or `null`) as the upstream takes them: by name, an object of the params of `order`
/// that are given (a required one that is `null` is sent as `null`); by position (and
/// [`ParamStructure::Either`], OpenRPC's default), an array in `order`, without the trailing
/// absent optional params, `null` for an absent one before a given one. `()` (`null`) is no
/// params: `{}` or `[]`. A member that `order` does not name is not sent. The error says why
/// `params` cannot be sent.
pub(super) fn encode<P: Serialize + ?Sized>(
    params: &P,
    structure: ParamStructure,
    order: &[Param],
) -> Result<String, String> {
    let text = serde_json::to_string(params).map_err(|e| format!("did not serialize: {e}"))?;
    let members: HashMap<String, &RawValue> = match text.as_bytes().first() {
        Some(b'{') => serde_json::from_str(&text).map_err(|e| format!("did not serialize: {e}"))?,
        Some(b'n') => HashMap::new(),
        // Already in order (a tuple): sent as it is.
        Some(b'[') if structure != ParamStructure::ByName => return Ok(text),
        _ => {
            return Err(format!(
                "serialized as {text:.40}, not as an object of named params"
            ))
        }
    };
    // What is sent of each param of `order`: absent when not given, or an optional `null`.
    let given = |param: &Param| {
        members
            .get(param.key)
            .copied()
            .filter(|value| param.required || value.get() != "null")
    };
    let mut out = String::with_capacity(text.len() + 2);
    match structure {
        ParamStructure::ByName => {
            out.push('{');
            for param in order {
                let value = match given(param) {
                    Some(value) => value.get(),
                    None if param.required => "null",
                    None => continue,
                };
                if out.len() > 1 {
                    out.push(',');
                }
                out.push_str(&serde_json::to_string(param.name).expect("a string serializes"));
                out.push(':');
                out.push_str(value);
            }
            out.push('}');
        }
        ParamStructure::ByPosition | ParamStructure::Either => {
            let sent = order
                .iter()
                .rposition(|param| param.required || given(param).is_some())
                .map_or(0, |last| last + 1);
            out.push('[');
            for (i, param) in order[..sent].iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(given(param).map_or("null", RawValue::get));
            }
            out.push(']');
        }
    }
    Ok(out)
}

/// `{"jsonrpc":"2.0","id":ID,"method":METHOD,"params":PARAMS}` (no `params` when `None`).
pub(super) fn request_body(id: u64, method: &str, params: Option<&str>) -> String {
    let method = serde_json::to_string(method).expect("a string serializes");
    let mut body = String::with_capacity(48 + method.len() + params.map_or(0, str::len));
    body.push_str(r#"{"jsonrpc":"2.0","id":"#);
    body.push_str(&id.to_string());
    body.push_str(r#","method":"#);
    body.push_str(&method);
    if let Some(params) = params {
        body.push_str(r#","params":"#);
        body.push_str(params);
    }
    body.push('}');
    body
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize)]
    struct Skipping {
        address: &'static str,
        #[serde(skip_serializing_if = "Option::is_none")]
        block: Option<&'static str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        full: Option<bool>,
    }

    #[derive(Serialize)]
    struct Nulls {
        address: Option<&'static str>,
        block: Option<&'static str>,
        full: Option<bool>,
    }

    const ORDER: &[Param] = &[
        Param::required("address"),
        Param::optional("block"),
        Param::optional("full"),
    ];

    fn by(structure: ParamStructure, params: &impl Serialize) -> String {
        encode(params, structure, ORDER).unwrap()
    }

    #[test]
    fn by_position_leaves_out_the_trailing_absent_and_fills_the_gaps() {
        for structure in [ParamStructure::ByPosition, ParamStructure::Either] {
            let skipping = Skipping {
                address: "0xab",
                block: None,
                full: None,
            };
            assert_eq!(by(structure, &skipping), r#"["0xab"]"#);
            let nulls = Nulls {
                address: Some("0xab"),
                block: None,
                full: Some(true),
            };
            assert_eq!(by(structure, &nulls), r#"["0xab",null,true]"#);
            let skipping = Skipping {
                address: "0xab",
                block: Some("latest"),
                full: None,
            };
            assert_eq!(by(structure, &skipping), r#"["0xab","latest"]"#);
            // A required param that is null is sent as null.
            let nulls = Nulls {
                address: None,
                block: None,
                full: None,
            };
            assert_eq!(by(structure, &nulls), "[null]");
        }
    }

    #[test]
    fn by_name_leaves_out_the_absent() {
        let nulls = Nulls {
            address: Some("0xab"),
            block: None,
            full: Some(false),
        };
        assert_eq!(
            by(ParamStructure::ByName, &nulls),
            r#"{"address":"0xab","full":false}"#
        );
        let skipping = Skipping {
            address: "0xab",
            block: None,
            full: None,
        };
        assert_eq!(
            by(ParamStructure::ByName, &skipping),
            r#"{"address":"0xab"}"#
        );
        let nulls = Nulls {
            address: None,
            block: None,
            full: None,
        };
        assert_eq!(by(ParamStructure::ByName, &nulls), r#"{"address":null}"#);
    }

    #[test]
    fn a_param_keyed_by_a_portable_name_is_sent_under_the_documents() {
        let order = [
            Param::required("Block hash").keyed("Block_hash"),
            Param::optional("Hydrated transactions").keyed("Hydrated_transactions"),
        ];
        let params = serde_json::json!({"Block_hash": "0xab", "Hydrated_transactions": true});
        assert_eq!(
            encode(&params, ParamStructure::ByName, &order).unwrap(),
            r#"{"Block hash":"0xab","Hydrated transactions":true}"#
        );
        assert_eq!(
            encode(&params, ParamStructure::ByPosition, &order).unwrap(),
            r#"["0xab",true]"#
        );
    }

    #[test]
    fn no_params_and_odd_shapes() {
        assert_eq!(encode(&(), ParamStructure::Either, &[]).unwrap(), "[]");
        assert_eq!(encode(&(), ParamStructure::ByName, &[]).unwrap(), "{}");
        // Values are passed as serialized: numbers keep their digits.
        #[derive(Serialize)]
        struct Big {
            n: u128,
        }
        let big = Big { n: u128::MAX };
        assert_eq!(
            encode(&big, ParamStructure::ByPosition, &[Param::required("n")]).unwrap(),
            format!("[{}]", u128::MAX)
        );
        assert_eq!(
            encode(&("a", 1), ParamStructure::ByPosition, &[]).unwrap(),
            r#"["a",1]"#
        );
        assert!(encode(&"text", ParamStructure::ByPosition, &[]).is_err());
        assert!(encode(&("a", 1), ParamStructure::ByName, &[]).is_err());
    }
}
