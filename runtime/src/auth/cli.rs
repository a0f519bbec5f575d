//! The authorization flags of a server binary (`entry`): `--auth-issuer`, `--auth-audience`,
//! `--auth-jwks`, `--auth-scopes`, each with its environment variable, turned into an
//! [`Auth`](super::Auth) (the `jwt` feature's authenticator); the audience defaults to the
//! server's public URL (`--public-url`, which `entry` reads).

/// The flags, with the environment variable each falls back to.
pub(crate) const FLAGS: [(&str, &str); 4] = [
    ("--auth-issuer", "MCP_AUTH_ISSUER"),
    ("--auth-audience", "MCP_AUTH_AUDIENCE"),
    ("--auth-jwks", "MCP_AUTH_JWKS"),
    ("--auth-scopes", "MCP_AUTH_SCOPES"),
];

/// The usage lines of the flags.
pub(crate) const USAGE: &str = concat!(
    "  --auth-issuer URL  require OAuth access tokens (JWT) of this issuer; HTTP only\n",
    "                     [env: MCP_AUTH_ISSUER; default: off]\n",
    "  --auth-audience URL\n",
    "                     the audience tokens must name [env: MCP_AUTH_AUDIENCE; default: --public-url]\n",
    "  --auth-jwks URL    the issuer's JWKS [env: MCP_AUTH_JWKS; default: jwks_uri of its metadata]\n",
    "  --auth-scopes LIST scopes every request needs, comma- or space-separated\n",
    "                     [env: MCP_AUTH_SCOPES]",
);

/// The values of [`FLAGS`] given on the command line, in their order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AuthArgs {
    values: [Option<String>; 4],
}

impl AuthArgs {
    /// Whether `flag` is one of these flags.
    pub(crate) fn is_flag(flag: &str) -> bool {
        FLAGS.iter().any(|(name, _)| *name == flag)
    }

    /// Records `flag`'s `value` (a later one wins).
    pub(crate) fn set(&mut self, flag: &str, value: String) {
        if let Some(i) = FLAGS.iter().position(|(name, _)| *name == flag) {
            self.values[i] = Some(value);
        }
    }

    /// Whether any flag was given.
    pub(crate) fn any(&self) -> bool {
        self.values.iter().any(Option::is_some)
    }

    /// Each flag's value, else its environment variable's (per `env`; empty means unset),
    /// with the name to cite in errors.
    fn resolved(&self, env: impl Fn(&str) -> Option<String>) -> [Option<(String, String)>; 4] {
        std::array::from_fn(|i| {
            let (flag, var) = FLAGS[i];
            match &self.values[i] {
                Some(value) => Some((value.clone(), format!("{flag} {value}"))),
                None => env(var)
                    .filter(|value| !value.is_empty())
                    .map(|value| (value.clone(), format!("{var}={value}"))),
            }
        })
    }

    /// The [`Auth`](super::Auth) asked for (`None`: no issuer, authorization off), or an
    /// error naming the flag or variable at fault. `public_url` (`--public-url`, already
    /// checked) is the default audience.
    pub(crate) fn auth(
        &self,
        public_url: Option<&str>,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<Option<super::Auth>, String> {
        let [issuer, audience, jwks, scopes] = self.resolved(env);
        let Some((issuer, _issuer_source)) = issuer else {
            if let Some((_, source)) = [&audience, &jwks, &scopes].into_iter().flatten().next() {
                return Err(format!(
                    "{source}: authorization needs an issuer: give --auth-issuer URL (or MCP_AUTH_ISSUER)"
                ));
            }
            return Ok(None);
        };
        let audience = match (audience, public_url) {
            (Some((audience, source)), _) => {
                super::canonical_resource(&audience).map_err(|why| format!("{source}: {why}"))?
            }
            (None, Some(url)) => super::canonical_resource(url)
                .map_err(|why| format!("--public-url (MCP_PUBLIC_URL) {why}"))?,
            (None, None) => {
                return Err("--auth-issuer needs the URL clients reach this server at, the audience its tokens must name: give --public-url URL (e.g. https://mcp.example.com/mcp) or --auth-audience URL".into())
            }
        };
        let scopes: Vec<String> = scopes
            .map(|(list, _)| {
                list.split([',', ' '])
                    .filter(|scope| !scope.is_empty())
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default();
        build(issuer, audience, jwks, scopes)
    }
}

#[cfg(feature = "jwt")]
fn build(
    issuer: String,
    audience: String,
    jwks: Option<(String, String)>,
    scopes: Vec<String>,
) -> Result<Option<super::Auth>, String> {
    use super::jwt::{JwtAuthenticator, JwtSettings};
    let mut settings = JwtSettings::new(issuer, audience);
    settings.jwks_url = jwks.map(|(url, _)| url);
    let auth = JwtAuthenticator::auth(settings).map_err(|why| format!("--auth-issuer: {why}"))?;
    Ok(Some(auth.require_scopes(scopes)))
}

#[cfg(not(feature = "jwt"))]
fn build(
    _: String,
    _: String,
    _: Option<(String, String)>,
    _: Vec<String>,
) -> Result<Option<super::Auth>, String> {
    Err("--auth-issuer: this server was built without mcp-runtime's `jwt` feature; rebuild it with the feature on (a generated crate: `cargo build --features jwt`)".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `flags` may hold `--public-url`, which `entry` reads and passes on.
    fn auth_of(
        flags: &[(&str, &str)],
        env: &[(&str, &str)],
    ) -> Result<Option<super::super::Auth>, String> {
        let mut args = AuthArgs::default();
        let mut public_url = None;
        for (flag, value) in flags {
            if *flag == "--public-url" {
                public_url = Some(value.to_string());
                continue;
            }
            assert!(AuthArgs::is_flag(flag));
            args.set(flag, value.to_string());
        }
        let env: Vec<(String, String)> = env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        args.auth(public_url.as_deref(), |var| {
            env.iter().find(|(k, _)| k == var).map(|(_, v)| v.clone())
        })
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
