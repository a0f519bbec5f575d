//! The macro that turns the table of settings in `config.rs` into [`Config`](super::Config)
//! and its groups, their `Default`, the [`ConfigBuilder`](super::ConfigBuilder) setters and the
//! rows of the command line ([`FieldSetting`]), so that each setting is written once. The
//! rows' types are here too ([`Setting`], [`Scope`], [`heading`]): `entry::settings` lists
//! them beside its own, and the configuration imports nothing of the entry point.

use super::Config;

/// Where a setting applies. A flag given where it does not apply is refused; an environment
/// variable is ignored there (one environment can serve both transports).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scope {
    /// HTTP and stdio.
    Any,
    /// Streamable HTTP only (refused with `--stdio`).
    Http,
    /// `--stdio` only.
    Stdio,
}

/// The `--help` groups, in `--help` order (`HEADINGS`).
pub(crate) mod heading {
    pub(crate) const TRANSPORT: &str = "Transport";
    pub(crate) const ENDPOINTS: &str = "Endpoints (HTTP)";
    pub(crate) const LIMITS: &str = "Limits";
    pub(crate) const SESSIONS: &str = "Sessions (HTTP)";
    pub(crate) const STREAMS: &str = "Streams";
    pub(crate) const CACHING: &str = "Caching (2026-07-28 results: ttlMs, cacheScope)";
    pub(crate) const STATE: &str = "Request state (2026-07-28 multi round-trip)";
    pub(crate) const TASKS: &str = "Tasks";
    pub(crate) const RESULTS: &str = "Results over their budget";
    pub(crate) const AUTH: &str = "Authorization (HTTP; feature `jwt`)";
    pub(crate) const SHARED: &str = "Shared state (HTTP; feature `redis`)";
    pub(crate) const OPERATIONS: &str = "Audit records and rate limits";
    pub(crate) const TELEMETRY: &str = "Telemetry (features `metrics`, `otel`)";
    pub(crate) const LOGGING: &str = "Logging";

    /// The groups in their order.
    pub(crate) const HEADINGS: &[&str] = &[
        TRANSPORT, ENDPOINTS, LIMITS, SESSIONS, STREAMS, CACHING, STATE, TASKS, RESULTS, AUTH,
        SHARED, OPERATIONS, TELEMETRY, LOGGING,
    ];
}

/// One setting of a server binary: its flag, its environment variable, its `--help` group and
/// line, where it applies and how `--help` shows its default; `apply` reads the value given.
/// The table's rows are [`FieldSetting`]s; `entry::settings` adds its own rows with another
/// `A`.
#[derive(Clone, Copy)]
pub(crate) struct Setting<A> {
    /// The long flag, without its dashes (`body-limit`).
    pub flag: &'static str,
    /// The environment variable read when the flag is not given (empty value: unset).
    pub env: &'static str,
    /// The value's name in `--help` (`SIZE`); `None` for a switch (a flag without a value,
    /// whose variable takes `1`/`true`/`on`/`yes` or `0`/`false`/`off`/`no`).
    pub value: Option<&'static str>,
    /// The `--help` group (one of [`heading`]).
    pub heading: &'static str,
    /// The `--help` line (the variable and the default are added to it).
    pub help: &'static str,
    /// Where it applies.
    pub scope: Scope,
    /// The default `--help` shows, from the configuration the binary starts from (empty: none
    /// shown).
    pub default: fn(&Config) -> String,
    /// Reads the value given; the error says what is wrong, and the caller names the flag or
    /// variable.
    pub apply: A,
}

impl<A> Setting<A> {
    /// The same setting, read by `apply`.
    pub(crate) fn read_by<B>(self, apply: impl FnOnce(A) -> B) -> Setting<B> {
        Setting {
            flag: self.flag,
            env: self.env,
            value: self.value,
            heading: self.heading,
            help: self.help,
            scope: self.scope,
            default: self.default,
            apply: apply(self.apply),
        }
    }
}

/// A field of [`Config`] that is also a flag and an environment variable: one row the table
/// writes, read by parsing the text given into its field.
pub(crate) type FieldSetting = Setting<fn(&mut Config, &str) -> Result<(), String>>;

