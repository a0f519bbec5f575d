//! The cache hints of 2026-07-28 results (`ttlMs`, `cacheScope`):
//! [`Config::cache_hints`](super::Config::cache_hints).

use std::time::Duration;

/// Who may reuse a cached 2026-07-28 result (`cacheScope`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheScope {
    /// Any client may reuse it (`"public"`).
    Public,
    /// Only the client that asked (`"private"`).
    Private,
}

impl CacheScope {
    fn as_str(self) -> &'static str {
        match self {
            CacheScope::Public => "public",
            CacheScope::Private => "private",
        }
    }
}

/// The `ttlMs` and `cacheScope` one kind of 2026-07-28 result carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheHint {
    /// How long the result may be reused (`ttlMs`; zero: do not reuse).
    pub ttl: Duration,
    /// Who may reuse it.
    pub scope: CacheScope,
}

impl CacheHint {
    /// A hint of `ttl` for `scope`.
    pub const fn new(ttl: Duration, scope: CacheScope) -> Self {
        Self { ttl, scope }
    }

    pub(crate) fn pair(self) -> Option<(u64, &'static str)> {
        Some((self.ttl.as_millis() as u64, self.scope.as_str()))
    }
}

/// The cache hints of every cacheable 2026-07-28 result. The lists are generated at build time
/// and never change while the server runs, hence the long public defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheHints {
    /// `server/discover`. Default 0 ms, private.
    pub discover: CacheHint,
    /// `tools/list`. Default 5 minutes, public.
    pub tools_list: CacheHint,
    /// `prompts/list`. Default 5 minutes, public.
    pub prompts_list: CacheHint,
    /// `resources/list`. Default 5 minutes, public.
    pub resources_list: CacheHint,
    /// `resources/templates/list`. Default 5 minutes, public.
    pub resource_templates_list: CacheHint,
    /// `resources/read`. Default 5 minutes, private (a read that took client input is never
    /// cached: 0 ms).
    pub resources_read: CacheHint,
}

impl Default for CacheHints {
    fn default() -> Self {
        const FIVE_MINUTES: Duration = Duration::from_secs(300);
        let list = CacheHint::new(FIVE_MINUTES, CacheScope::Public);
        Self {
            discover: CacheHint::new(Duration::ZERO, CacheScope::Private),
            tools_list: list,
            prompts_list: list,
            resources_list: list,
            resource_templates_list: list,
            resources_read: CacheHint::new(FIVE_MINUTES, CacheScope::Private),
        }
    }
}
