//! The flags a cargo feature left out of this build cannot serve, refused before anything
//! checks their values: a user who gave `--auth-issuer` to a server built without `jwt` learns
//! that first, not after fixing an audience the build could never use.

/// The feature `flag` needs, when this build lacks it; `None` when the flag works here.
pub(super) fn missing(flag: &str) -> Option<&'static str> {
    let (feature, built) = match flag {
        "auth-issuer" | "auth-audience" | "auth-jwks" | "auth-token-type" | "auth-scopes" => {
            ("jwt", cfg!(feature = "jwt"))
        }
        "redis" | "redis-prefix" | "redis-cluster" | "redis-wait-replicas" => {
            ("redis", cfg!(feature = "redis"))
        }
        "metrics" => ("metrics", cfg!(feature = "metrics")),
        _ => return None,
    };
    (!built).then_some(feature)
}

/// The error for `cited` (`--redis`, or its variable `MCP_REDIS_URL`; never the value, which
/// may hold a password) when this build lacks `feature`.
pub(super) fn error(cited: &str, feature: &str) -> String {
    format!(
        "{cited}: this server was built without mcp-runtime's `{feature}` feature; rebuild it \
         with the feature on (a generated crate: `cargo build --features {feature}`)"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_gated_flag_names_its_feature_exactly_when_it_is_off() {
        for (flag, feature, built) in [
            ("auth-issuer", "jwt", cfg!(feature = "jwt")),
            ("auth-scopes", "jwt", cfg!(feature = "jwt")),
            ("redis", "redis", cfg!(feature = "redis")),
            ("redis-prefix", "redis", cfg!(feature = "redis")),
            ("redis-cluster", "redis", cfg!(feature = "redis")),
            ("redis-wait-replicas", "redis", cfg!(feature = "redis")),
            ("metrics", "metrics", cfg!(feature = "metrics")),
        ] {
            assert_eq!(missing(flag), (!built).then_some(feature), "{flag}");
        }
        assert_eq!(missing("page-size"), None);
        assert_eq!(missing("stdio"), None);
    }
}
