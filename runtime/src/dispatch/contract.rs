//! [`Contract`]: what a server publishes and enforces, as its contract states it.

use crate::catalog::Catalog;
#[cfg(doc)]
use crate::dispatch::Dispatch;

/// The scopes a principal needs for a `method` on a `key` ([`Contract::required_scopes`]).
type ScopesOf = dyn Fn(&str, &str) -> &'static [&'static str] + Send + Sync;

/// The rate limit of a `method` on a `key` ([`Contract::rate_limit`]).
type RateOf = dyn Fn(&str, &str) -> Option<super::rate::Rate> + Send + Sync;

/// The lookup of [`Contract::result_budget`]: a tool's result budget in bytes, if it has one.
type BudgetOf = dyn Fn(&str) -> Option<usize> + Send + Sync;

/// The MCP face of a contract method, by the method's JSON-RPC name ([`Contract::face`]).
type FaceOf = dyn Fn(&str) -> Option<Face> + Send + Sync;

/// What a contract method is on the MCP face: the call it stands for, which the policy
/// (selection, scopes, step-up, rate limits, audit) decides on whichever door the method is
/// called through. Generated contracts name every method's ([`Contract::with_faces`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Face {
    /// `tools/call`, `prompts/get` or `resources/read`.
    pub method: &'static str,
    /// The tool or prompt name, the resource URI or the resource template.
    pub key: &'static str,
    /// The params' names in declaration order: params sent by position are named with them.
    pub params: &'static [&'static str],
}

impl Face {
    /// The tool `name`, whose params are `params` in declaration order.
    pub const fn tool(name: &'static str, params: &'static [&'static str]) -> Self {
        Self {
            method: "tools/call",
            key: name,
            params,
        }
    }

    /// The prompt `name`, whose params are `params` in declaration order.
    pub const fn prompt(name: &'static str, params: &'static [&'static str]) -> Self {
        Self {
            method: "prompts/get",
            key: name,
            params,
        }
    }

    /// The resource (or resource template) `uri`, whose params are `params` in declaration
    /// order.
    pub const fn resource(uri: &'static str, params: &'static [&'static str]) -> Self {
        Self {
            method: "resources/read",
            key: uri,
            params,
        }
    }
}

/// What a server publishes and enforces, as its contract states it: the catalog, the OpenRPC
/// document, the skills, the scopes, the rate limits and the server card.
/// [`Dispatch::contract`] returns it.
///
/// Made in a `static` from [`Contract::new`] and the `with_*` methods, all `const`:
///
/// ```
/// # use mcp_runtime::{Catalog, dispatch::Contract};
/// static CATALOG: Catalog = Catalog::empty("hello", "1.0.0");
///
/// fn required_scopes(method: &str, key: &str) -> &'static [&'static str] {
///     match (method, key) {
///         ("tools/call", "greet") => &["greet"],
///         _ => &[],
///     }
/// }
///
/// static CONTRACT: Contract = Contract::new(&CATALOG)
///     .with_required_scopes(&required_scopes)
///     .with_scopes_supported(&["greet"]);
/// # assert_eq!(CONTRACT.required_scopes("tools/call", "greet"), ["greet"]);
/// ```
///
/// A wrapper that changes one part of its inner dispatch's contract copies it (it is `Copy`),
/// changes that part with the same `with_*` method and leaks the result once (a [`Dispatch`]
/// hands out `&'static` contracts): `Box::leak(Box::new(inner.contract().with_rate_limits(..)))`.
/// The lookups ([`Contract::required_scopes`], [`Contract::rate_limit`]) then may be closures
/// leaked the same way.
#[derive(Clone, Copy)]
#[non_exhaustive]
pub struct Contract {
    catalog: &'static Catalog,
    openrpc_document: Option<&'static str>,
    skills: &'static [crate::skills::Skill],
    required_scopes: &'static ScopesOf,
    scopes_supported: &'static [&'static str],
    hides_unauthorized: bool,
    rate_limit: &'static RateOf,
    server_card: Option<&'static str>,
    faces: Option<&'static FaceOf>,
    catalog_call: Option<&'static str>,
    result_budget: &'static BudgetOf,
    smallest_result_budget: Option<usize>,
}

fn no_scopes(_: &str, _: &str) -> &'static [&'static str] {
    &[]
}

fn no_rate_limit(_: &str, _: &str) -> Option<super::rate::Rate> {
    None
}

fn no_budget(_: &str) -> Option<usize> {
    None
}

impl Contract {
    /// A contract publishing `catalog`, with nothing else: no OpenRPC document (`rpc.discover`
    /// is a `-32601`), no skills, no scopes, no rate limits, no server card, every caller
    /// seeing the whole lists.
    pub const fn new(catalog: &'static Catalog) -> Self {
        Self {
            catalog,
            openrpc_document: None,
            skills: &[],
            required_scopes: &no_scopes,
            scopes_supported: &[],
            hides_unauthorized: false,
            rate_limit: &no_rate_limit,
            server_card: None,
            faces: None,
            catalog_call: None,
            result_budget: &no_budget,
            smallest_result_budget: None,
        }
    }