/// Expands the table of settings (see `config.rs`).
///
/// The table is a list of groups, then the fields of `Config` that belong to no group:
///
/// - `group name: Type, heading HEADING { rows }`: a field `name` of `Config` holding the
///   struct `Type` (public in [`crate::config`]), one field per row; the rows that are flags
///   are listed in `--help` under `HEADING` (one of [`heading`]), so a group is
///   what an operator sees as one section;
/// - `fields { rows }`: fields of `Config` itself (shared state, and concerns with a type of
///   their own, set by hand-written flags).
///
/// Each row is a field: its documentation, `name: Type = default`, then optionally
///
/// - `set |value: Type| ... => "why"`: what the builder's setter does to the value (e.g. a
///   clamp), the reason added to the setter's documentation;
/// - `cli { flag, env, value, scope, help, parse, show }` (grouped rows only): the field is
///   also a flag and an environment variable of a server binary. `value` is the value's name
///   in `--help` (`None`: a switch), `scope` a [`Scope`] variant, `help` the
///   `--help` line, `parse` a `fn(&str) -> Result<Type, String>` (its error says what is
///   wrong, without naming the flag) and `show` a `fn(Type) -> String` writing the default in
///   the form `parse` reads.
///
/// A row's name is the setting's one name: the builder's setter (flat, whatever the group:
/// `ConfigBuilder::body_limit`), the field (`config.limits.body_limit`) and, dashed, the flag.
macro_rules! config_table {
    (
        $(#[$struct_meta:meta])*
        pub struct $config:ident, builder $builder:ident, command line $settings:ident {
            $(
                $(#[$group_meta:meta])*
                group $group:ident : $group_ty:ident, heading $heading:ident {
                    $(
                        $(#[$meta:meta])*
                        $field:ident : $ty:ty = $default:expr
                        $(, set $set:expr => $set_why:literal)?
                        $(, cli {
                            flag: $flag:literal, env: $env:expr, value: $value:expr,
                            scope: $scope:ident,
                            help: $help:expr,
                            parse: $parse:expr, show: $show:expr $(,)?
                        })?;
                    )*
                }
            )*
            fields {
                $(
                    $(#[$own_meta:meta])*
                    $own:ident : $own_ty:ty = $own_default:expr
                    $(, set $own_set:expr => $own_set_why:literal)?;
                )*
            }
        }
    ) => {
        $(#[$struct_meta])*
        pub struct $config {
            $(
                $(#[$group_meta])*
                pub $group: $group_ty,
            )*
            $(
                $(#[$own_meta])*
                pub $own: $own_ty,
            )*
        }

        impl Default for $config {
            fn default() -> Self {
                Self {
                    $($group: $group_ty::default(),)*
                    $($own: $own_default,)*
                }
            }
        }

        $(
            $(#[$group_meta])*
            ///
            #[doc = concat!(
                "The field [`Config::", stringify!($group), "`]. Set each field with the ",
                "[`ConfigBuilder`] method of the same name, or change it in place ",
                "(`config.", stringify!($group), ".<field> = ...`)."
            )]
            #[derive(Debug, Clone)]
            #[non_exhaustive]
            pub struct $group_ty {
                $(
                    $(#[$meta])*
                    pub $field: $ty,
                )*
            }

            impl Default for $group_ty {
                fn default() -> Self {
                    Self {
                        $($field: $default,)*
                    }
                }
            }
        )*

        /// Builds a [`Config`]: starts from [`Config::default`]; each method sets the setting
        /// of the same name, whatever its group; [`build`](Self::build) returns the result. See
        /// [`Config`] for an example.
        #[derive(Debug, Clone, Default)]
        #[must_use]
        pub struct $builder {
            config: $config,
        }

        impl $builder {
            $($(
                #[doc = concat!(
                    "Sets [`", stringify!($group_ty), "::", stringify!($field), "`]",
                    $(" (", $set_why, ")",)?
                    "."
                )]
                pub fn $field(mut self, $field: $ty) -> Self {
                    self.config.$group.$field = config_table!(@set $field: $ty $(, $set)?);
                    self
                }
            )*)*
            $(
                #[doc = concat!(
                    "Sets [`Config::", stringify!($own), "`]",
                    $(" (", $own_set_why, ")",)?
                    "."
                )]
                pub fn $own(mut self, $own: $own_ty) -> Self {
                    self.config.$own = config_table!(@set $own: $own_ty $(, $own_set)?);
                    self
                }
            )*

            /// The built [`Config`].
            pub fn build(self) -> $config {
                self.config
            }
        }

        /// The rows of the command line that set one field of [`Config`] each, in table order.
        pub(crate) const $settings: &[$crate::config::FieldSetting] = &[
            $($($(
                $crate::config::Setting {
                    flag: $flag,
                    env: $env,
                    value: $value,
                    heading: $crate::config::heading::$heading,
                    help: $help,
                    scope: $crate::config::Scope::$scope,
                    default: |config| {
                        let show: fn($ty) -> String = $show;
                        show(Clone::clone(&config.$group.$field))
                    },
                    apply: |config, text| {
                        let parse: fn(&str) -> Result<$ty, String> = $parse;
                        config.$group.$field = parse(text)?;
                        Ok(())
                    },
                },
            )?)*)*
        ];
    };
    (@set $value:ident: $ty:ty) => {
        $value
    };
    (@set $value:ident: $ty:ty, $set:expr) => {{
        let set: fn($ty) -> $ty = $set;
        set($value)
    }};
}

pub(crate) use config_table;
