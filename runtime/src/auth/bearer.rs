//! The bearer token of a request (RFC 6750 §2.1): `Authorization: Bearer <token>`, once.
//!
//! Tokens are only read from the header: never from the query string (MCP 2026-07-28) nor a
//! form body.

use http::header::AUTHORIZATION;
use http::HeaderMap;

use super::Refusal;

/// The request's bearer token: `None` without an `Authorization` header; a
/// [`Refusal::InvalidRequest`] for a header that is repeated, not `Bearer`, or whose token is
/// not RFC 6750 `b64token` syntax.
pub fn bearer_token(headers: &HeaderMap) -> Result<Option<&str>, Refusal> {
    let mut values = headers.get_all(AUTHORIZATION).iter();
    let Some(value) = values.next() else {
        return Ok(None);
    };
    if values.next().is_some() {
        return Err(Refusal::invalid_request(
            "the Authorization header may appear once",
        ));
    }
    let text = value
        .to_str()
        .map_err(|_| Refusal::invalid_request("the Authorization header is not ASCII"))?;
    let Some((scheme, token)) = text.trim().split_once(' ') else {
        return Err(Refusal::invalid_request(
            "the Authorization header must be `Bearer <token>`",
        ));
    };
    if !scheme.eq_ignore_ascii_case("bearer") {
        return Err(Refusal::invalid_request(
            "the Authorization scheme must be Bearer",
        ));
    }
    let token = token.trim_start_matches(' ');
    if !is_b64token(token) {
        return Err(Refusal::invalid_request(
            "the bearer token is empty or has characters RFC 6750 does not allow",
        ));
    }
    Ok(Some(token))
}

/// RFC 6750 §2.1: `1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="`.
fn is_b64token(token: &str) -> bool {
    let body = token.trim_end_matches('=');
    !body.is_empty()
        && body
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-._~+/".contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn token(values: &[&str]) -> Result<Option<String>, Refusal> {
        let mut headers = HeaderMap::new();
        for value in values {
            headers.append(AUTHORIZATION, value.parse().unwrap());
        }
        bearer_token(&headers).map(|t| t.map(str::to_string))
    }

    #[test]
    fn reads_one_bearer_token() {
        assert_eq!(token(&[]), Ok(None));
        assert_eq!(
            token(&["Bearer abc.def-_~+/=="]),
            Ok(Some("abc.def-_~+/==".into()))
        );
        assert_eq!(token(&["bearer  x"]), Ok(Some("x".into())));
        for bad in [
            "Bearer",
            "Bearer ",
            "Basic abc",
            "Bearer a b",
            "Bearer ===",
            "Bearer a\"b",
        ] {
            assert!(
                matches!(token(&[bad]), Err(Refusal::InvalidRequest(_))),
                "{bad}"
            );
        }
        assert!(matches!(
            token(&["Bearer a", "Bearer b"]),
            Err(Refusal::InvalidRequest(_))
        ));
    }
}