    /// This contract publishing `catalog` instead.
    #[must_use]
    pub const fn with_catalog(self, catalog: &'static Catalog) -> Self {
        Self { catalog, ..self }
    }

    /// This contract with the OpenRPC document `document` (compact JSON text).
    #[must_use]
    pub const fn with_openrpc_document(self, document: &'static str) -> Self {
        Self {
            openrpc_document: Some(document),
            ..self
        }
    }

    /// This contract with the skills `skills`.
    #[must_use]
    pub const fn with_skills(self, skills: &'static [crate::skills::Skill]) -> Self {
        Self { skills, ..self }
    }

    /// This contract with `required_scopes` as the lookup of
    /// [`required_scopes`](Self::required_scopes).
    #[must_use]
    pub const fn with_required_scopes(
        self,
        required_scopes: &'static (dyn Fn(&str, &str) -> &'static [&'static str] + Send + Sync),
    ) -> Self {
        Self {
            required_scopes,
            ..self
        }
    }

    /// This contract naming the scopes `scopes` ([`scopes_supported`](Self::scopes_supported)).
    #[must_use]
    pub const fn with_scopes_supported(self, scopes: &'static [&'static str]) -> Self {
        Self {
            scopes_supported: scopes,
            ..self
        }
    }

    /// This contract hiding, or not, what a caller may not use
    /// ([`hides_unauthorized`](Self::hides_unauthorized)).
    #[must_use]
    pub const fn with_unauthorized_hidden(self, hidden: bool) -> Self {
        Self {
            hides_unauthorized: hidden,
            ..self
        }
    }

    /// This contract with `rate_limit` as the lookup of [`rate_limit`](Self::rate_limit).
    #[must_use]
    pub const fn with_rate_limits(
        self,
        rate_limit: &'static (dyn Fn(&str, &str) -> Option<super::rate::Rate> + Send + Sync),
    ) -> Self {
        Self { rate_limit, ..self }
    }

    /// This contract with `budgets` as the lookup of [`result_budget`](Self::result_budget),
    /// `smallest` being the smallest budget it gives (a result at most this long is never
    /// looked at again). A server with budgets publishes
    /// the pages' template (`mcp-result://{id}/{page}`) among its resource templates.
    #[must_use]
    pub const fn with_result_budgets(
        self,
        budgets: &'static (dyn Fn(&str) -> Option<usize> + Send + Sync),
        smallest: usize,
    ) -> Self {
        Self {
            result_budget: budgets,
            smallest_result_budget: Some(smallest),
            ..self
        }
    }

    /// This contract with the server card `card` (compact JSON text).
    #[must_use]
    pub const fn with_server_card(self, card: &'static str) -> Self {
        Self {
            server_card: Some(card),
            ..self
        }
    }

    /// This contract with `faces` as the lookup of [`face`](Self::face): the plain JSON-RPC
    /// endpoint then serves only the methods that have one (unless
    /// [`crate::config::Endpoints::jsonrpc_unexposed`] is on), and decides each call on the MCP
    /// call it stands for.
    #[must_use]
    pub const fn with_faces(
        self,
        faces: &'static (dyn Fn(&str) -> Option<Face> + Send + Sync),
    ) -> Self {
        Self {
            faces: Some(faces),
            ..self
        }
    }

    /// This contract publishing `tool` as a catalog's call (`{name, arguments}` naming the
    /// tool that runs, [`crate::tool_catalog`]): the policy decides such a call on the tool it
    /// names.
    #[must_use]
    pub(crate) const fn with_catalog_call(self, tool: &'static str) -> Self {
        Self {
            catalog_call: Some(tool),
            ..self
        }
    }

    /// What the contract method `method` is on the MCP face (the tool, prompt or resource it
    /// is published as), when the contract names faces ([`Contract::with_faces`]; generated
    /// contracts do): `None` for a method the selection (`x-mcp`, `--tools`, `--exclude`, the
    /// overlay) left off MCP, and for every method of a contract that names none.
    pub fn face(&self, method: &str) -> Option<Face> {
        self.faces.and_then(|faces| faces(method))
    }

