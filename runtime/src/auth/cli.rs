//! The authorization flags of a server binary (`entry`): `--auth-issuer`, `--auth-audience`,
//! `--auth-jwks`, `--auth-scopes`, each with its environment variable, turned into an
//! [`Auth`](super::Auth) (the `jwt` feature's authenticator); the audience defaults to the
//! server's public URL (`--public-url`, which `entry` reads).

/// The values of the authorization flags (or of their variables), each with how errors cite
/// it (`--auth-jwks URL` or `MCP_AUTH_JWKS=URL`). `entry` fills them from its settings table.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AuthArgs {
    /// `--auth-issuer` / `MCP_AUTH_ISSUER`.
    pub(crate) issuer: Option<(String, String)>,
    /// `--auth-audience` / `MCP_AUTH_AUDIENCE`.
    pub(crate) audience: Option<(String, String)>,
    /// `--auth-jwks` / `MCP_AUTH_JWKS`.
    pub(crate) jwks: Option<(String, String)>,
    /// `--auth-scopes` / `MCP_AUTH_SCOPES`.
    pub(crate) scopes: Option<(String, String)>,
    /// `--auth-token-type` / `MCP_AUTH_TOKEN_TYPE`.
    pub(crate) token_type: Option<(String, String)>,
}

impl AuthArgs {
    /// The [`Auth`](super::Auth) asked for (`None`: no issuer, authorization off), or an
    /// error naming the flag or variable at fault. `public_url` (`--public-url`, already
    /// checked) is the default audience.
    pub(crate) fn auth(&self, public_url: Option<&str>) -> Result<Option<super::Auth>, String> {
        let Some((issuer, _)) = &self.issuer else {
            if let Some((_, source)) = [&self.audience, &self.jwks, &self.scopes, &self.token_type]
                .into_iter()
                .flatten()
                .next()
            {
                return Err(format!(
                    "{source}: authorization needs an issuer: give --auth-issuer URL (or MCP_AUTH_ISSUER)"
                ));
            }
            return Ok(None);
        };
        let audience = match (&self.audience, public_url) {
            (Some((audience, source)), _) => {
                super::canonical_resource(audience).map_err(|why| format!("{source}: {why}"))?
            }
            (None, Some(url)) => super::canonical_resource(url)
                .map_err(|why| format!("--public-url (MCP_PUBLIC_URL) {why}"))?,
            (None, None) => {
                return Err("--auth-issuer needs the URL clients reach this server at, the audience its tokens must name: give --public-url URL (e.g. https://mcp.example.com/mcp) or --auth-audience URL".into())
            }
        };
        let scopes: Vec<String> = self
            .scopes
            .as_ref()
            .map(|(list, _)| {
                list.split([',', ' '])
                    .filter(|scope| !scope.is_empty())
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default();
        let token_type = self
            .token_type
            .as_ref()
            .map(|(typ, _)| typ.trim().to_owned());
        build(
            issuer.clone(),
            audience,
            self.jwks.clone(),
            scopes,
            token_type,
        )
    }
}

#[cfg(feature = "jwt")]
fn build(
    issuer: String,
    audience: String,
    jwks: Option<(String, String)>,
    scopes: Vec<String>,
    token_type: Option<String>,
) -> Result<Option<super::Auth>, String> {
    use super::jwt::{JwtAuthenticator, JwtSettings};
    let mut settings = JwtSettings::new(issuer, audience);
    settings.jwks_url = jwks.map(|(url, _)| url);
    settings.token_type = token_type.filter(|typ| !typ.is_empty());
    let auth = JwtAuthenticator::auth(settings).map_err(|why| format!("--auth-issuer: {why}"))?;
    Ok(Some(auth.require_scopes(scopes)))
}

#[cfg(not(feature = "jwt"))]
fn build(
    _: String,
    _: String,
    _: Option<(String, String)>,
    _: Vec<String>,
    _: Option<String>,
) -> Result<Option<super::Auth>, String> {
    Err("--auth-issuer: this server was built without mcp-runtime's `jwt` feature; rebuild it with the feature on (a generated crate: `cargo build --features jwt`)".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `flags` may hold `--public-url`, which `entry` reads and passes on; `env` are
    /// variables (`MCP_AUTH_*`), which `entry` reads when the flag is not given.
    fn auth_of(
        flags: &[(&str, &str)],
        env: &[(&str, &str)],
    ) -> Result<Option<super::super::Auth>, String> {
        let mut args = AuthArgs::default();
        let mut public_url = None;
        for (var, value) in env {
            let name = var.strip_prefix("MCP_AUTH_").unwrap().to_ascii_lowercase();
            *field(&mut args, &name) = Some((value.to_string(), format!("{var}={value}")));
        }
        for (flag, value) in flags {
            if *flag == "--public-url" {
                public_url = Some(value.to_string());
                continue;
            }
            let name = flag.strip_prefix("--auth-").unwrap();
            *field(&mut args, name) = Some((value.to_string(), format!("{flag} {value}")));
        }
        args.auth(public_url.as_deref())
    }

    fn field<'a>(args: &'a mut AuthArgs, name: &str) -> &'a mut Option<(String, String)> {
        match name {
            "issuer" => &mut args.issuer,
            "audience" => &mut args.audience,
            "jwks" => &mut args.jwks,
            "scopes" => &mut args.scopes,
            "token_type" | "token-type" => &mut args.token_type,
            other => panic!("no such flag: {other}"),
        }
    }

    #[test]
    fn off_without_an_issuer() {
        assert!(auth_of(&[], &[]).unwrap().is_none());
        assert!(auth_of(&[("--public-url", "https://h/mcp")], &[])
            .unwrap()
            .is_none());
        let error = auth_of(&[("--auth-jwks", "https://as/jwks")], &[]).unwrap_err();
        assert!(
            error.contains("--auth-jwks https://as/jwks") && error.contains("--auth-issuer"),
            "{error}"
        );
        let error = auth_of(&[], &[("MCP_AUTH_SCOPES", "a")]).unwrap_err();
        assert!(error.contains("MCP_AUTH_SCOPES=a"), "{error}");
    }

    #[test]
    fn an_issuer_needs_an_audience() {
        let error = auth_of(&[("--auth-issuer", "https://as")], &[]).unwrap_err();
        assert!(
            error.contains("--public-url") && error.contains("--auth-audience"),
            "{error}"
        );
        let error = auth_of(
            &[
                ("--auth-issuer", "https://as"),
                ("--auth-audience", "mcp.example.com"),
            ],
            &[],
        )
        .unwrap_err();
        assert!(
            error.starts_with("--auth-audience mcp.example.com:"),
            "{error}"
        );
    }

    #[cfg(feature = "jwt")]
    #[test]
    fn flags_and_environment_build_the_auth() {
        let auth = auth_of(
            &[
                ("--auth-issuer", "https://as.example.com"),
                ("--auth-scopes", "a,b c"),
                ("--public-url", "https://MCP.example.com/mcp"),
            ],
            &[("MCP_AUTH_ISSUER", "https://ignored")],
        )
        .unwrap()
        .unwrap();
        assert_eq!(auth.metadata().resource, "https://mcp.example.com/mcp");
        assert_eq!(
            auth.metadata().authorization_servers,
            ["https://as.example.com"]
        );
        assert_eq!(auth.required_scopes(), ["a", "b", "c"]);
        let auth = auth_of(
            &[],
            &[
                ("MCP_AUTH_ISSUER", "https://as"),
                ("MCP_AUTH_AUDIENCE", "https://aud/x"),
            ],
        )
        .unwrap()
        .unwrap();
        assert_eq!(auth.metadata().resource, "https://aud/x");
        let error = auth_of(
            &[
                ("--auth-issuer", "http://as.example.com"),
                ("--public-url", "https://h"),
            ],
            &[],
        )
        .unwrap_err();
        assert!(error.starts_with("--auth-issuer:"), "{error}");
    }

    #[cfg(not(feature = "jwt"))]
    #[test]
    fn without_the_feature_an_issuer_is_refused() {
        let error = auth_of(
            &[
                ("--auth-issuer", "https://as"),
                ("--public-url", "https://h"),
            ],
            &[],
        )
        .unwrap_err();
        assert!(error.contains("`jwt` feature"), "{error}");
    }
}
