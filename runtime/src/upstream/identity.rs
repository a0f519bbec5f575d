//! Who the upstream is told the caller is: headers built from the caller's verified claims
//! (`X-User: {sub}`), for an upstream that trusts the gateway to have checked them.
//!
//! The values come from the [`Principal`] the server's authenticator made of the caller's
//! access token, never from anything the caller sends beside it; the token itself is never
//! forwarded. A call without a verified caller (stdio, a server without authorization) is
//! refused rather than sent without the identity the upstream expects.

use http::header::{HeaderName, HeaderValue};
use serde_json::Value;
use std::fmt;

use crate::auth::Principal;

/// A header sent on each call with the caller's identity: a name and a template of text and
/// `{claim}` placeholders. `{sub}` is the principal's subject (the token's `sub`); any other
/// name is that claim of the verified token, a string, a number or a boolean.
///
/// ```
/// use mcp_runtime::upstream::IdentityHeader;
///
/// let header = IdentityHeader::parse("X-User: {sub}").unwrap();
/// assert_eq!(header.name().as_str(), "x-user");
/// let tenant = IdentityHeader::parse("X-Tenant: org-{org_id}").unwrap();
/// assert!(IdentityHeader::parse("X-User: {sub").is_err());
/// # let _ = tenant;
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct IdentityHeader {
    name: HeaderName,
    template: Vec<Piece>,
}

#[derive(Clone, PartialEq, Eq)]
enum Piece {
    Text(String),
    Claim(String),
}

impl IdentityHeader {
    /// Reads `Name: template`, as `--upstream-identity-header` takes it. The error says what
    /// is wrong with it.
    pub fn parse(line: &str) -> Result<Self, String> {
        let (name, template) = line
            .split_once(':')
            .ok_or_else(|| format!("{line:?} is not `Name: template`, e.g. `X-User: {{sub}}`"))?;
        let name = HeaderName::from_bytes(name.trim().as_bytes())
            .map_err(|_| format!("{:?} is not a header name", name.trim()))?;
        let mut pieces = Vec::new();
        let mut rest = template.trim();
        if rest.is_empty() {
            return Err(format!(
                "the header {name} has no value: give one with a {{claim}}"
            ));
        }
        while !rest.is_empty() {
            match rest.find(['{', '}']) {
                Some(at) if rest.as_bytes()[at] == b'{' => {
                    if at > 0 {
                        pieces.push(Piece::Text(rest[..at].to_owned()));
                    }
                    let end = rest[at..]
                        .find('}')
                        .ok_or_else(|| format!("the header {name}: a `{{` without its `}}`"))?;
                    let claim = &rest[at + 1..at + end];
                    if claim.is_empty()
                        || !claim
                            .bytes()
                            .all(|b| b.is_ascii_alphanumeric() || b"_-.:".contains(&b))
                    {
                        return Err(format!(
                            "the header {name}: {{{claim}}} is not a claim name (letters, digits, `_`, `-`, `.`, `:`)"
                        ));
                    }
                    pieces.push(Piece::Claim(claim.to_owned()));
                    rest = &rest[at + end + 1..];
                }
                Some(_) => return Err(format!("the header {name}: a `}}` without its `{{`")),
                None => {
                    pieces.push(Piece::Text(rest.to_owned()));
                    rest = "";
                }
            }
        }
        if !pieces.iter().any(|piece| matches!(piece, Piece::Claim(_))) {
            return Err(format!(
                "the header {name} names no claim: a fixed header is an --upstream-header"
            ));
        }
        for piece in &pieces {
            if let Piece::Text(text) = piece {
                HeaderValue::from_str(text)
                    .map_err(|_| format!("the header {name}: {text:?} cannot be in a header"))?;
            }
        }
        Ok(Self {
            name,
            template: pieces,
        })
    }

    /// The header's name.
    pub fn name(&self) -> &HeaderName {
        &self.name
    }

    /// The value for `principal`, or why there is none (a claim it lacks, or one that is not
    /// text a header can carry). The reason names the claim, never its value.
    pub(crate) fn value(&self, principal: &Principal) -> Result<HeaderValue, String> {
        let mut value = String::new();
        for piece in &self.template {
            match piece {
                Piece::Text(text) => value.push_str(text),
                Piece::Claim(claim) if claim == "sub" => value.push_str(&principal.subject),
                Piece::Claim(claim) => match principal.claims.get(claim) {
                    Some(Value::String(text)) => value.push_str(text),
                    Some(Value::Number(number)) => value.push_str(&number.to_string()),
                    Some(Value::Bool(flag)) => value.push_str(if *flag { "true" } else { "false" }),
                    Some(_) => {
                        return Err(format!(
                            "the caller's `{claim}` claim is not a string, number or boolean"
                        ))
                    }
                    None => return Err(format!("the caller's token has no `{claim}` claim")),
                },
            }
        }
        let mut value = HeaderValue::from_str(&value).map_err(|_| {
            format!(
                "the caller's claims make a value the header {} cannot carry (a line break or a character outside ASCII)",
                self.name
            )
        })?;
        value.set_sensitive(true);
        Ok(value)
    }
}

impl fmt::Debug for IdentityHeader {
    /// The name and the template (no caller's value is ever in it).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.name)?;
        for piece in &self.template {
            match piece {
                Piece::Text(text) => f.write_str(text)?,
                Piece::Claim(claim) => write!(f, "{{{claim}}}")?,
            }
        }
        Ok(())
    }
}
