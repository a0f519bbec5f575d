//! The claims checks of an access token whose signature verified (RFC 9068 §4, RFC 7519 §4.1):
//! `exp`, `iss` and `aud` present, `exp` and `nbf` around now within the leeway, `iss` the
//! issuer, `aud` naming this server.
//!
//! The same rules as jsonwebtoken's `Validation` applied before (which cannot be called
//! without its crypto backend, see [`super::jws`]): a time is a non-negative JSON number
//! (a fraction is rounded), `iss` and `aud` a string or a list of strings of which one must
//! match, a required claim that is null or of another type is missing.

use serde_json::Value;

/// What the claims must satisfy.
pub(super) struct Expected {
    pub issuer: String,
    pub audience: String,
    /// Clock skew allowed on `exp` and `nbf`, in seconds.
    pub leeway: u64,
}

/// Why claims were refused.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum BadClaims {
    /// A required claim is absent, null or not of its type.
    Missing(&'static str),
    /// An optional claim (`nbf`) is present but not of its type.
    Malformed(&'static str),
    Expired,
    NotYetValid,
    Issuer,
    Audience,
}

impl Expected {
    /// Checks `claims` at `now` (seconds since the epoch).
    pub fn check(
        &self,
        claims: &serde_json::Map<String, Value>,
        now: u64,
    ) -> Result<(), BadClaims> {
        let present = |name| claims.get(name).filter(|value| !value.is_null());
        let exp = present("exp")
            .and_then(numeric_date)
            .ok_or(BadClaims::Missing("exp"))?;
        let iss = present("iss")
            .and_then(strings)
            .ok_or(BadClaims::Missing("iss"))?;
        let aud = present("aud")
            .and_then(strings)
            .ok_or(BadClaims::Missing("aud"))?;
        let nbf = match present("nbf") {
            Some(nbf) => Some(numeric_date(nbf).ok_or(BadClaims::Malformed("nbf"))?),
            None => None,
        };
        if exp.saturating_add(self.leeway) < now {
            return Err(BadClaims::Expired);
        }
        if nbf.is_some_and(|nbf| nbf > now.saturating_add(self.leeway)) {
            return Err(BadClaims::NotYetValid);
        }
        if !iss.contains(&self.issuer.as_str()) {
            return Err(BadClaims::Issuer);
        }
        if !aud.contains(&self.audience.as_str()) {
            return Err(BadClaims::Audience);
        }
        Ok(())
    }
}

/// A NumericDate (RFC 7519 §2) as whole seconds: a non-negative integer, or a fraction
/// rounded.
fn numeric_date(value: &Value) -> Option<u64> {
    let number = value.as_number()?;
    if let Some(seconds) = number.as_u64() {
        return Some(seconds);
    }
    // Negative integers are refused; only a real fraction goes through f64.
    let seconds = number.as_f64().filter(|_| number.is_f64())?;
    (seconds.is_finite() && seconds >= 0.0 && seconds < u64::MAX as f64)
        .then(|| seconds.round() as u64)
}

/// A string, or a list of strings (`iss` is one string in RFC 7519, but a list was accepted
/// before and is kept; `aud` may be either).
fn strings(value: &Value) -> Option<Vec<&str>> {
    match value {
        Value::String(one) => Some(vec![one.as_str()]),
        Value::Array(many) => many.iter().map(Value::as_str).collect(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn check(claims: Value, now: u64) -> Result<(), BadClaims> {
        let expected = Expected {
            issuer: "https://as".into(),
            audience: "https://mcp".into(),
            leeway: 30,
        };
        expected.check(claims.as_object().unwrap(), now)
    }

    #[test]
    fn claims_within_their_window_for_this_server_pass() {
        let good = json!({"iss": "https://as", "aud": "https://mcp", "exp": 1000});
        let with = |member: &str, value: Value| {
            let mut claims = good.clone();
            claims[member] = value;
            claims
        };
        assert_eq!(check(good.clone(), 1000), Ok(()));
        assert_eq!(check(good.clone(), 1030), Ok(()), "within the leeway");
        assert_eq!(check(good.clone(), 1031), Err(BadClaims::Expired));
        assert_eq!(check(with("exp", json!(999.6)), 1030), Ok(()), "rounded");
        assert_eq!(check(with("nbf", json!(600)), 570), Ok(()));
        assert_eq!(
            check(with("nbf", json!(600)), 569),
            Err(BadClaims::NotYetValid)
        );
        assert_eq!(check(with("nbf", Value::Null), 900), Ok(()));
        assert_eq!(
            check(with("nbf", json!("600")), 900),
            Err(BadClaims::Malformed("nbf"))
        );
        assert_eq!(
            check(with("iss", json!("https://other")), 900),
            Err(BadClaims::Issuer)
        );
        assert_eq!(check(with("iss", json!(["https://as"])), 900), Ok(()));
        assert_eq!(check(with("aud", json!(["x", "https://mcp"])), 900), Ok(()));
        assert_eq!(check(with("aud", json!([])), 900), Err(BadClaims::Audience));
        assert_eq!(
            check(with("aud", json!("https://mcp/")), 900),
            Err(BadClaims::Audience)
        );
        for (member, bad) in [
            ("exp", Value::Null),
            ("exp", json!("1000")),
            ("exp", json!(-5)),
            ("iss", json!(7)),
            ("aud", json!(["https://mcp", 1])),
        ] {
            assert_eq!(
                check(with(member, bad), 900),
                Err(BadClaims::Missing(member))
            );
        }
        let mut missing = good.clone();
        missing.as_object_mut().unwrap().remove("aud");
        assert_eq!(check(missing, 900), Err(BadClaims::Missing("aud")));
    }
}