    /// Whether the contract names its methods' faces ([`Contract::with_faces`]): then a method
    /// without one is not served on the plain JSON-RPC endpoint by default. A hand-written
    /// contract without them serves every plain method its [`Dispatch::call`] knows.
    pub const fn names_faces(&self) -> bool {
        self.faces.is_some()
    }

    /// The tool whose arguments name the tool that runs (the catalog mode's `call_tool`).
    pub(crate) const fn catalog_call(&self) -> Option<&'static str> {
        self.catalog_call
    }

    /// What the server publishes.
    pub const fn catalog(&self) -> &'static Catalog {
        self.catalog
    }

    /// The OpenRPC document the server was generated from, as compact JSON text: the result
    /// of `rpc.discover` on the plain JSON-RPC endpoint
    /// ([`crate::config::Endpoints::jsonrpc_path`]). `None` makes `rpc.discover` a `-32601`.
    pub const fn openrpc_document(&self) -> Option<&'static str> {
        self.openrpc_document
    }

    /// The skills bundled from the `skills/` directory beside the contract (the skills
    /// extension, [`crate::skills`]). Empty: the extension is then neither declared nor served.
    pub const fn skills(&self) -> &'static [crate::skills::Skill] {
        self.skills
    }

    /// The scopes a principal needs for `method` (`tools/call`, `prompts/get`,
    /// `resources/read`) on `key` (the tool or prompt name, the resource URI): the contract's
    /// `x-mcp` `scopes` (or its `info["x-mcp"]` default for methods with `x-mcp`). A call of
    /// the plain JSON-RPC endpoint is asked as its method's [face](Self::face); a method
    /// without one (served only with `--jsonrpc-unexposed`, or by a contract that names no
    /// faces) under `"jsonrpc"` and its name, which generated contracts answer with the
    /// document's default.
    /// Checked at the HTTP edge when [`crate::Config::auth`] is set (403 `insufficient_scope`
    /// when one is missing).
    pub fn required_scopes(&self, method: &str, key: &str) -> &'static [&'static str] {
        (self.required_scopes)(method, key)
    }

    /// Whether the `*/list` methods leave out, for an authenticated caller, every tool, prompt,
    /// resource and template whose [`required_scopes`](Self::required_scopes) it lacks (the
    /// contract's `info["x-mcp"].hideUnauthorized`). `false`: every caller sees the whole
    /// lists, and a call it may not make is refused with 403.
    pub const fn hides_unauthorized(&self) -> bool {
        self.hides_unauthorized
    }

    /// Every scope the contract names, published in the Protected Resource Metadata's
    /// `scopes_supported`.
    pub const fn scopes_supported(&self) -> &'static [&'static str] {
        self.scopes_supported
    }

    /// The contract's rate limit of `key` (a tool or prompt name, a resource URI, or a
    /// resource template) under `method` (`tools/call`, `prompts/get`, `resources/read`; a
    /// plain JSON-RPC call is asked as its method's [face](Self::face)): its `x-mcp`
    /// `rateLimit`, a bucket per caller ([`crate::rate_limit`]; one per template for the reads
    /// of its URIs).
    pub fn rate_limit(&self, method: &str, key: &str) -> Option<super::rate::Rate> {
        (self.rate_limit)(method, key)
    }

    /// The result budget of the tool `tool` in bytes: a success longer than it is kept and
    /// answered with an outline and a `resource_link` to read it in pages; `None`: its
    /// results are sent whole. The generator's `--result-budget`, the method's `x-mcp`
    /// `resultBudget`, 64 KiB for a gateway's forwarded tools without `--check-results`.
    pub fn result_budget(&self, tool: &str) -> Option<usize> {
        (self.result_budget)(tool)
    }

    /// The smallest [`result_budget`](Self::result_budget) of any tool (`None`: no tool has
    /// one).
    pub const fn smallest_result_budget(&self) -> Option<usize> {
        self.smallest_result_budget
    }

    /// The server card from the contract (`info["x-mcp"].card`), as compact JSON text without
    /// `remotes`, which the server adds when it serves the card
    /// ([`crate::config::Endpoints::server_card`]).
    pub const fn server_card(&self) -> Option<&'static str> {
        self.server_card
    }
}

impl std::fmt::Debug for Contract {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Contract")
            .field("server", &self.catalog.server.name)
            .field("openrpc_document", &self.openrpc_document.is_some())
            .field("skills", &self.skills.len())
            .field("scopes_supported", &self.scopes_supported)
            .field("hides_unauthorized", &self.hides_unauthorized)
            .field("server_card", &self.server_card.is_some())
            .finish_non_exhaustive()
    }
}
