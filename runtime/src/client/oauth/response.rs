//! The authorization response: the redirect URI the browser came back to, checked against
//! the flow that sent it there (RFC 6749 4.1.2, RFC 9207).

use super::discovery::AuthorizationServer;
use super::url;
use crate::client::error::ClientError;

/// The code of the authorization response `redirected` (the URL redirected to), once it is
/// checked: no `error`, the `state` sent, and (RFC 9207) an `iss` equal to the issuer,
/// character for character, required when the server advertises it and compared whenever
/// present.
pub(super) fn authorization_response(
    server: &AuthorizationServer,
    state: &str,
    redirected: &str,
) -> Result<String, ClientError> {
    let params = url::query_params(redirected);
    let get = |name: &str| {
        params
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    };
    if let Some(error) = get("error") {
        return Err(ClientError::OAuth(format!(
            "the authorization server {} refused: {error} {}",
            server.key(),
            get("error_description").unwrap_or_default()
        )));
    }
    if get("state") != Some(state) {
        return Err(ClientError::OAuth(
            "the authorization response's state is not the one sent: rejected".into(),
        ));
    }
    match (get("iss"), server.issuer.as_deref()) {
        (Some(iss), Some(issuer)) if iss != issuer => {
            return Err(ClientError::OAuth(format!(
                "the authorization response's iss {iss:?} is not the issuer {issuer:?} (RFC 9207): rejected"
            )))
        }
        (None, Some(issuer)) if server.iss_parameter_supported => {
            return Err(ClientError::OAuth(format!(
                "the authorization response has no iss, though {issuer} advertises authorization_response_iss_parameter_supported (RFC 9207): rejected"
            )))
        }
        _ => {}
    }
    get("code")
        .filter(|code| !code.is_empty())
        .map(str::to_owned)
        .ok_or_else(|| {
            ClientError::OAuth(format!(
                "the authorization response from {} has no code",
                server.key()
            ))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server(iss_supported: bool) -> AuthorizationServer {
        let mut server = AuthorizationServer::defaults("http://as");
        server.issuer = Some("http://as".into());
        server.iss_parameter_supported = iss_supported;
        server
    }

    #[test]
    fn authorization_response_checks() {
        let ok = "http://localhost/cb?code=c&state=s&iss=http%3A%2F%2Fas";
        assert_eq!(authorization_response(&server(true), "s", ok).unwrap(), "c");
        // Wrong state, wrong or normalized iss, missing advertised iss, an error, no code.
        for (advertised, url) in [
            (
                true,
                "http://localhost/cb?code=c&state=x&iss=http%3A%2F%2Fas",
            ),
            (
                true,
                "http://localhost/cb?code=c&state=s&iss=http%3A%2F%2Fas%2F",
            ),
            (
                false,
                "http://localhost/cb?code=c&state=s&iss=https%3A%2F%2Fevil",
            ),
            (true, "http://localhost/cb?code=c&state=s"),
            (false, "http://localhost/cb?error=access_denied&state=s"),
            (false, "http://localhost/cb?state=s"),
        ] {
            assert!(
                authorization_response(&server(advertised), "s", url).is_err(),
                "{url}"
            );
        }
        // Not advertised and absent: accepted.
        assert_eq!(
            authorization_response(&server(false), "s", "http://localhost/cb?code=c&state=s")
                .unwrap(),
            "c"
        );
    }
}
